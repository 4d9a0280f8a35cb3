"""Builds runs, questions, answers and bundles directly in a real store, for the grading tests."""

from __future__ import annotations

import json

from core.store import Store, utc_now


def add_question(store: Store, qid: str, question: str, gold: str, *, category: str = "code_lookup",
                 files: list[str] | None = None, symbols: list[str] | None = None, benchmark: str = "bench") -> int:
    with store.transaction():
        return store.db["questions"].insert({
            "benchmark": benchmark, "question_id": qid, "question": question, "category": category,
            "gold_answer": gold, "expected_files": None if files is None else json.dumps(files),
            "expected_symbols": None if symbols is None else json.dumps(symbols), "created_at": utc_now(),
        }).last_pk


def add_run(store: Store, *, model: str | None = "answer-model", provider: str = "openai-compatible",
            label: str | None = None, primary_budget: int = 2000) -> int:
    with store.transaction():
        return store.db["runs"].insert({
            "created_at": utc_now(), "provider": provider, "model": model, "label": label,
            "budgets": json.dumps([primary_budget]), "primary_budget": primary_budget, "raw_k": 10,
            "tokenizer": "tiktoken/o200k_base", "order_seed": 7,
        }).last_pk


def hit(file_path: str, symbol: str | None = None, text: str = "", chunk_id: str | None = None,
        start: int = 1, end: int = 10) -> dict:
    return {"file_path": file_path, "symbol_name": symbol, "text": text, "start_line": start, "end_line": end,
            "chunk_id": chunk_id or f"{file_path}:{symbol}:{start}"}


def add_raw_answer(store: Store, run_id: int, question_pk: int, text: str | None, hits: list[dict], *,
                   status: str = "ok", tokens_in: int = 100, tokens_out: int = 20, cost: float | None = 0.001) -> int:
    with store.transaction():
        return store.db["answers"].insert({
            "run_id": run_id, "question_pk": question_pk, "method": "raw", "budget": 0, "status": status,
            "text": text, "evidence": json.dumps(hits), "evidence_files": json.dumps([h["file_path"] for h in hits]),
            "tokens_in": tokens_in, "tokens_out": tokens_out, "latency_ms": 50.0, "cost_usd": cost,
            "created_at": utc_now(), "answered_at": utc_now(),
        }).last_pk


def add_bundle_answer(store: Store, run_id: int, question_pk: int, text: str | None, snippets: list[dict], *,
                      budget: int = 2000, status: str = "ok", tokens_in: int = 80, tokens_out: int = 20,
                      cost: float | None = 0.0008) -> int:
    now = utc_now()
    with store.transaction():
        bundle_id = store.db["bundles"].insert({
            "question": "q", "question_type": "code_lookup", "total_tokens": 50, "token_budget": budget,
            "retrieval_strategies_used": "[]", "coverage_notes": "[]", "created_at": now,
            "compiler_version": "test", "warnings": "[]", "tokenizer": "tiktoken/o200k_base",
        }).last_pk
        for pos, s in enumerate(snippets, start=1):
            store.db["bundle_snippets"].insert({
                "bundle_id": bundle_id, "position": pos, "chunk_id": s["chunk_id"], "content_hash": "h",
                "text": s["text"], "token_count": 5, "file_path": s["file_path"], "start_line": s["start_line"],
                "end_line": s["end_line"], "symbol_name": s["symbol_name"], "retrieval_method": "bm25",
                "relevance_score": 1.0, "retrieval_rank": pos,
            })
        return store.db["answers"].insert({
            "run_id": run_id, "question_pk": question_pk, "method": "bundle", "budget": budget, "status": status,
            "text": text, "evidence_files": json.dumps(list(dict.fromkeys(s["file_path"] for s in snippets))),
            "bundle_id": bundle_id, "tokens_in": tokens_in, "tokens_out": tokens_out, "latency_ms": 40.0,
            "cost_usd": cost, "created_at": now, "answered_at": now,
        }).last_pk


def scores_of(store: Store, answer_id: int, method: str) -> dict[str, dict]:
    rows = store.query("SELECT metric, value, detail FROM answer_scores WHERE answer_id = ? AND method = ?",
                       (answer_id, method))
    return {r["metric"]: {"value": r["value"], "detail": json.loads(r["detail"])} for r in rows}
