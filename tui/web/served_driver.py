"""ServedDriver: textual's WebDriver for the served desk, ending the desk when its input ends.

A served desk reads everything (keys, resizes, quit) from the stdin pipe of the `gradedesk serve` that started it.
WebDriver only stops reading when that pipe closes, and the desk would run on as an orphan holding its person's lease:
here a closed input quits the desk the way ctrl-q does (the writes still waiting are stored first).
"""

from __future__ import annotations

import asyncio
import contextlib

from textual.drivers.web_driver import WebDriver


class ServedDriver(WebDriver):
    def run_input_thread(self) -> None:
        super().run_input_thread()
        if not self.exit_event.is_set():  # the input ended before the desk did: its server is gone
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the desk is ending anyway
                asyncio.run_coroutine_threadsafe(self._app.run_action("quit"), self._loop)
