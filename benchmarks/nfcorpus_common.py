"""Not a benchmark. NFCorpus (BEIR) as the issue-43 benchmarks read it: the collection, the
queries, the training judgements and one split to score, and the nDCG@10 of a score matrix on it."""
from __future__ import annotations

import sys

import numpy as np


def load_nfcorpus(data_dir, split):
    """A namespace of ``ids``, ``texts``, ``queries`` ({id: text}), ``train`` (the training qrels),
    ``judged`` (the ``split`` qrels), ``position`` ({document id: index}), ``query_ids`` and
    ``relevant`` (the judged queries with a relevant document, and their {index: grade}), and
    ``ndcg(S)``; None (with a line on stderr) where the folder is absent."""
    from types import SimpleNamespace

    from learnsim.baseline import ndcg_at_k
    from learnsim.datasets import find_data_dir, read_id_texts, read_qrels, read_queries

    root = find_data_dir(data_dir) / "ir" / "nfcorpus"
    if not root.is_dir():
        print(f"skipped: {root} is absent", file=sys.stderr)
        return None
    ids, texts = read_id_texts(root / "corpus.jsonl.gz")
    queries = read_queries(root / "queries.jsonl")
    train = read_qrels(next(p for p in (root / "qrels" / "train.tsv", root / "qrels" / "train.tsv.gz") if p.exists()))
    judged = read_qrels(root / "qrels" / f"{split}.tsv")
    position = {d: i for i, d in enumerate(ids)}
    query_ids = [q for q in judged if q in queries and any(g > 0 and d in position for d, g in judged[q].items())]
    relevant = [{position[d]: float(g) for d, g in judged[q].items() if d in position and g > 0} for q in query_ids]
    columns = np.tile(np.arange(len(texts)), (len(query_ids), 1))

    def ndcg(S):
        return float(np.mean(ndcg_at_k(np.asarray(S), columns, relevant)))

    return SimpleNamespace(root=root, ids=ids, texts=texts, queries=queries, train=train, judged=judged,
                           position=position, query_ids=query_ids, relevant=relevant, ndcg=ndcg)


def unit(M):
    """Rows scaled to unit length (a zero row stays zero)."""
    M = np.asarray(M, dtype=np.float64)
    return M / np.maximum(np.linalg.norm(M, axis=1, keepdims=True), 1e-12)
