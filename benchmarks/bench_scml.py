"""FILM against metric-learn's SCML on the same triplets of real text, reduced to a size SCML handles.

SCML (Shi, Bellet & Sha 2014, metric-learn's triplet version) learns a Mahalanobis metric as a
sparse non-negative combination of rank-one bases; FILM (Tang & Aw, paper 001) learns a
low-rank map L on the Stiefel manifold. Both are fitted in the same process, on the same item
matrix X and the same training triplets, and scored on the same held-out triplets.

Data (``--dataset``, both by default):

* ``20ng``: ``--per-group`` seeded training documents of each of the 20 newsgroups; class
  triplets (i, j, k) - i and j share a group, k does not - drawn by
  :func:`learnsim.supervision.clusters_to_triplets`, ``TRIPLETS_PER_ITEM`` per item.
* ``quora``: ``--quora-pairs`` seeded pairs of the Quora dev sample; every duplicate pair
  (a, b) gives (a, b, c) and (b, a, c') with a mined negative: one of the ``HARD_NEGATIVES``
  questions most tf-idf-similar to the anchor outside its duplicate component. Not
  :func:`learnsim.supervision.duplicate_pairs_to_triplets`: in this sample a question rarely
  has both a duplicate and a labelled non-duplicate partner (94 such triplets in the 10,000
  dev pairs), so its triplets have random negatives, and tf-idf cosine ordered every one of
  451 held-out triplets of a trial run correctly - nothing left to learn. Mined negatives
  make the tf-idf reference weaker by construction (it still orders about 92% correctly,
  well above anything learned on the 100-dimensional LSI); the learned metrics are compared
  with each other.

Texts are tf-idf weighted (sublinear tf, L2 rows, :class:`learnsim.text.TextVectorizer`) over
the sample; texts without any vocabulary term are dropped; the rows are reduced by one exact
truncated SVD (LSI) to ``--dims`` dimensions and L2-normalised again, so that the no-learning
Euclidean and cosine references rank alike and FILM (which normalises rows) and SCML see the
same X.

Splits, all item-disjoint, so that no held-out triplet shares an item with a training
triplet: the items are split into training and held-out items (``HELD_OUT_FRACTION``; for
Quora whole components of the pair graph move together, so a pair never straddles the split)
and triplets are drawn within each part. For the choice of settings the training items are
split again in the same way into fit and validation items (``VALIDATION_FRACTION``): every
candidate setting of each method is fitted on the fit triplets and scored on the validation
triplets, the best one (ties: the faster) is refitted on all training triplets, timed, and
scored on the held-out triplets. The held-out triplets choose nothing.

Accuracy is the fraction of triplets with d(i, j) < d(i, k) (ties are errors,
:func:`learnsim.evaluation.evaluate_triplets`) under each method's own metric: FILM's cosine
in the learned space (``FILM.pair_similarity``, how FILM ranks neighbours) and SCML's
Mahalanobis distance (``SCML.pair_distance``). For a like-for-like view the table also gives
FILM's Euclidean distance of L x and SCML's cosine of L x. Fit time is from the triplets on,
wall clock and process CPU time, the median of ``--repeats`` fits interleaved across methods.

Rows of the held-out table (all settings chosen on validation only):

* ``film``: ``FILM(n_components=d)``, d in ``FILM_DIMENSIONS``, every other parameter at its
  default.
* ``film-tuned``: FILM with d in ``FILM_TUNED_DIMENSIONS``, ``svd_rank`` its default 5 d or all
  the LSI dimensions, ``max_iter`` in ``FILM_TUNED_ITERATIONS``: the setting of least nominal
  cost (:func:`film_cost`) whose validation accuracy reaches that of ``scml``, else the most
  accurate. This answers "which FILM settings would be 10x faster at equal accuracy".
* ``scml``: the most accurate SCML setting: metric-learn's defaults (basis 'triplet_diffs',
  n_basis = 80 x dims, gamma 5e-3, max_iter 10000, batch_size 10), gamma 0.05, twice the
  bases, batch_size 100, and - on 20 Newsgroups, where items have classes - the 'lda' basis
  of ``SCML_Supervised`` built from the training items' labels (local LDA directions; it
  uses the labels, which FILM never sees, and its construction is timed as part of SCML's
  fit), with metric-learn's default n_basis, max_iter 50000 or gamma 0.05.
* ``scml-triplets``: the most accurate SCML setting that uses nothing but the triplets.
* ``scml-default``: metric-learn's defaults.

Ratios SCML/FILM of the mean fit times and the FILM - SCML difference of the mean held-out
accuracies are printed for (film, scml), (film-tuned, scml), (film, scml-triplets) and
(film, scml-default), with the verdict on the target (at least ``TARGET_SPEEDUP`` times
faster, in wall and CPU time, at equal or better accuracy).

Usage::

    python benchmarks/bench_scml.py --threads 1 --json results/scml-peer.json
    python benchmarks/bench_scml.py --quick      # smoke run, about a minute
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_rca import blas_summary, sample_documents  # noqa: E402
from peers import require_metric_learn, run_with_threads  # noqa: E402

from learnsim._utils.linalg import truncated_svd  # noqa: E402
from learnsim._utils.validation import check_random_state  # noqa: E402
from learnsim.datasets import find_data_dir, load_20newsgroups, load_quora_pairs  # noqa: E402
from learnsim.evaluation import evaluate_triplets  # noqa: E402
from learnsim.film import FILM  # noqa: E402
from learnsim.reproduce.records import Results  # noqa: E402
from learnsim.supervision import Pairs, clusters_to_triplets, pairs_to_clusters  # noqa: E402
from learnsim.text import TextVectorizer, find_empty_rows  # noqa: E402

EXPERIMENT = "scml-peer"
# the validation accuracies behind the choice of settings, kept apart from the held-out figures
VALIDATION_EXPERIMENT = "scml-peer-validation"
# The issue's target: FILM at least this much faster than SCML at equal or better triplet accuracy.
TARGET_SPEEDUP = 10.0
HELD_OUT_FRACTION = 0.3
VALIDATION_FRACTION = 0.25
TRIPLETS_PER_ITEM = 5
# Quora negatives: one of this many most tf-idf-similar non-duplicates of the anchor
HARD_NEGATIVES = 10
FILM_DIMENSIONS = (10, 20, 50)
QUICK_FILM_DIMENSIONS = (10, 20)
# The 'film-tuned' grid: d x svd_rank (default 5 d, or all the LSI dimensions) x max_iter
FILM_TUNED_DIMENSIONS = (10, 15, 20)
FILM_TUNED_ITERATIONS = (25, 50, 200)
QUICK_FILM_TUNED_ITERATIONS = (25, 200)
# SCML keeps a (unique pairs + triplets) x n_basis float64 matrix of distance differences
# (about 3 x n_triplets x n_basis x 8 bytes); settings above this are skipped, not crashed.
SCML_MAX_BYTES = 4e9


# ------------------------------------------------------------------------------- splits
@dataclass
class TripletSplit:
    """Item-disjoint triplets for training/held-out evaluation and for the choice of settings.

    ``train`` and ``held_out`` use only ``train_items`` and ``held_out_items`` respectively;
    ``fit`` and ``validation`` split the training items again (``fit_items`` and
    ``validation_items``, both inside ``train_items``). All triplets are (m, 3) int arrays of
    rows of one shared X.
    """

    train: np.ndarray
    held_out: np.ndarray
    fit: np.ndarray
    validation: np.ndarray
    train_items: np.ndarray
    held_out_items: np.ndarray
    fit_items: np.ndarray
    validation_items: np.ndarray


def _check_fraction(value, name):
    if not 0.0 < float(value) < 1.0:
        raise ValueError(f"{name} must lie strictly between 0 and 1; got {value!r}")
    return float(value)


def _split_by_unit(units, items, fraction, rng):
    """Split ``items`` into (kept, taken), taking about ``fraction`` of their distinct ``units``
    (an item's unit: itself, or its component of the pair graph) so that a unit never straddles."""
    distinct = np.unique(units[items])
    n_taken = int(round(fraction * distinct.size))
    if not 1 <= n_taken < distinct.size:
        raise ValueError(f"cannot split {distinct.size} unit(s) with fraction {fraction}: both parts need one")
    taken_units = rng.choice(distinct, size=n_taken, replace=False)
    taken = np.isin(units[items], taken_units)
    return np.sort(items[~taken]), np.sort(items[taken])


def _make_split(units, triplets_within, held_out_fraction, validation_fraction, rng):
    held_out_fraction = _check_fraction(held_out_fraction, "held_out_fraction")
    validation_fraction = _check_fraction(validation_fraction, "validation_fraction")
    items = np.arange(units.size)
    train_items, held_out_items = _split_by_unit(units, items, held_out_fraction, rng)
    fit_items, validation_items = _split_by_unit(units, train_items, validation_fraction, rng)
    return TripletSplit(train=triplets_within(train_items), held_out=triplets_within(held_out_items),
                        fit=triplets_within(fit_items), validation=triplets_within(validation_items),
                        train_items=train_items, held_out_items=held_out_items,
                        fit_items=fit_items, validation_items=validation_items)


def class_triplet_split(labels, *, held_out_fraction=HELD_OUT_FRACTION, validation_fraction=VALIDATION_FRACTION,
                        triplets_per_item=TRIPLETS_PER_ITEM, random_state=None):
    """Item-disjoint class triplets (i and j share a label, k does not) for every part.

    Each part's triplets are drawn by :func:`clusters_to_triplets` among that part's items
    only, ``triplets_per_item`` times its number of items.
    """
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size < 4:
        raise ValueError(f"labels must be one class per item (1-D, at least 4 items); got shape {labels.shape}")
    rng = check_random_state(random_state)

    def triplets_within(items):
        restricted = np.full(labels.size, -1, dtype=np.int64)
        _, restricted[items] = np.unique(labels[items], return_inverse=True)
        return clusters_to_triplets(restricted, triplets_per_item * items.size, random_state=rng).indices

    return _make_split(np.arange(labels.size), triplets_within, held_out_fraction, validation_fraction, rng)


def pair_triplet_split(pairs, X_mine, *, hard_negatives=HARD_NEGATIVES, held_out_fraction=HELD_OUT_FRACTION,
                       validation_fraction=VALIDATION_FRACTION, random_state=None):
    """Item-disjoint triplets from duplicate / non-duplicate pairs, with mined negatives, for every part.

    Items move between parts with their whole component of the pair graph (duplicate and
    non-duplicate pairs alike), so every pair lies inside one part. Within a part, every
    duplicate pair (a, b) gives (a, b, c) and (b, a, c') where the negative is drawn uniformly
    from the ``hard_negatives`` items of the part most similar to the anchor (inner product of
    the rows of ``X_mine``, e.g. L2-normalised tf-idf) outside the anchor's duplicate
    component (duplicates of duplicates are duplicates).
    """
    if not isinstance(pairs, Pairs) or pairs.is_graded:
        raise TypeError("pairs must be Pairs with duplicate / non-duplicate labels")
    n_items = X_mine.shape[0]
    if pairs.indices.max() >= n_items:
        raise ValueError(f"the pairs refer to item {int(pairs.indices.max())} but X_mine has {n_items} rows")
    if isinstance(hard_negatives, bool) or not isinstance(hard_negatives, int) or hard_negatives < 1:
        raise ValueError(f"hard_negatives must be a positive int; got {hard_negatives!r}")
    rng = check_random_state(random_state)
    with warnings.catch_warnings():
        # non-duplicate pairs that chains of duplicates contradict: only the duplicate components matter
        warnings.simplefilter("ignore", UserWarning)
        linked = pairs_to_clusters(Pairs(pairs.indices, labels=np.ones(pairs.n_pairs, dtype=bool)), n_items).labels
        duplicate_component = pairs_to_clusters(pairs, n_items).labels
    # items in no pair become their own units
    units = np.where(linked >= 0, linked, linked.max() + 1 + np.arange(n_items))

    def triplets_within(items):
        in_part = np.zeros(n_items, dtype=bool)
        in_part[items] = True
        duplicates = pairs.indices[pairs.labels & in_part[pairs.indices].all(axis=1)]
        if duplicates.shape[0] == 0:
            raise ValueError(f"a part of {items.size} items holds no duplicate pair; use more pairs")
        anchors = np.concatenate([duplicates[:, 0], duplicates[:, 1]])
        positives = np.concatenate([duplicates[:, 1], duplicates[:, 0]])
        distinct, which = np.unique(anchors, return_inverse=True)
        sims = X_mine[distinct] @ X_mine[items].T
        sims = np.asarray(sims.toarray() if hasattr(sims, "toarray") else sims, dtype=np.float64)
        sims[duplicate_component[distinct][:, None] == duplicate_component[items][None, :]] = -np.inf
        k = min(hard_negatives, items.size - 1)
        nearest = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        pick = nearest[which, rng.integers(0, k, size=anchors.size)]
        if not np.isfinite(sims[which, pick]).all():
            raise ValueError("an anchor has fewer candidate negatives than hard_negatives in its part")
        return np.column_stack([anchors, positives, items[pick]])

    return _make_split(units, triplets_within, held_out_fraction, validation_fraction, rng)


# ---------------------------------------------------------------------------------- data
@dataclass
class Problem:
    """One dataset, reduced: X (items x dims, unit rows), its tf-idf rows, the triplet split
    and, where the items have classes, their labels (for SCML's 'lda' basis)."""

    name: str
    description: str
    X: np.ndarray
    X_tfidf: object
    split: TripletSplit
    labels: np.ndarray | None = None


def reduce_texts(texts, dims, seed):
    """tf-idf (sublinear tf, L2 rows) of ``texts`` and its LSI to ``dims`` dimensions with unit rows.

    Returns (X_tfidf, X, kept): the texts without any vocabulary term are dropped, ``kept``
    indexes the remaining ones.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # texts emptied by tokenisation are dropped just below
        X_tfidf = TextVectorizer(weighting="tfidf", norm="l2", sublinear_tf=True,
                                 dtype=np.float64).fit_transform(texts)
    kept = np.setdiff1d(np.arange(X_tfidf.shape[0]), find_empty_rows(X_tfidf))
    X_tfidf = X_tfidf[kept]
    if min(X_tfidf.shape) < dims:
        raise SystemExit(f"the tf-idf matrix is {X_tfidf.shape[0]} x {X_tfidf.shape[1]}: too small for {dims} "
                         "LSI dimensions; sample more texts or lower --dims")
    _, Vt = truncated_svd(X_tfidf, dims, seed)
    X = np.asarray(X_tfidf @ Vt.T)
    norms = np.linalg.norm(X, axis=1)
    if (norms == 0).any():
        raise SystemExit(f"{int((norms == 0).sum())} text(s) have no component in the {dims} LSI dimensions")
    return X_tfidf, X / norms[:, None], kept


def newsgroups_problem(data_dir, per_group, dims, seed):
    bunch = load_20newsgroups(subset="train", data_dir=data_dir)
    docs, y = sample_documents(bunch, per_group, seed)
    X_tfidf, X, kept = reduce_texts(docs, dims, seed)
    y = y[kept]
    split = class_triplet_split(y, random_state=seed)
    description = (f"20 Newsgroups train, {per_group} docs x {len(bunch.target_names)} groups (seed {seed}), "
                   f"{len(docs) - kept.size} empty dropped: {X.shape[0]} docs, {X_tfidf.shape[1]} terms -> LSI "
                   f"{dims}; class triplets")
    return Problem("20ng", description, X, X_tfidf, split, labels=y)


def quora_problem(data_dir, n_pairs, dims, seed):
    quora = load_quora_pairs("dev", data_dir=data_dir)
    rng = np.random.default_rng(seed)
    n_pairs = min(n_pairs, quora.pairs.n_pairs)
    chosen = np.sort(rng.choice(quora.pairs.n_pairs, size=n_pairs, replace=False))
    indices, labels = quora.pairs.indices[chosen], quora.pairs.labels[chosen]
    items, local = np.unique(indices, return_inverse=True)
    local = local.reshape(indices.shape)
    X_tfidf, X, kept = reduce_texts([quora.texts[i] for i in items], dims, seed)
    # pairs with an empty question go; the rest are re-indexed onto the kept questions
    position = np.full(items.size, -1, dtype=np.int64)
    position[kept] = np.arange(kept.size)
    usable = (position[local] >= 0).all(axis=1)
    pairs = Pairs(position[local[usable]], labels=labels[usable])
    split = pair_triplet_split(pairs, X_tfidf, random_state=seed)
    description = (f"Quora dev sample, {n_pairs} pairs (seed {seed}; {int(pairs.labels.sum())} duplicates, "
                   f"{int((~usable).sum())} with an empty question dropped): {X.shape[0]} questions, "
                   f"{X_tfidf.shape[1]} terms -> LSI {dims}; duplicate-pair triplets, mined negatives")
    return Problem("quora", description, X, X_tfidf, split)


# ------------------------------------------------------------------------------ methods
@dataclass
class Candidate:
    """One setting of one method: ``params`` go to FILM / SCML; SCML's ``basis="lda"`` is built
    from the training items' labels."""

    method: str
    label: str
    params: dict = field(default_factory=dict)


SCML_DEFAULT = Candidate("scml", "defaults")


def film_candidates(dims, quick=False):
    """FILM(n_components=d) with every other parameter at its default."""
    return [Candidate("film", f"d={d}", {"n_components": d})
            for d in (QUICK_FILM_DIMENSIONS if quick else FILM_DIMENSIONS) if d <= dims]


def film_tuned_candidates(dims, quick=False):
    """FILM with d, svd_rank (default 5 d, or all the LSI dimensions) and max_iter varied."""
    grid = []
    seen = set()
    for d in (QUICK_FILM_DIMENSIONS if quick else FILM_TUNED_DIMENSIONS):
        for rank in (None, dims):
            r = min(5 * d, dims) if rank is None else rank
            for max_iter in (QUICK_FILM_TUNED_ITERATIONS if quick else FILM_TUNED_ITERATIONS):
                if d > dims or (d, r, max_iter) in seen:
                    continue
                seen.add((d, r, max_iter))
                grid.append(Candidate("film", f"d={d}, r={r}, max_iter={max_iter}",
                                      {"n_components": d, "svd_rank": r, "max_iter": max_iter}))
    return grid


def film_cost(candidate, dims):
    """A nominal cost of one FILM fit: iterations x r x (r + d), the r x r matrix K and the
    anchors' r x d products rebuilt at every iteration. Used instead of a measured time to pick
    among settings, since measured times on a shared machine can be off by several times."""
    params = candidate.params
    d = params["n_components"]
    r = params.get("svd_rank") or min(5 * d, dims)
    return params.get("max_iter", 200) * r * (r + d)


def scml_candidates(dims, has_labels, quick=False):
    grid = [SCML_DEFAULT]
    if not quick:
        grid += [Candidate("scml", "gamma=0.05", {"gamma": 0.05}),
                 Candidate("scml", f"n_basis={160 * dims}", {"n_basis": 160 * dims}),
                 Candidate("scml", "batch_size=100", {"batch_size": 100})]
    if has_labels:
        grid.append(Candidate("scml", "lda", {"basis": "lda"}))
        if not quick:
            grid += [Candidate("scml", "lda, max_iter=50000", {"basis": "lda", "max_iter": 50000}),
                     Candidate("scml", "lda, gamma=0.05", {"basis": "lda", "gamma": 0.05})]
    return grid


def uses_labels(candidate):
    return candidate.params.get("basis") == "lda"


def scml_memory_bytes(candidate, dims, n_triplets):
    """Rough size of SCML's distance-difference matrices for this setting."""
    params = candidate.params
    if uses_labels(candidate):
        n_basis = params.get("n_basis") or 20 * dims
    else:
        n_basis = params.get("n_basis") or 80 * dims
    return 3.0 * n_triplets * n_basis * 8


def lda_basis(metric_learn, X, labels, n_basis, seed):
    """The 'lda' basis of metric-learn's SCML_Supervised, built from labelled rows."""
    builder = metric_learn.SCML_Supervised(n_basis=n_basis, random_state=seed)
    basis, _ = builder._generate_bases_LDA(X, labels)
    return basis


def fit_candidate(candidate, X, triplets, *, metric_learn, seed, labels=None, label_items=None):
    """Fit one setting; returns (model, wall seconds, cpu seconds, warning messages).

    The time covers everything the method needs from the triplets on, SCML's 'lda' basis included.
    """
    params = dict(candidate.params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wall, cpu = time.perf_counter(), time.process_time()
        if candidate.method == "film":
            model = FILM(random_state=seed, baseline_holdout=None, **params).fit(X, triplets)
        else:
            if uses_labels(candidate):
                if labels is None:
                    raise ValueError("the 'lda' basis needs class labels")
                params["basis"] = lda_basis(metric_learn, X[label_items], labels[label_items],
                                            params.pop("n_basis", None), seed)
            model = metric_learn.SCML(preprocessor=X, random_state=seed, **params).fit(triplets)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    messages = sorted({str(w.message) for w in caught})
    return model, wall, cpu, messages


def _unit_rows(E):
    norms = np.linalg.norm(E, axis=1)
    return E / np.where(norms > 0, norms, 1.0)[:, None]


def accuracy(model, X, triplets, metric="own"):
    """Triplet accuracy of a fitted model under ``metric``: "own" (FILM: cosine of L x via
    pair_similarity; SCML: its Mahalanobis pair_distance), "euclidean" or "cosine" of L x."""
    if metric == "own":
        if isinstance(model, FILM):
            return evaluate_triplets(
                triplets, distance=lambda a, b: -model.pair_similarity(np.column_stack([a, b]), X))["accuracy"]
        return evaluate_triplets(triplets, distance=lambda a, b: model.pair_distance(np.column_stack([a, b])))["accuracy"]
    if metric not in ("euclidean", "cosine"):
        raise ValueError(f"metric must be 'own', 'euclidean' or 'cosine'; got {metric!r}")
    E = model.transform(X)
    if metric == "cosine":
        E = _unit_rows(E)   # squared Euclidean between unit rows = 2 - 2 cos: the same order
    return evaluate_triplets(triplets, E)["accuracy"]


def _short_warnings(messages):
    notes = []
    for m in messages:
        if "learned transformation reduces the dimension" in m:
            notes.append("rank " + m.rsplit(" ", 1)[-1].rstrip("."))
        elif "n_basis" in m and "will be set" in m:
            continue    # the default n_basis announcement
        else:
            notes.append(m.split("\n")[0][:60])
    return "; ".join(sorted(set(notes)))


# ---------------------------------------------------------------------------- protocol
@dataclass
class Trial:
    candidate: Candidate
    accuracy: float | None
    wall: float | None
    cpu: float | None
    note: str = ""


def validate(candidates, problem, metric_learn, seed):
    """Fit every candidate on the fit triplets and score it on the validation triplets."""
    split = problem.split
    dims = problem.X.shape[1]
    trials = []
    for cand in candidates:
        if cand.method == "scml":
            need = scml_memory_bytes(cand, dims, split.fit.shape[0])
            if need > SCML_MAX_BYTES:
                trials.append(Trial(cand, None, None, None, f"skipped: needs about {need / 1e9:.1f} GB"))
                continue
        model, wall, cpu, messages = fit_candidate(cand, problem.X, split.fit, metric_learn=metric_learn,
                                                   seed=seed, labels=problem.labels, label_items=split.fit_items)
        trials.append(Trial(cand, accuracy(model, problem.X, split.validation), wall, cpu,
                            _short_warnings(messages)))
    return trials


def most_accurate(trials):
    """The trial with the best validation accuracy; ties go to the faster fit."""
    scored = [t for t in trials if t.accuracy is not None]
    return max(scored, key=lambda t: (round(t.accuracy, 6), -t.cpu))


def cheapest_reaching(trials, target, dims):
    """The FILM trial of least nominal cost whose validation accuracy reaches ``target``; the
    most accurate one (ties: the cheaper) when none does."""
    scored = [t for t in trials if t.accuracy is not None]
    reaching = [t for t in scored if t.accuracy >= target]
    if not reaching:
        return max(scored, key=lambda t: (round(t.accuracy, 6), -film_cost(t.candidate, dims)))
    return min(reaching, key=lambda t: (film_cost(t.candidate, dims), -t.accuracy))


# The rows of the held-out table that are learned models: role -> what the role means.
ROLES = {
    "film": "FILM(n_components=d), d chosen on validation, other parameters default",
    "film-tuned": "FILM, cheapest setting (d, svd_rank, max_iter) reaching the validation accuracy of 'scml'",
    "scml": "SCML, most accurate setting on validation (any basis)",
    "scml-triplets": "SCML, most accurate setting that uses only the triplets (basis 'triplet_diffs')",
    "scml-default": "SCML with metric-learn's defaults",
}
# (FILM role, SCML role) pairs whose time and accuracy ratios are reported.
COMPARISONS = (("film", "scml"), ("film-tuned", "scml"), ("film", "scml-triplets"), ("film", "scml-default"))


def warm_up(problem, metric_learn, seed):
    """One small untimed fit of each method: lazy imports and BLAS start-up would otherwise be
    charged to whichever runs first."""
    T = problem.split.fit[:200]
    FILM(n_components=2, max_iter=5, random_state=seed, baseline_holdout=None).fit(problem.X, T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        metric_learn.SCML(n_basis=2 * problem.X.shape[1], max_iter=100, output_iter=100,
                          preprocessor=problem.X, random_state=seed).fit(T)


def _fmt(value, spec):
    return "-" if value is None else format(value, spec)


def compare(problem, metric_learn, seed, *, quick, repeats, results, setting):
    """Choose settings on validation, refit the chosen ones on the training triplets (timed,
    ``repeats`` times, interleaved), score them on the held-out triplets; print and record.

    Returns {row: (accuracy, wall, cpu, label)} and {role: candidate}.
    """
    split, X = problem.split, problem.X
    dims = X.shape[1]
    print(f"\n== {problem.description}")
    print(f"   items: {split.train_items.size} training ({split.fit_items.size} fit + {split.validation_items.size} "
          f"validation), {split.held_out_items.size} held-out; triplets: {split.train.shape[0]} training "
          f"({split.fit.shape[0]} fit, {split.validation.shape[0]} validation), {split.held_out.shape[0]} held-out")
    warm_up(problem, metric_learn, seed)

    film_trials = validate(film_candidates(dims, quick), problem, metric_learn, seed)
    scml_trials = validate(scml_candidates(dims, problem.labels is not None, quick), problem, metric_learn, seed)
    tuned_trials = validate(film_tuned_candidates(dims, quick), problem, metric_learn, seed)
    best_scml = most_accurate(scml_trials)
    chosen = {"film": most_accurate(film_trials),
              "film-tuned": cheapest_reaching(tuned_trials, best_scml.accuracy, dims),
              "scml": best_scml,
              "scml-triplets": most_accurate([t for t in scml_trials if not uses_labels(t.candidate)]),
              "scml-default": next(t for t in scml_trials if t.candidate == SCML_DEFAULT)}

    print(f"\n   choice of settings: fitted on the fit triplets, scored on the validation triplets (seed {seed})")
    print(f"   {'method':<6} {'setting':<28} {'val acc':>8} {'wall s':>7} {'cpu s':>7}  chosen as / notes")
    for t in film_trials + tuned_trials + scml_trials:
        roles = [role for role, c in chosen.items() if c is t]
        print(f"   {t.candidate.method:<6} {t.candidate.label:<28} {_fmt(t.accuracy, '.4f'):>8} "
              f"{_fmt(t.wall, '.2f'):>7} {_fmt(t.cpu, '.2f'):>7}  {', '.join(roles)}"
              f"{'  ' if roles and t.note else ''}{t.note}")
        if t.accuracy is not None:
            results.add(VALIDATION_EXPERIMENT, setting, f"{t.candidate.method} {t.candidate.label}",
                        "accuracy", t.accuracy)

    # one timed refit per distinct chosen setting, the repeats interleaved so that changes in
    # the load of a shared machine hit every method alike
    distinct = []
    for trial in chosen.values():
        if all(trial.candidate != c for c in distinct):
            distinct.append(trial.candidate)
    runs = {i: [] for i in range(len(distinct))}
    for _ in range(repeats):
        for i, cand in enumerate(distinct):
            runs[i].append(fit_candidate(cand, X, split.train, metric_learn=metric_learn, seed=seed,
                                         labels=problem.labels, label_items=split.train_items))
    fitted = {}
    for i, cand in enumerate(distinct):
        model = runs[i][-1][0]
        fitted[i] = (model, statistics.median(r[1] for r in runs[i]), statistics.median(r[2] for r in runs[i]),
                     _short_warnings(runs[i][-1][3]))

    T_test = split.held_out
    rows = {"tfidf-cosine": (evaluate_triplets(T_test, problem.X_tfidf)["accuracy"], None, None,
                             "no learning: cosine of the tf-idf rows"),
            "lsi-cosine": (evaluate_triplets(T_test, X)["accuracy"], None, None,
                           "no learning: cosine (= Euclidean) of the LSI rows")}
    for role, trial in chosen.items():
        i = next(j for j, c in enumerate(distinct) if c == trial.candidate)
        model, wall, cpu, note = fitted[i]
        kind = "cosine of Lx" if trial.candidate.method == "film" else "Mahalanobis"
        rows[role] = (accuracy(model, X, T_test), wall, cpu,
                      f"{trial.candidate.method.upper()} {trial.candidate.label}, {kind}" + (f" ({note})" if note else ""))
        if role == "film":
            rows["film-euclidean"] = (accuracy(model, X, T_test, "euclidean"), None, None,
                                      "the 'film' model, Euclidean of Lx")
        if role == "scml":
            rows["scml-cosine"] = (accuracy(model, X, T_test, "cosine"), None, None, "the 'scml' model, cosine of Lx")

    print(f"\n   held-out triplets ({T_test.shape[0]}); models refitted on the {split.train.shape[0]} training "
          f"triplets{f', median of {repeats} fits' if repeats > 1 else ''}")
    print(f"   {'row':<15} {'accuracy':>8} {'wall s':>7} {'cpu s':>7}  what")
    for row, (acc, wall, cpu, what) in rows.items():
        print(f"   {row:<15} {acc:>8.4f} {_fmt(wall, '.2f'):>7} {_fmt(cpu, '.2f'):>7}  {what}")
        results.add(EXPERIMENT, setting, row, "accuracy", acc)
        if wall is not None:
            results.add(EXPERIMENT, setting, row, "fit_seconds", wall)
            results.add(EXPERIMENT, f"{setting} (cpu)", row, "fit_seconds", cpu)
    for f, s in COMPARISONS:
        print(f"   {s}/{f} fit time {rows[s][1] / rows[f][1]:5.1f}x wall, {rows[s][2] / rows[f][2]:5.1f}x cpu; "
              f"{f} - {s} accuracy {100 * (rows[f][0] - rows[s][0]):+.2f} points")
    return rows, {role: t.candidate for role, t in chosen.items()}


def summarise(name, per_seed, results, setting):
    """Means over seeds, the ratios and the verdicts for one dataset; returns {(film, scml): (wall
    ratio, cpu ratio, accuracy gain, met)}."""
    row_names = list(dict.fromkeys(r for rows, _ in per_seed for r in rows))
    print(f"\n== {name}: held-out results, mean over {len(per_seed)} seed(s)")
    print(f"   {'row':<15} {'accuracy':>8} {'(sd)':>6} {'wall s':>7} {'cpu s':>7}  settings chosen per seed")
    means = {}
    for r in row_names:
        values = [rows[r] for rows, _ in per_seed]
        accs = [v[0] for v in values]
        walls = [v[1] for v in values if v[1] is not None]
        cpus = [v[2] for v in values if v[2] is not None]
        means[r] = (statistics.mean(accs), statistics.mean(walls) if walls else None,
                    statistics.mean(cpus) if cpus else None)
        sd = statistics.stdev(accs) if len(accs) > 1 else float("nan")
        labels = " | ".join(choices[r].label for _, choices in per_seed) if r in ROLES else ""
        print(f"   {r:<15} {means[r][0]:>8.4f} {sd:>6.3f} {_fmt(means[r][1], '.2f'):>7} {_fmt(means[r][2], '.2f'):>7}  "
              f"{labels}")
        if len(per_seed) > 1:
            results.add(EXPERIMENT, f"{setting}/mean", r, "accuracy", means[r][0])
            if walls:
                results.add(EXPERIMENT, f"{setting}/mean", r, "fit_seconds", means[r][1])
                results.add(EXPERIMENT, f"{setting}/mean (cpu)", r, "fit_seconds", means[r][2])
    verdicts = {}
    print(f"   target: FILM >= {TARGET_SPEEDUP:g}x faster than SCML at equal or better held-out triplet accuracy")
    for f, s in COMPARISONS:
        wall, cpu = means[s][1] / means[f][1], means[s][2] / means[f][2]
        gain = means[f][0] - means[s][0]
        met = wall >= TARGET_SPEEDUP and cpu >= TARGET_SPEEDUP and gain >= 0
        verdicts[(f, s)] = (wall, cpu, gain, met)
        print(f"   {f:<10} vs {s:<13}: SCML/FILM time {wall:5.1f}x wall, {cpu:5.1f}x cpu; accuracy "
              f"{100 * gain:+.2f} points -> {'met' if met else 'NOT met'}")
    return verdicts


# --------------------------------------------------------------------------------- main
def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", help="folder laid out like ../shared/data (default: learnsim.datasets.find_data_dir())")
    parser.add_argument("--dataset", nargs="+", choices=("20ng", "quora"), default=["20ng", "quora"],
                        help="which data (default both)")
    parser.add_argument("--dims", type=int, help="LSI dimensions (default 100; 50 with --quick)")
    parser.add_argument("--per-group", type=int, help="20 Newsgroups documents per group (default 150; 40 with --quick)")
    parser.add_argument("--quora-pairs", type=int, help="Quora dev pairs sampled (default 5000; 1500 with --quick)")
    parser.add_argument("--seeds", type=int, nargs="+", help="seeds of sample, split, triplets and models (default 0 1 2; 0 with --quick)")
    parser.add_argument("--repeats", type=int, help="timed fits of each final model, interleaved; the median is reported (default 3; 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="smoke run: small data, one seed, few settings")
    parser.add_argument("--threads", type=int, help="limit BLAS/OpenMP threads (threadpoolctl); default: leave as is")
    parser.add_argument("--json", metavar="PATH", help=f"write learnsim result records (experiment {EXPERIMENT!r}) here")
    args = parser.parse_args(argv)
    if args.dims is None:
        args.dims = 50 if args.quick else 100
    if args.per_group is None:
        args.per_group = 40 if args.quick else 150
    if args.quora_pairs is None:
        args.quora_pairs = 1500 if args.quick else 5000
    if args.seeds is None:
        args.seeds = [0] if args.quick else [0, 1, 2]
    if args.repeats is None:
        args.repeats = 1 if args.quick else 3
    if (args.dims < max(QUICK_FILM_DIMENSIONS) or args.per_group < 10 or args.quora_pairs < 200 or args.repeats < 1
            or (args.threads is not None and args.threads < 1)):
        parser.error(f"--dims must be at least {max(QUICK_FILM_DIMENSIONS)}, --per-group at least 10, "
                     "--quora-pairs at least 200, --repeats and --threads positive")
    return args


def main(argv=None):
    return run_with_threads(run, parse_args(argv))


def run(args):
    metric_learn = require_metric_learn()
    data_dir = find_data_dir(args.data_dir)
    print(f"metric-learn {metric_learn.__version__}, numpy {np.__version__}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs; BLAS: {blas_summary()}")
    results = Results()
    verdicts = {}
    for name in args.dataset:
        setting = f"{name}-lsi{args.dims}"
        per_seed = []
        for seed in args.seeds:
            t0 = time.perf_counter()
            if name == "20ng":
                problem = newsgroups_problem(data_dir, args.per_group, args.dims, seed)
            else:
                problem = quora_problem(data_dir, args.quora_pairs, args.dims, seed)
            print(f"\n[{name}, seed {seed}: data ready in {time.perf_counter() - t0:.1f} s]")
            per_seed.append(compare(problem, metric_learn, seed, quick=args.quick, repeats=args.repeats,
                                    results=results, setting=f"{setting}/seed{seed}"))
        verdicts[name] = summarise(name, per_seed, results, setting)
    print("\naccuracy: fraction of held-out triplets (i, j, k) with d(i, j) < d(i, k), ties are errors; FILM under "
          "the cosine of L x, SCML under its Mahalanobis distance. seconds: fit time from the triplets on "
          "(wall = time.perf_counter, cpu = process CPU time, steadier when other jobs share the machine).")
    for role, meaning in ROLES.items():
        print(f"  {role}: {meaning}")
    if args.json:
        path = results.write_json(args.json)
        print(f"wrote {len(results)} records to {path}")
    return results, verdicts


if __name__ == "__main__":
    main()
