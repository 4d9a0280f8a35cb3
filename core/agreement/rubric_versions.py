"""Agreement with people per judge rubric version of a run, side by side on the items every version graded, and the
bias probes of the run's machine grader (store in, figures out; the statistics are core/agreement/statistics.py's and
bias.py's).

Once a run has been judged under more than one rubric (`judge --rubric`, `align`), "the judge" is several graders: the
same model reading different rubrics. Each (judge model, rubric version) is compared with the people's current grades
on the answers it graded usably (first repeat, no grading error), and again on the answers that every version graded,
so the figures side by side are on the same items. A pair is (answer, person), as in the report.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from gradedesk.core.agreement import statistics as agree
from gradedesk.core.agreement.bias import LengthItem, grade_inflation, verbosity
from gradedesk.core.grading.vocabulary import GRADES, GRADING_ERROR
from gradedesk.core.store.connection import Store

CHUNK = 500  # answer ids per query (SQLite's limit on bound parameters)
LENGTH_UNIT = "words"


def _figures(pairs: list[tuple[str, str]], boot: int, seed: int) -> dict:
    cm = agree.confusion_matrix([p for p, _ in pairs], [j for _, j in pairs], GRADES)
    return agree.estimates_dict(cm, agree.summary_measures(), boot, seed)


def judge_versions(store: Store, run_id: int, boot: int = agree.DEFAULT_BOOT, seed: int = agree.DEFAULT_SEED) -> dict:
    """{'common_items': n, 'versions': [{model, rubric_version, n, own, common}]}, oldest version first."""
    rows = store.query(
        """
        SELECT h.answer_id, h.grader, h.grade AS person, g.grader_model, g.rubric_version, g.grade AS judge
        FROM current_human_grades h
        JOIN answers a ON a.id = h.answer_id
        JOIN auto_grades g ON g.answer_id = h.answer_id AND g.grader_kind = 'judge' AND g.repeat_index = 0
             AND coalesce(g.failure_label, '') != ?
        LEFT JOIN rubrics r ON r.version = g.rubric_version
        WHERE a.run_id = ? AND h.grade IS NOT NULL
        ORDER BY r.created_at, r.rowid, g.grader_model, h.answer_id, h.grader
        """,
        (GRADING_ERROR, run_id),
    )
    groups: dict[tuple[str, str | None], dict[tuple[int, str], tuple[str, str]]] = defaultdict(dict)
    for r in rows:
        groups[(r["grader_model"], r["rubric_version"])][(r["answer_id"], r["grader"])] = (r["person"], r["judge"])
    common = set.intersection(*(set(g) for g in groups.values())) if groups else set()
    versions = [{"model": model, "rubric_version": version, "n": len(pairs),
                 "own": _figures(list(pairs.values()), boot, seed),
                 "common": _figures([pairs[k] for k in sorted(common)], boot, seed)}
                for (model, version), pairs in groups.items()]
    return {"common_items": len(common), "versions": versions}


def answer_lengths(store: Store, answer_ids: Iterable[int]) -> dict[int, int]:
    """Each answer's length in words (whitespace-separated). Words, not tokens: a length only orders answers into
    terciles, and counting needs no tokenizer (loading one costs the desk's agreement screen a second). The answers are
    looked up by id alone: with the run in the condition SQLite scans the run."""
    ids = sorted(set(answer_ids))
    lengths = {}
    for start in range(0, len(ids), CHUNK):
        part = ids[start:start + CHUNK]
        lengths.update((r["id"], len((r["text"] or "").split())) for r in store.query(
            f"SELECT id, text FROM answers WHERE id IN ({','.join('?' * len(part))})", part))
    return lengths


def machine_bias(store: Store, pairs: list[tuple[int, str, str]], boot: int = agree.DEFAULT_BOOT,
                 seed: int = agree.DEFAULT_SEED) -> dict:
    """Grade inflation and verbosity of a machine grader on (answer_id, person grade, machine grade) pairs."""
    lengths = answer_lengths(store, (a for a, _, _ in pairs))
    return {"grade_inflation": grade_inflation([p for _, p, _ in pairs], [m for _, _, m in pairs], boot, seed),
            "verbosity": verbosity([LengthItem(lengths.get(a, 0), p, m) for a, p, m in pairs], boot, seed),
            "length_unit": LENGTH_UNIT}
