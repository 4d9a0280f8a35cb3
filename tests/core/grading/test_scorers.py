"""Faithfulness and answer relevance: offline versions by hand-computed cases, LLM reply parsing, storage by method."""

from __future__ import annotations

import pytest

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.grading.llm_io import ReplyError, parse_json_reply
from gradedesk.core.grading.pairwise_judge import parse_pairwise_reply
from gradedesk.core.grading.scorers import (OFFLINE_METHOD, offline_faithfulness, offline_relevance, parse_faithfulness,
                          parse_relevance, score_offline_run)
from gradedesk.core.store.connection import open_store
from tests.fixtures.grading import add_question, add_raw_answer, add_run, hit, scores_of

EVIDENCE = [Evidence("core/store.py", "open_store", "c1", 1, 9,
                         "def open_store(path):\n    conn.execute('PRAGMA journal_mode = WAL')\n"
                         "    conn.execute(f'PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}')")]


def test_offline_faithfulness_counts_supported_claims():
    answer = ("open_store sets journal_mode to WAL [Evidence 1]. It also sets busy_timeout from BUSY_TIMEOUT_MS. "
              "It encrypts the file with encrypt_database and rotate_keys.")
    s = offline_faithfulness(answer, EVIDENCE)
    assert s.value == pytest.approx(2 / 3)  # the third claim's terms are nowhere in the evidence
    assert [c["supported"] for c in s.detail["claims"]] == [True, True, False]


def test_offline_faithfulness_empty_evidence_and_no_claims():
    assert offline_faithfulness("open_store sets journal_mode to WAL.", []).value == 0.0
    none = offline_faithfulness("I don't know.", EVIDENCE)
    assert none.value is None and none.detail["reason"] == "the answer makes no claims"
    assert offline_faithfulness("", EVIDENCE).value is None


def test_offline_relevance():
    q = "What journal mode does open_store set?"
    # question terms: open_store (code), journal, mode, set -> answer has open_store, journal, mode; "set" via "sets"
    assert offline_relevance(q, "open_store sets the journal mode to WAL.").value == 1.0
    half = offline_relevance(q, "open_store is in core/store.py.")
    assert half.value == pytest.approx(1 / 4)
    assert half.detail["missing_terms"] == ["journal", "mode", "set"]
    assert offline_relevance(q, "I don't know.").value == 0.0
    assert offline_relevance("Why?", "Because.").value is None


def test_parse_json_reply_variants():
    assert parse_json_reply('{"a": 1}') == {"a": 1}
    assert parse_json_reply('Here you go:\n```json\n{"a": 2}\n```') == {"a": 2}
    assert parse_json_reply('Sure! {"a": 3} Hope it helps') == {"a": 3}
    with pytest.raises(ReplyError):
        parse_json_reply("no json here")
    with pytest.raises(ReplyError):
        parse_json_reply("[1, 2]")


# SmolLM2-135M's pairwise reply under llama-cpp-python's JSON grammar (real_server_bench), verbatim: the grammar's
# strings exclude only '"' and '\\', so the reasoning runs over raw line breaks, which strict JSON refuses
SMOLLM2_PAIRWISE = ("{ \"winner\": \"1\", \"reasoning\": \"... (no SQLite header: cut short or another kind of file); "
                    "restore\nthe original version; upgrade it to a new one, which is either fully made or not at all; "
                    "upgrade it again}\nEND ANSWER 2\n```\n\nThis example shows how to use `open_other` with multiple "
                    "arguments. The first argument is the path to the database (which is stored in the "
                    "`store.db-schema.sql`) and the second argument is a list of files or \"} ")


def test_a_raw_line_break_inside_a_replys_string_is_the_models_text():
    data = parse_json_reply(SMOLLM2_PAIRWISE)
    assert data["winner"] == "1" and data["reasoning"].count("\n") == 5 and data["reasoning"].endswith("files or ")
    assert parse_pairwise_reply(SMOLLM2_PAIRWISE)[0] == "1"
    assert parse_json_reply('{"a": "one\ttwo"}') == {"a": "one\ttwo"}
    with pytest.raises(ReplyError):  # a line break outside any string is still what it was: not JSON
        parse_json_reply('{"a": 1\n, "b": }')


def test_parse_llm_scores_validate_schema():
    s = parse_faithfulness('{"claims": [{"claim": "a", "supported": true}, {"claim": "b", "supported": false}]}')
    assert s.value == 0.5
    assert parse_faithfulness('{"claims": []}').value is None
    for bad in ('{"claims": "all"}', '{"claims": [{"claim": "a", "supported": "yes"}]}', '{"verdict": 1}'):
        with pytest.raises(ReplyError):
            parse_faithfulness(bad)
    assert parse_relevance('{"score": 0.5, "reason": "partly"}').value == 0.5
    for bad in ('{"score": 0.7}', '{"score": true}', '{"reason": "x"}'):
        with pytest.raises(ReplyError):
            parse_relevance(bad)


def test_score_offline_run_stores_method_name(tmp_path):
    store = open_store(tmp_path / "s.db")
    q = add_question(store, "q1", "What journal mode does open_store set?", "WAL")
    run = add_run(store)
    a = add_raw_answer(store, run, q, "open_store sets journal_mode to WAL.",
                       [hit("core/store.py", "open_store", EVIDENCE[0].text)])
    assert score_offline_run(store, run) == 1
    s = scores_of(store, a, OFFLINE_METHOD)
    assert s["faithfulness"]["value"] == 1.0
    assert s["answer_relevance"]["value"] == 1.0
