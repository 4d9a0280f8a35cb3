"""Exact type-ahead: every key acts on what the keys before it led to, however fast they come.

A key press travels from the app to the focused widget and back up to the app, where the bindings run; the action it
runs may start store work (loading the next item, saving a grade) whose result changes what the next key acts on. So a
key waits while the key before it is still travelling, and while a store job that holds keys is in flight. Waiting keys
go on one at a time, in the order they came, when the desk is ready again; none is dropped.

The app (tui/app.py) lets keys through this gate; `KeyDone` follows each key down to the widget it went to and back
up, so the gate learns that a key a widget kept for itself (text typed into a field) is done too. While keys wait, a
screen may skip drawing an item the next key leaves at once (drawing both panes costs tens of milliseconds, which is
what keys typed ahead would wait for); `KeysCaughtUp` tells it to draw.
"""

from __future__ import annotations

from collections import deque

from textual import events
from textual.message import Message

STUCK_AFTER = 5.0  # seconds: a key whose end never came back (its screen closed under it) stops holding the rest


class KeyDone(Message):
    """Posted behind a key to the widget it went to; it reaches the app once that widget chain has handled the key."""

    def __init__(self, key: events.Key) -> None:
        super().__init__()
        self.key = key


class KeysCaughtUp(Message):
    """Sent to every screen once the keys that waited have all been handled and the store jobs they wait for have
    answered: a screen that skipped drawing the items those keys passed through draws what it holds now."""


class KeyGate:
    def __init__(self) -> None:
        self.waiting: deque[events.Key] = deque()
        self.travelling: events.Key | None = None  # the key let through last, until it is handled
        self.holds = 0  # store jobs in flight that keys wait for
        self.backlog = False  # keys have waited since the gate was last idle

    @property
    def open(self) -> bool:
        return self.travelling is None and self.holds == 0

    @property
    def idle(self) -> bool:
        return self.open and not self.waiting
