"""The pairwise figures (core/agreement/pairwise.py) as plain tables: what `gradedesk agree` prints under "Which answer
is better" and the desk's agreement screen shows in its section of that name. A run read from traces names its two
sides by their labels (the projects or attribute values the desk's panes show) instead of raw and bundled."""

from __future__ import annotations

from typing import Any

from gradedesk.core.agreement.pairwise import CHOICES, PairwiseFigures
from gradedesk.core.agreement.tables import GAIN_HEADERS, GAIN_NOTE, GROUP_MEASURES, Table, est_text, gain_cells
from gradedesk.core.stats.measures import Estimate, texts_once


def side(pw: PairwiseFigures, method: str) -> str:
    """How the tables name an answer: its side's label in a run read from traces, else raw or bundle."""
    return pw.sides.get(method, method)


def judge_rubrics(pw: PairwiseFigures) -> str:
    """The rubric (or two) the judge's verdicts were made under: with a gold answer, and reference-free without."""
    free = (f"{pw.reference_free_pairs} pair(s) without a gold answer: {pw.reference_free_version}"
            if pw.reference_free_version else None)
    return "; ".join(v for v in (pw.rubric_version, free) if v)


def judge_table(pw: PairwiseFigures, people_left: Estimate) -> Table:
    """The judge's position bias, ties, consistency and stability; people's left-side share beside its position
    bias."""
    b = pw.behaviour
    who = f"{pw.judge_model} ({judge_rubrics(pw)})" if pw.judge_model else "no pairwise judge yet"
    rows: list[list[Any]] = [
        ["judge chose ANSWER 1 (position bias; fair 0.5)", est_text(b.first_position_wins)],
        ["people chose the left answer (fair 0.5)", est_text(people_left)],
        ["judge tie rate", est_text(b.tie_rate)],
        ["judge inconsistency rate (orders disagree)", est_text(b.inconsistency_rate)],
        ["judge stability across repeats", est_text(b.stability)],
        ["pairs: consistent / inconsistent / undecided", f"{b.consistent} / {b.inconsistent} / {b.undecided}"],
        ["replies: usable / unusable", f"{b.replies} / {b.unusable}"],
    ]
    return Table(f"Which answer is better: the pairwise judge {who}", ["measure", "estimate"], rows)


def preference_agreement_table(pw: PairwiseFigures) -> Table:
    a = pw.agreement
    rows: list[list[Any]] = [[label, est_text(a.estimates[key]), est_text(a.without_ties.get(key))]
                             for key, label in GROUP_MEASURES]
    rows.append(["pairs", a.pairs, a.pairs_without_ties])
    rows += [[f"not compared: {why}", n, ""] for why, n in sorted(a.not_compared.items())]
    at = ", ".join(map(str, pw.preference_budgets)) or str(pw.primary_budget)
    compared = (f"{side(pw, 'raw')} vs {side(pw, 'bundle')}" if pw.sides else f"bundle at budget {at}")
    return Table(f"Judge vs people's preferences ({compared}; consistent verdicts only)",
                 ["measure", ", ".join(side(pw, c) for c in CHOICES), "ties left out"], rows)


def preference_confusion_table(pw: PairwiseFigures) -> Table:
    m = pw.agreement.matrix
    names = [side(pw, c) for c in CHOICES]
    rows: list[list[Any]] = [[f"person: {c}", *m[i], sum(m[i])] for i, c in enumerate(names)]
    return Table("Preferences (rows: person, columns: judge)", ["", *names, "total"], rows)


def win_rate_table(pw: PairwiseFigures) -> Table:
    rates = pw.win_rates
    texts = texts_once([e for w in rates for e in (w.people, w.judge, w.ppi)])
    rows: list[list[Any]] = [[w.budget, w.category or "all", w.pairs, *texts[3 * i:3 * i + 3]]
                             for i, w in enumerate(rates)]
    over = f"{side(pw, 'bundle')} over {side(pw, 'raw')}" if pw.sides else "bundled over raw"
    return Table(f"Win rate of {over} (a tie counts half; 95% bootstrap intervals; prediction-powered: "
                 "power-tuned)",
                 ["budget", "category", "pairs", "people", "judge (consistent)", "prediction-powered"], rows)


def judge_bought_table(pw: PairwiseFigures) -> Table | None:
    """Each prediction-powered win rate's lambda and what the judge bought it; None when none has an estimate."""
    rows: list[list[Any]] = [[w.budget, w.category or "all", *gain_cells(w.judge_bought)]
                             for w in pw.win_rates if w.judge_bought is not None]
    if not rows:
        return None
    return Table(f"Prediction-powered win rates: what the pairwise judge bought ({GAIN_NOTE})",
                 ["budget", "category", *GAIN_HEADERS], rows)


def unjudged_table(people_left: Estimate) -> Table:
    """Before any pairwise verdict: people's left-side share and what gives the judge's figures, in two rows, rather
    than a "not defined" in every row of the judge's tables."""
    rows: list[list[Any]] = [
        ["people chose the left answer (fair 0.5)", est_text(people_left)],
        ["pairwise verdicts", "none on this run yet: gradedesk judge --pairwise --base-url URL --model M"]]
    return Table("Which answer is better", ["measure", "estimate"], rows)


def pairwise_tables(pw: PairwiseFigures, people_left: Estimate, *, confusion: bool = True) -> list[Table]:
    """What `agree` prints and the agreement screen shows (the screen leaves out the preference confusion table).
    With no pairwise reply yet: people's side of it only (their win rates, when they chose between answers)."""
    if pw.judge_model is None:
        return [unjudged_table(people_left), *([win_rate_table(pw)] if pw.win_rates else [])]
    bought = judge_bought_table(pw)
    return [judge_table(pw, people_left), preference_agreement_table(pw),
            *([preference_confusion_table(pw)] if confusion else []), win_rate_table(pw),
            *([bought] if bought else [])]
