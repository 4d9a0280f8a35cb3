"""People's claim-level faithfulness against the offline and LLM faithfulness scorers, end to end on a real store: a
run, `judge` with the chat stand-in, claims marked, then `agree`, `summary` and `export` carry the figures."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gradedesk.core.cli import main
from gradedesk.core.grading.claim_marks import record_mark
from gradedesk.core.grading.claim_store import claims_of
from gradedesk.core.grading.scorers import FAITHFULNESS_SYSTEM, RELEVANCE_SYSTEM
from gradedesk.core.store.connection import open_store
from tests.fixtures.chat_server import system_of


def judge_stand_in(body: dict) -> str:
    """Stands in for an LLM judge endpoint: a grade for the rubric; for faithfulness, one verdict per answer line,
    a line that quotes a `def` unsupported; relevance 1."""
    system, user = system_of(body), body["messages"][-1]["content"]
    if system == FAITHFULNESS_SYSTEM:
        answer = user.split("BEGIN ANSWER", 1)[1]
        lines = [line for line in answer.splitlines() if line.startswith("- ")]
        return json.dumps({"claims": [{"claim": line, "supported": "`def " not in line} for line in lines]})
    if system == RELEVANCE_SYSTEM:
        return '{"score": 1, "reason": "on topic"}'
    return json.dumps({"grade": "partially_correct", "failure_label": "retrieval_miss", "confidence": 0.6,
                       "reasoning": "r"})


def mark_of(index: int, answer_id: int) -> str:
    """A person's marks, varied from answer to answer so the faithfulness figures differ."""
    if index == 1:
        return "not_claim"  # "From the evidence, the most relevant lines are:"
    return "unsupported" if index - 1 <= answer_id % 3 else "supported"  # the first 0, 1 or 2 factual claims


def cli(capsys, *argv) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


@pytest.fixture
def marked(project, chat_server, capsys):
    db, questions = project
    assert cli(capsys, "run", "--questions", str(questions), "--budgets", "600", "--store", str(db))[0] == 0
    chat_server.responder = judge_stand_in
    code, _ = cli(capsys, "judge", "--store", str(db), "--model", "judge-x", "--base-url", chat_server.base_url)
    assert code == 0
    person: dict[int, float] = {}
    with open_store(db) as store:
        for a in store._query("SELECT * FROM answers ORDER BY id"):
            claims = claims_of(store, a).claims
            marks = [mark_of(c.index, a["id"]) for c in claims]
            for c, mark in zip(claims, marks):
                record_mark(store, a["id"], "alice", c, mark)
            factual = [m for m in marks if m != "not_claim"]
            person[a["id"]] = factual.count("supported") / len(factual)
        first = store._query("SELECT * FROM answers ORDER BY id LIMIT 1")[0]
        record_mark(store, first["id"], "bob", claims_of(store, first).claims[1], "supported")  # bob stopped early
        scores = {(r["answer_id"], r["method"]): r["value"] for r in store._query(
            "SELECT answer_id, method, value FROM answer_scores WHERE metric = 'faithfulness'")}
    return db, person, scores


def test_agree_compares_people_with_each_faithfulness_scorer(marked, capsys):
    db, person, scores = marked
    code, out = cli(capsys, "agree", "--store", str(db), "--json", "--bootstrap", "300")
    f = json.loads(out)["faithfulness"]
    assert f["people_answers"] == 6 and f["people"] == ["alice"]
    assert [s["scorer"] for s in f["scorers"]] == ["llm:judge-x", "offline-rapidfuzz"]
    for s in f["scorers"]:
        ids = sorted(person)
        x = np.array([person[i] for i in ids])
        y = np.array([scores[(i, s["scorer"])] for i in ids])
        assert s["n"] == 6 and s["mean_person"] == pytest.approx(x.mean())
        assert s["mean_abs_diff"]["value"] == pytest.approx(np.abs(y - x).mean())
        assert np.ptp(x) > 0 and np.ptp(y) > 0
        assert s["pearson"]["value"] == pytest.approx(np.corrcoef(x, y)[0, 1])
        assert s["pearson"]["low"] <= s["pearson"]["value"] <= s["pearson"]["high"]
    assert "1 answer(s) have claims only partly marked and are left out" in f["notes"]
    code, out = cli(capsys, "agree", "--store", str(db), "--bootstrap", "300")
    assert "Faithfulness scorers vs people" in out and "llm:judge-x" in out and "Pearson r" in out


def test_summary_and_export_carry_people_faithfulness_per_method(marked, capsys):
    db, person, _ = marked
    code, out = cli(capsys, "summary", "--store", str(db), "--json")
    rows = {c["method"]: c for c in json.loads(out)["claims"]}
    with open_store(db) as store:
        methods = {r["id"]: r["method"] for r in store._query("SELECT id, method FROM answers")}
    for method, label in (("raw", "raw"), ("bundle", "bundle@600")):
        values = [v for aid, v in person.items() if methods[aid] == method]
        assert rows[label]["marked_answers"] == 3
        assert rows[label]["human_faithfulness"] == pytest.approx(sum(values) / len(values))
        assert rows[label]["citation_precision"] == pytest.approx(sum(values) / len(values))  # every claim cites
    assert rows["raw"]["partly_marked"] == 1  # bob
    code, out = cli(capsys, "export", "latest", "--jsonl", "--store", str(db))
    line = json.loads(out.splitlines()[0])
    assert line["raw_claims"]["invalid_citations"] == 0 and line["raw_claims"]["claims"] > 1
    alice = [p for p in line["bundle_claims"]["people"] if p["grader"] == "alice"][0]
    assert alice["complete"] and 0 <= alice["faithfulness"] <= 1
