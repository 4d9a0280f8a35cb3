"""Run logs made elsewhere in: the good lines of a log (core/exchange/runlog_lines.py) stored as a new run.

Grades that come with a log were made by the other team's grader: they are stored as auto_grades with grader_kind
'imported' and grader_model `import:<file name>`. Human grades in a comparison file's `grades` (marked grader_kind
'human') become human_grades events with their grader and uuid, so importing twice adds nothing. Every bad line is
reported as file:line: field: problem and nothing is stored, unless skip_invalid, which stores the good lines and
reports what it skipped. Questions go under the line's `benchmark`, else a benchmark named after the file.
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from dataclasses import dataclass
from pathlib import Path

from gradedesk.core.errors import InputError, UserError
from gradedesk.core.evidence.bundle import EvidenceBundle, EvidenceSnippet
from gradedesk.core.evidence.stored import save_bundle
from gradedesk.core.exchange.runlog_export import HUMAN_FIELDS
from gradedesk.core.exchange.runlog_lines import LogAnswer, LogLine, parse_runlog
from gradedesk.core.jsonl import read_lines
from gradedesk.core.store.connection import Store, utc_now
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

    def to_dict(self) -> dict:
        return self.__dict__.copy()


def _question_pk(store: Store, benchmark: str, line: LogLine, now: str) -> int:
    """The stored question, or a new one; an existing question's gold answer and labels are kept."""
    pk = store.scalar("SELECT id FROM questions WHERE benchmark = ? AND question_id = ?",
                      (benchmark, line.question_id))
    if pk is not None:
        return int(pk)
    return int(store.db["questions"].insert({
        "benchmark": benchmark, "question_id": line.question_id, "question": line.question,
        "category": line.category, "gold_answer": line.gold_answer, "expected_files": None,
        "expected_symbols": None, "created_at": now}).last_pk)


def _imported_bundle(line: LogLine, a: LogAnswer) -> EvidenceBundle:
    """A bundle row for an imported bundled answer, so graders and the desk read it like one made here."""
    tok = get_tokenizer(DEFAULT_ENCODING)
    snippets = [EvidenceSnippet(c["chunk_id"], content_hash(c["text"]), c["text"], tok.count(c["text"]),
                                c["file_path"], c["start_line"], c["end_line"], c["symbol_name"],
                                c["retrieval_method"], c["relevance_score"], c["retrieval_rank"])
                for c in a.chunks]
    bundle = EvidenceBundle(line.question, "general", snippets, 0, 0, [], a.bundle_coverage,
                            compiler_version="imported", tokenizer=tok.id)
    counted = tok.count(bundle.to_prompt_context())
    bundle.total_tokens = a.bundle_tokens if a.bundle_tokens is not None else counted
    bundle.token_budget = a.bundle_budget or bundle.total_tokens
    return bundle


def _store_grades(store: Store, answer_id: int, a: LogAnswer, grader_model: str, now: str) -> tuple[int, int]:
    machine = humans = 0
    if a.grade is not None:
        store.db["auto_grades"].insert({
            "answer_id": answer_id, "grader_kind": "imported", "grader_model": grader_model, "rubric_version": None,
            "repeat_index": 0, "grade": a.grade, "failure_label": a.failure_label, "reasoning": a.notes,
            "created_at": now})
        machine += 1
    for g in a.graded:
        if g["grader_kind"] == "human":
            row = {k: g.get(k) for k in HUMAN_FIELDS}
            row.update(uuid=str(g.get("uuid") or uuid.uuid4()), answer_id=answer_id, grader=g["grader"],
                       action="set", mode=row["mode"] or "blind", judge_visible=int(bool(row["judge_visible"])),
                       is_revision=int(bool(row["is_revision"])), created_at=row["created_at"] or now)
            humans += store.conn.execute(
                f"INSERT OR IGNORE INTO human_grades ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                tuple(row.values())).rowcount
        else:
            rubric = g.get("rubric_version")
            known = rubric and store.scalar("SELECT 1 FROM rubrics WHERE version = ?", (rubric,))
            store.db["auto_grades"].insert({
                "answer_id": answer_id, "grader_kind": g["grader_kind"], "grader_model": g["grader"],
                "rubric_version": rubric if known else None, "repeat_index": int(g.get("repeat_index") or 0),
                "grade": g["grade"], "failure_label": g.get("failure_label"), "confidence": g.get("confidence"),
                "reasoning": g.get("reasoning"), "created_at": g.get("created_at") or now}, ignore=True)
            machine += 1
    return machine, humans


def import_runlog(store: Store, path: str | Path, *, skip_invalid: bool = False,
                  label: str | None = None) -> ImportReport:
    """Import a run log as a new run (source 'import'), all in one transaction; the same file twice is one run."""
    p = Path(path)
    lines = read_lines(p)
    good, problems = parse_runlog(lines, str(p))
    if problems and not skip_invalid:
        raise InputError(problems)
    if not good:  # with --skip-invalid too: say what is wrong with each line, not only how many
        if problems:
            raise InputError([*problems, f"{p}: no importable lines"])
        raise UserError(f"{p}: no importable lines")
    key = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
    existing = store.scalar("SELECT id FROM runs WHERE source = 'import' AND json_extract(config, '$.key') = ?",
                            (key,))
    if existing is not None:
        return ImportReport(int(existing), str(p), len(good), 0, 0, 0, problems, already_imported=True)
    now = utc_now()
    grader_model = f"import:{p.name}"
    answers = grades = humans = 0
    # the desk shows the bundles of the run's one primary budget: keep the log's budget when all its bundles share it
    budgets = {a.bundle_budget for ln in good for a in ln.answers if a.method == "bundle"}
    budget = budgets.pop() if len(budgets) == 1 and None not in budgets else 0
    with store.transaction():
        run_id = int(store.db["runs"].insert({
            "created_at": now, "source": "import", "label": label or p.name, "provider": IMPORTED_PROVIDER,
            "model": next((ln.model for ln in good if ln.model), None), "benchmark": good[0].benchmark or p.stem,
            "budgets": json.dumps([budget] if budget else []), "primary_budget": budget,
            "order_seed": random.randrange(2**31),
            "config": json.dumps({"key": key, "file": str(p), "lines": len(good), "skipped": len(problems)}),
        }).last_pk)
        for line in good:
            qpk = _question_pk(store, line.benchmark or p.stem, line, now)
            for a in line.answers:
                bundle_id = None
                if a.method == "bundle" and (a.chunks or a.bundle_tokens is not None or a.bundle_coverage):
                    bundle_id = save_bundle(store, _imported_bundle(line, a))
                answer_id = store.db["answers"].insert({
                    "run_id": run_id, "question_pk": qpk, "method": a.method,
                    "budget": budget if a.method == "bundle" else 0, "status": "ok",
                    "text": a.text, "evidence": json.dumps(a.chunks, ensure_ascii=False) if a.chunks else None,
                    "evidence_files": json.dumps(a.evidence_files), "bundle_id": bundle_id,
                    "created_at": now, "answered_at": line.timestamp or now}).last_pk
                answers += 1
                g, h = _store_grades(store, int(answer_id), a, grader_model, now)
                grades += g
                humans += h
    return ImportReport(run_id, str(p), len(good), answers, grades, humans, problems)
