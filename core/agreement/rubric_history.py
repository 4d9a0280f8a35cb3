"""The rubric history (`gradedesk rubric history`): every stored rubric version, oldest first, with its agreement on
the test items of each alignment it was in (base or new), read from the reports the alignments kept
(core/store/alignments.py). Typed records (`to_dict()` is what `rubric history --json` prints); the estimates stay
the JSON the reports stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.grading.rubric_format import parse_rubric
from gradedesk.core.stats.records import FLAT, OMIT_NONE, Record
from gradedesk.core.store.alignments import stored_alignments
from gradedesk.core.store.connection import Store
from gradedesk.core.store.rubrics import rubric_texts

HISTORY_MEASURES = ("percent_agreement", "cohen_kappa", "gwet_ac1")


StoredEstimate = dict[str, Any]  # an Estimate's JSON form, as an alignment report stored it


@dataclass(frozen=True, slots=True)
class AlignmentAgreement(Record):
    """A rubric's agreement on the test items of one alignment it was in."""

    alignment_id: int
    run_id: int
    judge_model: str
    role: str  # base | new: the rubric's side in that alignment
    test_items: int | None
    measures: dict[str, StoredEstimate] = field(metadata=FLAT)  # those of HISTORY_MEASURES the report has
    difference: StoredEstimate | None = field(default=None, metadata=OMIT_NONE)  # new - base percent agreement


@dataclass(frozen=True, slots=True)
class RubricVersion(Record):
    version: str
    created_at: str
    examples: int | None  # None: a prompt stored by an older gradedesk
    based_on: str | None
    test_agreement: list[AlignmentAgreement]


def _parts(text: str) -> tuple[int | None, str | None]:
    """(examples, based_on) of a stored rubric; (None, None) for a prompt stored by an older gradedesk."""
    try:
        rubric = parse_rubric(text)
    except UserError:
        return None, None
    return len(rubric.examples), rubric.based_on


def rubric_history(store: Store) -> list[RubricVersion]:
    """Every stored rubric version, oldest first, with its agreement on the test items of each alignment it was in."""
    measured: dict[str, list[AlignmentAgreement]] = {}
    for a in stored_alignments(store):
        measures = a.report.get("test", {}).get("measures", {})
        for role, version in (("base", a.base_version), ("new", a.new_version)):
            difference = measures["percent_agreement"]["difference"] \
                if role == "new" and "percent_agreement" in measures else None
            measured.setdefault(version, []).append(AlignmentAgreement(
                a.id, a.run_id, a.judge_model, role, a.report.get("test", {}).get("n"),
                {k: measures[k][role] for k in HISTORY_MEASURES if k in measures}, difference))
    out = []
    for r in rubric_texts(store):
        examples, based_on = _parts(r.text)
        out.append(RubricVersion(r.version, r.created_at, examples, based_on, measured.get(r.version, [])))
    return out
