"""One fitted object from text to similarity: :class:`Pipeline`.

A :class:`Pipeline` holds what ``learnsim fit`` saves - the fitted vectoriser, the learned metric
and, for a FILM fitted on duplicate pairs, its validated duplicate rule and search rule - and
uses them the way the command line does: plain lists of strings in, plain Python and numpy out.
:func:`learnsim.fit` returns one and :func:`learnsim.load` reads one back, like a
sentence-transformers model or a bm25s retriever, but over a similarity learned from your own
supervision.

Every score is the model's validated scoring (:class:`learnsim.scorer.Scorer`): the same numbers
``learnsim search`` ranks by, on the same model and corpus.

Every model applies to the collection it searches (issue 32, part 6): the lexical part of its
scoring (FILM's input cosine, LinkLearn's and LearnedBM25's term weights) uses the searched
collection's vocabulary, document frequencies and lengths, tokenised and weighted as the fitted
vectoriser does (:func:`learnsim.text.collection_vectorizer`), so words the fit never saw still
count; what was learned (FILM's map on its training vocabulary, the weighting's parameters) is
used as it is. A FILM whose search fell back to the input cosine scores exactly as a tf-idf
cosine fitted on the collection. Distance models and vectorisers with LSI, hashed columns or
dense encoders keep their own vectors (:attr:`Pipeline.uses_collection_vocabulary`).

A model fitted over a pre-trained sentence encoder (``learnsim.fit(..., encoder=...)``,
``learnsim fit --encoder``) has the encoder as its vectoriser: FILM learns on the encoder's
vectors (the paper's FILM-BERT). Its search rule may mix in a lexical part, the tf.idf cosine
over the searched collection's vocabulary (the part "lexical": the tf.idf settings, fitted on the
training texts), with the weight chosen on held-out supervision (``SearchRule.lexical_weight``).

The lexical part may also be Okapi BM25 over the searched collection, divided by the largest
score the query can reach (``SearchRule.lexical_kind == "bm25"``, issue 42; the part "lexical"
is then a "tf" vectoriser of term counts): ``lambda BM25(q, d) / Z(q) + (1 - lambda) dense``,
with the dense part of an encoder's model, FILM's learned cosine over term vectors, or, for
``EncoderCosine``, the encoder's cosine (:mod:`learnsim.scorer`). The collection statistics
BM25 takes (``vocabulary_df``, ``vocabulary_n_documents``, ``vocabulary_avgdl``) come with the
collection's vocabulary (:meth:`Pipeline.collection_statistics`) everywhere a model scores: the
in-memory search computes them from its corpus, an index keeps them from its build.
:func:`learnsim._baseline_models.baseline_pipeline` builds the models a fit may end as (BM25,
the tf.idf cosine, the encoder's cosine, their mix).
"""
from __future__ import annotations

import copy
import numbers

import numpy as np

from ._utils.callers import warn_outside
from ._utils.progress import stage_for, with_show_progress_bar

__all__ = ["Pipeline"]

# the scorings that are a baseline itself (learnsim.scorer._term_weight_names, and a dense
# model's search rule that kept its lexical part alone: learnsim.scorer.Scorer)
_BASELINE_SCORINGS = ("BM25", "tf.idf cosine", "lexical tf.idf cosine")

# The parts a model file may hold (what fitting.fit_parts returns).
_PARTS = ("vectorizer", "metric", "matcher", "match_rule", "search", "rerank", "lexical", "training")


class Pipeline:
    """A fitted vectoriser and learned similarity, used from text to scores.

    Parameters
    ----------
    vectorizer : fitted learnsim.text.TextVectorizer
        Turns texts into the vectors the metric was fitted on.
    metric : fitted learnsim model
        FILM, MinimumClusterDistortion, RelativeComparisonMetric, LinkLearn or LearnedBM25.
    matcher, match_rule, search : optional
        The duplicate rule, how it was chosen, and the :class:`learnsim.scoring.SearchRule` of
        a FILM fitted on pairs (None otherwise).
    rerank : learnsim.matching.Reranker, optional
        Search's learned second stage, where held-out duplicate queries kept it (a FILM fitted
        on labelled pairs): the first stage's top ``rerank.n_candidates`` hits re-scored.
    lexical : fitted learnsim.text.TextVectorizer, optional
        Models whose search rule mixes a lexical part in (``search.lexical_weight``): the
        tf.idf whose tokenizer and weighting that part uses, over the searched collection's
        vocabulary, or, for a BM25 mix (``search.lexical_kind == "bm25"``), a ``"tf"``
        vectoriser whose term counts BM25 weights.
    training : learnsim._training.TrainingTexts, optional
        The fingerprint of the texts the model was fitted on (a fit records it; model files from
        before it, and models of an encoder alone, have none): ``learnsim evaluate`` says how
        many of the texts it measures on are among them.

    Attributes
    ----------
    scorer : learnsim.scorer.Scorer
        How the model scores (one per model family).
    scoring : str
        The scoring's name, e.g. ``"mixed cosine (w=0.5)"`` or ``"learned distance"``.
    higher_is_closer : bool
        False for the distance models (MinimumClusterDistortion, RelativeComparisonMetric).

    Notes
    -----
    A Pipeline is a fitted model, as a sentence-transformers model is, not a scikit-learn
    estimator to fit: :func:`learnsim.fit` makes it, and :func:`sklearn.base.clone` refuses it
    (a TypeError naming ``get_params``); ``copy.deepcopy``, ``pickle`` and ``joblib`` copy it
    with the same scores. Its estimators (``vectorizer``, ``metric``, ...) follow scikit-learn's
    contract. One Pipeline may be scored from several threads at once, with the answers it
    gives serially.

    See Also
    --------
    learnsim.fit : fit a Pipeline from texts and supervision.
    learnsim.load : read a Pipeline from a model file.

    Examples
    --------
    Twelve short texts of three topics (too few to check the model against the baseline on
    held-out data, hence ``baseline_holdout=None``; the fit warns that it cannot select
    settings on three clusters):

    >>> import learnsim
    >>> texts = ["how do I reset my password", "forgot my password", "password reset link expired",
    ...          "cannot log in, wrong password", "I was charged twice", "refund for a double charge",
    ...          "charged for a cancelled order", "when will my refund arrive", "app crashes on start",
    ...          "crash after the update", "the app freezes and crashes", "update broke the app"]
    >>> labels = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]
    >>> model = learnsim.fit(texts, clusters=labels, baseline_holdout=None)
    >>> model
    Pipeline(method=MinimumClusterDistortion, scoring='learned distance')
    >>> model.higher_is_closer                    # a distance: the smallest score comes first
    False
    >>> hits = model.search("the app crashed", texts, k=2)
    >>> [hit["corpus_id"] for hit in hits]
    [11, 10]
    >>> [round(hit["score"], 2) for hit in hits]
    [0.57, 0.74]
    """

    def __init__(self, vectorizer, metric, matcher=None, match_rule=None, search=None, rerank=None, lexical=None,
                 training=None):
        if not hasattr(vectorizer, "transform"):
            raise TypeError(f"vectorizer must be a fitted vectoriser with transform(); got {type(vectorizer).__name__}")
        if not hasattr(metric, "transform"):
            raise TypeError(f"metric must be a fitted learnsim metric with transform(); got {type(metric).__name__}")
        _check_fitted_part(vectorizer, "vectorizer")
        _check_fitted_part(metric, "metric")
        self.vectorizer = vectorizer
        self.metric = metric
        self.matcher = matcher
        self.match_rule = match_rule
        self.search_rule = search
        if rerank is not None and not callable(getattr(rerank, "rerank", None)):
            raise TypeError(f"rerank must be a learnsim.matching.Reranker; got {type(rerank).__name__}")
        self.rerank = rerank
        if lexical is not None:
            from .text import has_lexical_part

            if not has_lexical_part(lexical):
                raise TypeError("lexical must be a fitted learnsim.text.TextVectorizer of term vectors (no LSI); "
                                f"got {type(lexical).__name__}")
        bm25 = getattr(search, "lexical_kind", "tfidf") == "bm25"
        if getattr(search, "lexical_weight", None) and lexical is None:
            raise ValueError(f"the search rule mixes {'BM25' if bm25 else 'a lexical tf.idf cosine'} in (lexical_weight "
                             f"{search.lexical_weight:g}): give its vectoriser as lexical=")
        self.lexical = lexical
        if training is not None and not callable(getattr(training, "count", None)):
            raise TypeError(f"training must be a learnsim._training.TrainingTexts; got {type(training).__name__}")
        self.training = training
        self._scorer = None
        self._lexical_cache = None
        if bm25 and getattr(search, "lexical_weight", None):
            if lexical.weighting != "tf" or lexical.sublinear_tf or lexical.norm is not None:
                raise ValueError("the search rule mixes BM25 in (lexical_kind 'bm25'): its lexical part must count "
                                 "terms, a TextVectorizer('tf') without norm or sublinear_tf; got weighting "
                                 f"{lexical.weighting!r}, norm {lexical.norm!r}, sublinear_tf {lexical.sublinear_tf!r}")
            self._scorer = self.make_scorer()      # refuses a mix it cannot score (BM25 and an input cosine)

    # ------------------------------------------------------------------ parts and files
    @classmethod
    def from_parts(cls, parts):
        """The Pipeline of a dict of parts (what :func:`learnsim.fitting.fit_parts` returns and
        ``learnsim fit`` saves).

        Raises
        ------
        TypeError
            When ``parts`` is not a dict.
        ValueError
            When it lacks "vectorizer" or "metric", or holds a part no Pipeline knows.
        """
        if not isinstance(parts, dict):
            raise TypeError(f"parts must be a dict of fitted parts; got {type(parts).__name__}")
        missing = [name for name in ("vectorizer", "metric") if parts.get(name) is None]
        if missing:
            raise ValueError(f"parts lacks {' and '.join(map(repr, missing))}: a model holds a fitted 'vectorizer' "
                             f"and 'metric' (it holds {sorted(parts)})")
        unknown = sorted(set(parts) - set(_PARTS))
        if unknown:
            raise ValueError(f"unknown part(s) {', '.join(map(repr, unknown))}; a model's parts are "
                             + ", ".join(_PARTS))
        return cls(**parts)

    @property
    def parts(self):
        """The dict of parts, as ``learnsim fit`` saves it (parts that are None left out)."""
        parts = {"vectorizer": self.vectorizer, "metric": self.metric, "matcher": self.matcher,
                 "match_rule": self.match_rule, "search": self.search_rule, "rerank": self.rerank,
                 "lexical": self.lexical, "training": self.training}
        return {name: part for name, part in parts.items() if part is not None}

    @classmethod
    def from_encoder(cls, encoder, **load_options):
        """The model of a pre-trained sentence encoder used as it is: its cosine ranks, nothing
        is learned (what ``learnsim index build --encoder`` indexes with).

        Parameters
        ----------
        encoder : str, path-like or fitted encoder
            A model folder or name (:func:`learnsim.text.encoders.load_encoder`, which
            ``load_options`` go to), or a fitted encoder object: any object with
            ``transform(texts)`` and ``embedding_dim_``, whose output on two probe sentences is
            checked here (:func:`learnsim.text.encoders.check_encoder_output`).
        **load_options
            ``device``, ``show_progress``, ``backend``: how :func:`~learnsim.text.encoders.load_encoder`
            loads a model given by name or folder. An encoder object is loaded already: options
            given with one are a TypeError, not dropped.

        Returns
        -------
        Pipeline
            Its scoring is ``"encoder cosine"``.

        Raises
        ------
        TypeError
            Load options given with an encoder object; an encoder object whose ``transform``
            does not return a numpy array of numbers.
        ValueError
            An encoder object whose rows are not one per text, not ``embedding_dim_`` wide, or
            not finite.

        Examples
        --------
        Needs the dense extra and a model folder (not run here):

        >>> import learnsim
        >>> model = learnsim.Pipeline.from_encoder("all-MiniLM-L6-v2")          # doctest: +SKIP
        >>> model.search("how do i learn python", ["learning python", "cooking rice"], k=1)  # doctest: +SKIP
        [{'corpus_id': 0, 'score': 0.83...}]
        """
        from .text.encoders import EncoderCosine, check_encoder_output, is_encoder, load_encoder

        if not is_encoder(encoder):
            encoder = load_encoder(encoder, **load_options)
        elif load_options:
            # dropping them would run the object's own backend and device, silently
            raise TypeError(f"Pipeline.from_encoder got the load options {sorted(load_options)} with a "
                            f"{type(encoder).__name__} object: they apply to a model given by name or folder "
                            "(load_encoder), and the object is loaded already; load it with them, or leave them out")
        else:
            # a custom encoder's output is checked nowhere else: NaN rows would score NaN, a row
            # too few would fail far from it
            check_encoder_output(encoder)
        return cls(encoder, EncoderCosine().fit(np.zeros((1, int(encoder.embedding_dim_)))))

    def save(self, path):
        """Write the model file ``learnsim search --model`` (and every command) reads.

        Parameters
        ----------
        path : str or Path
            Destination (``.npz`` by convention), written atomically.
        """
        from .persistence import save

        save(self.parts, path)

    @classmethod
    def load(cls, path):
        """Read a model file written by :meth:`save` or ``learnsim fit``.

        Raises
        ------
        ValueError
            When the file does not hold a fitted vectoriser and metric (a single estimator saved
            with :func:`learnsim.persistence.save`, say). A corrupt file raises
            :class:`learnsim.persistence.ModelFormatError` (a ValueError).
        """
        from .persistence import load

        model = load(path)
        if not isinstance(model, dict) or not {"vectorizer", "metric"} <= set(model):
            held = sorted(model) if isinstance(model, dict) else [type(model).__name__]
            raise ValueError(f"{path} is not a model written by 'learnsim fit' or Pipeline.save (it holds {held}, "
                             "expected 'vectorizer' and 'metric')")
        return cls.from_parts(model)

    # ------------------------------------------------------------------ the scoring
    @property
    def scorer(self):
        """The :class:`learnsim.scorer.Scorer` of the model (how its family scores)."""
        if self._scorer is None:
            self._scorer = self.make_scorer()
        return self._scorer

    def make_scorer(self):
        """A new :class:`learnsim.scorer.Scorer` of the model: one per corpus, since
        ``Scorer.prepare`` keeps the corpus it is given (:attr:`scorer` is the shared one)."""
        from .scorer import Scorer
        from .text.encoders import is_encoder

        return Scorer(self.metric, self.matcher, self.search_rule, dense_input=is_encoder(self.vectorizer))

    @property
    def scoring(self):
        """The name of the scoring (``learnsim search --json``'s ``"scoring"``)."""
        return self.scorer.name

    @property
    def higher_is_closer(self):
        """True for similarities, False for the distance models."""
        return self.scorer.higher_is_closer

    @property
    def method(self):
        """The method's name as reports, ``index info`` and the service give it: the metric's
        class, or ``"baseline"`` where nothing learned is left: the model scores plainly as
        Okapi BM25 or the tf.idf cosine (``scoring`` says which) with no duplicate rule and no
        re-ranker (a fit that ended as the baseline, or a baseline built as one). Such a model
        is held by a LinkLearn or a LearnedBM25 object, which read as a method learned from
        links to a user who fitted FILM on clusters."""
        if self.scoring in _BASELINE_SCORINGS and self.matcher is None and self.rerank is None:
            return "baseline"
        return type(self.metric).__name__

    def __repr__(self):
        rule = f", duplicate_rule={_rule_name(self)!r}" if self.matcher is not None else ""
        return f"Pipeline(method={self.method}, scoring={self.scoring!r}{rule})"

    # ------------------------------------------------------------------ vectors
    @with_show_progress_bar
    def vectorize(self, texts):
        """The vectoriser's vectors of ``texts`` as float64 (what the metric takes).

        Parameters
        ----------
        texts : list of str
        show_progress_bar : bool or None, default=None
            Progress on stderr while many texts are vectorised (a sentence encoder's bar, or
            the elapsed time); nothing is drawn for fewer than 1000 texts unless True. None:
            as :func:`learnsim.set_progress` says (by default on a terminal or in a notebook).

        Returns
        -------
        scipy.sparse.csr_matrix (n_texts, n_terms), or ndarray (n_texts, n_components) with LSI
        """
        texts = _check_texts(texts, "texts")
        with stage_for(f"vectorizing {len(texts)} texts", len(texts)):
            if getattr(self.vectorizer, "embedding_dim_", None) is not None:
                from .text.encoders import encode

                # an encoder object's rows checked, and asked once a text inside a fit (encoding_once)
                X = encode(self.vectorizer, texts)
            else:
                X = self.vectorizer.transform(texts)
            return X.astype(np.float64) if X.dtype != np.float64 else X

    @with_show_progress_bar
    def encode(self, texts, statistics=None):
        """The learned representation of ``texts``: ``metric.transform`` of their vectors.

        Parameters
        ----------
        texts : list of str
        statistics : dict, optional
            Term-weight models only: the collection statistics to weight the texts with
            (:meth:`collection_statistics` of their collection); by default the texts are their
            own collection.
        show_progress_bar : bool or None, default=None
            As for :meth:`vectorize`.

        Returns
        -------
        ndarray or scipy.sparse.csr_matrix
            FILM and MinimumClusterDistortion: a dense ndarray (n_texts, n_dimensions), where
            FILM ranks by the cosine and MCD by the Euclidean distance. RelativeComparisonMetric:
            a sparse matrix over the terms, Euclidean distances learned. LinkLearn and
            LearnedBM25: the sparse (n_texts, n_terms) learned document weights an index holds
            (float64 copies of the float32 weights the search scores with), over the terms of
            the collection's vocabulary (:func:`learnsim.text.collection_terms` of
            ``statistics``, or of the texts' own), or the vectoriser's for statistics without a
            vocabulary.

        Notes
        -----
        Unlike sentence-transformers' ``encode``, the rows are float64 and not normalised, and
        their cosine is the model's score only where :attr:`scoring` is ``"cosine in the
        learned space"``. A FILM whose scoring is, or mixes in, the input cosine scores
        otherwise; a distance model scores by the Euclidean distance of the rows. The model's
        validated scores are those of :meth:`similarity` and :meth:`search`.
        """
        n = len(texts) if hasattr(texts, "__len__") and not isinstance(texts, str) else 0
        with stage_for(f"encoding {n} texts", n):
            if self.scorer.kind == "term_weights":
                texts = _check_texts(texts, "texts")
                _check_statistics(self, statistics)
                self._check_collection(len(texts), statistics, given=True)
                return self.document_rows(texts, statistics).sparse
            return self.metric.transform(self.vectorize(texts))

    @with_show_progress_bar
    def transform(self, texts, statistics=None):
        """Same as :meth:`encode` (scikit-learn's name; ``show_progress_bar`` too)."""
        return self.encode(texts, statistics=statistics)

    # ------------------------------------------------------------------ the searched collection
    @property
    def uses_collection_vocabulary(self):
        """Whether the lexical part of the scoring takes the vocabulary, document frequencies and
        lengths of the collection searched (FILM with an input cosine, LinkLearn, LearnedBM25,
        over a term vectoriser without LSI), rather than those the vectoriser was fitted on."""
        from .text import has_lexical_part

        scorer = self.scorer
        if scorer.lexical_weight is not None:
            return True         # a dense encoder's scoring mixed with a lexical tf.idf cosine
        if scorer.kind == "distance" or (scorer.kind == "cosine" and scorer.input_weight is None):
            return False
        return has_lexical_part(self.vectorizer)

    def _lexical_base(self):
        """The fitted term vectoriser the lexical part is made from: the "lexical" part of a
        model over a dense encoder, else the vectoriser."""
        return self.lexical if self.scorer.lexical_weight is not None else self.vectorizer

    def collection_statistics(self, texts):
        """What the scoring takes from the collection ``texts`` as a whole, as an index saves it
        at build and reindex: its vocabulary, document frequencies and mean length
        (:func:`learnsim.text.collection_vocabulary`, where :attr:`uses_collection_vocabulary`)
        and the model's own statistics over them (the idf of LinkLearn, the document
        frequencies of LearnedBM25).

        Parameters
        ----------
        texts : list of str

        Returns
        -------
        dict of str -> ndarray

        Examples
        --------
        A BM25 weighting over a vectoriser fitted on other texts: the collection's words count,
        also those the vectoriser never saw:

        >>> from learnsim import Pipeline
        >>> from learnsim.linklearn import LearnedBM25
        >>> from learnsim.text import TextVectorizer
        >>> vec = TextVectorizer("tf").fit(["reset my password", "charged twice"])
        >>> model = Pipeline(vec, LearnedBM25.from_params(k1=1.2, b=0.75))
        >>> stats = model.collection_statistics(["parcel lost in transit", "where is my parcel"])
        >>> from learnsim.text import collection_terms
        >>> collection_terms(stats)
        ['in', 'is', 'lost', 'my', 'parcel', 'transit', 'where']
        >>> stats["document_frequency"].tolist(), float(stats["avgdl"])
        ([1, 1, 1, 1, 2, 1, 1], 4.0)
        >>> hits = model.search("parcel in transit", ["parcel lost in transit", "where is my parcel"], k=1)
        >>> hits[0]["corpus_id"]
        0
        """
        texts = _check_texts(texts, "texts")
        if not self.uses_collection_vocabulary:
            X = self.vectorize(texts)
            self._check_collection(X.shape[0], None)
            return self.scorer.collection_statistics(X)
        from .text import collection_vectors

        statistics, _, L = collection_vectors(self._lexical_base(), texts)
        if self.scorer.kind == "term_weights":
            self._check_collection(L.shape[0], None, n_terms=L.shape[1])
            statistics.update(self.scorer.collection_statistics(L))
        return statistics

    def document_rows(self, texts, statistics=None):
        """The :class:`learnsim.scorer.Rows` an index stores for ``texts`` under the collection
        ``statistics`` (:meth:`collection_statistics`; the texts' own when None). Statistics
        without a ``"vocabulary"`` (an index built before issue 32) keep the vectoriser's own
        vocabulary, as that index was built."""
        if statistics is None:
            statistics = self.collection_statistics(texts)
        _check_statistics(self, statistics)
        X, L = self._vectors(texts, statistics)
        return self.scorer.document_rows(X, self._scoring_statistics(statistics), lexical=L)

    def query_rows(self, texts, statistics):
        """The :class:`learnsim.scorer.Rows` of queries ``texts`` against a collection of these
        ``statistics`` (:meth:`collection_statistics`)."""
        _check_statistics(self, statistics, documents=False)
        X, L = self._vectors(texts, statistics)
        return self.scorer.query_rows(X, self._scoring_statistics(statistics) or None, lexical=L)

    def _scoring_statistics(self, statistics):
        """``statistics`` as the scorer takes them: a BM25 mix weights by the collection's
        vocabulary statistics, or, where they hold none (no corpus to an explanation), by those of
        the texts its "lexical" part was fitted on, whose vocabulary it then uses."""
        if self.scorer.lexical_kind != "bm25" or (statistics and "vocabulary_df" in statistics):
            return statistics
        lexical = self.lexical
        return dict(statistics or {}, vocabulary_df=np.asarray(lexical.document_frequency_, dtype=np.int64),
                    vocabulary_n_documents=np.asarray(lexical.n_documents_, dtype=np.int64),
                    vocabulary_avgdl=np.asarray(lexical.avgdl_, dtype=np.float64))

    def lexical_vectorizer(self, statistics):
        """The vectoriser of the lexical part under the collection ``statistics``: the fitted
        one with the collection's vocabulary and statistics
        (:func:`learnsim.text.collection_vectorizer`), or None where the model keeps its own
        (:attr:`uses_collection_vocabulary` is False, or ``statistics`` hold no vocabulary). A
        model over a dense encoder that mixes a lexical part in always has one: without a
        vocabulary in ``statistics``, its "lexical" part as fitted."""
        if not self.uses_collection_vocabulary:
            return None
        if not statistics or "vocabulary" not in statistics:
            return self.lexical if self.scorer.lexical_weight is not None else None
        vocabulary = statistics["vocabulary"]
        cached = self._lexical_cache
        if cached is not None and cached[0] is vocabulary:
            return cached[1]
        from .text import collection_vectorizer

        vec = collection_vectorizer(self._lexical_base(), statistics)
        self._lexical_cache = (vocabulary, vec)
        return vec

    def _vectors(self, texts, statistics):
        """(X, lexical) of ``texts`` under ``statistics``: the vectors the scorer takes and those
        of its input cosine (None: X's own); term weightings get the collection's counts as X."""
        vec = self.lexical_vectorizer(statistics)
        if vec is None:
            return self.vectorize(texts), None
        texts = _check_texts(texts, "texts")
        L = vec.transform(texts)
        L = L.astype(np.float64) if L.dtype != np.float64 else L
        if self.scorer.kind == "term_weights":
            return L, None
        if self.scorer.lexical_weight is not None:
            # the encoder's vectors, unless the lexical cosine alone scores (then they are not
            # encoded: L stands in for them, unused)
            return (L if self.scorer.lexical_weight == 1.0 else self.vectorize(texts)), L
        return (L if self.scorer.input_weight == 1.0 else self.vectorize(texts)), L

    def _collection_search(self, corpus):
        """A :class:`_CollectionSearch` of the corpus texts (the in-memory search, as an index
        built from them scores)."""
        corpus = _check_texts(corpus, "corpus")
        with stage_for(f"search: vectorizing the corpus ({len(corpus)} texts)", len(corpus)):
            return _CollectionSearch(self, corpus)

    def searcher(self, corpus):
        """The corpus vectorised once, to score many queries against it (what :meth:`search`
        and :meth:`similarity` build on each call).

        The returned object has ``n_documents``, ``top_k(queries, k)`` -> ``(idx, values)``
        (each query's k best corpus positions, best first; ``values`` are the scorer's: a
        distance for the distance models) and ``closeness(queries)`` -> an array (n_queries,
        n_documents), higher closer. The first stage only: a re-ranker is not applied.

        Examples
        --------
        >>> import learnsim
        >>> texts = ["reset my password", "forgot password", "charged twice", "double charge refund"]
        >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1], baseline_holdout=None)
        >>> found = model.searcher(texts)
        >>> idx, values = found.top_k(["reset my password"], 2)
        >>> int(idx[0][0]), found.closeness(["reset my password"]).shape
        (0, (1, 4))
        """
        return self._collection_search(corpus)

    def _check_collection(self, n_documents, statistics, given=False, n_terms=None):
        from .linklearn import LinkLearn

        if statistics is not None:
            return
        if isinstance(self.metric, LinkLearn) and n_documents < 2:
            # named by what it scores: a fit that ended as the tf.idf cosine is a LinkLearn inside
            what = "the tf.idf cosine" if self.scoring == "tf.idf cosine" else "LinkLearn"
            hint = "" if not given else ", or statistics= (collection_statistics of their collection)"
            raise ValueError(f"{what} (this model's scoring) weights documents by the idf of their collection, "
                             f"which takes at least 2 documents: give 2 or more{hint}")
        # every term weighting (LearnedBM25, a baseline BM25, as LinkLearn): scikit-learn's
        # 'X has 0 feature(s)' from inside the weighting named no argument
        if n_terms == 0 and self.scorer.kind == "term_weights":
            raise ValueError(f"none of the {n_documents} texts of the collection holds a word this model counts (each "
                             "is empty, punctuation or stop words): there is nothing to weight or search")

    # ------------------------------------------------------------------ similarity and search
    @with_show_progress_bar
    def similarity(self, texts_a, texts_b):
        """The model's validated scoring between every text of ``texts_a`` and of ``texts_b``.

        Higher is closer: FILM's (mixed) cosine, the inner product of learned term weights, or
        minus the learned distance for the distance models. ``texts_b`` play the documents:
        term-weight models weight them with their own collection statistics, as
        ``learnsim search`` weights its corpus. These are the values ``learnsim search`` ranks by.

        Parameters
        ----------
        texts_a, texts_b : list of str
        show_progress_bar : bool or None, default=None
            As for :meth:`search`.

        Returns
        -------
        ndarray of float64, shape (len(texts_a), len(texts_b))
        """
        texts_a = _check_texts(texts_a, "texts_a")
        # checked here under its own name: the collection search would call it 'corpus'
        texts_b = _check_texts(texts_b, "texts_b")
        return np.asarray(self._collection_search(texts_b).closeness(texts_a), dtype=np.float64)

    @with_show_progress_bar
    def search(self, queries, corpus, k=10):
        """The ``k`` closest corpus texts of each query, as ``learnsim search`` finds them.

        Parameters
        ----------
        queries : str or list of str
        corpus : list of str
            Term-weight models weight it with its own collection statistics. Like every list
            of texts a Pipeline takes, also a numpy array, a pandas Series, the text column of
            a DataFrame or a datasets.Dataset (``text``, or its only column) or a documents file
            as a :class:`pathlib.Path` (:mod:`learnsim._inputs`); ``corpus_id`` is the position.
        k : int, default=10
            Hits per query (at most the corpus' size: a larger k lists every text).
        show_progress_bar : bool or None, default=None
            Progress on stderr: the corpus' vectorising and the scoring of many queries (a bar
            over their blocks). Nothing is drawn for fewer than 1000 texts (or one block of
            queries) unless True. None: as :func:`learnsim.set_progress` says (by default on a
            terminal or in a notebook).

        Returns
        -------
        list of list of dict, or list of dict for a single str query
            Per query, ``{"corpus_id": int, "score": float}`` best first, ties to the lower
            corpus_id (sentence-transformers' ``util.semantic_search`` shape). ``score`` is the
            similarity, or for the distance models the learned distance (then the smallest
            first). With a re-ranker (:attr:`rerank`), the first stage's top
            ``rerank.n_candidates`` are re-scored: ``score`` is the re-ranker's probability of
            a duplicate, and ``first_stage_rank`` / ``first_stage_score`` say where the hit
            stood before. A query none of whose words the model knows gets no hits (every
            text would score the same), as :meth:`learnsim.index.Index.search` gives it; a
            model that scores by shared words alone gives the texts sharing a word with the
            query, up to k (not k padded with texts scoring 0).
        """
        single = isinstance(queries, str)
        queries = [queries] if single else queries
        k = _check_k(k)
        queries = _check_texts(queries, "queries")
        # the list, not what was given: a Series' corpus[i] would be its label i, not its i-th text
        corpus = _check_texts(corpus, "corpus")
        found = self._collection_search(corpus)
        depth = min(max(k, self.rerank.n_candidates) if self.rerank is not None else k, found.n_documents)
        # a lone 猫 read as the terms holding it, as Index.search reads it
        queries = found.read_lone_characters(queries)
        idx, values, blank = found.top_k_blank(queries, depth)
        # a query with no word the model knows gets no hits, as Index.search gives it
        hits = [[] if none else [{"corpus_id": int(i), "score": float(v)} for i, v in zip(row_i, row_v)]
                for row_i, row_v, none in zip(idx, values, blank)]
        if self.rerank is not None:
            hits = [rerank_hits(self.rerank, query, row, [corpus[h["corpus_id"]] for h in row])
                    for query, row in zip(queries, hits)]
        hits = [row[:k] for row in hits]
        return hits[0] if single else hits

    # ------------------------------------------------------------------ duplicates
    @with_show_progress_bar
    def match(self, pairs):
        """Decide which pairs of texts are duplicates with the model's validated duplicate rule,
        as ``learnsim match --pairs`` does.

        Parameters
        ----------
        pairs : list of (str, str)
            Or a pandas DataFrame of the two text columns alone (its rows). The kNN rule
            decides among the distinct texts of all the pairs given together.
        show_progress_bar : bool or None, default=None
            Progress on stderr while many pairs are decided (1000 or more, or True).

        Returns
        -------
        list of dict
            Per pair ``{"probability": float, "duplicate": bool, "score": float}``: the
            calibrated probability of a duplicate, the rule's decision and its score (the
            pair's (mixed) cosine for a threshold rule, the classifier's decision value, or
            1/0 for mutual nearest neighbours). An exact copy (the same text on both sides,
            holding more than white space) is a duplicate with probability 1 under every rule,
            its score the rule's. A model fitted on graded pairs gives ``{"score": float}``
            only: the predicted similarity on the scale of the scores it was fitted on (higher
            is more similar).

        Notes
        -----
        The pairs given together are a collection (issue 32, part 6): a model fitted on graded
        pairs weights its pair regression's lexical features (the input cosine, the character
        n-gram cosine, word overlap and length) by the vocabulary and document frequencies of
        the fit's texts together with the distinct texts of ``pairs``, so words the fit never
        saw count (:class:`learnsim.matching.PairScoreRegressor`, ``lexical="collection"``).
        A pair's score therefore depends on the other pairs of the call (little for a small
        batch, whose weights are almost the fit's), never on their order; ``learnsim match
        --pairs``, ``learnsim evaluate --pairs`` and the service's ``POST /v1/match`` score
        the pairs of a call (a file; a request, in pieces of 100 pairs) the same way. Model
        files saved before keep the fit's vocabulary, and score as they did.

        Raises
        ------
        ValueError
            When the model has no duplicate rule (only a FILM fitted on pairs has one).
        """
        if self.matcher is None:
            raise ValueError(f"this {self.method} model has no validated duplicate rule; fit one on "
                             "labelled pairs: learnsim.fit(pairs=[(text_a, text_b, label), ...]) (method 'film')")
        from .matching._duplicates import DuplicateRule
        from .datasets import read_pairs

        rows = _check_text_pairs(pairs)
        rule = DuplicateRule(self.matcher, self.match_rule)
        if rule.never_duplicate():
            warn_outside(rule.never_duplicate(), UserWarning)
        with stage_for(f"matching {len(rows)} pairs", len(rows)):
            # the collection of distinct texts as learnsim match builds it from a pairs file
            data = read_pairs(rows)
            texts = [str(t) for t in data.texts]
            idx = np.asarray(data.indices, dtype=np.int64)
            X = self.vectorize(texts)
            score, proba, decision = rule.decide(idx, X, texts)
            if rule.graded:
                return [{"score": float(s)} for s in score]
        return [{"probability": float(p), "duplicate": bool(d), "score": float(s)}
                for p, d, s in zip(proba, decision, score)]

    # ------------------------------------------------------------------ explanations
    def term_spans(self, text):
        """Where the vectoriser's words stand in ``text``: a list of ``(start, end, term)``
        (:meth:`learnsim.text.Tokenizer.spans`), to mark the words an explanation names; empty
        for a vectoriser that has no tokenizer (a dense sentence encoder)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str; got {type(text).__name__}")
        # the fitted vectoriser's own tokenizer (built once at fit or load), else a new one like
        # it; over a dense encoder, the lexical part's (its words are those explanations name)
        tokenizer = self._lexical_tokenizer()
        return tokenizer.spans(text) if hasattr(tokenizer, "spans") else []

    def terms(self, text):
        """The vectoriser's terms of ``text`` as its tokenizer reads them (the terms
        :meth:`term_spans` places, and the n-grams of them it counts); empty for a vectoriser
        that has no tokenizer (a dense sentence encoder)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str; got {type(text).__name__}")
        tokenizer = self._lexical_tokenizer()
        return list(tokenizer(text)) if hasattr(tokenizer, "spans") else []

    def _lexical_tokenizer(self):
        source = self.vectorizer if self.lexical is None else self.lexical
        tokenizer = getattr(source, "_tokenizer", None)
        if tokenizer is None and hasattr(source, "_make_tokenizer"):
            tokenizer = source._make_tokenizer()
        return tokenizer

    def explain(self, query, document, n_top=10, statistics=None, corpus=None):
        """Which words make ``document`` close to (or far from) ``query``, split exactly.

        The contributions of all the words add up to the score (to rounding, 1e-9), and
        ``"rest"`` is what the words left out of the list add. How the score splits:

        - term-weight models (LinkLearn, LearnedBM25): each word of both texts adds
          query weight x document weight. The document is weighted with the statistics of the
          collection it is searched in: give ``statistics``
          (``pipeline.collection_statistics(corpus)``) or ``corpus`` (the texts); one of them
          is required. The search accumulates these products in float32,
          so its score equals this one to float32 precision (about 1e-6 relative).
        - FILM (cosine): score = w cos(x_q, x_d) + (1 - w) cos(L x_q, L x_d) with the
          validated input weight w (0: the learned cosine alone, 1: the input cosine alone).
          The input cosine splits into x_q,i x_d,i / (|x_q| |x_d|) per shared word; the learned
          cosine as :func:`learnsim.explain.explain_pair` splits it, each word getting the mean
          of its shares as a word of the query and as a word of the document (the two splits
          each sum to the cosine). ``"word_pairs"`` lists the word pairs (query word, document
          word) of the learned part, (1 - w) x their share of the learned cosine.
        - models over a dense sentence encoder: score = lambda x the lexical tf.idf cosine +
          (1 - lambda) x the dense scoring (the encoder's cosine, or FILM's mixed cosine over
          its vectors), lambda the search rule's ``lexical_weight`` (0 without a lexical part).
          The lexical part is split over the words as the input cosine is (``"words"`` and
          ``"rest"`` sum to ``"lexical"``); the dense part is one number, ``"dense"`` (a
          sentence embedding's cosine has no per-word split): ``lexical + dense == score``.
          A BM25 mix (``"lexical_kind"`` ``"bm25"``; over an encoder, or FILM's learned cosine
          over term vectors as its dense part) splits lambda BM25 / Z(q) over the shared words:
          word t adds lambda x idf_t x its saturated tf in the document / Z(q). Its document is
          weighted with the statistics of its collection (``statistics`` or ``corpus``; without
          them, those of the texts the "lexical" part was fitted on).
        - FILM over term vectors mixed with BM25 (a search rule's ``lexical_kind`` "bm25"): score
          = lambda BM25(q, d) / Z(q) + (1 - lambda) cos(L x_q, L x_d); BM25's part splits over
          the shared words (its stems), lambda x each word's weight in the document / Z(q), the
          learned cosine as FILM's alone does, and a word's contributions from both parts add up
          (``"lexical"`` + ``"learned"`` == score; ``"word_pairs"`` of the learned part).
        - distance models (MinimumClusterDistortion, RelativeComparisonMetric): ``"score"`` is
          the learned distance d (lower is closer) and ``"squared_distance"`` d^2 = diff^T M
          diff (diff = x_q - x_d); word i adds diff_i (M diff)_i, so the contributions (and
          ``"rest"``) are of d^2, not of d. MCD also lists the word pairs (i, j) of diff,
          diff_i diff_j M_ij; relative comparisons learn a diagonal M, so word i adds w_i
          diff_i^2. Those words are mostly what keeps the document away from the query. What
          brings it close is split against a reference, the query's squared distance to an
          empty document, ``"reference_squared_distance"`` q^T M q: d^2 = q^T M q + d^T M d -
          2 q^T M d, and ``"closer_words"`` splits the change d^2 - q^T M q over the words of
          both texts, word i adding d_i (M d)_i - q_i (M d)_i - d_i (M q)_i (w_i (diff_i^2 -
          q_i^2) for a diagonal M): a negative contribution brings the document closer (a
          word the texts share, or, through M, a related word), a positive one pushes it away
          (a document word the query lacks). They are listed most negative first, then the
          positive ones, largest first; ``"closer_rest"`` is what the others add, so that
          ``reference_squared_distance + sum(closer_words) + closer_rest == squared_distance``
          (to rounding). MCD's ``"closer_word_pairs"`` lists the pairs (query word i,
          document word j) and their -2 q_i d_j M_ij, most negative first.

        With an LSI vectoriser the similarity is explained over the words through the LSI
        basis, which the vectoriser applies in float32: the score then equals the search's to
        about 1e-6 relative.

        Parameters
        ----------
        query, document : str
        n_top : int, default=10
            Words (and word pairs) listed, largest absolute contribution first.
        statistics : dict, optional
            The collection statistics of the document's collection
            (:meth:`collection_statistics`): required by the term-weight models; for FILM with
            an input cosine, the vocabulary its input cosine takes (without them, and without
            ``corpus``, the vectoriser's own vocabulary, as before issue 32). Ignored by the
            distance models.
        corpus : list of str, optional
            The document's collection, to compute ``statistics`` from (one or the other, not
            both).

        Returns
        -------
        dict
            ``"score"``, ``"scoring"``, ``"measure"`` (what the score is: ``"similarity"``,
            ``"distance"`` or ``"score"``, as the search's hits), ``"higher_is_better"`` (False
            for a distance), ``"words"`` (list of ``{"word", "contribution"}``), ``"rest"``
            (float), and ``"word_pairs"`` (list of ``{"word_a", "word_b", "contribution"}``)
            for FILM's learned part and MCD, ``"squared_distance"`` and ``"input_weight"`` where
            they apply; for a distance, ``"reference"`` (``"empty document"``),
            ``"reference_squared_distance"``, ``"closer_words"``, ``"closer_rest"`` and, for
            MCD, ``"closer_word_pairs"``.

        Examples
        --------
        A model fitted on six texts in three topics learns a distance (too few to check it
        against the strongest baseline, which the fit would end as: ``baseline_holdout=None``
        keeps it unchecked); the words the document shares with the query bring it closer than
        an empty document (negative contributions, listed first):

        >>> import learnsim
        >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
        ...          "refund for a double charge", "app crashes on start", "crash after the update"]
        >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2], baseline_holdout=None)
        >>> e = model.explain("I forgot my password", "forgot my password", n_top=3)
        >>> e["measure"], e["higher_is_better"]
        ('distance', False)
        >>> sorted(w["word"] for w in e["closer_words"] if w["contribution"] < 0)
        ['forgot', 'my', 'password']
        >>> total = e["reference_squared_distance"] + sum(w["contribution"] for w in e["closer_words"])
        >>> abs(total + e["closer_rest"] - e["squared_distance"]) < 1e-9
        True
        """
        for name, text in (("query", query), ("document", document)):
            if not isinstance(text, str):
                raise TypeError(f"{name} must be a str; got {type(text).__name__}")
        n_top = _check_k(n_top, "n_top")
        _check_statistics(self, statistics)
        if corpus is not None:
            # both: the statistics were used and the corpus dropped without a word
            if statistics is not None:
                raise ValueError("give statistics= or corpus=, not both: the statistics are those of a collection "
                                 "(collection_statistics(corpus)), corpus= the collection itself")
            # checked also where the scoring does not read it (a distance model took any corpus)
            corpus = _check_texts(corpus, "corpus")
        return _explain(self, query, document, n_top, statistics, corpus)


class _CollectionSearch:
    """The in-memory search of one corpus under a pipeline: its scorer prepared on the corpus'
    vectors (over the corpus' own vocabulary where :attr:`Pipeline.uses_collection_vocabulary`),
    and the queries vectorised alike. ``documents``: the corpus' vectors the lexical part uses (to
    find empty documents)."""

    def __init__(self, pipeline, corpus):
        self.pipeline = pipeline
        self.scorer = pipeline.make_scorer()
        self.lexical_vectorizer = statistics = None
        if pipeline.uses_collection_vocabulary:
            from .text import collection_vectors

            # the corpus' own vocabulary and statistics, as an index built from it keeps them
            statistics, self.lexical_vectorizer, L = collection_vectors(pipeline._lexical_base(), corpus)
            if self.scorer.kind == "term_weights":
                C, L = L, None
            elif self.scorer.lexical_weight is not None:
                # a dense encoder's vectors beside the lexical ones (L stands in, unused, when
                # the lexical cosine alone scores)
                C = L if self.scorer.lexical_weight == 1.0 else pipeline.vectorize(corpus)
            else:
                C = L if self.scorer.input_weight == 1.0 else pipeline.vectorize(corpus)
        else:
            C, L = pipeline.vectorize(corpus), None
        pipeline._check_collection(C.shape[0], None, n_terms=C.shape[1])
        self.documents = C if L is None else L
        self.n_documents = C.shape[0]
        self.scorer.prepare(C, L, statistics)

    def vectors(self, texts):
        """(X, lexical) of query texts (see ``Pipeline._vectors``)."""
        vec = self.lexical_vectorizer
        if vec is None:
            return self.pipeline.vectorize(texts), None
        L = vec.transform(texts)
        L = L.astype(np.float64) if L.dtype != np.float64 else L
        if self.scorer.kind == "term_weights":
            return L, None
        if self.scorer.lexical_weight is not None:
            return (L if self.scorer.lexical_weight == 1.0 else self.pipeline.vectorize(texts)), L
        return (L if self.scorer.input_weight == 1.0 else self.pipeline.vectorize(texts)), L

    def read_lone_characters(self, texts):
        """``texts`` with each lone character of a spaceless script that the vocabularies do not
        hold read as the terms holding it, as an index's search reads a query
        (:class:`learnsim.text.LoneCharacters`); the texts themselves where none is one, and for a
        model without a vocabulary (an encoder, hashed columns)."""
        if all(t.isascii() for t in texts):
            return texts
        reader = getattr(self, "_lone", None)
        if reader is None:
            self._lone = reader = lone_character_reader(self.lexical_vectorizer, self.pipeline.vectorizer)
        return [reader(t) for t in texts] if reader else texts

    def top_k(self, texts, k):
        # k and the queries checked as search checks them, and k past the corpus' size clipped
        # to it: numpy's "could not broadcast input array from shape (1,4) into shape (1,10)",
        # "negative dimensions are not allowed" (k=-1) named neither
        k = min(_check_k(k), self.n_documents)
        return self._scored(_check_texts(texts, "queries"), k)[:2]

    def top_k_blank(self, texts, k):
        """(idx, values, blank) of a search: per query, the positions and values of its hits (an
        array each, up to k: a model that scores by shared words alone has no hit among the
        documents sharing no word with the query, as an index has none), and whether its
        vectors are zero (no word of it is one the model knows: every text would score the
        same)."""
        idx, values, X, L = self._scored(texts, k, matches_only=True)
        hit = np.isfinite(values)      # -inf: no match; +inf: a distance to a placeless document
        idx, values = ([row[h] for row, h in zip(a, hit)] for a in (idx, values))
        return idx, values, _blank_rows(X) & (True if L is None else _blank_rows(L))

    def _scored(self, texts, k, matches_only=False):
        with stage_for(f"search: scoring {len(texts)} queries", len(texts)):
            X, L = self.vectors(texts)
            return (*self.scorer.top_k(X, k, lexical=L, matches_only=matches_only), X, L)

    def closeness(self, texts):
        texts = _check_texts(texts, "texts")
        with stage_for(f"scoring {len(texts)} texts", len(texts)):
            X, L = self.vectors(texts)
            return self.scorer.closeness(X, L)


def _blank_rows(X):
    """Per row of vectors (dense or sparse), whether it is zero (boolean array)."""
    from .text import find_empty_rows

    blank = np.zeros(X.shape[0], dtype=bool)
    blank[find_empty_rows(X)] = True
    return blank


def lone_character_reader(*vectorizers):
    """The :class:`learnsim.text.LoneCharacters` of the vocabularies of ``vectorizers`` (a
    lexical part's, the model's own; None or one without a vocabulary left out), read with the
    first's tokenizer; False where none has one (an encoder, hashed columns). What a searcher and
    a DistributedIndex read a query's lone characters with."""
    vectorizers = [v for v in vectorizers
                   if isinstance(getattr(v, "vocabulary_", None), dict) and hasattr(v, "build_tokenizer")]
    if not vectorizers:
        return False
    from .text import LoneCharacters

    return LoneCharacters(vectorizers[0].build_tokenizer(), [v.vocabulary_ for v in vectorizers])


def rerank_hits(reranker, query, hits, texts):
    """The hits (a query's first-stage hits, best first, dicts with ``"score"``) in the
    re-ranker's order: ``score`` becomes its probability, the first stage's rank and score are
    kept as ``first_stage_rank`` and ``first_stage_score`` (what moved a hit shows in its
    explanation). A ``"rank"`` key, where the hits have one, is renumbered."""
    order, proba = reranker.rerank(query, texts)
    out = []
    for new, old in enumerate(order):
        hit = dict(hits[old], score=float(proba[old]), first_stage_rank=int(old) + 1,
                   first_stage_score=hits[old]["score"])
        if "rank" in hit:
            hit["rank"] = new + 1
        out.append(hit)
    return out


def _rule_name(pipeline):
    return getattr(pipeline.match_rule, "matcher", None) or type(pipeline.matcher).__name__


# ---------------------------------------------------------------------------- argument checks
def _check_fitted_part(part, name):
    """A NotFittedError naming the part for a scikit-learn estimator not fitted: made of one, a
    Pipeline said at its first search, encode or save that the part's class should 'Call fit', a
    method the Pipeline has not. Objects of other kinds (a custom encoder) are checked by use."""
    from sklearn.base import BaseEstimator
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    if not isinstance(part, BaseEstimator):
        return
    try:
        check_is_fitted(part)
    except NotFittedError:
        raise NotFittedError(f"the {name} ({type(part).__name__}) is not fitted: a Pipeline holds fitted parts; fit "
                             "it first, or let learnsim.fit(texts, ...) fit the whole model") from None

def _check_texts(texts, name):
    from ._inputs import texts_of

    # a Series, an array, a table's text column, a documents file (pathlib.Path): the one rule
    texts = texts_of(texts, name)
    if isinstance(texts, str):
        raise TypeError(f"{name} must be a list of str; got a single str (wrap it in a list: [text])")
    if isinstance(texts, (bytes, dict)) or not hasattr(texts, "__len__") or not hasattr(texts, "__iter__"):
        raise TypeError(f"{name} must be a list of str; got {type(texts).__name__}")
    texts = list(texts)
    if not texts:
        raise ValueError(f"{name} is empty: give at least one text")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"{name}[{i}] must be a str; got {type(text).__name__}")
        _whole(text, f"{name}[{i}]")
    return texts


def _whole(text, where):
    """A TextError for a lone surrogate in ``text`` (no UTF-8 text holds one): refused by every
    entry alike, as the index refuses it (it was accepted by search, and a UnicodeEncodeError
    deep in a pair model's character n-grams)."""
    from ._utils.inputs import check_text, has_surrogate

    if has_surrogate(text):
        check_text(text, where)


def _check_statistics(pipeline, statistics, documents=True):
    """``statistics`` where they are what :meth:`collection_statistics` gives (None too): a
    list or a str was indexed into deep in the scorer, and a dict without the idf that
    LinkLearn's (and the tf.idf cosine's) document weights take was a bare KeyError 'idf'."""
    if statistics is None:
        return None
    if not (hasattr(statistics, "keys") and hasattr(statistics, "__getitem__")) or isinstance(statistics, str):
        raise TypeError("statistics must be a dict, as pipeline.collection_statistics(corpus) returns it; got "
                        f"{type(statistics).__name__}")
    if not documents or pipeline.scorer.kind != "term_weights" or "idf" in statistics:
        return statistics
    # (imported here alone: an index's explanation of another scoring imports no model)
    from .linklearn import LinkLearn

    if isinstance(pipeline.metric, LinkLearn):
        raise ValueError("statistics lacks 'idf', which this model weights documents with: give "
                         "pipeline.collection_statistics(corpus) of the collection the texts belong to")
    return statistics


def _check_k(k, name="k"):
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 1; got {type(k).__name__} {k!r}")
    if k < 1:
        raise ValueError(f"{name} must be >= 1; got {k}")
    return int(k)


def _check_text_pairs(pairs):
    from ._inputs import is_table

    if is_table(pairs):
        # iterated, a DataFrame gives its column names ('pairs[0] must be a tuple; got 'q1''):
        # its rows are the pairs where it has the two text columns alone
        names = [str(c) for c in (pairs.column_names if not hasattr(pairs, "itertuples") else pairs.columns)]
        if not hasattr(pairs, "itertuples") or len(names) != 2:
            kind = "DataFrame" if hasattr(pairs, "itertuples") else "datasets.Dataset"
            raise TypeError(f"pairs is a {kind} of {len(names)} columns ({', '.join(map(repr, names[:6]))}): give "
                            "its two text columns, model.match(df[['text_a', 'text_b']]), or a list of (text_a, "
                            "text_b) tuples")
        pairs = list(pairs.itertuples(index=False, name=None))
    if isinstance(pairs, (str, bytes, dict)) or not hasattr(pairs, "__len__") or not hasattr(pairs, "__iter__"):
        raise TypeError(f"pairs must be a list of (text_a, text_b) tuples; got {type(pairs).__name__}")
    rows = list(pairs)
    if not rows:
        raise ValueError("pairs is empty: give at least one (text_a, text_b) pair")
    if len(rows) == 2 and all(isinstance(row, str) for row in rows):
        # match(("a", "b")): one pair given without its list was read as two pairs, and its
        # first text named as the bad pair ("pairs[0] must be a tuple; got 'a'")
        raise TypeError("pairs must be a list of (text_a, text_b) pairs; got a single pair of two str (wrap it "
                        "in a list: [(text_a, text_b)])")
    for r, row in enumerate(rows):
        # (a dict of two keys has a length of 2, and row[0] was a bare KeyError)
        if isinstance(row, (str, bytes, dict)) or not hasattr(row, "__len__") or len(row) != 2:
            raise ValueError(f"pairs[{r}] must be a tuple (text_a, text_b); got {row!r}"[:300])
        if not (isinstance(row[0], str) and isinstance(row[1], str)):
            raise TypeError(f"pairs[{r}] must hold two str; got {type(row[0]).__name__} and {type(row[1]).__name__}")
        _whole(row[0], f"pairs[{r}][0]")
        _whole(row[1], f"pairs[{r}][1]")
    return [(a, b) for a, b in rows]


def _word_space(vectorizer):
    """(word names, projection): the LSI basis (n_components x n_words) of a vectoriser with
    LSI, so that similarities are explained over words; else the features and None."""
    if getattr(vectorizer, "components_", None) is None:
        return [str(t) for t in vectorizer.get_feature_names_out()], None
    return [str(t) for t in vectorizer.terms_], np.asarray(vectorizer.components_, dtype=np.float64)


def _word_vectors(vectorizer, texts):
    """The float64 term vectors the model's inputs are made of (before any LSI projection)."""
    if getattr(vectorizer, "components_", None) is not None:
        vectorizer = copy.copy(vectorizer)
        vectorizer.components_ = None       # the weighted, normalised vectors that LSI projects
    X = vectorizer.transform(texts)
    return X.astype(np.float64) if X.dtype != np.float64 else X


# ---------------------------------------------------------------------------- explanations
def _explain(pipeline, query, document, n_top, statistics, corpus):
    scorer = pipeline.scorer
    # (an index's plan pipeline has no dense encoder: its scorer has no dense_input)
    if scorer.kind == "cosine" and getattr(scorer, "dense_input", False):
        return _explain_dense(pipeline, query, document, n_top, statistics, corpus)
    if scorer.kind == "term_weights":
        return _explain_term_weights(pipeline, query, document, n_top, statistics, corpus)
    names, projection = _word_space(pipeline.vectorizer)
    W = _csr(_word_vectors(pipeline.vectorizer, [query, document]))
    if scorer.kind == "cosine":
        if statistics is None and corpus is not None and pipeline.uses_collection_vocabulary:
            statistics = pipeline.collection_statistics(_check_texts(corpus, "corpus"))
        lexical = pipeline.lexical_vectorizer(statistics)
        if lexical is not None:
            return _explain_cosine(pipeline, W[0], W[1], names, projection, n_top,
                                   lexical=(_csr(_word_vectors(lexical, [query, document])),
                                            [str(t) for t in lexical.terms_]))
        return _explain_cosine(pipeline, W[0], W[1], names, projection, n_top)
    return _explain_distance(pipeline, W[0], W[1], names, projection, n_top)


def _explain_dense(pipeline, query, document, n_top, statistics, corpus):
    """A model over a dense encoder (or a lexical + dense mix): score = lambda x the lexical
    tf.idf cosine (split over the words as the input cosine is) + (1 - lambda) x the dense
    scoring (``"dense"``, one number: a sentence embedding's cosine has no per-word split). A
    BM25 mix splits lambda BM25 / Z(q) over the shared words: word t adds lambda x its BM25
    document weight / Z(q)."""
    scorer = pipeline.scorer
    lam = scorer.lexical_weight or 0.0
    from .text.encoders import is_encoder

    if lam < 1.0 and not is_encoder(pipeline.vectorizer):
        return _explain_film_mix(pipeline, query, document, n_top, statistics, corpus)
    dense = 0.0
    if lam < 1.0:
        V = pipeline.vectorize([query, document])
        dense = (1.0 - lam) * float(scorer._dense_rows(V[:1], query=True)[0] @ scorer._dense_rows(V[1:])[0])
    words, rest, lexical = [], 0.0, 0.0
    if lam > 0.0:
        if statistics is None and corpus is not None:
            statistics = pipeline.collection_statistics(_check_texts(corpus, "corpus"))
        vec = pipeline.lexical_vectorizer(statistics)
        L = _csr(_word_vectors(vec, [query, document]))
        if scorer.lexical_kind == "bm25":
            bm25 = pipeline._scoring_statistics(statistics)
            q, d = (_csr(scorer.bm25_rows(L[i:i + 1], bm25, query=i == 0)) for i in (0, 1))
            index, at_q, at_d = np.intersect1d(q.indices, d.indices, assume_unique=True, return_indices=True)
            contributions = q.data[at_q] * d.data[at_d]
        else:
            index, shares = _input_cosine_split(L[0], L[1], None)
            contributions = lam * shares
        lexical = float(contributions.sum())
        words, rest = _listed(index, contributions, [str(t) for t in vec.get_feature_names_out()], n_top, lexical)
    w = scorer.input_weight
    return {"score": lexical + dense, "scoring": scorer.name, "measure": "similarity", "higher_is_better": True,
            "input_weight": w, "lexical_weight": lam, "lexical_kind": scorer.lexical_kind, "lexical": lexical,
            "dense": dense, "words": words, "rest": rest}


def _explain_film_mix(pipeline, query, document, n_top, statistics, corpus):
    """FILM over term vectors mixed with BM25 (issue 42): score = lambda BM25 / Z(q) + (1 -
    lambda) cos(Lx_q, Lx_d), both parts split over words, keyed by word across the two (BM25's
    words are its stems): word t adds lambda x its BM25 share, and (1 - lambda) x the mean of its
    shares of the learned cosine as a word of the query and of the document; ``"word_pairs"``
    lists the learned part's word pairs. ``"lexical"`` and ``"learned"`` are the two parts' sums
    (no ``"dense"``: the learned part is split over the words, not one number)."""
    from .evaluation.explain import explain_pair

    scorer = pipeline.scorer
    lam = scorer.lexical_weight or 0.0
    per_word, pairs = {}, []
    names, projection = _word_space(pipeline.vectorizer)
    W = _csr(_word_vectors(pipeline.vectorizer, [query, document]))
    width = max(W[0].nnz, W[1].nnz, n_top, 1)
    exp = explain_pair(pipeline.metric, W[0], W[1], names, width, projection=projection)
    for listed in (exp.words_a, exp.words_b):
        for entry in listed:
            name = names[entry.index]
            per_word[name] = per_word.get(name, 0.0) + (1.0 - lam) * 0.5 * entry.cosine_contribution
    pairs = [((p.index_a, p.index_b), (1.0 - lam) * p.cosine_contribution) for p in exp.word_pairs]
    learned = float(sum(per_word.values()))
    lexical = 0.0
    if lam > 0.0:
        if statistics is None and corpus is not None:
            statistics = pipeline.collection_statistics(_check_texts(corpus, "corpus"))
        vec = pipeline.lexical_vectorizer(statistics)
        L = _csr(_word_vectors(vec, [query, document]))
        bm25 = pipeline._scoring_statistics(statistics)
        q, d = (_csr(scorer.bm25_rows(L[i:i + 1], bm25, query=i == 0)) for i in (0, 1))
        index, at_q, at_d = np.intersect1d(q.indices, d.indices, assume_unique=True, return_indices=True)
        terms = [str(t) for t in vec.get_feature_names_out()]
        for i, c in zip(index, q.data[at_q] * d.data[at_d]):
            per_word[terms[i]] = per_word.get(terms[i], 0.0) + float(c)
            lexical += float(c)
    words_all = list(per_word)
    contributions = np.fromiter(per_word.values(), dtype=np.float64, count=len(per_word))
    score = float(contributions.sum())
    words, rest = _listed(np.arange(len(words_all)), contributions, words_all, n_top, score)
    return {"score": score, "scoring": scorer.name, "measure": "similarity", "higher_is_better": True,
            "input_weight": scorer.input_weight, "lexical_weight": lam, "lexical_kind": scorer.lexical_kind,
            "lexical": lexical, "learned": learned, "words": words, "rest": rest,
            "word_pairs": _listed_pairs(pairs, names, n_top)}


def _explain_term_weights(pipeline, query, document, n_top, statistics, corpus):
    scorer = pipeline.scorer
    if statistics is None:
        if corpus is None:
            raise ValueError("a term-weight model weights the document with the statistics of the collection it "
                             "is searched in: give corpus= (its texts) or statistics= "
                             "(pipeline.collection_statistics(corpus))")
        statistics = pipeline.collection_statistics(_check_texts(corpus, "corpus"))
    q = _csr(pipeline.query_rows([query], statistics).sparse)
    d = _csr(pipeline.document_rows([document], statistics).sparse)
    shared, at_q, at_d = np.intersect1d(q.indices, d.indices, assume_unique=True, return_indices=True)
    contributions = q.data[at_q] * d.data[at_d]
    vec = pipeline.lexical_vectorizer(statistics) or pipeline.vectorizer
    names = [str(t) for t in vec.get_feature_names_out()]
    score = float(contributions.sum())
    words, rest = _listed(shared, contributions, names, n_top, score)
    return {"score": score, "scoring": scorer.name, "measure": "score", "higher_is_better": True,
            "words": words, "rest": rest}


def _explain_cosine(pipeline, x_q, x_d, names, projection, n_top, lexical=None):
    """w x the input cosine's split + (1 - w) x the learned cosine's (see Pipeline.explain);
    ``lexical``: (the two texts' vectors, the terms) of the input cosine over the searched
    collection's vocabulary (issue 32), the words then keyed by name across the two parts."""
    from .evaluation.explain import explain_pair

    w = pipeline.scorer.input_weight
    w = 0.0 if w is None else float(w)
    per_word = {}
    if lexical is not None:
        # one word list for both parts: the training words, then the collection's others
        L, lex_names = lexical
        # without a learned part, the collection's words alone (the order the index's query plan,
        # which holds no training words, lists them in)
        train_names, names = names, (list(names) if w < 1.0 else [])
        position = {t: i for i, t in enumerate(names)}
        for t in lex_names:
            if t not in position:
                position[t] = len(names)
                names.append(t)
        if w > 0.0:
            for i, c in zip(*_input_cosine_split(L[0], L[1], None)):
                j = position[lex_names[i]]
                per_word[j] = per_word.get(j, 0.0) + w * c
    elif w > 0.0:
        for i, c in zip(*_input_cosine_split(x_q, x_d, projection)):
            per_word[i] = per_word.get(i, 0.0) + w * c
    pairs = []
    if w < 1.0:
        width = max(x_q.nnz, x_d.nnz, n_top, 1)
        # n_top as wide as the texts: every word of each text is listed (zero shares aside)
        exp = explain_pair(pipeline.metric, x_q, x_d, names if lexical is None else train_names, width,
                           projection=projection)
        for listed in (exp.words_a, exp.words_b):
            for entry in listed:
                per_word[entry.index] = per_word.get(entry.index, 0.0) + (1.0 - w) * 0.5 * entry.cosine_contribution
        pairs = [((p.index_a, p.index_b), (1.0 - w) * p.cosine_contribution) for p in exp.word_pairs]
    index = np.fromiter(per_word, dtype=np.int64, count=len(per_word))
    contributions = np.fromiter(per_word.values(), dtype=np.float64, count=len(per_word))
    score = float(contributions.sum())
    words, rest = _listed(index, contributions, names, n_top, score)
    out = {"score": score, "scoring": pipeline.scorer.name, "measure": "similarity", "higher_is_better": True,
           "input_weight": w, "words": words, "rest": rest}
    if w < 1.0:
        out["word_pairs"] = _listed_pairs(pairs, names, n_top)
    return out


def _input_cosine_split(x_q, x_d, projection):
    """(words, shares) of the input cosine: x_q,i x_d,i / (|x_q| |x_d|) per shared word, or,
    through an LSI basis P, the mean of x_q,i (P^T P x_d)_i and x_d,i (P^T P x_q)_i over
    |P x_q| |P x_d|."""
    if projection is None:
        denom = np.sqrt(x_q.multiply(x_q).sum()) * np.sqrt(x_d.multiply(x_d).sum())
        shared, at_q, at_d = np.intersect1d(x_q.indices, x_d.indices, assume_unique=True, return_indices=True)
        shares = x_q.data[at_q] * x_d.data[at_d]
        return shared, (shares / denom if denom > 0 else np.zeros_like(shares))
    z_q, z_d = projection[:, x_q.indices] @ x_q.data, projection[:, x_d.indices] @ x_d.data
    denom = float(np.linalg.norm(z_q) * np.linalg.norm(z_d))
    union = np.union1d(x_q.indices, x_d.indices)
    dense_q, dense_d = np.zeros(union.size), np.zeros(union.size)
    dense_q[np.searchsorted(union, x_q.indices)] = x_q.data
    dense_d[np.searchsorted(union, x_d.indices)] = x_d.data
    back_q, back_d = projection[:, union].T @ z_q, projection[:, union].T @ z_d
    shares = 0.5 * (dense_q * back_d + dense_d * back_q)
    return union, (shares / denom if denom > 0 else np.zeros_like(shares))


def _explain_distance(pipeline, x_q, x_d, names, projection, n_top):
    """The split of d^2 = diff^T M diff over the words of diff (``"words"``), and the split of
    how much closer the document is than an empty one (``"closer_words"``; see Pipeline.explain)."""
    from .evaluation.explain import explain_pair

    metric = pipeline.metric
    x_q, x_d = _csr(x_q), _csr(x_d)
    if hasattr(metric, "unit_inputs"):
        # RelativeComparisonMetric(normalize=True): its distance is diag(w)'s between the rows
        # scaled to unit weighted norm, so the split below is of the distance ranked (without
        # normalize the rows are left as they are)
        x_q, x_d = _csr(metric.unit_inputs(x_q, projection)), _csr(metric.unit_inputs(x_d, projection))
    x_q.eliminate_zeros()
    x_d.eliminate_zeros()
    diff = _csr(x_q - x_d)
    diff.eliminate_zeros()
    pairs = closer_pairs = None
    relative = False
    if not hasattr(metric, "factor_"):
        # (MCD's factored form is never one: the index explains MCD hits without importing the
        # estimators, which this import would)
        from .relative import RelativeComparisonMetric

        relative = isinstance(metric, RelativeComparisonMetric)
    if relative and projection is None:
        if metric.kernel is not None:
            raise ValueError(f"a RelativeComparisonMetric with kernel {metric.kernel!r} has no per-word split: its "
                             "metric is over kernel values, not words")
        # M = diag(w): word i adds w_i diff_i^2 (no cross terms), and w_i (diff_i^2 - q_i^2) to
        # the change from the empty document
        weights = np.asarray(metric.weights_, dtype=np.float64)
        index = diff.indices.astype(np.int64)
        contributions = weights[index] * diff.data ** 2
        union = np.union1d(x_q.indices, x_d.indices).astype(np.int64)
        dq, dd = np.zeros(union.size), np.zeros(union.size)
        dq[np.searchsorted(union, x_q.indices)] = x_q.data
        dd[np.searchsorted(union, x_d.indices)] = x_d.data
        closer_index, closer = union, weights[union] * ((dq - dd) ** 2 - dq ** 2)
    else:
        width = max(diff.nnz, n_top, 1)
        exp = explain_pair(metric, diff, diff, names, width, projection=projection)
        index = np.array([e.index for e in exp.words_a], dtype=np.int64)
        contributions = np.array([e.contribution for e in exp.words_a], dtype=np.float64)
        pairs = [((p.index_a, p.index_b), p.contribution) for p in exp.word_pairs]
        # d^2 - q^T M q = d^T M d - 2 q^T M d: word i adds d_i (M d)_i - q_i (M d)_i - d_i (M q)_i
        # (a word pair (query word i, document word j) adds -2 q_i d_j M_ij, half to each word)
        per_word = {}
        if x_d.nnz:
            own = explain_pair(metric, x_d, x_d, names, max(x_d.nnz, 1), projection=projection)
            for e in own.words_a:
                per_word[e.index] = per_word.get(e.index, 0.0) + e.contribution
            if x_q.nnz:
                cross = explain_pair(metric, x_q, x_d, names, max(x_q.nnz, x_d.nnz, n_top, 1), projection=projection)
                for e in cross.words_a:
                    per_word[e.index] = per_word.get(e.index, 0.0) - e.contribution
                for e in cross.words_b:
                    per_word[e.index] = per_word.get(e.index, 0.0) - e.contribution
                closer_pairs = [((p.index_a, p.index_b), -2.0 * p.contribution) for p in cross.word_pairs]
        closer_index = np.fromiter(per_word, dtype=np.int64, count=len(per_word))
        closer = np.fromiter(per_word.values(), dtype=np.float64, count=len(per_word))
    squared = float(contributions.sum())
    words, rest = _listed(index, contributions, names, n_top, squared)
    # the reference: the query's squared distance to an empty document, q^T M q, taken as what
    # the change leaves of d^2 (so that reference + change = d^2 to the last bit)
    change = float(closer.sum())
    # the shares a product of rounding leaves (1e-20 where a word and the other text's words are
    # unrelated under M) are not listed as bringing the hit closer: they stay in the rest
    floor = 1e-12 * max(abs(squared), abs(squared - change), float(np.abs(closer).max(initial=0.0)))
    closer_words, closer_rest = _listed_closer(closer_index, closer, names, n_top, change, floor)
    out = {"score": float(np.sqrt(max(squared, 0.0))), "squared_distance": squared, "scoring": pipeline.scorer.name,
           "measure": "distance", "higher_is_better": False, "words": words, "rest": rest,
           "reference": "empty document", "reference_squared_distance": squared - change,
           "closer_words": closer_words, "closer_rest": closer_rest}
    if pairs is not None:
        out["word_pairs"] = _listed_pairs(pairs, names, n_top)
        out["closer_word_pairs"] = _listed_pairs(closer_pairs or [], names, n_top, closer_first=True, floor=floor)
    return out


def _order(index, contributions):
    """Positions by absolute contribution, largest first; ties to the lower word index."""
    return np.lexsort((index, -np.abs(contributions)))


def _listed(index, contributions, names, n_top, total):
    """(the n_top words with the largest absolute contributions, total - their sum)."""
    index = np.asarray(index, dtype=np.int64)
    contributions = np.asarray(contributions, dtype=np.float64)
    keep = contributions != 0.0
    index, contributions = index[keep], contributions[keep]
    chosen = _order(index, contributions)[:n_top]
    words = [{"word": names[index[p]], "contribution": float(contributions[p])} for p in chosen]
    return words, float(total - contributions[chosen].sum())


def _listed_closer(index, contributions, names, n_top, total, floor=0.0):
    """As :func:`_listed`, in the order that answers why a hit is close: the words that bring it
    closer (negative contributions, most negative first), then those that push it away (largest
    first); ties to the lower word index. Contributions of at most ``floor`` in size are left to
    the rest."""
    index = np.asarray(index, dtype=np.int64)
    contributions = np.asarray(contributions, dtype=np.float64)
    keep = np.abs(contributions) > floor
    index, contributions = index[keep], contributions[keep]
    chosen = _closer_order(index, contributions)[:n_top]
    words = [{"word": names[index[p]], "contribution": float(contributions[p])} for p in chosen]
    return words, float(total - contributions[chosen].sum())


def _closer_order(index, contributions):
    """Negative contributions first (most negative first), then positive ones (largest first)."""
    return np.lexsort((index, -np.abs(contributions), contributions >= 0))


def _listed_pairs(pairs, names, n_top, closer_first=False, floor=0.0):
    if not pairs:
        return []
    keys = np.array([a * len(names) + b for (a, b), _ in pairs], dtype=np.int64)
    values = np.array([v for _, v in pairs], dtype=np.float64)
    keep = np.flatnonzero(np.abs(values) > floor)
    chosen = keep[(_closer_order if closer_first else _order)(keys[keep], values[keep])][:n_top]
    return [{"word_a": names[pairs[p][0][0]], "word_b": names[pairs[p][0][1]], "contribution": float(values[p])}
            for p in chosen]


def _csr(X):
    import scipy.sparse as sp

    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()        # the splits intersect sorted index lists
    return X
