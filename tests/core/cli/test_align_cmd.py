"""`gradedesk rubric`, `judge --rubric` and `align` end to end on a real temporary store, against the chat stand-in
made to behave like a judge that follows examples (tests/fixtures/alignment.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gradedesk.core.grading.rubric_format import REPLY_SHAPE, builtin_rubric, parse_rubric
from gradedesk.core.providers.structured import response_format
from gradedesk.core.store.connection import open_store, schema_version
from tests.fixtures.alignment import build_graded_run, example_following_judge
from tests.fixtures.cli import cli


@pytest.fixture
def db(tmp_path, chat_server, monkeypatch):
    monkeypatch.chdir(tmp_path)  # align writes its rubric file to ./NAME-HASH.rubric without --out: not into the repo
    chat_server.responder = example_following_judge
    path = tmp_path / "store.db"
    with open_store(path) as store:
        build_graded_run(store, 24)
    return str(path)


def test_rubric_show_prints_the_builtin_as_an_editable_file(capsys, tmp_path):
    code, out, err = cli(capsys, "rubric", "show")
    assert code == 0 and err.strip() == f"rubric {builtin_rubric().version}"
    assert out.startswith(f"# {builtin_rubric().version}\n# A gradedesk rubric")
    assert parse_rubric(out) == builtin_rubric()
    path = tmp_path / "mine.rubric"
    path.write_text(out.replace("name: judge-rubric", "name: mine").replace("[grade wrong]", "[grade awful]"))
    code, out, err = cli(capsys, "rubric", "show", str(path))
    assert code == 2 and out == ""
    assert err.splitlines()[0].startswith(f"{path}:") and "[grade awful]: unknown grade" in err
    code, out, _ = cli(capsys, "rubric", "show", "--json")
    assert json.loads(out)["prompt"] == builtin_rubric().prompt


def test_judge_with_a_users_rubric_file(db, capsys, chat_server, tmp_path):
    code, text, _ = cli(capsys, "rubric", "show")
    path = tmp_path / "strict.rubric"
    path.write_text(text.replace("name: judge-rubric", "name: strict")
                    .replace("pick the lower one.", "pick the lower one. Be strict."), encoding="utf-8")
    version = parse_rubric(path.read_text()).version
    code, out, err = cli(capsys, "judge", "--store", db, "--model", "judge-x", "--base-url", chat_server.base_url,
                         "--rubric", str(path), "--no-scores")
    assert code == 0, err
    assert f"judge judge-x ({version}), repeat 1: 48 graded now" in out
    assert all("Be strict." in b["messages"][0]["content"] for b in chat_server.answer_requests)
    with open_store(db) as store:
        assert store._query("SELECT DISTINCT rubric_version FROM auto_grades WHERE grader_kind = 'judge'") == [
            {"rubric_version": version}]
    # a stored version by its name, printed back as a file
    code, out, err = cli(capsys, "rubric", "show", "strict", "--store", db)
    assert code == 0 and err.strip() == f"rubric {version}" and "Be strict." in out
    code, _, err = cli(capsys, "judge", "--store", db, "--rubric", str(path))
    assert code == 2 and "only an LLM judge reads a rubric" in err


def test_align_prints_and_stores_the_same_figures_as_json(db, capsys, chat_server, tmp_path):
    out_file = tmp_path / "aligned.rubric"
    args = ("align", "--store", db, "--model", "judge-model", "--base-url", chat_server.base_url, "--seed", "3",
            "--bootstrap", "500")
    code, out, err = cli(capsys, *args, "--out", str(out_file))
    assert code == 0, err
    new = parse_rubric(out_file.read_text())
    assert f"new rubric {new.version} (8 examples, based on {builtin_rubric().version}): written to {out_file}" in out
    code, js, _ = cli(capsys, *args, "--out", str(tmp_path), "--json")  # again: the same verdicts, reused
    r = json.loads(js)
    assert r["new"]["version"] == new.version and r["calls"]["made"] == 0
    assert (tmp_path / f"{new.version.replace('/', '-')}.rubric").read_text() == out_file.read_text()
    pa = r["test"]["measures"]["percent_agreement"]
    line = next(x for x in out.splitlines() if x.startswith("percent agreement"))
    for figure in (pa["base"], pa["new"]):
        assert f"{figure['value']:.3f} [{figure['low']:.3f}, {figure['high']:.3f}]" in line
    d = pa["difference"]
    assert f"+{d['value']:.3f} [{d['low']:.3f}, {d['high']:.3f}]" in line
    assert f"80% agreement target on test: base not met ({pa['base']['value']:.3f}), new met" in out
    for part in ("Cohen's kappa", "Gwet's AC1", "judge TPR", "judge TNR", "judge - people pass rate",
                 "agreement, longest third", "judge calls: 72 made now"):
        assert part in out, part
    code, out, _ = cli(capsys, "rubric", "history", "--store", db)
    assert code == 0
    assert "align 1 (run 1, judge-model, 24 test, new)" in out and new.version in out
    code, js, _ = cli(capsys, "rubric", "history", "--store", db, "--json")
    history = json.loads(js)
    assert [h["version"] for h in history] == [builtin_rubric().version, new.version]
    assert history[1]["test_agreement"][0]["percent_agreement"] == pa["new"]


@pytest.mark.parametrize("extra, message", [
    ((), "align needs a judge: give --model M"),
    (("--model", "m", "--test-share", "1.5"), "--test-share: must be between 0 and 1"),
    (("--model", "m", "--examples", "0"), "--examples: must be at least 1"),
    (("--model", "m", "--rubric", "nope"), "--rubric: nope: no such file nor a rubric version"),
    (("--model", "m", "--out", "missing-folder/x.rubric"), "--out: folder missing-folder does not exist"),
    (("--model", "m", "--grader", "zoe"), "no answer with a gold answer has a grade by grader 'zoe'"),
])
def test_bad_input_is_one_line_exit_2_and_stores_nothing(db, capsys, chat_server, extra, message):
    base_url = ("--base-url", chat_server.base_url) if extra else ()
    code, out, err = cli(capsys, "align", "--store", db, *base_url, *extra)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1
    with open_store(db) as store:
        assert store._scalar("SELECT count(*) FROM alignments") == 0
    assert chat_server.requests == []


def test_an_existing_out_file_is_never_overwritten(db, capsys, chat_server, tmp_path):
    existing = tmp_path / "mine.rubric"
    existing.write_text("keep me")
    code, _, err = cli(capsys, "align", "--store", db, "--model", "m", "--base-url", chat_server.base_url,
                       "--out", str(existing))
    assert code == 2 and "align never overwrites a file" in err and existing.read_text() == "keep me"


def test_a_store_from_before_rubric_files_is_upgraded_and_keeps_its_judge_prompt(tmp_path, capsys):
    path = tmp_path / "old.db"
    with open_store(path) as store:  # made as schema 1 made it: no alignment tables, the prompt as judge-rubric/1
        store._conn.execute("DROP TABLE alignment_items")
        store._conn.execute("DROP TABLE alignments")
        store._db["rubrics"].insert({"version": "judge-rubric/1", "text": "You are grading an answer...",
                                    "created_at": "2024-01-01T00:00:00+00:00"})
        store._conn.execute("PRAGMA user_version = 1")
    code, out, err = cli(capsys, "rubric", "history", "--store", str(path))
    assert code == 0 and "judge-rubric/1" in out and "(not measured on held-out items)" in out
    with open_store(path) as store:
        assert store.schema_version == schema_version() >= 2
        assert store._scalar("SELECT count(*) FROM alignments") == 0
    code, out, err = cli(capsys, "rubric", "show", "judge-rubric/1", "--store", str(path))
    assert code == 0 and out == "You are grading an answer...\n" and "older gradedesk" in err


def test_a_judge_whose_replies_are_all_unusable_compares_nothing_and_says_so(db, capsys, chat_server):
    """What a base model behind a real server does (it follows no JSON format): align finishes, exit 1."""
    chat_server.responder = lambda body: '{"store": {"shop": {"price": 10'
    code, out, err = cli(capsys, "align", "--store", db, "--model", "base-model", "--base-url", chat_server.base_url,
                         "--json")
    assert code == 1
    assert len(list(Path.cwd().glob("*.rubric"))) == 1  # written to the working folder, by default
    r = json.loads(out)
    assert r["test"]["n"] == 0 and r["calls"]["unusable"] == r["calls"]["made"] == 24 + 24 + 24
    assert r["test"]["measures"]["percent_agreement"]["difference"]["reason"] == "no items graded by both"
    assert "no test answer has a usable verdict under both rubrics (72 unusable replies), so nothing was compared; " \
           "does base-model follow the rubric's JSON format?" in err


@pytest.mark.parametrize("takes, form", [({"json_schema"}, "json_schema"),
                                         ({"json_object_schema", "json_object"}, "json_object_schema"),
                                         (set(), None)])
def test_align_sends_the_verdicts_schema_in_the_form_the_probe_found(db, capsys, chat_server, takes, form):
    """align judges as `judge` does: the endpoint's probe before the first verdict, then each call carries the
    verdict's schema in the strongest form the server takes (nothing, for a server that takes none)."""
    chat_server.response_formats = takes
    code, _, err = cli(capsys, "align", "--store", db, "--model", "judge-model", "--base-url", chat_server.base_url,
                       "--seed", "3", "--bootstrap", "50")
    assert code == 0, err
    assert chat_server.probe_requests and chat_server.requests[:len(chat_server.probe_requests)] == \
        chat_server.probe_requests  # probed before the first verdict
    calls = chat_server.answer_requests
    assert calls and all(c.get("response_format") == response_format(form, REPLY_SHAPE) for c in calls)
    with open_store(db) as store:
        probes = json.loads(store._scalar("SELECT config FROM runs WHERE id = 1"))["endpoint_probes"]
    assert probes[f"judge judge-model @ {chat_server.base_url}"]["structured_form"] == (form or "none")
