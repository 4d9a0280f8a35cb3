"""The Rogan-Gladen correction: a machine grader's pass rate corrected by its true- and true-negative rates measured
against people's grades (a calibration matrix), and the paired difference of two corrected rates, each with a
bootstrap over the calibration and the graded items; pure functions, no store."""

from __future__ import annotations

import math

import numpy as np

from gradedesk.core.stats.measures import DEFAULT_BOOT, DEFAULT_SEED, Estimate, class_recall, finish, seeded_rng


def rogan_gladen(observed: np.ndarray | float, tpr: np.ndarray | float, tnr: np.ndarray | float) -> np.ndarray:
    """True pass rate from an imperfect judge: (p + TNR - 1) / (TPR + TNR - 1), clipped to [0, 1]; NaN if TPR+TNR <= 1."""
    observed, tpr, tnr = (np.asarray(x, dtype=float) for x in (observed, tpr, tnr))
    youden = tpr + tnr - 1
    out = np.full(np.broadcast(observed, youden).shape, np.nan)
    np.divide(observed + tnr - 1, youden, out=out, where=youden > 0)
    clipped: np.ndarray = np.clip(out, 0.0, 1.0)
    return clipped


def _calibration_reason(calib: np.ndarray) -> str | None:
    """Why the machine grader's error rates cannot correct a pass rate, or None when they can (the grader may be a rule
    grader, a judge or imported grades: it is named by what it is elsewhere, "the machine grader" here)."""
    if calib.sum() == 0:
        return "no answer has both a person's grade and a machine grade to measure the machine grader's error rates"
    tpr, tnr = float(class_recall(calib, 0)), float(class_recall(calib, 1))
    if math.isnan(tpr):
        return "the person passed no calibration item, so the machine grader's TPR is unknown"
    if math.isnan(tnr):
        return "the person failed no calibration item, so the machine grader's TNR is unknown"
    if tpr + tnr <= 1:
        return (f"TPR + TNR = {tpr:.3f} + {tnr:.3f} <= 1: the machine grader does no better than chance on the "
                "person-graded items, so its pass rate cannot be corrected")
    return None


def _boot_rates(calib: np.ndarray, boot: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    n = int(calib.sum())
    mats = rng.multinomial(n, calib.ravel() / n, size=boot).reshape(boot, 2, 2)
    return class_recall(mats, 0), class_recall(mats, 1)


def corrected_pass_rate(calib: np.ndarray, passed: int, judged: int, boot: int = DEFAULT_BOOT,
                        seed: int = DEFAULT_SEED) -> Estimate:
    """Rogan-Gladen pass rate of `judged` answers of which the judge passed `passed`.

    calib: 2x2 [[pass/pass, pass/fail], [fail/pass, fail/fail]] (person rows, judge columns) on person-graded answers.
    The interval resamples both sets: the calibration pairs and the judge-graded answers.
    """
    if judged == 0:
        return Estimate(None, 0, reason="no answer of this kind has a machine grade")
    reason = _calibration_reason(calib)
    if reason:
        return Estimate(None, judged, reason=reason)
    value = float(rogan_gladen(passed / judged, class_recall(calib, 0), class_recall(calib, 1)))
    rng = seeded_rng(seed)
    tpr, tnr = _boot_rates(calib, boot, rng)
    observed = rng.binomial(judged, passed / judged, size=boot) / judged
    return finish(value, judged, rogan_gladen(observed, tpr, tnr), "")


def corrected_difference(calib: np.ndarray, paired: np.ndarray, boot: int = DEFAULT_BOOT,
                         seed: int = DEFAULT_SEED) -> Estimate:
    """Corrected pass rate of B minus that of A over paired items (the same questions answered both ways).

    paired: 2x2 counts [[A pass & B pass, A pass & B fail], [A fail & B pass, A fail & B fail]] by the judge. Each
    bootstrap draw resamples the questions (keeping the pairs together) and the calibration pairs once, and corrects
    both rates with the same TPR/TNR, so the judge's error rates cancel as far as they do in truth.
    """
    m = int(paired.sum())
    if m == 0:
        return Estimate(None, 0, reason="no question has a machine grade for both answers")
    reason = _calibration_reason(calib)
    if reason:
        return Estimate(None, m, reason=reason)
    tpr, tnr = class_recall(calib, 0), class_recall(calib, 1)
    a, b = paired[0].sum() / m, paired[:, 0].sum() / m
    value = float(rogan_gladen(b, tpr, tnr) - rogan_gladen(a, tpr, tnr))
    rng = seeded_rng(seed)
    btpr, btnr = _boot_rates(calib, boot, rng)
    draws = rng.multinomial(m, paired.ravel() / m, size=boot).reshape(boot, 2, 2)
    ba, bb = draws[:, 0].sum(-1) / m, draws[:, :, 0].sum(-1) / m
    return finish(value, m, rogan_gladen(bb, btpr, btnr) - rogan_gladen(ba, btpr, btnr), "")
