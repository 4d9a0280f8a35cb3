"""Does the prediction-powered win rate of bundled over raw cover the truth? A simulation with a known true win rate.

Each repetition makes N answer pairs whose true preference is bundled, tie or raw with a known true win rate (a tie
counts half), and a synthetic pairwise judge of known accuracy: its verdict is consistent across orders with a fixed
probability (then right with probability `accuracy`, else one of the two wrong choices) and otherwise inconsistent (no
verdict; the win rate takes it as a tie). People state the true preference on M questions that the desk's sampler
(core/review/sampler.py) draws, preferring the pairs whose judge verdict is doubtful, as the desk's routing does; the
prediction-powered estimate (core/stats/weighted.py `ppi_mean`, as `agree` computes it) corrects the judge with those
draws, each weighted by 1 / (N x probability). It prints how often the 95% interval covers the true win rate (it should
be 92-98%), its mean width against a people-only weighted estimate's, and the judge-only estimate's bias.
tests/core/agreement/test_pairwise_win_rates.py runs a smaller version.

With --sample S, a team states the preferences as `gradedesk assign --items S` shares them out: a seeded simple random
sample of S pairs (core/review/assignment.py sample_items), each given to --overlap of --graders people, and each person
draws --draws questions from their own set; each draw is weighed by 1 / (pi x probability), pi the assignment's
inclusion probability of the question in the person's set (core/store/assignments.py AssignedSet), as the desk's
draws record it. The judge still gives a verdict on every pair. The interval resamples the draws by pair, all of a
pair's draws together (core/stats/weighted.py first_stage_clusters), as `agree` does for draws from assigned sets.

    python benchmarks/pairwise_ppi_coverage.py [--reps 500] [--pairs 1000] [--draws 100] [--accuracy 0.8]
    python benchmarks/pairwise_ppi_coverage.py --sample 300 --graders 3 --overlap 2 --draws 60
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from gradedesk.core.review.assignment import plan_assignment, sample_items
from gradedesk.core.review.sampler import PAIRWISE_DOUBT, draw, draw_probabilities
from gradedesk.core.stats.weighted import first_stage_clusters, ppi_mean
from gradedesk.core.store.assignments import AssignedSet

TIE_SHARE = 0.1  # of true preferences
CONSISTENT = 0.8  # the judge's verdicts that agree across orders


CHOICES = np.array([1.0, 0.5, 0.0])  # bundled, tie, raw


def population(rng: np.random.Generator, pairs: int, win_rate: float,
               accuracy: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(truth, judge, consistent): each pair's true value (1 bundled, 0.5 tie, 0 raw), the judge's (0.5 where it is
    inconsistent) and whether it is consistent."""
    bundle = win_rate - TIE_SHARE / 2
    true_idx = rng.choice(3, size=pairs, p=[bundle, TIE_SHARE, 1 - bundle - TIE_SHARE])
    wrong_idx = (true_idx + rng.integers(1, 3, pairs)) % 3  # one of the two other choices
    judge_idx = np.where(rng.random(pairs) < accuracy, true_idx, wrong_idx)
    consistent = rng.random(pairs) < CONSISTENT
    return CHOICES[true_idx], np.where(consistent, CHOICES[judge_idx], 0.5), consistent


def drawn(seed: int, consistent: np.ndarray, draws: int, team: tuple[int, int, int] | None
          ) -> tuple[list[int], list[float], list[float]]:
    """(the pairs drawn, each draw's weight 1 / (N x pi x probability), each draw's pi): one person drawing from every
    pair, or with `team` (sample, graders, overlap) each person of an assigned team from their own set."""
    doubt = [0.5 + (0 if c else PAIRWISE_DOUBT) for c in consistent]
    picker = random.Random(seed)
    if team is None:
        probs = draw_probabilities(doubt)
        picked = [draw(picker, probs) for _ in range(draws)]
        return picked, [1.0 / (len(doubt) * probs[i]) for i in picked], [1.0] * draws
    sample, graders, overlap = team
    pool, sampled = sample_items(range(len(doubt)), sample, seed)
    people = [f"p{g}" for g in range(graders)]
    plan = plan_assignment(pool, people, overlap, seed)
    picked, weights, pis = [], [], []
    for p in people:
        mine = [i for i in pool if p in plan.people[i]]
        pi = AssignedSet(len(mine), len(pool), sampled).inclusion_probability
        probs = draw_probabilities([doubt[i] for i in mine])
        for _ in range(draws):
            k = draw(picker, probs)
            picked.append(mine[k])
            weights.append(1.0 / (len(doubt) * pi * probs[k]))
            pis.append(pi)
    return picked, weights, pis


def one_repetition(seed: int, pairs: int, draws: int, win_rate: float, accuracy: float, boot: int,
                   team: tuple[int, int, int] | None = None) -> dict:
    rng = np.random.default_rng(seed)
    truth, judge, consistent = population(rng, pairs, win_rate, accuracy)
    picked, weights, pis = drawn(seed, consistent, draws, team)
    draws = len(picked)
    clusters = first_stage_clusters(picked, pis)  # a sampled assignment's draws resampled by pair, as `agree` does
    ppi, _ = ppi_mean(judge, truth[picked], judge[picked], weights, boot=boot, seed=seed, clusters=clusters)
    # people alone: the same weighted correction of a judge that predicts 0 everywhere (the Hajek mean of the draws)
    people, _ = ppi_mean(np.zeros(pairs), truth[picked], np.zeros(draws), weights, boot=boot, seed=seed,
                         clusters=clusters)
    judge_only = float(judge[consistent].mean())
    return {"ppi": ppi, "people": people, "judge_only": judge_only}


def coverage(reps: int, pairs: int, draws: int, win_rate: float = 0.6, accuracy: float = 0.8, boot: int = 1000,
             first_seed: int = 1, team: tuple[int, int, int] | None = None) -> dict:
    """Coverage, width and bias over `reps` seeded runs; with `team` (sample, graders, overlap), the preferences come
    from an assigned team's draws."""
    rows = [one_repetition(first_seed + r, pairs, draws, win_rate, accuracy, boot, team) for r in range(reps)]
    return {
        "reps": reps, "pairs": pairs, "draws": draws, "win_rate": win_rate, "accuracy": accuracy,
        "ppi_coverage": sum(r["ppi"].low <= win_rate <= r["ppi"].high for r in rows) / reps,
        "ppi_width": statistics.fmean(r["ppi"].high - r["ppi"].low for r in rows),
        "people_coverage": sum(r["people"].low <= win_rate <= r["people"].high for r in rows) / reps,
        "people_width": statistics.fmean(r["people"].high - r["people"].low for r in rows),
        "ppi_bias": statistics.fmean(r["ppi"].value - win_rate for r in rows),
        "judge_only_bias": statistics.fmean(r["judge_only"] - win_rate for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--win-rate", type=float, default=0.6)
    parser.add_argument("--accuracy", type=float, default=0.8)
    parser.add_argument("--sample", type=int, default=None, help="a team states the preferences: this many pairs "
                                                                 "assigned, a simple random sample (default: one "
                                                                 "person drawing from every pair)")
    parser.add_argument("--graders", type=int, default=3, help="people in the team (with --sample)")
    parser.add_argument("--overlap", type=int, default=2, help="people per assigned pair (with --sample)")
    args = parser.parse_args()
    start = time.perf_counter()
    team = (args.sample, args.graders, args.overlap) if args.sample else None
    out = coverage(args.reps, args.pairs, args.draws, args.win_rate, args.accuracy, team=team)
    if team:
        print(f"{args.graders} people assigned a sample of {args.sample} pairs with overlap {args.overlap}, "
              f"{out['draws']} draws per person from their own set")
    print(f"{out['reps']} repetitions, {out['pairs']} pairs, {out['draws']} sampled preferences each, true win rate "
          f"{out['win_rate']}, judge accuracy {out['accuracy']} on its consistent verdicts "
          f"({time.perf_counter() - start:.1f} s)")
    print(f"prediction-powered: 95% interval covers the true win rate {out['ppi_coverage']:.1%}, mean width "
          f"{out['ppi_width']:.3f}, mean bias {out['ppi_bias']:+.4f}")
    print(f"people only (weighted): covers {out['people_coverage']:.1%}, mean width {out['people_width']:.3f}")
    print(f"judge only (consistent verdicts): mean bias {out['judge_only_bias']:+.4f}")


if __name__ == "__main__":
    main()
