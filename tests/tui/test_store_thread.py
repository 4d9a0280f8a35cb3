"""The desk's store thread (tui/db.py): a key's job never waits behind a read done ahead of its key."""

from __future__ import annotations

import asyncio
import threading

import pytest

from gradedesk.core.review.session import Job
from gradedesk.tui.db import Counted

from tests.fixtures.desk import running, settle

pytestmark = pytest.mark.anyio

SLOW_READ = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT count(*) FROM c"


async def test_a_background_read_gives_way_to_a_job_submitted_while_it_runs_and_runs_again(fixture_store):
    async with running(fixture_store.path) as (app, pilot):
        await settle(pilot)
        started, runs, answers = threading.Event(), [], []

        def slow(store):
            runs.append("slow")
            started.set()
            return store._scalar(SLOW_READ)

        def key(store):
            runs.append("key")
            return store._scalar("SELECT count(*) FROM questions")

        def after(store):
            runs.append("after")
            return 0

        app.submit(Counted, Job("read ahead", slow, holds_keys=False, background=True),
                   lambda r: answers.append(("slow", r)))
        app.submit(Counted, Job("read ahead too", after, holds_keys=False, background=True),
                   lambda r: answers.append(("after", r)))
        assert await asyncio.to_thread(started.wait, 5)
        app.submit(Counted, Job("a key's load", key), lambda r: answers.append(("key", r)))
        await settle(pilot, timeout=60)
        # the key's job ran while the slow read was under way (stopped, then run again whole, before the read queued
        # behind it); every job answered once
        assert runs == ["slow", "key", "slow", "after"]
        assert answers == [("key", len(fixture_store.question_pks)), ("slow", 2000000), ("after", 0)]


async def test_jobs_run_in_submission_order_before_any_background_read(fixture_store):
    async with running(fixture_store.path, job_delay=0.05) as (app, pilot):
        await settle(pilot)
        runs = []

        def job(name):
            return lambda store: runs.append(name)

        app.submit(Counted, Job("first", job("first"), holds_keys=False))  # held by the delay while the rest queue
        app.submit(Counted, Job("ahead", job("ahead"), holds_keys=False, background=True))
        app.submit(Counted, Job("grade", job("grade")))
        app.submit(Counted, Job("count", job("count"), holds_keys=False))
        await settle(pilot)
        assert runs == ["first", "grade", "count", "ahead"]
