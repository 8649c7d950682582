"""A small retrieval collection where remembering the judgements pays on the judged documents and
costs on the others, so that a check that holds out only pairs is fooled and one that holds out
queries and documents is not (issue 42).

Each *popular* document is asked for by queries made of its own nickname words, which its text
never holds, plus one of its words: only a learner that remembers which documents those queries
judged finds it. Every other document is asked for by three of its own words: lexical search finds
it well. A map learned from the judgements (the nicknames) helps the first kind of query (warm)
and pulls every query towards the popular documents (cold).
"""
from __future__ import annotations

import numpy as np


def nickname_collection(n_topics=6, words_per_topic=30, n_docs=200, n_popular=30, queries_per_popular=8,
                        n_cold=60, seed=0):
    """(documents, training (query, document index) pairs, warm test pairs, cold test pairs)."""
    rng = np.random.default_rng(seed)
    topics = [[f"t{t}w{i}" for i in range(words_per_topic)] for t in range(n_topics)]
    doc_topic = rng.integers(0, n_topics, n_docs)
    docs = [" ".join(rng.choice(topics[doc_topic[d]], 15)) for d in range(n_docs)]
    nick = {d: [f"n{d}a", f"n{d}b", f"n{d}c"] for d in range(n_popular)}

    def popular(d):
        return " ".join(list(rng.choice(nick[d], 2, replace=False)) + [str(rng.choice(docs[d].split()))])

    def plain(d):
        return " ".join(rng.choice(docs[d].split(), 3, replace=False))

    train = [(popular(d), d) for d in range(n_popular) for _ in range(queries_per_popular)]
    warm = [(popular(d), d) for d in range(n_popular) for _ in range(2)]
    cold = [(plain(int(d)), int(d)) for d in rng.choice(np.arange(n_popular, n_docs), n_cold, replace=False)]
    return docs, train, warm, cold


def ndcg(pipeline_or_scores, queries, docs):
    """Mean nDCG@10 of (query, relevant document index) pairs: a Pipeline's similarity over
    ``docs``, or a score matrix."""
    from learnsim.baseline import ndcg_at_k

    S = pipeline_or_scores
    if hasattr(S, "similarity"):
        S = S.similarity([q for q, _ in queries], docs)
    columns = np.tile(np.arange(len(docs)), (len(queries), 1))
    return float(np.mean(ndcg_at_k(np.asarray(S), columns, [{d: 1.0} for _, d in queries])))
