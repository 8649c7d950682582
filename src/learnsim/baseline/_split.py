"""Holding search supervision out the way use comes (issue 42): by query *and* by document, or by
whole components of pairs.

A learner fitted on (query, relevant document) pairs and checked on held-out *pairs* is checked on
queries whose documents it was trained on: a map that remembers which documents were judged
relevant passes that check and loses on new queries about other documents. So the held-out part
is made of what use brings:

- **Query and document** (supervision that goes from queries to documents: no text is both a
  query and a document, as relevance judgements or (question, answer) pairs). A seeded share of
  the queries is held out with all their pairs. For half of them their relevant documents are
  held out too, with every pair that names them (at most half that share of the judged
  documents):
  those documents appear in no training pair. Each held-out query then has a *cold* part, its
  relevant documents no training pair names, and a *warm* part, those some training pair names;
  a query whose relevant documents are all cold is cold as a whole.
- **Component** (symmetric supervision, duplicate pairs: a text may sit on either side). The
  pairs' graph is cut into connected components and whole components are held out, so no text
  sits on both sides; every held-out query is cold.

Which of the two the pairs are is read once (:func:`search_relation`): a few texts on both sides
of query-to-document pairs (a document-to-document pair among judgements, a query that is also a
document) do not make judgements duplicates, whose chains would join most texts into one "set of
duplicates". The unit held out is a query's *text*, not its id (:func:`text_units`): a query
asked again under another id, or in other case and punctuation, is held out with its twin, which
would otherwise be trained on and found again (a gain the check counted that new queries do not
see).

Clusters are held out whole by :func:`learnsim.baseline.split_groups`; links by
:func:`learnsim.supervision.split_links` (documents with their links).
"""
from __future__ import annotations

import numbers
import re
import unicodedata
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._gain import DEFAULT_HOLDOUT, _rng

__all__ = ["SearchSplit", "SearchRelation", "split_search", "search_relation", "text_units", "search_documents", "orient_pairs", "split_clusters", "judged_queries", "judged_links", "judged_triplets"]

#: The two ways :func:`split_search` holds supervision out (clusters: :func:`split_clusters`).
SPLITS = ("query and document", "component")
# Judged queries kept for the choice of the strongest baseline (a seeded sample above it: each
# searches the whole collection, as the held-out ones do)
MAX_JUDGED = 1000
# ... and at most this many (query, relevant document) entries among them (large clusters)
MAX_JUDGED_ENTRIES = 2_000_000
# At most this share of the held-out queries has its documents held out too (the rest stay
# warm where other queries name their documents).
_COLD_QUERY_SHARE = 0.5
# Pairs go from queries to documents while at most this share of the texts of relevant pairs is
# on both sides (judgements with a document-to-document pair, a query that is a document too);
# Quora's duplicate pairs have 2-3 % there.
_MAX_BOTH_SIDES = 0.005
# Chains of duplicate pairs are relevance ("duplicates of duplicates are duplicates") only while
# the longest holds at most this share of the texts of relevant pairs, or _MIN_CHAIN texts: pairs
# that one chain joins into most of the texts are not sets of duplicates (Quora's longest: 29 of
# 9,230 texts), and reading them so makes every text relevant to every other.
_MAX_CHAIN_SHARE = 0.1
_MIN_CHAIN = 50
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class SearchRelation:
    """How search supervision reads (:func:`search_relation`).

    Attributes
    ----------
    directed : bool
        From queries to documents (relevance judgements, (question, answer) pairs), else
        symmetric (duplicates: a text may ask or be found).
    chains : bool
        Pairs of grade 1 whose chains are sets of duplicates: read symmetric, every text is
        relevant to every other its chains of relevant pairs join it to.
    """

    directed: bool
    chains: bool


def search_relation(pairs, grades, n_texts, documents=None):
    """Whether search supervision goes from queries to documents, and whether its chains of
    relevant pairs are sets of duplicates: read once, from all the pairs, for the split and the
    learner alike.

    Directed when no text is on both sides of relevant pairs, or when few are (at most
    ``_MAX_BOTH_SIDES`` of the texts of relevant pairs), or when a collection is given
    (``documents``) and most texts that ask are not in it (judgements: queries from outside
    search a corpus; duplicates ask the collection they are part of). Chains when every
    relevant grade is 1 and the longest chain of relevant pairs holds at most
    ``_MAX_CHAIN_SHARE`` of the texts of relevant pairs (or ``_MIN_CHAIN`` texts).

    Examples
    --------
    Judgements of three queries (texts 0-2) over documents 3-9, and one pair of two documents
    (5, 6), as a pairs file may hold: still judgements.

    >>> import numpy as np
    >>> from learnsim.baseline import search_relation
    >>> pairs = np.array([[0, 3], [0, 4], [1, 5], [2, 6], [2, 7], [5, 6]])
    >>> search_relation(pairs, np.ones(6), 10, documents=np.arange(3, 10))
    SearchRelation(directed=True, chains=True)
    >>> search_relation(np.array([[0, 1], [2, 3], [1, 4], [5, 6]]), np.ones(4), 7)   # duplicates
    SearchRelation(directed=False, chains=True)
    """
    P, G = _check(pairs, grades, n_texts)
    positive = G > 0
    if not positive.any():
        return SearchRelation(directed=True, chains=False)
    heads, tails = np.unique(P[positive, 0]), np.unique(P[positive, 1])
    both = np.intersect1d(heads, tails).size
    named = np.union1d(heads, tails)
    directed = both <= _MAX_BOTH_SIDES * named.size
    if not directed and documents is not None:
        directed = np.isin(heads, np.asarray(documents, dtype=np.int64)).mean() < 0.5
    chains = False
    if np.all(G[positive] == 1.0):
        labels = _components(P, n_texts, mask=positive)
        longest = int(np.bincount(labels[named]).max())
        chains = longest <= max(_MIN_CHAIN, _MAX_CHAIN_SHARE * named.size)
    return SearchRelation(directed=bool(directed), chains=bool(chains))


def text_units(texts, among=None, terms=None):
    """Per text, the unit it is held out with: the first text (index) of the same words.

    Two texts are one unit when the sets of their words (``\\w+`` of the NFKC, case-folded
    text) are equal: a query asked again under another id, in other case or punctuation, or its
    words in another order. A text without a word is its own unit. ``among`` (indices): only
    those texts are compared (the others are their own units), e.g. the texts of the pairs.
    ``terms`` (callable(text) -> its terms, e.g. the baselines' tokenizer): texts of the same
    terms are one unit too, so that a query asked again with a stop word more, or a word in
    another inflection, is held out with its twin: to a reader that drops stop words and stems
    the two are one query, and a learner trained on one finds the other's documents again.

    Examples
    --------
    >>> from learnsim.baseline import text_units
    >>> text_units(["Skim milk and acne?", "fish oil", "skim MILK and acne", "acne and skim milk", "?"]).tolist()
    [0, 1, 0, 0, 4]
    """
    n = len(texts)
    units = np.arange(n, dtype=np.int64)
    first = {}
    for i in (range(n) if among is None else np.unique(np.asarray(among, dtype=np.int64)).tolist()):
        words = _WORD.findall(unicodedata.normalize("NFKC", texts[i]).casefold())
        if not words:
            continue
        keys = [("words", " ".join(sorted(set(words))))]
        if terms is not None:
            read = sorted(set(terms(texts[i])))
            if read:
                keys.append(("terms", " ".join(read)))
        # the first text either key met (texts of the same words have the same terms)
        unit = next((first[k] for k in keys if k in first), i)
        for k in keys:
            first.setdefault(k, unit)
        units[i] = unit
    return units


@dataclass(frozen=True)
class SearchSplit:
    """The held-out part of search supervision (:func:`split_search`).

    Attributes
    ----------
    train : ndarray of bool (n_pairs,)
        The pairs the learner is fitted on during the check.
    held : ndarray of bool (n_pairs,)
        The pairs the learner does not see (of the held-out queries or components, and those that
        name a held-out document): what a duplicate rule is checked on.
    queries : ndarray of int (n_queries,)
        The held-out query texts, each searching ``documents``.
    relevant : tuple of dict
        Per query, its relevant texts among ``documents`` and their grades (> 0).
    seen : tuple of frozenset
        Per query, those of its relevant texts that some training pair names (the warm part).
    documents : ndarray of int
        The collection the queries search (sorted text indices); a query never finds itself.
    groups : ndarray of int (n_queries,)
        Units resampled together by the bootstrap (a component, or the query itself).
    by : {"query and document", "component", "cluster", "documents"}
        ("documents": documents held out with their links, by a fit from links)
    n_cold_documents : int
        Documents held out with every pair that names them.
    named : ndarray of int or None
        The texts some training pair (or training cluster) names, sorted: the documents the
        learner saw. With it, the check also ranks the relevant documents no training pair names
        among the documents none names (:class:`learnsim.baseline.PooledScores`' "apart" part).
        None: not known (every part ranks the whole collection).
    judgements : ndarray of int or None
        The texts any pair names, training or held out, of any grade (the clusters' items): the
        documents some judgement names. With it, the check also ranks every held-out query among
        those documents only (:class:`learnsim.baseline.PooledScores`' "condensed" part). None:
        the texts ``named``, the held-out queries with their relevant documents and ``judged``'s
        stand for them.
    judged : tuple or None
        ``(queries, relevant, groups)`` of *every* judged query, training ones included: what
        the strongest baseline is chosen on (:meth:`every_query`). A baseline learns nothing, so
        the training queries judge it as fairly as the held-out ones, and there are several
        times more of them. None: chosen on the held-out queries.

    Examples
    --------
    Four queries (texts 0-3) judge six documents (texts 4-9); one query is held out, and with
    ``fraction=0.5`` two:

    >>> import numpy as np
    >>> from learnsim.baseline import split_search
    >>> pairs = np.array([[0, 4], [0, 5], [1, 5], [1, 6], [2, 7], [2, 8], [3, 8], [3, 9]])
    >>> split = split_search(pairs, np.ones(8), 10, fraction=0.5, random_state=0)
    >>> split.by, len(split.queries), split.documents.tolist()
    ('query and document', 2, [4, 5, 6, 7, 8, 9])
    >>> bool(split.cold.any()), int(split.train.sum()) < 8
    (True, True)
    """

    train: np.ndarray
    held: np.ndarray
    queries: np.ndarray
    relevant: tuple
    seen: tuple
    documents: np.ndarray
    groups: np.ndarray
    by: str
    n_cold_documents: int = 0
    judged: tuple | None = None
    named: np.ndarray | None = None
    judgements: np.ndarray | None = None

    @property
    def n_queries(self):
        return int(self.queries.size)

    @property
    def cold(self):
        """Queries none of whose relevant documents a training pair names."""
        return np.array([not s for s in self.seen], dtype=bool)

    @property
    def has_unseen(self):
        """Queries with at least one relevant document no training pair names (a cold part)."""
        return np.array([len(r) > len(s) for r, s in zip(self.relevant, self.seen)], dtype=bool)

    @property
    def has_seen(self):
        """Queries with at least one relevant document a training pair names (a warm part)."""
        return np.array([bool(s) for s in self.seen], dtype=bool)

    def view(self, part):
        """Per query, ``(relevant, excluded)`` of one part of the judgements.

        ``part`` is "all" (every relevant document), "cold" (the relevant documents no training
        pair names; the others are taken out of the ranking, so that finding a remembered
        document neither helps nor hurts) or "warm" (the named ones; the unseen ones taken out).
        A query without documents in that part gets an empty dict.
        """
        if part not in ("all", "cold", "warm"):
            raise ValueError(f"part must be 'all', 'cold' or 'warm'; got {part!r}")
        out = []
        for rel, seen in zip(self.relevant, self.seen):
            if part == "all":
                out.append((rel, ()))
                continue
            keep = (lambda d: d not in seen) if part == "cold" else (lambda d: d in seen)
            out.append(({d: g for d, g in rel.items() if keep(d)},
                        tuple(sorted(d for d in rel if not keep(d)))))
        return out

    def every_query(self):
        """A SearchSplit of every judged query (``judged``) over the same documents, each query
        cold (nothing is learned on it), or None without them."""
        if self.judged is None:
            return None
        queries, relevant, groups = self.judged
        return SearchSplit(train=self.train, held=self.held, queries=np.asarray(queries, dtype=np.int64),
                           relevant=tuple(relevant), seen=tuple(frozenset() for _ in relevant),
                           documents=self.documents, groups=np.asarray(groups, dtype=np.int64), by=self.by)

    def describe(self, texts=None):
        """The held-out part in words (for the fit's report). ``texts``: the texts the indices
        name, when some are copies (a pair of two identical texts holds a copy of its text,
        datasets.pairs._pair_indices): the documents searched are then counted as distinct texts
        (:func:`_n_documents`), as the fit's report counts its texts, not once per copy."""
        n_cold, n_unseen, n_seen = int(self.cold.sum()), int(self.has_unseen.sum()), int(self.has_seen.sum())
        n_docs = _n_documents(self.documents, texts)
        if self.by in ("component", "cluster"):
            whole = "components of pairs" if self.by == "component" else "clusters"
            return (f"{self.n_queries} held-out queries of whole held-out {whole} (all cold), "
                    f"searching {n_docs} documents")
        if self.by == "cluster items":
            return (f"{self.n_queries} held-out items of the clusters (all cold), each searching the "
                    f"{n_docs} held-out items and unclustered texts for its cluster mates")
        return (f"{self.n_queries} held-out queries searching {n_docs} documents; {n_unseen} have "
                f"relevant documents no training pair names ({n_cold} only such), {n_seen} have some a "
                f"training pair names (warm); {self.n_cold_documents} documents held out with their pairs")


def _n_documents(documents, texts=None):
    """How many documents the held-out queries search, for the report: distinct texts when the
    ``texts`` are given (copies of a text made for a pair of two identical texts are not more
    documents), else the indices."""
    return documents.size if texts is None else len({texts[i] for i in np.asarray(documents).tolist()})


def _check(pairs, grades, n_texts):
    P = np.asarray(pairs)
    if P.ndim != 2 or P.shape[1] != 2 or P.dtype.kind not in "iu":
        raise ValueError(f"pairs must be an (n, 2) array of text indices; got shape {P.shape}, dtype {P.dtype}")
    if not isinstance(n_texts, numbers.Integral) or isinstance(n_texts, bool) or n_texts < 1:
        raise ValueError(f"n_texts must be a positive integer; got {n_texts!r}")
    if P.size and (P.min() < 0 or P.max() >= n_texts):
        raise ValueError(f"pairs name a text outside 0 to {n_texts - 1}")
    G = np.asarray(grades, dtype=np.float64).ravel()
    if G.shape != (P.shape[0],) or not np.isfinite(G).all() or (G < 0).any():
        raise ValueError(f"grades must be {P.shape[0]} finite numbers >= 0 (0: not relevant); got shape {G.shape}")
    return P.astype(np.int64), G


def _components(P, n_texts, mask=None, units=None):
    """Connected-component label of every text under the pairs (``mask``: those pairs only), the
    texts of a unit (``units``) joined; texts in no pair get their own label."""
    from scipy.sparse.csgraph import connected_components

    E = P if mask is None else P[mask]
    if units is not None:
        twins = np.flatnonzero(units != np.arange(n_texts))
        E = np.concatenate([E, np.column_stack([twins, units[twins]])]) if twins.size else E
    A = sp.csr_matrix((np.ones(len(E)), (E[:, 0], E[:, 1])), shape=(n_texts, n_texts))
    return connected_components(A, directed=False)[1]


def split_search(pairs, grades, n_texts, *, fraction=DEFAULT_HOLDOUT, documents=None, random_state=0, by="auto",
                 relation=None, units=None, fold=None, twins=None):
    """Hold out search supervision by query and by document, or by component.

    Parameters
    ----------
    pairs : array of int (n_pairs, 2)
        ``(query or text, document or text)`` indices into the texts.
    grades : array (n_pairs,)
        A pair's relevance: > 0 relevant (its grade, nDCG's gain), 0 not relevant.
    n_texts : int
    fraction : float in (0, 1), default 0.2
        The share of the queries (or of the relevant pairs, by component) held out.
    documents : array of int, optional
        The collection searched (e.g. a corpus the user gave beside the pairs). Default: every
        text, but the texts that only ever ask (the query side of query-to-document pairs).
    random_state : int or Generator, default 0
    by : {"auto", "query and document", "component"}
        "auto": by query and document when the pairs go from queries to documents
        (``relation.directed``), by component otherwise (module notes).
    relation : SearchRelation, optional
        How the pairs read; default :func:`search_relation` of these pairs and ``documents``.
    units : array of int (n_texts,), optional
        The unit each text is held out with (:func:`text_units`): the texts of a unit are held
        out together and resampled together by the bootstrap. Default: each text its own.
    fold : (int, int), optional
        ``(k, n_folds)``: the k-th of ``n_folds`` disjoint held-out parts that together hold
        every query out once (cross-fitting, :func:`validate_search`'s ``folds``): the seeded order
        of the query units cut into ``n_folds`` runs of about as many queries, ``fraction``
        then being about 1 / ``n_folds``. Query-to-document pairs only (``relation.directed``).
    twins : array of int (n_texts,), optional
        Query-to-document pairs: texts of one twin unit (:func:`text_units` with ``terms=``: the
        same terms, a stop word more) leave training with a held-out one, as ``units`` do, but do
        not choose what is held out: the seeded order of ``units`` stays as it was.

    Returns
    -------
    SearchSplit, or None when the supervision is too small to hold two queries (or
    components) out and keep two.
    """
    P, G = _check(pairs, grades, n_texts)
    if not 0.0 < float(fraction) < 1.0:
        raise ValueError(f"fraction must be in (0, 1); got {fraction!r}")
    if by not in ("auto",) + SPLITS:
        raise ValueError(f"by must be 'auto' or one of {SPLITS}; got {by!r}")
    positive = G > 0
    if not positive.any():
        raise ValueError("no relevant pair (grade > 0): search is checked on queries with relevant documents")
    if relation is None:
        relation = search_relation(P, G, n_texts, documents)
    units = np.arange(n_texts, dtype=np.int64) if units is None else np.asarray(units, dtype=np.int64)
    if units.shape != (n_texts,):
        raise ValueError(f"units must give each of the {n_texts} texts its unit; got shape {units.shape}")
    directed = relation.directed
    if by == "auto":
        by = SPLITS[0] if directed else SPLITS[1]
    if fold is not None:
        k, n_folds = fold
        if not (directed and by == SPLITS[0]):
            raise ValueError("folds hold out queries of query-to-document pairs; these pairs read as duplicates")
        if not (isinstance(n_folds, numbers.Integral) and n_folds >= 2 and isinstance(k, numbers.Integral)
                and 0 <= k < n_folds):
            raise ValueError(f"fold must be (k, n_folds) with 0 <= k < n_folds and n_folds >= 2; got {fold!r}")
    documents = _documents(P, G, n_texts, documents, directed=by == SPLITS[0])
    rng = _rng(random_state)
    if by == SPLITS[0]:
        return _by_query_and_document(P, G, n_texts, float(fraction), documents, rng, units, symmetric=not directed,
                                      chains=relation.chains, fold=fold, twins=twins)
    split = _by_component(P, G, n_texts, float(fraction), documents, rng, units, chains=relation.chains)
    if split is None:
        # chains of pairs join most texts: no whole component can be held out, so queries (texts of
        # either side) and their documents are
        split = _by_query_and_document(P, G, n_texts, float(fraction), documents, rng, units, symmetric=True,
                                       chains=relation.chains)
    return split


def search_documents(pairs, grades, n_texts, documents=None):
    """The collection search supervision is checked on (:func:`split_search`'s ``documents``):
    the given documents with every relevant document of the pairs, or by default every text but
    those that only ask (the query side of query-to-document pairs).

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.baseline import search_documents
    >>> search_documents(np.array([[0, 2], [1, 3]]), np.ones(2), 5).tolist()   # 0 and 1 only ask
    [2, 3, 4]
    """
    P, G = _check(pairs, grades, n_texts)
    return _documents(P, G, n_texts, documents, search_relation(P, G, n_texts, documents).directed)


def orient_pairs(pairs, grades, documents=None):
    """The pairs with the side that asks first: as given, unless a collection (``documents``) is
    given that holds every first text of the relevant pairs but not every second one: then the
    second texts ask (the pairs were written (document, query)).

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.baseline import orient_pairs
    >>> orient_pairs(np.array([[0, 5], [1, 6]]), np.ones(2), documents=[0, 1, 2]).tolist()
    [[5, 0], [6, 1]]
    """
    P = np.asarray(pairs)
    if documents is None or not len(P):
        return P
    positive = np.asarray(grades) > 0
    docs = np.asarray(documents)
    heads_in = np.isin(P[positive, 0], docs).all()
    tails_in = np.isin(P[positive, 1], docs).all()
    return P[:, ::-1].copy() if heads_in and not tails_in else P


def _documents(P, G, n_texts, documents, directed):
    positive = G > 0
    heads, tails = np.unique(P[positive, 0]), np.unique(P[positive, 1])
    if documents is not None:
        return np.union1d(np.asarray(documents, dtype=np.int64), tails if directed else P[positive].ravel())
    in_pairs = np.unique(P.ravel())
    found = np.setdiff1d(in_pairs, np.setdiff1d(heads, tails)) if directed else in_pairs
    # texts in no pair (a corpus given as texts) are documents too
    return np.union1d(found, np.setdiff1d(np.arange(n_texts), in_pairs))


def _relevance(P, G, rows, n_texts, symmetric, documents):
    """{text: {relevant text: grade}} of the relevant pairs ``rows`` (both directions when
    symmetric), restricted to ``documents``; a text is never relevant to itself."""
    is_doc = np.zeros(n_texts, dtype=bool)
    is_doc[documents] = True
    out = {}

    def add(q, d, g):
        if q != d and is_doc[d]:
            rel = out.setdefault(int(q), {})
            rel[int(d)] = max(rel.get(int(d), 0.0), float(g))

    for r in rows:
        a, b = P[r]
        add(a, b, G[r])
        if symmetric:
            add(b, a, G[r])
    return out


def _chain_relevance(P, G, rows, n_texts, documents):
    """{text: {relevant text: 1}} of the texts of the relevant pairs ``rows``: duplicates of
    duplicates are duplicates, so each text's relevant ones are the others its chains of relevant
    pairs (all of them) join it to, among ``documents``."""
    texts, sizes, mates = _chain_mates(P, G, rows, n_texts, documents)
    return {int(t): mates(t) for t in texts[sizes > 0].tolist()}


def _chain_mates(P, G, rows, n_texts, documents):
    """(texts, sizes, mates) for the texts of the relevant pairs ``rows`` (sorted): how many
    relevant texts each has (:func:`_chain_relevance`) and ``mates(text)``, its relevance dict,
    built only when asked for: a chain of m texts makes m (m - 1) entries in all (16 million for
    20 chains of 2,000, 4 of them held out), so the callers count first and build the few they keep."""
    chains = _components(P, n_texts, mask=G > 0)
    is_doc = np.zeros(n_texts, dtype=bool)
    is_doc[documents] = True
    texts = np.unique(P[rows].ravel())
    linked = np.unique(P[G > 0].ravel())
    linked = linked[is_doc[linked]]
    # the documents of each chain, grouped (sorted within a chain: linked is sorted, the sort stable)
    linked = linked[np.argsort(chains[linked], kind="stable")]
    starts = np.searchsorted(chains[linked], chains[texts], side="left")
    ends = np.searchsorted(chains[linked], chains[texts], side="right")
    # a text of a relevant pair is in its own chain's documents when it is a document
    sizes = ends - starts - is_doc[texts]
    where = dict(zip(texts.tolist(), zip(starts.tolist(), ends.tolist())))

    def mates(t):
        lo, hi = where[int(t)]
        return {d: 1.0 for d in linked[lo:hi].tolist() if d != t}

    return texts, sizes, mates


def _within_budget(candidates, sizes, rng):
    """A seeded sample of ``candidates`` (those of ``sizes`` > 0) whose ``sizes`` sum to at most
    MAX_JUDGED_ENTRIES (two at least), sorted; every one of them, with no draw from ``rng``,
    when they fit (the split as before the bound)."""
    candidates, sizes = candidates[sizes > 0], sizes[sizes > 0]
    if int(sizes.sum()) <= MAX_JUDGED_ENTRIES:
        return candidates
    taken, total = [], 0
    for i in rng.permutation(candidates.size).tolist():
        if total + sizes[i] > MAX_JUDGED_ENTRIES and len(taken) >= 2:
            break
        taken.append(candidates[i])
        total += int(sizes[i])
    return np.sort(np.asarray(taken, dtype=np.int64))


def _by_query_and_document(P, G, n_texts, fraction, documents, rng, units, symmetric=False, chains=False, fold=None,
                           twins=None):
    positive = np.flatnonzero(G > 0)
    relevance = (_chain_relevance(P, G, positive, n_texts, documents) if symmetric and chains
                 else _relevance(P, G, positive, n_texts, symmetric, documents))
    queries = np.array(sorted(relevance), dtype=np.int64)
    # where the queries are texts of the collection too (duplicates whose chains join most texts),
    # every query held out takes its pairs out of training: half the share each, queries and documents
    n_held = max(2, int(round((fraction / 2 if symmetric else fraction) * queries.size)))
    if queries.size - n_held < 2:
        return None
    # whole units in a seeded order (each query its own unit, unless a twin asks the same words)
    members = {}
    for q in queries.tolist():
        members.setdefault(int(units[q]), []).append(q)
    order = []
    seeded = rng.permutation(np.array(sorted(members), dtype=np.int64)).tolist()
    if fold is None:
        for u in seeded:
            if len(order) >= n_held:
                break
            order.extend(members[u])
    else:
        # the k-th run of the same seeded order: each query falls in one fold (a unit in the fold
        # its first query's place in the order gives)
        k, n_folds = fold
        before = 0
        for u in seeded:
            if min(n_folds - 1, before * n_folds // queries.size) == k:
                order.extend(members[u])
            before += len(members[u])
        n_held = len(order)
        if n_held < 2:
            return None
    if queries.size - len(order) < 2:
        return None
    held_queries = np.sort(np.array(order, dtype=np.int64))
    # documents held out with every pair that names them: the relevant documents of the first
    # held-out queries (in the seeded order), while they stay within `fraction` of the judged ones
    judged = np.unique(P[positive].ravel() if symmetric else P[positive, 1])
    # at most half the share of the judged documents: they take out the pairs of every query that
    # names them, and the check needs the learner trained on most of the supervision
    # (and never all of them: one judged document held out leaves the learner no relevant pair)
    budget = min(max(1, int(round(fraction / 2 * judged.size))), judged.size - 1)
    cold_docs = set()
    for q in order[:max(1, int(_COLD_QUERY_SHARE * n_held))]:
        docs = set(relevance[int(q)])
        if len(cold_docs | docs) > budget:
            continue
        cold_docs |= docs
    out = np.zeros(n_texts, dtype=bool)
    out[held_queries] = True
    out[list(cold_docs)] = True
    # a text of the same words as a held-out one (a twin query, a copy of a document) is held out
    # with it: trained on, it would be found again as learning
    out |= np.isin(units, units[out])
    if twins is not None:
        # and a text of the same terms (a stop word more): to the learner the same query
        out |= np.isin(twins, np.asarray(twins)[out])
    train = ~(out[P[:, 0]] | out[P[:, 1]])
    # the twins taken out with the held-out texts may leave training fewer than two queries with
    # a relevant pair (texts that differ by one-letter words only, "number 1" and "number 3", read
    # the same): too few to learn from, as where fewer than two queries stay
    if np.unique(P[np.intersect1d(positive, np.flatnonzero(train)), 0]).size < 2:
        return None
    # the groups of pairs without a relevant pair (non-duplicates of texts no query asks with) are
    # held out whole at the same share, so that the held-out pairs have both kinds, as the
    # supervision has
    labels = _components(P, n_texts)
    negative_only = np.setdiff1d(np.unique(labels[P[:, 0]]), labels[P[positive, 0]])
    if negative_only.size:
        seeded = rng.permutation(negative_only)
        taken = (seeded[:int(round(fraction * negative_only.size))] if fold is None
                 else np.array_split(seeded, fold[1])[fold[0]])
        train &= ~np.isin(labels[P[:, 0]], taken)
    # every pair the learner does not see: those of the held-out queries and those naming a
    # held-out document (a duplicate rule is checked on all of them)
    held = ~train
    named = np.zeros(n_texts, dtype=bool)
    named[P[train].ravel()] = True
    rel = tuple(relevance[int(q)] for q in held_queries)
    seen = tuple(frozenset(d for d in r if named[d]) for r in rel)
    return SearchSplit(train=train, held=held, queries=held_queries, relevant=rel, seen=seen, documents=documents,
                       groups=units[held_queries], by=SPLITS[0], n_cold_documents=len(cold_docs),
                       named=np.flatnonzero(named), judgements=np.unique(P.ravel()),
                       # every judged query (their relevance is built already; the pool samples them)
                       judged=(queries, tuple(relevance[int(q)] for q in queries), units[queries]))


def _by_component(P, G, n_texts, fraction, documents, rng, units, chains=False):
    # twins (texts of the same words) in one component: held out together
    labels = _components(P, n_texts, units=units)
    positive = G > 0
    comps = np.unique(labels[P[:, 0]])
    with_relevant = np.unique(labels[P[positive, 0]])
    if with_relevant.size < 4:
        return None
    # whole components (those with non-relevant pairs only too, so that the held-out pairs have
    # both kinds as the supervision has), in a seeded order, until `fraction` of the relevant
    # pairs is held out
    counts = np.bincount(labels[P[positive, 0]], minlength=labels.max() + 1)
    order = rng.permutation(comps)
    target = fraction * positive.sum()
    taken, total, n_relevant = [], 0, 0
    for c in order:
        if total >= target and n_relevant >= 2:
            break
        taken.append(c)
        total += counts[c]
        n_relevant += counts[c] > 0
    if with_relevant.size - n_relevant < 2:
        return None
    is_held = np.zeros(labels.max() + 1, dtype=bool)
    is_held[taken] = True
    held = is_held[labels[P[:, 0]]]
    train = ~held
    # relevance: duplicates of duplicates are duplicates (chains of relevant pairs) when every
    # grade is 1; graded pairs keep their direct partners and grades
    rows = np.flatnonzero(held & positive)
    if chains:
        # each text of a held-out chain of m asks for its m - 1 mates: a seeded sample of them, as
        # many as hold MAX_JUDGED_ENTRIES entries, asks (split_clusters' bound); the whole chains
        # stay out of training
        texts, sizes, mates = _chain_mates(P, G, rows, n_texts, documents)
        queries = _within_budget(texts, sizes, rng)
        rel = tuple(mates(q) for q in queries.tolist())
    else:
        relevance = _relevance(P, G, rows, n_texts, True, documents)
        queries = np.array(sorted(relevance), dtype=np.int64)
        rel = tuple(relevance[int(q)] for q in queries)
    if queries.size < 2:
        return None
    # the texts of a seeded sample of MAX_JUDGED / 2 relevant pairs, for the choice of the
    # strongest baseline; a chain's relevance is built only for the judged queries drawn
    # (judged_queries holds them to MAX_JUDGED_ENTRIES), not for all of up to 1,000 texts
    sample = np.sort(rng.permutation(np.flatnonzero(positive))[:MAX_JUDGED // 2])
    if chains:
        texts, sizes, relevant_of = _chain_mates(P, G, sample, n_texts, documents)
        candidates = texts[sizes > 0].tolist()
    else:
        every = _relevance(P, G, sample, n_texts, True, documents)
        candidates, relevant_of = sorted(every), every.get
    return SearchSplit(train=train, held=held, queries=queries, relevant=rel, seen=tuple(frozenset() for _ in rel),
                       documents=documents, groups=labels[queries], by=SPLITS[1], n_cold_documents=0,
                       judged=judged_queries(candidates, relevant_of, groups=labels, random_state=rng),
                       named=np.unique(P[train].ravel()), judgements=np.unique(P.ravel()))


def judged_queries(candidates, relevant_of, *, groups=None, random_state=0):
    """``SearchSplit.judged`` from the texts that may ask: ``(queries, relevant, groups)`` of a
    seeded sample of ``candidates``, each query's relevant documents ``relevant_of(query)`` (a
    dict; a query without any is left out), at most MAX_JUDGED queries holding at most
    MAX_JUDGED_ENTRIES relevant documents in all (large clusters), sorted; ``groups`` (an array
    over the texts) the bootstrap's units, each query its own by default.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.baseline import judged_queries
    >>> q, rel, g = judged_queries(np.arange(4), lambda q: {q + 10: 1.0} if q % 2 else {})
    >>> q.tolist(), rel
    ([1, 3], ({11: 1.0}, {13: 1.0}))
    """
    queries, relevant, total = [], [], 0
    for q in _rng(random_state).permutation(np.asarray(candidates, dtype=np.int64)).tolist():
        rel = relevant_of(q)
        if not rel:
            continue
        if total + len(rel) > MAX_JUDGED_ENTRIES and len(queries) >= 2:
            break
        queries.append(q)
        relevant.append(rel)
        total += len(rel)
        if len(queries) >= MAX_JUDGED:
            break
    order = np.argsort(queries, kind="stable")
    queries = np.asarray(queries, dtype=np.int64)[order]
    return (queries, tuple(relevant[i] for i in order),
            queries.copy() if groups is None else np.asarray(groups, dtype=np.int64)[queries])


def judged_links(adjacency, *, random_state=0):
    """``SearchSplit.judged`` of links: each document with a link (a seeded sample, as
    :func:`judged_queries`) asks for those it links with (``adjacency``: square, symmetric, CSR)."""
    A = sp.csr_matrix(adjacency)
    return judged_queries(np.arange(A.shape[0]), lambda q: {int(d): 1.0 for d in A.indices[A.indptr[q]:A.indptr[q + 1]]
                                                            if d != q}, random_state=random_state)


def judged_triplets(triplets, in_collection, *, random_state=0):
    """``SearchSplit.judged`` of relative comparisons ``(anchor, closer, farther)``: each anchor
    (a seeded sample, as :func:`judged_queries`) asks for the texts its triplets put closer and
    never farther, among those ``in_collection`` (a boolean mask over the texts) but itself."""
    T = np.asarray(triplets, dtype=np.int64)
    by_anchor = T[np.argsort(T[:, 0], kind="stable")]
    anchors, starts = np.unique(by_anchor[:, 0], return_index=True)
    ends = np.r_[starts[1:], by_anchor.shape[0]]

    def closer_of(a):
        i = int(np.searchsorted(anchors, a))
        mine = by_anchor[starts[i]:ends[i]]
        closer = set(mine[:, 1].tolist()) - set(mine[:, 2].tolist())
        return {int(d): 1.0 for d in sorted(closer) if in_collection[d] and d != a}

    return judged_queries(anchors, closer_of, random_state=random_state)


def split_clusters(labels, fraction=DEFAULT_HOLDOUT, *, random_state=0, min_train=2, fold=0):
    """Hold whole clusters out, as search is used on them: each item of a held-out cluster is a
    query whose relevant documents are the other items of its cluster, among every text (the
    training clusters' items and the unlabelled ones stay in the collection as distractors); no
    training item is relevant to it, so every query is cold.

    Parameters
    ----------
    labels : array of int (n_texts,)
        Cluster codes, -1 for a text in no cluster.
    fraction : float in (0, 1)
    min_train : int
        Clusters that must stay to learn from.
    fold : int, default 0
        Which run of the seeded order of the clusters is held out: 0 the first ``fraction`` of
        them, k the (k + 1)-th run of as many (cross-fitting: each fold held out of a learner
        fitted on the others, the folds disjoint); None past the last whole run.

    Returns
    -------
    (train_labels, SearchSplit): the labels with the held-out clusters' items set to -1, and the
    held-out part (``train``/``held`` over the texts); or None when the clusters are too few.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.baseline import split_clusters
    >>> train, split = split_clusters(np.repeat(np.arange(10), 3), 0.2, random_state=0)
    >>> split.by, split.n_queries, int((train == -1).sum())
    ('cluster', 6, 6)
    """
    from ._gain import split_groups

    y = np.asarray(labels)
    got = split_groups(y[y >= 0], fraction, random_state=random_state, min_held=2, min_train=min_train)
    if got is None:
        return None
    ids, held = got
    if fold:
        # the same seeded order as split_groups draws (an integer seed), its (fold + 1)-th run
        n_held = int(held.sum())
        run = _rng(random_state).permutation(ids.size)[fold * n_held:(fold + 1) * n_held]
        if run.size < n_held:
            return None
        held = np.zeros(ids.size, dtype=bool)
        held[run] = True
    is_held = np.isin(y, ids[held])
    members = {c: np.flatnonzero(y == c) for c in ids[held]}
    # Each held-out item asks for its m - 1 mates: m items of a cluster make m (m - 1) entries
    # (25 million for one cluster of 5,000, past 4 GB as dicts). A seeded sample of the items,
    # as many as hold MAX_JUDGED_ENTRIES entries, asks; the whole clusters stay out of training.
    queries, total = [], 0
    for q in _rng(random_state).permutation(np.flatnonzero(is_held)).tolist():
        n = members[y[q]].size - 1
        if n < 1:
            continue
        if total + n > MAX_JUDGED_ENTRIES and len(queries) >= 2:
            break
        queries.append(q)
        total += n
    queries = np.sort(np.asarray(queries, dtype=np.int64))
    relevant = tuple({int(d): 1.0 for d in members[y[q]] if d != q} for q in queries)
    if queries.size < 2:
        return None
    # clustered items with a cluster mate, for the choice of the strongest baseline
    order = np.argsort(y, kind="stable")
    starts, ends = np.searchsorted(y[order], ids), np.searchsorted(y[order], ids, side="right")

    def mates(q):
        c = int(np.searchsorted(ids, y[q]))
        return {int(d): 1.0 for d in order[starts[c]:ends[c]] if d != q}

    clustered = np.flatnonzero(y >= 0)
    clustered = clustered[(ends - starts)[np.searchsorted(ids, y[clustered])] > 1]
    judged = judged_queries(clustered, mates, groups=y, random_state=random_state)
    split = SearchSplit(train=~is_held, held=is_held, queries=queries, relevant=relevant,
                        seen=tuple(frozenset() for _ in relevant), documents=np.arange(y.size),
                        groups=y[queries].astype(np.int64), by="cluster", n_cold_documents=int(is_held.sum()),
                        judged=judged, named=np.flatnonzero((y >= 0) & ~is_held), judgements=np.flatnonzero(y >= 0))
    return np.where(is_held, -1, y), split
