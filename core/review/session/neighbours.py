"""The next item ready before its key: while the person reads, the session loads the neighbours of the item shown (the
items j, n, k and d lead to) in the background, so that a move is a swap, with no store job between the key and the
item.

A neighbour is prepared around one item at one `epoch` (state.py) and kept only while keys can reach it from the
item shown by swaps and the epoch holds: a move to another item drops the neighbours it cannot reach, and anything
that may change the order or an item (a grade, a flag, a filter, the budget, the judge's rubric, the order, another
desk's write seen by the watch) drops them all, so a swap shows exactly what a fresh load would. j's and n's items are
prepared AHEAD deep (the item after the next, and so on: each found from the one before, as a fresh desk there would
find it), since those are the keys typed in bursts, faster than a store job and a paint per key. A move whose
neighbour is not ready yet loads it as before. The most useful order draws at random each time: nothing is prepared
there.
"""

from __future__ import annotations

from collections.abc import Sequence

from gradedesk.core.review.session.jobs import Find, Job, Plan, Prepared, Request, Shown
from gradedesk.core.review.session.order import NEIGHBOURS, Move, OrderMoves
from gradedesk.core.review.session.state import AHEAD
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
        """The jobs that load the neighbours of the item shown not ready yet (of `kinds`), next first; for j and n,
        AHEAD items one after the other (keys typed in a burst then swap every time), from the last one ready. In the
        background: keys never wait for them, and one whose items keys can no longer reach, or whose epoch has passed,
        is skipped on the store thread (`Job.stale`)."""
        item = self.item
        if item is None or self.run is None or self.order == "most_useful":
            return []
        epoch = self.epoch
        jobs = []
        for kind in (k for k in NEIGHBOURS if k in kinds):
            move, onward = self.move(kind), self.onward(kind)
            if not isinstance(move, Move):
                continue
            at, ready = self._last_ready(kind, item.question_pk, AHEAD if onward is not None else 1)
            if at is None or (kind, at, epoch) in self.preparing:
                continue
            self.preparing.add((kind, at, epoch))
            find = move.find if onward is None or at == item.question_pk else onward(at)
            jobs.append(self._preparing(kind, find, at, (AHEAD if onward is not None else 1) - ready))
        return jobs

    def _last_ready(self, kind: str, start: int, wanted: int) -> tuple[int | None, int]:
        """(the question to prepare `kind`'s items from, how many are ready before it): the item of the last one
        ready along `kind` from `start`; None when `wanted` are ready or the items end."""
        at, ready = start, 0
        for n in self.chain(kind, start):
            if ready == wanted or n.item is None or n.item.question_pk == at:
                return None, ready
            at, ready = n.item.question_pk, ready + 1
        return (at, ready) if ready < wanted else (None, ready)

    def _reaches(self, kind: str, question_pk: int) -> bool:
        """Keys of `kind` lead from the item shown to question `question_pk` by swaps alone (AHEAD at most)."""
        if self.item is None:
            return False
        shown = self.item.question_pk
        return shown == question_pk or any(n.item is not None and n.item.question_pk == question_pk
                                           for n in self.chain(kind, shown))

    def _preparing(self, kind: str, find: Find, around: int, count: int) -> Job[tuple[Prepared, ...]]:
        load, onward, epoch = self.loader(), self.onward(kind), self.epoch

        def run(store: Store) -> tuple[Prepared, ...]:
            out, at, at_find = [], around, find
            for _ in range(count):
                out.append(Prepared(kind, at, epoch, *load(store, at_find)))
                item = out[-1].item
                if onward is None or item is None or item.question_pk == at:
                    break
                at, at_find = item.question_pk, onward(item.question_pk)
            return tuple(out)
        return Job(f"prepare the {kind} item", run, holds_keys=False, background=True,
                   stale=lambda: self.epoch != epoch or not self._reaches(kind, around))

    def prepared(self, neighbours: tuple[Prepared, ...]) -> list[Prepared]:
        """Keep the neighbours a prepare job loaded, unless keys can no longer reach them from the item shown or
        something changed since it was planned: those kept."""
        first = neighbours[0]
        self.preparing.discard((first.kind, first.around, first.epoch))
        if first.epoch != self.epoch or not self._reaches(first.kind, first.around):
            return []
        for neighbour in neighbours:
            self.ready[(neighbour.around, neighbour.kind)] = neighbour
        return list(neighbours)
