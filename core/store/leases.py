"""Desk leases (table desk_leases): one live desk per person and store.

A desk takes the lease of its person when it opens, renews it while it runs (well inside LEASE_SECONDS) and releases
it when it closes; a desk that died without releasing it loses it once it expires. A second desk under the same name
is refused while the lease is live, and told where the first one runs (host, process, run, since when), so two desks
never write over each other's grades unseen. `gradedesk serve` asks the same question per typed name.

The holder is a random id per desk, so a desk renews or releases only its own lease. Times are UNIX seconds (expiry
is a comparison, not a calendar date). Taking a lease is one BEGIN IMMEDIATE transaction: of two desks opening at once,
one gets it.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.store.connection import Store

LEASE_SECONDS = 30.0  # a lease not renewed for this long is free again (its desk died)
RENEW_SECONDS = 10.0  # how often a live desk renews it


@dataclass(frozen=True, slots=True)
class Lease:
    person: str
    holder: str  # the desk's random id
    host: str
    pid: int
    run_id: int
    taken_at: float
    expires_at: float

    @property
    def where(self) -> str:
        """Where the desk holding it runs, for the person refused a second desk."""
        since = time.strftime("%H:%M:%S UTC", time.gmtime(self.taken_at))
        return f"on {self.host} (process {self.pid}), run {self.run_id}, since {since}"


class LeaseHeld(UserError):
    """Another live desk holds the person's lease."""

    def __init__(self, held: Lease) -> None:
        super().__init__(f"{held.person!r} already has a desk open on this store {held.where}: close it first (or wait "
                         f"{LEASE_SECONDS:.0f} s after it stopped), or open this desk under another name")
        self.held = held


def _lease(row: dict[str, Any]) -> Lease:
    return Lease(row["person"], row["holder"], row["host"], row["pid"], row["run_id"], row["taken_at"],
                 row["expires_at"])


def lease_of(store: Store, person: str) -> Lease | None:
    """The person's live lease on this store, if a desk holds one."""
    rows = store._query("SELECT * FROM desk_leases WHERE person = ? AND expires_at > ?", (person, time.time()))
    return _lease(rows[0]) if rows else None


def take_lease(store: Store, person: str, holder: str, run_id: int, *, seconds: float = LEASE_SECONDS) -> Lease:
    """Take the person's lease for the desk `holder` (again, if it holds it already); LeaseHeld when another live desk
    holds it. One transaction."""
    with store.transaction():
        held = lease_of(store, person)
        if held is not None and held.holder != holder:
            raise LeaseHeld(held)
        now = time.time()
        lease = Lease(person, holder, socket.gethostname(), os.getpid(), run_id,
                      held.taken_at if held is not None else now, now + seconds)
        store._conn.execute("INSERT OR REPLACE INTO desk_leases (person, holder, host, pid, run_id, taken_at, "
                            "expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                            (lease.person, lease.holder, lease.host, lease.pid, lease.run_id, lease.taken_at,
                             lease.expires_at))
    return lease


def renew_lease(store: Store, lease: Lease, *, seconds: float = LEASE_SECONDS) -> bool:
    """Push the lease's expiry on; False when the desk no longer holds it (it expired and another desk took it)."""
    with store.transaction():
        cur = store._conn.execute("UPDATE desk_leases SET expires_at = ? WHERE person = ? AND holder = ?",
                                  (time.time() + seconds, lease.person, lease.holder))
        return cur.rowcount == 1


def release_lease(store: Store, lease: Lease) -> None:
    """The desk closes: its lease is free at once (only its own: a lease another desk took since stays)."""
    with store.transaction():
        store._conn.execute("DELETE FROM desk_leases WHERE person = ? AND holder = ?", (lease.person, lease.holder))
