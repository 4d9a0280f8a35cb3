"""Which answer is better, raw or bundled: the pairwise judge's behaviour, its agreement with people's preferences,
and the win rate of bundled over raw (pairwise_win_rates.py), gathered in one `PairwiseFigures` (the `pairwise` part
of `agree --json`).

The judge's verdicts are those of the newest pairwise judge and rubric of the run (core/grading/pairwise_verdicts.py:
a verdict counts only when both orders agree); in a run read from traces, the pairs without a gold answer count under
the reference-free rubric they were judged under, each pair once (`rubric_version` and `reference_free_version` name
both, `reference_free_pairs` counts the latter), and the two sides are named by their labels (`sides`), as the desk's
panes name them. Its behaviour, before any person is asked:
- position bias: the share of its usable, non-tie replies that chose the answer shown first (fair: 0.5; a judge that
  always answers "1" has 1.0);
- tie rate (ties among its usable replies) and inconsistency rate (pairs whose two orders disagree, among the pairs
  that each order decided), apart, with the counts of undecided pairs and unusable replies;
- stability over repeats (`judge --pairwise --repeats N`): the mean share of an order's repeats that say the same.
The intervals resample replies (or pairs) as if independent; replies of one pair are not, so read them as a lower
bound on the uncertainty.

People's preferences (the desk's `[`, `]`, `=`; each person's current one per question and budget) compare raw with
the bundled answer at the budget the desk showed (the preference's budget), so each is matched with the judge's
verdict at that budget: percent agreement,
Cohen's kappa and AC1 with the confusion table (rows: person, columns: judge; raw, bundle, tie), and the same with
ties left out (pairs where neither said tie), as MT-Bench reports it. People's own share of left-side choices is
`samples.position_bias` (both are shown side by side).

Flagged items (questions someone flagged for fixing the benchmark) are left out of every figure here, as from the
rest of `agree`; `flagged_items_excluded` counts them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gradedesk.core.agreement.pairwise_win_rates import WinRate, budget_of, win_rates
from gradedesk.core.agreement.samples import Bootstrap
from gradedesk.core.grading.pairwise_verdicts import CONSISTENT, INCONSISTENT, UNDECIDED, PairVerdict, pair_verdicts
from gradedesk.core.stats import measures as agree
from gradedesk.core.stats.measures import Estimate
from gradedesk.core.stats.records import FLAT, Record
from gradedesk.core.store.connection import Store
from gradedesk.core.store.flags import flagged_questions
from gradedesk.core.store.preferences import Preference, live_preferences
from gradedesk.core.store.run_records import run_info
from gradedesk.core.store.traces import side_labels

CHOICES = ("raw", "bundle", "tie")
NO_JUDGE = "the judge gave no pairwise verdict on this run (gradedesk judge --pairwise)"


@dataclass
class JudgeBehaviour(Record):
    """How the pairwise judge behaves, whatever people think."""

    pairs: int  # pairs with at least one stored reply
    replies: int  # usable replies
    unusable: int  # replies that could not be used, and failed calls (no verdict)
    consistent: int
    inconsistent: int
    undecided: int  # an order without a usable reply or without a majority
    first_position_wins: Estimate  # position bias: share of usable non-tie replies for ANSWER 1 (fair: 0.5)
    tie_rate: Estimate
    inconsistency_rate: Estimate
    stability: Estimate  # mean share of an order's repeats that agree (needs --repeats 2+)
    unstable_pairs: int


@dataclass
class PreferenceAgreement(Record):
    """Judge (consistent verdicts) vs people's preferences on the same pairs."""

    pairs: int  # (person, question) preferences beside a consistent judge verdict
    estimates: dict[str, Estimate] = field(metadata=FLAT)
    labels: list[str] = field(default_factory=lambda: list(CHOICES))
    matrix: list[list[int]] = field(default_factory=list)  # rows: person, columns: judge
    without_ties: dict[str, Estimate] = field(default_factory=dict)  # pairs where neither said tie
    pairs_without_ties: int = 0
    not_compared: dict[str, int] = field(default_factory=dict)  # reason -> preferences left out


@dataclass
class PairwiseFigures(Record):
    judge_model: str | None
    rubric_version: str | None
    primary_budget: int | None  # the run's: a preference that did not record its budget was made at it
    preference_budgets: list[int]  # the budgets people's preferences compared raw with
    behaviour: JudgeBehaviour
    agreement: PreferenceAgreement
    win_rates: list[WinRate]
    notes: list[str]
    flagged_items_excluded: int = 0  # flagged questions, left out of every figure here
    reference_free_version: str | None = None  # the rubric of the pairs without a gold answer (a run from traces)
    reference_free_pairs: int = 0  # pairs judged under it
    sides: dict[str, str] = field(default_factory=dict)  # a run read from traces: {raw | bundle: its side's label}


def judge_behaviour(verdicts: list[PairVerdict], s: Bootstrap) -> JudgeBehaviour:
    replies = [r for v in verdicts for r in v.replies]
    usable = [r for r in replies if r.winner is not None]
    decisive = [r for r in usable if r.winner != "tie"]
    status = [v.status for v in verdicts]
    decided = status.count(CONSISTENT) + status.count(INCONSISTENT)
    stabilities = [v.stability for v in verdicts if v.stability is not None]
    return JudgeBehaviour(
        len(verdicts), len(usable), len(replies) - len(usable), status.count(CONSISTENT), status.count(INCONSISTENT),
        status.count(UNDECIDED),
        agree.proportion(sum(r.winner == "1" for r in decisive), len(decisive),
                         "no usable reply that named a winner" if verdicts else NO_JUDGE, s.boot, s.seed),
        agree.proportion(sum(r.winner == "tie" for r in usable), len(usable),
                         "no usable reply" if verdicts else NO_JUDGE, s.boot, s.seed),
        agree.proportion(status.count(INCONSISTENT), decided,
                         "no pair was decided in both orders" if verdicts else NO_JUDGE, s.boot, s.seed),
        agree.mean_of(stabilities, "each order was asked once: judge --pairwise --repeats 2 (or more) measures it"
                      if verdicts else NO_JUDGE, s.boot, s.seed),
        sum(x < 1 for x in stabilities))


def _agreement(verdicts: list[PairVerdict], people: list[Preference], primary: int | None,
               s: Bootstrap) -> PreferenceAgreement:
    judged: dict[tuple[int, int | None], PairVerdict] = {(v.question_pk, v.budget): v for v in verdicts}
    rows, cols, left_out = [], [], dict[str, int]()
    for p in people:
        v = judged.get((p.question_pk, budget_of(p, primary)))
        why = ("no judge verdict at the preference's budget" if v is None else
               "the judge's verdict is inconsistent across orders" if v.status == INCONSISTENT else
               "the judge's verdict is undecided" if v.verdict is None else None)
        if why:
            left_out[why] = left_out.get(why, 0) + 1
            continue
        assert v is not None and v.verdict is not None  # why is None only for a consistent verdict
        rows.append(p.preferred)
        cols.append(v.verdict)
    cm = agree.confusion_matrix(rows, cols, CHOICES)
    no_ties = [(r, c) for r, c in zip(rows, cols) if "tie" not in (r, c)]
    cm2 = agree.confusion_matrix([r for r, _ in no_ties], [c for _, c in no_ties], CHOICES[:2])
    measures = agree.summary_measures()
    return PreferenceAgreement(len(rows), agree.estimates(cm, measures, s.boot, s.seed), list(CHOICES), cm.tolist(),
                               agree.estimates(cm2, measures, s.boot, s.seed), len(no_ties), left_out)


def pairwise_figures(store: Store, run_id: int, s: Bootstrap) -> PairwiseFigures:
    """The `pairwise` part of `agree`: the judge's behaviour, its agreement with people, and the win rates."""
    verdicts = pair_verdicts(store, run_id, unflagged=True)
    people = live_preferences(store, run_id, unflagged=True)
    flagged = flagged_questions(store, run_id)
    primary = run_info(store, run_id).primary_budget
    preferred_at = sorted({b for p in people if (b := budget_of(p, primary)) is not None})
    unjudged = [b for b in preferred_at if not any(v.budget == b for v in verdicts)]
    notes = []
    if verdicts and unjudged:
        listed = ",".join(map(str, unjudged))
        notes.append(f"people's preferences at budget {listed} have no pairwise judge verdict to compare with "
                     f"(judge --pairwise --budgets {listed})")
    free = [v for v in verdicts if v.reference_free]
    sides = side_labels(store, run_id)  # named only when the run has both sides (a lone project has no pairs)
    return PairwiseFigures(verdicts[0].judge_model if verdicts else None,
                           next((v.rubric_version for v in verdicts if not v.reference_free), None), primary,
                           preferred_at, judge_behaviour(verdicts, s), _agreement(verdicts, people, primary, s),
                           win_rates(store, run_id, verdicts, people, primary, flagged, s), notes, len(flagged),
                           free[0].rubric_version if free else None, len(free), sides if len(sides) == 2 else {})
