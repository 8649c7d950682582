"""Per-cluster weights given to :func:`learnsim.fit` in a :class:`learnsim.supervision.Clusters`
(Kobayashi's cluster confidence xi_i, sec. 4.3), carried from the object to the fit's cluster
codes: learnsim.fit refused them, though MinimumClusterDistortion, which fits clusters by
default, takes them in its own fit. Kept apart from fitting.py (near its size limit) and from
_inputs, whose plain lists have no room for them."""
from __future__ import annotations

import numpy as np

__all__ = ["item_weights", "code_weights", "weighted_labels", "FILM_REFUSAL"]

FILM_REFUSAL = ("clusters (a Clusters) has cluster weights, which method 'film' does not use; method 'mcd' (the "
                "default for clusters) fits on them, or pass Clusters(labels) without weights to fit film")


def item_weights(clusters):
    """The weight of each item's cluster (NaN for an item in no cluster) where ``clusters`` is a
    Clusters with weights, else None: by item, so the weights follow the items into whatever
    codes the fit gives the labels."""
    from .supervision import Clusters

    if not isinstance(clusters, Clusters) or clusters.weights is None:
        return None
    labels = np.asarray(clusters.labels)
    weights = np.asarray(clusters.weights, dtype=float)
    out = np.full(labels.shape[0], np.nan)
    inside = labels >= 0
    out[inside] = weights[np.searchsorted(clusters.cluster_ids, labels[inside])]
    return out


def code_weights(per_item, codes):
    """The weights of the fit's cluster codes 0..K-1 (a tuple, aligned with the codes) from
    :func:`item_weights`: one per code, the weight of its items. Two clusters of the object that
    the fit reads as one label (1 and "1": the file readers' rule compares labels as text) with
    other weights are refused, naming the label, rather than one weight silently kept."""
    codes = np.asarray(codes)
    K = int(codes.max()) + 1 if codes.size and codes.max() >= 0 else 0
    out = []
    for c in range(K):
        w = np.unique(per_item[codes == c])
        if w.size != 1:
            raise ValueError(f"clusters (a Clusters): cluster code {c} joins clusters whose labels read alike (as "
                             f"text) but whose weights differ ({', '.join(f'{v:g}' for v in w)}); give them "
                             "distinct labels or one weight")
        out.append(float(w[0]))
    return tuple(out)


def weighted_labels(o, labels):
    """``labels`` (cluster codes, -1: none) as MinimumClusterDistortion takes them: a Clusters
    with the codes' weights (``o.cluster_weights``) where the fit was given weights, else as they
    are. The training labels of a check keep their clusters' weights (sec. 4.3)."""
    weights = getattr(o, "cluster_weights", None)
    if weights is None or labels is None:
        return labels
    from .supervision import Clusters

    labels = np.asarray(labels)
    present = np.unique(labels[labels >= 0])
    return Clusters(labels, weights=np.asarray(weights, dtype=float)[present])
