"""LearnedBM25 (issue 13, section 2): BM25 is a member, parameters are recovered from links that
a known member generated, scoring paths agree, persistence, clear errors."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

from conftest import require_corpus

from learnsim.text.bm25 import BM25
from learnsim.persistence import ModelFormatError, load, read_manifest, save
from learnsim.linklearn import LearnedBM25, PowerQueryIndex


def _synthetic(seed=0, n=240, v=400):
    """Topic-model documents of varied lengths."""
    rng = np.random.default_rng(seed)
    topics = rng.dirichlet(np.full(v, 0.05), size=8)
    z = rng.integers(0, 8, n)
    lengths = rng.integers(20, 300, n)
    X = np.vstack([rng.multinomial(length, 0.7 * topics[t] + 0.3 / v) for t, length in zip(z, lengths)])
    return sp.csr_matrix(X.astype(np.float64))


TRUE = {"k1": 4.0, "b": 0.2, "idf_exponent": 2.0, "query_exponent": 1.0}


@pytest.fixture(scope="module")
def generated():
    """Links to each document's 5 best under a known member (the document's counts as query)."""
    X = _synthetic()
    S = LearnedBM25.from_params(**TRUE).score(X, X)
    np.fill_diagonal(S, -np.inf)
    top = np.argsort(-S, axis=1, kind="stable")[:, :5]
    A = sp.csr_matrix((np.ones(top.size), (np.repeat(np.arange(X.shape[0]), 5), top.ravel())), shape=S.shape)
    model = LearnedBM25(document_fractions=(1.0,), length_spread=1.0, query_length=None, max_evaluations=120).fit(X, A)
    return X, A, model


@pytest.mark.parametrize("k1, b, idf", [(1.5, 0.6, "okapi"), (1.2, 0.75, "okapi"), (0.9, 0.4, "lucene"),
                                        (100.0, 1.0, "robertson"), (2.0, 0.0, "okapi")])
@pytest.mark.parametrize("query_weights", ["binary", "counts"])
def test_bm25_is_exactly_a_member(k1, b, idf, query_weights):
    rng = np.random.default_rng(1)
    D = sp.csr_matrix(rng.poisson(0.4, (60, 50)).astype(np.float64))
    Q = sp.csr_matrix(rng.poisson(0.4, (9, 50)).astype(np.float64))
    member = LearnedBM25.from_params(k1=k1, b=b, query_exponent=0.0 if query_weights == "binary" else 1.0, idf=idf)
    reference = BM25(k1, b, idf=idf, query_weights=query_weights, dtype=np.float64).fit(D).score(Q)
    np.testing.assert_allclose(member.score(Q, D), reference, rtol=0, atol=1e-10)
    np.testing.assert_allclose(member.index(D, dtype=np.float64).score(Q), reference, rtol=0, atol=1e-10)
    np.testing.assert_allclose(member.transform(D).toarray(), BM25(k1, b, idf=idf, dtype=np.float64).fit(D)
                               .document_weights_.toarray(), rtol=0, atol=1e-12)


def test_defaults_are_the_projects_bm25():
    rng = np.random.default_rng(2)
    D = sp.csr_matrix(rng.poisson(0.4, (30, 20)).astype(np.float64))
    np.testing.assert_allclose(LearnedBM25.from_params().score(D, D), BM25(dtype=np.float64).fit(D).score(D),
                               atol=1e-10)


def test_parameters_are_recovered(generated):
    X, _, model = generated
    p = model.params_
    avgdl = X.sum() / X.shape[0]
    effective_k1 = p["k1"] * (avgdl / model.reference_length) ** p["k1_length_exponent"]
    assert abs(np.log(effective_k1 / TRUE["k1"])) < np.log(1.5)
    assert abs(p["b"] - TRUE["b"]) < 0.15
    assert abs(p["idf_exponent"] - TRUE["idf_exponent"]) < 0.4
    assert abs(p["query_exponent"] - TRUE["query_exponent"]) < 0.4
    assert model.train_ap_ > model.start_train_ap_ + 0.1
    assert model.search_path_.shape[1] == 6 and np.all(np.diff(model.search_path_[:, -1]) > 0)


def test_query_exponent_and_index_agree(generated):
    X, _, _ = generated
    member = LearnedBM25.from_params(k1=3.0, b=0.5, idf_exponent=1.5, query_exponent=0.5,
                                     k1_length_exponent=0.3)
    Q = X[:7]
    S = member.score(Q, X)
    Qw = Q.copy()
    Qw.data = np.sqrt(Qw.data)
    np.testing.assert_allclose(S, (Qw @ member.transform(X).T).toarray(), rtol=1e-12)
    index = member.index(X, dtype=np.float64)
    assert isinstance(index, PowerQueryIndex)
    np.testing.assert_allclose(index.score(Q), S, rtol=1e-12)
    idx, top = index.search(Q, 4)
    np.testing.assert_allclose(top, np.sort(S, axis=1)[:, ::-1][:, :4], rtol=1e-12)
    curves = member.weight_curves([1.0, 2.0, 4.0], normalised_length=1.0, avgdl=100.0, idf=[1.0, 4.0])
    np.testing.assert_allclose(curves["idf"], [1.0, 8.0])
    assert np.all(np.diff(curves["tf"]) > 0)


def test_validation_ap_is_recorded(generated):
    X, A, _ = generated
    model = LearnedBM25(document_fractions=(1.0, 0.5), query_length=(5, 20), max_evaluations=10).fit(
        X[:120], A[:120][:, :120], validation=(X[120:], A[120:][:, 120:]))
    assert 0 <= model.validation_ap_ <= 1 and model.training_lengths_.size == 2
    assert model.training_lengths_[1] < model.training_lengths_[0]
    assert model.n_evaluations_ <= 10


def test_save_and_load_round_trip(generated, tmp_path):
    X, _, model = generated
    path = tmp_path / "learned.npz"
    save(model, path)
    loaded = load(path)
    assert loaded.params_ == model.params_
    np.testing.assert_array_equal(loaded.score(X[:5], X), model.score(X[:5], X))
    np.testing.assert_array_equal(loaded.search_path_, model.search_path_)
    assert loaded.train_ap_ == model.train_ap_
    assert loaded.get_params() == {**model.get_params(), "random_state": 0}


@pytest.mark.parametrize("field, value, match", [("b", 1.5, "b must lie"), ("k1", float("nan"), "NaN"),
                                                  ("idf_exponent", -1.0, "idf_exponent")])
def test_tampered_file_does_not_load(generated, tmp_path, field, value, match):
    _, _, model = generated
    meta, arrays = model._get_state()
    meta["weighting"][field] = value
    with pytest.raises(ValueError, match=match):
        from learnsim.persistence import _restore
        _restore(LearnedBM25, meta, arrays)


def test_tampered_file_on_disk(generated, tmp_path):
    _, _, model = generated
    path = tmp_path / "learned.npz"
    save(model, path)
    manifest = read_manifest(path)
    assert "LearnedBM25" in str(manifest)
    import zipfile
    import json
    import io
    # rewrite the manifest with b = 2 (its checksums do not cover meta values)
    with zipfile.ZipFile(path) as zf:
        entries = {name: zf.read(name) for name in zf.namelist()}
    key = next(name for name in entries if "manifest" in name)
    data = np.load(io.BytesIO(entries[key]))
    doc = json.loads(bytes(data).decode("utf-8"))
    (entry,) = doc["objects"].values() if isinstance(doc["objects"], dict) else doc["objects"]
    entry["meta"]["weighting"]["b"] = 2.0
    buf = io.BytesIO()
    np.save(buf, np.frombuffer(json.dumps(doc).encode("utf-8"), dtype=np.uint8))
    entries[key] = buf.getvalue()
    bad = tmp_path / "bad.npz"
    with zipfile.ZipFile(bad, "w") as zf:
        for name, content in entries.items():
            zf.writestr(name, content)
    with pytest.raises((ModelFormatError, ValueError), match="b must lie"):
        load(bad)


def test_extrapolated_length_dependence_warns(generated):
    X, _, _ = generated
    model = LearnedBM25.from_params(k1_length_exponent=0.5)
    model.training_lengths_ = np.array([1000.0, 2000.0])
    with pytest.warns(UserWarning, match="far outside the mean lengths"):
        model.transform(X)                                  # avgdl about 160: below 1000 / 4
    model.training_lengths_ = np.array([100.0, 200.0])
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.transform(X)


def test_bad_input_gives_clear_errors(generated):
    X, A, _ = generated
    with pytest.raises(NotFittedError):
        LearnedBM25().transform(X)
    with pytest.raises(ValueError, match="negative"):
        LearnedBM25().fit(-X, A)
    with pytest.raises(ValueError, match="integer"):
        LearnedBM25().fit(X * 0.5, A)
    with pytest.raises(ValueError, match="rows"):
        LearnedBM25().fit(X[:-1], A)
    with pytest.raises(ValueError, match="no links|no document has a link"):
        LearnedBM25().fit(X, sp.csr_matrix(A.shape))
    with pytest.raises(TypeError, match="Links"):
        LearnedBM25().fit(X, [(0, 1)])
    with pytest.raises(ValueError, match="document_fractions"):
        LearnedBM25(document_fractions=(0.0,)).fit(X, A)
    with pytest.raises(ValueError, match="query_length"):
        LearnedBM25(query_length=(5, 2)).fit(X, A)
    with pytest.raises(ValueError, match="max_evaluations"):
        LearnedBM25(max_evaluations=0).fit(X, A)
    with pytest.raises(ValueError, match="idf must be one of"):
        LearnedBM25(idf="bm25").fit(X, A)
    with pytest.raises(ValueError, match="b must lie"):
        LearnedBM25.from_params(b=1.2)
    with pytest.raises(TypeError, match="k2"):
        LearnedBM25.from_params(**{"k2": 1.0})
    with pytest.raises(ValueError, match="empty"):
        LearnedBM25.from_params().transform(sp.csr_matrix((3, 4)))
    member = LearnedBM25.from_params()
    with pytest.raises(ValueError, match="features|terms"):
        member.score(X[:2, :-1], X)
    with pytest.raises(TypeError, match="validation"):
        LearnedBM25().fit(X, A, validation=X)


def test_views_and_length_spread(generated):
    X, A, _ = generated
    lead = X.copy()
    lead.data = np.minimum(lead.data, 1.0)                 # another view of the same documents
    model = LearnedBM25(document_fractions=(1.0, 0.5), length_spread=4.0, query_length=(5, 20),
                        max_evaluations=8).fit([X, lead], A)
    assert model.training_lengths_.size == 4 and model.n_evaluations_ <= 8
    # per-document thinning: lengths vary within a copy, the mean falls
    assert model.training_lengths_[1] < model.training_lengths_[0]
    with pytest.raises(ValueError, match="same documents"):
        LearnedBM25().fit([X, X[:-1]], A)
    with pytest.raises(ValueError, match="empty list"):
        LearnedBM25().fit([], A)
    with pytest.raises(ValueError, match="length_spread"):
        LearnedBM25(length_spread=0.5).fit(X, A)


def test_fixed_parameters_do_not_move(generated):
    X, A, _ = generated
    model = LearnedBM25(document_fractions=(1.0,), length_spread=1.0, query_length=None, max_evaluations=30,
                        fixed={"idf_exponent": 1.0, "query_exponent": 0.0}).fit(X, A)
    assert model.params_["idf_exponent"] == 1.0 and model.params_["query_exponent"] == 0.0
    assert np.all(model.search_path_[:, 3] == 1.0)
    with pytest.raises(ValueError, match="unknown weighting parameter"):
        LearnedBM25(fixed={"k2": 1.0}).fit(X, A)
    with pytest.raises(ValueError, match="fixed must be"):
        LearnedBM25(fixed=[1.0]).fit(X, A)


@pytest.mark.corpus
def test_transferred_weighting_beats_bm25_on_cisi():
    """Trained on a small part of Wikispeedia's training third (a quick setting), applied to
    CISI and Cranfield without retraining (measured: CISI 0.245 against BM25 0.182, Cranfield
    0.293 against the cosine's 0.290; the full setting in benchmarks/bench_weighting_transfer.py).

    The quick setting's result moves with its sample of training queries: after the tokenizer
    read Wikispeedia's non-ASCII names by Unicode's rules (218 of 4,604 articles changed a rare
    term), seed SEED gave CISI 0.232 and Cranfield 0.279, seeds 1-3 0.247-0.248 and 0.292-0.302
    (the old reading: 0.246-0.248 and 0.287-0.305). So the median of three seeds is checked."""
    for corpus in ("wikispeedia/wikispeedia-articles-links.tar.gz", "ir/cisi", "ir/cran"):
        require_corpus(corpus)
    import sys
    from conftest import REPO_ROOT, shared_data_dir
    sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
    try:
        from bench_weighting_transfer import _counts, _mean_ap
    finally:
        sys.path.pop(0)
    from learnsim.datasets import load_smart_collection, load_wikispeedia
    from learnsim.reproduce.linklearn import SEED, _tfidf_scores, collection_counts
    from learnsim.supervision import split_links
    wiki = load_wikispeedia(shared_data_dir())
    (tr, L_tr), _, _ = split_links(wiki.links, random_state=SEED)
    C = _counts(list(wiki.texts), stop_words="english")
    models = [LearnedBM25(max_queries=200, document_fractions=(1.0, 0.1), max_evaluations=40,
                          random_state=seed).fit(C[tr], L_tr) for seed in (SEED, 1, 2)]
    for name in ("cisi", "cran"):
        D, Q, relevant = collection_counts(load_smart_collection(name, shared_data_dir()))
        learned = float(np.median([_mean_ap(model.score(Q, D), relevant) for model in models]))
        if name == "cisi":
            assert learned > _mean_ap(BM25().fit(D).score(Q), relevant) + 0.03
        assert learned >= 0.95 * _mean_ap(_tfidf_scores(Q, D), relevant)
