"""Reproduction of Mochihashi, Kikui & Kita (paper 000): three experiments.

* ``20ng`` - sec. 5.2, Table 1: document retrieval on 20 Newsgroups. 16 training / 4 test
  groups, 5 folds over the groups, at most 100 documents per group, tf.idf, LSI at 0.5 ... 20 %
  of the vocabulary; R-precision and 11-pt AP of the metric against Euclid, and against the
  baselines a user would actually pick: cosine on the full tf.idf and Okapi BM25.
* ``flickr8k`` - sec. 5.1 analogue (the paper's Japanese paraphrase corpus is not public): the
  five captions of a Flickr8k image form a cluster; 10 random sets of 200 training and 50 test
  clusters; unigram + bigram tf.idf; the same reduction levels; 11-pt AP and the averaged
  precision-recall curves of Figure 2.
* ``uci-kmeans`` - Figure 4 analogue: K-means (100 random starts) on iris, wine, breast cancer
  and digits, Euclid against the metric, pairwise clustering precision (Xing et al. 2002); with
  the metric fitted on all labels (as the paper, which says so in its footnote 4) and on a fair
  train/test split.

Method names (as the CLI spells them):
``euclid`` Euclid on LSI of plain tf.idf (the paper's baseline); ``mcd-paper`` the paper's metric
exactly (pseudo-inverse, ``PAPER_PARAMS``) on the same LSI space, its training documents
length-resampled to the median as in sec. 5.2.1; ``euclid-l2`` Euclid on the LSI of
L2-normalised tf.idf (the same-input baseline for ``mcd``); ``mcd`` learnsim's default
``MinimumClusterDistortion()`` on that input, settings chosen on held-out training clusters, the
test documents present as unlabelled rows (they shape its principal basis, never its scatter);
``cosine`` and ``bm25`` on the full vocabulary.

Protocol choices the paper leaves open, stated once here and in the report: the vocabulary, idf
and LSI basis of a fold are fitted on all of its documents (training and test), unsupervised, as
an index of the collection would be; documents with no word left after the headers are removed
are dropped before sampling; a reduction level whose dimension exceeds the rank of the fold's
document matrix is capped at that rank.

References
----------
.. [1] Mochihashi, D., Kikui, G. and Kita, K. (2004). Learning Nonstructural Distance Metric by
   Minimum Cluster Distortions. In Proceedings of the 2004 Conference on Empirical Methods in
   Natural Language Processing (EMNLP 2004) (paper 000 of ../shared/papers).
"""
from __future__ import annotations

import functools
import re
import time
import warnings
from collections import defaultdict

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize

from .._utils.linalg import truncated_svd
from .._utils.progress import progress
from ..datasets import load_20newsgroups, load_flickr8k_captions, load_uci
from ..evaluation import (cluster_retrieval_report, kmeans_clustering_precision,
                          precision_recall_curve, relevance_from_labels)
from ..mcd import PAPER_PARAMS, MinimumClusterDistortion
from ..text import TextVectorizer, resample_counts
from .records import Results, plots_enabled

LEVELS = (0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.10, 0.20)
QUICK_LEVELS = (0.005, 0.02)

# Table 1 of the paper: level -> (R-prec metric, R-prec Euclid, 11-pt metric, 11-pt Euclid)
PAPER_TABLE1 = {
    0.005: (0.421, 0.399, 0.476, 0.455), 0.01: (0.388, 0.368, 0.450, 0.430),
    0.02: (0.359, 0.343, 0.425, 0.409), 0.03: (0.344, 0.330, 0.411, 0.399),
    0.04: (0.335, 0.323, 0.402, 0.392), 0.05: (0.329, 0.318, 0.397, 0.388),
    0.10: (0.316, 0.307, 0.379, 0.376), 0.20: (0.343, 0.297, 0.397, 0.365),
}
#: sec. 5.1: "a 33% increase in the 11-point average precision" (abstract), metric over Euclid
PAPER_FLICKR_GAIN = 0.33

UCI_SETS = ("iris", "wine", "breast_cancer", "digits")
# The reproduction measures the method itself, fitted on every training cluster: no held-out
# check against Euclid (learnsim.baseline), which would hold a fifth of the clusters back.
_NO_CHECK = None
RETRIEVAL_MEASURES = ("ap11", "r_precision")


def _level_name(level):
    return f"{level * 100:g}%"


def _retrieval(D2_or_scores, labels, *, similarity=False, measures=RETRIEVAL_MEASURES):
    scores = D2_or_scores if similarity else -D2_or_scores
    rep = cluster_retrieval_report(scores, labels, measures=measures)
    return {m: rep[m] for m in measures}


def _sq_dists(E):
    sq = np.einsum("ij,ij->i", E, E)
    return np.maximum(sq[:, None] + sq[None, :] - 2.0 * E @ E.T, 0.0)


def _pr_curve(scores, labels):
    return precision_recall_curve(scores, relevance_from_labels(labels, labels), exclude_self=True)[1]


class _Accumulator:
    """Per-fold values, averaged at the end into Results records."""

    def __init__(self):
        self.values = defaultdict(list)

    def add(self, setting, method, measures: dict):
        for measure, value in measures.items():
            self.values[(setting, method, measure)].append(float(value))

    def mean(self, setting, method, measure):
        v = self.values.get((setting, method, measure))
        return float(np.mean(v)) if v else None

    def to_results(self, results, experiment, paper=lambda setting, method, measure: None):
        for (setting, method, measure), v in self.values.items():
            results.add(experiment, setting, method, measure, float(np.mean(v)),
                        paper(setting, method, measure))


# ----------------------------------------------------------------------------- retrieval
def _lsi_coordinates(X, k_max, seed):
    """Coordinates of every row of X on the top right singular vectors (the LSI space)."""
    k_max = max(1, min(k_max, *X.shape))
    s, Vt = truncated_svd(X, k_max, seed)
    keep = s > 1e-10 * s[0]
    Vt = Vt[keep]
    return np.asarray(X @ Vt.T), Vt


def _retrieval_fold(acc, dims, docs, labels, n_train, levels, seed, *, resample, ngram_range=(1, 1),
                    pr_store=None, measures=RETRIEVAL_MEASURES, text_params=None):
    """One fold: documents [0, n_train) are training clusters, the rest the test collection.

    ``measures``: the retrieval measures recorded; ``text_params``: further keywords of every
    TextVectorizer of the fold (the analysis of a language, e.g. ``analyzer=``)."""
    test_labels = labels[n_train:]
    train_labels = labels[:n_train]
    text_params = dict(text_params or {}, ngram_range=ngram_range)
    measured = functools.partial(_retrieval, measures=measures)
    tfidf = TextVectorizer("tfidf", **text_params).fit(docs)
    X = sp.csr_matrix(tfidf.transform(docs), dtype=np.float64)
    X_l2 = normalize(X)
    V = X.shape[1]

    # full-vocabulary baselines
    Xt = X_l2[n_train:]
    S_cos = (Xt @ Xt.T).toarray()
    acc.add("full", "cosine", measured(S_cos, test_labels, similarity=True))
    bm25 = TextVectorizer("bm25", **text_params).fit(docs)
    S_bm25 = (bm25.transform(docs[n_train:], role="query") @ bm25.transform(docs[n_train:]).T).toarray()
    acc.add("full", "bm25", measured(np.asarray(S_bm25), test_labels, similarity=True))
    y_all = np.concatenate([train_labels, np.full(len(test_labels), -1)])
    t = time.perf_counter()
    full = MinimumClusterDistortion(random_state=seed, baseline_holdout=_NO_CHECK).fit(X_l2, y_all)
    fit_s = time.perf_counter() - t
    D2_full = full.pairwise_distances(Xt, squared=True)
    acc.add("full", "mcd", {**measured(D2_full, test_labels), "fit_seconds": fit_s})
    if pr_store is not None:
        pr_store["full", "cosine"].append(_pr_curve(S_cos, test_labels))
        pr_store["full", "bm25"].append(_pr_curve(S_bm25, test_labels))
        pr_store["full", "mcd"].append(_pr_curve(-D2_full, test_labels))

    if not levels:      # the full vocabulary only
        return
    # the paper's training vectors: token counts resampled to the median length (sec. 5.2.1)
    X_train_paper = X[:n_train]
    if resample:
        counts = sp.csr_matrix(TextVectorizer("tf", **text_params)
                               .fit(docs).transform(docs[:n_train]), dtype=np.float64)
        lengths = np.asarray(counts.sum(axis=1)).ravel()
        target = int(np.median(lengths[lengths > 0]))
        X_train_paper = resample_counts(counts, target, random_state=seed).multiply(
            np.asarray(tfidf.idf_, dtype=np.float64)[None, :]).tocsr()

    want = max(int(round(lv * V)) for lv in levels)
    Z_raw, basis_raw = _lsi_coordinates(X, want, seed)
    Z_l2, _ = _lsi_coordinates(X_l2, want, seed)
    Z_train_paper = np.asarray(X_train_paper @ basis_raw.T)
    for lv in levels:
        setting = _level_name(lv)
        k = max(1, min(int(round(lv * V)), Z_raw.shape[1], Z_l2.shape[1]))
        dims[setting].append(k)
        E = Z_raw[n_train:, :k]
        D2_e = _sq_dists(E)
        acc.add(setting, "euclid", measured(D2_e, test_labels))
        t = time.perf_counter()
        paper = MinimumClusterDistortion(**PAPER_PARAMS).fit(Z_train_paper[:, :k], train_labels)
        fit_paper = time.perf_counter() - t
        D2_p = paper.pairwise_distances(E, squared=True)
        acc.add(setting, "mcd-paper", {**measured(D2_p, test_labels), "fit_seconds": fit_paper})
        E2 = Z_l2[:, :k]
        D2_e2 = _sq_dists(E2[n_train:])
        acc.add(setting, "euclid-l2", measured(D2_e2, test_labels))
        t = time.perf_counter()
        ours = MinimumClusterDistortion(random_state=seed, baseline_holdout=_NO_CHECK).fit(E2, y_all)
        fit_ours = time.perf_counter() - t
        D2_m = ours.pairwise_distances(E2[n_train:], squared=True)
        acc.add(setting, "mcd", {**measured(D2_m, test_labels), "fit_seconds": fit_ours})
        if pr_store is not None:
            for method, D2 in (("euclid", D2_e), ("mcd-paper", D2_p), ("euclid-l2", D2_e2), ("mcd", D2_m)):
                pr_store[setting, method].append(_pr_curve(-D2, test_labels))



def _has_words(text):
    return re.search(r"\w\w", text) is not None


def experiment_20ng(results, data_dir, *, quick, notes):
    news = load_20newsgroups("all", data_dir=data_dir)
    target = np.asarray(news.target)
    usable = np.array([_has_words(d) for d in news.data])
    notes.append(f"20 Newsgroups: {len(news.data)} messages (bydate train + test), headers removed; "
                 f"{int((~usable).sum())} left without any word were dropped before sampling.")
    seeds = (0,) if quick else (0, 1, 2)
    n_folds = 1 if quick else 5
    levels = QUICK_LEVELS if quick else LEVELS
    acc, dims = _Accumulator(), defaultdict(list)
    jobs = [(seed, f) for seed in seeds for f in range(n_folds)]
    for seed, f in progress(jobs, desc="20ng folds"):
        rng = np.random.default_rng(seed)
        sample = np.concatenate([rng.choice(np.flatnonzero((target == g) & usable), 100, replace=False)
                                 for g in range(20)])
        test_groups = np.array_split(rng.permutation(20), 5)[f]
        is_test = np.isin(target[sample], test_groups)
        order = np.concatenate([sample[~is_test], sample[is_test]])
        docs = [news.data[i] for i in order]
        _retrieval_fold(acc, dims, docs, target[order], int((~is_test).sum()), levels, seed, resample=True)

    def paper(setting, method, measure):
        lv = {_level_name(level): level for level in LEVELS}.get(setting)
        if lv is None or method not in ("mcd-paper", "euclid") or measure not in RETRIEVAL_MEASURES:
            return None
        rp_m, rp_e, ap_m, ap_e = PAPER_TABLE1[lv]
        return {("mcd-paper", "r_precision"): rp_m, ("euclid", "r_precision"): rp_e,
                ("mcd-paper", "ap11"): ap_m, ("euclid", "ap11"): ap_e}[method, measure]

    acc.to_results(results, "20ng", paper)
    notes.append(f"20ng: {len(seeds)} seed(s) x {n_folds} folds; LSI dimensions used per level "
                 "(mean over folds): " + ", ".join(f"{s} = {np.mean(v):.0f}" for s, v in dims.items()) + ".")
    return acc, dims


def experiment_flickr(results, data_dir, *, quick, notes, out_dir):
    caps = load_flickr8k_captions(data_dir=data_dir)
    target = np.asarray(caps.target)
    n_images = len(caps.image_ids)
    n_sets = 1 if quick else 10
    levels = QUICK_LEVELS if quick else LEVELS
    acc, dims = _Accumulator(), defaultdict(list)
    pr = defaultdict(list)
    by_image = defaultdict(list)
    for i, t in enumerate(target):
        by_image[t].append(i)
    for s in progress(range(n_sets), desc="flickr8k sets"):
        rng = np.random.default_rng(1000 + s)
        images = rng.choice(n_images, 250, replace=False)
        order = np.concatenate([by_image[i] for i in images])      # 200 training images first
        n_train = sum(len(by_image[i]) for i in images[:200])
        docs = [caps.data[i] for i in order]
        _retrieval_fold(acc, dims, docs, target[order], n_train, levels, 1000 + s, resample=False,
                        ngram_range=(1, 2), pr_store=pr)
    acc.to_results(results, "flickr8k")
    notes.append(f"flickr8k: {len(caps.data)} captions of {n_images} images; {n_sets} random sets of 200 "
                 "training + 50 test images (5 captions each); unigram + bigram tf.idf; no length "
                 "resampling (sentences). LSI dimensions per level (mean): "
                 + ", ".join(f"{s} = {np.mean(v):.0f}" for s, v in dims.items()) + ".")
    return acc, dims, {key: np.mean(curves, axis=0) for key, curves in pr.items()}


# ----------------------------------------------------------------------------- K-means
def experiment_uci(results, *, quick, notes):
    n_runs = 10 if quick else 100
    n_splits = 1 if quick else 5
    acc = _Accumulator()
    for name in progress(UCI_SETS, desc="uci k-means"):
        data = load_uci(name)
        X, y = np.asarray(data.data, dtype=float), np.asarray(data.target)
        methods = {"euclid": None, "mcd-paper": PAPER_PARAMS, "mcd": {"baseline_holdout": _NO_CHECK}}
        # as the paper: the metric is fitted on all labels, K-means on the same data
        for method, params in methods.items():
            E = X if params is None else MinimumClusterDistortion(random_state=0, **params).fit(X, y).transform(X)
            mean, _ = kmeans_clustering_precision(E, y, n_runs=n_runs, random_state=0)
            acc.add(f"{name} (all labels)", method, {"clustering_precision": mean})
        # fair: fit on half of the items of every class, cluster the other half
        for split in range(n_splits):
            rng = np.random.default_rng(split)
            train = np.zeros(len(y), bool)
            for c in np.unique(y):
                idx = np.flatnonzero(y == c)
                train[rng.choice(idx, len(idx) // 2, replace=False)] = True
            for method, params in methods.items():
                if params is None:
                    E = X[~train]
                else:
                    m = MinimumClusterDistortion(random_state=split, **params).fit(X[train], y[train])
                    E = m.transform(X[~train])
                mean, _ = kmeans_clustering_precision(E, y[~train], n_runs=n_runs, random_state=split)
                acc.add(f"{name} (fair split)", method, {"clustering_precision": mean})
    acc.to_results(results, "uci-kmeans")
    notes.append(f"uci-kmeans: K-means with K = number of classes, {n_runs} random starts (one init each); "
                 f"clustering precision = Rand index (Xing et al. 2002, unbalanced); fair split = "
                 f"{n_splits} random halves of every class (metric fitted on one, K-means on the other).")
    return acc


# ----------------------------------------------------------------------------- report
def _plot_levels(path, results, experiment, title, methods, paper_series=None):
    """11-pt AP by reduction level, drawn from the records (so it can be redrawn from the JSON)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = results.select(experiment=experiment, measure="ap11")
    value = {(r["setting"], r["method"]): r["value"] for r in rows}
    settings = [s for s in dict.fromkeys(r["setting"] for r in rows) if s != "full"]
    x = np.arange(len(settings))
    fig, ax = plt.subplots(figsize=(7, 5))
    for method in methods:
        ys = [value.get((s, method)) for s in settings]
        if any(v is not None for v in ys):
            ax.plot(x, [np.nan if v is None else v for v in ys], marker="o", label=method)
    for method, color in (("cosine", "gray"), ("bm25", "black"), ("mcd", "tab:red")):
        if ("full", method) in value:
            ax.axhline(value["full", method], ls=":", lw=1.2, color=color, label=f"{method}, full vocabulary")
    for label, values in (paper_series or {}).items():
        ax.plot(x, [values.get(s, np.nan) for s in settings], ls="--", marker="x", alpha=0.7, label=label)
    ax.set_xticks(x, settings)
    ax.set_xlabel("LSI dimension (fraction of the vocabulary)")
    ax.set_ylabel("11-point average precision")
    ax.set_title(title)
    ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_pr(path, curves, settings_methods, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    recall = np.linspace(0, 1, 11)
    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    for (setting, method) in settings_methods:
        if (setting, method) in curves:
            ax.plot(recall, curves[setting, method], marker=".", label=f"{method} ({setting})")
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_uci(path, results):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = results.select(experiment="uci-kmeans", measure="clustering_precision")
    value = {(r["setting"], r["method"]): r["value"] for r in rows}
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    methods = ("euclid", "mcd-paper", "mcd")
    fig, ax = plt.subplots(figsize=(9, 4))
    x = np.arange(len(settings))
    for i, m in enumerate(methods):
        ax.bar(x + (i - 1) * 0.27, [value.get((s, m), np.nan) for s in settings], 0.27, label=m)
    ax.set_xticks(x, [s.replace(" (", "\n(") for s in settings], fontsize=7)
    ax.set_ylabel("pairwise clustering precision")
    ax.set_ylim(0.4, 1.0)
    ax.set_title("K-means under a learned metric (Figure 4 analogue)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def render_level_plots(results, out_dir):
    """Draw the record-based figures of the report into ``out_dir``; returns their file names."""
    drawn = []
    experiments = {r["experiment"] for r in results.records}
    if "20ng" in experiments:
        paper_series = {"paper: metric": {_level_name(lv): v[2] for lv, v in PAPER_TABLE1.items()},
                        "paper: Euclid": {_level_name(lv): v[3] for lv, v in PAPER_TABLE1.items()}}
        _plot_levels(out_dir / "mochihashi_20ng_ap11.png", results, "20ng", "20 Newsgroups: 11-pt AP by LSI level",
                     ["euclid", "mcd-paper", "euclid-l2", "mcd"], paper_series)
        drawn.append("mochihashi_20ng_ap11.png")
    if "flickr8k" in experiments:
        _plot_levels(out_dir / "mochihashi_flickr_ap11.png", results, "flickr8k",
                     "Flickr8k captions: 11-pt AP (Figure 3 analogue)", ["euclid", "mcd-paper", "euclid-l2", "mcd"])
        drawn.append("mochihashi_flickr_ap11.png")
    if "uci-kmeans" in experiments:
        _plot_uci(out_dir / "mochihashi_uci.png", results)
        drawn.append("mochihashi_uci.png")
    return drawn


def _best(acc, methods, measure="ap11", settings=None):
    best = None
    for (s, m, meas), v in acc.values.items():
        if m in methods and meas == measure and (settings is None or s in settings):
            value = float(np.mean(v))
            if best is None or value > best[0]:
                best = (value, s, m)
    return best


def _gain_lines(acc, method, baseline, settings):
    lines = []
    for s in settings:
        a, b = acc.mean(s, method, "ap11"), acc.mean(s, baseline, "ap11")
        if a is not None and b:
            lines.append((s, a / b - 1.0))
    return lines


def run_experiments(quick=False, data_dir=None, out_dir=None, only=None):
    """Run the three experiments; return (Results, markdown report). Plots go to ``out_dir``."""
    warnings.filterwarnings("ignore", message=".*too few to select.*")
    results, notes, md = Results(), [], []
    plots = plots_enabled(out_dir, notes)
    md.append("# Reproduction of Mochihashi, Kikui & Kita: minimum cluster distortion metric\n")
    md.append("Paper values are in brackets. Methods: `euclid` Euclid on LSI of tf.idf (the paper's "
              "baseline); `mcd-paper` the paper's metric exactly (Moore-Penrose pseudo-inverse, eq. 6 and "
              "Appendix B; 20ng training documents resampled to the median length, sec. 5.2.1); `euclid-l2` "
              "Euclid on the LSI of L2-normalised tf.idf; `mcd` learnsim's default metric on that input "
              "(principal basis, shrinkage and complement weight chosen on held-out *training* clusters; "
              "the test documents are unlabelled rows that shape the basis, never the scatter); `cosine` "
              "and `bm25` on the full vocabulary (setting `full`, where `mcd` is fitted on the sparse "
              "L2-normalised tf.idf).\n")
    only = set(only or ("20ng", "flickr8k", "uci-kmeans"))
    summary = []

    if "20ng" in only:
        acc, dims = experiment_20ng(results, data_dir, quick=quick, notes=notes)
        settings = [s for s in dims]
        md.append("## 20 Newsgroups document retrieval (sec. 5.2, Table 1)\n")
        md.append("### 11-point average precision\n")
        md.append(results.table("20ng", "ap11", ["euclid", "mcd-paper", "euclid-l2", "mcd", "cosine", "bm25"],
                                ratio_to="euclid"))
        md.append("\n### R-precision\n")
        md.append(results.table("20ng", "r_precision", ["euclid", "mcd-paper", "euclid-l2", "mcd", "cosine", "bm25"],
                                ratio_to="euclid"))
        md.append("\n### Fit seconds (mean per fold)\n")
        md.append(results.table("20ng", "fit_seconds", ["mcd-paper", "mcd"], with_paper=False, fmt="{:.2f}"))
        gains = _gain_lines(acc, "mcd", "euclid", settings)
        gains_paper = _gain_lines(acc, "mcd-paper", "euclid", settings)
        gains_same = _gain_lines(acc, "mcd", "euclid-l2", settings)
        best = _best(acc, ("mcd", "mcd-paper"))
        bm25 = acc.mean("full", "bm25", "ap11")
        summary.append(
            "**20ng.** `mcd` over `euclid` (relative 11-pt AP): "
            + ", ".join(f"{s} {g:+.1%}" for s, g in gains)
            + f"; smallest gain {min(g for _, g in gains):+.1%}. Over the same-input baseline `euclid-l2`: "
            + ", ".join(f"{s} {g:+.1%}" for s, g in gains_same)
            + ". The paper's metric as published (`mcd-paper`) over `euclid`: "
            + ", ".join(f"{s} {g:+.1%}" for s, g in gains_paper)
            + f" (paper: +0.8% to +8.8%). Best learnsim configuration: `{best[2]}` at {best[1]}, "
            f"11-pt AP {best[0]:.3f} vs BM25 on the full vocabulary {bm25:.3f} "
            f"(ratio {best[0] / bm25:.3f}).")
        if plots:
            md.append("\n![20ng 11-pt AP](mochihashi_20ng_ap11.png)\n")

    if "flickr8k" in only:
        acc, dims, curves = experiment_flickr(results, data_dir, quick=quick, notes=notes, out_dir=out_dir)
        settings = list(dims)
        md.append("\n## Flickr8k caption clusters (sec. 5.1 analogue)\n")
        md.append("### 11-point average precision\n")
        md.append(results.table("flickr8k", "ap11", ["euclid", "mcd-paper", "euclid-l2", "mcd", "cosine", "bm25"],
                                ratio_to="euclid"))
        md.append("\n### R-precision\n")
        md.append(results.table("flickr8k", "r_precision", ["euclid", "mcd-paper", "euclid-l2", "mcd", "cosine",
                                                            "bm25"]))
        g_paper = _gain_lines(acc, "mcd-paper", "euclid", settings)
        g_ours = _gain_lines(acc, "mcd", "euclid", settings)
        bp = max(g_paper, key=lambda t: t[1])
        bo = max(g_ours, key=lambda t: t[1])
        best = _best(acc, ("mcd", "mcd-paper"))
        cos = acc.mean("full", "cosine", "ap11")
        summary.append(
            f"**flickr8k.** Best relative gain over `euclid`: `mcd-paper` {bp[1]:+.1%} at {bp[0]}, `mcd` "
            f"{bo[1]:+.1%} at {bo[0]} (paper, on its paraphrase corpus: +{PAPER_FLICKR_GAIN:.0%}). Best learnsim "
            f"configuration: `{best[2]}` at {best[1]}, 11-pt AP {best[0]:.3f} vs cosine on the full tf.idf "
            f"{cos:.3f} (ratio {best[0] / cos:.3f}).")
        if plots:
            pick = [(bp[0], "euclid"), (bp[0], "mcd-paper"), (bo[0], "euclid-l2"), (bo[0], "mcd"),
                    ("full", "cosine"), ("full", "mcd")]
            _plot_pr(out_dir / "mochihashi_flickr_pr.png", curves, pick,
                     "Flickr8k: precision-recall (Figure 2 analogue)")
            md.append("\n![Flickr8k 11-pt AP](mochihashi_flickr_ap11.png) "
                      "![Flickr8k precision-recall](mochihashi_flickr_pr.png)\n")

    if "uci-kmeans" in only:
        acc = experiment_uci(results, quick=quick, notes=notes)
        md.append("\n## K-means on UCI data (Figure 4 analogue)\n")
        md.append(results.table("uci-kmeans", "clustering_precision", ["euclid", "mcd-paper", "mcd"],
                                ratio_to="euclid"))
        fair = [s for s in dict.fromkeys(k[0] for k in acc.values) if "fair" in s]
        wins = [s for s in fair if acc.mean(s, "mcd", "clustering_precision") >= acc.mean(s, "euclid", "clustering_precision")]
        wins_p = [s for s in fair if acc.mean(s, "mcd-paper", "clustering_precision")
                  >= acc.mean(s, "euclid", "clustering_precision")]
        summary.append(f"**uci-kmeans.** Under the fair split `mcd` is at least as good as Euclid on "
                       f"{len(wins)} of {len(fair)} sets, `mcd-paper` on {len(wins_p)} of {len(fair)}.")
        if plots:
            md.append("\n![UCI K-means](mochihashi_uci.png)\n")

    if plots:
        render_level_plots(results, out_dir)
    md.insert(2, "## Summary\n\n" + "\n\n".join(summary) + "\n")
    md.append("\n## Protocol notes\n")
    md.append("\n".join(f"- {n}" for n in notes + [
        "Vocabulary, idf and LSI basis of a fold are fitted on all of its documents (training + "
        "test), unsupervised, as an index of the collection would be; labels come from training "
        "clusters only. A level whose dimension exceeds the rank of the fold's matrix is capped.",
        "`mcd` selects its settings on held-out training clusters (4 folds over the training "
        "clusters); the test clusters are never used for selection."]))
    return results, "\n".join(md) + "\n"
