"""How few held-out units a check can keep a gain on (the rule of :mod:`learnsim.baseline`).

A percentile bootstrap interval lies above zero whenever every held-out unit (or group the
interval resamples) gains, however few they are, and a rule that gains nothing gains on all n of
them one time in 2^n. :func:`fewest_units` is the smallest n that makes that rarer than the
interval's lower tail. It is here, below both _gain (compare) and _search (check_search), so that
neither imports the other: _search imports _gain, and _gain may not import _search back
(tests/test_layout.py: no import circles).
"""
from __future__ import annotations

import math


def fewest_units(confidence):
    """The fewest independent held-out units on which a gain can be kept: the smallest n with
    2^-n at most the interval's lower tail, (1 - confidence) / 2 (6 at 95 %, 8 at 99 %).

    Examples
    --------
    >>> from learnsim.baseline._chance import fewest_units
    >>> fewest_units(0.95), fewest_units(0.99)
    (6, 8)
    """
    return int(math.ceil(math.log2(2.0 / (1.0 - confidence)) - 1e-9))
