"""Model replies the store could not take, kept beside it so that nothing already received (and paid for) is lost.

When a reply cannot be written (the store is locked past its busy timeout, read-only, or the disk is full) the runner
retries it; if the store stays unwritable the reply goes, as one JSON line, to `STORE.unsaved-replies.jsonl` beside the
store. The next `gradedesk run` on that store takes every kept reply in (into the answer row it was for) before it asks
for anything, removes the file, and says so. In: a store path and replies; out: the file, and the replies read back.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.jsonl import loads, read_lines


def kept_path(store_path: str | os.PathLike[str]) -> Path:
    return Path(f"{store_path}.unsaved-replies.jsonl")


def keep(store_path: str | os.PathLike[str], reply: dict[str, Any]) -> Path:
    """Append one reply to the file beside the store, on disk before this returns."""
    path = kept_path(store_path)
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(reply, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise UserError(f"{path}: cannot keep a reply the store could not take ({exc.strerror}); the reply is lost, "
                        "and its answer stays pending for the next run") from None
    return path


def kept(store_path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The replies kept beside the store (none when there is no file); a line cut by a crash is skipped."""
    path = kept_path(store_path)
    if not path.exists():
        return []
    out = []
    for line in read_lines(path):
        try:
            value = loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out
