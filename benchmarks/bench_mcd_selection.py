"""Cost of MinimumClusterDistortion's automatic selection against a fit with fixed settings (issue 16, part 3).

For each data set the script fits ``MinimumClusterDistortion(random_state=0)`` (the defaults:
n_basis, shrinkage and complement_weight "auto", chosen by leave-clusters-out retrieval, then the
held-out check against Euclid), reads the settings it chose, and fits the same estimator again
with those settings given (no selection; the held-out check still runs). It reports the fit
seconds of both, their ratio (goal: at most 3), the settings chosen and the 11-point average
precision of each fitted metric on clusters that took no part in the fit (every test item
queries the other test items; relevant = same cluster). Both fits run ``--repeats`` times (default
3), alternately, and the ratio is that of their median seconds: a fit of 1-2 s varies by 20 %
from one run to the next on a 2-core machine.

Data sets:

* ``20ng``: 5,000 training messages of 16 newsgroups (seeded sample), tf-idf with L2-normalised
  rows (the vectoriser ``learnsim fit --method mcd --weighting tfidf`` uses), fitted on the
  training messages; tested on 1,000 test-split messages of the 4 other groups.
* ``synthetic``: seeded clustered documents (a 20,000-word Zipf vocabulary; 100 clusters whose
  sizes vary 1:3, so that clusters grow with n; each cluster draws 40 % of its tokens from its
  own 60 topical words, 20-80 tokens a document), tf-idf with L2-normalised rows; 80 clusters fit
  and at most 2,000 items of the 20 others are tested. 1k to 100k documents by default.
* ``demo`` (``--demo``): ``learnsim demo``'s seeded corpus, its 12 training topics fitted (the
  test documents as unlabelled rows, as the demo fits them) and its 8 test topics tested.
* ``sentences`` (``--sentences``): the sentence corpus of ``bench_growth.py``'s MCD rows, many
  small clusters and singletons; 5 % of the clusters (at most 2,000 sentences) tested.

    python benchmarks/bench_mcd_selection.py                       # 20ng + 1k, 3k, 10k, 30k, 100k
    python benchmarks/bench_mcd_selection.py --sizes 10000 --no-20ng
    python benchmarks/bench_mcd_selection.py --json results/mcd-selection.json
    python benchmarks/bench_mcd_selection.py --no-20ng --sizes "" --sentences 1000,3000,10000,30000,100000
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize

from learnsim.evaluation import cluster_retrieval_report
from learnsim.mcd import MinimumClusterDistortion

GOAL_RATIO = 3.0
sys.path.insert(0, str(Path(__file__).resolve().parent))      # bench_growth, for --sentences


def newsgroups(n_train=5000, n_test=1000, seed=0):
    from learnsim.datasets import load_20newsgroups
    from learnsim.text import TextVectorizer

    rng = np.random.default_rng(seed)
    train, test = load_20newsgroups("train"), load_20newsgroups("test")
    groups = rng.permutation(20)
    fit_groups, test_groups = groups[:16], groups[16:]
    tr = np.flatnonzero(np.isin(train.target, fit_groups))
    tr = np.sort(rng.choice(tr, n_train, replace=False))
    te = np.flatnonzero(np.isin(test.target, test_groups))
    te = np.sort(rng.choice(te, min(n_test, te.size), replace=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vec = TextVectorizer(weighting="tfidf", norm="l2", dtype=np.float64).fit([train.data[i] for i in tr])
        X = sp.csr_matrix(vec.transform([train.data[i] for i in tr]), dtype=np.float64)
        Xt = sp.csr_matrix(vec.transform([test.data[i] for i in te]), dtype=np.float64)
    return X, train.target[tr], Xt, test.target[te]


def split_clusters(X, labels, test_clusters, rng, max_test):
    """(X_fit, y_fit, X_test, y_test): the rows of ``test_clusters`` (at most ``max_test`` of them,
    drawn with ``rng``) held out for the test, the rest fitted."""
    is_test = np.isin(labels, test_clusters)
    test_rows = np.flatnonzero(is_test)
    if test_rows.size > max_test:
        test_rows = np.sort(rng.choice(test_rows, max_test, replace=False))
    fit_rows = np.flatnonzero(~is_test)
    return X[fit_rows], labels[fit_rows], X[test_rows], labels[test_rows]


def synthetic(n, seed=0, n_clusters=100, vocab=20000, n_test_clusters=20, max_test=2000):
    """Seeded clustered documents: (X_fit, y_fit, X_test, y_test), tf-idf rows L2-normalised."""
    rng = np.random.default_rng(seed)
    weights = rng.uniform(1.0, 3.0, n_clusters)
    sizes = np.maximum(2, np.floor(n * weights / weights.sum())).astype(int)
    labels = np.repeat(np.arange(n_clusters), sizes)
    zipf = 1.0 / np.arange(1, vocab + 1) ** 1.05
    zipf /= zipf.sum()
    lengths = rng.integers(20, 81, labels.size)
    topical = rng.random(lengths.sum()) < 0.4
    doc_of = np.repeat(np.arange(labels.size), lengths)
    words = rng.choice(vocab, size=lengths.sum(), p=zipf)
    topic_words = rng.integers(0, vocab, size=(n_clusters, 60))
    pick = rng.integers(0, 60, topical.sum())
    words[topical] = topic_words[labels[doc_of[topical]], pick]
    counts = sp.csr_matrix((np.ones(words.size), (doc_of, words)), shape=(labels.size, vocab))
    counts.sum_duplicates()
    df = np.bincount(counts.indices, minlength=vocab)
    idf = np.log((1 + labels.size) / (1 + df)) + 1.0
    X = normalize(counts @ sp.diags(idf)).tocsr()
    test_clusters = rng.permutation(n_clusters)[:n_test_clusters]
    return split_clusters(X, labels, test_clusters, rng, max_test)


def sentences(n, seed=0, test_fraction=0.05, max_test=2000):
    """``bench_growth``'s sentence corpus (clusters of 1-5 sentences, singletons labelled -1): the
    corpus of its MCD growth rows, where clusters stay small as n grows. A seeded 5 % of the
    clusters of >= 2 sentences (at most 2,000 of their sentences) is tested."""
    import bench_growth

    data = bench_growth.sentence_data(n, seed)
    X, labels = sp.csr_matrix(data["X"]), np.asarray(data["labels"])
    rng = np.random.default_rng([seed, 7])
    clusters = np.unique(labels[labels >= 0])
    test_clusters = rng.choice(clusters, max(2, int(test_fraction * clusters.size)), replace=False)
    return split_clusters(X, labels, test_clusters, rng, max_test)


def demo_corpus(seed=0):
    """``learnsim demo``'s corpus and split: 600 documents in 20 topics, 12 fitted (the 240
    documents of the other 8 are unlabelled rows of the fit, as in the demo) and 8 tested."""
    from learnsim.demo import TEST_CLUSTER_FRACTION, _split_clusters, make_clustered_corpus
    from learnsim.text import TextVectorizer

    corpus = make_clustered_corpus(random_state=seed)
    labels = np.asarray(corpus.target)
    test = _split_clusters(labels, TEST_CLUSTER_FRACTION, np.random.default_rng(seed))
    X = sp.csr_matrix(TextVectorizer(weighting="tfidf", norm="l2").fit(corpus.data).transform(corpus.data))
    return X, np.where(test, -1, labels), X[test], labels[test]


def quality(model, Xt, yt):
    D2 = model.pairwise_distances(Xt, squared=True)
    return float(cluster_retrieval_report(-D2, yt, measures=("ap11",))["ap11"])


def run(name, X, y, Xt, yt, repeats=1):
    """Both fits ``repeats`` times, alternately (the default fit first); their median seconds."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        times_auto, times_fixed = [], []
        for _ in range(repeats):
            t = time.perf_counter()
            auto = MinimumClusterDistortion(random_state=0).fit(X, y)
            times_auto.append(time.perf_counter() - t)
            chosen = {"n_basis": auto.n_basis_, "shrinkage": auto.shrinkage_,
                      "complement_weight": auto.complement_weight_}
            t = time.perf_counter()
            fixed = MinimumClusterDistortion(random_state=0, **chosen).fit(X, y)
            times_fixed.append(time.perf_counter() - t)
        t_auto, t_fixed = float(np.median(times_auto)), float(np.median(times_fixed))
    row = {"data": name, "n_items": int(X.shape[0]), "n_features": int(X.shape[1]),
           "n_clusters": int(np.unique(y[y >= 0]).size), "default_s": round(t_auto, 2), "fixed_s": round(t_fixed, 2),
           "ratio": round(t_auto / t_fixed, 2), "repeats": repeats,
           "ratios": [round(a / f, 2) for a, f in zip(times_auto, times_fixed)], "chosen": chosen,
           "fell_back": bool(auto.baseline_gain_ is not None and auto.baseline_gain_.fell_back),
           "ap11_default": round(quality(auto, Xt, yt), 4), "ap11_fixed": round(quality(fixed, Xt, yt), 4),
           "ap11_euclid": round(float(cluster_retrieval_report(
               np.asarray((Xt @ Xt.T).todense()) if sp.issparse(Xt) else Xt @ Xt.T, yt,
               measures=("ap11",))["ap11"]), 4)}
    if auto.cv_results_ is not None:
        scores = np.asarray(auto.cv_results_["score"])
        row["cv_best"] = round(float(scores.max()), 4)
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,3000,10000,30000,100000",
                    help="synthetic sizes, comma-separated (empty: none)")
    ap.add_argument("--sentences", default="",
                    help="sizes of bench_growth's sentence corpus, comma-separated (default: none)")
    ap.add_argument("--no-20ng", action="store_true", help="skip 20 Newsgroups")
    ap.add_argument("--demo", action="store_true", help="also learnsim demo's corpus (600 documents)")
    ap.add_argument("--repeats", type=int, default=3,
                    help="fits of each kind, alternately; the median seconds are compared (default 3)")
    ap.add_argument("--json", help="append the rows to this JSON-lines file")
    args = ap.parse_args(argv)
    jobs = ([] if args.no_20ng else [("20ng-5000", newsgroups)]) + ([("demo-600", demo_corpus)] if args.demo else [])
    for s in [int(s) for s in args.sizes.split(",") if s.strip()]:
        jobs.append((f"synthetic-{s}", lambda s=s: synthetic(s)))
    for s in [int(s) for s in args.sentences.split(",") if s.strip()]:
        jobs.append((f"sentences-{s}", lambda s=s: sentences(s)))
    rows = []
    for name, make in jobs:
        t = time.perf_counter()
        data = make()
        print(f"# {name}: data in {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)
        row = run(name, *data, repeats=max(1, args.repeats))
        rows.append(row)
        print(json.dumps(row), flush=True)
        if args.json:
            with open(args.json, "a") as fh:
                fh.write(json.dumps(row) + "\n")
    worst = max(r["ratio"] for r in rows) if rows else float("nan")
    print(f"# worst default/fixed ratio {worst:.2f} (goal <= {GOAL_RATIO})", flush=True)


if __name__ == "__main__":
    main()
