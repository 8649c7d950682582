"""Helpers shared by the shift benchmarks (issue 13, sec. 4); not a benchmark itself.

* :func:`guarded` builds a learner twice where it has the held-out "never below the baseline"
  check (``baseline_holdout``, :mod:`learnsim.baseline`): once forced to the learned model
  (``baseline_holdout=None``) and once with its defaults, so that a table shows both what was
  learned and whether the default fit would have fallen back to its baseline under the shift.
* :func:`guard_status` is the default fit's ``baseline_gain_.status`` (or ``"-"``).
* :func:`bootstrap_interval` is a paired percentile bootstrap of learned minus baseline for a
  measure of a whole test set (Pearson, accuracy), resampling the test units.
* :func:`limit_threads` caps the BLAS threads: the development machine has 2 shared cores.
"""
from __future__ import annotations

import numpy as np

N_RESAMPLES = 1000


def limit_threads(n=1):
    """Cap BLAS / OpenMP threads at ``n`` for the rest of the process (no-op without threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:      # pragma: no cover - threadpoolctl comes with scikit-learn
        return None
    return threadpool_limits(limits=n)


def has_guard(cls):
    """Whether estimators of ``cls`` take the held-out baseline check's ``baseline_holdout``."""
    return "baseline_holdout" in cls().get_params()


def guarded(cls, **params):
    """``{"forced": learned model forced on, "default": default fit}`` for a class with the
    baseline check; ``{"forced": cls(**params)}`` (its only behaviour) for one without."""
    if has_guard(cls):
        return {"forced": cls(baseline_holdout=None, **params), "default": cls(**params)}
    return {"forced": cls(**params)}


def guard_status(estimator):
    """The default fit's verdict: ``baseline_gain_.status`` with the held-out gain, or ``"-"``
    when the estimator has no check (then the default fit is the forced one)."""
    gain = getattr(estimator, "baseline_gain_", None)
    if gain is None:
        return "-"
    if gain.gain is None:
        return gain.status
    return f"{gain.status} ({gain.gain:+.3f})"


def bootstrap_interval(measure, learned, baseline, truth, n_resamples=N_RESAMPLES, seed=0, level=0.95):
    """Percentile interval of ``measure(learned, truth) - measure(baseline, truth)`` over test sets
    resampled with replacement (the same resample for both sides: a paired bootstrap).

    Parameters
    ----------
    measure : callable(scores, truth) -> float
    learned, baseline, truth : arrays with one entry per test unit
    n_resamples, seed, level : bootstrap settings

    Returns
    -------
    (low, high) : floats
    """
    learned, baseline, truth = (np.asarray(a) for a in (learned, baseline, truth))
    rng = np.random.default_rng(seed)
    n = truth.shape[0]
    diffs = np.empty(n_resamples)
    for r in range(n_resamples):
        i = rng.integers(0, n, n)
        diffs[r] = measure(learned[i], truth[i]) - measure(baseline[i], truth[i])
    tail = 100 * (1 - level) / 2
    lo, hi = np.percentile(diffs, [tail, 100 - tail])
    return float(lo), float(hi)


def accuracy(pred, labels):
    """Share of predictions equal to the labels (both read as booleans)."""
    return float(np.mean(np.asarray(pred, bool) == np.asarray(labels, bool)))


def markdown(header, rows):
    """A markdown table (header: column names; rows: lists of already formatted cells)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
