"""The one shape long work reports progress in, so one progress display (core/cli/output.progress_bars) serves
indexing, runs and every grader: `progress(stage, done, total, failed)`.

Off a terminal there is no bar to redraw, so `ProgressState` keeps each stage's counts and start time and words a
plain line for it (done/total, failures, rate, time left); core/cli/output prints those lines on a timer."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


class Progress(Protocol):
    """`progress(stage, done, total, failed)`; a grader whose replies can be unusable says how many of the done were
    (`unusable`), so usable, unusable and failed are counted apart."""

    def __call__(self, stage: str, done: int, total: int, failed: int = 0, *, unusable: int | None = None) -> None: ...


@dataclass(slots=True)
class StageCounts:
    label: str
    started: float
    done: int = 0
    total: int = 0
    failed: int = 0
    unusable: int | None = None  # a grader's replies that came back but could not be used

    @property
    def finished(self) -> bool:
        return self.done >= self.total

    def line(self, now: float) -> str:
        """'answering: 3/9 done, 0 failed, 0.50/s, about 12 s left' (rate and time left once something is done); a
        grader's: 'LLM judge: 3/9 done: 2 usable, 1 unusable, 0 failed, ...'."""
        elapsed = max(now - self.started, 1e-9)
        head = f"{self.label}: {self.done}/{self.total} done, {split(self.done, self.failed, self.unusable)}"
        if not self.done:
            return f"{head}, rate unknown yet, time left unknown ({elapsed:.0f} s so far)"
        rate = self.done / elapsed
        left = (self.total - self.done) / rate
        return f"{head}, {rate:.2f}/s, about {_duration(left)} left"


def split(done: int, failed: int, unusable: int | None) -> str:
    """'0 failed', or for a grader '2 usable, 1 unusable, 0 failed'."""
    if unusable is None:
        return f"{failed} failed"
    return f"{done - failed - unusable} usable, {unusable} unusable, {failed} failed"


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes} min {seconds:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


class ProgressState:
    """Thread-safe counts per stage (callbacks come from worker threads); `update` is a `Progress`."""

    def __init__(self, labels: dict[str, str], clock: Callable[[], float] = time.monotonic):
        self._labels, self._clock = labels, clock
        self._stages: dict[str, StageCounts] = {}
        self._lock = threading.Lock()

    def update(self, stage: str, done: int, total: int, failed: int = 0, *, unusable: int | None = None) -> None:
        with self._lock:
            counts = self._stages.get(stage)
            if counts is None:
                counts = self._stages[stage] = StageCounts(self._labels.get(stage, stage), self._clock())
            counts.done, counts.total, counts.failed, counts.unusable = done, total, failed, unusable

    def active_lines(self) -> list[str]:
        """A line per stage still under way."""
        now = self._clock()
        with self._lock:
            return [c.line(now) for c in self._stages.values() if not c.finished]
