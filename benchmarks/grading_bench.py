"""Offline grading speed: grade_offline (retrieval evals, rule grader, offline faithfulness/relevance) per answer.

Builds a run of N questions x 2 answers (raw with 10 hits, bundle with 6 snippets) from real code: the functions of the
CPython standard library (ast), so evidence, gold answers and answers have realistic sizes. Each repeat grades a fresh
store; prints the median answers per second. Goal: >= 50 answers/s (a 40-question, 4-answer run in under 4 s).

    python benchmarks/grading_bench.py [--questions 100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from gradedesk.core.grading.offline_grading import grade_offline
from gradedesk.core.store.connection import open_store, utc_now

GOAL = 50.0


def stdlib_functions(limit: int) -> list[dict]:
    out = []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source)
        except (SyntaxError, UnicodeDecodeError):
            continue
        lines = source.splitlines()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.end_lineno and node.end_lineno - node.lineno < 60:
                out.append({"file_path": path.name, "symbol_name": node.name, "start_line": node.lineno,
                            "end_line": node.end_lineno, "chunk_id": f"{path.name}:{node.name}:{node.lineno}",
                            "text": "\n".join(lines[node.lineno - 1:node.end_lineno]),
                            "doc": ast.get_docstring(node) or node.name})
                if len(out) >= limit:
                    return out
    return out


def build(store_path: Path, n: int, funcs: list[dict], rng: random.Random) -> int:
    store = open_store(store_path)
    now = utc_now()
    with store.transaction():
        run = store._db["runs"].insert({"created_at": now, "provider": "bench", "budgets": "[2000]",
                                       "order_seed": 1}).last_pk
        for i in range(n):
            target = funcs[i]
            hits = [target] + rng.sample(funcs, 9)
            rng.shuffle(hits)
            q = store._db["questions"].insert({
                "benchmark": "bench", "question_id": f"q{i}", "question": f"What does {target['symbol_name']} do?",
                "category": "lookup", "gold_answer": f"{target['symbol_name']} in {target['file_path']}: "
                                                     f"{target['doc'][:300]}",
                "expected_files": json.dumps([target["file_path"]]),
                "expected_symbols": json.dumps([target["symbol_name"]]), "created_at": now}).last_pk
            answer = f"`{target['symbol_name']}` ({target['file_path']}) " + target["text"][:400]
            evidence = [{k: h[k] for k in ("file_path", "symbol_name", "start_line", "end_line", "chunk_id", "text")}
                        for h in hits]
            store._db["answers"].insert({"run_id": run, "question_pk": q, "method": "raw", "status": "ok",
                                        "text": answer, "evidence": json.dumps(evidence), "created_at": now})
            bundle = store._db["bundles"].insert({
                "question": "q", "question_type": "code_lookup", "total_tokens": 0, "token_budget": 2000,
                "retrieval_strategies_used": "[]", "coverage_notes": "[]", "created_at": now,
                "compiler_version": "bench", "warnings": "[]", "tokenizer": "tiktoken/o200k_base"}).last_pk
            for pos, h in enumerate(evidence[:6], start=1):
                store._db["bundle_snippets"].insert({**{k: h[k] for k in ("file_path", "symbol_name", "start_line",
                                                                         "end_line", "chunk_id", "text")},
                                                    "bundle_id": bundle, "position": pos, "content_hash": "h",
                                                    "token_count": 0, "retrieval_method": "bm25",
                                                    "relevance_score": 1.0, "retrieval_rank": pos})
            store._db["answers"].insert({"run_id": run, "question_pk": q, "method": "bundle", "budget": 2000,
                                        "status": "ok", "text": answer, "bundle_id": bundle, "created_at": now})
    store.close()
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    funcs = stdlib_functions(max(200, args.questions * 2))
    rates = []
    for r in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.db"
            run = build(path, args.questions, funcs, random.Random(r))
            with open_store(path) as store:
                started = time.perf_counter()
                report = grade_offline(store, run)
                elapsed = time.perf_counter() - started
            rates.append(report.rule_graded / elapsed)
            print(f"repeat {r + 1}: {report.rule_graded} answers in {elapsed:.2f} s ({rates[-1]:.0f} answers/s)",
                  file=sys.stderr)
    median = statistics.median(rates)
    print(f"grade_offline: median {median:.0f} answers/s over {args.repeats} repeats "
          f"({args.questions * 2} answers each); goal >= {GOAL:.0f}: {'met' if median >= GOAL else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
