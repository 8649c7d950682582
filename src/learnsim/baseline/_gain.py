"""The rule of :mod:`learnsim.baseline` (its package notes say it in full): learned against
baseline, one score per held-out unit; the learned part is kept only when the whole paired
bootstrap interval of its gain lies above zero (:func:`compare`, :func:`choose`), and the report
(:class:`BaselineGain`) is saved with the model.

The interval lies above zero whenever every unit gains, however few they are, and a rule that
gains nothing gains on all n of them one time in 2^n; so a gain is kept only on at least as many
units (or groups, where the interval resamples groups) as make that rarer than the interval's
lower tail: 6 at 95 %, the search check's rule (learnsim.baseline._search). Where a method
cross-fits its check over folds (FILM, mcd), the units of every fold count. On fewer the model
is the baseline and the report's reason says how many there were and how many it needs. A unit
the baseline scores and the learned rule does not (NaN, an infinity) counts against the rule.

When there is too little supervision to hold any out (e.g. fewer than four clusters), the fit
uses everything, ``baseline_gain_.status`` is ``"unchecked"`` and a warning says the model was
not checked. Where a method also *chooses* among several mixes of learned and baseline on the
held-out part (FILM's input-cosine weight), the gain is cross-fitted (:func:`cross_fitted`):
each held-out unit is scored by the choice made on the other units, so the reported gain is not
the optimistic in-sample one.

References
----------
.. [1] Efron, B. and Tibshirani, R. J. (1993). An Introduction to the Bootstrap, ch. 13
   (percentile intervals). Chapman & Hall.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from .._utils.callers import warn_outside
from ..exceptions import BaselineWarning  # noqa: F401  (defined there; importable here as in 0.1)
from ._chance import fewest_units

__all__ = ["BaselineGain", "BaselineWarning", "check_holdout", "choose", "compare", "cross_fitted", "paired_bootstrap",
           "split_groups", "unchecked", "DEFAULT_HOLDOUT"]

#: Share of the supervision that ``fit`` keeps back to measure learned against baseline (defined
#: in learnsim._defaults, which the command line's help reads without importing this module).
from .._defaults import DEFAULT_HOLDOUT  # noqa: E402
#: Bootstrap resamples behind the confidence interval.
N_RESAMPLES = 2000
_STATUSES = ("learned", "baseline", "unchecked")


@dataclass(frozen=True)
class BaselineGain:
    """Learned against baseline on held-out supervision (see the module docstring).

    Attributes
    ----------
    status : {"learned", "baseline", "unchecked"}
        What the fitted model uses: the learned part, the baseline (fallback), or the learned
        part without a check (too little supervision to hold any out).
    measure : str
        The per-unit measure, e.g. ``"average precision"``.
    unit : str
        What the held-out units are, in the plural, e.g. ``"held-out queries"``.
    baseline : str
        The baseline in words.
    learned_score, baseline_score : float or None
        Mean of the measure over the held-out units.
    gain : float or None
        Mean of (learned - baseline) over the units; cross-fitted where a choice was made.
    ci_low, ci_high : float or None
        Paired percentile bootstrap interval of ``gain`` at ``confidence``.
    confidence : float
    n_units : int
    detail : dict
        Method-specific facts (e.g. the chosen input weight), JSON scalars only.
    reason : str or None
        Why the model was not checked (``status == "unchecked"``), or why it falls back when
        the gain alone does not say (e.g. the baseline scores best on all the held-out units).

    Examples
    --------
    What :func:`compare`, :func:`choose` and :func:`unchecked` return:

    >>> import numpy as np
    >>> from learnsim.baseline import compare
    >>> rng = np.random.default_rng(0)
    >>> baseline = rng.random(200)
    >>> learned = baseline + 0.1 + 0.05 * rng.normal(size=200)     # clearly better on every unit
    >>> report = compare(learned, baseline, measure="recall@1", unit="held-out queries",
    ...                  baseline_name="input cosine", owner="example")
    >>> report.status, report.fell_back, report.n_units
    ('learned', False, 200)
    >>> round(report.gain, 2), bool(report.ci_low > 0)
    (0.1, True)
    >>> sorted(report.to_dict())[:3]
    ['baseline', 'baseline_score', 'ci_high']
    """

    status: str
    measure: str = ""
    unit: str = ""
    baseline: str = ""
    learned_score: float | None = None
    baseline_score: float | None = None
    gain: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    confidence: float = 0.95
    n_units: int = 0
    detail: dict = field(default_factory=dict)
    reason: str | None = None
    cold: dict | None = None
    warm: dict | None = None

    @property
    def fell_back(self):
        """True when the fitted model is the baseline."""
        return self.status == "baseline"

    @property
    def significant(self):
        """True when the whole interval lies above zero."""
        return self.ci_low is not None and self.ci_low > 0

    def summary(self, fallback=None):
        """One sentence for people (``learnsim fit`` prints it). ``fallback``: what the part of the
        model that falls back is then (e.g. "search is the input cosine"), said in place of "the
        model falls back to the baseline"; "" says only why."""
        if self.status == "unchecked":
            return f"not checked against the baseline ({self.baseline or 'baseline'}): {self.reason}"
        if self.status == "baseline" and isinstance(self.detail, dict) and self.detail.get("held_out_queries") == 0:
            # nothing held out: the strongest baseline on the judged queries (baseline_of_judgements)
            score = "" if self.baseline_score is None else f", {self.measure} {self.baseline_score:.4f} on the {self.unit}"
            return f"not checked against the baseline ({self.baseline}{score}): {self.reason}"
        pct = round(100 * self.confidence)
        # a search check chooses its baseline on every judged query (learnsim.baseline._search)
        chosen_on = self.detail.get("strongest_chosen_on") if isinstance(self.detail, dict) else None
        baseline = self.baseline + (f", the strongest on {chosen_on} judged queries" if chosen_on else "")
        head = (f"{self.measure} on {self.n_units} {self.unit}: learned {self.learned_score:.4f}, "
                f"baseline ({baseline}) {self.baseline_score:.4f}, gain {self.gain:+.4f} "
                f"({pct}% CI {self.ci_low:+.4f} to {self.ci_high:+.4f})")
        for name, part, what in (("cold", self.cold, "relevant documents the training supervision never names"),
                                 ("warm", self.warm, "relevant documents the training supervision names")):
            if part is not None:
                head += (f"; {name} ({part['n_units']} queries, {what}) {part['gain']:+.4f} "
                         f"({part['ci_low']:+.4f} to {part['ci_high']:+.4f})")
        apart = self.detail if isinstance(self.detail, dict) and "apart_gain" in self.detail else None
        if apart is not None and self.cold is not None:
            # learnsim.baseline._search.PooledScores: the unseen documents held out with their
            # queries are rich in relevant ones, as no new query finds them
            head += (f"; apart (the cold part ranked among the documents no training pair names only) "
                     f"{apart['apart_gain']:+.4f} ({apart['apart_ci_low']:+.4f} to {apart['apart_ci_high']:+.4f})")
        condensed = self.detail if isinstance(self.detail, dict) and "condensed_gain" in self.detail else None
        if condensed is not None:
            # learnsim.baseline._search.PooledScores: every held-out relevant document is a
            # judged one, a new query's mostly are not
            head += (f"; condensed (the documents no judgement names taken out) {condensed['condensed_gain']:+.4f} "
                     f"({condensed['condensed_ci_low']:+.4f} to {condensed['condensed_ci_high']:+.4f})")
        probe = self.detail if isinstance(self.detail, dict) and "probe_gain" in self.detail else None
        if probe is not None:
            # learnsim.baseline._probe: known-item queries from documents no training pair names
            head += (f"; plain queries ({probe['probe_n_units']} of a few words of unjudged documents, against "
                     f"{probe['probe_baseline']}) {probe['probe_gain']:+.4f} ({probe['probe_ci_low']:+.4f} to "
                     f"{probe['probe_ci_high']:+.4f})")
        if self.status == "baseline":
            if self.reason:
                why = self.reason
            elif self.gain <= 0:
                why = "the learned part does not help"
            else:
                why = "the learned part does not help for certain (the interval reaches 0)"
            # a part of a model (a re-ranker, a duplicate rule) falls back, not the whole model
            what = {"first stage": "search keeps its first stage (no re-ranking)",
                    "input cosine threshold": "the duplicate rule is the input cosine threshold"}.get(
                self.baseline, "the model falls back to the baseline") if fallback is None else fallback
            return head + f"; {why}" + (f", so {what}" if what else "")
        kept = self.detail.get("kept") if isinstance(self.detail, dict) else None
        if kept:
            # kept on other evidence than this gain (relative comparisons: the held-out triplets,
            # learnsim._search_checks.checked_relative_search): say which
            return head + f"; kept the learned part: {kept}"
        if not self.significant:
            # only a model saved before the interval rule, or a report built by hand
            return head + "; kept the learned part (the interval includes 0: the gain is not certain)"
        return head + "; kept the learned part"

    def to_dict(self):
        """JSON-ready dict (saved in the model file and printed by ``learnsim fit --json``)."""
        return {"status": self.status, "measure": self.measure, "unit": self.unit, "baseline": self.baseline,
                "learned_score": self.learned_score, "baseline_score": self.baseline_score, "gain": self.gain,
                "ci_low": self.ci_low, "ci_high": self.ci_high, "confidence": self.confidence,
                "n_units": self.n_units, "detail": dict(self.detail), "reason": self.reason,
                **{name: dict(part) for name, part in (("cold", self.cold), ("warm", self.warm)) if part is not None}}

    @classmethod
    def from_dict(cls, d, owner="model"):
        """Rebuild from :meth:`to_dict`, checked: a damaged saved model is refused, not used."""
        where = f"{owner} state: baseline_gain"
        if not isinstance(d, dict):
            raise ValueError(f"{where} must be a dict; got {type(d).__name__}")
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"{where} has unknown keys {sorted(unknown)}")
        status = d.get("status")
        if status not in _STATUSES:
            raise ValueError(f"{where}: status must be one of {list(_STATUSES)}; got {status!r}")
        for key in ("measure", "unit", "baseline"):
            if not isinstance(d.get(key, ""), str):
                raise ValueError(f"{where}: {key} must be a string")
        numbers_ = {}
        for key in ("learned_score", "baseline_score", "gain", "ci_low", "ci_high"):
            v = d.get(key)
            if v is None and status == "unchecked":
                numbers_[key] = None
                continue
            if not isinstance(v, numbers.Real) or isinstance(v, bool) or not math.isfinite(v):
                raise ValueError(f"{where}: {key} must be a finite number; got {v!r}")
            numbers_[key] = float(v)
        if status != "unchecked" and not numbers_["ci_low"] <= numbers_["gain"] <= numbers_["ci_high"]:
            raise ValueError(f"{where}: the gain {numbers_['gain']} lies outside its interval "
                             f"[{numbers_['ci_low']}, {numbers_['ci_high']}]")
        confidence = d.get("confidence", 0.95)
        if not isinstance(confidence, numbers.Real) or isinstance(confidence, bool) or not 0 < confidence < 1:
            raise ValueError(f"{where}: confidence must be in (0, 1); got {confidence!r}")
        n_units = d.get("n_units", 0)
        if not isinstance(n_units, numbers.Integral) or isinstance(n_units, bool) or n_units < 0 or (
                status != "unchecked" and n_units < 1):
            raise ValueError(f"{where}: n_units must be a positive integer; got {n_units!r}")
        detail = d.get("detail", {})
        if not isinstance(detail, dict) or not all(
                isinstance(k, str) and (v is None or isinstance(v, (str, bool, numbers.Real))) for k, v in detail.items()):
            raise ValueError(f"{where}: detail must map names to JSON scalars")
        reason = d.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise ValueError(f"{where}: reason must be a string or null")
        parts = {name: _check_part(d.get(name), f"{where}: {name}") for name in ("cold", "warm")}
        return cls(status=status, measure=d.get("measure", ""), unit=d.get("unit", ""),
                   baseline=d.get("baseline", ""), confidence=float(confidence), n_units=int(n_units),
                   detail=dict(detail), reason=reason, **numbers_, **parts)


_PART_KEYS = ("gain", "ci_low", "ci_high", "n_units", "learned_score", "baseline_score")


def _check_part(part, where):
    """A report's cold or warm part (None, or a dict of _PART_KEYS), checked."""
    if part is None:
        return None
    if not isinstance(part, dict) or set(part) != set(_PART_KEYS):
        raise ValueError(f"{where} must be null or a dict of {', '.join(_PART_KEYS)}")
    out = {}
    for key in _PART_KEYS:
        v = part[key]
        if key == "n_units":
            if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 1:
                raise ValueError(f"{where}: n_units must be a positive integer; got {v!r}")
            out[key] = int(v)
        elif not isinstance(v, numbers.Real) or isinstance(v, bool) or not math.isfinite(v):
            raise ValueError(f"{where}: {key} must be a finite number; got {v!r}")
        else:
            out[key] = float(v)
    if not out["ci_low"] <= out["gain"] <= out["ci_high"]:
        raise ValueError(f"{where}: the gain lies outside its interval")
    return out


def check_holdout(value):
    """``baseline_holdout`` as every learner takes it: None (no check) or a share in (0, 1).

    Examples
    --------
    >>> from learnsim.baseline import check_holdout
    >>> check_holdout(0.2), check_holdout(None)
    (0.2, None)
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not 0.0 < value < 1.0:
        raise ValueError(f"baseline_holdout must be a number in (0, 1) or None; got {value!r}")
    return float(value)


def _rng(random_state):
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(2**31 - 1))
    return np.random.default_rng(random_state)


def paired_bootstrap(diff, *, groups=None, confidence=0.95, n_resamples=N_RESAMPLES, random_state=0):
    """Percentile bootstrap interval of the mean of ``diff`` (one paired difference per unit).

    Parameters
    ----------
    groups : array-like (n_units,), optional
        Units that share a group are not independent (queries of one held-out cluster): whole
        groups are resampled (a cluster bootstrap), and the interval widens accordingly. With
        very few groups (two or three held-out clusters) the resamples take only a handful of
        values and the interval is little more than the range of the groups' means: a rough
        guide, not a 95 % guarantee.

    Returns
    -------
    (low, high) : floats. With a single unit (or group) both are the mean difference.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.baseline import paired_bootstrap
    >>> diff = np.random.default_rng(0).normal(0.5, 0.1, size=100)
    >>> low, high = paired_bootstrap(diff)
    >>> bool(low < diff.mean() < high), bool(low > 0)
    (True, True)
    """
    d = np.asarray(diff, dtype=np.float64).ravel()
    if d.size == 0:
        raise ValueError("paired_bootstrap needs at least one difference")
    if not np.all(np.isfinite(d)):
        raise ValueError("paired_bootstrap: the differences must be finite")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}")
    if groups is None:
        sums, counts = d, np.ones_like(d)
    else:
        g = np.asarray(groups).ravel()
        if g.shape != d.shape:
            raise ValueError(f"groups must have one entry per difference ({d.size}); got {g.size}")
        _, inverse = np.unique(g, return_inverse=True)
        sums, counts = np.bincount(inverse, weights=d), np.bincount(inverse).astype(np.float64)
    mean = float(d.mean())
    if sums.size == 1 or np.all(d == d[0]):
        return mean, mean
    rng = _rng(random_state)
    n = sums.size
    means = np.empty(n_resamples)
    # resample in blocks so that n_resamples x n indices are never held at once
    step = max(1, 2**22 // n)
    for start in range(0, n_resamples, step):
        stop = min(n_resamples, start + step)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    # the percentile interval always holds the sample mean up to rounding; make it exact
    return float(min(low, mean)), float(max(high, mean))


def _warn(message, stacklevel):
    # at the user's line also when learnsim.fit reaches the check through several calls
    warn_outside(message, BaselineWarning, stacklevel=stacklevel + 1)


def compare(learned, baseline, *, measure, unit, baseline_name, owner, groups=None, confidence=0.95,
            random_state=0, detail=None, stacklevel=2):
    """Learned against baseline, one score per held-out unit (higher is better).

    Keeps the learned part when the whole interval of the gain lies above zero over at least 6
    units (at 95 %; groups where ``groups`` is given: the module notes); otherwise returns a
    report whose ``status`` is ``"baseline"`` and warns (:class:`BaselineWarning`) that
    ``owner`` falls back.
    Units neither rule scores (NaN, e.g. a query without a relevant held-out item) are dropped;
    a unit only the baseline scores is the learned rule's failure, and the model falls back.
    ``groups`` (one per unit) makes the interval a cluster bootstrap (see :func:`paired_bootstrap`).

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.baseline import compare
    >>> rng = np.random.default_rng(0)
    >>> baseline = rng.random(200)
    >>> learned = baseline + 0.1 + 0.05 * rng.normal(size=200)     # clearly better on every unit
    >>> report = compare(learned, baseline, measure="recall@1", unit="held-out queries",
    ...                  baseline_name="input cosine", owner="example")
    >>> report.status, round(report.gain, 2)
    ('learned', 0.1)
    """
    a = np.asarray(learned, dtype=np.float64).ravel()
    b = np.asarray(baseline, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"learned and baseline scores differ in length: {a.size} and {b.size}")
    keep = np.isfinite(a) & np.isfinite(b)
    # a unit the baseline scores and the learned rule does not is where the rule failed: dropped
    # like one neither scores, it would leave the rule judged on the units it chose to score
    unscored = int(np.count_nonzero(np.isfinite(b) & ~np.isfinite(a)))
    n_scored_by_baseline = int(np.count_nonzero(np.isfinite(b)))
    a, b = a[keep], b[keep]
    if groups is not None:
        groups = np.asarray(groups).ravel()
        if groups.shape != keep.shape:
            raise ValueError(f"groups must have one entry per unit ({keep.size}); got {groups.size}")
        groups = groups[keep]
    if a.size == 0 and unscored:
        # the rule scored none of the units the baseline scores: not "unchecked", which keeps it.
        # The model is the baseline, whose gain over itself is nil (as the search check's report
        # of judgements too few to hold out: learnsim.baseline._search.baseline_of_judgements)
        base = float(np.mean(np.asarray(baseline, dtype=np.float64).ravel()[np.isfinite(np.ravel(baseline))]))
        report = BaselineGain(status="baseline", measure=measure, unit=unit, baseline=baseline_name,
                              learned_score=base, baseline_score=base, gain=0.0, ci_low=0.0, ci_high=0.0,
                              confidence=confidence, n_units=n_scored_by_baseline,
                              detail={**dict(detail or {}), "learned_unscored": unscored},
                              reason=f"the learned rule gave no score (NaN or an infinity) on any of the {unscored} "
                                     f"{unit} the baseline scores")
        _warn(f"{owner}: {report.summary()}", stacklevel)
        return report
    if a.size == 0:
        return unchecked(f"none of the {unit} could be scored", baseline_name=baseline_name, owner=owner,
                         stacklevel=stacklevel + 1)
    diff = a - b
    low, high = paired_bootstrap(diff, groups=groups, confidence=confidence, random_state=random_state)
    gain = float(diff.mean())
    if unscored:
        reason = (f"the learned rule gave no score (NaN or an infinity) on {unscored} of the "
                  f"{n_scored_by_baseline} {unit} the baseline scores")
    else:
        reason = _too_few(a.size, groups, unit, baseline_name, confidence)
    # the interval always holds the mean, so low > 0 implies a positive gain
    status = "learned" if low > 0 and reason is None else "baseline"
    report = BaselineGain(status=status, measure=measure, unit=unit, baseline=baseline_name,
                          learned_score=float(a.mean()), baseline_score=float(b.mean()), gain=gain,
                          ci_low=low, ci_high=high, confidence=confidence, n_units=int(a.size),
                          detail=dict(detail or {}), reason=reason)
    if status == "baseline":
        _warn(f"{owner}: {report.summary()}", stacklevel)
    return report


def _too_few(n_units, groups, unit, baseline_name, confidence):
    """Why ``n_units`` scored units (in ``groups``, where given) are too few for any gain to be
    kept, or None. A percentile interval lies above zero whenever every unit gains, however few
    they are, and a rule that gains nothing gains on all n of them one time in 2^n: below the
    fewest n that makes that rarer than the interval's lower tail (6 at 95 %: _chance, the search
    check's rule), a "gain" is not evidence. Units of one group (queries of a
    held-out cluster, triplets of an anchor) are one draw: the groups count."""
    need = fewest_units(confidence)
    if groups is None:
        if n_units >= need:
            return None
        what = f"{n_units} {unit}"
    else:
        n_groups = int(np.unique(groups).size)
        if n_groups >= need:
            return None
        what = f"{n_groups} held-out group{'' if n_groups == 1 else 's'} (each resampled whole)"
    return (f"only {what} scored: too few to tell a gain over {baseline_name} from chance (at least {need}; a rule "
            f"that gains nothing gains on all of {need - 1} one time in {2 ** (need - 1)})")


def unchecked(reason, *, baseline_name, owner, stacklevel=2):
    """The report of a model fitted on all its supervision without a held-out check; warns.

    Examples
    --------
    >>> import warnings
    >>> from learnsim.baseline import unchecked
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     report = unchecked("too few clusters", baseline_name="Euclidean distance", owner="example")
    >>> report.status, caught[0].category.__name__
    ('unchecked', 'BaselineWarning')
    """
    _warn(f"{owner}: the learned model is not checked against the baseline ({baseline_name}): {reason}",
          stacklevel)
    return BaselineGain(status="unchecked", baseline=baseline_name, reason=reason)


def cross_fitted(candidates, baseline_index, *, n_folds=2, random_state=0):
    """Choose among candidate rules by their held-out scores, and score that choice honestly.

    Parameters
    ----------
    candidates : array (n_candidates, n_units)
        Each candidate rule's score on each held-out unit (higher is better).
    baseline_index : int
        The row that is the baseline; ties go to it.

    Returns
    -------
    chosen : int
        The candidate with the best mean over all units (what the fitted model uses).
    learned : ndarray (n_units,)
        Each unit's score under the candidate chosen on the *other* folds, so that the mean gain
        over ``candidates[baseline_index]`` is not inflated by the choice. With fewer than
        ``2 * n_folds`` units there are no folds and the in-sample choice is scored.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.baseline import cross_fitted
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random(40)
    >>> chosen, learned = cross_fitted(np.vstack([base, base + 0.3]), 0)
    >>> chosen, learned.shape
    (1, (40,))
    """
    C = np.asarray(candidates, dtype=np.float64)
    if C.ndim != 2 or C.shape[0] < 1 or C.shape[1] < 1:
        raise ValueError(f"candidates must be a (n_candidates, n_units) array; got shape {C.shape}")

    def best(cols):
        means = np.nanmean(C[:, cols], axis=1) if len(cols) else np.zeros(C.shape[0])
        means = np.where(np.isfinite(means), means, -np.inf)
        top = means.max()
        # ties to the baseline: learning must earn its place
        return baseline_index if means[baseline_index] >= top else int(np.argmax(means))

    n = C.shape[1]
    chosen = best(np.arange(n))
    if n < 2 * n_folds:
        return chosen, C[chosen].copy()
    learned = np.empty(n)
    for fold, rest in cross_folds(n, n_folds=n_folds, random_state=random_state):
        learned[fold] = C[best(rest), fold]
    return chosen, learned


def cross_folds(n_units, *, n_folds=2, random_state=0):
    """The folds :func:`cross_fitted` scores by: a list of (the units of a fold, the units of the
    others), as index arrays over ``n_units``; one (every unit, every unit) with fewer than
    ``2 * n_folds`` units (a choice made and scored in sample, as cross_fitted then does).

    A method whose checked model is fitted with a choice (learnsim.relative's C) uses them to
    give each held-out unit the model chosen without it.

    Examples
    --------
    >>> from learnsim.baseline import cross_folds
    >>> [(sorted(a.tolist()), sorted(b.tolist())) for a, b in cross_folds(4, random_state=0)]
    [([0, 2], [1, 3]), ([1, 3], [0, 2])]
    """
    every = np.arange(int(n_units))
    if n_units < 2 * n_folds:
        return [(every, every)]
    folds = np.array_split(_rng(random_state).permutation(int(n_units)), n_folds)
    return [(fold, np.concatenate([g for h, g in enumerate(folds) if h != f])) for f, fold in enumerate(folds)]


def choose(candidates, baseline_index, *, measure, unit, baseline_name, owner, groups=None, detail=None,
           random_state=0, stacklevel=2):
    """Choose among candidate rules on held-out units and check the choice against the baseline.

    :func:`cross_fitted` picks the candidate and scores it honestly, :func:`compare` judges the
    gain over ``candidates[baseline_index]``. The model uses the baseline (the returned index is
    ``baseline_index``) when the report falls back, and also when the baseline itself has the
    best mean over all the units, though the cross-fitted gain passed (then the report's status
    is made ``"baseline"`` and a :class:`BaselineWarning` says why).

    Parameters
    ----------
    detail : dict, or callable(chosen index) -> dict, optional
        The report's ``detail``, given the index the model finally uses.

    Returns
    -------
    (chosen index, BaselineGain)

    Examples
    --------
    Three candidate rules scored on 100 held-out units; candidate 0 is the baseline:

    >>> import numpy as np
    >>> from learnsim.baseline import choose
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random(100)
    >>> candidates = np.vstack([base, base + 0.2, base - 0.1])
    >>> chosen, report = choose(candidates, 0, measure="accuracy", unit="held-out pairs",
    ...                         baseline_name="input cosine", owner="example")
    >>> chosen, report.status
    (1, 'learned')
    """
    from dataclasses import replace

    C = np.asarray(candidates, dtype=np.float64)
    chosen, learned = cross_fitted(C, baseline_index, random_state=random_state)
    report = compare(learned, C[baseline_index], measure=measure, unit=unit, baseline_name=baseline_name,
                     owner=owner, groups=groups, random_state=random_state, stacklevel=stacklevel + 1)
    if report.status == "learned" and chosen == baseline_index:
        report = replace(report, status="baseline", reason="the baseline itself scores best on all the held-out units")
        _warn(f"{owner}: {report.summary()}", stacklevel)
    if report.fell_back:
        chosen = baseline_index
    if detail is not None:
        report = replace(report, detail=dict(detail(chosen) if callable(detail) else detail))
    return chosen, report


def split_groups(groups, fraction=DEFAULT_HOLDOUT, *, random_state=0, min_held=2, min_train=2):
    """Hold out whole groups (clusters, anchors).

    Returns
    -------
    (ids, held) : ``np.unique(groups)`` and a boolean mask over it of the held-out groups, or
    None when the groups are too few to keep ``min_held`` out and ``min_train`` in.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.baseline import split_groups
    >>> ids, held = split_groups(np.repeat(np.arange(10), 3), 0.2, random_state=0)
    >>> ids.tolist(), int(held.sum())
    ([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 2)
    >>> split_groups(np.array([0, 0, 1, 1]), 0.2) is None       # too few groups to hold any out
    True
    """
    ids = np.unique(np.asarray(groups))
    n = ids.size
    n_held = max(min_held, int(round(fraction * n)))
    if n - n_held < min_train:
        return None
    mask = np.zeros(n, dtype=bool)
    mask[_rng(random_state).permutation(n)[:n_held]] = True
    return ids, mask
