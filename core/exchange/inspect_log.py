"""Inspect AI eval logs in and out, through inspect-ai's own API (the `inspect` extra): its maintainers call the log
format versioned but not frozen, and recommend `read_eval_log`, `write_eval_log` and `edit_score` over parsing files.

In (`read_inspect`): each sample of a log becomes a TraceAnswer (core/exchange/traces.py), stored like a trace: the
input (text, or its last user message) is the question, the target the gold answer, the output's completion the
answer, and each scorer's score whose value reads as a grade (C, P, I, N; true or false; a number from 0 to 1) an
imported machine grade named `inspect:<scorer>`; its token usage is kept. A sample is keyed by the eval's id, its id and
its epoch (the answer's trace id), and stored under the question `sample=<id>` (`sample=<id> epoch <n>` when the eval
ran more than one epoch: a repeat of the same side, kept as its own item). Sides: two logs are sides A and B; one log
whose samples were answered by two models is split by model; the desk titles each side by its model (or task, or file,
when those are the same). The run is found again by the evals' ids, so importing again adds only new samples and says
how many imported ones the log now holds otherwise.

Out (`export_inspect`): a copy of the log each answer came from (never the original) in which every person's current
grade of a sample is a score edit (`edit_score`) of each of its pass/fail scores (a new `gradedesk` score where it has
none): the value in the score's own kind (C/P/I, 1/0.5/0, true/false), the note as the explanation, and provenance
author the person, reason the note (or the grade), metadata gradedesk's grade, failure label, mode and run. The copy
is made from the original each time, so a grade withdrawn at the desk is in no later export.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.exchange.extras import need
from gradedesk.core.exchange.traces import LogGrade, TraceAnswer, TraceRead
from gradedesk.core.grading.vocabulary import PASS_GRADE
from gradedesk.core.outputs import check_outputs
from gradedesk.core.store.connection import Store
from gradedesk.core.store.grades import run_human_grades
from gradedesk.core.store.run_records import run_row
from gradedesk.core.store.traces import run_spans

SOURCE = "inspect"
PAIR_BY = "sample"
NEW_SCORE = "gradedesk"  # the score a person's grade becomes on a sample that has no pass/fail score
LETTERS = {"C": "fully_correct", "P": "partially_correct", "I": "wrong", "N": "unsupported"}  # inspect_ai.scorer's


def _log_api(what: str) -> Any:
    return need("inspect_ai.log", "inspect", what)


def read_log(path: Path, what: str = "import-inspect") -> Any:
    """An Inspect log read through inspect-ai; one line (UserError) for a file it cannot read."""
    api = _log_api(what)
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    try:
        return api.read_eval_log(str(path))
    except Exception as exc:  # inspect-ai raises many kinds for a file that is not its log: each is one line
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        raise UserError(f"{path}: not an Inspect log inspect-ai can read ({type(exc).__name__}: {first})") from None


def score_grade(value: Any) -> str | None:
    """A score's value as one of the four grades; None for a value that is not a pass/fail (a dict, a list, text)."""
    if isinstance(value, bool):
        return PASS_GRADE if value else "wrong"
    if isinstance(value, int | float):
        if not 0 <= value <= 1:
            return None
        return PASS_GRADE if value == 1 else "wrong" if value == 0 else "partially_correct"
    return LETTERS.get(value) if isinstance(value, str) else None


def _text(value: Any) -> str:
    """A sample's input as text: itself, or its last user message's text."""
    if isinstance(value, str):
        return value
    said = [m.text for m in value or [] if getattr(m, "role", None) == "user" and m.text]
    return said[-1] if said else ""


def _gold(target: Any) -> str | None:
    gold = target if isinstance(target, str) else "\n".join(str(t) for t in target or [])
    return gold if gold.strip() else None


def _time(value: Any) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else (str(value) if value else None)


@dataclass
class InspectLog:
    """One log as read: where, its eval, and its samples as answers (or the lines saying why one was skipped)."""

    path: Path
    eval_id: str
    task: str
    model: str
    answers: list[TraceAnswer] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _sample_answer(path: Path, log: Any, sample: Any, epochs: bool) -> TraceAnswer | str:
    where = f"{path}: sample {sample.id} epoch {sample.epoch}"
    output = sample.output
    answer = output.completion if output is not None else ""
    if not answer.strip():
        return f"{where}: no output" + (f" ({sample.error.message.splitlines()[0][:120]})" if sample.error else "")
    grades = tuple(LogGrade(f"{SOURCE}:{name}", grade, score.explanation)
                   for name, score in (sample.scores or {}).items()
                   if (grade := score_grade(score.value)) is not None)
    usage = output.usage
    return TraceAnswer(
        trace_id=f"{log.eval.eval_id}/{sample.id}/{sample.epoch}", span_id=str(sample.uuid or sample.id),
        project=log.eval.task, question=_text(sample.input), answer=answer, documents=(),
        time=_time(sample.completed_at) or _time(log.eval.created) or "", model=output.model or log.eval.model,
        attributes={PAIR_BY: f"{sample.id}" + (f" epoch {sample.epoch}" if epochs else "")},
        gold=_gold(sample.target), grades=grades,
        tokens_in=usage.input_tokens if usage else None, tokens_out=usage.output_tokens if usage else None,
        latency_ms=output.time * 1000 if output.time is not None else None, endpoint=str(path.resolve()))


def read_log_answers(path: Path) -> InspectLog:
    log = read_log(path)
    read = InspectLog(path, log.eval.eval_id, log.eval.task, log.eval.model)
    samples = log.samples or []
    if not samples:
        raise UserError(f"{path}: the log holds no samples (status {log.status})")
    epochs = max(s.epoch for s in samples) > 1
    for sample in samples:
        answer = _sample_answer(path, log, sample, epochs)
        if isinstance(answer, str):
            read.skipped.append(answer + "; skipped")
        else:
            read.answers.append(answer)
    return read


def _distinct(*candidates: tuple[str, ...]) -> tuple[str, ...]:
    """The first of the candidate label pairs whose labels differ."""
    return next((c for c in candidates if len(set(c)) == len(c)), candidates[-1])


def read_inspect(paths: list[Path]) -> tuple[TraceRead, list[list[TraceAnswer]], list[str]]:
    """One or two logs as the sides of a run: (what was read, each side's answers, lines about skipped samples)."""
    if len(paths) == 2 and paths[0].resolve() == paths[1].resolve():
        raise UserError(f"{paths[1]}: the same log as side A")
    logs = [read_log_answers(p) for p in paths]
    skipped = [line for log in logs for line in log.skipped]
    if len(logs) == 2:
        labels = _distinct(tuple(log.model for log in logs), tuple(log.task for log in logs),
                           tuple(str(log.path) for log in logs))
        sides = [log.answers for log in logs]
    else:
        models = sorted({a.model or logs[0].model for a in logs[0].answers})
        if len(models) > 2:
            raise UserError(f"{paths[0]}: answered by {len(models)} models ({', '.join(models)}); two sides take two")
        labels = tuple(models)
        sides = [[a for a in logs[0].answers if (a.model or logs[0].model) == m] for m in models]
    read = TraceRead(SOURCE, None, tuple(dict.fromkeys(log.task for log in logs)), PAIR_BY, "model", labels,
                     ids=tuple(log.eval_id for log in logs))
    return read, sides, skipped


# out ------------------------------------------------------------------------------------------------------------------
def _edit_value(grade: str, original: Any) -> Any:
    """A person's grade in the kind of value the score holds."""
    if isinstance(original, bool):
        return grade == PASS_GRADE
    if isinstance(original, int | float):
        return {PASS_GRADE: 1.0, "partially_correct": 0.5}.get(grade, 0.0)
    return {PASS_GRADE: "C", "partially_correct": "P"}.get(grade, "I")


@dataclass
class InspectExport:
    written: list[Path] = field(default_factory=list)
    edits: int = 0  # score edits written
    graded: int = 0  # samples with a person's grade


def _out_paths(out: Path, logs: list[str], labels: dict[str, str]) -> dict[str, Path]:
    """Where each source log's copy goes: `out`, or with two logs `out` with each side's label before the suffix."""
    if len(logs) == 1:
        return {logs[0]: out}
    safe = {log: "".join(c if c.isalnum() or c in "-_." else "-" for c in labels[log]) for log in logs}
    return {log: out.with_name(f"{out.stem}.{safe[log]}{out.suffix}") for log in logs}


def export_inspect(store: Store, run_id: int, out: Path) -> InspectExport:
    """People's current grades of the run as score edits in copies of the logs its answers came from."""
    api = _log_api("export-scores --format inspect")
    scorer = need("inspect_ai.scorer", "inspect", "export-scores --format inspect")
    spans = {a: t for a, t in run_spans(store, run_id).items() if t.source == SOURCE and t.endpoint}
    if not spans:
        raise UserError(f"run {run_id}: its answers did not come from an Inspect log (gradedesk import-inspect)")
    logs = sorted({t.endpoint for t in spans.values() if t.endpoint})
    targets = _out_paths(out, logs, {t.endpoint: t.side for t in spans.values() if t.endpoint})
    # a copy is never the log it comes from, the store, or the other copy
    check_outputs({f"--out ({t.side})" if len(targets) > 1 else "--out": targets[t.endpoint] for t in spans.values()
                   if t.endpoint}, store=store.path, reads=logs)
    grades: dict[int, list[Any]] = {}
    for ref, h in run_human_grades(store, run_id):
        if ref.answer_id in spans:
            grades.setdefault(ref.answer_id, []).append(h)
    report = InspectExport(graded=len(grades))
    config = run_row(store, run_id)
    written: list[tuple[Path, Any]] = []
    for log_path, target in targets.items():
        log = read_log(Path(log_path), "export-scores --format inspect")
        samples = {(str(s.id), s.epoch): s for s in log.samples or []}
        edited = False
        for answer_id, people in grades.items():
            t = spans[answer_id]
            if t.endpoint != log_path:
                continue
            eval_id, sample_id, epoch = t.trace_id.rsplit("/", 2)
            if eval_id != log.eval.eval_id:
                raise UserError(f"{log_path}: eval {log.eval.eval_id}, not eval {eval_id} that run {run_id} was "
                                "imported from; nothing written")
            sample = samples.get((sample_id, int(epoch)))
            if sample is None:
                raise UserError(f"{log_path}: sample {sample_id} epoch {epoch} is gone from the log; nothing written")
            names = [n for n, s in (sample.scores or {}).items() if score_grade(s.value) is not None] or [NEW_SCORE]
            scored = sample.scores or {}
            originals = {n: scored[n].value if n in scored else "I" for n in names}  # a new score: C/P/I
            for h in sorted(people, key=lambda g: g.created_at):
                for name in names:
                    original = originals[name]
                    edit = scorer.ScoreEdit(
                        value=_edit_value(h.grade, original),
                        explanation=h.note if h.note else "UNCHANGED",
                        provenance=api.ProvenanceData(
                            timestamp=datetime.fromisoformat(h.created_at), author=h.grader,
                            reason=h.note or f"graded {h.grade} at gradedesk",
                            metadata={"tool": "gradedesk", "grade": h.grade, "failure_label": h.failure_label,
                                      "mode": h.mode, "judge_visible": bool(h.judge_visible), "run": run_id,
                                      "run_label": config.label}))
                    api.edit_score(log, sample.id, name, edit, recompute_metrics=False, epoch=sample.epoch)
                    report.edits += 1
                    edited = True
        if edited:
            api.recompute_metrics(log)
        written.append((target, log))
    for target, log in written:  # every copy made before any is written: a bad log leaves nothing behind
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".gradedesk-", suffix=target.suffix or ".eval", dir=target.parent)
        os.close(fd)
        try:
            api.write_eval_log(log, tmp)
            os.replace(tmp, target)
        finally:
            Path(tmp).unlink(missing_ok=True)
        report.written.append(target)
    return report
