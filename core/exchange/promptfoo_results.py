"""promptfoo results in and out: the file `promptfoo eval --output results.json` writes (results `version` 3).

In (`read_promptfoo`): each result (one test under one provider and prompt) becomes a TraceAnswer
(core/exchange/traces.py), stored like a trace: the test's `question` var (or `query`, `input`, `prompt`; else its vars
as `name: value` lines, else the rendered prompt) is the question, the `expected` var or else the value of the first
`equals` / `contains` / `icontains` / `starts-with` assertion the gold answer, the response's output the answer, and
each assertion's result (its componentResults) an imported machine grade named `promptfoo:<assertion type>` (pass:
fully correct, fail: wrong), with token usage, cost and latency kept. Each provider, or each prompt, is a side (both
when neither alone tells two apart), named as promptfoo names it (the provider's label or id, the prompt's label); the
two sides of a test are paired by its index. A result is keyed by the eval's id, the test's and the prompt column's
index; the run is found again by the eval's id, so importing again adds only new results. A result with an error and
no output is skipped with one line.

Out (`export_promptfoo`): a copy of the results file in which each person's current grade of a result is a human
grading result, as promptfoo's viewer stores a rating: a componentResults entry with assertion type `human`, pass
(fully correct), score (1, 0.5 partially correct, 0 otherwise) and the note as its reason, the result's pass, score
and `gradingResult.comment` set from the newest of them. `promptfoo import --force FILE` replaces the eval with it (its
id is kept), so a grade withdrawn at the desk is withdrawn there too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.exchange.traces import LogGrade, TraceAnswer, TraceRead
from gradedesk.core.grading.vocabulary import PASS_GRADE
from gradedesk.core.jsonl import loads, read_lines
from gradedesk.core.outputs import check_outputs, write_texts
from gradedesk.core.store.connection import Store
from gradedesk.core.store.grades import run_human_grades
from gradedesk.core.store.traces import run_spans

SOURCE = "promptfoo"
PAIR_BY = "test"
VERSIONS = (3,)  # the results versions read (promptfoo 0.1xx writes 3)
QUESTION_VARS = ("question", "query", "input", "prompt")
GOLD_ASSERTIONS = ("equals", "contains", "icontains", "starts-with")
HUMAN = "human"  # promptfoo's assertion type for a person's rating (its viewer's "manual result")
SCORE = {PASS_GRADE: 1.0, "partially_correct": 0.5}


def read_results(path: Path) -> dict[str, Any]:
    """The results file, checked for what gradedesk reads; one line (UserError) otherwise."""
    try:
        data = loads("\n".join(read_lines(path)))
    except ValueError as exc:
        raise UserError(f"{path}: not JSON ({exc})") from None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, dict) or not isinstance(results.get("results"), list):
        raise UserError(f"{path}: not a promptfoo results file (no results.results list; `promptfoo eval --output "
                        "FILE.json` writes one)")
    if results.get("version") not in VERSIONS:
        raise UserError(f"{path}: results version {results.get('version')!r}; gradedesk reads version "
                        + ", ".join(map(str, VERSIONS)))
    if not isinstance(data.get("evalId"), str):
        raise UserError(f"{path}: evalId: missing")
    return data


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _question(result: dict[str, Any]) -> str:
    variables = result.get("vars") or (result.get("testCase") or {}).get("vars") or {}
    named = next((variables[k] for k in QUESTION_VARS if variables.get(k) not in (None, "")), None)
    if named is not None:
        return _text(named)
    if variables:
        return "\n".join(f"{k}: {_text(v)}" for k, v in variables.items())
    return _text((result.get("prompt") or {}).get("raw") or "")


def _gold(test: dict[str, Any]) -> str | None:
    expected = (test.get("vars") or {}).get("expected")
    if expected not in (None, ""):
        return _text(expected)
    for a in test.get("assert") or []:
        if isinstance(a, dict) and a.get("type") in GOLD_ASSERTIONS and isinstance(a.get("value"), str):
            return a["value"]
    return None


def _grades(result: dict[str, Any]) -> tuple[LogGrade, ...]:
    graded = result.get("gradingResult") or {}
    parts = [c for c in graded.get("componentResults") or [] if isinstance(c, dict)]
    if not parts and "pass" in graded:
        parts = [{**graded, "assertion": {"type": "result"}}]
    return tuple(LogGrade(f"{SOURCE}:{(c.get('assertion') or {}).get('type', 'assertion')}",
                          PASS_GRADE if c.get("pass") else "wrong", c.get("reason") or None)
                 for c in parts if (c.get("assertion") or {}).get("type") != HUMAN)


def _side_names(results: list[dict[str, Any]]) -> dict[int, str]:
    """{prompt column index: its side's name}: the provider's, the prompt's, or both where neither alone tells the
    columns apart."""
    def provider(r: dict[str, Any]) -> str:
        p = r.get("provider") or {}
        return str(p.get("label") or p.get("id") or "provider")

    def prompt(r: dict[str, Any]) -> str:
        p = r.get("prompt") or {}
        return str(p.get("label") or p.get("raw") or "prompt")

    columns = {r.get("promptIdx", 0): r for r in results}
    for name in (provider, prompt):
        names = {c: name(r) for c, r in columns.items()}
        if len(set(names.values())) == len(names):
            return names
    return {c: f"{provider(r)} · {prompt(r)}" for c, r in columns.items()}


def read_promptfoo(path: Path) -> tuple[TraceRead, list[list[TraceAnswer]], list[str]]:
    """The results as the sides of a run: (what was read, each side's answers, lines about skipped results)."""
    data = read_results(path)
    results = [r for r in data["results"]["results"] if isinstance(r, dict)]
    names = _side_names(results)
    labels = tuple(dict.fromkeys(names[c] for c in sorted(names)))
    if len(labels) > 2:
        raise UserError(f"{path}: {len(labels)} providers or prompts ({', '.join(labels)}); two sides take two")
    description = str((data.get("config") or {}).get("description") or data["evalId"])
    sides: list[list[TraceAnswer]] = [[] for _ in labels]
    skipped = []
    for r in results:
        test = r.get("testCase") or {}
        where = f"{path}: test {r.get('testIdx')} prompt {r.get('promptIdx')}"
        output = (r.get("response") or {}).get("output")
        if output in (None, ""):
            skipped.append(f"{where}: no output" + (f" ({str(r['error']).splitlines()[0][:120]})"
                                                    if r.get("error") else "") + "; skipped")
            continue
        usage = (r.get("response") or {}).get("tokenUsage") or r.get("tokenUsage") or {}
        side = labels.index(names[r.get("promptIdx", 0)])
        sides[side].append(TraceAnswer(
            trace_id=f"{data['evalId']}/{r.get('testIdx')}/{r.get('promptIdx')}", span_id=str(r.get("id") or ""),
            project=description, question=_question(r), answer=_text(output), documents=(),
            time=str(data["results"].get("timestamp") or ""), model=(r.get("provider") or {}).get("id"),
            attributes={PAIR_BY: str(r.get("testIdx"))}, gold=_gold(test), grades=_grades(r),
            tokens_in=usage.get("prompt"), tokens_out=usage.get("completion"),
            cost_usd=r.get("cost") if isinstance(r.get("cost"), int | float) else None,
            latency_ms=r.get("latencyMs"), endpoint=str(path.resolve())))
    read = TraceRead(SOURCE, None, (description,), PAIR_BY, "side", labels, ids=(data["evalId"],))
    return read, sides, skipped


# out ------------------------------------------------------------------------------------------------------------------
@dataclass
class PromptfooExport:
    written: list[Path] = field(default_factory=list)
    ratings: int = 0  # human grading results written
    graded: int = 0  # results with a person's grade


def _rating(h: Any) -> dict[str, Any]:
    """A person's grade as promptfoo stores a human rating (a componentResults entry of assertion type human)."""
    passed = h.grade == PASS_GRADE
    return {"pass": passed, "score": SCORE.get(h.grade, 0.0), "reason": h.note or f"graded {h.grade} at gradedesk",
            "comment": h.note or "", "assertion": {"type": HUMAN, "value": h.grade},
            "metadata": {"tool": "gradedesk", "grader": h.grader, "grade": h.grade, "failure_label": h.failure_label,
                         "mode": h.mode, "graded_at": h.created_at}}


def export_promptfoo(store: Store, run_id: int, out: Path) -> PromptfooExport:
    """People's current grades of the run as human grading results in a copy of the results file it came from."""
    spans = {a: t for a, t in run_spans(store, run_id).items() if t.source == SOURCE and t.endpoint}
    if not spans:
        raise UserError(f"run {run_id}: its answers did not come from a promptfoo results file "
                        "(gradedesk import-promptfoo)")
    files = sorted({t.endpoint for t in spans.values() if t.endpoint})
    check_outputs({"--out": out}, store=store.path, reads=files)
    data = read_results(Path(files[0]))
    by_id = {str(r.get("id")): r for r in data["results"]["results"] if isinstance(r, dict)}
    people: dict[int, list[Any]] = {}
    for ref, h in run_human_grades(store, run_id):
        if ref.answer_id in spans:
            people.setdefault(ref.answer_id, []).append(h)
    report = PromptfooExport(graded=len(people))
    for answer_id, grades in people.items():
        t = spans[answer_id]
        result = by_id.get(t.span_id)
        if result is None or not t.trace_id.startswith(f"{data['evalId']}/"):
            raise UserError(f"{files[0]}: result {t.span_id} of eval {t.trace_id.split('/')[0]} is gone from the "
                            "file; nothing written")
        grades.sort(key=lambda g: g.created_at)
        graded = dict(result.get("gradingResult") or {})
        ratings = [_rating(h) for h in grades]
        parts = [c for c in graded.get("componentResults") or [] if (c.get("assertion") or {}).get("type") != HUMAN]
        newest = ratings[-1]
        graded.update(componentResults=parts + ratings, comment="\n".join(
            f"{h.grader}: {h.note}" for h in grades if h.note), **{k: newest[k] for k in ("pass", "score", "reason")})
        result.update(gradingResult=graded, success=newest["pass"], score=newest["score"])
        report.ratings += len(ratings)
    write_texts([(str(out), json.dumps(data, ensure_ascii=False, indent=2) + "\n")])
    report.written.append(out)
    return report

