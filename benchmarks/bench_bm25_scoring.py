"""BM25 query latency: learnsim's ``BM25`` against bm25s on 100,000 synthetic documents, and
scoring in a learned LinkLearn weighting (paper 002) on the same corpus.

Both libraries get the same token ids and the same parameters (k1 = 1.5, b = 0.6, Lucene idf,
float32 scores; bm25s's ``method="lucene"`` scores are learnsim's divided by k1 + 1, so the
rankings are the same). For each of 1,000 queries, one call scores every document and returns
the 10 best, exactly as a user would query one at a time: ``BM25.search(q, 10)`` and
``bm25s.BM25.retrieve([q], k=10)``. Reported per method: per-query latency (median, 95th
percentile), the same queries in one batch call (per-query time), index time, the memory that
indexing allocates at its peak (tracemalloc, in a second, untimed build), the size of the index,
the peak resident memory of the whole run, and the share of queries whose top 10 agree with
learnsim's (float32 sums in another order can swap near-ties).

The corpus (seeded):

* a 50,000-word vocabulary with Zipf frequencies, p(rank) ~ 1 / (rank + 2.7)^1.05, the curve of
  ``bench_film_scale.py``; only the words that occur are indexed;
* 100,000 documents with gamma-distributed lengths of mean 150 tokens (shape 4: sd 75);
* 1,000 queries of 3-5 distinct words drawn from the same Zipf curve past its 100 most frequent
  words (a query pipeline with a stop list; the most frequent query words still occur in about a
  fifth of the documents).

bm25s runs with its numpy backend, and with its numba backend when numba can be imported (in
this venv it is not installed by default; its JIT compile is done before timing). All methods
run single-threaded (bm25s ``n_threads=0``; BLAS is not involved). Each method runs in its own
subprocess on the same seeded corpus, so its memory figures are its own.

The ``linklearn`` row is a LinkLearn weighting (trained in a second on a small synthetic linked
corpus, then applied without retraining) indexed with ``LinkLearn.index(counts)`` and queried
with binary query vectors through the same posting-list scorer (``TermWeightIndex``); its top 10
differs from BM25's by design, so only its speed is compared.

learnsim's index time is ``BM25().fit(counts)``; building the count matrix from the token ids
(what bm25s does inside ``index``) is reported beside it. The learnsim child also times the
scoring kernels that were considered, on the same queries: the CSC posting-list sum it uses, the
CSR product ``W @ q`` (which touches all of W) and a sparse-sparse product per query.

Usage::

    python benchmarks/bench_bm25_scoring.py
    python benchmarks/bench_bm25_scoring.py --quick           # 20,000 documents, 300 queries
    python benchmarks/bench_bm25_scoring.py --json results/bm25-scoring.json
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from bench_film_scale import _zipf_sampler

EXPERIMENT = "bm25-scoring"
K1, B = 1.5, 0.6
TOP_K = 10
VOCAB_SIZE = 50_000
ZIPF_OFFSET = 2.7
MEAN_LENGTH = 150
LENGTH_SHAPE = 4.0             # gamma shape: sd = mean / sqrt(shape)
QUERY_TERMS = (3, 5)           # distinct words per query, inclusive
QUERY_SKIP_HEAD = 100          # query words come from past the most frequent words
METHODS = ("learnsim", "linklearn", "bm25s-numpy", "bm25s-numba")
KERNEL_SAMPLE = 50             # queries timed with the slow CSR kernel


def make_corpus(n_docs, n_queries, seed):
    """Token ids of the documents (flat array + offsets) and the distinct ids of each query."""
    rng = np.random.default_rng(seed)
    word = _zipf_sampler(VOCAB_SIZE, ZIPF_OFFSET, rng)
    lengths = np.maximum(1, np.rint(rng.gamma(LENGTH_SHAPE, MEAN_LENGTH / LENGTH_SHAPE, n_docs))).astype(np.int64)
    tokens = word(int(lengths.sum()))
    # compact ids 0 .. n_terms - 1 over the words that occur (bm25s indexes ids as columns)
    used, tokens = np.unique(tokens, return_inverse=True)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    rank_to_id = np.full(VOCAB_SIZE, -1, dtype=np.int64)
    rank_to_id[used] = np.arange(used.size)
    tail = _zipf_sampler(VOCAB_SIZE - QUERY_SKIP_HEAD, ZIPF_OFFSET + QUERY_SKIP_HEAD, rng)
    queries = []
    while len(queries) < n_queries:
        size = int(rng.integers(QUERY_TERMS[0], QUERY_TERMS[1] + 1))
        ids = rank_to_id[np.unique(tail(size)) + QUERY_SKIP_HEAD]
        ids = ids[ids >= 0]
        if ids.size:
            queries.append(np.sort(ids))
    return tokens.astype(np.int64), offsets, int(used.size), queries


def counts_matrix(tokens, offsets, n_terms):
    rows = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    X = sp.csr_matrix((np.ones(tokens.size, dtype=np.float32), (rows, tokens)), shape=(offsets.size - 1, n_terms))
    X.sum_duplicates()
    return X


def _latencies(call, n_queries, order):
    seconds = np.empty(n_queries)
    for i in order:
        start = time.perf_counter()
        call(i)
        seconds[i] = time.perf_counter() - start
    return seconds


def _summary(seconds):
    ms = 1e3 * np.asarray(seconds)
    return {"median_ms": float(np.median(ms)), "p95_ms": float(np.percentile(ms, 95)),
            "mean_ms": float(np.mean(ms))}


def _index_peak(build):
    """Run ``build()`` timed, then once more under tracemalloc for its memory (tracing slows
    allocation-heavy Python code, so the timed run is untraced). Returns (result of the timed
    run, wall seconds, peak GiB allocated by the build above what existed before it)."""
    start = time.perf_counter()
    result = build()
    seconds = time.perf_counter() - start
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        build()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return result, seconds, peak / 2**30


def _time_posting_search(method, index, queries, n_terms, args):
    """Latency of ``index.search`` (learnsim's posting-list scorer) one query at a time and in one
    batch; returns the row, the single-query vectors and the timing order."""
    W = index.document_weights_
    rows = np.repeat(np.arange(len(queries)), [q.size for q in queries])
    Q = sp.csr_matrix((np.ones(rows.size, dtype=np.float32), (rows, np.concatenate(queries))),
                      shape=(len(queries), n_terms))
    single = [Q[i] for i in range(Q.shape[0])]      # sliced before timing, as bm25s gets lists
    order = np.random.default_rng(args.seed + 1).permutation(len(queries))
    index.search(single[0], TOP_K)                  # warm caches once
    lat = _latencies(lambda i: index.search(single[i], TOP_K), len(queries), order)
    (top, top_scores), batch_seconds = _timed(lambda: index.search(Q, TOP_K))
    row = {"method": method, "index_size_gb": (W.data.nbytes + W.indices.nbytes + W.indptr.nbytes) / 2**30,
           "batch_ms_per_query": 1e3 * batch_seconds / len(queries), **_summary(lat),
           "top": top.tolist(), "top_scores": top_scores.tolist()}
    return row, single, order


def run_learnsim(tokens, offsets, n_terms, queries, args):
    from learnsim.text.bm25 import BM25

    (X, count_seconds) = _timed(lambda: counts_matrix(tokens, offsets, n_terms))
    model, index_seconds, peak = _index_peak(lambda: BM25(k1=K1, b=B, idf="lucene").fit(X))
    row, single, order = _time_posting_search("learnsim", model, queries, n_terms, args)
    row.update({"index_seconds": index_seconds, "count_matrix_seconds": count_seconds, "index_peak_gb": peak})

    # the kernels considered for W @ q, scores only (top-k left out), same queries
    W = model.document_weights_
    W_csr = W.tocsr()
    W_t = W.T.tocsr()                                # (terms x documents): rows are postings
    S = np.zeros((1, model.n_documents_), dtype=np.float32)
    vectors = [model.transform_queries(q) for q in single]

    def csc_sum(i):
        S.fill(0)
        model._score_rows(vectors[i], 0, 1, S)

    kernels = {"csc_posting_sum": _summary(_latencies(csc_sum, len(queries), order)),
               "sparse_product_q_Wt": _summary(_latencies(lambda i: (vectors[i] @ W_t).toarray(),
                                                          len(queries), order))}
    few = order[:KERNEL_SAMPLE]
    lat_csr = _latencies(lambda i: W_csr @ vectors[i].toarray().ravel(), len(queries), few)[few]
    kernels["csr_W_at_q"] = _summary(lat_csr)
    row["kernels"] = kernels
    return row


def _trained_linklearn(seed):
    """A LinkLearn weighting trained on a small synthetic linked corpus (topics; links within a
    topic). It is then applied to the benchmark corpus without retraining, as paper 002 applies
    its Wikipedia weighting to TDT-2: scoring speed does not depend on what was learned."""
    from learnsim.linklearn import LinkLearn
    from learnsim.supervision import Links

    rng = np.random.default_rng(seed)
    n_docs, n_topics, vocab = 400, 8, 3000
    topic = rng.integers(0, n_topics, n_docs)
    rows, cols = [], []
    for d in range(n_docs):
        words = np.concatenate([rng.integers(0, vocab, 80),
                                200 + topic[d] * 50 + rng.integers(0, 50, 20)])
        rows.append(np.full(words.size, d))
        cols.append(words)
    X = sp.csr_matrix((np.ones(sum(r.size for r in rows)), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(n_docs, vocab))
    X.sum_duplicates()
    edges = [(d, int(rng.choice(np.flatnonzero(topic == topic[d])))) for d in range(n_docs) for _ in range(3)]
    edges = [(a, b) for a, b in edges if a != b]
    return LinkLearn(learning_rate=1e-2, max_iter=2000, random_state=seed, baseline_holdout=None).fit(X, Links.from_edges(np.array(edges), n_docs))


def run_linklearn(tokens, offsets, n_terms, queries, args):
    """The learned weighting (paper 002) scored with binary queries over the same corpus."""
    model = _trained_linklearn(args.seed)
    (X, count_seconds) = _timed(lambda: counts_matrix(tokens, offsets, n_terms))
    index, index_seconds, peak = _index_peak(lambda: model.index(X))
    row, _, _ = _time_posting_search("linklearn", index, queries, n_terms, args)
    row.update({"index_seconds": index_seconds, "count_matrix_seconds": count_seconds, "index_peak_gb": peak})
    return row


def run_bm25s(tokens, offsets, n_terms, queries, args, backend):
    import bm25s

    corpus_ids = tokens.tolist()
    corpus_ids = [corpus_ids[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
    query_ids = [q.tolist() for q in queries]
    def build():
        retriever = bm25s.BM25(k1=K1, b=B, method="lucene", dtype="float32", backend=backend)
        retriever.index(corpus_ids, show_progress=False)
        return retriever

    retriever, index_seconds, peak = _index_peak(build)
    del corpus_ids
    index_gb = sum(retriever.scores[key].nbytes for key in ("data", "indices", "indptr")) / 2**30

    def one(i):
        return retriever.retrieve([query_ids[i]], k=TOP_K, show_progress=False, n_threads=0)

    compile_start = time.perf_counter()
    one(0)                                         # numba: JIT compile here, not in the timings
    warmup_seconds = time.perf_counter() - compile_start
    order = np.random.default_rng(args.seed + 1).permutation(len(queries))
    lat = _latencies(one, len(queries), order)
    result, batch_seconds = _timed(lambda: retriever.retrieve(query_ids, k=TOP_K, show_progress=False,
                                                              n_threads=0))
    return {"method": f"bm25s-{backend}", "index_seconds": index_seconds, "index_peak_gb": peak,
            "index_size_gb": index_gb, "warmup_seconds": warmup_seconds,
            "batch_ms_per_query": 1e3 * batch_seconds / len(queries), **_summary(lat),
            "top": np.asarray(result.documents).tolist(),
            # bm25s's Lucene scores leave out learnsim's constant factor k1 + 1
            "top_scores": (np.asarray(result.scores, dtype=np.float64) * (K1 + 1)).tolist()}


def _timed(func):
    start = time.perf_counter()
    out = func()
    return out, time.perf_counter() - start


def _child(args):
    tokens, offsets, n_terms, queries = make_corpus(args.docs, args.queries, args.seed)
    if args.one == "learnsim":
        row = run_learnsim(tokens, offsets, n_terms, queries, args)
    elif args.one == "linklearn":
        row = run_linklearn(tokens, offsets, n_terms, queries, args)
    else:
        row = run_bm25s(tokens, offsets, n_terms, queries, args, backend=args.one.split("-", 1)[1])
    row["process_peak_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20   # KiB on Linux
    row.update({"n_docs": args.docs, "n_terms": n_terms, "n_tokens": int(tokens.size),
                "n_queries": len(queries), "mean_query_terms": float(np.mean([q.size for q in queries]))})
    print("RESULT " + json.dumps(row), flush=True)


def run_method(method, args):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", method, "--docs", str(args.docs),
           "--queries", str(args.queries), "--seed", str(args.seed)]
    env = dict(os.environ)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        env[var] = "1"
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"the {method} run failed (exit status {done.returncode})")
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    return json.loads(lines[-1][len("RESULT "):])


def _available(method):
    modules = {"learnsim": [], "linklearn": [], "bm25s-numpy": ["bm25s"], "bm25s-numba": ["bm25s", "numba"]}[method]
    if not modules:
        return True
    probe = subprocess.run([sys.executable, "-c", "import " + ", ".join(modules)], capture_output=True)
    return probe.returncode == 0


def top_agreement(reference, other):
    """Share of queries with the same top-k set, and share whose top-k scores agree (to 1e-5,
    relative) so that any different documents are ties at the cut."""
    same, same_scores = [], []
    for a, b in zip(zip(*reference), zip(*other)):
        same.append(set(a[0]) == set(b[0]))
        same_scores.append(np.allclose(a[1], b[1], rtol=1e-5, atol=0))
    return float(np.mean(same)), float(np.mean(same_scores))


def report(rows):
    ref = rows["learnsim"]
    print(f"\n{ref['n_docs']:,} documents, {ref['n_terms']:,} terms, {ref['n_tokens']:,} tokens; "
          f"{ref['n_queries']:,} queries of {ref['mean_query_terms']:.1f} distinct terms; top {TOP_K}\n")
    header = (f"{'method':<13} {'median ms':>9} {'p95 ms':>8} {'ratio':>6} {'batch ms/q':>10} "
              f"{'index s':>8} {'index peak GB':>13} {'index GB':>8} {'process GB':>10} {'same top-10':>11} "
              f"{'same scores':>14}")
    print(header)
    print("-" * len(header))
    for method, row in rows.items():
        ratio = row["median_ms"] / ref["median_ms"]
        if method == "linklearn":     # another weighting: its top 10 is not BM25's
            same, tied = float("nan"), float("nan")
        else:
            same, tied = top_agreement((ref["top"], ref["top_scores"]), (row["top"], row["top_scores"]))
        print(f"{method:<13} {row['median_ms']:>9.3f} {row['p95_ms']:>8.3f} {ratio:>6.2f} "
              f"{row['batch_ms_per_query']:>10.3f} {row['index_seconds']:>8.2f} {row['index_peak_gb']:>13.2f} "
              f"{row['index_size_gb']:>8.3f} {row['process_peak_gb']:>10.2f} {same:>11.1%} {tied:>14.1%}")
    print(f"\nratio = median latency / learnsim's. index peak: memory allocated while indexing (tracemalloc); "
          f"index GB: the sparse index kept; process GB: the child's peak resident memory, corpus included.\n"
          f"same top-10: the same set of documents as learnsim; same scores: the same 10 scores (to 1e-5), so "
          f"that any other documents are ties.\n"
          f"learnsim's index time is BM25.fit on the count matrix; building that matrix from the token ids "
          f"took {ref['count_matrix_seconds']:.2f} s more.")
    for method, row in rows.items():
        if method == "bm25s-numba":
            print(f"{method}: first call (JIT compile) {row['warmup_seconds']:.2f} s, not timed.")
    print("\nscoring kernels for W @ q (scores of all documents, no top-k), learnsim's index:")
    for name, stats in ref["kernels"].items():
        note = f" ({KERNEL_SAMPLE} queries)" if name == "csr_W_at_q" else ""
        print(f"  {name:<22} median {stats['median_ms']:8.3f} ms, p95 {stats['p95_ms']:8.3f} ms{note}")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=100_000, help="documents (default 100000)")
    parser.add_argument("--queries", type=int, default=1_000, help="queries (default 1000)")
    parser.add_argument("--quick", action="store_true", help="20000 documents, 300 queries")
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS),
                        help="methods to run (default all; bm25s-numba only where numba imports)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the corpus and the query order (default 0)")
    parser.add_argument("--json", metavar="PATH", help="write the measured figures (JSON) here")
    parser.add_argument("--one", choices=METHODS, help=argparse.SUPPRESS)   # internal: one method, in a child
    args = parser.parse_args(argv)
    if args.quick:
        args.docs, args.queries = 20_000, 300
    if args.docs < 100 or args.queries < 1:
        parser.error("--docs must be >= 100 and --queries >= 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.one:
        return _child(args)
    methods = ["learnsim"] + [m for m in args.methods if m != "learnsim"]
    rows = {}
    for method in methods:
        if not _available(method):
            print(f"{method}: skipped ({'numba' if 'numba' in method else 'bm25s'} is not installed: "
                  "pip install learnsim[bench]" + (" numba" if "numba" in method else "") + ")")
            continue
        print(f"running {method} ...", flush=True)
        rows[method] = run_method(method, args)
    report(rows)
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        slim = {m: {k: v for k, v in row.items() if k not in ("top", "top_scores")} for m, row in rows.items()}
        ref = rows["learnsim"]
        for method, row in rows.items():
            slim[method]["same_top_k_as_learnsim"], slim[method]["same_top_k_scores_as_learnsim"] = top_agreement(
                (ref["top"], ref["top_scores"]), (row["top"], row["top_scores"]))
        path.write_text(json.dumps({"experiment": EXPERIMENT, "machine": platform.platform(),
                                    "cpus": os.cpu_count(), "results": slim}, indent=1) + "\n")
        print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
