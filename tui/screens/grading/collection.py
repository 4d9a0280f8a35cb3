"""When the grading desk lets Python's garbage collector run (the collector itself: tui/collector.py).

Never between a key and its repaint (a pause from the key's item request until the item is painted, at most
COLLECTOR_PAUSE_MAX seconds if the request fails), no full collection by Python while the desk is open, and one full
collection once the person has pressed no key for QUIET_SECONDS and the work between keys is done."""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import Screen
from textual.timer import Timer

from gradedesk.tui.collector import (CollectorPause, collect_quietly, freeze_startup, hold_full_collections,
                                     release_full_collections)
from gradedesk.tui.idle_work import IdleWork

COLLECTOR_PAUSE_MAX = 1.0  # seconds: the collector is back on even if a requested item never arrives (a failed job)
QUIET_SECONDS = 1.0  # without a key for this long, the person is reading: the desk collects cycles


class DeskCollection:
    """The collector's schedule for one grading screen (its timers run on the screen)."""

    def __init__(self, screen: Screen, keys_busy: Callable[[], bool]) -> None:
        self.screen, self.keys_busy = screen, keys_busy
        self._pause = CollectorPause()
        self._resume_timer: Timer | None = None
        self._quiet_timer: Timer | None = None

    def mounted(self) -> None:
        hold_full_collections()

    def opened(self) -> None:
        """The first item is shown: what was loaded to open the desk is frozen once painted."""
        self.screen.call_after_refresh(freeze_startup)
        self.key()

    def key(self) -> None:
        """A key: the quiet collection waits QUIET_SECONDS from now."""
        if self._quiet_timer is not None:
            self._quiet_timer.stop()
        self._quiet_timer = self.screen.set_timer(QUIET_SECONDS, self._collect_if_quiet)

    def _collect_if_quiet(self) -> None:
        if self.keys_busy() or IdleWork.busy(self.screen.app):
            self.key()
        else:
            collect_quietly()

    def pause(self) -> None:
        """An item is on its way: no collection until it is painted (or COLLECTOR_PAUSE_MAX has passed)."""
        self._pause.pause()
        if self._resume_timer is not None:
            self._resume_timer.stop()
        self._resume_timer = self.screen.set_timer(COLLECTOR_PAUSE_MAX, self.resume)

    def resume(self) -> None:
        self._pause.resume()

    def unmounted(self) -> None:
        self._pause.resume()
        release_full_collections()
