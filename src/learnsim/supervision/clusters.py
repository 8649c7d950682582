"""Cluster labels as supervision: :class:`Clusters` and :func:`check_clusters`."""
from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from learnsim._utils.validation import check_indices

from ._common import NO_CLUSTER, _check_count, _check_n_items, _name, _preview, _readonly


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
    if isinstance(labels, (list, tuple)) and (any(isinstance(v, tuple) for v in labels) or _str_among_others(labels)):
        # tuples are hashable labels, but numpy would read them as rows of a 2-D array; and
        # str labels beside ints it would make all str: -1 (in no cluster) the label "-1", 1
        # and "1" one cluster, where an object array or a pandas Series keeps them apart
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


def _str_among_others(values):
    """Whether a list of labels holds a str beside a value of another type (an int, None)."""
    kinds = {isinstance(v, str) for v in values}
    return len(kinds) == 2


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

    Examples
    --------
    >>> from learnsim.supervision import Clusters
    >>> c = Clusters(["news", "sport", "news", None, "sport"])
    >>> c
    Clusters(n_items=5, n_clusters=2, n_unclustered=1)
    >>> c.labels
    array([ 0,  1,  0, -1,  1])
    >>> c.classes_.tolist()
    ['news', 'sport']
    >>> c.members("news")
    array([0, 2])
    >>> c.subset([0, 1, 2])
    Clusters(n_items=3, n_clusters=2, n_unclustered=0)
    >>> Clusters.from_groups([[0, 2], [1, 4]], n_items=5, weights=[2.0, 1.0]).normalized_weights().round(3)
    array([0.667, 0.333])
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

    Examples
    --------
    >>> from learnsim.supervision import check_clusters
    >>> check_clusters([0, 0, 1, 1], n_items=4)
    Clusters(n_items=4, n_clusters=2, n_unclustered=0)
    >>> check_clusters([0, 0, 1], n_items=4)
    Traceback (most recent call last):
        ...
    ValueError: labels has 3 entries but X has 4 rows
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
