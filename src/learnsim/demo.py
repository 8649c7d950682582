"""``learnsim demo``: learn a metric on a synthetic corpus and compare it with the usual baselines.

The protocol is the paper's cluster recovery (Mochihashi et al. 2004, sec. 5) on clusters the
metric never saw labelled:

1. :func:`learnsim.datasets.make_clustered_corpus` builds documents in topical clusters, with
   nuisance "styles" that make documents of different topics look alike.
2. The *clusters* (not the documents) are split into training and held-out test clusters, so
   the test measures how well what was learned carries over to new topics.
3. One tf-idf vectoriser (L2-normalised) is fitted on all documents: that is unsupervised.
4. :class:`~learnsim.mcd.MinimumClusterDistortion` is fitted on all documents with the test
   documents labelled -1: they shape its principal basis, but are no supervision.
5. Every test document queries the other test documents (leave-one-out); the relevant ones
   are those of its cluster.

Methods: ``mcd`` (learned, settings chosen automatically on the training clusters),
``mcd-paper`` (the paper's pseudo-inverse metric, fitted on the training documents only),
``euclid`` (Euclidean distance on un-normalised tf-idf), ``cosine`` (tf-idf cosine) and
``bm25`` (Okapi BM25 with each test document as the query).

References
----------
.. [1] Mochihashi, D., Kikui, G. and Kita, K. (2004). Learning Nonstructural Distance Metric by
   Minimum Cluster Distortions. In Proceedings of the 2004 Conference on Empirical Methods in
   Natural Language Processing (EMNLP 2004) (paper 000 of ../shared/papers).
"""
from __future__ import annotations

import contextlib
import time
from pathlib import Path

import numpy as np
from sklearn.metrics.pairwise import cosine_similarity, euclidean_distances

from ._utils.progress import progress
from .datasets import make_clustered_corpus
from .evaluation import cluster_retrieval_report, precision_recall_curve
from .mcd import PAPER_PARAMS, MinimumClusterDistortion
from .reproduce.records import Results
from .text import TextVectorizer

__all__ = ["run_demo", "METHODS", "MEASURES", "DEFAULT_OUT_DIR"]

METHODS = ("mcd", "mcd-paper", "euclid", "cosine", "bm25")
#: Retrieval measures of the comparison, as named by :mod:`learnsim.evaluation`.
MEASURES = ("ap11", "r_precision", "map", "p@10")
DEFAULT_OUT_DIR = "learnsim-demo"
TEST_CLUSTER_FRACTION = 0.4
PLOT_NAME = "demo_pr.png"
RESULTS_NAME = "results.json"


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _split_clusters(labels, test_fraction, rng):
    """Boolean mask of the documents of the held-out clusters (a seeded choice of clusters)."""
    clusters = rng.permutation(np.unique(labels))
    n_test = min(max(2, int(round(test_fraction * len(clusters)))), len(clusters) - 2)
    return np.isin(labels, clusters[:n_test])


def _plot_pr_curves(recall, curves, ap11, path):
    """Write the 11-point precision-recall curves to ``path``.

    Returns ``(path, None)``, or ``(None, note)`` when matplotlib (the ``plot`` extra) is missing.
    """
    try:
        # Figure + the Agg canvas directly: no pyplot, so no global backend is switched
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return None, ("matplotlib is not installed: skipped the precision-recall plot "
                      "(pip install learnsim[plot])")
    fig = Figure(figsize=(6.4, 5.4))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    for method, precision in curves.items():
        ax.plot(recall, precision, marker="o", markersize=3,
                label=f"{method} (11-pt AP {ap11[method]:.3f})")
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.02)
    ax.set_title("Leave-one-out retrieval of held-out clusters (synthetic corpus)")
    ax.grid(True, alpha=0.3)
    # below the axes: the curves fill the whole square
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, fontsize="small", frameon=False)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return Path(path), None


def _single_threaded_blas():
    """Limit BLAS to one thread: the demo's matrices are small, and threaded BLAS on them is
    slower, badly so on a busy machine (the metric's selection took 20 s instead of 2.5 s on
    two loaded cores). threadpoolctl comes with scikit-learn."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - scikit-learn requires it
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def run_demo(out_dir=DEFAULT_OUT_DIR, seed=0):
    """Run the demo comparison and write ``results.json`` and ``demo_pr.png`` into ``out_dir``.

    Parameters
    ----------
    out_dir : str or Path
        Created if needed.
    seed : int
        Seeds the corpus, the cluster split and the metric's selection.

    Returns
    -------
    dict
        ``methods``: method -> {"ap11", "r_precision", "map", "p@10", "fit_seconds",
        "ap11_ratio_to_cosine"}; ``selected``: the settings the automatic selection chose
        (n_basis, shrinkage, complement_weight); ``baseline_gain``: the fit's learned-against-Euclid
        check on training clusters it held out (:meth:`learnsim.baseline.BaselineGain.to_dict`); ``corpus``: sizes of the corpus and split;
        ``pr_curves``: method -> 11 interpolated precisions at ``recall_levels``;
        ``results_json`` and ``plot``: paths written (``plot`` None when skipped); ``notes``;
        ``seed``; ``seconds``.

    Examples
    --------
    Takes a while (it fits and compares every method), so it is not run here:

    >>> import tempfile
    >>> from learnsim.demo import run_demo
    >>> summary = run_demo(out_dir=tempfile.mkdtemp(), seed=0)      # doctest: +SKIP
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    check_demo_outputs(Path(out_dir))
    with _single_threaded_blas():
        return _run_demo(Path(out_dir), int(seed))


def _is_demo_results(path):
    """Whether ``path`` is a results.json an earlier demo wrote (its records say experiment "demo")."""
    import json

    try:
        with open(path, encoding="utf-8") as fh:
            records = json.load(fh)
    except (OSError, ValueError):
        return False
    return (isinstance(records, list) and bool(records)
            and all(isinstance(r, dict) and r.get("experiment") == "demo" for r in records))


def _is_index(path):
    """Whether the folder ``path`` holds a learnsim index (its manifest says so)."""
    import json

    try:
        with open(path / "manifest.json", encoding="utf-8") as fh:
            return json.load(fh).get("format") == "learnsim-index"
    except (OSError, ValueError, AttributeError):
        return False


def check_demo_outputs(out, name=""):
    """Refuse, before the work, to replace what stands in ``out`` and no earlier demo wrote: the demo
    deletes OUT/index/ to build its own there and overwrites OUT/results.json, so a user's own
    folder named index (or their index, with ``--out .``) was deleted without a word, and a file
    named index failed only after the work, with Python's errno text. A ValueError naming the path
    (``name``: how the caller names ``out``, "--out " on the command line)."""
    import os

    results, index = out / RESULTS_NAME, out / "index"
    earlier = os.path.isfile(results) and _is_demo_results(results)
    if os.path.lexists(results) and not earlier:
        raise ValueError(f"{name}{out}: {results} exists and is not the results of an earlier 'learnsim demo'; "
                         "the demo would overwrite it: give another folder")
    if os.path.lexists(out / PLOT_NAME) and not (earlier and os.path.isfile(out / PLOT_NAME)):
        raise ValueError(f"{name}{out}: {out / PLOT_NAME} exists and no earlier 'learnsim demo' wrote it; "
                         "the demo would overwrite it: give another folder")
    if not os.path.lexists(index):
        return
    if os.path.islink(index) or not os.path.isdir(index):
        raise ValueError(f"{name}{out}: {index} exists and is not a folder; the demo builds its index there: "
                         "remove it or give another folder")
    if not (earlier and _is_index(index)):
        raise ValueError(f"{name}{out}: {index} exists and is not the index of an earlier 'learnsim demo' "
                         "in this folder; the demo would delete it to build its own: give another folder")


def _run_demo(out_dir, seed):
    start = time.perf_counter()
    if out_dir.exists() and not out_dir.is_dir():
        raise NotADirectoryError(f"--out {out_dir} exists and is not a folder")
    out_dir.mkdir(parents=True, exist_ok=True)

    corpus = make_clustered_corpus(random_state=seed)
    docs, labels = corpus.data, np.asarray(corpus.target)
    rng = np.random.default_rng(seed)
    test = _split_clusters(labels, TEST_CLUSTER_FRACTION, rng)
    train = ~test
    test_docs = [docs[i] for i in np.flatnonzero(test)]
    y_test = labels[test]

    vectorizer, vec_seconds = _timed(lambda: TextVectorizer(weighting="tfidf", norm="l2").fit(docs))
    X = vectorizer.transform(docs)
    X_test = X[test]

    def fit_mcd():
        # test documents are -1: they shape the principal basis but are not supervision
        return MinimumClusterDistortion(random_state=seed).fit(X, np.where(train, labels, -1))

    def fit_paper():
        return MinimumClusterDistortion(**PAPER_PARAMS).fit(X[train], labels[train])

    def euclid_scores(v):
        X_raw = v.transform(test_docs)
        return -euclidean_distances(X_raw, X_raw)

    def bm25_scores(v):
        return (v.transform(test_docs, role="query") @ v.transform(test_docs).T).toarray()

    # name: (fit the method's own model, score the test documents among themselves,
    #        whether it also uses the shared tf-idf vectoriser)
    stages = {
        "mcd": (fit_mcd, lambda m: -m.pairwise_distances(X_test), True),
        "mcd-paper": (fit_paper, lambda m: -m.pairwise_distances(X_test), True),
        "euclid": (lambda: TextVectorizer(weighting="tfidf", norm=None).fit(docs), euclid_scores, False),
        "cosine": (None, lambda _: cosine_similarity(X_test), True),
        "bm25": (lambda: TextVectorizer(weighting="bm25").fit(docs), bm25_scores, False),
    }
    results = Results()
    methods, curves, models = {}, {}, {}
    same_cluster = y_test[:, None] == y_test[None, :]
    for name in progress(list(stages), desc="demo methods"):
        fit, score, uses_vectorizer = stages[name]
        model, seconds = _timed(fit) if fit is not None else (None, 0.0)
        models[name] = model
        scores = np.asarray(score(model), dtype=float)
        report = cluster_retrieval_report(scores, y_test, measures=MEASURES)
        recall, curves[name] = precision_recall_curve(scores, same_cluster, exclude_self=True)
        methods[name] = {m: float(report[m]) for m in MEASURES}
        # the cost of building the method from raw text, shared vectoriser included
        methods[name]["fit_seconds"] = float(seconds + (vec_seconds if uses_vectorizer else 0.0))
    base = methods["cosine"]["ap11"]
    for name, row in methods.items():
        row["ap11_ratio_to_cosine"] = row["ap11"] / base if base > 0 else None
        for measure in MEASURES + ("fit_seconds",):
            results.add("demo", "synthetic", name, measure, row[measure])

    results_path = results.write_json(out_dir / RESULTS_NAME)
    notes = []
    plot_path, note = _plot_pr_curves(recall, curves, {m: methods[m]["ap11"] for m in methods},
                                      out_dir / PLOT_NAME)
    if note:
        notes.append(note)

    mcd = models["mcd"]
    walk = walkthrough(out_dir / "index", docs, labels, test, seed)
    return {
        "seed": seed,
        "corpus": {
            "n_documents": len(docs),
            "n_clusters": int(len(np.unique(labels))),
            "n_train_clusters": int(len(np.unique(labels[train]))),
            "n_test_clusters": int(len(np.unique(y_test))),
            "n_test_documents": int(test.sum()),
            "n_features": int(X.shape[1]),
        },
        "selected": {"n_basis": mcd.n_basis_, "shrinkage": mcd.shrinkage_,
                     "complement_weight": mcd.complement_weight_},
        # learned against Euclid on training clusters the fit held out (learnsim.baseline)
        "baseline_gain": None if mcd.baseline_gain_ is None else mcd.baseline_gain_.to_dict(),
        "methods": methods,
        "recall_levels": [float(r) for r in recall],
        "pr_curves": {m: [float(p) for p in c] for m, c in curves.items()},
        "results_json": str(results_path),
        "plot": None if plot_path is None else str(plot_path),
        "walkthrough": walk,
        "notes": notes,
        "seconds": time.perf_counter() - start,
    }


def _perturbed(text, rng, vocabulary):
    """A near-duplicate of ``text``: about half of its words dropped, 30 % of the rest replaced by random
    words of the corpus, the first third shuffled (a rewording, a typo, a reordering)."""
    words = [w for w in text.split() if rng.random() > 0.5] or text.split()[:1]
    words = [vocabulary[rng.integers(len(vocabulary))] if rng.random() < 0.3 else w for w in words]
    head = words[: len(words) // 3]
    rng.shuffle(head)
    return " ".join(head + words[len(words) // 3:])


def duplicate_pairs(docs, labels, rows, rng):
    """Labelled pairs of texts from the documents ``rows``: each with a perturbed copy of itself
    (a duplicate) and with another document of its topic (not one)."""
    vocabulary = sorted({w for i in rows for w in docs[i].split()})
    pairs = []
    for i in rows:
        pairs.append((docs[i], _perturbed(docs[i], rng, vocabulary), 1))
        same = rows[(labels[rows] == labels[i]) & (rows != i)]
        if same.size:
            pairs.append((docs[i], docs[int(rng.choice(same))], 0))
    return pairs, vocabulary


def walkthrough(index_dir, docs, labels, test, seed):
    """The path a user takes with their own data, on the synthetic corpus: fit FILM on duplicate
    pairs (of the training topics), index the documents of the held-out topics, search for a
    reworded document with an explanation, and match a new near-duplicate.

    Returns a dict with the fitted pipeline's description, its check against the input cosine,
    the index's info, the search hits (with the explanation of the first) and the matches.
    """
    import shutil
    import warnings

    from .index import Index
    from .pipeline import Pipeline
    from .fitting import fit_parts

    rng = np.random.default_rng(seed + 1)
    start = time.perf_counter()
    pairs, vocabulary = duplicate_pairs(docs, labels, np.flatnonzero(~test), rng)
    with warnings.catch_warnings():
        # the baseline check reports in the result; no warning on stderr for a fallback
        warnings.simplefilter("ignore")
        pipeline = Pipeline.from_parts(fit_parts(pairs=pairs, random_state=seed))
    fit_seconds = time.perf_counter() - start
    rows = np.flatnonzero(test)
    ids = [f"doc{i}" for i in rows]
    if index_dir.exists():
        shutil.rmtree(index_dir)
    t0 = time.perf_counter()
    index = Index.build(index_dir, pipeline, [docs[i] for i in rows], ids,
                        [{"topic": str(labels[i])} for i in rows])
    build_seconds = time.perf_counter() - t0
    target, other = int(rows[0]), int(rows[len(rows) // 2])
    query = _perturbed(docs[target], rng, vocabulary)
    t0 = time.perf_counter()
    hits = index.search(query, k=3, explain=True, n_top=5)
    search_seconds = time.perf_counter() - t0
    new_text = _perturbed(docs[other], rng, vocabulary)
    matches = index.match(new_text, k=5)
    rule, search_rule = pipeline.match_rule, pipeline.search_rule
    index.close()
    return {
        "pairs": len(pairs),
        "pipeline": repr(pipeline),
        "scoring": pipeline.scoring,
        "duplicate_rule": getattr(rule, "matcher", None),
        "duplicate_rule_gain": None if getattr(rule, "baseline_gain", None) is None else rule.baseline_gain.to_dict(),
        "search_gain": None if getattr(search_rule, "baseline_gain", None) is None else search_rule.baseline_gain.to_dict(),
        "rerank_gain": None if getattr(pipeline.rerank, "baseline_gain", None) is None
        else pipeline.rerank.baseline_gain.to_dict(),
        "index": str(index_dir),
        "documents": len(ids),
        "query": query, "query_of": f"doc{target}",
        "hits": hits,
        "match_text": new_text, "match_of": f"doc{other}",
        "matches": matches,
        "fit_seconds": fit_seconds, "build_seconds": build_seconds, "search_seconds": search_seconds,
    }
