"""How each family of fitted model scores documents: one :class:`Scorer` for in-memory search,
the command line, the pipeline and the index.

Each kind of model is used with the similarity it was trained and validated for:

- FILM: the cosine in the learned space (the paper's matching rule, sec. 3.3), mixed with the
  cosine of the input, w cos(x, x') + (1 - w) cos(Lx, Lx'), with the w validated at fit time:
  for search on held-out duplicates (the SearchRule of a model fitted on pairs), else on
  held-out pairs (the ThresholdMatcher of older pairs models), else FILM's own ``input_weight_``
  chosen on held-out clusters (:mod:`learnsim.hybrid`, :mod:`learnsim.baseline`); w = 1 is the
  input cosine, the model's fallback. A Euclidean distance in FILM's space is not what FILM learns: it
  ranks the documents whose embedding is short (few or rare words) first.
- minimum cluster distortion and relative comparisons: the learned (Mahalanobis) distance.
- LinkLearn and LearnedBM25: the inner product of the learned term weights (paper 002, sec. 2.1),
  or the baseline they fell back to (tf.idf cosine, Okapi BM25; named so: ``"tf.idf cosine"``,
  ``"BM25"``).

Every scorer turns texts' vectors into rows and scores them either by an inner product (higher
is closer) or by the Euclidean distance (lower is closer), block by block, so that no
corpus x corpus matrix is ever held.

For an index (:mod:`learnsim.index`) a scorer also splits the work in two: what depends on the
collection as a whole (:meth:`Scorer.collection_statistics`: the idf and mean length of a term
weighting; nothing for the linear maps, whose vectoriser fixed its idf at fit time), computed
once when the index is built, and the rows of documents and of queries
(:meth:`Scorer.document_rows`, :meth:`Scorer.query_rows`), a sparse and a dense part whose inner
products add up to the score's inner product, plus squared norms for the distances. Query and
document rows may differ (MCD's ``beta I + V diag(w - beta) V^T`` has a signed part).

A model whose input is a dense sentence encoder (:mod:`learnsim.text.encoders`) scores with
the encoder's cosine (``EncoderCosine``), or FILM's mixed cosine over the encoder's vectors, and
may mix a lexical part in: ``lambda cos(l, l') + (1 - lambda) dense`` with the tf.idf vectors l
of the texts over the searched collection's vocabulary (``lexical=``) and the weight lambda its
search rule chose on held-out queries (``SearchRule.lexical_weight``): rows ``[sqrt(lambda)
l/|l|, sqrt(1 - lambda) dense rows]``, a sparse and a dense part. An ``EncoderCosine`` (the
encoder's cosine, nothing learned) takes the same mix.

The lexical part may instead be Okapi BM25 (``SearchRule.lexical_kind == "bm25"``, issue 42)::

    score(q, d) = lambda BM25(q, d) / Z(q) + (1 - lambda) dense(q, d),
    Z(q) = (k1 + 1) sum of idf_t over the distinct words t of q the collection holds,

BM25 as ``learnsim evaluate`` computes its baseline (``k1 = 1.5``, ``b = 0.6``, the "okapi" idf
with epsilon 0.25, binary queries) over the counts ``l`` of the searched collection's vocabulary
(``lexical=``, a "tf" vectoriser) with that collection's document frequencies, size and mean
length (the statistics ``vocabulary_df``, ``vocabulary_n_documents``, ``vocabulary_avgdl``). Z(q)
is the largest score the query can reach, so BM25 / Z lies in [0, 1) (0 for a query without a
word of the collection; left undivided where a tiny collection's okapi idf makes Z <= 0); it
depends on the query alone, so the score stays an inner product:
document rows ``[BM25 weights idf_t tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)), dense
rows]``, query rows ``[lambda binary(q) / Z(q), (1 - lambda) dense rows]``. The dense part is
that of a model over an encoder (above), or, for FILM over term vectors, FILM's learned cosine
alone: the input cosine would take a second collection vocabulary (a rule with both is refused).

The lexical part of a scoring (issue 32, part 6) - FILM's input cosine - may come from other
vectors than the learned part: ``lexical=`` gives the texts' vectors over the searched
collection's own vocabulary (:func:`learnsim.text.collection_vectorizer`), which the input cosine
then uses, while FILM's map keeps the vectors of its training vocabulary. The term-weight models
learned nothing per word, so :class:`learnsim.pipeline.Pipeline` simply gives them the counts
over the collection's vocabulary.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Rows", "Scorer", "scorer_for", "best_columns", "MAX_EMBEDDING_ENTRIES", "BLOCK_ENTRIES"]

# Above this many entries a dense embedding of a corpus (transform with complement_weight > 0
# keeps every feature) is not built; distances are then computed block by block instead.
MAX_EMBEDDING_ENTRIES = 10_000_000
# Entries of one (queries x corpus) block of scores.
BLOCK_ENTRIES = 2 ** 22
# Okapi BM25 of a lexical BM25 mix: learnsim evaluate's baseline (learnsim.text.bm25.PAPER_PARAMS,
# the "okapi" idf with rank_bm25's epsilon)
BM25_K1, BM25_B, BM25_EPSILON = 1.5, 0.6, 0.25


class Rows(NamedTuple):
    """The rows of some texts for scoring: inner products of a query's and a document's rows are
    ``sparse_q . sparse_d + dense_q . dense_d``; ``sq`` holds the squared norms in the model's
    metric (distances only).

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.scorer import Rows
    >>> rows = Rows(dense=np.array([[1.0, 0.0], [0.6, 0.8]]))
    >>> rows.n_rows, rows.sparse is None
    (2, True)
    >>> Rows().n_rows                             # no part: no rows
    0
    """

    sparse: object = None       # scipy.sparse CSR (n, n_features) or None
    dense: object = None        # ndarray (n, d) or None
    sq: object = None           # ndarray (n,) or None

    @property
    def n_rows(self):
        for part in (self.sparse, self.dense, self.sq):
            if part is not None:
                return part.shape[0]
        return 0


def block_rows(n_columns):
    """Rows per block so that one block of n_columns values holds about BLOCK_ENTRIES values."""
    return max(1, BLOCK_ENTRIES // max(n_columns, 1))


class Scorer:
    """Rows for a fitted model and how to compare them.

    Parameters
    ----------
    metric : fitted learnsim model
    matcher, search : optional
        The duplicate rule and the SearchRule a FILM fitted on pairs saved with it (an
        ``EncoderCosine`` reads the search rule's lexical mix too).

    Attributes
    ----------
    kind : {"term_weights", "cosine", "distance"}
    column : {"similarity", "distance", "score"}
        What the value printed for a hit is.
    higher_is_closer : bool
    name : str
        A short name of the scoring (``--json``'s ``"scoring"``).
    description : str
        The scoring in words, for the human output.
    input_weight : float or None
        FILM's validated weight w of the input cosine (None: the learned cosine alone).
    lexical_weight : float or None
        The weight lambda of the lexical part mixed with the dense scoring (None: no lexical
        part).
    lexical_kind : {"tfidf", "bm25"} or None
        What that lexical part is: the tf.idf cosine or normalised BM25 (module notes).
    dense_input : bool
        The input vectors are a dense encoder's (their cosine gives dense rows), or the scoring
        mixes a lexical part with a dense one.

    Examples
    --------
    The scorer of a model fitted on clusters is its learned distance (six texts: too few to
    check it against the strongest baseline, which the fit would end as; ``baseline_holdout=None``
    keeps it unchecked):

    >>> import learnsim
    >>> from learnsim.scorer import Scorer
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2], baseline_holdout=None)
    >>> scorer = Scorer(model.metric)
    >>> scorer.kind, scorer.column, scorer.higher_is_closer
    ('distance', 'distance', False)
    >>> scorer.name
    'learned distance'

    It scores the vectoriser's output: fix the corpus, then ask for the closest documents:

    >>> _ = scorer.prepare(model.vectorizer.transform(texts))
    >>> indices, distances = scorer.top_k(model.vectorizer.transform(["forgot my password"]), 1)
    >>> indices.tolist(), distances.round(3).tolist()
    ([[1]], [[0.0]])
    """

    def __init__(self, metric, matcher=None, search=None, dense_input=False):
        from .film import FILM
        from .linklearn import LinkLearn
        from .linklearn import LearnedBM25

        self.metric = metric
        self.input_weight = None
        self.lexical_weight = self.lexical_kind = None
        self.dense_input = bool(dense_input)
        self._idf_cache = None
        if getattr(metric, "is_input_cosine", False):
            # a pre-trained encoder's cosine, nothing learned on top (EncoderCosine)
            self.kind, self.input_weight, self.dense_input = "cosine", 1.0, True
            self.column, self.higher_is_closer = "similarity", True
            self.name = "encoder cosine"
            self.description = "the cosine of the encoder's sentence embeddings (nothing learned on top)"
            # the "BM25 + encoder cosine" baseline mixes a lexical part in, lambda chosen elsewhere
            self._mix_search_lexical(search)
        elif getattr(metric, "is_query_adapter", False):
            # the query-side adapter (learnsim.adapter): cos(W q, d) over an encoder's vectors, the
            # documents' rows the encoder's own; mixed with the encoder's cosine by the w its search
            # rule chose: [w q/|q| + (1 - w) Wq/|Wq|] . d/|d| (module notes)
            self.kind, self.dense_input = "cosine", True
            self.column, self.higher_is_closer = "similarity", True
            w = float(getattr(search, "input_weight", None) or 0.0)
            self.input_weight = w
            if w:
                self.name = f"mixed cosine (w={w:g}, query adapter)"
                self.description = (f"{w:g} x the encoder's cosine + {1 - w:g} x the cosine of the adapted query "
                                    "with the document (the documents' embeddings unchanged)")
            else:
                self.name = "adapted encoder cosine"
                self.description = ("the cosine of the adapted query embedding with the document's (a linear map of "
                                    "the query alone; the documents' embeddings unchanged)")
            self._mix_search_lexical(search)
        elif isinstance(metric, (LinkLearn, LearnedBM25)):
            # both index the collection's learned weights in posting lists and score the queries'
            # counts there (LearnedBM25 raises them to its learned query exponent)
            self.kind = "term_weights"
            self.column, self.higher_is_closer = "score", True
            self.name, self.description = _term_weight_names(metric)
        elif isinstance(metric, FILM):
            self.kind = "cosine"
            self.column, self.higher_is_closer = "similarity", True
            # the weight chosen for search (pairs), else the duplicate rule's (older pairs models),
            # else FILM's own (chosen on held-out clusters; 0 in models from before the check)
            w, chosen = getattr(search, "input_weight", None), "for search on held-out duplicates"
            if self._bm25_over_terms(search):
                w = None        # the dense part of a BM25 mix over term vectors: the learned cosine alone
            else:
                if w is None:
                    w, chosen = getattr(matcher, "input_weight_", None), "on held-out pairs"
                if w is None:
                    w, chosen = getattr(metric, "input_weight_", None), "on held-out clusters"
            if w == 1.0:
                self.input_weight = 1.0
                self.name = "input cosine"
                self.description = (f"the input cosine: FILM's learned part did not beat it {chosen}, so the "
                                    "model falls back to it")
            elif w is not None and w > 0.0:
                self.input_weight = float(w)
                self.name = f"mixed cosine (w={self.input_weight:g})"
                self.description = (f"{self.input_weight:g} x input cosine + {1 - self.input_weight:g} x cosine "
                                    f"in FILM's learned space (w chosen {chosen})")
            else:
                self.name = "cosine in the learned space"
                self.description = "cosine in FILM's learned space (higher is closer)"
            if self.dense_input and self.input_weight == 1.0:
                # over a sentence encoder, the input cosine is the encoder's
                self.name = "encoder cosine"
                self.description = (f"the cosine of the encoder's sentence embeddings: FILM's learned part did not "
                                    f"beat it {chosen}, so the model falls back to it")
            self._mix_search_lexical(search)
        else:
            self.kind = "distance"
            self.column, self.higher_is_closer = "distance", False
            self.name = "learned distance"
            self.description = f"{type(metric).__name__}'s learned distance (lower is closer)"

    def _bm25_over_terms(self, search):
        """Whether ``search`` mixes BM25 into FILM over term vectors (its dense part is then the
        learned cosine alone); a ValueError where it also asks for the input cosine."""
        lam = getattr(search, "lexical_weight", None)
        if not lam or getattr(search, "lexical_kind", "tfidf") != "bm25" or self.dense_input:
            return False
        w = getattr(search, "input_weight", None)
        if w not in (None, 0):
            raise ValueError(f"the search rule mixes BM25 (lexical_kind 'bm25', lexical_weight {lam:g}) with an input "
                             f"cosine (input_weight {w:g}) over term vectors: the input cosine and BM25 would need "
                             "two collection vocabularies; over term vectors a BM25 mix's dense part is FILM's "
                             "learned cosine alone (input_weight None or 0)")
        return True

    def _mix_search_lexical(self, search):
        lam = getattr(search, "lexical_weight", None)
        if lam:
            self._mix_lexical(float(lam), getattr(search, "lexical_kind", "tfidf"))

    def _mix_lexical(self, lam, kind="tfidf"):
        """Name and describe the hybrid ``lambda lexical + (1 - lambda) dense`` (module notes)."""
        self.lexical_weight, self.lexical_kind, self.dense_input = lam, kind, True
        dense = self.name
        if kind == "bm25":
            bm25 = ("Okapi BM25 (k1 1.5, b 0.6, binary queries) over the searched collection's vocabulary, divided by "
                    "the largest score the query can reach")
            if lam == 1.0:
                self.name, self.description = "BM25", bm25
            else:
                self.name = f"hybrid ({lam:g} x BM25 + {1 - lam:g} x {dense})"
                self.description = f"{lam:g} x {bm25} + {1 - lam:g} x {self.description}"
        elif lam == 1.0:
            self.name = "lexical tf.idf cosine"
            self.description = ("the tf.idf cosine over the searched collection's vocabulary: the dense scoring "
                                "did not add to it on held-out queries")
        else:
            self.name = f"hybrid ({lam:g} x lexical tf.idf cosine + {1 - lam:g} x {dense})"
            self.description = (f"{lam:g} x the tf.idf cosine over the searched collection's vocabulary + "
                                f"{1 - lam:g} x {self.description} (lambda chosen on held-out queries)")

    # ------------------------------------------------------------------------ rows
    def _dense_rows(self, X, query=False):
        """The rows of a dense encoder's vectors X under the dense scoring (inner products are
        ``w cos(x, x') + (1 - w) cos(Lx, Lx')``; for a query adapter the query rows ``w x/|x| + (1 -
        w) Wx/|Wx|`` and the documents' ``x/|x|``), a dense array."""
        from .film.hybrid import _unit

        w = self.input_weight
        if getattr(self.metric, "is_query_adapter", False):
            D = _unit(_as_dense(X))
            if not query:
                return D
            A = _unit(np.asarray(self.metric.transform_queries(_as_dense(X)), dtype=np.float64))
            return A if not w else w * D + (1.0 - w) * A
        if w == 1.0:
            return _unit(_as_dense(X))
        E = _unit(np.asarray(self.metric.transform(X), dtype=np.float64))
        if w is None:
            return E
        return np.hstack([np.sqrt(w) * _unit(_as_dense(X)), np.sqrt(1.0 - w) * E])

    def rows(self, X, lexical=None, query=False):
        """The rows to compare (see the class notes); None for the distance when its embedding
        is too large (then distances are computed by ``metric.pairwise_distances``). ``lexical``:
        the vectors FILM's input cosine uses instead of X (module notes); ``query``: X are queries
        (a query adapter maps them, not the documents)."""
        if self.kind == "term_weights":
            import scipy.sparse as sp

            return sp.csr_matrix(self.metric.transform(X), dtype=np.float64)
        if self.kind == "cosine" and self.dense_input:
            if self.lexical_weight is None or lexical is None:
                return self._dense_rows(X, query)      # without lexical vectors: the dense part alone
            if self.lexical_kind == "bm25":
                raise ValueError("a BM25 mix scores queries and documents with different rows: use query_rows and "
                                 "document_rows")
            import scipy.sparse as sp

            R = self._linear_rows(X, query=query, lexical=lexical)
            parts = [part for part in (R.sparse, None if R.dense is None else sp.csr_matrix(R.dense)) if part is not None]
            return sp.hstack(parts, format="csr") if len(parts) > 1 else parts[0]
        if self.kind == "cosine":
            from .film.hybrid import hybrid_rows

            if lexical is not None and self.input_weight == 1.0:
                from .film.hybrid import _unit

                return _unit(_csr(lexical))
            E = np.asarray(self.metric.transform(X), dtype=np.float64)
            if self.input_weight is None:
                norms = np.sqrt(np.einsum("ij,ij->i", E, E))
                return E / np.where(norms > 0, norms, 1.0)[:, None]
            return hybrid_rows(X if lexical is None else lexical, E, self.input_weight)
        E = self.metric.transform(X)
        return E.astype(np.float64).tocsr() if hasattr(E, "tocsr") else np.asarray(E, dtype=np.float64)

    def prepare(self, corpus, lexical=None, statistics=None):
        """Fix the corpus (its vectors, and their ``lexical`` vectors: module notes); returns
        self. ``statistics``: the collection's (:meth:`document_rows`), which a BM25 mix weights
        the corpus and the queries by; by default those of the corpus' own ``lexical`` counts."""
        self.corpus = corpus
        self.corpus_rows = self.corpus_sq = self._placeless = None
        self.statistics = statistics
        if self.kind == "distance":
            n, d = corpus.shape
            if getattr(self.metric, "residual_weight_", None) == 0.0 or n * d <= MAX_EMBEDDING_ENTRIES:
                self.corpus_rows = self.rows(corpus)
        elif self.kind == "term_weights":
            self.index = self.metric.index(corpus)
        elif self.lexical_weight is not None:
            # the sparse and dense parts apart: one product of mixed rows (sparse with dense
            # columns) is many times slower
            if lexical is None:
                raise ValueError("this model mixes a lexical part in: give the texts' lexical vectors")
            if self.lexical_kind == "bm25" and not (statistics and "vocabulary_df" in statistics):
                self.statistics = _own_statistics(lexical)
            self.corpus_rows = self._linear_rows(corpus, query=False, lexical=lexical, statistics=self.statistics)
        else:
            self.corpus_rows = self.rows(corpus, lexical)
        return self

    def block_rows(self):
        return block_rows(self.corpus.shape[0])

    def scores(self, queries, lexical=None):
        """(n_queries, n_corpus) values: higher-is-closer similarities, or distances
        (``lexical``: the queries' lexical vectors, when the corpus was prepared with its own)."""
        if self.kind == "term_weights":
            return self.index.score(queries)
        if self.kind == "distance":
            if self.corpus_rows is None:
                return self.metric.pairwise_distances(queries, self.corpus)
            E = self.rows(queries)
            if self.corpus_sq is None:
                self.corpus_sq = _sq_norms(self.corpus_rows)
            G = E @ self.corpus_rows.T
            G = G.toarray() if hasattr(G, "toarray") else np.asarray(G)
            D2 = _sq_norms(E)[:, None] + self.corpus_sq[None, :] - 2.0 * G
            return np.sqrt(np.maximum(D2, 0.0))
        if self.lexical_weight is not None:
            if lexical is None:
                raise ValueError("this model mixes a lexical part in: give the queries' lexical vectors")
            R = self._linear_rows(queries, query=True, lexical=lexical, statistics=self.statistics)
            C = self.corpus_rows
            S = np.zeros((R.n_rows, C.n_rows))
            if R.sparse is not None and C.sparse is not None:
                S += (R.sparse @ C.sparse.T).toarray()
            if R.dense is not None:
                S += R.dense @ C.dense.T
            return S
        S = self.rows(queries, lexical, query=True) @ self.corpus_rows.T
        return S.toarray() if hasattr(S, "toarray") else np.asarray(S)

    def closeness(self, queries, lexical=None):
        """Values where higher is closer (minus the distances)."""
        S = self.scores(queries, lexical)
        return S if self.higher_is_closer else -S

    def _words_alone(self):
        """Whether the scores are sums over the words a query and a document share (term
        weights, a lexical part alone, a cosine of sparse vectors): then a document sharing none
        scores exactly 0, as every other such document does. The rows of an index searched by
        posting lists alone (learnsim.index._scan)."""
        import scipy.sparse as sp

        if self.kind == "term_weights":
            return True
        C = self.corpus_rows
        if self.kind == "distance" or not self.higher_is_closer or C is None:
            return False
        if isinstance(C, Rows):
            return C.dense is None and C.sparse is not None
        return sp.issparse(C)

    def top_k(self, queries, k, exclude_self=False, lexical=None, matches_only=False):
        """Indices and values of the k closest corpus documents of every query, block by block;
        ties go to the lower index (``lexical`` as for :meth:`scores`). ``matches_only``: for a
        model that scores by shared words alone, a document scoring 0 (sharing no word with the
        query) is no hit: its value is -inf, ranked last (a search drops them, as
        ``learnsim.index`` does); so is, for any other model, a document without a place in the
        model's space (:meth:`placeless`)."""
        no_match = matches_only and self._words_alone()
        # (a model of shared words alone drops those documents with the others that score 0)
        placeless = self.placeless() if matches_only and not no_match else None
        from ._utils.progress import progress

        n = queries.shape[0]
        idx = np.empty((n, k), dtype=np.int64)
        values = np.empty((n, k))
        step = self.block_rows()
        starts = range(0, n, step)
        # one block is one product: a bar only where there are several (a search of one query: none)
        bar = progress(starts, desc="search: scoring the corpus", enabled=None if len(starts) > 1 else False)
        for start in bar:
            S = self.closeness(queries[start:start + step],
                               None if lexical is None else lexical[start:start + step])
            if exclude_self:
                rows = np.arange(S.shape[0])
                S[rows, start + rows] = -np.inf
            if no_match:
                S[S == 0] = -np.inf
            if placeless is not None and placeless.size:
                S[:, placeless] = -np.inf
            order = best_columns(S, k)
            idx[start:start + step] = order
            best = np.take_along_axis(S, order, axis=1)
            values[start:start + step] = best if self.higher_is_closer else -best
        return idx, values

    def placeless(self):
        """Positions of the corpus documents whose row in the model's space is zero (none of
        their terms is in its vocabulary): under a distance their distance to every query is the
        query's own norm, whatever its words, so they stood near every query; under a cosine
        (FILM's) they score 0 against every query, above every document that shares a word with
        the query but whose learned cosine with it is below 0. A search leaves them out
        (``top_k(matches_only=True)``), as :mod:`learnsim.index` does (rows whose squared norm
        is 0, or every part of them zero)."""
        from .text import find_empty_rows

        if self.corpus_rows is None:
            return find_empty_rows(self.corpus)
        if self.kind != "distance":
            if getattr(self, "_placeless", None) is None:
                C = self.corpus_rows
                parts = [C.sparse, C.dense] if isinstance(C, Rows) else [C]
                self._placeless = np.flatnonzero(np.logical_and.reduce(
                    [_sq_norms(part) == 0 for part in parts if part is not None]))
            return self._placeless
        if self.corpus_sq is None:
            self.corpus_sq = _sq_norms(self.corpus_rows)
        return np.flatnonzero(np.asarray(self.corpus_sq) == 0)

    # ------------------------------------------------------------------ rows for an index
    def collection_statistics(self, X):
        """What the document rows take from the collection as a whole (a dict of arrays; empty
        for the models whose vectoriser fixed its statistics at fit time)."""
        if self.kind != "term_weights":
            return {}
        from .linklearn import LearnedBM25

        if isinstance(self.metric, LearnedBM25):
            return self.metric.collection_statistics(X)
        from .linklearn import idf_from_counts

        return {"idf": idf_from_counts(_csr(X))}

    def document_rows(self, X, statistics=None, lexical=None):
        """:class:`Rows` of the documents X (the vectoriser's output) under the collection
        ``statistics`` (:meth:`collection_statistics`; X's own when None); ``lexical``: the
        vectors of the input cosine (module notes)."""
        import scipy.sparse as sp

        if statistics is None:
            statistics = self.collection_statistics(X)
        if self.kind == "term_weights":
            from .linklearn import LearnedBM25

            if isinstance(self.metric, LearnedBM25):
                W = self.metric.transform(X, statistics=statistics)
            else:
                W = self.metric.transform(_csr(X), idf=np.asarray(statistics["idf"], dtype=np.float64))
            # the in-memory index (TermWeightIndex) keeps float32 weights: so does this
            W = sp.csr_matrix(W, dtype=np.float32).astype(np.float64)
            W.eliminate_zeros()
            return Rows(sparse=W)
        return self._linear_rows(X, query=False, lexical=lexical, statistics=statistics)

    def query_rows(self, X, statistics=None, lexical=None):
        """:class:`Rows` of queries X (the vectoriser's output); ``statistics`` as for the
        documents they are scored against (the tf.idf cosine fallback and a BM25 mix weight
        queries by them); ``lexical`` as for :meth:`document_rows`."""
        import scipy.sparse as sp

        if self.kind == "term_weights":
            from .linklearn import tfidf_cosine_weights
            from .linklearn import LearnedBM25

            Q = _csr(X)
            if isinstance(self.metric, LearnedBM25):
                return Rows(sparse=sp.csr_matrix(self.metric.transform_queries(Q), dtype=np.float64))
            if self.metric._fell_back():
                idf = np.asarray(statistics["idf"], dtype=np.float64) if statistics else None
                return Rows(sparse=tfidf_cosine_weights(Q, idf))
            B = Q.astype(np.float64, copy=True)
            B.data[:] = 1.0     # paper 002, sec. 2.1: binary query weights
            B.eliminate_zeros()
            return Rows(sparse=B)
        return self._linear_rows(X, query=True, lexical=lexical, statistics=statistics)

    def bm25_rows(self, lexical, statistics=None, query=False):
        """The sparse rows of a BM25 mix (module notes) of texts' counts ``lexical`` over the
        collection's vocabulary: a document's BM25 weights, or a query's ``lambda binary / Z``.
        ``statistics`` hold the collection's ``vocabulary_df``, ``vocabulary_n_documents`` and
        ``vocabulary_avgdl`` (:meth:`learnsim.pipeline.Pipeline.collection_statistics`);
        documents without them are their own collection."""
        import scipy.sparse as sp

        L = _csr(lexical)
        if not (statistics and "vocabulary_df" in statistics):
            if query:
                raise ValueError("a BM25 mix weights queries by the idf of the collection they search: give its "
                                 "statistics (Pipeline.collection_statistics)")
            statistics = _own_statistics(L)
        idf, avgdl = self._bm25_idf(statistics, L.shape[1])
        if query:
            B = L.copy()
            B.data[:] = 1.0
            B.eliminate_zeros()
            # Z(q): the largest score the query can reach (every word at the largest tf part, k1 + 1).
            # Z <= 0 only where okapi's floor of the idf is negative (most words in more than half
            # of a tiny collection): BM25 is then left undivided, which keeps its order, as
            # learnsim.baseline's normalised BM25 does (a query without a known word scores 0)
            z = (BM25_K1 + 1.0) * np.asarray(B @ idf).ravel()
            scale = self.lexical_weight / np.where(z > 0, z, 1.0)
            return sp.csr_matrix(sp.diags(scale) @ B)
        # Okapi BM25's document weights, written as learnsim.text.bm25.BM25 writes them (same rounding)
        tf = L.data
        lengths = np.asarray(L.sum(axis=1)).ravel()
        norm = np.repeat(BM25_K1 * ((1.0 - BM25_B) + BM25_B * (lengths / avgdl)), np.diff(L.indptr))
        W = sp.csr_matrix((idf[L.indices] * tf * (BM25_K1 + 1.0) / (tf + norm), L.indices.copy(), L.indptr.copy()),
                          shape=L.shape)
        W.eliminate_zeros()
        return W

    def _bm25_idf(self, statistics, n_terms):
        """(idf, avgdl) of the collection ``statistics``; the idf of the last ones kept (an index
        searches with the same statistics arrays every time)."""
        from .text.bm25 import bm25_idf

        df = statistics["vocabulary_df"]
        cached = self._idf_cache
        if cached is None or cached[0] is not df:
            counts = np.asarray(df)
            if counts.shape != (n_terms,):
                raise ValueError(f"the collection statistics hold {counts.size} document frequencies for "
                                 f"{n_terms} words of the texts' counts")
            idf = bm25_idf(counts.astype(np.int64), int(np.asarray(statistics["vocabulary_n_documents"])), "okapi",
                           BM25_EPSILON)
            cached = self._idf_cache = (df, idf)
        avgdl = float(np.asarray(statistics["vocabulary_avgdl"]))
        return cached[1], (avgdl if avgdl > 0 else 1.0)   # no word in the collection: every tf is 0

    def _linear_rows(self, X, query, lexical=None, statistics=None):
        import scipy.sparse as sp

        if self.kind == "cosine" and self.dense_input:
            from .film.hybrid import _unit

            lam = self.lexical_weight
            if lam is None:
                return Rows(dense=self._dense_rows(X, query))
            if lexical is None:
                raise ValueError("this model mixes a lexical part in: give the texts' lexical vectors")
            if self.lexical_kind == "bm25":
                sparse = None if lam == 0.0 else self.bm25_rows(lexical, statistics, query)
                dense = None if lam == 1.0 else self._dense_rows(X, query) * ((1.0 - lam) if query else 1.0)
                return Rows(sparse=sparse, dense=dense)
            sparse = None if lam == 0.0 else np.sqrt(lam) * _unit(_csr(lexical))
            dense = None if lam == 1.0 else np.sqrt(1.0 - lam) * self._dense_rows(X, query)
            return Rows(sparse=sparse, dense=dense)
        if self.kind == "cosine":
            from .film.hybrid import _unit

            w = self.input_weight
            L = X if lexical is None else lexical
            if w == 1.0:
                return Rows(sparse=_unit(_csr(L)))
            E = _unit(np.asarray(self.metric.transform(X), dtype=np.float64))
            if w is None:
                return Rows(dense=E)
            return Rows(sparse=np.sqrt(w) * _unit(_csr(L)), dense=np.sqrt(1.0 - w) * E)
        beta = getattr(self.metric, "residual_weight_", None)
        if beta is not None and hasattr(self.metric, "factor_"):
            # MCD: M = beta I + V diag(w - beta) V^T (eq. 12 with the complement weight), so
            # x^T M y = beta x.y + sum_k (w_k - beta) (V^T x)_k (V^T y)_k: a sparse part and a
            # k-dimensional part whose query side carries the signed weights
            from .mcd._mcd import _project

            Xc = self.metric._check_input(X)
            P = np.asarray(_project(Xc, self.metric.factor_, self.metric.active_features_), dtype=np.float64)
            weights = np.asarray(self.metric.weights_, dtype=np.float64)
            if beta == 0.0:
                D = P * np.sqrt(weights)
                return Rows(dense=D, sq=np.einsum("ij,ij->i", D, D))
            S = np.sqrt(beta) * _csr(Xc)
            sq = _sq_norms(S) + np.einsum("ij,ij,j->i", P, P, weights - beta)
            return Rows(sparse=S, dense=P * (weights - beta) if query else P, sq=sq)
        E = self.metric.transform(X)
        if sp.issparse(E):
            E = sp.csr_matrix(E, dtype=np.float64)
            return Rows(sparse=E, sq=_sq_norms(E))
        E = np.asarray(E, dtype=np.float64)
        return Rows(dense=E, sq=_sq_norms(E))


def _term_weight_names(metric):
    """(name, description) of a term-weight model: plainly BM25 or the tf.idf cosine where that
    is what it scores (a LearnedBM25 at BM25's parameters, a LinkLearn that fell back)."""
    from .linklearn import LearnedBM25

    gain = getattr(metric, "baseline_gain_", None)
    # a fit that fell back says whose baseline it is; a baseline built as one says nothing was learned
    lost = (f"{type(metric).__name__} fell back to " if gain is not None and gain.fell_back else "",
            ": its learned weights did not beat it on held-out links" if gain is not None and gain.fell_back
            else "")
    if isinstance(metric, LearnedBM25):
        bm25 = LearnedBM25.from_params()
        if metric._fitted() == bm25.params_ and metric.idf == bm25.idf and float(metric.epsilon) == bm25.epsilon:
            return "BM25", f"{lost[0]}Okapi BM25 (k1 1.5, b 0.6, binary queries) over the searched collection{lost[1]}"
    elif metric._fell_back():
        return "tf.idf cosine", (f"{lost[0]}the tf.idf cosine (raw tf x log N/df) over the searched collection"
                                 f"{lost[1] or ' (nothing learned)'}")
    return ("learned term weights (inner product)",
            f"{type(metric).__name__}'s learned term weights (inner product; higher is closer)")


def _own_statistics(lexical):
    """The BM25 statistics of texts' counts taken as their own collection."""
    L = _csr(lexical)
    n = max(L.shape[0], 1)
    return {"vocabulary_df": np.bincount(L.indices[L.data != 0], minlength=L.shape[1]).astype(np.int64),
            "vocabulary_n_documents": np.asarray(n, dtype=np.int64),
            "vocabulary_avgdl": np.asarray(float(L.sum()) / n)}


def best_columns(S, k):
    """The k best columns of each row of S, best first, ties to the lower column: what a stable
    argsort of -S gives, without sorting whole rows (a partition finds each row's k best, and only
    a row whose k-th value ties with columns left out is looked at again).

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.scorer import best_columns
    >>> best_columns(np.array([[0.1, 0.9, 0.5, 0.9], [1.0, 1.0, 1.0, 0.0]]), 2).tolist()
    [[1, 3], [0, 1]]
    """
    n, m = S.shape
    if k >= m or m <= 64:
        return np.argsort(-S, axis=1, kind="stable")[:, :k]
    part = np.argpartition(-S, k - 1, axis=1)[:, :k]
    vals = np.take_along_axis(S, part, axis=1)
    kth = vals.min(axis=1)
    # a row with more columns at or above its k-th value than k (ties at the boundary, NaN aside)
    # takes the lowest of them: the partition picked any
    crowded = np.flatnonzero(np.count_nonzero(S >= kth[:, None], axis=1) > k)
    for r in crowded:
        cand = np.flatnonzero(S[r] >= kth[r])
        part[r] = cand[np.lexsort((cand, -S[r, cand]))][:k]
        vals[r] = S[r, part[r]]
    order = np.lexsort((part, -vals), axis=1)
    return np.take_along_axis(part, order, axis=1)


def scorer_for(parts):
    """The Scorer of a loaded model (its dict of parts).

    Examples
    --------
    >>> import learnsim
    >>> from learnsim.scorer import scorer_for
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])    # too few to check: the strongest baseline, warns
    >>> scorer = scorer_for(model.parts)
    >>> type(scorer).__name__, scorer.name, scorer.higher_is_closer
    ('Scorer', 'BM25', True)
    """
    from .text.encoders import is_encoder

    return Scorer(parts["metric"], parts.get("matcher"), parts.get("search"),
                  dense_input=is_encoder(parts.get("vectorizer")))


def _csr(X):
    import scipy.sparse as sp

    return sp.csr_matrix(X, dtype=np.float64)


def _as_dense(X):
    return np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)


def _sq_norms(M):
    if hasattr(M, "multiply"):
        return np.asarray(M.multiply(M).sum(axis=1), dtype=np.float64).ravel()
    return np.einsum("ij,ij->i", M, M)
