"""learnsim.explain: top features per learned dimension (FILM paper, Figure 5) and the exact
decomposition of a pair's similarity into word pairs, words and dimensions."""
from __future__ import annotations

import json
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from learnsim.evaluation.explain import (DimensionFeatures, PairExplanation, explain_pair, n_learned_dimensions,
                              plot_dimension_weights, top_features)
from learnsim.film import FILM
from learnsim.mcd import MinimumClusterDistortion


class LinearMap(BaseEstimator):
    """A hand-made linear metric: y = L x."""

    def __init__(self, L=None):
        self.L = L

    def fit(self, X=None, y=None):
        self.components_ = np.asarray(self.L, dtype=float)
        self.n_features_in_ = self.components_.shape[1]
        return self


NAMES = ["apple", "banana", "cherry", "date", "elder"]
# dimension 0: fruit words positive, "elder" strongly negative; dimension 1: "date" only
L_HAND = np.array([[0.5, 0.9, 0.1, 0.0, -2.0],
                   [0.0, 0.0, 0.0, 3.0, 0.0]])


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n, D = 40, 30
    labels = np.repeat(np.arange(4), 10)
    centers = rng.random((4, D)) * (rng.random((4, D)) < 0.3)
    X = centers[labels] + 0.3 * rng.random((n, D)) * (rng.random((n, D)) < 0.2)
    return X, labels, [f"w{i}" for i in range(D)]


@pytest.fixture(scope="module")
def film(data):
    X, labels, _ = data
    return FILM(n_components=4, max_iter=20, random_state=0).fit(X, labels)


@pytest.fixture(scope="module")
def mcd(data):
    X, labels, _ = data
    # complement_weight > 0: the metric has a part outside its learned dimensions
    return MinimumClusterDistortion(baseline_holdout=None, n_basis=6, shrinkage=0.1, complement_weight=0.5).fit(X, labels)


@pytest.fixture(scope="module")
def mcd_paper(data):
    X, labels, _ = data
    return MinimumClusterDistortion(baseline_holdout=None, n_basis=None, shrinkage=0.0, complement_weight=0.0).fit(X, labels)


# --------------------------------------------------------------------------- top features

def test_top_features_on_a_hand_made_map():
    model = LinearMap(L_HAND).fit()
    dims = top_features(model, NAMES, n_top=2)
    assert [d.dimension for d in dims] == [0, 1]
    first = dims[0]
    assert [(f.feature, f.index, f.weight) for f in first.positive] == [("banana", 1, 0.9), ("apple", 0, 0.5)]
    assert [(f.feature, f.weight) for f in first.negative] == [("elder", -2.0)]
    assert first.scale is None
    assert first.norm == pytest.approx(np.linalg.norm(L_HAND[0]))
    assert [f.feature for f in dims[1].positive] == ["date"] and dims[1].negative == []
    # n_top large: every non-zero weight, zeros never listed
    assert [f.feature for f in top_features(model, NAMES, n_top=10, dimensions=[0])[0].positive] == \
        ["banana", "apple", "cherry"]
    assert n_learned_dimensions(model) == 2


def test_top_features_order_and_json(film, data):
    _, _, names = data
    dims = top_features(film, names, n_top=3, dimensions=[2, 0])
    assert [d.dimension for d in dims] == [2, 0]
    L = film.components_
    for d in dims:
        assert isinstance(d, DimensionFeatures)
        assert d.scale == pytest.approx(film.scales_[d.dimension])
        expected_pos = np.argsort(-L[d.dimension])[:3]
        assert [f.index for f in d.positive] == list(expected_pos)
        assert [f.feature for f in d.negative] == [names[i] for i in np.argsort(L[d.dimension])[:3]]
    back = json.loads(json.dumps([d.to_dict() for d in dims]))
    assert back[0]["positive"][0] == {"feature": dims[0].positive[0].feature,
                                      "index": dims[0].positive[0].index, "weight": dims[0].positive[0].weight}


def test_top_features_mcd_rows_are_its_components(mcd_paper, mcd, data):
    _, _, names = data
    # without a complement weight, components_ is exactly the learned dimensions
    L = mcd_paper.components_
    dims = top_features(mcd_paper, names, n_top=2)
    assert len(dims) == L.shape[0] == n_learned_dimensions(mcd_paper)
    for d in dims:
        row = L[d.dimension]
        assert [f.index for f in d.positive] == [i for i in np.argsort(-row) if row[i] > 0][:2]
        assert [f.index for f in d.negative] == [i for i in np.argsort(row) if row[i] < 0][:2]
        assert d.scale == pytest.approx(mcd_paper.weights_[d.dimension])
    # with one, a learned dimension is sqrt(w_l) v_l (not a row of the D x D components_)
    d0 = top_features(mcd, names, n_top=1, dimensions=0)[0]
    row = np.zeros(len(names))
    row[mcd.active_features_] = np.sqrt(mcd.weights_[0]) * mcd.factor_[:, 0]
    assert d0.positive[0].index == int(np.argmax(row))
    assert d0.positive[0].weight == pytest.approx(row.max())


def test_top_features_through_a_projection():
    # the model sees z = P x (an LSI-like map): the dimensions are explained over the words of x
    model = LinearMap([[1.0, -1.0]]).fit()
    P = np.array([[1.0, 0.0, 0.5],
                  [0.0, 2.0, 0.0]])
    dim = top_features(model, ["a", "b", "c"], n_top=3, projection=P)[0]
    assert [(f.feature, f.weight) for f in dim.positive] == [("a", 1.0), ("c", 0.5)]
    assert [(f.feature, f.weight) for f in dim.negative] == [("b", -2.0)]


# --------------------------------------------------------------------------- pair decomposition

def _check_exact(exp, M, a, b):
    """Every decomposition sums to x_a^T M x_b, and the cosine ones to the cosine."""
    inner = a @ M @ b
    assert exp.inner_product == pytest.approx(inner, rel=1e-10, abs=1e-12)
    assert exp.norm_a == pytest.approx(np.sqrt(a @ M @ a), rel=1e-10)
    assert exp.norm_b == pytest.approx(np.sqrt(b @ M @ b), rel=1e-10)
    assert exp.cosine == pytest.approx(inner / np.sqrt((a @ M @ a) * (b @ M @ b)), rel=1e-10)
    assert exp.distance == pytest.approx(np.sqrt(max((a - b) @ M @ (a - b), 0)), rel=1e-8, abs=1e-12)
    for items in (exp.word_pairs, exp.words_a, exp.words_b):
        assert sum(i.contribution for i in items) == pytest.approx(inner, rel=1e-9, abs=1e-12)
        assert sum(i.cosine_contribution for i in items) == pytest.approx(exp.cosine, rel=1e-9, abs=1e-12)
    assert sum(d.contribution for d in exp.dimensions) + exp.residual_contribution == \
        pytest.approx(inner, rel=1e-9, abs=1e-12)
    # each word pair is x_a[i] x_b[j] M[i, j], over the non-zero words only
    ia, ib = np.flatnonzero(a), np.flatnonzero(b)
    assert len(exp.word_pairs) == ia.size * ib.size == exp.n_words_a * exp.n_words_b
    for p in exp.word_pairs:
        assert p.contribution == pytest.approx(a[p.index_a] * b[p.index_b] * M[p.index_a, p.index_b],
                                               rel=1e-9, abs=1e-13)
    for w in exp.words_a:
        assert w.contribution == pytest.approx(a[w.index] * (M @ b)[w.index], rel=1e-9, abs=1e-13)
        assert w.value == a[w.index]
    contributions = [p.contribution for p in exp.word_pairs]
    assert contributions == sorted(contributions, reverse=True)


@pytest.mark.parametrize("which", ["film", "mcd", "mcd_paper"])
def test_pair_decomposition_is_exact(which, request, data):
    model = request.getfixturevalue(which)
    X, _, names = data
    M = model.get_mahalanobis_matrix()
    for i, j in [(0, 1), (0, 25), (7, 33)]:
        exp = explain_pair(model, X[i], X[j], names, n_top=None)
        assert isinstance(exp, PairExplanation)
        _check_exact(exp, M, X[i], X[j])
        assert exp.distance == pytest.approx(model.pair_distance([[X[i], X[j]]])[0], rel=1e-8)
    if which == "film":
        # the cosine is FILM's learned similarity (its validated mix adds the input cosine)
        assert exp.cosine == pytest.approx(model.learned_similarity(X[7:8], X[33:34])[0, 0], rel=1e-10)
        assert exp.residual_contribution == 0.0
        L = model.components_
        assert [d.contribution for d in sorted(exp.dimensions, key=lambda d: d.dimension)] == \
            pytest.approx(list((L @ X[7]) * (L @ X[33])))
    if which == "mcd":
        assert exp.residual_contribution != 0.0     # the complement weight adds something


def test_pair_on_a_hand_made_map():
    model = LinearMap(L_HAND).fit()
    a = np.array([1.0, 0.0, 0.0, 0.0, 1.0])     # apple, elder
    b = np.array([0.0, 2.0, 0.0, 0.0, 0.0])     # banana
    exp = explain_pair(model, a, b, NAMES, n_top=None)
    # M[apple, banana] = 0.45, M[elder, banana] = -1.8
    assert [(p.feature_a, p.feature_b, p.contribution) for p in exp.word_pairs] == \
        [("apple", "banana", pytest.approx(0.9)), ("elder", "banana", pytest.approx(-3.6))]
    assert exp.inner_product == pytest.approx(-2.7)
    # n_top=None lists everything, zeros included: dimension 1 sees neither text
    assert [(d.dimension, d.contribution) for d in exp.dimensions] == [(1, 0.0), (0, pytest.approx(-2.7))]
    assert [(w.feature, w.contribution) for w in exp.words_b] == [("banana", pytest.approx(-2.7))]


def test_sparse_and_dense_inputs_agree(mcd, data):
    X, _, names = data
    dense = explain_pair(mcd, X[3], X[30], names, n_top=None)
    sparse = explain_pair(mcd, sp.csr_matrix(X[3]), sp.csr_matrix(X[30:31]), names, n_top=None)
    assert sparse.inner_product == pytest.approx(dense.inner_product, rel=1e-12)
    assert [(p.index_a, p.index_b) for p in sparse.word_pairs] == [(p.index_a, p.index_b) for p in dense.word_pairs]
    two_d = explain_pair(mcd, X[3:4], X[30:31], names, n_top=None)
    assert two_d.cosine == pytest.approx(dense.cosine, rel=1e-12)


def test_pair_through_a_projection_equals_the_model_on_projected_inputs(film, data):
    X, _, _ = data
    rng = np.random.default_rng(1)
    P = rng.random((X.shape[1], 12))                 # 12 "words" mapped to the model's 30 inputs
    words = [f"t{k}" for k in range(12)]
    a, b = rng.random(12) * (rng.random(12) < 0.6), rng.random(12) * (rng.random(12) < 0.6)
    exp = explain_pair(film, a, b, words, n_top=None, projection=P)
    L = film.components_
    ya, yb = L @ (P @ a), L @ (P @ b)
    assert exp.inner_product == pytest.approx(ya @ yb, rel=1e-10)
    assert exp.cosine == pytest.approx(film.learned_similarity((P @ a)[None, :], (P @ b)[None, :])[0, 0], rel=1e-10)
    assert sum(p.contribution for p in exp.word_pairs) == pytest.approx(ya @ yb, rel=1e-9)


def test_projection_with_a_residual_weight(mcd, data):
    X, _, _ = data
    rng = np.random.default_rng(2)
    P = rng.random((X.shape[1], 8))
    a, b = rng.random(8), rng.random(8) * (rng.random(8) < 0.5)
    M = mcd.get_mahalanobis_matrix()
    exp = explain_pair(mcd, a, b, [f"t{k}" for k in range(8)], n_top=None, projection=P)
    _check_exact(exp, P.T @ M @ P, a, b)


def test_n_top_cuts_the_lists_and_reports_what_was_left_out(mcd, data):
    X, _, names = data
    full = explain_pair(mcd, X[0], X[1], names, n_top=None)
    cut = explain_pair(mcd, X[0], X[1], names, n_top=2)
    positive = [p for p in full.word_pairs if p.contribution > 0]
    negative = [p for p in full.word_pairs if p.contribution < 0]
    expected = positive[:2] + negative[-2:]
    assert [(p.index_a, p.index_b) for p in cut.word_pairs] == [(p.index_a, p.index_b) for p in expected]
    assert sum(p.contribution for p in cut.word_pairs) + cut.omitted_word_pairs == \
        pytest.approx(full.inner_product, rel=1e-9)
    assert sum(w.contribution for w in cut.words_a) + cut.omitted_words_a == pytest.approx(full.inner_product)
    assert sum(w.contribution for w in cut.words_b) + cut.omitted_words_b == pytest.approx(full.inner_product)
    assert sum(d.contribution for d in cut.dimensions) + cut.omitted_dimensions + cut.residual_contribution \
        == pytest.approx(full.inner_product)
    assert len(cut.words_a) <= 4 and len(cut.dimensions) <= 4
    json.dumps(cut.to_dict())


def test_blocked_word_pairs_match(mcd, data, monkeypatch):
    import learnsim.evaluation.explain as explain
    X, _, names = data
    whole = explain_pair(mcd, X[0], X[11], names, n_top=3)
    monkeypatch.setattr(explain, "_BLOCK_ENTRIES", 5)       # a few words of a per block
    blocked = explain_pair(mcd, X[0], X[11], names, n_top=3)
    assert [(p.index_a, p.index_b) for p in blocked.word_pairs] == [(p.index_a, p.index_b) for p in whole.word_pairs]
    assert [p.contribution for p in blocked.word_pairs] == pytest.approx([p.contribution for p in whole.word_pairs])
    assert blocked.omitted_word_pairs == pytest.approx(whole.omitted_word_pairs)


def test_a_zero_vector_explains_nothing(film, data):
    X, _, names = data
    exp = explain_pair(film, np.zeros(X.shape[1]), X[1], names)
    assert exp.inner_product == 0.0 and exp.cosine == 0.0 and exp.n_words_a == 0
    assert exp.word_pairs == [] and exp.words_a == []
    assert exp.distance == pytest.approx(np.linalg.norm(film.transform(X[1:2])))


# --------------------------------------------------------------------------- errors

def test_unfitted_model_is_refused(data):
    _, _, names = data
    for model in (FILM(n_components=2), MinimumClusterDistortion()):
        with pytest.raises(NotFittedError):
            top_features(model, names)
        with pytest.raises(NotFittedError):
            explain_pair(model, np.ones(30), np.ones(30), names)


def test_bad_arguments_name_the_problem(film, data):
    X, _, names = data
    with pytest.raises(ValueError, match="feature_names has 29 names but the model has 30"):
        top_features(film, names[:-1])
    with pytest.raises(TypeError, match="feature_names must be a sequence"):
        top_features(film, "w0 w1")
    with pytest.raises(ValueError, match=r"dimension 4 is out of range: the model has 4 learned dimension\(s\) \(0-3\)"):
        top_features(film, names, dimensions=[0, 4])
    with pytest.raises(ValueError, match="dimension -1 is out of range"):
        top_features(film, names, dimensions=-1)
    with pytest.raises(ValueError, match="dimensions must be integers"):
        top_features(film, names, dimensions=[1.5])
    with pytest.raises(ValueError, match="n_top must be a positive integer"):
        top_features(film, names, n_top=0)
    with pytest.raises(ValueError, match="n_top must be a positive integer or None"):
        explain_pair(film, X[0], X[1], names, n_top=-2)
    with pytest.raises(ValueError, match="x_b has 29 features, but the model"):
        explain_pair(film, X[0], X[1, :-1], names)
    with pytest.raises(ValueError, match="x_a must be one vector"):
        explain_pair(film, X[:2], X[1], names)
    with pytest.raises(ValueError, match="x_a contains NaN"):
        explain_pair(film, np.full(30, np.nan), X[1], names)
    with pytest.raises(ValueError, match="projection has 3 rows but the model takes 30"):
        top_features(film, ["a", "b"], projection=np.ones((3, 2)))
    with pytest.raises(TypeError, match="not a linear metric"):
        top_features(BaseEstimator(), names)


def test_too_many_pairs_to_list_all(film, data, monkeypatch):
    import learnsim.evaluation.explain as explain
    X, _, names = data
    monkeypatch.setattr(explain, "_MAX_LISTED_PAIRS", 3)
    with pytest.raises(ValueError, match="too many to list them all; give n_top"):
        explain_pair(film, X[0], X[1], names, n_top=None)
    assert explain_pair(film, X[0], X[1], names, n_top=1).word_pairs


# --------------------------------------------------------------------------- plot

def test_plot_dimension_weights(film, data, tmp_path):
    pytest.importorskip("matplotlib")
    _, _, names = data
    ax = plot_dimension_weights(film, names, dimension=1, n_top=4)
    ticks = ax.get_yticks()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    top_down = [label for _, label in sorted(zip(ticks, labels), reverse=True)]
    info = top_features(film, names, 4, [1])[0]
    # the largest weight on top, the most negative at the bottom
    assert top_down == [f.feature for f in info.positive] + [f.feature for f in info.negative][::-1]
    widths = sorted((p.get_y(), p.get_width()) for p in ax.patches)
    assert [w for _, w in widths][::-1] == pytest.approx([f.weight for f in info.positive]
                                                         + [f.weight for f in info.negative][::-1])
    assert "learned dimension 1" in ax.get_title()
    ax.figure.savefig(tmp_path / "dim.png")
    assert (tmp_path / "dim.png").read_bytes()[:4] == b"\x89PNG"


def test_plot_needs_matplotlib(film, data, monkeypatch):
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"pip install learnsim\[plot\]"):
        plot_dimension_weights(film, data[2])


def test_film_shares_stay_bounded_when_words_always_co_occur():
    # Words that always appear together ("please help", and one float32 rounding away from
    # collinear) leave singular values at the noise floor; Sigma^-1 once turned them into
    # columns of L with norms near 1e8, so a word's share of a learned cosine of 0.3 was in the
    # hundreds of thousands, cancelling. The rank tolerance drops those directions.
    import learnsim

    topics = [["how do I get a refund for my order", "refund for a damaged item", "when will my refund arrive",
               "money back for a cancelled order"],
              ["I cannot log in to my account", "forgot my password how to reset", "reset my password please",
               "the sign in page does not work"],
              ["where is my package", "my order has not shipped yet", "how long does shipping take",
               "the delivery is late"],
              ["how do I cancel my order", "cancel my subscription", "stop my monthly plan",
               "cancel an order for a gift"]]
    texts, labels = [], []
    for label, questions in enumerate(topics):
        for q in questions:
            for prefix, suffix in (("please help:", "thanks"), ("hello,", "today"), ("", "asap")):
                texts.append(f"{prefix} {q} {suffix}".strip())
                labels.append(label)
    model = learnsim.fit(texts, clusters=labels, method="film", baseline_holdout=None)
    assert model.explain(texts[0], texts[1])["input_weight"] == 0.0     # the learned cosine alone is split
    assert np.abs(model.metric.components_).max() < 1e3
    worst = 0.0
    for query in ["please help: how do I get a refund for my order", "please cancel my order", "help: refund thanks"]:
        for document in texts[::5]:
            e = model.explain(query, document, n_top=50)
            shares = [w["contribution"] for w in e["words"]]
            assert abs(sum(shares) + e["rest"] - e["score"]) < 1e-6
            worst = max(worst, max(map(abs, shares), default=0.0))
    assert worst < 5.0
