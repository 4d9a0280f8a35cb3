"""core/evidence/explore.py and the questions file it keeps questions in: budget steps, left-out reasons from the
compiler's own record, and appending a question without rewriting a byte of the file."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.errors import InputError
from gradedesk.core.evidence.explore import BUDGET_STEPS, compile_at, next_budget, retrieve_question, step
from gradedesk.core.runs.questions import append_question, load_questions
from gradedesk.core.store.connection import open_store
from tests.fixtures.cli import cli
from tests.fixtures.explore_repo import QUESTION, build_explore_store


def test_budget_steps_stop_at_the_ends_and_leave_typed_budgets_for_the_next_step():
    assert [next_budget(b, 1) for b in BUDGET_STEPS] == [1000, 2000, 4000, 8000, 8000]
    assert [next_budget(b, -1) for b in BUDGET_STEPS] == [500, 500, 1000, 2000, 4000]
    assert (next_budget(3000, 1), next_budget(3000, -1)) == (4000, 2000)


def test_every_candidate_is_in_the_bundle_or_left_out_with_its_reason(tmp_path):
    with open_store(build_explore_store(tmp_path)) as store:
        r = retrieve_question(store, QUESTION)
    small = compile_at(r, 500)
    kept = {s.chunk_id for s in small.bundle.snippets}
    whole_out = {x.chunk_id for x in small.left_out if not x.reason.startswith("cut to")}
    assert kept | whole_out == {h.chunk_id for h in r.hits} and not kept & whole_out
    assert [x.rank for x in small.left_out] == sorted(x.rank for x in small.left_out)
    first = step(None, small)
    assert first.before is None and set(first.marks.values()) == {"new"}
    up = step(small, compile_at(r, 8000))
    assert up.tokens > 0 and up.count("new") + up.count("grown") > 0 and not up.gone


def test_append_question_adds_one_line_and_keeps_the_file(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "explore-2", "question": "q?", "category": "c", "gold_answer": ""}),
                    encoding="utf-8")  # no final newline, and an id the next number would take
    before = path.read_bytes()
    q = append_question(path, "How is the cart total made?", "explanation", "", ["shop/cart.py"])
    assert q.id == "explore-3"
    assert path.read_bytes().startswith(before + b"\n")
    assert [x.id for x in load_questions(path)] == ["explore-2", "explore-3"]
    made = append_question(tmp_path / "new.jsonl", "Where is unit_price?", "code_lookup")
    assert made.id == "explore-1" and load_questions(tmp_path / "new.jsonl") == [made]


def test_append_question_refuses_a_bad_file_and_a_bad_question_unchanged(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a"}\n', encoding="utf-8")
    with pytest.raises(InputError):
        append_question(bad, "q?", "explanation")
    assert bad.read_text(encoding="utf-8") == '{"id": "a"}\n'
    with pytest.raises(InputError) as caught:
        append_question(tmp_path / "fresh.jsonl", "   ", "explanation")
    assert "question: is empty" in str(caught.value.problems)
    assert not (tmp_path / "fresh.jsonl").exists()


def test_explore_command_refuses_bad_input_in_one_line(tmp_path, capsys):
    path = build_explore_store(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    code, out, err = cli(capsys, "explore", QUESTION, "--store", path, "--questions", bad)
    assert code == 2 and not out and f"{bad}:1: (json)" in err
    code, _, err = cli(capsys, "explore", "--store", path, "--repo", "nope")
    assert code == 2 and "no repository named 'nope'" in err
    code, _, err = cli(capsys, "explore", "--store", path, "--budget", "0")
    assert code == 2 and "--budget" in err
