"""Agreement with people per judge rubric version of a run, side by side on the items every version graded (store in,
figures out; the statistics are core/stats/measures.py's).

Once a run has been judged under more than one rubric (`judge --rubric`, `align`), "the judge" is several graders: the
same model reading different rubrics. Each (judge model, rubric version) is compared with the people's current grades
on the answers it graded usably (first repeat, no grading error), and again on the answers that every version graded,
so the figures side by side are on the same items. A pair is (answer, person), as in the report.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from gradedesk.core.grading.vocabulary import GRADES
from gradedesk.core.stats import measures as agree
from gradedesk.core.stats.measures import Estimate
from gradedesk.core.stats.records import Record
from gradedesk.core.store.connection import Store
from gradedesk.core.store.reports import judge_grades_beside_people


def _figures(pairs: list[tuple[str, str]], boot: int, seed: int) -> dict[str, Estimate]:
    cm = agree.confusion_matrix([p for p, _ in pairs], [j for _, j in pairs], GRADES)
    return agree.estimates(cm, agree.summary_measures(), boot, seed)


@dataclass
class JudgeVersion(Record):
    """One (judge model, rubric version) against the people: on its own items, and on the items all versions graded."""

    model: str | None
    rubric_version: str | None
    n: int
    own: dict[str, Estimate]
    common: dict[str, Estimate]


@dataclass
class JudgeVersions(Record):
    common_items: int  # (answer, person) pairs every version graded
    versions: list[JudgeVersion]  # oldest version first


def judge_versions(store: Store, run_id: int, boot: int = agree.DEFAULT_BOOT,
                   seed: int = agree.DEFAULT_SEED) -> JudgeVersions:
    """Each judge rubric version of the run against the people, side by side on the items all of them graded."""
    groups: dict[tuple[str | None, str | None], dict[tuple[int, str], tuple[str, str]]] = defaultdict(dict)
    for r in judge_grades_beside_people(store, run_id):
        groups[(r.grader_model, r.rubric_version)][(r.answer_id, r.grader)] = (r.person, r.judge)
    common = set.intersection(*(set(g) for g in groups.values())) if groups else set()
    versions = [JudgeVersion(model, version, len(pairs), _figures(list(pairs.values()), boot, seed),
                             _figures([pairs[k] for k in sorted(common)], boot, seed))
                for (model, version), pairs in groups.items()]
    return JudgeVersions(len(common), versions)
