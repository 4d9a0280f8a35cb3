"""Who grades what: each item of a run given to `overlap` of the named people, balanced, stable across re-runs.

In: the items (question ids), the people, the overlap, a seed, and what is assigned now and which of those pairs are
graded. Out: an `AssignmentPlan`, each item's people and the pairs to add and to withdraw. Pure: the store reads and
writes are core/store/assignments.py's, the command is core/cli/assign_cmd.py.

The plan keeps every graded pair (a grade is never moved to someone else), then fills each item up to `overlap`
people, most constrained items first: for each place, the person not yet on the item who is below the fair share
(ceil of all places / people) and already had the item, else the least loaded (ties broken by a seeded order). A last
pass moves ungraded pairs from the most to the least loaded person while their loads differ by more than one, so loads
differ by at most one whenever graded pairs allow it. Re-running with the same people changes nothing; adding a person
moves ungraded pairs to them until the loads are even again.

`sample_items` (core/stats/weighted.py) draws a seeded simple random sample of n items: each item's inclusion
probability is n / N, stored with its assignments so that estimates over the assigned items can weigh them back to the
run.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from gradedesk.core.errors import UserError
from gradedesk.core.stats.weighted import sample_items as sample_items  # the sample's draw is the estimates' to own

Pair = tuple[int, str]  # (question_pk, grader)


@dataclass(frozen=True)
class AssignmentPlan:
    people: dict[int, frozenset[str]]  # item -> the people it is assigned to, after the plan
    add: list[Pair]  # pairs new in this plan
    withdraw: list[Pair]  # ungraded pairs assigned before and not now (moved to someone else, or a person left)

    def loads(self, graders: Sequence[str]) -> dict[str, int]:
        """Items per named person, in the order named."""
        counts = Counter(g for people in self.people.values() for g in people)
        return {g: counts[g] for g in graders}


def plan_assignment(items: Sequence[int], graders: Sequence[str], overlap: int, seed: int,
                    current: Mapping[int, Collection[str]] | None = None,
                    graded: Collection[Pair] = ()) -> AssignmentPlan:
    """Give each item to `overlap` of `graders`, keeping `current` pairs that are `graded` (see module docstring)."""
    if not graders:
        raise UserError("--graders: no names given (e.g. --graders ann,bob,cy)")
    if not 0 < overlap <= len(graders):
        raise UserError(f"--overlap {overlap}: must be from 1 to the number of graders ({len(graders)})")
    current = current or {}
    graded = set(graded)
    rng = random.Random(f"assign:{seed}")
    rank = {g: i for i, g in enumerate(rng.sample(list(graders), len(graders)))}
    shuffled = rng.sample(sorted(items), len(items))
    hard = {i: {g for g in current.get(i, ()) if (i, g) in graded} for i in shuffled}
    people = {i: set(hard[i]) for i in shuffled}
    load = Counter({g: 0 for g in graders})
    load.update(g for i in shuffled for g in people[i] if g in rank)
    need = {i: max(0, overlap - len(people[i])) for i in shuffled}
    fair = math.ceil((sum(load.values()) + sum(need.values())) / len(graders))
    for i in sorted(shuffled, key=lambda i: -len(people[i])):  # stable sort: seeded order within equal constraint
        had = current.get(i, ())
        for _ in range(need[i]):
            g = min((g for g in graders if g not in people[i]),
                    key=lambda g: (load[g] >= fair, g not in had, load[g], rank[g]))
            people[i].add(g)
            load[g] += 1
    _even_out(shuffled, people, hard, load, rank, current)
    before = {(i, g) for i, gs in current.items() for g in gs}
    after = {(i, g) for i, gs in people.items() for g in gs}
    return AssignmentPlan({i: frozenset(people[i]) for i in sorted(people)}, sorted(after - before),
                          sorted(before - after))


def _even_out(items: list[int], people: dict[int, set[str]], hard: dict[int, set[str]], load: Counter[str],
              rank: dict[str, int], current: Mapping[int, Collection[str]]) -> None:
    """Move ungraded pairs from a more loaded person to a less loaded one until loads differ by at most one (or no
    such move is left: graded pairs can pin a person above the rest). Pairs new in this plan move before old ones."""
    while True:
        by_load = sorted(load, key=lambda g: (load[g], rank[g]))
        move = None
        for hi in reversed(by_load):
            for lo in by_load:
                if load[hi] - load[lo] <= 1:
                    break
                movable = [i for i in items if hi in people[i] and lo not in people[i] and hi not in hard[i]]
                if movable:
                    move = (min(movable, key=lambda i: hi in current.get(i, ())), hi, lo)
                    break
            if move:
                break
        if move is None:
            return
        i, hi, lo = move
        people[i].discard(hi)
        people[i].add(lo)
        load[hi] -= 1
        load[lo] += 1
