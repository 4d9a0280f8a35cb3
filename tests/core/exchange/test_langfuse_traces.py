"""A Langfuse trace export in (traceId and observationId kept), its scores out on those ids, and pushed through the
Langfuse SDK's own HTTP client to a loopback stub that records the requests."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from langfuse.api import CreateScoreRequest
from langfuse.api.core.pydantic_utilities import parse_obj_as

from gradedesk.core.grading.human_grades import GradeChange, record_grade
from gradedesk.core.review import session
from gradedesk.core.review.visibility import Blindness
from gradedesk.core.store.run_records import run_info
from gradedesk.core.store.connection import open_store
from tests.fixtures.cli import cli
from tests.fixtures.desk import rows
from tests.fixtures.langfuse_export import trace, write_export

TRACE = "a" * 32
GEN = "b" * 16


@pytest.fixture
def export(tmp_path):
    docs = [{"id": "d1", "score": 0.8, "page_content": "def clear(): ...",
             "metadata": {"file_path": "app/cache.py", "start_line": 3, "end_line": 4}}]
    return write_export(tmp_path / "traces.json", [
        trace(TRACE, GEN, "Where is the cache cleared?", {"role": "assistant", "content": "In clear()."}, docs),
        trace("c" * 32, "d" * 16, "Broken", None, docs)])


class Recorder(BaseHTTPRequestHandler):
    requests: list = []

    def _reply(self, status: int, body: dict | None) -> None:
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _record(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        self.requests.append((self.command, self.path, self.headers.get("authorization"), body))

    def do_POST(self):
        self._record()
        self._reply(202, {"message": "Accepted"})

    def do_DELETE(self):
        self._record()
        self._reply(200, {"message": "Score deleted"})

    def log_message(self, *args):
        pass


@pytest.fixture
def stub():
    Recorder.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", Recorder.requests
    server.shutdown()
    server.server_close()


def test_a_langfuse_export_keeps_its_ids_and_its_scores_are_pushed_onto_them(export, tmp_path, capsys, stub,
                                                                             monkeypatch):
    db = tmp_path / "store.db"
    code, out, err = cli(capsys, "import-traces", "--langfuse", export, "--store", db)
    assert code == 0 and "1 new trace(s) as run 1" in out
    assert f"trace 2: langfuse trace {'c' * 32} observation {'d' * 16}: the generation has no output; skipped" in err
    code, out, _ = cli(capsys, "import-traces", "--langfuse", export, "--store", db)
    assert code == 0 and "0 new trace(s) added to run 1" in out
    with open_store(db) as store:
        (answer_id,) = [r["id"] for r in store._query("SELECT id FROM answers")]
        assert store._scalar("SELECT evidence FROM answers").count('"file_path": "app/cache.py"') == 1
        record_grade(store, answer_id, "alice", GradeChange(grade="wrong", failure_label="hallucination",
                                                            note="not in the context"))

    code, out, _ = cli(capsys, "export-scores", "--format", "langfuse", "--store", db)
    records = [json.loads(line) for line in out.splitlines()]
    assert {(r["traceId"], r["observationId"]) for r in records} == {(TRACE, GEN)}
    for r in records:
        parse_obj_as(CreateScoreRequest, r)

    url, requests = stub
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", "pk-test")
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", "sk-test")
    monkeypatch.setenv("LANGFUSE_HOST", url)
    for _ in range(2):  # pushed twice: the same ids, so Langfuse updates
        code, _, err = cli(capsys, "export-scores", "--format", "langfuse", "--push", "--store", db)
        assert code == 0, err
    posts = [r for r in requests if r[0] == "POST"]
    assert [p[1] for p in posts] == ["/api/public/scores"] * 2 and posts[0][3] == posts[1][3]
    assert posts[0][2].startswith("Basic ")
    sent = {s["name"]: s for s in posts[0][3]}
    assert sent["grade"]["value"] == "wrong" and sent["grade"]["traceId"] == TRACE
    assert sent["grade"]["observationId"] == GEN and sent["hallucination"]["value"] == 1

    with open_store(db) as store:
        session.undo(store, run_info(store, 1), "alice", Blindness())
    code, _, err = cli(capsys, "export-scores", "--format", "langfuse", "--push", "--store", db)
    assert code == 0 and "withdrawn score(s) deleted" in err
    deleted = {r[1] for r in requests if r[0] == "DELETE"}
    assert f"/api/public/scores/{sent['grade']['id']}" in deleted


def test_push_to_langfuse_needs_its_keys_and_a_reachable_server(export, tmp_path, capsys, monkeypatch):
    db = tmp_path / "store.db"
    cli(capsys, "import-traces", "--langfuse", export, "--store", db)
    monkeypatch.delenv("LANGFUSE_PUBLIC_KEY", raising=False)
    monkeypatch.delenv("LANGFUSE_SECRET_KEY", raising=False)
    code, _, err = cli(capsys, "export-scores", "--format", "langfuse", "--push", "http://127.0.0.1:9",
                       "--store", db)
    assert code == 2 and "LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY" in err and err.count("\n") == 1


def variant(n: int, question: str, value: str | None, case: str) -> dict:
    """Trace n of an app run in two variants: its metadata names the variant and the test case it answered."""
    return trace(f"{n:032x}", f"{n:016x}", question, f"answer {n}", [{"id": "d1", "page_content": "def clear(): ..."}],
                 {"case": case, **({"variant": value} if value else {})})


SPLIT = "SELECT q.question_id, a.method, a.text, t.side, t.trace_id FROM answers a JOIN questions q " \
        "ON q.id = a.question_pk JOIN answer_traces t ON t.answer_id = a.id ORDER BY q.id, a.method DESC"


def test_a_langfuse_export_split_into_two_sides_by_its_metadata_and_paired_by_an_attribute(tmp_path, capsys):
    db = tmp_path / "store.db"
    export = write_export(tmp_path / "traces.json", [
        variant(1, "Where is the cache cleared?", "rag-v2", "c1"),
        variant(2, "Where is the cache cleared? (reworded)", "baseline", "c1"),
        variant(3, "Only rag-v2 got this", "rag-v2", "c2")])
    args = ("import-traces", "--langfuse", export, "--side-by", "variant", "--pair-by", "case", "--store", db)
    code, out, err = cli(capsys, *args)
    assert code == 0, err
    assert out == "langfuse proj-rag by variant: baseline vs rag-v2: 3 new trace(s) as run 1 (2 new question(s), " \
                  "1 paired)\n"
    assert [tuple(r.values()) for r in rows(db, SPLIT)] == [
        ("case=c1", "raw", "answer 2", "baseline", f"{2:032x}"),
        ("case=c1", "bundle", "answer 1", "rag-v2", f"{1:032x}"),
        ("case=c2", "bundle", "answer 3", "rag-v2", f"{3:032x}")]
    with open_store(db) as store:
        assert run_info(store, 1).label == "proj-rag by variant: baseline vs rag-v2"
    # --limit counts per side, after the split: the oldest trace of each
    code, out, err = cli(capsys, *args[:-1], tmp_path / "limited.db", "--limit", "1")
    assert code == 0 and "2 new trace(s) as run 1 (1 new question(s), 1 paired)" in out, err

    # again, with one new trace: only it is added, on its value's side, pairing the question rag-v2 had alone
    write_export(export, [*json.loads(export.read_text())["data"], variant(4, "Only rag-v2 got this?", "baseline",
                                                                           "c2")])
    code, out, err = cli(capsys, *args)
    assert code == 0 and "1 new trace(s) added to run 1 (0 new question(s), 1 paired)" in out, err
    assert [tuple(r.values())[:4] for r in rows(db, SPLIT)][2] == ("case=c2", "raw", "answer 4", "baseline")

    # a third value later: refused in one line, nothing added
    write_export(export, [*json.loads(export.read_text())["data"], variant(5, "New", "rag-v3", "c3")])
    code, out, err = cli(capsys, *args)
    assert (code, out) == (2, "")
    assert err == "gradedesk: error: --side-by variant: 3 values (baseline, rag-v2, rag-v3), two sides take two; " \
                  "nothing imported\n"
    assert len(rows(db, SPLIT)) == 4


@pytest.mark.parametrize("extra, error", [
    (("--side-by", "variant"), "--side-by variant: 1 of 2 new trace(s) do not carry it (the first: langfuse trace "
                               f"{2:032x}); nothing imported (--since leaves older traces out)"),
    (("--side-b-project", "other"), "--side-b-project: Langfuse exports are read one at a time (one side); "
                                    "--side-by splits one by a metadata attribute"),
    (("--side-by", "variant", "--pair-by", "variant"), "--side-by and --pair-by: both 'variant'; the two sides' "
                                                       "traces never share a side's value, so pair them by input or "
                                                       "another attribute"),
    (("--side-by", " "), "--side-by: empty; give the name of the attribute whose value names a trace's side"),
])
def test_side_by_refusals_are_one_line_and_store_nothing(tmp_path, capsys, extra, error):
    db = tmp_path / "store.db"
    export = write_export(tmp_path / "traces.json", [variant(1, "Tagged", "rag-v2", "c1"),
                                                     variant(2, "Untagged", None, "c2")])
    code, out, err = cli(capsys, "import-traces", "--langfuse", export, *extra, "--store", db)
    assert (code, out, err) == (2, "", f"gradedesk: error: {error}\n")
    assert not db.exists()


def test_side_by_and_a_second_project_are_one_or_the_other(tmp_path, capsys):
    db = tmp_path / "store.db"
    code, out, err = cli(capsys, "import-traces", "--phoenix", "http://127.0.0.1:9", "--side-by", "variant",
                         "--side-b-project", "other", "--store", db)
    assert (code, out) == (2, "")
    assert err == ("gradedesk: error: --side-by and --side-b-project: name the sides one way, by an attribute within "
                   "--project or by a second project\n")
    assert not db.exists()


def test_when_every_trace_is_skipped_each_reason_is_said_and_nothing_is_stored(tmp_path, capsys):
    db = tmp_path / "store.db"
    mute = trace("e" * 32, "f" * 16, "Which file opens the store?", None, [])
    export = write_export(tmp_path / "traces.json", [mute])
    code, out, err = cli(capsys, "import-traces", "--langfuse", export, "--store", db)
    assert (code, out) == (2, "")
    assert err == (f"{export}: trace 1: langfuse trace {'e' * 32} observation {'f' * 16}: the generation has no "
                   "output; skipped\n"
                   "langfuse proj-rag: no trace with an answer to import: every trace was skipped\n"
                   "gradedesk: 2 problem(s); nothing was stored\n")
    assert not db.exists()
