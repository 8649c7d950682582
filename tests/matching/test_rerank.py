"""Search's learned second stage: the re-ranker trained on the first stage's mistakes, kept only
where held-out duplicate queries gain, saved in the model and used by every search path."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import learnsim
import learnsim.fitting
from learnsim import persistence
from learnsim.index import Index
from learnsim.matching import Reranker

from index_models import negation_collection as _negation_collection


@pytest.fixture(scope="module")
def fitted():
    rows = _negation_collection()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = learnsim.fitting.fit(pairs=rows, method="film", n_components=8, max_iter=30)
    texts = list(dict.fromkeys(t for a, b, _ in rows for t in (a, b)))
    return result, rows, texts


def test_the_reranker_is_kept_where_held_out_queries_gain(fitted):
    result, _, _ = fitted
    summary = result.report.summary if hasattr(result.report, "summary") else result.report
    gain = summary["rerank_baseline_gain"]
    assert gain["status"] == "learned" and gain["ci_low"] > 0
    assert summary["rerank_recall_at_1"]["first stage"] < gain["learned_score"]
    assert isinstance(result.pipeline.rerank, Reranker)


def test_search_paths_rerank_alike(fitted, tmp_path):
    result, rows, texts = fitted
    pipeline = result.pipeline
    queries = [a for a, _, _ in rows[::2][:20]]
    found = pipeline.search(queries, texts, k=3)
    for hits in found:
        assert all("first_stage_rank" in h for h in hits)
        scores = [h["score"] for h in hits]
        assert scores == sorted(scores, reverse=True) and all(0.0 <= s <= 1.0 for s in scores)
    # the query is in the collection (its own best hit); next, the first stage ranks the negated
    # copy before the duplicate, and the re-ranker moves the duplicate up
    duplicate_of = {a: b for a, b, label in rows if label}
    assert all(texts[h[0]["corpus_id"]] == q for q, h in zip(queries, found))
    assert np.mean([texts[h[1]["corpus_id"]] == duplicate_of[q] for q, h in zip(queries, found)]) >= 0.8
    assert np.mean([h[1]["first_stage_rank"] > 2 for h in found]) >= 0.5
    # the saved model and an index of it give the same hits
    path = tmp_path / "m.npz"
    pipeline.save(path)
    loaded = learnsim.load(path)
    assert loaded.rerank is not None and loaded.rerank.n_candidates == pipeline.rerank.n_candidates
    again = loaded.search(queries, texts, k=3)
    assert [[h["corpus_id"] for h in hits] for hits in again] == [[h["corpus_id"] for h in hits] for hits in found]
    index = Index.build(tmp_path / "idx", loaded, texts)
    try:
        indexed = index.search(queries, k=3)
        assert [[texts[int(h["id"]) - 1] for h in hits] for hits in indexed] == \
            [[texts[h["corpus_id"]] for h in hits] for hits in found]
        for hits, ref in zip(indexed, found):
            np.testing.assert_allclose([h["score"] for h in hits], [h["score"] for h in ref], rtol=1e-6)
            assert [h["rank"] for h in hits] == [1, 2, 3]
        explained = index.search(queries[0], k=2, explain=True)
        for hit in explained:
            why = hit["explanation"]["rerank"]
            total = why["intercept"] + sum(f["contribution"] for f in why["features"]) + why["rest"]
            assert total == pytest.approx(why["decision"], abs=1e-9)
            assert why["first_stage_rank"] == hit["first_stage_rank"] and why["rank"] == hit["rank"]
    finally:
        index.close()


def test_rerank_false_leaves_search_at_its_first_stage():
    rows = _negation_collection(n_groups=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = learnsim.fitting.fit(pairs=rows, method="film", n_components=4, max_iter=10, rerank=False)
    assert result.pipeline.rerank is None
    with pytest.raises(ValueError, match="rerank"):
        learnsim.fitting.fit(pairs=rows, method="film", rerank="yes")


def test_a_damaged_rerank_is_refused(fitted, tmp_path):
    result, _, texts = fitted
    meta, arrays = result.pipeline.rerank._get_state()
    for bad in (0, -3, 2.5, True, "50"):
        with pytest.raises(ValueError, match="n_candidates"):
            Reranker._from_state(dict(meta, n_candidates=bad), arrays)
    with pytest.raises(ValueError):
        Reranker._from_state(dict(meta, transformer=None), arrays)
    index = Index.build(tmp_path / "idx", result.pipeline, texts)
    index.close()
    manifest = json.loads((tmp_path / "idx" / "manifest.json").read_text())
    assert manifest["rerank"] == result.pipeline.rerank.n_candidates


def test_state_round_trips(fitted, tmp_path):
    result, rows, texts = fitted
    reranker = result.pipeline.rerank
    loaded = persistence.load(persistence.save(reranker, tmp_path / "r.npz"))
    query = rows[0][0]
    np.testing.assert_allclose(loaded.probabilities(query, texts[:10]), reranker.probabilities(query, texts[:10]),
                               rtol=1e-10)


def test_the_command_line_reports_and_uses_the_reranker(tmp_path):
    from conftest import run_cli

    rows = _negation_collection(n_groups=120, seed=1)
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("".join(f"{label}\t{a}\t{b}\n" for a, b, label in rows), encoding="utf-8")
    model = tmp_path / "m.npz"
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", pairs, "--columns", "label=0,text_a=1,text_b=2",
                              "--dimensions", "4", "--max-iter", "10", "--model", model])
    assert code == 0, err
    assert "Search re-ranking: the pair model re-scores the search rule's top 50 (C=" in out
    assert "Against the baseline (search re-ranking): recall@1" in out
    texts = list(dict.fromkeys(t for a, b, _ in rows for t in (a, b)))
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(texts)),
                      encoding="utf-8")
    code, out, err = run_cli(["index", "build", "--model", model, "--corpus", corpus, "--out", tmp_path / "idx"])
    assert code == 0, err
    code, out, err = run_cli(["search", "--index", tmp_path / "idx", "--query", rows[0][0], "-k", "2", "--explain"])
    assert code == 0, err
    assert "re-ranked by the learned pair model" in out and "first stage" in out and "re-ranked:" in out
    code, out, err = run_cli(["search", "--model", model, "--corpus", corpus, "--query", rows[0][0], "-k", "2",
                              "--json"])
    assert code == 0, err
    assert json.loads(out)[0]["scoring"].endswith("re-ranked")
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", pairs, "--columns", "label=0,text_a=1,text_b=2",
                              "--dimensions", "4", "--max-iter", "10", "--no-rerank", "--model", model])
    assert code == 0, err
    assert "Search re-ranking" not in out
    assert learnsim.load(model).rerank is None
    code, out, err = run_cli(["fit", "--method", "mcd", "--input", corpus, "--no-rerank", "--model", model])
    assert code == 2 and "--no-rerank" in err


def test_match_reports_the_first_stage_similarity_of_a_reranked_hit(fitted, tmp_path):
    """learnsim match --index: a re-ranked hit's "similarity" is its first-stage similarity,
    not the re-ranker's probability (which has its own key)."""
    from conftest import run_cli

    result, rows, texts = fitted
    model = tmp_path / "m.npz"
    result.pipeline.save(model)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(texts)),
                      encoding="utf-8")
    assert run_cli(["index", "build", "--model", model, "--corpus", corpus, "--out", tmp_path / "idx"])[0] == 0
    code, out, err = run_cli(["match", "--index", tmp_path / "idx", "--text", rows[0][0], "--json"])
    assert code == 0, err
    index = Index.open(tmp_path / "idx")
    try:
        hits = {h["id"]: h for h in index.search(rows[0][0], k=10)}
    finally:
        index.close()
    duplicates = json.loads(out)[0]["duplicates"]
    assert duplicates                        # the text itself, at least
    for dup in duplicates:
        assert dup["similarity"] == pytest.approx(hits[dup["id"]]["first_stage_score"])


def test_first_stage_neighbours_prepare_the_scorer_only_when_needed():
    """_neighbours takes a scorer prepared or not, and gives each row's k best other rows, best
    first, ties to the lower index: as a full sort of the first stage's closeness does."""
    from learnsim.datasets import make_clustered_corpus
    from learnsim.film import FILM
    from learnsim.matching._rerank import _neighbours
    from learnsim.scorer import Scorer
    from learnsim.text import TextVectorizer

    corpus = make_clustered_corpus(n_clusters=5, docs_per_cluster=8, vocab_size=1000, random_state=2)
    X = TextVectorizer(norm="l2", dtype=np.float64).fit_transform(corpus.data)
    film = FILM(n_components=4, max_iter=20, baseline_holdout=None, random_state=0).fit(X, corpus.target)
    rows = np.array([0, 7, 19, 33])
    full = Scorer(film).prepare(X).closeness(X[rows])
    full[np.arange(len(rows)), rows] = -np.inf
    expected = np.argsort(-full, axis=1, kind="stable")[:, :5]
    unprepared = Scorer(film)
    np.testing.assert_array_equal(_neighbours(unprepared, X, rows, 5), expected)
    assert unprepared.corpus is X                      # prepared on first need
    np.testing.assert_array_equal(_neighbours(unprepared, X, rows, 5), expected)
