"""When Python's cyclic garbage collector may run in the desk.

A full (generation-2) collection walks every tracked object (Textual, Rich, Pygments, the highlight cache): 70-120 ms
on a 2-core machine. Landing between a key and the repaint, it was the whole repaint tail (desk_scale: p95 118 ms
after `j`, 183 ms after `n`, p50 33-36 ms). So the objects alive once the desk is open are frozen out of every later
walk, and the collector waits from a key until the item it asked for is painted; it runs right after, while the
person reads. Garbage is still freed: reference counting is untouched, and cycles are collected after the paint.
An index loaded for retrieval (the explore screen: ~170,000 objects for the standard library) is frozen the same way
once it is loaded: walking it made each full collection 100-300 ms, landing between a budget key and its bundle.

What the desk keeps after startup (renderings of the items around, Textual's and the highlighter's caches) still made
Python's own full collections 50-110 ms every few seconds while keys were typed, one of them landing in a burst of keys
now and then. So while a desk screen is open (`hold_full_collections`) Python runs none by itself: the screen runs one
when the person pauses (`collect_quietly`), and freezes what survives it, so that the next walks only what came since.
"""

from __future__ import annotations

import gc
from collections.abc import Hashable

_frozen: set[Hashable] = set()
_holders = 0
_threshold: tuple[int, int, int] | None = None  # Python's thresholds before the first hold
NO_FULL = 1_000_000  # generation-1 collections before a full one: none, in practice


def freeze_startup() -> None:
    """Once per process: collect what startup left, then leave the survivors (modules, classes, the app's long-lived
    objects) out of every later collection."""
    freeze_once("startup")


def freeze_once(what: Hashable) -> None:
    """Once per process for each `what` (the startup, an index loaded): collect what is garbage by now, then leave the
    survivors out of every later collection."""
    if what not in _frozen:
        _frozen.add(what)
        gc.collect()
        gc.freeze()


class CollectorPause:
    """Pause the collector until `resume()`; nested pauses are one pause. A collector someone else switched off
    (Textual pauses it while scrolling) is left off."""

    def __init__(self) -> None:
        self.paused = False

    def pause(self) -> None:
        if not self.paused and gc.isenabled():
            gc.disable()
            self.paused = True

    def resume(self) -> None:
        if self.paused:
            self.paused = False
            gc.enable()


def hold_full_collections() -> None:
    """A desk screen opened: no full collection by Python itself until every screen that held them has released."""
    global _holders, _threshold
    if _holders == 0:
        _threshold = gc.get_threshold()
        gc.set_threshold(_threshold[0], _threshold[1], NO_FULL)
    _holders += 1


def release_full_collections() -> None:
    """A desk screen closed: once none holds them, Python's thresholds come back, and what was frozen is walked
    again (a process that goes on after a desk, such as a test run, collects the desk's cycles as usual)."""
    global _holders
    _holders -= 1
    if _holders == 0 and _threshold is not None:
        gc.set_threshold(*_threshold)
        gc.unfreeze()
        _frozen.clear()


def collect_quietly() -> None:
    """The person has paused: a full collection now, then its survivors frozen (left out of every later walk, so the
    next walks only what came since: a few milliseconds, not a hundred). Frozen objects that later form garbage
    cycles stay until the desk closes; what the desk keeps is freed by reference counting when it is dropped."""
    gc.collect()
    gc.freeze()
