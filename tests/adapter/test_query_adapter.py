"""The query-side adapter (issue 43, part 3): a linear map of the query embedding alone. Its
search equals applying its matrix by hand, the documents keep the encoder's vectors (an index
re-embeds nothing when the adapter changes), it saves and loads, and its fit is checked as
search is used (learnsim.baseline)."""
import json
import warnings

import numpy as np
import pytest

from encoder_fakes import HashedWordEncoder, register
from retrieval_fakes import write_beir_folder

import learnsim
import learnsim.fitting
from learnsim.adapter import QueryAdapter


def _unit(M):
    return M / np.linalg.norm(M, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def beir(tmp_path_factory):
    return write_beir_folder(tmp_path_factory.mktemp("beir"))


def _corpus_texts(beir):
    rows = [json.loads(line) for line in (beir / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    return [r["title"] + "\n" + r["text"] for r in rows]


@pytest.fixture(scope="module")
def fitted(beir):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return learnsim.fitting.fit(queries=beir / "queries.jsonl", qrels=beir / "qrels" / "train.tsv",
                                    corpus=beir / "corpus.jsonl", method="adapter", encoder=HashedWordEncoder(),
                                    baseline_holdout=None)


def test_the_adapter_learns_a_map_that_moves_queries_to_their_documents():
    rng = np.random.default_rng(1)
    docs = rng.normal(size=(40, 8))
    flip = np.diag([1.0, -1.0, 1.0, -1.0, 1.0, 1.0, 1.0, 1.0])
    queries = docs[:20] @ flip + 0.05 * rng.normal(size=(20, 8))
    X = np.vstack([docs, queries])
    T = [(40 + i, i, j) for i in range(20) for j in range(40) if j != i]
    before = (_unit(queries) @ _unit(docs).T).argmax(axis=1)
    adapter = QueryAdapter(alpha=0.01).fit(X, T)
    after = adapter.similarity(queries, docs).argmax(axis=1)
    assert np.mean(after == np.arange(20)) > np.mean(before == np.arange(20))
    assert np.mean(after == np.arange(20)) >= 0.9
    # a strong ridge keeps the encoder's own cosine
    stiff = QueryAdapter(alpha=1e6).fit(X, T)
    assert np.allclose(stiff.components_, np.eye(8), atol=1e-3)
    assert np.array_equal(stiff.transform(docs), docs)          # documents are never mapped


def test_bad_parameters_and_input_are_clear_errors():
    X = np.eye(4)
    with pytest.raises(ValueError, match="alpha"):
        QueryAdapter(alpha=0).fit(X, [(0, 1, 2)])
    with pytest.raises(ValueError, match="triplets index rows"):
        QueryAdapter().fit(X, [(0, 1, 9)])
    with pytest.raises(ValueError, match="not fitted"):
        QueryAdapter().transform_queries(X)
    with pytest.raises(ValueError, match="4 columns"):
        QueryAdapter(max_iter=0).fit(X, [(0, 1, 2)]).transform_queries(np.ones((1, 3)))


def test_search_equals_applying_the_matrix_by_hand(fitted, beir):
    pipeline = fitted.pipeline
    assert type(pipeline.metric).__name__ == "QueryAdapter"
    texts = _corpus_texts(beir)
    queries = ["parcel late", "refund my card", "app error on start"]
    encoder = HashedWordEncoder()
    Q, D = encoder.transform(queries).astype(np.float64), encoder.transform(texts).astype(np.float64)
    rule = pipeline.parts["search"]
    w = rule.input_weight or 0.0
    dense = (w * _unit(Q) + (1 - w) * _unit(Q @ pipeline.metric.components_.T)) @ _unit(D).T
    S = np.asarray(pipeline.searcher(texts).closeness(queries))
    lam = rule.lexical_weight or 0.0
    if lam:
        from learnsim import fit  # noqa: F401  (the BM25 part: the pure-BM25 model of the same collection)
        bm25 = S - (1 - lam) * dense
        # what remains is lambda x normalised BM25: 0 where a query shares no word with a document
        assert np.all(bm25 >= -1e-9) and np.all(bm25 <= lam + 1e-9)
    else:
        assert np.allclose(S, dense, atol=1e-9)
    # the adapter alone (no search rule): exactly cos(W q, d)
    from learnsim.pipeline import Pipeline

    alone = Pipeline.from_parts({"vectorizer": pipeline.vectorizer, "metric": pipeline.metric})
    by_hand = _unit(Q @ pipeline.metric.components_.T) @ _unit(D).T
    assert np.allclose(alone.searcher(texts).closeness(queries), by_hand, atol=1e-9)
    assert np.allclose(pipeline.metric.similarity(Q, D), by_hand, atol=1e-9)
    ranked = pipeline.search(queries[0], texts, k=5)
    assert [h["corpus_id"] for h in ranked] == list(np.argsort(-S[0], kind="stable")[:5])


def test_an_index_keeps_the_encoders_document_vectors(fitted, beir):
    from learnsim.pipeline import Pipeline

    texts = _corpus_texts(beir)[:10]
    adapted = fitted.pipeline
    plain = Pipeline.from_encoder(HashedWordEncoder())
    rows = adapted.document_rows(texts).dense
    own = plain.document_rows(texts).dense
    # the dense part of a document's rows is the encoder's unit vector, whatever the adapter learned
    assert np.allclose(rows[:, -own.shape[1]:] if rows.shape[1] != own.shape[1] else rows, own, atol=1e-9)


def test_saved_and_loaded_the_adapter_searches_the_same(fitted, beir, tmp_path, monkeypatch):
    register(monkeypatch)
    path = tmp_path / "adapter.npz"
    fitted.pipeline.save(path)
    again = learnsim.load(path)
    texts = _corpus_texts(beir)
    assert np.allclose(again.metric.components_, fitted.pipeline.metric.components_)
    assert again.search("parcel late", texts, k=5) == fitted.pipeline.search("parcel late", texts, k=5)


def test_the_adapter_needs_an_encoder(beir):
    with pytest.raises(ValueError, match="give an encoder"):
        learnsim.fitting.fit(queries=beir / "queries.jsonl", qrels=beir / "qrels" / "train.tsv",
                             corpus=beir / "corpus.jsonl", method="adapter")


def test_a_checked_adapter_fit_says_what_it_kept(beir):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = learnsim.fitting.fit(queries=beir / "queries.jsonl", qrels=beir / "qrels" / "train.tsv",
                                      corpus=beir / "corpus.jsonl", method="adapter", encoder=HashedWordEncoder())
    report = result.report
    assert "searching 60 documents" in report["held_out"] and report["strongest_baseline"]
    if report["model"] == "learned":
        assert type(result.pipeline.metric).__name__ == "QueryAdapter"
    else:
        assert result.pipeline.scoring in ("BM25", "tf.idf cosine", "encoder cosine") or "BM25" in result.pipeline.scoring


def test_the_command_line_fits_an_adapter_from_a_beir_folder(beir, tmp_path, monkeypatch):
    from conftest import run_cli
    from encoder_fakes import register_sentence_encoder

    register_sentence_encoder(monkeypatch)
    model = tmp_path / "adapter.npz"
    code, out, err = run_cli(["fit", "--beir", beir, "--method", "adapter", "--encoder", "fake-sentence-encoder",
                              "--model", model, "--baseline-holdout", "none"])
    assert code == 0, err
    assert "The adapter learned from" in out and "documents keep the encoder's vectors" in out
    assert type(learnsim.load(model).metric).__name__ == "QueryAdapter"
    code, out, err = run_cli(["fit", "--beir", beir, "--method", "adapter", "--model", model])
    assert code == 2 and "give --encoder" in err and len(err.strip().splitlines()) == 1


def test_a_low_rank_adapter_changes_the_identity_in_rank_directions_at_most():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 6))
    T = [(20 + i % 10, i % 10, (i + 3) % 20) for i in range(60)]
    adapter = QueryAdapter(rank=2, alpha=0.1).fit(X, T)
    assert np.linalg.matrix_rank(adapter.components_ - np.eye(6), tol=1e-8) <= 2
    # it lowers the training loss from the identity's (the encoder's own cosine)
    identity = QueryAdapter(alpha=0.1, max_iter=0).fit(X, T)
    assert adapter.loss_ < identity.loss_


def test_promoting_and_rolling_back_an_adapter_re_embeds_nothing(beir, tmp_path, monkeypatch):
    """Through the library (as the service promotes): the index keeps its documents' embeddings
    beside it, and a query adapter over the same encoder takes them from there."""
    from encoder_fakes import register_sentence_encoder
    from learnsim.index import Index
    from learnsim.pipeline import Pipeline
    from learnsim.text import encoders
    from learnsim.text.encoders import encoded_text_count

    cls = register_sentence_encoder(monkeypatch)
    encoder = cls("/fake/fake-sentence-encoder").fit()
    texts = _corpus_texts(beir)
    index = Index.build(tmp_path / "idx", Pipeline.from_encoder(encoder), texts,
                        ids=[f"d{i}" for i in range(len(texts))])
    assert (tmp_path / "idx.embeddings").is_dir()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        adapted = learnsim.fitting.fit(queries=beir / "queries.jsonl", qrels=beir / "qrels" / "train.tsv",
                                       corpus=beir / "corpus.jsonl", method="adapter", encoder=encoder,
                                       baseline_holdout=None).pipeline
    version = index.stage(adapted)
    monkeypatch.setattr(encoders, "_MEMO", {})                 # as in a new process
    start = encoded_text_count()
    index.promote(version)
    assert index.manifest["method"] == "QueryAdapter"
    index.rollback()
    assert encoded_text_count() - start == 0
    assert index.manifest["method"] != "QueryAdapter"
