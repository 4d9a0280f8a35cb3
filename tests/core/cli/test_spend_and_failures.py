"""Spend chosen before it is spent (`--limit`, `--sample`, `--dry-run`, the plan line before the first call) and every
failure shown where the user looks (grouped by reason; a prompt over the model's context is not retried), against the
chat stand-in on a real store."""

from __future__ import annotations

import json
import re

import pytest

from gradedesk.core.agreement.report import agreement_report
from gradedesk.core.agreement.grade_pairs import GraderChoice, load_pairs, pair_from_row
from gradedesk.core.agreement.samples import draw_weight, weighted_draws
from gradedesk.core.grading.human_grades import GradeChange, record_grade
from gradedesk.core.review.sampler import draw_next
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.run_records import record_judge_sample, run_info
from gradedesk.core.store.samples import sample_draws
from tests.fixtures.cli import cli

VERDICT = '{"grade": "fully_correct", "failure_label": null, "confidence": 0.9, "reasoning": "Same facts."}'
PLAN_RE = re.compile(r"gradedesk: (?:run|judge|pairwise judge) \S+: ([\d,]+) calls?, about ([\d,]+) prompt tokens "
                     r"\((estimate[^)]+)\)")


def plan(err: str) -> tuple[int, int]:
    """(calls, estimated prompt tokens) of the plan line a command printed before its first call."""
    found = PLAN_RE.search(err)
    assert found, err
    return int(found.group(1).replace(",", "")), int(found.group(2).replace(",", ""))


def label(err: str) -> str:
    """What the plan line says its prompt-token figure is."""
    found = PLAN_RE.search(err)
    assert found, err
    return found.group(3)


def reported_prompt_tokens(server) -> int:
    return sum(server.prompt_tokens(r) for r in server.answer_requests)


def test_the_plan_line_counts_the_calls_made_and_estimates_their_prompt_tokens(project, chat_server, capsys):
    db, questions = map(str, project)
    endpoint = ["--model", "m", "--base-url", chat_server.base_url, "--store", db]
    code, _, err = cli(capsys, "run", "--questions", questions, "--budgets", "500,1000", *endpoint)
    assert code == 0
    calls, estimate = plan(err)
    assert calls == len(chat_server.answer_requests) == 9  # 3 questions: raw and two budgets
    assert abs(estimate / reported_prompt_tokens(chat_server) - 1) < 0.10
    with open_store(db) as store:  # retrieval figures need no model: stored with the answers, before any grader
        for metric in ("file_recall", "code_coverage"):
            assert store._scalar("SELECT count(DISTINCT answer_id) FROM answer_scores WHERE metric = ?", [metric]) == 9
    code, out, _ = cli(capsys, "summary", "--store", db)
    assert code == 0 and "answer quality needs a model" not in out and "answer quality needs a judge" in out

    chat_server.requests.clear()
    chat_server.responder = lambda body: VERDICT
    code, _, err = cli(capsys, "judge", "--no-scores", *endpoint)
    assert code == 0 and plan(err)[0] == len(chat_server.answer_requests) == 9
    chat_server.requests.clear()
    chat_server.responder = lambda body: '{"winner": "1", "reasoning": "It names the file."}'
    code, _, err = cli(capsys, "judge", "--pairwise", *endpoint)
    calls, estimate = plan(err)
    assert code == 0 and calls == len(chat_server.answer_requests) == 12  # 3 questions x 2 budgets x 2 orders
    assert abs(estimate / reported_prompt_tokens(chat_server) - 1) < 0.10


def test_the_estimate_is_calibrated_on_the_servers_own_count(project, chat_server, capsys):
    """A server whose tokenizer and chat template are not ours (it counts 1.15 x o200k_base + 20 a call): our count
    falls more than 10% short of it; calibrated on two one-token probes cut from the first prompt, the estimate is
    within 10% of what the server then reports, for the answers and the judge's verdicts. The fit is recorded with
    the other probes' facts, so a resume does not pay for it again."""
    db, questions = map(str, project)
    chat_server.count_ratio, chat_server.count_overhead = 1.15, 20
    endpoint = ["--model", "m", "--base-url", chat_server.base_url, "--store", db]
    run = ["run", "--questions", questions, "--budgets", "500,1000", *endpoint]
    code, out, _ = cli(capsys, *run, "--dry-run")  # sends nothing: our count, labelled so
    assert code == 0 and label(out) == "estimate, tiktoken/o200k_base, not calibrated: a dry run sends nothing"
    uncalibrated = plan(out)[1]
    code, _, err = cli(capsys, *run, "--limit", "5")
    calls, estimate = plan(err)
    reported = reported_prompt_tokens(chat_server)
    assert code == 0 and calls == len(chat_server.answer_requests) == 5 and len(chat_server.probe_requests) == 4
    assert label(err).startswith("estimate calibrated on the server's count: 1.1")
    assert abs(estimate / reported - 1) < 0.10
    figures = [f"run --limit 5: estimate {estimate:,} ({label(err)}), server counted {reported:,}"]
    chat_server.requests.clear()
    code, _, err = cli(capsys, *run)  # the resume: calibrated as recorded, no probe asked again
    assert code == 0 and chat_server.probe_requests == [] and label(err).startswith("estimate calibrated")
    assert abs(plan(err)[1] / reported_prompt_tokens(chat_server) - 1) < 0.10
    reported += reported_prompt_tokens(chat_server)  # all 9 calls, as the dry run planned them
    figures.append(f"run: our count alone (the dry run's) {uncalibrated:,} for all 9 calls, server counted "
                   f"{reported:,}")
    assert uncalibrated / reported - 1 < -0.10  # what the old estimate said: more than 10% short

    chat_server.requests.clear()
    chat_server.responder = lambda body: VERDICT
    code, _, err = cli(capsys, "judge", "--no-scores", *endpoint)
    calls, estimate = plan(err)
    reported = reported_prompt_tokens(chat_server)
    figures.append(f"judge: {calls} calls, estimate {estimate:,} ({label(err)}), server counted {reported:,}")
    print("\n".join(figures))  # after the last command: capsys takes what is printed before
    assert code == 0 and calls == len(chat_server.answer_requests) == 9 and label(err).startswith("estimate calib")
    assert abs(estimate / reported - 1) < 0.10


def test_without_the_servers_count_the_estimate_says_it_is_not_calibrated(project, chat_server, capsys):
    db, questions = map(str, project)
    chat_server.usage = False
    code, _, err = cli(capsys, "run", "--questions", questions, "--budgets", "500", "--limit", "2", "--model", "m",
                       "--base-url", chat_server.base_url, "--store", db)
    assert code == 0 and plan(err)[0] == 2
    assert label(err) == "estimate, tiktoken/o200k_base, not calibrated: the server gave no prompt count"


def test_a_dry_run_prints_the_plan_and_stores_nothing(project, chat_server, capsys):
    db, questions = map(str, project)
    endpoint = ["--model", "m", "--base-url", chat_server.base_url, "--store", db]
    code, out, err = cli(capsys, "run", "--questions", questions, "--budgets", "500", "--dry-run", *endpoint)
    assert code == 0 and plan(out)[0] == 6 and "dry run: nothing sent" in out
    assert chat_server.requests == []  # not even a probe
    with open_store(db) as store:
        assert store._scalar("SELECT count(*) FROM runs") == 0 and store._scalar("SELECT count(*) FROM answers") == 0
    assert cli(capsys, "run", "--questions", questions, "--budgets", "500", *endpoint)[0] == 0
    chat_server.requests.clear()
    code, out, _ = cli(capsys, "judge", "--dry-run", *endpoint)
    assert code == 0 and plan(out)[0] == 18 and chat_server.requests == []
    with open_store(db) as store:
        assert store._scalar("SELECT count(*) FROM auto_grades") == 0


def test_limit_makes_the_next_n_calls_each_time(project, chat_server, capsys):
    db, questions = map(str, project)
    args = ["run", "--questions", questions, "--budgets", "500", "--model", "m", "--base-url", chat_server.base_url,
            "--store", db, "--limit", "4"]
    code, out, err = cli(capsys, *args)
    assert code == 0 and plan(err)[0] == 4 and len(chat_server.answer_requests) == 4
    assert "4 answered now, 0 failed, 2 pending" in out
    code, out, err = cli(capsys, *args)
    assert code == 0 and plan(err)[0] == 2 and "2 answered now, 0 failed, 0 pending" in out
    assert len(chat_server.answer_requests) == 6
    chat_server.requests.clear()
    chat_server.responder = lambda body: VERDICT
    code, out, err = cli(capsys, "judge", "--store", db, "--model", "j", "--base-url", chat_server.base_url,
                         "--limit", "5")
    assert code == 0 and plan(err)[0] == 5 and len(chat_server.answer_requests) == 5


def test_a_prompt_over_the_context_is_shown_grouped_and_not_retried(project, chat_server, capsys):
    db, questions = map(str, project)
    args = ["run", "--questions", questions, "--budgets", "300,4000", "--max-tokens", "100", "--model", "m",
            "--base-url", chat_server.base_url, "--store", db]
    chat_server.context = 600
    code, out, err = cli(capsys, *args)
    over = [r for r in chat_server.answer_requests if chat_server.prompt_tokens(r) + 100 > 600]
    assert over and code == 1  # the largest prompts go over; each was asked once
    assert len(chat_server.answer_requests) == 9
    [line] = [x for x in err.splitlines() if "failed: context" in x]
    assert line.startswith(f"gradedesk: {len(over)} answers failed: context (e.g. ")
    assert "a retry cannot fix that, so it is not retried" in line and "run the same" not in line
    note = next(x for x in err.splitlines() if "over the model's context of 600 tokens" in x)
    assert "500 for the prompt after --max-tokens 100" in note and "bundle@4000" in note
    worst = max(chat_server.prompt_tokens(r) for r in over) + 100 - 600
    assert f"by up to {worst:,} tokens" in note and "the largest budget that fits is about " in note

    chat_server.requests.clear()
    code, out, err = cli(capsys, *args)  # the same command again: nothing asked, the failures still shown
    assert chat_server.answer_requests == [] and code == 0
    assert f"{len(over)} not retried (a retry cannot fix them)" in out and "failed: context" in err
    code, out, _ = cli(capsys, "summary", "--store", db)
    assert code == 0 and f"{len(over)} answers failed: context" in out and "not retried" in out


def test_judge_failures_are_grouped_by_reason_with_an_example(project, chat_server, capsys):
    db, questions = map(str, project)
    endpoint = ["--model", "m", "--base-url", chat_server.base_url, "--store", db, "--max-retries", "0"]
    assert cli(capsys, "run", "--questions", questions, "--budgets", "500", *endpoint)[0] == 0
    replies = iter([VERDICT, "not json", '{"grade": "great"}', VERDICT, VERDICT, "nope"])
    chat_server.responder = lambda body: next(replies)
    code, out, err = cli(capsys, "judge", "--no-scores", "--concurrency", "1", *endpoint)
    assert code == 0 and "3 graded now, 3 unusable replies" in out
    lines = [x for x in err.splitlines() if "unusable:" in x]
    assert lines[0].startswith("gradedesk: 2 replies unusable: reply is not JSON (e.g. ")
    assert lines[1].startswith("gradedesk: 1 reply unusable: grade (e.g. ")


def test_sample_records_inclusion_probabilities_that_the_weighted_figures_use(project, chat_server, capsys):
    db, questions = map(str, project)
    args = ["run", "--questions", questions, "--budgets", "500", "--model", "m", "--base-url", chat_server.base_url,
            "--store", db, "--sample", "2", "--seed", "7"]
    code, out, err = cli(capsys, *args)
    assert code == 0 and "2 questions, 4 answers" in out and plan(err)[0] == 4
    with open_store(db) as store:
        config = json.loads(store._scalar("SELECT config FROM runs WHERE id = 1"))
        assert config["sample"] == {"size": 2, "population": 3, "seed": 7, "inclusion_probability": pytest.approx(2 / 3)}
        answers = store._query("SELECT id, question_pk, method FROM answers WHERE run_id = 1")
        run = run_info(store, 1)
        for _ in range(2):  # a person grades what the desk draws, as the desk does
            d = draw_next(store, run, "ann")
            for a in answers:
                if a["question_pk"] == d.question_pk:
                    record_grade(store, a["id"], "ann", GradeChange(grade="fully_correct"), selection="sampled",
                                 selection_probability=d.probability)
        draws = sample_draws(store, 1)
        assert draws and all(d.inclusion_probability == pytest.approx(2 / 3) for d in draws)
        assert all(draw_weight(d) == pytest.approx(1 / (2 / 3 * d.probability)) for d in draws)
        assert agreement_report(store, 1)["samples"]["sampled"]["draws"] == len(draws)
    code, out, _ = cli(capsys, *args)  # the same sample again: the same run, resumed
    assert code == 0 and out.startswith("run 1 (resumed")
    code, out, _ = cli(capsys, *args[:-4], "--store", db)  # the whole benchmark is another run
    assert code == 0 and out.startswith("run 2 (created")


def test_a_judge_sample_multiplies_its_inclusion_probability_into_agrees_weights(project, chat_server, capsys):
    """judge --sample asks the judge about 2 of the run's 3 questions: a pair of a person's and the judge's grade
    reached agree through the desk's draw and the judge's sample, so its weight is 1 / (q * 2/3) and its question a
    first-stage cluster, which agree's sampled figures resample together; once the judge is asked about every
    question, the weights are the desk's alone."""
    db, questions = map(str, project)
    assert cli(capsys, "run", "--questions", questions, "--budgets", "500", "--model", "m", "--base-url",
               chat_server.base_url, "--store", db)[0] == 0
    chat_server.responder = lambda body: VERDICT
    judge = ["judge", "--no-scores", "--model", "judge-m", "--base-url", chat_server.base_url, "--store", db]
    code, out, err = cli(capsys, *judge, "--sample", "2", "--seed", "7")
    assert code == 0, err
    choice = GraderChoice("judge", "judge-m")
    with open_store(db) as store:
        samples = json.loads(store._scalar("SELECT config FROM runs WHERE id = 1"))["judge_samples"]
        assert samples == {"judge judge-m sample 2 seed 7": {"role": "judge", "model": "judge-m", "size": 2,
                                                             "population": 3, "seed": 7,
                                                             "inclusion_probability": pytest.approx(2 / 3)}}
        judged = {r["question_pk"] for r in store._query(
            "SELECT a.question_pk FROM auto_grades g JOIN answers a ON a.id = g.answer_id "
            "WHERE g.grader_kind = 'judge'")}
        assert len(judged) == 2
        answers = store._query("SELECT id, question_pk, method FROM answers WHERE run_id = 1")
        run = run_info(store, 1)
        while (d := draw_next(store, run, "ann")) is not None:  # a person grades every question the desk draws
            for a in answers:  # agreeing with the judge's fully_correct on raw answers only
                if a["question_pk"] == d.question_pk:
                    grade = "fully_correct" if a["method"] == "raw" else "wrong"
                    record_grade(store, a["id"], "ann", GradeChange(grade=grade), selection="sampled",
                                 selection_probability=d.probability)

        def weights() -> tuple[list[tuple[int, float, float]], int, list]:
            pairs = [pair_from_row(r) for r in load_pairs(store, 1, choice) if r.machine is not None]
            drawn = weighted_draws(store, 1, pairs)
            return [(p.question_pk, w, pi) for p, w, pi in drawn.pairs], drawn.pending, sample_draws(store, 1)

        weighted, pending, draws = weights()
        on_judged = [d for d in draws if d.question_pk in judged]
        assert pending == len(draws) - len(on_judged) > 0  # drawn, but not a question the judge was asked about
        assert len(weighted) == 2 * len(on_judged)  # raw and bundled
        for pk, w, pi in weighted:
            assert pi == pytest.approx(2 / 3)
            assert any(w == pytest.approx(1 / (d.probability * 2 / 3)) for d in on_judged if d.question_pk == pk)
        sampled = agreement_report(store, 1, grader=choice).samples.sampled
        assert sampled.pairs == len(weighted)
        # the same pairs had the judge been asked about every question: the same Hajek point estimates (the judge's
        # probability is common to all), but every draw resampled on its own; with the judge's sample, the draws of
        # a question go together, and two questions are few: a much wider interval
        record_judge_sample(store, 1, "judge", "judge-m", 3, 3, None)
        unsampled = agreement_report(store, 1, grader=choice).samples.sampled
        share, alone = sampled.binary["percent_agreement"], unsampled.binary["percent_agreement"]
        assert share.value == alone.value == pytest.approx(0.5)
        assert share.high - share.low > 3 * (alone.high - alone.low)
    code, _, err = cli(capsys, *judge)  # the judge is asked about every question: each pair is the desk's draw alone
    assert code == 0, err
    with open_store(db) as store:
        weighted, pending, draws = weights()
        assert pending == 0 and len(weighted) == 2 * len(draws)
        for pk, w, pi in weighted:
            assert pi == 1 and any(w == pytest.approx(draw_weight(d)) for d in draws if d.question_pk == pk)
