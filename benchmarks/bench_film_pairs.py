"""FILM fitted on duplicate pairs as clusters of two: where its time goes and what the BLAS
threads cost it.

The reported case: FILM on 1,500 clusters of two documents (what duplicate pairs become) took
270 s on the shared 2-core machine, mcd 30 s. Here the first ``--pairs`` duplicate pairs of the
Quora sample's dev.tsv are the clusters (3,000 questions, tf.idf, L2 rows), and
``FILM(random_state=0)`` is fitted on their labels (5 triplets per item, d = 100, r = 500: every
item an anchor), in one process, alternating:

* ``now``: the code as it is: the optimiser's own r x d products (stiefel.py) and FILM's small
  products on one BLAS thread (``learnsim._utils.linalg.small_blas``), K and z on BLAS's threads
  where they are large;
* ``before``: every product on BLAS's threads (the code before: no ``small_blas`` in
  learnsim.film);
* ``single``: the whole fit under one BLAS thread (``threadpool_limits(1)``), for reference.

It prints each fit's wall and CPU seconds, its stages (``timings_``), the iterations, the peak of
the memory Python allocated during the fit (tracemalloc) and the largest difference of the learned
map L from the first ``before`` fit (the modes give the same model up to rounding). On a loaded
machine wall time varies with the other work: compare modes within a run, and the CPU seconds.

Usage::

    python benchmarks/bench_film_pairs.py                    # 1,500 pairs, 2 rounds
    python benchmarks/bench_film_pairs.py --holdout 0.2      # with FILM's held-out check (2 fits)
    python benchmarks/bench_film_pairs.py --profile          # cProfile of one 'now' fit
    python benchmarks/bench_film_pairs.py --refresh-timing   # z and K of one refresh, D P two ways
    python benchmarks/bench_film_pairs.py --user-path        # learnsim.fit(clusters=..., method="film")

``--user-path`` runs what the user ran once, ``learnsim.fit(texts, clusters=labels, method="film")``
(FILM with its held-out check, then the search check: four FILM fits), and prints its wall seconds
and the process's peak RSS; for the code before, run it with that code's ``src`` first on
``PYTHONPATH`` (the script's modes need this code's learnsim.film).

``--refresh-timing`` times the anchors' terms of one refresh (z of step 2 and K of step 4) on one
BLAS thread, on an objective of this fit's shape (3,000 anchors, every item one, 5 triplets each,
r = 500, d = 100, orthonormal random V), with D P computed as D @ P (before) and as C^T (V P)
(now), alternating; and the largest difference of z between the two.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np


def _data_dir(arg):
    if arg:
        return Path(arg)
    if os.environ.get("LEARNSIM_DATA"):
        return Path(os.environ["LEARNSIM_DATA"])
    return Path(__file__).resolve().parents[1].parent / "shared" / "data"


def duplicate_clusters(path, n_pairs):
    """(texts, labels): the first ``n_pairs`` duplicate pairs of a Quora TSV (label, a, b, ...)
    as clusters of two."""
    pairs = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3 and parts[0] == "1":
                pairs.append((parts[1], parts[2]))
            if len(pairs) == n_pairs:
                break
    texts = [t for a, b in pairs for t in (a, b)]
    return texts, np.repeat(np.arange(len(pairs)), 2)


@contextlib.contextmanager
def mode(name):
    """The BLAS threading of ``name`` (see the module notes)."""
    import learnsim.film._blocks as blocks
    import learnsim.film._film as film
    import learnsim.film.stiefel as stiefel
    from threadpoolctl import threadpool_limits

    modules = (film, blocks, stiefel)
    saved = [m.small_blas for m in modules]
    if name == "before":
        for m in modules:
            m.small_blas = lambda flops: contextlib.nullcontext()
    try:
        with threadpool_limits(1, user_api="blas") if name == "single" else contextlib.nullcontext():
            yield
    finally:
        for m, f in zip(modules, saved):
            m.small_blas = f


def refresh_timing(rounds, n=3000, r=500, d=100, per_anchor=5, repeats=10):
    import learnsim.film._blocks as blocks
    from learnsim.film._film import _FilmObjective, _random_stiefel
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    V = np.ascontiguousarray(np.linalg.qr(rng.normal(size=(n, r)))[0])
    anchors = np.repeat(np.arange(n), per_anchor)
    T = np.column_stack([anchors, (anchors + 1) % n, rng.integers(0, n, anchors.size)])
    objective = _FilmObjective(V, T, margin=0.1, temperature=0.1)
    block, P = objective.block, _random_stiefel(rng, r, d)
    s = objective.scales(P)
    now = blocks._AnchorBlock._projected

    def before(self, P):
        for lo, hi, D, VA in self.blocks():
            yield lo, hi, D, VA, VA @ P, D @ P
    z = {}
    try:
        with threadpool_limits(1, user_api="blas"):
            for round_ in range(rounds):
                for name, projected in (("before", before), ("now", now)):
                    blocks._AnchorBlock._projected = projected
                    cpu = time.process_time()
                    for _ in range(repeats):
                        z[name] = block.z_values(P, s)
                        block.k_matrix(np.ones(n))
                    print(f"round {round_} {name:6s}: z + K {(time.process_time() - cpu) / repeats * 1e3:.1f} ms "
                          "of CPU", flush=True)
    finally:
        blocks._AnchorBlock._projected = now
    print(f"max |z_now - z_before| / max |z_before| "
          f"{np.abs(z['now'] - z['before']).max() / np.abs(z['before']).max():.1e}")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir")
    parser.add_argument("--pairs", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--modes", nargs="+", default=["before", "now", "single"],
                        choices=["before", "now", "single"])
    parser.add_argument("--holdout", type=float, default=None, help="FILM's baseline_holdout (default None)")
    parser.add_argument("--max-iter", type=int, default=200)
    parser.add_argument("--profile", action="store_true", help="cProfile one 'now' fit instead")
    parser.add_argument("--refresh-timing", action="store_true", help="time z and K of a refresh instead")
    parser.add_argument("--user-path", action="store_true", help="time learnsim.fit(clusters=..., method='film')")
    args = parser.parse_args(argv)
    if args.user_path:
        import learnsim

        texts, labels = duplicate_clusters(_data_dir(args.data_dir) / "quora-sample" / "dev.tsv", args.pairs)
        wall = time.perf_counter()
        learnsim.fit(texts, clusters=labels, method="film")
        print(f"learnsim.fit(clusters=..., method='film') on {len(texts)} texts: {time.perf_counter() - wall:.1f} s, "
              f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
        return 0
    if args.refresh_timing:
        return refresh_timing(args.rounds)

    from learnsim.film import FILM
    from learnsim.text import TextVectorizer

    texts, labels = duplicate_clusters(_data_dir(args.data_dir) / "quora-sample" / "dev.tsv", args.pairs)
    X = TextVectorizer("tfidf", norm="l2", dtype=np.float64).fit_transform(texts)
    print(f"{len(texts)} texts in {labels.max() + 1} clusters of two, X {X.shape}, "
          f"RSS before the fits {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB", flush=True)

    def fit():
        return FILM(random_state=0, baseline_holdout=args.holdout, max_iter=args.max_iter).fit(X, labels)

    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        with mode("now"):
            profiler.runcall(fit)
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(15)
        return 0

    with mode("now"):        # imports and first calls out of the timings
        FILM(random_state=0, baseline_holdout=None, max_iter=2).fit(X, labels)
    reference = None
    for round_ in range(args.rounds):
        for name in args.modes:
            tracemalloc.start()
            wall, cpu = time.perf_counter(), time.process_time()
            with mode(name):
                model = fit()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            L = model.components_
            if reference is None:
                reference = L
            diff = float(np.max(np.abs(L - reference))) / float(np.max(np.abs(reference)))
            stages = ", ".join(f"{k} {v:.1f}" for k, v in model.timings_.items())
            print(f"round {round_} {name:6s}: wall {wall:6.1f} s, CPU {cpu:6.1f} s ({stages}); "
                  f"{model.n_iter_} iterations; traced peak {peak / 2**20:.0f} MB; "
                  f"max |L - L_first| / max |L_first| {diff:.1e}; load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
