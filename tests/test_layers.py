"""core/ never imports textual; --help and --version stay fast (no textual, numpy, sqlite_utils or openai)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import gradedesk.core

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


def test_no_core_source_mentions_the_ui_in_an_import():
    # not even inside a function: the commands that open the desk live in tui/commands (tui/cli.py joins the halves)
    import re

    pattern = re.compile(r"^\s*(from|import)\s+(textual|tui|gradedesk\.tui)\b", re.M)
    offenders = [str(p) for p in Path(gradedesk.core.__file__).parent.rglob("*.py") if pattern.search(p.read_text("utf-8"))]
    assert offenders == []
