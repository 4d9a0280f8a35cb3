"""Agreement at scale: how long `gradedesk agree`, the desk's "most useful next" order and a merge take on a big store.

    python benchmarks/agree_scale.py [--questions 100000] [--graded 4000] [--repeats 3]

Builds (once, cached under /tmp) a store with one run of QUESTIONS questions, each answered raw and bundled (so 2x
answers), every answer graded by a judge with a confidence, and GRADED answers graded by two people. Prints the median
wall time of: the full agreement report (2000 bootstrap resamples per interval), a draw of the desk's sampler (most useful order), and
merging a copy of the store into itself (the idempotent no-op pass that reads every grade).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gradedesk.core.agreement.report import agreement_report  # noqa: E402
from gradedesk.core.grading.vocabulary import GRADES  # noqa: E402
from gradedesk.core.exchange.merge import merge_store  # noqa: E402
from gradedesk.core.review.sampler import draw_next  # noqa: E402
from gradedesk.core.store.run_records import run_info  # noqa: E402
from gradedesk.core.store.connection import open_store  # noqa: E402

CREATED = "2026-01-01T00:00:00+00:00"


def build(path: Path, questions: int, graded: int) -> None:
    rng = random.Random(1)
    store = open_store(path)
    with store.transaction():
        c = store._conn
        c.execute("INSERT INTO runs (id, created_at, provider, budgets, primary_budget, order_seed, config) "
                  "VALUES (1, ?, 'offline-extractive', '[2000]', 2000, 1, '{\"key\": \"scale\"}')", (CREATED,))
        c.executemany("INSERT INTO questions (id, benchmark, question_id, question, category, created_at) "
                      "VALUES (?, 'scale', ?, 'q?', ?, ?)",
                      ((i, f"q{i}", f"cat{i % 7}", CREATED) for i in range(1, questions + 1)))
        c.executemany("INSERT INTO answers (id, run_id, question_pk, method, budget, status, text, tokens_in, "
                      "created_at) VALUES (?, 1, ?, ?, ?, 'ok', 'answer', ?, ?)",
                      ((2 * i - (m == "raw"), i, m, 0 if m == "raw" else 2000, 400 if m == "raw" else 1900, CREATED)
                       for i in range(1, questions + 1) for m in ("raw", "bundle")))
        c.executemany("INSERT INTO auto_grades (answer_id, grader_kind, grader_model, grade, confidence, created_at) "
                      "VALUES (?, 'judge', 'judge', ?, ?, ?)",
                      ((a, rng.choice(GRADES), round(rng.random(), 3), CREATED) for a in range(1, 2 * questions + 1)))
        picked = rng.sample(range(1, 2 * questions + 1), graded)
        c.executemany("INSERT INTO human_grades (uuid, answer_id, grader, action, grade, mode, created_at) "
                      "VALUES (?, ?, ?, 'set', ?, 'blind', ?)",
                      ((str(uuid.UUID(int=rng.getrandbits(128))), a, who, rng.choice(GRADES), CREATED)
                       for a in picked for who in ("alice", "bob")))
    store.close()


def median_seconds(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--graded", type=int, default=4_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    path = Path(f"/tmp/gradedesk_agree_scale_{args.questions}_{args.graded}.db")
    if not path.exists():
        print(f"building {path} ...", file=sys.stderr)
        partial = path.with_suffix(".building")
        for stale in partial.parent.glob(partial.name + "*"):
            stale.unlink()
        build(partial, args.questions, args.graded)
        partial.rename(path)
    copy = path.with_suffix(".copy.db")
    shutil.copy(path, copy)
    with open_store(path, create=False) as store:
        report_s = median_seconds(lambda: agreement_report(store, 1), args.repeats)
        run = run_info(store, 1)
        order_s = median_seconds(lambda: draw_next(store, run, "carol"), args.repeats)
        merge_s = median_seconds(lambda: merge_store(store, copy), args.repeats)
    copy.unlink()
    answers, grades = 2 * args.questions, 2 * args.graded
    print(f"store: {answers:,} answers, {answers:,} judge grades, {grades:,} human grades (2 people)")
    print(f"agreement report (2000 resamples per interval): median {report_s:.2f} s")
    print(f"sampler draw (most useful order, one item): median {order_s * 1000:.0f} ms")
    print(f"merge of a full copy (idempotent, nothing new): median {merge_s:.2f} s")


if __name__ == "__main__":
    main()
