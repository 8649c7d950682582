"""Cost growth of every fit of learnsim, and of index build and search, from 10k to 1M documents
(issue 16, part 3): wall time and peak memory at each size, and the log-log slope of time
against the number of documents (the goal for the fits: <= 1.1, i.e. about linear).

Every (method, size) runs in a fresh subprocess (``--threads`` BLAS / numba threads, default 2),
which builds its seeded synthetic data, resets the kernel's peak-memory mark, and times the
method's public call alone. Reported: the seconds of that call, the peak resident memory during
it (data already held included; Linux ``VmHWM`` after ``/proc/self/clear_refs``), the log-log
slope of time between consecutive sizes and the least-squares slope over all sizes (of the
wall time, and of the process's CPU time, which a shared machine disturbs less). A method
whose time at the next size, predicted from its last slope (1 after a single size), would pass
``--max-seconds`` is skipped there and reported as such, with the prediction.

The data grow with n and the supervision grows *in proportion* (bounded per item), so that the
work each method is asked to do is linear in n; the slope then measures the method, not the
data. Two generators are reused from the other benchmarks:

* *sentences* (``bench_film_scale.make_sentence_corpus`` and ``make_supervision``): Quora-like
  tf-idf rows (80,000-word Zipf vocabulary, about 10 distinct words a sentence) in paraphrase
  clusters of 1-5 sentences (mean about 2), topics of 20 clusters; duplicate / hard-negative
  pairs of 80 % of the clusters turned into triplets (about 2 per clustered sentence);
* *documents* (``bench_index.corpus``): texts of 20-80 pseudo-words, a 50,000-word Zipf
  vocabulary, 200 topics; each document links to ``LINKS_PER_DOC`` random documents of its topic.

Methods (``--methods``; "the work" is what grows linearly with n here):

* ``vectorizer``: ``TextVectorizer("tfidf", norm="l2")`` fit, then transform, of the documents.
  Work: the tokens (20-80 per document).
* ``mcd-auto``: ``MinimumClusterDistortion(random_state=0)``, the defaults (n_basis, shrinkage
  and complement weight chosen by leave-clusters-out retrieval, then the held-out check against
  Euclid), on the sentences, clusters of >= 2 sentences labelled (singletons -1). Work: the
  principal basis of the rows and the within-cluster scatter (clusters of at most 5 items); the
  selection's held-out scoring is bounded by ``max_validation_items``.
* ``mcd-fixed``: the same with ``n_basis``, ``shrinkage`` and ``complement_weight`` given
  (``MCD_FIXED``), so no selection (the held-out check still runs).
* ``film``: ``FILM(random_state=0)``, the defaults (d = 100, r = 500, every triplet every
  iteration, the held-out check), on the sentences' training triplets. Work: the SVD of the
  rows and, per iteration, the triplets (about 2 per clustered sentence) times r.
* ``film-batch``: the same with ``batch_size=FILM_BATCH`` (M-FILM): the optimiser's work per
  iteration is fixed, so only the SVD grows.
* ``linklearn``: ``LinkLearn(learning_rate=0.03, max_iter=10_000, random_state=0)`` (the rate
  ``learnsim fit`` uses; no early-stopping set, so ``max_iter`` documents are drawn: 100,000 with
  ``--library-defaults``) on the documents' term counts and links. Work: each drawn document
  scores the documents that share a term with it (postings, proportional to n), a fixed number
  of draws; the held-out check ranks each held-out document's links among the held-out
  documents (n_held^2 pairs: quadratic by construction).
* ``learnedbm25``: ``LearnedBM25(max_evaluations=40, random_state=0)`` (200 evaluations with
  ``--library-defaults``; 600 query articles, 4 thinned copies), same data. Work: every
  evaluation scores the fixed number of queries against every document of every copy
  (proportional to n); the number of evaluations the search takes is reported.
* ``relative``: ``RelativeComparisonMetric(C=RELATIVE_C_SUM / n_triplets, tol=RELATIVE_TOL,
  random_state=0)`` (the tolerance of ``learnsim fit --method relative``; the held-out check) on
  the sentences' binary term-presence rows (the features ``learnsim fit --method relative``
  uses) and training triplets. C weighs the sum of the slacks, so it falls
  as 1 / n_triplets to pose the same problem at every size. Work: coordinate-ascent passes over
  the triplets, each step touching the non-zeros of its three rows.
* ``index-film`` / ``index-bm25``: ``learnsim.index.Index.build`` over the documents with a FILM
  pipeline (fitted on topic labels) or a learned-BM25 pipeline (fitted on links), both fitted
  once on ``bench_index``'s small fitting corpus; then, in another fresh process,
  ``Index.search`` of ``N_QUERIES`` fixed queries (``bench_index.make_queries``; k = 10), one at
  a time and as one list (time per query; the median and 99th percentile of the single
  searches are in the JSON). Work: every document's row (build), and per query the scan of every
  row (exact search: linear in n). The default ``ann="auto"`` builds an approximate (HNSW) graph
  for every dense segment of at least ``learnsim.index._ann.ANN_MIN_ROWS`` rows (50,000; a
  build writes segments of 100,000): from there the FILM build pays the graph (superlinear up
  to one full segment, then linear in the segments) and its search is sublinear.
  ``index-film-exact`` builds with ``ann="exact"``, the brute-force scan at every size.

Usage::

    python benchmarks/bench_growth.py                                   # 10k ... 1M, every method
    python benchmarks/bench_growth.py --sizes 10000 30000 --methods film mcd-fixed
    python benchmarks/bench_growth.py --json results/growth.json --markdown results/growth.md
    python benchmarks/bench_growth.py --from-json results/growth.json          # report it again

The table, the slopes and the extrapolated times of the default sizes not run are printed, with a
markdown table ready for ``benchmarks/README.md``.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:          # the generators of the other benchmarks, beside this one
    sys.path.insert(0, str(_HERE))

import bench_film_scale as film_scale   # noqa: E402
import bench_index as index_bench       # noqa: E402

EXPERIMENT = "growth"
DEFAULT_SIZES = (10_000, 30_000, 100_000, 300_000, 1_000_000)
GOAL_SLOPE = 1.1
LINKS_PER_DOC = 3
N_QUERIES = 200
TOP_K = 10
MCD_FIXED = {"n_basis": 64, "shrinkage": 0.1, "complement_weight": 0.3}
FILM_BATCH = 10_000
# relative: C weighs the *sum* of the slacks over the triplets, so a fixed C asks for a harder
# problem as the triplets grow; C = RELATIVE_C_SUM / n_triplets keeps the problem (the mean
# slack's weight) the same at every size. With 1,500 the held-out check keeps the learned weights
# on these sentences at 10k and 30k (gain about +0.05); with 150 (C = 1e-3 at 150,000 triplets,
# WebKB's choice) it fell back to W = 1 after a handful of passes, which measures little.
RELATIVE_C_SUM = 1500.0
RELATIVE_TOL = 1e-3
# Budget settings (``--library-defaults`` uses the estimators' defaults instead): LinkLearn draws
# a fixed number of documents (default 100,000), LearnedBM25 has a fixed budget of evaluations
# (default 200) over fixed queries (600) and copies. A smaller fixed number changes the total,
# not the growth with n: each draw / evaluation still scores every document.
LINKLEARN_BUDGET = {"max_iter": 10_000}
LEARNEDBM25_BUDGET = {"max_evaluations": 40}
SENTENCES, DOCUMENTS, LINKED = "sentences", "documents", "linked documents"
# method -> (its data, what it times); measures are seconds unless their name ends in _ms
METHODS = {
    "vectorizer": (DOCUMENTS, "fit+transform"),
    "mcd-auto": (SENTENCES, "fit"),
    "mcd-fixed": (SENTENCES, "fit"),
    "film": (SENTENCES, "fit"),
    "film-batch": (SENTENCES, "fit"),
    "linklearn": (LINKED, "fit"),
    "learnedbm25": (LINKED, "fit"),
    "relative": (SENTENCES, "fit"),
    "index-film": (DOCUMENTS, "build, search"),
    "index-film-exact": (DOCUMENTS, "build, search"),
    "index-bm25": (DOCUMENTS, "build, search"),
}
# index method -> the pipeline it indexes with; INDEX_ANN: its ``ann`` argument of Index.build
INDEX_MODELS = {"index-film": "film", "index-film-exact": "film", "index-bm25": "bm25"}
INDEX_ANN = {"index-film": "auto", "index-film-exact": "exact", "index-bm25": "auto"}


# ------------------------------------------------------------------------------ the data
def sentence_data(n, seed):
    """Tf-idf rows of ``n`` sentences, their cluster labels (-1 for singletons) and training
    triplets (bench_film_scale's generators)."""
    corpus = film_scale.make_sentence_corpus(n, random_state=seed)
    supervision = film_scale.make_supervision(corpus, random_state=seed + 1)
    cluster = corpus["cluster"]
    sizes = np.bincount(cluster)
    labels = np.where(sizes[cluster] >= 2, cluster, -1)
    return {"X": corpus["X"], "labels": labels, "triplets": supervision["train"]}


def document_texts(n, seed):
    """The first ``n`` texts of bench_index's seeded corpus and their topics."""
    return index_bench.corpus(n, seed, index_bench.vocabulary())


def topic_links(topics, per_doc, seed):
    """Each document links to ``per_doc`` random other documents of its topic (square CSR)."""
    import scipy.sparse as sp

    rng = np.random.default_rng([seed, 3])
    topics = np.asarray(topics)
    n = topics.size
    order = np.argsort(topics, kind="stable")
    start = np.searchsorted(topics[order], topics, side="left")
    size = np.searchsorted(topics[order], topics, side="right") - start
    targets = order[start[:, None] + (rng.random((n, per_doc)) * size[:, None]).astype(np.int64)]
    sources = np.repeat(np.arange(n), per_doc)
    keep = targets.ravel() != sources
    A = sp.csr_matrix((np.ones(int(keep.sum()), dtype=np.int8), (sources[keep], targets.ravel()[keep])),
                      shape=(n, n))
    A.sum_duplicates()
    return A


def linked_data(n, seed):
    """Integer term counts of the documents (``TextVectorizer("tf")``) and their topic links."""
    import scipy.sparse as sp

    from learnsim.supervision import Links
    from learnsim.text import TextVectorizer

    texts, topics = document_texts(n, seed)
    counts = sp.csr_matrix(TextVectorizer("tf", dtype=np.float64).fit_transform(texts))
    return {"counts": counts, "links": Links(topic_links(topics, LINKS_PER_DOC, seed))}


# ------------------------------------------------------------------------------ the children
class _Timed:
    """Times a block and records the peak resident memory during it (the data it is given
    included: the peak mark is reset to the current resident size when the block starts)."""

    def __enter__(self):
        self.reset = film_scale._reset_peak_rss()
        self.start, self.cpu_start = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start
        # CPU seconds of every thread: steadier than the wall time on a shared machine
        self.cpu = time.process_time() - self.cpu_start
        peak = film_scale._rss_kib("VmHWM") if self.reset else None
        self.peak_mb = None if peak is None else peak / 1024
        return False


def _fit_method(method, n, seed, library_defaults=False):
    """Build the data of ``method`` for ``n`` items, time its fit; returns the child's row."""
    import warnings

    if method not in METHODS or method in INDEX_MODELS:
        raise ValueError(f"unknown method {method!r} to fit; choose among "
                         f"{', '.join(m for m in METHODS if m not in INDEX_MODELS)}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # fall-backs and shifts are expected on random data
        return _fit_quietly(method, n, seed, library_defaults)


def _fit_quietly(method, n, seed, library_defaults):
    kind = METHODS[method][0]
    t0 = time.perf_counter()
    if kind == SENTENCES:
        data = sentence_data(n, seed)
    elif kind == LINKED:
        data = linked_data(n, seed)
    else:
        data = {"texts": document_texts(n, seed)[0]}
    prep = time.perf_counter() - t0
    details = {}
    if method == "vectorizer":
        from learnsim.text import TextVectorizer

        with _Timed() as t:
            vec = TextVectorizer("tfidf", norm="l2").fit(data["texts"])
            X = vec.transform(data["texts"])
        details = {"n_terms": int(X.shape[1]), "nnz": int(X.nnz)}
    elif method.startswith("mcd"):
        from learnsim.mcd import MinimumClusterDistortion

        settings = MCD_FIXED if method == "mcd-fixed" else {}
        with _Timed() as t:
            model = MinimumClusterDistortion(random_state=0, **settings).fit(data["X"], data["labels"])
        details = {"n_basis": model.n_basis_, "shrinkage": model.shrinkage_,
                   "complement_weight": model.complement_weight_, "solver": model.solver_,
                   "clustered_items": int((data["labels"] >= 0).sum())}
    elif method.startswith("film"):
        from learnsim.film import FILM

        settings = {"batch_size": FILM_BATCH} if method == "film-batch" else {}
        with _Timed() as t:
            model = FILM(random_state=0, **settings).fit(data["X"], data["triplets"])
        details = {"n_triplets": int(len(data["triplets"])), "n_iter": int(model.n_iter_),
                   "svd_rank": int(model.svd_rank_), "timings": getattr(model, "timings_", {})}
    elif method == "linklearn":
        from learnsim.linklearn import LinkLearn

        budget = {} if library_defaults else LINKLEARN_BUDGET

        with _Timed() as t:
            model = LinkLearn(learning_rate=0.03, random_state=0, **budget).fit(data["counts"], data["links"])
        details = {"n_links": int(data["links"].n_links), "n_iter": int(model.n_iter_),
                   "timings": getattr(model, "timings_", {})}
    elif method == "learnedbm25":
        from learnsim.linklearn import LearnedBM25

        budget = {} if library_defaults else LEARNEDBM25_BUDGET

        with _Timed() as t:
            model = LearnedBM25(random_state=0, **budget).fit(data["counts"], data["links"])
        details = {"n_links": int(data["links"].n_links), "n_evaluations": int(model.n_evaluations_)}
    else:
        from learnsim.relative import RelativeComparisonMetric

        X = data["X"].copy()
        X.data[:] = 1.0                     # binary term presence
        # numba compiles the solver on first use (cached on disk when it can): outside the timing
        RelativeComparisonMetric(tol=1e-2, baseline_holdout=None).fit(X, data["triplets"][:200])
        C = RELATIVE_C_SUM / len(data["triplets"])
        with _Timed() as t:
            model = RelativeComparisonMetric(C=C, tol=RELATIVE_TOL, random_state=0).fit(X, data["triplets"])
        details = {"n_triplets": int(len(data["triplets"])), "C": C, "n_iter": int(model.n_iter_),
                   "nonzero_weights": int(np.count_nonzero(model.weights_)),
                   "status": getattr(model.baseline_gain_, "status", None),
                   "duality_gap": float(model.duality_gap_)}
    return {"measures": {METHODS[method][1]: t.seconds}, "seconds": t.seconds, "cpu": {METHODS[method][1]: t.cpu},
            "peak_mb": t.peak_mb, "prep_s": prep, "details": details}


def _build_index(path, pipeline_path, n, seed, ann="auto"):
    import warnings

    import learnsim
    from learnsim.index import Index

    warnings.simplefilter("ignore")
    texts, _ = document_texts(n, seed)
    ids = [f"d{i}" for i in range(len(texts))]
    pipeline = learnsim.load(pipeline_path)
    # a small build first: whatever compiles or loads on first use stays outside the timing
    warm = Path(path).with_name(Path(path).name + "-warm")
    Index.build(warm, pipeline, texts[:50], ids[:50]).close()
    shutil.rmtree(warm, ignore_errors=True)
    with _Timed() as t:
        Index.build(path, pipeline, texts, ids, ann=ann).close()
    return {"measures": {"build": t.seconds}, "seconds": t.seconds, "cpu": {"build": t.cpu}, "peak_mb": t.peak_mb,
            "details": {}}


def _search_index(path, queries):
    from learnsim.index import Index

    index = Index.open(path)
    index.search(queries[0], k=TOP_K)        # the first search loads the query plan: not counted
    each = np.empty(len(queries))
    with _Timed() as one:
        for i, q in enumerate(queries):
            start = time.perf_counter()
            index.search(q, k=TOP_K)
            each[i] = time.perf_counter() - start
    with _Timed() as batch:
        index.search(list(queries), k=TOP_K)
    per = len(queries)
    return {"measures": {"search_ms": 1e3 * one.seconds / per, "search_list_ms": 1e3 * batch.seconds / per},
            "seconds": one.seconds + batch.seconds,
            "cpu": {"search_ms": 1e3 * one.cpu / per, "search_list_ms": 1e3 * batch.cpu / per},
            "peak_mb": max(p for p in (one.peak_mb, batch.peak_mb, 0.0) if p is not None),
            # the mean above is what a caller waits in all; the median is steadier on a shared machine
            "details": {"search_p50_ms": float(1e3 * np.median(each)),
                        "search_p99_ms": float(1e3 * np.percentile(each, 99))}}


def _child(args):
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=args.threads):
        if args.role == "fit":
            row = _fit_method(args.method, args.n, args.seed, args.library_defaults)
        elif args.role == "build":
            row = _build_index(args.path, args.pipeline, args.n, args.seed, args.ann)
        else:
            row = _search_index(args.path, json.loads(Path(args.queries_file).read_text()))
    print("RESULT " + json.dumps(row), flush=True)


# ------------------------------------------------------------------------------ the parent
def run_child(args, role, timeout=None, **opts):
    """Run one measurement in a fresh interpreter; its row, or {"error": ...} when it failed or
    ran past ``timeout`` seconds."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--role", role, "--seed", str(args.seed),
           "--threads", str(args.threads)]
    for key, value in opts.items():
        cmd += [f"--{key.replace('_', '-')}", str(value)]
    if getattr(args, "library_defaults", False):
        cmd.append("--library-defaults")
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, env=index_bench._env(args.threads), capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"killed after {timeout:.0f} s"}
    wall = time.perf_counter() - start
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
        return {"error": f"exit status {done.returncode}: " + " | ".join(tail)}
    row = json.loads(lines[-1][len("RESULT "):])
    row["process_wall_s"] = wall
    return row


def loglog_slopes(sizes, seconds):
    """(slopes between consecutive sizes, least-squares slope over all sizes) of log(seconds)
    against log(n); NaN where fewer than two sizes."""
    x, y = np.log(np.asarray(sizes, float)), np.log(np.asarray(seconds, float))
    steps = [float(s) for s in np.diff(y) / np.diff(x)] if len(x) >= 2 else []
    fitted = float(np.polyfit(x, y, 1)[0]) if len(x) >= 2 else math.nan
    return steps, fitted


def predict(sizes, seconds, n):
    """Seconds at size ``n`` by the slope of the last two sizes measured (1: linear, after one)."""
    if not sizes:
        return math.nan
    slope = loglog_slopes(sizes[-2:], seconds[-2:])[0][-1] if len(sizes) >= 2 else 1.0
    return float(seconds[-1] * (n / sizes[-1]) ** slope)


class Series:
    """The measured sizes of one (method, measure), and the sizes skipped or failed."""

    def __init__(self, method, measure):
        self.method, self.measure = method, measure
        self.sizes, self.values, self.cpu, self.peaks, self.notes = [], [], [], [], {}

    @property
    def unit(self):
        return "ms/query" if self.measure.endswith("_ms") else "s"

    def add(self, n, value, peak_mb, cpu=None):
        self.sizes.append(n)
        self.values.append(float(value))
        self.cpu.append(None if cpu is None else float(cpu))
        self.peaks.append(peak_mb)

    def slopes(self):
        return loglog_slopes(self.sizes, self.values)

    def cpu_slope(self):
        """Least-squares slope of the CPU time (NaN unless every size has one above 0)."""
        if any(c is None or c <= 0 for c in self.cpu):
            return math.nan
        return loglog_slopes(self.sizes, self.cpu)[1]

    def as_dict(self):
        steps, fitted = self.slopes()
        cpu = self.cpu_slope()
        return {"method": self.method, "measure": self.measure, "unit": self.unit, "sizes": self.sizes,
                "values": self.values, "cpu_values": self.cpu, "peak_mb": self.peaks, "step_slopes": steps,
                "slope": None if math.isnan(fitted) else fitted, "cpu_slope": None if math.isnan(cpu) else cpu,
                "notes": {str(k): v for k, v in self.notes.items()}}


def _skip(series, method, measures, n, note):
    for measure in measures:
        series.setdefault((method, measure), Series(method, measure)).notes[n] = note


def _over(args, sizes, totals, n):
    """The predicted seconds at n when they pass --max-seconds, else None."""
    guess = predict(sizes, totals, n)
    return guess if args.max_seconds and guess > args.max_seconds else None


def run_method(args, method, series, work, queries_file, rows):
    """Every size of one method, smallest first, skipping what would pass --max-seconds."""
    timeout = None if not args.max_seconds else 3 * args.max_seconds + args.prep_allowance
    done_sizes, totals = [], []           # the child's timed seconds, for the predictions
    search_sizes, search_totals = [], []
    measures = ["build", "search_ms", "search_list_ms"] if method in INDEX_MODELS else [METHODS[method][1]]
    stopped = None
    for n in args.sizes:
        if stopped:
            _skip(series, method, measures, n, stopped)
            continue
        guess = _over(args, done_sizes, totals, n)
        if guess is not None:
            stopped = f"skipped: predicted {guess:.0f} s > --max-seconds {args.max_seconds:g}"
            _skip(series, method, measures, n, stopped)
            print(f"  {method} n={n}: {stopped}", flush=True)
            continue
        if method in INDEX_MODELS:
            path = work / f"{method}-{n}"
            shutil.rmtree(path, ignore_errors=True)
            row = run_child(args, "build", timeout, n=n, path=path,
                            pipeline=work / f"model-{INDEX_MODELS[method]}.npz", ann=INDEX_ANN[method])
            if "error" not in row:
                guess = _over(args, search_sizes, search_totals, n)
                if guess is not None:
                    row["search_skipped"] = f"search skipped: predicted {guess:.0f} s"
                else:
                    found = run_child(args, "search", timeout, path=path, queries_file=queries_file)
                    if "error" in found:
                        row["search_error"] = found["error"]
                    else:
                        row["measures"].update(found["measures"])
                        row.setdefault("cpu", {}).update(found.get("cpu", {}))
                        row["search_peak_mb"] = found["peak_mb"]
                        row["details"].update(found.get("details", {}))
                        search_sizes.append(n)
                        search_totals.append(found["seconds"])
            shutil.rmtree(path, ignore_errors=True)
        else:
            row = run_child(args, "fit", timeout, method=method, n=n)
        row.update(method=method, n=n)
        rows.append(row)
        if "error" in row:
            stopped = f"failed: {row['error']}"
            _skip(series, method, measures, n, stopped)
            print(f"  {method} n={n}: {stopped}", flush=True)
            continue
        done_sizes.append(n)
        totals.append(row["seconds"])
        for measure, value in row["measures"].items():
            key = "search_peak_mb" if measure.startswith("search") else "peak_mb"
            series.setdefault((method, measure), Series(method, measure)).add(
                n, value, row.get(key), row.get("cpu", {}).get(measure))
        for measure in measures:
            if measure not in row["measures"]:
                _skip(series, method, [measure], n, row.get("search_skipped") or row.get("search_error", "-"))
        parts = ", ".join(f"{k} {v:.3g} {'ms/query' if k.endswith('_ms') else 's'}" for k, v in row["measures"].items())
        peak = row.get("peak_mb")
        data = f"; data {row['prep_s']:.1f} s" if "prep_s" in row else ""
        print(f"  {method} n={n}: {parts}; peak {peak if peak is None else round(peak)} MB{data}", flush=True)


# ------------------------------------------------------------------------------ reporting
def _fmt_value(s, n):
    if n in s.sizes:
        v = s.values[s.sizes.index(n)]
        return f"{v:.3g}" if v < 100 else f"{v:.0f}"
    note = s.notes.get(n, "")
    return "skipped" if note.startswith("skipped") else ("failed" if note.startswith("failed") else "-")


def _fmt_peak(s, n):
    if n in s.sizes:
        p = s.peaks[s.sizes.index(n)]
        return "-" if p is None else f"{p:.0f}"
    return "-"


def table_lines(series, sizes, markdown=False):
    """The table: time at each size, peak MB at each size, slopes; plain text or markdown."""
    head = (["method", "measure", "unit"] + [f"{n:,}" for n in sizes] + [f"MB {n:,}" for n in sizes]
            + [f"slope {a // 1000}k-{b // 1000}k" for a, b in zip(sizes[:-1], sizes[1:])]
            + ["slope (l.s.)", "CPU slope (l.s.)"])
    body = []
    for s in series.values():
        steps = {}
        for (a, b), v in zip(zip(s.sizes[:-1], s.sizes[1:]), s.slopes()[0]):
            steps[a, b] = v
        fitted, cpu = s.slopes()[1], s.cpu_slope()
        body.append([s.method, s.measure, s.unit] + [_fmt_value(s, n) for n in sizes]
                    + [_fmt_peak(s, n) for n in sizes]
                    + [f"{steps[a, b]:.2f}" if (a, b) in steps else "-" for a, b in zip(sizes[:-1], sizes[1:])]
                    + ["-" if math.isnan(v) else f"{v:.2f}" for v in (fitted, cpu)])
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return lines + ["| " + " | ".join(r) + " |" for r in body]
    widths = [max(len(str(r[i])) for r in [head] + body) for i in range(len(head))]
    def fmt(r):
        return "  ".join(str(c).rjust(w) if i > 1 else str(c).ljust(w) for i, (c, w) in enumerate(zip(r, widths)))

    return [fmt(head), "-" * len(fmt(head))] + [fmt(r) for r in body]


def extrapolation_lines(series, targets):
    """Predicted value at each target size not measured, from the last measured slope."""
    lines = []
    for s in series.values():
        missing = [n for n in targets if n not in s.sizes and n > max(s.sizes, default=0)]
        if not s.sizes or not missing:
            continue
        guesses = ", ".join(f"{n:,}: {predict(s.sizes, s.values, n):.3g} {s.unit}" for n in missing)
        lines.append(f"  {s.method} {s.measure}: {guesses}")
    return lines


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES),
                    help=f"numbers of documents (default {' '.join(map(str, DEFAULT_SIZES))})")
    ap.add_argument("--methods", nargs="+", default=list(METHODS), metavar="METHOD",
                    help=f"among {', '.join(METHODS)} (default all)")
    ap.add_argument("--max-seconds", type=float, default=1800.0,
                    help="skip a method at the next size when its predicted time passes this (0: never skip; "
                         "a child is killed after 3x this plus --prep-allowance)")
    ap.add_argument("--prep-allowance", type=float, default=900.0, help=argparse.SUPPRESS)
    ap.add_argument("--library-defaults", action="store_true",
                    help="LinkLearn and LearnedBM25 with the estimators' default budgets (10x and 5x the "
                         "benchmark's: much slower, the same growth)")
    ap.add_argument("--threads", type=int, default=2, help="BLAS and numba threads per child (default 2)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", help="where the index runs write (default: a temporary directory)")
    ap.add_argument("--json", metavar="PATH", help="write every row, series and slope here")
    ap.add_argument("--markdown", metavar="PATH", help="write the markdown snippet here too")
    ap.add_argument("--from-json", metavar="PATH", help="measure nothing: report the results of a --json file")
    # a child's own arguments
    ap.add_argument("--role", help=argparse.SUPPRESS)
    ap.add_argument("--method", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    ap.add_argument("--pipeline", help=argparse.SUPPRESS)
    ap.add_argument("--ann", default="auto", help=argparse.SUPPRESS)
    ap.add_argument("--queries-file", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.role:
        return args
    bad = [m for m in args.methods if m not in METHODS]
    if bad:
        ap.error(f"unknown method(s) {', '.join(bad)}; choose among {', '.join(METHODS)}")
    if min(args.sizes) < 200 or args.threads < 1 or args.max_seconds < 0:
        ap.error("sizes must be >= 200, --threads >= 1 and --max-seconds >= 0")
    args.sizes = sorted(set(args.sizes))
    args.methods = list(dict.fromkeys(args.methods))
    return args


def markdown_snippet(args, series, header):
    lines = [f"Cost growth ({header}; `python benchmarks/bench_growth.py --sizes "
             f"{' '.join(map(str, args.sizes))} --methods {' '.join(args.methods)}`). Time in seconds "
             "(search: ms per query) and peak resident memory in MB during the timed call; log-log slopes of "
             "the wall time against n between consecutive sizes and by least squares, and the least-squares "
             f"slope of the CPU time (all threads; steadier on a shared machine). Goal for the fits: slope <= "
             f"{GOAL_SLOPE}.", ""]
    return lines + table_lines(series, args.sizes, markdown=True)


def main(argv=None):
    args = parse_args(argv)
    if args.role:
        return _child(args)
    if args.from_json:
        record = json.loads(Path(args.from_json).read_text())
        args.sizes, args.methods = record["sizes"], record["methods"]
        args.library_defaults = record["settings"].get("library_defaults", False)
        series = series_from_record(record)
        report(args, series, record.get("header", f"{record['machine']}, {record['cpus']} CPUs, "
                                        f"{record['threads']} thread(s), seed {record['seed']}"),
               record["rows"], record.get("pipelines", {}))
        return series
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="bench-growth-"))
    work.mkdir(parents=True, exist_ok=True)
    header = (f"{platform.machine()}, {os.cpu_count()} CPUs, {args.threads} thread(s), numpy {np.__version__}, "
              f"seed {args.seed}")
    print(f"cost growth: sizes {args.sizes}, methods {args.methods}; {header}; one process per measurement\n",
          flush=True)
    series, rows, fits = {}, [], {}
    try:
        queries_file = work / "queries.json"
        if any(m in INDEX_MODELS for m in args.methods):
            vocab = index_bench.vocabulary()
            df = index_bench.fitting_corpus(args.seed, vocab)[3]
            queries_file.write_text(json.dumps(index_bench.make_queries(N_QUERIES, args.seed, vocab, df)))
            for model in dict.fromkeys(INDEX_MODELS[m] for m in args.methods if m in INDEX_MODELS):
                fits[model] = index_bench.run_child("fit", args, model=model, path=work / f"model-{model}.npz")
        for method in args.methods:
            run_method(args, method, series, work, queries_file, rows)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    report(args, series, header, rows, fits)
    return series


def series_from_record(record):
    """The series of a JSON file this script wrote, rebuilt from its rows (and skip notes)."""
    series = {}
    for d in record["series"]:
        s = series.setdefault((d["method"], d["measure"]), Series(d["method"], d["measure"]))
        s.notes.update({int(k): v for k, v in d["notes"].items()})
    for row in record["rows"]:
        if "error" in row:
            continue
        for measure, value in row["measures"].items():
            peak = row.get("search_peak_mb" if measure.startswith("search") else "peak_mb")
            series.setdefault((row["method"], measure), Series(row["method"], measure)).add(
                row["n"], value, peak, row.get("cpu", {}).get(measure))
    return series


def report(args, series, header, rows, fits):
    """Print the table, the extrapolations and the markdown; write --markdown and --json."""
    print()
    for line in table_lines(series, args.sizes):
        print(line)
    targets = sorted(set(DEFAULT_SIZES) | set(args.sizes))
    extra = extrapolation_lines(series, targets)
    if extra:
        print("\nextrapolated from the last measured slope:")
        print("\n".join(extra))
    snippet = markdown_snippet(args, series, header)
    print("\nmarkdown for benchmarks/README.md:\n")
    print("\n".join(snippet))
    if args.markdown:
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(args.markdown).write_text("\n".join(snippet) + "\n")
    if args.json:
        out = Path(args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({
            "experiment": EXPERIMENT, "machine": platform.machine(), "cpus": os.cpu_count(),
            "threads": args.threads, "seed": args.seed, "sizes": args.sizes, "methods": args.methods,
            "settings": {"mcd_fixed": MCD_FIXED, "film_batch": FILM_BATCH, "relative_C_sum": RELATIVE_C_SUM,
                         "library_defaults": args.library_defaults, "linklearn": LINKLEARN_BUDGET,
                         "learnedbm25": LEARNEDBM25_BUDGET,
                         "relative_tol": RELATIVE_TOL, "links_per_doc": LINKS_PER_DOC, "queries": N_QUERIES},
            "header": header, "pipelines": fits, "series": [s.as_dict() for s in series.values()], "rows": rows},
            indent=1))
        print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
