"""Run logs made elsewhere in: the good lines of a log (core/exchange/runlog_shapes.py) stored as a new run.

Grades come with a log from whoever made them (GradedBy): a person's (the lesson's hand-filled comparison grades)
become human_grades events under --grader (default: the file's name); a judge's (a graded harness log names its
judge_model) become auto_grades of kind 'judge' under that model, with their confidence; grades of an unnamed grader
become auto_grades of kind 'imported' named `import:<file name>`. `grades_from` says who made them instead. Human grades
in a gradedesk run log's `grades` keep their grader and uuid, so importing twice adds nothing. A harness log's
retrieval grader metrics are stored as scores of the answer. Every bad line is reported as file:line: field: problem
and nothing is stored, unless skip_invalid, which stores the good lines and reports what it skipped. Questions go under
the line's `benchmark`, else a benchmark named after the file.
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gradedesk.core.errors import InputError, UserError
from gradedesk.core.evidence.bundle import EvidenceBundle, EvidenceSnippet
from gradedesk.core.evidence.stored import count_only_evidence, save_bundle
from gradedesk.core.exchange.runlog_export import HUMAN_FIELDS
from gradedesk.core.exchange.runlog_fields import GradedBy, LogAnswer, LogLine
from gradedesk.core.exchange.runlog_shapes import parse_runlog
from gradedesk.core.jsonl import read_lines
from gradedesk.core.store.answers import NewAnswer, add_answer
from gradedesk.core.store.connection import Store, utc_now
from gradedesk.core.store.grades import HumanGrade, add_imported_human_grade
from gradedesk.core.store.machine_grades import AutoGrade, Score, add_machine_grade, store_scores
from gradedesk.core.store.questions import QuestionRow, add_question, question_pk
from gradedesk.core.store.rubrics import stored_text
from gradedesk.core.store.run_records import NewRun, add_run, run_by_key
from gradedesk.core.text.hashing import content_hash
from gradedesk.core.config import DEFAULT_ENCODING
from gradedesk.core.text.tokens import get_tokenizer

IMPORTED_PROVIDER = "imported"


@dataclass
class ImportReport:
    run_id: int
    file: str
    lines: int
    answers: int
    grades: int
    human_grades: int
    skipped: list[str]
    already_imported: bool = False
    shapes: dict[str, int] = field(default_factory=dict)  # how many lines of each shape
    metrics: int = 0  # retrieval metrics stored

    def to_dict(self) -> dict:
        return self.__dict__.copy()


@dataclass(frozen=True)
class _Names:
    """How this import names the graders a log leaves unnamed."""
    person: str  # --grader, or the file's name
    imported: str  # import:<file name>
    key: str  # the file's key: deterministic uuids for the people's grades it brings


def _question_pk(store: Store, benchmark: str, line: LogLine, now: str) -> int:
    """The stored question, or a new one; an existing question's gold answer and labels are kept."""
    pk = question_pk(store, benchmark, line.question_id)
    if pk is not None:
        return pk
    return add_question(store, QuestionRow(benchmark, line.question_id, line.question, line.category,
                                           line.gold_answer), now)


def _imported_bundle(line: LogLine, a: LogAnswer) -> EvidenceBundle:
    """A bundle row for an imported bundled answer, so graders and the desk read it like one made here."""
    tok = get_tokenizer(DEFAULT_ENCODING)
    snippets = [EvidenceSnippet(c["chunk_id"], content_hash(c["text"]), c["text"], tok.count(c["text"]),
                                c["file_path"], c["start_line"], c["end_line"], c["symbol_name"],
                                c["retrieval_method"], c["relevance_score"], c["retrieval_rank"],
                                c.get("selection_reason"), c.get("evidence_role"))
                for c in a.chunks]
    bundle = EvidenceBundle(line.question, "general", snippets, 0, 0, [], a.bundle_coverage,
                            compiler_version="imported", tokenizer=tok.id)
    counted = tok.count(bundle.to_prompt_context())
    bundle.total_tokens = a.bundle_tokens if a.bundle_tokens is not None else counted
    bundle.token_budget = a.bundle_budget or bundle.total_tokens
    return bundle


def _evidence(a: LogAnswer) -> str | None:
    """The answer's stored evidence: its chunks, its texts without provenance, or only how many chunks it used."""
    if a.chunks:
        return json.dumps(a.chunks, ensure_ascii=False)
    if a.contexts:
        return json.dumps([{"text": c, "retrieval_rank": i} for i, c in enumerate(a.contexts, start=1)],
                          ensure_ascii=False)
    return count_only_evidence(a.chunk_count) if a.chunk_count is not None else None


def _store_headline(store: Store, answer_id: int, line: LogLine, a: LogAnswer, names: _Names,
                    now: str) -> tuple[int, int]:
    """The grade the log leads with, stored as its maker's: (machine grades, human grades) stored."""
    if a.grade is None:
        return 0, 0
    by = a.graded_by
    if by.kind == "human":
        # the person graded what the file shows: no machine grade was in view (blind)
        identity = f"gradedesk-import:{names.key}:{line.question_id}:{a.method}"
        return 0, add_imported_human_grade(store, HumanGrade(
            uuid=str(uuid.uuid5(uuid.NAMESPACE_URL, identity)), answer_id=answer_id, grader=by.name or names.person,
            grade=a.grade, failure_label=a.failure_label, correctness=None, grounding=None, completeness=None,
            conciseness=None, note=a.notes, judge_visible=0, mode="blind", is_revision=0, rubric_version=None,
            created_at=now,  # when it came in: the log does not say when the person graded
            machine_kind=None, machine_model=None, machine_rubric=None))
    add_machine_grade(store, AutoGrade(
        answer_id=answer_id, grader_kind=by.kind, grader_model=by.name or names.imported, rubric_version=None,
        repeat_index=0, grade=a.grade, failure_label=a.failure_label, confidence=a.confidence, reasoning=a.notes,
        raw_response=None, created_at=now))
    return 1, 0


def _store_marked(store: Store, answer_id: int, a: LogAnswer, now: str) -> tuple[int, int]:
    """A gradedesk run log's grades, each marked with its grader: (machine grades, human grades) stored."""
    machine = humans = 0
    for g in a.graded:
        if g["grader_kind"] == "human":
            row: dict[str, Any] = {k: g.get(k) for k in HUMAN_FIELDS}
            row.update(uuid=str(g.get("uuid") or uuid.uuid4()), answer_id=answer_id, grader=g["grader"],
                       mode=row["mode"] or "blind", judge_visible=int(bool(row["judge_visible"])),
                       is_revision=int(bool(row["is_revision"])), created_at=row["created_at"] or now)
            humans += add_imported_human_grade(store, HumanGrade(**row))
        else:
            rubric = g.get("rubric_version")
            known = rubric and stored_text(store, rubric) is not None
            add_machine_grade(store, AutoGrade(
                answer_id=answer_id, grader_kind=g["grader_kind"], grader_model=g["grader"],
                rubric_version=rubric if known else None, repeat_index=int(g.get("repeat_index") or 0),
                grade=g["grade"], failure_label=g.get("failure_label"), confidence=g.get("confidence"),
                reasoning=g.get("reasoning"), raw_response=None, created_at=g.get("created_at") or now))
            machine += 1
    return machine, humans


def _store_metrics(store: Store, answer_id: int, a: LogAnswer, names: _Names, now: str) -> int:
    store_scores(store, answer_id, [Score(metric, value, detail) for metric, (value, detail) in a.metrics.items()],
                 names.imported, now)
    return len(a.metrics)


def import_runlog(store: Store, path: str | Path, *, skip_invalid: bool = False, label: str | None = None,
                  shape: str | None = None, grader: str | None = None,
                  grades_from: GradedBy | None = None) -> ImportReport:
    """Import a run log as a new run (source 'import'), all in one transaction; the same file twice is one run.

    `shape` forces how every line is read (core/exchange/formats.RUNLOG_SHAPES); `grades_from` says who made the log's
    grades; `grader` names the person whose grades they are (default: the file's name).
    """
    p = Path(path)
    lines = read_lines(p)
    good, problems = parse_runlog(lines, str(p), shape, grades_from)
    if problems and not skip_invalid:
        raise InputError(problems)
    if not good:  # with --skip-invalid too: say what is wrong with each line, not only how many
        if problems:
            raise InputError([*problems, f"{p}: no importable lines"])
        raise UserError(f"{p}: no importable lines")
    key = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
    shapes = dict(Counter(ln.shape for ln in good))
    existing = run_by_key(store, "import", key)
    if existing is not None:
        return ImportReport(existing, str(p), len(good), 0, 0, 0, problems, already_imported=True, shapes=shapes)
    now = utc_now()
    names = _Names(grader or p.name, f"import:{p.name}", key)
    report = ImportReport(0, str(p), len(good), 0, 0, 0, problems, shapes=shapes)
    # the desk shows the bundles of the run's one primary budget: keep the log's budget when all its bundles share it
    budgets = {a.bundle_budget for ln in good for a in ln.answers if a.method == "bundle"}
    budget = (budgets.pop() if len(budgets) == 1 else None) or 0
    config = {"key": key, "file": str(p), "lines": len(good), "skipped": len(problems), "shapes": shapes}
    rubrics = {ln.question_id: ln.rubric for ln in good if ln.rubric is not None}
    if rubrics:
        config["rubrics"] = rubrics  # kept with the run (a RAGAS export writes them back)
    with store.transaction():
        report.run_id = add_run(store, NewRun(
            source="import", created_at=now, label=label or p.name, provider=IMPORTED_PROVIDER,
            model=next((ln.model for ln in good if ln.model), None), benchmark=good[0].benchmark or p.stem,
            budgets=[budget] if budget else [], primary_budget=budget, order_seed=random.randrange(2**31),
            config=config))
        for line in good:
            qpk = _question_pk(store, line.benchmark or p.stem, line, now)
            for a in line.answers:
                bundle_id = None
                if a.method == "bundle" and (a.chunks or a.bundle_tokens is not None or a.bundle_coverage
                                             or a.chunk_count is not None):
                    bundle_id = save_bundle(store, _imported_bundle(line, a))
                answer_id = add_answer(store, NewAnswer(
                    run_id=report.run_id, question_pk=qpk, method=a.method,
                    budget=budget if a.method == "bundle" else 0, text=a.text, evidence=_evidence(a),
                    evidence_files=json.dumps(a.evidence_files), bundle_id=bundle_id, created_at=now,
                    answered_at=line.timestamp or now))
                report.answers += 1
                for machine, humans in (_store_headline(store, answer_id, line, a, names, now),
                                        _store_marked(store, answer_id, a, now)):
                    report.grades += machine
                    report.human_grades += humans
                report.metrics += _store_metrics(store, answer_id, a, names, now)
    return report
