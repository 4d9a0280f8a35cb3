"""ServedDriver: textual's WebDriver for the served desk, leaving as ctrl-q does however the desk is told to go.

A served desk reads everything (keys, resizes, quit) from the stdin pipe of the `gradedesk serve` that started it.
WebDriver ends the app at once on textual-serve's "quit" (sent when the browser's tab closes or serve stops), dropping
the writes still waiting for a locked store, and only stops reading when the pipe closes, leaving the desk running as
an orphan that holds its person's lease. Here both leave the way ctrl-q does: the writes still waiting are stored
first (DeskApp.action_quit), then the desk ends.
"""

from __future__ import annotations

import asyncio
import contextlib

from textual.drivers.web_driver import WebDriver


class ServedDriver(WebDriver):
    def _quit(self) -> None:
        """Called from the input thread: the app's quit action on its own loop."""
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the desk is ending anyway
            asyncio.run_coroutine_threadsafe(self._app.run_action("quit"), self._loop)

    def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
        if packet_type == "quit":  # the tab closed or serve stops
            self._quit()
        else:
            super().on_meta(packet_type, payload)

    def run_input_thread(self) -> None:
        super().run_input_thread()
        if not self.exit_event.is_set():  # the input ended before the desk did: its server is gone
            self._quit()
