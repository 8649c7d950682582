"""Small checks and helpers shared by every form of supervision (not an API)."""
from __future__ import annotations

import numbers
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp

from learnsim._utils.validation import check_indices, check_integral_indices


NO_CLUSTER = -1


def _readonly(arr):
    arr.setflags(write=False)
    return arr


def _name(value):
    """repr of a label without numpy's type wrapper (``'a'``, not ``np.str_('a')``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _preview(values, limit=5):
    values = list(values)
    shown = ", ".join(_name(v) for v in values[:limit])
    return shown + (f", ... ({len(values)} in all)" if len(values) > limit else "")


def _check_n_items(n_items):
    if isinstance(n_items, (bool, np.bool_)) or not isinstance(n_items, numbers.Integral):
        raise TypeError(f"n_items must be an int (the number of rows of X); got {type(n_items).__name__}")
    if n_items < 1:
        raise ValueError(f"n_items must be at least 1; got {n_items}")
    return int(n_items)


def _check_count(value, name, minimum=1):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int; got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}; got {value}")
    return int(value)


def _index_array(idx, width, name, row_name):
    """An owned, read-only ``(m, width)`` int64 copy of ``idx``; range is checked later
    (by the ``check_*`` functions) because only they know how many items there are."""
    if sp.issparse(idx):
        raise TypeError(f"{name} must be a dense (n, {width}) integer array, not a sparse matrix")
    if isinstance(idx, (str, bytes)) or isinstance(idx, Iterator):
        # numpy makes a 0-d array of either: "got shape ()" named neither
        what = type(idx).__name__
        raise TypeError(f"{name} must be an (n, {width}) integer array or a list of {width}-tuples; got a {what}"
                        + (f": make a list of it first, list({name})" if isinstance(idx, Iterator) else ""))
    try:
        arr = np.asarray(idx)
    except (ValueError, TypeError) as exc:  # ragged lists
        raise ValueError(f"{name} could not be read as an (n, {width}) integer array: {exc}") from None
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); need at least one {row_name}")
    if arr.ndim != 2 or arr.shape[1] != width:
        raise ValueError(f"{name} must have shape (n_{row_name}s, {width}), one row per {row_name}; "
                         f"got shape {arr.shape}")
    arr = check_integral_indices(arr, name)
    if arr.min() < 0:
        row = int(np.flatnonzero((arr < 0).any(axis=1))[0])
        raise ValueError(f"{name} contains negative index {int(arr.min())} (row {row}); "
                         "indices count rows of X from 0")
    return _readonly(np.array(arr, dtype=np.int64, copy=True))


def _check_range(indices, n_items, name):
    # check_indices is the project-wide check, so the message matches other modules
    check_indices(indices, n_items, name=name, width=indices.shape[1])


def _sample_unlinked(rng, anchors, forbidden_keys, key_base, candidates, max_rounds=64):
    """For each anchor ``a`` draw an item of ``candidates`` (all ``range(key_base)`` when None)
    that is neither ``a`` nor ``b`` with ``a * key_base + b`` in ``forbidden_keys`` (sorted).

    Rejection sampling on all anchors at once; the few left after ``max_rounds`` (anchors linked
    to nearly every item) are drawn exactly from their complement. Callers make sure every anchor
    has at least one allowed item.
    """
    n_cand = key_base if candidates is None else candidates.size
    out = np.empty(anchors.size, dtype=np.int64)
    todo = np.arange(anchors.size)
    for _ in range(max_rounds):
        if todo.size == 0:
            return out
        draw = rng.integers(0, n_cand, size=todo.size)
        if candidates is not None:
            draw = candidates[draw]
        keys = anchors[todo] * key_base + draw
        pos = np.searchsorted(forbidden_keys, keys)
        pos = np.minimum(pos, max(forbidden_keys.size - 1, 0))
        linked = forbidden_keys[pos] == keys if forbidden_keys.size else np.zeros(todo.size, bool)
        ok = ~linked & (draw != anchors[todo])
        out[todo[ok]] = draw[ok]
        todo = todo[~ok]
    pool = np.arange(key_base) if candidates is None else candidates
    for t in todo:  # rare: only anchors whose allowed items are a tiny share of the pool
        a = anchors[t]
        lo, hi = np.searchsorted(forbidden_keys, [a * key_base, (a + 1) * key_base])
        banned = np.append(forbidden_keys[lo:hi] - a * key_base, a)
        allowed = np.setdiff1d(pool, banned, assume_unique=False)
        out[t] = allowed[rng.integers(0, allowed.size)]
    return out
