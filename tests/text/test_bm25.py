"""Okapi BM25: the formula by hand, agreement with rank_bm25 and bm25s on CISI, search, tuning,
persistence and the errors for bad input."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import require_corpus
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from learnsim.text.bm25 import (BM25, DEFAULT_B_GRID, DEFAULT_K1_GRID, PAPER_PARAMS, TermWeightIndex, bm25_idf,
                                tune_bm25)
from learnsim.evaluation import average_precision, precision_at_k
from learnsim.persistence import load, save

# ------------------------------------------------------------------------------ helpers

# 4 documents x 5 terms; term 0 occurs in 3 of 4 documents (negative okapi idf), term 4 in none
COUNTS = np.array([[2, 1, 0, 0, 0],
                   [1, 0, 3, 0, 0],
                   [0, 0, 0, 1, 0],
                   [4, 0, 0, 2, 0]])


def by_hand(counts, queries, k1, b, idf):
    """Paper 002's eq. 2 with a loop per query, document and term, for the given idf."""
    counts = np.asarray(counts, dtype=float)
    dl = counts.sum(axis=1)
    avgdl = dl.mean()
    S = np.zeros((len(queries), len(counts)))
    for qi, q in enumerate(queries):
        for d in range(len(counts)):
            for t in range(counts.shape[1]):
                tf = counts[d, t]
                if q[t] and tf:
                    S[qi, d] += q[t] * idf[t] * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl[d] / avgdl))
    return S


def synthetic_counts(n_docs=60, n_terms=40, seed=0, density=0.15):
    rng = np.random.default_rng(seed)
    X = rng.poisson(1.5, size=(n_docs, n_terms)) * (rng.random((n_docs, n_terms)) < density)
    X[:, 0] = rng.integers(1, 3, size=n_docs)  # a term in every document
    return sp.csr_matrix(X)


def _smart_fields(path, limit=None):
    """(id, .W text) of each record of a SMART file (CISI files have CRLF line ends)."""
    text = path.read_text(encoding="latin-1").replace("\r\n", "\n")
    records = []
    for record in re.split(r"^\.I ", text, flags=re.M)[1:]:
        match = re.search(r"^\.W\n(.*?)(?=^\.[A-Z]\b|\Z)", record, flags=re.M | re.S)
        records.append(match.group(1) if match else "")
        if limit and len(records) == limit:
            break
    return records


@pytest.fixture(scope="module")
def cisi():
    """300 CISI abstracts and 40 queries: token lists and the same counts as matrices."""
    from learnsim.text import TextVectorizer
    folder = require_corpus("ir/cisi")
    docs = _smart_fields(folder / "CISI.ALL", limit=300)
    queries = _smart_fields(folder / "CISI.QRY", limit=40)
    vec = TextVectorizer(weighting="tf", dtype=np.float64).fit(docs)
    tokenize = vec._make_tokenizer()
    doc_tokens = [tokenize(d) for d in docs]
    # only queries with an indexed term: bm25s cannot score an empty query
    query_tokens = [[t for t in tokenize(q) if t in vec.vocabulary_] for q in queries]
    query_tokens = [q for q in query_tokens if q]
    X = vec.transform(docs)
    Q = vec.transform([" ".join(q) for q in query_tokens])
    assert all(len(tokens) == n for tokens, n in zip(doc_tokens, np.asarray(X.sum(axis=1)).ravel()))
    return {"X": X, "Q": Q, "doc_tokens": doc_tokens, "query_tokens": query_tokens}


def max_relative_error(actual, expected):
    return float(np.max(np.abs(actual - expected) / np.maximum(np.abs(expected), 1e-9)))


# ------------------------------------------------------------------------------ the formula

@pytest.mark.parametrize("variant", ["okapi", "lucene", "robertson"])
@pytest.mark.parametrize("k1, b", [(1.5, 0.6), (0.0, 0.3), (200.0, 1.0), (0.7, 0.0)])
def test_scores_follow_the_formula(variant, k1, b):
    queries = np.array([[1, 0, 1, 0, 0], [2, 1, 0, 3, 1], [0, 0, 0, 0, 1]])
    model = BM25(k1=k1, b=b, idf=variant, dtype=np.float64).fit(COUNTS)
    binary = by_hand(COUNTS, (queries > 0).astype(float), k1, b, model.idf_)
    np.testing.assert_allclose(model.score(queries), binary, rtol=1e-12, atol=1e-12)
    counted = clone(model).set_params(query_weights="counts").fit(COUNTS)
    np.testing.assert_allclose(counted.score(queries), by_hand(COUNTS, queries, k1, b, model.idf_),
                               rtol=1e-12, atol=1e-12)
    # a query of only unindexed terms scores 0 everywhere
    assert not model.score(queries[2:]).any()


def test_idf_variants_by_hand():
    df = np.array([3, 1, 1, 2, 0])
    n = 4
    raw = np.array([math.log(n - d + 0.5) - math.log(d + 0.5) for d in df[:4]])
    floor = 0.25 * raw.mean()
    assert raw[0] < 0 < floor and raw[3] == 0  # term 0 (in 3 of 4) and term 3 (in 2 of 4) are floored
    np.testing.assert_allclose(bm25_idf(df, n, "okapi"), [floor, *raw[1:3], floor, 0.0], rtol=1e-15)
    np.testing.assert_allclose(bm25_idf(df, n, "okapi", epsilon=0.0), [0.0, *raw[1:3], 0.0, 0.0], rtol=1e-15)
    lucene = [math.log(1 + (n - d + 0.5) / (d + 0.5)) for d in df[:4]]
    np.testing.assert_allclose(bm25_idf(df, n, "lucene"), [*lucene, 0.0], rtol=1e-15)
    np.testing.assert_allclose(bm25_idf(df, n, "robertson"), [0.0, *raw[1:], 0.0], rtol=1e-15)
    model = BM25(idf="lucene").fit(COUNTS)
    np.testing.assert_array_equal(model.document_frequency_, df)
    np.testing.assert_allclose(model.idf_, bm25_idf(df, n, "lucene"))
    assert model.avgdl_ == pytest.approx(COUNTS.sum() / 4)
    assert model.n_documents_ == 4 and model.n_features_in_ == 5


def test_defaults_are_the_papers_constants():
    model = BM25()
    assert (model.k1, model.b) == (PAPER_PARAMS["k1"], PAPER_PARAMS["b"]) == (1.5, 0.6)
    assert model.idf == "okapi" and model.query_weights == "binary"


def test_document_weights_give_the_scores():
    X = synthetic_counts()
    Q = synthetic_counts(n_docs=7, seed=1)
    model = BM25(k1=2.0, b=0.75, idf="lucene").fit(X)
    W = model.document_weights_
    assert sp.isspmatrix_csc(W) and W.dtype == np.float32 and W.shape == X.shape
    expected = (W @ model.transform_queries(Q).T).T.toarray()
    S = model.score(Q)
    assert S.dtype == np.float32 and S.shape == (7, 60)
    np.testing.assert_allclose(S, expected, rtol=1e-5, atol=1e-6)
    # transform of the indexed documents reproduces W; fit_transform returns it
    np.testing.assert_allclose(model.transform(X).toarray(), W.toarray(), rtol=1e-6)
    np.testing.assert_allclose(clone(model).fit_transform(X).toarray(), W.toarray(), rtol=1e-6)


def test_transform_uses_the_fitted_statistics():
    model = BM25(k1=1.2, b=0.75, dtype=np.float64).fit(COUNTS)
    new = np.array([[0, 5, 1, 0, 2], [1, 0, 0, 0, 0]])
    lengths = new.sum(axis=1)
    expected = np.zeros(new.shape)
    for d, t in zip(*np.nonzero(new)):
        tf = new[d, t]
        expected[d, t] = model.idf_[t] * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * lengths[d] / model.avgdl_))
    np.testing.assert_allclose(model.transform(new).toarray(), expected, rtol=1e-12)
    assert model.transform(new)[0, 4] == 0  # a term absent from the index has idf 0


def test_float32_agrees_with_float64():
    X = synthetic_counts(n_docs=200, n_terms=80)
    Q = synthetic_counts(n_docs=20, n_terms=80, seed=3)
    S32 = BM25().fit(X).score(Q)
    S64 = BM25(dtype=np.float64).fit(X).score(Q)
    np.testing.assert_allclose(S32, S64, rtol=1e-5, atol=1e-5)


def test_fit_does_not_modify_its_input():
    # duplicate entries: canonicalising them in place would change the caller's matrix
    X = sp.csr_matrix((np.array([1.0, 2.0, 1.0]), np.array([0, 0, 1]), np.array([0, 2, 3])), shape=(2, 2))
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    model = BM25(dtype=np.float64).fit(X)
    for part, old in zip((X.data, X.indices, X.indptr), before):
        np.testing.assert_array_equal(part, old)
    np.testing.assert_allclose(model.score([[1, 0]]), by_hand([[3, 0], [0, 1]], [[1, 0]], 1.5, 0.6, model.idf_))


# ------------------------------------------------------------------------------ reference libraries

def test_okapi_matches_rank_bm25_on_cisi(cisi):
    rank_bm25 = pytest.importorskip("rank_bm25", reason="pip install learnsim[test] for rank_bm25")
    reference = rank_bm25.BM25Okapi(cisi["doc_tokens"], k1=1.5, b=0.6, epsilon=0.25)
    model = BM25(dtype=np.float64).fit(cisi["X"])
    # the floor for negative idfs is exercised: some terms occur in most abstracts
    assert (model.document_frequency_ > model.n_documents_ / 2).any()
    # rank_bm25's issue 39, mended here: a term in exactly half of the abstracts has idf 0 there,
    # the floor here (the mean idf is positive on CISI, so that is the only difference)
    half = [w for w, v in reference.idf.items() if v == 0.0]
    assert half and (model.document_frequency_ * 2 == model.n_documents_).sum() == len(half)
    for w in half:
        reference.idf[w] = reference.epsilon * reference.average_idf
    # binary query weights = each distinct query term once; rank_bm25 counts repeats
    binary = np.array([reference.get_scores(list(dict.fromkeys(q))) for q in cisi["query_tokens"]])
    assert max_relative_error(model.score(cisi["Q"]), binary) < 1e-6
    counted = np.array([reference.get_scores(q) for q in cisi["query_tokens"]])
    assert max_relative_error(model.set_params(query_weights="counts").score(cisi["Q"]), counted) < 1e-6
    assert not np.allclose(binary, counted)  # the two weightings differ on this data


@pytest.mark.parametrize("variant", ["lucene", "robertson"])
def test_matches_bm25s_on_cisi(cisi, variant):
    bm25s = pytest.importorskip("bm25s", reason="pip install learnsim[bench] for bm25s")
    k1, b = 1.2, 0.75
    reference = bm25s.BM25(k1=k1, b=b, method=variant, dtype="float64")
    reference.index(cisi["doc_tokens"], show_progress=False)
    expected = np.array([reference.get_scores(list(dict.fromkeys(q))) for q in cisi["query_tokens"]])
    model = BM25(k1=k1, b=b, idf=variant, dtype=np.float64).fit(cisi["X"])
    # bm25s leaves out the constant factor k1 + 1 of the paper's formula
    assert max_relative_error(model.score(cisi["Q"]) / (k1 + 1), expected) < 1e-6


# ------------------------------------------------------------------------------ search

@pytest.mark.parametrize("max_block_bytes", [None, 1, 2000])
def test_search_is_the_top_of_the_sorted_scores(max_block_bytes):
    X = synthetic_counts(n_docs=90, n_terms=30, density=0.1)
    Q = synthetic_counts(n_docs=11, n_terms=30, seed=5, density=0.1).toarray()
    Q[3] = 0  # an empty query: every score ties at 0
    model = BM25().fit(X)
    idx, scores = model.search(Q, 7, max_block_bytes=max_block_bytes)
    S = model.score(Q)
    order = np.argsort(-S, axis=1, kind="stable")[:, :7]  # ties by ascending index
    np.testing.assert_array_equal(idx, order)
    np.testing.assert_array_equal(scores, np.take_along_axis(S, order, axis=1))
    np.testing.assert_array_equal(idx[3], np.arange(7))
    assert idx.dtype == np.int64 and scores.dtype == np.float32


@pytest.mark.parametrize("idf, density", [("lucene", 0.05), ("lucene", 0.6), ("okapi", 0.9), ("negative", 0.9)])
def test_search_selection_shortcuts_match_a_full_sort(monkeypatch, idf, density):
    """The top k are selected among candidates above a bound from a sample of the row; with a
    tiny sample every branch runs here: bound above 0, bound 0 (matched documents only), fewer
    matches than k, negative weights (learned ones: BM25's idf is never negative), and ties
    (duplicate documents score alike)."""
    import learnsim.text.bm25 as bm25_module
    monkeypatch.setattr(bm25_module, "_SELECTION_SAMPLE", 16)
    X = synthetic_counts(n_docs=150, n_terms=40, seed=8, density=density).toarray()
    X[100:140] = X[60:100]  # 40 duplicated documents
    Q = (np.random.default_rng(9).random((40, 40)) < np.linspace(0.0, 0.3, 40)[:, None]).astype(int)
    if idf == "negative":
        # a learned weighting with negative weights: unmatched documents do not score last
        W = sp.csr_matrix(BM25(idf="lucene", dtype=np.float64).fit(X).document_weights_)
        W.data[::3] *= -1.0
        model = TermWeightIndex(query_weights="counts").fit(W)
        assert not model.nonnegative_
    else:
        model = BM25(idf=idf).fit(X)
    if idf == "okapi":
        # most terms in most documents (the mean idf is negative): the floor is still positive
        assert (model.idf_ > 0).all()
    S = model.score(Q)
    for k in (1, 4, 12):
        idx, scores = model.search(Q, k)
        order = np.argsort(-S, axis=1, kind="stable")[:, :k]
        np.testing.assert_array_equal(idx, order)
        np.testing.assert_array_equal(scores, np.take_along_axis(S, order, axis=1))


def test_search_finds_the_document_with_the_query_terms():
    X = sp.csr_matrix(np.eye(6, dtype=int) * 2 + 1)  # document i has term i twice, the rest once
    idx, _ = BM25(idf="lucene").fit(X).search(np.eye(6, dtype=int)[[4, 1]], 1)
    np.testing.assert_array_equal(idx.ravel(), [4, 1])


# ------------------------------------------------------------------------------ tuning

def _planted_relevance(X, Q, seed=0):
    """Relevance that BM25 recovers partly: documents sharing the most query terms, plus noise."""
    rng = np.random.default_rng(seed)
    overlap = (Q > 0).astype(float) @ (X > 0).astype(float).T
    rel = overlap.toarray() >= np.maximum(2, overlap.max(axis=1).toarray())
    return rel ^ (rng.random(rel.shape) < 0.02)


def test_tuning_table_is_exact_and_picks_the_best():
    X = synthetic_counts(n_docs=80, n_terms=50)
    Q = synthetic_counts(n_docs=15, n_terms=50, seed=7)
    rel = _planted_relevance(X, Q)
    rel[4] = False  # a query without relevant document is skipped
    k1_grid, b_grid = [0.5, 1.5, 20.0], [0.0, 0.6, 1.0]
    result = tune_bm25(X, Q, rel, k1_grid=k1_grid, b_grid=b_grid, idf="lucene")
    assert result.table.shape == (3, 3) and result.n_queries == 14 and result.n_skipped_queries == 1
    for i, b in enumerate(b_grid):
        for j, k1 in enumerate(k1_grid):
            S = BM25(k1=k1, b=b, idf="lucene", dtype=np.float64).fit(X).score(Q)
            assert result.table[i, j] == pytest.approx(np.nanmean(average_precision(S, rel)), abs=1e-12)
    assert result.best_score == result.table.max()
    i, j = np.unravel_index(np.argmax(result.table), result.table.shape)
    assert (result.b, result.k1) == (b_grid[i], k1_grid[j])
    assert (result.estimator.k1, result.estimator.b) == (result.k1, result.b)
    assert np.ptp(result.table) > 0  # the grid matters on this data, so the argmax is a real choice
    assert len(result.as_rows()) == 9


def test_tuning_in_small_blocks_with_exclusions_and_another_measure(monkeypatch):
    import learnsim.text.bm25 as bm25_module
    X = synthetic_counts(n_docs=50, n_terms=30, seed=2)
    Q = X[:12]  # documents as queries: exclude each one's own document
    rel = _planted_relevance(X, Q, seed=1)
    exclude = sp.eye(12, 50, format="csr", dtype=bool)
    whole = tune_bm25(X, Q, rel, k1_grid=[1.0, 100.0], b_grid=[0.5], measure="p@5", exclude=exclude)
    monkeypatch.setattr(bm25_module, "_TUNE_BLOCK_ELEMENTS", 1)  # one query per block
    blocked = tune_bm25(X, Q, rel, k1_grid=[1.0, 100.0], b_grid=[0.5], measure="p@5", exclude=exclude)
    np.testing.assert_allclose(blocked.table, whole.table, rtol=1e-12)
    S = BM25(k1=100.0, b=0.5, dtype=np.float64).fit(X).score(Q)
    expected = np.nanmean(precision_at_k(S, rel, 5, exclude=exclude.toarray()))
    assert whole.table[0, 1] == pytest.approx(expected, abs=1e-12)


def test_default_grids():
    assert DEFAULT_K1_GRID[0] == pytest.approx(0.25) and DEFAULT_K1_GRID[-1] == pytest.approx(1000.0)
    assert np.any(np.isclose(DEFAULT_K1_GRID, 200.0, rtol=0.3))  # large k1 is on the grid
    ratios = DEFAULT_K1_GRID[1:] / DEFAULT_K1_GRID[:-1]
    np.testing.assert_allclose(ratios, ratios[0])  # log scale
    np.testing.assert_allclose(DEFAULT_B_GRID, np.linspace(0, 1, 11))


def test_tuning_errors():
    X = synthetic_counts(n_docs=20, n_terms=10)
    Q = synthetic_counts(n_docs=4, n_terms=10, seed=1)
    rel = np.zeros((4, 20), bool)
    rel[0, 3] = True
    with pytest.raises(ValueError, match="relevance has shape"):
        tune_bm25(X, Q, rel[:, :10])
    with pytest.raises(ValueError, match="none of the 4 queries has a relevant document"):
        tune_bm25(X, Q, np.zeros((4, 20), bool), k1_grid=[1.0], b_grid=[0.5])
    with pytest.raises(ValueError, match="k1_grid entry must be >= 0"):
        tune_bm25(X, Q, rel, k1_grid=[1.0, -2.0])
    with pytest.raises(ValueError, match=r"b_grid entry must lie in \[0, 1\]"):
        tune_bm25(X, Q, rel, b_grid=[0.5, 1.5])
    with pytest.raises(ValueError, match="k1_grid must be a non-empty"):
        tune_bm25(X, Q, rel, k1_grid=[])
    with pytest.raises(ValueError, match="unknown retrieval measure"):
        tune_bm25(X, Q, rel, measure="ndcg")
    with pytest.raises(ValueError, match="queries has 9 features"):
        tune_bm25(X, Q[:, :9], rel)
    with pytest.raises(ValueError, match="exclude has shape"):
        tune_bm25(X, Q, rel, exclude=np.zeros((3, 20), bool))


# ------------------------------------------------------------------------------ persistence

def test_save_load_round_trip(tmp_path):
    X = synthetic_counts()
    Q = synthetic_counts(n_docs=5, seed=4)
    model = BM25(k1=3.0, b=0.4, idf="robertson", query_weights="counts", dtype=np.float64).fit(X)
    loaded = load(save(model, tmp_path / "bm25.npz"))
    assert isinstance(loaded, BM25) and loaded.get_params() == model.get_params()
    assert sp.isspmatrix_csc(loaded.document_weights_)
    np.testing.assert_array_equal(loaded.score(Q), model.score(Q))
    np.testing.assert_array_equal(loaded.transform(X).toarray(), model.transform(X).toarray())
    assert loaded.avgdl_ == model.avgdl_


def test_from_state_refuses_inconsistent_state():
    meta, arrays = BM25().fit(COUNTS)._get_state()
    BM25._from_state(meta, dict(arrays))  # the untouched state loads
    with pytest.raises(ValueError, match="document_weights must be a sparse"):
        BM25._from_state(meta, {**arrays, "document_weights": arrays["document_weights"][:3]})
    with pytest.raises(ValueError, match="idf must be 5 finite floats"):
        BM25._from_state(meta, {**arrays, "idf": arrays["idf"][:4]})
    with pytest.raises(ValueError, match="exactly the arrays"):
        BM25._from_state(meta, {k: v for k, v in arrays.items() if k != "idf"})
    with pytest.raises(ValueError, match="avgdl must be a positive number"):
        BM25._from_state({**meta, "avgdl": 0.0}, arrays)
    with pytest.raises(ValueError, match="k1 must be >= 0"):
        BM25._from_state({**meta, "params": {**meta["params"], "k1": -1.0}}, arrays)
    with pytest.raises(ValueError, match="missing metadata keys"):
        BM25._from_state({k: v for k, v in meta.items() if k != "avgdl"}, arrays)


# ------------------------------------------------------------------------------ bad input

def test_init_only_stores_params():
    model = BM25(k1=-5, b=7, idf="nope")  # checked at fit, as scikit-learn does
    assert model.get_params() == {"k1": -5, "b": 7, "idf": "nope", "epsilon": 0.25,
                                  "query_weights": "binary", "dtype": np.float32}
    assert clone(model).get_params()["k1"] == -5


@pytest.mark.parametrize("params, message", [
    ({"k1": -0.1}, "k1 must be >= 0"),
    ({"k1": float("nan")}, "k1 must be a finite number"),
    ({"b": 1.2}, r"b must lie in \[0, 1\]"),
    ({"b": -0.1}, r"b must lie in \[0, 1\]"),
    ({"idf": "bm25l"}, "idf must be one of 'okapi', 'lucene', 'robertson'"),
    ({"epsilon": -1}, "epsilon must be >= 0"),
    ({"query_weights": "tfidf"}, "query_weights must be one of 'binary', 'counts'"),
    ({"dtype": np.int32}, "dtype must be np.float32 or np.float64"),
])
def test_bad_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        BM25(**params).fit(COUNTS)


@pytest.mark.parametrize("X, message", [
    (np.array([[1, -1], [0, 2]]), "X contains negative values"),
    (np.array([[1, 0.5], [0, 2]]), "X contains non-integer values"),
    (sp.csr_matrix(np.array([[1, 0.5], [0, 2]])), "X contains non-integer values"),
    (np.array([[1, np.nan], [0, 2]]), "X contains NaN"),
    (sp.csr_matrix(np.array([[1, np.nan], [0, 2]])), "X contains NaN"),
    (sp.csr_array(np.array([[1, np.inf], [0, 2]])), "X contains infinite"),
    (np.zeros((0, 4)), "X has 0 sample"),
    (sp.csr_matrix((0, 4)), "X has 0 sample"),
    (np.zeros((3, 4)), "every one of the 3 documents in X is empty"),
    (np.array([1, 2, 3]), "X must be 2-D"),
    (["some text"], "vectorise it first"),
])
def test_bad_documents(X, message):
    with pytest.raises((ValueError, TypeError), match=message):
        BM25().fit(X)


def test_bad_queries():
    model = BM25().fit(COUNTS)
    with pytest.raises(ValueError, match="Q has 4 features, but this BM25 index is expecting 5"):
        model.score(np.ones((2, 4)))
    with pytest.raises(ValueError, match="Q has 4 features"):
        model.search(np.ones((2, 4)), 2)
    with pytest.raises(ValueError, match="Q contains negative values"):
        model.score(-np.ones((1, 5)))
    with pytest.raises(ValueError, match="Q contains non-integer values"):
        model.search(np.full((1, 5), 0.3), 1)
    with pytest.raises(ValueError, match="X has 4 features"):
        model.transform(np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"k=5 is larger than the 4 corpus item"):
        model.search(np.ones((1, 5)), 5)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        model.search(np.ones((1, 5)), 0)
    with pytest.raises(ValueError, match="max_block_bytes must be a positive integer"):
        model.search(np.ones((1, 5)), 1, max_block_bytes=0)


@pytest.mark.parametrize("method", ["score", "search", "transform", "transform_queries", "_get_state"])
def test_unfitted_use_raises_not_fitted(method):
    call = {"score": lambda m: m.score(COUNTS), "search": lambda m: m.search(COUNTS, 1),
            "transform": lambda m: m.transform(COUNTS), "transform_queries": lambda m: m.transform_queries(COUNTS),
            "_get_state": lambda m: m._get_state()}[method]
    with pytest.raises(NotFittedError):
        call(BM25())


def test_bm25_idf_errors():
    with pytest.raises(ValueError, match="n_documents must be a positive integer"):
        bm25_idf([1, 2], 0)
    with pytest.raises(ValueError, match="document_frequency must hold integers between 0 and n_documents=3"):
        bm25_idf([1, 4], 3)
    with pytest.raises(ValueError, match="idf must be one of"):
        bm25_idf([1, 2], 3, variant="atire")
