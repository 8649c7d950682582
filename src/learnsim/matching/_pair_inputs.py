"""Checks and row arithmetic shared by the pair matchers (:mod:`learnsim.matching`) and the pair
classifier (:mod:`learnsim.pair_classifier`): the items' embedding, the pair indices and
duplicate labels, the similarity metric, and row norms and row-wise products of an embedding.

Split out of :mod:`learnsim.matching` to keep that module short; it re-exports these names, so
``from learnsim.matching import _check_pair_indices`` keeps working.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_indices, check_matrix
from ..search import METRICS
from ..supervision import Pairs, _parse_pair_labels


def _n_rows(X):
    if sp.issparse(X) or hasattr(X, "shape"):
        shape = getattr(X, "shape", ())
        return int(shape[0]) if len(shape) else None
    try:
        return len(X)
    except TypeError:
        return None


def _unfitted_part(part, name, owner):
    """The NotFittedError to raise where ``part`` (an estimator ``owner`` uses as it is, given
    as its argument ``name``) turned out unfitted: sklearn.base.clone, and the searches built on
    it, hand the owner an unfitted copy, and scikit-learn's own 'This FILM instance is not fitted
    yet' from inside its transform said neither which argument nor why."""
    from sklearn.exceptions import NotFittedError

    return NotFittedError(f"{owner}'s {name}= ({type(part).__name__}) is not fitted: {owner} uses it as it is, so "
                          f"fit it first. sklearn.base.clone (and GridSearchCV, cross_validate, which clone) gives an "
                          f"unfitted copy of it: fit the {owner} you made, not a clone")


def _check_part_fitted(part, name, owner):
    """:func:`_unfitted_part` raised where ``part`` (a learnsim estimator) is not fitted."""
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    try:
        check_is_fitted(part)
    except NotFittedError:
        raise _unfitted_part(part, name, owner) from None


def _embed(transformer, X, name):
    """The embedding of ``X`` under ``transformer`` as a checked float matrix."""
    if X is None:
        raise ValueError(f"{name} is None; expected the items (one row per item)")
    if transformer is None:
        return check_matrix(X, name=name)
    if callable(getattr(transformer, "transform", None)):
        E = transformer.transform(X)
    elif callable(transformer):
        E = transformer(X)
    else:
        raise TypeError("transformer must be None (X is already embedded), a fitted object with a "
                        "transform(X) method, or a function X -> embedding; got "
                        f"{type(transformer).__name__}")
    E = check_matrix(E, name=f"the embedding of {name} (output of the transformer)")
    n_in = _n_rows(X)
    if n_in is not None and n_in != E.shape[0]:
        raise ValueError(f"the transformer returned {E.shape[0]} rows for the {n_in} items of {name}; "
                         "it must return one row per item")
    return E


def _check_pair_indices(pairs, n_items, name="pairs"):
    """(n_pairs, 2) int64 indices from a Pairs object or an index array, checked against X."""
    if isinstance(pairs, Pairs):
        idx = pairs.indices
    else:
        if pairs is None:
            raise ValueError(f"{name} is None; expected a Pairs object or an (n_pairs, 2) index array")
        arr = np.asarray(pairs)
        if arr.size == 0:
            raise ValueError(f"{name} is empty; give at least one pair")
        if arr.dtype.kind == "b":
            raise ValueError(f"{name} must be integer row indices into X; got booleans")
        idx = arr
    idx = check_indices(idx, n_items, name=name, width=2)
    same = idx[:, 0] == idx[:, 1]
    if same.any():
        row = int(np.flatnonzero(same)[0])
        raise ValueError(f"{name} contains {int(same.sum())} pair(s) of an item with itself (e.g. row "
                         f"{row}: ({idx[row, 0]}, {idx[row, 1]})); a pair needs two distinct items")
    return idx


def _check_pair_labels(pairs, y, n_pairs, name="y"):
    """Bool duplicate flags, from the Pairs object or from ``y``, but not both."""
    if isinstance(pairs, Pairs):
        if pairs.is_graded:
            raise ValueError("pairs are graded (scores); the matchers need duplicate / not "
                             "duplicate labels: threshold the scores first, e.g. "
                             "Pairs(pairs.indices, labels=pairs.scores >= 4)")
        if y is not None:
            raise ValueError("pairs is a labelled Pairs object and y was given too; give the labels once")
        return np.asarray(pairs.labels, dtype=bool)
    if y is None:
        raise ValueError("y is required when pairs is an index array (or pass "
                         "Pairs(indices, labels=...))")
    # the parser of Pairs: bool, 0/1 and -1/1 labels, with clear messages
    try:
        return np.asarray(_parse_pair_labels(y, n_pairs), dtype=bool)
    except ValueError as exc:
        raise ValueError(str(exc).replace("labels", name, 1).replace("indices has", "pairs has")) from None


def _require_both_classes(labels, what="the validation pairs"):
    n_pos = int(labels.sum())
    if n_pos == 0:
        raise ValueError(f"{what} contain no duplicate (positive) pair; both kinds are needed to "
                         "choose the rule and calibrate its probabilities")
    if n_pos == labels.size:
        raise ValueError(f"{what} contain no non-duplicate (negative) pair; both kinds are needed to "
                         "choose the rule and calibrate its probabilities")


def _check_metric(metric):
    if not isinstance(metric, str) or metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(map(repr, METRICS))}; got {metric!r}")
    return metric


def _confusion_rates(y_true, y_pred):
    """TPR, TNR, FPR, FNR as fractions of the positive / negative pairs."""
    y_true, y_pred = np.asarray(y_true, dtype=bool), np.asarray(y_pred, dtype=bool)
    n_pos, n_neg = int(y_true.sum()), int((~y_true).sum())
    tp = int(np.sum(y_true & y_pred))
    tn = int(np.sum(~y_true & ~y_pred))
    tpr = tp / n_pos if n_pos else float("nan")
    tnr = tn / n_neg if n_neg else float("nan")
    return {"tpr": tpr, "tnr": tnr, "fpr": 1.0 - tnr, "fnr": 1.0 - tpr}


def _row_norms(E):
    if sp.issparse(E):
        return np.sqrt(np.asarray(E.multiply(E).sum(axis=1), dtype=np.float64).ravel())
    return np.sqrt(np.einsum("ij,ij->i", E, E, dtype=np.float64))


def _rowwise_dot(A, B):
    if sp.issparse(A) or sp.issparse(B):
        A = A if sp.issparse(A) else sp.csr_matrix(A)
        return np.asarray(A.multiply(B).sum(axis=1), dtype=np.float64).ravel()
    return np.einsum("ij,ij->i", A, B, dtype=np.float64)
