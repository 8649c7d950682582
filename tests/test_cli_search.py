"""``learnsim search`` scores with the similarity each model was trained and validated for.

FILM: the cosine in its learned space, mixed with the input cosine by the weight chosen on
held-out pairs; not the Euclidean distance in the learned space, which ranks the texts whose
embedding is short first ("How much wood would a woodchuck chuck..." for a question about
learning Python).
"""
from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest

from conftest import require_corpus
from learnsim import cli
from learnsim.persistence import load
from learnsim.search import top_k


def run_cli(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def _duplicate_components(pairs, n):
    from learnsim.supervision import pairs_to_clusters

    return np.asarray(pairs_to_clusters(pairs, n).labels)


def _recall_at_1(hit_lists, queries, components):
    """Share of the queries whose best hit other than themselves is one of their duplicates."""
    found = 0
    for q, hits in zip(queries, hit_lists):
        best = next(h for h in hits if h != q)
        found += components[best] == components[q] and components[q] >= 0
    return found / len(queries)


@pytest.mark.corpus
@pytest.mark.slow
def test_film_search_beats_tfidf_cosine_on_held_out_quora_duplicates(tmp_path):
    """Fit FILM on the dev pairs of the Quora sample; each test duplicate's first question
    searches the pool of all test questions; recall@1 (its best other hit is a duplicate) of
    FILM's search beats the tf.idf cosine of the same vectoriser, on the same queries."""
    from learnsim.datasets import load_quora_pairs

    dev_path = require_corpus("quora-sample/dev.tsv")
    test_path = require_corpus("quora-sample/test.tsv")
    model = tmp_path / "quora.npz"
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", dev_path, "--model", model,
                              "--dimensions", "50", "--json"])
    assert code == 0, err
    assert json.loads(out)["input_weight"] is not None

    test = load_quora_pairs(test_path)
    texts = list(test.texts)
    corpus = tmp_path / "pool.jsonl"
    with open(corpus, "w", encoding="utf-8") as f:
        for i, text in enumerate(texts):
            f.write(json.dumps({"id": str(i), "text": text}) + "\n")
    components = _duplicate_components(test.pairs, len(texts))
    duplicates = test.pairs.indices[test.pairs.labels]
    queries = duplicates[:1000, 0]
    queries_file = tmp_path / "queries.jsonl"
    with open(queries_file, "w", encoding="utf-8") as f:
        for q in queries:
            f.write(json.dumps({"text": texts[q]}) + "\n")

    code, out, err = run_cli(["search", "--model", model, "--corpus", corpus, "--queries", queries_file,
                              "-k", "2", "--json"])
    assert code == 0, err
    results = json.loads(out)
    assert {r["scoring"] for r in results} == {r["scoring"] for r in results[:1]}
    assert "cosine" in results[0]["scoring"]
    film_hits = [[int(h["id"]) for h in r["hits"]] for r in results]
    film = _recall_at_1(film_hits, queries, components)

    parts = load(model)
    X = parts["vectorizer"].transform(texts)
    cosine_hits = top_k(X[queries], X, 2, metric="cosine", return_scores=False)
    cosine = _recall_at_1(cosine_hits, queries, components)
    E = parts["metric"].transform(X)          # what search did before: Euclid in FILM's space
    euclid = _recall_at_1(top_k(E[queries], E, 2, metric="euclidean", return_scores=False), queries, components)
    print(f"recall@1 on {len(queries)} Quora test duplicates: FILM search {film:.3f}, tf.idf cosine {cosine:.3f}, "
          f"Euclid in FILM's space {euclid:.3f}")
    assert film > cosine, (film, cosine)
    assert film > euclid + 0.1, (film, euclid)
