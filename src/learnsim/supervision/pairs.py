"""Labelled or graded item pairs as supervision: :class:`Pairs` and :func:`check_pairs`."""
from __future__ import annotations

import numpy as np

from ._common import _check_n_items, _check_range, _index_array, _readonly


def _parse_pair_labels(labels, m):
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"labels must be 1-D, one per pair; got shape {arr.shape}")
    if arr.size != m:
        raise ValueError(f"labels has {arr.size} entries but indices has {m} pairs")
    if arr.dtype.kind == "b":
        return arr.astype(bool)
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"labels must be bool, 0/1 or -1/1 (similar = True/1); got dtype {arr.dtype}")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError("labels contains NaN or infinite values")
    values = set(np.unique(arr).tolist())
    if values <= {0, 1} or values <= {-1, 1}:
        return arr == 1
    raise ValueError(f"labels must be bool, 0/1 or -1/1 (similar = True/1); found values {sorted(values)}. "
                     "For graded similarity use Pairs(indices, scores=...)")


class Pairs:
    """Pairs of items ``(i, j)``, either labelled similar/dissimilar or graded with a score.

    Parameters
    ----------
    indices : array-like of int, shape (n_pairs, 2)
        Row indices into ``X``; a pair of an item with itself is refused.
    labels : array-like, shape (n_pairs,), optional
        Similar (True / 1) or dissimilar (False / 0 / -1); bool, {0, 1} or {-1, 1}.
    scores : array-like of float, shape (n_pairs,), optional
        Graded similarity (higher = more similar), e.g. STS scores.

    Exactly one of ``labels`` and ``scores`` must be given.

    Examples
    --------
    >>> from learnsim.supervision import Pairs
    >>> p = Pairs([[0, 1], [1, 2], [2, 3]], labels=[1, 0, 1])
    >>> p
    Pairs(n_pairs=3, n_similar=2)
    >>> p.labels
    array([ True, False,  True])
    >>> Pairs([[0, 1], [0, 2]], scores=[4.5, 1.0])
    Pairs(n_pairs=2, graded)
    """

    __slots__ = ("_indices", "_labels", "_scores")

    def __init__(self, indices, labels=None, scores=None):
        if (labels is None) == (scores is None):
            raise ValueError("give exactly one of labels (similar/dissimilar) and scores (graded); got "
                             + ("neither" if labels is None else "both"))
        ind = _index_array(indices, 2, "pairs", "pair")
        same = ind[:, 0] == ind[:, 1]
        if same.any():
            row = int(np.flatnonzero(same)[0])
            raise ValueError(f"pairs contains {int(same.sum())} pair(s) of an item with itself "
                             f"(e.g. row {row}: ({ind[row, 0]}, {ind[row, 1]})); a pair needs two distinct items")
        self._indices = ind
        self._labels = self._scores = None
        if labels is not None:
            self._labels = _readonly(np.array(_parse_pair_labels(labels, len(ind)), dtype=bool))
        else:
            try:
                s = np.array(scores, dtype=float)
            except (ValueError, TypeError):
                raise ValueError("scores must be numbers (graded similarity, higher = more similar)") from None
            if s.ndim != 1:
                raise ValueError(f"scores must be 1-D, one per pair; got shape {s.shape}")
            if s.size != len(ind):
                raise ValueError(f"scores has {s.size} entries but indices has {len(ind)} pairs")
            if not np.isfinite(s).all():
                raise ValueError(f"scores contains NaN or infinite values (pair {int(np.flatnonzero(~np.isfinite(s))[0])})")
            self._scores = _readonly(s)

    @property
    def indices(self):
        return self._indices

    @property
    def labels(self):
        """Bool array (True = similar), or None for graded pairs."""
        return self._labels

    @property
    def scores(self):
        """Float array of graded scores, or None for labelled pairs."""
        return self._scores

    @property
    def is_graded(self):
        return self._scores is not None

    @property
    def n_pairs(self):
        return int(self._indices.shape[0])

    def __len__(self):
        return self.n_pairs

    def __repr__(self):
        if self.is_graded:
            return f"Pairs(n_pairs={self.n_pairs}, graded)"
        return f"Pairs(n_pairs={self.n_pairs}, n_similar={int(self._labels.sum())})"


def check_pairs(pairs, n_items, require=None):
    """Validate :class:`Pairs` against an ``X`` with ``n_items`` rows and return them.

    ``require`` may be ``"labels"`` or ``"scores"`` for methods that need one kind.

    Examples
    --------
    >>> from learnsim.supervision import Pairs, check_pairs
    >>> check_pairs(Pairs([[0, 1], [2, 3]], labels=[True, False]), n_items=4)
    Pairs(n_pairs=2, n_similar=1)
    >>> check_pairs(Pairs([[0, 1]], scores=[4.5]), n_items=4, require="labels")
    Traceback (most recent call last):
        ...
    ValueError: these pairs are graded (scores) but similar/dissimilar labels are needed; ...
    """
    n_items = _check_n_items(n_items)
    if not isinstance(pairs, Pairs):
        raise TypeError(f"expected Pairs(indices, labels=...) or Pairs(indices, scores=...); "
                        f"got {type(pairs).__name__}")
    if require not in (None, "labels", "scores"):
        raise ValueError(f"require must be None, 'labels' or 'scores'; got {require!r}")
    if require == "labels" and pairs.is_graded:
        raise ValueError("these pairs are graded (scores) but similar/dissimilar labels are needed; "
                         "threshold them, e.g. Pairs(p.indices, labels=p.scores >= t)")
    if require == "scores" and not pairs.is_graded:
        raise ValueError("these pairs have similar/dissimilar labels but graded scores are needed")
    _check_range(pairs.indices, n_items, "pairs")
    return pairs
