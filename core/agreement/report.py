"""The agreement report of one run: person vs machine grader, and what the grades say about raw vs bundled.

Reads the store (current human grades, the `machine_grades` view, human grade events, answers, questions, rubrics) and
computes everything with the pure statistics in core/agree.py. Decisions worth knowing:

- The machine grader is named, never assumed. By default each person's grade is compared with the machine grader that
  was on the desk when it was saved (human_grades.machine_kind/_model/_rubric), so a judge run later does not change
  whom people are compared with; grades that did not record one (older stores, imports) are compared with the
  `machine_grades` view's pick. A `GraderChoice` (`agree --grader judge:MODEL|rules|imported:NAME`) compares every
  grade with that grader instead. Then one kind is compared: the judge when there is one, else imported grades, else
  the rule grader; pairs of another kind are left out of the headline and counted in `notes`.
- A pair is (answer, person): with several people, each person's current grade is one pair. The bootstrap treats pairs
  as independent, which slightly understates the interval when two people graded the same answer.
- Judge-corrected pass rates use one calibration set (all person-graded answers, both methods): the judge's TPR/TNR are
  assumed to be the same for raw and bundled answers. The paired raw-vs-bundled difference uses the run's primary
  budget (the bundled answer the desk shows beside raw). The samples section's prediction-powered pass rates take the
  same grader's pass rates (the chosen one, else the one grader on the desk, else the view's pick of the kind).
- Switch rate: among answers a person first graded blind that have a machine grade (the desk reveals it after the blind
  grade is saved), the share with a later revision (is_revision) to another grade; toward the machine grade when the
  new grade is closer to it on the ordinal scale, away when farther.
- Self-consistency: each 'recheck' grade against the same person's latest earlier non-recheck grade of that answer.
- Rubric versions: the newest row of `rubrics` is current; a person's grade saved under another version is flagged for
  re-grading. A run judged under several rubrics gets them side by side on the items all of them graded
  (rubric_versions.py); the headline uses each answer's machine grade as the `machine_grades` view picks it.
- Bias probes of the machine grader (bias.py): its pass rate against the people's, and agreement by answer length.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from gradedesk.core.agreement import statistics as agree
from gradedesk.core.agreement.faithfulness import faithfulness_agreement
from gradedesk.core.agreement.rubric_versions import judge_versions, machine_bias
from gradedesk.core.agreement.samples import sample_report
from gradedesk.core.errors import UserError
from gradedesk.core.grading.vocabulary import GRADES, PASS_GRADE, grade_rank
from gradedesk.core.store.connection import Store
from gradedesk.core.store.gold import stale_grade_counts

KIND_PREFERENCE = ("judge", "imported", "rule")
KIND_NAMES = {"judge": "judge", "imported": "imported grades", "rule": "rule grader"}
NO_LABEL = "(no label)"
FEW_PAIRS = 20  # below this, percentile-bootstrap intervals are too narrow to trust


@dataclass(frozen=True)
class Pair:
    """A person's current grade of an answer beside the machine grade of the same answer."""

    answer_id: int
    question_pk: int
    grader: str
    human: str
    machine: str
    category: str
    method: str
    budget: int
    label: str  # the person's failure label, NO_LABEL when none
    mode: str
    rubric_version: str | None
    confidence: float | None
    selection: str | None = None  # how the person came to the item (core/agreement/samples.py)


# `gradedesk agree --by` names (core/cli/agree_cmd.BY_CHOICES repeats them so --help stays light)
BREAKDOWNS: dict[str, Callable[[Pair], str]] = {
    "category": lambda p: p.category,
    "method": lambda p: p.method,
    "label": lambda p: p.label,  # the person's failure label
    "mode": lambda p: p.mode,  # blind or open (judge in view)
}


@dataclass
class Settings:
    boot: int = agree.DEFAULT_BOOT
    seed: int = agree.DEFAULT_SEED


def _matrix(pairs: Iterable[Pair]) -> np.ndarray:
    pairs = list(pairs)
    return agree.confusion_matrix([p.human for p in pairs], [p.machine for p in pairs], GRADES)


def _estimates_dict(cm: np.ndarray, measures: list[agree.Measure], s: Settings) -> dict[str, dict]:
    return {k: v.to_dict() for k, v in agree.estimates(cm, measures, s.boot, s.seed).items()}


def _summary_measures() -> list[agree.Measure]:
    """The three measures shown per group: percent agreement, kappa, AC1."""
    keep = {"percent_agreement", "cohen_kappa", "gwet_ac1"}
    return [m for m in agree.pair_measures() if m.name in keep]


def _grouped(pairs: list[Pair], key: Callable[[Pair], str], s: Settings) -> list[dict]:
    groups: dict[str, list[Pair]] = defaultdict(list)
    for p in pairs:
        groups[key(p)].append(p)
    return [{"group": name, "n": len(members), **_estimates_dict(_matrix(members), _summary_measures(), s)}
            for name, members in sorted(groups.items())]


# -- loading ------------------------------------------------------------------------------------------------------------

def machine_label(kind: str, models: Iterable[str | None]) -> str:
    """'judge (gpt-x)', 'rule grader (rules/1)': what the people were compared with."""
    names = sorted({m for m in models if m})
    return f"{KIND_NAMES.get(kind, kind)} ({', '.join(names)})" if names else KIND_NAMES.get(kind, kind)


@dataclass(frozen=True)
class GraderChoice:
    """One machine grader to compare every person's grade with: a kind and, optionally, its model (any model of the
    kind when None; the newest grade of the first repeat per answer, as the desk shows)."""

    kind: str  # judge | rule | imported (auto_grades.grader_kind)
    model: str | None = None

    NAMES = {"judge": "judge", "rules": "rule", "imported": "imported"}

    @classmethod
    def parse(cls, text: str) -> GraderChoice:
        """`judge:MODEL`, `rules` or `imported:NAME` (NAME: the imported log's file name)."""
        name, _, model = text.partition(":")
        kind = cls.NAMES.get(name.strip())
        if kind is None:
            raise UserError(f"--grader: {text!r} is not judge:MODEL, rules or imported:NAME")
        return cls(kind, model.strip() or None)

    @property
    def text(self) -> str:
        name = next(n for n, k in self.NAMES.items() if k == self.kind)
        return f"{name}:{self.model}" if self.model else name

    def pick_sql(self, answer: str) -> str:
        """SQL: the auto_grades id of this grader's grade of `answer` (parameters :choice_kind, :choice_model)."""
        return (f"(SELECT g.id FROM auto_grades g WHERE g.answer_id = {answer} AND g.grader_kind = :choice_kind "
                f"AND (:choice_model IS NULL OR g.grader_model IN (:choice_model, 'import:' || :choice_model)) "
                f"ORDER BY g.repeat_index, g.id DESC LIMIT 1)")

    @property
    def params(self) -> dict:
        return {"choice_kind": self.kind, "choice_model": self.model}


# The grader on the desk when the grade was saved (same kind, model and rubric); the view's pick if none was recorded.
_ON_DESK = """CASE WHEN h.machine_kind IS NULL THEN (SELECT mg.id FROM machine_grades mg WHERE mg.answer_id = h.answer_id)
    ELSE (SELECT g.id FROM auto_grades g WHERE g.answer_id = h.answer_id AND g.grader_kind = h.machine_kind
          AND g.grader_model IS h.machine_model AND g.rubric_version IS h.machine_rubric
          ORDER BY g.repeat_index, g.id DESC LIMIT 1) END"""


def _load_pairs(store: Store, run_id: int, choice: GraderChoice | None) -> list[dict]:
    pick = choice.pick_sql("h.answer_id") if choice else _ON_DESK
    return store.query(
        f"""
        SELECT h.answer_id, a.question_pk, h.grader, h.grade AS human, h.failure_label AS human_label, h.mode,
               h.rubric_version, a.method, a.budget, q.category, m.grade AS machine, m.grader_kind, m.grader_model,
               m.confidence, h.selection, h.machine_kind IS NOT NULL AS recorded
        FROM current_human_grades h
        JOIN answers a ON a.id = h.answer_id
        JOIN questions q ON q.id = a.question_pk
        LEFT JOIN auto_grades m ON m.id = {pick}
        WHERE a.run_id = :run AND h.grade IS NOT NULL
        ORDER BY h.answer_id, h.grader
        """,
        {"run": run_id, **(choice.params if choice else {})},
    )


def _choose_kind(rows: list[dict]) -> str | None:
    kinds = {r["grader_kind"] for r in rows if r["grader_kind"]}
    return next((k for k in KIND_PREFERENCE if k in kinds), None)


def _pair(r: dict) -> Pair:
    return Pair(r["answer_id"], r["question_pk"], r["grader"], r["human"], r["machine"], r["category"], r["method"],
                r["budget"], r["human_label"] or NO_LABEL, r["mode"], r["rubric_version"], r["confidence"],
                r["selection"])


# -- sections ----------------------------------------------------------------------------------------------------------

def _headline(pairs: list[Pair], s: Settings, machine_name: str) -> dict:
    cm = _matrix(pairs)
    cm2 = agree.collapse_binary(cm, GRADES.index(PASS_GRADE))
    return {
        "four_level": _estimates_dict(cm, agree.pair_measures(), s),
        "confusion": {"rows": "person", "columns": "machine", "labels": list(GRADES), "matrix": cm.tolist()},
        "per_class": _estimates_dict(cm, agree.class_measures(GRADES, col_name=machine_name), s),
        "binary": {
            **_estimates_dict(cm2, agree.pair_measures() + agree.binary_rates(), s),
            "labels": [PASS_GRADE, "not " + PASS_GRADE], "matrix": cm2.tolist(),
        },
    }


def _people_alpha_units(store: Store, run_id: int) -> list[list[int]]:
    """Every answer's current grades by all people (with or without a machine grade)."""
    rows = store.query(
        "SELECT h.answer_id, h.grade FROM current_human_grades h JOIN answers a ON a.id = h.answer_id "
        "WHERE a.run_id = ? AND h.grade IS NOT NULL", (run_id,))
    units: dict[int, list[int]] = defaultdict(list)
    for r in rows:
        units[r["answer_id"]].append(grade_rank(r["grade"]))
    return list(units.values())


@dataclass
class Arm:
    """One (method, budget) of the run: its answers, their prompt tokens and machine grades of the chosen kind."""

    method: str
    budget: int
    answers: int = 0
    tokens: int = 0
    counted: int = 0  # answers with a prompt token count
    judged: int = 0
    passed: int = 0


def _scan_answers(store: Store, run_id: int, kind: str | None,
                  choice: GraderChoice | None) -> tuple[list[Arm], np.ndarray, int | None]:
    """One pass over the run's answers: per-arm counts, and the paired raw-vs-primary-bundle table of machine passes
    (by `choice`, the grader the people were compared with, else by the `machine_grades` view's pick of `kind`).

    One scan because the machine grade costs a correlated lookup per answer (seconds at a million answers).
    The paired table is [[raw pass & bundle pass, raw pass & bundle fail], [raw fail & ..., ...]].
    """
    primary = store.scalar("SELECT primary_budget FROM runs WHERE id = ?", (run_id,))
    arms: dict[tuple[str, int], Arm] = {}
    by_question: dict[int, list[bool | None]] = {}
    machine = (f"auto_grades m ON m.id = {choice.pick_sql('a.id')}" if choice
               else "machine_grades m ON m.answer_id = a.id")
    rows = store.conn.execute(
        f"SELECT a.question_pk, a.method, a.budget, a.tokens_in, m.grade, m.grader_kind "
        f"FROM answers a LEFT JOIN {machine} WHERE a.run_id = :run AND a.status = 'ok'",
        {"run": run_id, **(choice.params if choice else {})})
    for question_pk, method, budget, tokens_in, grade, grader_kind in rows:
        arm = arms.get((method, budget))
        if arm is None:
            arm = arms[(method, budget)] = Arm(method, budget)
        arm.answers += 1
        if tokens_in is not None:
            arm.tokens += tokens_in
            arm.counted += 1
        if grader_kind != kind or kind is None:
            continue
        arm.judged += 1
        arm.passed += grade == PASS_GRADE
        if method == "raw" or budget == primary:
            by_question.setdefault(question_pk, [None, None])[method == "bundle"] = grade == PASS_GRADE
    paired = np.zeros((2, 2), dtype=np.int64)
    for raw_pass, bundle_pass in by_question.values():
        if raw_pass is not None and bundle_pass is not None:
            paired[1 - raw_pass, 1 - bundle_pass] += 1
    ordered = sorted(arms.values(), key=lambda a: (a.method != "raw", a.budget))
    return ordered, paired, primary


def _judged_shown(arms: list[Arm], primary: int | None) -> dict[str, tuple[int, int]]:
    """(judged, passed) per method over the answers the desk shows: raw, and bundled at the primary budget."""
    shown = {"raw": [a for a in arms if a.method == "raw"],
             "bundle": [a for a in arms if a.method == "bundle" and a.budget == primary]}
    return {method: (sum(a.judged for a in group), sum(a.passed for a in group)) for method, group in shown.items()}


def _corrected(arms: list[Arm], paired: np.ndarray, primary: int | None, pairs: list[Pair], s: Settings) -> dict:
    cm2 = agree.collapse_binary(_matrix(pairs), GRADES.index(PASS_GRADE))
    out_arms = []
    for arm in arms:
        if not arm.judged:
            continue
        est = agree.corrected_pass_rate(cm2, arm.passed, arm.judged, s.boot, s.seed)
        out_arms.append({"method": arm.method, "budget": arm.budget, "judged": arm.judged,
                         "judge_passed": arm.passed, "observed_rate": arm.passed / arm.judged,
                         "corrected": est.to_dict()})
    diff = agree.corrected_difference(cm2, paired, s.boot, s.seed)
    tpr, tnr = (agree.estimate(cm2, m) for m in agree.binary_rates())
    return {
        "calibration": {"n": int(cm2.sum()), "tpr": tpr.to_dict(), "tnr": tnr.to_dict()},
        "arms": out_arms,
        "bundle_minus_raw": {"budget": primary, "paired_questions": int(paired.sum()), "estimate": diff.to_dict()},
    }


def _effective_sets(store: Store, run_id: int) -> dict[tuple[int, str], list[dict]]:
    """Each (answer, person)'s 'set' events that no undo took back, oldest first."""
    rows = store.query(
        """
        SELECT h.answer_id, h.grader, h.grade, h.mode, h.judge_visible, h.is_revision
        FROM human_grades h JOIN answers a ON a.id = h.answer_id
        WHERE a.run_id = ? AND h.action = 'set' AND h.grade IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM human_grades u WHERE u.action = 'undo' AND u.undoes_uuid = h.uuid)
        ORDER BY h.id
        """,
        (run_id,),
    )
    events: dict[tuple[int, str], list[dict]] = defaultdict(list)
    for r in rows:
        events[(r["answer_id"], r["grader"])].append(r)
    return events


def _switches(events: dict[tuple[int, str], list[dict]], machine: dict[int, str], s: Settings) -> dict:
    eligible = toward = away = sideways = 0
    for (answer_id, _grader), evs in events.items():
        blind = next((e for e in evs if e["mode"] == "blind" and not e["judge_visible"]), None)
        if blind is None or answer_id not in machine:
            continue
        eligible += 1
        revisions = [e for e in evs if e["is_revision"] and e is not blind]
        if not revisions or revisions[-1]["grade"] == blind["grade"]:
            continue
        target = grade_rank(machine[answer_id])
        before = abs(grade_rank(blind["grade"]) - target)
        after = abs(grade_rank(revisions[-1]["grade"]) - target)
        if after < before:
            toward += 1
        elif after > before:
            away += 1
        else:
            sideways += 1
    switched = toward + away + sideways
    rate = agree.proportion(switched, eligible, "no answer was graded blind before its machine grade was shown",
                            s.boot, s.seed)
    return {"eligible": eligible, "switched": switched, "toward_machine": toward, "away_from_machine": away,
            "sideways": sideways, "rate": rate.to_dict()}


def _self_consistency(events: dict[tuple[int, str], list[dict]], s: Settings) -> list[dict]:
    per_person: dict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    for (_answer, grader), evs in events.items():
        earlier = None
        for e in evs:
            if e["mode"] != "recheck":
                earlier = e["grade"]
            elif earlier is not None:
                per_person[grader][0].append(earlier)
                per_person[grader][1].append(e["grade"])
    out = []
    for grader, (first, again) in sorted(per_person.items()):
        cm = agree.confusion_matrix(first, again, GRADES)
        out.append({"grader": grader, "n": len(first), **_estimates_dict(cm, _summary_measures(), s)})
    return out


def _rubrics(store: Store, run_id: int, pairs: list[Pair], s: Settings) -> dict:
    current = store.scalar("SELECT version FROM rubrics ORDER BY created_at DESC, rowid DESC LIMIT 1")
    per_version = _grouped(pairs, lambda p: p.rubric_version or "(unversioned)", s)
    flagged, machine_older = [], 0
    if current is not None:
        machine_older = store.scalar(
            "SELECT count(*) FROM auto_grades g JOIN answers a ON a.id = g.answer_id "
            "WHERE a.run_id = ? AND g.rubric_version IS NOT NULL AND g.rubric_version != ?", (run_id, current))
        flagged = store.query(
            """
            SELECT h.answer_id, q.question_id, a.method, a.budget, h.grader, h.rubric_version
            FROM current_human_grades h JOIN answers a ON a.id = h.answer_id JOIN questions q ON q.id = a.question_pk
            WHERE a.run_id = ? AND h.rubric_version IS NOT NULL AND h.rubric_version != ?
            ORDER BY h.answer_id, h.grader
            """,
            (run_id, current),
        )
    return {"current": current, "per_version": per_version, "flagged_for_regrading": flagged,
            "machine_grades_under_older_rubric": machine_older}


def _quality_by_tokens(store: Store, run_id: int, arms: list[Arm]) -> list[dict]:
    """Per (method, budget): mean prompt tokens and pass rates, the data of the budget-sweep plot."""
    human = {(r["method"], r["budget"]): r["rate"] for r in store.query(
        "SELECT a.method, a.budget, avg(h.grade = ?) AS rate FROM current_human_grades h "
        "JOIN answers a ON a.id = h.answer_id WHERE a.run_id = ? AND a.status = 'ok' GROUP BY a.method, a.budget",
        (PASS_GRADE, run_id))}
    return [{"method": a.method, "budget": a.budget, "answers": a.answers,
             "mean_tokens_in": a.tokens / a.counted if a.counted else None,
             "machine_pass_rate": a.passed / a.judged if a.judged else None,
             "human_pass_rate": human.get((a.method, a.budget))} for a in arms]


# -- the report -------------------------------------------------------------------------------------------------------

def _arms_grader(choice: GraderChoice | None, chosen: list[dict]) -> GraderChoice | None:
    """Whose pass rates the corrected rates correct: the chosen grader, or the one grader on the desk for every pair."""
    if choice is not None:
        return choice
    on_desk = {(r["grader_kind"], r["grader_model"]) for r in chosen}
    if len(on_desk) == 1 and any(r["recorded"] for r in chosen):
        kind, model = on_desk.pop()
        return GraderChoice(kind, model)
    return None


def agreement_report(store: Store, run_id: int, settings: Settings | None = None,
                     grader: GraderChoice | None = None) -> dict:
    """Everything `gradedesk agree` prints and the desk's agreement screen shows, as JSON-ready data. `grader`: whom
    every grade is compared with (default: the machine grader on the desk when it was saved)."""
    s = settings or Settings()
    rows = _load_pairs(store, run_id, grader)
    graders = rows or store.query(  # nobody graded yet: still name the run's machine grader and its pass rates
        "SELECT DISTINCT g.grader_kind, g.grader_model FROM auto_grades g JOIN answers a ON a.id = g.answer_id "
        "WHERE a.run_id = ?", (run_id,))
    kind = grader.kind if grader else _choose_kind(graders)
    chosen = [r for r in rows if r["grader_kind"] == kind] if kind else []
    pairs = [_pair(r) for r in chosen]
    notes = []
    ungraded_by_machine = sum(1 for r in rows if r["machine"] is None)
    if ungraded_by_machine and grader:
        notes.append(f"{ungraded_by_machine} person grade(s) have no grade by {grader.text} and are not compared")
    elif ungraded_by_machine:
        notes.append(f"{ungraded_by_machine} person grade(s) have no machine grade and are not compared")
    other = len(rows) - ungraded_by_machine - len(chosen)
    if other:
        notes.append(f"{other} person grade(s) are on answers graded by another kind of machine grader than "
                     f"{KIND_NAMES.get(kind, kind)} and are left out")
    open_grades = sum(1 for p in pairs if p.mode != "blind")
    if open_grades:
        notes.append(f"{open_grades} of {len(pairs)} compared grades were saved with the machine grade in view "
                     "(mode open); see the breakdown by mode")
    if kind == "rule":
        notes.append("no LLM judge graded this run: people are compared with the offline rule grader")
    if grader is None and any(r["recorded"] for r in chosen):
        notes.append("each grade is compared with the machine grader on the desk when it was saved; "
                     "--grader judge:MODEL|rules|imported:NAME compares all with one")
    stale = stale_grade_counts(store, run_id)
    if stale:
        notes.append(f"{sum(stale.values())} machine grade(s) were made against a gold answer that has been corrected "
                     f"since (stale); `gradedesk grade-offline` / `gradedesk judge` grade them again")
    events = _effective_sets(store, run_id)
    arms, paired, primary = _scan_answers(store, run_id, kind, _arms_grader(grader, chosen))
    machine = {p.answer_id: p.machine for p in pairs}
    models = {r["grader_model"] for r in (chosen if grader else graders) if r["grader_kind"] == kind}
    report = {
        "run_id": run_id,
        "machine": {"kind": kind, "label": machine_label(kind, models or {grader and grader.model}) if kind else None},
        "compared_with": grader.text if grader else "the machine grader on the desk when each grade was saved",
        "pairs": len(pairs),
        "people": sorted({p.grader for p in pairs}),
        "settings": {"bootstrap": s.boot, "seed": s.seed, "level": agree.LEVEL,
                     "target_half_width": agree.TARGET_HALF_WIDTH},
        **_headline(pairs, s, KIND_NAMES.get(kind, "machine grader")),
        "breakdowns": {name: _grouped(pairs, key, s) for name, key in BREAKDOWNS.items()},
        "people_agreement": _grouped(pairs, lambda p: p.grader, s),
        "krippendorff_alpha": agree.krippendorff_alpha_ordinal(
            _people_alpha_units(store, run_id), len(GRADES), s.boot, s.seed).to_dict(),
        "corrected_pass_rates": _corrected(arms, paired, primary, pairs, s) if kind else None,
        "switch_rate": _switches(events, machine, s),
        "self_consistency": _self_consistency(events, s),
        "rubrics": _rubrics(store, run_id, pairs, s),
        "judge_rubrics": judge_versions(store, run_id, s.boot, s.seed),
        "bias": machine_bias(store, [(p.answer_id, p.human, p.machine) for p in pairs], s.boot, s.seed),
        "quality_by_tokens": _quality_by_tokens(store, run_id, arms),
        "samples": sample_report(store, run_id, pairs, _judged_shown(arms, primary) if kind else None, s),
        "faithfulness": faithfulness_agreement(store, run_id, s.boot, s.seed),
        "notes": notes,
        "stale_grades": stale,
    }
    report["notes"] += report["faithfulness"]["notes"]
    judged_under = len(report["judge_rubrics"]["versions"])
    if kind == "judge" and judged_under > 1:
        report["notes"].append(f"the judge graded this run under {judged_under} rubric versions (or models): the "
                               "headline takes each answer's newest judge grade; see them side by side on the same "
                               "items under 'per judge rubric version'")
    if not pairs:
        report["notes"].append("no answer of this run has both a person's grade and a machine grade")
    elif len(pairs) < FEW_PAIRS:
        report["notes"].append(f"only {len(pairs)} graded pair(s): bootstrap intervals (and the items still needed "
                               "for +/-0.05) are rough below about 20")
    return report
