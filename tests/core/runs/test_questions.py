"""Benchmark JSONL: every bad line as file:line: field: problem, and nothing stored from a bad file."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.errors import InputError, UserError
from gradedesk.core.runs.questions import load_questions, store_questions
from gradedesk.core.store.connection import open_store

GOOD = {"id": "q1", "question": "Where is the store opened?", "category": "code_lookup",
        "gold_answer": "core/store.py open_store", "expected_files": ["core/store.py"], "expected_symbols": ["open_store"]}


def write(tmp_path, lines, name="bench.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def problems(path) -> list[str]:
    with pytest.raises(InputError) as info:
        load_questions(path)
    return info.value.problems


def test_loads_good_file_and_optional_labels(tmp_path):
    other = {k: v for k, v in GOOD.items() if k not in ("expected_files", "expected_symbols")} | {"id": "q2"}
    qs = load_questions(write(tmp_path, [json.dumps(GOOD), "", json.dumps(other)]))
    assert [q.id for q in qs] == ["q1", "q2"]
    assert qs[0].expected_files == ["core/store.py"] and qs[1].expected_files is None


@pytest.mark.parametrize("line,expected", [
    ("{not json", "bench.jsonl:2: (json): malformed JSON"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "category"} | {"id": "x"}), "bench.jsonl:2: category: missing"),
    (json.dumps(GOOD | {"id": 3}), "bench.jsonl:2: id: must be a string, got int"),
    (json.dumps(GOOD | {"question": "   "}), "bench.jsonl:2: question: is empty"),
    (json.dumps(GOOD | {"expected_files": "core/store.py", "id": "y"}), "bench.jsonl:2: expected_files: must be a list"),
    (json.dumps(GOOD), "bench.jsonl:2: id: duplicate id 'q1' (first on line 1)"),
    ("[1, 2]", "bench.jsonl:2: (line): expected a JSON object"),
])
def test_each_bad_input_class(tmp_path, line, expected):
    found = problems(write(tmp_path, [json.dumps(GOOD), line]))
    assert any(expected in p for p in found), found


def test_every_bad_line_reported(tmp_path):
    found = problems(write(tmp_path, ["{", json.dumps(GOOD), "nope", json.dumps(GOOD)]))
    assert [p.split(":")[1] for p in found] == ["1", "3", "4"]


def test_non_utf8_names_the_line(tmp_path):
    p = tmp_path / "bench.jsonl"
    p.write_bytes(json.dumps(GOOD).encode() + b"\n" + b'{"id": "\xff"}\n')
    assert problems(p) == [f"{p}:2: (encoding): not UTF-8 (byte {len(json.dumps(GOOD)) + 9})"]


def test_empty_file_is_an_error(tmp_path):
    with pytest.raises(UserError, match="no questions"):
        load_questions(write(tmp_path, [""]))


def test_store_upserts_in_one_transaction(tmp_path):
    qs = load_questions(write(tmp_path, [json.dumps(GOOD)]))
    with open_store(tmp_path / "s.db") as store:
        first = store_questions(store, "bench", qs)
        again = store_questions(store, "bench", qs)
        assert first == again
        assert store._scalar("SELECT count(*) FROM questions") == 1
        assert json.loads(store._scalar("SELECT expected_symbols FROM questions")) == ["open_store"]
