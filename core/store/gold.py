"""Gold versions: which gold answer and labels a machine grade was made against, and which grades are stale.

`gold_hash(gold_answer, expected_files, expected_symbols)` (the columns as stored) names one version of a question's
gold; the store registers it as an SQL function on every connection, and a trigger stamps it on every new auto_grades
row (store.db-schema.sql). A grade whose stamp differs from its question's current hash was made against a gold that
has been corrected since: it is stale, and grade-offline and judge grade it again.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gradedesk.core.store.connection import Store

# a grade is stale when its stamp differs from its question's current gold (SQL over auto_grades g, questions q); a
# fragment for the queries of core/store only
STALE_SQL = "g.gold_hash IS NOT gold_hash(q.gold_answer, q.expected_files, q.expected_symbols)"


def gold_hash(gold_answer: str | None, expected_files: str | None, expected_symbols: str | None) -> str:
    """A short hash of one version of a question's gold answer and labels (the JSON texts as stored)."""
    text = "\0".join(v if v is not None else "\1" for v in (gold_answer, expected_files, expected_symbols))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def stale_grade_counts(store: Store, run_id: int) -> dict[str, int]:
    """{grader_kind: how many of the run's machine grades were made against an older gold}; kinds with none left out."""
    rows = store._conn.execute(
        "SELECT g.grader_kind, count(*) FROM auto_grades g JOIN answers a ON a.id = g.answer_id "
        f"JOIN questions q ON q.id = a.question_pk WHERE a.run_id = ? AND {STALE_SQL} GROUP BY g.grader_kind",
        (run_id,)).fetchall()
    return {kind: n for kind, n in rows}
