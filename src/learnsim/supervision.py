"""The forms of supervision that learnsim's methods learn from.

Every learner takes the data ``X`` and, separately, a supervision object that refers to the
rows of ``X`` by index (as in metric-learn): the rows are never copied into the constraints,
so one matrix can serve clusters, pairs, triplets and links at once.

- :class:`Clusters`: a cluster label per item (``-1`` or ``None``: in no cluster), with optional
  per-cluster weights (the normalised weights ``xi_i / sum xi`` of the cluster-scatter metric).
- :class:`Pairs`: item pairs labelled similar/dissimilar, or graded with a score.
- :class:`Triplets`: ``(i, j, k)`` meaning "item i is closer to j than to k".
- :class:`Links`: a directed graph over the items (hyperlinks).

The ``check_*`` functions are what estimators call on what they receive, and the converters
(:func:`clusters_to_triplets`, :func:`pairs_to_clusters`, :func:`graded_pairs_to_triplets`,
:func:`duplicate_pairs_to_triplets`, :func:`links_to_triplets`) turn one form into another for methods that need a given form.
"""
from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ._validation import check_indices, check_integral_indices, check_random_state

__all__ = [
    "Clusters", "Pairs", "Triplets", "Links",
    "check_clusters", "check_pairs", "check_triplets", "check_links",
    "clusters_to_triplets", "pairs_to_clusters", "graded_pairs_to_triplets", "links_to_triplets",
    "sample_label_triplets",
    "duplicate_pairs_to_triplets", "split_pairs", "split_links",
]

NO_CLUSTER = -1

# Above this many candidate comparisons per batch, graded_pairs_to_triplets works in batches so
# that an item shared by thousands of pairs does not need gigabytes at once.
_MAX_COMPARISONS_PER_BATCH = 4_000_000


# --------------------------------------------------------------------------- helpers
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


# --------------------------------------------------------------------------- Clusters
def _is_missing(value):
    if value is None:
        return True
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, numbers.Real) and value == NO_CLUSTER


def _item_selection(selection, n_items, name):
    """Item indices from a boolean mask over the items or a 1-D array of indices (checked)."""
    sel = np.asarray(selection)
    if sel.dtype.kind == "b":
        if sel.shape != (n_items,):
            raise ValueError(f"{name} as a boolean mask must have one entry per item ({n_items}); "
                             f"got shape {sel.shape}")
        idx = np.flatnonzero(sel)
        if idx.size == 0:
            raise ValueError(f"{name} is an all-False mask; it selects no item")
        return idx
    if sel.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of item indices or a boolean mask; got shape {sel.shape}")
    return check_indices(sel, n_items, name=name)


def _parse_labels(labels):
    """Return (cluster id per item, sorted cluster ids, original label per cluster id, encoded?)."""
    if labels is None:
        raise ValueError("labels is None; expected one cluster label per item")
    if sp.issparse(labels):
        raise TypeError("labels must be a 1-D sequence with one label per item, not a sparse matrix")
    if isinstance(labels, (str, bytes)):
        raise TypeError("labels must be a sequence with one label per item, not a single string")
    if isinstance(labels, (list, tuple)) and any(isinstance(v, tuple) for v in labels):
        # tuples are hashable labels, but numpy would read them as rows of a 2-D array
        arr = np.empty(len(labels), dtype=object)
        for i, v in enumerate(labels):
            arr[i] = v
    else:
        try:
            arr = np.asarray(labels)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"labels could not be read as a 1-D sequence: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"labels must be 1-D, one label per item; got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError("labels is empty; need one label per item")

    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"labels contains {'NaN' if np.isnan(arr[i]) else arr[i]} (item {i}); use -1 or None for items in no cluster")
        if np.all(np.mod(arr, 1) == 0):
            arr = arr.astype(np.int64)
    if arr.dtype.kind in "iu":
        ids = arr.astype(np.int64)
        cluster_ids = np.unique(ids[ids != NO_CLUSTER])
        return ids, cluster_ids, cluster_ids.copy(), False
    if arr.dtype.kind in "US":
        cluster_ids_labels, ids = np.unique(arr, return_inverse=True)
        cluster_ids = np.arange(cluster_ids_labels.size, dtype=np.int64)
        return ids.astype(np.int64).ravel(), cluster_ids, cluster_ids_labels, True

    # object (or other) arrays: anything hashable, None / integer -1 meaning no cluster
    values = arr.tolist() if arr.dtype.kind != "O" else list(arr)
    missing = np.fromiter((_is_missing(v) for v in values), dtype=bool, count=len(values))
    present = [v for v, m in zip(values, missing) if not m]
    for i, v in enumerate(values):
        if isinstance(v, float) and np.isnan(v):
            raise ValueError(f"labels contains NaN (item {i}); use -1 or None for items in no cluster")
    if all(isinstance(v, numbers.Integral) for v in present):
        ids = np.full(len(values), NO_CLUSTER, dtype=np.int64)
        ids[~missing] = np.asarray(present, dtype=np.int64)
        cluster_ids = np.unique(ids[ids != NO_CLUSTER])
        return ids, cluster_ids, cluster_ids.copy(), False
    try:
        distinct = list(dict.fromkeys(present))
    except TypeError:
        i = next(i for i, v in enumerate(values) if not isinstance(v, type(None)) and _unhashable(v))
        raise TypeError(f"labels must be hashable; item {i} is a {type(values[i]).__name__}") from None
    try:
        distinct = sorted(distinct, key=lambda v: (type(v).__name__, v))
    except TypeError:
        pass  # labels that do not sort keep their order of first appearance
    code = {v: c for c, v in enumerate(distinct)}
    ids = np.full(len(values), NO_CLUSTER, dtype=np.int64)
    ids[~missing] = np.fromiter((code[v] for v in present), dtype=np.int64, count=len(present))
    classes = np.empty(len(distinct), dtype=object)
    for c, v in enumerate(distinct):
        classes[c] = v
    return ids, np.arange(len(distinct), dtype=np.int64), classes, True


def _unhashable(value):
    try:
        hash(value)
    except TypeError:
        return True
    return False


class Clusters:
    """A cluster label for each item; items labelled ``-1`` (or ``None``) are in no cluster.

    Parameters
    ----------
    labels : sequence of length n_items
        One label per item. Integer labels are used as cluster ids as they are; any other
        hashable labels (strings, tuples, ...) are encoded to ids ``0..K-1`` in sorted order,
        and ``classes_`` keeps the original labels. The integer ``-1`` and ``None`` mean
        "in no cluster".
    weights : mapping or array-like, optional
        A positive weight per cluster (its confidence, ``xi_i`` in Kobayashi's cluster-weighted
        metric), either as ``{label: weight}`` covering every cluster or as an array aligned
        with ``cluster_ids``. None means all clusters weigh the same.

    Attributes
    ----------
    labels : ndarray of int64, shape (n_items,)
        Cluster id per item (read-only), ``-1`` for items in no cluster.
    cluster_ids : ndarray of int64
        The sorted distinct cluster ids.
    classes_ : ndarray
        The original label of each cluster, aligned with ``cluster_ids``.

    Methods that take a cluster (``members``, ``select_clusters``, weight mappings) accept
    either its original label or its cluster id.
    """

    __slots__ = ("_labels", "_cluster_ids", "_classes", "_encoded", "_weights", "_sizes",
                 "_order", "_starts", "_lookup")

    def __init__(self, labels, weights=None):
        if isinstance(labels, Clusters):
            if weights is None:
                weights = labels.weights
            ids, cluster_ids, classes, encoded = (labels._labels, labels._cluster_ids,
                                                  labels._classes, labels._encoded)
        else:
            ids, cluster_ids, classes, encoded = _parse_labels(labels)
        self._setup(ids, cluster_ids, classes, encoded, None)
        self._weights = self._parse_weights(weights)

    @classmethod
    def _from_parent(cls, ids, parent):
        """Clusters over new items labelled with ``parent``'s cluster ids, keeping the original
        labels and weights of the clusters still present."""
        obj = cls.__new__(cls)
        ids = np.asarray(ids, dtype=np.int64)
        cluster_ids = np.unique(ids[ids != NO_CLUSTER])
        pos = np.searchsorted(parent._cluster_ids, cluster_ids)
        obj._setup(ids, cluster_ids, parent._classes[pos], parent._encoded, None)
        if parent._weights is not None:
            obj._weights = _readonly(parent._weights[pos])
        return obj

    def _setup(self, ids, cluster_ids, classes, encoded, weights):
        self._labels = _readonly(np.array(ids, dtype=np.int64, copy=True))
        self._cluster_ids = _readonly(np.array(cluster_ids, dtype=np.int64, copy=True))
        self._classes = _readonly(np.array(classes, copy=True))
        self._encoded = bool(encoded)
        self._weights = weights
        order = np.argsort(self._labels, kind="stable")
        sorted_ids = self._labels[order]
        self._order = order
        self._starts = np.searchsorted(sorted_ids, self._cluster_ids, side="left")
        self._sizes = _readonly(np.searchsorted(sorted_ids, self._cluster_ids, side="right") - self._starts)
        self._lookup = {}
        for cid, original in zip(self._cluster_ids.tolist(), self._classes.tolist()):
            try:
                self._lookup[original] = cid
            except TypeError:  # pragma: no cover - classes come from hashable labels
                pass

    def _parse_weights(self, weights):
        if weights is None:
            return None
        k = self.n_clusters
        if isinstance(weights, Mapping):
            values = np.full(k, np.nan)
            unknown = []
            for key, w in weights.items():
                try:
                    pos = self._position(key)
                except ValueError:
                    unknown.append(key)
                    continue
                if not isinstance(w, numbers.Real) or isinstance(w, (bool, np.bool_)):
                    raise ValueError(f"weight of cluster {_name(key)} must be a positive number; got {w!r}")
                values[pos] = w
            if unknown:
                raise ValueError(f"weights given for unknown cluster(s) {_preview(unknown)}; "
                                 f"known clusters: {_preview(self._classes)}")
            missing = np.flatnonzero(np.isnan(values))
            if missing.size:
                raise ValueError(f"weights has no entry for cluster(s) {_preview(self._classes[missing])}; "
                                 "give a weight for every cluster or none at all")
        else:
            try:
                values = np.asarray(weights, dtype=float)
            except (ValueError, TypeError):
                raise ValueError("weights must be a mapping {cluster: weight} or an array of numbers "
                                 "aligned with cluster_ids") from None
            if values.ndim != 1 or values.size != k:
                raise ValueError(f"weights must have one entry per cluster ({k}, aligned with cluster_ids); "
                                 f"got shape {values.shape}")
        bad = ~np.isfinite(values) | (values <= 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"weights must be positive and finite; cluster {_name(self._classes[i])} "
                             f"has weight {values[i]}")
        return _readonly(np.array(values, dtype=float))

    # ---- lookups
    def _position(self, label):
        """Position in ``cluster_ids`` of a cluster given by original label or by id."""
        cid = None
        try:
            cid = self._lookup.get(label)
        except TypeError:
            cid = None
        if cid is None and isinstance(label, numbers.Integral) and not isinstance(label, (bool, np.bool_)):
            cid = int(label)
        if cid is not None:
            pos = int(np.searchsorted(self._cluster_ids, cid))
            if pos < self._cluster_ids.size and self._cluster_ids[pos] == cid:
                return pos
        raise ValueError(f"unknown cluster {_name(label)}; known clusters: {_preview(self._classes)}")

    # ---- properties
    @property
    def labels(self):
        return self._labels

    @property
    def n_items(self):
        return int(self._labels.size)

    @property
    def cluster_ids(self):
        return self._cluster_ids

    @property
    def classes_(self):
        return self._classes

    @property
    def n_clusters(self):
        return int(self._cluster_ids.size)

    @property
    def sizes(self):
        """Number of items in each cluster, aligned with ``cluster_ids``."""
        return self._sizes

    @property
    def weights(self):
        """The per-cluster weights as given (aligned with ``cluster_ids``), or None."""
        return self._weights

    @property
    def clustered_items(self):
        """Indices of the items that belong to some cluster."""
        return np.flatnonzero(self._labels != NO_CLUSTER)

    @property
    def n_unclustered(self):
        return int(np.count_nonzero(self._labels == NO_CLUSTER))

    # ---- methods
    def members(self, label):
        """Indices (ascending) of the items of one cluster, given by label or cluster id."""
        pos = self._position(label)
        start = self._starts[pos]
        return np.sort(self._order[start:start + self._sizes[pos]])

    def iter_clusters(self):
        """Yield ``(cluster_id, indices)`` for every cluster, in ``cluster_ids`` order."""
        for pos, cid in enumerate(self._cluster_ids.tolist()):
            start = self._starts[pos]
            yield cid, np.sort(self._order[start:start + self._sizes[pos]])

    def normalized_weights(self):
        """Cluster weights scaled to sum to one (``xi_i / sum_j xi_j``); uniform when none were given."""
        if self.n_clusters == 0:
            return np.zeros(0)
        if self._weights is None:
            return np.full(self.n_clusters, 1.0 / self.n_clusters)
        return self._weights / self._weights.sum()

    def subset(self, indices):
        """The clustering restricted to some items, renumbered ``0..len(indices)-1``.

        Use it with ``X[indices]`` for train/validation splits. Cluster ids, original labels
        and weights are kept, so a cluster has the same id on both sides of a split; clusters
        with no item left disappear. ``indices`` may also be a boolean mask over the items.
        """
        idx = _item_selection(indices, self.n_items, "indices")
        return Clusters._from_parent(self._labels[idx], self)

    def select_clusters(self, cluster_ids):
        """Keep only some clusters: the items of the others become unclustered (-1).

        The items stay as they are (aligned with the same ``X``); take
        ``c.clustered_items`` and :meth:`subset` to drop the unclustered rows as well.
        """
        if isinstance(cluster_ids, (str, bytes)) or not np.iterable(cluster_ids):
            cluster_ids = [cluster_ids]
        wanted = list(cluster_ids)
        if not wanted:
            raise ValueError("select_clusters needs at least one cluster")
        unknown = []
        positions = []
        for label in wanted:
            try:
                positions.append(self._position(label.item() if isinstance(label, np.generic) else label))
            except ValueError:
                unknown.append(label)
        if unknown:
            raise ValueError(f"unknown cluster(s) {_preview(unknown)}; known clusters: {_preview(self._classes)}")
        keep = self._cluster_ids[np.unique(positions)]
        ids = np.where(np.isin(self._labels, keep), self._labels, NO_CLUSTER)
        return Clusters._from_parent(ids, self)

    @classmethod
    def from_groups(cls, groups, n_items, weights=None):
        """Build from a list of groups of item indices; group ``g`` becomes cluster id ``g``.

        Items in no group are unclustered. Groups must be non-empty and disjoint.
        """
        n_items = _check_n_items(n_items)
        groups = list(groups)
        if not groups:
            raise ValueError("groups is empty; need at least one group of item indices")
        ids = np.full(n_items, NO_CLUSTER, dtype=np.int64)
        for g, members in enumerate(groups):
            members = np.asarray(members)
            if members.size == 0:
                raise ValueError(f"group {g} is empty")
            if members.ndim != 1:
                raise ValueError(f"group {g} must be a 1-D list of item indices; got shape {members.shape}")
            members = check_indices(members, n_items, name=f"group {g}")
            taken = ids[members] != NO_CLUSTER
            if taken.any():
                item = int(members[taken][0])
                raise ValueError(f"item {item} is in group {int(ids[item])} and group {g}; "
                                 "groups must be disjoint (an item belongs to one cluster)")
            ids[members] = g
        return cls(ids, weights=weights)

    def __repr__(self):
        return (f"Clusters(n_items={self.n_items}, n_clusters={self.n_clusters}, "
                f"n_unclustered={self.n_unclustered}" + (", weighted" if self._weights is not None else "") + ")")


def check_clusters(clusters_or_labels, n_items, min_cluster_size=1, min_clusters=1):
    """Validate clustering supervision for an ``X`` with ``n_items`` rows; return :class:`Clusters`.

    Raises a ``ValueError`` naming the problem when the number of labels differs from the
    number of rows, when fewer than ``min_clusters`` clusters are present or when a cluster has
    fewer than ``min_cluster_size`` items.
    """
    n_items = _check_n_items(n_items)
    min_cluster_size = _check_count(min_cluster_size, "min_cluster_size")
    min_clusters = _check_count(min_clusters, "min_clusters")
    clusters = clusters_or_labels if isinstance(clusters_or_labels, Clusters) else Clusters(clusters_or_labels)
    if clusters.n_items != n_items:
        raise ValueError(f"labels has {clusters.n_items} entries but X has {n_items} rows")
    if clusters.n_clusters == 0:
        raise ValueError("no item belongs to a cluster (every label is -1 or None)")
    if clusters.n_clusters < min_clusters:
        raise ValueError(f"found {clusters.n_clusters} cluster(s); at least {min_clusters} required")
    small = np.flatnonzero(clusters.sizes < min_cluster_size)
    if small.size:
        named = ", ".join(f"{_name(clusters.classes_[p])} ({clusters.sizes[p]} item{'s' if clusters.sizes[p] != 1 else ''})"
                          for p in small[:5])
        more = f" and {small.size - 5} more" if small.size > 5 else ""
        raise ValueError(f"cluster {named}{more} has fewer than min_cluster_size={min_cluster_size} items; "
                         "drop small clusters with Clusters.select_clusters or label their items -1")
    return clusters


# --------------------------------------------------------------------------- Pairs
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


# --------------------------------------------------------------------------- Triplets
class Triplets:
    """Relative comparisons ``(i, j, k)``: item ``i`` is closer to ``j`` than to ``k``.

    Only row indices into ``X`` are stored, never rows. A triplet with a repeated index is
    refused.

    Parameters
    ----------
    indices : array-like of int, shape (n_triplets, 3)
    """

    __slots__ = ("_indices",)

    def __init__(self, indices):
        if isinstance(indices, Triplets):
            self._indices = indices._indices
            return
        ind = _index_array(indices, 3, "triplets", "triplet")
        i, j, k = ind.T
        repeated = (i == j) | (i == k) | (j == k)
        if repeated.any():
            row = int(np.flatnonzero(repeated)[0])
            raise ValueError(f"triplets has {int(repeated.sum())} row(s) with a repeated index "
                             f"(e.g. row {row}: {tuple(int(v) for v in ind[row])}); each triplet (i, j, k) "
                             "needs three distinct items: i closer to j than to k")
        self._indices = ind

    @property
    def indices(self):
        return self._indices

    @property
    def anchors(self):
        return self._indices[:, 0]

    @property
    def positives(self):
        return self._indices[:, 1]

    @property
    def negatives(self):
        return self._indices[:, 2]

    @property
    def n_triplets(self):
        return int(self._indices.shape[0])

    def __len__(self):
        return self.n_triplets

    def __array__(self, dtype=None, copy=None):
        if copy:
            return np.array(self._indices, dtype=dtype, copy=True)
        return self._indices if dtype is None else self._indices.astype(dtype)

    def __repr__(self):
        return f"Triplets(n_triplets={self.n_triplets})"


def check_triplets(triplets, n_items):
    """Validate triplets (a :class:`Triplets` or an ``(m, 3)`` int array) for ``n_items`` rows."""
    n_items = _check_n_items(n_items)
    triplets = triplets if isinstance(triplets, Triplets) else Triplets(triplets)
    _check_range(triplets.indices, n_items, "triplets")
    return triplets


# --------------------------------------------------------------------------- Links
def _lock_csr(A):
    for arr in (A.data, A.indices, A.indptr):
        arr.setflags(write=False)
    return A


class Links:
    """A directed graph over the items, e.g. hyperlinks between documents.

    Parameters
    ----------
    adjacency : scipy.sparse matrix or 2-D array, shape (n_items, n_items)
        Entry ``(i, j)`` nonzero means item ``i`` links to item ``j``; values are ignored.
        Self-links are dropped with a warning.
    """

    __slots__ = ("_adj", "_adj_in")

    def __init__(self, adjacency):
        if isinstance(adjacency, Links):
            self._adj, self._adj_in = adjacency._adj, adjacency._adj_in
            return
        if adjacency is None:
            raise ValueError("adjacency is None; expected a square sparse matrix")
        if not sp.issparse(adjacency):
            arr = np.asarray(adjacency)
            if arr.dtype.kind not in "biuf":
                raise ValueError(f"adjacency must be numeric; got dtype {arr.dtype}")
            if arr.ndim != 2:
                raise ValueError(f"adjacency must be a square (n_items, n_items) matrix; got shape {arr.shape}")
            adjacency = sp.csr_matrix(arr)
        shape = adjacency.shape
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"adjacency must be square (n_items, n_items); got shape {shape}")
        if shape[0] == 0:
            raise ValueError("adjacency is empty (0 items)")
        A = sp.csr_matrix(adjacency, copy=True)
        if A.dtype.kind not in "biuf":
            raise ValueError(f"adjacency must be numeric; got dtype {A.dtype}")
        if A.dtype.kind == "f" and not np.isfinite(A.data).all():
            raise ValueError("adjacency contains NaN or infinite values")
        A.sum_duplicates()
        A.eliminate_zeros()
        A.data = np.ones(A.nnz, dtype=np.int8)
        self._adj, self._adj_in = self._finish(A)

    @staticmethod
    def _finish(A):
        diag = A.diagonal()
        n_self = int(np.count_nonzero(diag))
        if n_self:
            warnings.warn(f"dropped {n_self} self-link(s): an item linking to itself says nothing "
                          "about similarity", UserWarning, stacklevel=3)
            A = A.tolil()
            A.setdiag(0)
            A = A.tocsr()
            A.eliminate_zeros()
        if A.nnz == 0:
            raise ValueError("adjacency has no links between distinct items")
        A.sort_indices()
        A_in = A.tocsc()
        A_in.sort_indices()
        return _lock_csr(A), _lock_csr(A_in)

    @classmethod
    def from_edges(cls, edges, n_items):
        """Build from an ``(m, 2)`` array of ``(source, target)`` edges; duplicates count once."""
        n_items = _check_n_items(n_items)
        ind = _index_array(edges, 2, "edges", "edge")
        _check_range(ind, n_items, "edges")
        A = sp.csr_matrix((np.ones(len(ind), dtype=np.int8), (ind[:, 0], ind[:, 1])), shape=(n_items, n_items))
        A.sum_duplicates()
        A.data[:] = 1
        obj = cls.__new__(cls)
        obj._adj, obj._adj_in = cls._finish(A)
        return obj

    @property
    def adjacency(self):
        """Read-only CSR matrix of 0/1 (int8): row ``i`` holds the out-links of ``i``."""
        return self._adj

    @property
    def n_items(self):
        return int(self._adj.shape[0])

    @property
    def n_links(self):
        return int(self._adj.nnz)

    @property
    def out_degrees(self):
        return np.diff(self._adj.indptr)

    @property
    def in_degrees(self):
        return np.diff(self._adj_in.indptr)

    @property
    def edges(self):
        """``(n_links, 2)`` array of ``(source, target)``, sorted by source then target."""
        rows = np.repeat(np.arange(self.n_items), self.out_degrees)
        return np.column_stack([rows, self._adj.indices]).astype(np.int64)

    def _check_item(self, i):
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral):
            raise TypeError(f"item must be an int index; got {type(i).__name__}")
        if not 0 <= i < self.n_items:
            raise IndexError(f"item {i} out of range for {self.n_items} items")
        return int(i)

    def out_links(self, i):
        """Items that ``i`` links to (ascending)."""
        i = self._check_item(i)
        return np.array(self._adj.indices[self._adj.indptr[i]:self._adj.indptr[i + 1]], dtype=np.int64)

    def in_links(self, i):
        """Items that link to ``i`` (ascending)."""
        i = self._check_item(i)
        return np.array(self._adj_in.indices[self._adj_in.indptr[i]:self._adj_in.indptr[i + 1]], dtype=np.int64)

    def symmetric(self):
        """The undirected version: ``i`` and ``j`` are linked when either links to the other."""
        A = self._adj.maximum(self._adj.T).tocsr()
        obj = Links.__new__(Links)
        obj._adj, obj._adj_in = Links._finish(A)
        return obj

    def __repr__(self):
        return f"Links(n_items={self.n_items}, n_links={self.n_links})"


def check_links(links, n_items):
    """Validate links (a :class:`Links` or a square adjacency matrix) for ``n_items`` rows."""
    n_items = _check_n_items(n_items)
    links = links if isinstance(links, Links) else Links(links)
    if links.n_items != n_items:
        raise ValueError(f"links covers {links.n_items} items but X has {n_items} rows")
    return links


# --------------------------------------------------------------------------- converters
def clusters_to_triplets(clusters, n_triplets, random_state=None, negatives="other_clusters"):
    """Sample triplets ``(i, j, k)`` from clusters: ``i`` and ``j`` share a cluster, ``k`` does not.

    Every cluster with at least two members provides at least one anchor (when
    ``n_triplets`` allows; otherwise ``n_triplets`` distinct clusters are drawn), and the
    remaining anchors are spread over clusters in proportion to their sizes, i.e. uniformly
    over the anchor items. The positive ``j != i`` is uniform in the anchor's cluster; the
    negative ``k`` is uniform over the items of the other clusters (``negatives="other_clusters"``)
    or over every item outside the anchor's cluster, unclustered ones included
    (``negatives="any"``). The triplets come out in random order.

    Parameters
    ----------
    clusters : Clusters or sequence of labels
    n_triplets : int
    random_state : None, int or numpy Generator
    negatives : {"other_clusters", "any"}

    Returns
    -------
    Triplets
    """
    if negatives not in ("other_clusters", "any"):
        raise ValueError(f"negatives must be 'other_clusters' or 'any'; got {negatives!r}")
    n_triplets = _check_count(n_triplets, "n_triplets")
    clusters = clusters if isinstance(clusters, Clusters) else Clusters(clusters)
    rng = check_random_state(random_state)
    labels = clusters.labels
    eligible = np.flatnonzero(clusters.sizes >= 2)  # positions in cluster_ids
    if eligible.size == 0:
        raise ValueError("no cluster has two or more members, so no (anchor, positive) pair exists")

    pool = np.argsort(labels, kind="stable")
    if negatives == "other_clusters":
        pool = pool[labels[pool] != NO_CLUSTER]
    pool_labels = labels[pool]
    cids = clusters.cluster_ids[eligible]
    sizes = clusters.sizes[eligible]
    seg_start = np.searchsorted(pool_labels, cids, side="left")
    n_negative = pool.size - sizes
    if (n_negative == 0).any():
        c = clusters.classes_[eligible[np.flatnonzero(n_negative == 0)[0]]]
        raise ValueError(f"no possible negative for cluster {_name(c)}: every "
                         + ("clustered item" if negatives == "other_clusters" else "item")
                         + " is in it. Need a second cluster"
                         + (" (or negatives='any' with unclustered items)" if negatives == "other_clusters" else ""))

    if n_triplets >= eligible.size:
        counts = np.ones(eligible.size, dtype=np.int64)
        counts += rng.multinomial(n_triplets - eligible.size, sizes / sizes.sum())
    else:
        counts = np.zeros(eligible.size, dtype=np.int64)
        counts[rng.choice(eligible.size, size=n_triplets, replace=False)] = 1
    which = np.repeat(np.arange(eligible.size), counts)  # cluster (as position in `eligible`) per triplet

    member_start = clusters._starts[eligible][which]
    size = sizes[which]
    a = rng.integers(0, size)
    p = rng.integers(0, size - 1)
    p += p >= a  # skip the anchor itself
    anchors = clusters._order[member_start + a]
    positives = clusters._order[member_start + p]
    r = rng.integers(0, n_negative[which])
    r += np.where(r >= seg_start[which], size, 0)  # skip the anchor's own cluster segment
    neg = pool[r]
    out = np.column_stack([anchors, positives, neg])[rng.permutation(n_triplets)]
    return Triplets(out)


# Rejection-sampling batches: at least this many draws each, at most this many (memory bound).
_MIN_DRAWS_PER_BATCH = 4_096
_MAX_DRAWS_PER_BATCH = 1 << 20
# A candidate pool of at most this many items is small enough (128 * 127 * 126 ~ 2e6 ordered
# triples) to list every triple the rule accepts when rejection sampling falls short.
_MAX_POOL_TO_ENUMERATE = 128


def _same_label_other_negative(a, b, c):
    return (a == b) & (b != c)


def _distinct_triples(rng, n, size):
    """``size`` ordered triples of distinct positions in ``range(n)``, each uniform."""
    a = rng.integers(0, n, size=size)
    b = rng.integers(0, n - 1, size=size)
    b += b >= a
    c = rng.integers(0, n - 2, size=size)
    low, high = np.minimum(a, b), np.maximum(a, b)
    c += c >= low
    c += c >= high  # after skipping `low`, c >= high means it is at or past `high`
    return a, b, c


def _apply_rule(rule, values, a, b, c):
    mask = rule(values[a], values[b], values[c])
    try:
        mask = np.asarray(mask)
    except (ValueError, TypeError) as exc:
        raise TypeError(f"rule must return a boolean array; could not read its result: {exc}") from None
    if mask.shape != a.shape or mask.dtype.kind != "b":
        raise TypeError(f"rule must return a boolean array with one entry per triple (shape {a.shape}); "
                        f"got {type(mask).__name__} of shape {mask.shape} and dtype {mask.dtype}")
    return mask


def _row_keys(rows):
    """One hashable, comparable value per row of an ``(m, 3)`` int64 array (its bytes), so that
    ``np.unique`` and ``np.isin`` see whole triples; unlike an integer key ``(i*n + j)*n + k`` it
    cannot overflow however many items there are."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return rows.view(np.dtype((np.void, rows.itemsize * 3))).ravel()


def _all_accepted_triples(rule, values, n):
    """Every ordered triple of distinct positions in ``range(n)`` that ``rule`` accepts, as rows."""
    a, b, c = (g.ravel() for g in np.indices((n, n, n), dtype=np.int64))
    distinct = (a != b) & (a != c) & (b != c)
    a, b, c = a[distinct], b[distinct], c[distinct]
    ok = _apply_rule(rule, values, a, b, c)
    return np.column_stack([a[ok], b[ok], c[ok]])


def sample_label_triplets(labels, n_triplets, *, rule=None, candidates=None, random_state=None,
                          max_draws=None):
    """Triplets ``(i, j, k)`` drawn as in Schultz & Joachims (2003, sec. 5): three distinct items
    uniformly at random, kept if ``rule`` holds for their labels.

    The default rule keeps ``(i, j, k)`` when ``label[i] == label[j] != label[k]``. Draws are made
    in vectorised batches (rejection sampling) until ``n_triplets`` distinct triplets are kept;
    a triplet drawn again is dropped, so each ``(i, j, k)`` appears once, and the result is a
    uniform random sample, without replacement and in random order, of the triples the rule
    accepts.

    Parameters
    ----------
    labels : sequence of length n_items
        One label per item: ints, strings or any hashable values. ``-1`` and ``None`` mean "no
        label" (as in :class:`Clusters`); such items are never drawn.
    n_triplets : int >= 1
        Number of triplets to return.
    rule : callable, optional
        ``rule(label_i, label_j, label_k) -> bool array``: receives three arrays of the original
        labels (strings stay strings) of equal length and returns a boolean mask of that length,
        True where the triple is a valid comparison "i is closer to j than to k". Example (the
        Topic+FacultyStudent distance)::

            def rule(a, b, c):
                same_topic = (a == b) & (b != c)
                faculty_student = (a == "faculty") & (b == "student") & ((c == "course") | (c == "project"))
                return same_topic | faculty_student

        Default: ``(a == b) & (b != c)``.
    candidates : array-like of int, or boolean mask of length n_items, optional
        The items to draw from (e.g. the training documents); items among them without a label
        are left out. Default: every labelled item.
    random_state : None, int or numpy Generator
    max_draws : int, optional
        Give up after this many drawn triples. Default: ``max(1_000_000, 1000 * n_triplets)``.

    Returns
    -------
    Triplets
        Indices into ``labels`` (the rows of X), not positions in ``candidates``.

    Raises
    ------
    ValueError
        If ``n_triplets < 1``; if fewer than three labelled candidates or fewer than two
        distinct labels among them; for the default rule, if no label has two candidates; if
        ``candidates`` repeats an item; if no drawn triple satisfies ``rule`` in ``max_draws``
        draws, or only some did and the pool is too large to list every accepted triple; if
        ``candidates`` holds an index outside ``range(n_items)``.
    TypeError
        If ``rule`` is not callable or does not return a boolean array of the right shape.

    Warns
    -----
    UserWarning
        When the rule accepts fewer distinct triples of the candidates than ``n_triplets``
        (checked exactly for pools of at most 128 candidates): then every accepted triple is
        returned ``n_triplets // n_accepted`` or one more times, so the count asked for is met
        and no triple is repeated more than another by more than one.
    """
    n_triplets = _check_count(n_triplets, "n_triplets")
    if rule is not None and not callable(rule):
        raise TypeError(f"rule must be a function (label_i, label_j, label_k) -> bool array; "
                        f"got {type(rule).__name__}")
    max_draws = max(1_000_000, 1000 * n_triplets) if max_draws is None else _check_count(max_draws, "max_draws")
    ids, _cluster_ids, classes, _encoded = _parse_labels(labels)
    n_items = ids.size

    if candidates is None:
        pool = np.arange(n_items, dtype=np.int64)
    else:
        pool = _item_selection(candidates, n_items, "candidates")
        uniq, counts = np.unique(pool, return_counts=True)
        if (counts > 1).any():
            raise ValueError(f"candidates repeats item {int(uniq[counts > 1][0])}; each item may be "
                             "listed once (repeats would make it more likely to be drawn)")
    pool = pool[ids[pool] != NO_CLUSTER]
    n_pool = pool.size
    pool_ids = ids[pool]
    present, present_counts = np.unique(pool_ids, return_counts=True)
    where = "labelled items" if candidates is None else "labelled candidates"
    if n_pool < 3:
        raise ValueError(f"need at least three {where} to draw a triplet; got {n_pool}")
    if present.size < 2:
        only = _name(classes[np.searchsorted(_cluster_ids, present[0])])
        raise ValueError(f"need at least two distinct labels among the {where}; all {n_pool} have label {only}")
    if rule is None:
        if present_counts.max() < 2:
            raise ValueError(f"no label has two {where}, so no (i, j) with label[i] == label[j] exists")
        rule_values, apply = pool_ids, _same_label_other_negative
    else:
        rule_values, apply = classes[np.searchsorted(_cluster_ids, pool_ids)], rule
    rng = check_random_state(random_state)

    # The kept triples (positions in `pool`), in the order they were first drawn.
    kept = np.zeros((0, 3), dtype=np.int64)
    n_drawn = n_accepted = 0
    while len(kept) < n_triplets and n_drawn < max_draws:
        needed = n_triplets - len(kept)
        rate = (n_accepted + 1) / (n_drawn + 1)
        size = int(min(max(needed / rate * 1.2, _MIN_DRAWS_PER_BATCH), _MAX_DRAWS_PER_BATCH, max_draws - n_drawn))
        a, b, c = _distinct_triples(rng, n_pool, size)
        ok = _apply_rule(apply, rule_values, a, b, c)
        n_drawn += size
        n_accepted += int(ok.sum())
        if not ok.any():
            continue
        rows = np.concatenate([kept, np.column_stack([a[ok], b[ok], c[ok]])])
        _, first = np.unique(_row_keys(rows), return_index=True)
        kept = rows[np.sort(first)][:n_triplets]

    if len(kept) < n_triplets:
        if n_pool > _MAX_POOL_TO_ENUMERATE:
            if len(kept) == 0:
                raise ValueError(f"rule accepted none of {n_drawn:,} random triples of the {n_pool} {where}; "
                                 "check the rule and the labels (or raise max_draws)")
            raise ValueError(f"only {len(kept):,} distinct triplets (of {n_triplets:,} asked) after {n_drawn:,} "
                             f"draws: the rule accepted {n_accepted / n_drawn:.2%} of them; raise max_draws "
                             "or ask for fewer triplets")
        accepted = _all_accepted_triples(apply, rule_values, n_pool)
        if len(accepted) == 0:
            raise ValueError(f"rule accepts no triple of the {n_pool} {where}; check the rule and the labels")
        # Rejection sampling fell short of a pool small enough to list: top up, without
        # replacement, from the accepted triples not yet kept.
        rest = accepted[~np.isin(_row_keys(accepted), _row_keys(kept))]
        kept = np.concatenate([kept, rest[rng.permutation(len(rest))[:n_triplets - len(kept)]]])
        if len(kept) < n_triplets:
            n_distinct = len(kept)
            warnings.warn(f"the rule accepts only {n_distinct:,} distinct triples of the {n_pool} {where}, "
                          f"fewer than the {n_triplets:,} asked for; each is repeated "
                          f"{n_triplets // n_distinct} or {n_triplets // n_distinct + 1} times", UserWarning,
                          stacklevel=2)
            extra = rng.choice(n_distinct, size=n_triplets % n_distinct, replace=False)
            kept = np.concatenate([np.tile(kept, (n_triplets // n_distinct, 1)), kept[extra]])
            kept = kept[rng.permutation(n_triplets)]

    return Triplets(pool[kept])


def pairs_to_clusters(pairs, n_items):
    """Clusters from similar pairs: the connected components of the "similar" graph.

    Items in no similar pair are unclustered (-1), not singleton clusters. Dissimilar pairs
    are not used; a warning says how many of them fall inside one component (a contradiction
    the transitive closure creates).
    """
    n_items = _check_n_items(n_items)
    pairs = check_pairs(pairs, n_items, require="labels")
    similar = pairs.indices[pairs.labels]
    if similar.size == 0:
        raise ValueError("pairs has no similar pair, so no cluster can be formed")
    graph = sp.coo_matrix((np.ones(len(similar), dtype=np.int8), (similar[:, 0], similar[:, 1])),
                          shape=(n_items, n_items)).tocsr()
    _, component = connected_components(graph, directed=False)
    in_pair = np.zeros(n_items, dtype=bool)
    in_pair[similar.ravel()] = True
    labels = np.full(n_items, NO_CLUSTER, dtype=np.int64)
    _, labels[in_pair] = np.unique(component[in_pair], return_inverse=True)
    dissimilar = pairs.indices[~pairs.labels]
    if dissimilar.size:
        conflict = int(np.count_nonzero(component[dissimilar[:, 0]] == component[dissimilar[:, 1]]))
        if conflict:
            warnings.warn(f"{conflict} dissimilar pair(s) join items that chains of similar pairs put in "
                          "the same cluster", UserWarning, stacklevel=2)
    return Clusters(labels)


def graded_pairs_to_triplets(pairs, random_state=None, margin=0.0, n_random_negatives=0, high_score=None,
                             n_items=None):
    """Triplets from graded pairs: compare pairs that share an item.

    Pairs are unordered. Where two pairs share an item ``a``, ``(a, b)`` scoring more than
    ``margin`` above ``(a, c)`` gives the triplet ``(a, b, c)``. Labelled pairs count as
    scores 1 (similar) and 0 (dissimilar).

    Data such as STS, where each sentence appears in a single pair, yield no such
    comparison; for them, set ``high_score`` and ``n_random_negatives``: every pair ``(a, b)``
    scoring at least ``high_score`` then also gives ``n_random_negatives`` triplets
    ``(a, b, r)`` and as many ``(b, a, r)``, where ``r`` is a random item that is not the anchor
    and is not paired with the anchor in any pair (whatever that pair's score). Random items are drawn from ``range(n_items)`` when ``n_items`` is given,
    otherwise from the items that appear in the pairs. Anchors paired with every candidate
    get no random negative (with a warning).

    Parameters
    ----------
    pairs : Pairs
    random_state : None, int or numpy Generator
        Seeds the random negatives.
    margin : float, default 0
        Minimum score difference for a comparison to count.
    n_random_negatives : int, default 0
    high_score : float, optional
        Required when ``n_random_negatives > 0``.
    n_items : int, optional
        Number of rows of X (range of random negatives, and checked against the pairs).

    Returns
    -------
    Triplets
        Comparison triplets first (grouped by anchor), then random-negative triplets.
    """
    if not isinstance(pairs, Pairs):
        raise TypeError(f"expected Pairs; got {type(pairs).__name__}")
    if isinstance(margin, (bool, np.bool_)) or not isinstance(margin, numbers.Real) \
            or not np.isfinite(margin) or margin < 0:
        raise ValueError(f"margin must be a finite number >= 0; got {margin!r}")
    n_random_negatives = _check_count(n_random_negatives, "n_random_negatives", minimum=0)
    if n_random_negatives and high_score is None:
        raise ValueError("n_random_negatives > 0 needs high_score: random negatives are only added "
                         "for pairs scoring at least high_score")
    if high_score is not None and (not isinstance(high_score, numbers.Real) or not np.isfinite(high_score)):
        raise ValueError(f"high_score must be a finite number; got {high_score!r}")
    if n_items is not None:
        n_items = _check_n_items(n_items)
        check_pairs(pairs, n_items)
    rng = check_random_state(random_state)
    scores = pairs.scores if pairs.is_graded else pairs.labels.astype(float)
    u, v = pairs.indices[:, 0], pairs.indices[:, 1]

    # every pair seen from both ends: (anchor, other, score), sorted by anchor
    anchor = np.concatenate([u, v])
    other = np.concatenate([v, u])
    score = np.concatenate([scores, scores])
    order = np.argsort(anchor, kind="stable")
    anchor, other, score = anchor[order], other[order], score[order]
    _, group_start, group_size = np.unique(anchor, return_index=True, return_counts=True)
    entry_group = np.repeat(np.arange(group_size.size), group_size)
    entry_start = group_start[entry_group]
    entry_size = group_size[entry_group]
    shared = np.flatnonzero(entry_size >= 2)  # only anchors in two or more pairs can compare

    parts = []
    cum = np.cumsum(entry_size[shared])
    lo = 0
    while lo < shared.size:
        base = cum[lo - 1] if lo else 0
        hi = max(int(np.searchsorted(cum, base + _MAX_COMPARISONS_PER_BATCH, side="right")), lo + 1)
        entries = shared[lo:hi]
        reps = entry_size[entries]
        e = np.repeat(entries, reps)
        local = np.arange(e.size) - np.repeat(np.cumsum(reps) - reps, reps)
        f = entry_start[e] + local
        keep = (score[e] > score[f] + margin) & (other[e] != other[f])
        parts.append(np.column_stack([anchor[e[keep]], other[e[keep]], other[f[keep]]]))
        lo = hi

    if n_random_negatives:
        parts.append(_random_negative_triplets(rng, u, v, scores, high_score, n_random_negatives, n_items))
    out = np.concatenate(parts) if parts else np.zeros((0, 3), dtype=np.int64)
    if out.shape[0] == 0:
        raise ValueError(
            "no triplet could be formed: no item is in two pairs whose scores differ by more than "
            f"margin={margin}" + ("" if n_random_negatives else
                                  "; when each item appears in a single pair (e.g. STS), set high_score "
                                  "and n_random_negatives to add random negatives")
            + (f", and no pair scores at least high_score={high_score}" if n_random_negatives else ""))
    return Triplets(out)


def _random_negative_triplets(rng, u, v, scores, high_score, n_random_negatives, n_items):
    high = scores >= high_score
    if not high.any():
        return np.zeros((0, 3), dtype=np.int64)
    if n_items is None:
        candidates = np.unique(np.concatenate([u, v]))
        key_base = int(candidates[-1]) + 1
    else:
        candidates, key_base = None, n_items
    n_candidates = key_base if candidates is None else candidates.size
    # anything paired with the anchor, whatever the score, is not a safe negative
    forbidden = np.unique(np.concatenate([u * key_base + v, v * key_base + u]))
    partners = np.bincount(forbidden // key_base, minlength=key_base)
    anchors = np.concatenate([u[high], v[high]])
    positives = np.concatenate([v[high], u[high]])
    possible = n_candidates - 1 - partners[anchors] > 0
    if not possible.all():
        warnings.warn(f"{int((~possible).sum())} high-scoring pair end(s) are paired with every candidate "
                      "item and get no random negative", UserWarning, stacklevel=3)
        anchors, positives = anchors[possible], positives[possible]
    anchors = np.repeat(anchors, n_random_negatives)
    positives = np.repeat(positives, n_random_negatives)
    negs = _sample_unlinked(rng, anchors, forbidden, key_base, candidates)
    return np.column_stack([anchors, positives, negs])


def links_to_triplets(links, n_triplets, random_state=None, symmetric=True):
    """Sample triplets ``(i, j, k)`` from a link graph: ``j`` is linked to ``i``, ``k`` is not.

    The anchor ``i`` is uniform over the items that have a link (an out-link, or any link when
    ``symmetric``) and at least one unlinked item; the positive ``j`` is uniform over the
    out-links of ``i`` (in- and out-links when ``symmetric``); the negative ``k != i`` is
    uniform over the items linked to ``i`` in neither direction.

    Parameters
    ----------
    links : Links or square adjacency matrix
    n_triplets : int
    random_state : None, int or numpy Generator
    symmetric : bool, default True

    Returns
    -------
    Triplets
    """
    n_triplets = _check_count(n_triplets, "n_triplets")
    links = links if isinstance(links, Links) else Links(links)
    rng = check_random_state(random_state)
    n = links.n_items
    undirected = links.symmetric().adjacency
    positive_graph = undirected if symmetric else links.adjacency
    pos_degree = np.diff(positive_graph.indptr)
    any_degree = np.diff(undirected.indptr)
    eligible = np.flatnonzero((pos_degree > 0) & (any_degree < n - 1))
    if eligible.size == 0:
        raise ValueError("no item has both a link (the positive) and an item it is not linked to "
                         "(the negative); the graph is complete or has no usable links")
    anchors = eligible[rng.integers(0, eligible.size, size=n_triplets)]
    positives = positive_graph.indices[positive_graph.indptr[anchors] + rng.integers(0, pos_degree[anchors])]
    rows = np.repeat(np.arange(n, dtype=np.int64), any_degree)
    forbidden = rows * n + undirected.indices  # sorted: CSR rows in order, indices sorted
    negs = _sample_unlinked(rng, anchors.astype(np.int64), forbidden, n, None)
    return Triplets(np.column_stack([anchors, positives, negs]))


def duplicate_pairs_to_triplets(pairs, n_items=None, n_random_negatives=1, use_labelled_negatives=True,
                                random_state=None, neighbors=None, n_hard_negatives=1):
    """Triplets from duplicate / non-duplicate pairs (e.g. Quora question pairs).

    Every duplicate pair ``(a, b)`` (label True) is used in both directions: it gives
    triplets ``(a, b, c)`` and ``(b, a, c)`` where the negative ``c`` is

    1. one labelled non-duplicate partner of the anchor, drawn at random among them, when
       the anchor has one and ``use_labelled_negatives``;
    2. ``n_random_negatives`` random items (drawn with replacement) that are not known to be
       duplicates of the anchor, i.e. not in its connected component of the duplicate graph
       (:func:`pairs_to_clusters`), since duplicates of duplicates are duplicates too;
    3. with ``neighbors``, ``n_hard_negatives`` "hard" negatives: items drawn among the anchor's
       nearest neighbours in some input space (e.g. ``learnsim.search.top_k`` on tf.idf) that
       are outside its duplicate component. A random item rarely shares a word with the
       anchor, so random triplets are satisfied by the input cosine already; a neighbour that
       is not a duplicate teaches what word overlap does not (on the Quora sample they raised
       FILM's test accuracy, see ``benchmarks/film_quora_seeds.py``).

    A non-duplicate pair whose items a chain of duplicate pairs connects contradicts that
    transitivity; it is not used as a negative (with a warning). So every triplet
    ``(i, j, k)`` has ``(i, j)`` labelled duplicate and ``k`` outside the duplicate component
    of ``i``.

    Parameters
    ----------
    pairs : Pairs
        Labelled pairs (True = duplicate).
    n_items : int, optional
        Number of rows of X. Random negatives are drawn from ``range(n_items)`` when given,
        otherwise from the items that appear in ``pairs``.
    n_random_negatives : int, default 1
        Random negatives per anchor and positive (0 for labelled negatives only).
    use_labelled_negatives : bool, default True
    random_state : None, int or numpy Generator
    neighbors : int array (n_items, k), optional
        Row i holds the indices of item i's nearest neighbours (entries < 0 are ignored, as are
        i itself and its duplicates). Needs ``n_items``.
    n_hard_negatives : int, default 1
        Hard negatives per anchor and positive when ``neighbors`` is given (drawn with
        replacement among the allowed neighbours; an anchor without one gets none).

    Returns
    -------
    Triplets
        The labelled-negative triplets first, then the random-negative ones, then the hard
        ones; within each part
        the ``(a, b, .)`` triplets of all duplicate pairs come before the ``(b, a, .)`` ones.

    Raises
    ------
    ValueError
        When the pairs are graded or contain no duplicate pair, when ``n_items`` is smaller
        than the pairs need, or when no triplet can be formed (every candidate item is a
        duplicate of the anchors and there is no usable labelled negative).
    """
    if not isinstance(pairs, Pairs):
        raise TypeError(f"expected Pairs(indices, labels=...); got {type(pairs).__name__}")
    if pairs.is_graded:
        raise ValueError("these pairs are graded (scores) but duplicate/non-duplicate labels are needed; "
                         "threshold them, e.g. Pairs(p.indices, labels=p.scores >= t), or use "
                         "graded_pairs_to_triplets")
    n_random_negatives = _check_count(n_random_negatives, "n_random_negatives", minimum=0)
    if not isinstance(use_labelled_negatives, (bool, np.bool_)):
        raise TypeError(f"use_labelled_negatives must be True or False; got {use_labelled_negatives!r}")
    if n_random_negatives == 0 and not use_labelled_negatives and neighbors is None:
        raise ValueError("n_random_negatives=0 with use_labelled_negatives=False and no neighbors leaves no "
                         "source of negatives; allow one of them")
    n_needed = int(pairs.indices.max()) + 1
    if n_items is not None:
        n_items = _check_n_items(n_items)
        if n_items < n_needed:
            raise ValueError(f"n_items={n_items} is too small: the pairs refer to item {n_needed - 1}, "
                             f"so X needs at least {n_needed} rows")
    if not pairs.labels.any():
        raise ValueError(f"pairs has no duplicate pair (all {pairs.n_pairs} are labelled non-duplicate); "
                         "triplets need a duplicate pair for the anchor and positive")
    rng = check_random_state(random_state)
    n_total = n_needed if n_items is None else n_items
    with warnings.catch_warnings():
        # the conflicting pairs are reported below, in terms of what this function does with them
        warnings.simplefilter("ignore", UserWarning)
        component = pairs_to_clusters(pairs, n_total).labels

    duplicates = pairs.indices[pairs.labels]
    anchors = np.concatenate([duplicates[:, 0], duplicates[:, 1]])
    positives = np.concatenate([duplicates[:, 1], duplicates[:, 0]])
    parts = []

    if use_labelled_negatives:
        others = pairs.indices[~pairs.labels]
        u, v = others[:, 0], others[:, 1]
        conflict = (component[u] == component[v]) & (component[u] != NO_CLUSTER)
        if conflict.any():
            warnings.warn(f"{int(conflict.sum())} non-duplicate pair(s) join items that chains of duplicate "
                          "pairs connect; they are not used as negatives", UserWarning, stacklevel=2)
            u, v = u[~conflict], v[~conflict]
        # every usable non-duplicate pair seen from both ends, sorted by its first item
        source = np.concatenate([u, v])
        target = np.concatenate([v, u])
        order = np.lexsort((target, source))
        source, target = source[order], target[order]
        start = np.searchsorted(source, anchors, side="left")
        count = np.searchsorted(source, anchors, side="right") - start
        has = count > 0
        pick = start[has] + rng.integers(0, count[has]) if has.any() else np.zeros(0, dtype=np.int64)
        parts.append(np.column_stack([anchors[has], positives[has], target[pick]]))

    if n_random_negatives:
        pool = np.arange(n_total, dtype=np.int64) if n_items is not None else np.unique(pairs.indices)
        # Sorted by component, the anchor's own component is one contiguous segment of the pool:
        # drawing from the pool minus that segment is exact, with no rejection loop.
        pool = pool[np.argsort(component[pool], kind="stable")]
        pool_component = component[pool]
        seg_start = np.searchsorted(pool_component, component[anchors], side="left")
        seg_size = np.searchsorted(pool_component, component[anchors], side="right") - seg_start
        n_allowed = pool.size - seg_size
        # Either every anchor has an allowed item or none has: a component that covers the whole
        # pool leaves no room for a second one, so it holds every duplicate pair (and then no
        # labelled negative is usable either).
        if n_allowed.min() == 0:
            raise ValueError(
                f"no triplet can be formed: every candidate item ({pool.size}, "
                + ("range(n_items)" if n_items is not None else "the items in the pairs")
                + ") is a duplicate of the anchors (one duplicate component covers them all); pass "
                "n_items covering more rows of X or pairs from more than one group of duplicates")
        anchor_, positive_, start_, size_, allowed_ = (
            np.repeat(values, n_random_negatives)
            for values in (anchors, positives, seg_start, seg_size, n_allowed))
        draw = rng.integers(0, allowed_)
        draw += np.where(draw >= start_, size_, 0)  # skip the anchor's own segment
        parts.append(np.column_stack([anchor_, positive_, pool[draw]]))

    if neighbors is not None:
        parts.append(_hard_negative_triplets(rng, neighbors, n_items, n_hard_negatives, anchors, positives,
                                             component))

    out = np.concatenate(parts)
    if out.shape[0] == 0:
        raise ValueError("no triplet can be formed: no anchor of a duplicate pair has a usable labelled "
                         "non-duplicate partner; set n_random_negatives >= 1 to add random negatives")
    return Triplets(out)


def _hard_negative_triplets(rng, neighbors, n_items, n_hard, anchors, positives, component):
    """(anchor, positive, k) with k drawn among the anchor's neighbours outside its component."""
    if n_items is None:
        raise ValueError("neighbors needs n_items (the number of rows of X the neighbours index)")
    n_hard = _check_count(n_hard, "n_hard_negatives", minimum=1)
    nb = np.asarray(neighbors)
    if nb.ndim != 2 or nb.shape[0] != n_items or nb.shape[1] < 1:
        raise ValueError(f"neighbors must be an int array of shape (n_items={n_items}, k >= 1); got shape {nb.shape}")
    if nb.dtype.kind not in "iu":
        raise ValueError(f"neighbors must hold integer indices; got dtype {nb.dtype}")
    if nb.size and nb.max() >= n_items:
        raise ValueError(f"neighbors refers to item {int(nb.max())}, but there are only {n_items} items")
    cand = nb[anchors].astype(np.int64)
    valid = cand >= 0
    safe = np.where(valid, cand, 0)
    own = component[anchors][:, None]
    allowed = valid & (safe != anchors[:, None]) & ((component[safe] != own) | (own == NO_CLUSTER))
    n_allowed = allowed.sum(axis=1)
    has = n_allowed > 0
    if not has.any():
        return np.zeros((0, 3), dtype=np.int64)
    # the r-th allowed neighbour of each anchor, r uniform in [0, n_allowed)
    a, p, al, cd, na = (x[has] for x in (anchors, positives, allowed, cand, n_allowed))
    a, p, na = (np.repeat(x, n_hard) for x in (a, p, na))
    al, cd = np.repeat(al, n_hard, axis=0), np.repeat(cd, n_hard, axis=0)
    r = rng.integers(0, na)
    col = np.argmax(np.cumsum(al, axis=1) > r[:, None], axis=1)
    return np.column_stack([a, p, cd[np.arange(cd.shape[0]), col]])


def split_pairs(pairs, held_out=0.2, random_state=None):
    """Split labelled or graded pairs at random into (training pairs, held-out pairs).

    The held-out part is for choosing what a learned model cannot choose on its own training
    pairs (a threshold, a mixing weight, k): its similarities there are optimistic.

    Parameters
    ----------
    pairs : Pairs
    held_out : float in (0, 1), default 0.2
        Fraction of the pairs held out (rounded; at least one pair on each side).
    random_state : None, int or numpy Generator

    Returns
    -------
    (Pairs, Pairs)
        Each keeps the original order of its pairs, with their labels or scores.
    """
    if not isinstance(pairs, Pairs):
        raise TypeError(f"pairs must be a Pairs object; got {type(pairs).__name__}")
    if isinstance(held_out, bool) or not isinstance(held_out, numbers.Real) or not 0.0 < held_out < 1.0:
        raise ValueError(f"held_out must be a fraction strictly between 0 and 1; got {held_out!r}")
    n = pairs.indices.shape[0]
    if n < 2:
        raise ValueError(f"cannot split {n} pair(s): each side needs at least one")
    n_held = min(max(int(round(held_out * n)), 1), n - 1)
    order = check_random_state(random_state).permutation(n)
    parts = np.sort(order[n_held:]), np.sort(order[:n_held])

    def take(rows):
        if pairs.is_graded:
            return Pairs(pairs.indices[rows], scores=pairs.scores[rows])
        return Pairs(pairs.indices[rows], labels=pairs.labels[rows])

    return take(parts[0]), take(parts[1])


def split_links(links, fractions=(1 / 3, 1 / 3, 1 / 3), random_state=None):
    """Split a linked corpus at random into parts and drop the links that cross parts
    (Grangier & Bengio, paper 002, sec. 4.1: train / valid / test thirds, each usable alone).

    Parameters
    ----------
    links : Links
    fractions : sequence of floats summing to 1, default three thirds
        The share of the items in each part (rounded; every part gets at least one item).
    random_state : None, int or numpy Generator

    Returns
    -------
    list of (ndarray, Links)
        For each part, the sorted indices of its items in the original corpus and the links
        among them, renumbered 0..len(part)-1.

    Raises
    ------
    ValueError
        When a part ends up with no link inside it (too few links or too small a part).
    """
    if not isinstance(links, Links):
        raise TypeError(f"links must be a Links object; got {type(links).__name__}")
    fr = np.asarray(fractions, dtype=np.float64)
    if fr.ndim != 1 or fr.size < 2 or not np.all(np.isfinite(fr)) or np.any(fr <= 0) \
            or not np.isclose(fr.sum(), 1.0):
        raise ValueError(f"fractions must be two or more positive numbers summing to 1; got {fractions!r}")
    n = links.n_items
    if n < fr.size:
        raise ValueError(f"cannot split {n} item(s) into {fr.size} parts")
    bounds = np.round(np.cumsum(fr) * n).astype(np.int64)
    bounds[-1] = n
    bounds = np.maximum(bounds, np.arange(1, fr.size + 1))
    order = check_random_state(random_state).permutation(n)
    A = links.adjacency
    out = []
    start = 0
    for number, end in enumerate(bounds):
        members = np.sort(order[start:end])
        start = end
        sub = A[members][:, members]
        if sub.nnz == 0:
            raise ValueError(f"part {number} ({members.size} items) has no link inside it once the links "
                             "that cross parts are dropped; use larger parts or a denser link graph")
        out.append((members, Links(sub)))
    return out
