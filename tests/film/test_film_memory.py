"""FILM holds one n x r array, the SVD factor V (issue 16, part 3).

The anchors' D = C^T V (eq. 8), V[anchors] and K's weighted copy of D used to be n_anchors x r
arrays beside V; they are now computed block by block at every refresh
(``learnsim._film_blocks``). These tests check that the blocked terms are the stored ones, that a
blocked fit is the whole fit up to rounding, and that a refresh's memory is bounded by the blocks.
"""
import tracemalloc

import numpy as np
import pytest

import learnsim.film._blocks as film_blocks
from learnsim.film._film import FILM, _FilmObjective, _random_stiefel


def _problem(n=400, r=12, per_anchor=3, anchor_share=1.0, seed=0):
    rng = np.random.default_rng(seed)
    V = np.ascontiguousarray(np.linalg.qr(rng.normal(size=(n, r)))[0])
    anchors = np.sort(rng.choice(n, int(anchor_share * n), replace=False))
    i = np.repeat(anchors, per_anchor)
    T = np.column_stack([i, rng.integers(0, n, i.size), rng.integers(0, n, i.size)])
    return rng, V, T


def _rows_per_block(monkeypatch, rows, r):
    """Make the anchors' blocks ``rows`` anchors long at rank ``r``."""
    monkeypatch.setattr(film_blocks, "_BLOCK_BYTES", 8 * r * rows)


@pytest.mark.parametrize("anchor_share", [1.0, 0.4])       # V[anchors] is V itself, or a gather
@pytest.mark.parametrize("temperature", [0.0, 0.05])
def test_blocked_terms_are_the_stored_ones(monkeypatch, anchor_share, temperature):
    rng, V, T = _problem(anchor_share=anchor_share)
    P = _random_stiefel(rng, V.shape[1], 3)
    whole = _FilmObjective(V, T, margin=0.02, temperature=temperature)
    assert whole.block.stored
    _rows_per_block(monkeypatch, 7, V.shape[1])
    blocked = _FilmObjective(V, T, margin=0.02, temperature=temperature)
    assert not blocked.block.stored
    # each row of D is the same sparse product: equal bit for bit; K only sums in another order
    np.testing.assert_array_equal(blocked.block.D, whole.block.D)
    np.testing.assert_array_equal(blocked.block.VA, whole.block.VA)
    np.testing.assert_allclose(blocked.K, whole.K, rtol=1e-12, atol=1e-15)
    s = whole.scales(P)
    np.testing.assert_allclose(blocked.z_values(P, s), whole.z_values(P, s), rtol=1e-12, atol=1e-15)
    assert blocked.refresh(P) == whole.refresh(P)
    np.testing.assert_allclose(blocked.lam, whole.lam, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(blocked.K, whole.K, rtol=1e-12, atol=1e-15)
    assert blocked.n_active == pytest.approx(whole.n_active, rel=1e-12)
    assert blocked.hinge_history[-1] == pytest.approx(whole.hinge_history[-1], rel=1e-12)
    f_b, G_b = blocked(P)
    f_w, G_w = whole(P)
    assert f_b == pytest.approx(f_w, rel=1e-12)
    np.testing.assert_allclose(G_b, G_w, rtol=1e-10, atol=1e-14)


def test_an_unchanged_active_set_keeps_K(monkeypatch):
    """With the paper's step Lambda, a refresh that flips no anchor reports no change and keeps K
    (the blocked pass computes K along with z; it is dropped)."""
    rng, V, T = _problem()
    _rows_per_block(monkeypatch, 9, V.shape[1])
    objective = _FilmObjective(V, T, margin=10.0, temperature=0.0)   # every anchor stays active
    K = objective.K
    assert objective.refresh(_random_stiefel(rng, V.shape[1], 3)) is False
    assert objective.K is K
    np.testing.assert_array_equal(objective.lam, 1.0)


def _clusters(seed=0, n=360, dim=40, n_clusters=9):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_clusters, n)
    X = rng.normal(size=(n, dim)) + 2.0 * rng.normal(size=(n_clusters, dim))[labels]
    return X, labels


@pytest.mark.filterwarnings("ignore::learnsim.baseline.BaselineWarning")      # the check's verdict is not tested
@pytest.mark.parametrize("params", [{"baseline_holdout": None}, {"batch_size": 400, "baseline_holdout": None}, {}])
def test_a_blocked_fit_is_the_whole_fit_up_to_rounding(monkeypatch, params):
    """K summed by blocks differs from K summed at once by rounding only; the optimiser's line
    search turns that into ~1e-8 relative in L, as much as running the same code with another
    number of BLAS threads does (measured: 1.1e-8 either way on this kind of problem)."""
    X, labels = _clusters()
    whole = FILM(n_components=4, random_state=1, **params).fit(X, labels)
    _rows_per_block(monkeypatch, 16, 20)                   # r = 5 d = 20: 16 anchors a block
    blocked = FILM(n_components=4, random_state=1, **params).fit(X, labels)
    assert blocked.n_iter_ == whole.n_iter_
    assert blocked.input_weight_ == whole.input_weight_
    L_b, L_w = blocked.components_, whole.components_
    assert np.abs(L_b - L_w).max() <= 1e-6 * np.abs(L_w).max()
    np.testing.assert_allclose(blocked.hinge_loss_curve_, whole.hinge_loss_curve_, rtol=1e-6)


def _traced(fn):
    """(result, bytes still held, peak bytes) of fn() under tracemalloc (numpy's buffers are
    traced)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        out = fn()
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, current - before, peak - before


@pytest.mark.parametrize("anchor_share", [1.0, 0.5])
def test_refresh_memory_is_bounded_by_the_blocks(monkeypatch, anchor_share):
    rng, V, T = _problem(n=20_000, r=100, per_anchor=2, anchor_share=anchor_share, seed=2)
    P = _random_stiefel(rng, V.shape[1], 8)
    size = V.nbytes                                        # 16 MB
    share = anchor_share * size                            # an n_anchors x r array

    whole, held_w, _ = _traced(lambda: _FilmObjective(V, T, margin=0.0, temperature=0.1))
    _, _, peak_w = _traced(lambda: whole.refresh(P))
    # stored: D (and V[anchors] when a subset) held, and D * weights at every refresh
    assert held_w >= share
    assert peak_w >= share

    _rows_per_block(monkeypatch, 500, V.shape[1])          # 400 kB blocks
    blocked, held_b, _ = _traced(lambda: _FilmObjective(V, T, margin=0.0, temperature=0.1))
    _, _, peak_b = _traced(lambda: blocked.refresh(P))
    # kept: the sparse C^T (two entries per triplet) and the sorted triplets, no n_anchors x r array
    assert held_b < 0.25 * share
    # a refresh: a few blocks and the anchors' z and Lambda
    assert peak_b < 0.15 * size
    np.testing.assert_allclose(blocked.K, whole.K, rtol=1e-10, atol=1e-13)


class _NoProduct(np.ndarray):
    """D that refuses to be multiplied by P (z must take D P from C^T (V P))."""

    def __matmul__(self, other):
        # D (n_anchors x r, C order) on the left; K's product takes D transposed, as before
        if self.flags.c_contiguous:
            raise AssertionError("D @ P computed: an n_anchors x r by r x d product")
        return np.asarray(self) @ other


@pytest.mark.parametrize("temperature", [0.0, 0.05])
def test_z_takes_D_P_from_the_sparse_C_when_every_item_is_an_anchor(temperature):
    """D P = C^T (V P): z (step 2) needs V P anyway, so with every item an anchor the second
    n x r by r x d product is a sparse one (two entries per triplet); z and the refresh are the
    dense formulas' to rounding."""
    rng, V, T = _problem(anchor_share=1.0)
    P = _random_stiefel(rng, V.shape[1], 3)
    objective = _FilmObjective(V, T, margin=0.02, temperature=temperature)
    block = objective.block
    assert block.stored and block.anchors.size == V.shape[0]
    D, VA = block.D.copy(), block.VA
    s = objective.scales(P)
    expected = -block.t * np.einsum("il,il,l->i", VA @ P, D @ P, s)
    block._D = block._D.view(_NoProduct)
    np.testing.assert_allclose(block.z_values(P, s), expected, rtol=1e-12, atol=1e-15)
    z, lam, K = block.refresh_terms(P, s, lambda z: objective.active_set(z, 0.02, temperature))
    np.testing.assert_allclose(z, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(K, -(D * (block.t * lam)[:, None]).T @ VA, rtol=1e-12, atol=1e-14)
