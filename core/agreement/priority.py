""""Next most useful item" for the desk: which ungraded answers narrow the agreement intervals most per grade.

An answer not yet graded by the person has a machine grade but no human grade, so its cell of the confusion matrix is
known only by its column (the machine grade). Order:
  1. answers whose machine-grade column holds the fewest human grades so far (any person): the matrix fills evenly, so
     per-class precision, TPR and TNR (and every interval built on them) become defined and narrow together;
  2. within a column, the machine grader least confident first (NULL confidence counts as least confident): those are
     the answers where a disagreement, and so information about the judge, is most likely;
  3. answer id, for a stable order.
Only answers the desk grades are considered: the run's raw answers and bundled answers at its primary budget, answered
successfully and with a machine grade.
"""

from __future__ import annotations

from gradedesk.core.store.connection import Store

_SQL = """
WITH cols AS (
    SELECT m.grade AS machine, count(*) AS n
    FROM current_human_grades h JOIN answers a ON a.id = h.answer_id JOIN machine_grades m ON m.answer_id = a.id
    WHERE a.run_id = :run
    GROUP BY m.grade
)
SELECT a.id
FROM answers a
JOIN runs r ON r.id = a.run_id
JOIN machine_grades m ON m.answer_id = a.id
LEFT JOIN cols c ON c.machine = m.grade
WHERE a.run_id = :run AND a.status = 'ok' AND (a.method = 'raw' OR a.budget = r.primary_budget)
  AND NOT EXISTS (SELECT 1 FROM current_human_grades h WHERE h.answer_id = a.id AND h.grader = :grader)
ORDER BY coalesce(c.n, 0), coalesce(m.confidence, -1.0), a.id
LIMIT :limit
"""


def most_useful_order(store: Store, run_id: int, grader: str, limit: int = 50) -> list[int]:
    """Answer ids the person has not graded yet, most useful first (see the module docstring)."""
    rows = store.conn.execute(_SQL, {"run": run_id, "grader": grader, "limit": limit}).fetchall()
    return [r[0] for r in rows]
