"""SearchRule's held-out check finds each query's best hit for every weight of its grid without
forming the mixtures of whole rows (film._search_weight._best_per_weight): it must pick what
argmax of every mixture picks, ties to the lower column included."""
from __future__ import annotations

import numpy as np
import pytest

from learnsim.film._search_weight import _best_per_weight


@pytest.mark.parametrize("seed", range(6))
def test_best_per_weight_is_argmax_of_every_mixture(seed):
    rng = np.random.default_rng(seed)
    n, m = 40, 300
    Ci, Cl = rng.random((n, m)) * 2 - 1, rng.random((n, m)) * 2 - 1
    if seed % 2:
        Ci, Cl = np.round(Ci, 1), np.round(Cl, 1)       # many ties
    if seed == 5:
        Cl = rng.random((n, m)) ** 8                      # skewed, as cosines are: few survivors
    self_ = rng.integers(0, m, n)
    Ci[np.arange(n), self_] = -2.0
    Cl[np.arange(n), self_] = -2.0
    grid = np.round(np.linspace(0.0, 1.0, 21), 2)
    expected = np.array([(w * Ci + (1 - w) * Cl).argmax(axis=1) for w in grid])
    np.testing.assert_array_equal(_best_per_weight(Ci, Cl, grid), expected)
