"""The models and reference scores the tests of normalised BM25 mixed into a model's search share
(issue 42; tests/test_pipeline_bm25.py, tests/index/test_index_bm25.py): a collection of topic
texts, three dense scorings (the fake encoder's cosine, FILM over its vectors, FILM over term
vectors), each with BM25 mixed in, and BM25 computed as ``learnsim evaluate`` computes it."""
from __future__ import annotations

import functools
import warnings

import numpy as np
import scipy.sparse as sp

from encoder_fakes import HashedWordEncoder, topic_texts
from learnsim.film import FILM, SearchRule
from learnsim.pipeline import Pipeline
from learnsim.text import TextVectorizer
from learnsim.text.bm25 import BM25

QUERIES = ["the cat and the dog in the rain", "football match today", "rain rain snow", "nothing known here",
           "bread and cheese for the coach"]
MODELS = ("encoder_cosine", "encoder_film", "term_film")


def collection():
    """32 short texts of four topics."""
    return topic_texts(per_topic=8, seed=4)[0]


def stem():
    """Porter stems where PyStemmer is installed (the rule of learnsim evaluate's baselines)."""
    try:
        import Stemmer  # noqa: F401
    except ImportError:
        return None
    return "porter"


def evaluate_counts(texts):
    """The term counts of learnsim evaluate's baselines, fitted on the collection ``texts``."""
    return TextVectorizer("tf", stop_words="english", stem=stem(), dtype=np.float64).fit(texts)


def bm25_by_hand(queries, corpus):
    """(BM25 scores, Z(q)) of the queries on the collection, as learnsim evaluate scores BM25."""
    vec = evaluate_counts(corpus)
    D = sp.csr_matrix(vec.transform(corpus), dtype=np.float64)
    Q = sp.csr_matrix(vec.transform(queries), dtype=np.float64)
    bm25 = BM25(k1=1.5, b=0.6, dtype=np.float64).fit(D)
    B = Q.copy()
    B.data[:] = 1.0
    return np.asarray(bm25.score(Q), dtype=np.float64), 2.5 * np.asarray(B @ bm25.idf_).ravel()


def normalised_bm25(queries, corpus):
    """BM25 / Z(q) (0 for a query without a word of the collection)."""
    S, z = bm25_by_hand(queries, corpus)
    return S / np.where(z > 0, z, 1.0)[:, None]


def unit(M):
    """Rows scaled to unit length (dense float64)."""
    M = np.asarray(M.toarray() if sp.issparse(M) else M, dtype=np.float64)
    return M / np.maximum(np.linalg.norm(M, axis=1, keepdims=True), 1e-300)


@functools.lru_cache(maxsize=None)
def dense_model(name):
    """(the dense part's Pipeline, its search rule's input weight, the dense similarity of
    texts_a x texts_b)."""
    texts, labels = topic_texts(per_topic=8, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "encoder_cosine":
            p = Pipeline.from_encoder(HashedWordEncoder())
            return p, 1.0, lambda a, b: unit(p.vectorize(a)) @ unit(p.vectorize(b)).T
        if name == "encoder_film":
            enc = HashedWordEncoder()
            film = FILM(n_components=4, max_iter=20, baseline_holdout=None, random_state=0).fit(
                enc.transform(texts).astype(np.float64), labels)
            w = 0.5

            def dense(a, b):
                Xa, Xb = (enc.transform(t).astype(np.float64) for t in (a, b))
                return (w * unit(Xa) @ unit(Xb).T
                        + (1 - w) * unit(film.transform(Xa)) @ unit(film.transform(Xb)).T)
            return Pipeline(enc, film, search=SearchRule(input_weight=w)), w, dense
        vec = TextVectorizer(norm="l2", dtype=np.float64).fit(texts)
        film = FILM(n_components=4, max_iter=20, baseline_holdout=None, random_state=0).fit(vec.transform(texts),
                                                                                           labels)

        def learned(a, b):
            return unit(film.transform(vec.transform(a))) @ unit(film.transform(vec.transform(b))).T
        return Pipeline(vec, film, search=SearchRule(input_weight=0.0)), 0.0, learned


def mixed(name, lam):
    """The dense model of ``name`` with normalised BM25 mixed in at ``lam`` (its "lexical" part
    fitted on other texts: searches take the collection's vocabulary)."""
    dense, w, _ = dense_model(name)
    rule = SearchRule(input_weight=w, lexical_weight=lam, lexical_kind="bm25")
    return Pipeline(dense.vectorizer, dense.metric, search=rule, lexical=evaluate_counts(collection()[:10]))
