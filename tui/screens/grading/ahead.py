"""The grading screen's work ahead, between keys: the item's code highlighted into its panes, and the neighbours a key
leads to (next, next ungraded, ...) read from the store with their panes rendered before that key.

Each piece is a step of the screen's IdleWork (tui/idle_work.py), run a block at a time while no key waits, and
dropped once it no longer holds: the person moved on, or a neighbour is no longer reachable by swaps."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.timer import Timer

from gradedesk.core.review.item import SIDES
from gradedesk.core.review.session import NEIGHBOURS, RUN_KEYS, Prepared
from gradedesk.tui.db import NeighbourPrepared
from gradedesk.tui.idle_work import IdleWork, Step
from gradedesk.tui.widgets.answer_pane import AnswerPane

if TYPE_CHECKING:
    from gradedesk.tui.screens.grading.screen import GradingScreen

LATER_NEIGHBOURS = 0.25  # seconds on an item before the neighbours of k and d are read ahead too


class WorkAhead:
    """What one grading screen prepares while the person reads (its steps and timers run on the screen)."""

    def __init__(self, screen: GradingScreen, keys_busy: Callable[[], bool]) -> None:
        self.screen = screen
        self.idle = IdleWork(screen, keys_busy)
        self._later: Timer | None = None

    def highlighted(self, question_pk: int) -> None:
        """The item's code is highlighted: each pane rendered in colour a block a step, then swapped in at once, while
        the item is still shown."""
        shown = partial(self._shows, question_pk)
        for side in SIDES:
            self.idle.add(_while(shown, partial(self._prepare_highlighted, side)))
            self.idle.add(_while(shown, partial(self._show_highlighted, side)))

    def neighbours(self) -> None:
        """Once the item is painted: load its neighbours not ready yet (j's and n's AHEAD deep, from the last one
        ready), and render those that are; k's and d's once the person stays on the item (keys typed
        in a run are j or n: a read ahead for k or d, up to tens of milliseconds at scale, would compete with them
        for nothing)."""
        session = self.screen.session
        self._load(RUN_KEYS)
        self._prerender(list(session.ready.values()))
        if self._later is not None:
            self._later.stop()
        shown = session.item
        self._later = self.screen.set_timer(LATER_NEIGHBOURS, lambda: self._load(NEIGHBOURS)
                                            if session.item is shown else None)

    def _shows(self, question_pk: int) -> bool:
        item = self.screen.session.item
        return item is not None and item.question_pk == question_pk

    def _still_ready(self, neighbour: Prepared) -> bool:
        """Keys can still reach `neighbour` from the item shown (a neighbour of a neighbour too: j's and n's are
        prepared AHEAD deep)."""
        return self.screen.session.ready.get((neighbour.around, neighbour.kind)) is neighbour

    def _pane(self, side: str) -> AnswerPane:
        return self.screen.query_one(f"#{side}", AnswerPane)

    def _prepare_highlighted(self, side: str) -> Step:
        return self._pane(side).prepare(self.screen.pane_view(side), highlighted=True)

    def _show_highlighted(self, side: str) -> Step:
        self._pane(side).show(self.screen.pane_view(side), new_item=False, highlighted=True)
        return lambda: False

    def _load(self, kinds: tuple[str, ...]) -> None:
        for job in self.screen.session.prepare(kinds):
            self.screen.desk.submit(NeighbourPrepared, job, self._ready)

    def _ready(self, neighbours: tuple[Prepared, ...]) -> None:
        self._prerender(self.screen.session.prepared(neighbours))

    def _prerender(self, neighbours: list[Prepared]) -> None:
        """Render the first screenful of the panes of the neighbours prepared around the item shown, so that their key
        only paints (the keys the desk's speed goals name: next and next ungraded); a pane a step, and none once the
        person has moved on."""
        for neighbour in neighbours:
            if neighbour.item is not None and neighbour.kind in RUN_KEYS:
                for side in SIDES:
                    self.idle.add(_while(partial(self._still_ready, neighbour),
                                         partial(self._prerender_pane, neighbour, side)))

    def _prerender_pane(self, neighbour: Prepared, side: str) -> Step:
        assert neighbour.item is not None
        return self._pane(side).prepare(self.screen.pane_view(side, neighbour.item))


def _while(holds: Callable[[], bool], make: Callable[[], Step]) -> Step:
    """A step that runs the step `make()` gives (made at its first call) while `holds()`."""
    step: Step | None = None

    def run() -> bool:
        nonlocal step
        if not holds():
            return False
        if step is None:
            step = make()
        return step()
    return run
