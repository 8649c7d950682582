"""``learnsim search``: rank a corpus for queries with a fitted model."""
from __future__ import annotations

import textwrap

import numpy as np

from ._common import (read_documents, UsageError, _formatter, _examples, _positive_int, _print_json, _note, _table, _snippet, _load_model,
                      _vectorize, _LearnedDistances, _warn_empty_rows, _is_term_weighting, progress)

def register(commands):
    """Add the command's parser to ``commands``."""
    search = commands.add_parser(
        "search", formatter_class=_formatter, help="rank a corpus by the learned distance",
        description=textwrap.dedent("""\
            Rank the documents of a corpus by their learned distance to each query and print the
            k nearest. The corpus may be unlabelled: id<TAB>text per line (.tsv), one document
            per line (.txt without TABs), or JSON Lines (.jsonl) with {"text": ..., "id": ...}.
            A --queries file has the same formats."""),
        epilog=_examples("learnsim search --model model.npz --corpus docs.tsv --query 'space shuttle launch'",
                         "learnsim search --model model.npz --corpus docs.jsonl --query 'gpu driver' "
                         "--query 'hockey playoffs' -k 5",
                         "learnsim search --model model.npz --corpus docs.txt --queries queries.txt --json"))
    search.add_argument("--model", required=True, metavar="M.npz", help="model file written by 'learnsim fit'")
    search.add_argument("--corpus", required=True, metavar="FILE", help="documents to search")
    source = search.add_mutually_exclusive_group(required=True)
    source.add_argument("--query", action="append", metavar="TEXT", help="a query (repeat for several)")
    source.add_argument("--queries", metavar="FILE", help="a file of queries (formats as --corpus)")
    search.add_argument("-k", "--k", type=_positive_int, default=10, metavar="K",
                        help="number of hits per query (default: 10)")
    search.add_argument("--json", action="store_true",
                        help="print [{query, hits: [{rank, index, id, distance, text}]}] as JSON")
    search.set_defaults(handler=run)
    return search


def _search_term_weighting(args, metric, corpus, queries, C, Q, k):
    """Binary queries against the corpus weighted once by the learned weighting (an index of
    posting lists, paper 002 sec. 2.1); the k highest scores, ties to the lower index."""
    scores = metric.index(C).score(Q)
    order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    best = np.take_along_axis(scores, order, axis=1)
    return _print_hits(args, corpus, queries, order, best, "score")


def _print_hits(args, corpus, queries, idx, values, column):
    """The k hits of every query, as JSON or one table per query; ``column`` names the value
    ("distance" for a metric, "score" for a term weighting)."""
    results = []
    for qi, query in enumerate(queries):
        hits = [{"rank": r + 1, "index": int(i), "id": corpus.ids[i], column: float(v),
                 "text": _snippet(corpus.texts[i])}
                for r, (i, v) in enumerate(zip(idx[qi], values[qi]))]
        results.append({"query": query, "hits": hits})
    if args.json:
        _print_json(results)
        return 0
    for qi, res in enumerate(results):
        if qi:
            print()
        print(f"query {qi + 1}: {_snippet(res['query'])}")
        rows = [[h["rank"], f"{h[column]:.4f}", h["id"] if h["id"] is not None else f"#{h['index']}",
                 h["text"]] for h in res["hits"]]
        print(_table(["rank", column, "doc", "text"], rows, align=">><<"))
    return 0


def run(args):
    from ..search import top_k

    vectorizer, metric = _load_model(args.model)
    corpus = read_documents(args.corpus)
    if args.queries is not None:
        queries = read_documents(args.queries).texts
    else:
        queries = list(args.query)
        if any(not q.strip() for q in queries):
            raise UsageError("--query must not be empty")
    k = args.k
    if k > len(corpus):
        _note(f"-k {k} is more than the {len(corpus)} corpus documents; showing all of them")
        k = len(corpus)
    C = _vectorize(vectorizer, corpus.texts)
    Q = _vectorize(vectorizer, queries)
    _warn_empty_rows(C, "corpus document", corpus.texts)
    _warn_empty_rows(Q, "query", queries)

    if _is_term_weighting(metric):
        return _search_term_weighting(args, metric, corpus, queries, C, Q, k)
    distances = _LearnedDistances(metric, C)
    if distances.embedded is not None:
        idx, dist = top_k(np.asarray(metric.transform(Q), dtype=np.float64), distances.embedded, k,
                          metric="euclidean")
    else:
        step = distances.block_rows()
        idx = np.empty((Q.shape[0], k), dtype=np.int64)
        dist = np.empty((Q.shape[0], k))
        for start in progress(range(0, Q.shape[0], step), desc="search"):
            D = distances(Q[start:start + step])
            order = np.argsort(D, axis=1, kind="stable")[:, :k]  # ties: lower index first
            idx[start:start + step] = order
            dist[start:start + step] = np.take_along_axis(D, order, axis=1)

    return _print_hits(args, corpus, queries, idx, dist, "distance")
