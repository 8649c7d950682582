"""FILM's own steps of its fitting recipe (``learnsim fit --method film``, :func:`learnsim.fit`
with ``method="film"``): the FILM to fit; on pairs, its triplets with negatives from the
collection (:func:`search_triplets`), the bases of its search rules and the rules themselves
(:func:`search_bases`, :func:`search_candidates`), which :func:`learnsim.baseline.validate_search`
weighs on held-out queries and documents against the strongest baseline (issue 42); over a dense
encoder with graded pairs, the lexical tf.idf part their search may mix in (:func:`lexical_part`).

The rest of FILM's recipe, the duplicate rule, the search re-ranker and the graded pair
regression chosen on held-out pairs, uses :mod:`learnsim.matching` and :mod:`learnsim.scorer`,
which are built on :mod:`learnsim.film`: it stays above them, in :func:`learnsim.fitting.fit_film`
and :func:`learnsim.fitting.fit_graded`, which call the steps here.
"""
from __future__ import annotations

import warnings
from collections.abc import Set

import numpy as np

from .._utils.progress import stage

__all__ = ["DEFAULT_FILM_DIMENSIONS", "DEFAULT_PAIRS_VALIDATION_FRACTION", "film_with_supervision", "lexical_part",
           "search_triplets", "search_bases", "search_candidates", "SEARCH_WEIGHT_GRID"]

# FILM's n_components when none is given (the paper's d), capped by the data; on pairs, the share
# of the queries (or groups of pairs) held out to choose and check the rules.
DEFAULT_FILM_DIMENSIONS = 100
from .._defaults import DEFAULT_PAIRS_VALIDATION_FRACTION  # noqa: E402  (the one definition; the CLI's help reads it)
# triplets FILM learns from, at most (a seeded sample above; 10,000 Quora pairs give about 23,000)
_MAX_FILM_TRIPLETS = 50_000
#: The weights of search's mixes tried on held-out queries (issue 42): of the input cosine w in
#: w cos(x, x') + (1 - w) cos(Lx, Lx'), and of BM25 (normalised) lambda in lambda BM25 + (1 - lambda) x that.
SEARCH_WEIGHT_GRID = tuple(float(w) for w in np.round(np.linspace(0.0, 1.0, 11), 2))
# BM25's best documents of an anchor among which its hard negative is drawn
_BM25_NEGATIVE_DEPTH = 10
# (anchor, relevant text) pairs whose triplets are drawn, at most (a seeded sample above): chains
# of duplicates relate each of m texts to m - 1 others, 20 million pairs for 20 chains of 1,000,
# whose two or three triplets each were held as Python tuples before _MAX_FILM_TRIPLETS of them
# were kept; 250,000 pairs make 500,000 to 750,000 triplets, ten times what is kept
_MAX_FILM_PAIRS = 250_000


def lexical_part(o, texts):
    """(fitted tf.idf TextVectorizer, its float64 rows of ``texts``): the lexical part a model
    over a dense encoder may mix into its search (stop words and stemming as ``o`` says)."""
    from .._fit_common import reading
    from ..text import TextVectorizer

    texts = list(texts)
    stop_words, stem = reading(o, texts)
    vectorizer = TextVectorizer("tfidf", norm="l2", stop_words=stop_words, stem=stem,
                                dtype=np.float64, **o.analysis)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*empty after tokenisation.*")
        L = vectorizer.fit_transform(texts)
    return vectorizer, L.astype(np.float64) if L.dtype != np.float64 else L


def _distinct_rows(X, stop):
    """The distinct rows of X (sparse or dense), in the order first met; None once ``stop`` of
    them are found (then the rank may reach ``stop``: a scan of the first rows, not of them all)."""
    import scipy.sparse as sp

    if sp.issparse(X):
        X = sp.csr_matrix(X)
        X.sum_duplicates()
        X.sort_indices()
        rows = ((X.indices[X.indptr[i]:X.indptr[i + 1]].tobytes(), X.data[X.indptr[i]:X.indptr[i + 1]].tobytes())
                for i in range(X.shape[0]))
    else:
        X = np.asarray(X)
        rows = (X[i].tobytes() for i in range(X.shape[0]))
    seen, keep = set(), []
    for i, key in enumerate(rows):
        if key not in seen:
            if len(seen) + 1 >= stop:
                return None
            seen.add(key)
            keep.append(i)
    return X[keep]


#: Texts up to which a fit at the default dimensions checks their rank (its Gram matrix, n x n).
_RANK_CHECKED_ROWS = 1500


def film_with_supervision(o, X, labels, holdout, note):
    """The FILM to fit (its dimensions capped by the texts' rank) and the cluster labels to fit
    it on (None: the caller gives triplets, :func:`search_triplets`). ``holdout``: FILM's own
    ``baseline_holdout``."""
    from .._utils.progress import _default_enabled
    from ._film import FILM

    y = labels
    most = min(X.shape)
    d = o.n_components
    if d is None:
        d = min(DEFAULT_FILM_DIMENSIONS, most)
        # FILM learns at most the numerical rank of X: repeated or one-word texts make it smaller
        # than min(documents, features), and so do many texts with few distinct vectors (case or
        # punctuation variants of each other: a default the user never set was an error)
        distinct = _distinct_rows(X, DEFAULT_FILM_DIMENSIONS) if d == DEFAULT_FILM_DIMENSIONS else None
        if d < DEFAULT_FILM_DIMENSIONS or distinct is not None:
            # few rows or few distinct ones: their singular values are cheap
            from ._film import _RANK_TOL

            rows = X if distinct is None else distinct
            dense = rows.toarray() if hasattr(rows, "toarray") else np.asarray(rows)
            sigma = np.linalg.svd(dense, compute_uv=False)
            d = max(1, min(d, int(np.sum(sigma > _RANK_TOL * max(float(sigma[0]), np.finfo(float).tiny)))))
            bound = rows.shape[0] if distinct is not None else most
            # the rank, where it is below the bound named (copies of a text: the first rows' count
            # is no reason for fewer dimensions)
            rank = f"rank {d}, below " if d < min(bound, DEFAULT_FILM_DIMENSIONS) else ""
            why = rank + (f"min(documents, features) = {most}" if distinct is None
                          else f"{distinct.shape[0]} distinct vectors among {X.shape[0]} texts")
            note(f"using {d} dimensions: FILM learns at most the rank of the texts' vectors ({why})", info=True)
        elif X.shape[0] <= _RANK_CHECKED_ROWS:
            # distinct texts that are few words recombined have a rank below their count: 120
            # English notes of 'subject + predicate' over 3 topics have rank 46, and the default 100
            # failed the fit ('n_components=100 is larger than the numerical rank of X'). Their
            # Gram matrix's eigenvalues are the squared singular values, cheap at this size
            from ._film import _RANK_TOL

            G = X @ X.T
            G = G.toarray() if hasattr(G, "toarray") else np.asarray(G)
            sigma = np.sqrt(np.clip(np.linalg.eigvalsh(G.astype(np.float64))[::-1], 0.0, None))
            rank = int(np.sum(sigma > _RANK_TOL * max(float(sigma[0]), np.finfo(float).tiny)))
            if rank < d:
                d = max(1, rank)
                note(f"using {d} dimensions: FILM learns at most the rank of the texts' vectors (rank {d}, below "
                     f"{DEFAULT_FILM_DIMENSIONS}, of {X.shape[0]} texts)", info=True)
    settings = {"n_components": d, "svd_rank": o.svd_rank}
    if o.max_iter is not None:
        settings["max_iter"] = o.max_iter
    metric = FILM(**settings, baseline_holdout=holdout, random_state=o.random_state, verbose=_default_enabled())
    return metric, y



# ============================================================================ search supervision (issue 42)
def _relevant_sets(P, grades, n_texts, relation=None):
    """{anchor: set of its relevant texts} of search supervision, and whether it is directed:
    from queries to documents (the anchors are the queries) or symmetric (duplicates: both
    directions, and duplicates of duplicates, the chains of relevant pairs, when they are sets of
    duplicates), as ``relation`` reads them (:func:`learnsim.baseline.search_relation`; default:
    of these pairs)."""
    from ..baseline import search_relation

    positive = grades > 0
    heads, tails = P[positive, 0], P[positive, 1]
    if relation is None:
        relation = search_relation(P, grades, n_texts)
    directed = relation.directed
    sets = {}
    if directed:
        for a, b in zip(heads.tolist(), tails.tolist()):
            sets.setdefault(a, set()).add(b)
        return sets, True
    for a, b in zip(heads.tolist(), tails.tolist()):
        sets.setdefault(a, set()).add(b)
        sets.setdefault(b, set()).add(a)
    if relation.chains:
        from scipy.sparse.csgraph import connected_components
        import scipy.sparse as sp

        A = sp.csr_matrix((np.ones(heads.size), (heads, tails)), shape=(n_texts, n_texts))
        chains = connected_components(A, directed=False)[1]
        members = {}
        for t in sets:
            members.setdefault(chains[t], set()).add(t)
        members = {c: frozenset(m) for c, m in members.items()}
        # each text's set is its chain's members but itself, a view of the one set per chain: as
        # copies, m (m - 1) entries for a chain of m (20 million for 20 chains of 1,000)
        sets = {t: _Mates(members[chains[t]], t) for t in sets}
    return sets, False


class _Mates(Set):
    """The texts of a chain of duplicates but one (``text``): a read-only set over the chain's
    shared ``members``."""

    __slots__ = ("_members", "_text")

    def __init__(self, members, text):
        self._members, self._text = members, text

    def __contains__(self, d):
        return d != self._text and d in self._members

    def __iter__(self):
        return (d for d in self._members if d != self._text)

    def __len__(self):
        return len(self._members) - (self._text in self._members)


def search_triplets(P, grades, texts, X, baselines, seed, note, relation=None):
    """FILM's triplets from search supervision, with negatives from the collection (issue 42).

    Each (anchor, relevant text) of the relevant pairs ``P[grades > 0]`` (queries to documents,
    or both directions of duplicates) gets up to three negatives, none of them relevant to the
    anchor: a *hard* one, drawn among the anchor's ``_BM25_NEGATIVE_DEPTH`` best documents by BM25
    over the collection (``baselines``: the :class:`learnsim.baseline.SearchBaselines` of the
    collection); a *random* document; and a *labelled* one, a partner the supervision says is not
    relevant (grade 0), where the anchor has one; with graded judgements, a *graded* one, a relevant
    text of a lower grade than the relevant text's. The hard and random negatives are documents of
    the collection that some relevant pair names (other queries' relevant documents, as in-batch
    negatives are): with the documents no pair names among them, FILM learned to push every
    unjudged document away from every query, which the cold part of the check then measured as a
    loss (a remembered prior, not relevance). Texts without a
    vocabulary term are left out (FILM L2-normalises every row it learns from); above
    ``_MAX_FILM_TRIPLETS`` a seeded sample is kept.

    ``relation`` (:func:`learnsim.baseline.search_relation` of all the pairs, which ``P`` may be
    a part of) says whether they go from queries to documents and whether chains are duplicates.

    Returns
    -------
    (triplets (n, 3) int64, counts {"hard", "random", "labelled", "graded", "anchors", "triplets"})
    """
    from ..text import find_empty_rows

    rng = np.random.default_rng(seed)
    P = np.asarray(P, dtype=np.int64)
    grades = np.asarray(grades, dtype=np.float64)
    sets, _ = _relevant_sets(P, grades, len(texts), relation)
    # negatives are the collection's documents that some relevant pair names: a document that is
    # only ever a negative teaches the map that unjudged documents are far from every query (a
    # prior against the documents added after the judgements), not what makes one relevant
    judged = np.intersect1d(baselines.documents, P[grades > 0].ravel())
    documents = judged if judged.size > 1 else baselines.documents
    negatives = {}
    for a, b in P[grades == 0].tolist():
        negatives.setdefault(a, []).append(b)
        negatives.setdefault(b, []).append(a)
    # graded judgements: a relevant text of a higher grade is closer than one of a lower grade
    grade_of = {}
    positive = grades > 0
    if np.unique(grades[positive]).size > 1:
        for (a, b), g in zip(P[positive].tolist(), grades[positive].tolist()):
            grade_of[(a, b)] = g
    anchors = np.array(sorted(sets), dtype=np.int64)
    # above _MAX_FILM_PAIRS (anchor, relevant text) pairs, a seeded sample of them makes the
    # triplets (the position of each in the anchors' sorted relevant texts); under it every pair,
    # and no draw: the triplets as before
    chosen = None
    sizes = np.array([len(sets[a]) for a in anchors.tolist()], dtype=np.int64)
    if sizes.sum() > _MAX_FILM_PAIRS:
        picks = np.sort(rng.choice(int(sizes.sum()), _MAX_FILM_PAIRS, replace=False))
        ends = np.cumsum(sizes)
        cuts = np.searchsorted(picks, ends - sizes), np.searchsorted(picks, ends)
        chosen = {a: picks[lo:hi] - (end - size) for a, lo, hi, end, size
                  in zip(anchors.tolist(), *cuts, ends.tolist(), sizes.tolist()) if hi > lo}
        anchors = np.array(sorted(chosen), dtype=np.int64)
    # deeper than the negatives kept: some of the anchor's best documents are unjudged ones
    depth = min(3 * _BM25_NEGATIVE_DEPTH + 1, baselines.documents.size)
    with stage("FILM: finding each anchor's best documents by BM25 (hard negatives)"):
        found, _ = baselines.lexical.search("bm25", [texts[a] for a in anchors], depth)
    allowed = np.zeros(len(texts), dtype=bool)
    allowed[documents] = True
    rows, kinds = [], []
    for i, a in enumerate(anchors.tolist()):
        relevant = sets[a]
        hard = [int(d) for d in baselines.documents[found[i]] if d != a and d not in relevant and allowed[d]]
        hard = hard[:_BM25_NEGATIVE_DEPTH]
        labelled = [d for d in negatives.get(a, ()) if d not in relevant]
        pairs_of = sorted(relevant)
        for b in (pairs_of if chosen is None else [pairs_of[j] for j in chosen[a].tolist()]):
            if hard:
                rows.append((a, b, hard[rng.integers(len(hard))]))
                kinds.append(0)
            r = int(documents[rng.integers(documents.size)])
            if r != a and r not in relevant:
                rows.append((a, b, r))
                kinds.append(1)
            if labelled:
                rows.append((a, b, labelled[rng.integers(len(labelled))]))
                kinds.append(2)
            if grade_of:
                lower = [c for c in sorted(relevant) if grade_of.get((a, c), np.inf) < grade_of.get((a, b), 0.0)]
                if lower:
                    rows.append((a, b, lower[rng.integers(len(lower))]))
                    kinds.append(3)
    T = np.array(rows, dtype=np.int64).reshape(-1, 3)
    if len(T) == 0 and not any(np.setdiff1d(documents, [a, *sets[a]]).size for a in anchors.tolist()):
        # (the texts without a term, below, were blamed for it, though none was empty)
        raise ValueError("no usable triplet: no text the pairs judge can be a negative for a relevant pair, since "
                         "each is relevant to (a duplicate of, directly or through a chain of duplicate pairs) every "
                         "anchor; FILM learns to put a relevant text closer than one that is not: give pairs of texts "
                         "that are not duplicates (label 0) and that no chain of duplicate pairs joins, or more texts")
    kinds = np.array(kinds, dtype=np.int64)
    empty = find_empty_rows(X)
    if empty.size and T.size:
        unusable = np.isin(T, empty).any(axis=1)
        if unusable.any():
            note(f"{int(unusable.sum())} of {len(T)} triplets use one of the {empty.size} text(s) without "
                 "a vocabulary term; they are left out")
            T, kinds = T[~unusable], kinds[~unusable]
    if len(T) == 0:
        raise ValueError("no usable triplet: every relevant pair uses a text without a vocabulary term")
    if len(T) > _MAX_FILM_TRIPLETS:
        note(f"FILM learns from a sample of {_MAX_FILM_TRIPLETS} of the {len(T)} triplets", info=True)
        keep = np.sort(rng.choice(len(T), _MAX_FILM_TRIPLETS, replace=False))
        T, kinds = T[keep], kinds[keep]
    counts = dict(zip(("hard", "random", "labelled", "graded"), np.bincount(kinds, minlength=4).tolist()))
    counts.update(anchors=int(anchors.size), triplets=int(len(T)))
    return T, counts


def _unit(M):
    import scipy.sparse as sp

    if sp.issparse(M):
        from sklearn.preprocessing import normalize

        return normalize(sp.csr_matrix(M, dtype=np.float64))
    M = np.asarray(M, dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", M, M))
    return M / np.where(norms > 0, norms, 1.0)[:, None]


def search_bases(metric, X, documents, dense):
    """The bases of FILM's search rules for :func:`learnsim.baseline.validate_search`:
    "learned", the cosine in FILM's space, and over term vectors "input", the input cosine (over
    a dense encoder the input cosine is the baseline's "encoder")."""
    E = _unit(metric.transform(X))
    bases = {"learned": lambda q: E[q] @ E[documents].T}
    if not dense:
        Xu = _unit(X)
        D = Xu[documents].T

        def input_cosine(q):
            S = Xu[q] @ D
            return S.toarray() if hasattr(S, "toarray") else np.asarray(S)
        bases["input"] = input_cosine
    return bases


def search_probe(metric, to_vectors, X, documents, dense):
    """FILM's bases of :func:`search_bases` over new texts, for the check's plain queries
    (:mod:`learnsim.baseline._probe`): ``probe(texts) -> {name: scores over documents}``, with
    the encoder's cosine over a dense encoder. ``to_vectors``: the fit's vectoriser (or encoder)
    from texts to rows of X's space."""
    E = _unit(metric.transform(X[documents]))
    Xd = _unit(X[documents])

    def dense_of(S):
        return np.asarray(S.toarray() if hasattr(S, "toarray") else S, dtype=np.float64)

    def probe(texts):
        Z = to_vectors(list(texts))
        Z = Z.astype(np.float64) if Z.dtype != np.float64 else Z
        Zu = _unit(Z)
        out = {"learned": dense_of(_unit(metric.transform(Z)) @ E.T)}
        out["encoder" if dense else "input"] = dense_of(Zu @ Xd.T)
        return out
    return probe


def search_candidates(dense):
    """(candidates, (w, lambda) of each): FILM's search rules tried on held-out queries.

    Over term vectors: w x the input cosine + (1 - w) x FILM's cosine, and lambda x BM25 + (1 -
    lambda) x FILM's cosine (a rule with both would need two vocabularies of the searched
    collection). Over a dense encoder: lambda x BM25 + (1 - lambda) x (w x the encoder's cosine +
    (1 - w) x FILM's)."""
    grid = SEARCH_WEIGHT_GRID
    if dense:
        params = [(w, lam) for lam in grid for w in grid if lam < 1.0 or w == 1.0]
        return [{"bm25": lam, "encoder": (1 - lam) * w, "learned": (1 - lam) * (1 - w)} for w, lam in params], params
    params = [(w, 0.0) for w in grid] + [(0.0, lam) for lam in grid[1:]]
    return [{"input": w, "bm25": lam, "learned": 1.0 - w - lam} for w, lam in params], params
