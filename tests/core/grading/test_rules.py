"""The offline rule grader: each grade and failure label from a hand-made case, and its storage as a rule grade."""

from __future__ import annotations

import pytest

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.grading.offline_grading import grade_offline
from gradedesk.core.grading.rules import RULES_ID, grade_answer
from gradedesk.core.store.connection import open_store
from tests.fixtures.grading import add_bundle_answer, add_question, add_raw_answer, add_run, hit

Q = "What does open_store do when it opens a store?"
GOLD = "open_store applies store.db-schema.sql and sets the journal_mode to WAL with a busy_timeout."
STORE_CODE = Evidence("core/store.py", "open_store", "c1", 1, 30, (
    "def open_store(path):\n    conn = _connect(path)  # sets busy_timeout\n"
    "    conn.execute('PRAGMA journal_mode = WAL')\n    apply schema from store.db-schema.sql"))
OTHER = Evidence("core/tokens.py", "get_tokenizer", "c2", 1, 9, "def get_tokenizer(name): return _load(name)")


def test_fully_correct_with_paraphrase():
    g = grade_answer(Q, GOLD, "It applies store.db-schema.sql, sets journal_mode WAL and a busy_timeout "
                              "(open_store in core/store.py).", [STORE_CODE])
    assert g.grade == "fully_correct" and g.failure_label is None
    assert g.coverage >= 0.75 and 0.5 <= g.confidence <= 1


def test_partially_correct_names_missing_terms():
    g = grade_answer(Q, GOLD, "open_store sets the journal_mode to WAL.", [STORE_CODE])
    assert g.grade == "partially_correct"
    assert "busy_timeout" in g.reasoning
    assert g.failure_label == "reasoning_error"  # the evidence had what the answer left out


def test_abstention_is_unsupported_with_evidence_based_label():
    assert grade_answer(Q, GOLD, "I don't know.", [STORE_CODE]).failure_label == "reasoning_error"
    empty = grade_answer(Q, GOLD, "The evidence is insufficient to answer.", [])
    assert (empty.grade, empty.failure_label) == ("unsupported", "missing_evidence")
    assert grade_answer(Q, GOLD, "", [OTHER]).grade == "unsupported"


def test_ungrounded_identifiers_make_it_wrong_hallucination():
    g = grade_answer(Q, GOLD, "It calls reset_database() and drop_all_tables in migrations/legacy.py.", [OTHER])
    assert (g.grade, g.failure_label) == ("wrong", "hallucination")
    assert "reset_database" in g.ungrounded


def test_vague_answer_is_unsupported_and_wrong_chunk_when_evidence_misses_expected_files():
    g = grade_answer(Q, GOLD, "It returns a tokenizer from get_tokenizer.", [OTHER], expected_files=["core/store.py"])
    assert (g.grade, g.failure_label) == ("unsupported", "wrong_chunk")


def test_gold_without_terms_is_refused():
    with pytest.raises(ValueError):
        grade_answer(Q, "", "anything", [])


def test_grade_offline_stores_rule_grades_named_as_rules(tmp_path):
    store = open_store(tmp_path / "s.db")
    q = add_question(store, "q1", Q, GOLD, files=["core/store.py"], symbols=["open_store"])
    nogold = add_question(store, "q2", "Why?", "")
    run = add_run(store)
    a1 = add_raw_answer(store, run, q, "open_store sets journal_mode WAL, busy_timeout, applies store.db-schema.sql",
                        [hit("core/store.py", "open_store", STORE_CODE.text)])
    a2 = add_bundle_answer(store, run, q, "I don't know", [hit("core/tokens.py", "get_tokenizer", OTHER.text)])
    add_raw_answer(store, run, nogold, "because", [hit("a.py")])
    seen = []
    report = grade_offline(store, run, lambda stage, done, total, failed: seen.append((stage, done, total, failed)))
    assert seen[-1] == ("scores", 3, 3, 0) and ("rules", 2, 2, 0) in seen and ("retrieval", 3, 3, 0) in seen
    assert (report.retrieval_scored, report.rule_graded, report.offline_scored) == (3, 2, 3)
    rows = {r["answer_id"]: r for r in store._query("SELECT * FROM auto_grades")}
    assert set(rows) == {a1, a2}
    assert {r["grader_kind"] for r in rows.values()} == {"rule"}
    assert {r["grader_model"] for r in rows.values()} == {RULES_ID}
    assert rows[a1]["grade"] == "fully_correct"
    assert (rows[a2]["grade"], rows[a2]["failure_label"]) == ("unsupported", "wrong_chunk")
    # idempotent: nothing is graded twice
    again = grade_offline(store, run)
    assert again.rule_graded == 0
    assert store._scalar("SELECT count(*) FROM auto_grades") == 2


def test_citation_line_numbers_are_not_ungrounded_claims():
    answer = ("From the evidence:\n- `conn.execute('PRAGMA journal_mode = WAL')` [Evidence 1] core/store.py:3\n"
              "- `def open_store(path):` (File: core/store.py:1-2)")
    g = grade_answer(Q, GOLD, answer, [STORE_CODE])
    assert g.ungrounded == []
    assert g.failure_label != "hallucination"


def test_text_matching_helpers():
    from gradedesk.core.text.matching import Haystack, code_terms, content_words
    from gradedesk.core.text.prompt_layout import strip_citations

    assert code_terms("Call `open_store()` in core/store.py; see Store.transaction and BUSY_TIMEOUT_MS = 10_000.") \
        == ["open_store", "core/store.py", "Store.transaction", "BUSY_TIMEOUT_MS", "10_000"]
    assert code_terms('`");` and `x`') == []
    assert content_words("The store opens the SQLite file") == ["store", "opens"]  # SQLite is a code term
    assert strip_citations("- `x = 1` [Evidence 11] core/a.py:10-12 (lines 3-4)").split() == ["-", "`x", "=", "1`",
                                                                                              "core/a.py"]
    hay = Haystack("def open_store(path):\n    conn.execute('PRAGMA   journal_mode = WAL')")
    assert hay.has("open") and hay.has("store")        # parts of open_store
    assert hay.has("journal_modes")                     # a near match (rapidfuzz)
    assert hay.has("PRAGMA journal_mode = WAL")         # quoted code, re-spaced
    assert not hay.has("id") and not hay.has("rollback")
    assert hay.share([]) is None and hay.share(["wal", "nothing_here"]) == 0.5
