"""Batched dense search: ``Index.search(list_of_queries, 10)`` against one query at a time, on a
FILM index of synthetic documents (the corpus, queries and fit of ``bench_index.py``).

A dense-only similarity index scores a list of queries with one matrix product per block of
rows (``learnsim.index._batch``) instead of one matrix-vector product per query: a single query
reads every row (100,000 x 100 float32 = 40 MB), a batch of B queries reads them once. This
script measures what that is worth, one BLAS thread (``OPENBLAS_NUM_THREADS=1`` and friends are
set before numpy is imported):

* ``one at a time``: ``idx.search(q, 10)`` for each query;
* ``batch B`` for B in ``--batches``: ``idx.search(queries[i:i + B], 10)``, per query;
* the same two for the scan alone (``idx._search_rows`` on precomputed query rows: no query
  encoding, no SQLite), which is the part batching changes;
* the fraction of queries whose top-10 ids (in order) equal the one-at-a-time search's, and the
  largest score difference.

Each timing is the best of ``--repeats`` passes over the queries, the passes of the
configurations interleaved (the machine may be shared).
The first call builds the model and the index under ``--workdir`` (a minute or two at 100k);
later calls with the same ``--workdir`` reuse them.

Usage::

    python benchmarks/bench_index_batch.py --workdir /tmp/bench-batch
    python benchmarks/bench_index_batch.py --workdir /tmp/bench-batch --numba 0
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from types import SimpleNamespace  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_index  # noqa: E402  (the synthetic corpus, queries, fit and build)

TOP_K = 10


def prepare(work, n, seed):
    """The path of a FILM index of ``n`` documents under ``work`` (built unless it is there)."""
    work.mkdir(parents=True, exist_ok=True)
    model_path = work / "model-film.npz"
    index_path = work / f"index-film-{n}"
    if not model_path.exists():
        print(f"fitting FILM -> {model_path}", flush=True)
        bench_index.child_fit(SimpleNamespace(model="film", seed=seed, path=model_path))
    if not (index_path / "manifest.json").exists():
        print(f"building {n:,} documents -> {index_path}", flush=True)
        bench_index.child_build(SimpleNamespace(n=n, seed=seed, path=index_path, pipeline=model_path))
    return index_path


def best_times(fns, repeats):
    """Best wall seconds of each of ``fns`` over ``repeats`` rounds, the calls of a round
    interleaved (so that other work on the machine weighs on each alike), and their last results."""
    best, out = [float("inf")] * len(fns), [None] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            out[i] = fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", default=None, help="where the model and index go (kept; default: a temporary directory)")
    ap.add_argument("--n", type=int, default=100_000, help="documents")
    ap.add_argument("--queries", type=int, default=256)
    ap.add_argument("--batches", default="1,8,32,64")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--numba", choices=("auto", "0", "1"), default="auto",
                    help="LEARNSIM_NUMBA (auto: the index's own choice, numba once the process is warm)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if a.numba != "auto":
        os.environ["LEARNSIM_NUMBA"] = a.numba
    from learnsim.index import Index
    from learnsim.index import _kernels

    work = Path(a.workdir) if a.workdir else Path(tempfile.mkdtemp(prefix="bench-index-batch-"))
    path = prepare(work, a.n, a.seed)
    vocab = bench_index.vocabulary()
    _, _, _, df = bench_index.fitting_corpus(a.seed, vocab)
    queries = bench_index.make_queries(a.queries, a.seed, vocab, df)
    idx = Index.open(path)
    # warm up: the query plan, the segment checks, the page cache, and numba (past WARM_SEARCHES)
    for q in queries[:64]:
        idx.search(q, TOP_K)
    backend = "numba" if _kernels._kernels(len(idx)) is not None else "numpy"
    seg_info = [(type(s).__name__, s.n, None if s.dense is None else s.dense.shape) for s in idx.segments]
    print(f"{len(idx):,} documents, segments {seg_info}; {len(queries)} queries; top {TOP_K}; "
          f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}; kernels: {backend}", flush=True)

    m = len(queries)
    rows = idx._query_rows(queries)
    batches = [int(x) for x in a.batches.split(",") if x]

    def sliced(lo, hi):
        return rows.__class__(rows.sparse[lo:hi], None if rows.dense is None else rows.dense[lo:hi],
                              None if rows.sq is None else rows.sq[lo:hi])

    # whole searches (query encoding, scan, hits from SQLite) and the scan alone (precomputed rows)
    fns = [lambda: [idx.search(q, TOP_K) for q in queries],
           lambda: [idx._search_rows(sliced(i, i + 1), TOP_K, idx._live) for i in range(m)]]
    for b in batches:
        fns.append(lambda b=b: [hits for i in range(0, m, b) for hits in idx.search(queries[i:i + b], TOP_K)])
        fns.append(lambda b=b: [idx._search_rows(sliced(i, i + b), TOP_K, idx._live) for i in range(0, m, b)])
    seconds, results = best_times(fns, a.repeats)
    single_s, scan1_s = seconds[0], seconds[1]
    ref_ids = [[h["id"] for h in hits] for hits in results[0]]
    ref_scores = [np.array([h["score"] for h in hits]) for hits in results[0]]
    print("\n| batch | search ms/query | speed-up | scan ms/query | scan speed-up | same top-10 | max |score diff| |")
    print("|---|---|---|---|---|---|---|")
    print(f"| one at a time | {1e3 * single_s / m:.3f} | 1.00 | {1e3 * scan1_s / m:.3f} | 1.00 | - | - |")
    for j, b in enumerate(batches):
        batch_s, scan_s, found = seconds[2 + 2 * j], seconds[3 + 2 * j], results[2 + 2 * j]
        same = np.mean([[h["id"] for h in hits] == ref for hits, ref in zip(found, ref_ids)])
        diff = max(float(np.abs(np.array([h["score"] for h in hits]) - ref).max(initial=0.0))
                   for hits, ref in zip(found, ref_scores))
        print(f"| {b} | {1e3 * batch_s / m:.3f} | {single_s / batch_s:.2f} | {1e3 * scan_s / m:.3f} | "
              f"{scan1_s / scan_s:.2f} | {same:.3f} | {diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()
