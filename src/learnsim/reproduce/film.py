"""Reproduction of Tang & Aw, FILM (paper 001): Quora duplicate questions and STS-B.

* ``quora`` - Table 1 analogue. The paper trains on 4/5 of the 404k Quora pairs; that set is not
  available here, so FILM is trained on the project's ``quora-sample/dev.tsv`` (10,000 pairs of
  Wang et al. 2017) and evaluated on ``test.tsv`` (10,000 pairs). Thresholds, Platt calibration
  and the kNN rule's k are chosen on the dev pairs; the test pairs are only scored. Accuracy and
  log loss on test for: ``cosine`` (tf.idf cosine with a dev-tuned threshold), ``cosine-knn`` (the
  Pairwise kNN rule on the raw tf.idf), ``lsi-dD`` (cosine
  in a D-dimensional LSI space), ``film-dD`` (FILM, threshold rule,
  :class:`~learnsim.matching.ThresholdMatcher`) and ``film-knn-dD`` (FILM with the paper's
  Pairwise kNN rule, :class:`~learnsim.matching.PairwiseKNNMatcher`).
* ``sts`` - Table 2 analogue: Pearson and Spearman correlation, on STS-B test, of the cosine of
  each pair with the gold score; ``cosine`` on tf.idf and ``film-dD`` trained on STS-B train.

Protocol choices the paper leaves open (also listed in the report):

* Vectoriser: tf.idf with sublinear tf, L2-normalised rows, unigrams, fitted (vocabulary and idf,
  unsupervised) on the questions / sentences of both splits, as an index of the whole collection
  would be; labels come from the training split only. LSI bases are fitted the same way.
* Quora triplets (``duplicate_pairs_to_triplets``): every dev duplicate pair (a, b) gives (a, b,
  c) and (b, a, c) with c a labelled non-duplicate partner of the anchor (hard negative) when it
  has one, plus ``QUORA_RANDOM_NEGATIVES`` random questions outside its duplicate component.
* STS triplets (``graded_pairs_to_triplets``): pairs sharing a sentence are compared (rare in
  STS), and every pair scoring at least ``STS_HIGH_SCORE`` gives ``STS_RANDOM_NEGATIVES`` triplets
  (a, b, r) and as many (b, a, r) with r a random training sentence not paired with a.
* Rows without any vocabulary term (empty questions) cannot be L2-normalised; triplets that use
  them are dropped (they still take part in evaluation, with cosine 0).
* The paper's FILM number (86.83 % accuracy, d = 100, Pairwise kNN with k = 36) is on its own
  split of the 404k pairs and its log loss (0.32141) on Kaggle's unlabelled test set; they stand
  beside ``film-knn-d100`` as the nearest setting, not as a like-for-like comparison.

Settings explored on dev only (measured once, not re-run by the reproduction): dev split into 8000
training and 2000 validation pairs, FILM d = 50, 100 iterations, threshold rule, validation
accuracy (tf.idf cosine 0.682 with sublinear tf): defaults 0.693; svd_rank 100: 0.674; svd_rank
1000: 0.684; margin 0.1: 0.677; hinge_smoothing 0: 0.681; 3 random negatives: 0.689; d = 20:
0.684; unigram+bigram tf.idf: 0.695 (its cosine 0.673); raw tf (no sublinear): 0.697 (its cosine
0.680). No setting came near the issue's +3 points with 8k training pairs; the defaults are kept.
The kNN rule picks k = 50, the top of its default grid; with the grid extended to 1000 (k chosen
on dev by cross-entropy: 500) FILM d = 50 reached 0.669 test accuracy against 0.666 at k = 50.
"""
from __future__ import annotations

import time
import warnings

import numpy as np
import scipy.sparse as sp

from .._linalg import truncated_svd
from .._progress import progress
from ..datasets import load_quora_pairs, load_sts_benchmark
from ..evaluation import pearson, spearman
from ..film import FILM
from ..matching import PairwiseKNNMatcher, ThresholdMatcher, pair_similarity
from ..supervision import Pairs, duplicate_pairs_to_triplets, graded_pairs_to_triplets
from ..text import TextVectorizer
from .records import Results, plots_enabled

DIMENSIONS = (50, 100, 200)
QUICK_DIMENSIONS = (50,)
QUICK_QUORA_PAIRS = (3000, 2000)        # dev, test pairs in --quick
QUICK_STS_TRAIN_PAIRS = 3000
QUICK_MAX_ITER = 60
QUORA_RANDOM_NEGATIVES = 1
STS_HIGH_SCORE = 4.0
STS_RANDOM_NEGATIVES = 2
STS_DIMENSION = 100
SEED = 0

#: Table 1 (accuracy, %, /100) and sec. 4 (log loss on Kaggle's test set): FILM, d = 100, kNN rule
PAPER_QUORA = {("film-knn-d100", "accuracy"): 0.8683, ("film-knn-d100", "log_loss"): 0.32141}
#: Table 2: FILM Pearson x 100
PAPER_STS_PEARSON = 0.5768

TARGET_POINTS = 0.03   # the target: FILM >= cosine + 3 points of Quora test accuracy


def _vectorizer():
    return TextVectorizer("tfidf", sublinear_tf=True, norm="l2", dtype=np.float64)


def _subsample(pairs: Pairs, texts, n, rng):
    """At most ``n`` random pairs, re-indexed onto the texts they use: (texts, Pairs)."""
    idx = pairs.indices
    keep = np.sort(rng.choice(idx.shape[0], size=min(n, idx.shape[0]), replace=False))
    used, inverse = np.unique(idx[keep], return_inverse=True)
    new_idx = inverse.reshape(-1, 2)
    new_texts = [texts[i] for i in used]
    if pairs.is_graded:
        return new_texts, Pairs(new_idx, scores=pairs.scores[keep])
    return new_texts, Pairs(new_idx, labels=pairs.labels[keep])


def _empty_rows(X):
    return np.flatnonzero(np.diff(sp.csr_matrix(X).indptr) == 0)


def _drop_empty(triplets, empty):
    T = triplets.indices if hasattr(triplets, "indices") else np.asarray(triplets)
    return T[~np.isin(T, empty).any(axis=1)]


def _fit_film(X, triplets, d, quick):
    params = dict(n_components=d, random_state=SEED)
    if quick:
        params["max_iter"] = QUICK_MAX_ITER
    start = time.perf_counter()
    model = FILM(**params).fit(X, triplets)
    return model, time.perf_counter() - start


# ----------------------------------------------------------------------------- Quora
def experiment_quora(results, data_dir, *, quick, notes):
    dev = load_quora_pairs("dev", data_dir=data_dir)
    test = load_quora_pairs("test", data_dir=data_dir)
    dev_texts, dev_pairs = list(dev.texts), dev.pairs
    test_texts, test_pairs = list(test.texts), test.pairs
    if quick:
        rng = np.random.default_rng(SEED)
        dev_texts, dev_pairs = _subsample(dev_pairs, dev_texts, QUICK_QUORA_PAIRS[0], rng)
        test_texts, test_pairs = _subsample(test_pairs, test_texts, QUICK_QUORA_PAIRS[1], rng)
    dims = QUICK_DIMENSIONS if quick else DIMENSIONS
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*empty after tokenisation.*")
        vec = _vectorizer().fit(dev_texts + test_texts)
    Xd, Xt = vec.transform(dev_texts), vec.transform(test_texts)
    notes.append(f"Quora: {dev_pairs.indices.shape[0]} dev pairs ({int(dev_pairs.labels.sum())} duplicates, "
                 f"{len(dev_texts)} questions) for training and selection, {test_pairs.indices.shape[0]} test "
                 f"pairs ({int(test_pairs.labels.sum())} duplicates) for the numbers; vocabulary "
                 f"{Xd.shape[1]} terms.")

    def record(method, report, fit_seconds=None):
        for measure in ("accuracy", "log_loss"):
            results.add("quora", "test", method, measure, report[measure], PAPER_QUORA.get((method, measure)))
        if fit_seconds is not None:
            results.add("quora", "test", method, "fit_seconds", fit_seconds)

    record("cosine", ThresholdMatcher().fit(Xd, dev_pairs).report(test_pairs, X=Xt))
    # the paper's rule on the raw tf.idf: what FILM's embedding adds to the kNN rule
    record("cosine-knn", PairwiseKNNMatcher().fit(Xd, dev_pairs).report(test_pairs, X=Xt))

    # LSI: one basis of the whole collection (unsupervised), truncated to each d
    X_all = sp.vstack([Xd, Xt]).tocsr()
    k_max = min(max(dims), *X_all.shape)
    _, Vt = truncated_svd(X_all, k_max, SEED)
    for d in dims:
        basis = Vt[:min(d, k_max)].T
        Zd, Zt = np.asarray(Xd @ basis), np.asarray(Xt @ basis)
        record(f"lsi-d{d}", ThresholdMatcher().fit(Zd, dev_pairs).report(test_pairs, X=Zt))

    triplets = duplicate_pairs_to_triplets(dev_pairs, n_items=Xd.shape[0],
                                           n_random_negatives=QUORA_RANDOM_NEGATIVES, random_state=SEED)
    T = _drop_empty(triplets, _empty_rows(Xd))
    notes.append(f"Quora FILM: {T.shape[0]} triplets from the dev duplicate pairs (labelled non-duplicate "
                 f"partner as hard negative where there is one, plus {QUORA_RANDOM_NEGATIVES} random "
                 "negative per direction).")
    curves = {}
    for d in progress(dims, desc="quora FILM"):
        model, fit_s = _fit_film(Xd, T, d, quick)
        curves[d] = model.loss_curve_
        record(f"film-d{d}", ThresholdMatcher(model).fit(Xd, dev_pairs).report(test_pairs, X=Xt), fit_s)
        knn = PairwiseKNNMatcher(model).fit(Xd, dev_pairs)
        rep = knn.report(test_pairs, X=Xt)
        record(f"film-knn-d{d}", rep, fit_s)
        notes.append(f"Quora FILM d={d}: {model.n_iter_} iterations (converged: {model.converged_}), "
                     f"svd_rank {model.svd_rank_}; kNN rule k = {knn.k_} chosen on dev by cross-entropy.")
    return dims, curves, dev_pairs.indices.shape[0]


# ----------------------------------------------------------------------------- STS-B
def experiment_sts(results, data_dir, *, quick, notes):
    train = load_sts_benchmark("train", data_dir=data_dir)
    test = load_sts_benchmark("test", data_dir=data_dir)
    train_texts, train_pairs = list(train.texts), train.pairs
    if quick:
        train_texts, train_pairs = _subsample(train_pairs, train_texts, QUICK_STS_TRAIN_PAIRS,
                                              np.random.default_rng(SEED))
    test_texts, test_pairs = list(test.texts), test.pairs
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*empty after tokenisation.*")
        vec = _vectorizer().fit(train_texts + test_texts)
    Xtr, Xte = vec.transform(train_texts), vec.transform(test_texts)
    gold = test_pairs.scores

    def record(method, sims, fit_seconds=None):
        results.add("sts", "test", method, "pearson", pearson(sims, gold),
                    PAPER_STS_PEARSON if method.startswith("film") and method.endswith(f"d{STS_DIMENSION}")
                    else None)
        results.add("sts", "test", method, "spearman", spearman(sims, gold))
        if fit_seconds is not None:
            results.add("sts", "test", method, "fit_seconds", fit_seconds)

    record("cosine", pair_similarity(Xte, test_pairs.indices))
    triplets = graded_pairs_to_triplets(train_pairs, random_state=SEED, high_score=STS_HIGH_SCORE,
                                        n_random_negatives=STS_RANDOM_NEGATIVES, n_items=Xtr.shape[0])
    T = _drop_empty(triplets, _empty_rows(Xtr))
    d = QUICK_DIMENSIONS[0] if quick else STS_DIMENSION
    model, fit_s = _fit_film(Xtr, T, d, quick)
    record(f"film-d{d}", model.pair_similarity(test_pairs.indices, Xte), fit_s)
    notes.append(f"STS-B: {train_pairs.indices.shape[0]} training pairs -> {T.shape[0]} triplets (pairs "
                 f"sharing a sentence compared; every pair scoring >= {STS_HIGH_SCORE:g} also gives "
                 f"{STS_RANDOM_NEGATIVES} random negatives per direction); {test_pairs.indices.shape[0]} "
                 f"test pairs; FILM d={d}, {model.n_iter_} iterations.")
    return d


# ----------------------------------------------------------------------------- report
def _plot_loss(path, curves):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    for d, curve in curves.items():
        ax.plot(np.arange(curve.size), curve, label=f"d = {d}")
    ax.set_xlabel("iteration")
    ax.set_ylabel("f2 (eq. 19)")
    ax.set_title("FILM loss, Quora dev triplets (Fig. 1 analogue)", fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _v(results, exp, method, measure):
    rows = results.select(experiment=exp, method=method, measure=measure)
    return rows[0]["value"] if rows else None


def run_experiments(quick=False, data_dir=None, out_dir=None):
    """Run both experiments; return (Results, markdown report). The loss plot goes to ``out_dir``."""
    results, notes, md, summary = Results(), [], [], []
    plots = plots_enabled(out_dir, notes)
    md.append("# Reproduction of Tang & Aw: FILM (fast, interpretable, low-rank metric learning)\n")
    md.append("Paper values are in brackets. Methods: `cosine` tf.idf cosine; `cosine-knn` the Pairwise kNN rule on the raw tf.idf; `lsi-dD` cosine on a "
              "D-dimensional LSI of the same tf.idf; `film-dD` FILM (learnsim defaults: svd_rank = 5 d, "
              "margin and hinge smoothing 'auto'/1) with a similarity threshold; `film-knn-dD` the same "
              "FILM with the paper's Pairwise kNN rule. Thresholds, calibration and k are chosen on the "
              "training/dev pairs, never on test.\n")

    dims, curves, n_train_pairs = experiment_quora(results, data_dir, quick=quick, notes=notes)
    base = ["cosine", "cosine-knn"] + [f"lsi-d{d}" for d in dims]
    film = [f"film-d{d}" for d in dims] + [f"film-knn-d{d}" for d in dims]
    md.append("## Quora question pairs (Table 1 analogue), test split\n")
    for measure, title in (("accuracy", "Accuracy"), ("log_loss", "Log loss")):
        md.append(f"### {title}\n")
        md.append(results.table("quora", measure, base))
        md.append("")
        md.append(results.table("quora", measure, film))
        md.append("")
    md.append("### FILM fit seconds\n")
    md.append(results.table("quora", "fit_seconds", [f"film-d{d}" for d in dims], with_paper=False,
                            fmt="{:.1f}"))
    md.append("")
    cos = _v(results, "quora", "cosine", "accuracy")
    gaps = [(m, _v(results, "quora", m, "accuracy") - cos) for m in film]
    best = max(gaps, key=lambda t: t[1])
    met = best[1] >= TARGET_POINTS
    summary.append(
        f"**quora.** tf.idf cosine accuracy {cos:.3f}. FILM minus cosine (accuracy points): "
        + ", ".join(f"`{m}` {g * 100:+.1f}" for m, g in gaps)
        + f". The issue's target (+{TARGET_POINTS * 100:.0f} points) is "
        + ("met" if met else "not met") + f" (largest gap {best[1] * 100:+.1f} by `{best[0]}`; "
        "the settings are fixed in advance, so this maximum over them is itself slightly optimistic). "
        "The paper's 86.83 % comes from 320k training pairs; here FILM sees "
        f"{n_train_pairs} dev pairs. The Pairwise kNN rule "
        f"on the raw tf.idf scores {_v(results, 'quora', 'cosine-knn', 'accuracy'):.3f}; on FILM's embedding "
        + ", ".join(f"{_v(results, 'quora', f'film-knn-d{d}', 'accuracy'):.3f} (d = {d})" for d in dims) + ".")
    if plots and curves:
        _plot_loss(out_dir / "film_quora_loss.png", curves)
        md.append("![FILM training loss](film_quora_loss.png)\n")

    d_sts = experiment_sts(results, data_dir, quick=quick, notes=notes)
    md.append("## STS Benchmark (Table 2 analogue), test split\n")
    md.append("### Pearson\n")
    md.append(results.table("sts", "pearson", ["cosine", f"film-d{d_sts}"]))
    md.append("\n### Spearman\n")
    md.append(results.table("sts", "spearman", ["cosine", f"film-d{d_sts}"]))
    sc, sf = _v(results, "sts", "cosine", "pearson"), _v(results, "sts", f"film-d{d_sts}", "pearson")
    summary.append(f"**sts.** Pearson: cosine {sc:.3f}, `film-d{d_sts}` {sf:.3f} ({(sf - sc) * 100:+.1f} "
                   f"points; FILM {'beats' if sf > sc else 'does not beat'} cosine; paper's FILM "
                   f"{PAPER_STS_PEARSON:.4f}).")

    md.insert(2, "## Summary\n\n" + "\n\n".join(summary) + "\n")
    md.append("\n## Protocol notes\n")
    md.append("\n".join(f"- {n}" for n in notes + [
        "The full 404k Quora set is not available: FILM is trained on the 10k dev pairs of Wang et al. "
        "(2017) and scored on their 10k test pairs, so the absolute numbers are not the paper's.",
        "tf.idf (sublinear tf, L2-normalised, unigrams) and the LSI bases are fitted on the texts of both "
        "splits without labels, as an index of the collection would be.",
        "The kNN rule searches neighbours among the questions of the split being scored (dev for choosing "
        "k, test for the numbers).",
        "Paper values: FILM 86.83 % accuracy (Table 1) and log loss 0.32141 (sec. 4, Kaggle's test set) "
        "stand beside `film-knn-d100`; STS Pearson 57.68 (Table 2) beside FILM d = 100. The paper reports "
        "no tf.idf baseline."]))
    return results, "\n".join(md) + "\n"
