"""The cost of MinimumClusterDistortion's automatic selection (issue 16, part 3).

Small folds are scored exactly as before (every held-out item ranks all the others); large ones
from sampled queries against a bounded sample, so the work per fold does not grow with the
clusters. These tests check the exact path against the former implementation, the sampled
estimator against the exact measure, the bound on the work, and determinism.
"""
import numpy as np
import pytest

import learnsim.mcd._mcd as mcd
from learnsim.evaluation import cluster_retrieval_report
from learnsim.mcd import MinimumClusterDistortion


def _anisotropic(seed, n_clusters, per, dim=12, loud=None):
    """Clusters whose centres differ along a few directions and whose noise is large along
    others (``loud`` of them, default half): the learned metric is clearly better than Euclid."""
    rng = np.random.default_rng(seed)
    loud = dim // 2 if loud is None else loud
    scale = np.ones(dim)
    scale[:loud] = 6.0                            # loud, uninformative directions
    centres = rng.normal(size=(n_clusters, dim)) * 1.5
    centres[:, :loud] = 0.0
    sizes = per if np.ndim(per) else np.full(n_clusters, per)
    y = np.repeat(np.arange(n_clusters), sizes)
    X = centres[y] + rng.normal(size=(y.size, dim)) * scale
    return X, y


def _sq_dists(P):
    """|a - b|^2 between all rows of P (the former exact scoring's distances)."""
    sq = np.einsum("ij,ij->i", P, P)
    return sq[:, None] + sq[None, :] - 2.0 * P @ P.T


def _former_select(self, X, basis_of, labels, ids, cluster_weights, grids, rng):
    """The selection before issue 16: one basis of the largest rank for every size, one stage."""
    import itertools

    grids = dict(grids)
    basis = None
    if basis_of is not None:
        basis = basis_of(max(grids["n_basis"]))
        grids["n_basis"] = sorted(set(min(k, basis.rank) for k in grids["n_basis"]))
    folds = np.array_split(rng.permutation(len(ids)), min(self.cv, len(ids) // 2))
    weight_of = dict(zip(ids.tolist(), cluster_weights))
    keys = list(itertools.product(grids["n_basis"], grids["shrinkage"], grids["complement_weight"]))
    totals = dict.fromkeys(keys, 0.0)
    for fold in folds:
        _former_score_fold(self, X, basis, labels, ids, weight_of, fold, grids, rng, totals)
    means = {key: total / len(folds) for key, total in totals.items()}
    best = max(keys, key=lambda kk: (round(means[kk], 12), kk[1], kk[2], -(kk[0] or 0)))
    results = {"n_basis": [k[0] for k in keys], "shrinkage": [k[1] for k in keys],
               "complement_weight": [k[2] for k in keys], "score": [means[k] for k in keys]}
    return dict(zip(("n_basis", "shrinkage", "complement_weight"), best)), results


def _former_score_fold(self, X, basis, labels, ids, weight_of, fold, grids, rng, totals):
    """The selection's fold scoring before issue 16 (every held-out item ranks all the others)."""
    held = ids[fold]
    sizes = np.array([(labels == c).sum() for c in held])
    order = rng.permutation(len(held))
    take = order[np.cumsum(sizes[order]) <= max(self.max_validation_items, sizes.max())]
    held = held[take] if take.size >= 2 else held[order[:2]]
    is_held = np.isin(labels, held)
    train_labels = np.where(is_held, -1, labels)
    train_ids = ids[~np.isin(ids, held)]
    w = np.array([weight_of[c] for c in train_ids.tolist()])
    rows = np.flatnonzero(is_held)
    Xv, yv = X[rows], labels[rows]
    G = mcd._dense_dot(Xv, Xv)
    sq = np.diag(G).copy()
    D_full = sq[:, None] + sq[None, :] - 2.0 * G
    if basis is None:
        lam, V, act, _ = mcd._scatter_eigen(X, train_labels, train_ids, w / w.sum(), self.n_components, self.tol, rng)
        spaces = [(None, lam, mcd._project(Xv, V, act))]
    else:
        C = basis.scatter(train_labels, train_ids, w / w.sum())
        spaces = []
        for k in grids["n_basis"]:
            lam, W = mcd._eigh_desc(C[:k, :k], self.tol, basis.scale(train_labels))
            spaces.append((k, lam, basis.coords[rows, :k] @ W))
    for k, lam, P in spaces:
        D_out = D_full - _sq_dists(P)
        for alpha in grids["shrinkage"]:
            D_in = _sq_dists(P * np.sqrt(mcd._raw_weights(lam, alpha))) if lam.size else 0.0
            for gamma in grids["complement_weight"]:
                rep = cluster_retrieval_report(-(D_in + gamma * D_out), yv, measures=(self.selection_measure,))
                totals[(k, alpha, gamma)] += rep[self.selection_measure]


@pytest.mark.parametrize("measure", ["ap11", "ap", "r_precision"])
@pytest.mark.parametrize("n_basis", ["auto", None])
def test_small_folds_score_exactly_as_before(monkeypatch, measure, n_basis):
    X, y = _anisotropic(0, n_clusters=12, per=15)
    params = dict(n_basis=n_basis, basis_grid=(2, 4, 8), selection_measure=measure, random_state=3,
                  baseline_holdout=None)
    monkeypatch.setattr(mcd, "_HALVING_MIN_GROUPS", 10**9)       # every setting on every fold
    new = MinimumClusterDistortion(**params).fit(X, y)
    monkeypatch.setattr(MinimumClusterDistortion, "_select", _former_select)
    old = MinimumClusterDistortion(**params).fit(X, y)
    a, b = new.cv_results_, old.cv_results_
    assert a["n_folds"] == [4] * len(a["score"])
    assert {key: a[key] for key in a if key not in ("score", "n_folds")} == {key: b[key] for key in b if key != "score"}
    # the same scores up to rounding (the ranking is batched and sorted on integer keys now)
    np.testing.assert_allclose(a["score"], b["score"], rtol=0, atol=1e-12)
    assert (new.n_basis_, new.shrinkage_, new.complement_weight_) == (old.n_basis_, old.shrinkage_,
                                                                      old.complement_weight_)
    np.testing.assert_array_equal(new.weights_, old.weights_)


def test_small_folds_never_sample(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a fold below the caps was sampled")

    monkeypatch.setattr(mcd, "_sample_fold", refuse)
    X, y = _anisotropic(1, n_clusters=10, per=20)
    MinimumClusterDistortion(random_state=0, basis_grid=(2, 4), baseline_holdout=None).fit(X, y)


@pytest.mark.parametrize("measure", ["ap11", "ap", "r_precision"])
def test_sampled_estimate_is_exact_when_nothing_is_left_out(measure):
    rng = np.random.default_rng(4)
    labels = np.concatenate([np.repeat(np.arange(6), [5, 8, 12, 3, 7, 9]), [-1, -1]])
    X = rng.normal(size=(labels.size, 5)) + labels[:, None] * 0.3
    design = mcd._sample_fold(labels, np.arange(6), 10_000, 10_000, np.random.default_rng(0))
    Xv = X[design.rows]
    D2 = ((Xv[design.queries][:, None, :] - Xv[None, :, :]) ** 2).sum(-1)
    exact = cluster_retrieval_report(-D2, labels[design.rows], measures=(measure,))[measure]
    assert design.score(D2, measure) == pytest.approx(exact, abs=1e-12)


def test_sampled_estimate_tracks_the_exact_measure():
    rng = np.random.default_rng(5)
    labels = np.repeat(np.arange(30), rng.integers(40, 120, 30))
    X = rng.normal(size=(labels.size, 10)) + rng.normal(size=(30, 10))[labels] * 0.6
    D_all = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    exact = cluster_retrieval_report(-D_all, labels, measures=("ap11",))["ap11"]
    estimates = []
    for seed in range(4):
        design = mcd._sample_fold(labels, np.arange(30), 600, 200, np.random.default_rng(seed))
        assert design.rows.size <= 600 + 2 * 30 and design.queries.size == 200  # n_queries given here
        estimates.append(design.score(D_all[design.rows[design.queries]][:, design.rows], "ap11"))
    assert np.mean(estimates) == pytest.approx(exact, abs=0.03)


def _record_work(monkeypatch):
    """Largest dense distance block the selection builds and ranks (entries), by instrumenting
    the Gram products and the sampled scorer."""
    seen = {"dot": 0, "ranked": 0, "folds": 0}
    dense_dot = mcd._dense_dot

    def dot(A, B):
        out = dense_dot(A, B)
        seen["dot"] = max(seen["dot"], out.size)
        return out

    scores = mcd._SampledFold.scores

    def counted(self, D2, measure):          # a stack of candidates' (n_queries, n_sampled) distances
        seen["ranked"] = max(seen["ranked"], np.size(D2[0]))
        return scores(self, D2, measure)

    sample = mcd._sample_fold

    def sampled(*args, **kwargs):
        seen["folds"] += 1
        return sample(*args, **kwargs)

    monkeypatch.setattr(mcd, "_dense_dot", dot)
    monkeypatch.setattr(mcd._SampledFold, "scores", counted)
    monkeypatch.setattr(mcd, "_sample_fold", sampled)
    return seen


GRID = dict(n_basis=None, shrinkage_grid=(0.0, 1.0), complement_grid=(0.0, 1.0), baseline_holdout=None)


def test_large_clusters_bound_the_work_and_keep_the_choice(monkeypatch):
    X, y = _anisotropic(2, n_clusters=8, per=[350, 450, 330, 400, 380, 420, 350, 450])
    seen = _record_work(monkeypatch)
    sampled = MinimumClusterDistortion(random_state=0, max_validation_items=300, **GRID).fit(X, y)
    assert seen["folds"] == 4
    # per fold: 200 queries against ~300 sampled items (at least 2 from each held-out cluster)
    bound = mcd._SELECTION_QUERIES * (300 + 2 * 8)
    assert 0 < seen["ranked"] <= bound
    assert seen["dot"] <= bound
    # the exact selection on the whole held-out clusters (the caps lifted) chooses the same
    monkeypatch.setattr(mcd, "_EXACT_SELECTION_ITEMS", 10**9)
    exact = MinimumClusterDistortion(random_state=0, max_validation_items=10**9, **GRID).fit(X, y)
    assert (sampled.shrinkage_, sampled.complement_weight_) == (exact.shrinkage_, exact.complement_weight_)
    s = dict(zip(zip(sampled.cv_results_["shrinkage"], sampled.cv_results_["complement_weight"]),
                 sampled.cv_results_["score"]))
    e = dict(zip(zip(exact.cv_results_["shrinkage"], exact.cv_results_["complement_weight"]),
                 exact.cv_results_["score"]))
    best = (exact.shrinkage_, exact.complement_weight_)
    assert e[best] > e[(1.0, 1.0)] + 0.05          # clearly better than Euclid
    assert s[best] == pytest.approx(e[best], abs=0.05)
    assert s[best] > s[(1.0, 1.0)] + 0.05


def test_work_per_fold_does_not_grow_with_cluster_size(monkeypatch):
    sizes = []
    for per in (400, 1600):
        X, y = _anisotropic(3, n_clusters=8, per=per)
        seen = _record_work(monkeypatch)
        MinimumClusterDistortion(random_state=0, max_validation_items=300, **GRID).fit(X, y)
        sizes.append(seen["ranked"])
    assert sizes[0] == sizes[1]


def test_sampled_selection_is_deterministic():
    X, y = _anisotropic(6, n_clusters=8, per=400)   # folds of 800 items: sampled
    params = dict(random_state=7, max_validation_items=100, basis_grid=(2, 4, 8), baseline_holdout=None)
    a = MinimumClusterDistortion(**params).fit(X, y)
    b = MinimumClusterDistortion(**params).fit(X, y)
    assert a.cv_results_ == b.cv_results_
    np.testing.assert_array_equal(a.weights_, b.weights_)
    assert (a.n_basis_, a.shrinkage_, a.complement_weight_) == (b.n_basis_, b.shrinkage_, b.complement_weight_)


def _ranks_requested(monkeypatch, iterations=None):
    """The ranks of the principal bases computed, in order (and their power iterations, None:
    the default, appended to ``iterations`` when it is a list)."""
    requested = []
    real = mcd._PrincipalBasis

    class Recording(real):
        def __init__(self, X, k, seed, n_iter=None):
            requested.append(k)
            if iterations is not None:
                iterations.append(n_iter)
            super().__init__(X, k, seed, n_iter)

    monkeypatch.setattr(mcd, "_PrincipalBasis", Recording)
    return requested


def _first_stage(monkeypatch, k):
    """The first stage's largest basis size, on few rows and on many."""
    monkeypatch.setattr(mcd, "_FIRST_STAGE_BASIS", k)
    monkeypatch.setattr(mcd, "_SMALL_FIRST_STAGE_BASIS", k)


def _scores(model):
    r = model.cv_results_
    return {(k, a, g): s for k, a, g, s in zip(r["n_basis"], r["shrinkage"], r["complement_weight"], r["score"])}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_larger_bases_tried_when_the_first_stage_picks_its_largest(monkeypatch, seed):
    """Two stages (here the first up to 4): the larger basis sizes are scored on the same folds
    when the first stage's best is its largest size and beats the size below it by more than noise,
    with the same scores and choice as the one-stage selection (a dense SVD: a basis of rank 4
    is the leading part of one of rank 8)."""
    _first_stage(monkeypatch, 4)
    # 3 loud directions: a basis of 2 holds only noise, one of 4 some of the informative
    # directions, one of 8 all of them
    X, y = _anisotropic(seed, n_clusters=12, per=15, loud=3)
    monkeypatch.setattr(mcd, "_ALWAYS_SECOND_STAGE_ROWS", 0)     # the rule decides, not the size
    monkeypatch.setattr(mcd, "_HALVING_MIN_GROUPS", 10**9)       # every setting on every fold
    params = dict(basis_grid=(2, 4, 8), random_state=3, baseline_holdout=None)
    requested = _ranks_requested(monkeypatch)
    new = MinimumClusterDistortion(**params).fit(X, y)
    assert requested == [4, 8] and new.n_basis_ == 8
    monkeypatch.setattr(MinimumClusterDistortion, "_select", _former_select)
    old = MinimumClusterDistortion(**params).fit(X, y)
    a, b = _scores(new), _scores(old)
    assert a.keys() == b.keys()
    assert all(abs(a[key] - b[key]) < 1e-9 for key in a)
    assert (new.n_basis_, new.shrinkage_, new.complement_weight_) == (old.n_basis_, old.shrinkage_,
                                                                      old.complement_weight_)


def test_larger_bases_skipped_when_a_smaller_one_wins(monkeypatch):
    """When the first stage's best basis is not its largest, no basis of a larger rank is
    computed, and cv_results_ holds the first stage's candidates only."""
    _first_stage(monkeypatch, 4)
    real_best = MinimumClusterDistortion._best
    # the first stage's best among the 2-dimensional bases: a smaller basis wins
    monkeypatch.setattr(MinimumClusterDistortion, "_best", staticmethod(
        lambda totals, n: real_best({k: v for k, v in totals.items() if k[0] == 2}, n)))
    X, y = _anisotropic(0, n_clusters=12, per=15)
    requested = _ranks_requested(monkeypatch)
    m = MinimumClusterDistortion(basis_grid=(2, 4, 8), random_state=3, baseline_holdout=None).fit(X, y)
    assert requested == [4]
    assert set(m.cv_results_["n_basis"]) == {2, 4} and m.n_basis_ == 2


def test_larger_bases_skipped_on_a_plateau(monkeypatch):
    """When the first stage's largest size wins by less than the folds' noise, no larger basis
    is computed - even where, as here, one would have found what the smaller ones miss (6 loud
    directions: bases of 2 and 4 hold only noise and score alike, one of 8 would win). That is
    the price of the rule (see _still_rising), paid only above _ALWAYS_SECOND_STAGE_ROWS rows;
    the settings chosen are the first stage's best. At or below that many rows the larger basis
    is tried and wins."""
    _first_stage(monkeypatch, 4)
    X, y = _anisotropic(0, n_clusters=12, per=15)
    requested = _ranks_requested(monkeypatch)
    params = dict(basis_grid=(2, 4, 8), random_state=3, baseline_holdout=None)
    monkeypatch.setattr(mcd, "_ALWAYS_SECOND_STAGE_ROWS", X.shape[0] - 1)
    m = MinimumClusterDistortion(**params).fit(X, y)
    scores = _scores(m)
    best = {k: max(v for key, v in scores.items() if key[0] == k) for k in (2, 4)}
    assert requested == [4] and m.n_basis_ == 4 and set(m.cv_results_["n_basis"]) == {2, 4}
    assert abs(best[4] - best[2]) < 0.01          # a plateau: no sign of more to find

    requested.clear()
    monkeypatch.setattr(mcd, "_ALWAYS_SECOND_STAGE_ROWS", X.shape[0])
    small = MinimumClusterDistortion(**params).fit(X, y)
    assert requested == [4, 8] and small.n_basis_ == 8


def test_still_rising_reads_the_per_fold_differences():
    def folds(diffs):
        # two keys per fold: size 4 (the largest tried) and size 2, their differences ``diffs``
        return [{(4, 1.0, 0.0): 0.5 + d, (2, 1.0, 0.0): 0.5} for d in diffs]

    def rising(diffs):
        f = folds(diffs)
        totals = {key: sum(x[key] for x in f) for key in f[0]}
        return mcd._still_rising(f, totals, [2, 4], mcd._RISING_T)

    assert rising([0.02, 0.03, 0.025, 0.02])             # consistent gain
    assert not rising([0.016, 0.010, -0.016, 0.001])       # noise (sentences, 30k)
    assert not rising([0.0, 0.0, 0.0, 0.0])                # a tie
    assert not rising([-0.01, -0.02, -0.01, -0.02])        # a loss
    assert rising([0.01, 0.01, 0.01, 0.01])                # no spread, a gain


def test_selection_on_a_sample_of_whole_clusters_above_the_row_bound(monkeypatch):
    """Above _SELECTION_MAX_ROWS clustered rows the settings are chosen on a seeded sample of
    whole clusters (its own basis and folds): the selection sees only the sampled rows, the
    metric is then fitted on every row, and below the bound nothing changes (no draw)."""
    X, y = _anisotropic(0, n_clusters=24, per=15)
    params = dict(basis_grid=(2, 4, 8), random_state=3, baseline_holdout=None)
    whole = MinimumClusterDistortion(**params).fit(X, y)
    monkeypatch.setattr(mcd, "_SELECTION_MAX_ROWS", 10**9)
    np.testing.assert_array_equal(MinimumClusterDistortion(**params).fit(X, y).weights_, whole.weights_)

    monkeypatch.setattr(mcd, "_SELECTION_MAX_ROWS", 120)
    seen = []
    real = MinimumClusterDistortion._select

    def spy(self, Xs, basis_of, labels, ids, weights, grids, rng):
        seen.append((Xs.shape[0], np.unique(labels[labels >= 0]).size, ids.size, weights.size))
        return real(self, Xs, basis_of, labels, ids, weights, grids, rng)

    monkeypatch.setattr(MinimumClusterDistortion, "_select", spy)
    sampled = MinimumClusterDistortion(**params).fit(X, y)
    (rows, labelled, n_ids, n_weights), = seen
    assert rows == 120 and labelled == n_ids == n_weights == 8          # 8 whole clusters of 15
    # the metric itself comes from every cluster: its scatter is not the sample's
    fixed = MinimumClusterDistortion(n_basis=sampled.n_basis_, shrinkage=sampled.shrinkage_,
                                     complement_weight=sampled.complement_weight_, baseline_holdout=None,
                                     random_state=3).fit(X, y)
    np.testing.assert_allclose(sampled.get_mahalanobis_matrix(), fixed.get_mahalanobis_matrix(), rtol=1e-8, atol=1e-10)
    again = MinimumClusterDistortion(**params).fit(X, y)
    assert again.cv_results_ == sampled.cv_results_                     # seeded


def test_first_stage_on_few_rows_scores_its_small_sizes_with_a_wide_basis(monkeypatch):
    """At or below _ALWAYS_SECOND_STAGE_ROWS rows the first stage scores the sizes up to
    _SMALL_FIRST_STAGE_BASIS (a cheap probe: the larger sizes follow whenever its largest wins)
    with a basis of rank _FIRST_STAGE_BASIS and _SMALL_FIRST_BASIS_ITERATIONS power iterations,
    which the second stage then uses too; above that many rows the first stage scores every
    size up to _FIRST_STAGE_BASIS with a basis of that rank and the default iterations."""
    monkeypatch.setattr(mcd, "_SMALL_FIRST_STAGE_BASIS", 2)
    monkeypatch.setattr(mcd, "_FIRST_STAGE_BASIS", 4)
    monkeypatch.setattr(MinimumClusterDistortion, "_best", staticmethod(lambda totals, n: min(totals)))
    X, y = _anisotropic(0, n_clusters=12, per=15, loud=3)
    params = dict(basis_grid=(2, 4, 8), random_state=3, baseline_holdout=None)
    iterations = []
    requested = _ranks_requested(monkeypatch, iterations)
    m = MinimumClusterDistortion(**params).fit(X, y)
    assert requested == [4] and iterations == [mcd._SMALL_FIRST_BASIS_ITERATIONS]
    # the first stage (2) won, so the middle one (4) was scored, with the first basis; 2 won again
    assert set(m.cv_results_["n_basis"]) == {2, 4} and m.n_basis_ == 2
    requested.clear(), iterations.clear()
    monkeypatch.setattr(mcd, "_ALWAYS_SECOND_STAGE_ROWS", X.shape[0] - 1)
    m = MinimumClusterDistortion(**params).fit(X, y)
    assert requested == [4] and iterations == [None] and set(m.cv_results_["n_basis"]) == {2, 4}


def test_successive_halving_keeps_the_best_groups_on_every_fold(monkeypatch):
    """A stage of many (basis size, shrinkage) groups scores them all on the first fold, the best
    third and each size's best on the second, the best third of those and each size's best on
    the rest; the settings that compete have a score on every fold, equal to the full
    selection's, and the choice is the full selection's."""
    _first_stage(monkeypatch, 8)
    X, y = _anisotropic(1, n_clusters=16, per=12, loud=3)
    params = dict(basis_grid=(2, 4, 8), random_state=5, baseline_holdout=None)
    halved = MinimumClusterDistortion(**params).fit(X, y)
    monkeypatch.setattr(mcd, "_HALVING_MIN_GROUPS", 10**9)
    full = MinimumClusterDistortion(**params).fit(X, y)
    r = halved.cv_results_
    assert set(r["n_folds"]) == {1, 2, 4} and set(full.cv_results_["n_folds"]) == {4}
    folds_of = {}
    for k, a, g, n in zip(r["n_basis"], r["shrinkage"], r["complement_weight"], r["n_folds"]):
        if not (a == 1.0 and g == 1.0):                  # Euclid is scored on every fold
            folds_of[(k, a)] = n
    groups = 3 * len(mcd.DEFAULT_SHRINKAGE_GRID)
    second = [g for g, n in folds_of.items() if n >= 2]
    complete = [g for g, n in folds_of.items() if n == 4]
    assert len(folds_of) == groups and len(second) <= groups // 3 + 3
    assert len(complete) <= -(-len(second) // 3) + 3 and {k for k, _ in complete} == {2, 4, 8}
    every = _scores(full)
    for key, score, n in zip(zip(r["n_basis"], r["shrinkage"], r["complement_weight"]), r["score"], r["n_folds"]):
        if n == 4:
            assert score == pytest.approx(every[key], abs=1e-12)
    chosen = (halved.n_basis_, halved.shrinkage_, halved.complement_weight_)
    assert chosen == (full.n_basis_, full.shrinkage_, full.complement_weight_)
    assert chosen[:2] in complete


def test_halving_survivors_are_the_best_third_and_each_sizes_best():
    from learnsim.mcd import _fold_sampling as fs

    folds = [{(k, a, g): k + a + g for k in (2, 4, 8) for a in (0.0, 0.1, 0.3) for g in (0.0, 1.0)}]
    groups = [(k, a) for k in (2, 4, 8) for a in (0.0, 0.1, 0.3)]
    assert fs.halving_survivors(folds, groups) == {(8, 0.0), (8, 0.1), (8, 0.3), (4, 0.3), (2, 0.3)}
    # the next rung ranks the survivors on the folds so far (the last fold holds only theirs)
    folds.append({key: 0.0 for key in folds[0] if key[:2] in {(8, 0.0), (4, 0.3), (2, 0.3)}})
    assert fs.halving_survivors(folds, [(8, 0.0), (4, 0.3), (2, 0.3)]) == {(8, 0.0), (4, 0.3), (2, 0.3)}


@pytest.mark.parametrize("seed", range(6))
def test_counted_ranks_equal_the_sorted_ones(seed):
    """Folds of small clusters drawn whole (at most _COUNT_MAX_RELEVANT relevant items a query,
    one weight for every item) count the items ahead of each relevant one instead of sorting:
    the same values as the sort, ties (equal distances) included."""
    from learnsim.mcd import _fold_sampling as fs

    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(300), rng.integers(2, fs._COUNT_MAX_RELEVANT + 2, 300))
    for design in (fs.sample_fold(labels, np.arange(300), 400, 100, rng),
                   fs.exact_fold(np.flatnonzero(labels < 40), labels[labels < 40])):
        assert design._countable()
        X = rng.standard_normal((design.rows.size, 3))
        D = ((X[design.queries][:, None] - X[None]) ** 2).sum(-1)
        stack = np.stack([D, np.round(D, 1), np.zeros_like(D)])      # ties, and all tied
        for measure in ("ap11", "ap"):
            sorted_path = fs.SampledFold.__new__(fs.SampledFold)
            sorted_path.__dict__.update({**design.__dict__, "_relevant": None})
            np.testing.assert_allclose(design.query_values(stack, measure),
                                       sorted_path.query_values(stack, measure), rtol=0, atol=1e-12)
    big = fs.sample_fold(np.repeat(np.arange(20), 30), np.arange(20), 400, 100, rng)
    assert not big._countable()                                        # large clusters: sorted


@pytest.mark.parametrize("largest_wins", [False, True])
def test_stages_on_few_rows(monkeypatch, largest_wins):
    """On at most _ALWAYS_SECOND_STAGE_ROWS rows the sizes go in three stages: up to
    _SMALL_FIRST_STAGE_BASIS and then up to _FIRST_STAGE_BASIS, both with one basis of that
    rank, then the rest with a basis of their largest; a stage runs only when the largest size
    tried so far is the best (here the first stage's curve is never steep: see
    test_steep_first_stage_goes_to_the_widest_basis)."""
    monkeypatch.setattr(mcd, "_SMALL_FIRST_STAGE_BASIS", 2)
    monkeypatch.setattr(mcd, "_FIRST_STAGE_BASIS", 4)
    monkeypatch.setattr(mcd, "_STEEP_T", np.inf)
    real_best = MinimumClusterDistortion._best
    keep = (lambda k: True) if largest_wins else (lambda k: k == 2)
    monkeypatch.setattr(MinimumClusterDistortion, "_best", staticmethod(
        lambda totals, n: real_best({key: v for key, v in totals.items() if keep(key[0])} or totals, n)))
    X, y = _anisotropic(0, n_clusters=12, per=15, loud=3)
    requested = _ranks_requested(monkeypatch)
    m = MinimumClusterDistortion(basis_grid=(2, 4, 8), random_state=3, baseline_holdout=None).fit(X, y)
    if largest_wins:
        assert requested == [4, 8] and set(m.cv_results_["n_basis"]) == {2, 4, 8}
    else:           # 2 wins the first stage (the largest so far): 4 is tried, loses, and 8 is not
        assert requested == [4] and set(m.cv_results_["n_basis"]) == {2, 4} and m.n_basis_ == 2


@pytest.mark.parametrize("steep", [False, True])
def test_steep_first_stage_goes_to_the_widest_basis(monkeypatch, steep):
    """On few rows, a first stage whose largest size wins by _STEEP_T standard errors or more
    goes straight to every larger size with one basis of the largest rank; otherwise the middle
    stage comes first (with the first stage's basis). Either way every size is scored on every
    fold (the largest sizes win here), and the choice is made among all of them."""
    monkeypatch.setattr(mcd, "_SMALL_FIRST_STAGE_BASIS", 4)
    monkeypatch.setattr(mcd, "_FIRST_STAGE_BASIS", 6)
    X, y = _anisotropic(0, n_clusters=12, per=15, loud=3)
    asked = []
    real_rising = mcd._still_rising

    def rising(fold_scores, totals, tried, t):
        if t == mcd._STEEP_T:
            asked.append(list(tried))
            t = -np.inf if steep else np.inf
        return real_rising(fold_scores, totals, tried, t)

    monkeypatch.setattr(mcd, "_still_rising", rising)
    real_best = MinimumClusterDistortion._best
    monkeypatch.setattr(MinimumClusterDistortion, "_best", staticmethod(lambda totals, n: real_best(
        {key: v for key, v in totals.items() if key[0] == max(k[0] for k in totals)}, n)))
    requested = _ranks_requested(monkeypatch)
    staged = []
    real_stage = MinimumClusterDistortion._score_stage

    def score_stage(self, X, basis, designs, grids, sizes, rng):
        staged.append(list(sizes))
        return real_stage(self, X, basis, designs, grids, sizes, rng)

    monkeypatch.setattr(MinimumClusterDistortion, "_score_stage", score_stage)
    m = MinimumClusterDistortion(basis_grid=(2, 4, 6, 8), random_state=3, baseline_holdout=None).fit(X, y)
    assert asked[0] == [2, 4]                                # asked once the first stage is scored
    assert requested == [6, 8]                               # the first basis serves 6 too
    assert staged == ([[2, 4], [6, 8]] if steep else [[2, 4], [6], [8]])
    r = m.cv_results_
    assert {k for k, n in zip(r["n_basis"], r["n_folds"]) if n == 4} == {2, 4, 6, 8} and m.n_basis_ == 8


def test_prefix_ranking_equals_the_whole_sort(monkeypatch):
    """Where the nearest items of a query's ranking hold all of its relevant ones, the sort path
    ranks only those (np.partition), and sorts the other rows whole: the same values, bit for
    bit, as sorting every row, for every measure; a fold whose rankings miss in most rows goes
    back to sorting them whole."""
    from learnsim.mcd import _fold_sampling as fs

    rng = np.random.default_rng(3)
    labels = np.repeat(np.arange(25), rng.integers(20, 40, 25))
    for separation in (3.0, 0.2):
        design = fs.sample_fold(labels, np.arange(25), 400, 100, np.random.default_rng(1))
        assert not design._countable() and 2 * fs._PREFIX_PER_RELEVANT * design.n_rel.max() <= design.rows.size
        centres = rng.standard_normal((25, 8)) * separation
        X = centres[labels[design.rows]] + rng.standard_normal((design.rows.size, 8))
        D = ((X[design.queries][:, None] - X[None]) ** 2).sum(-1)
        stack = np.stack([D, np.round(D, 1), D - 1.0, D * 0.5])          # ties; negative distances
        for measure in ("ap11", "ap"):
            whole = fs.SampledFold.__new__(fs.SampledFold)
            whole.__dict__.update({**design.__dict__, "_prefix_missed": 1.0})  # always the whole sort
            expected = whole.query_values(stack.copy(), measure)
            design.__dict__.pop("_prefix_missed", None)
            np.testing.assert_array_equal(design.query_values(stack.copy(), measure), expected)
        if separation == 3.0:
            assert design._prefix_missed < 0.25                         # the prefix served most rows
    # poorly separated: most rows miss, and the next call sorts every row whole
    assert design._prefix_missed > 0.5
    calls = []
    real = fs.SampledFold._sorted_values
    monkeypatch.setattr(fs.SampledFold, "_sorted_values", lambda self, *a: calls.append(1) or real(self, *a))
    design.query_values(stack.copy(), "ap11")
    assert calls


@pytest.mark.parametrize("sizes", [(28, 31, 31), (6, 9, 7, 10, 8, 6, 9, 10, 7, 8, 9, 6, 10, 8, 7, 9, 6, 8, 10, 7)])
def test_unweighted_fold_precisions_equal_the_weighted_path(sizes):
    """An exact fold (every item stands for itself) reads each relevant item's precision off its
    position, m / (j + 1), instead of a running sum of the other items' weights: the same values,
    bit for bit, for every measure, on the whole sort (few large clusters) and on the prefix path
    (many small ones), with ties and negative distances."""
    from learnsim.mcd import _fold_sampling as fs

    rng = np.random.default_rng(5)
    labels = np.repeat(np.arange(len(sizes)) * 2 + 1, sizes)
    design = fs.exact_fold(np.arange(labels.size), labels)
    assert design._unweighted and not design._countable()
    cluster = np.unique(labels, return_inverse=True)[1]
    X = rng.standard_normal((len(sizes), 6))[cluster] * 2.0 + rng.standard_normal((labels.size, 6))
    D = ((X[design.queries][:, None] - X[None]) ** 2).sum(-1)
    stack = np.stack([D, np.round(D, 0), D - 1.0, D * 0.5])
    for measure in ("ap11", "ap", "r_precision"):
        weighted = fs.SampledFold.__new__(fs.SampledFold)
        weighted.__dict__.update({**design.__dict__, "_unweighted": False, "_work_arrays": {}})
        expected = weighted.query_values(stack.copy(), measure)
        np.testing.assert_array_equal(design.query_values(stack.copy(), measure), expected)
        assert 0.0 <= expected.min() < 1.0 and expected.max() <= 1.0       # not a perfect ranking


def test_sort_keys_order_like_a_stable_sort_of_the_distances():
    """The integer keys sort like the float distances (negative ones, -0.0 and infinities
    included), equal distances by position."""
    from learnsim.mcd._fold_sampling import _sort_keys

    rng = np.random.default_rng(0)
    D = np.concatenate([[-np.inf, np.inf, -0.0, 0.0, -3.5, 3.5, -1.0, 1.0, 2.0, 2.0, -2.0, -2.0],
                        np.round(rng.standard_normal(40) * 3, 1)])[None, :]
    keys = _sort_keys(D, int(D.shape[1]).bit_length())
    np.testing.assert_array_equal(np.argsort(keys[0]), np.argsort(D[0] + 0.0, kind="stable"))


def test_wide_first_basis_leads_as_well_as_a_narrow_one():
    """The small-data first basis (rank _FIRST_STAGE_BASIS, _SMALL_FIRST_BASIS_ITERATIONS power
    iterations) serves the first stage's sizes through its leading directions: on the demo's
    term-document matrix (a slowly decaying spectrum, like text's) its first 16 and first 32
    capture at least the energy that a rank-32 basis with the default iterations does (the
    selection compares 16 with 32 on them; with 4 iterations the first 32 missed 1.7x as much
    here, with 5 the first 16 missed 4x as much)."""
    from learnsim.mcd._linalg import _PrincipalBasis
    from learnsim.demo import make_clustered_corpus
    from learnsim.text import TextVectorizer

    corpus = make_clustered_corpus(random_state=0)
    X = TextVectorizer(weighting="tfidf", norm="l2").fit_transform(corpus.data)
    s = np.linalg.svd(X.toarray(), compute_uv=False)

    def missed(basis, k):
        return 1.0 - np.sum(basis.coords[:, :k] ** 2) / np.sum(s[:k] ** 2)

    k = mcd._SMALL_FIRST_STAGE_BASIS
    wide = _PrincipalBasis(X, mcd._FIRST_STAGE_BASIS, 7, mcd._SMALL_FIRST_BASIS_ITERATIONS)
    narrow = _PrincipalBasis(X, k, 7)
    for size in (k // 2, k):
        assert -1e-9 <= missed(wide, size) <= missed(narrow, size)
