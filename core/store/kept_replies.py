"""Model replies the store could not take, kept beside it so that nothing already received (and paid for) is lost.

Every command that asks a model (`run`'s answers, `judge`'s verdicts, scores and pairwise replies) stores each reply
through a `Keeper`: a write the store refuses (locked past its busy timeout, read-only, disk full) is retried; if the
store stays unwritable the reply goes, as one JSON line naming what it is (`of`), to `STORE.unsaved-replies.jsonl`
beside the store, and the command ends in one line naming that file. The next `run` or `judge` on the store takes
every kept reply in (`take_in`, with the writer of each kind) before it asks for anything, so nothing is asked twice,
and says so. A line of a kind the command has no writer for stays in the file.

In: a store, a kind's name and its writer (one transaction per reply), replies as JSON-ready dicts. Out: the replies
stored, or kept in the file and read back.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.jsonl import loads, read_lines
from gradedesk.core.store.connection import Store, StoreError

Writer = Callable[[Store, dict[str, Any]], None]
STORE_RETRIES = (0.5, 1.0, 2.0)  # seconds before each new try of a reply the store would not take
OLDEST_KIND = "answer"  # lines kept before kinds were named are `run`'s answers


def kept_path(store_path: str | os.PathLike[str]) -> Path:
    return Path(f"{store_path}.unsaved-replies.jsonl")


def keep(store_path: str | os.PathLike[str], of: str, reply: dict[str, Any]) -> Path:
    """Append one reply of kind `of` to the file beside the store, on disk before this returns."""
    path = kept_path(store_path)
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"of": of, "reply": reply}, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise UserError(f"{path}: cannot keep a reply the store could not take ({exc.strerror}); the reply is lost, "
                        "and its call will be made again next time") from None
    return path


def kept(store_path: str | os.PathLike[str]) -> list[tuple[str, dict[str, Any]]]:
    """The replies kept beside the store, each with its kind (none when there is no file); a line cut by a crash is
    skipped."""
    path = kept_path(store_path)
    if not path.exists():
        return []
    out = []
    for line in read_lines(path):
        try:
            value = loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and isinstance(value.get("reply"), dict):
            out.append((str(value.get("of")), value["reply"]))
        elif isinstance(value, dict):
            out.append((OLDEST_KIND, value))
    return out


def take_in(store: Store, writers: Mapping[str, Writer]) -> int:
    """Store the kept replies of the kinds in `writers`, each in its own transaction; the file is removed once all
    are in (the lines of other kinds are written back, beside it, then renamed over it). How many were stored."""
    path = kept_path(store.path)
    replies = kept(store.path)
    if not replies:
        return 0
    left = [(of, reply) for of, reply in replies if of not in writers]
    for of, reply in replies:
        if of in writers:
            writers[of](store, reply)
    if left:
        spare = path.with_name(path.name + ".tmp")
        spare.write_text("".join(json.dumps({"of": of, "reply": reply}, ensure_ascii=False) + "\n"
                                 for of, reply in left), encoding="utf-8")
        spare.replace(path)
    else:
        path.unlink(missing_ok=True)
    return len(replies) - len(left)


class Keeper:
    """Stores a command's replies of one kind as they come, and keeps what the store will not take."""

    def __init__(self, store: Store, of: str, write: Writer, command: str) -> None:
        self.store, self.of, self.write, self.command = store, of, write, command
        self.faults: list[StoreError] = []
        self.kept = 0  # replies kept beside the store, not stored (yet)

    def put(self, reply: dict[str, Any], *, received: bool = True) -> None:
        """Store `reply`, retried while the store refuses it (after a first fault, one try each: the store is known
        to be unwritable); still refused, a reply `received` from the model is kept beside the store (a failed call
        received nothing: it is made again next time)."""
        for pause in (*STORE_RETRIES, None) if not self.faults else (None,):
            try:
                self.write(self.store, reply)
                return
            except StoreError as exc:
                if pause is not None:
                    time.sleep(pause)
                    continue
                self.faults.append(exc)
                if received:
                    keep(self.store.path, self.of, reply)
                    self.kept += 1

    def finish(self) -> None:
        """After the last reply: when some were refused, try once more to take the kept ones in (the lock may be
        gone by now); still refused, end in one line naming the file and the command that takes them in."""
        if not self.faults:
            return
        try:
            take_in(self.store, {self.of: self.write})
            self.kept = 0
        except StoreError:
            n = self.kept
            raise StoreError(f"{self.faults[0]}. {n} repl{'y' if n == 1 else 'ies'} received could not be stored "
                             f"and {'is' if n == 1 else 'are'} kept in {kept_path(self.store.path)}: the next "
                             f"`gradedesk {self.command}` on this store takes them in") from None
