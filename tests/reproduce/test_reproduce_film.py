"""The quick reproduction of paper 001 (FILM) end to end, and its helpers (no corpus needed)."""
import json

import numpy as np
import pytest

from conftest import require_corpus
from learnsim.reproduce import EXPERIMENTS
from learnsim.reproduce.film import _drop_empty, _subsample
from learnsim.reproduce.records import FIELDS, MEASURES
from learnsim.supervision import Pairs


def test_film_is_registered():
    assert EXPERIMENTS["film"] == "learnsim.reproduce.film"


def test_subsample_reindexes_pairs_onto_their_texts():
    texts = ["a", "b", "c", "d", "e"]
    pairs = Pairs(np.array([[0, 1], [2, 3], [3, 4], [0, 4]]), labels=[True, False, True, False])
    new_texts, sub = _subsample(pairs, texts, 2, np.random.default_rng(0))
    assert sub.indices.shape == (2, 2)
    assert len(new_texts) == len(np.unique(sub.indices)) and sub.indices.max() == len(new_texts) - 1
    # every kept pair still joins the same two texts with the same label
    originals = {(texts[a], texts[b]): lab for (a, b), lab in zip(pairs.indices, pairs.labels)}
    for (a, b), lab in zip(sub.indices, sub.labels):
        assert originals[(new_texts[a], new_texts[b])] == lab


def test_subsample_keeps_scores_of_graded_pairs():
    pairs = Pairs(np.array([[0, 1], [2, 3]]), scores=[4.5, 1.0])
    new_texts, sub = _subsample(pairs, ["w", "x", "y", "z"], 5, np.random.default_rng(0))
    assert sub.is_graded and sorted(sub.scores) == [1.0, 4.5] and len(new_texts) == 4


def test_drop_empty_removes_triplets_touching_empty_rows():
    T = np.array([[0, 1, 2], [3, 1, 0], [1, 0, 4]])
    assert _drop_empty(T, np.array([3])).tolist() == [[0, 1, 2], [1, 0, 4]]
    assert _drop_empty(T, np.array([], dtype=int)).shape == (3, 3)


@pytest.mark.corpus
@pytest.mark.slow
def test_quick_film_reproduction(tmp_path):
    for corpus in ("quora-sample/dev.tsv", "quora-sample/test.tsv", "stsbenchmark/sts-train.csv",
                   "stsbenchmark/sts-test.csv"):
        require_corpus(corpus)
    from conftest import shared_data_dir
    from learnsim.reproduce import run
    res = run("film", quick=True, out_dir=tmp_path, data_dir=shared_data_dir())
    for name in ("film.md", "film.json"):
        assert (tmp_path / name).stat().st_size > 0
    records = json.loads((tmp_path / "film.json").read_text())
    assert records and all(set(r) == set(FIELDS) and r["measure"] in MEASURES for r in records)
    methods = {(r["experiment"], r["method"]) for r in records}
    assert {("quora", "cosine"), ("quora", "cosine-knn"), ("quora", "lsi-d50"), ("quora", "lsi-d50+cos"),
            ("quora", "film-d50"), ("quora", "film-knn-d50"), ("quora", "film-d50+cos"),
            ("sts", "cosine"), ("sts", "film-d50"), ("sts", "film-d50+cos"), ("sts", "lsi-d50+cos")} <= methods
    for r in records:
        assert r["value"] is not None, r
        if r["measure"] == "accuracy":
            assert 0.5 < r["value"] <= 1.0, r        # balanced test pairs: chance is 0.5
        if r["measure"] == "log_loss":
            assert 0.0 < r["value"] < 1.0, r
        if r["measure"] in ("pearson", "spearman"):
            assert 0.2 < r["value"] <= 1.0, r
        if r["measure"] in ("input_weight", "tpr", "tnr"):
            assert 0.0 <= r["value"] <= 1.0, r
    # tf.idf cosine on STS-B test is a well-known number (about 0.7 Pearson)
    assert 0.6 < res.value(experiment="sts", setting="test", method="cosine", measure="pearson") < 0.8
    # the mixed rule is chosen on validation pairs, so it can lose to its parts on test, but on
    # the quick sample it must at least not fall behind the tf.idf cosine it contains
    value = lambda exp, method, measure: res.value(experiment=exp, setting="test", method=method, measure=measure)
    assert value("quora", "film-d50+cos", "accuracy") >= value("quora", "cosine", "accuracy")
    assert value("sts", "film-d50+cos", "pearson") >= value("sts", "cosine", "pearson") - 0.005
    report = (tmp_path / "film.md").read_text()
    assert "## Summary" in report and "| `film-d50+cos` |" in report and "Figure 4 analogue" in report
    for png in ("film_quora_loss.png", "film_quora_knn.png", "film_quora_dimension.png", "film_quora_timing.png"):
        assert (tmp_path / png).stat().st_size > 0
