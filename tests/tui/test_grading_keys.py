"""The grading screen's key table (tui/screens/grading/keys.py): a row added later cannot take a key or an id that is
already bound, on the screen or by the app (the screen's binding would silently win)."""

from __future__ import annotations

from gradedesk.tui.app import DeskApp
from gradedesk.tui.screens.grading.keys import KEYS


def test_each_key_and_id_is_bound_once():
    assert len({k.id for k in KEYS}) == len(KEYS)
    assert len({k.key for k in KEYS}) == len(KEYS)
    assert {k.key for k in KEYS}.isdisjoint(b.key for b in DeskApp.BINDINGS)
