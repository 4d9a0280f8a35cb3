"""The one shape long work reports progress in, so one progress bar (core/cli/output.progress_bars) serves indexing,
runs and every grader: `progress(stage, done, total, failed)`."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str, int, int, int], None]
