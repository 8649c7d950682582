"""Relative comparisons under a shift of university: WebKB, trained on some universities, tested on another (issue 13, sec. 4).

The learned weighted Euclidean distance of Schultz & Joachims (``RelativeComparisonMetric``,
A = I) on the reproduction's binary page-text features (``learnsim reproduce relative``), for
the Topic and Topic+FacultyStudent distances (the University distance has no meaning inside
one university). For each of the four named university folders u (cornell, texas, washington,
wisconsin), its pages are split in two halves (seed 0); the test triplets are drawn among one
half, and two training sets of the same number of pages are compared on them, in one process:

* shifted: the pages of every other folder (the other three and ``misc``, pages of many other
  universities); u is never seen;
* in-domain: as many pages drawn from every folder, the other half of u included.

The vocabulary is fitted on the training pages only (``webkb_features(fit_indices=...)``); C is
chosen from the reproduction's grid on validation triplets over held-out training pages (the
pages of one other named folder for the shifted setting, a random quarter of the training pages
for the in-domain one), then the metric is refitted on all training triplets. Measure: the
share of test triplets satisfied, against the metric's own baseline W = 1 (the Euclidean
distance on the same binary features) as a ratio and a difference with a paired bootstrap 95 %
interval over the test triplets; the best static distance of the reproduction (stemmed tf.idf,
L2 rows) is printed beside it. Where the class has the held-out baseline check
(``baseline_holdout``), the learned metric is forced on and the default fit's accuracy and
verdict (``baseline_gain_.status``) are shown too.

    python benchmarks/shift_relative.py [--quick] [--n-train 30000] [--n-test 20000] [--data-dir DIR]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from learnsim.relative import RelativeComparisonMetric
from learnsim.reproduce.relative import C_GRID, TOL, _local
from learnsim.reproduce.webkb import load_webkb, webkb_features, webkb_triplets
from shift_common import bootstrap_interval, guard_status, guarded, limit_threads, markdown

SEED = 0
UNIVERSITIES = ("cornell", "texas", "washington", "wisconsin")
DISTANCES = ("topic", "topic+facultystudent")


def _correct(X, T, model=None):
    """Per test triplet, 1 when d(i, j) < d(i, k) (ties 0.5): the learned metric's, or Euclid's."""
    T = np.asarray(T)
    if model is None:
        def d(a, b):
            diff = X[a] - X[b]
            return np.asarray(diff.multiply(diff).sum(axis=1)).ravel()
    else:
        def d(a, b):
            return model.pair_distance(np.column_stack([a, b]), X)
    dij, dik = d(T[:, 0], T[:, 1]), d(T[:, 0], T[:, 2])
    return np.where(dij < dik, 1.0, np.where(dij == dik, 0.5, 0.0))


def _fit(X, triplets, C, **params):
    return {name: est.fit(X, triplets) for name, est in
            guarded(RelativeComparisonMetric, C=C, tol=TOL, random_state=SEED, **params).items()}


def _choose_C(corpus, X, train, fit_pages, valid_pages, distance, n_fit, n_valid):
    n = X.shape[0]
    fit = _local(webkb_triplets(corpus, distance, n_fit, indices=fit_pages, random_state=SEED + 10), train, n)
    valid = _local(webkb_triplets(corpus, distance, n_valid, indices=valid_pages, random_state=SEED + 11), train, n)
    scores = {}
    for c in C_GRID:
        model = RelativeComparisonMetric(C=c, tol=TOL, random_state=SEED,
                                         **({"baseline_holdout": None} if "baseline_holdout" in
                                            RelativeComparisonMetric().get_params() else {})).fit(X[train], fit)
        scores[c] = model.score(X[train], valid)
    best = max(scores.values())
    return min(c for c, a in scores.items() if a == best), scores


def run(corpus, universities, distances, n_train, n_valid, n_test):
    folders = np.asarray(corpus.universities, dtype=object)
    n = folders.size
    table = []
    for u in universities:
        own = np.flatnonzero(folders == u)
        order = np.random.default_rng(SEED).permutation(own)
        test, own_rest = np.sort(order[: own.size // 2]), np.sort(order[own.size // 2:])
        shifted = np.flatnonzero(folders != u)
        others = np.setdiff1d(np.arange(n), test)
        in_domain = np.sort(np.random.default_rng(SEED + 1).choice(others, shifted.size, replace=False))
        # validation pages: a whole other named folder (shifted), a random quarter (in-domain)
        valid_folder = next(v for v in UNIVERSITIES if v != u)
        settings = {"shifted": (shifted, np.flatnonzero(folders[shifted] == valid_folder)),
                    "in-domain": (in_domain, np.random.default_rng(SEED + 2).permutation(in_domain.size)
                                  [: in_domain.size // 4])}
        for setting, (train, valid_pos) in settings.items():
            valid_pages = train[np.sort(valid_pos)]
            fit_pages = np.setdiff1d(train, valid_pages)
            X, _ = webkb_features(corpus, "binary", fit_indices=train, dtype=np.float64)
            X_static, _ = webkb_features(corpus, "tfidf-stemmed", fit_indices=train, norm="l2", dtype=np.float64)
            for distance in distances:
                start = time.perf_counter()
                C, scores = _choose_C(corpus, X, train, fit_pages, valid_pages, distance, n_train, n_valid)
                tr = _local(webkb_triplets(corpus, distance, n_train, indices=train, random_state=SEED), train, n)
                te = webkb_triplets(corpus, distance, n_test, indices=test, random_state=SEED + 1).indices
                models = _fit(X[train], tr, C)
                base = _correct(X, te)
                static = _correct(X_static, te)
                acc_base = base.mean()
                label = f"{u}, {distance}, {setting}"
                row = [label, f"{train.size} ({int(np.isin(train, own_rest).sum())} of {u})", f"{acc_base:.4f}",
                       f"{static.mean():.4f}"]
                learned = _correct(X, te, models["forced"])
                lo, hi = bootstrap_interval(lambda c, _t: np.mean(c), learned, base, base)
                row += [f"{learned.mean():.4f}", f"{learned.mean() / acc_base:.3f}",
                        f"{learned.mean() - acc_base:+.4f} [{lo:+.4f}, {hi:+.4f}]", f"{C:g}"]
                if "default" in models:
                    default = _correct(X, te, models["default"])
                    row += [f"{default.mean():.4f}", guard_status(models["default"])]
                else:
                    row += ["-", "-"]
                table.append(row)
                print(" | ".join(row) + f"  ({time.perf_counter() - start:.0f} s; validation "
                      + ", ".join(f"{c:g}: {a:.3f}" for c, a in scores.items()) + ")", flush=True)
    print("\nWebKB across universities: share of test triplets satisfied (pages of one half of the university)\n")
    print(markdown(["test university, distance, training", "training pages", "W = 1 (binary Euclid)",
                    "tf.idf-L2", "learned", "/ W = 1", "- W = 1 [95 % CI]", "C (validation)",
                    "default fit", "default fit's check"], table))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-train", type=int, default=30_000)
    parser.add_argument("--n-valid", type=int, default=10_000)
    parser.add_argument("--n-test", type=int, default=20_000)
    parser.add_argument("--quick", action="store_true", help="one university, one distance, 5,000 triplets")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    limit_threads(args.threads)
    t0 = time.perf_counter()
    corpus = load_webkb(args.data_dir, subset="paper")
    if args.quick:
        run(corpus, UNIVERSITIES[:1], DISTANCES[:1], 5_000, 2_000, 5_000)
    else:
        run(corpus, UNIVERSITIES, DISTANCES, args.n_train, args.n_valid, args.n_test)
    print(f"\n{time.perf_counter() - t0:.0f} s in all")


if __name__ == "__main__":
    main()
