"""sample_label_triplets asked for more distinct triplets than its items make drew random
triples up to max(1,000,000, 1000 x n_triplets) times before it listed them: 19 s for 100,000
triplets of six labelled items, and no end in sight for 10**12 (helper h-api's sweep of the
API). A count no drawing can reach now goes straight to the listing (a small pool) or to the
error (a large one)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from learnsim.supervision import sample_label_triplets
from learnsim.supervision import sampling


def _no_drawing(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("drew random triples for a count no drawing can reach")

    monkeypatch.setattr(sampling, "_distinct_triples", refuse)


def test_more_triplets_than_a_small_pool_makes_are_listed_without_drawing(monkeypatch):
    labels = [0, 0, 1, 1, 2, 2]
    _no_drawing(monkeypatch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = sample_label_triplets(labels, 200, random_state=0)     # 6 x 5 x 4 = 120 ordered triples at most
    assert len(t) == 200
    assert any("distinct triples" in str(w.message) for w in caught)
    y = np.asarray(labels)
    assert np.all(y[t.anchors] == y[t.positives]) and np.all(y[t.anchors] != y[t.negatives])


def test_more_triplets_than_a_large_pool_makes_are_refused_before_drawing(monkeypatch):
    labels = np.repeat(np.arange(50), 3)                            # 150 items: 44,100 same-label triples
    _no_drawing(monkeypatch)
    with pytest.raises(ValueError, match=r"n_triplets=10,000,000 .* 150 labelled items"):
        sample_label_triplets(labels, 10_000_000, random_state=0)


def test_a_reachable_count_is_drawn_as_before():
    a = sample_label_triplets([0, 0, 1, 1, 2, 2, 0, 1], 10, random_state=3)
    b = sample_label_triplets([0, 0, 1, 1, 2, 2, 0, 1], 10, random_state=3)
    assert np.array_equal(a.indices, b.indices) and len({tuple(r) for r in a.indices.tolist()}) == 10


def test_more_triplets_than_memory_holds_is_a_value_error_naming_the_count():
    """clusters_to_triplets([0, 0, 1, 1, 2, 2], 10**12) raised numpy's MemoryError ('Unable to
    allocate 7.28 TiB'), naming neither the argument nor what to do."""
    import pytest

    from learnsim.supervision import clusters_to_triplets

    with pytest.raises(ValueError, match=r"n_triplets=1000000000000 .* memory"):
        clusters_to_triplets([0, 0, 1, 1, 2, 2], 10**12, random_state=0)
    assert clusters_to_triplets([0, 0, 1, 1, 2, 2], 10, random_state=0).n_triplets == 10
