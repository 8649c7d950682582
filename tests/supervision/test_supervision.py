import warnings
from collections import defaultdict

import numpy as np
import pytest
import scipy.sparse as sp

from learnsim.supervision import (
    Clusters, Links, Pairs, Triplets, check_clusters, check_links, check_pairs, check_triplets,
    clusters_to_triplets, graded_pairs_to_triplets, links_to_triplets, pairs_to_clusters,
)


# --------------------------------------------------------------------------- Clusters
def test_clusters_integer_labels():
    c = Clusters([2, 2, 5, -1, 5, 5, 9])
    assert c.n_items == 7
    assert c.cluster_ids.tolist() == [2, 5, 9]
    assert c.classes_.tolist() == [2, 5, 9]
    assert c.n_clusters == 3
    assert c.sizes.tolist() == [2, 3, 1]
    assert c.members(5).tolist() == [2, 4, 5]
    assert c.clustered_items.tolist() == [0, 1, 2, 4, 5, 6]
    assert c.n_unclustered == 1
    assert [(cid, idx.tolist()) for cid, idx in c.iter_clusters()] == [(2, [0, 1]), (5, [2, 4, 5]), (9, [6])]
    assert "n_clusters=3" in repr(c)


def test_clusters_string_labels_are_encoded():
    c = Clusters(["sport", "politics", "sport", None, "science", -1])
    assert c.classes_.tolist() == ["politics", "science", "sport"]
    assert c.cluster_ids.tolist() == [0, 1, 2]
    assert c.labels.tolist() == [2, 0, 2, -1, 1, -1]
    # a cluster can be named by its original label or by its id
    assert c.members("sport").tolist() == [0, 2]
    assert c.members(2).tolist() == [0, 2]
    # only the integer -1 means "no cluster": the string "-1" is a label like any other
    assert Clusters(["-1", "a"]).n_clusters == 2


def test_clusters_other_label_types():
    assert Clusters(np.array([1.0, 1.0, -1.0, 3.0])).labels.tolist() == [1, 1, -1, 3]
    assert Clusters(np.array([0.5, 0.5, 1.5])).classes_.tolist() == [0.5, 1.5]
    assert Clusters(np.array([1, None, 4], dtype=object)).cluster_ids.tolist() == [1, 4]
    tuples = Clusters([("a", 1), ("a", 1), ("b", 2)])
    assert tuples.members(("a", 1)).tolist() == [0, 1]
    assert tuples.classes_[1] == ("b", 2)
    mixed = Clusters([1, "x", 1, None])
    assert mixed.n_clusters == 2
    assert mixed.members(1).tolist() == [0, 2]  # original label wins over cluster id


def test_clusters_are_read_only_and_own_their_labels():
    raw = np.array([0, 0, 1, 1])
    c = Clusters(raw)
    raw[0] = 1
    assert c.labels.tolist() == [0, 0, 1, 1]
    with pytest.raises(ValueError):
        c.labels[0] = 5
    with pytest.raises(AttributeError):
        c.labels = np.zeros(4)


@pytest.mark.parametrize("labels, message", [
    ([], "empty"),
    (np.zeros((3, 2)), "1-D"),
    (None, "None"),
    ([0, np.nan, 1], "NaN"),
    (np.array([0.0, np.inf]), "inf"),
    ("abc", None),
])
def test_clusters_refuses_bad_labels(labels, message):
    with pytest.raises((ValueError, TypeError), match=message):
        Clusters(labels)


def test_clusters_refuses_sparse_and_unhashable_labels():
    with pytest.raises(TypeError, match="sparse"):
        Clusters(sp.csr_matrix(np.ones((3, 1))))
    with pytest.raises(TypeError, match="hashable"):
        Clusters(np.array([[1], "a", [2]], dtype=object))


def test_clusters_unknown_cluster():
    c = Clusters(["a", "b"])
    with pytest.raises(ValueError, match="unknown cluster 'z'"):
        c.members("z")
    with pytest.raises(ValueError, match="unknown cluster 7"):
        c.members(7)


def test_cluster_weights():
    c = Clusters(["a", "a", "b", "c"], weights={"a": 2.0, "b": 1.0, "c": 1.0})
    np.testing.assert_allclose(c.normalized_weights(), [0.5, 0.25, 0.25])
    by_array = Clusters([4, 4, 7], weights=[1.0, 3.0])
    np.testing.assert_allclose(by_array.normalized_weights(), [0.25, 0.75])
    np.testing.assert_allclose(Clusters([0, 1, 1, 2]).normalized_weights(), [1 / 3] * 3)
    assert Clusters([0, 1]).weights is None
    reweighted = Clusters(by_array, weights={4: 1.0, 7: 1.0})
    assert reweighted.labels.tolist() == [4, 4, 7]
    np.testing.assert_allclose(reweighted.normalized_weights(), [0.5, 0.5])
    # keys may be cluster ids too
    np.testing.assert_allclose(Clusters(["x", "y"], weights={0: 1, 1: 4}).normalized_weights(), [0.2, 0.8])


@pytest.mark.parametrize("weights, message", [
    ({"a": 1.0, "b": 1.0, "zzz": 1.0}, "unknown cluster.*'zzz'"),
    ({"a": 1.0}, "no entry for cluster.*'b'"),
    ({"a": 1.0, "b": 0.0}, "positive.*'b'"),
    ({"a": -1.0, "b": 1.0}, "positive.*'a'"),
    ({"a": np.inf, "b": 1.0}, "finite"),
    ({"a": "heavy", "b": 1.0}, "positive number"),
    ([1.0, 2.0, 3.0], "one entry per cluster"),
    ([1.0, np.nan], "finite"),
    (["x", "y"], "mapping"),
])
def test_cluster_weights_validation(weights, message):
    with pytest.raises(ValueError, match=message):
        Clusters(["a", "b", "a"], weights=weights)


def test_clusters_subset_renumbers_items_and_keeps_clusters():
    c = Clusters(["a", "b", "a", "c", "b", None], weights={"a": 1, "b": 2, "c": 3})
    sub = c.subset([4, 0, 5, 2])
    assert sub.n_items == 4
    assert sub.labels.tolist() == [1, 0, -1, 0]  # ids kept: "a" is still 0, "b" still 1
    assert sub.classes_.tolist() == ["a", "b"]   # "c" has no item left
    np.testing.assert_allclose(sub.normalized_weights(), [1 / 3, 2 / 3])
    assert sub.members("b").tolist() == [0]
    mask = np.array([True, False, True, False, False, False])
    assert c.subset(mask).labels.tolist() == [0, 0]
    with pytest.raises(ValueError, match="index 6,? out of range for 6 items"):
        c.subset([0, 6])
    with pytest.raises(ValueError, match="mask"):
        c.subset(np.array([True, False]))
    with pytest.raises(ValueError, match="empty"):
        c.subset([])


def test_clusters_select_clusters():
    c = Clusters([3, 3, 5, 7, 7, -1], weights={3: 1, 5: 1, 7: 2})
    sel = c.select_clusters([7, 3])
    assert sel.n_items == 6
    assert sel.labels.tolist() == [3, 3, -1, 7, 7, -1]
    np.testing.assert_allclose(sel.normalized_weights(), [1 / 3, 2 / 3])
    assert c.select_clusters(5).labels.tolist() == [-1, -1, 5, -1, -1, -1]
    # the usual split by clusters: keep the selected clusters' rows only
    train = sel.subset(sel.clustered_items)
    assert train.labels.tolist() == [3, 3, 7, 7]
    with pytest.raises(ValueError, match="unknown cluster.*4"):
        c.select_clusters([3, 4])
    with pytest.raises(ValueError, match="at least one"):
        c.select_clusters([])
    assert Clusters(["x", "y", "x"]).select_clusters(["x"]).members("x").tolist() == [0, 2]


def test_clusters_from_groups():
    c = Clusters.from_groups([[0, 3], [4, 1, 2]], n_items=6, weights=[1.0, 2.0])
    assert c.labels.tolist() == [0, 1, 1, 0, 1, -1]
    np.testing.assert_allclose(c.normalized_weights(), [1 / 3, 2 / 3])
    with pytest.raises(ValueError, match="item 3 is in group 0 and group 1"):
        Clusters.from_groups([[0, 3], [3, 4]], n_items=5)
    with pytest.raises(ValueError, match="group 1 is empty"):
        Clusters.from_groups([[0], []], n_items=5)
    with pytest.raises(ValueError, match="index 5,? out of range for 5 items"):
        Clusters.from_groups([[0, 5]], n_items=5)
    with pytest.raises(ValueError, match="groups is empty"):
        Clusters.from_groups([], n_items=5)


def test_check_clusters():
    c = check_clusters(["a", "a", "b", "b"], 4, min_cluster_size=2, min_clusters=2)
    assert isinstance(c, Clusters)
    assert check_clusters(c, 4) is c
    with pytest.raises(ValueError, match="labels has 10 entries but X has 12 rows"):
        check_clusters(np.zeros(10, dtype=int), 12)
    with pytest.raises(ValueError, match=r"cluster 'solo' \(1 item\).*min_cluster_size=2"):
        check_clusters(["a", "a", "solo"], 3, min_cluster_size=2)
    with pytest.raises(ValueError, match="found 1 cluster.*at least 2"):
        check_clusters([0, 0, -1], 3, min_clusters=2)
    with pytest.raises(ValueError, match="no item belongs to a cluster"):
        check_clusters([-1, None, -1], 3)
    with pytest.raises(ValueError, match="min_cluster_size must be at least 1"):
        check_clusters([0, 0], 2, min_cluster_size=0)
    with pytest.raises(TypeError, match="n_items"):
        check_clusters([0, 0], 2.5)


# --------------------------------------------------------------------------- Pairs
@pytest.mark.parametrize("labels", [
    [True, False, True], [1, 0, 1], [1, -1, 1], np.array([1.0, 0.0, 1.0]),
])
def test_pair_labels_are_normalised_to_bool(labels):
    p = Pairs([[0, 1], [1, 2], [2, 3]], labels=labels)
    assert p.labels.dtype == bool
    assert p.labels.tolist() == [True, False, True]
    assert p.scores is None and not p.is_graded
    assert len(p) == p.n_pairs == 3


def test_graded_pairs():
    p = Pairs(np.array([[0, 1], [2, 3]], dtype=float), scores=[4.5, 0.2])
    assert p.is_graded and p.labels is None
    assert p.indices.dtype == np.int64
    np.testing.assert_allclose(p.scores, [4.5, 0.2])
    with pytest.raises(ValueError):
        p.scores[0] = 1.0


@pytest.mark.parametrize("kwargs, message", [
    (dict(indices=[[0, 1]]), "neither"),
    (dict(indices=[[0, 1]], labels=[1], scores=[1.0]), "both"),
    (dict(indices=[[0, 1], [2, 2]], labels=[1, 0]), r"itself.*row 1: \(2, 2\)"),
    (dict(indices=[[0, 1], [1, 2]], labels=[0, 1, 1]), "labels has 3 entries but indices has 2 pairs"),
    (dict(indices=[[0, 1], [1, 2]], labels=[0, 2]), "scores="),
    (dict(indices=[[0, 1]], labels=["yes"]), "bool"),
    (dict(indices=[[0, 1], [1, 2]], scores=[1.0]), "scores has 1 entries but indices has 2 pairs"),
    (dict(indices=[[0, 1]], scores=[np.nan]), "NaN"),
    (dict(indices=[[0, 1]], scores=["high"]), "numbers"),
    (dict(indices=[[0, 1, 2]], labels=[1]), r"shape \(n_pairs, 2\)"),
    (dict(indices=np.zeros((0, 2), dtype=int), labels=[]), "empty"),
    (dict(indices=[[0.5, 1]], labels=[1]), "integer"),
    (dict(indices=[[0, -3]], labels=[1]), "negative index -3"),
])
def test_pairs_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Pairs(**kwargs)


def test_check_pairs():
    p = Pairs([[0, 1], [3, 9]], labels=[1, 0])
    assert check_pairs(p, 10) is p
    with pytest.raises(ValueError, match="index 12,? out of range for 10 items"):
        check_pairs(Pairs([[0, 12]], labels=[1]), 10)
    with pytest.raises(TypeError, match="Pairs"):
        check_pairs(np.array([[0, 1]]), 10)
    with pytest.raises(ValueError, match="graded"):
        check_pairs(Pairs([[0, 1]], scores=[1.0]), 10, require="labels")
    with pytest.raises(ValueError, match="graded scores are needed"):
        check_pairs(p, 10, require="scores")


# --------------------------------------------------------------------------- Triplets
def test_triplets_basic():
    raw = np.array([[0, 1, 2], [3, 4, 5]], dtype=np.int32)
    t = Triplets(raw)
    raw[0, 0] = 9  # the triplets own their indices
    assert t.indices.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert t.indices.dtype == np.int64
    assert t.anchors.tolist() == [0, 3] and t.positives.tolist() == [1, 4] and t.negatives.tolist() == [2, 5]
    assert len(t) == t.n_triplets == 2
    assert np.asarray(t).tolist() == t.indices.tolist()
    with pytest.raises(ValueError):
        t.indices[0, 0] = 7
    assert Triplets(t).indices is t.indices


@pytest.mark.parametrize("row", [[1, 1, 2], [1, 2, 1], [2, 1, 1]])
def test_triplets_refuse_repeated_indices(row):
    with pytest.raises(ValueError, match=r"repeated index.*row 1: \(%d, %d, %d\).*three distinct" % tuple(row)):
        Triplets([[0, 1, 2], row])


@pytest.mark.parametrize("indices, message", [
    ([], "empty"),
    (np.zeros((0, 3), dtype=int), "empty"),
    ([0, 1, 2], r"shape \(n_triplets, 3\).*got shape \(3,\)"),
    ([[0, 1]], r"got shape \(1, 2\)"),
    ([[0, 1, 2.5]], "integer"),
    ([["a", "b", "c"]], "integer"),
    ([[0, 1, -1]], "negative"),
])
def test_triplets_validation(indices, message):
    with pytest.raises(ValueError, match=message):
        Triplets(indices)


def test_check_triplets():
    t = check_triplets(np.array([[0, 1, 2]]), 3)
    assert isinstance(t, Triplets)
    with pytest.raises(ValueError, match="index 12,? out of range for 10 items"):
        check_triplets([[0, 1, 12]], 10)
    with pytest.raises(ValueError, match="repeated"):
        check_triplets([[4, 4, 1]], 10)


# --------------------------------------------------------------------------- Links
def test_links_from_sparse_and_dense():
    A = sp.csr_matrix(np.array([[0, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 0], [5, 0, 0, 0]], dtype=float))
    for links in (Links(A), Links(A.toarray()), Links(A.tocoo())):
        assert links.n_items == 4 and links.n_links == 4
        assert links.out_links(0).tolist() == [1, 2]
        assert links.in_links(2).tolist() == [0, 1]
        assert links.in_links(3).tolist() == []
        assert links.out_degrees.tolist() == [2, 1, 0, 1]
        assert links.in_degrees.tolist() == [1, 1, 2, 0]
        assert links.edges.tolist() == [[0, 1], [0, 2], [1, 2], [3, 0]]
        assert set(links.adjacency.data.tolist()) == {1}  # link values are ignored


def test_links_symmetric_and_from_edges():
    links = Links.from_edges([[0, 1], [0, 1], [1, 2], [2, 1]], n_items=4)
    assert links.n_links == 3  # the duplicate edge counts once
    sym = links.symmetric()
    assert sym.n_links == 4
    assert sym.out_links(1).tolist() == [0, 2]
    assert sym.in_links(0).tolist() == [1]
    assert (sym.adjacency != sym.adjacency.T).nnz == 0


def test_links_drop_self_links_with_warning():
    with pytest.warns(UserWarning, match="dropped 2 self-link"):
        links = Links.from_edges([[0, 0], [0, 1], [2, 2]], n_items=3)
    assert links.edges.tolist() == [[0, 1]]
    with pytest.warns(UserWarning, match="dropped 3 self-link"):
        assert Links(sp.identity(3) + sp.csr_matrix(([1], ([0], [2])), shape=(3, 3))).n_links == 1


def test_links_adjacency_is_read_only():
    links = Links.from_edges([[0, 1]], n_items=2)
    with pytest.raises(ValueError):
        links.adjacency.data[0] = 3
    assert (links.adjacency @ np.ones(2)).tolist() == [1.0, 0.0]


@pytest.mark.parametrize("make, error, message", [
    (lambda: Links(sp.csr_matrix((3, 4))), ValueError, "square"),
    (lambda: Links(np.zeros(3)), ValueError, "square"),
    (lambda: Links(sp.csr_matrix((0, 0))), ValueError, "empty"),
    (lambda: Links(sp.csr_matrix((3, 3))), ValueError, "no links"),
    (lambda: Links(np.array([[0, np.nan], [1, 0]])), ValueError, "NaN"),
    (lambda: Links(None), ValueError, "None"),
    (lambda: Links.from_edges([[0, 12]], n_items=10), ValueError, "index 12,? out of range for 10 items"),
    (lambda: Links.from_edges([[0, 1, 2]], n_items=10), ValueError, "shape"),
    (lambda: Links.from_edges([], n_items=10), ValueError, "empty"),
    (lambda: Links.from_edges([[0, 1]], n_items=2).out_links(2), IndexError, "item 2 out of range for 2 items"),
    (lambda: Links.from_edges([[0, 1]], n_items=2).in_links(-1), IndexError, "out of range"),
])
def test_links_validation(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_check_links():
    links = Links.from_edges([[0, 1]], n_items=3)
    assert check_links(links, 3) is links
    assert check_links(links.adjacency, 3).n_links == 1
    with pytest.raises(ValueError, match="links covers 3 items but X has 4 rows"):
        check_links(links, 4)


# --------------------------------------------------------------------------- clusters_to_triplets
def random_labels(rng, n=60, k=6, unclustered=0.2):
    labels = rng.integers(0, k, size=n)
    labels[rng.random(n) < unclustered] = -1
    labels[rng.integers(0, n)] = k + 1  # a singleton cluster: never an anchor
    return labels


def assert_cluster_triplets_hold(t, labels, negatives):
    i, j, k = t.indices.T
    assert np.all(labels[i] != -1)
    assert np.all(labels[i] == labels[j])
    assert np.all(i != j)
    assert np.all(labels[k] != labels[i])
    if negatives == "other_clusters":
        assert np.all(labels[k] != -1)


@pytest.mark.parametrize("negatives", ["other_clusters", "any"])
@pytest.mark.parametrize("seed", range(5))
def test_clusters_to_triplets_constraints_hold_on_random_input(seed, negatives):
    rng = np.random.default_rng(seed)
    labels = random_labels(rng)
    t = clusters_to_triplets(Clusters(labels), 500, random_state=seed, negatives=negatives)
    assert t.n_triplets == 500
    assert_cluster_triplets_hold(t, labels, negatives)
    # every cluster with two members or more provides anchors
    eligible = {c for c in set(labels.tolist()) - {-1} if np.sum(labels == c) >= 2}
    assert set(labels[t.anchors].tolist()) == eligible
    if negatives == "any":
        assert np.any(labels[t.negatives] == -1)


def test_clusters_to_triplets_is_seeded():
    labels = random_labels(np.random.default_rng(0))
    a = clusters_to_triplets(labels, 50, random_state=3)
    b = clusters_to_triplets(labels, 50, random_state=3)
    c = clusters_to_triplets(labels, 50, random_state=4)
    assert np.array_equal(a.indices, b.indices)
    assert not np.array_equal(a.indices, c.indices)
    gen = np.random.default_rng(1)
    assert clusters_to_triplets(labels, 5, random_state=gen).n_triplets == 5


def test_clusters_to_triplets_fewer_triplets_than_clusters():
    labels = np.repeat(np.arange(10), 3)
    t = clusters_to_triplets(labels, 4, random_state=0)
    assert len(set(labels[t.anchors].tolist())) == 4
    assert_cluster_triplets_hold(t, labels, "other_clusters")


def test_clusters_to_triplets_one_cluster_and_unclustered_items():
    labels = np.array([0, 0, 0, -1, -1])
    with pytest.raises(ValueError, match="no possible negative for cluster 0.*negatives='any'"):
        clusters_to_triplets(labels, 10, random_state=0)
    t = clusters_to_triplets(labels, 10, random_state=0, negatives="any")
    assert set(t.negatives.tolist()) <= {3, 4}


def test_clusters_to_triplets_errors():
    with pytest.raises(ValueError, match="no cluster has two or more members"):
        clusters_to_triplets([0, 1, 2, -1], 10)
    with pytest.raises(ValueError, match="no possible negative"):
        clusters_to_triplets(["a", "a", "a"], 10, negatives="any")
    with pytest.raises(ValueError, match="negatives must be"):
        clusters_to_triplets([0, 0, 1], 10, negatives="random")
    with pytest.raises(ValueError, match="n_triplets must be at least 1"):
        clusters_to_triplets([0, 0, 1], 0)


def test_triplets_reference_rows_by_index_only():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 1000))
    clusters = Clusters(rng.integers(0, 4, size=40))
    t = clusters_to_triplets(clusters, 30, random_state=0)
    # nothing but an (m, 3) integer array is stored, whatever the width of X
    assert not hasattr(t, "__dict__")
    assert t.indices.shape == (30, 3) and t.indices.dtype.kind == "i"
    assert t.indices.nbytes == 30 * 3 * 8
    rows = X[t.indices]
    assert rows.shape == (30, 3, 1000)
    assert np.shares_memory(X[t.anchors[0]], X)  # a view into the one shared X


# --------------------------------------------------------------------------- pairs_to_clusters
def test_pairs_to_clusters_components():
    pairs = Pairs([[0, 1], [1, 2], [4, 5], [0, 6], [7, 8]], labels=[1, 1, 1, 0, 1])
    c = pairs_to_clusters(pairs, 10)
    assert c.labels.tolist() == [0, 0, 0, -1, 1, 1, -1, 2, 2, -1]


def test_pairs_to_clusters_on_random_input():
    rng = np.random.default_rng(0)
    n = 50
    ind = rng.integers(0, n, size=(40, 2))
    ind = ind[ind[:, 0] != ind[:, 1]]
    similar = rng.random(len(ind)) < 0.6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels = pairs_to_clusters(Pairs(ind, labels=similar), n).labels
    # reference: union-find over the similar pairs
    parent = list(range(n))

    def find(a):
        while parent[a] != a:
            a = parent[a]
        return a

    for a, b in ind[similar]:
        parent[find(a)] = find(b)
    in_pair = np.zeros(n, bool)
    in_pair[ind[similar].ravel()] = True
    assert np.all((labels == -1) == ~in_pair)
    for a in range(n):
        for b in range(n):
            if in_pair[a] and in_pair[b]:
                assert (labels[a] == labels[b]) == (find(a) == find(b))


def test_pairs_to_clusters_errors_and_conflicts():
    with pytest.raises(ValueError, match="graded"):
        pairs_to_clusters(Pairs([[0, 1]], scores=[1.0]), 3)
    with pytest.raises(ValueError, match="no similar pair"):
        pairs_to_clusters(Pairs([[0, 1]], labels=[0]), 3)
    with pytest.raises(ValueError, match="index 3,? out of range for 3 items"):
        pairs_to_clusters(Pairs([[0, 3]], labels=[1]), 3)
    with pytest.warns(UserWarning, match="1 dissimilar pair"):
        pairs_to_clusters(Pairs([[0, 1], [1, 2], [0, 2]], labels=[1, 1, 0]), 3)


# --------------------------------------------------------------------------- graded_pairs_to_triplets
def test_graded_pairs_to_triplets_small_example():
    pairs = Pairs([[0, 1], [0, 2], [3, 4], [1, 2], [0, 3]], scores=[5, 1, 4, 2, 1])
    t = graded_pairs_to_triplets(pairs)
    assert sorted(map(tuple, t.indices.tolist())) == [(0, 1, 2), (0, 1, 3), (1, 0, 2), (2, 1, 0), (3, 4, 0)]
    # ties and differences within the margin give nothing
    t = graded_pairs_to_triplets(pairs, margin=2.0)
    assert sorted(map(tuple, t.indices.tolist())) == [(0, 1, 2), (0, 1, 3), (1, 0, 2), (3, 4, 0)]


def test_graded_pairs_to_triplets_on_random_input():
    rng = np.random.default_rng(0)
    n = 30
    ind = rng.integers(0, n, size=(120, 2))
    ind = ind[ind[:, 0] != ind[:, 1]]
    scores = rng.integers(0, 6, size=len(ind)).astype(float)
    margin = 1.0
    t = graded_pairs_to_triplets(Pairs(ind, scores=scores), margin=margin)
    # brute force: every (pair with a, other pair with a) comparison
    by_item = defaultdict(list)
    for (a, b), s in zip(ind.tolist(), scores.tolist()):
        by_item[a].append((b, s))
        by_item[b].append((a, s))
    expected = sorted((a, b, c) for a, lst in by_item.items() for b, s1 in lst for c, s2 in lst
                      if s1 > s2 + margin and b != c)
    assert sorted(map(tuple, t.indices.tolist())) == expected


def test_graded_pairs_to_triplets_random_negatives():
    rng = np.random.default_rng(1)
    # STS-like: each item in one pair
    ind = rng.permutation(40).reshape(20, 2)
    scores = rng.uniform(0, 5, size=20)
    with pytest.raises(ValueError, match="n_random_negatives"):
        graded_pairs_to_triplets(Pairs(ind, scores=scores))
    t = graded_pairs_to_triplets(Pairs(ind, scores=scores), random_state=0, n_random_negatives=3, high_score=3.0)
    n_high = int(np.sum(scores >= 3.0))
    assert t.n_triplets == 2 * 3 * n_high
    partner, score_of = {}, {}
    for (a, b), s in zip(ind.tolist(), scores.tolist()):
        partner[a], partner[b] = b, a
        score_of[a] = score_of[b] = s
    for a, b, r in t.indices.tolist():
        assert partner[a] == b and score_of[a] >= 3.0
        assert r != a and r != b
    again = graded_pairs_to_triplets(Pairs(ind, scores=scores), random_state=0, n_random_negatives=3, high_score=3.0)
    assert np.array_equal(t.indices, again.indices)
    # with n_items, negatives may be items that appear in no pair
    t = graded_pairs_to_triplets(Pairs(ind, scores=scores), random_state=0, n_random_negatives=20,
                                 high_score=3.0, n_items=100)
    assert t.negatives.max() >= 40


def test_graded_pairs_random_negatives_avoid_all_partners():
    # item 0 is paired with 1, 2, 3; its only possible random negative is 4
    pairs = Pairs([[0, 1], [0, 2], [0, 3], [4, 5]], scores=[5, 5, 5, 0])
    t = graded_pairs_to_triplets(pairs, random_state=0, n_random_negatives=5, high_score=5)
    random_part = t.indices[t.indices[:, 0] == 0]
    assert set(random_part[:, 2].tolist()) == {4, 5}
    with pytest.warns(UserWarning, match="paired with every candidate"):
        graded_pairs_to_triplets(Pairs([[0, 1], [0, 2]], scores=[5, 5]), random_state=0,
                                 n_random_negatives=1, high_score=5)


def test_graded_pairs_to_triplets_from_labels_and_errors():
    t = graded_pairs_to_triplets(Pairs([[0, 1], [0, 2]], labels=[1, 0]))
    assert t.indices.tolist() == [[0, 1, 2]]
    pairs = Pairs([[0, 1], [0, 2]], scores=[1.0, 0.0])
    with pytest.raises(ValueError, match="high_score"):
        graded_pairs_to_triplets(pairs, n_random_negatives=2)
    with pytest.raises(ValueError, match="margin"):
        graded_pairs_to_triplets(pairs, margin=-1)
    with pytest.raises(ValueError, match="no triplet could be formed"):
        graded_pairs_to_triplets(pairs, margin=5)
    with pytest.raises(TypeError, match="Pairs"):
        graded_pairs_to_triplets(np.array([[0, 1]]))
    with pytest.raises(ValueError, match="index 2,? out of range for 2 items"):
        graded_pairs_to_triplets(pairs, n_items=2)


# --------------------------------------------------------------------------- links_to_triplets
def random_links(rng, n=40, m=120):
    edges = rng.integers(0, n, size=(m, 2))
    edges = edges[edges[:, 0] != edges[:, 1]]
    return Links.from_edges(edges, n)


@pytest.mark.parametrize("symmetric", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_links_to_triplets_constraints_hold_on_random_input(seed, symmetric):
    links = random_links(np.random.default_rng(seed))
    A = links.adjacency.toarray().astype(bool)
    t = links_to_triplets(links, 400, random_state=seed, symmetric=symmetric)
    i, j, k = t.indices.T
    if symmetric:
        assert np.all(A[i, j] | A[j, i])
    else:
        assert np.all(A[i, j])
    assert np.all(~A[i, k] & ~A[k, i])
    assert np.all(k != i)


def test_links_to_triplets_dense_graph_and_seed():
    # nearly complete graph: most draws are rejected, every triplet must still be valid
    n = 30
    A = np.ones((n, n)) - np.eye(n)
    A[0, 29] = A[29, 0] = A[5, 7] = A[7, 5] = 0
    t = links_to_triplets(Links(A), 200, random_state=0)
    assert set(t.anchors.tolist()) <= {0, 29, 5, 7}
    assert all((a, c) in {(0, 29), (29, 0), (5, 7), (7, 5)} for a, c in zip(t.anchors, t.negatives))
    again = links_to_triplets(Links(A), 200, random_state=0)
    assert np.array_equal(t.indices, again.indices)
    other = links_to_triplets(Links(A), 200, random_state=1)
    assert not np.array_equal(t.indices, other.indices)


def test_links_to_triplets_errors():
    complete = np.ones((4, 4)) - np.eye(4)
    with pytest.raises(ValueError, match="complete"):
        links_to_triplets(Links(complete), 5)
    with pytest.raises(ValueError, match="n_triplets"):
        links_to_triplets(Links(complete), 0)
    # accepts a raw adjacency matrix; the one link 0 -> 1 serves both ends when symmetric
    one_link = sp.csr_matrix(([1], ([0], [1])), shape=(3, 3))
    t = links_to_triplets(one_link, 20, random_state=0)
    assert set(map(tuple, t.indices.tolist())) == {(0, 1, 2), (1, 0, 2)}
    t = links_to_triplets(one_link, 5, random_state=0, symmetric=False)
    assert t.indices.tolist() == [[0, 1, 2]] * 5


def test_split_pairs_is_a_seeded_partition():
    from learnsim.supervision import split_pairs
    pairs = Pairs(np.arange(40).reshape(20, 2), labels=np.arange(20) % 2 == 0)
    train, val = split_pairs(pairs, 0.25, np.random.default_rng(0))
    assert val.indices.shape == (5, 2) and train.indices.shape == (15, 2)
    rows = {tuple(r) for r in train.indices} | {tuple(r) for r in val.indices}
    assert rows == {tuple(r) for r in pairs.indices}
    label_of = {tuple(r): lab for r, lab in zip(pairs.indices, pairs.labels)}
    assert all(label_of[tuple(r)] == lab for r, lab in zip(val.indices, val.labels))
    again, _ = split_pairs(pairs, 0.25, 0)
    np.testing.assert_array_equal(again.indices, split_pairs(pairs, 0.25, 0)[0].indices)
    graded = Pairs(np.arange(8).reshape(4, 2), scores=[1.0, 2.0, 3.0, 4.0])
    a, b = split_pairs(graded, 0.5, 0)
    assert a.is_graded and sorted(np.r_[a.scores, b.scores]) == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match="held_out must be a fraction strictly between 0 and 1"):
        split_pairs(pairs, 1.0)
    with pytest.raises(ValueError, match="cannot split 1 pair"):
        split_pairs(Pairs(np.array([[0, 1]]), labels=[True]), 0.5)
    with pytest.raises(TypeError, match="pairs must be a Pairs object"):
        split_pairs(np.zeros((4, 2), int))


def test_a_str_or_an_iterator_given_as_index_rows_is_named():
    """Triplets("abc") and Pairs(<generator>) said "must have shape (n, 3); got shape ()": numpy
    makes a 0-d array of a str and of a generator, and the message named neither."""
    import pytest

    from learnsim.supervision import Pairs, Triplets

    with pytest.raises(TypeError, match=r"triplets must be .*got a str"):
        Triplets("abc")
    with pytest.raises(TypeError, match=r"pairs must be .*got a generator.*list\("):
        Pairs(((i, i + 1) for i in range(3)), labels=[1, 0, 1])
    assert Pairs(list((i, i + 1) for i in range(3)), labels=[1, 0, 1]).n_pairs == 3
