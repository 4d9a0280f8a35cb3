"""Claims computed once and kept, end to end: a real run (the offline answerer, and the chat stand-in answering as an LLM
in both prompt styles), grade-offline stores every answer's claims, and summary counts the invalid citations."""

from __future__ import annotations

import json

from gradedesk.core.cli import main
from gradedesk.core.grading.claim_store import claims_of, load_claims, save_claims
from gradedesk.core.grading.claims import SPLITTER
from gradedesk.core.store.connection import open_store, schema_version

BUNDLED_REPLY = ("`apply_discount` takes ten percent off orders of 100 or more [Evidence 1]. "
                 "The discount is also logged by audit_discount [Evidence 99].")
RAW_REPLY = ("- `apply_discount` takes ten percent off (File: shop/cart.py).\n"
             "- Prices are cached in shop/cache.py:3.")


def llm_like(body: dict) -> str:
    """Stands in for an LLM answering under gradedesk's prompts: the bundle prompt asks for [Evidence i] labels, the
    raw prompt for `File: path`; each reply cites one thing that is there and one that is not."""
    return BUNDLED_REPLY if "[Evidence" in body["messages"][0]["content"] else RAW_REPLY


def cli(capsys, *argv) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_offline_answers_cite_only_what_they_were_given(project, capsys):
    db, questions = project
    assert cli(capsys, "run", "--questions", str(questions), "--budgets", "600", "--store", str(db))[0] == 0
    code, out = cli(capsys, "grade-offline", "--store", str(db))
    assert code == 0 and "claims and citations of 6 answers" in out
    with open_store(db) as store:
        rows = store._query("SELECT c.*, a.text FROM answer_claims c JOIN answers a ON a.id = c.answer_id")
        assert len(rows) == 6 and {r["splitter"] for r in rows} == {SPLITTER}
        for r in rows:
            claims = json.loads(r["detail"])
            assert r["claims"] == len(claims) == r["text"].count("\n- ") + 1  # the lead-in and one claim a line
            assert r["invalid"] == 0 and r["cited"] == r["claims"] - 1  # every quoted line cites its evidence
    code, out = cli(capsys, "summary", "--store", str(db), "--json")
    counts = {c["method"]: c for c in json.loads(out)["claims"]}
    assert set(counts) == {"raw", "bundle@600"}
    assert counts["raw"]["invalid_citations"] == 0 and counts["raw"]["not_computed"] == 0


def test_llm_answers_citations_to_evidence_they_were_not_given_are_counted(project, chat_server, capsys):
    db, questions = project
    chat_server.responder = llm_like
    code, _ = cli(capsys, "run", "--questions", str(questions), "--budgets", "600", "--model", "m", "--base-url",
                  chat_server.base_url, "--store", str(db))
    assert code == 0
    code, out = cli(capsys, "summary", "--store", str(db))
    assert "claims of 6 answer(s) are not computed yet" in out
    assert cli(capsys, "grade-offline", "--store", str(db))[0] == 0
    code, out = cli(capsys, "summary", "--store", str(db))
    table = out.split("== claims and citations", 1)[1].split("==", 1)[0]
    assert [line.split() for line in table.strip().splitlines()[2:]] == [
        # method, answers, claims, cited, citations, invalid, answers_with_invalid, and nobody marked claims yet
        ["raw", "3", "6", "6", "6", "3", "3", "0", "-", "-"],  # shop/cache.py is not in any raw evidence
        ["bundle@600", "3", "6", "6", "6", "3", "3", "0", "-", "-"]]  # no bundle has 99 snippets
    with open_store(db) as store:
        answer = store._query("SELECT * FROM answers WHERE method = 'bundle' LIMIT 1")[0]
        got = claims_of(store, answer)
        bad = got.claims[1].citations[0]
        assert bad.target == "Evidence 99" and bad.problem.startswith("Evidence 99 is not in the evidence")
        assert got.claims[0].evidence == (1,) and got.evidence[0].position == 1


def test_claims_are_computed_once_and_recomputed_for_another_splitter_version(project, capsys):
    db, questions = project
    cli(capsys, "run", "--questions", str(questions), "--budgets", "600", "--store", str(db))
    with open_store(db) as store:
        answer = store._query("SELECT * FROM answers ORDER BY id LIMIT 1")[0]
        assert load_claims(store, answer["id"]) is None
        first = claims_of(store, answer).claims  # computed and stored
        assert load_claims(store, answer["id"]) == first
        store._conn.execute("UPDATE answer_claims SET splitter = 'claims/0', claims = 99")
        assert load_claims(store, answer["id"]) is None
        assert claims_of(store, answer).claims == first
        assert store._scalar("SELECT claims FROM answer_claims WHERE answer_id = ?", (answer["id"],)) == len(first)
        save_claims(store, answer["id"], [])  # an answer with no claims is stored as such, not as "not computed"
        assert load_claims(store, answer["id"]) == []


def test_a_store_from_before_claims_gets_the_tables_on_opening(tmp_path):
    path = tmp_path / "old.db"
    with open_store(path) as store:  # as schema 2 left it: no answer_claims, no claim marks
        for statement in ("DROP VIEW current_claim_marks", "DROP TABLE claim_marks", "DROP TABLE answer_claims",
                          "PRAGMA user_version = 2"):
            store._conn.execute(statement)
    with open_store(path) as store:
        assert store.schema_version == schema_version() >= 5
        for table in ("answer_claims", "claim_marks", "current_claim_marks"):
            assert store._scalar(f"SELECT count(*) FROM {table}") == 0
