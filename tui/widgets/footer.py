"""Textual's Footer, without keeping the keys of every earlier focus alive.

The Footer rebuilds its keys on each focus change that changes what they show (the explore screen: twice per
question, its input hides the letter keys). Each FooterKey binds the footer's `compact`, and Textual drops a removed
key's binding only when `compact` changes (never, here; Textual issue #6666), so every rebuild kept ~10 dead widgets
(about 3,000 objects) for good, and every later full garbage collection walked them.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer


class DeskFooter(Footer):
    def compose(self) -> ComposeResult:
        # the keys of the last compose are removed by now: forget their bindings (Textual's private watcher list)
        watchers = getattr(self, "__watchers", {}).get("compact")
        if watchers:
            watchers[:] = [(node, callback) for node, callback in watchers if node.is_attached]
        yield from super().compose()
