"""Where a command's output files go, and how they are written: the one helper every writer uses.

In: the output paths a command was given (by flag), the store it opened and the files it reads. Out: either a
`UserError` naming the flag, when an output is the store (or its -wal, -shm or -journal), one of the command's
inputs, or another output of the same command; or the files written. Sameness is checked by device and inode as well
as by resolved path, so a hard link or a symlink to the store is caught, and so is a sidecar that does not exist yet.

A regular file is written to a temporary file beside its target and renamed over it, every temporary first and the
renames last, so a command that fails leaves every file as it was. `-` is stdout; a FIFO or a character device
(`/dev/stdout`, a pipe made with mkfifo) is streamed to, as a rename would replace it.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from gradedesk.core.errors import UserError

STORE_SIDECARS = ("", "-wal", "-shm", "-journal")


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _streamed(path: str) -> bool:
    """stdout, or a file a rename must not replace (a FIFO, a terminal, /dev/null)."""
    if path == "-":
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)


def check_outputs(outputs: Mapping[str, str | os.PathLike[str] | None], *, store: str | os.PathLike[str] | None = None,
                  reads: Iterable[str | os.PathLike[str] | None] = ()) -> None:
    """Refuse (UserError naming the flag) an output that is the store, one of its sidecars, a file read, or another
    output. `outputs` maps each flag to its path (None or '-': not a file)."""
    guarded: list[tuple[str, str]] = []  # (what it is, path)
    if store is not None:
        guarded += [("the store" if not s else f"the store's {s[1:]} file", f"{store}{s}") for s in STORE_SIDECARS]
    guarded += [("a file this command reads", str(r)) for r in reads if r is not None]
    seen: list[tuple[str, str]] = []
    for flag, raw in outputs.items():
        if raw is None or str(raw) == "-":
            continue
        path = str(raw)
        if _streamed(path):
            continue
        for what, other in [*guarded, *[(f"also the output of {f}", p) for f, p in seen]]:
            ident = _identity(path)
            same = os.path.realpath(path) == os.path.realpath(other) or (
                ident is not None and ident == _identity(other))
            if same:
                raise UserError(f"{flag}: {path} is {what}; write the output somewhere else (nothing was written)")
        seen.append((flag, path))


def write_texts(texts: Sequence[tuple[str, str]]) -> None:
    """Write each (path, text): '-' to stdout, FIFOs and devices streamed, regular files whole or not at all (every
    temporary file is written before the first rename, so a failure leaves every target untouched)."""
    staged: list[tuple[str, str]] = []  # (temporary, target)
    path = "-"
    try:
        for path, text in texts:
            if path == "-":
                sys.stdout.write(text)
                continue
            if _streamed(path):
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(text)
                continue
            target = os.path.realpath(path)  # a symlink stays a symlink; its target gets the new text
            tmp = str(Path(target).with_name(f".{Path(target).name}.tmp{os.getpid()}"))
            staged.append((tmp, target))
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        for tmp, target in staged:
            os.replace(tmp, target)
    except OSError as exc:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise UserError(f"{path}: cannot write ({exc.strerror}); no output file was changed") from None
