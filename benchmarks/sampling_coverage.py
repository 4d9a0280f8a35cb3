"""Do the desk's weighted estimates stay honest when its sampler chooses what people grade? A simulation with known truth.

A run of N items: the judge is right with a probability equal to its confidence (uniform in [0.5, 1]), the person is
right at a fixed rate; the truth is the person-vs-judge agreement over all N items. The desk's sampler
(core/review/sampler.py) draws M items, preferring those the judge is unsure of. Over many seeded repetitions this
prints how often the weighted 95% interval covers the truth, against the naive (unweighted) estimate's bias and
coverage. tests/core/agreement/test_weighted.py runs a smaller version of the same simulation.

With --budgets K the run's bundled answers come at K budgets (the desk shows raw beside any one of them): each budget
is its own population of N items (other answers, other judge confidences), the person draws M items from each with
the probabilities of that budget's population (as the desk's draws record their budget), and each budget's weighted
estimate is checked against that budget's truth; coverage is over every (repetition, budget), and per budget.

    python benchmarks/sampling_coverage.py [--reps 500] [--items 2000] [--draws 150] [--budgets 2]
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


def one_repetition(seed: int, items: int, draws: int, person_accuracy: float, boot: int, budget: int = 0) -> dict:
    """One population (the bundled answers at one budget, with raw) and its draws; budget 0 is the one-budget run."""
    rng = np.random.default_rng(seed if budget == 0 else [seed, budget])
    cells, confidence = population(rng, items, person_accuracy)
    truth = float(np.mean(cells // GRADES == cells % GRADES))
    probs = draw_probabilities([uncertainty(c) for c in confidence])  # within this budget's population
    picker = random.Random(seed if budget == 0 else f"{seed}:{budget}")
    picked = [draw(picker, probs) for _ in range(draws)]
    weights = np.array([1.0 / (items * probs[i]) for i in picked])
    measure = [m for m in pair_measures() if m.name == "percent_agreement"]
    w = weighted_estimates(cells[picked], weights, GRADES, measure, boot=boot, seed=seed)["percent_agreement"]
    naive_cm = np.bincount(cells[picked], minlength=GRADES * GRADES).reshape(GRADES, GRADES)
    n = estimates(naive_cm, measure, boot=boot, seed=seed)["percent_agreement"]
    return {"truth": truth, "weighted": w, "naive": n, "kish": kish_effective_n(weights), "budget": budget}


def coverage(reps: int, items: int, draws: int, person_accuracy: float = 0.9, boot: int = 1000,
             first_seed: int = 1, budgets: int = 1) -> dict:
    rows = [one_repetition(first_seed + r, items, draws, person_accuracy, boot, b)
            for r in range(reps) for b in range(budgets)]

    def covered(key: str, of: list[dict] = rows) -> float:
        return sum(r[key].low <= r["truth"] <= r[key].high for r in of) / len(of)

    return {
        "reps": reps, "items": items, "draws": draws, "budgets": budgets,
        "weighted_coverage_by_budget": [covered("weighted", [r for r in rows if r["budget"] == b])
                                        for b in range(budgets)],
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
    parser.add_argument("--budgets", type=int, default=1, help="bundled budgets, each its own population")
    args = parser.parse_args()
    start = time.perf_counter()
    out = coverage(args.reps, args.items, args.draws, args.person_accuracy, budgets=args.budgets)
    print(f"{out['reps']} repetitions, {out['budgets']} budget(s) of {out['items']} items, {out['draws']} sampled "
          f"draws each ({time.perf_counter() - start:.1f} s)")
    print(f"weighted (Hajek):   95% interval covers the truth {out['weighted_coverage']:.1%}, "
          f"mean bias {out['weighted_bias']:+.4f}, median Kish effective n {out['median_kish_n']:.0f}")
    if out["budgets"] > 1:
        print("  by budget: " + ", ".join(f"budget {b + 1} {c:.1%}"
                                          for b, c in enumerate(out["weighted_coverage_by_budget"])))
    print(f"naive (unweighted): 95% interval covers the truth {out['naive_coverage']:.1%}, "
          f"mean bias {out['naive_bias']:+.4f}")


if __name__ == "__main__":
    main()
