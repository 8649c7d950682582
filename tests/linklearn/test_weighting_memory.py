"""LearnedBM25's fit scores its copies in blocks of documents (issue 16, part 3): the blockwise
AvgP equals the former whole-matrix evaluation (posting entries gathered and summed with
bincount into an n_queries x n_docs matrix, then ``per_query_measures``), at any block size, and
the fit lands on the same parameters."""
import numpy as np
import pytest
import scipy.sparse as sp

from learnsim.linklearn import _weighting as weighting
from learnsim.text.bm25 import bm25_idf
from learnsim.evaluation import per_query_measures
from learnsim.linklearn._weighting import START, LearnedBM25


def _corpus(seed=0, n=150, v=300):
    """Topic documents of varied lengths, each linked to a few documents of its topic."""
    rng = np.random.default_rng(seed)
    topics = rng.dirichlet(np.full(v, 0.05), size=6)
    z = rng.integers(0, 6, n)
    X = np.vstack([rng.multinomial(int(rng.integers(15, 200)), 0.7 * topics[t] + 0.3 / v) for t in z])
    rows, cols = [], []
    for i in range(n):
        same = np.flatnonzero((z == z[i]) & (np.arange(n) != i))
        for j in rng.choice(same, size=min(3, same.size), replace=False):
            rows.append(i)
            cols.append(j)
    A = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    return sp.csr_matrix(X.astype(np.float64)), A


def _whole_matrix_ap(copy, D, Q, relevant, exclude, idf_variant, epsilon, params, L0):
    """The former evaluation: every posting entry a query touches gathered, summed by bincount
    into the dense score matrix, ranked by per_query_measures."""
    n_docs, n_terms = D.shape
    lengths = np.asarray(D.sum(axis=1)).ravel()
    avgdl = max(float(lengths.sum()) / n_docs, 1e-12)
    idf = bm25_idf(np.bincount(D.indices, minlength=n_terms), n_docs, idf_variant, epsilon)
    Dc = D.tocsc()
    Dc.sort_indices()
    rows = np.repeat(np.arange(Q.shape[0]), np.diff(Q.indptr))
    terms = Q.indices
    first = Dc.indptr[terms].astype(np.int64)
    count = (Dc.indptr[terms + 1] - Dc.indptr[terms]).astype(np.int64)
    offsets = np.cumsum(count) - count
    positions = np.arange(int(count.sum()), dtype=np.int64) + np.repeat(first - offsets, count)
    docs = Dc.indices[positions].astype(np.int64)
    target = docs + np.repeat(rows.astype(np.int64) * n_docs, count)
    contribution = (weighting._query_power(np.repeat(Q.data, count), params["query_exponent"])
                    * weighting._signed_power(np.repeat(idf[terms], count), params["idf_exponent"])
                    * weighting._tf_part(Dc.data[positions], lengths[docs] / avgdl, avgdl, params, L0))
    S = np.bincount(target, weights=contribution, minlength=Q.shape[0] * n_docs).reshape(Q.shape[0], n_docs)
    return S, per_query_measures(S, relevant, exclude=exclude, measures=("ap",))["ap"]


POINTS = [START, {"k1": 0.3, "k1_length_exponent": 0.5, "b": 0.9, "idf_exponent": 2.0, "query_exponent": 1.0},
          {"k1": 40.0, "k1_length_exponent": -1.0, "b": 0.0, "idf_exponent": 0.0, "query_exponent": 0.5}]


@pytest.mark.parametrize("fraction", [1.0, 0.05])
@pytest.mark.parametrize("block_docs", [1, 7, 64, None])
def test_blockwise_ap_equals_the_whole_matrix(fraction, block_docs):
    X, A = _corpus()
    rng = np.random.default_rng(3)
    adjacency = (A + A.T).tocsr()
    anchors = np.flatnonzero(np.diff(adjacency.indptr) > 0)[:70]
    D = weighting._thin(X, fraction, rng, 4.0)
    Q = weighting._sample_queries(X, anchors, (8, 60), rng)
    relevant = adjacency[anchors].toarray() > 0
    exclude = np.zeros_like(relevant)
    exclude[np.arange(anchors.size), anchors] = True
    relevant[0, anchors[1]] = exclude[0, anchors[1]] = True          # an excluded relevant one
    copy = weighting._Copy(D, Q, sp.csr_matrix(relevant), sp.csr_matrix(exclude), "okapi", 0.25,
                           block_docs=block_docs)
    for params in POINTS:
        S, expected = _whole_matrix_ap(copy, D, Q, relevant, exclude, "okapi", 0.25, params, 100.0)
        np.testing.assert_array_equal(copy.scores(params, 100.0), S)        # same sums, same bits
        got = copy.per_query_ap(params, 100.0)
        assert np.array_equal(np.isnan(got), np.isnan(expected))
        assert np.isfinite(got).sum() > 20
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12, equal_nan=True)


def test_ties_by_index_across_blocks():
    """Scores that tie (many zeros on a thin copy) rank by ascending document index, whichever
    block the tied documents fall in."""
    Q = sp.csr_matrix(np.array([[1.0, 0, 0], [0, 1.0, 0]]))
    D = sp.csr_matrix(np.array([[0, 0, 1.0], [1.0, 0, 0], [0, 0, 2.0], [1.0, 0, 0], [0, 0, 1.0], [1.0, 1.0, 0]]))
    relevant = np.zeros((2, 6), dtype=bool)
    relevant[0, [2, 3]] = relevant[1, [0, 4]] = True
    exclude = np.zeros_like(relevant)
    exclude[0, 1] = exclude[1, 5] = True
    S = weighting._Copy(D, Q, relevant, exclude, "okapi", 0.25).scores(START, 100.0)
    expected = per_query_measures(S, relevant, exclude=exclude, measures=("ap",))["ap"]
    for block_docs in (1, 2, 4, 6):
        got = weighting._Copy(D, Q, relevant, exclude, "okapi", 0.25, block_docs=block_docs).per_query_ap(START, 100.0)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@pytest.mark.filterwarnings("ignore::learnsim.baseline.BaselineWarning")
def test_fit_lands_on_the_same_parameters(monkeypatch):
    X, A = _corpus(seed=1)
    kwargs = dict(document_fractions=(1.0, 0.1), max_evaluations=25, random_state=0)
    monkeypatch.setattr(weighting, "_SCORE_BLOCK_ELEMENTS", 3000)    # blocks of ~30 documents
    blockwise = LearnedBM25(**kwargs).fit(X, A)

    def whole(self, params, reference_length):
        S = self.scores(params, reference_length)
        relevant = np.zeros(self.shape, dtype=bool)
        relevant[self.rel_query, self.rel_doc] = True
        exclude = np.zeros(self.shape, dtype=bool)
        exclude[self.ex_query, self.ex_doc] = True
        return per_query_measures(S, relevant, exclude=exclude, measures=("ap",))["ap"]

    monkeypatch.setattr(weighting._Copy, "per_query_ap", whole)
    reference = LearnedBM25(**kwargs).fit(X, A)
    assert len(reference.search_path_) > 1                              # the search moved
    assert blockwise.params_ == reference.params_
    assert blockwise.baseline_gain_.to_dict() == reference.baseline_gain_.to_dict()
    assert blockwise.n_evaluations_ == reference.n_evaluations_
    assert abs(blockwise.train_ap_ - reference.train_ap_) <= 1e-12
    np.testing.assert_allclose(blockwise.search_path_, reference.search_path_, rtol=0, atol=1e-12)


def test_a_copy_holds_no_dense_query_by_document_array():
    X, A = _corpus(seed=2, n=400)
    model = LearnedBM25(document_fractions=(1.0,), max_queries=100, max_evaluations=1, baseline_holdout=None)
    rng = np.random.default_rng(0)
    adjacency = (A + A.T).tocsr()
    (copy,) = model._copies([X], adjacency, np.array([1.0]), (8, 60), rng)
    largest = max(v.size for v in vars(copy).values() if isinstance(v, np.ndarray))
    assert largest < copy.shape[0] * copy.shape[1] / 4
