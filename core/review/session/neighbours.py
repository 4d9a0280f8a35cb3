"""The next item ready before its key: while the person reads, the session loads the neighbours of the item shown (the
items j, n, k and d lead to) in the background, so that a move is a swap, with no store job between the key and the
item.

A neighbour is prepared around one item at one `epoch` (state.py) and kept only while both still hold: a move to
another item drops every neighbour, and so does anything that may change the order or an item (a grade, a flag, a
filter, the budget, the judge's rubric, the order, another desk's write seen by the watch), so a swap shows exactly
what a fresh load would. A move whose neighbour is not ready yet loads it as before. The most useful order draws at
random each time: nothing is prepared there.
"""

from __future__ import annotations

from collections.abc import Sequence

from gradedesk.core.review.session.jobs import Find, Job, Plan, Prepared, Request, Shown
from gradedesk.core.review.session.order import NEIGHBOURS, Move, OrderMoves
from gradedesk.core.store.connection import Store


class Neighbours(OrderMoves):
    """The keys that move to a neighbour (j, k, n, d), and the jobs that prepare their items ahead."""

    def step(self, step: int) -> Plan:
        """j (1) or k (-1): along the order the top bar names."""
        if self.order == "most_useful":
            return self.draw() if step > 0 else "most useful order draws items: j draws the next, there is no earlier one"
        return self.go("next" if step > 0 else "previous")

    def next_ungraded(self) -> Plan:
        return self.draw() if self.order == "most_useful" else self.go("ungraded")

    def next_disagreement(self) -> Plan:
        return self.go("disagreement")

    def go(self, kind: str) -> Plan:
        """Move to the neighbour `kind`: a swap to its prepared item when it is ready, else a job that loads it."""
        move = self.move(kind)
        if not isinstance(move, Move):
            return move
        ready = self.ready.get((self.item.question_pk, kind)) if self.item is not None else None
        if ready is None or ready.epoch != self.epoch:
            return self.load(move.find, empty=move.empty, how=move.how)
        self._seq += 1  # as a job would: an answer to an older request shows nothing
        return Shown(Request(self._seq, move.empty, move.how), ready.item, ready.target)

    def prepare(self, kinds: Sequence[str] = NEIGHBOURS) -> list[Job[tuple[Prepared, ...]]]:
        """The jobs that load the neighbours of the item shown not ready yet (of `kinds`), next first; j's and n's the
        next one on too (keys typed in a run then swap every time). In the background: keys never wait for them, and
        one whose item the person has left, or is leaving (a move or a write asked for since, whose job must not wait
        behind it), is skipped on the store thread (`Job.stale`)."""
        item = self.item
        if item is None or self.run is None or self.order == "most_useful":
            return []
        around, epoch = item.question_pk, self.epoch
        jobs = []
        for kind in (k for k in NEIGHBOURS if k in kinds):
            move = self.move(kind)
            if (around, kind) in self.ready or (kind, around, epoch) in self.preparing or not isinstance(move, Move):
                continue
            self.preparing.add((kind, around, epoch))
            jobs.append(self._preparing(kind, move.find, around))
        return jobs

    def _preparing(self, kind: str, find: Find, around: int) -> Job[tuple[Prepared, ...]]:
        load, onward, epoch, seq = self.loader(), self.onward(kind), self.epoch, self._seq

        def run(store: Store) -> tuple[Prepared, ...]:
            first = Prepared(kind, around, epoch, *load(store, find))
            if onward is None or first.item is None or first.item.question_pk == around:
                return (first,)
            pk = first.item.question_pk
            return first, Prepared(kind, pk, epoch, *load(store, onward(pk)))
        return Job(f"prepare the {kind} item", run, holds_keys=False, background=True,
                   stale=lambda: self._seq != seq or self.epoch != epoch or self.item is None
                   or self.item.question_pk != around)

    def prepared(self, neighbours: tuple[Prepared, ...]) -> list[Prepared]:
        """Keep the neighbours a prepare job loaded, unless the person has moved on or something changed since it was
        planned: those kept."""
        first = neighbours[0]
        self.preparing.discard((first.kind, first.around, first.epoch))
        if first.epoch != self.epoch or self.item is None or self.item.question_pk != first.around:
            return []
        for neighbour in neighbours:
            self.ready[(neighbour.around, neighbour.kind)] = neighbour
        return list(neighbours)
