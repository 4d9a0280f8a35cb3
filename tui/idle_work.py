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

import time
from collections import deque
from collections.abc import Callable
from weakref import WeakSet

from textual.app import App
from textual.dom import DOMNode

Step = Callable[[], bool]

KEY_PAUSE = 0.01  # seconds between looks at the keys while one is on its way
NEXT_STEP = 0.0005  # seconds before the next step: another turn of the loop (Textual's timers refuse 0)
TURN = 0.004  # seconds of steps a turn at most (a turn per step made the work last seconds on a loaded machine)


class IdleWork:
    _all: WeakSet[IdleWork] = WeakSet()

    def __init__(self, owner: DOMNode, keys_busy: Callable[[], bool]) -> None:
        self.owner = owner
        self.keys_busy = keys_busy
        self._steps: deque[Step] = deque()
        self._scheduled = False
        self.app: App | None = None  # the app whose loop runs the steps (known once one is added, in its context)
        IdleWork._all.add(self)

    @property
    def pending(self) -> bool:
        return bool(self._steps)

    def add(self, step: Step) -> None:
        """Run `step` (again and again while it returns True) once the work added before it is done."""
        self.app = self.owner.app
        self._steps.append(step)
        self._schedule(NEXT_STEP)

    def clear(self) -> None:
        self._steps.clear()

    def _schedule(self, delay: float) -> None:
        if not self._scheduled and self._steps and self.owner.is_attached:
            self._scheduled = True
            self.owner.set_timer(delay, self._run)

    def _run(self) -> None:
        self._scheduled = False
        if not self._steps:
            return
        if self.keys_busy():
            self._schedule(KEY_PAUSE)
            return
        until = time.perf_counter() + TURN
        while self._steps and time.perf_counter() < until:  # steps for up to TURN a turn: few turns, none long
            if not self._steps[0]():
                self._steps.popleft()
        self._schedule(NEXT_STEP)

    @classmethod
    def busy(cls, app: App) -> bool:
        return any(w.pending and w.app is app and w.owner.is_attached for w in cls._all)
