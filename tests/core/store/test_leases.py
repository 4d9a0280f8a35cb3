"""Desk leases (core/store/leases.py) on a real store file, two connections as two desks: one live desk per person,
a second refused with where the first runs, renewed, released, and free again once it expires."""

from __future__ import annotations

import pytest

from gradedesk.core.errors import UserError
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.leases import LeaseHeld, lease_of, release_lease, renew_lease, take_lease
from tests.fixtures.desk_store import build_fixture_store


@pytest.fixture
def two(tmp_path):
    info = build_fixture_store(tmp_path / "store.db")
    first, second = open_store(info.path), open_store(info.path)
    yield first, second
    first.close()
    second.close()


def test_a_second_desk_under_one_name_is_refused_saying_where_the_first_runs(two):
    first, second = two
    lease = take_lease(first, "alice", "desk-1", 1)
    with pytest.raises(LeaseHeld) as refused:
        take_lease(second, "alice", "desk-2", 1)
    assert isinstance(refused.value, UserError)  # one line, exit 2 on the command line
    text = str(refused.value)
    assert "'alice' already has a desk open on this store" in text and f"process {lease.pid}" in text
    assert lease.host in text and "run 1" in text
    assert take_lease(second, "bob", "desk-2", 1).person == "bob"  # another person's desk is no matter


def test_a_desk_renews_and_releases_only_its_own_lease(two):
    first, second = two
    lease = take_lease(first, "alice", "desk-1", 1)
    assert renew_lease(second, lease)  # renewing pushes it on, from any connection of that desk
    release_lease(second, take_lease(second, "carol", "desk-2", 1))
    assert lease_of(first, "alice") is not None and lease_of(first, "carol") is None
    release_lease(first, lease)
    assert lease_of(second, "alice") is None
    assert take_lease(second, "alice", "desk-2", 1).holder == "desk-2"  # free again at once


def test_an_expired_lease_is_free_and_its_old_desk_learns_it_lost_it(two):
    first, second = two
    old = take_lease(first, "alice", "desk-1", 1, seconds=-1)  # its desk died: never renewed
    assert lease_of(second, "alice") is None
    take_lease(second, "alice", "desk-2", 1)
    assert not renew_lease(first, old)  # the old desk, if it comes back, is told
    release_lease(first, old)  # and cannot free the new desk's lease
    assert lease_of(second, "alice").holder == "desk-2"
