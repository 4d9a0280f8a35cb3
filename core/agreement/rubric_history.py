"""The rubric history (`gradedesk rubric history`): every stored rubric version, oldest first, with its agreement on
the test items of each alignment it was in (base or new), read from the reports the alignments kept
(core/store/alignments.py). Entries are JSON-ready data, as the reports are stored.
"""

from __future__ import annotations

from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.grading.rubric_format import parse_rubric
from gradedesk.core.store.alignments import stored_alignments
from gradedesk.core.store.connection import Store
from gradedesk.core.store.rubrics import rubric_texts

HISTORY_MEASURES = ("percent_agreement", "cohen_kappa", "gwet_ac1")


def _parts(text: str) -> tuple[int | None, str | None]:
    """(examples, based_on) of a stored rubric; (None, None) for a prompt stored by an older gradedesk."""
    try:
        rubric = parse_rubric(text)
    except UserError:
        return None, None
    return len(rubric.examples), rubric.based_on


def rubric_history(store: Store) -> list[dict[str, Any]]:
    """Every stored rubric version, oldest first, with its agreement on the test items of each alignment it was in."""
    measured: dict[str, list[dict[str, Any]]] = {}
    for a in stored_alignments(store):
        measures = a.report.get("test", {}).get("measures", {})
        for role, version in (("base", a.base_version), ("new", a.new_version)):
            entry = {"alignment_id": a.id, "run_id": a.run_id, "judge_model": a.judge_model, "role": role,
                     "test_items": a.report.get("test", {}).get("n"),
                     **{k: measures[k][role] for k in HISTORY_MEASURES if k in measures}}
            if role == "new" and "percent_agreement" in measures:
                entry["difference"] = measures["percent_agreement"]["difference"]
            measured.setdefault(version, []).append(entry)
    out = []
    for r in rubric_texts(store):
        examples, based_on = _parts(r.text)
        out.append({"version": r.version, "created_at": r.created_at, "examples": examples,
                    "based_on": based_on, "test_agreement": measured.get(r.version, [])})
    return out
