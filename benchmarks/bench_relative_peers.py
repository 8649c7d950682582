"""Schultz & Joachims' relative-comparison metric against metric-learn's LSML and SCML on WebKB.

:class:`learnsim.relative.RelativeComparisonMetric` (paper 004) learns a weighting of the input
dimensions, d_w(x, y)^2 = sum_f w_f (x_f - y_f)^2 with w >= 0, from triplets (i, j, k),
"i is closer to j than to k", by an SVM-like quadratic program (C = 1, A = I, as in the paper).
The peers learn a full Mahalanobis matrix from the same kind of supervision:

* ``LSML`` (Liu et al. 2012): least squared-residual metric learning from quadruplets
  (a, b, c, d) meaning d(a, b) < d(c, d). metric-learn 0.7.0 counts a quadruplet as violated
  when ``dab > dcd`` (``_BaseLSML._comparison_loss``), so the FIRST pair is the one that should
  be closer: triplet (i, j, k) becomes quadruplet (i, j, i, k). Its prior, step sizes and
  stopping rule are metric-learn's defaults.
* ``SCML`` (Shi, Bellet & Sha 2014), metric-learn's triplet version: triplet (i, j, k) means
  d(i, j) < d(i, k), our convention, so the triplets go in unchanged. Basis 'triplet_diffs'
  (the default), metric-learn's other defaults (n_basis 80 x D, 10,000 iterations of batch 10)
  except where memory forces fewer bases (below).

Both peers keep dense D x D matrices (LSML: eigendecompositions and an inverse per step;
SCML: a basis of 80 D rank-one directions and a (triplets x bases) matrix of distance
differences), which the ~48,000 binary features of the paper's setting rule out. So the data
are reduced to D dimensions, fitted on the training pages only, in two ways:

* ``df<D>``: the D features (binary term presence) present on most training pages;
* ``lsi<D>``: LSI, the top-D right singular vectors of the training pages' binary matrix
  (:func:`learnsim._linalg.truncated_svd`, no centring, no re-weighting), applied to all pages.

D = 100 and 300 by default. D = 100 is metric-learn's own scale: SCML's default 80 D = 8,000
bases at 20,000 triplets need 3 x 20,000 x 8,000 x 8 bytes = 3.8 GB of distance differences.
D = 300 would need 24,000 bases (11.5 GB), so SCML's n_basis is capped at what
``SCML_MAX_BYTES`` allows (8,333 bases at 20,000 triplets: about 28 D, not 80 D); the table
says where. LSML takes about 10 s per iteration at D = 300 on 2 cores (ten tried step sizes,
each with a 300 x 300 eigendecomposition and log-determinant, and a Python loop of outer
products over the violated quadruplets), which is why D stops there.

Ours is fitted on the same reduced features and on the full binary features (the paper's
setting). Everyone gets the same training triplets: the first ``--n-train`` (default 20,000)
of 150,000 drawn from the training pages; SCML cannot take all 150,000 (its distance
differences alone would be 29 GB at D = 100), so ours is also fitted on all 150,000 full
binary triplets (the paper's training size, sec. 5) as a reference row. Everyone is scored on
the same test triplets drawn from the test pages with another seed (85,907, the paper's
|P_test|).

Data, as ``learnsim reproduce relative`` uses it: ``load_webkb(subset="paper")`` (4,184
pages), binary features of the page text (``webkb_features(corpus, "binary")``), a seeded
70/30 split of the pages, :func:`learnsim.webkb.webkb_triplets` for the Topic and
Topic+FacultyStudent distances (``--distances`` adds ``university``).

Measured for each method, in one process on the same data: test accuracy (the fraction of test
triplets with d(i, j) < d(i, k) strictly, ties are errors: :func:`learnsim.evaluation.
evaluate_triplets` on each model's ``transform``, which gives every method's own distance as a
Euclidean one), fit wall time (``time.perf_counter``) and process CPU time (steadier when other
jobs share the machine), both from the triplets on. Ratios: time_peer / time_ours and the
accuracy difference ours - peer, on the same features and against ours on the full features.
The Euclidean distance of the features themselves is the no-learning reference.

Usage::

    python benchmarks/bench_relative_peers.py --threads 1 --json results/relative-peers.json
    python benchmarks/bench_relative_peers.py --quick      # smoke run, under a minute
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_rca import blas_summary  # noqa: E402
from peers import require_metric_learn, run_with_threads  # noqa: E402

from learnsim._utils.linalg import truncated_svd  # noqa: E402
from learnsim.datasets import find_data_dir  # noqa: E402
from learnsim.evaluation import evaluate_triplets  # noqa: E402
from learnsim.reproduce.records import Results  # noqa: E402
from learnsim.relative import RelativeComparisonMetric  # noqa: E402
from learnsim.reproduce.relative import TOL, split_pages  # noqa: E402  (the reproduction's gap and split)
from learnsim.supervision import Triplets  # noqa: E402
from learnsim.reproduce.webkb import load_webkb, webkb_features, webkb_triplets  # noqa: E402

EXPERIMENT = "relative-peer"
C = 1.0
N_POOL = 150_000          # the paper's training size (sec. 5); ours is also fitted on all of it
N_SHARED = 20_000         # the triplets every method is fitted on
N_TEST = 85_907           # the paper's |P_test|
DIMS = (100, 300)
REDUCTIONS = ("df", "lsi")
DISTANCES = ("topic", "topic+facultystudent")
QUICK = {"n_pool": 3_000, "n_shared": 2_000, "n_test": 5_000, "dims": (50,), "distances": ("topic",)}
# SCML keeps (unique pairs + triplets) x n_basis float64 distance differences, about
# 3 x n_triplets x n_basis x 8 bytes; n_basis is capped so that this stays below the limit.
SCML_MAX_BYTES = 4e9
SCML_BASES_PER_DIM = 80   # metric-learn 0.7.0's default n_basis = 80 x n_features
METHODS = ("relative", "lsml", "scml")


# ---------------------------------------------------------------------------------- data
@dataclass
class Problem:
    """One distance: features of all pages (``features``: name -> matrix), the shared training
    triplets, the full training pool and the test triplets, all indexing the whole corpus."""

    distance: str
    features: dict
    train: np.ndarray
    pool: np.ndarray
    test: np.ndarray


def most_frequent_features(X, train_pages, dims):
    """Dense columns of the ``dims`` features present on most training pages (ties: the
    lower column, so the choice is reproducible)."""
    document_frequency = np.asarray((X[train_pages] != 0).sum(axis=0)).ravel()
    columns = np.sort(np.argsort(-document_frequency, kind="stable")[:dims])
    return np.asarray(X[:, columns].toarray(), dtype=np.float64)


def lsi_features(X, train_pages, dims, seed):
    """All pages projected on the top ``dims`` right singular vectors of the training pages."""
    _, Vt = truncated_svd(X[train_pages], dims, seed)
    return np.asarray(X @ Vt.T, dtype=np.float64)


def reduced_features(X, train_pages, dims, seed):
    """{"df<D>": ..., "lsi<D>": ...} for every D in ``dims``."""
    features = {}
    for d in dims:
        if d > min(train_pages.size, X.shape[1]):
            raise SystemExit(f"D={d} exceeds the {train_pages.size} training pages x {X.shape[1]} features")
        features[f"df{d}"] = most_frequent_features(X, train_pages, d)
        features[f"lsi{d}"] = lsi_features(X, train_pages, d, seed)
    return features


# ------------------------------------------------------------------------------ methods
def scml_n_basis(dims, n_triplets):
    """metric-learn's default n_basis (80 D), or fewer where its memory would exceed
    ``SCML_MAX_BYTES``; returns (n_basis, capped)."""
    default = SCML_BASES_PER_DIM * dims
    allowed = int(SCML_MAX_BYTES // (3 * 8 * n_triplets))
    return (default, False) if default <= allowed else (allowed, True)


def triplets_to_quadruplets(triplets):
    """(i, j, k) -> (i, j, i, k): LSML wants its first pair closer than its second."""
    triplets = np.asarray(triplets)
    return np.column_stack([triplets[:, 0], triplets[:, 1], triplets[:, 0], triplets[:, 2]])


def fit_method(method, X, triplets, *, metric_learn, seed, n_basis=None):
    """Fit one method on index ``triplets`` of the rows of ``X``; returns (model, wall s, cpu s,
    warning messages). The time covers everything from the triplets on, input checks included."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wall, cpu = time.perf_counter(), time.process_time()
        if method == "relative":
            model = RelativeComparisonMetric(C=C, tol=TOL, baseline_holdout=None).fit(X, Triplets(triplets))
        elif method == "lsml":
            model = metric_learn.LSML(preprocessor=X, random_state=seed).fit(triplets_to_quadruplets(triplets))
        elif method == "scml":
            model = metric_learn.SCML(preprocessor=X, n_basis=n_basis, random_state=seed).fit(triplets)
        else:
            raise ValueError(f"unknown method {method!r}; use one of {METHODS}")
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return model, wall, cpu, sorted({str(w.message).split("\n")[0] for w in caught})


def accuracy(model, X, triplets):
    """Strict triplet accuracy under the model's own distance, the Euclidean one of its
    ``transform`` (ours: sqrt(w) * x; the peers: L x)."""
    return evaluate_triplets(triplets, model.transform(X))["accuracy"]


def describe(method, model, messages, n_basis=None, capped=False):
    """What the table says about a fitted model beside its figures."""
    notes = []
    if method == "relative":
        weights = np.asarray(model.weights_)
        notes.append(f"{np.count_nonzero(weights)}/{weights.size} weights > 0")
        for name in ("n_iter_", "duality_gap_"):
            if hasattr(model, name):
                value = getattr(model, name)
                notes.append(f"{name.rstrip('_')} {value:.1e}" if isinstance(value, float) else f"{name.rstrip('_')} {value}")
    elif method == "lsml":
        notes.append(f"{model.n_iter_} iterations")
    else:
        notes.append(f"n_basis {n_basis}" + (f" (capped from {SCML_BASES_PER_DIM} D by memory)" if capped else ""))
    for m in messages:
        if "n_basis" in m and "will be set" in m:
            continue
        if "reduces the dimension" in m:
            notes.append("rank " + m.rsplit(" ", 1)[-1].rstrip("."))
        else:
            notes.append(m[:70])
    return "; ".join(notes)


def warm_up(X, triplets, metric_learn, seed):
    """One small untimed fit of each method, so that lazy imports and BLAS start-up are not
    charged to whichever method runs first."""
    small = triplets[:300]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        RelativeComparisonMetric(C=C, tol=TOL, baseline_holdout=None).fit(X, Triplets(small))
        metric_learn.LSML(preprocessor=X, max_iter=2, random_state=seed).fit(triplets_to_quadruplets(small))
        metric_learn.SCML(preprocessor=X, n_basis=2 * X.shape[1], max_iter=100, output_iter=100,
                          random_state=seed).fit(small)


# ---------------------------------------------------------------------------- protocol
@dataclass
class Row:
    features: str
    method: str
    n_train: int
    accuracy: float
    wall: float | None
    cpu: float | None
    note: str


def timed_fits(method, X, triplets, *, metric_learn, seed, repeats, n_basis=None):
    """``repeats`` fits; the last model and the median wall and CPU seconds."""
    runs = [fit_method(method, X, triplets, metric_learn=metric_learn, seed=seed, n_basis=n_basis)
            for _ in range(repeats)]
    model, _, _, messages = runs[-1]
    return model, statistics.median(r[1] for r in runs), statistics.median(r[2] for r in runs), messages


def _fmt(value, spec):
    return "-" if value is None else format(value, spec)


def compare(problem, X_full, metric_learn, *, seed, repeats, scml_seeds, results, reference_pool=True):
    """Fit every method on every reduced feature set, and ours on the full binary features;
    print, record and return the rows."""
    train, test = problem.train, problem.test
    rows = []

    def record(row):
        rows.append(row)
        setting = f"{problem.distance}/{row.features}" + ("" if row.n_train == train.shape[0] else f"/n{row.n_train}")
        results.add(EXPERIMENT, setting, row.method, "accuracy", row.accuracy)
        if row.wall is not None:
            results.add(EXPERIMENT, setting, row.method, "fit_seconds", row.wall)
            results.add(EXPERIMENT, setting, row.method, "fit_cpu_seconds", row.cpu)
        print(f"   {row.features:<8} {row.method:<10} {row.n_train:>7} {row.accuracy:>8.4f} "
              f"{_fmt(row.wall, '.2f'):>8} {_fmt(row.cpu, '.2f'):>8}  {row.note}", flush=True)

    print(f"\n== {problem.distance}: {train.shape[0]} training triplets (of a pool of {problem.pool.shape[0]}), "
          f"{test.shape[0]} test triplets")
    print(f"   {'features':<8} {'method':<10} {'n_train':>7} {'accuracy':>8} {'wall s':>8} {'cpu s':>8}  notes")
    record(Row("binary", "euclidean", 0, evaluate_triplets(test, X_full)["accuracy"], None, None,
               f"no learning, {X_full.shape[1]} binary features"))
    for name, X in problem.features.items():
        warm_up(X, train, metric_learn, seed)
        record(Row(name, "euclidean", 0, evaluate_triplets(test, X)["accuracy"], None, None, "no learning"))
        for method in METHODS:
            if method != "scml":
                model, wall, cpu, messages = timed_fits(method, X, train, metric_learn=metric_learn, seed=seed,
                                                        repeats=repeats)
                record(Row(name, method, train.shape[0], accuracy(model, X, test), wall, cpu,
                           describe(method, model, messages)))
                continue
            # SCML draws its basis and its mini-batches at random: the mean over scml_seeds fits
            n_basis, capped = scml_n_basis(X.shape[1], train.shape[0])
            fits = []
            for scml_seed in range(seed, seed + scml_seeds):
                model, wall, cpu, messages = timed_fits(method, X, train, metric_learn=metric_learn,
                                                        seed=scml_seed, repeats=repeats, n_basis=n_basis)
                fits.append((accuracy(model, X, test), wall, cpu))
            accs = [f[0] for f in fits]
            note = describe(method, model, messages, n_basis, capped)
            if scml_seeds > 1:
                note = (f"mean of {scml_seeds} seeds, accuracy sd {statistics.stdev(accs):.4f} "
                        f"(min {min(accs):.4f}); " + note + " (last seed)")
            record(Row(name, method, train.shape[0], statistics.mean(accs), statistics.mean(f[1] for f in fits),
                       statistics.mean(f[2] for f in fits), note))
    model, wall, cpu, messages = timed_fits("relative", X_full, train, metric_learn=metric_learn, seed=seed,
                                            repeats=repeats)
    record(Row("binary", "relative", train.shape[0], accuracy(model, X_full, test), wall, cpu,
               describe("relative", model, messages)))
    if reference_pool and problem.pool.shape[0] > train.shape[0]:
        model, wall, cpu, messages = timed_fits("relative", X_full, problem.pool, metric_learn=metric_learn,
                                                seed=seed, repeats=1)
        record(Row("binary", "relative", problem.pool.shape[0], accuracy(model, X_full, test), wall, cpu,
                   describe("relative", model, messages) + "; all the pool, peers cannot take it"))
    return rows


def print_ratios(distance, rows, n_train, results):
    """time_peer / time_ours and accuracy ours - peer, on the same features and against ours on
    the full binary features with the same triplets."""
    fitted = {(r.features, r.method): r for r in rows if r.wall is not None and r.n_train == n_train}
    full = fitted[("binary", "relative")]
    print(f"\n   {distance}: ratios (time_peer / time_ours, wall and cpu; accuracy ours - peer in points)")
    print(f"   {'peer':<15} {'vs ours on the same features':<40} {'vs ours on all binary features':<40}")
    for (features, method), peer in fitted.items():
        if method == "relative":
            continue
        ours = fitted[(features, "relative")]
        cells = []
        for label, reference in (("same", ours), ("full", full)):
            wall_ratio, cpu_ratio = peer.wall / reference.wall, peer.cpu / reference.cpu
            gain = reference.accuracy - peer.accuracy
            cells.append(f"{wall_ratio:6.1f}x wall {cpu_ratio:6.1f}x cpu {100 * gain:+6.2f}")
            setting = f"{distance}/{features}" + ("" if label == "same" else " vs binary")
            results.add(EXPERIMENT, setting, f"{method}/relative", "speedup", wall_ratio)
        print(f"   {features + ' ' + method:<15} {cells[0]:<40} {cells[1]:<40}")


# --------------------------------------------------------------------------------- main
def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", help="folder laid out like ../shared/data (default: learnsim.datasets.find_data_dir())")
    parser.add_argument("--distances", nargs="+", choices=("university", "topic", "topic+facultystudent"),
                        help=f"which WebKB distances (default {' '.join(DISTANCES)}; topic with --quick)")
    parser.add_argument("--dims", type=int, nargs="+",
                        help=f"reduced dimensions D (default {' '.join(map(str, DIMS))}; 50 with --quick)")
    parser.add_argument("--n-train", type=int, help=f"training triplets for every method (default {N_SHARED}; "
                                                    f"{QUICK['n_shared']} with --quick)")
    parser.add_argument("--n-pool", type=int, help=f"training triplets drawn, ours is also fitted on all of them "
                                                   f"(default {N_POOL}; {QUICK['n_pool']} with --quick)")
    parser.add_argument("--n-test", type=int, help=f"test triplets (default {N_TEST}; {QUICK['n_test']} with --quick)")
    parser.add_argument("--repeats", type=int, default=1, help="timed fits of each method, the median is reported (default 1)")
    parser.add_argument("--scml-seeds", type=int, default=1, help="SCML fits with random_state seed, seed + 1, ...; "
                                                                  "the mean is reported (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the page split, the training triplets (test: seed + 1) "
                                                            "and the peers' random_state (default 0)")
    parser.add_argument("--quick", action="store_true", help="smoke run: small sizes, one distance, D = 50")
    parser.add_argument("--threads", type=int, help="limit BLAS/OpenMP threads (threadpoolctl); default: leave as is")
    parser.add_argument("--json", metavar="PATH", help=f"write learnsim result records (experiment {EXPERIMENT!r}) here")
    args = parser.parse_args(argv)
    defaults = QUICK if args.quick else {"n_pool": N_POOL, "n_shared": N_SHARED, "n_test": N_TEST, "dims": DIMS,
                                         "distances": DISTANCES}
    args.distances = tuple(args.distances or defaults["distances"])
    args.dims = tuple(args.dims or defaults["dims"])
    args.n_train = args.n_train or defaults["n_shared"]
    args.n_pool = max(args.n_pool or defaults["n_pool"], args.n_train)
    args.n_test = args.n_test or defaults["n_test"]
    positive = (args.n_test, args.repeats, args.scml_seeds, 1 if args.threads is None else args.threads)
    if min(args.dims) < 2 or args.n_train < 2 * max(args.dims) or min(positive) < 1:
        # SCML's 'triplet_diffs' basis draws D triplets at a time, so it needs more triplets than dimensions
        parser.error("--dims must be at least 2, --n-train at least twice the largest D, --n-test, --repeats, "
                     "--scml-seeds and --threads positive")
    return args


def main(argv=None):
    return run_with_threads(run, parse_args(argv))


def run(args):
    metric_learn = require_metric_learn()
    data_dir = find_data_dir(args.data_dir)
    print(f"metric-learn {metric_learn.__version__}, numpy {np.__version__}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs; BLAS: {blas_summary()}", flush=True)
    t0 = time.perf_counter()
    corpus = load_webkb(data_dir=data_dir, subset="paper")
    X_full, _ = webkb_features(corpus, "binary", dtype=np.float64)
    train_pages, test_pages = split_pages(X_full.shape[0], args.seed)
    features = reduced_features(X_full, train_pages, args.dims, args.seed)
    print(f"WebKB paper subset: {X_full.shape[0]} pages ({train_pages.size} training, {test_pages.size} test), "
          f"{X_full.shape[1]} binary features, reduced to {', '.join(features)}; ready in "
          f"{time.perf_counter() - t0:.1f} s", flush=True)
    results = Results()
    all_rows = {}
    for distance in args.distances:
        pool = webkb_triplets(corpus, distance, args.n_pool, indices=train_pages, random_state=args.seed).indices
        test = webkb_triplets(corpus, distance, args.n_test, indices=test_pages, random_state=args.seed + 1).indices
        problem = Problem(distance, features, pool[:args.n_train], pool, test)
        all_rows[distance] = compare(problem, X_full, metric_learn, seed=args.seed, repeats=args.repeats,
                                     scml_seeds=args.scml_seeds, results=results)
    for distance, rows in all_rows.items():
        print_ratios(distance, rows, args.n_train, results)
    print("\naccuracy: fraction of test triplets (i, j, k) with d(i, j) < d(i, k), ties are errors, each method under "
          "its own learned distance. seconds: fit time from the triplets on (wall = time.perf_counter, cpu = process "
          f"CPU time){f', median of {args.repeats} fits' if args.repeats > 1 else ''}. relative = "
          "RelativeComparisonMetric(C=1); lsml = LSML on quadruplets (i, j, i, k); scml = SCML, basis "
          "'triplet_diffs'; features dfD = the D most frequent terms, lsiD = LSI to D, both fitted on the training "
          "pages; binary = all binary features.")
    if args.json:
        path = results.write_json(args.json)
        print(f"wrote {len(results)} records to {path}")
    return results, all_rows


if __name__ == "__main__":
    main()
