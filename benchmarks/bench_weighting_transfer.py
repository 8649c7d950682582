"""The learned BM25 family (learnsim.weighting.LearnedBM25, issue 13 section 2) trained on
Wikispeedia links and transferred without retraining to CISI, Cranfield and any SMART/TREC
collection named by its files, against BM25 and the tf.idf cosine.

    python benchmarks/bench_weighting_transfer.py [--data-dir DIR] [--out DIR] [--no-linklearn]
        [--smart NAME DOCS QUERIES QRELS] [--trec NAME DOCS TOPICS QRELS]

One process, one set of term counts per collection. Trains once on the Wikispeedia training
third (validation third for ``validation_ap_``, the reproduction's split and seed; the library's
default ``baseline_holdout``: a fifth of the training articles judge the learned parameters
against BM25, and that gain is printed with its interval), then prints
for each collection the MAP of: the learned family (transferred; ``learned`` all five parameters,
``learned-idf1`` with the idf exponent held at BM25's 1), paper 002's LinkLearn eq. (5)
(lr 0.03, early stopping, as the reproduction; ``--no-linklearn`` skips it), BM25 with the
project's defaults (k1 = 1.5, b = 0.6, binary queries), BM25 tuned on Wikispeedia (tune_bm25 on
the validation third), BM25 with query term counts, and the tf.idf cosine; and the learned
family's ratio to each. ``--out`` saves the learned curves beside BM25's (PNG).

In-domain rows first: the Wikispeedia test third, every test article a query ranking the other
test articles (its linked ones relevant), as in ``learnsim reproduce linklearn``; eq. (5) scores
both documents weighted (the paper's sim, ``linklearn-doc`` there), BM25 binary queries, the
learned family its own query weights; one row per vocabulary (the stop list the learned family
is trained on, the reproduction's df cut eq. (5) is trained on). Eq. (5)'s CollectionShiftWarning
on the target collections is printed once per collection.
"""
from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import scipy.sparse as sp

from learnsim.text.bm25 import BM25, tune_bm25
from learnsim.datasets import load_smart_collection, load_trec_collection, load_wikispeedia, read_smart_collection
from learnsim.evaluation import per_query_measures
from learnsim.linklearn import CollectionShiftWarning, LinkLearn
from learnsim.reproduce.linklearn import MAX_DF, PAPER_OKAPI, SEED, _tfidf_scores, collection_counts
from learnsim.supervision import Links, split_links
from learnsim.linklearn import LearnedBM25, plot_weighting_curves
# the term counts and the AvgP of the LinkLearn transfer benchmark, shared (the script's folder is on sys.path)
from linklearn_transfer_variants import _counts, _mean_ap


def _in_domain(wiki, test, C, Cp, models, linklearn, tuned):
    """Each Wikispeedia test article ranks the other test articles; AvgP of its linked ones."""
    rows, L_te = test
    relevant = L_te.symmetric().adjacency

    def mean_ap(S):
        return float(np.nanmean(per_query_measures(S, relevant, exclude_self=True, measures=("ap",))["ap"]))

    methods = ["learned", "learned-idf1", "linklearn-eq5", "bm25-default", "bm25-tuned-wiki", "bm25-counts",
               "tfidf-cosine"]
    print(f"\n{'in-domain':<16} " + " ".join(f"{m:>15}" for m in methods)
          + "   learned / bm25-tuned-wiki, linklearn-eq5 / bm25-tuned-wiki")
    for label, counts in (("wiki-test/stop", C), ("wiki-test/df-cut", Cp)):
        X = counts[rows]
        B = X.copy()
        B.data[:] = 1.0
        ap = {"learned": mean_ap(models["learned"].score(X, X)),
              "learned-idf1": mean_ap(models["learned-idf1"].score(X, X)),
              "bm25-default": mean_ap(BM25(*PAPER_OKAPI).fit(X).score(B)),
              "bm25-tuned-wiki": mean_ap(BM25(tuned.k1, tuned.b).fit(X).score(B)),
              "bm25-counts": mean_ap(BM25(*PAPER_OKAPI, query_weights="counts").fit(X).score(X)),
              "tfidf-cosine": mean_ap(_tfidf_scores(X, X)), "linklearn-eq5": float("nan")}
        if linklearn is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", CollectionShiftWarning)   # same collection, other vocabulary
                W = linklearn.transform(X)
            ap["linklearn-eq5"] = mean_ap((W @ W.T).toarray())
        print(f"{label:<16} " + " ".join(f"{ap[m]:>15.3f}" for m in methods)
              + f"   {ap['learned'] / ap['bm25-tuned-wiki']:.3f}x, {ap['linklearn-eq5'] / ap['bm25-tuned-wiki']:.3f}x"
              f"   ({X.shape[0]} articles)", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--out", default=None, help="folder for the learned-curves PNG")
    parser.add_argument("--no-linklearn", action="store_true", help="skip paper 002's eq. (5) (saves ~1.5 min)")
    parser.add_argument("--smart", nargs=4, action="append", default=[], metavar=("NAME", "DOCS", "QUERIES", "QRELS"))
    parser.add_argument("--trec", nargs=4, action="append", default=[], metavar=("NAME", "DOCS", "TOPICS", "QRELS"))
    parser.add_argument("--collections", nargs="*", default=["cisi", "cran"])
    args = parser.parse_args(argv)

    wiki = load_wikispeedia(args.data_dir)
    (tr, L_tr), (va, L_va), (te, L_te) = split_links(wiki.links, random_state=SEED)
    te = (te, L_te)
    # the target collections' vocabulary (stop list) for the learned family
    C = _counts(list(wiki.texts), stop_words="english")
    models = {}
    for label, fixed in (("learned", None), ("learned-idf1", {"idf_exponent": 1.0})):
        t0 = time.perf_counter()
        model = LearnedBM25(fixed=fixed, random_state=SEED).fit(C[tr], L_tr, validation=(C[va], L_va))
        models[label] = model
        print(f"{label}: LearnedBM25(fixed={fixed}) fitted in {time.perf_counter() - t0:.0f} s "
              f"({model.n_evaluations_} evaluations): {model.describe()}; Wikispeedia AvgP train "
              f"{model.train_ap_:.3f} (BM25 start {model.start_train_ap_:.3f}), validation {model.validation_ap_:.3f}; "
              f"training avgdl {np.round(model.training_lengths_, 1).tolist()}", flush=True)
        print(f"  against the baseline: {model.baseline_gain_.summary()}", flush=True)
    model = models["learned"]

    # BM25 tuned on Wikispeedia and LinkLearn: the reproduction's df-cut vocabulary
    Cp = _counts(list(wiki.texts), max_df=MAX_DF)
    X_va = Cp[va]
    tuned = tune_bm25(X_va, X_va, L_va.symmetric().adjacency, exclude=sp.identity(X_va.shape[0], format="csr",
                                                                                    dtype=bool), measure="ap")
    print(f"BM25 tuned on the Wikispeedia validation third: k1 = {tuned.k1:.3g}, b = {tuned.b:g}", flush=True)
    linklearn = None
    if not args.no_linklearn:
        X_tr = Cp[tr]
        rows = np.flatnonzero(np.diff(X_tr.indptr) > 0)
        # the reproduction's protocol: every training article, no held-out check inside fit
        linklearn = LinkLearn(learning_rate=0.03, max_iter=60_000, n_iter_no_change=8, baseline_holdout=None,
                              random_state=SEED)
        linklearn.fit(X_tr[rows], Links(L_tr.adjacency[rows][:, rows]), validation=(Cp[va], L_va))

    _in_domain(wiki, te, C, Cp, models, linklearn, tuned)

    collections = {name: load_smart_collection(name, args.data_dir) for name in args.collections}
    for name, docs, queries, qrels in args.smart:
        collections[name] = read_smart_collection(docs, queries, qrels, name=name)
    for name, docs, topics, qrels in args.trec:
        collections[name] = load_trec_collection(docs, topics, qrels, name=name)

    methods = ["learned", "learned-idf1", "linklearn-eq5", "bm25-default", "bm25-tuned-wiki", "bm25-counts", "tfidf-cosine"]
    print(f"\n{'collection':<10} " + " ".join(f"{m:>15}" for m in methods)
          + "   learned; learned-idf1 / bm25-default, bm25-tuned-wiki, bm25-counts, cosine")
    for name, coll in collections.items():
        D, Q, relevant = collection_counts(coll)
        eq5 = float("nan")
        if linklearn is not None:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", CollectionShiftWarning)
                eq5 = _mean_ap(LinkLearn.score_queries(Q, linklearn.transform(D)), relevant)
            for w in caught[:1]:
                print(f"  ({name}) eq. (5) warns: {w.message}")
        ap = {"learned": _mean_ap(model.score(Q, D), relevant),
              "learned-idf1": _mean_ap(models["learned-idf1"].score(Q, D), relevant),
              "linklearn-eq5": eq5,
              "bm25-default": _mean_ap(BM25(*PAPER_OKAPI).fit(D).score(Q), relevant),
              "bm25-tuned-wiki": _mean_ap(BM25(tuned.k1, tuned.b).fit(D).score(Q), relevant),
              "bm25-counts": _mean_ap(BM25(*PAPER_OKAPI, query_weights="counts").fit(D).score(Q), relevant),
              "tfidf-cosine": _mean_ap(_tfidf_scores(Q, D), relevant)}
        ratios = "; ".join(", ".join(f"{ap[lab] / ap[m]:.3f}x" for m in ("bm25-default", "bm25-tuned-wiki",
                                                                          "bm25-counts", "tfidf-cosine"))
                           for lab in ("learned", "learned-idf1"))
        avgdl = D.sum() / D.shape[0]
        print(f"{name:<10} " + " ".join(f"{ap[m]:>15.3f}" for m in methods) + f"   {ratios}"
              f"   ({D.shape[0]} docs, avgdl {avgdl:.0f}, {Q.shape[0]} queries)", flush=True)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        for label, m in models.items():
            path = plot_weighting_curves(m, os.path.join(args.out, f"{label}_bm25_curves.png"))
            print(f"curves: {path}")


if __name__ == "__main__":
    main()
