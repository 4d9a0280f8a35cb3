"""On which sample each agreement figure rests, and the figures that stay honest when the desk chose what to grade.

The desk records how a person came to each item (human_grades.selection). Items the sampler drew (sample_draws, with
their probabilities) form the *sampled* sample: its figures are inverse-probability weighted (core/agreement/
weighted.py) and so estimate the whole run. Items reached in question order form a sample of the run's first
questions; items reached by a filter or a jump are a *convenience* sample: both are reported apart, unweighted, and
named as what they are, never mixed into the sampled figures. Grades saved before selections were recorded count as
"unrecorded". The pass rates per method are prediction-powered (the judge on every answer, corrected by the sampled
human grades). Two biases of the people themselves: position (the side of the screen, which the desk shuffles) and
anchoring (agreement when the judge was shown before the first grade vs blind).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from gradedesk.core.agreement import statistics as agree
from gradedesk.core.agreement.weighted import kish_effective_n, ppi_pass_rate, weighted_estimates
from gradedesk.core.grading.vocabulary import GRADES, PASS_GRADE
from gradedesk.core.store.connection import Store

SAMPLE_NAMES = {
    "question_order": "question order (the run's first questions; not a random sample)",
    "filter": "convenience sample (reached through a filter)",
    "jump": "convenience sample (reached by a jump)",
    "recheck": "recheck sample",
    "imported": "imported grades",
    None: "unrecorded (graded before selections were recorded)",
}
_Q = len(GRADES)
_PASS = GRADES.index(PASS_GRADE)


def _binary_cells(cells: np.ndarray) -> np.ndarray:
    """Four-level cells (row * 4 + col) as pass/fail cells (row * 2 + col), pass first."""
    rows, cols = cells // _Q, cells % _Q
    return (rows != _PASS).astype(np.int64) * 2 + (cols != _PASS).astype(np.int64)


def _cell(human: str, machine: str) -> int:
    return GRADES.index(human) * _Q + GRADES.index(machine)


def _sampled(store: Store, run_id: int, pairs: list, s) -> tuple[dict, list[tuple[object, float]]]:
    """The sampled sample's weighted figures, and its (pair, weight) list for the pass rates."""
    draws = store.query("SELECT grader, question_pk, probability, population FROM sample_draws WHERE run_id = ? "
                        "ORDER BY grader, draw_index", (run_id,))
    by_question = defaultdict(list)
    for p in pairs:
        by_question[(p.grader, p.question_pk)].append(p)
    weighted, pending = [], 0
    for d in draws:
        members = by_question.get((d["grader"], d["question_pk"]))
        if not members:
            pending += 1  # drawn, not graded (yet): left out, and counted
            continue
        weighted.extend((p, 1.0 / (d["population"] * d["probability"])) for p in members)
    cells = np.array([_cell(p.human, p.machine) for p, _ in weighted], dtype=np.int64)
    weights = np.array([w for _, w in weighted], dtype=float)
    four = weighted_estimates(cells, weights, _Q, agree.pair_measures(), s.boot, s.seed)
    two = weighted_estimates(_binary_cells(cells), weights, 2, agree.pair_measures() + agree.binary_rates(), s.boot,
                             s.seed)
    return {
        "sample": "sampled (drawn with known probabilities; inverse-probability weighted, Hajek)",
        "draws": len(draws), "graded_draws": len(draws) - pending, "pending_draws": pending,
        "pairs": len(weighted), "kish_effective_n": round(kish_effective_n(weights), 1) if weights.size else 0,
        "four_level": {k: v.to_dict() for k, v in four.items()},
        "binary": {k: v.to_dict() for k, v in two.items()},
    }, weighted


def _apart(pairs: list, s) -> list[dict]:
    """The other samples, each unweighted and named."""
    groups = defaultdict(list)
    for p in pairs:
        if p.selection != "sampled":
            groups[p.selection].append(p)
    out = []
    for selection in sorted(groups, key=lambda k: (k is None, k or "")):
        members = groups[selection]
        cm = agree.confusion_matrix([p.human for p in members], [p.machine for p in members], GRADES)
        out.append({"selection": selection, "sample": SAMPLE_NAMES.get(selection, selection), "pairs": len(members),
                    **agree.estimates_dict(cm, agree.summary_measures(), s.boot, s.seed)})
    return out


def _pass_rates(weighted: list[tuple[object, float]], judged: dict[str, tuple[int, int]], s) -> list[dict]:
    """Prediction-powered pass rate per method (raw, and bundled at the primary budget). `judged`: per method, how many
    shown answers the compared machine grader graded and passed (the grader of the pairs' `machine`)."""
    out = []
    for method in ("raw", "bundle"):
        n, passed = judged.get(method, (0, 0))
        judge_all = [True] * passed + [False] * (n - passed)
        sample = [(p, w) for p, w in weighted if p.method == method]
        est, worth = ppi_pass_rate(judge_all, [p.human == PASS_GRADE for p, _ in sample],
                                   [p.machine == PASS_GRADE for p, _ in sample], [w for _, w in sample], s.boot, s.seed)
        if est.value is None and judge_all and not sample:
            est.reason = "no sampled human grade of this method: grade in 'most useful' (sampled) order"
        out.append({"method": method, "judged": n, "human_sampled": len(sample),
                    "ppi": est.to_dict(),
                    "worth_human_grades": None if worth is None else round(worth),
                    "more_than_graded": None if worth is None else max(0, round(worth) - len(sample))})
    return out


def _position_bias(store: Store, run_id: int, s) -> dict:
    """Preferences for the left answer (the desk shuffles sides, so about half would be fair)."""
    rows = store.query(
        "SELECT preferred, left_method FROM human_preferences p WHERE run_id = ? AND id = (SELECT max(id) FROM "
        "human_preferences p2 WHERE p2.run_id = p.run_id AND p2.question_pk = p.question_pk AND "
        "p2.grader = p.grader) AND preferred <> 'tie'", (run_id,))
    left = sum(r["preferred"] == r["left_method"] for r in rows)
    return {"preferred_left": agree.proportion(left, len(rows), "no preference between two answers yet",
                                               s.boot, s.seed).to_dict(), "preferences": len(rows)}


def _anchoring(pairs: list, s) -> dict:
    """Agreement when the judge was in view before the person's grade (mode open) vs blind, and the difference."""
    groups = {mode: [p.human == p.machine for p in pairs if p.mode == mode] for mode in ("open", "blind")}
    out = {mode: agree.proportion(sum(v), len(v), f"no {mode} grade", s.boot, s.seed).to_dict()
           for mode, v in groups.items()}
    if groups["open"] and groups["blind"]:
        rng = np.random.default_rng(s.seed)
        o, b = np.array(groups["open"], dtype=float), np.array(groups["blind"], dtype=float)
        boot = (rng.choice(o, (s.boot, o.size)).mean(1) - rng.choice(b, (s.boot, b.size)).mean(1))
        out["difference"] = agree.finish(float(o.mean() - b.mean()), int(o.size + b.size), boot, "").to_dict()
    else:
        out["difference"] = agree.Estimate(None, 0, reason="needs both revealed and blind grades").to_dict()
    return out


def sample_report(store: Store, run_id: int, pairs: list, judged: dict[str, tuple[int, int]] | None, s) -> dict:
    """The samples section of `agree`. `pairs` compare each person with one machine grader; `judged` counts that same
    grader's grades and passes on every shown answer per method (None: no machine grader, no pass rates)."""
    sampled, weighted = _sampled(store, run_id, pairs, s)
    return {
        "headline_sample": "all graded items, unweighted (see sampled and apart for the samples they mix)",
        "sampled": sampled,
        "apart": _apart(pairs, s),
        "pass_rates": _pass_rates(weighted, judged, s) if judged is not None else [],
        "position_bias": _position_bias(store, run_id, s),
        "anchoring": _anchoring(pairs, s),
    }
