"""The default benchmark cannot drift from the code: every expected file exists, every expected symbol is defined there."""

from __future__ import annotations

import ast
from pathlib import Path

from gradedesk.core.evidence.bundle import QUESTION_TYPES
from gradedesk.core.runs.questions import load_questions

from tests.fixtures import REPO_ROOT

QUESTIONS = REPO_ROOT / "benchmark-questions.jsonl"


def defined_names(path: Path) -> set[str]:
    """Qualified names a file defines: functions, classes, Class.method, module-level and class-level constants."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(prefix + node.name)
                if isinstance(node, ast.ClassDef):
                    visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.Assign):
                names.update(prefix + t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(prefix + node.target.id)

    visit(tree.body, "")
    return names


def test_the_benchmark_is_large_labelled_and_varied():
    questions = load_questions(QUESTIONS)
    assert len(questions) >= 30
    assert all(q.gold_answer.strip() and q.expected_files and q.expected_symbols for q in questions)
    categories = {q.category for q in questions}
    assert categories <= set(QUESTION_TYPES)
    assert {"code_lookup", "explanation", "relationship", "architecture"} <= categories
    assert sum(len(q.expected_files) > 1 for q in questions) >= 5  # questions that need several files


def test_every_expected_file_and_symbol_exists():
    missing = []
    for q in load_questions(QUESTIONS):
        defined: set[str] = set()
        for name in q.expected_files:
            path = REPO_ROOT / name
            if not path.is_file():
                missing.append(f"{q.id}: file {name} does not exist")
            elif path.suffix == ".py":
                defined |= defined_names(path)
        missing.extend(f"{q.id}: symbol {s} is not defined in {', '.join(q.expected_files)}"
                       for s in q.expected_symbols if s not in defined)
    assert missing == []


def test_the_checker_would_notice_a_renamed_symbol(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("X = 1\nclass A:\n    LIMIT: int = 3\n    def f(self):\n        pass\nasync def g():\n    pass\n")
    assert defined_names(module) == {"X", "A", "A.LIMIT", "A.f", "g"}
    assert "A.h" not in defined_names(module)
