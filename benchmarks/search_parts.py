"""Where one ``Index.search`` spends its time (issue 46's profile before and after): each part of
the search path timed as the search runs it, on one handle.

The script wraps the index handle's ``_see_changes`` (the test for another writer's changes),
``_query_rows`` (the query text to its rows), ``_search_rows`` (scan and top k) and ``_hits`` (the
hits' documents from their segments' copies, or from SQLite in a version before those, checked
against their digests, as dicts): methods every version since issue 30 has, so that the same
script profiles an older checkout (run it with that checkout's ``src`` first on ``PYTHONPATH``).
It searches the first query, then ``--warm`` more (a process's first searches load the kernels),
then the rest one at a time, each a query not asked before, and prints the p50 of the whole
search and of each part, in microseconds, as one JSON line.

Usage (the indexes and queries of ``bench_index.py``, kept with ``--workdir DIR --keep``)::

    python benchmarks/search_parts.py DIR/index-bm25-100000 DIR/queries.json
    git worktree add /tmp/before f88060c
    PYTHONPATH=/tmp/before/src python benchmarks/search_parts.py DIR/index-bm25-100000 DIR/queries.json
"""
from __future__ import annotations

import argparse
import collections
import json
import time

import numpy as np

PARTS = ("_see_changes", "_query_rows", "_search_rows", "_hits")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("index", help="an index directory")
    ap.add_argument("queries", help="a JSON list of query texts (bench_index.py's queries.json)")
    ap.add_argument("--warm", type=int, default=40, help="searches before the measured ones")
    ap.add_argument("--skip", type=int, default=100, help="queries not measured (the first, the warm ones)")
    args = ap.parse_args(argv)

    import learnsim
    from learnsim.index import Index

    with open(args.queries, encoding="utf-8") as fh:
        queries = json.load(fh)
    index = Index.open(args.index)
    times = collections.defaultdict(list)

    def timed(name):
        method = getattr(index, name)

        def call(*a, **kw):
            start = time.perf_counter()
            try:
                return method(*a, **kw)
            finally:
                times[name].append(time.perf_counter() - start)
        setattr(index, name, call)

    for name in PARTS:
        timed(name)
    for q in queries[:1 + args.warm]:
        index.search(q, k=10)
    times.clear()
    total = []
    for q in queries[args.skip:]:
        start = time.perf_counter()
        index.search(q, k=10)
        total.append(time.perf_counter() - start)
    out = {"learnsim": learnsim.__file__, "queries": len(total), "search_p50_us": round(1e6 * float(np.median(total)), 1)}
    out.update({name.strip("_") + "_p50_us": round(1e6 * float(np.median(v)), 1) for name, v in times.items()})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
