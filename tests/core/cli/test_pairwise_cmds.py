"""`gradedesk judge --pairwise`, `rubric show --pairwise` and the pairwise part of `agree` end to end, against the chat
stand-in and a real store."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.grading.pairwise_rubric import builtin_pairwise_rubric
from gradedesk.core.review.flags import flag_item
from gradedesk.core.store.connection import open_store
from tests.fixtures.cli import cli
from tests.fixtures.pairwise import (
    TRUE_PREFERENCE, TRUE_WIN_RATE, build_pairwise_run, content_judge, first_judge, prefer_sampled,
)


@pytest.fixture
def store_path(tmp_path):
    path = tmp_path / "store.db"
    with open_store(path) as store:
        build_pairwise_run(store, budgets=(2000, 500))
    return path


def judge(capsys, store_path, server, *more) -> tuple[int, str, str]:
    return cli(capsys, "judge", "--pairwise", "--store", store_path, "--model", "pair-judge", "--base-url",
               server.base_url, "--max-retries", "0", *more)


def test_judge_pairwise_prints_what_it_did_and_how_the_judge_behaved(store_path, chat_server, capsys):
    chat_server.responder = first_judge
    code, out, err = judge(capsys, store_path, chat_server, "--budgets", "2000")
    assert code == 0, err
    assert "pairwise judge pair-judge (pairwise-rubric/" in out and "6 pairs, 12 usable replies now" in out
    assert "verdicts: 0 consistent (both orders agree), 6 inconsistent, 0 undecided, of 6 pairs" in out
    assert "position bias (replies choosing ANSWER 1, fair 0.5): 1.000" in out
    assert "gradedesk: pairwise judge pair-judge: 12 calls for 6 pairs" in err
    code, out, err = judge(capsys, store_path, chat_server, "--json")  # both budgets: only 500's pairs are new
    data = json.loads(out)
    assert data["pairwise"]["budgets"] == [500, 2000] and data["pairwise"]["replies_done"] == 12
    assert data["behaviour"]["first_position_wins"]["value"] == 1.0


@pytest.mark.parametrize("argv,message", [
    (["--budgets", "3000"], "--budgets: 3000 is not a budget of run 1 (its budgets: 500, 2000)"),
    (["--budgets", "big"], "--budgets: 'big' is not a comma-separated list"),
    (["--repeats", "0"], "--repeats: must be at least 1"),
    (["--repeat", "2"], "--pairwise: --repeat and --no-scores are for grades"),
    (["--rubric", "nowhere.rubric"], "--rubric: nowhere.rubric: no such file"),
])
def test_bad_pairwise_input_is_one_line_exit_2(store_path, chat_server, capsys, argv, message):
    code, out, err = judge(capsys, store_path, chat_server, *argv)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1
    assert not chat_server.answer_requests
    code, _, err = cli(capsys, "judge", "--store", store_path, "--budgets", "500")
    assert code == 2 and "--budgets, --repeats and --reference-free-rubric are for --pairwise" in err


def test_pairwise_rubric_is_an_editable_versioned_file(store_path, chat_server, capsys, tmp_path):
    code, out, err = cli(capsys, "rubric", "show", "--pairwise")
    assert code == 0 and out.startswith(f"# {builtin_pairwise_rubric().version}\n") and "[better]" in out
    edited = tmp_path / "mine.rubric"
    edited.write_text(out.replace("name: pairwise-rubric", "name: strict-pairs").replace(
        "Wording, order and extra correct detail do not matter.", "Shorter is better when equally right."))
    chat_server.responder = content_judge
    code, out, err = judge(capsys, store_path, chat_server, "--rubric", edited, "--budgets", "2000")
    assert code == 0 and "(strict-pairs/" in out
    assert "Shorter is better when equally right." in chat_server.answer_requests[0]["messages"][0]["content"]
    code, out, _ = cli(capsys, "rubric", "show", "--pairwise", "strict-pairs", "--store", store_path, "--json")
    assert json.loads(out)["name"] == "strict-pairs"
    broken = tmp_path / "broken.rubric"
    broken.write_text("name: x\n\n[instructions]\ncompare\n\n[grade fully_correct]\nno\n")
    code, out, err = cli(capsys, "rubric", "show", "--pairwise", broken)
    assert code == 2 and out == "" and f"{broken}:6: [grade fully_correct]: unknown section" in err
    assert "[better]: missing" in err and "[tie]: missing" in err


def test_agree_json_carries_the_pairwise_figures(store_path, chat_server, capsys):
    chat_server.responder = content_judge
    assert judge(capsys, store_path, chat_server, "--repeats", "2")[0] == 0
    with open_store(store_path) as store:
        prefer_sampled(store, 1, "alice", 8)
    code, out, err = cli(capsys, "agree", "--store", store_path, "--json", "--bootstrap", "300")
    assert code == 0, err
    pw = json.loads(out)["pairwise"]
    assert json.loads(out)["rubrics"]["current"] is None  # a pairwise rubric is never the current grade rubric
    assert pw["judge_model"] == "pair-judge" and pw["primary_budget"] == 2000 and pw["preference_budgets"] == [2000]
    b = pw["behaviour"]
    for key in ("first_position_wins", "tie_rate", "inconsistency_rate", "stability"):
        assert b[key]["value"] is not None and b[key]["low"] is not None and b[key]["high"] is not None, key
    assert b["inconsistency_rate"]["value"] == 0 and b["stability"]["value"] == 1.0
    a = pw["agreement"]
    assert a["pairs"] >= 1 and a["percent_agreement"]["value"] == 1.0  # the people state the truth, as the judge
    assert a["labels"] == ["raw", "bundle", "tie"] and sum(map(sum, a["matrix"])) == a["pairs"]
    assert "percent_agreement" in a["without_ties"]
    overall = next(w for w in pw["win_rates"] if w["budget"] == 2000 and w["category"] is None)
    for key in ("people", "judge", "ppi"):
        assert overall[key]["value"] is not None and overall[key]["low"] <= overall[key]["high"], key
    assert overall["judge"]["value"] == pytest.approx(TRUE_WIN_RATE)
    # a perfect judge agrees with every preference: power-tuned, the figure sits between the judge's rate and people's
    # weighted rate by lambda, and the JSON says what the judge bought
    bought = overall["judge_bought"]
    lam, alone = bought["lam"], bought["people_alone"]["value"]
    assert 0 < lam <= 1 and overall["ppi"]["value"] == pytest.approx(lam * TRUE_WIN_RATE + (1 - lam) * alone)
    assert bought["line"].startswith(("the machine grades are worth", "the machine grades added nothing"))
    assert overall["sampled_preferences"] >= 1
    other = next(w for w in pw["win_rates"] if w["budget"] == 500)
    assert other["people"]["value"] is None and "at this budget yet" in other["people"]["reason"]
    code, out, _ = cli(capsys, "agree", "--store", store_path, "--bootstrap", "0")
    for title in ("Which answer is better: the pairwise judge pair-judge", "Judge vs people's preferences",
                  "Preferences (rows: person, columns: judge)", "Win rate of bundled over raw",
                  "Prediction-powered win rates: what the pairwise judge bought",
                  "what machine grades bought"):
        assert title in out


def test_preferences_meet_the_judge_at_their_own_budget_and_flagged_items_are_left_out(store_path, chat_server,
                                                                                      capsys):
    chat_server.responder = content_judge
    assert judge(capsys, store_path, chat_server)[0] == 0  # both budgets
    with open_store(store_path) as store:
        at_500 = prefer_sampled(store, 1, "bob", 6, budget=500)  # the desk showed the bundle at 500 beside raw
        prefer_sampled(store, 1, "alice", 6)
        pks = {r["question_id"]: r["id"] for r in store._query("SELECT id, question_id FROM questions")}
        flag_item(store, 1, pks["q4"], "carol", "bad_gold", None, judge_visible=False)  # raw's only win
    code, out, err = cli(capsys, "agree", "--store", store_path, "--json", "--bootstrap", "200")
    assert code == 0, err
    pw = json.loads(out)["pairwise"]
    assert pw["flagged_items_excluded"] == 1 and pw["preference_budgets"] == [500, 2000]
    with open_store(store_path) as store:
        kept = store._scalar("SELECT count(DISTINCT grader || ':' || question_pk || ':' || budget) FROM "
                             "human_preferences WHERE question_pk != ?", (pks["q4"],))
    # every preference outside the flagged item met the judge's verdict at its own budget, and agreed with it
    assert pw["agreement"]["pairs"] == kept and pw["agreement"]["not_compared"] == {}
    assert pw["agreement"]["percent_agreement"]["value"] == 1.0
    true_rate = sum({"bundle": 1, "tie": 0.5, "raw": 0}[TRUE_PREFERENCE[q]] for q in pks if q != "q4") / 5
    by_budget = {w["budget"]: w for w in pw["win_rates"] if w["category"] is None}
    for budget in (500, 2000):
        w = by_budget[budget]
        assert w["pairs"] == 5 and w["judge"]["value"] == pytest.approx(true_rate)
        lam, alone = w["judge_bought"]["lam"], w["judge_bought"]["people_alone"]["value"]
        assert w["ppi"]["value"] == pytest.approx(lam * true_rate + (1 - lam) * alone)
        assert w["sampled_preferences"] >= 1
    assert by_budget[500]["sampled_preferences"] == len(at_500) - at_500.count(pks["q4"])
