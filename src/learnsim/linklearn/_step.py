"""The two inner parts of a LinkLearn training step (``LinkLearn._batch_gradient``, paper 002,
eq. 4 and 5): the postings of a drawn document's terms, and the ranking hinge over all its
(linked, unlinked) pairs with its gradient. Kept apart so that ``linklearn.py`` stays one
readable module."""
from __future__ import annotations

import numpy as np

# a term's postings are copied as a slice when d's terms have this many on average (else gathered)
SLICE_MIN_MEAN_POSTINGS = 200


def postings_of(terms, counts, col_ptr, col_rows, col_tf):
    """The rows and tf codes of the postings of ``terms`` (their column slices, in order).

    Long lists (a large collection's common words) are copied slice by slice; many short ones
    (long documents in a small collection) by one gather, where a Python call per term would
    cost more than the copy."""
    total = int(counts.sum())
    if total >= SLICE_MIN_MEAN_POSTINGS * terms.size:
        rows = np.concatenate([col_rows[col_ptr[t]:col_ptr[t + 1]] for t in terms])
        tf = np.concatenate([col_tf[col_ptr[t]:col_ptr[t + 1]] for t in terms])
        return rows, tf
    pos = np.repeat(col_ptr[terms] - (np.cumsum(counts) - counts), counts) + np.arange(total)
    return col_rows[pos], col_tf[pos]


def hinge_coefficients(scores, positive, negative):
    """C_d of eq. (4) and dC_d/ds for one document, over all (l+, l-) pairs at once.

    ``scores`` are sim(d, .) for every document; ``positive`` / ``negative`` index L(d) and its
    complement (d itself excluded). max(0, 1 - s_p + s_n) > 0 exactly when s_n > s_p - 1, so
    each negative falls in one bin among the positives' sorted margins s_p - 1: the number of
    margins below s_n is how many positives it violates, and the bins' counts and sums, summed
    from the top, are how many negatives violate each positive and their total. The negatives
    (nearly every document) are never sorted: O(n log |L(d)|), not O(n log n).
    """
    sp_, sn = scores[positive], scores[negative]
    n_pairs = float(sp_.size) * float(sn.size)
    order = np.argsort(sp_, kind="stable")
    margins = sp_[order] - 1.0
    n_beaten = np.searchsorted(margins, sn, side="left")     # the margins below s_n
    k = sp_.size
    # negatives in bins above j violate the j-th smallest margin
    above_count = np.cumsum(np.bincount(n_beaten, minlength=k + 1)[::-1])[::-1]
    above_sum = np.cumsum(np.bincount(n_beaten, weights=sn, minlength=k + 1)[::-1])[::-1]
    n_violating = np.empty(k)
    violating_sum = np.empty(k)
    n_violating[order] = above_count[1:]
    violating_sum[order] = above_sum[1:]
    loss = float(np.sum(n_violating * (1.0 - sp_) + violating_sum)) / n_pairs
    coef = np.zeros(scores.size)
    coef[positive] = -n_violating / n_pairs
    coef[negative] = n_beaten / n_pairs
    return loss, coef
