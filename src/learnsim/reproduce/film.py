"""Reproduction of Tang & Aw, FILM (paper 001): Quora duplicate questions and STS-B.

* ``quora`` - Table 1 analogue. The paper trains on 4/5 of the 404k Quora pairs; that set is not
  available here, so everything is trained and selected on the project's ``quora-sample/dev.tsv``
  (10,000 pairs of Wang et al. 2017) and scored on ``test.tsv`` (10,000 pairs). The dev pairs are
  split once (seeded): ``1 - VALIDATION_FRACTION`` of them give FILM its training triplets, the
  other ``VALIDATION_FRACTION`` are the validation pairs on which every rule is chosen - the
  threshold and its Platt calibration, the kNN rule's k, the input weight of the mixed rule - for
  every method alike. A learned model's similarities on its own training pairs are optimistic,
  so its rule must be chosen on pairs it has not seen. Test pairs are only scored.
  Methods: ``cosine`` (tf.idf cosine, threshold), ``cosine-knn`` (the Pairwise kNN rule on the
  raw tf.idf), ``lsi-dD`` (cosine in a D-dimensional LSI space), ``film-dD`` (FILM, threshold
  rule), ``film-knn-dD`` (FILM with the paper's Pairwise kNN rule), ``film-dD+cos`` (FILM's
  cosine mixed with the tf.idf cosine, :mod:`learnsim.hybrid`, weight chosen on validation) and,
  as its control, ``lsi-dD+cos`` (the same mix with the unsupervised LSI of the same size).
* ``sts`` - Table 2 analogue: Pearson and Spearman correlation on STS-B test of each pair's
  similarity with the gold score. FILM is trained on STS-B train; the mixed rule's weight is
  chosen on STS-B dev by Pearson correlation.
* Dense encoders (the paper's FILM-BERT), when ``encoder`` (a local sentence-transformers model
  folder) is given: the encoder's own cosine, FILM fitted on the embeddings, and the mix.
* Figures: the training loss by iteration (Figure 1), the kNN rule's validation rates and
  cross-entropy by k (Figure 4), the words of one learned dimension (Figure 5), and fit time
  against the number of training triplets and against d with the SVD's share.

Protocol choices the paper leaves open (also listed in the report):

* Vectoriser: tf.idf with sublinear tf, L2-normalised rows, unigrams, fitted (vocabulary and idf,
  unsupervised) on the questions / sentences of all splits, as an index of the whole collection
  would be; labels come from the training pairs only. LSI bases are fitted the same way.
* Quora triplets (``duplicate_pairs_to_triplets``): every training duplicate pair (a, b) gives
  (a, b, c) and (b, a, c) with c a labelled non-duplicate partner of the anchor when it has one,
  plus ``QUORA_RANDOM_NEGATIVES`` random dev question outside its duplicate component, plus one
  hard negative: a question among the anchor's ``QUORA_NEIGHBOURS`` nearest dev questions by
  tf.idf cosine that is not a known duplicate. Random negatives rarely share a word with the
  anchor, so the input cosine already satisfies their triplets; the hard ones teach what word
  overlap does not, which is what the test pairs ask.
* The mixing weight w of "+cos" is chosen on the validation pairs by ROC AUC
  (``ThresholdMatcher(weight_criterion="auc")``), then the threshold by accuracy.
* STS triplets (``graded_pairs_to_triplets``): pairs sharing a sentence are compared (rare in
  STS), and every pair scoring at least ``STS_HIGH_SCORE`` gives ``STS_RANDOM_NEGATIVES`` triplets
  (a, b, r) and as many (b, a, r) with r a random training sentence not paired with a.
* Rows without any vocabulary term (empty questions) cannot be L2-normalised; triplets that use
  them are dropped (they still take part in evaluation, with cosine 0).

Settings chosen on dev only (measured once with a dev split of 8000 training and 2000
validation pairs, FILM 100 iterations; not re-run by the reproduction):

* Quora, FILM d = 50, validation accuracy: tf.idf cosine 0.688; FILM alone 0.699 (test 0.687);
  FILM mixed with the cosine 0.721 (w = 0.65; test 0.717); LSI-50 mixed 0.704 (test 0.700). An
  earlier search (threshold rule, FILM alone) over svd_rank 100 / 1000, margin 0.1,
  hinge_smoothing 0, 3 random negatives, d = 20, bigrams and raw tf found nothing better than
  the defaults. Most dev questions occur in a single pair, so few anchors have a labelled
  non-duplicate partner: the triplets mostly teach "duplicate vs random question", which
  separates topics, while the test asks "duplicate vs related question"; the word overlap that
  the input cosine measures is what the low-rank map cannot keep.
* STS, FILM d = 100 (dev Pearson of the mix / test Pearson of FILM alone): high score 4 with 2
  random negatives 0.765 / 0.556; high score 3 with 2 random negatives 0.769 / 0.590 (used);
  high score 4 with 5 random negatives 0.764 / 0.555. d = 50 was below d = 100 in every case.

References
----------
.. [1] Tang, X. and Aw, A. (2020). FILM: A Fast, Interpretable, and Low-rank Metric Learning
   Approach for Sentence Matching. arXiv:2001.05839 (paper 001 of ../shared/papers).
"""
from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._utils.linalg import truncated_svd
from .._utils.progress import progress
from ..datasets import load_quora_pairs, load_sts_benchmark
from ..evaluation import pearson, spearman
from ..evaluation.explain import plot_dimension_weights, top_features
from ..film import FILM
from ..film.hybrid import select_input_weight
from ..matching import PairwiseKNNMatcher, ThresholdMatcher, pair_similarity
from ..search import top_k
from ..supervision import Pairs, duplicate_pairs_to_triplets, graded_pairs_to_triplets, split_pairs
from ..text import TextVectorizer
from .records import Results, plots_enabled

DIMENSIONS = (50, 100, 200)
QUICK_DIMENSIONS = (50,)
DENSE_DIMENSIONS = (50, 100)
QUICK_QUORA_PAIRS = (3000, 2000)        # dev, test pairs in --quick
QUICK_STS_TRAIN_PAIRS = 3000
QUICK_MAX_ITER = 60
VALIDATION_FRACTION = 0.2
QUORA_RANDOM_NEGATIVES = 1
QUORA_NEIGHBOURS = 10
STS_HIGH_SCORE = 3.0
STS_RANDOM_NEGATIVES = 2
STS_DIMENSION = 100
#: the kNN rule's candidate k (Figure 4); the paper's chosen k = 36 lies inside
KNN_GRID = (1, 2, 3, 5, 10, 20, 36, 50, 100, 200, 500)
#: fractions of the training triplets for the fit-time curve
TIMING_FRACTIONS = (0.125, 0.25, 0.5, 1.0)
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


def _fit_film(X, triplets, d, quick, **extra):
    # the paper's protocol: FILM fitted on all its triplets, no held-out check (learnsim.baseline);
    # the reproduction compares FILM with the cosine on its own test splits
    params = dict(n_components=d, random_state=SEED, baseline_holdout=None, **extra)
    if quick:
        params["max_iter"] = QUICK_MAX_ITER
    start, cpu = time.perf_counter(), time.process_time()
    model = FILM(**params).fit(X, triplets)
    return model, time.perf_counter() - start, time.process_time() - cpu


class _Projection:
    """x -> x B (an LSI basis) as a transformer for the matchers."""

    def __init__(self, basis):
        self.basis = basis

    def transform(self, X):
        return np.asarray(X @ self.basis)


def _load_encoder(encoder_path):
    """The fitted SentenceEncoder (loaded once, used for every split)."""
    from ..text.encoders import SentenceEncoder  # the dense extra: only with an encoder

    return SentenceEncoder(encoder_path).fit()


def _encoder_name(encoder):
    """The model folder as the report shows it: its last two path parts, never a machine path."""
    return "/".join(Path(encoder.model_path_).parts[-2:])


def _encode(encoder, texts):
    start = time.perf_counter()
    E = encoder.transform(texts)
    return np.asarray(E, dtype=np.float64), time.perf_counter() - start


# ----------------------------------------------------------------------------- Quora
def experiment_quora(results, data_dir, *, quick, notes, encoder=None):
    dev = load_quora_pairs("dev", data_dir=data_dir)
    test = load_quora_pairs("test", data_dir=data_dir)
    dev_texts, dev_pairs = list(dev.texts), dev.pairs
    test_texts, test_pairs = list(test.texts), test.pairs
    rng = np.random.default_rng(SEED)
    if quick:
        dev_texts, dev_pairs = _subsample(dev_pairs, dev_texts, QUICK_QUORA_PAIRS[0], rng)
        test_texts, test_pairs = _subsample(test_pairs, test_texts, QUICK_QUORA_PAIRS[1], rng)
    train_pairs, val_pairs = split_pairs(dev_pairs, VALIDATION_FRACTION, rng)
    dims = QUICK_DIMENSIONS if quick else DIMENSIONS
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*empty after tokenisation.*")
        vec = _vectorizer().fit(dev_texts + test_texts)
    Xd, Xt = vec.transform(dev_texts), vec.transform(test_texts)
    notes.append(f"Quora: {dev_pairs.indices.shape[0]} dev pairs ({int(dev_pairs.labels.sum())} duplicates, "
                 f"{len(dev_texts)} questions), split into {train_pairs.indices.shape[0]} training pairs (FILM's "
                 f"triplets) and {val_pairs.indices.shape[0]} validation pairs (every rule's threshold, k, "
                 f"input weight and calibration); {test_pairs.indices.shape[0]} test pairs "
                 f"({int(test_pairs.labels.sum())} duplicates) for the numbers; vocabulary {Xd.shape[1]} terms.")

    def record(method, report, fit_seconds=None):
        for measure in ("accuracy", "log_loss", "tpr", "tnr"):
            results.add("quora", "test", method, measure, report[measure], PAPER_QUORA.get((method, measure)))
        for measure in ("input_weight", "k"):
            if measure in report:
                results.add("quora", "test", method, measure, report[measure])
        if fit_seconds is not None:
            results.add("quora", "test", method, "fit_seconds", fit_seconds)

    def threshold_rules(name, transformer, X_dev, X_test, fit_seconds=None, mix=True):
        plain = ThresholdMatcher(transformer).fit(X_dev, val_pairs)
        record(name, plain.report(test_pairs, X=X_test), fit_seconds)
        results.add("quora", "test", name, "validation_accuracy", plain.validation_accuracy_)
        if mix:
            mixed = ThresholdMatcher(transformer, input_weight="auto").fit(X_dev, val_pairs)
            record(f"{name}+cos", mixed.report(test_pairs, X=X_test))
            results.add("quora", "test", f"{name}+cos", "validation_accuracy", mixed.validation_accuracy_)

    once = np.bincount(dev_pairs.indices.ravel(), minlength=len(dev_texts))
    notes.append(f"Quora: {np.mean(once[once > 0] == 1):.1%} of the dev questions occur in a single pair (why "
                 "the kNN rule struggles: a question's partner is among its nearest neighbours either way).")
    threshold_rules("cosine", None, Xd, Xt, mix=False)
    # the paper's rule on the raw tf.idf: what FILM's embedding adds to the kNN rule
    record("cosine-knn", PairwiseKNNMatcher(k_grid=KNN_GRID).fit(Xd, val_pairs).report(test_pairs, X=Xt))

    # LSI: one basis of the whole collection (unsupervised), truncated to each d
    X_all = sp.vstack([Xd, Xt]).tocsr()
    k_max = min(max(dims), *X_all.shape)
    _, Vt = truncated_svd(X_all, k_max, SEED)
    for d in dims:
        threshold_rules(f"lsi-d{d}", _Projection(Vt[:min(d, k_max)].T), Xd, Xt)

    # hard negatives: each dev question's QUORA_NEIGHBOURS nearest dev questions by tf.idf cosine
    neighbours, _ = top_k(Xd, Xd, QUORA_NEIGHBOURS, metric="cosine", exclude_self=True)
    triplets = duplicate_pairs_to_triplets(train_pairs, n_items=Xd.shape[0],
                                           n_random_negatives=QUORA_RANDOM_NEGATIVES, random_state=SEED,
                                           neighbors=neighbours, n_hard_negatives=1)
    T = _drop_empty(triplets, _empty_rows(Xd))
    notes.append(f"Quora FILM: {T.shape[0]} triplets from the training duplicate pairs (labelled non-duplicate "
                 f"partner where there is one, {QUORA_RANDOM_NEGATIVES} random negative and 1 hard negative, a "
                 f"non-duplicate among the anchor's {QUORA_NEIGHBOURS} nearest dev questions by tf.idf cosine, "
                 "per direction).")
    curves, knn_curves, timing, models = {}, {}, [], {}
    for d in progress(dims, desc="quora FILM"):
        model, fit_s, cpu_s = _fit_film(Xd, T, d, quick)
        models[d] = model
        curves[d] = model.loss_curve_
        timing.append(("d", d, T.shape[0], fit_s, cpu_s, _svd_seconds(model)))
        threshold_rules(f"film-d{d}", model, Xd, Xt, fit_s)
        knn = PairwiseKNNMatcher(model, k_grid=KNN_GRID).fit(Xd, val_pairs)
        record(f"film-knn-d{d}", knn.report(test_pairs, X=Xt), fit_s)
        knn_curves[d] = knn.validation_curve_
        notes.append(f"Quora FILM d={d}: {model.n_iter_} iterations (converged: {model.converged_}), "
                     f"svd_rank {model.svd_rank_}; kNN rule k = {knn.k_} chosen on validation by cross-entropy.")

    # fit time against the number of training triplets (FILM d = the first dimension)
    d0 = dims[0]
    order = np.random.default_rng(SEED + 1).permutation(T.shape[0])
    for fraction in TIMING_FRACTIONS[:-1]:
        part = T[np.sort(order[:max(3, int(fraction * T.shape[0]))])]
        model, fit_s, cpu_s = _fit_film(Xd, part, d0, quick)
        timing.append(("n", d0, part.shape[0], fit_s, cpu_s, _svd_seconds(model)))
    timing.append(("n",) + next(t for t in timing if t[0] == "d" and t[1] == d0)[1:])

    dense = None
    if encoder is not None:
        dense = _quora_dense(encoder, dev_texts, test_texts, train_pairs, T, quick, threshold_rules, notes)
    return dict(dims=dims, curves=curves, knn_curves=knn_curves, timing=timing, models=models, vectorizer=vec,
                n_train_pairs=train_pairs.indices.shape[0], dense=dense)


def _svd_seconds(model):
    timings = getattr(model, "timings_", None)
    return None if timings is None else timings.get("svd")


def _quora_dense(encoder, dev_texts, test_texts, train_pairs, T, quick, threshold_rules, notes):
    Ed, enc_dev = _encode(encoder, dev_texts)
    Et, enc_test = _encode(encoder, test_texts)
    notes.append(f"Dense encoder `{_encoder_name(encoder)}`: {Ed.shape[1]} dimensions; encoding took {enc_dev:.0f} s (dev) "
                 f"and {enc_test:.0f} s (test).")
    threshold_rules("dense-cosine", None, Ed, Et, mix=False)
    dims = DENSE_DIMENSIONS[:1] if quick else DENSE_DIMENSIONS
    out = []
    for d in dims:
        if d > Ed.shape[1]:
            continue
        model, fit_s, _ = _fit_film(Ed, T, d, quick)
        threshold_rules(f"dense-film-d{d}", model, Ed, Et, fit_s)
        out.append(d)
    return out


# ----------------------------------------------------------------------------- STS-B
def experiment_sts(results, data_dir, *, quick, notes, encoder=None):
    train = load_sts_benchmark("train", data_dir=data_dir)
    dev = load_sts_benchmark("dev", data_dir=data_dir)
    test = load_sts_benchmark("test", data_dir=data_dir)
    train_texts, train_pairs = list(train.texts), train.pairs
    if quick:
        train_texts, train_pairs = _subsample(train_pairs, train_texts, QUICK_STS_TRAIN_PAIRS,
                                              np.random.default_rng(SEED))
    n_train, n_dev = len(train_texts), len(dev.texts)
    texts = train_texts + list(dev.texts) + list(test.texts)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*empty after tokenisation.*")
        vec = _vectorizer().fit(texts)
    X = vec.transform(texts)
    dev_idx, test_idx = dev.pairs.indices + n_train, test.pairs.indices + n_train + n_dev
    gold_dev, gold = dev.pairs.scores, test.pairs.scores

    def record(method, sims, fit_seconds=None, weight=None):
        paper = PAPER_STS_PEARSON if method == f"film-d{STS_DIMENSION}" else None
        results.add("sts", "test", method, "pearson", pearson(sims, gold), paper)
        results.add("sts", "test", method, "spearman", spearman(sims, gold))
        if fit_seconds is not None:
            results.add("sts", "test", method, "fit_seconds", fit_seconds)
        if weight is not None:
            results.add("sts", "test", method, "input_weight", weight)

    def with_mix(name, E, X_in, fit_seconds=None):
        """The embedding's cosine alone, and mixed with X_in's cosine (weight by dev Pearson)."""
        record(name, pair_similarity(E, test_idx), fit_seconds)
        weight, _ = select_input_weight(pair_similarity(X_in, dev_idx), pair_similarity(E, dev_idx),
                                        lambda s: pearson(s, gold_dev))
        record(f"{name}+cos", weight * pair_similarity(X_in, test_idx)
               + (1 - weight) * pair_similarity(E, test_idx), weight=weight)

    record("cosine", pair_similarity(X, test_idx))
    d = QUICK_DIMENSIONS[0] if quick else STS_DIMENSION
    _, Vt = truncated_svd(X, min(d, *X.shape), SEED)
    with_mix(f"lsi-d{d}", np.asarray(X @ Vt.T), X)
    triplets = graded_pairs_to_triplets(train_pairs, random_state=SEED, high_score=STS_HIGH_SCORE,
                                        n_random_negatives=STS_RANDOM_NEGATIVES, n_items=n_train)
    Xtr = X[:n_train]
    T = _drop_empty(triplets, _empty_rows(Xtr))
    model, fit_s, _ = _fit_film(Xtr, T, d, quick)
    with_mix(f"film-d{d}", model.transform(X), X, fit_s)
    notes.append(f"STS-B: {train_pairs.indices.shape[0]} training pairs -> {T.shape[0]} triplets (pairs "
                 f"sharing a sentence compared; every pair scoring >= {STS_HIGH_SCORE:g} also gives "
                 f"{STS_RANDOM_NEGATIVES} random negatives per direction); {dev_idx.shape[0]} dev pairs choose "
                 f"the mixing weights; {test_idx.shape[0]} test pairs; FILM d={d}, {model.n_iter_} iterations.")
    dense = None
    if encoder is not None:
        E, seconds = _encode(encoder, texts)
        notes.append(f"STS-B dense: encoding {len(texts)} sentences took {seconds:.0f} s.")
        record("dense-cosine", pair_similarity(E, test_idx))
        dense = []
        for dd in (DENSE_DIMENSIONS[:1] if quick else DENSE_DIMENSIONS):
            if dd > E.shape[1]:
                continue
            dmodel, dfit, _ = _fit_film(E[:n_train], T, dd, quick)
            with_mix(f"dense-film-d{dd}", dmodel.transform(E), E, dfit)
            dense.append(dd)
    return dict(d=d, dense=dense)


# ----------------------------------------------------------------------------- figures
def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _plot_loss(path, curves):
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for d, curve in curves.items():
        ax.plot(np.arange(curve.size), curve, label=f"d = {d}")
    ax.set_xlabel("iteration")
    ax.set_ylabel("f2 (eq. 19)")
    ax.set_title("FILM loss, Quora training triplets (Fig. 1 analogue)", fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_knn(path, curve, d):
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    k = curve["k"]
    for key, style in (("tpr", "-o"), ("tnr", "-s"), ("fpr", "--o"), ("fnr", "--s")):
        ax.plot(k, curve[key], style, ms=3, label=key.upper())
    ax.set_xscale("log")
    ax.set_xlabel("k")
    ax.set_ylabel("rate (validation pairs)")
    ax2 = ax.twinx()
    ax2.plot(k, curve["log_loss"], "k:", label="cross-entropy")
    ax2.set_ylabel("cross-entropy")
    lines = ax.get_legend_handles_labels()
    lines2 = ax2.get_legend_handles_labels()
    ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], fontsize=8, loc="center right")
    ax.set_title(f"Pairwise kNN rule on FILM d = {d}, by k (Fig. 4 analogue)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_timing(path, timing):
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for ax, kind, xlabel, xi in ((axes[0], "n", "training triplets", 2), (axes[1], "d", "d", 1)):
        rows = sorted((t for t in timing if t[0] == kind), key=lambda t: t[xi])
        x = np.array([t[xi] for t in rows], dtype=float)
        total = np.array([t[3] for t in rows])
        ax.plot(x, total, "-o", label="fit")
        svd = [t[5] for t in rows]
        if all(s is not None for s in svd):
            ax.plot(x, svd, "--s", label="of which SVD")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("seconds")
        ax.legend(fontsize=8)
    axes[0].set_xscale("log")
    axes[0].set_yscale("log")
    fig.suptitle("FILM fit time on the Quora training triplets", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _strongest_dimension(model):
    return int(np.argmax(model.scales_))


def _v(results, exp, method, measure):
    rows = results.select(experiment=exp, method=method, measure=measure)
    return rows[0]["value"] if rows else None


# ----------------------------------------------------------------------------- report
def run_experiments(quick=False, data_dir=None, out_dir=None, encoder=None):
    """Run both experiments; return (Results, markdown report). Figures go to ``out_dir``."""
    results, notes, md, summary = Results(), [], [], []
    plots = plots_enabled(out_dir, notes)
    md.append("# Reproduction of Tang & Aw: FILM (fast, interpretable, low-rank metric learning)\n")
    md.append("Paper values are in brackets. Methods: `cosine` tf.idf cosine; `cosine-knn` the Pairwise kNN "
              "rule on the raw tf.idf; `lsi-dD` cosine on a D-dimensional LSI of the same tf.idf; `film-dD` "
              "FILM (learnsim defaults: svd_rank = 5 d, margin and hinge smoothing 'auto'/1) with a "
              "similarity threshold; `film-knn-dD` the same FILM with the paper's Pairwise kNN rule; "
              "`X+cos` the similarity of X mixed with the tf.idf cosine, w cos_tfidf + (1 - w) cos_X, w "
              "chosen on validation (`learnsim.hybrid`; `lsi-dD+cos` is the control: the same mix without "
              "supervision). `dense-*`: the same on a sentence encoder's embeddings. Thresholds, "
              "calibration, k and w are chosen on validation pairs, never on test.\n")

    if encoder is not None:
        encoder = _load_encoder(encoder)
    q = experiment_quora(results, data_dir, quick=quick, notes=notes, encoder=encoder)
    dims = q["dims"]
    base = ["cosine", "cosine-knn"] + [m for d in dims for m in (f"lsi-d{d}", f"lsi-d{d}+cos")]
    film = [m for d in dims for m in (f"film-d{d}", f"film-knn-d{d}", f"film-d{d}+cos")]
    dense = (["dense-cosine"] + [m for d in q["dense"] for m in (f"dense-film-d{d}", f"dense-film-d{d}+cos")]
             if q["dense"] is not None else [])
    md.append("## Quora question pairs (Table 1 analogue), test split\n")
    md.append(results.method_table("quora", "test", ["accuracy", "log_loss", "tpr", "tnr", "validation_accuracy",
                                                      "input_weight", "k", "fit_seconds"], base + film + dense,
                                   formats={"k": "{:.0f}", "fit_seconds": "{:.1f}", "input_weight": "{:.2f}"}).replace(
                                       "validation_accuracy", "validation acc."))
    md.append("")
    cos = _v(results, "quora", "cosine", "accuracy")
    gaps = [(m, _v(results, "quora", m, "accuracy") - cos) for m in film]
    best = max(gaps, key=lambda t: t[1])
    mixed_gaps = [(m, g) for m, g in gaps if m.endswith("+cos")]
    control = [(f"lsi-d{d}+cos", _v(results, "quora", f"lsi-d{d}+cos", "accuracy") - cos) for d in dims]
    summary.append(
        f"**quora.** tf.idf cosine accuracy {cos:.3f}. Minus cosine, in accuracy points: "
        + ", ".join(f"`{m}` {g * 100:+.1f}" for m, g in gaps)
        + "; the unsupervised control " + ", ".join(f"`{m}` {g * 100:+.1f}" for m, g in control)
        + f". The issue's target (+{TARGET_POINTS * 100:.0f} points) is "
        + ("met" if best[1] >= TARGET_POINTS else "not met") + f" (largest gap {best[1] * 100:+.1f} by `{best[0]}`; "
        + ("every mixed FILM reaches it" if all(g >= TARGET_POINTS for _, g in mixed_gaps) else
           "not every setting reaches it") + "). FILM alone, a d-dimensional map, gains less: it keeps the "
        "directions that separate duplicates from random questions and loses the exact word overlap, "
        "which the mix restores. The paper's 86.83 % comes from 320k training pairs; here FILM sees "
        f"{q['n_train_pairs']} training pairs. The Pairwise kNN rule "
        f"on the raw tf.idf scores {_v(results, 'quora', 'cosine-knn', 'accuracy'):.3f}; on FILM's embedding "
        + ", ".join(f"{_v(results, 'quora', f'film-knn-d{d}', 'accuracy'):.3f} (d = {d})" for d in dims)
        + ": below the threshold rule, because most questions occur in one pair only, so a question's "
        "partner is among its nearest neighbours whether or not it is a duplicate, and a rank discards "
        "how similar the two are. The threshold rule is therefore learnsim's default.")
    # d chosen on the validation pairs, as a user would: no test number is picked after the fact
    for kind, suffix in (("FILM alone", ""), ("FILM mixed with the cosine", "+cos")):
        chosen = max(dims, key=lambda d: _v(results, "quora", f"film-d{d}{suffix}", "validation_accuracy"))
        acc = _v(results, "quora", f"film-d{chosen}{suffix}", "accuracy")
        summary.append(f"**quora, d chosen on validation.** {kind}: d = {chosen} (validation accuracy "
                       f"{_v(results, 'quora', f'film-d{chosen}{suffix}', 'validation_accuracy'):.3f}), test "
                       f"accuracy {acc:.3f}, {(acc - cos) * 100:+.1f} points over the tf.idf cosine.")
    if dense:
        dc = _v(results, "quora", "dense-cosine", "accuracy")
        summary.append("**quora, dense encoder.** encoder cosine " f"{dc:.3f}; "
                       + ", ".join(f"`{m}` {_v(results, 'quora', m, 'accuracy'):.3f}" for m in dense[1:]) + ".")
    if plots:
        _plot_loss(out_dir / "film_quora_loss.png", q["curves"])
        md.append("![FILM training loss](film_quora_loss.png)\n")
        d_knn = 100 if 100 in q["knn_curves"] else dims[0]
        _plot_knn(out_dir / "film_quora_knn.png", q["knn_curves"][d_knn], d_knn)
        md.append("![kNN rule by k](film_quora_knn.png)\n")
    curve = q["knn_curves"][100 if 100 in q["knn_curves"] else dims[0]]
    md.append("Pairwise kNN rule on FILM, validation pairs, by k (Figure 4 analogue):\n")
    md.append("| k | accuracy | TPR | TNR | FPR | FNR | cross-entropy |\n|---|---|---|---|---|---|---|")
    for i, k in enumerate(curve["k"]):
        md.append(f"| {k} | {curve['accuracy'][i]:.3f} | {curve['tpr'][i]:.3f} | {curve['tnr'][i]:.3f} | "
                  f"{curve['fpr'][i]:.3f} | {curve['fnr'][i]:.3f} | {curve['log_loss'][i]:.3f} |")
    md.append("")

    # Figure 5: the words of the strongest learned dimension
    d5 = 100 if 100 in q["models"] else dims[0]
    model = q["models"][d5]
    dim = _strongest_dimension(model)
    names = q["vectorizer"].get_feature_names_out()
    words = top_features(model, names, n_top=12, dimensions=[dim])[0]
    md.append(f"### Words of one learned dimension (Figure 5 analogue: FILM d = {d5}, dimension {dim}, the "
              f"largest scale s = {model.scales_[dim]:.3g})\n")
    md.append("largest positive weights: " + ", ".join(f"{w.feature} ({w.weight:+.2f})" for w in words.positive)
              + "\n")
    md.append("largest negative weights: " + ", ".join(f"{w.feature} ({w.weight:+.2f})" for w in words.negative)
              + "\n")
    md.append("(`learnsim explain --model M.npz --dimension N` prints the same for a model saved by `learnsim fit "
              "--method film`, and `--pair A B` the words that drove one pair's similarity.)\n")
    if plots:
        ax = plot_dimension_weights(model, names, dimension=dim, n_top=12)
        ax.set_title(f"FILM d = {d5} on Quora, dimension {dim} (Fig. 5 analogue)", fontsize=10)
        ax.figure.savefig(out_dir / "film_quora_dimension.png", dpi=110)
        md.append("![words of one dimension](film_quora_dimension.png)\n")

    md.append("### Fit time\n")
    md.append("| varied | d | triplets | fit s | CPU s | SVD s | SVD share |\n|---|---|---|---|---|---|---|")
    for kind, d, n, fit_s, cpu_s, svd_s in sorted(q["timing"], key=lambda t: (t[0], t[1], t[2])):
        share = "-" if svd_s is None else f"{svd_s / fit_s:.0%}"
        md.append(f"| {'triplets' if kind == 'n' else 'd'} | {d} | {n} | {fit_s:.1f} | {cpu_s:.1f} | "
                  f"{'-' if svd_s is None else f'{svd_s:.1f}'} | {share} |")
    md.append("\nFit time at 10k-500k synthetic sentences: `benchmarks/bench_film_scale.py`.\n")
    if plots:
        _plot_timing(out_dir / "film_quora_timing.png", q["timing"])
        md.append("![fit time](film_quora_timing.png)\n")

    s = experiment_sts(results, data_dir, quick=quick, notes=notes, encoder=encoder)
    d_sts = s["d"]
    sts_methods = ["cosine", f"lsi-d{d_sts}", f"lsi-d{d_sts}+cos", f"film-d{d_sts}", f"film-d{d_sts}+cos"]
    if s["dense"] is not None:
        sts_methods += ["dense-cosine"] + [m for d in s["dense"] for m in (f"dense-film-d{d}", f"dense-film-d{d}+cos")]
    md.append("## STS Benchmark (Table 2 analogue), test split\n")
    md.append(results.method_table("sts", "test", ["pearson", "spearman", "input_weight", "fit_seconds"],
                                   sts_methods, formats={"fit_seconds": "{:.1f}", "input_weight": "{:.2f}"}))
    sc = _v(results, "sts", "cosine", "pearson")
    sf, sm = _v(results, "sts", f"film-d{d_sts}", "pearson"), _v(results, "sts", f"film-d{d_sts}+cos", "pearson")
    summary.append(f"**sts.** Pearson: tf.idf cosine {sc:.3f}; `film-d{d_sts}` alone {sf:.3f} (paper's FILM "
                   f"{PAPER_STS_PEARSON:.4f}); `film-d{d_sts}+cos` {sm:.3f} ({(sm - sc) * 100:+.1f} points over the "
                   f"cosine: {'beats' if sm > sc else 'does not beat'} it); the unsupervised control "
                   f"`lsi-d{d_sts}+cos` {_v(results, 'sts', f'lsi-d{d_sts}+cos', 'pearson'):.3f}.")
    if s["dense"]:
        dc = _v(results, "sts", "dense-cosine", "pearson")
        summary.append("**sts, dense encoder.** encoder cosine " f"{dc:.3f}; "
                       + ", ".join(f"`{m}` {_v(results, 'sts', m, 'pearson'):.3f}"
                                   for m in sts_methods if m.startswith("dense-film")) + ".")

    md.insert(2, "## Summary\n\n" + "\n\n".join(summary) + "\n")
    md.append("\n## Protocol notes\n")
    md.append("\n".join(f"- {n}" for n in notes + [
        "The full 404k Quora set is not available: FILM is trained on 80 % of the 10k dev pairs of Wang et "
        "al. (2017), every rule is chosen on the other 20 %, and the numbers are on their 10k test pairs, so "
        "the absolute numbers are not the paper's.",
        "tf.idf (sublinear tf, L2-normalised, unigrams) and the LSI bases are fitted on the texts of all "
        "splits without labels, as an index of the collection would be.",
        "The kNN rule searches neighbours among the questions of the split being scored (dev for choosing "
        "k, test for the numbers).",
        "Paper values: FILM 86.83 % accuracy (Table 1) and log loss 0.32141 (sec. 4, Kaggle's test set) "
        "stand beside `film-knn-d100`; STS Pearson 57.68 (Table 2) beside FILM d = 100. The paper reports "
        "no tf.idf baseline."]))
    return results, "\n".join(md) + "\n"
