"""`gradedesk summary` on a real store: once people graded items the desk drew, it prints the prediction-powered pass
rates `agree` prints, each with its lambda and what the machine grades bought it, and --json carries the same."""

from __future__ import annotations

import json

from gradedesk.core.store.connection import open_store
from tests.fixtures.agreement import build_sampling_run, grade_sampled
from tests.fixtures.cli import cli


def _store(path, draws: int) -> int:
    with open_store(path) as store:
        run, answers = build_sampling_run(store)
        if draws:
            grade_sampled(store, run, answers, "carol", draws)
    return run


def test_summary_prints_each_prediction_powered_figure_with_its_lambda_and_what_the_judge_bought(tmp_path, capsys):
    path = tmp_path / "store.db"
    run = _store(path, 10)
    code, out, _ = cli(capsys, "summary", "--store", path, run, "--json")
    assert code == 0
    rates = json.loads(out)["prediction_powered"]
    code, out, _ = cli(capsys, "agree", "--store", path, run, "--json")
    samples = json.loads(out)["samples"]
    assert rates == [*samples["pass_rates"], samples["bundle_minus_raw"]]  # agree's figures, the same bootstrap
    assert [(r["method"], r["budget"]) for r in rates] == [("raw", None), ("bundle", 2000), ("bundle - raw", 2000)]
    code, out, _ = cli(capsys, "summary", "--store", path, run)
    section = out.split("== prediction-powered pass rates", 1)[1].split("\n== ", 1)[0]
    for r, label in zip(rates, ("raw ", "bundle @ 2000 ", "bundle - raw @ 2000 ")):
        [row] = [line for line in section.splitlines() if line.startswith(label)]
        assert f"{r['judge_bought']['lam']:.2f}" in row and row.endswith(r["judge_bought"]["line"])


def test_without_a_sampled_grade_summary_leaves_the_section_out_and_json_says_why(tmp_path, capsys):
    path = tmp_path / "store.db"
    run = _store(path, 0)
    code, out, _ = cli(capsys, "summary", "--store", path, run)
    assert code == 0 and "prediction-powered" not in out
    code, out, _ = cli(capsys, "summary", "--store", path, run, "--json")
    rates = json.loads(out)["prediction_powered"]
    assert rates and all(r["ppi"]["value"] is None and r["ppi"]["reason"] for r in rates)
