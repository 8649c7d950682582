"""Triplets drawn from labels: :func:`clusters_to_triplets` and :func:`sample_label_triplets`."""
from __future__ import annotations

import warnings

import numpy as np

from learnsim._utils.validation import check_random_state

from ._common import NO_CLUSTER, _check_count, _name
from .clusters import Clusters, _item_selection, _parse_labels
from .triplets import Triplets


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

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.supervision import clusters_to_triplets
    >>> labels = np.array([0, 0, 0, 1, 1, 1])
    >>> t = clusters_to_triplets(labels, n_triplets=4, random_state=0)
    >>> t
    Triplets(n_triplets=4)
    >>> bool(np.all(labels[t.anchors] == labels[t.positives]))
    True
    >>> bool(np.any(labels[t.anchors] == labels[t.negatives]))
    False
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
    try:
        return _draw(rng, clusters, eligible, counts, sizes, pool, seg_start, n_negative, n_triplets)
    except MemoryError:
        # numpy's 'Unable to allocate 7.28 TiB' named neither the argument nor the way out
        raise ValueError(f"n_triplets={n_triplets} needs more memory than this machine has (24 bytes a "
                         "triplet, several arrays of them while drawing): ask for fewer") from None


def _draw(rng, clusters, eligible, counts, sizes, pool, seg_start, n_negative, n_triplets):
    """The triplets of :func:`clusters_to_triplets`, ``counts[i]`` of them anchored in ``eligible[i]``."""
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
    """Triplets ``(i, j, k)`` drawn as in Schultz & Joachims [1]_ (sec. 5): three distinct items
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
        ``n_triplets`` is more than the distinct triples the labels (for the default rule) or
        any rule can give of a pool of more than 128 candidates (refused before drawing; a
        smaller pool lists them at once); if ``candidates`` holds an index outside
        ``range(n_items)``.
    TypeError
        If ``rule`` is not callable or does not return a boolean array of the right shape.

    Warns
    -----
    UserWarning
        When the rule accepts fewer distinct triples of the candidates than ``n_triplets``
        (checked exactly for pools of at most 128 candidates): then every accepted triple is
        returned ``n_triplets // n_accepted`` or one more times, so the count asked for is met
        and no triple is repeated more than another by more than one.

    References
    ----------
    .. [1] Schultz, M. and Joachims, T. (2004). Learning a Distance Metric from Relative
       Comparisons. In Advances in Neural Information Processing Systems 16 (NIPS 2003),
       MIT Press (paper 004).

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.supervision import sample_label_triplets
    >>> labels = np.array(["a", "a", "b", "b", "c", None], dtype=object)
    >>> t = sample_label_triplets(labels, n_triplets=3, random_state=0)
    >>> t
    Triplets(n_triplets=3)
    >>> bool(np.all(labels[t.anchors] == labels[t.positives]))
    True
    >>> 5 in t.indices        # an item without a label is never drawn
    False
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
    # the distinct triples the rule can accept at most (exactly, for the default rule): a count
    # above it is never reached by drawing, which went on for max(1e6, 1000 n_triplets) draws
    # (19 s for 100,000 triplets of six items, no end for 10**12)
    if rule is None:
        n_possible = int(sum(int(c) * (int(c) - 1) * (n_pool - int(c)) for c in present_counts))
    else:
        n_possible = n_pool * (n_pool - 1) * (n_pool - 2)
    if n_triplets > n_possible:
        if n_pool > _MAX_POOL_TO_ENUMERATE:
            raise ValueError(f"n_triplets={n_triplets:,} is more than the {n_possible:,} distinct triplets the "
                             f"{'labels' if rule is None else 'rule'} can give of the {n_pool} {where}: ask for "
                             "fewer")
        max_draws = 0       # none to draw: the accepted triples are listed below

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
