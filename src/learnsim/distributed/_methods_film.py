"""FILM's fit on a Dask collection (:func:`learnsim.distributed.methods.fit_film`): the SVD of
step 1 on the partitions, the triplets' constant terms D_i, V_i, t_i held by the partition of
their anchor, and every refresh of Lambda and K (Algorithm 1, line 6) a map over partitions and
a sum on the driver, where the r x r Stiefel optimisation runs.
"""
from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from ..film import FILM, FilmObjective, choose_svd_rank, trim_svd
from ..supervision import clusters_to_triplets
from ._methods_common import _compute, _dask, _local_labels, _read_block, _svd

def _row_norm_part(block, shape, index, name):
    return FILM._row_norms(_read_block(block, shape, index, name, dtype=np.float64))


def _anchor_state(V_part, local_anchors, t, *partials):
    """A partition's share of Algorithm 1's constant terms: D_i = sum_{t in T_i} (V_j - V_k)
    (the sum of the partial products with every partition's rows of V), V_i and t_i for the
    anchors among its rows."""
    D = partials[0].copy() if partials else np.zeros((local_anchors.size, V_part.shape[1]))
    for more in partials[1:]:
        D += more
    return {"D": D, "VA": np.ascontiguousarray(V_part[local_anchors]), "t": t}


def _partial_D(Ct_block, V_part):
    return np.asarray(Ct_block @ V_part)


def _anchor_step(state, P, s, margin, temperature):
    """Map step of a refresh (Algorithm 1, line 6) on a partition's anchors: z_i, the hinge
    sum, Lambda_ii and this partition's term of K = -sum_i D_i t_i lambda_i V_i^T (step 4).
    With P None: every anchor active (Lambda = I), the start of the fit."""
    D, VA, t = state["D"], state["VA"], state["t"]
    if P is None:
        lam, hinge = np.ones(t.size), 0.0
    else:
        z = -t * np.einsum("il,il,l->i", VA @ P, D @ P, s)
        hinge = float(np.maximum(z + margin, 0.0).sum())
        lam = FilmObjective.active_set(z, margin, temperature)
    weights = t * lam * 1.0
    return -(D * weights[:, None]).T @ VA, float(lam.sum()), hinge, lam


class _DistributedFilmObjective(FilmObjective):
    """FILM's f2 (eq. 19) with the anchors' terms held by the partitions: each refresh sums the
    partitions' K, tr(Lambda) and hinge terms; f2 and its gradient are r x r, on the driver."""

    def __init__(self, states):
        super().__init__()
        self.states = states
        parts = self._map(None, None)
        self.lam = [p[3] for p in parts]
        self._reduce(parts)

    def _map(self, P, s):
        dask, _ = _dask()
        step = dask.delayed(_anchor_step, pure=True)
        # the map P (r x r) and its scales are one key each, read by every partition's task, not
        # a copy pickled into each (r^2 x 8 bytes a partition, every refresh)
        if P is not None:
            P, s = dask.delayed(P, pure=True), dask.delayed(s, pure=True)
        return _compute(*[step(st, P, s, self.margin, self.temperature) for st in self.states])

    def _reduce(self, parts):
        K = parts[0][0].copy()
        for p in parts[1:]:
            K += p[0]
        self.set_terms(K, float(sum(p[1] for p in parts)))

    def hinge(self, P, s):
        return float(sum(p[2] for p in self._map(P, s)))

    def refresh(self, P):
        s = self.scales(P)
        parts = self._map(np.asarray(P), s)
        self.hinge_history.append(float(sum(p[2] for p in parts)))
        lam = [p[3] for p in parts]
        if all(np.array_equal(a, b) for a, b in zip(lam, self.lam)):
            return False
        self.lam = lam
        self._reduce(parts)
        return True


def fit_film_collection(est, coll, y, d, r_param, per_item, n_power_iter):
    dask, _ = _dask()
    n, n_features = coll.shape
    rng, _ = est.random_streams()       # the single-process fit's streams (no check here)
    spans = coll.spans()
    norms = np.concatenate(_compute(*[dask.delayed(_row_norm_part)(b, (e - s, n_features), i, "X")
                                      for b, (i, s, e) in zip(coll.blocks, spans)]))
    zero_rows = np.flatnonzero(norms == 0)
    kind, sup = est._supervision(_local_labels(y, n, "y"), n, zero_rows)
    if kind == "triplets":
        est._check_zero_rows(sup, zero_rows)
    r = choose_svd_rank(d, r_param, n, n_features)
    T = sup if kind == "triplets" else clusters_to_triplets(sup, per_item * n, random_state=rng).indices
    _learn(est, coll, T, d, r, rng, n_power_iter)
    est.input_weight_ = 0.0
    est.baseline_gain_ = None
    est.n_features_in_ = n_features
    est.timings_["baseline_check"] = 0.0
    return est


def _anchor_states(coll, V, T):
    """Every partition's anchor state (:func:`_anchor_state`), persisted on the workers."""
    dask, _ = _dask()
    n = coll.shape[0]
    order = np.argsort(T[:, 0], kind="stable")
    Ts = T[order]
    anchors, counts = np.unique(Ts[:, 0], return_counts=True)
    rows = np.repeat(np.arange(anchors.size), counts)
    # C^T at the anchors, as FILM's _AnchorBlock builds it: +1 at (i, j), -1 at (i, k)
    Ct = sp.csr_matrix((np.concatenate([np.ones(rows.size), -np.ones(rows.size)]),
                        (np.concatenate([rows, rows]), np.concatenate([Ts[:, 1], Ts[:, 2]]))),
                       shape=(anchors.size, n))
    t = 1.0 / (counts + 1.0)
    V_parts = V.to_delayed(optimize_graph=False).ravel()
    spans = coll.spans()
    states = []
    for (_, s, e), V_q in zip(spans, V_parts):
        lo, hi = np.searchsorted(anchors, [s, e])
        Ct_q = Ct[lo:hi].tocsc()
        partials = []
        for (_, s2, e2), V_p in zip(spans, V_parts):
            block = sp.csr_matrix(Ct_q[:, s2:e2])
            if block.nnz:
                partials.append(dask.delayed(_partial_D)(block, V_p))
        states.append(dask.delayed(_anchor_state)(V_q, anchors[lo:hi] - s, t[lo:hi], *partials))
    return list(dask.persist(*states))


def _learn(est, coll, T, d, r, rng, n_power_iter):
    """FILM's ``_learn`` (Algorithm 1) with the SVD and the anchors' terms on the partitions."""
    n, n_features = coll.shape
    svd_start = time.perf_counter()
    seed = int(rng.integers(2**31 - 1))
    V, sigma, Ut = trim_svd(*_svd(coll, np.arange(n_features), r, n_power_iter, seed, normalize=True), d)
    V = V.rechunk({0: tuple(int(v) for v in coll.sizes), 1: -1})
    states = _anchor_states(coll, V, T)
    objective = _DistributedFilmObjective(states)
    svd_seconds = time.perf_counter() - svd_start

    est.fit_objective(objective, sigma, Ut, n_triplets=int(T.shape[0]), n_items=n, rng=rng, svd_seconds=svd_seconds)
