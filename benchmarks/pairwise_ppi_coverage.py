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

    python benchmarks/pairwise_ppi_coverage.py [--reps 500] [--pairs 1000] [--draws 100] [--accuracy 0.8]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from gradedesk.core.review.sampler import PAIRWISE_DOUBT, draw, draw_probabilities
from gradedesk.core.stats.weighted import ppi_mean

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


def one_repetition(seed: int, pairs: int, draws: int, win_rate: float, accuracy: float, boot: int) -> dict:
    rng = np.random.default_rng(seed)
    truth, judge, consistent = population(rng, pairs, win_rate, accuracy)
    probs = draw_probabilities([0.5 + (0 if c else PAIRWISE_DOUBT) for c in consistent])
    picker = random.Random(seed)
    picked = [draw(picker, probs) for _ in range(draws)]
    weights = [1.0 / (pairs * probs[i]) for i in picked]
    ppi, _ = ppi_mean(judge, truth[picked], judge[picked], weights, boot=boot, seed=seed)
    # people alone: the same weighted correction of a judge that predicts 0 everywhere (the Hajek mean of the draws)
    people, _ = ppi_mean(np.zeros(pairs), truth[picked], np.zeros(draws), weights, boot=boot, seed=seed)
    judge_only = float(judge[consistent].mean())
    return {"ppi": ppi, "people": people, "judge_only": judge_only}


def coverage(reps: int, pairs: int, draws: int, win_rate: float = 0.6, accuracy: float = 0.8, boot: int = 1000,
             first_seed: int = 1) -> dict:
    rows = [one_repetition(first_seed + r, pairs, draws, win_rate, accuracy, boot) for r in range(reps)]
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
    args = parser.parse_args()
    start = time.perf_counter()
    out = coverage(args.reps, args.pairs, args.draws, args.win_rate, args.accuracy)
    print(f"{out['reps']} repetitions, {out['pairs']} pairs, {out['draws']} sampled preferences each, true win rate "
          f"{out['win_rate']}, judge accuracy {out['accuracy']} on its consistent verdicts "
          f"({time.perf_counter() - start:.1f} s)")
    print(f"prediction-powered: 95% interval covers the true win rate {out['ppi_coverage']:.1%}, mean width "
          f"{out['ppi_width']:.3f}, mean bias {out['ppi_bias']:+.4f}")
    print(f"people only (weighted): covers {out['people_coverage']:.1%}, mean width {out['people_width']:.3f}")
    print(f"judge only (consistent verdicts): mean bias {out['judge_only_bias']:+.4f}")


if __name__ == "__main__":
    main()
