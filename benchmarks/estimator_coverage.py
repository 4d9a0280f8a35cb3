"""Does every interval gradedesk prints cover the truth, whichever way its items were drawn? A simulation with known
truth, one table for every estimator the desk, `agree` and `summary` print.

Each repetition makes a run of --items items (1,000) twice: questions with a bundled answer a person would pass or
fail (60% pass) and a raw answer beside it (passed 65% of the time where the bundled one is, 15% where not: 45%),
and answer pairs a person would call bundled better, a tie or raw better (55%, 10%, 35%; a tie counts half). People's
grades are the truth the figures estimate (the run's pass rate, its bundled - raw difference and its win rate as
people would grade all of it, and the people's agreement with the judge over all of it). A judge grades every item:

- good: right with probability c, c uniform in [0.8, 1] (accuracy 0.9); wrong means one of the other values;
- poor: the same with c uniform in [0.2, 1] (accuracy 0.6);
- biased: passes (prefers the bundle) 20 points too often: an item people would not pass is passed with probability
  2 (1 - c), c uniform in [0.5, 1]; right otherwise.

c is the judge's confidence (the sampler's uncertainty is 1 - c). People's grades come in by one of four designs, as
the desk records them (core/review/sampler.py, core/review/assignment.py, core/store/assignments.py):

- one person: draws from the whole run with equal probabilities (the sampler when the judge gives no confidence);
- team with overlap: every item assigned to 2 of 3 people, each drawing from their own set, preferring the items the
  judge is unsure of (the desk's 'most useful' order);
- sampled assignment: `assign --items 300`: a simple random sample of 300 items assigned, 2 of 3 people each, drawn
  as the team draws;
- uncertainty-driven draws: one person drawing from the whole run, preferring the items the judge is unsure of.

Every draw weighs 1 / (pi q) (pi: the item's inclusion probability in the person's set; q: its draw probability), and
each estimator is the function `agree` calls, with the clusters `agree` gives it (core/stats/weighted.py
first_stage_clusters); a person who draws a question grades both its answers, so the paired difference rests on the
pass rate's draws. A bundled pass rate at another budget is the same function on that budget's answers and draws, so
one budget stands for all. With 30, 100 and 300 people's grades (draws in all), per cell: how often the 95% interval
covered the truth (with its Monte Carlo standard error), the mean width, the mean bias, and for the power-tuned
estimates the median of lambda. Two figures are reported, not gated: Rogan-Gladen (the judge's pass rate corrected by
its TPR/TNR on the person-graded answers, unweighted, as `agree` and `summary` compute it) and the agreement over all
graded items unweighted (`agree`'s headline tables, which say they mix the samples): neither has weights, so a design
that prefers some items biases them, which is why the weighted figures exist. The goals are printed as lines at the
end.

It took in benchmarks/sampling_coverage.py (the weighted agreement, people's grades drawn one by one, by a team and
from a sampled assignment) and benchmarks/pairwise_ppi_coverage.py (the prediction-powered win rate).
tests/core/agreement/test_estimator_coverage.py runs a smaller version.

    python benchmarks/estimator_coverage.py [--reps 1000] [--boot 1000] [--items 1000]
        [--judges good,poor] [--designs one,sampled] [--sizes 30,100]

--judges, --designs and --sizes keep only the cells named (a judge or design by the start of its name), to try a
change on the cells it concerns; the goals then speak of those cells only.

Ctrl-C stops it early and prints the table of the repetitions done, saying how many.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gradedesk.core.review.assignment import plan_assignment, sample_items
from gradedesk.core.review.sampler import draw_probabilities
from gradedesk.core.stats.measures import Estimate, estimates, pair_measures
from gradedesk.core.stats.rogan_gladen import corrected_pass_rate
from gradedesk.core.stats.weighted import first_stage_clusters, ppi_mean, weighted_estimates, weighted_mean
from gradedesk.core.store.assignments import AssignedSet

PASS_LEVELS, PASS_SHARES = np.array([1.0, 0.0]), np.array([0.6, 0.4])
WIN_LEVELS, WIN_SHARES = np.array([1.0, 0.5, 0.0]), np.array([0.55, 0.10, 0.35])
JUDGES = ("good (0.9)", "poor (0.6)", "biased (+0.20)")
DESIGNS = ("one person", "team with overlap", "sampled assignment", "uncertainty-driven draws")
SIZES = (30, 100, 300)
TEAM, OVERLAP, ASSIGNED = 3, 2, 300
NOT_GATED = ("pass rate, Rogan-Gladen", "agreement, unweighted (all graded)")
AGREEMENT = [m for m in pair_measures() if m.name == "percent_agreement"]


@dataclass
class Population:
    truth: np.ndarray  # people's value of every item
    judge: np.ndarray  # the judge's value of every item
    confidence: np.ndarray  # the judge's confidence


def population(rng: np.random.Generator, levels: np.ndarray, shares: np.ndarray, judge: str, items: int) -> Population:
    return judged(rng, rng.choice(levels, size=items, p=shares), levels, judge)


def judged(rng: np.random.Generator, truth: np.ndarray, levels: np.ndarray, judge: str) -> Population:
    """People's values `truth` with the judge's value and confidence of each item."""
    items = truth.size
    if judge.startswith("biased"):
        c = rng.uniform(0.5, 1.0, items)
        top = levels.max()
        flipped = (truth != top) & (rng.random(items) < 2 * (1 - c))
        return Population(truth, np.where(flipped, top, truth), c)
    low = 0.8 if judge.startswith("good") else 0.2
    c = rng.uniform(low, 1.0, items)
    # wrong: one of the other values, at random
    index = np.searchsorted(-levels, -truth)
    other = levels[(index + rng.integers(1, levels.size, items)) % levels.size]
    return Population(truth, np.where(rng.random(items) < c, truth, other), c)


def raw_beside(rng: np.random.Generator, bundled: Population, judge: str) -> Population:
    """The raw answers to the same questions: people pass one with probability 0.65 where they passed the bundled
    answer and 0.15 where they did not (raw passes 45%: bundled - raw is 0.15), graded by the same kind of judge."""
    truth = np.where(bundled.truth == 1, rng.random(bundled.truth.size) < 0.65,
                     rng.random(bundled.truth.size) < 0.15).astype(float)
    return judged(rng, truth, PASS_LEVELS, judge)


@dataclass
class Draws:
    items: np.ndarray  # the item of each draw
    weights: np.ndarray  # 1 / (pi q)
    pis: np.ndarray  # inclusion probability of the item in the drawing person's set
    people: np.ndarray  # who drew it


@functools.lru_cache(maxsize=4)
def assigned_sets(items: int, sample: int | None, seed: int) -> list[tuple[np.ndarray, float]]:
    """Each person's assigned items and their inclusion probability, as `assign [--items S]` plans them (the same for
    every judge and size of one repetition)."""
    pool, sampled = sample_items(range(items), sample, seed)
    people = [f"p{g}" for g in range(TEAM)]
    plan = plan_assignment(pool, people, OVERLAP, seed)
    out = []
    for person in people:
        mine = np.array([i for i in pool if person in plan.people[i]])
        out.append((mine, AssignedSet(mine.size, len(pool), sampled).inclusion_probability))
    return out


@dataclass
class DrawingSet:
    """One person's items, the sampler's probability of each, and the items' inclusion probability in the set."""

    members: np.ndarray
    q: np.ndarray
    pi: float


def drawing_sets(design: str, confidence: np.ndarray, seed: int) -> list[DrawingSet]:
    """Who draws from which items, with which probabilities, under `design` (the same for every n)."""
    items = confidence.size
    if design in ("one person", "uncertainty-driven draws"):
        useful = np.ones(items) if design == "one person" else 1 - confidence
        return [DrawingSet(np.arange(items), np.asarray(draw_probabilities(useful.tolist())), 1.0)]
    return [DrawingSet(mine, np.asarray(draw_probabilities((1 - confidence[mine]).tolist())), pi)
            for mine, pi in assigned_sets(items, ASSIGNED if design == "sampled assignment" else None, seed)]


def draws(rng: np.random.Generator, sets: list[DrawingSet], n: int) -> Draws:
    """n draws in all, shared evenly between the people, each from their own set with replacement (as the desk
    draws: an item drawn again counts again), weighed 1 / (pi q)."""
    parts = []
    for g, s in enumerate(sets):
        k = n // len(sets) + (g < n % len(sets))
        picked = rng.choice(s.members.size, size=k, p=s.q)
        parts.append((s.members[picked], 1 / (s.pi * s.q[picked]), np.full(k, s.pi), np.full(k, g)))
    return Draws(*(np.concatenate(column) for column in zip(*parts)))


def _distinct(d: Draws) -> np.ndarray:
    """One draw per (person, item): the desk keeps one current grade or preference per person and item."""
    _, first = np.unique(d.people * 10**9 + d.items, return_index=True)
    return np.sort(first)


Row = tuple[Estimate, float, float | None]  # (estimate, truth, lambda)


def pass_estimates(p: Population, raw: Population, d: Draws, boot: int, seed: int) -> dict[str, Row]:
    """(estimate, truth, lambda) of each pass-rate estimator on one run's draws: `p` the bundled answers, `raw` the
    raw answers to the same questions, whose person grades both (the paired difference)."""
    y, f = p.truth[d.items], p.judge[d.items]
    clusters = first_stage_clusters(d.items.tolist(), d.pis.tolist())
    agreement = weighted_estimates((y == 0) * 2 + (f == 0), d.weights, 2, AGREEMENT, boot, seed,
                                   clusters)["percent_agreement"]
    tuned, gain = ppi_mean(p.judge, y, f, d.weights, boot, seed, clusters)
    plain, _ = ppi_mean(p.judge, y, f, d.weights, boot, seed, clusters, lam=1)
    difference, paired = ppi_mean(p.judge - raw.judge, y - raw.truth[d.items], f - raw.judge[d.items], d.weights,
                                  boot, seed, clusters, span=(-1.0, 1.0))
    once = _distinct(d)
    calib = np.array([[np.sum((y[once] == a) & (f[once] == b)) for b in (1, 0)] for a in (1, 0)])
    unweighted = estimates(calib, AGREEMENT, boot, seed)["percent_agreement"]
    rogan_gladen = corrected_pass_rate(calib, int(p.judge.sum()), p.judge.size, boot, seed)
    rate, agree_truth = float(p.truth.mean()), float(np.mean(p.truth == p.judge))
    gap = float(p.truth.mean() - raw.truth.mean())
    assert gain is not None and paired is not None
    return {"agreement, weighted (Hajek)": (agreement, agree_truth, None),
            "agreement, unweighted (all graded)": (unweighted, agree_truth, None),
            "pass rate, people only (weighted)": (gain.people_alone, rate, None),
            "pass rate, Rogan-Gladen": (rogan_gladen, rate, None),
            "pass rate, PPI (lambda 1)": (plain, rate, 1.0),
            "pass rate, PPI++": (tuned, rate, gain.lam),
            "bundled - raw, people only (weighted)": (paired.people_alone, gap, None),
            "bundled - raw, PPI++": (difference, gap, paired.lam)}


def win_estimates(p: Population, d: Draws, boot: int, seed: int) -> dict[str, Row]:
    """(estimate, truth, lambda) of the win rates `agree` prints, people's and prediction-powered."""
    y, f = p.truth[d.items], p.judge[d.items]
    clusters = first_stage_clusters(d.items.tolist(), d.pis.tolist())
    tuned, gain = ppi_mean(p.judge, y, f, d.weights, boot, seed, clusters)
    once = _distinct(d)
    # as `agree` computes it: every person's preference, unweighted, a question's preferences resampled together
    people = weighted_mean(y[once].tolist(), "no preference", None, boot, seed, d.items[once])
    rate = float(p.truth.mean())
    assert gain is not None
    return {"win rate, people only": (people, rate, None),
            "win rate, people only (weighted)": (gain.people_alone, rate, None),
            "win rate, prediction-powered (PPI++)": (tuned, rate, gain.lam)}


ESTIMATORS = ("agreement, weighted (Hajek)", "agreement, unweighted (all graded)", "pass rate, people only (weighted)",
              "pass rate, Rogan-Gladen", "pass rate, PPI (lambda 1)", "pass rate, PPI++",
              "bundled - raw, people only (weighted)", "bundled - raw, PPI++", "win rate, people only",
              "win rate, people only (weighted)", "win rate, prediction-powered (PPI++)")
RATIOS = {"PPI++ / people": ("pass rate, PPI++", "pass rate, people only (weighted)"),
          "PPI++ / PPI": ("pass rate, PPI++", "pass rate, PPI (lambda 1)"),
          "difference PPI++ / people": ("bundled - raw, PPI++", "bundled - raw, people only (weighted)"),
          "win PPI++ / people": ("win rate, prediction-powered (PPI++)", "win rate, people only (weighted)")}


@dataclass
class Cell:
    """One (estimator, design, judge, n) over the repetitions."""

    covered: list[bool]
    widths: list[float]
    errors: list[float]
    lams: list[float]
    undefined: int = 0

    @property
    def coverage(self) -> float:
        return statistics.fmean(self.covered) if self.covered else float("nan")

    @property
    def mcse(self) -> float:
        c, r = self.coverage, len(self.covered)
        return (c * (1 - c) / r) ** 0.5 if r else float("nan")


Key = tuple[str, str, str, int]  # (estimator or width ratio, design, judge, n)


def one_repetition(seed: int, boot: int, items: int, judges: tuple[str, ...], designs: tuple[str, ...],
                   sizes: tuple[int, ...]) -> tuple[list[tuple[Key, Estimate, float, float | None]],
                                                    list[tuple[Key, float]]]:
    """One seeded run per judge, drawn by each design at each n: every estimate (with its truth and lambda), and the
    width ratios the goals compare ('PPI++ / people', 'PPI++ / PPI', 'win PPI++ / people': RATIOS)."""
    estimates_out: list[tuple[Key, Estimate, float, float | None]] = []
    ratios_out: list[tuple[Key, float]] = []
    for judge in judges:
        rng = np.random.default_rng([seed, JUDGES.index(judge)])
        passes = population(rng, PASS_LEVELS, PASS_SHARES, judge, items)
        raw = raw_beside(rng, passes, judge)
        wins = population(rng, WIN_LEVELS, WIN_SHARES, judge, items)
        for design in designs:
            pass_sets, win_sets = (drawing_sets(design, p.confidence, seed) for p in (passes, wins))
            for n in sizes:
                out = pass_estimates(passes, raw, draws(rng, pass_sets, n), boot, seed)
                out |= win_estimates(wins, draws(rng, win_sets, n), boot, seed)
                estimates_out += [((name, design, judge, n), est, truth, lam) for name, (est, truth, lam) in out.items()]
                width = {name: e.high - e.low for name, (e, _, _) in out.items()
                         if e.low is not None and e.high is not None}
                ratios_out += [((key, design, judge, n), width[tuned] / width[alone])
                               for key, (tuned, alone) in RATIOS.items() if width.get(alone) and tuned in width]
    return estimates_out, ratios_out


def simulate(reps: int, boot: int = 1000, items: int = 1000, first_seed: int = 1,
             progress: Callable[[int], None] | None = None, judges: tuple[str, ...] = JUDGES,
             designs: tuple[str, ...] = DESIGNS, sizes: tuple[int, ...] = SIZES
             ) -> tuple[dict[Key, Cell], dict[Key, list[float]], int]:
    """Every cell over `reps` seeded repetitions (of the `judges`, `designs` and `sizes` given), the width ratios per
    cell, and how many repetitions were done (fewer when Ctrl-C stopped it: only whole repetitions count)."""
    cells: dict[Key, Cell] = defaultdict(lambda: Cell([], [], [], []))
    ratios: dict[Key, list[float]] = defaultdict(list)
    done = 0
    try:
        for r in range(reps):
            estimates_out, ratios_out = one_repetition(first_seed + r, boot, items, judges, designs, sizes)
            for key, est, truth, lam in estimates_out:
                cell = cells[key]
                if est.value is None or est.low is None or est.high is None:
                    cell.undefined += 1
                    continue
                cell.covered.append(est.low <= truth <= est.high)
                cell.widths.append(est.high - est.low)
                cell.errors.append(est.value - truth)
                if lam is not None:
                    cell.lams.append(lam)
            for key, ratio in ratios_out:
                ratios[key].append(ratio)
            done = r + 1
            if progress:
                progress(done)
    except KeyboardInterrupt:  # stopped early: the repetitions done so far still make a table (it says how many)
        pass
    return cells, ratios, done


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def table(cells: dict[Key, Cell], judges: tuple[str, ...] = JUDGES, designs: tuple[str, ...] = DESIGNS,
          sizes: tuple[int, ...] = SIZES) -> list[str]:
    """The table as printed: a row per (estimator, design, judge), per n: coverage +/- its Monte Carlo standard error,
    mean width, mean bias (and the median lambda of the power-tuned ones)."""
    head = f"{'estimator':<37} {'design':<24} {'judge':<14}" + "".join(
        f" | n={n:<3} {'coverage':>12} {'width':>5} {'bias':>6} {'lam':>4}" for n in sizes)
    lines = [head, "-" * len(head)]
    for name in ESTIMATORS:
        for design in designs:
            for judge in judges:
                row = f"{name:<37} {design:<24} {judge:<14}"
                for n in sizes:
                    c = cells[(name, design, judge, n)]
                    lam = f"{_median(c.lams):4.2f}" if c.lams else "   -"
                    undefined = f" ({c.undefined} undefined)" if c.undefined else ""
                    row += (f" |       {c.coverage:6.1%}±{c.mcse:4.1%} {statistics.fmean(c.widths):5.3f} "
                            f"{statistics.fmean(c.errors):+6.3f} {lam}" if c.covered else " |       -") + undefined
                lines.append(row)
    return lines


def goals(cells: dict[Key, Cell], ratios: dict[Key, list[float]]) -> list[str]:
    """The issue's goals, each a line that says whether the run met it (over the cells simulated)."""
    gated = {k: c for k, c in cells.items() if k[0] not in NOT_GATED and c.covered}
    low_key = min(gated, key=lambda k: gated[k].coverage)
    low = gated[low_key].coverage
    average = statistics.fmean(c.coverage for c in gated.values())
    by_estimator = {name: statistics.fmean(c.coverage for k, c in gated.items() if k[0] == name)
                    for name in ESTIMATORS if name not in NOT_GATED}

    def worst(key: str, judges: tuple[str, ...] = JUDGES) -> tuple[float, Key]:
        medians = {k: _median(v) for k, v in ratios.items() if k[0] == key and k[2] in judges}
        k = max(medians, key=lambda x: medians[x])
        return medians[k], k

    def ok(met: bool) -> str:
        return "met" if met else "NOT met"

    people, people_at = worst("PPI++ / people")
    diff_people, diff_at = worst("difference PPI++ / people")
    win_people, win_at = worst("win PPI++ / people")
    good = (JUDGES[0],)
    plain_line = "not simulated (no good judge in --judges)"
    if any(k[2] in good for k in ratios):
        plain, plain_at = worst("PPI++ / PPI", good)
        plain_line = f"at most {plain:.3f} ({', '.join(map(str, plain_at[1:]))}): {ok(plain <= 1.0)}"
    return [
        f"goal: every 95% interval covers >= 92% in every cell (Rogan-Gladen aside): lowest {low:.1%} "
        f"({', '.join(map(str, low_key))}): {ok(low >= 0.92)}",
        f"goal: 94-96% on average over the cells: {average:.1%}: {ok(0.94 <= average <= 0.96)}",
        "  average by estimator: " + "; ".join(f"{k} {v:.1%}" for k, v in by_estimator.items()),
        *(f"  {name} (reported, not gated): coverage from {min(v):.1%} to {max(v):.1%}, average "
          f"{statistics.fmean(v):.1%}" for name in NOT_GATED
          for v in [[c.coverage for k, c in cells.items() if k[0] == name and c.covered]] if v),
        f"goal: PPI++ never wider than people alone (median width ratio <= 1.00 in every cell): pass rates at most "
        f"{people:.3f} ({', '.join(map(str, people_at[1:]))}), bundled - raw at most {diff_people:.3f} "
        f"({', '.join(map(str, diff_at[1:]))}), win rates at most {win_people:.3f} "
        f"({', '.join(map(str, win_at[1:]))}): {ok(max(people, diff_people, win_people) <= 1.0)}",
        f"goal: PPI++ at least as narrow as lambda = 1 PPI with a good judge (median width ratio <= 1.00): {plain_line}",
    ]


def _chosen(text: str, names: tuple[str, ...], flag: str) -> tuple[str, ...]:
    """The names starting with one of the comma-separated words of `text`, in the table's order."""
    words = [w.strip() for w in text.split(",") if w.strip()]
    unknown = [w for w in words if not any(n.startswith(w) for n in names)]
    if unknown or not words:
        raise argparse.ArgumentTypeError(f"{flag} {text}: choose from {', '.join(names)}")
    return tuple(n for n in names if any(n.startswith(w) for w in words))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--boot", type=int, default=1000, help="bootstrap replicates per interval")
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--judges", type=lambda s: _chosen(s, JUDGES, "--judges"), default=JUDGES,
                        help="comma-separated starts of judge names (default: all)")
    parser.add_argument("--designs", type=lambda s: _chosen(s, DESIGNS, "--designs"), default=DESIGNS,
                        help="comma-separated starts of design names (default: all)")
    parser.add_argument("--sizes", type=lambda s: tuple(int(x) for x in s.split(",")), default=SIZES,
                        help="comma-separated numbers of people's grades (default: 30,100,300)")
    args = parser.parse_args()
    start = time.perf_counter()

    def progress(done: int) -> None:
        if done % max(1, args.reps // 20) == 0:
            print(f"  {done}/{args.reps} repetitions ({time.perf_counter() - start:.0f} s)", flush=True,
                  file=sys.stderr)

    cells, ratios, done = simulate(args.reps, args.boot, args.items, progress=progress, judges=args.judges,
                                   designs=args.designs, sizes=args.sizes)
    stopped = "" if done == args.reps else f" (stopped by Ctrl-C after {done} of {args.reps})"
    print(f"{done} repetitions{stopped} of a run of {args.items} items, {args.boot} bootstrap replicates per "
          f"interval, {len(cells)} cells: {time.perf_counter() - start:.0f} s wall, {time.process_time():.0f} s CPU "
          "(one process on this machine's 2 shared cores)")
    print("coverage of the 95% interval ± its Monte Carlo standard error; width and bias averaged over the "
          "repetitions; lam: median lambda")
    for line in table(cells, args.judges, args.designs, args.sizes) + [""] + goals(cells, ratios):
        print(line)


if __name__ == "__main__":
    main()
