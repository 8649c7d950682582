"""Converters between forms of supervision (pairs to clusters or triplets, links to triplets)
and the train/test splits of pairs and links."""
from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from learnsim._utils.validation import check_random_state

from ._common import NO_CLUSTER, _check_count, _check_n_items, _sample_unlinked
from .clusters import Clusters
from .links import Links
from .pairs import Pairs, check_pairs
from .triplets import Triplets


# Above this many candidate comparisons per batch, graded_pairs_to_triplets works in batches so
# that an item shared by thousands of pairs does not need gigabytes at once.
_MAX_COMPARISONS_PER_BATCH = 4_000_000


def pairs_to_clusters(pairs, n_items):
    """Clusters from similar pairs: the connected components of the "similar" graph.

    Items in no similar pair are unclustered (-1), not singleton clusters. Dissimilar pairs
    are not used; a warning says how many of them fall inside one component (a contradiction
    the transitive closure creates).

    Examples
    --------
    >>> from learnsim.supervision import Pairs, pairs_to_clusters
    >>> pairs = Pairs([[0, 1], [1, 2], [3, 4], [2, 5]], labels=[1, 1, 1, 0])
    >>> pairs_to_clusters(pairs, n_items=6).labels
    array([ 0,  0,  0,  1,  1, -1])
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

    Examples
    --------
    Item 0 is paired with 1, 2 and 3; the scores order its partners 1, 3, 2:

    >>> from learnsim.supervision import Pairs, graded_pairs_to_triplets
    >>> pairs = Pairs([[0, 1], [0, 2], [0, 3]], scores=[4.5, 1.0, 3.0])
    >>> graded_pairs_to_triplets(pairs).indices
    array([[0, 1, 2],
           [0, 1, 3],
           [0, 3, 2]])
    >>> graded_pairs_to_triplets(pairs, margin=2.0).indices
    array([[0, 1, 2]])
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

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.supervision import Links, links_to_triplets
    >>> links = Links.from_edges([[0, 1], [1, 2], [2, 0], [3, 4]], n_items=5)
    >>> t = links_to_triplets(links, n_triplets=5, random_state=0)
    >>> t
    Triplets(n_triplets=5)
    >>> A = links.symmetric().adjacency.toarray()
    >>> bool(A[t.anchors, t.positives].all()), bool(A[t.anchors, t.negatives].any())
    (True, False)
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

    Examples
    --------
    Questions 0 and 1 are duplicates, as are 2 and 3; 0 and 2 are labelled non-duplicates:

    >>> from learnsim.supervision import Pairs, duplicate_pairs_to_triplets
    >>> pairs = Pairs([[0, 1], [2, 3], [0, 2]], labels=[1, 1, 0])
    >>> t = duplicate_pairs_to_triplets(pairs, n_items=6, random_state=0)
    >>> t
    Triplets(n_triplets=6)
    >>> t.indices[:2]                  # the labelled non-duplicate is the first negative
    array([[0, 1, 2],
           [2, 3, 0]])
    >>> duplicate_pairs_to_triplets(pairs, n_random_negatives=0).indices
    array([[0, 1, 2],
           [2, 3, 0]])
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

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.supervision import Pairs, split_pairs
    >>> pairs = Pairs(np.arange(20).reshape(10, 2), labels=[1, 0] * 5)
    >>> train, held_out = split_pairs(pairs, held_out=0.2, random_state=0)
    >>> len(train), len(held_out)
    (8, 2)
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
    (Grangier & Bengio [1]_, sec. 4.1: train / valid / test thirds, each usable alone).

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

    References
    ----------
    .. [1] Grangier, D. and Bengio, S. (2005). Inferring Document Similarity from Hyper-links.
       IDIAP Research Report IDIAP-RR 05-21, IDIAP, Martigny, Switzerland (paper 002).

    Examples
    --------
    A ring of 12 items, each linking to the next and to the third after it, split in thirds:

    >>> from learnsim.supervision import Links, split_links
    >>> edges = [[i, (i + 1) % 12] for i in range(12)] + [[i, (i + 3) % 12] for i in range(12)]
    >>> parts = split_links(Links.from_edges(edges, n_items=12), random_state=0)
    >>> [len(items) for items, links in parts]
    [4, 4, 4]
    >>> sorted(int(i) for items, links in parts for i in items) == list(range(12))
    True
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
