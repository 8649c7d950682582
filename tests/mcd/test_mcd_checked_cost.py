"""The cost of MinimumClusterDistortion's held-out check against Euclid (``baseline_holdout``,
issue 16, part 3).

The check ranks its whole held-out clusters exactly (as before) while they number at most
max(600, min(max_validation_items, 2000)) items; when larger clusters would be taken, queries
drawn in proportion to the items they stand for rank a sample of every held-out cluster, in
blocks of queries, so that no n_held x n_held matrix is built. These tests check the exact path
against the former implementation, the sampled design's weighting, the bound on the work, and the
sampled check against the exact one on the same clusters.
"""
import numpy as np
import pytest

import learnsim.mcd._fold_sampling as fold_sampling
import learnsim.mcd._mcd as mcd
from learnsim.baseline import compare
from learnsim.evaluation import per_query_measures, relevance_from_labels
from learnsim.mcd import MinimumClusterDistortion
from learnsim.supervision import Clusters

pytestmark = pytest.mark.filterwarnings("ignore::learnsim.baseline.BaselineWarning")


def _anisotropic(seed, n_clusters, per, dim=12):
    """Clusters whose centres differ along a few directions and whose noise is large along others
    (the learned metric beats Euclid)."""
    rng = np.random.default_rng(seed)
    scale = np.ones(dim)
    scale[: dim // 2] = 6.0
    centres = rng.normal(size=(n_clusters, dim)) * 1.5
    centres[:, : dim // 2] = 0.0
    sizes = per if np.ndim(per) else np.full(n_clusters, per)
    y = np.repeat(np.arange(n_clusters), sizes)
    return centres[y] + rng.normal(size=(y.size, dim)) * scale, y


def _former_fit_checked(self, X, clus, split, rng):
    """The held-out check before issue 16, part 3 (always the whole clusters taken, exactly)."""
    labels = np.asarray(clus.labels)
    ids, held = split
    held_ids = ids[held]
    is_held = np.isin(labels, held_ids)
    probe = MinimumClusterDistortion(**{**self.get_params(), "baseline_holdout": None})
    probe.set_params(random_state=int(rng.integers(2**31 - 1)))
    probe.fit(X, Clusters._from_parent(np.where(is_held, -1, labels), clus))
    sizes = np.array([(labels == c).sum() for c in held_ids])
    order = rng.permutation(len(held_ids))
    budget = max(int(self.max_validation_items), int(sizes.max()))
    take = held_ids[order[np.cumsum(sizes[order]) <= budget]]
    take = take if take.size >= 2 else held_ids[order[:2]]
    rows = np.flatnonzero(np.isin(labels, take))
    Xv, yv = X[rows], labels[rows]
    rel = relevance_from_labels(yv, yv)
    measure = self.selection_measure if self.selection_measure != "r_precision" else "ap"
    learned = per_query_measures(-probe.pairwise_distances(Xv, squared=True), rel, exclude_self=True,
                                 measures=(measure,))[measure]
    G = mcd._dense_dot(Xv, Xv)
    sq = np.diag(G).copy()
    euclid = per_query_measures(-(sq[:, None] + sq[None, :] - 2.0 * G), rel, exclude_self=True,
                                measures=(measure,))[measure]
    self.baseline_gain_ = compare(
        learned, euclid, measure=mcd._MEASURE_NAMES[measure], unit="held-out queries (items of "
        f"{take.size} held-out clusters; the interval resamples whole clusters)", baseline_name=mcd._BASELINE,
        owner="MinimumClusterDistortion", groups=yv, random_state=rng, stacklevel=3,
        detail={"n_basis": probe.n_basis_, "shrinkage": probe.shrinkage_,
                "complement_weight": probe.complement_weight_, "held_out_clusters": int(take.size)})
    chosen = {"n_basis": [probe.n_basis_], "shrinkage": [probe.shrinkage_],
              "complement_weight": [probe.complement_weight_]}
    if self.baseline_gain_.fell_back:
        chosen.update(shrinkage=[1.0], complement_weight=[1.0])
    self._fit_clusters(X, clus, chosen, rng)
    self.cv_results_ = probe.cv_results_
    return self


FIXED = dict(n_basis=None, shrinkage=0.3, complement_weight=1.0)


@pytest.mark.parametrize("measure", ["ap11", "r_precision"])
@pytest.mark.parametrize("per", [40, 120])             # 240 and 720 held-out items: both exact
def test_checks_within_the_budget_are_exactly_as_before(monkeypatch, measure, per):
    X, y = _anisotropic(0, n_clusters=30, per=per)
    params = dict(selection_measure=measure, random_state=3, basis_grid=(2, 4), shrinkage_grid=(0.0, 1.0),
                  complement_grid=(0.0, 1.0))

    def refuse(*args, **kwargs):
        raise AssertionError("a check within its budget was sampled")

    monkeypatch.setattr(mcd, "_sample_check_fold", refuse)
    new = MinimumClusterDistortion(**params).fit(X, y)
    monkeypatch.setattr(MinimumClusterDistortion, "_fit_checked", _former_fit_checked)
    old = MinimumClusterDistortion(**params).fit(X, y)
    assert new.baseline_gain_.to_dict() == old.baseline_gain_.to_dict()    # bit for bit
    assert new.cv_results_ == old.cv_results_
    np.testing.assert_array_equal(new.weights_, old.weights_)


def test_check_queries_are_drawn_in_proportion_to_the_items_they_stand_for():
    """A big cluster sampled at 1 in 5 and small ones raised to 2 of their 4 items: the check's
    queries come from each cluster in proportion to its items (so their plain mean weighs every
    item alike), where the selection's uniform queries follow the sampled items."""
    labels = np.repeat(np.arange(41), [800] + [4] * 40)
    share_big = 800 / labels.size
    shares = []
    for seed in range(5):
        design = fold_sampling.sample_check_fold(labels, np.arange(41), 200, 200, np.random.default_rng(seed))
        assert design.queries.size == 200 and np.all(design.query_weight == 1.0)
        assert design.rows.size == 167 + 2 * 40
        shares.append(np.mean(labels[design.rows[design.queries]] == 0))
    assert np.mean(shares) == pytest.approx(share_big, abs=0.03)
    plain = fold_sampling.sample_fold(labels, np.arange(41), 200, 10_000, np.random.default_rng(0))
    assert np.mean(labels[plain.rows[plain.queries]] == 0) < share_big - 0.1


def test_blocks_of_queries_give_the_values_of_all_queries_at_once():
    rng = np.random.default_rng(2)
    labels = np.repeat(np.arange(8), rng.integers(30, 90, 8))
    X = rng.normal(size=(labels.size, 5)) + rng.normal(size=(8, 5))[labels]
    design = fold_sampling.sample_check_fold(labels, np.arange(8), 150, 150, np.random.default_rng(0))
    Xv = X[design.rows]

    def dist(q):
        return ((Xv[q][:, None, :] - Xv[None, :, :]) ** 2).sum(-1)

    whole = design.query_values(dist(design.queries)[None], "ap11")
    blocked = fold_sampling.sampled_query_values(design, [dist, lambda q: 2.0 * dist(q)], "ap11",
                                                 max_entries=7 * design.rows.size)
    np.testing.assert_array_equal(blocked[0], whole[0])
    np.testing.assert_array_equal(blocked[1], whole[0])      # a monotone map ranks alike


def _record_matrices(monkeypatch):
    """The largest dense product (entries) of the check (Euclid's and the metric's distances)."""
    seen = {"largest": 0, "sampled": 0}
    dense_dot, sample = mcd._dense_dot, mcd._sample_check_fold

    def dot(A, B):
        out = dense_dot(A, B)
        seen["largest"] = max(seen["largest"], out.size)
        return out

    def sampled(*args, **kwargs):
        seen["sampled"] += 1
        return sample(*args, **kwargs)

    monkeypatch.setattr(mcd, "_dense_dot", dot)
    monkeypatch.setattr(mcd, "_sample_check_fold", sampled)
    return seen


def test_large_clusters_are_sampled_in_bounded_blocks(monkeypatch):
    # 2 held-out clusters of 1500 a split (3000 items), three folds of them (MIN_HELD_GROUPS)
    X, y = _anisotropic(3, n_clusters=10, per=1500)
    seen = _record_matrices(monkeypatch)
    monkeypatch.setattr(fold_sampling, "_BLOCK_ENTRIES", 100_000)
    model = MinimumClusterDistortion(random_state=0, **FIXED).fit(X, y)
    assert seen["sampled"] == 3                            # each fold's check sampled
    assert 0 < seen["largest"] <= 100_000                  # never 3000 x 3000
    gain = model.baseline_gain_
    assert gain.n_units == 3000 and gain.detail["held_out_clusters"] == 6
    assert "3 folds" in gain.unit


def test_the_sampled_check_agrees_with_the_exact_one(monkeypatch):
    X, y = _anisotropic(4, n_clusters=10, per=np.tile([1000, 1300], 5))   # 2 held out: 2000-2600 items
    sampled = MinimumClusterDistortion(random_state=0, **FIXED).fit(X, y)
    assert "drawn from" in sampled.baseline_gain_.unit
    # the same held-out clusters, every one of their items ranking all the others
    monkeypatch.setattr(mcd, "_EXACT_CHECK_ITEMS", 10**9)
    exact = MinimumClusterDistortion(random_state=0, max_validation_items=10**9, **FIXED).fit(X, y)
    s, e = sampled.baseline_gain_, exact.baseline_gain_
    assert "drawn from" not in e.unit and e.detail["held_out_clusters"] == s.detail["held_out_clusters"]
    assert e.status == s.status == "learned"
    assert e.gain > 0.1
    assert s.learned_score == pytest.approx(e.learned_score, abs=0.03)
    assert s.baseline_score == pytest.approx(e.baseline_score, abs=0.03)
    assert s.gain == pytest.approx(e.gain, abs=0.03)


def test_a_sampled_check_is_deterministic():
    X, y = _anisotropic(5, n_clusters=10, per=1200)
    a = MinimumClusterDistortion(random_state=7, **FIXED).fit(X, y)
    b = MinimumClusterDistortion(random_state=7, **FIXED).fit(X, y)
    assert a.baseline_gain_.to_dict() == b.baseline_gain_.to_dict()
    np.testing.assert_array_equal(a.weights_, b.weights_)


def test_a_sampled_check_still_falls_back_when_the_metric_is_euclid():
    """shrinkage = complement_weight = 1 is Euclid's ranking: the sampled check must find no gain."""
    X, y = _anisotropic(6, n_clusters=10, per=1200)
    model = MinimumClusterDistortion(random_state=0, n_basis=None, shrinkage=1.0, complement_weight=1.0).fit(X, y)
    assert "drawn from" in model.baseline_gain_.unit
    assert model.baseline_gain_.status == "baseline"
    assert abs(model.baseline_gain_.gain) < 0.01
