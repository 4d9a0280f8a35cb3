"""When Python's cyclic garbage collector may run in the desk.

A full (generation-2) collection walks every tracked object (Textual, Rich, Pygments, the highlight cache): 70-120 ms
on a 2-core machine. Landing between a key and the repaint, it was the whole repaint tail (desk_scale: p95 118 ms
after `j`, 183 ms after `n`, p50 33-36 ms). So the objects alive once the desk is open are frozen out of every later
walk, and the collector waits from a key until the item it asked for is painted; it runs right after, while the
person reads. Garbage is still freed: reference counting is untouched, and cycles are collected after the paint.
An index loaded for retrieval (the explore screen: ~170,000 objects for the standard library) is frozen the same way
once it is loaded: walking it made each full collection 100-300 ms, landing between a budget key and its bundle.
"""

from __future__ import annotations

import gc
from collections.abc import Hashable

_frozen: set[Hashable] = set()


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
