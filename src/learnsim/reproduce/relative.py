"""Reproduction of Schultz & Joachims, "Learning a Distance Metric from Relative Comparisons"
(paper 004).

``learnsim reproduce relative`` runs, on the WebKB pages of the paper's four topics
(``load_webkb(subset="paper")``: 4,184 pages against the paper's 4,183, see
:mod:`learnsim.webkb`):

* Table 1: the accuracy on unseen test triplets of the learned weighted Euclidean distance
  (A = I, eq. 8) for the University, Topic and Topic+FacultyStudent distances, with the paper's
  C = 1 and with C chosen on validation triplets over held-out training pages
  (:func:`learnsim.relative.select_C`), beside the static binary and tf.idf Euclidean distances. 70 % of the pages train, 30 % test; the
  training triplets come from training pages, the test triplets from test pages, drawn as the
  paper does (three random pages, kept when the rule holds: :func:`learnsim.webkb.webkb_triplets`).
  The learned metric reads binary features without stemming or stop words; the baselines use
  stemming and stop word removal, as the paper's best static distances did;
* Figure 2: the learning curve of the Topic+FacultyStudent distance (test accuracy against the
  number of training triplets, up to 150,000) with the training time at each size, for C = 1 and
  for C chosen on validation at each size;
* Table 2: metric MDS maps of the test pages under the unweighted binary distance, the learned
  Topic distance and the learned Topic+FacultyStudent distance, coloured by topic, with the
  silhouette of the topics in each map as a number for what the picture shows;
* the kernel variant (A = Phi, RBF, eq. 3-4): the two-cluster toy problem of Figure 1
  (example 2), where no weighting of the input dimensions can group the points, and WebKB.

Protocol choices the paper leaves open (also in the report's notes): the University distance
uses the pages of the seven largest university domains (the four university folders and the
three largest universities of ``misc``; :func:`learnsim.webkb.webkb_university_labels`),
because ``misc`` is a folder of 115 universities, not one; the static baselines are reported
both with raw and with L2-normalised rows (the paper does not say; raw binary Euclidean
distance mostly measures page length).

References
----------
.. [1] Schultz, M. and Joachims, T. (2004). Learning a Distance Metric from Relative
   Comparisons. In Advances in Neural Information Processing Systems 16 (NIPS 2003), MIT Press
   (paper 004 of ../shared/papers).
"""
from __future__ import annotations

import time

import numpy as np

from .._utils.progress import progress
from .._utils.validation import check_random_state
from ..evaluation import evaluate_triplets
from ..relative import RelativeComparisonMetric, select_C
from ..supervision import Triplets, sample_label_triplets
from .webkb import load_webkb, webkb_features, webkb_triplets, webkb_university_labels
from .records import Results, plots_enabled

SEED = 0
C = 1.0
TRAIN_FRACTION = 0.7
N_TRAIN = 150_000
N_TEST = 85_907                 # the paper's |P_test| (sec. 5)
CURVE_SIZES = (1_000, 5_000, 10_000, 25_000, 50_000, 100_000, 150_000)
#: the relative duality gap the fits stop at: accuracy does not move below it (see the notes)
TOL = 1e-3
#: C chosen on validation triplets: candidates, the share of the training pages held out for
#: validation, and the number of validation triplets drawn from them
C_GRID = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2)
VALID_FRACTION = 0.25
N_VALID = 20_000
KERNEL_TRIPLETS = 20_000
KERNEL_BASIS = 1_000
QUICK = {"n_train": 5_000, "n_test": 5_000, "curve": (1_000, 3_000, 5_000), "kernel_triplets": 2_000,
         "kernel_basis": 200, "pages": 1_200, "n_valid": 3_000}
DISTANCES = ("university", "topic", "topic+facultystudent")
#: Table 1 of the paper, in [0, 1]: learned, binary, tf.idf
PAPER_TABLE1 = {"university": (0.9843, 0.6788, 0.8072), "topic": (0.7540, 0.6182, 0.5557),
                "topic+facultystudent": (0.7967, 0.6308, 0.5506)}
#: the static baselines: name -> (webkb_features kind, norm)
BASELINES = {"binary": ("binary-stemmed", None), "binary-l2": ("binary-stemmed", "l2"),
             "tfidf": ("tfidf-stemmed", None), "tfidf-l2": ("tfidf-stemmed", "l2")}


def split_pages(n_pages, random_state=SEED):
    """The reproduction's split of the pages: a seeded TRAIN_FRACTION train, the rest test, both
    sorted. The benchmarks call it too, so that they fit and score on the same pages."""
    order = check_random_state(random_state).permutation(n_pages)
    cut = int(round(TRAIN_FRACTION * n_pages))
    return np.sort(order[:cut]), np.sort(order[cut:])


def _local(triplets, part, n):
    """Triplets over the whole corpus renumbered into rows of ``part`` (every index is in it)."""
    position = np.full(n, -1, dtype=np.int64)
    position[part] = np.arange(part.size)
    local = position[np.asarray(triplets)]
    if (local < 0).any():
        raise AssertionError("a triplet leaves its part of the split")
    return Triplets(local)


def _fit(X, triplets, C=C, **params):
    # seeded coordinate order: a fit stopped at gap TOL is then the same on every run
    params.setdefault("random_state", SEED)
    # the paper's method: one fit on all the training triplets, timed as such (Figure 2), without
    # the held-out check against W = 1 (learnsim.baseline) that fit makes by default
    params.setdefault("baseline_holdout", None)
    model = RelativeComparisonMetric(C=C, tol=TOL, **params)
    t0, c0 = time.perf_counter(), time.process_time()
    model.fit(X, triplets)
    return model, time.perf_counter() - t0, time.process_time() - c0


def _validation_split(train, seed):
    """The training pages split into pages that give the candidate fits' triplets and pages
    that give the validation triplets (so that C is judged, like the test, on unseen pages)."""
    order = np.random.default_rng(seed).permutation(train)
    cut = int(round(VALID_FRACTION * train.size))
    return np.sort(order[cut:]), np.sort(order[:cut])


def _choose_C(corpus, X_train, train, distance, n_fit, n_valid, seed):
    """C from C_GRID by the accuracy on validation triplets over held-out training pages, with as
    many candidate-fit triplets as the final fit has (the best C falls as triplets grow).
    Returns (best C, {C: validation accuracy}, number of pages the candidate fits drew from)."""
    n = len(corpus.topics)
    fit_pages, valid_pages = _validation_split(train, seed)
    fit = _local(webkb_triplets(corpus, distance, n_fit, indices=fit_pages, random_state=seed + 10), train, n)
    valid = _local(webkb_triplets(corpus, distance, n_valid, indices=valid_pages, random_state=seed + 11), train, n)
    return (*select_C(X_train, fit, valid, Cs=C_GRID, tol=TOL, random_state=SEED), fit_pages.size)


# --------------------------------------------------------------------------- Table 1
def experiment_table1(results, corpus, X, baselines, train, test, sizes, notes):
    n = X.shape[0]
    X_train, X_test = X[train], X[test]
    models = {}
    for distance in progress(DISTANCES, desc="Table 1"):
        tr = webkb_triplets(corpus, distance, sizes["n_train"], indices=train, random_state=SEED)
        te = webkb_triplets(corpus, distance, sizes["n_test"], indices=test, random_state=SEED + 1)
        tr_local, te_local = _local(tr, train, n), _local(te, test, n)
        model, wall, cpu = _fit(X_train, tr_local)
        paper = PAPER_TABLE1[distance]
        t0 = time.perf_counter()
        best_C, scores, n_fit_pages = _choose_C(corpus, X_train, train, distance, sizes["n_train"],
                                                sizes["n_valid"], SEED)
        tuned, tuned_wall, tuned_cpu = _fit(X_train, tr_local, C=best_C)
        results.add("table1", distance, "learned-validC", "accuracy", tuned.score(X_test, te_local), paper[0])
        results.add("table1", distance, "learned-validC", "C", best_C)
        results.add("table1", distance, "learned-validC", "fit_seconds", tuned_wall)
        results.add("table1", distance, "learned-validC", "fit_cpu_seconds", tuned_cpu)
        for c, acc in scores.items():
            results.add("validation", distance, f"C={c:g}", "accuracy", acc)
        notes.append(f"{distance}, C on validation: {sizes['n_train']} triplets over {n_fit_pages} of the {train.size} training pages and "
                     f"{sizes['n_valid']} validation triplets over the other training pages; validation accuracy "
                     + ", ".join(f"C={c:g}: {a:.4f}" for c, a in scores.items())
                     + f"; chose C={best_C:g}; refit on all training triplets in {tuned_wall:.1f} s wall, "
                     f"relative duality gap {tuned.duality_gap_:.1e} (selection and refit "
                     f"{time.perf_counter() - t0:.0f} s).")
        results.add("table1", distance, "learned", "accuracy", model.score(X_test, te_local), paper[0])
        results.add("table1", distance, "learned", "train_accuracy", model.score(X_train, tr_local))
        results.add("table1", distance, "learned", "fit_seconds", wall)
        results.add("table1", distance, "learned", "fit_cpu_seconds", cpu)
        results.add("table1", distance, "learned", "nonzero_weights", int(np.count_nonzero(model.weights_)))
        for name, Xb in baselines.items():
            paper_value = paper[1] if name == "binary" else paper[2] if name == "tfidf" else None
            acc = evaluate_triplets(te.indices, Xb)["accuracy"]
            results.add("table1", distance, name, "accuracy", acc, paper_value)
        notes.append(f"{distance}: {len(tr)} training triplets over {train.size} pages, {len(te)} test triplets "
                     f"over {test.size} pages; fit {wall:.1f} s wall / {cpu:.1f} s CPU, {model.n_iter_} epochs, "
                     f"relative duality gap {model.duality_gap_:.1e}, {np.count_nonzero(model.weights_)} of "
                     f"{X.shape[1]} weights non-zero.")
        models[distance] = model
    return models


# --------------------------------------------------------------------------- Figure 2
def experiment_curve(results, corpus, X, train, test, sizes, notes):
    n = X.shape[0]
    distance = "topic+facultystudent"
    largest = max(sizes["curve"])
    pool = webkb_triplets(corpus, distance, largest, indices=train, random_state=SEED + 2)
    te = _local(webkb_triplets(corpus, distance, sizes["n_test"], indices=test, random_state=SEED + 1),
                test, n)
    pool = _local(pool, train, n)
    X_train, X_test = X[train], X[test]
    curve = []
    for m in progress(sizes["curve"], desc="learning curve"):
        # nested training sets: each size adds triplets to the previous ones
        model, wall, cpu = _fit(X_train, Triplets(pool.indices[:m]))
        acc = model.score(X_test, te)
        results.add("figure2", str(m), "learned", "accuracy", acc)
        results.add("figure2", str(m), "learned", "fit_seconds", wall)
        results.add("figure2", str(m), "learned", "fit_cpu_seconds", cpu)
        best_C, _, _ = _choose_C(corpus, X_train, train, distance, m, sizes["n_valid"], SEED + 3)
        tuned, tuned_wall, tuned_cpu = _fit(X_train, Triplets(pool.indices[:m]), C=best_C)
        tuned_acc = tuned.score(X_test, te)
        results.add("figure2", str(m), "learned-validC", "accuracy", tuned_acc)
        results.add("figure2", str(m), "learned-validC", "C", best_C)
        results.add("figure2", str(m), "learned-validC", "fit_seconds", tuned_wall)
        results.add("figure2", str(m), "learned-validC", "fit_cpu_seconds", tuned_cpu)
        curve.append((m, acc, wall, cpu, model.n_iter_, tuned_acc, best_C, tuned_wall, tuned_cpu))
    notes.append("Learning curve (Topic+FacultyStudent, nested training sets, one test set of "
                 f"{len(te)} triplets), C = 1: " + "; ".join(f"{c[0]}: {c[1]:.4f} in {c[2]:.1f} s" for c in curve)
                 + "; C on validation: " + "; ".join(f"{c[0]}: {c[5]:.4f} (C={c[6]:g}) in {c[7]:.1f} s" for c in curve)
                 + ".")
    return curve


# --------------------------------------------------------------------------- Table 2 (MDS)
def _mds(D, seed):
    from sklearn.manifold import MDS

    if not np.any(D > 0):        # a metric that maps everything to one point: nothing to lay out
        return np.zeros((D.shape[0], 2))
    try:
        mds = MDS(n_components=2, metric="precomputed", init="classical_mds", n_init=1, random_state=seed,
                  normalized_stress="auto")
    except TypeError:       # scikit-learn < 1.8: 'dissimilarity' instead of 'metric'
        mds = MDS(n_components=2, dissimilarity="precomputed", n_init=1, random_state=seed)
    return mds.fit_transform(D)


def experiment_mds(results, corpus, X, test, models, notes):
    from sklearn.metrics import silhouette_score
    from sklearn.metrics.pairwise import euclidean_distances

    X_test = X[test]
    topics = np.asarray(corpus.topics)[test]
    maps = {}
    panels = {"binary (unweighted)": euclidean_distances(X_test),
              "learned Topic": models["topic"].pairwise_distances(X_test),
              "learned Topic+FacultyStudent": models["topic+facultystudent"].pairwise_distances(X_test)}
    for name, D in panels.items():
        Y = _mds(D, SEED)
        maps[name] = Y
        results.add("table2", name, "mds", "silhouette_2d", float(silhouette_score(Y, topics)))
        results.add("table2", name, "distances", "silhouette", float(silhouette_score(D, topics,
                                                                                      metric="precomputed")))
    notes.append(f"MDS maps of the {test.size} test pages: scikit-learn's metric MDS (SMACOF from the classical "
                 "solution) on each distance matrix; the silhouette of the four topics is measured in the 2-D map "
                 "and on the distances themselves.")
    return maps, topics


# --------------------------------------------------------------------------- kernel variant
def make_two_cluster_toy(n_per_cluster=60, random_state=0):
    """Figure 1, example 2: squares in a disk, circles on a ring around it. Each group is
    closer to itself than to the other only through the radius, which no weighting of the two
    input dimensions can express (the groups share both dimensions' means)."""
    rng = np.random.default_rng(random_state)
    inner_r = np.sqrt(rng.uniform(0, 1, n_per_cluster))
    outer_r = rng.uniform(2.2, 3.0, n_per_cluster)
    angles = rng.uniform(0, 2 * np.pi, 2 * n_per_cluster)
    r = np.concatenate([inner_r, outer_r])
    X = np.column_stack([r * np.cos(angles), r * np.sin(angles)])
    y = np.repeat([0, 1], n_per_cluster)
    return X, y


def experiment_kernel(results, corpus, X, train, test, sizes, notes):
    # --- the toy problem: train on one draw, test on another
    X_toy, y_toy = make_two_cluster_toy(random_state=SEED)
    X_toy_te, y_toy_te = make_two_cluster_toy(random_state=SEED + 1)
    tr = sample_label_triplets(y_toy, 3_000, random_state=SEED)
    te = sample_label_triplets(y_toy_te, 3_000, random_state=SEED + 1)
    toy = {}
    for name, params in (("linear (A = I)", {}), ("rbf (A = Phi)", {"kernel": "rbf"})):
        model, wall, _ = _fit(X_toy, tr, **params)
        toy[name] = model
        results.add("kernel-toy", name, "learned", "accuracy", model.score(X_toy_te, te))
        results.add("kernel-toy", name, "learned", "fit_seconds", wall)
    results.add("kernel-toy", "euclidean", "static", "accuracy", evaluate_triplets(te.indices, X_toy_te)["accuracy"])

    # --- WebKB: the same triplets with A = I and with an RBF map over training pages
    n = X.shape[0]
    X_train, X_test = X[train], X[test]
    for distance in ("topic", "topic+facultystudent"):
        tr = _local(webkb_triplets(corpus, distance, sizes["kernel_triplets"], indices=train, random_state=SEED),
                    train, n)
        te = _local(webkb_triplets(corpus, distance, sizes["n_test"], indices=test, random_state=SEED + 1),
                    test, n)
        for name, params in (("linear (A = I)", {}),
                             ("rbf (A = Phi)", {"kernel": "rbf", "n_basis": sizes["kernel_basis"],
                                                "random_state": SEED})):
            model, wall, _ = _fit(X_train, tr, **params)
            results.add(f"kernel-{distance}", name, "learned", "accuracy", model.score(X_test, te))
            results.add(f"kernel-{distance}", name, "learned", "fit_seconds", wall)
    notes.append(f"Kernel variant on WebKB: {sizes['kernel_triplets']} training triplets, the RBF map over "
                 f"{sizes['kernel_basis']} training pages drawn at random (L = K_bb * K_bb, eq. 3-4), gamma by the "
                 "estimator's default; A = I on the same triplets for comparison.")
    return X_toy, y_toy, toy


# --------------------------------------------------------------------------- figures
def _plot(out_dir, curve, maps, topics, toy, notes):
    import matplotlib.pyplot as plt

    m, acc, wall = (np.array([c[i] for c in curve], dtype=float) for i in range(3))
    tuned_acc, tuned_wall = (np.array([c[i] for c in curve], dtype=float) for i in (5, 7))
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax.plot(m, 100 * acc, "o-", color="C0", label="C = 1 (the paper's)")
    ax.plot(m, 100 * tuned_acc, "o-", color="C2", label="C on validation")
    ax.axhline(100 * PAPER_TABLE1["topic+facultystudent"][0], color="grey", ls=":", label="paper, 150,000 triplets")
    ax.set_xlabel("training triplets")
    ax.set_ylabel("test triplets satisfied (%)")
    ax.set_title("Figure 2: Topic+FacultyStudent learning curve")
    ax.legend(fontsize=8)
    ax2.plot(m, wall, "s--", color="C0", label="C = 1")
    ax2.plot(m, tuned_wall, "s--", color="C2", label="C on validation")
    ax2.set_xlabel("training triplets")
    ax2.set_ylabel("fit seconds (wall, to relative gap %g)" % TOL)
    ax2.set_title("training time")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_dir / "relative_learning_curve.png", dpi=110)
    plt.close(fig)

    names = sorted(set(topics))
    fig, axes = plt.subplots(1, len(maps), figsize=(5 * len(maps), 4.6))
    for ax, (title, Y) in zip(axes, maps.items()):
        for k, topic in enumerate(names):
            sel = topics == topic
            ax.scatter(Y[sel, 0], Y[sel, 1], s=6, alpha=0.6, color=f"C{k}", label=topic)
        ax.set_title(title)
        ax.set_xticks([])
        ax.set_yticks([])
    axes[0].legend(markerscale=3, fontsize=8)
    fig.suptitle("Table 2: metric MDS of the test pages")
    fig.tight_layout()
    fig.savefig(out_dir / "relative_mds.png", dpi=110)
    plt.close(fig)

    X_toy, y_toy, models = toy
    fig, axes = plt.subplots(1, 1 + len(models), figsize=(4.2 * (1 + len(models)), 4))
    panels = [("input", X_toy)] + [(name, _mds(model.pairwise_distances(X_toy), SEED))
                                   for name, model in models.items()]
    for ax, (title, Y) in zip(axes, panels):
        for label, marker in ((0, "s"), (1, "o")):
            sel = y_toy == label
            ax.scatter(Y[sel, 0], Y[sel, 1], marker=marker, s=14, facecolors="none", edgecolors=f"C{label}")
        ax.set_title(title if title == "input" else f"MDS of the learned {title}")
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle("Figure 1, example 2: squares and circles")
    fig.tight_layout()
    fig.savefig(out_dir / "relative_kernel_toy.png", dpi=110)
    plt.close(fig)
    notes.append("Figures: relative_learning_curve.png, relative_mds.png, relative_kernel_toy.png.")


# --------------------------------------------------------------------------- report
def run_experiments(quick=False, data_dir=None, out_dir=None):
    """Run every experiment; return (Results, markdown report). Figures go to ``out_dir``."""
    results, notes, md = Results(), [], []
    plots = plots_enabled(out_dir, notes)
    sizes = dict(QUICK) if quick else {"n_train": N_TRAIN, "n_test": N_TEST, "curve": CURVE_SIZES,
                                       "kernel_triplets": KERNEL_TRIPLETS, "kernel_basis": KERNEL_BASIS,
                                       "n_valid": N_VALID}
    corpus = load_webkb(data_dir, subset="paper")
    n_pages = len(corpus.texts)
    rng = np.random.default_rng(SEED)
    if quick:
        # CI: a random subset of the pages, every topic and university kept in proportion
        keep = np.sort(rng.choice(n_pages, size=min(QUICK["pages"], n_pages), replace=False))
        corpus = _subset(corpus, keep)
        n_pages = keep.size
    t0 = time.perf_counter()
    X, vec = webkb_features(corpus, "binary", dtype=np.float64)
    baselines = {name: webkb_features(corpus, kind, norm=norm, dtype=np.float64)[0]
                 for name, (kind, norm) in BASELINES.items()}
    train, test = split_pages(n_pages, rng)
    universities = webkb_university_labels(corpus)
    n_univ = sum(u is not None for u in universities)
    notes.append(f"WebKB paper subset: {n_pages} pages (paper: 4,183), {X.shape[1]} binary features without "
                 f"stemming or stop words (paper: 63,949; see learnsim.webkb.webkb_features on the count), "
                 f"{train.size} training / {test.size} test pages; University triplets over the {n_univ} pages of "
                 f"the seven largest university domains ({', '.join(sorted(set(u for u in universities if u)))}); "
                 f"features in {time.perf_counter() - t0:.0f} s.")

    md.append("# Reproduction of Schultz & Joachims: a distance metric from relative comparisons\n")
    md.append("Paper values are in brackets. Accuracy is the share of test triplets (i, j, k) with "
              "d(i, j) < d(i, k) strictly (ties are errors). `learned`: the weighted Euclidean distance of eq. "
              "(8), A = I, on binary features without stemming or stop words, solved to a relative duality gap of "
              f"{TOL:g}: `learned` with the paper's C = 1, `learned-validC` with C chosen from "
              f"{', '.join(f'{c:g}' for c in C_GRID)} by the accuracy on validation triplets over a held-out "
              f"{VALID_FRACTION:.0%} of the training pages (the test pages are never used to choose). "
              "Static baselines on stemmed, stopped features: `binary` / `tfidf` with raw rows (the paper's "
              "columns), `-l2` with L2-normalised rows.\n")
    models = experiment_table1(results, corpus, X, baselines, train, test, sizes, notes)
    md.append(f"## Table 1: accuracy on unseen test triplets ({sizes['n_train']} training, "
              f"{sizes['n_test']} test triplets)\n")
    md.append(results.table("table1", "accuracy", ["learned", "learned-validC"] + list(BASELINES), fmt="{:.4f}"))
    md.append("")
    md.append("C chosen on validation: " + ", ".join(
        f"{d} {results.value(experiment='table1', setting=d, method='learned-validC', measure='C'):g}"
        for d in DISTANCES) + ".\n")

    curve = experiment_curve(results, corpus, X, train, test, sizes, notes)
    md.append("## Figure 2: learning curve (Topic+FacultyStudent)\n")
    md.append("| training triplets | accuracy, C = 1 | fit s (wall / CPU), C = 1 | epochs | accuracy, C on "
              "validation | chosen C | fit s (wall / CPU) |")
    md.append("|---|---|---|---|---|---|---|")
    md.extend(f"| {m} | {a:.4f} | {w:.1f} / {c:.1f} | {e} | {ta:.4f} | {tc:g} | {tw:.1f} / {tcpu:.1f} |"
              for m, a, w, c, e, ta, tc, tw, tcpu in curve)
    md.append("")

    maps, topics = experiment_mds(results, corpus, X, test, models, notes)
    md.append("## Table 2: MDS maps of the test pages, silhouette of the four topics\n")
    md.append("| distance | silhouette in the 2-D map | silhouette of the distances |")
    md.append("|---|---|---|")
    for name in maps:
        md.append(f"| {name} | {results.value(experiment='table2', setting=name, method='mds', measure='silhouette_2d'):.3f} "
                  f"| {results.value(experiment='table2', setting=name, method='distances', measure='silhouette'):.3f} |")
    md.append("")

    toy = experiment_kernel(results, corpus, X, train, test, sizes, notes)
    md.append("## Kernel variant (A = Phi, RBF)\n")
    md.append("| problem | linear (A = I) | rbf (A = Phi) |")
    md.append("|---|---|---|")
    for exp in ("kernel-toy", "kernel-topic", "kernel-topic+facultystudent"):
        vals = [results.value(experiment=exp, setting=s, method="learned", measure="accuracy")
                for s in ("linear (A = I)", "rbf (A = Phi)")]
        md.append(f"| {exp[len('kernel-'):]} | {vals[0]:.4f} | {vals[1]:.4f} |")
    md.append("")
    if plots:
        _plot(out_dir, curve, maps, topics, toy, notes)
        md.append("## Figures\n")
        md.append("![Figure 2: learning curve](relative_learning_curve.png)\n")
        md.append("![Table 2: MDS maps](relative_mds.png)\n")
        md.append("![Figure 1, example 2](relative_kernel_toy.png)\n")
    md.append("## Notes\n")
    md.extend(f"- {n}" for n in notes)
    return results, "\n".join(md)


def _subset(corpus, keep):
    """The pages ``keep`` of a WebKB corpus (the fields the experiments read)."""
    from sklearn.utils import Bunch

    fields = {}
    for key, value in corpus.items():
        if isinstance(value, np.ndarray) and value.shape[:1] == (len(corpus.texts),):
            fields[key] = value[keep]
        elif isinstance(value, list) and len(value) == len(corpus.texts):
            fields[key] = [value[i] for i in keep]
        else:
            fields[key] = value
    fields["links"] = None
    return Bunch(**fields)
