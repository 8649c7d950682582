"""Sentence pairs: helpers shared by the pair loaders, and the general pair reader."""
from __future__ import annotations

import numpy as np


def _index_pair_texts(first, second):
    """Unique texts in order of first appearance (reading each pair left to right) and the
    ``(n, 2)`` index of every pair into them; identical strings share one index."""
    index = {}
    for a, b in zip(first, second):
        index.setdefault(a, len(index))
        index.setdefault(b, len(index))
    indices = np.array([(index[a], index[b]) for a, b in zip(first, second)], dtype=np.int64)
    return list(index), indices.reshape(-1, 2)


def _drop_identical_pairs(columns, first_key, second_key):
    """Drop the rows whose two texts are the same string: :class:`Pairs` cannot hold a pair
    of an item with itself. Returns the filtered columns and how many rows went."""
    keep = [a != b for a, b in zip(columns[first_key], columns[second_key])]
    n_dropped = len(keep) - sum(keep)
    if n_dropped:
        columns = {key: [v for v, k in zip(values, keep) if k] for key, values in columns.items()}
    return columns, n_dropped
