"""Traces from a real Phoenix server in, graded at the desk, the grades pushed back onto the same spans and read back
through Phoenix's own client: one server for the module (tests/fixtures/phoenix_server.py), real OpenInference spans."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from gradedesk.core.store.connection import open_store
from tests.fixtures.cli import cli
from tests.fixtures.desk import keys, pane_text, rows, running, screen_text
from tests.fixtures.phoenix_server import free_port, send_trace, start_phoenix, wait_for_spans

DOCS = [{"id": "doc-load", "score": 0.91, "content": "def load(path):\n    return parse_config(path)\n",
         "metadata": {"file_path": "app/load.py", "start_line": 10, "end_line": 11}},
        {"id": "doc-readme", "score": 0.42, "content": "parse_config reads TOML."}]


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory):
    server = start_phoenix(tmp_path_factory.mktemp("phoenix"))
    yield server
    server.stop()


def annotations(url, project, span_ids):
    from phoenix.client import Client

    return Client(base_url=url).spans.get_span_annotations(span_ids=span_ids, project_identifier=project)


@pytest.mark.anyio
async def test_traces_in_graded_at_the_desk_and_pushed_back_onto_their_spans(phoenix, tmp_path, capsys):
    project = "rag-app"
    good = send_trace(phoenix, project, "What calls parse_config?", "load() calls parse_config [app/load.py:11]",
                      DOCS)
    bad = send_trace(phoenix, project, "An LLM span without output", None, DOCS[1:])
    wait_for_spans(phoenix.url, project, [good, bad])
    db = tmp_path / "store.db"

    code, out, err = cli(capsys, "import-traces", "--phoenix", phoenix.url, "--project", project, "--store", db)
    assert code == 0, err
    assert "1 new trace(s) as run 1" in out
    assert f"phoenix trace {bad.trace_id} span {bad.llm_span_id}: the LLM span has no output.value; skipped" in err
    (answer,) = rows(db, "SELECT a.*, q.question, q.gold_answer, t.trace_id, t.span_id, t.project "
                            "FROM answers a JOIN questions q ON q.id = a.question_pk "
                            "JOIN answer_traces t ON t.answer_id = a.id")
    assert (answer["trace_id"], answer["span_id"], answer["project"]) == (good.trace_id, good.llm_span_id, project)
    assert answer["question"] == "What calls parse_config?" and answer["gold_answer"] is None
    assert answer["text"] == "load() calls parse_config [app/load.py:11]"
    assert '"file_path": "app/load.py"' in answer["evidence"] and '"start_line": 10' in answer["evidence"]
    assert '"chunk_id": "doc-readme"' in answer["evidence"] and '"relevance_score": 0.42' in answer["evidence"]

    # importing again adds only new traces
    newer = send_trace(phoenix, project, "Where is the cache cleared?", "In cache.clear().", DOCS[1:])
    wait_for_spans(phoenix.url, project, [newer])
    code, out, _ = cli(capsys, "import-traces", "--phoenix", phoenix.url, "--project", project, "--store", db)
    assert code == 0 and "1 new trace(s) added to run 1" in out
    assert len(rows(db, "SELECT * FROM answers")) == 2

    # the rule grader has nothing to compare with, and says so
    code, out, _ = cli(capsys, "grade-offline", "--store", db)
    assert code == 0 and "the rule grader skipped 2 answers without a gold answer" in out

    # a person grades the first trace at the desk: the gold is shown as none, the pane names the project and trace
    async with running(db, run_id=1, size=(160, 50)) as (app, pilot):
        shown = screen_text(app)
        assert "Gold: (none)" in shown and f" — {project} " in shown  # the one answer, on either side
        assert f"trace {good.trace_id}" in pane_text(app, app.screen.side)
        await keys(pilot, "t")
        assert app.last_status == f"copied {phoenix.url}/redirects/traces/{good.trace_id}"
        await keys(pilot, "2")
    (grade,) = rows(db, "SELECT grade, grader FROM human_grades")
    assert grade == {"grade": "partially_correct", "grader": "alice"}

    # pushed back: on the same span, the person's grade, as HUMAN; a second push updates, it does not duplicate
    code, _, err = cli(capsys, "export-scores", "--format", "phoenix", "--push", phoenix.url, "--store", db)
    assert code == 0, err
    assert "pushed to" in err
    first = [a for a in annotations(phoenix.url, project, [good.llm_span_id]) if a["name"] == "grade"]
    assert [(a["span_id"], a["annotator_kind"], a["identifier"], a["result"]["label"]) for a in first] == [
        (good.llm_span_id, "HUMAN", "alice", "partially_correct")]
    code, _, _ = cli(capsys, "export-scores", "--format", "phoenix", "--push", phoenix.url, "--store", db)
    assert code == 0
    again = [a for a in annotations(phoenix.url, project, [good.llm_span_id]) if a["name"] == "grade"]
    assert [a["id"] for a in again] == [a["id"] for a in first]

    # undone at the desk: the next push overwrites the score with the label withdrawn
    async with running(db, run_id=1, size=(160, 50)) as (app, pilot):
        await keys(pilot, "u")
    code, _, err = cli(capsys, "export-scores", "--format", "phoenix", "--push", phoenix.url, "--store", db)
    assert code == 0 and "labelled withdrawn" in err
    (withdrawn,) = [a for a in annotations(phoenix.url, project, [good.llm_span_id]) if a["name"] == "grade"]
    assert withdrawn["id"] == first[0]["id"] and withdrawn["result"]["label"] == "withdrawn"


def test_two_projects_pair_by_input_and_the_unpaired_trace_is_graded_alone(phoenix, tmp_path, capsys):
    a1 = send_trace(phoenix, "side-a", "How are tokens counted?", "With tiktoken.", DOCS[:1])
    a2 = send_trace(phoenix, "side-a", "Only side A asked this", "Alone.", DOCS[1:])
    b1 = send_trace(phoenix, "side-b", "How are tokens counted?", "By tiktoken, exactly.", DOCS[1:])
    wait_for_spans(phoenix.url, "side-a", [a1, a2])
    wait_for_spans(phoenix.url, "side-b", [b1])
    db = tmp_path / "store.db"
    code, out, err = cli(capsys, "import-traces", "--phoenix", phoenix.url, "--project", "side-a",
                         "--side-b-project", "side-b", "--store", db)
    assert code == 0, err
    assert "3 new trace(s) as run 1 (2 new question(s), 1 paired)" in out
    stored = rows(db, "SELECT q.question, a.method, t.side, t.span_id FROM answers a "
                       "JOIN questions q ON q.id = a.question_pk JOIN answer_traces t ON t.answer_id = a.id "
                       "ORDER BY q.id, a.method DESC")
    assert [(r["question"], r["method"], r["side"], r["span_id"]) for r in stored] == [
        ("How are tokens counted?", "raw", "side-a", a1.llm_span_id),
        ("How are tokens counted?", "bundle", "side-b", b1.llm_span_id),
        ("Only side A asked this", "raw", "side-a", a2.llm_span_id)]


@pytest.mark.anyio
async def test_one_project_split_into_two_sides_by_a_metadata_attribute(phoenix, tmp_path, capsys):
    project = "variants"
    b1 = send_trace(phoenix, project, "How are tokens counted?", "With tiktoken.", DOCS[:1], {"variant": "baseline"})
    v1 = send_trace(phoenix, project, "How are tokens counted?", "By tiktoken, exactly.", DOCS[1:],
                    {"variant": "rag-v2"})
    b2 = send_trace(phoenix, project, "Only the baseline asked this", "Alone.", DOCS[1:], {"variant": "baseline"})
    wait_for_spans(phoenix.url, project, [b1, v1, b2])
    db = tmp_path / "store.db"
    code, out, err = cli(capsys, "import-traces", "--phoenix", phoenix.url, "--project", project,
                         "--side-by", "variant", "--store", db)
    assert code == 0, err
    assert f"phoenix {phoenix.url} {project} by variant: baseline vs rag-v2: 3 new trace(s) as run 1 " \
           "(2 new question(s), 1 paired)" in out
    stored = "SELECT q.question, a.method, t.side, t.project, t.span_id FROM answers a " \
             "JOIN questions q ON q.id = a.question_pk JOIN answer_traces t ON t.answer_id = a.id ORDER BY q.id, a.method DESC"
    assert [tuple(r.values()) for r in rows(db, stored)] == [
        ("How are tokens counted?", "raw", "baseline", project, b1.llm_span_id),
        ("How are tokens counted?", "bundle", "rag-v2", project, v1.llm_span_id),
        ("Only the baseline asked this", "raw", "baseline", project, b2.llm_span_id)]

    # the desk titles the panes by the attribute's values, where the two-project form shows the projects
    async with running(db, run_id=1, size=(160, 50)) as (app, _):
        assert {app.screen.pane_title(side) for side in ("left", "right")} == {
            f"Answer {'A' if app.screen.session.item.left_method == 'raw' else 'B'} — baseline",
            f"Answer {'B' if app.screen.session.item.left_method == 'raw' else 'A'} — rag-v2"}
        shown = screen_text(app)
        assert "— baseline" in shown and "— rag-v2" in shown

    # importing again adds only the new trace, on the side its value named before: the baseline-only question pairs
    v2 = send_trace(phoenix, project, "Only the baseline asked this", "Now rag-v2 too.", DOCS[:1],
                    {"variant": "rag-v2"})
    wait_for_spans(phoenix.url, project, [v2])
    code, out, err = cli(capsys, "import-traces", "--phoenix", phoenix.url, "--project", project,
                         "--side-by", "variant", "--store", db)
    assert code == 0, err
    assert "1 new trace(s) added to run 1 (0 new question(s), 1 paired)" in out
    assert [tuple(r.values()) for r in rows(db, stored)][-1] == (
        "Only the baseline asked this", "bundle", "rag-v2", project, v2.llm_span_id)

    # a trace without the attribute, or a third value: one line, exit 2, nothing imported
    bare = send_trace(phoenix, project, "Untagged", "No variant.", DOCS[1:])
    after = datetime.now(UTC).isoformat()
    time.sleep(0.05)
    v3 = send_trace(phoenix, project, "And a third?", "Three.", DOCS[1:], {"variant": "rag-v3"})
    wait_for_spans(phoenix.url, project, [bare, v3])
    code, out, err = cli(capsys, "import-traces", "--phoenix", phoenix.url, "--project", project,
                         "--side-by", "variant", "--store", db)
    assert code == 2 and out == ""
    assert err == (f"gradedesk: error: --side-by variant: 1 of 2 new trace(s) do not carry it (the first: phoenix "
                   f"trace {bare.trace_id}); nothing imported (--since leaves older traces out)\n")
    code, out, err = cli(capsys, "import-traces", "--phoenix", phoenix.url, "--project", project,
                         "--side-by", "variant", "--since", after, "--store", db)
    assert code == 2 and out == ""
    assert err == ("gradedesk: error: --side-by variant: 3 values (baseline, rag-v2, rag-v3), two sides take two; "
                   "nothing imported\n")
    assert len(rows(db, stored)) == 4


def test_a_server_that_is_down_or_refuses_is_one_line_and_nothing_is_stored(phoenix, tmp_path, capsys):
    db = tmp_path / "store.db"
    down = f"http://127.0.0.1:{free_port()}"
    code, out, err = cli(capsys, "import-traces", "--phoenix", down, "--store", db)
    assert code == 2 and out == ""
    assert err.startswith(f"gradedesk: error: {down}: Phoenix is not reachable") and err.count("\n") == 1
    assert not db.exists()
    code, _, err = cli(capsys, "import-traces", "--phoenix", phoenix.url, "--project", "no-such-project",
                       "--store", db)
    assert code == 2 and "Phoenix answered HTTP 404 for project 'no-such-project'" in err and err.count("\n") == 1
    assert not db.exists()


def test_push_refuses_a_run_whose_answers_did_not_come_from_traces(tmp_path, capsys):
    from tests.fixtures.desk_store import build_fixture_store

    info = build_fixture_store(tmp_path / "store.db")
    code, out, err = cli(capsys, "export-scores", "--format", "phoenix", "--push", "http://127.0.0.1:9",
                         "--store", info.path)
    assert code == 2 and out == ""
    assert "did not come from Phoenix traces" in err and err.count("\n") == 1
    with open_store(info.path) as store:
        assert store.schema_version >= 9
