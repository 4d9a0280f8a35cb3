"""Code coverage on tiny real files: answer lines found with ast, counted only when the prompt's text shows them."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradedesk.core.evidence.bundle import EvidenceSnippet, prompt_context
from gradedesk.core.evidence.record import Evidence
from gradedesk.core.grading.code_coverage import (ANSWER_LINES, code_coverage, coverage_means, definitions,
                                                   shown_in_context, shown_in_evidence)
from gradedesk.core.text.prompt_layout import SNIPPET_SEPARATOR, Header, block, file_header

STORE = '''\
import sqlite3

LIMIT = 10  # a module constant


class Store:
    """A store.

    Docstring lines are not answer lines.
    """

    def __init__(self, path):
        # a comment line is not one either
        self.path = path

    @classmethod
    def open(cls, path):
        """Open one."""

        store = cls(path)
        store.conn = sqlite3.connect(path)
        return store
'''


@pytest.fixture
def repo(tmp_path: Path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "store.py").write_text(STORE)

    def source(path: str) -> str | None:
        file = tmp_path / path
        return file.read_text() if file.is_file() else None

    return tmp_path, source


def lines_of(path: Path, first: int, last: int) -> str:
    return "\n".join(path.read_text().split("\n")[first - 1:last])


def snippet(path: str, first: int, last: int, text: str, symbol: str | None = None) -> EvidenceSnippet:
    return EvidenceSnippet("c", "h", text, 1, path, first, last, symbol, "bm25", 0.1, 1,
                           "Fused rank 1 as definition evidence, found by BM25 rank 1 (score 3.00).", "definition")


def test_answer_lines_are_decorators_signature_and_statements():
    by_name = {d.qualname: [text for _, text in d.lines] for d in definitions(STORE)}
    assert by_name["Store.open"] == ["@classmethod", "def open(cls, path):", "store = cls(path)",
                                     "store.conn = sqlite3.connect(path)", "return store"]
    assert by_name["Store.__init__"] == ["def __init__(self, path):", "self.path = path"]
    assert by_name["LIMIT"] == ["LIMIT = 10  # a module constant"]
    assert by_name["Store"][:2] == ["class Store:", "def __init__(self, path):"]  # no docstring, no blank


def test_a_whole_definition_in_a_bundle_counts(repo):
    root, source = repo
    context = prompt_context([snippet("pkg/store.py", 16, 22, lines_of(root / "pkg/store.py", 16, 22))])
    got = code_coverage(["pkg/store.py"], ["Store.open"], shown_in_context(context), source)
    assert got is not None and got.coverage == 1.0 and got.definitions_present == 1.0
    assert got.symbols[0].file_path == "pkg/store.py" and got.symbols[0].first_line == 16


def test_a_stated_range_is_not_enough_the_text_must_show_the_line(repo):
    root, source = repo
    # the range claims the whole method, the text carries its decorator and signature only
    context = prompt_context([snippet("pkg/store.py", 16, 22, lines_of(root / "pkg/store.py", 16, 17))])
    got = code_coverage(["pkg/store.py"], ["open"], shown_in_context(context), source)
    assert got is not None and got.symbols[0].counted == 2 and got.coverage == pytest.approx(2 / 5)
    assert got.definitions_present == 0.0  # under half


def test_the_same_text_in_another_file_or_outside_the_range_does_not_count(repo):
    root, source = repo
    text = lines_of(root / "pkg/store.py", 16, 22)
    other = prompt_context([snippet("pkg/other.py", 16, 22, text)])
    elsewhere = prompt_context([snippet("pkg/store.py", 100, 106, text)])
    for context in (other, elsewhere):
        got = code_coverage(["pkg/store.py"], ["Store.open"], shown_in_context(context), source)
        assert got is not None and got.coverage == 0.0


def test_raw_file_blocks_and_seed_headers_are_read(repo):
    root, source = repo
    raw = block(file_header(Header(None, "pkg/store.py", 12, 14)), lines_of(root / "pkg/store.py", 12, 14))
    seed = ("[Evidence 1] pkg/store.py :: Store.open (lines 16-22) [bm25, score: 0.5000]\n"
            "Reason included: matched 'open'\n" + lines_of(root / "pkg/store.py", 16, 22))
    got = code_coverage(["pkg/store.py"], ["Store.__init__", "Store.open"],
                        shown_in_context(raw + SNIPPET_SEPARATOR + seed), source)
    assert got is not None and got.coverage == 1.0 and got.definitions_present == 1.0


def test_stored_evidence_is_read_as_shown(repo):
    root, source = repo
    items = [Evidence("pkg/store.py", start_line=12, end_line=14, text=lines_of(root / "pkg/store.py", 12, 14))]
    got = code_coverage(["pkg/store.py"], ["Store.__init__", "Store.open"], shown_in_evidence(items), source)
    assert got is not None and got.coverage == pytest.approx(2 / 7) and got.definitions_present == 0.5


def test_the_best_covered_definition_counts(repo):
    root, source = repo
    (root / "pkg" / "alt.py").write_text("def open(path):\n    return path\n")
    context = prompt_context([snippet("pkg/alt.py", 1, 2, "def open(path):\n    return path")])
    got = code_coverage(["pkg/store.py", "pkg/alt.py"], ["open"], shown_in_context(context), source)
    assert got is not None and got.symbols[0].file_path == "pkg/alt.py" and got.coverage == 1.0


def test_a_definition_counts_its_first_forty_code_lines(repo):
    root, source = repo
    body = "".join(f"    x{i} = {i}\n" for i in range(60))
    (root / "pkg" / "long.py").write_text("def long():\n" + body)
    (d,) = [d for d in definitions((root / "pkg" / "long.py").read_text()) if d.qualname == "long"]
    assert len(d.lines) == ANSWER_LINES and d.lines[-1] == (40, "x38 = 38")
    half = prompt_context([snippet("pkg/long.py", 1, 20, lines_of(root / "pkg/long.py", 1, 20))])
    got = code_coverage(["pkg/long.py"], ["long"], shown_in_context(half), source)
    assert got is not None and got.coverage == 0.5 and got.definitions_present == 1.0


def test_nothing_to_measure_is_no_figure_not_a_zero(repo):
    _, source = repo
    assert code_coverage(["pkg/store.py"], ["Missing"], [], source) is None
    assert code_coverage(["pkg/gone.py"], ["Store"], [], source) is None
    assert code_coverage(["pkg/store.py"], [], [], source) is None
    means = coverage_means([None, code_coverage(["pkg/store.py"], ["Store.open"], [], source)])
    assert (means.coverage, means.definitions_present, means.questions) == (0.0, 0.0, 1)
    assert coverage_means([None]).coverage is None


def test_a_markdown_rule_inside_a_block_stays_in_that_block():
    text = "Title\n\n---\n\nmore"
    context = block(file_header(Header(None, "docs/a.md", 1, 5)), text) + SNIPPET_SEPARATOR + \
        block(file_header(Header(None, "b.py", 1, 1)), "x = 1")
    shown = shown_in_context(context)
    assert [(s.path, sorted(s.lines)) for s in shown] == [("docs/a.md", ["---", "Title", "more"]),
                                                          ("b.py", ["x = 1"])]


def test_grade_offline_stores_code_coverage_from_the_index_and_summary_leads_with_it(project, capsys):
    from gradedesk.core.cli import main
    from gradedesk.core.store.connection import open_store

    db, questions = map(str, project)  # the shop repository indexed; questions labelled with symbols
    assert main(["run", "--questions", questions, "--budgets", "500", "--store", db]) == 0
    assert main(["grade-offline", "--store", db]) == 0
    with open_store(db) as store:
        rows = store._query("SELECT q.question_id, a.method, s.metric, s.value FROM answer_scores s "
                            "JOIN answers a ON a.id = s.answer_id JOIN questions q ON q.id = a.question_pk "
                            "WHERE s.method = 'code-lines'")
    got = {(r["question_id"], r["method"], r["metric"]): r["value"] for r in rows}
    assert len(got) == 3 * 2 * 2  # every answer: definitions present and code coverage
    # the whole repository is smaller than raw top-10: unit_price's definition is in the raw evidence, line by line
    assert got[("q2", "raw", "code_coverage")] == 1.0 and got[("q2", "raw", "definitions_present")] == 1.0
    assert all(v is not None and 0.0 <= v <= 1.0 for v in got.values())
    capsys.readouterr()
    assert main(["summary", "--store", db]) == 0
    header = capsys.readouterr().out.split("\n== ")[1].splitlines()[1]
    assert header.split()[:8] == ["method", "n", "definitions", "present", "code", "coverage", "file", "recall"]
