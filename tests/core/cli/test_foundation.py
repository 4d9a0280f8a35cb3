"""End-to-end: the foundation commands on a real temporary store, through the installed console script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from gradedesk.core.evidence.bundle import EvidenceBundle, EvidenceSnippet
from gradedesk.core.text.hashing import content_hash
from gradedesk.core.text.tokens import count_tokens


def gradedesk(*args: str, cwd=None, env=None) -> subprocess.CompletedProcess:
    exe = shutil.which("gradedesk") or ""
    cmd = [exe] if exe else [sys.executable, "-m", "tui"]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def test_version_and_help():
    out = gradedesk("--version")
    assert out.returncode == 0 and out.stdout.startswith("gradedesk ")
    assert "validate-bundle" in gradedesk("--help").stdout


def test_questions_load_stores_nothing_from_a_bad_file(tmp_path):
    good = {"id": "q1", "question": "q?", "category": "c", "gold_answer": "a"}
    path = tmp_path / "b.jsonl"
    path.write_text(json.dumps(good) + "\n" + '{"id": "q2"}\n', encoding="utf-8")
    store = tmp_path / "s.db"
    out = gradedesk("questions", "load", str(path), "--store", str(store))
    assert out.returncode == 2
    assert f"{path}:2: question: missing" in out.stderr
    assert "Traceback" not in out.stderr
    if store.exists():
        import sqlite3
        assert sqlite3.connect(store).execute("SELECT count(*) FROM questions").fetchone()[0] == 0
    path.write_text(json.dumps(good) + "\n", encoding="utf-8")
    out = gradedesk("questions", "load", str(path), "--store", str(store), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["stored"] == 1


def _bundle_file(tmp_path, *, broken: bool):
    text = "def f():\n    return 1"
    s = EvidenceSnippet("c1", content_hash(text), text, count_tokens(text), "a.py", 1, 2, "f", "bm25", 2.0, 1,
                        "Defines f.", "definition")
    b = EvidenceBundle("What is f?", "code_lookup", [s], 0, 500, ["bm25"], ["definition of f found"])
    b.recount()
    if broken:
        b.snippets[0].start_line = 5
    path = tmp_path / "bundle.json"
    path.write_text(b.to_json(), encoding="utf-8")
    return path


def test_validate_bundle_exit_codes(tmp_path):
    ok = gradedesk("validate-bundle", str(_bundle_file(tmp_path, broken=False)))
    assert ok.returncode == 0 and "ok (1 snippets" in ok.stdout
    bad = gradedesk("validate-bundle", str(_bundle_file(tmp_path, broken=True)), "--json")
    assert bad.returncode == 1
    assert json.loads(bad.stdout)[0]["rule"] == "provenance"


def test_validate_bundle_bad_file_is_exit_2(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("{nope", encoding="utf-8")
    out = gradedesk("validate-bundle", str(p))
    assert out.returncode == 2 and out.stderr.startswith(f"gradedesk: error: {p}:1: not a JSON file")
    out = gradedesk("validate-bundle", str(tmp_path / "missing.json"))
    assert out.returncode == 2 and "cannot read" in out.stderr


def test_store_env_var_and_newer_store_message(tmp_path):
    import sqlite3
    db = tmp_path / "newer.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    good = tmp_path / "b.jsonl"
    good.write_text(json.dumps({"id": "q1", "question": "q?", "category": "c", "gold_answer": "a"}) + "\n")
    import os
    env = dict(os.environ, GRADEDESK_STORE=str(db))
    out = gradedesk("questions", "load", str(good), env=env)
    assert out.returncode == 2 and "made by a newer gradedesk" in out.stderr
