"""FILM's small products run on one BLAS thread (learnsim._utils.linalg.small_blas).

On the shared 2-core machine OpenBLAS's threads, spinning between the optimiser's r x d
products, made a FILM fit on 1,500 duplicate pairs as clusters of two several times slower
(benchmarks/bench_film_pairs.py). These tests check where the thread limit applies, without
timing anything, and that the fitted model is the one every product on BLAS's threads gives,
up to rounding.
"""
import contextlib

import numpy as np
import pytest

import learnsim.film._blocks as film_blocks
import learnsim.film._film as film_module
import learnsim.film.stiefel as stiefel
from blas_threads import blas_threads as _blas_threads
from learnsim.datasets import make_clustered_corpus
from learnsim.film import FILM
from learnsim.text import TextVectorizer

threadpoolctl = pytest.importorskip("threadpoolctl")


def _spy(monkeypatch, owner, name, seen):
    """Record the BLAS threads each call of ``owner.name`` runs under."""
    original = getattr(owner, name)

    def spied(*args, **kwargs):
        seen.setdefault(name, set()).update(_blas_threads())
        return original(*args, **kwargs)
    monkeypatch.setattr(owner, name, spied)


@pytest.fixture(scope="module")
def corpus():
    data = make_clustered_corpus(n_clusters=8, docs_per_cluster=12, vocab_size=600, random_state=3)
    return TextVectorizer(norm="l2").fit_transform(data.data), np.asarray(data.target)


def test_the_optimiser_steps_and_small_film_products_run_on_one_blas_thread(monkeypatch, corpus, two_blas_threads):
    X, y = corpus
    seen = {}
    _spy(monkeypatch, stiefel._CayleyCurve, "__call__", seen)
    _spy(monkeypatch, stiefel._CayleyCurve, "__init__", seen)
    _spy(monkeypatch, stiefel._Point, "__init__", seen)
    original_blocks = film_blocks._AnchorBlock.blocks

    def blocks(self):              # the anchors' rows, as z (step 2) and K (step 4) use them
        for item in original_blocks(self):
            seen.setdefault("blocks", set()).update(_blas_threads())
            yield item
    monkeypatch.setattr(film_blocks._AnchorBlock, "blocks", blocks)
    flops = []
    original_small_blas = film_module.small_blas
    monkeypatch.setattr(film_module, "small_blas", lambda f: flops.append(f) or original_small_blas(f))
    FILM(n_components=5, max_iter=15, baseline_holdout=None, random_state=0).fit(X, y)
    # every step of the optimiser and the anchors' terms (96 anchors x r = 25): one thread
    assert seen == {"__call__": {1}, "__init__": {1}, "blocks": {1}}
    # K + K^T times P (r x r by r x d) asks for its threads at every evaluation
    assert flops and set(flops) == {2 * 25 * 25 * 5}


def test_large_anchor_products_keep_blas_threads(monkeypatch, two_blas_threads):
    """Above small_blas's bound the anchors' products use BLAS's threads, as before."""
    rng = np.random.default_rng(0)
    n, r = 40, 6
    V = np.linalg.qr(rng.normal(size=(n, r)))[0]
    anchors, counts = np.arange(n), np.full(n, 2)
    block = film_blocks._AnchorBlock(V, anchors, counts, rng.integers(0, n, 2 * n), rng.integers(0, n, 2 * n), 1.0)
    seen = []
    monkeypatch.setattr(film_blocks, "small_blas", lambda flops: seen.append(flops) or contextlib.nullcontext())
    block.k_matrix(np.ones(n))
    block.z_values(np.eye(r)[:, :2], np.ones(2))
    # the flops counted are those of the products: n x r by r x r, and two n x r by r x d
    assert seen == [2 * n * r * r, 2 * n * r * 4]


def test_the_fitted_model_is_the_one_blas_threads_give(monkeypatch, corpus, two_blas_threads):
    """The thread limit changes rounding at most: the same map, the same neighbours."""
    X, y = corpus

    def fit():
        return FILM(n_components=5, max_iter=40, baseline_holdout=None, random_state=0).fit(X, y)

    now = fit()
    for module in (film_module, film_blocks, stiefel):
        monkeypatch.setattr(module, "small_blas", lambda flops: contextlib.nullcontext())
    before = fit()
    assert now.n_iter_ == before.n_iter_
    scale = np.abs(before.components_).max()
    np.testing.assert_allclose(now.components_, before.components_, rtol=0, atol=1e-8 * scale)
    S_now, S_before = now.similarity(X), before.similarity(X)
    np.testing.assert_allclose(S_now, S_before, atol=1e-9)
    # the same 5 nearest neighbours, up to ties: the scores of each one's top 5 agree
    top = np.argsort(-S_now, axis=1)[:, :5]
    np.testing.assert_allclose(np.take_along_axis(S_before, top, axis=1), -np.sort(-S_before, axis=1)[:, :5],
                               atol=1e-9)
