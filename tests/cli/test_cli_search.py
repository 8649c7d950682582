"""``learnsim search`` scores with the similarity each model was trained and validated for.

FILM: the cosine in its learned space, mixed with the input cosine by the weight chosen on
held-out pairs; not the Euclidean distance in the learned space, which ranks the texts whose
embedding is short first ("How much wood would a woodchuck chuck..." for a question about
learning Python).
"""
from __future__ import annotations

import json

import numpy as np

import learnsim
import pytest

from conftest import require_corpus
from learnsim.persistence import load
from learnsim.search import top_k
from conftest import run_cli


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
    assert film > euclid + 0.1, (film, euclid)
    # never below the baseline: a re-ranker kept on held-out duplicates beats the cosine on the
    # test duplicates; without one, a search rule that fell back is the input cosine exactly and
    # one that kept the learned part beats the cosine
    if "rerank" in parts:
        assert results[0]["scoring"].endswith("re-ranked")
        assert parts["rerank"].baseline_gain.status == "learned"
        assert film > cosine + 0.03, (film, cosine)
    elif parts["search"].input_weight == 1.0:
        assert parts["search"].baseline_gain.status == "baseline"
        assert film == pytest.approx(cosine), (film, cosine)
    else:
        assert film > cosine, (film, cosine)


def _texts_file(path, texts):
    path.write_text("".join(f"d{i}\t{t}\n" for i, t in enumerate(texts)), encoding="utf-8")
    return path


def test_film_search_ranks_by_cosine_in_the_learned_space(tmp_path):
    """A FILM fitted on clusters with its held-out check turned off (no validated mix): hits are
    ordered by FILM.similarity, the cosine in the learned space, and the output says so."""
    from learnsim.datasets import make_clustered_corpus

    corpus = make_clustered_corpus(n_clusters=4, docs_per_cluster=10, random_state=2)
    train = tmp_path / "train.tsv"
    train.write_text("".join(f"{corpus.target[i]}\t{t}\n" for i, t in enumerate(corpus.data)), encoding="utf-8")
    model = tmp_path / "film.npz"
    assert run_cli(["fit", "--method", "film", "--input", train, "--model", model, "--dimensions", "4",
                    "--max-iter", "20", "--baseline-holdout", "none"])[0] == 0
    docs = _texts_file(tmp_path / "docs.tsv", corpus.data)
    code, out, err = run_cli(["search", "--model", model, "--corpus", docs, "--query", corpus.data[3], "-k", "5",
                              "--json"])
    assert code == 0, err
    result = json.loads(out)[0]
    assert result["scoring"] == "cosine in the learned space"
    parts = load(model)
    X = parts["vectorizer"].transform(corpus.data)
    expected = parts["metric"].similarity(parts["vectorizer"].transform([corpus.data[3]]), X)[0]
    assert [h["index"] for h in result["hits"]] == list(np.argsort(-expected, kind="stable")[:5])
    np.testing.assert_allclose([h["similarity"] for h in result["hits"]], np.sort(expected)[::-1][:5], atol=1e-9)
    code, out, _ = run_cli(["search", "--model", model, "--corpus", docs, "--query", corpus.data[3]])
    assert out.startswith("Scored by cosine in FILM's learned space") and "similarity" in out


def test_film_search_on_pairs_uses_the_validated_mix(tmp_path):
    from learnsim.datasets import make_clustered_corpus
    from learnsim.film.hybrid import hybrid_rows

    corpus = make_clustered_corpus(n_clusters=5, docs_per_cluster=10, random_state=6)
    rng = np.random.default_rng(0)
    rows = []
    for k in range(150):
        i = int(rng.integers(len(corpus.data)))
        j = int(rng.choice(np.flatnonzero(corpus.target == corpus.target[i]))) if k % 2 else \
            int(rng.integers(len(corpus.data)))
        if i != j:
            rows.append(f"{int(corpus.target[i] == corpus.target[j])}\t{corpus.data[i]}\t{corpus.data[j]}\t{k}\n")
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("".join(rows), encoding="utf-8")
    model = tmp_path / "film.npz"
    # the first stage alone (a re-ranker, kept or not, is tested in tests/matching/test_rerank.py)
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", pairs, "--model", model, "--dimensions", "4",
                              "--max-iter", "20", "--no-rerank", "--json"])
    assert code == 0, err
    w = json.loads(out)["search_input_weight"]
    docs = _texts_file(tmp_path / "docs.tsv", corpus.data)
    code, out, err = run_cli(["search", "--model", model, "--corpus", docs, "--query", corpus.data[0], "-k", "4",
                              "--json"])
    result = json.loads(out)[0]
    parts = load(model)
    assert parts["search"].input_weight == w
    vec, film = parts["vectorizer"], parts["metric"]
    X, q = vec.transform(corpus.data), vec.transform([corpus.data[0]])
    # the input cosine over the corpus' own vocabulary (issue 32, part 6)
    pipeline = learnsim.load(model)
    lam = parts["search"].lexical_weight or 0.0
    if lam:
        # BM25 mixed in (issue 42): lambda BM25 / Z(q) over the corpus' words + (1 - lambda) FILM's cosine
        from bm25_models import normalised_bm25, unit

        learned = (unit(film.transform(q)) @ unit(film.transform(X)).T)[0]
        expected = lam * normalised_bm25([corpus.data[0]], list(corpus.data))[0] + (1 - lam) * learned
    elif w > 0:
        lexical = pipeline.lexical_vectorizer(pipeline.collection_statistics(list(corpus.data)))
        LX, Lq = lexical.transform(corpus.data), lexical.transform([corpus.data[0]])
        expected = (hybrid_rows(Lq, film.transform(q), w) @ hybrid_rows(LX, film.transform(X), w).T).toarray()[0]
    else:
        expected = film.similarity(q, X)[0]
    np.testing.assert_allclose([h["similarity"] for h in result["hits"]], np.sort(expected)[::-1][:4], atol=1e-9)


def test_a_query_of_unknown_words_matches_no_document(tmp_path):
    """With --model --corpus, with --index, and in a run file: no hits for a query with no word of
    the model's vocabulary (not every document at the same distance), a note on stderr saying so,
    and the other queries answered."""
    from learnsim.datasets import make_clustered_corpus

    corpus = make_clustered_corpus(n_clusters=4, docs_per_cluster=10, random_state=2)
    train = tmp_path / "train.tsv"
    train.write_text("".join(f"{corpus.target[i]}\t{t}\n" for i, t in enumerate(corpus.data)), encoding="utf-8")
    model = tmp_path / "mcd.npz"
    assert run_cli(["fit", "--input", train, "--model", model, "--baseline-holdout", "none"])[0] == 0
    docs = _texts_file(tmp_path / "docs.tsv", corpus.data)
    queries = ["zqxv wuffle", corpus.data[3]]
    args = ["--query", queries[0], "--query", queries[1], "-k", "3", "--json"]
    code, out, err = run_cli(["search", "--model", model, "--corpus", docs, *args])
    assert code == 0, err
    assert [len(r["hits"]) for r in json.loads(out)] == [0, 3]
    assert "1 query(s) have no word of the model's vocabulary (e.g. 'zqxv wuffle')" in err
    code, out, _ = run_cli(["search", "--model", model, "--corpus", docs, "--query", queries[0]])
    assert code == 0 and out.rstrip().endswith("(no document matches)")
    index = tmp_path / "idx"
    assert run_cli(["index", "build", "--model", model, "--corpus", docs, "--out", index])[0] == 0
    code, out, err = run_cli(["search", "--index", index, *args])
    assert code == 0, err
    assert [len(r["hits"]) for r in json.loads(out)] == [0, 3]
    assert "1 query(s) have no word of the model's vocabulary (e.g. 'zqxv wuffle')" in err
    assert "--cjk-unigrams" not in err
    # a lone CJK character: the hint names what would make it a word
    code, out, err = run_cli(["search", "--index", index, "--query", "雨"])
    assert code == 0 and out.rstrip().endswith("(no document matches)")
    assert "(e.g. '雨')" in err and "--cjk-unigrams" in err
    # a filter that matches nothing is not said to be unknown words
    code, out, err = run_cli(["search", "--index", index, "--query", queries[1], "--filter", '{"x": 1}'])
    assert code == 0 and "vocabulary" not in err
    qfile = tmp_path / "queries.tsv"
    qfile.write_text(f"q1\t{queries[0]}\nq2\t{queries[1]}\n", encoding="utf-8")
    for source in (["--model", model, "--corpus", docs], ["--index", index]):
        run = tmp_path / "run.txt"
        assert run_cli(["search", *source, "--queries", qfile, "--run", run, "-k", "3"])[0] == 0
        assert [line.split()[0] for line in run.read_text().splitlines()] == ["q2"] * 3


def test_a_k_beyond_the_collection_says_what_is_shown(tmp_path):
    """-k 10 on two documents said "showing all of them" above the one hit of a lexical scoring
    (only the documents sharing a word with the query are ranked); it says so now, and "all of
    them" where all are shown."""
    from learnsim._baseline_models import baseline_pipeline

    docs = tmp_path / "two_docs.jsonl"
    docs.write_text('{"id": "a", "text": "cats purr"}\n{"id": "b", "text": "dogs bark"}\n', encoding="utf-8")
    model = tmp_path / "bm25.npz"
    baseline_pipeline("bm25", ["cats purr", "dogs bark", "birds sing"]).save(model)
    index = tmp_path / "idx"
    assert run_cli(["index", "build", "--model", model, "--corpus", docs, "--out", index])[0] == 0
    for source in (["--model", model, "--corpus", docs], ["--index", index]):
        code, out, err = run_cli(["search", *source, "--query", "cats", "-k", "10", "--json"])
        assert code == 0 and [h["id"] for h in json.loads(out)[0]["hits"]] == ["a"], err
        assert "all of them" not in err and "share a word with it" in err and ": 1 of them" in err, err
        code, out, err = run_cli(["search", *source, "--query", "cats dogs", "-k", "10", "--json"])
        assert code == 0 and len(json.loads(out)[0]["hits"]) == 2 and "showing all of them" in err, err


@pytest.mark.parametrize("content", ["", "\n  \n", "id\ttext\n"])
def test_a_queries_file_without_a_query_says_queries(tmp_path, content):
    # an empty --queries file (or a header alone) was refused as 'contains no documents'
    from learnsim._baseline_models import baseline_pipeline

    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"id": "a", "text": "cats purr"}\n', encoding="utf-8")
    model = tmp_path / "bm25.npz"
    baseline_pipeline("bm25", ["cats purr", "dogs bark"]).save(model)
    queries = tmp_path / "queries.tsv"
    queries.write_text(content, encoding="utf-8")
    code, out, err = run_cli(["search", "--model", model, "--corpus", docs, "--queries", queries])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert "--queries" in lines[0] and "queries.tsv" in lines[0] and "no queries" in lines[0], lines[0]
    assert "documents" not in lines[0], lines[0]
