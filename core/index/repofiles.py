"""Which files of a repository to index: .gitignore respected, vendored/build folders skipped, symlinks kept inside,
and only regular files (a FIFO, socket or device named like a source file would block the reader or never end).

In a git checkout `git ls-files --cached --others --exclude-standard` gives exactly git's view (every nested
.gitignore, .git/info/exclude). Elsewhere the root's and nested .gitignore files are read with fnmatch semantics
(`!` negation, trailing `/` for folders, a `/` inside a pattern anchors it to its .gitignore's folder, `**`).
"""

from __future__ import annotations

import fnmatch
import os
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", "env", ".env", "build", "dist", ".tox",
    ".nox", "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".eggs", ".idea", ".vscode",
    "bower_components", "vendor", "third_party", ".cache", "htmlcov",
})
SKIP_SUFFIXES = (".pyc", ".pyo", ".so", ".dll", ".dylib", ".egg-info", ".min.js", ".lock", ".db", ".sqlite")
MAX_FILE_BYTES = 1_000_000


@dataclass(frozen=True)
class _Rule:
    base: str  # folder of the .gitignore, relative, '' for the root
    pattern: str
    negate: bool
    dir_only: bool
    anchored: bool

    def matches(self, rel: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        if self.base:
            if not rel.startswith(self.base + "/"):
                return False
            rel = rel[len(self.base) + 1:]
        if self.anchored:
            return fnmatch.fnmatchcase(rel, self.pattern) or (
                self.pattern.startswith("**/") and fnmatch.fnmatchcase(rel, self.pattern[3:]))
        return fnmatch.fnmatchcase(rel.rsplit("/", 1)[-1], self.pattern)


def _parse_gitignore(path: Path, base: str) -> list[_Rule]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    rules = []
    for line in text.splitlines():
        line = line.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        line = line[1:] if negate else line
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        rules.append(_Rule(base, line.lstrip("/"), negate, dir_only, anchored))
    return rules


def _ignored(rules: list[_Rule], rel: str, is_dir: bool) -> bool:
    ignored = False
    for rule in rules:  # the last matching rule wins, as in git
        if rule.matches(rel, is_dir):
            ignored = not rule.negate
    return ignored


def _skip_name(name: str) -> bool:
    return name.endswith(SKIP_SUFFIXES)


def _inside(root_real: str, path: str) -> bool:
    real = os.path.realpath(path)
    return real == root_real or real.startswith(root_real + os.sep)


def _git_files(root: Path) -> list[str] | None:
    if not (root / ".git").exists():
        return None
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None  # no git, or not a usable checkout: fall back to reading .gitignore ourselves
    return [p for p in out.decode("utf-8", errors="surrogateescape").split("\0") if p]


def list_files(root: str | os.PathLike) -> list[str]:
    """Relative '/'-separated paths of candidate files under root, sorted."""
    root = Path(root).resolve()
    root_real = str(root)
    listed = _git_files(root)
    out: list[str] = []
    if listed is not None:
        for rel in listed:
            parts = rel.split("/")
            if any(p in SKIP_DIRS for p in parts[:-1]) or _skip_name(parts[-1]):
                continue
            path = root / rel
            if path.is_file() and _inside(root_real, str(path)):
                out.append(rel)
        return sorted(out)
    rules: list[_Rule] = []
    for dirpath, dirnames, filenames in os.walk(root):  # followlinks=False: symlinked folders are not entered
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        if ".gitignore" in filenames:
            rules = rules + _parse_gitignore(Path(dirpath) / ".gitignore", rel_dir)
        keep = []
        for d in sorted(dirnames):
            rel = f"{rel_dir}/{d}" if rel_dir else d
            if d in SKIP_DIRS or d.endswith(".egg-info") or _ignored(rules, rel, True):
                continue
            keep.append(d)
        dirnames[:] = keep
        for f in filenames:
            rel = f"{rel_dir}/{f}" if rel_dir else f
            full = os.path.join(dirpath, f)
            if _skip_name(f) or _ignored(rules, rel, False):
                continue
            if os.path.islink(full) and not _inside(root_real, full):
                continue  # never follow a symlink out of the root
            if not _regular(full):
                continue
            out.append(rel)
    return sorted(out)


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def read_text_file(path: str | os.PathLike) -> tuple[bytes, str] | None:
    """(bytes, text) of an indexable file, or None for binaries (a NUL byte), huge files and anything that is not a
    regular file (checked on the open file: a FIFO put in place after listing cannot block the read). OSError when it
    cannot be opened or read (no permission, an I/O error): the indexer names it."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES or b"\0" in data:
        return None
    return data, data.decode("utf-8", errors="replace")
