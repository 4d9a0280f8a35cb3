"""Work the desk does between keys, a few milliseconds a turn of the event loop, none while a key is on its way.

After an item is painted the desk still renders the rest of both panes (past the view), the panes again once the code
is highlighted, and the first screenful of the neighbours prepared ahead: about as much work again as the item's own
paint. Done at once, it held the event loop for tens of milliseconds, and a key typed meanwhile (keys in a burst come
50 ms apart) waited behind it. Here each piece of work is a list of steps (a step renders a block or a pane: a few
milliseconds) run from timers, up to TURN of steps a turn of the loop, and no step runs while a key travels or waits:
the key, its item and its paint go first. A step returns True while more of its work remains.

`IdleWork.busy(app)` says whether any such work of that app remains (tests and benchmarks wait for it, as the person
reading an item does).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from weakref import WeakSet

from textual.app import App
from textual.dom import DOMNode

Step = Callable[[], bool]

KEY_PAUSE = 0.01  # seconds between looks at the keys while one is on its way
NEXT_STEP = 0.0005  # seconds before the next step: another turn of the loop, where a key may come first
TURN = 0.004  # seconds of steps a turn at most (a turn per step made the work last seconds on a loaded machine)


class IdleWork:
    _all: WeakSet[IdleWork] = WeakSet()

    def __init__(self, owner: DOMNode, keys_busy: Callable[[], bool]) -> None:
        self.owner = owner
        self.keys_busy = keys_busy
        self._steps: deque[tuple[float, Step]] = deque()  # (not before this time on perf_counter, the step)
        self._scheduled = False
        self.app: App | None = None  # the app whose loop runs the steps (known once one is added, in its context)
        IdleWork._all.add(self)

    @property
    def pending(self) -> bool:
        return bool(self._steps)

    def add(self, step: Step, *, after: float = 0.0) -> None:
        """Run `step` (again and again while it returns True) once the work added before it is done, and not before
        `after` seconds from now (work only worth doing if the person stays: none for an item keys pass through)."""
        self.app = self.owner.app
        self._steps.append((time.perf_counter() + after, step))
        self._schedule(max(after, NEXT_STEP))

    def clear(self) -> None:
        self._steps.clear()

    def _schedule(self, delay: float) -> None:
        """Run the steps after `delay`, on the owner's message queue. Not a Textual timer: one whose task starts later
        than its delay after it was made (a loaded machine, another thread holding Python's lock) skips its only tick
        and never fires, and the work, marked scheduled, then never ran: a desk that never went idle."""
        if not self._scheduled and self._steps and self.owner.is_attached:
            self._scheduled = True
            asyncio.get_running_loop().call_later(delay, self._due)

    def _due(self) -> None:
        if not (self.owner.is_attached and self.owner.call_later(self._run)):  # a closed owner's work is dropped
            self._scheduled = False

    def _run(self) -> None:
        self._scheduled = False
        if not self._steps:
            return
        if self.keys_busy():
            self._schedule(KEY_PAUSE)
            return
        now = time.perf_counter()
        until = now + TURN
        while self._steps and now < until:  # steps for up to TURN a turn: few turns, none long
            due, step = self._steps[0]
            if due > now:
                self._schedule(due - now)
                return
            if not step():
                self._steps.popleft()
            now = time.perf_counter()
        self._schedule(NEXT_STEP)

    @classmethod
    def busy(cls, app: App) -> bool:
        return any(w.pending and w.app is app and w.owner.is_attached for w in cls._all)
