"""Run summaries and run comparisons, as plain data (the CLI prints tables or JSON from it).

A summary covers one run: answers, tokens and cost per method (raw, bundle@<budget>); grades per grader and method, and
per category; failure labels; retrieval metrics; faithfulness and relevance per scorer; claims, invalid citations and
people's faithfulness from their claim marks; what grading cost against what answering cost; judge consistency across
repeats; and warnings (self-evaluation, grading errors, failed answers, claims not computed, answers truncated at
max_tokens, grades made against a gold answer that has been corrected since).

Conventions: every grader is named as what it is (an LLM judge with its model and rubric version, the rule grader, an
imported grade); only the judge's first repeat counts in grade tables (the others feed consistency); grading errors are
their own column, never folded into a grade, and pass rates are over usable grades; a mean is None when nothing could
be measured, and the count of unlabelled or undefined values is given beside it.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict

from gradedesk.core.store.runs import resolve_run
from gradedesk.core.errors import UserError
from gradedesk.core.grading.retrieval_evals import METRICS as RETRIEVAL_METRICS
from gradedesk.core.grading.retrieval_evals import method_label
from gradedesk.core.store.machine_grades import run_scores
from gradedesk.core.grading.vocabulary import GRADES, GRADING_ERROR, PASS_GRADE
from gradedesk.core.grading.claim_figures import claim_summary
from gradedesk.core.grading.judge import judge_consistency
from gradedesk.core.grading.scorers import SCORE_METRICS
from gradedesk.core.providers import TRUNCATED
from gradedesk.core.store.connection import Store
from gradedesk.core.store.gold import stale_grade_counts


def _method_order(label: str) -> tuple[int, int]:
    return (0, 0) if label == "raw" else (1, int(label.split("@", 1)[1]))


def grader_label(kind: str, model: str | None, rubric: str | None) -> str:
    if kind == "judge":
        return f"judge {model}" + (f" ({rubric})" if rubric else "")
    if kind == "rule":
        return f"rule grader {model}"
    return f"{kind} {model}" if model else kind


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _run_row(store: Store, run_id: int) -> dict:
    row = store.query("SELECT * FROM runs WHERE id = ?", (run_id,))
    if not row:
        raise UserError(f"run {run_id}: no such run (see `gradedesk runs`)")
    return row[0]


def _grade_rows(store: Store, run_id: int) -> list[dict]:
    """Machine grades of a run (judge: first repeat only) with question and method."""
    return store.query(
        "SELECT g.grader_kind, g.grader_model, g.rubric_version, g.grade, g.failure_label, g.answer_id, "
        "a.method, a.budget, q.question_id, q.category FROM auto_grades g JOIN answers a ON a.id = g.answer_id "
        "JOIN questions q ON q.id = a.question_pk WHERE a.run_id = ? AND g.repeat_index = 0", (run_id,))


def _counts(rows: list[dict]) -> dict:
    c = Counter(GRADING_ERROR if r["failure_label"] == GRADING_ERROR else r["grade"] for r in rows)
    usable = len(rows) - c[GRADING_ERROR]
    return {"n": len(rows), **{g: c[g] for g in GRADES}, GRADING_ERROR: c[GRADING_ERROR],
            "pass_rate": c[PASS_GRADE] / usable if usable else None}


def _grader_key(r: dict) -> tuple:
    return (r["grader_kind"], r["grader_model"], r["rubric_version"])


def _answers(store: Store, run_id: int) -> list[dict]:
    return store.query("SELECT method, budget, status, tokens_in, tokens_out, cost_usd, latency_ms, tokens_counted, "
                       "finish_reason FROM answers WHERE run_id = ?", (run_id,))


def _answer_table(answers: list[dict]) -> list[dict]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for a in answers:
        groups[method_label(a["method"], a["budget"])].append(a)
    out = []
    for label in sorted(groups, key=_method_order):
        rows = groups[label]
        ok = [a for a in rows if a["status"] == "ok"]
        costs = [a["cost_usd"] for a in ok if a["cost_usd"] is not None]
        out.append({
            "method": label, "answers": len(rows), "ok": len(ok),
            "error": sum(a["status"] == "error" for a in rows), "pending": sum(a["status"] == "pending" for a in rows),
            "truncated": sum(a["finish_reason"] == TRUNCATED for a in ok),
            "tokens_in": sum(a["tokens_in"] or 0 for a in ok), "tokens_out": sum(a["tokens_out"] or 0 for a in ok),
            "mean_tokens_in": _mean([a["tokens_in"] for a in ok if a["tokens_in"] is not None]),
            "cost_usd": sum(costs) if costs else None, "unpriced": len(ok) - len(costs),
            "mean_latency_ms": _mean([a["latency_ms"] for a in ok if a["latency_ms"] is not None]),
        })
    return out


def _score_table(store: Store, run_id: int, metrics: tuple[str, ...]) -> list[dict]:
    """Mean of each metric per answer method and scorer method; unlabelled / undefined / errors counted apart."""
    rows = run_scores(store, run_id, metrics)
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[(method_label(r["answer_method"], r["budget"]), r["method"], r["metric"])].append(r)
    out = []
    for (label, scorer, metric), rs in sorted(groups.items(), key=lambda kv: (_method_order(kv[0][0]), kv[0][1],
                                                                              metrics.index(kv[0][2]))):
        details = [json.loads(r["detail"] or "{}") for r in rs]
        values = [r["value"] for r in rs if r["value"] is not None]
        out.append({"method": label, "scorer": scorer, "metric": metric, "mean": _mean(values), "n": len(values),
                    "unlabelled": sum(bool(d.get("unlabelled")) for d in details),
                    "errors": sum(bool(d.get("error")) for d in details),
                    "undefined": sum(r["value"] is None and not d.get("unlabelled") and not d.get("error")
                                     for r, d in zip(rs, details))})
    return out


def _grading_cost(store: Store, run_id: int) -> dict:
    judge = store.query(
        "SELECT coalesce(sum(g.tokens_in), 0) AS tokens_in, coalesce(sum(g.tokens_out), 0) AS tokens_out, "
        "sum(g.cost_usd) AS cost_usd, count(*) AS calls FROM auto_grades g JOIN answers a ON a.id = g.answer_id "
        "WHERE a.run_id = ? AND g.grader_kind = 'judge'", (run_id,))[0]
    scores = store.query("SELECT s.detail FROM answer_scores s JOIN answers a ON a.id = s.answer_id "
                         "WHERE a.run_id = ? AND s.method LIKE 'llm:%'", (run_id,))
    details = [json.loads(r["detail"] or "{}") for r in scores]
    costs = [d["cost_usd"] for d in details if d.get("cost_usd") is not None]
    llm_scores = {"tokens_in": sum(d.get("tokens_in") or 0 for d in details),
                  "tokens_out": sum(d.get("tokens_out") or 0 for d in details),
                  "cost_usd": sum(costs) if costs else None, "calls": len(details)}
    total = None if judge["cost_usd"] is None and llm_scores["cost_usd"] is None else \
        (judge["cost_usd"] or 0.0) + (llm_scores["cost_usd"] or 0.0)
    return {"judge": judge, "llm_scores": llm_scores, "cost_usd": total,
            "tokens": judge["tokens_in"] + judge["tokens_out"] + llm_scores["tokens_in"] + llm_scores["tokens_out"]}


def summarize(store: Store, run: str | int) -> dict:
    run_id = resolve_run(store, str(run))
    info = _run_row(store, run_id)
    answers = _answers(store, run_id)
    answer_table = _answer_table(answers)
    answered = {a["method"]: a["ok"] for a in answer_table}
    grades = _grade_rows(store, run_id)
    by_grader: dict[tuple, list[dict]] = defaultdict(list)
    for r in grades:
        by_grader[_grader_key(r)].append(r)
    graders, grade_table, category_table, label_table = [], [], [], []
    for key in sorted(by_grader, key=lambda k: ({"judge": 0, "imported": 1}.get(k[0], 2), str(k[1]), str(k[2]))):
        kind, model, rubric = key
        name = grader_label(kind, model, rubric)
        rows = by_grader[key]
        graders.append({"grader": name, "kind": kind, "model": model, "rubric_version": rubric,
                        "self_evaluation": kind == "judge" and bool(info["model"]) and model == info["model"]})
        per_method: dict[str, list[dict]] = defaultdict(list)
        per_cat: dict[tuple, list[dict]] = defaultdict(list)
        for r in rows:
            label = method_label(r["method"], r["budget"])
            per_method[label].append(r)
            per_cat[(r["category"], label)].append(r)
            if r["failure_label"]:
                label_table.append((name, label, r["failure_label"]))
        for label in sorted(per_method, key=_method_order):
            counts = _counts(per_method[label])
            grade_table.append({"grader": name, "method": label, **counts,
                                "ungraded": max(0, answered.get(label, 0) - counts["n"])})
        for (cat, label) in sorted(per_cat, key=lambda k: (k[0], _method_order(k[1]))):
            category_table.append({"grader": name, "category": cat, "method": label, **_counts(per_cat[(cat, label)])})
    labels = Counter(label_table)
    failure_table = [{"grader": g, "method": m, "failure_label": lab, "n": n}
                     for (g, m, lab), n in sorted(labels.items(), key=lambda kv: (kv[0][0], _method_order(kv[0][1]),
                                                                                   -kv[1], kv[0][2]))]
    answering_costs = [a["cost_usd"] for a in answer_table if a["cost_usd"] is not None]
    answering = {"tokens": sum(a["tokens_in"] + a["tokens_out"] for a in answer_table),
                 "cost_usd": sum(answering_costs) if answering_costs else None}
    grading = _grading_cost(store, run_id)
    consistency = judge_consistency(store, run_id)
    stale = stale_grade_counts(store, run_id)
    warnings = _warnings(info, graders, grade_table, answer_table, consistency, stale)
    claims = claim_summary(store, run_id)
    missing = sum(c["not_computed"] for c in claims)
    if missing:
        warnings.append(f"the claims of {missing} answer(s) are not computed yet: `gradedesk grade-offline {run_id}` "
                        "computes them (the desk does too, answer by answer)")
    return {
        "run": {k: info[k] for k in ("id", "created_at", "source", "label", "provider", "model", "endpoint_host",
                                     "benchmark", "primary_budget")},
        "answers": answer_table, "graders": graders, "grades": grade_table, "by_category": category_table,
        "failure_labels": failure_table, "retrieval": _score_table(store, run_id, RETRIEVAL_METRICS),
        "answer_scores": _score_table(store, run_id, SCORE_METRICS), "claims": claims,
        "cost": {"answering": answering, "grading": grading,
                 "grading_to_answering": (grading["cost_usd"] / answering["cost_usd"])
                 if grading["cost_usd"] is not None and answering["cost_usd"] else None},
        "consistency": consistency if consistency["answers_repeated"] else None,
        "stale_grades": stale,
        "warnings": warnings,
    }


def _warnings(info: dict, graders: list[dict], grade_table: list[dict], answer_table: list[dict],
              consistency: dict, stale: dict[str, int]) -> list[str]:
    out = []
    for g in graders:
        if g["self_evaluation"]:
            out.append(f"the judge model {g['model']} also wrote the answers: self-evaluation bias; "
                       f"prefer a different judge model")
    for g in graders:
        if g["kind"] == "rule":
            out.append(f"{g['grader']} is an offline rule grader (key terms, rapidfuzz), not an LLM judge")
    errors = sum(r[GRADING_ERROR] for r in grade_table)
    if errors:
        out.append(f"{errors} grade(s) are grading errors (unusable judge replies or failed calls); "
                   f"`gradedesk judge` again retries the failed calls, unusable replies are kept as they are")
    failed = sum(a["error"] for a in answer_table)
    if failed:
        out.append(f"{failed} answer(s) failed and are not graded; run the same `gradedesk run` again to retry")
    truncated = sum(a["truncated"] for a in answer_table)
    if truncated:
        out.append(f"{truncated} answer(s) were truncated: cut at the run's max_tokens (finish_reason length)")
    if stale:
        out.append(f"{sum(stale.values())} machine grade(s) were made against a gold answer that has been corrected "
                   f"since ({', '.join(f'{kind}: {n}' for kind, n in sorted(stale.items()))}); "
                   f"`gradedesk grade-offline` and `gradedesk judge` grade them again")
    if consistency["changed"]:
        out.append(f"the judge changed its grade on {len(consistency['changed'])} of "
                   f"{consistency['answers_repeated']} repeated answer(s)")
    return out


# compare ----------------------------------------------------------------------------------------------------------------
def _pick_grader(store: Store, a: int, b: int, grader: str | None) -> tuple:
    """The grader both runs were graded by: the one named, else a judge, else an imported grader, else rules."""
    keys = {}
    for run_id in (a, b):
        keys[run_id] = Counter(_grader_key(r) for r in _grade_rows(store, run_id))
    common = [k for k in keys[a] if k in keys[b]]
    if grader:
        common = [k for k in common if grader in (k[1], k[0], grader_label(*k))]
    if not common:
        what = f" by {grader!r}" if grader else ""
        raise UserError(f"runs {a} and {b} have no grader in common{what}: grade both the same way "
                        f"(`gradedesk judge RUN --model M` or `gradedesk grade-offline RUN`)")
    rank = {"judge": 0, "imported": 1, "rule": 2}
    return min(common, key=lambda k: (rank.get(k[0], 3), -(keys[a][k] + keys[b][k])))


def compare(store: Store, run_a: str | int, run_b: str | int, grader: str | None = None) -> dict:
    """What changed from run A to run B, matched by (question id, method, budget), per category and per question."""
    a, b = resolve_run(store, str(run_a)), resolve_run(store, str(run_b))
    _run_row(store, a), _run_row(store, b)
    key = _pick_grader(store, a, b, grader)
    grades = {}
    for run_id in (a, b):
        grades[run_id] = {(r["question_id"], method_label(r["method"], r["budget"])): r
                          for r in _grade_rows(store, run_id) if _grader_key(r) == key}
    matched = sorted(set(grades[a]) & set(grades[b]), key=lambda k: (k[0], _method_order(k[1])))

    def outcome(r: dict) -> str:
        return GRADING_ERROR if r["failure_label"] == GRADING_ERROR else r["grade"]

    per_cat: dict[tuple, tuple[list, list]] = defaultdict(lambda: ([], []))
    questions = []
    for k in matched:
        ra, rb = grades[a][k], grades[b][k]
        per_cat[(rb["category"], k[1])][0].append(ra)
        per_cat[(rb["category"], k[1])][1].append(rb)
        ga, gb = outcome(ra), outcome(rb)
        if ga != gb:
            direction = "changed"
            if GRADING_ERROR not in (ga, gb):
                direction = "better" if GRADES.index(gb) < GRADES.index(ga) else "worse"
            questions.append({"question_id": k[0], "category": rb["category"], "method": k[1], "grade_a": ga,
                              "grade_b": gb, "direction": direction})
    categories = []
    for (cat, label) in sorted(per_cat, key=lambda k: (k[0], _method_order(k[1]))):
        ca, cb = _counts(per_cat[(cat, label)][0]), _counts(per_cat[(cat, label)][1])
        delta = None if ca["pass_rate"] is None or cb["pass_rate"] is None else cb["pass_rate"] - ca["pass_rate"]
        categories.append({"category": cat, "method": label, "n": ca["n"], "pass_rate_a": ca["pass_rate"],
                           "pass_rate_b": cb["pass_rate"], "delta": delta})
    return {
        "run_a": a, "run_b": b, "grader": grader_label(*key), "matched": len(matched),
        "methods": _method_deltas(store, a, b, grades),
        "only_in_a": len(set(grades[a]) - set(grades[b])), "only_in_b": len(set(grades[b]) - set(grades[a])),
        "categories": categories, "changed": questions,
        "better": sum(q["direction"] == "better" for q in questions),
        "worse": sum(q["direction"] == "worse" for q in questions),
    }


def _method_deltas(store: Store, a: int, b: int, grades: dict[int, dict]) -> list[dict]:
    """Per method: pass rate, mean context precision and mean input tokens in A and in B."""
    sides = {}
    for run_id in (a, b):
        per_method: dict[str, list[dict]] = defaultdict(list)
        for (_, label), r in grades[run_id].items():
            per_method[label].append(r)
        precision = {x["method"]: x["mean"] for x in _score_table(store, run_id, ("context_precision",))}
        tokens = {x["method"]: x["mean_tokens_in"] for x in _answer_table(_answers(store, run_id))}
        sides[run_id] = {label: {"pass_rate": _counts(per_method[label])["pass_rate"] if label in per_method else None,
                                 "context_precision": precision.get(label), "mean_tokens_in": tokens.get(label)}
                         for label in set(per_method) | set(precision) | set(tokens)}
    out = []
    for label in sorted(set(sides[a]) | set(sides[b]), key=_method_order):
        row = {"method": label}
        for field_name in ("pass_rate", "context_precision", "mean_tokens_in"):
            va, vb = sides[a].get(label, {}).get(field_name), sides[b].get(label, {}).get(field_name)
            row.update({f"{field_name}_a": va, f"{field_name}_b": vb})
        out.append(row)
    return out
