"""FILM's peak memory with the anchors' terms computed by blocks, against an earlier version of
the code (issue 16, part 3).

A FILM fit holds the SVD factor V (n x r float64, 1.2 GB at 300,000 items and r = 500). Before
this change it also held D = C^T V at the anchors (n_anchors x r, eq. 8), V[anchors] when the
anchors are a subset, and at every refresh a weighted copy of D to build K: up to three more
arrays of V's size. ``learnsim._film_blocks`` keeps the sparse C^T instead and computes D's rows in
blocks of 64 MiB at each refresh.

Every (code version, size) runs in its own subprocess, which builds the seeded Quora-like corpus
and triplets of ``bench_film_scale.py`` (``make_sentence_corpus``, ``make_supervision``), then fits
``FILM(n_components=d, batch_size=..., max_iter=..., baseline_holdout=None)`` and reports:

* the peak of the memory numpy and Python allocated during the fit (``tracemalloc``: every numpy
  buffer, the SVD's included; not BLAS's own workspace) - "traced GB";
* the peak resident memory of the fit (Linux ``VmHWM`` after ``/proc/self/clear_refs``; the
  corpus already held is included) - "RSS GB";
* V's size (n x r x 8 bytes), the fit's wall and CPU seconds, its iterations.

The default is full FILM (every triplet every iteration), where D is n_anchors x r; with
``--batch-size`` (M-FILM) D is only the batch's. The peak is reached in the first refresh, so a
few iterations (``--max-iter``, default 3) measure it; the fitted maps of the two versions are
compared (largest difference of L relative to its largest entry; same iterations).

``--refresh-timing`` also times, in the child of this code after its fit, the refresh of Lambda
and K (Algorithm 1, line 6) of full FILM on the same triplets and a random n x r V, with D stored
(the former way, forced by a block budget larger than D) and by blocks, alternately, and reports
the ratio of their CPU seconds (blocked / stored).

``--before REV`` extracts ``src/`` of the git revision REV (``git archive``, into a temporary
directory; the repository is not touched) and runs it as the earlier version in the same
invocation, on the same data.

Usage::

    python benchmarks/bench_film_memory.py --before HEAD              # 100k and 300k sentences
    python benchmarks/bench_film_memory.py --sizes 20000 --before HEAD --n-components 20
    python benchmarks/bench_film_memory.py --sizes 100000              # this code only
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_SIZES = (100_000, 300_000)


def refresh_timing(V, T, d, seed, repeats=3):
    """CPU and wall seconds of one refresh of full FILM's objective with D stored and by blocks
    (the median of ``repeats`` each, alternately)."""
    import learnsim.film._blocks as film_blocks
    from learnsim.film._film import _FilmObjective, _random_stiefel

    rng = np.random.default_rng(seed)
    budget = film_blocks._BLOCK_BYTES
    times = {"stored": [], "blocked": []}
    for _ in range(repeats):
        for way in times:
            film_blocks._BLOCK_BYTES = 2**62 if way == "stored" else budget
            objective = _FilmObjective(V, T, margin=0.0, temperature=0.1)
            P = _random_stiefel(rng, V.shape[1], d)
            wall, cpu = time.perf_counter(), time.process_time()
            objective.refresh(P)
            times[way].append((time.process_time() - cpu, time.perf_counter() - wall))
            del objective
    film_blocks._BLOCK_BYTES = budget
    return {way: [float(np.median([t[i] for t in ts])) for i in (0, 1)] for way, ts in times.items()}


def measure_one(n, src, settings, seed, out_path, timing=False):
    """In a child: fit FILM from the source tree ``src`` on ``n`` sentences; return figures and
    save the map L to ``out_path``."""
    sys.path.insert(0, str(src))
    import learnsim
    from learnsim.film import FILM

    from bench_film_scale import _reset_peak_rss, _rss_kib, make_sentence_corpus, make_supervision

    corpus = make_sentence_corpus(n, random_state=seed)
    X, train = corpus["X"], make_supervision(corpus, random_state=seed + 1)["train"]
    del corpus
    rss_before = _rss_kib("VmRSS")
    reset = _reset_peak_rss()
    tracemalloc.start()
    traced_before = tracemalloc.get_traced_memory()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    model = FILM(**settings, random_state=seed, baseline_holdout=None).fit(X, train)
    fit_seconds, fit_cpu = time.perf_counter() - wall, time.process_time() - cpu
    traced_peak = tracemalloc.get_traced_memory()[1] - traced_before
    tracemalloc.stop()
    rss_peak = _rss_kib("VmHWM") if reset else None
    np.save(out_path, model.components_)
    timings, n_iter = model.timings_, int(model.n_iter_)
    r = int(model.svd_rank_)
    refresh = None
    if timing:
        del model
        V = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, r)))[0]
        refresh = refresh_timing(np.ascontiguousarray(V), train, settings["n_components"], seed)
    return {"refresh": refresh, "n": n, "learnsim": str(Path(learnsim.__file__).resolve().parent), "n_terms": int(X.shape[1]),
            "n_triplets": int(train.shape[0]), "n_anchors": int(np.unique(train[:, 0]).size), "svd_rank": r,
            "V_gb": n * r * 8 / 2**30, "traced_peak_gb": traced_peak / 2**30,
            "rss_before_gb": None if rss_before is None else rss_before / 2**20,
            "rss_peak_gb": None if rss_peak is None else rss_peak / 2**20,
            "fit_seconds": fit_seconds, "fit_cpu_seconds": fit_cpu, "svd_seconds": timings["svd"],
            "optimise_seconds": timings["optimise"], "n_iter": n_iter}


def run_child(n, src, args, settings, out_path, timing=False):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", str(n), "--src", str(src), "--out", str(out_path),
           "--seed", str(args.seed), "--threads", str(args.threads), "--settings", json.dumps(settings)]
    if timing:
        cmd.append("--refresh-timing")
    env = dict(os.environ)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(args.threads)
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"the run with {n} sentences ({src}) failed (exit status {done.returncode})")
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    return json.loads(lines[-1][len("RESULT "):])


def extract_revision(rev, into):
    """``src/`` of git revision ``rev`` under ``into`` (git archive: the work tree and the index
    are left alone). Returns the path of the extracted ``src``."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "src"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return Path(into) / "src"


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES),
                        help=f"numbers of sentences (default {' '.join(map(str, DEFAULT_SIZES))})")
    parser.add_argument("--before", metavar="REV", help="also run src/ of this git revision (e.g. HEAD)")
    parser.add_argument("--n-components", type=int, default=100, help="d (default 100; r = 5 d)")
    parser.add_argument("--batch-size", type=int, default=0, help="M-FILM triplets per iteration (default 0: full FILM)")
    parser.add_argument("--max-iter", type=int, default=3, help="iterations (default 3: the peak is in the first)")
    parser.add_argument("--threads", type=int, default=2, help="BLAS and sparse-product threads (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--refresh-timing", action="store_true",
                        help="also time a refresh with D stored and by blocks (this code, same process)")
    parser.add_argument("--json", metavar="PATH", help="write the rows here as JSON")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)       # internal: one run, in a child
    parser.add_argument("--src", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--settings", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if min(args.sizes) < 100 or args.n_components < 1 or args.max_iter < 0 or args.batch_size < 0 or args.threads < 1:
        parser.error("sizes must be >= 100, --n-components and --threads positive, --max-iter and --batch-size >= 0")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.one is not None:
        from threadpoolctl import threadpool_limits
        with threadpool_limits(limits=args.threads):
            row = measure_one(args.one, args.src, json.loads(args.settings), args.seed, args.out,
                              timing=args.refresh_timing)
        print("RESULT " + json.dumps(row), flush=True)
        return row
    settings = {"n_components": args.n_components, "max_iter": args.max_iter, "n_iter_no_change": None}
    if args.batch_size:
        settings["batch_size"] = args.batch_size
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_film_memory_") as tmp:
        versions = [("this code", REPO / "src")]
        if args.before:
            versions.insert(0, (f"git {args.before}", extract_revision(args.before, tmp)))
        print(f"FILM {settings} on bench_film_scale's synthetic sentences, seed {args.seed}, "
              f"{args.threads} thread(s); one subprocess per run\n")
        header = (f"{'version':>12} {'n':>8} {'anchors':>8} {'r':>4} {'V GB':>6} {'traced GB':>9} {'RSS GB':>7} "
                  f"{'fit s':>7} {'cpu s':>7} {'SVD s':>6} {'opt s':>6} {'iter':>4} {'L vs before':>11}")
        print(header)
        print("-" * len(header))
        for n in args.sizes:
            maps = []
            for label, src in versions:
                out = Path(tmp) / f"L-{len(maps)}-{n}.npy"
                row = run_child(n, src, args, settings, out, timing=args.refresh_timing and label == "this code")
                L = np.load(out)
                diff = None
                if maps:
                    diff = float(np.abs(L - maps[0]).max() / np.abs(maps[0]).max())
                maps.append(L)
                row.update(version=label, L_relative_difference=diff)
                rows.append(row)
                rss = "-" if row["rss_peak_gb"] is None else f"{row['rss_peak_gb']:.2f}"
                print(f"{label:>12} {n:>8} {row['n_anchors']:>8} {row['svd_rank']:>4} {row['V_gb']:>6.2f} "
                      f"{row['traced_peak_gb']:>9.2f} {rss:>7} {row['fit_seconds']:>7.1f} "
                      f"{row['fit_cpu_seconds']:>7.1f} {row['svd_seconds']:>6.1f} {row['optimise_seconds']:>6.1f} "
                      f"{row['n_iter']:>4} {'-' if diff is None else f'{diff:.1e}':>11}", flush=True)
                if row["refresh"]:
                    (cs, ws), (cb, wb) = row["refresh"]["stored"], row["refresh"]["blocked"]
                    print(f"{'':>12} one refresh (K of {row['n_anchors']} anchors, r = {row['svd_rank']}): D stored "
                          f"{cs:.2f} s CPU ({ws:.2f} s wall), by blocks {cb:.2f} s CPU ({wb:.2f} s wall): "
                          f"ratio {cb / cs:.2f} (CPU), {wb / ws:.2f} (wall)", flush=True)
    print("\ntraced GB: peak of numpy's and Python's allocations during the fit (tracemalloc); RSS GB: peak "
          "resident memory during the fit, the corpus included; V GB: the SVD factor n x r; L vs before: "
          "largest |L - L_before| / largest |L_before| of the fitted maps; opt s: the Stiefel iterations (wall)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
        print(f"wrote {len(rows)} rows to {args.json}")
    return rows


if __name__ == "__main__":
    main()
