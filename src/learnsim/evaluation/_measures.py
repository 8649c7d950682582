"""Evaluation measures on vectors of distances, labels and scores: triplet constraints,
clustering, pair classification and correlation, with the input checks every measure shares.

Split out of :mod:`learnsim.evaluation` (which keeps the ranked-retrieval measures on score
matrices) to keep both modules short. Import these from :mod:`learnsim.evaluation`, which
re-exports them; this module is not an API.
"""
from __future__ import annotations

import numbers
import re

import numpy as np
import scipy.sparse as sp

from learnsim._utils.inputs import check_grade, id_by_value, short_repr, trec_order
from learnsim._utils.progress import progress
from learnsim._utils.validation import check_indices, check_matrix, check_random_state


# --------------------------------------------------------------------------- vectors

def _check_vector(x, name, *, min_length=1, allow_nan=False):
    if x is None:
        raise ValueError(f"{name} is None; expected a 1-D array")
    if sp.issparse(x):
        raise TypeError(f"{name} is a sparse matrix; expected a 1-D array")
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{name} could not be read as a 1-D numeric array: {exc}") from None
    if arr.ndim == 2 and 1 in arr.shape and arr.size:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got an array of shape {arr.shape}")
    if arr.size < min_length:
        raise ValueError(f"{name} has {arr.size} element(s); at least {min_length} required"
                         + (" (empty input)" if arr.size == 0 else ""))
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (ValueError, TypeError):
            raise ValueError(f"{name} has non-numeric entries (dtype {arr.dtype})") from None
    arr = arr.astype(np.float64, copy=False)
    if not allow_nan and not np.isfinite(arr).all():
        bad = "NaN" if np.isnan(arr).any() else "infinite"
        raise ValueError(f"{name} contains {bad} values")
    return arr


def _check_same_length(a, b, name_a, name_b):
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"{name_a} has {a.shape[0]} elements but {name_b} has {b.shape[0]}; "
                         "they must have the same length")


def _check_labels(labels, name):
    if labels is None:
        raise ValueError(f"{name} is None; expected a 1-D array of labels")
    arr = np.asarray(labels)
    if arr.ndim == 2 and 1 in arr.shape and arr.size:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got an array of shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN")
    return arr


def _check_binary_values(values, name):
    """Refuse anything but {0, 1} / bool, so that graded relevance or a float score matrix
    passed by mistake is not silently read as 'nonzero = relevant'."""
    if values.dtype == bool:
        return
    if values.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be boolean (or 0/1); got dtype {values.dtype}")
    if values.size and values.dtype.kind == "f" and np.isnan(values).any():
        raise ValueError(f"{name} contains NaN; expected boolean (or 0/1) values")
    if values.size and not np.isin(values, (0, 1)).all():
        raise ValueError(f"{name} must be boolean (or 0/1); found other values "
                         "(graded relevance? threshold it first, e.g. relevant = grades > 0)")


def _check_binary_labels(y, name):
    arr = np.asarray(y)
    if arr.ndim == 2 and 1 in arr.shape and arr.size:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got an array of shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    _check_binary_values(arr, name)
    return arr.astype(np.int64)


def _check_block_size(block_size):
    if block_size is None:
        return None
    if (not isinstance(block_size, numbers.Integral) or isinstance(block_size, bool)
            or block_size < 1):
        raise ValueError(f"block_size must be a positive integer (queries per block); got {block_size!r}")
    return int(block_size)


# --------------------------------------------------------------------------- triplets

def _triplet_inputs(d_ij, d_ik):
    d_ij = _check_vector(d_ij, "d_ij")
    d_ik = _check_vector(d_ik, "d_ik")
    _check_same_length(d_ij, d_ik, "d_ij", "d_ik")
    return d_ij, d_ik


def triplet_accuracy(d_ij, d_ik):
    """Fraction of triplets (i, j, k) satisfied, i.e. with d(i, j) < d(i, k) strictly.

    ``d_ij[t]`` and ``d_ik[t]`` are the distances of triplet t (for a similarity, pass
    its negative). Ties count as errors: a metric that maps everything to one point
    must not score 50%.

    Examples
    --------
    >>> from learnsim.evaluation import triplet_accuracy
    >>> round(triplet_accuracy([0.1, 0.5, 0.2], [0.3, 0.4, 0.9]), 3)
    0.667
    """
    d_ij, d_ik = _triplet_inputs(d_ij, d_ik)
    return float(np.mean(d_ij < d_ik))


def triplet_error_rate(d_ij, d_ik):
    """Fraction of triplets violated, d(i, j) >= d(i, k) (ties are errors); the constraint
    error rate C^{0/1} of Grangier & Bengio. Equals ``1 - triplet_accuracy``.

    Examples
    --------
    >>> from learnsim.evaluation import triplet_error_rate
    >>> round(triplet_error_rate([0.1, 0.5, 0.2], [0.3, 0.4, 0.9]), 3)
    0.333
    """
    d_ij, d_ik = _triplet_inputs(d_ij, d_ik)
    return float(np.mean(d_ij >= d_ik))


def _rowwise_sq_euclidean(A, B):
    diff = A - B
    if sp.issparse(diff):
        return np.asarray(diff.multiply(diff).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", diff, diff)


def triplet_distances(triplets, X=None, *, distance=None, block_size=65536):
    """Distances (d_ij, d_ik) of index triplets (n, 3) of rows (i, j, k).

    Parameters
    ----------
    triplets : int array (n_triplets, 3)
    X : array or sparse matrix (n_items, n_features), optional
        The items, e.g. an embedding from a learned metric's ``transform``.
    distance : callable, optional
        With ``X``: ``distance(A, B) -> (m,)`` returns the distance between each row of
        ``A`` and the same row of ``B`` (A, B are row blocks of X). Without ``X``:
        ``distance(a, b)`` receives two integer index arrays. If omitted, the squared
        Euclidean distance between rows of X is used (same ordering as Euclidean).
    block_size : int
        Triplets per call, to bound memory.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.evaluation import triplet_distances
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0]])
    >>> d_ij, d_ik = triplet_distances([[0, 1, 2], [2, 0, 1]], X)
    >>> d_ij.tolist(), d_ik.tolist()
    ([1.0, 25.0], [25.0, 16.0])
    """
    if X is None and distance is None:
        raise ValueError("give X (an embedding), distance (a function), or both")
    if distance is not None and not callable(distance):
        raise TypeError(f"distance must be callable; got {type(distance).__name__}")
    block_size = _check_block_size(block_size)
    if X is not None:
        X = check_matrix(X, name="X", accept_sparse=True)
        triplets = check_indices(triplets, X.shape[0], name="triplets", width=3)
    else:
        # no X to bound the indices, so only negative ones can be out of range
        try:
            triplets = check_indices(triplets, np.iinfo(np.int64).max, name="triplets", width=3)
        except ValueError as exc:
            if "out of range" not in str(exc):
                raise
            raise ValueError("triplets contains negative indices") from None
    n = triplets.shape[0]
    d_ij = np.empty(n)
    d_ik = np.empty(n)
    for start in range(0, n, block_size):
        t = triplets[start:start + block_size]
        for col, out in ((1, d_ij), (2, d_ik)):
            if X is None:
                values = distance(t[:, 0], t[:, col])
            elif distance is None:
                values = _rowwise_sq_euclidean(X[t[:, 0]], X[t[:, col]])
            else:
                values = distance(X[t[:, 0]], X[t[:, col]])
            values = np.asarray(values, dtype=np.float64).ravel()
            if values.shape != (len(t),):
                raise ValueError(f"distance returned {values.shape[0]} values for {len(t)} pairs; "
                                 "it must return one distance per row pair")
            if np.isnan(values).any():
                raise ValueError("distance returned NaN values")
            out[start:start + len(t)] = values
    return d_ij, d_ik


def evaluate_triplets(triplets, X=None, *, distance=None, block_size=65536):
    """``{"accuracy", "error_rate"}`` of index triplets (i, j, k) that say "i is closer to
    j than to k", under an embedding ``X`` and/or a ``distance`` function (see
    :func:`triplet_distances`). Ties count as errors.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.evaluation import evaluate_triplets
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0]])
    >>> evaluate_triplets([[0, 1, 2], [2, 0, 1]], X)
    {'accuracy': 0.5, 'error_rate': 0.5}
    """
    d_ij, d_ik = triplet_distances(triplets, X, distance=distance, block_size=block_size)
    accuracy = float(np.mean(d_ij < d_ik))
    return {"accuracy": accuracy, "error_rate": 1.0 - accuracy}


# --------------------------------------------------------------------------- clustering

def _pairs(counts):
    counts = counts.astype(np.int64)
    return int(np.sum(counts * (counts - 1) // 2))


def pairwise_clustering_precision(labels_true, labels_pred, balanced=False):
    """Xing et al. (2002) clustering "accuracy": agreement of a clustering with the truth
    over pairs of items.

    With ``balanced=False``, the probability that a uniformly drawn pair (i < j) is treated
    alike by both labelings (same cluster in both, or different in both); this is the Rand
    index. With ``balanced=True``, the mean of the agreement over pairs that share a true
    cluster and over pairs that do not, i.e. pairs are drawn from the same true cluster
    with probability 0.5, as Xing et al. also report; it is undefined (ValueError) when
    either kind of pair does not exist.

    Runs in O(n + k_true * k_pred) from the contingency table.

    Examples
    --------
    >>> from learnsim.evaluation import pairwise_clustering_precision
    >>> pairwise_clustering_precision([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> round(pairwise_clustering_precision([0, 0, 1, 1], [0, 1, 0, 1]), 3)
    0.333
    """
    y_true = _check_labels(labels_true, "labels_true")
    y_pred = _check_labels(labels_pred, "labels_pred")
    _check_same_length(y_true, y_pred, "labels_true", "labels_pred")
    n = y_true.shape[0]
    if n < 2:
        raise ValueError(f"labels_true has {n} item; pairwise precision needs at least 2")
    _, t_codes = np.unique(y_true, return_inverse=True)
    _, p_codes = np.unique(y_pred, return_inverse=True)
    t_codes, p_codes = t_codes.ravel(), p_codes.ravel()
    n_t, n_p = t_codes.max() + 1, p_codes.max() + 1
    table = np.bincount(t_codes * n_p + p_codes, minlength=n_t * n_p)
    same_both = _pairs(table)
    same_true = _pairs(np.bincount(t_codes))
    same_pred = _pairs(np.bincount(p_codes))
    total = n * (n - 1) // 2
    diff_both = total - same_true - same_pred + same_both
    if not balanced:
        return (same_both + diff_both) / total
    diff_true = total - same_true
    if same_true == 0:
        raise ValueError("balanced clustering precision is undefined: no two items share a true "
                         "cluster (every true cluster is a singleton)")
    if diff_true == 0:
        raise ValueError("balanced clustering precision is undefined: all items are in one "
                         "true cluster, so there are no different-cluster pairs")
    return 0.5 * (same_both / same_true + diff_both / diff_true)


def kmeans_clustering_precision(X, labels, n_runs=100, random_state=None, balanced=False):
    """Clustering precision of K-means on ``X`` averaged over random starts.

    Follows Mochihashi et al. (2004, sec. 5.3): K = the number of true classes, K-means
    run ``n_runs`` times from a random start, precision by
    :func:`pairwise_clustering_precision`. Each run is sklearn's ``KMeans`` with
    ``init="random"`` (K distinct items drawn at random as the initial centres, the classic
    random start) and ``n_init=1``, so runs are not best-of-several restarts.

    Returns ``(mean, std)`` over runs (population std, ddof=0). ``X`` is the (already
    transformed) data, dense or sparse.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.evaluation import kmeans_clustering_precision
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [10.0, 10.0], [10.0, 11.0]])
    >>> kmeans_clustering_precision(X, [0, 0, 1, 1], n_runs=5, random_state=0)
    (1.0, 0.0)
    """
    from sklearn.cluster import KMeans

    X = check_matrix(X, name="X", accept_sparse=True)
    labels = _check_labels(labels, "labels")
    if labels.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but labels has {labels.shape[0]} elements")
    if not isinstance(n_runs, numbers.Integral) or isinstance(n_runs, bool) or n_runs < 1:
        raise ValueError(f"n_runs must be a positive integer; got {n_runs!r}")
    n_classes = np.unique(labels).size
    if n_classes < 2:
        raise ValueError("labels has a single class; K-means clustering precision needs K >= 2")
    if n_classes > X.shape[0]:
        raise ValueError(f"{n_classes} classes but only {X.shape[0]} items")
    rng = check_random_state(random_state)
    seeds = rng.integers(0, 2 ** 31 - 1, size=int(n_runs))
    scores = np.empty(int(n_runs))
    for run, seed in enumerate(progress(seeds, desc="k-means runs")):
        model = KMeans(n_clusters=n_classes, init="random", n_init=1, random_state=int(seed))
        predicted = model.fit_predict(X)
        scores[run] = pairwise_clustering_precision(labels, predicted, balanced=balanced)
    return float(scores.mean()), float(scores.std())


# --------------------------------------------------------------------------- pairs

def _pair_inputs(scores, y_true):
    scores = _check_vector(scores, "scores")
    y = _check_binary_labels(y_true, "y_true")
    _check_same_length(scores, y, "scores", "y_true")
    return scores, y


def best_threshold(scores, y_true):
    """Threshold that maximises the accuracy of "positive iff score >= threshold".

    O(n log n): one sort, then cumulative counts over the distinct score values.
    Returns ``(threshold, accuracy)``. The threshold is the midpoint between the lowest
    score predicted positive and the next lower score (so new scores in between are split
    evenly); the minimum score when every item is predicted positive; ``inf`` when the
    best is to predict none positive. Among equally accurate thresholds the largest wins.

    Examples
    --------
    >>> from learnsim.evaluation import best_threshold
    >>> threshold, accuracy = best_threshold([0.9, 0.8, 0.3, 0.1], [1, 1, 0, 0])
    >>> round(threshold, 2), accuracy
    (0.55, 1.0)
    """
    scores, y = _pair_inputs(scores, y_true)
    n = scores.size
    order = np.argsort(-scores, kind="stable")
    s = scores[order]
    pos = np.cumsum(y[order])
    neg = np.arange(1, n + 1) - pos
    n_neg = n - pos[-1]
    # Last position of each run of equal scores: a threshold cannot split ties.
    ends = np.append(np.nonzero(s[1:] != s[:-1])[0], n - 1)
    correct = np.concatenate(([n_neg], pos[ends] + (n_neg - neg[ends])))
    best = int(np.argmax(correct))
    if best == 0:
        threshold = np.inf
    else:
        end = ends[best - 1]
        if end == n - 1:
            threshold = s[end]
        else:
            mid = s[end] / 2 + s[end + 1] / 2
            threshold = mid if s[end + 1] < mid <= s[end] else s[end]
    return float(threshold), float(correct[best] / n)


def log_loss(y_true, probabilities, eps=1e-15):
    """Mean binary cross-entropy (natural log) of probabilities of the positive class.

    The probability given to the true class is clipped below at ``eps`` so that hard 0/1
    predictions (e.g. from a k-NN rule) give a large but finite loss, -log(eps) per error.
    Values outside [0, 1] are refused.

    Examples
    --------
    >>> from learnsim.evaluation import log_loss
    >>> round(log_loss([1, 0], [0.9, 0.2]), 3)
    0.164
    """
    p = _check_vector(probabilities, "probabilities")
    y = _check_binary_labels(y_true, "y_true")
    _check_same_length(y, p, "y_true", "probabilities")
    if (p < 0).any() or (p > 1).any():
        raise ValueError("probabilities must lie in [0, 1]; got values "
                         f"from {p.min():.6g} to {p.max():.6g} (scores? apply a sigmoid first)")
    if not (isinstance(eps, numbers.Real) and 0 < eps < 0.5):
        raise ValueError(f"eps must be a number in (0, 0.5); got {eps!r}")
    # Clip each side separately: 1 - (1 - eps) is not eps in floating point.
    prob_of_truth = np.where(y == 1, p, 1.0 - p)
    return float(-np.mean(np.log(np.clip(prob_of_truth, eps, 1.0))))


def pair_classification_report(scores, y_true, threshold=None, *, probabilities=None, eps=1e-15):
    """Accuracy of "similar iff score >= threshold" on labelled pairs.

    With ``threshold=None`` the accuracy-maximising threshold is chosen by
    :func:`best_threshold` on these very pairs, which is optimistic: choose it on
    validation pairs and pass it here for a test score.

    Returns a dict with ``"accuracy"``, ``"error_rate"``, ``"threshold"`` and, when
    ``probabilities`` (of the positive class) are given, ``"log_loss"``.

    Examples
    --------
    >>> from learnsim.evaluation import pair_classification_report
    >>> report = pair_classification_report([0.9, 0.8, 0.3, 0.1], [1, 1, 0, 0])
    >>> report['accuracy'], round(report['threshold'], 2)
    (1.0, 0.55)
    """
    scores, y = _pair_inputs(scores, y_true)
    if threshold is None:
        threshold, accuracy = best_threshold(scores, y)
    else:
        if not isinstance(threshold, numbers.Real) or np.isnan(threshold):
            raise ValueError(f"threshold must be a number; got {threshold!r}")
        threshold = float(threshold)
        accuracy = float(np.mean((scores >= threshold) == (y == 1)))
    report = {"accuracy": accuracy, "error_rate": 1.0 - accuracy, "threshold": threshold}
    if probabilities is not None:
        report["log_loss"] = log_loss(y, probabilities, eps=eps)
    return report


# --------------------------------------------------------------------------- correlation

def _correlation_inputs(x, y):
    x = _check_vector(x, "x", min_length=2)
    y = _check_vector(y, "y", min_length=2)
    _check_same_length(x, y, "x", "y")
    for name, v in (("x", x), ("y", y)):
        if np.ptp(v) == 0:
            raise ValueError(f"{name} is constant; the correlation is undefined")
    return x, y


def pearson(x, y):
    """Pearson correlation coefficient of two equal-length 1-D arrays (scipy.stats.pearsonr).

    Examples
    --------
    >>> from learnsim.evaluation import pearson
    >>> round(pearson([1, 2, 3], [2, 4, 7]), 3)
    0.993
    """
    from scipy import stats

    x, y = _correlation_inputs(x, y)
    return float(stats.pearsonr(x, y)[0])


def spearman(x, y):
    """Spearman rank correlation (ties get average ranks; scipy.stats.spearmanr).

    Examples
    --------
    >>> from learnsim.evaluation import spearman
    >>> spearman([1, 2, 3], [2, 4, 7])
    1.0
    """
    from scipy import stats

    x, y = _correlation_inputs(x, y)
    return float(stats.spearmanr(x, y)[0])


# --------------------------------------------------------------------------- runs (trec_eval)

#: The measures ``learnsim evaluate`` reports of a retrieval run, in trec_eval's terms ``map``,
#: ``ndcg_cut.10``, ``P.10``, ``recall.100`` and ``recip_rank`` of the top 10 (``trec_eval -M 10``:
#: MS MARCO's MRR@10, which Pyserini reports).
RUN_MEASURES = ("map", "ndcg@10", "p@10", "recall@100", "mrr@10")

# One grammar for ir_measures' names (nDCG@10, RR@10, AP@100, R@100), trec_eval's (ndcg_cut_10,
# ndcg_cut.10, map_cut_100, P_10, recall.100, recip_rank) and learnsim's (map, mrr@10, recall@100),
# compared lower-cased; ASCII digits only (int() would read "١٠" as 10)
_RUN_MEASURE = re.compile(r"^(?:(map|ap|ndcg|rr|mrr|recip_rank)|(map|ap|ndcg|p|precision|r|recall|rr|mrr|recip_rank)"
                          r"(?:@|_cut[._]|[._])(\d+))$", re.ASCII)
_RUN_KIND = {"map": "ap", "ap": "ap", "ndcg": "ndcg", "p": "p", "precision": "p", "r": "recall", "recall": "recall",
             "rr": "rr", "mrr": "rr", "recip_rank": "rr"}
# kind -> learnsim's name of the measure uncut, cut at k
_RUN_NAME = {"ap": ("map", "map@{}"), "ndcg": ("ndcg", "ndcg@{}"), "p": (None, "p@{}"),
             "recall": (None, "recall@{}"), "rr": ("mrr", "mrr@{}")}
_KNOWN_RUN_MEASURES = ("known: AP, AP@k, nDCG, nDCG@k, P@k, R@k, RR, RR@k (ir_measures' names, e.g. nDCG@10, RR@10, "
                       "R@100; MAP@k, MRR@k and recall@k too), or trec_eval's map, map_cut_k, ndcg, ndcg_cut_k, P_k, "
                       "recall_k, recip_rank")


def _parse_run_measures(measures):
    """Each requested name -> (kind, cutoff): ("ap", k or None), ("ndcg", k or None), ("p", k),
    ("recall", k), ("rr", k or None)."""
    if isinstance(measures, str):
        measures = (measures,)
    try:
        measures = tuple(measures)
    except TypeError:
        raise TypeError(f"measures must be a name or a sequence of names; got {measures!r}") from None
    if not measures:
        raise ValueError(f"measures is empty; ask for at least one ({_KNOWN_RUN_MEASURES})")
    parsed = {}
    for name in measures:
        if not isinstance(name, str):
            raise TypeError(f"measure names must be strings; got {name!r}")
        match = _RUN_MEASURE.match(name.strip().lower())
        if match is None:
            raise ValueError(f"unknown run measure {name!r}; {_KNOWN_RUN_MEASURES}")
        if match.group(1):
            parsed[name] = (_RUN_KIND[match.group(1)], None)
            continue
        k = int(match.group(3))
        if k < 1:
            raise ValueError(f"run measure {name!r}: the cutoff must be at least 1; {_KNOWN_RUN_MEASURES}")
        parsed[name] = (_RUN_KIND[match.group(2)], k)
    return parsed


def run_measure_names(measures):
    """learnsim's names of run measures given by ir_measures', trec_eval's or learnsim's names, in
    the order given, each once: the keys :func:`run_report` gives them under when asked so.

    ``"map"``, ``"map@<k>"`` (``AP``, ``AP@k``, ``map_cut_k``), ``"ndcg"``, ``"ndcg@<k>"``
    (``nDCG@k``, ``ndcg_cut_k``), ``"p@<k>"`` (``P@k``, ``P_k``), ``"recall@<k>"`` (``R@k``,
    ``recall_k``), ``"mrr"`` (``RR``, ``recip_rank``), ``"mrr@<k>"`` (``RR@k``, ``MRR@k``).
    Names are compared without regard to case.

    Raises
    ------
    ValueError
        Naming the first unknown name (or a cutoff below 1) and listing the known ones.

    Examples
    --------
    >>> from learnsim.evaluation import run_measure_names
    >>> run_measure_names(["nDCG@10", "RR@10", "ndcg_cut_10", "recip_rank", "R@100", "AP"])
    ('ndcg@10', 'mrr@10', 'mrr', 'recall@100', 'map')
    """
    names = []
    for kind, k in _parse_run_measures(measures).values():
        name = _RUN_NAME[kind][0] if k is None else _RUN_NAME[kind][1].format(k)
        if name not in names:
            names.append(name)
    return tuple(names)


def _check_run_layout(value, name, check_value):
    """``{query_id: {doc_id: value}}`` with string ids, or a TypeError/ValueError naming the entry."""
    if not isinstance(value, dict):
        raise TypeError(f"{name} must be a dict {{query_id: {{doc_id: value}}}}; got {type(value).__name__}")
    for qid, entries in value.items():
        if not isinstance(qid, str):
            raise TypeError(f"{name}: query id {qid!r} is not a string")
        if not isinstance(entries, dict):
            raise TypeError(f"{name}[{qid!r}] must be a dict {{doc_id: value}}; got {type(entries).__name__}")
        for doc, v in entries.items():
            if not isinstance(doc, str):
                raise TypeError(f"{name}[{qid!r}]: document id {doc!r} is not a string")
            check_value(v, f"{name}[{qid!r}][{doc!r}]")


def _check_score(v, where):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or not np.isfinite(v):
        raise ValueError(f"{where}: the score must be a finite number; got {v!r}")


def _check_grade(v, where):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
        raise ValueError(f"{where}: the relevance must be an integer; got {short_repr(v)}")
    # within trec_eval's range, as the qrels readers take a grade: 10**400 raised an
    # OverflowError in nDCG's gains, 10**30 outweighed every other grade without a word
    check_grade(int(v), where)


def trec_ranking(scores):
    """The document ids of one query's run in trec_eval's order: by descending score, ties by
    descending document id (trec_eval sorts so, ignoring the rank column of a run file). Scores are
    compared in single precision, as trec_eval holds them (a C float): 1 + 1e-9 and 1 tie.

    Parameters
    ----------
    scores : dict of {doc_id: float}

    Returns
    -------
    list of str

    Examples
    --------
    >>> from learnsim.evaluation import trec_ranking
    >>> trec_ranking({"d1": 0.5, "d2": 0.9, "d3": 0.5})
    ['d2', 'd3', 'd1']
    """
    return [doc for doc, _ in trec_order(scores)]


def _matched(run, qrels):
    """``[(run query id, its judgements, the documents' judged ids)]`` of the run's judged
    queries, and how many query and document ids met theirs only by value (``"7"`` and
    ``"007"``). An id the qrels hold as written is matched so; another meets, by value, an id no
    other one of its side met as written (so ``"7"`` and ``"007"`` in one run are not both
    scored against the qrels' ``"7"``)."""
    by_value = {}
    for qid in qrels:
        by_value.setdefault(id_by_value(qid), qid)
    taken = {qid for qid in run if qid in qrels}
    out, n_queries, n_docs = [], 0, 0
    for qid, scores in run.items():
        key = qid if qid in qrels else by_value.get(id_by_value(qid))
        if key is None or (key != qid and key in taken):
            continue
        if key != qid:
            taken.add(key)
            n_queries += 1
        judged = qrels[key]
        docs_by_value = {}
        for doc in judged:
            docs_by_value.setdefault(id_by_value(doc), doc)
        named = {}
        exact = {doc for doc in scores if doc in judged}
        for doc in scores:
            if doc in judged:
                named[doc] = doc
                continue
            other = docs_by_value.get(id_by_value(doc))
            if other is not None and other not in exact and other not in named.values():
                named[doc] = other
                n_docs += 1
        out.append((qid, judged, named))
    return out, n_queries, n_docs


def _query_measures(scores, judged, parsed, named=None):
    """The measures of one query, as trec_eval 9 computes them (relevance level 1); ``named``:
    {run document id: its judged id} where the two differ in form (ranked by the run's own ids,
    as trec_eval breaks ties)."""
    named = {} if named is None else named
    gains = [judged.get(named.get(doc, doc), 0) for doc in trec_ranking(scores)]
    relevant = [g >= 1 for g in gains]
    n_rel = sum(1 for g in judged.values() if g >= 1)
    out = {}
    for name, (kind, k) in parsed.items():
        if kind == "ap":
            # map, and map_cut.k over the top k: either divided by every relevant document (R)
            found, total = 0, 0.0
            for rank, rel in enumerate(relevant[:k], start=1):
                if rel:
                    found += 1
                    total += found / rank
            out[name] = total / n_rel if found else 0.0
        elif kind == "rr":
            # recip_rank; cut at k as trec_eval -M k cuts a run: after ordering it (ties by id)
            first = next((rank for rank, rel in enumerate(relevant[:k], start=1) if rel), None)
            out[name] = 0.0 if first is None else 1.0 / first
        elif kind == "p":
            out[name] = sum(relevant[:k]) / k
        elif kind == "recall":
            out[name] = sum(relevant[:k]) / n_rel if n_rel else 0.0
        else:
            # graded gain = the relevance level, log2 discount; judged levels below 1 gain nothing
            dcg = sum(g / np.log2(rank + 2) for rank, g in enumerate(gains[:k]) if g > 0)
            ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
            idcg = sum(g / np.log2(rank + 2) for rank, g in enumerate(ideal))
            out[name] = float(dcg / idcg) if idcg > 0 else float(dcg)
    return out


def per_query_run_measures(run, qrels, measures=RUN_MEASURES):
    """Ranked-retrieval measures of each query of a run, as trec_eval computes them.

    Parameters
    ----------
    run : dict of {query_id: {doc_id: score}}
        The retrieved documents of each query with their scores (higher is better), the
        layout pytrec_eval takes. Only the scores order the documents: by descending score,
        ties by descending document id, as trec_eval orders them, the scores compared in single
        precision as trec_eval holds them (:func:`trec_ranking`).
    qrels : dict of {query_id: {doc_id: int}}
        The relevance judgments. A document is relevant when its level is >= 1; the level is
        its gain in nDCG. Documents of the run that are not judged count as non-relevant.
    measures : sequence of str, default=RUN_MEASURES
        ``"map"``, ``"map@<k>"``, ``"ndcg"``, ``"ndcg@<k>"``, ``"p@<k>"``, ``"recall@<k>"``,
        ``"mrr"``, ``"mrr@<k>"``; ir_measures' names (``"AP"``, ``"AP@100"``, ``"nDCG@10"``,
        ``"P@10"``, ``"R@100"``, ``"RR"``, ``"RR@10"``) and trec_eval's (``"map_cut_100"``,
        ``"ndcg_cut.10"``, ``"P.10"``, ``"recall.100"``, ``"recip_rank"``) are accepted too
        (:func:`run_measure_names`); an unknown name is a ValueError naming it.

    Returns
    -------
    dict of {query_id: {measure: float}}
        The queries of the run that have judgments, in the run's order.

    Notes
    -----
    The definitions are trec_eval 9's (the version pytrec_eval wraps), with R the number of
    judged-relevant documents of the query, retrieved or not:

    * ``map``: the sum over the *retrieved* relevant documents of the precision at their
      rank, divided by R (a relevant document the run missed adds 0);
    * ``p@k``: relevant documents in the top k, divided by k even when fewer are retrieved;
    * ``recall@k``: relevant documents in the top k, divided by R;
    * ``ndcg@k`` (``ndcg_cut.k``): the sum over the top k of level / log2(rank + 1),
      divided by the same sum over the ideal ordering of every judged level >= 1; ``ndcg``
      (trec_eval's ``ndcg``) the same over the whole run and every judged level;
    * ``map@k`` (``map_cut.k``, BEIR's MAP@k): ``map`` over the top k, still divided by R;
    * ``mrr`` (``recip_rank``): 1 / the rank of the first relevant document, 0 if none is
      retrieved; ``mrr@k`` the same within the top k, as ``trec_eval -M k -m recip_rank`` (and
      so Pyserini's and MS MARCO's MRR@10) gives it: ordered by score, ties by descending id,
      then cut. ir_measures' ``RR@k`` (MS MARCO's script) breaks ties by *ascending* id and
      differs from it where the first relevant document ties with another.

    A query of the run whose judgments hold no relevant document scores 0 on each measure and
    counts in the means, as in trec_eval; a query of the run without any judgment is left
    out, as trec_eval leaves it out.

    Ids are matched as written, and where the qrels hold no id so written, by value: an
    all-digit id without its leading zeros (``"007"`` is ``"7"``), as learnsim's readers match
    judgements to collections (trec_eval, matching strings, would not count those;
    :func:`run_report` counts them). Ties are broken by the run's own ids, as trec_eval does.

    Examples
    --------
    Query q1 has two relevant documents (c at level 2, a at level 1) and its run ranks b, z,
    c, a (c before a: their scores tie, and trec_eval puts the larger id first):

    >>> from learnsim.evaluation import per_query_run_measures
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 2}}
    >>> run = {"q1": {"a": 0.5, "b": 0.9, "c": 0.5, "z": 0.7}, "q9": {"a": 1.0}}
    >>> m = per_query_run_measures(run, qrels, ("map", "p@2", "recall@3"))
    >>> list(m), round(m["q1"]["map"], 4), m["q1"]["p@2"], m["q1"]["recall@3"]
    (['q1'], 0.4167, 0.0, 0.5)
    """
    return _per_query(run, qrels, measures)[0]


def _per_query(run, qrels, measures):
    """(per_query_run_measures, the matches and their counts of :func:`_matched`)."""
    parsed = _parse_run_measures(measures)
    _check_run_layout(run, "run", _check_score)
    _check_run_layout(qrels, "qrels", _check_grade)
    matched, by_value_queries, by_value_docs = _matched(run, qrels)
    return ({qid: _query_measures(run[qid], judged, parsed, named) for qid, judged, named in matched},
            matched, by_value_queries, by_value_docs)


def run_report(run, qrels, measures=RUN_MEASURES):
    """Means over queries of :func:`per_query_run_measures`, as trec_eval reports them.

    Parameters
    ----------
    run, qrels, measures
        As in :func:`per_query_run_measures`.

    Returns
    -------
    dict
        One float per measure (keyed by the names as given), and ``"n_queries"`` (the queries
        averaged over: those of the run that have judgments), ``"n_queries_without_relevant"``
        (of those, the ones whose judgments hold no relevant document: 0 on every measure),
        ``"n_skipped_queries"`` (queries of the run without judgments, left out) and
        ``"n_unranked_queries"`` (judged queries the run does not rank; left out as by
        trec_eval without ``-c``, which would count them as 0), ``"n_queries_matched_by_value"``
        and ``"n_documents_matched_by_value"`` (ids that met their judgements only by value,
        ``"007"`` and ``"7"``: trec_eval would not count them).

    Raises
    ------
    ValueError
        When no query of the run has judgments (trec_eval: "No queries with both results and
        relevance info"), or on a malformed run or qrels.

    Examples
    --------
    >>> from learnsim.evaluation import run_report
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"a": 0}, "q3": {"x": 1}}
    >>> run = {"q1": {"a": 0.5, "b": 0.9, "c": 0.5, "z": 0.7}, "q2": {"a": 1.0}}
    >>> report = run_report(run, qrels, ("map", "ndcg@10"))
    >>> round(report["map"], 4), round(report["ndcg@10"], 4), report["n_queries"]
    (0.2083, 0.2719, 2)
    >>> report["n_queries_without_relevant"], report["n_unranked_queries"]
    (1, 1)
    """
    per_query, matched, by_value_queries, by_value_docs = _per_query(run, qrels, measures)
    if not per_query:
        raise ValueError(f"none of the run's {len(run)} queries has relevance judgments (the qrels name "
                         f"{len(qrels)} other queries); are the query ids the same?")
    report = {name: float(np.mean([values[name] for values in per_query.values()]))
              for name in _parse_run_measures(measures)}
    report["n_queries"] = len(per_query)
    report["n_queries_without_relevant"] = sum(1 for _, judged, _ in matched if not any(g >= 1 for g in judged.values()))
    report["n_skipped_queries"] = len(run) - len(per_query)
    met = {id_by_value(qid) for qid in run} | set(run)
    report["n_unranked_queries"] = sum(1 for qid in qrels if qid not in met and id_by_value(qid) not in met)
    report["n_queries_matched_by_value"], report["n_documents_matched_by_value"] = by_value_queries, by_value_docs
    return report
