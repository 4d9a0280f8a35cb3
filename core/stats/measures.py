"""Agreement statistics between graders: pure functions, no store.

Every person-vs-machine measure here is a function of the confusion matrix (rows: the person, columns: the machine,
classes in the order the caller gives: the grades, best first). That makes the bootstrap cheap: resampling n graded
pairs with replacement is the same as drawing a confusion matrix from Multinomial(n, observed cell shares), so each
measure is computed on B resampled matrices at once (numpy, vectorized over the leading axis).

A measure that is not defined for some data (no items, one class only, a person who never passed anything) gives an
`Estimate` whose value is None and whose `reason` says why: never a NaN, never a crash. NaN is used only inside the
vectorized code and is filtered out before anything leaves this module.

Confidence intervals are seeded percentile-bootstrap intervals. "How many more graded items to narrow the interval to
+/-0.05": the half-width of a bootstrap interval shrinks about as 1/sqrt(n), so n_needed = ceil(n * (half_width /
0.05)^2) and the answer is n_needed - n (0 when the interval is already that narrow). It is an estimate, and it says
nothing when the interval has zero width because no disagreement was seen yet.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from gradedesk.core.stats.records import Record

DEFAULT_BOOT = 2000
DEFAULT_SEED = 20240601
TARGET_HALF_WIDTH = 0.05
LEVEL = 0.95
NO_ITEMS = "no items graded by both"


@dataclass
class Estimate(Record):
    """A statistic with its bootstrap interval, or value None and a reason why it is not defined."""

    value: float | None
    n: int
    low: float | None = None
    high: float | None = None
    reason: str | None = None
    more_for_target: int | None = None  # extra graded items for a +/-0.05 interval (see module docstring)

    def text(self, digits: int = 3) -> str:
        """'0.712 [0.601, 0.805]' or 'not defined: <reason>' (plain text for tables)."""
        if self.value is None:
            return f"not defined: {self.reason}"
        if self.low is None or self.high is None:
            return f"{self.value:.{digits}f}"
        return f"{self.value:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


AS_ABOVE = "not defined (as above)"


def texts_once(estimates: Sequence[Estimate | None], digits: Sequence[int] | int = 3) -> list[str]:
    """Estimates as text ('-' for None), each reason of a figure that is not defined given once: the first cell with
    that reason says it, the next ones say AS_ABOVE (five arms undefined for one reason read as one sentence).
    `digits`: decimals, for all or for each estimate."""
    seen: set[str | None] = set()
    out = []
    places = [digits] * len(estimates) if isinstance(digits, int) else digits
    for e, d in zip(estimates, places):
        if e is not None and e.value is None and e.reason in seen:
            out.append(AS_ABOVE)
            continue
        if e is not None and e.value is None:
            seen.add(e.reason)
        out.append("-" if e is None else e.text(d))
    return out


@dataclass(frozen=True)
class Measure:
    """A statistic of confusion matrices: `fn` maps (..., q, q) counts to (...) values (NaN = not defined)."""

    name: str
    fn: Callable[[np.ndarray], np.ndarray]
    why: Callable[[np.ndarray], str]  # reason text for a matrix where fn gives NaN
    share: bool = False  # a share of the items (0..1): its weighted interval is score_interval's, not percentiles


# -- confusion matrices -------------------------------------------------------------------------------------------------

def confusion_matrix(rows: Sequence[str], cols: Sequence[str], classes: Sequence[str]) -> np.ndarray:
    """Counts of (rows[i], cols[i]) pairs: matrix[r][c], classes in the given order."""
    if len(rows) != len(cols):
        raise ValueError("rows and cols must have the same length")
    index = {c: i for i, c in enumerate(classes)}
    cm = np.zeros((len(classes), len(classes)), dtype=np.int64)
    for r, c in zip(rows, cols):
        cm[index[r], index[c]] += 1
    return cm


def collapse_binary(cm: np.ndarray, positive: int = 0) -> np.ndarray:
    """2x2 matrix [[pass/pass, pass/fail], [fail/pass, fail/fail]] from a q x q matrix; `positive` is the pass class."""
    rest = [i for i in range(cm.shape[-1]) if i != positive]
    pp = cm[..., positive, positive]
    pf = cm[..., positive, rest].sum(-1)
    fp = cm[..., rest, positive].sum(-1)
    ff = cm[..., rest, :][..., rest].sum((-2, -1))
    return np.stack([np.stack([pp, pf], -1), np.stack([fp, ff], -1)], -2)


# -- the measures (vectorized over leading axes) -----------------------------------------------------------------------

def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _total(cm: np.ndarray) -> np.ndarray:
    total: np.ndarray = cm.sum((-2, -1))  # numpy's stubs type reductions as Any
    return total


def _percent(cm: np.ndarray) -> np.ndarray:
    return safe_div(np.trace(cm, axis1=-2, axis2=-1), _total(cm))


def disagreement_weights(q: int, weights: str | None) -> np.ndarray:
    """Cost of each (i, j) disagreement: 0/1 (unweighted), |i-j|/(q-1) (linear) or ((i-j)/(q-1))^2 (quadratic)."""
    i, j = np.indices((q, q))
    if weights is None:
        unweighted: np.ndarray = (i != j).astype(float)
        return unweighted
    d: np.ndarray = np.abs(i - j) / (q - 1)
    if weights == "linear":
        return d
    if weights == "quadratic":
        squared: np.ndarray = d**2
        return squared
    raise ValueError(f"weights: {weights!r} is not linear, quadratic or None")


def _kappa(cm: np.ndarray, weights: str | None = None) -> np.ndarray:
    """Cohen's kappa 1 - sum(w*O)/sum(w*E), E from the margins (the form sklearn's cohen_kappa_score uses)."""
    n = _total(cm)[..., None, None]
    p = safe_div(cm, n)
    expected = p.sum(-1)[..., :, None] * p.sum(-2)[..., None, :]
    w = disagreement_weights(cm.shape[-1], weights)
    return 1 - safe_div((w * p).sum((-2, -1)), (w * expected).sum((-2, -1)))


def _ac1(cm: np.ndarray) -> np.ndarray:
    """Gwet's AC1: (pa - pe) / (1 - pe), pe = sum_k pi_k (1 - pi_k) / (q - 1), pi_k the mean of both margins."""
    q = cm.shape[-1]
    n = _total(cm)[..., None]
    pi = (safe_div(cm.sum(-1), n) + safe_div(cm.sum(-2), n)) / 2
    pe = (pi * (1 - pi)).sum(-1) / (q - 1)
    return safe_div(_percent(cm) - pe, 1 - pe)


def _precision(cm: np.ndarray, k: int) -> np.ndarray:
    return safe_div(cm[..., k, k], cm[..., :, k].sum(-1))


def class_recall(cm: np.ndarray, k: int) -> np.ndarray:
    return safe_div(cm[..., k, k], cm[..., k, :].sum(-1))


def _why_empty_or(reason: str) -> Callable[[np.ndarray], str]:
    return lambda cm: NO_ITEMS if _total(cm) == 0 else reason


KAPPA_UNDEFINED = "both graders gave one and the same grade to every item (chance agreement is 1)"


def pair_measures() -> list[Measure]:
    """The agreement measures reported for both the four-level grade and its binary collapse."""
    return [
        Measure("percent_agreement", _percent, _why_empty_or(NO_ITEMS), share=True),
        Measure("cohen_kappa", _kappa, _why_empty_or(KAPPA_UNDEFINED)),
        Measure("kappa_linear", partial(_kappa, weights="linear"), _why_empty_or(KAPPA_UNDEFINED)),
        Measure("kappa_quadratic", partial(_kappa, weights="quadratic"), _why_empty_or(KAPPA_UNDEFINED)),
        Measure("gwet_ac1", _ac1, _why_empty_or(NO_ITEMS)),  # pe <= 1/q < 1: defined whenever n > 0
    ]


def class_measures(classes: Sequence[str], row_name: str = "person", col_name: str = "judge") -> list[Measure]:
    """Per-class precision and recall of the column grader, taking the row grader as the reference."""
    out = []
    for k, c in enumerate(classes):
        out.append(Measure(f"precision:{c}", partial(_precision, k=k),
                           _why_empty_or(f"the {col_name} never gave {c}"), share=True))
        out.append(Measure(f"recall:{c}", partial(class_recall, k=k), _why_empty_or(f"the {row_name} never gave {c}"),
                           share=True))
    return out


def binary_rates(row_name: str = "person") -> list[Measure]:
    """TPR and TNR of the machine on a 2x2 [pass, fail] matrix, the person's grade taken as the truth."""
    return [
        Measure("tpr", partial(class_recall, k=0), _why_empty_or(f"the {row_name} passed no item"), share=True),
        Measure("tnr", partial(class_recall, k=1), _why_empty_or(f"the {row_name} failed no item"), share=True),
    ]


# -- estimates with bootstrap intervals --------------------------------------------------------------------------------

def seeded_rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def resample_matrices(cm: np.ndarray, boot: int, seed: int) -> np.ndarray:
    """B confusion matrices, each n pairs drawn with replacement from the observed pairs."""
    n = int(cm.sum())
    if n == 0:
        return np.zeros((0,) + cm.shape, dtype=np.int64)
    flat = cm.ravel() / n
    return seeded_rng(seed).multinomial(n, flat, size=boot).reshape((boot,) + cm.shape)


def more_items_needed(n: int, low: float | None, high: float | None, target: float = TARGET_HALF_WIDTH) -> int | None:
    """Extra graded items to reach a +/-target interval, assuming the half-width shrinks as 1/sqrt(n)."""
    if n == 0 or low is None or high is None:
        return None
    half = (high - low) / 2
    if half <= target:
        return 0
    return math.ceil(n * (half / target) ** 2) - n


def interval(values: np.ndarray, level: float = LEVEL) -> tuple[float | None, float | None]:
    """Percentile interval of the defined (non-NaN) bootstrap values; (None, None) when there are none."""
    values = values[~np.isnan(values)]
    if values.size == 0:
        return None, None
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def t_quantile(df: float, level: float = LEVEL) -> float:
    """Student's t quantile for a two-sided `level` interval with `df` degrees of freedom (Cornish-Fisher expansion
    around the normal quantile; within 0.002 of the exact value from 5 degrees of freedom on)."""
    z = statistics.NormalDist().inv_cdf(0.5 + level / 2)
    df = max(df, 1.0)
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))


def score_interval(value: float, boot_values: np.ndarray, units: int, fallback_n: float,
                   span: tuple[float, float] = (0.0, 1.0), least_var: float = 0.0,
                   level: float = LEVEL) -> tuple[float | None, float | None]:
    """Wilson's score interval at the design's effective n, for a mean of values in `span` (a share; a difference of
    shares in -1..1): the bootstrap gives the estimate's variance v under the design (by draw or by cluster), and
    n_eff = p (1 - p) / v. With few `units` (draws or clusters resampled) percentiles of a share run narrow: a
    binary mean near 0.9 from 30 draws covered 88%, and a sample that shows no variation gives a zero-width interval.
    So the variance is corrected by units / (units - 1), the quantile is Student's t with (the Kish effective number
    of units, at most `units`) - 1 degrees of freedom, and the score interval never leaves the span; when the draws show no variation (v = 0) n_eff is
    `fallback_n` (the Kish effective number of units), the interval a share of all-equal values would get.
    `least_var`: a floor under v (ppi_mean's, for a judge that matched every draw). A single unit gives the whole span:
    three people's preferences on one question printed 1.000 [1.000, 1.000].
    """
    values = boot_values[~np.isnan(boot_values)]
    low_end, high_end = span
    if units < 2:  # one question (however many people graded it) says nothing of the spread: the whole span
        return (low_end, high_end) if values.size else (None, None)
    if values.size < 2:
        return interval(boot_values, level)
    scale = high_end - low_end
    p = min(max((value - low_end) / scale, 0.0), 1.0)
    var = max(float(values.var(ddof=1)) * units / (units - 1), least_var) / scale**2
    n = p * (1 - p) / var if var > 0 and 0 < p < 1 else max(fallback_n, 1.0)
    z = t_quantile(min(units, fallback_n) - 1, level)  # unequal weights: the Kish effective units' freedom
    shrink = 1 + z * z / n
    center = (p + z * z / (2 * n)) / shrink
    half = z / shrink * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return low_end + scale * max(center - half, 0.0), low_end + scale * min(center + half, 1.0)


def finish(value: float, n: int, boot_values: np.ndarray, reason: str,
           bounds: tuple[float | None, float | None] | None = None) -> Estimate:
    """An Estimate from a point value (NaN = not defined, with `reason`) and its bootstrap values (their percentile
    interval, or `bounds` when the caller computed the interval: score_interval)."""
    if math.isnan(value):
        return Estimate(None, n, reason=reason)
    low, high = interval(boot_values) if bounds is None else bounds
    return Estimate(float(value), n, low, high, more_for_target=more_items_needed(n, low, high))


def estimate(cm: np.ndarray, measure: Measure, boot_cms: np.ndarray | None = None) -> Estimate:
    """The measure on `cm`, with an interval from `boot_cms` (resampled matrices; None = no interval)."""
    value = float(measure.fn(cm))
    boot_values = measure.fn(boot_cms) if boot_cms is not None and len(boot_cms) else np.array([])
    return finish(value, int(cm.sum()), boot_values, measure.why(cm) if math.isnan(value) else "")


def estimates(cm: np.ndarray, measures: Sequence[Measure], boot: int = DEFAULT_BOOT,
              seed: int = DEFAULT_SEED) -> dict[str, Estimate]:
    """All measures on one matrix, each with an interval from the same seeded resamples."""
    boot_cms = resample_matrices(cm, boot, seed) if boot else None
    return {m.name: estimate(cm, m, boot_cms) for m in measures}


def summary_measures() -> list[Measure]:
    """The three measures shown per group: percent agreement, kappa, AC1."""
    keep = {"percent_agreement", "cohen_kappa", "gwet_ac1"}
    return [m for m in pair_measures() if m.name in keep]


# -- Krippendorff's alpha (ordinal) across several people ---------------------------------------------------------------

def proportion(k: int, n: int, empty_reason: str, boot: int = DEFAULT_BOOT, seed: int = DEFAULT_SEED) -> Estimate:
    """k of n as a share, with a bootstrap interval (resampling the n items)."""
    if n == 0:
        return Estimate(None, 0, reason=empty_reason)
    boot_values = seeded_rng(seed).binomial(n, k / n, size=boot) / n if boot else np.array([])
    return finish(k / n, n, boot_values, "")



def resample_means(values: np.ndarray, boot: int, rng: np.random.Generator) -> np.ndarray:
    """B means of `values` resampled with replacement, drawn exactly and cheaply for values of a few levels (a pass,
    a preference): a multinomial over the distinct values."""
    levels, counts = np.unique(values, return_counts=True)
    means: np.ndarray = rng.multinomial(values.size, counts / values.size, size=boot) @ levels / values.size
    return means


def mean_of(values: Sequence[float], empty_reason: str, boot: int = DEFAULT_BOOT, seed: int = DEFAULT_SEED) -> Estimate:
    """The mean of values of a few levels (a preference: 1, 0.5 or 0), with a bootstrap interval."""
    if not values:
        return Estimate(None, 0, reason=empty_reason)
    array = np.asarray(values, dtype=float)
    boot_values = resample_means(array, boot, seeded_rng(seed)) if boot else np.array([])
    return finish(float(array.mean()), int(array.size), boot_values, "")
