"""The small synthetic collection and the fitted models the index tests share (fitted once per
test session, a few seconds in all); tests/index/test_index_models.py checks that each really
is the family it stands for.

Families: MCD and FILM from clusters, FILM from duplicate pairs (mixed cosine, duplicate rule),
relative comparisons from triplets, LinkLearn from links and its LearnedBM25 variant.
"""
from __future__ import annotations

import functools
import random
import warnings

import numpy as np

FAMILIES = ("mcd", "film", "film_pairs", "relative", "linklearn", "bm25")
N_CLUSTERS, PER_CLUSTER = 6, 20
# a small FILM fits in well under a second
FILM_OPTIONS = {"n_components": 20}


@functools.lru_cache(maxsize=None)
def corpus():
    """(texts, topics, ids, metadata) of the collection the indexes are built from."""
    from learnsim.datasets import make_clustered_corpus

    c = make_clustered_corpus(n_clusters=N_CLUSTERS, docs_per_cluster=PER_CLUSTER, vocab_size=400,
                              topic_words=15, random_state=0)
    texts, topics = [str(t) for t in c.data], [int(v) for v in np.asarray(c.target)]
    ids = [f"d{i}" for i in range(len(texts))]
    metadata = [{"topic": t, "half": "even" if i % 2 == 0 else "odd", "n": i} for i, t in enumerate(topics)]
    return texts, topics, ids, metadata


def negation_collection(n_groups=160, seed=0):
    """Groups of three texts: a sentence, a duplicate with one word replaced, and the sentence
    with "not" added, closer to it in cosine than the duplicate but not a duplicate. Labelled
    pairs: (sentence, duplicate, 1) and (sentence, negated, 0)."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(400)]
    rows = []
    for _ in range(n_groups):
        base = list(rng.choice(vocab, size=8, replace=False))
        dup = base.copy()
        dup[rng.integers(8)] = vocab[rng.integers(len(vocab))]
        dup[rng.integers(8)] = vocab[rng.integers(len(vocab))]
        neg = base.copy()
        neg.insert(int(rng.integers(8)), "not")
        rows += [(" ".join(base), " ".join(dup), 1), (" ".join(base), " ".join(neg), 0)]
    return rows


def near_duplicate(text, seed, drop=0.1):
    """``text`` with about ``drop`` of its words left out (at least one)."""
    rng = random.Random(seed)
    words = text.split()
    gone = set(rng.sample(range(len(words)), max(1, int(drop * len(words)))))
    return " ".join(w for i, w in enumerate(words) if i not in gone)


def topic_triplets(y, rng, count=400):
    """``count`` triplets (anchor, a document of its topic, one of another topic) over labels ``y``."""
    n = len(y)
    triplets = []
    for _ in range(count):
        a = int(rng.integers(n))
        same = [i for i in range(n) if y[i] == y[a] and i != a]
        diff = [i for i in range(n) if y[i] != y[a]]
        triplets.append((a, int(rng.choice(same)), int(rng.choice(diff))))
    return triplets


@functools.lru_cache(maxsize=None)
def model(family):
    """The fitted :class:`learnsim.pipeline.Pipeline` of a family, on :func:`corpus`."""
    import learnsim

    texts, y, _, _ = corpus()
    n = len(texts)
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if family == "mcd":
            return learnsim.fit(texts, clusters=y)
        if family == "film":
            # the family: FILM from clusters, its input weight chosen on held-out clusters (what the
            # fit's search check keeps on these 120 texts, BM25, is tested in tests/test_fitting.py)
            from learnsim.fitting import fit

            result = fit(texts, clusters=y, method="film", **FILM_OPTIONS)
            if result.report.get("model", "learned") != "learned":
                result = fit(texts, clusters=y, method="film", baseline_holdout=None, **FILM_OPTIONS)
            return result.pipeline
        if family == "film_pairs":
            # duplicates: two documents of one topic (so the validated search mixes the cosines)
            pairs = []
            while len(pairs) < 300:
                a, b = (int(v) for v in rng.integers(n, size=2))
                if a != b and (y[a] == y[b]) == (len(pairs) % 2 == 0):
                    pairs.append((a, b, int(y[a] == y[b])))
            fitted = learnsim.fit(texts, pairs=pairs, **FILM_OPTIONS)
            # the family this fixture stands for: FILM's cosine mixed with the input cosine (over
            # the collection's vocabulary) by a search rule, whatever the fit's check chose on
            # these few pairs (BM25 here: FILM does not generalise from 120 texts)
            from learnsim.film import SearchRule

            parts = dict(fitted.parts, search=SearchRule(input_weight=0.5))
            parts.pop("lexical", None)
            parts.pop("rerank", None)
            return learnsim.Pipeline.from_parts(parts)
        if family == "relative":
            # the family itself: unchecked as search (on 120 texts its check may end as a baseline)
            return learnsim.fit(texts, triplets=topic_triplets(y, rng), baseline_holdout=None)
        if family in ("linklearn", "bm25"):
            links = []
            for i in range(n):
                same = [j for j in range(n) if y[j] == y[i] and j != i]
                links.extend((i, int(j)) for j in rng.choice(same, 3, replace=False))
            if family == "bm25":
                # the family itself: unchecked (on 120 texts the search check may end as BM25 proper)
                return learnsim.fit(texts, links=links, variant="bm25", baseline_holdout=None)
            # a LinkLearn as its own check leaves it on these 120 texts: fallen back to the tf.idf
            # cosine (its query plan holds the collection's idf), whatever the search check then
            # picks (tests/linklearn/test_linklearn_search_check.py)
            from learnsim._baseline_models import baseline_pipeline

            fitted = learnsim.fit(texts, links=links)
            if type(fitted.metric).__name__ == "LinkLearn":
                return fitted
            return baseline_pipeline("cosine", texts)
    raise ValueError(f"unknown family {family!r}")


def hugging_face_datasets():
    """The Hugging Face ``datasets`` module, or a skip: ``tests/datasets`` (this suite's folder)
    is importable as ``datasets`` too when the package is not installed, so the import alone does
    not tell."""
    import pytest

    hf = pytest.importorskip("datasets", reason="Hugging Face datasets is not installed (pip install datasets)")
    if not hasattr(hf, "Dataset"):
        pytest.skip("Hugging Face datasets is not installed (pip install datasets); 'datasets' is the tests' folder")
    return hf


def staged_index(directory):
    """An index of :func:`corpus` served by the BM25 model (version 1) with the MCD model staged
    as version 2 (a candidate to interleave), built at ``directory / "idx"``; its path."""
    from learnsim.index import Index

    texts, _, ids, meta = corpus()
    path = directory / "idx"
    with Index.build(path, model("bm25"), texts, ids, meta) as index:
        assert index.stage(model("mcd"), source="test") == 2
    return path
