"""A small, deterministic, realistic store for tests: one run, questions, raw and bundled answers, bundles with all
evidence fields, judge and rule grades, answer scores. Inserted through core.store (one transaction).

    info = build_fixture_store(tmp_path / "store.db")            # 6 questions, run 1
    info = build_fixture_store(path, hostile=True)                # texts full of markup and ANSI escapes

Synthetic, but shaped like what `gradedesk run` stores: raw evidence is a JSON list of hits, each bundled answer points
at a bundle whose snippets carry provenance, roles and reasons, and every token count is exact (tiktoken).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.bundle import content_hash
from core.store import open_store
from core.tokens import count_tokens

TOKENIZER = "tiktoken/o200k_base"
CREATED = "2026-01-05T10:00:00+00:00"  # fixed, so nothing in a snapshot depends on the clock
HOSTILE = "[bold]not bold[/] [link=https://example.invalid]not a link[/link] \x1b[31mnot red\x1b[0m [/]"

_CODE = {
    "core/store.py": ("open_store", '''def open_store(path=None, *, create=True):
    """Open (and with create=True make or upgrade) the store at `path`."""
    p = Path(path or default_store_path())
    if not p.exists() and not create:
        raise StoreError(f"{p}: no such store")
    conn = _connect(p)
    return Store(p, conn)'''),
    "core/tokens.py": ("count_tokens", '''def count_tokens(text, tokenizer=DEFAULT_ENCODING):
    return get_tokenizer(tokenizer).count(text)'''),
    "core/bundle.py": ("validate", '''def validate(bundle):
    """Every violation of the context-pack contract."""
    out = []
    for i, s in enumerate(bundle.snippets, start=1):
        if not s.file_path:
            out.append(Violation("provenance", "file_path is missing", i))
    return out'''),
    "core/questions.py": ("parse_questions", '''def parse_questions(text_lines, source):
    problems, out = [], []
    for lineno, line in enumerate(text_lines, start=1):
        if not line.strip():
            continue
        data = json.loads(line)
    return out'''),
}

_QUESTIONS = [
    ("q-store-open", "code_lookup", "Which function opens the store and what does create=False do?",
     "core.store.open_store; with create=False a missing file raises StoreError instead of creating it."),
    ("q-tokens", "code_lookup", "How are tokens counted?",
     "count_tokens calls get_tokenizer(...).count, an exact tiktoken count."),
    ("q-validate", "explanation", "What does bundle validation report?",
     "Every contract violation (provenance, token counts, duplicates, budget), each with its snippet."),
    ("q-questions", "relationship", "Who parses benchmark question files?",
     "core.questions.parse_questions, called by load_questions."),
    ("q-arch", "architecture", "Where does the desk get its data from?",
     "From store.db through core.review; the desk itself only renders."),
    ("q-general", "general", "Is the store safe for two desks at once?",
     "Yes: WAL mode, a busy timeout and one transaction per action."),
]

_JUDGE_GRADES = ["fully_correct", "partially_correct", "wrong", "unsupported", "fully_correct", "partially_correct"]


@dataclass(frozen=True)
class FixtureInfo:
    path: Path
    run_id: int
    question_pks: list[int]
    answer_ids: dict[tuple[int, str], int]  # (question_pk, method) -> answer id of the shown answers


@contextmanager
def fixture_env(tmp_path: Path) -> Iterator[tuple]:
    """(store, run info, FixtureInfo) on a fresh fixture store; closes the store after."""
    from core.review import run_info

    info = build_fixture_store(tmp_path / "store.db")
    store = open_store(info.path, create=False)
    try:
        yield store, run_info(store, info.run_id), info
    finally:
        store.close()


@pytest.fixture(name="env")
def env_fixture(tmp_path: Path) -> Iterator[tuple]:
    """The `env` fixture of the core desk tests: (store, run info, FixtureInfo); import it into a test module."""
    with fixture_env(tmp_path) as parts:
        yield parts


def _hit(rank: int, path: str, hostile: bool) -> dict:
    symbol, code = _CODE[path]
    text = code + (f"\n# {HOSTILE}" if hostile else "")
    return {"chunk_id": f"c-{path}-{symbol}", "file_path": path, "start_line": 10 * rank + 1,
            "end_line": 10 * rank + code.count("\n") + 1, "symbol_name": symbol, "retrieval_method": "bm25",
            "relevance_score": round(1.0 / (rank + 1), 4), "retrieval_rank": rank + 1, "text": text}


def build_fixture_store(path: str | Path, *, questions: int = 6, hostile: bool = False, judge: bool = True,
                        benchmark: str = "fixture") -> FixtureInfo:
    """Make the store at `path` (must not exist yet) and return what tests need to find rows."""
    path = Path(path)
    store = open_store(path)
    paths = list(_CODE)
    pks: list[int] = []
    answer_ids: dict[tuple[int, str], int] = {}
    with store.transaction():
        db = store.db
        db["rubrics"].insert({"version": "rubric-1", "text": "Grade against the gold answer.", "created_at": CREATED})
        run_id = db["runs"].insert({
            "created_at": CREATED, "provider": "offline-extractive", "model": None, "label": "fixture",
            "benchmark": benchmark, "budgets": "[1000, 2000]", "primary_budget": 2000, "raw_k": 3,
            "tokenizer": TOKENIZER, "compiler_version": "gradedesk-compiler/1", "order_seed": 7}).last_pk
        for i in range(questions):
            qid, category, question, gold = _QUESTIONS[i % len(_QUESTIONS)]
            if i >= len(_QUESTIONS):
                qid = f"{qid}-{i}"
            if hostile:
                question, gold = f"{question} {HOSTILE}", f"{gold} {HOSTILE}"
            pk = db["questions"].insert({
                "benchmark": benchmark, "question_id": qid, "question": question, "category": category,
                "gold_answer": gold, "expected_files": json.dumps([paths[i % len(paths)]]), "created_at": CREATED,
            }).last_pk
            pks.append(pk)
            hits = [_hit(r, paths[(i + r) % len(paths)], hostile) for r in range(3)]
            raw_text = f"According to [Evidence 1] {hits[0]['file_path']}, {gold.lower()}"
            if hostile:
                raw_text += f" {HOSTILE}"
            raw_id = db["answers"].insert({
                "run_id": run_id, "question_pk": pk, "method": "raw", "budget": 0, "status": "ok", "text": raw_text,
                "evidence": json.dumps(hits), "evidence_files": json.dumps([h["file_path"] for h in hits]),
                "prompt_version": "raw_system@1", "tokens_in": 420 + i, "tokens_out": 60 + i,
                "created_at": CREATED, "answered_at": CREATED}).last_pk
            answer_ids[(pk, "raw")] = raw_id
            for budget in (1000, 2000):
                bundle_id = _insert_bundle(db, question, i, budget, hostile)
                text = f"{gold} [Evidence 1]" + (f" {HOSTILE}" if hostile else "")
                aid = db["answers"].insert({
                    "run_id": run_id, "question_pk": pk, "method": "bundle", "budget": budget, "status": "ok",
                    "text": text, "bundle_id": bundle_id, "prompt_version": "bundle_system@1",
                    "tokens_in": budget - 100, "tokens_out": 50 + i, "created_at": CREATED,
                    "answered_at": CREATED}).last_pk
                if budget == 2000:
                    answer_ids[(pk, "bundle")] = aid
            for method, aid in (("raw", raw_id), ("bundle", answer_ids[(pk, "bundle")])):
                grade = _JUDGE_GRADES[(i + (method == "raw")) % len(_JUDGE_GRADES)]
                kind = "judge" if judge and i % 3 != 2 else "rule"
                db["auto_grades"].insert({
                    "answer_id": aid, "grader_kind": kind,
                    "grader_model": "gpt-4o-mini" if kind == "judge" else "rules/1",
                    "rubric_version": "rubric-1", "grade": grade,
                    "failure_label": None if grade == "fully_correct" else "retrieval_miss",
                    "confidence": round(0.55 + 0.07 * i, 2) if kind == "judge" else None,
                    "reasoning": f"The answer {'matches' if grade == 'fully_correct' else 'misses part of'} the gold "
                                 f"answer." + (f" {HOSTILE}" if hostile else ""),
                    "created_at": CREATED})
                db["answer_scores"].insert({"answer_id": aid, "metric": "file_recall", "method": "id-based",
                                            "value": 1.0 if method == "bundle" else 0.5, "created_at": CREATED})
    store.close()
    return FixtureInfo(path, run_id, pks, answer_ids)


def _insert_bundle(db, question: str, i: int, budget: int, hostile: bool) -> int:
    paths = list(_CODE)
    roles = ["definition", "caller", "test"]
    snippets = []
    for pos in range(1, 3 if budget < 2000 else 4):
        path = paths[(i + pos - 1) % len(paths)]
        symbol, code = _CODE[path]
        text = code + (f"\n# {HOSTILE}" if hostile else "")
        snippets.append({
            "position": pos, "chunk_id": f"c-{path}-{symbol}", "content_hash": content_hash(text), "text": text,
            "token_count": count_tokens(text), "file_path": path, "start_line": 20 * pos + 1,
            "end_line": 20 * pos + code.count("\n") + 1, "symbol_name": symbol, "retrieval_method": "symbol",
            "relevance_score": round(0.9 - 0.1 * pos, 4), "retrieval_rank": pos,
            "selection_reason": f"defines {symbol}, named in the question" + (f" {HOSTILE}" if hostile else ""),
            "evidence_role": roles[pos - 1]})
    total = sum(s["token_count"] for s in snippets) + 30 * len(snippets)
    notes = ["definition found", "no test covers this path"] + ([HOSTILE] if hostile else [])
    warnings = ["1 snippet dropped over budget"] if budget < 2000 else []
    bundle_id = db["bundles"].insert({
        "question": question, "question_type": "code_lookup", "total_tokens": total, "token_budget": budget,
        "retrieval_strategies_used": json.dumps(["bm25", "symbol"]), "coverage_notes": json.dumps(notes),
        "created_at": CREATED, "compiler_version": "gradedesk-compiler/1", "warnings": json.dumps(warnings),
        "tokenizer": TOKENIZER}).last_pk
    db["bundle_snippets"].insert_all([{"bundle_id": bundle_id, **s} for s in snippets])
    return bundle_id
