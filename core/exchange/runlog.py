"""Run logs in and out: export a run as JSONL (one line per question), import run logs made elsewhere.

Export (`export_run`): one line per question with the seed field names: question_id, question, category, raw_answer,
raw_chunks, raw_evidence_files, bundle_answer, bundle_chunks, bundle_evidence_files, bundle_tokens, bundle_budget,
bundle_coverage, raw_grade, bundle_grade, grading_notes, timestamp; plus run_id, benchmark, provider, model, the
budget sweep and the question's gold_answer (which import gives a question it creates). raw_grade / bundle_grade are
the headline grades (a person's current grade, else the machine grade), each named by `*_grade_by`; once grades
exist, `grades` carries every human, judge, rule and imported grade of both answers, each marked with its grader.

Import (`import_runlog`) reads two shapes, line by line:
- comparison lines (as exported): raw_answer and/or bundle_answer with their chunks, tokens, coverage and grades;
- harness lines: one answer a line (question_id, question, category, answer, evidence_files, grade, failure_label,
  grading_notes; optional method raw|bundle, default raw).
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
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gradedesk.core.evidence.stored import load_bundle, save_bundle
from gradedesk.core.evidence.bundle import EvidenceBundle, EvidenceSnippet
from gradedesk.core.text.hashing import content_hash
from gradedesk.core.errors import InputError, UserError
from gradedesk.core.grading.vocabulary import DIMENSIONS, FAILURE_LABELS, GRADES, GRADING_ERROR, METHODS
from gradedesk.core.jsonl import json_lines, read_lines
from gradedesk.core.store.connection import Store, utc_now
from gradedesk.core.text.tokens import DEFAULT_ENCODING, get_tokenizer

IMPORTED_PROVIDER = "imported"
HUMAN_FIELDS = ("grade", "failure_label", *DIMENSIONS, "note", "judge_visible", "mode", "is_revision",
                "rubric_version", "created_at")


# export ----------------------------------------------------------------------------------------------------------------
def _grades_of(store: Store, answer_id: int) -> list[dict]:
    """Every current grade of an answer, each marked with its grader: people's current grades, then machine grades."""
    out = []
    for h in store.query("SELECT * FROM current_human_grades WHERE answer_id = ? ORDER BY id", (answer_id,)):
        out.append({"grader_kind": "human", "grader": h["grader"], "uuid": h["uuid"],
                    **{k: h[k] for k in HUMAN_FIELDS}})
    for g in store.query("SELECT * FROM auto_grades WHERE answer_id = ? ORDER BY grader_kind, repeat_index, id",
                         (answer_id,)):
        out.append({"grader_kind": g["grader_kind"], "grader": g["grader_model"], "grade": g["grade"],
                    "failure_label": g["failure_label"], "confidence": g["confidence"],
                    "reasoning": g["reasoning"], "rubric_version": g["rubric_version"],
                    "repeat_index": g["repeat_index"], "created_at": g["created_at"]})
    return out


def _headline(grades: list[dict]) -> dict | None:
    """The grade a log line leads with: the newest person's grade, else the machine grade (judge > imported > rule)."""
    humans = [g for g in grades if g["grader_kind"] == "human"]
    if humans:
        return max(humans, key=lambda g: g["created_at"])
    rank = {"judge": 0, "imported": 1, "rule": 2}
    machine = [g for g in grades if g["grader_kind"] in rank]
    return min(machine, key=lambda g: (rank[g["grader_kind"]], g["repeat_index"])) if machine else None


def _chunks(store: Store, answer: dict | None) -> list[dict]:
    if answer is None:
        return []
    if answer["bundle_id"] is not None:
        stored = load_bundle(store, answer["bundle_id"])
        return [s.__dict__ | {"position": i} for i, s in enumerate(stored.bundle.snippets, start=1)] if stored else []
    return json.loads(answer["evidence"] or "[]")


def export_run(store: Store, run_id: int) -> Iterator[dict]:
    """One dict per question of the run (in question order)."""
    run = store.query("SELECT * FROM runs WHERE id = ?", (run_id,))[0]
    primary = run["primary_budget"] or 0
    answers = store.query("SELECT a.*, q.question_id AS qid, q.question AS qtext, q.category, q.benchmark, "
                          "q.gold_answer "
                          "FROM answers a JOIN questions q ON q.id = a.question_pk WHERE a.run_id = ? "
                          "ORDER BY a.question_pk, a.method DESC, a.budget", (run_id,))
    by_question: dict[int, list[dict]] = {}
    for a in answers:
        by_question.setdefault(a["question_pk"], []).append(a)
    for rows in by_question.values():
        raw = next((a for a in rows if a["method"] == "raw"), None)
        bundles = [a for a in rows if a["method"] == "bundle"]
        bundle = next((a for a in bundles if a["budget"] == primary), bundles[-1] if bundles else None)
        first = rows[0]
        line: dict[str, Any] = {
            "run_id": run_id, "benchmark": first["benchmark"], "provider": run["provider"], "model": run["model"],
            "question_id": first["qid"], "question": first["qtext"], "category": first["category"],
            "gold_answer": first["gold_answer"], "raw_answer": raw and raw["text"], "raw_chunks": _chunks(store, raw),
            "raw_evidence_files": json.loads(raw["evidence_files"] or "[]") if raw else [],
            "bundle_answer": bundle and bundle["text"], "bundle_chunks": _chunks(store, bundle),
            "bundle_evidence_files": json.loads(bundle["evidence_files"] or "[]") if bundle else [],
            "bundle_budget": bundle and bundle["budget"],
        }
        stored = load_bundle(store, bundle["bundle_id"]) if bundle and bundle["bundle_id"] else None
        info = stored.bundle if stored else None
        line["bundle_tokens"] = info.total_tokens if info else None
        line["bundle_coverage"] = info.coverage_notes if info else []
        grades = {m: _grades_of(store, a["id"]) for m, a in (("raw", raw), ("bundle", bundle)) if a is not None}
        notes = []
        for method in METHODS:
            head = _headline(grades.get(method, []))
            line[f"{method}_grade"] = head and head["grade"]
            line[f"{method}_grade_by"] = head and f"{head['grader_kind']}:{head['grader']}"
            text = head and (head.get("note") or head.get("reasoning"))
            if text:
                notes.append(f"{method} ({head['grader_kind']}:{head['grader']}): {text}")
        line["grading_notes"] = "\n".join(notes) or None
        line["timestamp"] = max((a["answered_at"] or a["created_at"] for a in rows), default=None)
        for method, a in (("raw", raw), ("bundle", bundle)):
            if a is not None and a["status"] != "ok":
                line[f"{method}_error"] = a["error"] or a["status"]
        line["budget_sweep"] = [{"budget": a["budget"], "answer": a["text"], "status": a["status"],
                                 "tokens_in": a["tokens_in"], "tokens_out": a["tokens_out"]} for a in bundles]
        if any(grades.values()):
            line["grades"] = grades
        yield line


# import: checking lines ------------------------------------------------------------------------------------------------
@dataclass
class LogAnswer:
    method: str
    text: str
    chunks: list[dict]
    evidence_files: list[str]
    grade: str | None = None
    failure_label: str | None = None
    notes: str | None = None
    bundle_tokens: int | None = None
    bundle_budget: int | None = None
    bundle_coverage: list[str] = field(default_factory=list)
    graded: list[dict] = field(default_factory=list)  # a comparison file's marked grades


@dataclass
class LogLine:
    lineno: int
    question_id: str
    question: str
    category: str
    benchmark: str | None
    timestamp: str | None
    model: str | None
    answers: list[LogAnswer]
    gold_answer: str | None = None  # a new store's question gets it (an exported run carries it)


class _Problems:
    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def add(self, name: str, why: str) -> None:
        self.items.append((name, why))


def _text(data: dict, name: str, p: _Problems, required: bool = True, default: str | None = None) -> str | None:
    value = data.get(name)
    if value is None:
        if required:
            p.add(name, "missing")
        return default
    if isinstance(value, int) and not isinstance(value, bool) and name == "question_id":
        return str(value)
    if not isinstance(value, str):
        p.add(name, f"must be a string, got {type(value).__name__}")
        return default
    if required and not value.strip():
        p.add(name, "is empty")
    return value


def _choice(data: dict, name: str, allowed: tuple[str, ...], p: _Problems) -> str | None:
    value = data.get(name)
    if value is None or value == "":
        return None
    if value not in allowed:
        p.add(name, f"{value!r} is not one of {', '.join(allowed)}")
        return None
    return value


def _chunk_list(data: dict, name: str, p: _Problems) -> list[dict]:
    value = data.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        p.add(name, "must be a list of chunks (objects with file_path) or file paths")
        return []
    out = []
    for i, item in enumerate(value, start=1):
        if isinstance(item, str) and item.strip():
            item = {"file_path": item}
        path = item.get("file_path") or item.get("path") if isinstance(item, dict) else None
        if not isinstance(path, str) or not path.strip():
            p.add(name, f"item {i} has no file_path")
            continue
        out.append(_hit(item, path, i, p, name))
    return out


def _hit(item: dict, path: str, rank: int, p: _Problems, name: str) -> dict:
    def number(key: str, default: int) -> int:
        value = item.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            p.add(name, f"item {rank}: {key} must be a line number from 1")
            return default
        return value

    text = item.get("text") if isinstance(item.get("text"), str) else ""
    start = number("start_line", 1)
    score = item.get("relevance_score")
    given_rank = item.get("retrieval_rank")
    symbol = item.get("symbol_name")
    return {"chunk_id": str(item.get("chunk_id") or content_hash(f"{path}\n{text}")[:16]), "file_path": path,
            "start_line": start, "end_line": max(start, number("end_line", start)),
            "symbol_name": symbol if isinstance(symbol, str) else None,
            "retrieval_method": str(item.get("retrieval_method") or "imported"),
            "relevance_score": float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else 0.0,
            "retrieval_rank": given_rank if isinstance(given_rank, int) and given_rank >= 1 else rank,
            "text": text}


def _files(data: dict, name: str, chunks: list[dict], p: _Problems) -> list[str]:
    value = data.get(name)
    if value is None:
        return list(dict.fromkeys(c["file_path"] for c in chunks))
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        p.add(name, "must be a list of file paths")
        return []
    return value


def _marked_grades(data: dict, method: str, p: _Problems) -> list[dict]:
    grades = data.get("grades")
    if grades is None:
        return []
    entries = grades.get(method, []) if isinstance(grades, dict) else None
    if not isinstance(entries, list):
        p.add("grades", "must be an object {raw: [...], bundle: [...]} of grades marked with their grader")
        return []
    out = []
    for i, g in enumerate(entries, start=1):
        where = f"grades.{method}[{i}]"
        if not isinstance(g, dict):
            p.add(where, "must be an object")
            continue
        if g.get("grader_kind") not in ("human", "judge", "rule", "imported"):
            p.add(where, "grader_kind must be human, judge, rule or imported")
        elif not isinstance(g.get("grader"), str) or not g["grader"].strip():
            p.add(where, "grader is missing")
        elif g.get("grade") not in GRADES:
            p.add(where, f"grade {g.get('grade')!r} is not one of {', '.join(GRADES)}")
        elif why := _grade_field_problem(g):
            p.add(where, why)
        else:
            out.append(g)
    return out


def _grade_field_problem(g: dict) -> str | None:
    """The first optional field of a marked grade that could not be stored as it is, or None."""
    def whole(v: Any, low: int, high: int | None = None) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= low and (high is None or v <= high)

    labels = FAILURE_LABELS + (GRADING_ERROR,)
    checks: list[tuple[str, bool, str]] = [
        ("failure_label", g.get("failure_label") in (None, *labels), f"must be one of {', '.join(labels)}"),
        ("confidence", g.get("confidence") is None or (isinstance(g["confidence"], (int, float))
                                                     and not isinstance(g["confidence"], bool)
                                                     and 0 <= g["confidence"] <= 1), "must be a number from 0 to 1"),
        ("repeat_index", g.get("repeat_index") is None or whole(g["repeat_index"], 0), "must be a whole number from 0"),
        ("mode", g.get("mode") in (None, "blind", "open", "recheck"), "must be blind, open or recheck"),
        *[(d, g.get(d) is None or whole(g[d], 1, 5), "must be a whole number from 1 to 5") for d in DIMENSIONS],
        *[(k, g.get(k) is None or isinstance(g[k], str), "must be a string")
          for k in ("uuid", "note", "reasoning", "rubric_version", "created_at")],
    ]
    return next((f"{name} {g.get(name)!r}: {why}" for name, ok, why in checks if not ok), None)


def _comparison(data: dict, p: _Problems) -> list[LogAnswer]:
    out = []
    for method in METHODS:
        if data.get(f"{method}_answer") is None:
            continue
        text = _text(data, f"{method}_answer", p, required=False, default="")
        chunks = _chunk_list(data, f"{method}_chunks", p)
        answer = LogAnswer(method, text or "", chunks, _files(data, f"{method}_evidence_files", chunks, p))
        answer.graded = _marked_grades(data, method, p)
        if not answer.graded:  # the headline grade is the log's own grader's only when no marked grades came along
            answer.grade = _choice(data, f"{method}_grade", GRADES, p)
            answer.failure_label = _choice(data, f"{method}_failure_label", FAILURE_LABELS + (GRADING_ERROR,), p)
            answer.notes = _text(data, "grading_notes", p, required=False)
        if method == "bundle":
            tokens = data.get("bundle_tokens")
            if tokens is not None and (not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 0):
                p.add("bundle_tokens", "must be a whole number of tokens")
            else:
                answer.bundle_tokens = tokens
            budget = data.get("bundle_budget")
            if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool) or budget < 0):
                p.add("bundle_budget", "must be a whole number of tokens")
            else:
                answer.bundle_budget = budget or None  # 0: not known (an export of an imported run)
            coverage = data.get("bundle_coverage") or []
            coverage = [coverage] if isinstance(coverage, str) else coverage
            if not isinstance(coverage, list) or not all(isinstance(c, str) for c in coverage):
                p.add("bundle_coverage", "must be a list of notes")
            else:
                answer.bundle_coverage = coverage
        out.append(answer)
    if not out:
        p.add("raw_answer", "a comparison line needs raw_answer or bundle_answer")
    return out


def _harness(data: dict, p: _Problems) -> list[LogAnswer]:
    text = _text(data, "answer", p, required=False, default="")
    method = _choice(data, "method", METHODS, p) or "raw"
    chunks = _chunk_list(data, "evidence", p) if "evidence" in data else []
    answer = LogAnswer(method, text or "", chunks, _files(data, "evidence_files", chunks, p))
    answer.grade = _choice(data, "grade", GRADES, p)
    answer.failure_label = _choice(data, "failure_label", FAILURE_LABELS + (GRADING_ERROR,), p)
    answer.notes = _text(data, "grading_notes", p, required=False)
    return [answer]


def parse_line(data: Any, lineno: int) -> tuple[LogLine | None, list[tuple[str, str]]]:
    p = _Problems()
    if not isinstance(data, dict):
        return None, [("(line)", f"expected a JSON object, got {type(data).__name__}")]
    qid = _text(data, "question_id", p)
    question = _text(data, "question", p)
    category = _text(data, "category", p, required=False, default="general") or "general"
    benchmark = _text(data, "benchmark", p, required=False)
    timestamp = _text(data, "timestamp", p, required=False)
    model = _text(data, "model", p, required=False)
    gold = _text(data, "gold_answer", p, required=False)
    if "answer" in data:
        answers = _harness(data, p)
    elif "raw_answer" in data or "bundle_answer" in data:
        answers = _comparison(data, p)
    else:
        p.add("answer", "missing: a harness line needs answer, a comparison line raw_answer or bundle_answer")
        answers = []
    if p.items:
        return None, p.items
    return LogLine(lineno, qid, question, category, benchmark, timestamp, model, answers, gold), []


def parse_runlog(lines: list[str], source: str) -> tuple[list[LogLine], list[str]]:
    """(good lines, problems as `file:line: field: problem`)."""
    good: list[LogLine] = []
    problems: list[str] = []
    seen: dict[tuple[str, str], int] = {}
    for lineno, data in json_lines(lines, source, problems):
        line, bad = parse_line(data, lineno)
        if bad:
            problems.extend(f"{source}:{lineno}: {name}: {why}" for name, why in bad)
            continue
        dup = next((seen[(line.question_id, a.method)] for a in line.answers
                    if (line.question_id, a.method) in seen), None)
        if dup is not None:
            problems.append(f"{source}:{lineno}: question_id: {line.question_id!r} answered again "
                            f"(first on line {dup})")
            continue
        for a in line.answers:
            seen[(line.question_id, a.method)] = lineno
        good.append(line)
    return good, problems


# import: storing -------------------------------------------------------------------------------------------------------
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
