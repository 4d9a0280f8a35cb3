"""`index` names each file it cannot read (with the reason) instead of counting it among binaries and huge files, and
keeps that file's earlier index until it can be read again. Run as a real process with file permissions enforced: as
root, which reads any file, with the capabilities that override permissions dropped (setpriv, util-linux)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures import REPO_ROOT
from tests.fixtures.desk import rows
from tests.fixtures.sample_repo import make_sample_repo


def _permissions_enforced() -> list[str]:
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root reads every file, and setpriv (util-linux) is not here to drop that")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--"]


def _index(repo: Path, db: Path) -> tuple[str, list[str]]:
    """stdout, and the lines of stderr that are not progress."""
    done = subprocess.run([*_permissions_enforced(), sys.executable, "-m", "gradedesk.tui", "index", str(repo),
                           "--store", str(db)], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout, [line for line in done.stderr.splitlines() if not line.startswith("indexing: ")]


def test_index_names_a_file_it_cannot_read_and_keeps_its_earlier_index(tmp_path):
    repo, db = make_sample_repo(tmp_path / "parcels"), tmp_path / "store.db"
    (repo / "notes.txt").chmod(0)  # unreadable from the first index on: never stored
    out, err = _index(repo, db)
    warning = "gradedesk: warning: {}/{}: cannot be read (Permission denied); not indexed"
    assert err == [warning.format(repo, "notes.txt")]
    assert "2 skipped (binary or over 1 MB), 1 unreadable (named above), 0 removed" in out
    before = rows(db, "SELECT chunk_id FROM chunks WHERE file_path = 'inventory.py'")
    assert before and not rows(db, "SELECT 1 FROM files WHERE path = 'notes.txt'")

    (repo / "inventory.py").write_text((repo / "inventory.py").read_text() + "\n# changed\n")
    (repo / "inventory.py").chmod(0)  # changed, then unreadable: its earlier index stays
    _, err = _index(repo, db)
    assert err == [warning.format(repo, "inventory.py"), warning.format(repo, "notes.txt")]
    assert rows(db, "SELECT chunk_id FROM chunks WHERE file_path = 'inventory.py'") == before
