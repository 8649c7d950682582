"""Speed and exactness of the relative-comparison QP solver (paper 004, problem 8, A = I, C = 1)
on WebKB, against OSQP, a general QP solver, on the same problems.

    python benchmarks/bench_relative_solver.py [--sizes 10000 50000 150000] [--osqp-sizes 1000 3000]
                                              [--tol 1e-6 1e-3] [--C 1.0] [--with-urls] [--seed 0]

Data: the WebKB paper subset (4,184 pages), binary features without stemming or stop words
(~48,000), Topic+FacultyStudent triplets drawn from a seeded 70 % of the pages, as
`learnsim reproduce relative`; --with-urls adds the tokens of the pages' URLs and links (~66,000
features). --C gives the slack weights to run: the paper's 1, and the C that validation picks in
the reproduction (about 1e-3 at 150,000 triplets). For every C and size: our solver's wall / CPU time, passes, objective
and certified relative duality gap at each --tol. For the OSQP sizes, OSQP (eps 1e-9, polished)
on the same problem written out with slacks, the objective difference relative to ours at the
tightest tol, and the time ratio. Prints what it measured.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp

from learnsim.relative import RelativeComparisonMetric
from learnsim.reproduce.relative import split_pages
from learnsim.reproduce.webkb import load_webkb, webkb_features, webkb_triplets


def osqp_objective(X, T, C, time_limit):
    import osqp

    Xs = sp.csr_matrix(X)
    D = (Xs[T[:, 0]] - Xs[T[:, 2]]).power(2) - (Xs[T[:, 0]] - Xs[T[:, 1]]).power(2)
    D = sp.csc_matrix(D)
    m, n = D.shape
    P = sp.block_diag([sp.identity(n, format="csc"), sp.csc_matrix((m, m))]).tocsc()
    q = np.concatenate([np.zeros(n), C * np.ones(m)])
    A = sp.vstack([sp.hstack([D, sp.identity(m)]), sp.hstack([sp.identity(n), sp.csc_matrix((n, m))]),
                   sp.hstack([sp.csc_matrix((m, n)), sp.identity(m)])]).tocsc()
    lower = np.concatenate([np.ones(m), np.zeros(n + m)])
    solver = osqp.OSQP()
    solver.setup(P, q, A, lower, np.full(2 * m + n, np.inf), eps_abs=1e-9, eps_rel=1e-9, max_iter=1_000_000,
                 polish=True, verbose=False, time_limit=time_limit)
    t0, c0 = time.perf_counter(), time.process_time()
    result = solver.solve()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    w = np.maximum(result.x[:n], 0.0)
    objective = 0.5 * w @ w + C * np.maximum(0.0, 1.0 - D @ w).sum()
    return objective, wall, cpu, result.info.status


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000, 150_000])
    parser.add_argument("--osqp-sizes", type=int, nargs="*", default=[1_000, 3_000])
    parser.add_argument("--tol", type=float, nargs="+", default=[1e-3, 1e-6])
    parser.add_argument("--osqp-time-limit", type=float, default=600.0)
    parser.add_argument("--C", type=float, nargs="+", default=[1.0])
    parser.add_argument("--with-urls", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)

    corpus = load_webkb(args.data_dir, subset="paper")
    X, _ = webkb_features(corpus, "binary", with_urls=args.with_urls, dtype=np.float64)
    train, _ = split_pages(X.shape[0], args.seed)
    largest = max(args.sizes + list(args.osqp_sizes))
    pool = webkb_triplets(corpus, "topic+facultystudent", largest, indices=train, random_state=args.seed).indices
    print(f"WebKB: {X.shape[0]} pages, {X.shape[1]} binary features{' (text and URLs)' if args.with_urls else ''}; "
          f"Topic+FacultyStudent triplets")
    RelativeComparisonMetric(tol=1e-2, baseline_holdout=None).fit(X, pool[:200])       # compile the kernels outside the timings
    for C in args.C:
        print(f"\nC = {C:g}")
        print(f"{'triplets':>9} {'tol':>7} {'wall s':>8} {'CPU s':>8} {'passes':>7} {'objective':>16} {'rel. gap':>9}")
        ours = {}
        for m in sorted(set(args.sizes) | set(args.osqp_sizes)):
            for tol in sorted(args.tol, reverse=True):
                t0, c0 = time.perf_counter(), time.process_time()
                model = RelativeComparisonMetric(C=C, tol=tol, random_state=args.seed, baseline_holdout=None).fit(X, pool[:m])
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                ours[m, tol] = (model.objective_, wall, cpu)
                print(f"{m:>9} {tol:>7.0e} {wall:>8.1f} {cpu:>8.1f} {model.n_iter_:>7} {model.objective_:>16.10g} "
                      f"{model.duality_gap_:>9.1e}", flush=True)
        if args.osqp_sizes:
            tight = min(args.tol)
            print(f"\nOSQP (eps 1e-9, polished) against ours at tol {tight:g}:")
            print(f"{'triplets':>9} {'OSQP s':>8} {'ours s':>8} {'ratio':>7} {'OSQP objective':>16} {'rel. diff':>10} status")
            for m in args.osqp_sizes:
                objective, wall, cpu, status = osqp_objective(X, pool[:m], C, args.osqp_time_limit)
                mine, my_wall, _ = ours[m, tight]
                print(f"{m:>9} {wall:>8.1f} {my_wall:>8.2f} {wall / my_wall:>6.0f}x {objective:>16.10g} "
                      f"{(objective - mine) / mine:>10.1e} {status}", flush=True)


if __name__ == "__main__":
    main()
