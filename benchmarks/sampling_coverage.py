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

With --graders K, a team grades the run as `gradedesk assign` and the desk share it out: a seeded simple random
sample of --sample items (core/review/assignment.py sample_items), each given to --overlap of K people
(plan_assignment), and each person draws --draws items from their own set (every person has their own grades, right
at the same rate). Each draw is weighed by 1 / (pi * q), pi the assignment's inclusion probability of the item in the
person's set (core/store/assignments.py AssignedSet), q its probability in the draw; the truth is the people's mean
agreement with the judge over all N items. The interval resamples the draws by item, all of an item's draws together
(core/stats/weighted.py first_stage_clusters), as `agree` does for draws from assigned sets.
tests/core/agreement/test_weighted.py runs a smaller version too.

With both, each budget's population is graded by the same assigned team (the sets are of questions, whatever the
budget, so pi is the same at every budget; q is within the budget's population).

    python benchmarks/sampling_coverage.py [--reps 500] [--items 2000] [--draws 150] [--budgets 2]
    python benchmarks/sampling_coverage.py --graders 3 --overlap 2 --sample 600 --draws 60
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from gradedesk.core.review.assignment import plan_assignment, sample_items
from gradedesk.core.review.sampler import draw, draw_probabilities, uncertainty
from gradedesk.core.stats.measures import estimates, pair_measures
from gradedesk.core.stats.weighted import first_stage_clusters, kish_effective_n, weighted_estimates
from gradedesk.core.store.assignments import AssignedSet

GRADES = 2  # pass / fail: enough to show the bias, and the same arithmetic as four levels


def population(rng: np.random.Generator, items: int, person_accuracy: float) -> tuple[np.ndarray, np.ndarray]:
    """(cells, confidence): each item's (person, judge) cell and the judge's confidence."""
    truth = rng.integers(0, GRADES, items)
    confidence = rng.uniform(0.5, 1.0, items)
    judge = np.where(rng.random(items) < confidence, truth, 1 - truth)
    person = np.where(rng.random(items) < person_accuracy, truth, 1 - truth)
    return person * GRADES + judge, confidence


def _estimates(cells: np.ndarray, weights: np.ndarray, boot: int, seed: int,
               clusters: np.ndarray | None = None) -> dict:
    """The weighted and the naive percent agreement of the drawn cells, and the draws' Kish effective n."""
    measure = [m for m in pair_measures() if m.name == "percent_agreement"]
    w = weighted_estimates(cells, weights, GRADES, measure, boot=boot, seed=seed,
                           clusters=clusters)["percent_agreement"]
    naive_cm = np.bincount(cells, minlength=GRADES * GRADES).reshape(GRADES, GRADES)
    n = estimates(naive_cm, measure, boot=boot, seed=seed)["percent_agreement"]
    return {"weighted": w, "naive": n, "kish": kish_effective_n(weights)}


def _seeds(seed: int, budget: int) -> tuple[int | list[int], int | str]:
    """The population's and the draws' seeds of one repetition at one budget (budget 0: the one-budget run's)."""
    return (seed, seed) if budget == 0 else ([seed, budget], f"{seed}:{budget}")


def one_repetition(seed: int, items: int, draws: int, person_accuracy: float, boot: int, budget: int = 0) -> dict:
    """One population (the bundled answers at one budget, with raw) and its draws."""
    population_seed, draw_seed = _seeds(seed, budget)
    rng = np.random.default_rng(population_seed)
    cells, confidence = population(rng, items, person_accuracy)
    truth = float(np.mean(cells // GRADES == cells % GRADES))
    probs = draw_probabilities([uncertainty(c) for c in confidence])  # within this budget's population
    picker = random.Random(draw_seed)
    picked = [draw(picker, probs) for _ in range(draws)]
    weights = np.array([1.0 / probs[i] for i in picked])  # pi = 1: every draw chooses from the whole run
    return {"truth": truth, **_estimates(cells[picked], weights, boot, seed), "budget": budget}


def one_team_repetition(seed: int, items: int, draws: int, person_accuracy: float, boot: int, graders: int,
                        overlap: int, sample: int, budget: int = 0) -> dict:
    """One run graded by a team: assigned with overlap, each person drawing `draws` items from their own set (within
    the population at `budget`; the assignment is the same at every budget)."""
    population_seed, draw_seed = _seeds(seed, budget)
    rng = np.random.default_rng(population_seed)
    truth_grades = rng.integers(0, GRADES, items)
    confidence = rng.uniform(0.5, 1.0, items)
    judge = np.where(rng.random(items) < confidence, truth_grades, 1 - truth_grades)
    people = [f"p{g}" for g in range(graders)]
    person = {p: np.where(rng.random(items) < person_accuracy, truth_grades, 1 - truth_grades) for p in people}
    truth = float(np.mean([np.mean(person[p] == judge) for p in people]))
    pool, sampled = sample_items(range(items), sample, seed)
    plan = plan_assignment(pool, people, overlap, seed)
    picker = random.Random(draw_seed)
    cells, weights, drawn, pis = [], [], [], []
    for p in people:
        mine = [i for i in pool if p in plan.people[i]]
        pi = AssignedSet(len(mine), len(pool), sampled).inclusion_probability
        probs = draw_probabilities([uncertainty(confidence[i]) for i in mine])
        for _ in range(draws):
            k = draw(picker, probs)
            cells.append(person[p][mine[k]] * GRADES + judge[mine[k]])
            weights.append(1.0 / (pi * probs[k]))
            drawn.append(mine[k])
            pis.append(pi)
    return {"truth": truth, **_estimates(np.array(cells, dtype=np.int64), np.array(weights), boot, seed,
                                         first_stage_clusters(drawn, pis)), "budget": budget}


def coverage(reps: int, items: int, draws: int, person_accuracy: float = 0.9, boot: int = 1000,
             first_seed: int = 1, graders: int = 0, overlap: int = 2, sample: int | None = None,
             budgets: int = 1) -> dict:
    """Coverage and bias over `reps` seeded runs at `budgets` budgets each; with `graders`, each run graded by an
    assigned team."""
    if graders:
        rows = [one_team_repetition(first_seed + r, items, draws, person_accuracy, boot, graders, overlap,
                                    sample or items, b) for r in range(reps) for b in range(budgets)]
    else:
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
    parser.add_argument("--graders", type=int, default=0, help="a team of K people, assigned with overlap (0: one "
                                                                "person drawing from the whole run)")
    parser.add_argument("--overlap", type=int, default=2, help="people per assigned item (with --graders)")
    parser.add_argument("--sample", type=int, default=None, help="assign a random sample of this many items "
                                                                 "(with --graders; default all)")
    parser.add_argument("--budgets", type=int, default=1, help="bundled budgets, each its own population")
    args = parser.parse_args()
    start = time.perf_counter()
    out = coverage(args.reps, args.items, args.draws, args.person_accuracy, graders=args.graders,
                   overlap=args.overlap, sample=args.sample, budgets=args.budgets)
    team = (f", {args.graders} people assigned {args.sample or args.items} items with overlap {args.overlap}, "
            f"{out['draws']} draws per person from their own set" if args.graders else
            f", {out['draws']} sampled draws each")
    print(f"{out['reps']} repetitions, {out['budgets']} budget(s) of {out['items']} items{team} "
          f"({time.perf_counter() - start:.1f} s)")
    print(f"weighted (Hajek):   95% interval covers the truth {out['weighted_coverage']:.1%}, "
          f"mean bias {out['weighted_bias']:+.4f}, median Kish effective n {out['median_kish_n']:.0f}")
    if out["budgets"] > 1:
        print("  by budget: " + ", ".join(f"budget {b + 1} {c:.1%}"
                                          for b, c in enumerate(out["weighted_coverage_by_budget"])))
    print(f"naive (unweighted): 95% interval covers the truth {out['naive_coverage']:.1%}, "
          f"mean bias {out['naive_bias']:+.4f}")


if __name__ == "__main__":
    main()
