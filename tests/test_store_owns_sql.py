"""core/store/ owns the tables: no module outside it holds SQL. The import contract (pyproject.toml) keeps sqlite3 and
sqlite_utils inside core/store/, and the lint keeps other layers off the store's private connection; this test closes
the last gap, a statement written as a string elsewhere and handed to the store."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.fixtures import REPO_ROOT

SQL = re.compile(r"\bSELECT\b[\s\S]*\bFROM\b|\bINSERT\s+(OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b"
                 r"|\bCREATE\s+(TABLE|VIEW|INDEX|TRIGGER)\b|\bPRAGMA\s+\w+|\bJOIN\s+\w+\s+\w+\s+ON\b")


def sql_strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string constant in `source` that reads as SQL (f-strings by their literal parts)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value):
            found.append((node.lineno, node.value.strip()[:60]))
    return found


def test_no_sql_outside_core_store():
    offenders = []
    for path in sorted([*(REPO_ROOT / "core").rglob("*.py"), *(REPO_ROOT / "tui").rglob("*.py")]):
        if (REPO_ROOT / "core" / "store") in path.parents:
            continue
        offenders += [f"{path.relative_to(REPO_ROOT)}:{line}: {text}"
                      for line, text in sql_strings(path.read_text(encoding="utf-8"))]
    assert offenders == [], "SQL outside core/store/:\n" + "\n".join(offenders)


def test_the_check_finds_sql_written_in_other_ways():
    source = '''
rows = store._query("SELECT id FROM answers WHERE run_id = ?", (1,))
store._conn.execute(f"UPDATE answers SET text = ? WHERE id = {answer}", (text,))
FRAGMENT = "JOIN questions q ON q.id = a.question_pk"
sql = "DELETE FROM human_grades"
help_text = "Select the answers from the list"  # words, not SQL
'''
    assert sorted(line for line, _ in sql_strings(source)) == [2, 3, 4, 5]


def test_the_check_reads_the_store_itself_as_sql():
    """The pattern is not too narrow to see real SQL: the store's own modules hold plenty."""
    store = Path(REPO_ROOT / "core" / "store")
    assert sum(len(sql_strings(p.read_text(encoding="utf-8"))) for p in store.glob("*.py")) > 50
