"""Do the desk's weighted estimates stay honest when its sampler chooses what people grade? A simulation with known truth.

A run of N items: the judge is right with a probability equal to its confidence (uniform in [0.5, 1]), the person is
right at a fixed rate; the truth is the person-vs-judge agreement over all N items. The desk's sampler
(core/review/sampler.py) draws M items, preferring those the judge is unsure of. Over many seeded repetitions this
prints how often the weighted 95% interval covers the truth, against the naive (unweighted) estimate's bias and
coverage. tests/core/agreement/test_weighted.py runs a smaller version of the same simulation.

    python benchmarks/sampling_coverage.py [--reps 500] [--items 2000] [--draws 150]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from gradedesk.core.stats.measures import estimates, pair_measures
from gradedesk.core.stats.weighted import kish_effective_n, weighted_estimates
from gradedesk.core.review.sampler import draw, draw_probabilities, uncertainty

GRADES = 2  # pass / fail: enough to show the bias, and the same arithmetic as four levels


def population(rng: np.random.Generator, items: int, person_accuracy: float) -> tuple[np.ndarray, np.ndarray]:
    """(cells, confidence): each item's (person, judge) cell and the judge's confidence."""
    truth = rng.integers(0, GRADES, items)
    confidence = rng.uniform(0.5, 1.0, items)
    judge = np.where(rng.random(items) < confidence, truth, 1 - truth)
    person = np.where(rng.random(items) < person_accuracy, truth, 1 - truth)
    return person * GRADES + judge, confidence


def one_repetition(seed: int, items: int, draws: int, person_accuracy: float, boot: int) -> dict:
    rng = np.random.default_rng(seed)
    cells, confidence = population(rng, items, person_accuracy)
    truth = float(np.mean(cells // GRADES == cells % GRADES))
    probs = draw_probabilities([uncertainty(c) for c in confidence])
    picker = random.Random(seed)
    picked = [draw(picker, probs) for _ in range(draws)]
    weights = np.array([1.0 / (items * probs[i]) for i in picked])
    measure = [m for m in pair_measures() if m.name == "percent_agreement"]
    w = weighted_estimates(cells[picked], weights, GRADES, measure, boot=boot, seed=seed)["percent_agreement"]
    naive_cm = np.bincount(cells[picked], minlength=GRADES * GRADES).reshape(GRADES, GRADES)
    n = estimates(naive_cm, measure, boot=boot, seed=seed)["percent_agreement"]
    return {"truth": truth, "weighted": w, "naive": n, "kish": kish_effective_n(weights)}


def coverage(reps: int, items: int, draws: int, person_accuracy: float = 0.9, boot: int = 1000,
             first_seed: int = 1) -> dict:
    rows = [one_repetition(first_seed + r, items, draws, person_accuracy, boot) for r in range(reps)]

    def covered(key: str) -> float:
        return sum(r[key].low <= r["truth"] <= r[key].high for r in rows) / reps

    return {
        "reps": reps, "items": items, "draws": draws,
        "weighted_coverage": covered("weighted"), "naive_coverage": covered("naive"),
        "weighted_bias": statistics.fmean(r["weighted"].value - r["truth"] for r in rows),
        "naive_bias": statistics.fmean(r["naive"].value - r["truth"] for r in rows),
        "median_kish_n": statistics.median(r["kish"] for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--draws", type=int, default=150)
    parser.add_argument("--person-accuracy", type=float, default=0.9)
    args = parser.parse_args()
    start = time.perf_counter()
    out = coverage(args.reps, args.items, args.draws, args.person_accuracy)
    print(f"{out['reps']} repetitions, {out['items']} items, {out['draws']} sampled draws each "
          f"({time.perf_counter() - start:.1f} s)")
    print(f"weighted (Hajek):   95% interval covers the truth {out['weighted_coverage']:.1%}, "
          f"mean bias {out['weighted_bias']:+.4f}, median Kish effective n {out['median_kish_n']:.0f}")
    print(f"naive (unweighted): 95% interval covers the truth {out['naive_coverage']:.1%}, "
          f"mean bias {out['naive_bias']:+.4f}")


if __name__ == "__main__":
    main()
