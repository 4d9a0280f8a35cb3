"""Exact type-ahead: keys pressed in bursts, with no pause, while the store thread is slowed on purpose (every job waits
first, as on a busy machine), land on the item the keys before them led to. Each test checks store.db row by row
against what the same keys pressed slowly would store (`Expected`, a model of the desk's keys). The desk opens at full
speed and is slowed once open: the opening's dozen jobs are not what is tested, the keys' jobs are."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest

from gradedesk.core.grading.vocabulary import FAILURE_LABELS
from gradedesk.core.review.item import side_on_show
from gradedesk.core.review.queue import left_method
from gradedesk.core.review.session.state import AHEAD
from tests.fixtures.desk import running, settle

pytestmark = pytest.mark.anyio

SLOW = 0.2  # seconds the store thread waits before each job
GRADE_KEYS = {"1": "fully_correct", "2": "partially_correct", "3": "unsupported", "4": "wrong"}


def grade_events(path, grader: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT answer_id, action, grade, judge_visible, is_revision FROM human_grades "
                            "WHERE grader = ? ORDER BY id", (grader,)).fetchall()
    finally:
        conn.close()


@dataclass
class Expected:
    """The desk's keys j k 1-4 tab h l u, applied one after the other: what the store should then hold."""
    info: object
    index: int = 0  # which question is on screen
    side: str = "left"
    events: list[tuple] = field(default_factory=list)  # (answer_id, action, grade, judge_visible, is_revision)
    _live: list[tuple[int, int]] = field(default_factory=list)  # (event number, answer id) of sets not undone

    def answer(self) -> int:
        pk = self.info.question_pks[self.index]
        left = left_method(7, pk)
        method = left if self.side == "left" else ("bundle" if left == "raw" else "raw")
        return self.info.answer_ids[(pk, method)]

    def press(self, key: str) -> None:
        pks = self.info.question_pks
        if key in ("j", "k"):
            index = min(self.index + 1, len(pks) - 1) if key == "j" else max(self.index - 1, 0)
            self.side = side_on_show(self.side, moved=index != self.index)  # the desk's own rule
            self.index = index
        elif key in ("tab", "h", "l"):
            self.side = {"h": "left", "l": "right"}.get(key, "right" if self.side == "left" else "left")
        elif key in GRADE_KEYS:
            aid = self.answer()
            seen = any(a == aid and action == "set" for a, action, *_ in self.events)  # the judge was shown since
            self.events.append((aid, "set", GRADE_KEYS[key], int(seen), int(seen)))
            self._live.append((len(self.events) - 1, aid))
        elif key == "u" and self._live:
            _, aid = self._live.pop()
            self.events.append((aid, "undo", None, 1, 0))  # the grade it takes back showed the judge: still in view
            self.index = next(i for i, pk in enumerate(pks) if aid in (self.info.answer_ids[(pk, "raw")],
                                                                       self.info.answer_ids[(pk, "bundle")]))
            pk = pks[self.index]
            self.side = "left" if aid == self.info.answer_ids[(pk, left_method(7, pk))] else "right"  # its answer


def expect(info, keys) -> Expected:
    model = Expected(info)
    for key in keys:
        model.press(key)
    return model


@asynccontextmanager
async def slowed(path, delay: float, **settings) -> AsyncIterator[tuple]:
    """A desk opened and settled, whose store thread then waits `delay` seconds before each job."""
    async with running(path, **settings) as (app, pilot):
        app.store_thread.delay = delay
        yield app, pilot


async def burst(pilot, *keys: str) -> None:
    """All keys at once (pilot.press waits for no store job between them), then wait until the desk is done."""
    await pilot.press(*keys)
    await settle(pilot, timeout=120)


BURSTS = [("j", "4"), ("1", "j"), ("4", "j", "3", "j", "2", "k", "u"),
          ("3", "tab", "1", "j", "l", "2", "h", "4", "k", "k", "u", "u"),  # grades on both sides, two undos
          ("1", "tab", "tab", "2", "j", "tab", "tab", "tab", "3", "tab", "tab", "4"),  # tab tab
          ("tab", "2", "j", "3", "tab", "4", "k", "u")]  # each item starts on Answer A


async def test_each_burst_lands_where_slow_keys_would(fixture_store):
    """The bursts one after the other on one slowed desk: after each, the store holds what the keys so far pressed
    slowly would store, and the desk shows the item and side they lead to."""
    info = fixture_store
    typed: list[str] = []
    async with slowed(info.path, SLOW) as (app, pilot):
        for keys in BURSTS:
            await burst(pilot, *keys)
            typed += keys
            model = expect(info, typed)
            assert grade_events(info.path, "alice") == model.events, keys
            assert app.screen.session.item.question_pk == info.question_pks[model.index], keys
            assert app.screen.side == model.side, keys


async def test_j_typed_in_a_burst_swaps_through_the_items_prepared_ahead(fixture_store):
    """Once the desk has settled on an item, j's and n's items are prepared AHEAD deep: as many j typed at once move
    with no store job between the keys, and a grade after them lands on the last item, as slow keys would."""
    info = fixture_store
    keys = ["j"] * AHEAD + ["2"]
    async with running(info.path) as (app, pilot):
        jobs: list[str] = []
        submit = app.store_thread.submit
        app.store_thread.submit = lambda request: (jobs.append(request.job.what), submit(request))[1]
        await burst(pilot, *keys)
        model = expect(info, keys)
        assert grade_events(info.path, "alice") == model.events
        assert app.screen.session.item.question_pk == info.question_pks[AHEAD]
    assert "load item" not in jobs and jobs.count("save grade") == 1


async def test_grades_typed_in_a_rhythm_go_to_answer_a_then_b_on_every_item(fixture_store):
    """`1 tab 2 j` again and again: the first grade of each item is Answer A's (the left one), whichever side the
    previous item ended on."""
    info = fixture_store
    async with slowed(info.path, SLOW) as (app, pilot):
        await burst(pilot, "1", "tab", "2", "j", "3", "tab", "4", "j", "2", "tab", "1")
    pks = info.question_pks[:3]
    left = [info.answer_ids[(pk, left_method(7, pk))] for pk in pks]
    right = [info.answer_ids[(pk, "bundle" if left_method(7, pk) == "raw" else "raw")] for pk in pks]
    events = [(aid, grade) for aid, _, grade, *_ in grade_events(info.path, "alice")]
    assert events == [(left[0], "fully_correct"), (right[0], "partially_correct"), (left[1], "unsupported"),
                      (right[1], "wrong"), (left[2], "partially_correct"), (right[2], "fully_correct")]


async def test_fifty_random_keys(fixture_store):
    info = fixture_store
    keys = random.Random(13).choices(["j", "k", "1", "2", "3", "4", "tab", "u"],
                                     weights=[4, 2, 2, 2, 2, 2, 2, 1], k=50)
    async with slowed(info.path, SLOW / 4) as (app, pilot):
        await burst(pilot, *keys)
        model = expect(info, keys)
        assert len(model.events) > 15
        assert grade_events(info.path, "alice") == model.events
        assert app.screen.session.item.question_pk == info.question_pks[model.index]


async def test_two_desks_typing_ahead_on_one_store(fixture_store):
    info = fixture_store
    alice_keys = ("1", "j", "2", "tab", "3", "j", "4", "k", "u", "j", "j", "1")
    bob_keys = ("j", "4", "j", "3", "tab", "2", "u", "1", "k", "k", "2")
    async with slowed(info.path, SLOW, grader="alice") as (alice, pa), \
            slowed(info.path, SLOW, grader="bob") as (bob, pb):
        await asyncio.gather(pa.press(*alice_keys), pb.press(*bob_keys))
        await settle(pa, timeout=120)
        await settle(pb, timeout=120)
        for app, grader, keys in ((alice, "alice", alice_keys), (bob, "bob", bob_keys)):
            model = expect(info, keys)
            assert grade_events(info.path, grader) == model.events
            assert app.screen.session.item.question_pk == info.question_pks[model.index]


async def test_keys_typed_into_a_picker_behind_a_slow_item_reach_it(fixture_store):
    """j 3 f 2 e o k enter: the pickers open on the next item once it is there, and the keys after them go in."""
    info = fixture_store
    async with slowed(info.path, SLOW) as (app, pilot):
        await burst(pilot, "j", "3", "f", "2", "e", *"ok", "enter")
        aid = expect(info, ("j",)).answer()
        conn = sqlite3.connect(info.path)
        rows = conn.execute("SELECT answer_id, grade, failure_label, note FROM human_grades ORDER BY id").fetchall()
        conn.close()
        assert rows == [(aid, "unsupported", None, None), (aid, "unsupported", FAILURE_LABELS[1], None),
                        (aid, "unsupported", FAILURE_LABELS[1], "ok")]
