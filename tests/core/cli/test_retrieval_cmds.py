"""The retrieval commands end to end: index, retrieve, ask, context-pack build (stdin), errors with exit code 2."""

from __future__ import annotations

import io
import json

import pytest
from tests.fixtures.sample_repo import make_sample_repo

from gradedesk.core.evidence.bundle import EvidenceBundle, validate
from gradedesk.core.cli import main


@pytest.fixture
def env(tmp_path):
    repo = make_sample_repo(tmp_path / "parcels")
    return repo, str(tmp_path / "store.db")


def run(capsys, *argv, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_index_retrieve_ask_and_pack(env, capsys, monkeypatch):
    repo, store = env
    code, out, err = run(capsys, "index", str(repo), "--store", store, "--json")
    report = json.loads(out)
    assert code == 0 and report["name"] == "parcels" and report["files_indexed"] > 5
    assert "indexing:" in err and f"{report['files_seen']}/{report['files_seen']} files" in err  # progress: stderr

    code, out, _ = run(capsys, "index", str(repo), "--store", store)
    assert code == 0 and "0 indexed" in out

    code, out, _ = run(capsys, "retrieve", "What calls ship_parcel?", "--store", store, "--k", "4", "--json")
    data = json.loads(out)
    assert code == 0 and len(data["hits"]) == 4 and data["hits"][0]["method_ranks"]
    retrieval_json = out

    code, out, _ = run(capsys, "context-pack", "build", "--ordering", "score", "--include-metadata",
                       "--max-tokens", "200", stdin=retrieval_json, monkeypatch=monkeypatch)
    pack = json.loads(out)
    assert code == 0 and pack["max_tokens"] == 200 and pack["total_tokens"] <= 200
    assert pack["evidence_count"] == len(pack["blocks"]) >= 1 and pack["blocks"][0]["text"].startswith("item_id: ")
    assert pack["policy"]["ordering"] == "score" and pack["tokenizer"] == "tiktoken/o200k_base"

    code, out, _ = run(capsys, "ask", "What calls ship_parcel?", "--store", store, "--budget", "800", "--json")
    bundle = EvidenceBundle.from_dict(json.loads(out))
    assert code == 0 and validate(bundle) == [] and bundle.token_budget == 800

    code, out, _ = run(capsys, "ask", "Where is ParcelStore defined?", "--store", store)
    assert code == 0 and "question type: code_lookup" in out and "[Evidence 1]" in out and "coverage:" in out

    code, out, _ = run(capsys, "retrieve", "note line 41", "--store", store, "--baseline")
    assert code == 0 and "bm25_window" in out and "notes.txt:41-80" in out


def test_errors_are_one_line_exit_2(env, capsys, monkeypatch, tmp_path):
    repo, store = env
    code, _, err = run(capsys, "index", str(tmp_path / "missing"), "--store", store)
    assert code == 2 and "not a folder" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "retrieve", "q", "--store", str(tmp_path / "nostore.db"))
    assert code == 2 and "no such store" in err
    run(capsys, "index", str(repo), "--store", store)
    code, _, err = run(capsys, "ask", "q", "--store", store, "--repo", "other")
    assert code == 2 and "no repository named 'other'" in err
    code, _, err = run(capsys, "ask", "q", "--store", store, "--budget", "0")
    assert code == 2 and "token budget" in err
    code, _, err = run(capsys, "context-pack", "build", stdin="", monkeypatch=monkeypatch)
    assert code == 2 and "requires retrieval JSON on stdin" in err
    code, _, err = run(capsys, "context-pack", "build", stdin="{not json", monkeypatch=monkeypatch)
    assert code == 2 and "stdin:1: (json): malformed JSON" in err
