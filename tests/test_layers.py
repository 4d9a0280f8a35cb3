"""The layers hold (an import-linter contract in pyproject.toml, proven to break when a lower layer imports a higher
one); core/ never loads textual; --help and --version stay fast (no textual, numpy, sqlite_utils or openai)."""

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


@pytest.mark.parametrize(("module", "line", "broken"), [
    ("core/text/hashing.py", "from gradedesk.core.grading import judge", "gradedesk layers"),  # a lower layer, upward
    ("core/store/runs.py", "from gradedesk.tui import app", "gradedesk layers"),
    ("core/grading/rules.py", "    import textual  # inside a function still counts", "core never imports textual"),
])
def test_the_contract_breaks_when_a_lower_layer_imports_a_higher_one(tmp_path, module, line, broken):
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
    benchmarks/ and packaging (setup.py, .gitignore): a file a command wrote into the working tree (an align run's
    rubric) must not be committed beside them."""
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files"], cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout
    top = {line.split("/", 1)[0] for line in listed.splitlines() if line}
    assert top <= {"pyproject.toml", "tui", "core", "store.db-schema.sql", "benchmark-questions.jsonl", "tests",
                   "README.md", ".ci", "benchmarks", "setup.py", ".gitignore"}
