"""The layers hold (import-linter contracts in pyproject.toml, each rule proven to break on a copy that violates it:
a lower layer importing a higher one, independent siblings importing each other, SQLite opened outside core/store/, a
screen importing the store, the grading screen's modules in a circle);
core/ never loads textual; --help and --version stay fast (no textual, numpy, sqlite_utils or openai)."""

from __future__ import annotations

import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gradedesk.core

from tests.fixtures import REPO_ROOT

CORE_MODULES = sorted(m.name for m in pkgutil.walk_packages(gradedesk.core.__path__, "gradedesk.core."))


def test_importing_every_core_module_leaves_textual_out():
    code = (
        "import importlib, pkgutil, sys, gradedesk.core\n"
        "for m in pkgutil.walk_packages(gradedesk.core.__path__, 'gradedesk.core.'):\n"
        "    if not m.name.endswith('__main__'):\n"
        "        importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n == 'textual' or n.startswith(('textual.', 'gradedesk.tui')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"core imported: {out.stdout.strip()}"
    assert len(CORE_MODULES) > 5


def test_help_and_version_do_not_import_textual():
    code = (
        "import sys\nfrom gradedesk.tui.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('textual', 'numpy', 'sqlite_utils', 'openai') if m in sys.modules]\n"
        "print(heavy or 'clean', file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "clean" in out.stderr and "usage: gradedesk" in out.stdout


def lint_imports(cwd: Path, extra_path: Path | None = None) -> subprocess.CompletedProcess:
    """Run the project's import-linter contracts (pyproject.toml) against the gradedesk importable from `extra_path`."""
    env = {**os.environ, "PYTHONPATH": str(extra_path)} if extra_path else None
    return subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--config", str(REPO_ROOT / "pyproject.toml"),
                           "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_the_layer_contract_is_kept():
    out = lint_imports(REPO_ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "gradedesk layers KEPT" in out.stdout and "core never imports textual KEPT" in out.stdout


LAYERS = "gradedesk layers"


@pytest.mark.parametrize(("module", "line", "broken"), [
    # a lower layer, upward
    ("core/text/hashing.py", "from gradedesk.core.grading import judge", LAYERS),
    ("core/store/run_records.py", "from gradedesk.tui import app", LAYERS),
    # ordered where the code is ordered: agreement sits on grading, grading on evidence, evidence on retrieval
    ("core/grading/rules.py", "from gradedesk.core.agreement import report", LAYERS),
    ("core/evidence/stored.py", "from gradedesk.core.grading import judge", LAYERS),
    ("core/retrieval/graph.py", "from gradedesk.core.evidence import bundle", LAYERS),
    ("core/config.py", "from gradedesk.core import limits", LAYERS),  # limits has its place: above config
    # `|`: independent siblings may not import each other
    ("core/runs/questions.py", "from gradedesk.core.review import queue", LAYERS),
    ("core/agreement/report.py", "from gradedesk.core.runs import runner", LAYERS),
    ("core/retrieval/graph.py", "from gradedesk.core.providers import chat", LAYERS),
    ("core/store/questions.py", "from gradedesk.core.text import tokens", LAYERS),
    ("core/jsonl.py", "from gradedesk.core import progress", LAYERS),
    # only core/store/ opens SQLite, at import time or inside a function
    ("core/cli/runs_cmd.py", "import sqlite3", "only the store opens SQLite"),
    ("tui/app.py", "    import sqlite_utils  # inside a function still counts", "only the store opens SQLite"),
    ("core/grading/rules.py", "    import textual  # inside a function still counts", "core never imports textual"),
    # screens reach the store through the desk's one door (tui/db.py), never by importing it
    ("tui/screens/queue.py", "from gradedesk.core.store import desk", "screens do not import the store"),
    ("tui/screens/grading/view.py", "    from gradedesk.core.store.connection import open_store",
     "screens do not import the store"),
    # the grading screen's modules: the screen above the key table above the functions its rows run
    ("tui/screens/grading/grades.py", "from gradedesk.tui.screens.grading import screen",
     "the grading screen is layered"),
    ("tui/screens/grading/moves.py", "from gradedesk.tui.screens.grading import opens",
     "the grading screen is layered"),
    ("tui/screens/grading/host.py", "from gradedesk.tui.screens.grading import keys", "the grading screen is layered"),
])
def test_each_rule_of_the_contract_breaks_on_a_copy_that_violates_it(tmp_path, module, line, broken):
    copy = tmp_path / "gradedesk"
    for folder in ("core", "tui"):
        shutil.copytree(REPO_ROOT / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / module
    body = target.read_text(encoding="utf-8")
    if line.startswith(" "):
        body += f"\n\ndef _violation():\n{line}\n"
    else:
        body += f"\n{line}\n"
    target.write_text(body, encoding="utf-8")
    out = lint_imports(tmp_path, extra_path=tmp_path)
    assert out.returncode != 0
    assert f"{broken} BROKEN" in out.stdout, out.stdout


def test_the_top_level_holds_only_what_the_layout_names():
    """pyproject.toml, tui/, core/, store.db-schema.sql, benchmark-questions.jsonl, tests/, plus README.md, .ci/,
    benchmarks/, packaging (setup.py, .gitignore) and the documentation site (docs/, mkdocs.yml): a file a command wrote into the working tree (an align run's
    rubric) must not be committed beside them."""
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files"], cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout
    top = {line.split("/", 1)[0] for line in listed.splitlines() if line}
    assert top <= {"pyproject.toml", "tui", "core", "store.db-schema.sql", "benchmark-questions.jsonl", "tests",
                   "README.md", ".ci", "benchmarks", "setup.py", ".gitignore", "docs", "mkdocs.yml"}
