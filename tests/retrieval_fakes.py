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


BEIR_TOPICS = {"pw": "password reset login account email", "bill": "charged twice refund invoice card",
               "crash": "app crashes start error screen", "ship": "parcel delivery courier late address"}


def write_beir_folder(root, seed=0):
    """A small BEIR folder in ``root``: corpus.jsonl (60 documents ``{topic}-{i}`` with titles
    ``"{topic} note {i}"`` and an empty metadata object), queries.jsonl (32 queries), qrels/train.tsv
    (24 queries: grades 2, 1, 1 on their topic's documents and a 0 on another topic's) and
    qrels/test.tsv (the 8 others). Returns ``root``."""
    import json

    rng = np.random.default_rng(seed)
    (root / "qrels").mkdir(exist_ok=True)
    docs, queries, train, test = [], [], [], []
    for t, words in BEIR_TOPICS.items():
        words = words.split()
        for i in range(15):
            docs.append({"_id": f"{t}-{i}", "title": f"{t} note {i}", "text": " ".join(rng.choice(words, 8)),
                         "metadata": {}})
        for j in range(8):
            qid = f"q-{t}-{j}"
            queries.append({"_id": qid, "text": " ".join(rng.choice(words, 2, replace=False)), "metadata": {}})
            judged = rng.choice(15, 4, replace=False)
            rows = [(qid, f"{t}-{judged[0]}", 2), (qid, f"{t}-{judged[1]}", 1), (qid, f"{t}-{judged[2]}", 1)]
            other = [o for o in BEIR_TOPICS if o != t][j % 3]
            rows.append((qid, f"{other}-{judged[3]}", 0))
            (test if j >= 6 else train).extend(rows)
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    for name, rows in (("train", train), ("test", test)):
        (root / "qrels" / f"{name}.tsv").write_text(
            "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t{g}\n" for q, d, g in rows), encoding="utf-8")
    return root
