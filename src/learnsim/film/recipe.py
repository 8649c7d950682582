"""FILM's own steps of its fitting recipe (``learnsim fit --method film``, :func:`learnsim.fit`
with ``method="film"``): the FILM to fit and, on duplicate pairs, its triplets (hard negatives
included), the pairs held out to choose its rules, the search weight chosen on the held-out
duplicates and, over a dense encoder, the lexical tf.idf part search may mix in.

The rest of FILM's recipe, the duplicate rule, the search re-ranker and the graded pair
regression chosen on held-out pairs, uses :mod:`learnsim.matching` and :mod:`learnsim.scorer`,
which are built on :mod:`learnsim.film`: it stays above them, in :func:`learnsim.fitting.fit_film`
and :func:`learnsim.fitting.fit_graded`, which call the steps here.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._fit_common import option_name as _flag
from .._utils.progress import stage

__all__ = ["DEFAULT_FILM_DIMENSIONS", "DEFAULT_PAIRS_VALIDATION_FRACTION", "split_validation_pairs",
           "film_with_supervision", "validated_search", "lexical_part"]

# FILM's n_components when none is given (the paper's d), capped by the data; on pairs, the share
# of the pairs held out to choose the matching rule (as the FILM reproduction) and the neighbours
# among which each anchor's hard negative is drawn.
DEFAULT_FILM_DIMENSIONS = 100
DEFAULT_PAIRS_VALIDATION_FRACTION = 0.2
_FILM_NEIGHBOURS = 10
# texts the hard negatives are searched among, at most (a seeded sample above it)
_HARD_NEGATIVE_POOL = 20_000
# triplets FILM learns from, at most (a seeded sample above; 10,000 Quora pairs give 16,000)
_MAX_FILM_TRIPLETS = 50_000
# held-out duplicate queries the search checks use, at most (see _sample_queries)
_MAX_CHECK_QUERIES = 2_000


def _film_triplets(pairs, X, seed, note, keep=None):
    """Triplets from duplicate pairs, without the texts that have no vocabulary term (FILM
    L2-normalises every row it learns from). Each duplicate direction gets the anchor's labelled
    non-duplicate partner, a random negative and a hard one: a non-duplicate among the anchor's
    10 nearest texts by the input cosine (as in the FILM reproduction).

    Only the texts of duplicate pairs are anchors, so only they are searched from; above
    ``_HARD_NEGATIVE_POOL`` texts they search a random sample of that many (seeded), which keeps
    the cost linear in the pairs (the whole collection's cosines grow with its square).

    ``keep``: a dict that asks for the ``keep["depth"]`` nearest texts by the input cosine of the
    texts ``keep["rows"]`` as well (``keep["neighbours"]``, an (n_texts, depth) array, best
    first, -1 for the other rows): search's re-ranker needs them when its first stage is the
    input cosine, and one pass finds both. Left unset when the texts searched a sample."""
    from ..supervision import duplicate_pairs_to_triplets
    from ..text import find_empty_rows

    n = X.shape[0]
    n_neighbours = min(_FILM_NEIGHBOURS, n - 1)
    labels = np.asarray(pairs.labels, dtype=bool)
    rows = np.unique(pairs.indices[labels].ravel())
    depth = n_neighbours
    pool = None
    if n > _HARD_NEGATIVE_POOL:
        pool = np.sort(np.random.default_rng(seed).choice(n, _HARD_NEGATIVE_POOL, replace=False))
    elif keep is not None:
        rows = np.union1d(rows, np.asarray(keep.get("rows", ()), dtype=np.int64))
        depth = min(max(n_neighbours, keep["depth"]), n - 1)
    neighbours = None
    if n_neighbours >= 1 and rows.size:
        with stage("FILM: finding the duplicates' nearest texts (hard negatives)"):
            nearest = _nearest_rows(X, rows, depth, pool)
        neighbours = np.full((n, nearest.shape[1]), -1, dtype=np.int64)
        neighbours[rows] = nearest
        if keep is not None and pool is None:
            keep["neighbours"] = neighbours
        neighbours = neighbours[:, :n_neighbours]
    T = duplicate_pairs_to_triplets(pairs, n_items=X.shape[0], random_state=seed, neighbors=neighbours,
                                    n_hard_negatives=1 if neighbours is not None else 0).indices
    empty = find_empty_rows(X)
    if empty.size:
        unusable = np.isin(T, empty).any(axis=1)
        if unusable.any():
            note(f"{int(unusable.sum())} of {len(T)} triplets use one of the {empty.size} text(s) without "
                 "a vocabulary term; they are left out")
            T = T[~unusable]
    if len(T) == 0:
        raise ValueError("no usable triplet: every triplet uses a text without a vocabulary term")
    if len(T) > _MAX_FILM_TRIPLETS:
        # FILM's iterations cost (anchors x svd_rank^2): past this many triplets a larger set
        # adds minutes and the pair models, not FILM, decide; a seeded sample keeps it bounded
        note(f"FILM learns from a sample of {_MAX_FILM_TRIPLETS} of the {len(T)} triplets", info=True)
        T = T[np.sort(np.random.default_rng(seed).choice(len(T), _MAX_FILM_TRIPLETS, replace=False))]
    return T


def _sample_queries(queries, seed):
    """At most ``_MAX_CHECK_QUERIES`` of the held-out queries (a seeded sample, sorted): each
    searches the whole collection, so more would make a large fit's check grow with the square
    of the collection, for an interval barely narrower."""
    if len(queries) <= _MAX_CHECK_QUERIES:
        return queries
    return np.sort(np.random.default_rng(seed).choice(queries, _MAX_CHECK_QUERIES, replace=False))


def _nearest_rows(X, rows, k, pool=None):
    """The ``k`` nearest texts by the input cosine of each of ``rows`` (itself excluded), best
    first, ties to the lower index; among the sorted indices ``pool`` when given."""
    from ..search import top_k

    corpus = X if pool is None else X[pool]
    depth = min(k + 1, corpus.shape[0])
    found = top_k(X[rows], corpus, depth, metric="cosine", return_scores=False)
    if pool is not None:
        found = pool[found]
    # each row at most once in its own list: drop it, keep the first depth - 1 others
    others = found != rows[:, None]
    others &= np.cumsum(others, axis=1) <= depth - 1
    return found[others].reshape(len(rows), depth - 1)


def split_validation_pairs(pairs, o, flags):
    """(training pairs, held-out pairs): the held-out ones choose FILM's matching rule."""
    from ..supervision import split_pairs

    fraction = o.validation_fraction or DEFAULT_PAIRS_VALIDATION_FRACTION
    if not pairs.labels.any():
        raise ValueError("no duplicate pair (label 1): FILM learns from duplicates")
    if pairs.n_pairs < 4:
        raise ValueError(f"{pairs.n_pairs} pair(s) are too few: FILM learns from some and holds out "
                         f"{fraction:g} of them to choose its duplicate threshold")
    train, held = split_pairs(pairs, held_out=fraction, random_state=o.random_state)
    if held.labels.all() or not held.labels.any():
        name = _flag(flags, "validation_fraction")
        raise ValueError(f"the {held.n_pairs} held-out pair(s) ({name} {fraction:g}) are all "
                         f"{'duplicates' if held.labels.all() else 'non-duplicates'}; the duplicate threshold "
                         f"needs both kinds: give more pairs or a larger {name}")
    if not train.labels.any():
        raise ValueError("no duplicate pair is left to learn from after holding out the validation pairs")
    return train, held


def validated_search(metric, X, held, all_pairs, seed, check_baseline, lexical=None, rule=None):
    """The search weight of FILM's input-cosine mix, chosen on the held-out duplicates: each of
    their texts searches the whole collection; its duplicates are the texts that chains of
    duplicate pairs (all of them) join to it. With ``lexical`` (the texts' tf.idf) and ``rule``
    (the search rule chosen so), that rule with the weight of the lexical cosine mixed in,
    chosen on the same queries."""
    from ..supervision import pairs_to_clusters
    from ._search_weight import SearchRule

    components = np.asarray(pairs_to_clusters(all_pairs, X.shape[0]).labels)
    queries = np.unique(held.indices[held.labels].ravel())
    queries = queries[components[queries] >= 0]
    queries = _sample_queries(queries, seed)
    if lexical is not None:
        return rule.with_lexical_weight(metric, X, lexical, queries, components, random_state=seed,
                                        check_baseline=check_baseline)
    return SearchRule.select(metric, X, queries, components, random_state=seed, check_baseline=check_baseline)


def lexical_part(o, texts):
    """(fitted tf.idf TextVectorizer, its float64 rows of ``texts``): the lexical part a model
    over a dense encoder may mix into its search (stop words and stemming as ``o`` says)."""
    from ..text import TextVectorizer

    vectorizer = TextVectorizer("tfidf", norm="l2", stop_words=o.stop_words, stem="porter" if o.stem else None,
                                dtype=np.float64)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*empty after tokenisation.*")
        L = vectorizer.fit_transform(list(texts))
    return vectorizer, L.astype(np.float64) if L.dtype != np.float64 else L


def film_with_supervision(o, X, labels, pairs, holdout, note, keep=None):
    """The FILM to fit and what to fit it on: the cluster labels (FILM draws its triplets from
    them) or triplets made of the duplicate pairs. ``holdout``: FILM's own ``baseline_holdout``;
    ``keep``: see :func:`_film_triplets`."""
    from .._utils.progress import _default_enabled
    from ._film import FILM

    y = labels if pairs is None else _film_triplets(pairs, X, o.random_state, note, keep)
    most = min(X.shape)
    d = o.n_components
    if d is None:
        d = min(DEFAULT_FILM_DIMENSIONS, most)
        if d < DEFAULT_FILM_DIMENSIONS:
            # a small collection: FILM learns at most the numerical rank of X (repeated or
            # one-word texts make it smaller than min(documents, features)); one dimension is small,
            # so its singular values are cheap
            from ._film import _RANK_TOL

            dense = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
            sigma = np.linalg.svd(dense, compute_uv=False)
            d = max(1, min(d, int(np.sum(sigma > _RANK_TOL * max(float(sigma[0]), np.finfo(float).tiny)))))
            note(f"using {d} dimensions: FILM learns at most the rank of the texts' vectors (min(documents, "
                 f"features) = {most})", info=True)
    settings = {"n_components": d, "svd_rank": o.svd_rank}
    if o.max_iter is not None:
        settings["max_iter"] = o.max_iter
    metric = FILM(**settings, baseline_holdout=holdout, random_state=o.random_state, verbose=_default_enabled())
    return metric, y

