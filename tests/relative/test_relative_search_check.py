"""Relative comparisons used for search are checked as search is used (issue 42): each anchor
whose triplets were held out searches the collection for the texts its triplets put closer, under
the weights learned without it and under the strongest of BM25 and the tf.idf cosine; a fit that
does not beat it is that baseline and serves its ranking."""
import json
import warnings

import numpy as np
import pytest

import learnsim.fitting
from learnsim.baseline import BaselineGain
from conftest import run_cli


def _corpus(seed=0):
    from learnsim.datasets import make_clustered_corpus

    c = make_clustered_corpus(n_clusters=6, docs_per_cluster=25, vocab_size=400, topic_words=15, random_state=seed)
    return [str(t) for t in c.data], np.asarray(c.target)


def _topic_triplets(y, per_anchor=4, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for a in range(len(y)):
        same = np.flatnonzero((y == y[a]) & (np.arange(len(y)) != a))
        other = np.flatnonzero(y != y[a])
        rows += [(a, int(rng.choice(same)), int(rng.choice(other))) for _ in range(per_anchor)]
    return np.asarray(rows)


def _fit(texts, T, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return learnsim.fitting.fit(texts, triplets=T, **kw)


def test_held_out_anchors_search_the_collection_against_the_strongest_baseline():
    texts, y = _corpus()
    result = _fit(texts, _topic_triplets(y))
    report = BaselineGain.from_dict(result.report["search_baseline_gain"])
    assert report.measure == "nDCG@10" and report.n_units == result.report["validation_anchors"]
    assert f"searching {len(texts)} documents" in result.report["held_out"]
    assert set(result.report["baseline_scores"]) == {"bm25", "cosine"}
    # the strongest baseline is chosen on every anchor with a text its triplets put closer, the
    # training ones too (more than the held-out ones), and the report says so
    assert report.detail["strongest_chosen_on"] > report.n_units
    chosen = report.detail["strongest_baseline"]
    assert report.detail[f"judged_{chosen}"] == max(report.detail["judged_bm25"], report.detail["judged_cosine"])
    # topic words among shared background words: the learned weights find a held-out anchor's topic
    assert report.status == "learned" and report.ci_low > 0 and result.report["model"] == "learned"
    assert result.pipeline.scoring == "learned distance"


def test_weights_that_do_not_beat_the_strongest_baseline_end_as_it_and_serve_its_ranking():
    from learnsim._baseline_models import baseline_pipeline

    texts, y = _corpus(1)
    # the triplets say nothing: the closer and farther texts are drawn at random, so neither the
    # learned weights nor W = 1 can beat BM25 or the cosine on what they call closer
    rng = np.random.default_rng(1)
    T = np.array([(a, *rng.choice(np.delete(np.arange(len(texts)), a), 2, replace=False))
                  for a in range(len(texts)) for _ in range(3)])
    result = _fit(texts, T)
    report = BaselineGain.from_dict(result.report["search_baseline_gain"])
    assert report.status == "baseline"
    strongest = report.detail["strongest_baseline"]
    assert result.report["model"] == strongest
    assert result.pipeline.scoring == {"bm25": "BM25", "cosine": "tf.idf cosine"}[strongest]
    expected = baseline_pipeline(strongest, texts)
    for query in (texts[0], texts[40], "an unseen query " + texts[90][:40]):
        got = [h["corpus_id"] for h in result.pipeline.search(query, texts, k=10)]
        assert got == [h["corpus_id"] for h in expected.search(query, texts, k=10)]


def test_queries_that_are_only_anchors_search_the_documents_and_new_documents_are_cold():
    texts, y = _corpus(2)
    n = len(texts)
    rng = np.random.default_rng(2)
    queries, rows = [], []
    for q in range(60):
        topic = q % 6
        members = np.flatnonzero(y == topic)
        # a query: a few words of one of its topic's documents
        queries.append(" ".join(texts[int(rng.choice(members))].split()[:12]))
        for _ in range(3):
            rows.append((n + q, int(rng.choice(members)), int(rng.choice(np.flatnonzero(y != topic)))))
    result = _fit(texts + queries, np.asarray(rows))
    report = BaselineGain.from_dict(result.report["search_baseline_gain"])
    # the collection is the documents alone: the queries, only anchors, are not searched
    assert f"searching {n} documents" in result.report["held_out"]
    # documents no training triplet names are the cold part of the held-out queries
    assert report.cold is not None and report.cold["n_units"] > 0
    assert result.report["model"] in ("learned", "bm25", "cosine")


def test_unchecked_keeps_the_relative_model():
    texts, y = _corpus(3)
    result = _fit(texts, _topic_triplets(y, seed=3), baseline_holdout=None)
    assert "search_baseline_gain" not in result.report and result.pipeline.scoring == "learned distance"


def test_cli_prints_the_search_check(tmp_path):
    texts, y = _corpus(4)
    docs = tmp_path / "docs.tsv"
    docs.write_text("id\ttext\n" + "".join(f"d{i}\t{t}\n" for i, t in enumerate(texts)), encoding="utf-8")
    triplets = tmp_path / "triplets.tsv"
    triplets.write_text("".join(f"d{a}\td{b}\td{c}\n" for a, b, c in _topic_triplets(y, seed=4)), encoding="utf-8")
    model = tmp_path / "rel.npz"
    code, out, err = run_cli(["fit", "--method", "relative", "--input", docs, "--triplets", triplets,
                              "--model", model])
    assert code == 0, err
    assert "Search against the strongest baseline: nDCG@10 on" in out
    code, out, err = run_cli(["fit", "--method", "relative", "--input", docs, "--triplets", triplets,
                              "--model", model, "--json"])
    summary = json.loads(out)
    assert summary["search_baseline_gain"]["detail"]["strongest_baseline"] in ("bm25", "cosine")


def test_each_held_out_anchor_is_searched_at_a_C_chosen_without_it(monkeypatch):
    # the refit's C is the best on every held-out anchor; the search check scored a metric at that
    # C on the same anchors, a choice among C_GRID made with them in view. Rigged held-out scores:
    # one C best on one half of the held-out anchors, another best on the other half and overall
    from learnsim.baseline import cross_folds
    from learnsim.relative import recipe

    texts, y = _corpus()
    real_scores, real_probe, got = recipe._held_out_scores, recipe._search_probe, {}

    def rigged(X, fit_T, valid_T, seed, prior="zero", normalize=False):
        rows = np.full_like(real_scores(X, fit_T, valid_T, seed, prior, normalize), 0.5)
        (a, _), (b, _) = cross_folds(np.unique(valid_T[:, 0]).size, random_state=seed)
        rows[1 + 2, a] = 1.0
        rows[1 + 5, b], rows[1 + 5, a] = 1.0, 0.9
        got["halves"] = (a, b)
        return rows

    def spy(*args, **kwargs):
        got["probe"] = real_probe(*args, **kwargs)
        return got["probe"]

    monkeypatch.setattr(recipe, "_held_out_scores", rigged)
    monkeypatch.setattr(recipe, "_search_probe", spy)
    result = _fit(texts, _topic_triplets(y))
    assert result.report["C"] == recipe.C_GRID[5]          # the refit: chosen on every held-out anchor
    fit_T, valid_T, probes = got["probe"]
    anchors = np.unique(valid_T[:, 0])
    a, b = got["halves"]
    C_of = {int(x): m.C for held, m in probes for x in held}
    assert set(C_of) == set(anchors.tolist())
    # each half at the C the other half chose: C_GRID[5] for the first, C_GRID[2] for the second
    assert {C_of[int(x)] for x in anchors[a]} == {recipe.C_GRID[5]}
    assert {C_of[int(x)] for x in anchors[b]} == {recipe.C_GRID[2]}
    assert "search_baseline_gain" in result.report
