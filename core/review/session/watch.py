"""One live desk per person and store (a lease, core/store/leases.py), and other desks' writes: the desk looks at the
store's data_version every second and loads the item shown again when another desk (or a command) wrote; any such
write drops the neighbours prepared (it may have changed them)."""

from __future__ import annotations

from gradedesk.core.review.item import load_item
from gradedesk.core.review.session.jobs import Job, Refreshed
from gradedesk.core.review.session.state import DeskState
from gradedesk.core.store.connection import Store
from gradedesk.core.store.leases import Lease, release_lease, renew_lease, take_lease


class Watch(DeskState):
    """The session's lease and its look for other desks' writes."""

    def take_lease(self) -> Job[Lease]:
        """Take the person's lease (core/store/leases.py): LeaseHeld, a one-line refusal saying where the other desk
        runs, when another live desk under this name holds it."""
        person, holder, run_id = self.person, self.holder, self.run_id
        return Job("take the desk's lease", lambda store: take_lease(store, person, holder, run_id))

    def renew_lease(self) -> Job[bool] | None:
        lease = self.lease
        return None if lease is None else Job("renew the desk's lease", lambda store: renew_lease(store, lease),
                                              holds_keys=False)

    def release_lease(self) -> Job[None] | None:
        lease, self.lease = self.lease, None
        return None if lease is None else Job("release the desk's lease", lambda store: release_lease(store, lease),
                                              holds_keys=False)

    def watch(self) -> Job[Refreshed] | None:
        """Look whether another desk (or a command) wrote to the store since the last look (Store.data_version:
        this desk's own writes do not move it); if so, load the item shown again. In the background: keys never wait
        for it, and an answer overtaken by a move is dropped (`refreshed`)."""
        if self.run is None:
            return None
        seq, before, run, person = self._seq, self._data_version, self.run, self.person
        recheck, rubric, adjudicate = self.recheck, self.judge_rubric, self.adjudicating
        pk = self.item.question_pk if self.item else None

        def look(store: Store) -> Refreshed:
            version = store.data_version()
            if before is None or version == before or pk is None:
                return Refreshed(seq, version, before is not None and version != before, None)
            return Refreshed(seq, version, True, load_item(store, run, person, pk, recheck=recheck,
                                                            judge_rubric=rubric, adjudicate=adjudicate))
        return Job("look for other desks' writes", look, holds_keys=False)

    def refreshed(self, refreshed: Refreshed) -> bool:
        """Take a look's answer in; True when the item shown changed under the desk (draw it again)."""
        self._data_version = refreshed.data_version
        if refreshed.changed:  # another desk wrote: the order or a neighbour may have moved
            self.forget()
        item = refreshed.item
        if item is None or refreshed.seq != self._seq or self.item is None or self.item.question_pk != item.question_pk:
            return False
        changed = item != self.item
        self.item = item
        return changed
