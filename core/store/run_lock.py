"""One process at a time judges a run: `judging(store_path, run_id)` holds an exclusive lock on the file
`STORE.judge-run-N.lock` beside the store while a judge makes its calls.

Two judges on one run would both make every call (the store stays right, the spend doubles), so the second is refused
with one line naming the process that holds the run. The lock is the operating system's (flock), so it is freed
however the holder ends, kill -9 included; the file stays (it holds only the last holder's process, host and start).
"""

from __future__ import annotations

import fcntl
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gradedesk.core.errors import UserError


def lock_path(store_path: str | os.PathLike[str], run_id: int) -> Path:
    return Path(f"{os.fspath(store_path)}.judge-run-{run_id}.lock")


@contextmanager
def judging(store_path: str | os.PathLike[str], run_id: int) -> Iterator[None]:
    """Hold the run for this process's judge; UserError naming the holder when another process holds it."""
    path = lock_path(store_path, run_id)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise UserError(f"{path}: cannot open the lock that keeps two judges off one run ({exc.strerror})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 300, 0).decode("utf-8", "replace").strip() or "another process"
            raise UserError(f"run {run_id} of {os.fspath(store_path)} is being judged by {holder}: wait for it to "
                            "finish, or stop it and judge again (calls already made are kept)") from None
        since = time.strftime("%H:%M:%S UTC", time.gmtime())
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"process {os.getpid()} on {socket.gethostname()} (since {since})\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # frees the lock
