"""Recall@10 against throughput of every ANN backend of `learnsim.ann`, with exact search as the reference.

What it measures (issue 16, part 1), on learned FILM vectors (``ann_vectors.py``: 20 Newsgroups,
the Quora sample, Flickr8k captions, and ``--synthetic-n`` synthetic sentences; unit rows,
float32, searched by inner product = FILM's cosine):

* the reference: the exact top 10 of every query by learnsim's
  ``ExactIndex("inner_product")``, and, in the same run, faiss's raw ``IndexFlatIP`` (one query
  at a time and in batches), with the ratio of their throughputs (goal: learnsim >= 0.8x faiss);
* for each backend of ``learnsim.ann.make_ann`` and a sweep of its search setting (changed with
  ``set_search_params``, no rebuild): faiss-flat; faiss-hnsw (M = 32, ef_construction 200) at
  ef_search 16 ... 256; faiss-ivf (nlist = 4 sqrt(n)) at nprobe 1 ... 64; usearch
  (connectivity 32, expansion_add 200) at expansion_search 16 ... 256. For each: build seconds,
  size on disk (``save``), recall@10 against the exact top 10 (the share of the ten found
  that score at least the exact 10th score, averaged over the queries: ties at the cut, from
  identical vectors, count whichever tied items are found; the plain share of the exact ids is
  in the JSON as ``recall_ids``), and queries per second one query at a time (the service's
  case, ``search(q[None], 10)`` in a loop) and in batches of 64, and these throughputs over the
  exact search's in the same mode (goal at 1M: recall@10 >= 0.95 at >= 10x exact).

Everything - builds and searches - runs on ONE thread (threadpoolctl limits BLAS and OpenMP,
faiss ``omp_set_num_threads(1)``, the backends' ``threads=1``), so the figures are per core
(``--build-threads N`` builds the indexes with N threads instead, to save time at 1M; the
searches stay on one).
Recall is taken from the batched searches of all the queries; the one-at-a-time loop runs over
the queries until all are done or ``--budget`` seconds have passed (at least 20 queries). Each
setting is timed ``--repeats`` times (default 3) and the fastest pass kept; the passes of the two
exact searches are interleaved. ``--clock cpu`` times by the process's CPU seconds instead of the
wall clock: every search runs on one thread, so that is the time it ran, steadier where other work
shares the cores. "x exact" is a throughput over learnsim's exact search's in the same mode.
The time of a search includes the backend's input checks and the mapping to ids: what a caller
of ``learnsim.ann`` gets. The vectors are prepared (FILM fits, several minutes) once and cached
under ``--workdir``; later runs reuse them.

Usage::

    python benchmarks/bench_ann.py --corpora 20ng quora flickr --clock cpu --json results/ann.json \
        --plot docs/ann_recall.png
    python benchmarks/bench_ann.py --corpora synthetic --synthetic-n 1000000 --json results/ann-1m.json \
        --plot results/ann-1m.png
    python benchmarks/bench_ann.py --quick          # every corpus, synthetic 100k, fewer settings

The markdown table goes to stdout, the rows to ``--json``, the recall/throughput plot to
``--plot`` (matplotlib, one panel per corpus).
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import json
import math
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ann_vectors  # noqa: E402

TOP_K = 10
BATCH = 64
GRAPH_M = 32                    # faiss-hnsw M and usearch connectivity: the same graph degree
EF_CONSTRUCTION = 200           # faiss-hnsw ef_construction and usearch expansion_add
EF_SWEEP = (16, 32, 64, 128, 256)
NPROBE_SWEEP = (1, 4, 16, 64)
QUICK_EF_SWEEP = (16, 64, 256)
QUICK_NPROBE_SWEEP = (1, 16)
MIN_SINGLE_QUERIES = 20
# Scores within this of the k-th exact score are ties at the cut (unit float32 rows: rounding
# differences between kernels are ~1e-7)
TIE_TOLERANCE = 1e-6
# the issue's goals
RECALL_GOAL = 0.95
SPEEDUP_GOAL = 10.0
SPEEDUP_GOAL_N = 1_000_000
EXACT_RATIO_GOAL = 0.8
REPO = Path(__file__).resolve().parent.parent
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


# --------------------------------------------------------------------------- measuring
@contextlib.contextmanager
def one_thread():
    """BLAS and OpenMP (faiss's too) limited to one thread inside the block."""
    from threadpoolctl import threadpool_limits

    faiss = _faiss_or_none()
    before = faiss.omp_get_max_threads() if faiss is not None else None
    if faiss is not None:
        faiss.omp_set_num_threads(1)
    try:
        # threadpoolctl finds the OpenMP and BLAS libraries loaded so far: faiss is loaded above
        with threadpool_limits(limits=1):
            yield
    finally:
        if faiss is not None:
            faiss.omp_set_num_threads(before)


def _faiss_or_none():
    try:
        import faiss
    except ImportError:
        return None
    return faiss


@contextlib.contextmanager
def _lifted_threads(threads):
    """Lift the one-thread limit of ``one_thread`` for a build with ``threads`` threads."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=threads):
        yield


def recall_at_k(found, reference):
    """Mean share of each query's reference ids (a row of ``reference``) that its row of ``found``
    holds; ids < 0 (a missing result) never count."""
    found, reference = np.asarray(found), np.asarray(reference)
    if found.shape[0] != reference.shape[0] or found.ndim != 2 or reference.ndim != 2:
        raise ValueError(f"found {found.shape} and reference {reference.shape} must be (n_queries, k) arrays "
                         "of the same number of rows")
    hits = (found[:, :, None] == reference[:, None, :]) & (reference[:, None, :] >= 0)
    return float(hits.any(axis=1).sum(axis=1).mean() / reference.shape[1])


class Reference:
    """The exact top ``k`` of every query, and the recall of other results against it.

    ``recall`` counts a found id as a hit when its exact score (float64, from the float32
    vectors) is at least the query's k-th exact score minus ``TIE_TOLERANCE``: where several
    items tie at the cut (identical vectors: the Quora sample has questions that differ only in
    case or punctuation), any k of them are a right answer, and exact searches break such ties
    differently (learnsim by ascending id, faiss as it scans). ``id_overlap`` is the plain
    share of the reference ids found (:func:`recall_at_k`).
    """

    def __init__(self, X, Q, ids):
        self.X, self.Q, self.ids = X, Q, np.asarray(ids)
        self.kth = self.scores(self.ids).min(axis=1)

    def scores(self, found, rows=None):
        """Exact float64 scores of the ids ``found`` (n, k) for queries ``rows`` (default: all);
        -inf where an id is missing (< 0)."""
        Q = self.Q if rows is None else self.Q[rows]
        safe = np.maximum(found, 0)
        out = np.einsum("qkd,qd->qk", self.X[safe].astype(np.float64), Q.astype(np.float64))
        return np.where(found >= 0, out, -np.inf)

    def recall(self, found):
        """Tie-aware recall@k of ``found`` (ids of the first ``len(found)`` queries)."""
        found = np.asarray(found)
        n, k = found.shape[0], self.ids.shape[1]
        hits = self.scores(found, slice(0, n)) >= self.kth[:n, None] - TIE_TOLERANCE
        return float(np.minimum(hits.sum(axis=1), k).mean() / k)

    def id_overlap(self, found):
        found = np.asarray(found)
        return recall_at_k(found, self.ids[:found.shape[0]])


class Timing(NamedTuple):
    """How searches are timed: ``budget`` seconds of one-at-a-time searching per setting at most,
    the fastest of ``repeats`` passes, by ``clock`` (``time.perf_counter``: wall; ``time.process_time``:
    the process's CPU time, steadier on a shared machine where the single thread waits for a core)."""
    budget: float = 5.0
    repeats: int = 3
    clock: Callable[[], float] = time.perf_counter


def time_single(search, Q, budget, min_queries=MIN_SINGLE_QUERIES, clock=time.perf_counter):
    """Queries per second of ``search`` one query at a time over the rows of Q, until all are
    done or ``budget`` seconds (of ``clock``) have passed (at least ``min_queries``); and the ids
    found."""
    found = []
    start = clock()
    elapsed = 0.0
    for i in range(Q.shape[0]):
        found.append(search(Q[i:i + 1])[0])
        elapsed = clock() - start
        if elapsed >= budget and i + 1 >= min_queries:
            break
    return len(found) / elapsed, np.vstack(found)


def time_batches(search, Q, batch=BATCH, clock=time.perf_counter):
    """Queries per second of ``search`` on blocks of ``batch`` rows of Q, and all the ids found."""
    start = clock()
    found = [search(Q[i:i + batch]) for i in range(0, Q.shape[0], batch)]
    return Q.shape[0] / max(clock() - start, 1e-9), np.vstack(found)


def timed_runs(searches, Q, timing):
    """Throughputs of each of ``searches`` (functions of a block of queries that return their
    (n, k) ids), batched and one at a time: ``repeats`` rounds, the searches of a round one after
    the other, the fastest pass of each kept (the machine may be shared: interleaving lets a
    disturbance weigh on all alike, the fastest pass is the least disturbed). ``timing``: the
    budget, repeats and clock (:class:`Timing`). Returns one (q/s batch, ids, q/s single, ids of
    the queries done singly) per search."""
    for search in searches:
        search(Q[:BATCH])                       # warm up: code paths, caches, lazy imports
        search(Q[:1])
    best = [[0.0, None, 0.0, None] for _ in searches]
    for _ in range(timing.repeats):
        for search, out in zip(searches, best):
            qps, found = time_batches(search, Q, clock=timing.clock)
            if qps > out[0]:
                out[0], out[1] = qps, found
            qps, found = time_single(search, Q, timing.budget, clock=timing.clock)
            if qps > out[2]:
                out[2], out[3] = qps, found
    return best


def _size_mb(path):
    path = Path(path)
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files) / 2**20


def _row(corpus, backend, setting, params, build_s, size_mb, reference, runs):
    """A row of the table from ``timed_runs``'s figures of one search."""
    batch, found, single, found_single = runs
    return {"corpus": corpus, "backend": backend, "setting": setting, "params": params, "build_s": build_s,
            "size_mb": size_mb, "recall": reference.recall(found), "recall_ids": reference.id_overlap(found),
            "qps_single": single, "qps_batch": batch, "recall_single": reference.recall(found_single),
            "n_single": int(found_single.shape[0])}


def measure(corpus, backend, setting, params, search, Q, reference, timing, build_s, size_mb):
    """One row: both throughputs and the recall of ``search`` against ``reference``."""
    return _row(corpus, backend, setting, params, build_s, size_mb, reference, timed_runs([search], Q, timing)[0])


def exact_rows(corpus, X, Q, timing, tmp):
    """learnsim's exact search and faiss's raw IndexFlatIP, their passes interleaved; returns
    (rows, the :class:`Reference`: learnsim's batched exact top 10)."""
    from learnsim.search import ExactIndex

    start = timing.clock()
    exact = ExactIndex("inner_product").fit(X)
    builds = [timing.clock() - start]
    searches = [lambda B: exact.search(B, TOP_K)[0]]
    names = [("exact (learnsim)", "ExactIndex")]
    sizes = [X.nbytes / 2**20]
    faiss = _faiss_or_none()
    if faiss is None:
        print("  faiss does not import: no IndexFlatIP reference (pip install learnsim[ann])")
    else:
        start = timing.clock()
        flat = faiss.IndexFlatIP(X.shape[1])
        flat.add(X)
        builds.append(timing.clock() - start)
        searches.append(lambda B: flat.search(B, TOP_K)[1])
        names.append(("faiss IndexFlatIP", "raw"))
        path = Path(tmp) / "flat-ip.faiss"
        faiss.write_index(flat, str(path))
        sizes.append(_size_mb(path))
        path.unlink()
    runs = timed_runs(searches, Q, timing)
    reference = Reference(X, Q, runs[0][1])
    rows = [_row(corpus, backend, setting, {}, build_s, size, reference, run)
            for (backend, setting), build_s, size, run in zip(names, builds, sizes, runs)]
    return rows, reference


def sweeps(n, quick=False):
    """(backend, build parameters, search parameter, values) of every backend's sweep."""
    ef = QUICK_EF_SWEEP if quick else EF_SWEEP
    nprobe = QUICK_NPROBE_SWEEP if quick else NPROBE_SWEEP
    nlist = max(1, min(round(4 * math.sqrt(n)), n // 39))    # faiss k-means wants 39 rows a list
    return [("faiss-flat", {}, None, (None,)),
            ("faiss-hnsw", {"M": GRAPH_M, "ef_construction": EF_CONSTRUCTION}, "ef_search", ef),
            ("faiss-ivf", {"nlist": nlist}, "nprobe", tuple(p for p in nprobe if p <= nlist)),
            ("usearch", {"connectivity": GRAPH_M, "expansion_add": EF_CONSTRUCTION}, "expansion_search", ef)]


def _setting_text(build, knob, value):
    parts = [f"{k}={v}" for k, v in build.items()] + ([f"{knob}={value}"] if knob else [])
    return " ".join(parts) or "-"


def ann_rows(corpus, X, Q, reference, backends, quick, timing, tmp, build_threads=1):
    """Rows of every backend in ``backends`` and setting of its sweep; each index is built with
    ``build_threads`` threads and searched with one."""
    from learnsim.ann import make_ann

    rows = []
    for backend, build, knob, values in sweeps(X.shape[0], quick):
        if backend not in backends:
            continue
        start = timing.clock()
        ann = make_ann(backend, metric="inner_product", threads=build_threads, **build)
        if build_threads > 1:
            with _lifted_threads(build_threads):
                ann.fit(X)
        else:
            ann.fit(X)
        build_s = timing.clock() - start
        ann.set_search_params(threads=1)
        path = Path(tmp) / backend
        ann.save(path)
        size = _size_mb(path)
        shutil.rmtree(path)
        for value in values:
            if knob:
                ann.set_search_params(**{knob: value})
            params = {**build, **({knob: value} if knob else {})}
            row = measure(corpus, backend, _setting_text(build, knob, value), params,
                          lambda B: ann.search(B, TOP_K)[0], Q, reference, timing, build_s, size)
            rows.append(row)
            print(f"  {backend:<11} {row['setting']:<34} recall {row['recall']:.3f}  "
                  f"{row['qps_single']:>9,.0f} q/s single  {row['qps_batch']:>9,.0f} q/s batch", flush=True)
        print(f"  {backend}: built in {build_s:.1f} s, {size:.1f} MB on disk", flush=True)
        ann = None                              # freed before the next build (1M rows: GBs)
        gc.collect()
    return rows


def add_ratios(rows):
    """Each row's throughputs over learnsim's exact search in the same corpus and mode."""
    exact = {r["corpus"]: r for r in rows if r["backend"] == "exact (learnsim)"}
    for r in rows:
        ref = exact.get(r["corpus"])
        r["x_exact_single"] = r["qps_single"] / ref["qps_single"] if ref else None
        r["x_exact_batch"] = r["qps_batch"] / ref["qps_batch"] if ref else None
    return rows


# --------------------------------------------------------------------------- reporting
def markdown_table(rows):
    head = ("corpus", "backend", "setting", "build s", "MB", "recall@10", "q/s single", "q/s batch 64",
            "x exact single", "x exact batch")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join([
            r["corpus"], r["backend"], r["setting"], f"{r['build_s']:.2f}", f"{r['size_mb']:.1f}",
            f"{r['recall']:.3f}", f"{r['qps_single']:,.0f}", f"{r['qps_batch']:,.0f}",
            f"{r['x_exact_single']:.2f}", f"{r['x_exact_batch']:.2f}"]) + " |")
    return "\n".join(lines)


def goal_lines(rows, sizes):
    """The issue's goals, per corpus: learnsim exact against faiss IndexFlatIP, and the fastest
    setting with recall@10 >= RECALL_GOAL against exact, one at a time and batched."""
    out = []
    for corpus in dict.fromkeys(r["corpus"] for r in rows):
        mine = [r for r in rows if r["corpus"] == corpus]
        exact = next((r for r in mine if r["backend"] == "exact (learnsim)"), None)
        flat = next((r for r in mine if r["backend"] == "faiss IndexFlatIP"), None)
        if exact and flat:
            single, batch = exact["qps_single"] / flat["qps_single"], exact["qps_batch"] / flat["qps_batch"]
            ok = min(single, batch) >= EXACT_RATIO_GOAL
            out.append(f"{corpus}: learnsim exact / faiss IndexFlatIP throughput: {single:.2f} single, "
                       f"{batch:.2f} batch (goal >= {EXACT_RATIO_GOAL}: {'met' if ok else 'NOT met'})")
        good = [r for r in mine if r["recall"] >= RECALL_GOAL and r["backend"] in ANN_NAMES]
        at_scale = sizes.get(corpus, 0) >= SPEEDUP_GOAL_N
        for mode in ("single", "batch"):
            if not good:
                out.append(f"{corpus}: no ANN setting reaches recall@10 >= {RECALL_GOAL}")
                break
            best = max(good, key=lambda r: r[f"x_exact_{mode}"])
            verdict = (f" (goal >= {SPEEDUP_GOAL:g}x at {SPEEDUP_GOAL_N:,}: "
                       f"{'met' if best[f'x_exact_{mode}'] >= SPEEDUP_GOAL else 'NOT met'})") if at_scale else ""
            out.append(f"{corpus}: fastest with recall@10 >= {RECALL_GOAL}, {mode}: {best['backend']} "
                       f"{best['setting']}: {best[f'x_exact_{mode}']:.1f}x exact, recall {best['recall']:.3f}{verdict}")
    return out


ANN_NAMES = ("faiss-flat", "faiss-hnsw", "faiss-ivf", "usearch")


def plot(rows, infos, path, clock="wall"):
    """recall@10 (x) against queries/s (log y), one panel per corpus, one line per backend (solid:
    one at a time, dashed: batches of 64), exact search as horizontal lines."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    corpora = list(dict.fromkeys(r["corpus"] for r in rows))
    width = max(9.0, 4.6 * len(corpora))
    fig, axes = plt.subplots(1, len(corpora), figsize=(width, 4.8), squeeze=False)
    colours = dict(zip(ANN_NAMES, ("tab:gray", "tab:blue", "tab:green", "tab:red")))
    for ax, corpus in zip(axes[0], corpora):
        mine = [r for r in rows if r["corpus"] == corpus]
        for backend in ANN_NAMES:
            line = sorted((r for r in mine if r["backend"] == backend), key=lambda r: r["recall"])
            if not line:
                continue
            recall = [r["recall"] for r in line]
            ax.plot(recall, [r["qps_single"] for r in line], "o-", color=colours[backend], label=f"{backend}, single")
            ax.plot(recall, [r["qps_batch"] for r in line], "s--", color=colours[backend], alpha=0.7,
                    label=f"{backend}, batch {BATCH}")
        for backend, style in (("exact (learnsim)", "k"), ("faiss IndexFlatIP", "tab:purple")):
            ref = next((r for r in mine if r["backend"] == backend), None)
            if ref:
                ax.axhline(ref["qps_single"], color=style, lw=1, label=f"{backend}, single")
                ax.axhline(ref["qps_batch"], color=style, lw=1, ls="--", label=f"{backend}, batch {BATCH}")
        ax.axvline(RECALL_GOAL, color="0.8", lw=0.8, ls=":")
        ax.set_yscale("log")
        ax.set_xlabel("recall@10 (vs exact top 10)")
        info = infos.get(corpus, {})
        ax.set_title(f"{corpus}: {info.get('n', 0):,} x {info.get('dimensions', '?')}, FILM", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("queries / CPU second (one thread)" if clock == "cpu" else "queries / s (one thread)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    ncol = 4 if width < 12 else 6
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.06 * math.ceil(len(labels) / ncol), 1, 1))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def environment():
    import learnsim
    from threadpoolctl import threadpool_info

    versions = {"learnsim": getattr(learnsim, "__version__", "?"), "numpy": np.__version__,
                "python": platform.python_version()}
    for name in ("faiss", "usearch"):
        try:
            versions[name] = __import__(name).__version__
        except ImportError:
            versions[name] = None
    with one_thread():
        pools = [f"{p['internal_api']}:{p['num_threads']}" for p in threadpool_info()]
    return {"versions": versions, "machine": platform.machine(), "cpus": os.cpu_count(),
            "thread_pools_while_measuring": pools}


# --------------------------------------------------------------------------- main
def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", nargs="+", choices=ann_vectors.CORPORA, default=list(ann_vectors.CORPORA))
    ap.add_argument("--backends", nargs="+", choices=ANN_NAMES, default=list(ANN_NAMES))
    ap.add_argument("--synthetic-n", type=int, default=None, help="synthetic collection size (default 1,000,000; "
                    "--quick 100,000)")
    ap.add_argument("--fit-n", type=int, default=None, help="synthetic sentences FILM is fitted on (default "
                    f"{ann_vectors.DEFAULT_FIT_N:,}; --quick 50,000)")
    ap.add_argument("--queries", type=int, default=None, help="queries per corpus (default 1000; --quick 300)")
    ap.add_argument("--dimensions", type=int, default=100, help="FILM n_components (default 100)")
    ap.add_argument("--budget", type=float, default=5.0,
                    help="seconds of one-at-a-time searching per setting at most (default 5)")
    ap.add_argument("--repeats", type=int, default=3, help="timed passes per setting, the fastest kept (default 3)")
    ap.add_argument("--clock", choices=tuple(CLOCKS), default="wall",
                    help="wall: elapsed time (default); cpu: the process's CPU time, for a machine shared with "
                         "other work (every search runs on one thread, so CPU seconds are the seconds it ran)")
    ap.add_argument("--build-threads", type=int, default=1,
                    help="threads of the ANN builds (default 1, as every search; build s is then per core)")
    ap.add_argument("--workdir", default=str(REPO / "results" / "ann-work"),
                    help="cache of the prepared vectors (default results/ann-work)")
    ap.add_argument("--data-dir", default=None, help="corpora folder (default: learnsim.datasets.find_data_dir)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="synthetic 100k, 300 queries, fewer settings")
    ap.add_argument("--json", metavar="PATH", help="write the rows and the settings here")
    ap.add_argument("--plot", metavar="PATH", help="write the recall/throughput plot here (PNG)")
    a = ap.parse_args(argv)
    if a.synthetic_n is None:
        a.synthetic_n = 100_000 if a.quick else 1_000_000
    if a.fit_n is None:
        a.fit_n = 50_000 if a.quick else ann_vectors.DEFAULT_FIT_N
    if a.queries is None:
        a.queries = 300 if a.quick else 1000
    a.timing = Timing(a.budget, a.repeats, CLOCKS[a.clock])
    if a.synthetic_n < 1000 or a.fit_n < 1000 or a.queries < 1 or a.dimensions < 1 or a.budget <= 0 \
            or a.repeats < 1 or a.build_threads < 1:
        ap.error("--synthetic-n and --fit-n must be >= 1000, --queries, --dimensions, --repeats and "
                 "--build-threads >= 1, "
                 "--budget > 0")
    return a


def run_corpus(name, X, Q, a):
    with tempfile.TemporaryDirectory(prefix="bench-ann-") as tmp, one_thread():
        rows, reference = exact_rows(name, X, Q, a.timing, tmp)
        print(f"  exact: learnsim {rows[0]['qps_single']:,.0f} q/s single, {rows[0]['qps_batch']:,.0f} batch"
              + (f"; faiss IndexFlatIP {rows[1]['qps_single']:,.0f} / {rows[1]['qps_batch']:,.0f} "
                 f"(recall {rows[1]['recall']:.3f})" if len(rows) > 1 else ""), flush=True)
        rows += ann_rows(name, X, Q, reference, a.backends, a.quick, a.timing, tmp, a.build_threads)
    return rows


def main(argv=None):
    a = parse_args(argv)
    try:
        from learnsim.ann import available_backends
        backends = [b for b in a.backends if b in available_backends()]
    except ImportError as exc:
        print(f"learnsim.ann does not import ({exc}); only the exact references run")
        backends = []
    skipped = sorted(set(a.backends) - set(backends))
    if skipped:
        print(f"backends not available here (pip install learnsim[ann]): {', '.join(skipped)}")
    a.backends = backends
    env = environment()
    print(f"learnsim.ann recall@10 / throughput, top {TOP_K}, batches of {BATCH}, ONE thread for every search "
          f"and {a.build_threads} for the builds (figures per core), timed by the {a.clock} clock; {env['cpus']} CPUs, "
          f"{env['machine']}; {env['versions']}")
    print(f"thread pools while measuring: {', '.join(env['thread_pools_while_measuring'])}", flush=True)

    rows, infos, skipped_corpora = [], {}, {}
    for name in a.corpora:
        try:
            X, Q, info = ann_vectors.prepare(name, a.workdir, dimensions=a.dimensions, seed=a.seed,
                                             n=a.synthetic_n, fit_n=a.fit_n, data_dir=a.data_dir)
        except FileNotFoundError as exc:
            print(f"{name}: skipped, its corpus is absent ({exc})")
            skipped_corpora[name] = str(exc)
            continue
        Q = Q[:a.queries]
        infos[name] = {**info, "queries_used": int(Q.shape[0])}
        print(f"{name}: {X.shape[0]:,} x {X.shape[1]} collection, {Q.shape[0]:,} queries "
              f"({info['query_source']})", flush=True)
        rows += run_corpus(name, X, Q, a)
        del X
        gc.collect()
    if not rows:
        raise SystemExit("no corpus could be prepared")
    add_ratios(rows)
    print("\n" + markdown_table(rows))
    print(f"\nq/s: queries per second on one thread, one query at a time (single) and in batches of {BATCH}; "
          "x exact: over learnsim's ExactIndex in the same mode; recall@10: share of the ten found that score at "
          "least the exact 10th score (ties count; batched searches of all the queries); build s: fit "
          f"({a.build_threads} thread{'s' if a.build_threads > 1 else ''}); MB: the saved index on disk; "
          f"seconds are {'CPU seconds of the process' if a.clock == 'cpu' else 'wall-clock seconds'}.")
    sizes = {k: v["n"] for k, v in infos.items()}
    goals = goal_lines(rows, sizes)
    print("\n" + "\n".join(goals))
    if a.json:
        path = Path(a.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {"benchmark": "bench_ann", "argv": sys.argv[1:] if argv is None else list(argv),
                  "top_k": TOP_K, "batch": BATCH, "search_threads": 1, "build_threads": a.build_threads,
                  "clock": a.clock, "environment": env, "corpora": infos,
                  "skipped_corpora": skipped_corpora, "goals": goals, "rows": rows}
        path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    if a.plot:
        print(f"wrote {plot(rows, infos, a.plot, a.clock)}")
    return rows


if __name__ == "__main__":
    main()
