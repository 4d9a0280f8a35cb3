"""What judge alignment reads from and keeps in the store: the judge's usable verdicts under one rubric, what they
cost, each alignment with both sides of its split, and the rubric history (every version with its test agreement).
"""

from __future__ import annotations

import json
from collections.abc import Collection

from gradedesk.core.agreement.split import Split
from gradedesk.core.grading.rubric_format import parse_rubric
from gradedesk.core.grading.vocabulary import GRADING_ERROR
from gradedesk.core.errors import UserError
from gradedesk.core.store.connection import Store, utc_now

HISTORY_MEASURES = ("percent_agreement", "cohen_kappa", "gwet_ac1")


def _in(ids: Collection[int]) -> tuple[str, tuple[int, ...]]:
    ids = tuple(sorted(ids))
    return ",".join("?" * len(ids)) or "NULL", ids


def verdicts(store: Store, model: str, version: str, answer_ids: Collection[int]) -> dict[int, str]:
    """answer_id -> the judge's grade (first repeat) under `version`, for answers whose verdict is usable."""
    marks, ids = _in(answer_ids)
    rows = store.query(
        "SELECT answer_id, grade FROM auto_grades WHERE grader_kind = 'judge' AND grader_model = ? "
        f"AND rubric_version = ? AND repeat_index = 0 AND coalesce(failure_label, '') != ? AND answer_id IN ({marks})",
        (model, version, GRADING_ERROR, *ids))
    return {r["answer_id"]: r["grade"] for r in rows}


def verdict_cost(store: Store, model: str, parts: list[tuple[str, Collection[int]]]) -> tuple[float | None, int]:
    """Total cost (USD) of the verdicts align uses, every repeat, and how many of them have no known cost."""
    total, unknown, known = 0.0, 0, 0
    for version, answer_ids in parts:
        marks, ids = _in(answer_ids)
        row = store.query(
            "SELECT sum(cost_usd) AS cost, count(cost_usd) AS known, count(*) AS n FROM auto_grades "
            f"WHERE grader_kind = 'judge' AND grader_model = ? AND rubric_version = ? AND answer_id IN ({marks})",
            (model, version, *ids))[0]
        total += row["cost"] or 0.0
        known += row["known"]
        unknown += row["n"] - row["known"]
    return (total if known else None), unknown


def record_alignment(store: Store, run_id: int, base: str, new: str, model: str, grader: str | None, split: Split,
                     example_ids: Collection[int], report: dict) -> int:
    """Keep the alignment, its report and both sides of its split (one transaction)."""
    examples = set(example_ids)
    with store.transaction():
        alignment_id = store.db["alignments"].insert({
            "run_id": run_id, "base_version": base, "new_version": new, "judge_model": model, "grader": grader,
            "seed": split.seed, "test_share": split.test_share, "report": "{}", "created_at": utc_now(),
        }).last_pk
        report["alignment_id"] = alignment_id
        store.conn.execute("UPDATE alignments SET report = ? WHERE id = ?",
                           (json.dumps(report, ensure_ascii=False), alignment_id))
        store.db["alignment_items"].insert_all(
            [{"alignment_id": alignment_id, "answer_id": i.answer_id, "question_pk": i.question_pk, "side": side,
              "grade": i.grade, "example": int(i.answer_id in examples)}
             for side, items in (("train", split.train), ("test", split.test)) for i in items])
    return alignment_id


def alignment_sides(store: Store, alignment_id: int) -> dict[str, set[int]]:
    """{'train': answer ids, 'test': answer ids, 'examples': answer ids} of a stored alignment."""
    rows = store.query("SELECT answer_id, side, example FROM alignment_items WHERE alignment_id = ?", (alignment_id,))
    if not rows:
        raise UserError(f"alignment {alignment_id}: not in {store.path}")
    out: dict[str, set[int]] = {"train": set(), "test": set(), "examples": set()}
    for r in rows:
        out[r["side"]].add(r["answer_id"])
        if r["example"]:
            out["examples"].add(r["answer_id"])
    return out


def _parts(text: str) -> tuple[int | None, str | None]:
    """(examples, based_on) of a stored rubric; (None, None) for a prompt stored by an older gradedesk."""
    try:
        rubric = parse_rubric(text)
    except UserError:
        return None, None
    return len(rubric.examples), rubric.based_on


def rubric_history(store: Store) -> list[dict]:
    """Every stored rubric version, oldest first, with its agreement on the test items of each alignment it was in."""
    measured: dict[str, list[dict]] = {}
    for a in store.query("SELECT id, run_id, base_version, new_version, judge_model, report, created_at "
                         "FROM alignments ORDER BY id"):
        report = json.loads(a["report"])
        measures = report.get("test", {}).get("measures", {})
        for role, version in (("base", a["base_version"]), ("new", a["new_version"])):
            entry = {"alignment_id": a["id"], "run_id": a["run_id"], "judge_model": a["judge_model"], "role": role,
                     "test_items": report.get("test", {}).get("n"),
                     **{k: measures[k][role] for k in HISTORY_MEASURES if k in measures}}
            if role == "new" and "percent_agreement" in measures:
                entry["difference"] = measures["percent_agreement"]["difference"]
            measured.setdefault(version, []).append(entry)
    out = []
    for r in store.query("SELECT version, text, created_at FROM rubrics ORDER BY created_at, rowid"):
        examples, based_on = _parts(r["text"])
        out.append({"version": r["version"], "created_at": r["created_at"], "examples": examples,
                    "based_on": based_on, "test_agreement": measured.get(r["version"], [])})
    return out
