"""The win rate of bundled over raw: how often the bundled answer is the better one (a tie counts half), per budget and
per question category, three ways, each with a 95% bootstrap interval:

- people: every person's current preference (the desk's `[`, `]`, `=`), unweighted, at the budget it compared raw
  with (the budget the desk showed), so this exists at the budgets people chose at; resampled by question (two
  people's preferences on one question together: one by one, a sampled assignment's covered ~91.5%).
- judge: the pairwise judge's consistent verdicts (both orders agree). Not defined when it has none, with the reason:
  a judge that always answers "1" contradicts itself on every pair and gets no win rate.
- prediction-powered (power-tuned PPI++, as for pass rates: core/stats/weighted.py, with its lambda and what the
  judge bought beside it): the judge on every pair of the group (its
  consistent verdict, and a tie where it has none: an inconsistent judge knows nothing about the pair), corrected by
  the people's preferences on the questions the desk's sampler drew at that budget, each weighted by 1 / (pi x q) of
  its draw (samples.draw_weight), so the correction is unbiased whatever the sampler preferred.

A pairwise judge asked about a sample of questions (`judge --pairwise --sample`, its probability recorded on the run)
needs no weight here, unlike a judge's grades in samples.weighted_draws: its own win rate is the mean over a simple
random sample of questions (every question equally likely, so the weights would be equal), and the prediction-powered
one predicts a tie on every question the judge was not asked about and corrects with every drawn preference, judged
or not, so it stays unbiased (a judge's grade pairs with a person's only where both exist, which is why those need
the judge's probability).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from gradedesk.core.agreement.samples import Bootstrap, draw_weight
from gradedesk.core.grading.pairwise_judge import answer_pairs
from gradedesk.core.grading.pairwise_verdicts import INCONSISTENT, PairVerdict
from gradedesk.core.stats import measures as agree
from gradedesk.core.stats.measures import Estimate
from gradedesk.core.stats.records import Record
from gradedesk.core.stats.weighted import JudgeGain, first_stage_clusters, ppi_mean, weighted_mean
from gradedesk.core.store.connection import Store
from gradedesk.core.store.preferences import Preference
from gradedesk.core.store.samples import SampleDraw, sample_draws

VALUE = {"bundle": 1.0, "tie": 0.5, "raw": 0.0}  # what a choice says about "bundled beats raw"


@dataclass
class WinRate(Record):
    """The win rate of bundled over raw in one group (a budget; a category at one budget), three ways."""

    budget: int
    category: str | None  # None: every category
    pairs: int  # answer pairs in the group
    people: Estimate
    judge: Estimate
    ppi: Estimate  # power-tuned (PPI++)
    judge_bought: JudgeGain | None  # the prediction-powered figure's lambda and what the judge is worth
    sampled_preferences: int  # sampled draws with a person's preference (the PPI's correction)


def _judge_reason(members: list[PairVerdict]) -> str:
    if not members:
        return "the judge gave no pairwise verdict here (gradedesk judge --pairwise)"
    inconsistent = sum(v.status == INCONSISTENT for v in members)
    if inconsistent == len(members):
        return (f"no consistent verdict: the judge contradicted itself across the two orders on all {len(members)} "
                "pair(s) (it chose by position, not by content)")
    return (f"no consistent verdict: {inconsistent} pair(s) inconsistent, {len(members) - inconsistent} undecided "
            "(unusable replies or no majority)")


def budget_of(event: Preference | SampleDraw, primary: int | None) -> int | None:
    """The budget a preference (or a sampler draw) set raw beside: its own, else the run's primary (not recorded)."""
    return primary if event.budget is None else event.budget


def _group(pks: set[int], budget: int, category: str | None, verdicts: list[PairVerdict],
           people: list[Preference], draws: list[tuple[Preference, float, float]], s: Bootstrap) -> WinRate:
    """The group's win rates; `people` and `draws`: the preferences (and sampled ones, with their draw's weight and
    first-stage inclusion probability) at `budget`."""
    members = [v for v in verdicts if v.budget == budget and v.question_pk in pks]
    judged = {v.question_pk: v for v in members}
    consistent = [VALUE[v.verdict] for v in members if v.verdict is not None]
    judge = agree.mean_of(consistent, _judge_reason(members), s.boot, s.seed)
    chose = [p for p in people if p.question_pk in pks]
    # several people's preferences on one question go together when resampled (they share its truth)
    people_est = weighted_mean([VALUE[p.preferred] for p in chose],
                               "no person chose between raw and the bundle at this budget yet ([ ] = on the desk)",
                               None, s.boot, s.seed, [p.question_pk for p in chose])
    sample = [d for d in draws if d[0].question_pk in pks]
    gain = None
    if not members:
        ppi = Estimate(None, 0, reason="no pairwise verdict to correct (gradedesk judge --pairwise)")
    elif not sample:
        ppi = Estimate(None, 0, reason="no preference on a question the sampler drew at this budget ('most useful' "
                                       "order)")
    else:
        predicted = {pk: VALUE[judged[pk].verdict or "tie"] if pk in judged else VALUE["tie"] for pk in pks}
        # drawn from a sampled assignment: a question's draws (every person's) are resampled together
        clusters = first_stage_clusters([p.question_pk for p, _, _ in sample], [pi for _, _, pi in sample])
        ppi, gain = ppi_mean(list(predicted.values()), [VALUE[p.preferred] for p, _, _ in sample],
                          [predicted[p.question_pk] for p, _, _ in sample], [w for _, w, _ in sample], s.boot, s.seed,
                          clusters)
    return WinRate(budget, category, len(pks), people_est, judge, ppi, gain, len(sample))


def win_rates(store: Store, run_id: int, verdicts: list[PairVerdict], people: list[Preference],
              primary: int | None, flagged: frozenset[int], s: Bootstrap) -> list[WinRate]:
    """Per budget (every category), then per category at the primary budget (or the first one judged or preferred);
    the `flagged` questions left out (the verdicts and preferences given come without them). People's preferences
    and the sampler's draws count at their own budget."""
    at: dict[int | None, list[Preference]] = defaultdict(list)
    for person in people:
        at[budget_of(person, primary)].append(person)
    budgets = sorted({v.budget for v in verdicts} | {b for b in at if b is not None})
    mine = {(m.grader, m.question_pk, budget_of(m, primary)): m for m in people}
    drawn: dict[int | None, list[tuple[Preference, float, float]]] = defaultdict(list)
    for d in sample_draws(store, run_id):
        b = budget_of(d, primary)
        if (d.grader, d.question_pk, b) in mine:
            drawn[b].append((mine[(d.grader, d.question_pk, b)], draw_weight(d), d.inclusion_probability))
    out = []
    by_category: dict[str, set[int]] = defaultdict(set)
    split_at = primary if primary in budgets else budgets[0] if budgets else None
    for b in budgets:
        pairs = [p for p in answer_pairs(store, run_id, [b], check=False)[0] if p.question_pk not in flagged]
        pks = {p.question_pk for p in pairs} | {p.question_pk for p in at[b]}
        out.append(_group(pks, b, None, verdicts, at[b], drawn[b], s))
        if b == split_at:
            for p in pairs:
                by_category[p.raw["category"]].add(p.question_pk)
    if len(by_category) > 1 and split_at is not None:
        out += [_group(pks, split_at, category, verdicts, at[split_at], drawn[split_at], s)
                for category, pks in sorted(by_category.items())]
    return out
