"""A learned linear model on features of a pair: duplicate detection beyond one threshold.

:class:`~learnsim.matching.ThresholdMatcher` decides from one number, a (mixed) cosine. The
models here describe each pair by several blocks of features and learn their weights from
labelled pairs (Ji & Eisenstein 2013: a linear classifier on pair features of a low-rank
representation, sec. 3):

``"input_cosine"`` (1 feature)
    The cosine of the two texts' word tf.idf vectors (the :class:`~learnsim.text.TextVectorizer`).
``"char_cosine"`` (1)
    The cosine of their character n-gram tf.idf vectors (``char_ngram_range`` within word
    boundaries, sublinear tf, smoothed idf from the fitted texts, hashed into
    ``2**char_features`` columns). It sees shared word stems, spelling variants and word order.
    The text is read in NFKC and lowercased first (:func:`learnsim.text._char_hash.fold_chars`),
    so that an accent written apart (NFD), full-width letters and ligatures give the n-grams of
    the letters they stand for, as the word features read them; a model saved before that
    (``char_fold_`` False) lowercases alone, as it was fitted.
``"overlap"`` (4)
    Over the sets of vocabulary words: Jaccard, shared / smaller set, shared / larger set, and
    the sum over the shared words of the smaller of their two tf.idf weights.
``"length"`` (4)
    Relative difference of the numbers of words and of characters, and the log of the smaller
    and the larger number of words.
``"lowrank"`` (2 n_components + 1)
    An LSI of the word tf.idf of the fitted texts (``n_components`` right singular vectors,
    unsupervised): for the unit-length projections u and v, ``|u - v|``, ``u * v`` and their
    cosine (Ji & Eisenstein's pair features of a factorised representation).
``"encoder_cosine"`` (1)
    The cosine of the two texts under a pre-trained sentence ``encoder`` (e.g. all-MiniLM-L6-v2,
    :func:`learnsim.text.encoders.load_encoder`): the dense signal beside the lexical blocks.
``"embedding"`` (2 d + 1)
    The same three for a fitted ``embedding`` of the word tf.idf, e.g. FILM's map L (d x D):
    ``|Lx - Lx'|``, ``Lx * Lx'`` (unit rows) and the learned cosine. With an ``encoder``, the
    embedding is of the encoder's vectors instead (FILM fitted on them: the paper's FILM-BERT).
``"embedding_cosine"`` (1)
    The learned cosine alone (the last feature of ``"embedding"``): what the embedding adds at
    the cost of one feature, where the 2 d + 1 of ``"embedding"`` make each fit ten times slower
    and, fitted on the pairs the embedding learned from, overfit (Quora sample: held-out
    accuracy 0.751 with them, 0.777 without).
``"word_pairs"`` (2 n_terms, sparse)
    Which vocabulary words the two texts share and which occur in one text only (binary):
    lets the model learn that a shared "not" or a differing year matters more than a shared
    "the".

The dense blocks are standardised (mean and scale of the fitted pairs); the model is linear in
the features. :class:`PairClassifierMatcher` (labels: duplicate or not) is a logistic
regression whose C is chosen by k-fold cross-validation on the fitted pairs; its probabilities
are Platt-scaled on the out-of-fold decision values and its threshold is the out-of-fold
accuracy-optimal one, so neither is judged on pairs the model was fitted on.
:class:`PairScoreRegressor` (graded pairs, e.g. STS scores) is a ridge regression whose
alpha is chosen by out-of-fold Pearson correlation.

Input: the models take the **texts** (a sequence of str, one per item) and the pairs as row
indices into them, like the matchers of :mod:`learnsim.matching` take their X. They build their
own features; only the word vectoriser, the encoder and the embedding can be given (fitted), so
that an embedding trained on that vectoriser's (or encoder's) output sees the same input.

The texts a model scores are a collection (issue 32, part 6): with ``lexical="collection"``
(the graded learner of :func:`learnsim.fit` sets it) the blocks that learn nothing per word
are weighted by the vocabulary and document frequencies of the fit's texts together with the
texts given, so words the fit never saw count; ``"word_pairs"``, the LSI and an embedding stay
on the vectoriser's vocabulary, on which their weights were learned. The texts given together
(``X``) are the collection: :meth:`learnsim.Pipeline.match`, ``learnsim match --pairs`` and
``learnsim evaluate --pairs`` give the distinct texts of all the pairs of a call.

References
----------
Ji, Y. & Eisenstein, J. (2013). Discriminative improvements to distributional sentence
similarity. Proceedings of EMNLP 2013, 891-896.
"""
from __future__ import annotations

import numbers
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.preprocessing import normalize
from sklearn.utils.validation import check_is_fitted

from .._utils.inputs import check_text, has_surrogate
from .._utils.linalg import one_blas_thread, truncated_svd
from .._utils.params import Checked, Interval, Options, validate_params
from .._utils.validation import check_matrix, check_random_state, check_state_header, state_array, state_number
from ..evaluation import best_threshold, pearson
from ._pair_inputs import _check_part_fitted
from ._matchers import (_agreeing, _check_pair_indices, _check_pair_labels, _fit_calibration, _fit_platt,
                        _require_both_classes, _sigmoid,
                       _transformer_from_state, _transformer_state, pair_similarity)
from ..supervision import Pairs
from ..text import TextVectorizer, check_documents
from ..text._char_hash import CHAR_PIECE, char_pieces, fold_chars, fold_chars_casefold

__all__ = ["PairClassifierMatcher", "PairScoreRegressor", "FEATURE_BLOCKS", "DEFAULT_FEATURES"]

#: Every feature block (module docstring).
FEATURE_BLOCKS = ("input_cosine", "char_cosine", "overlap", "length", "lowrank", "embedding", "embedding_cosine",
                  "word_pairs", "encoder_cosine")
_EMBEDDING_BLOCKS = ("embedding", "embedding_cosine")
#: The default blocks. On the Quora sample's dev pairs (5-fold out-of-fold accuracy) they scored
#: 0.779; adding "lowrank" 0.780 at 3.5 times the fit time; without "word_pairs" 0.729 (0.752
#: with "lowrank" instead).
DEFAULT_FEATURES = ("input_cosine", "char_cosine", "overlap", "length", "word_pairs")
#: The C (logistic regression) and alpha (ridge) tried by "auto".
DEFAULT_C_GRID = (0.03, 0.1, 0.3, 1.0, 3.0)
DEFAULT_ALPHA_GRID = (0.1, 0.3, 1.0, 3.0, 10.0, 20.0, 30.0, 100.0, 300.0, 1000.0)

_STATE_VERSION = 1
_NESTED = ("vectorizer", "embedding", "encoder")
# saved since the encoder block: a state without it has no encoder
_OPTIONAL_NESTED = ("encoder",)


def _check_texts(X, name="X"):
    if X is not None and (sp.issparse(X) or (isinstance(X, np.ndarray) and X.dtype.kind in "biufc")):
        raise TypeError(f"{name} must be the texts (a sequence of str, one per item): the pair models build "
                        "their own features (word and character n-gram tf.idf, ...) from the raw text; "
                        "give a fitted vectorizer= to control the word features")
    texts = check_documents(X, name=name)
    for i, text in enumerate(texts):
        # a lone surrogate: refused by position, as learnsim.fit, Pipeline and Index refuse it
        # (it was a UnicodeEncodeError from scikit-learn's hashing of the character n-grams)
        if has_surrogate(text):
            check_text(text, f"{name}[{i}]")
    return texts


def _union_statistics(a, b):
    """The collection statistics (:func:`learnsim.text.collection_vocabulary`) of two
    collections taken together: the union of their vocabularies (in alphabetical order), the
    sums of their document frequencies and numbers of documents, their mean length weighted by
    those numbers."""
    from ..text import collection_terms

    terms_a, terms_b = collection_terms(a), collection_terms(b)
    terms = sorted(set(terms_a).union(terms_b))
    position = {t: j for j, t in enumerate(terms)}
    df = np.zeros(len(terms), dtype=np.int64)
    for part, names in ((a, terms_a), (b, terms_b)):
        if names:
            df[np.fromiter((position[t] for t in names), dtype=np.int64, count=len(names))] += \
                np.asarray(part["vocabulary_df"], dtype=np.int64)
    n_a, n_b = (int(np.asarray(p["vocabulary_n_documents"])) for p in (a, b))
    avgdl = (n_a * float(np.asarray(a["vocabulary_avgdl"])) + n_b * float(np.asarray(b["vocabulary_avgdl"]))) \
        / (n_a + n_b)
    # surrogatepass, as collection_vocabulary writes them: a custom token pattern's term may hold
    # a lone surrogate (strict UTF-8 raised on it)
    encoded = [t.encode("utf-8", "surrogatepass") for t in terms]
    offsets = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return {"vocabulary": np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), "vocabulary_offsets": offsets,
            "vocabulary_df": df, "vocabulary_n_documents": np.asarray(n_a + n_b, dtype=np.int64),
            "vocabulary_avgdl": np.asarray(avgdl)}


def _unit_rows(E):
    E = np.asarray(E, dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", E, E))
    return E / np.where(norms > 0, norms, 1.0)[:, None]


def _pair_block(U, idx):
    """[|u - v|, u * v, cos(u, v)] of the unit rows of U for each pair."""
    a, b = U[idx[:, 0]], U[idx[:, 1]]
    return np.hstack([np.abs(a - b), a * b, np.einsum("ij,ij->i", a, b)[:, None]])


class _Representation:
    """The per-item representations of one collection of texts that the features use."""

    def __init__(self, model, texts, char_counts=None, shared=None, fitting=False):
        """``char_counts``: the texts' hashed character counts, when the fit has them already;
        ``shared``: a representation of the same texts by a model with the same vectoriser,
        character settings and LSI, whose blocks are reused (only the embedding is new);
        ``fitting``: the texts are the fit's own (their collection is the fit's collection).

        ``words`` are the word tf.idf over the vectoriser's vocabulary (what was learned per
        word: the "word_pairs" weights, the LSI, an embedding); ``lexical`` the same texts
        weighted by their collection's statistics (:meth:`_PairModel._collection_of`) for the
        blocks that learn nothing per word ("input_cosine", "overlap", "length"): the same
        matrix as ``words`` for ``lexical="fitted"``."""
        self.n_items = len(texts)
        blocks = set(model._features)
        if shared is not None:
            self.__dict__.update({k: v for k, v in vars(shared).items() if k != "embedded"})
        else:
            self.words = sp.csr_matrix(model.vectorizer_.transform(texts), dtype=np.float64)
        if model.vectorizer_.n_components_ is not None:
            raise ValueError("vectorizer must give sparse term vectors (n_components=None), not an LSI")
        if char_counts is None and "char_cosine" in blocks and not hasattr(self, "chars"):
            # hashed once: the collection's character idf and the character block both count them
            char_counts = model._char_counts(texts)
        if not hasattr(self, "lexical"):
            self.lexical, self.char_idf = self.words, model.char_idf_
            if getattr(model, "collection_", None) is not None:
                statistics, char_idf = model._collection_of(texts, fitting, char_counts)
                self.lexical = sp.csr_matrix(model._collection_vectorizer(statistics).transform(texts),
                                             dtype=np.float64)
                self.char_idf = char_idf
        if blocks & {"char_cosine"} and not hasattr(self, "chars"):
            self.chars = model._char_matrix(texts, char_counts, idf=self.char_idf)
        if model.encoder is not None and not hasattr(self, "encoded"):
            # encoded once: the encoder's cosine and an embedding of its vectors both use it
            from ..text.encoders import encode

            E = check_matrix(encode(model.encoder, texts), name="the encoder's embedding of X",
                             accept_sparse=False)
            self.encoded = _unit_rows(E)
        if blocks & {"overlap", "length", "word_pairs"} and not hasattr(self, "binary"):
            self.binary = self.words.copy()
            self.binary.data[:] = 1.0
            if self.lexical is self.words:
                self.lexical_binary = self.binary
            else:
                self.lexical_binary = self.lexical.copy()
                self.lexical_binary.data[:] = 1.0
            self.n_words = np.diff(self.lexical.indptr).astype(np.float64)
            self.n_chars = np.array([len(t) for t in texts], dtype=np.float64)
        if "lowrank" in blocks and not hasattr(self, "lowrank"):
            self.lowrank = _unit_rows(self.words @ model.lsi_components_.T)
        if blocks & set(_EMBEDDING_BLOCKS):
            # the embedding's input: the encoder's vectors where there is an encoder (FILM fitted
            # on them), else the word tf.idf
            E = model.embedding.transform(self.words if model.encoder is None else self.encoded)
            E = check_matrix(E, name="the embedding of X", accept_sparse=False)
            self.embedded = _unit_rows(E)


def _check_features(features):
    """``features`` as a tuple of distinct block names of FEATURE_BLOCKS, or a ValueError."""
    feats = (features,) if isinstance(features, str) else features
    try:
        feats = tuple(feats)
    except TypeError:
        raise ValueError(f"features must be a sequence of block names from {FEATURE_BLOCKS}; "
                         f"got {features!r}") from None
    unknown = [f for f in feats if f not in FEATURE_BLOCKS]
    if unknown or not feats:
        raise ValueError(f"features must be a non-empty sequence of block names from {FEATURE_BLOCKS}; "
                         f"unknown: {unknown}" if unknown else "features is empty; give at least one block")
    if len(set(feats)) != len(feats):
        raise ValueError(f"features lists a block twice: {feats}")
    return feats


def _check_embedding(embedding):
    if embedding is not None and not callable(getattr(embedding, "transform", None)):
        raise TypeError(f"embedding must be a fitted object with transform(X); got {type(embedding).__name__}")


def _check_encoder(encoder):
    if encoder is None:
        return
    from ..text.encoders import is_encoder

    if not is_encoder(encoder):
        raise TypeError("encoder must be None or a fitted text encoder (transform(texts) -> dense rows, "
                        f"embedding_dim_); got {type(encoder).__name__}")


def _check_vectorizer(vectorizer):
    if vectorizer is not None and not isinstance(vectorizer, TextVectorizer):
        raise TypeError("vectorizer must be None or a fitted learnsim.text.TextVectorizer; got "
                        f"{type(vectorizer).__name__}")


def _check_char_ngram_range(lo_hi):
    if (not isinstance(lo_hi, (tuple, list)) or len(lo_hi) != 2
            or not all(isinstance(n, numbers.Integral) and not isinstance(n, bool) for n in lo_hi)
            or not 1 <= lo_hi[0] <= lo_hi[1]):
        raise ValueError(f"char_ngram_range must be (min_n, max_n) with 1 <= min_n <= max_n; got {lo_hi!r}")


#: The constraints both pair models share (each adds its regularisation and grid).
_COMMON_CONSTRAINTS = {
    "vectorizer": [Checked(_check_vectorizer)],
    "embedding": [Checked(_check_embedding)],      # its match with the 'embedding' block: _check_params
    "encoder": [Checked(_check_encoder)],          # and with the 'encoder_cosine' block
    "features": [Checked(_check_features)],
    "n_components": [Interval(Integral, 1, None)],
    "char_ngram_range": [Checked(_check_char_ngram_range)],
    "char_features": [Interval(Integral, 1, 24, description=(
        "a positive integer, at most 24 (a power of 2: the hashed columns)"))],
    "n_splits": [Interval(Integral, 2, None, description="a positive integer >= 2")],
    # a negative seed reached the folds' splitter ("Seed must be between 0 and 2**32 - 1"), and
    # anything but an int ('x', [1]) was the seed 0, silently
    "random_state": ["random_state"],
    "lexical": [Options({"fitted", "collection"})],
}


def _regularisation(name):
    """The constraint of ``C`` / ``alpha``; its grid is checked with it (in ``_check_grid``) when it
    is 'auto'."""
    return {name: [Options({"auto"}), Interval(Real, 0, None, closed="neither", description="a positive number")],
            name + "_grid": ["no_validation"]}


class _PairModel(BaseEstimator):
    """Feature extraction, input checks and persistence shared by the two pair models."""

    _STATE_NESTED = _NESTED

    def __sklearn_tags__(self):
        # X is the list of texts the pairs index into, not a 2-D array of numbers
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags

    # ------------------------------------------------------------------ parameters
    def _check_params(self):
        validate_params(self)
        feats = _check_features(self.features)
        if bool(set(feats) & set(_EMBEDDING_BLOCKS)) != (self.embedding is not None):
            raise ValueError("the 'embedding' and 'embedding_cosine' feature blocks: each needs embedding= (a "
                             "fitted transformer of the word tf.idf, e.g. FILM), and embedding= needs one of them "
                             "in features")
        if "encoder_cosine" in feats and self.encoder is None:
            raise ValueError("the 'encoder_cosine' feature block needs encoder= (a fitted text encoder, "
                             "learnsim.text.encoders.load_encoder)")
        if self.encoder is not None and not ({"encoder_cosine"} | set(_EMBEDDING_BLOCKS)) & set(feats):
            raise ValueError("encoder= is used by the 'encoder_cosine' block and by an embedding of its vectors; "
                             "give one of them in features, or drop encoder=")
        self._features = feats

    def _check_grid(self, value, grid, name):
        values = [value]
        if isinstance(value, str) and value == "auto":
            # one number, None or a str is not a grid: list() of it failed with "'float' object is
            # not iterable" (or read a str's letters), and an empty one reached argmin's error
            try:
                values = [] if isinstance(grid, (str, bytes)) else list(grid)
            except TypeError:
                values = []
            if not values:
                raise ValueError(f"{name}_grid must be a non-empty sequence of positive numbers (the candidates of "
                                 f"{name}='auto'); got {grid!r}")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not np.isfinite(v) or v <= 0:
                raise ValueError(f"{name} must be 'auto' or a positive number (and every value of its grid "
                                 f"too); got {v!r}")
        return [float(v) for v in values]

    # ------------------------------------------------------------------ features
    def _char_fold(self):
        """Whether the character n-grams are taken from the text read by :func:`fold_chars`
        (``char_fold_``: a fit sets it before it hashes anything). Absent: a model fitted and
        pickled before character folding, which lowercased alone."""
        return getattr(self, "char_fold_", False)

    def _char_casefold(self):
        """Whether :func:`fold_chars` case-folds (``char_casefold_``: a fit sets it, as the word
        features case-fold). Absent: a model fitted and saved before, which lowercased."""
        return getattr(self, "char_casefold_", False)

    def _hasher(self, folded=False):
        """scikit-learn's hashing of the character n-grams of the texts; ``folded``: of texts
        :func:`fold_chars` has read already (:meth:`_char_counts`)."""
        if folded:
            read = _as_given
        elif self._char_fold():
            read = fold_chars_casefold if self._char_casefold() else fold_chars
        else:
            read = None             # scikit-learn's own preprocessing: lowercased alone
        # a preprocessor replaces scikit-learn's lowercasing (fold_chars lowercases itself)
        return HashingVectorizer(analyzer="char_wb", ngram_range=tuple(self.char_ngram_range),
                                 n_features=2 ** self.char_features, alternate_sign=False, norm=None,
                                 preprocessor=read, dtype=np.float64)

    def _char_counts(self, texts):
        if self._char_fold():
            # folded before a long text is cut in pieces: NFKC can lengthen a text (U+FDFA is 18
            # characters), and a piece hashed must stay in proportion to _CHAR_PIECE
            texts = [fold_chars(t, self._char_casefold()) for t in texts]
            hasher = self._hasher(folded=True)
        else:
            hasher = self._hasher()
        if all(len(t) <= _CHAR_PIECE for t in texts):
            C = hasher.transform(texts).tocsr()
        else:
            C = _long_char_counts(hasher, texts)
        C.data = 1.0 + np.log(C.data)
        return C

    def _char_matrix(self, texts, counts=None, idf=None):
        C = self._char_counts(texts) if counts is None else counts.copy()
        C.data *= (self.char_idf_ if idf is None else idf)[C.indices]
        return normalize(C)

    def _fit_representations(self, texts, shared=None):
        """Fit the vectoriser, character idf and LSI on ``texts``, or take them from ``shared`` (a
        model fitted on the same texts with the same settings); returns the representation of
        the texts."""
        if shared is not None:
            self.vectorizer_, self.char_idf_ = shared.vectorizer_, shared.char_idf_
            self.char_fold_, self.char_casefold_ = shared._char_fold(), shared._char_casefold()
            self.lsi_components_ = shared.lsi_components_
            self.collection_ = shared.collection_
            return _Representation(self, texts, shared=shared._fitted_rep)
        if self.vectorizer is None:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*empty after tokenisation.*")
                self.vectorizer_ = TextVectorizer("tfidf", sublinear_tf=True, norm="l2",
                                                  dtype=np.float64).fit(texts)
        else:
            _check_part_fitted(self.vectorizer, "vectorizer", type(self).__name__)
            self.vectorizer_ = self.vectorizer
        self.char_fold_ = self.char_casefold_ = True
        C = None
        if "char_cosine" in self._features:
            # hashing the character n-grams is the costliest step of the features: once per fit
            C = self._char_counts(texts)
            df = np.bincount(C.indices, minlength=C.shape[1]).astype(np.float64)
            self.char_idf_ = np.log((1.0 + len(texts)) / (1.0 + df)) + 1.0
        else:
            self.char_idf_ = None
        if "lowrank" in self._features:
            W = sp.csr_matrix(self.vectorizer_.transform(texts), dtype=np.float64)
            k = min(self.n_components, *W.shape)
            _, self.lsi_components_ = truncated_svd(W, k, _seed(self.random_state))
        else:
            self.lsi_components_ = None
        self.collection_ = None
        if self.lexical == "collection":
            from ..text import collection_vocabulary

            # the fit's own collection: the statistics its lexical blocks are weighted by, and
            # the part of every later collection that the fit contributes (_collection_of)
            self.collection_ = collection_vocabulary(self.vectorizer_, texts)
        return _Representation(self, texts, char_counts=C, fitting=True)

    def _collection_of(self, texts, fitting=False, char_counts=None):
        """(word statistics, character idf) of the collection the texts ``texts`` are scored in
        (``lexical="collection"``; issue 32, part 6).

        The collection is the fit's texts together with the texts given: document frequencies
        and the number of documents are the sums of the fit's (``collection_``, and the
        character idf of the fit) and those of ``texts``, over the union of their vocabularies.
        A word the fit never saw counts with the document frequency it has among ``texts``.

        Why the union rather than the texts given alone (as search takes its corpus alone): a
        batch of pairs is often small (one pair from ``learnsim match``, at most 100 per piece
        of the service's /v1/match), and a few texts give no meaningful idf (in a single pair
        every word has a document frequency of 1 or 2). With the fit's collection beneath, a
        small batch is weighted almost as the fit's texts are, and its new words still count;
        a large batch of another source moves the weights towards its own. No size threshold is
        needed, and scores change little when a batch is cut into pieces. On STS-B dev (trained
        on two genres' train pairs, scored on the third genre's dev pairs; never the test
        pairs) the union and the batch alone were level: mean Pearson 0.724 and 0.728, against
        0.711 with the fit's vocabulary; in pieces of 100 pairs 0.721 both. In-domain (train
        -> dev) 0.802 both, 0.798 with the fit's vocabulary; in pieces of 100 pairs 0.802 and
        0.800.

        At fit time (``fitting``) the texts are the fit's own: the collection is the fit's, so
        the features a model learns from and those it predicts from are weighted the same way.
        The result depends on the set of texts given together only, not on their order: the
        scores of a batch are deterministic."""
        if fitting:
            return self.collection_, self.char_idf_
        from ..text import collection_vocabulary

        statistics = _union_statistics(self.collection_, collection_vocabulary(self.vectorizer_, texts))
        char_idf = self.char_idf_
        if char_idf is not None:
            C = self._char_counts(texts) if char_counts is None else char_counts
            n_fit = float(np.asarray(self.collection_["vocabulary_n_documents"]))
            # the fit's character document frequencies, from its smoothed idf and its size
            df = np.maximum(np.rint((1.0 + n_fit) * np.exp(1.0 - char_idf) - 1.0), 0.0)
            df += np.bincount(C.indices, minlength=C.shape[1])
            char_idf = np.log((1.0 + n_fit + len(texts)) / (1.0 + df)) + 1.0
        return statistics, char_idf

    def _collection_vectorizer(self, statistics):
        """The vectoriser with the vocabulary and statistics ``statistics``
        (:func:`learnsim.text.collection_vectorizer`); the fit's collection's is kept."""
        from ..text import collection_vectorizer

        cached = getattr(self, "_collection_cache", None)
        if cached is not None and cached[0] is statistics and cached[1] is self.vectorizer_:
            return cached[2]
        vec = collection_vectorizer(self.vectorizer_, statistics)
        if statistics is self.collection_:
            self._collection_cache = (statistics, self.vectorizer_, vec)
        return vec

    def _pair_features(self, rep, idx):
        """(dense block, sparse block or None) of the pairs ``idx`` of a representation."""
        a, b = idx[:, 0], idx[:, 1]
        dense = []
        f = self._features
        if "input_cosine" in f:
            dense.append(pair_similarity(rep.lexical, idx)[:, None])
        if "char_cosine" in f:
            dense.append(pair_similarity(rep.chars, idx)[:, None])
        if "overlap" in f or "length" in f:
            na, nb = rep.n_words[a], rep.n_words[b]
        if "overlap" in f:
            shared = np.asarray(rep.lexical_binary[a].multiply(rep.lexical_binary[b]).sum(axis=1)).ravel()
            small, large = np.minimum(na, nb), np.maximum(na, nb)
            union = na + nb - shared
            soft = np.asarray(rep.lexical[a].minimum(rep.lexical[b]).sum(axis=1)).ravel()
            dense.append(np.column_stack([np.divide(shared, union, out=np.zeros_like(shared), where=union > 0),
                                          np.divide(shared, small, out=np.zeros_like(shared), where=small > 0),
                                          np.divide(shared, large, out=np.zeros_like(shared), where=large > 0),
                                          soft]))
        if "length" in f:
            ca, cb = rep.n_chars[a], rep.n_chars[b]
            wl, cl = np.maximum(np.maximum(na, nb), 1.0), np.maximum(np.maximum(ca, cb), 1.0)
            dense.append(np.column_stack([np.abs(na - nb) / wl, np.abs(ca - cb) / cl,
                                          np.log1p(np.minimum(na, nb)), np.log1p(np.maximum(na, nb))]))
        if "lowrank" in f:
            dense.append(_pair_block(rep.lowrank, idx))
        if "embedding" in f:
            dense.append(_pair_block(rep.embedded, idx))
        if "embedding_cosine" in f:
            dense.append(np.einsum("ij,ij->i", rep.embedded[idx[:, 0]], rep.embedded[idx[:, 1]])[:, None])
        if "encoder_cosine" in f:
            dense.append(np.einsum("ij,ij->i", rep.encoded[idx[:, 0]], rep.encoded[idx[:, 1]])[:, None])
        D = np.hstack(dense) if dense else np.zeros((idx.shape[0], 0))
        S = None
        if "word_pairs" in f:
            A, B = rep.binary[a], rep.binary[b]
            both = A.multiply(B)
            S = sp.hstack([both, A + B - 2 * both], format="csr")
        return D, S

    def _design(self, D, S):
        Z = (D - self.feature_mean_) / self.feature_scale_
        if S is None:
            return Z
        return sp.hstack([sp.csr_matrix(Z), S], format="csr")

    # ------------------------------------------------------------------ inputs
    def _fit_inputs(self, X, pairs):
        self._check_params()
        texts = _check_texts(X)
        idx = _check_pair_indices(pairs, len(texts))
        return texts, idx

    def _representation(self, X):
        check_is_fitted(self)
        if X is None:
            rep = getattr(self, "_fitted_rep", None)
            if rep is None:
                raise ValueError(f"X is None, and this {type(self).__name__} was loaded from a file: a saved "
                                 "model keeps no texts; give the texts the pairs index into")
            return rep
        self._features = tuple(self.features_)
        return _Representation(self, _check_texts(X))

    def _features_of(self, pairs, X):
        rep = self._representation(X)
        self._features = tuple(self.features_)
        idx = _check_pair_indices(pairs, rep.n_items)
        return self._design(*self._pair_features(rep, idx)), idx

    def _standardise(self, D):
        self.feature_mean_ = D.mean(axis=0) if D.shape[0] else np.zeros(D.shape[1])
        scale = D.std(axis=0)
        self.feature_scale_ = np.where(scale > 1e-12, scale, 1.0)

    def decision_function(self, pairs, X=None):
        """The linear model's value for each pair of rows of the texts ``X`` (default: the fitted ones)."""
        Z, _ = self._features_of(pairs, X)
        return np.asarray(Z @ self.coef_, dtype=np.float64).ravel() + self.intercept_

    @property
    def n_features_(self):
        return int(self.coef_.shape[0])

    # ------------------------------------------------------------------ persistence
    def _get_state(self):
        check_is_fitted(self)
        params = {"features": list(self._features_param()), "n_components": int(self.n_components),
                  "char_ngram_range": [int(n) for n in self.char_ngram_range],
                  "char_features": int(self.char_features), "n_splits": int(self.n_splits),
                  "random_state": self.random_state if isinstance(self.random_state, numbers.Integral) else None,
                  "lexical": self.lexical}
        params.update(self._extra_params())
        meta = {"state_version": _STATE_VERSION, "params": params, "features_fitted": list(self.features_),
                "intercept": float(self.intercept_), "char_fold": bool(self._char_fold()),
                "char_casefold": bool(self._char_casefold())}
        arrays = {"coef": self.coef_, "feature_mean": self.feature_mean_, "feature_scale": self.feature_scale_}
        for name, obj in (("vectorizer", self.vectorizer_), ("embedding", self.embedding), ("encoder", self.encoder)):
            t_meta, t_arrays = _transformer_state(obj)
            meta[name] = t_meta
            arrays.update({f"{name}.{key[len('transformer.'):]}": v for key, v in t_arrays.items()})
        if self.char_idf_ is not None:
            arrays["char_idf"] = self.char_idf_
        if self.lsi_components_ is not None:
            arrays["lsi_components"] = self.lsi_components_
        if self.collection_ is not None:
            arrays.update({"collection." + k: np.asarray(v) for k, v in self.collection_.items()})
        meta.update(self._extra_state())
        return meta, arrays

    def _features_param(self):
        return (self.features,) if isinstance(self.features, str) else tuple(self.features)

    @classmethod
    def _from_state(cls, meta, arrays):
        name = cls.__name__
        required = tuple(k for k in _NESTED if k not in _OPTIONAL_NESTED)
        check_state_header(name, meta, arrays, _STATE_VERSION, ("params", "features_fitted", "intercept") + required)
        meta = dict(meta)
        for key in _OPTIONAL_NESTED:
            meta.setdefault(key, None)
        params = meta["params"]
        if isinstance(params, dict) and "lexical" not in params:
            # saved before issue 32 part 6: the lexical blocks over the vectoriser's vocabulary
            params = dict(params, lexical="fitted")
        valid = set(cls().get_params()) - set(_NESTED)
        if not isinstance(params, dict) or set(params) != valid:
            raise ValueError(f"{name} state: 'params' must give exactly {sorted(valid)}")
        params = dict(params, char_ngram_range=tuple(params["char_ngram_range"])
                      if isinstance(params["char_ngram_range"], list) else params["char_ngram_range"])
        nested = {}
        for key in _NESTED:
            prefix = key + "."
            sub = {"transformer." + k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}
            nested[key] = _transformer_from_state(meta[key], sub)
        if nested["vectorizer"] is None or not isinstance(nested["vectorizer"], TextVectorizer):
            raise ValueError(f"{name} state: 'vectorizer' must be a saved TextVectorizer")
        obj = cls(embedding=nested["embedding"], encoder=nested["encoder"], **params)
        obj.vectorizer = None
        try:
            obj._check_params()
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} state: {exc}") from None
        fitted = meta["features_fitted"]
        if not isinstance(fitted, list) or tuple(fitted) != obj._features:
            raise ValueError(f"{name} state: features_fitted must equal the features parameter")
        obj.features_ = tuple(fitted)
        obj.vectorizer_ = nested["vectorizer"]
        own = {k for k in arrays if not k.startswith(tuple(n + "." for n in _NESTED))}
        expected = {"coef", "feature_mean", "feature_scale"}
        if "char_cosine" in obj._features:
            expected.add("char_idf")
        if "lowrank" in obj._features:
            expected.add("lsi_components")
        if obj.lexical == "collection":
            from ..text._collection import VOCABULARY_KEYS

            expected.update("collection." + k for k in VOCABULARY_KEYS)
        if own != expected:
            raise ValueError(f"{name} state must hold the arrays {sorted(expected)}; got {sorted(own)}")
        # saved before character folding: its character n-grams read as it was fitted, lowercased alone
        obj.char_fold_ = meta.get("char_fold", False)
        if not isinstance(obj.char_fold_, bool):
            raise ValueError(f"{name} state: char_fold must be true or false; got {obj.char_fold_!r}")
        # saved before the n-grams were case-folded: lowercased, as it was fitted
        obj.char_casefold_ = meta.get("char_casefold", False)
        if not isinstance(obj.char_casefold_, bool):
            raise ValueError(f"{name} state: char_casefold must be true or false; got {obj.char_casefold_!r}")
        obj.char_idf_ = None
        if "char_cosine" in obj._features:
            obj.char_idf_ = state_array(arrays, "char_idf", name, shape=(2 ** obj.char_features,), low=1.0)
        n_terms = len(obj.vectorizer_.get_feature_names_out())
        obj.collection_ = None
        if obj.lexical == "collection":
            from ..text._collection import VOCABULARY_KEYS, collection_terms

            obj.collection_ = {k: np.asarray(arrays["collection." + k]) for k in VOCABULARY_KEYS}
            try:
                collection_terms(obj.collection_)       # checks every array (a ValueError naming it)
            except ValueError as exc:
                raise ValueError(f"{name} state: 'collection': {exc}") from None
        obj.lsi_components_ = None
        if "lowrank" in obj._features:
            lsi = state_array(arrays, "lsi_components", name, ndim=2)
            if lsi.shape[1] != n_terms or not 1 <= lsi.shape[0] <= obj.n_components:
                raise ValueError(f"{name} state: array 'lsi_components' has shape {lsi.shape}; expected "
                                 f"(at most {obj.n_components}, {n_terms})")
            obj.lsi_components_ = lsi
        n_dense = cls._n_dense(obj, n_terms)
        obj.feature_mean_ = state_array(arrays, "feature_mean", name, shape=(n_dense,))
        obj.feature_scale_ = state_array(arrays, "feature_scale", name, shape=(n_dense,), low=0.0, low_open=True)
        n_sparse = 2 * n_terms if "word_pairs" in obj._features else 0
        obj.coef_ = state_array(arrays, "coef", name, shape=(n_dense + n_sparse,))
        obj.intercept_ = state_number(meta, "intercept", name)
        obj._set_extra_state(meta)
        return obj

    @staticmethod
    def _n_dense(obj, n_terms):
        sizes = {"input_cosine": 1, "char_cosine": 1, "overlap": 4, "length": 4, "embedding_cosine": 1,
                 "encoder_cosine": 1, "word_pairs": 0}
        n = 0
        for block in obj._features:
            if block == "lowrank":
                n += 2 * obj.lsi_components_.shape[0] + 1
            elif block == "embedding":
                d = getattr(obj.embedding, "n_components_", None) or getattr(obj.embedding, "n_components", None)
                if not isinstance(d, numbers.Integral):
                    raise ValueError(f"{type(obj).__name__} state: cannot tell the embedding's dimension")
                n += 2 * int(d) + 1
            else:
                n += sizes[block]
        return n


def _seed(random_state):
    """The int seed of ``random_state``: itself, 0 for None (a fit repeats itself), or one drawn
    from a numpy Generator or RandomState (the caller's stream, as scikit-learn's estimators draw
    from one; it was the seed 0 whatever the stream)."""
    if random_state is None:
        return 0
    if isinstance(random_state, numbers.Integral):
        return int(random_state)
    return int(check_random_state(random_state).integers(2**31 - 1))


def _folds(n_splits, labels_or_n, random_state, stratified):
    seed = _seed(random_state)
    if stratified:
        n_splits = max(2, min(n_splits, int(labels_or_n.sum()), int((~labels_or_n).sum())))
        return list(StratifiedKFold(n_splits, shuffle=True, random_state=seed).split(labels_or_n, labels_or_n))
    n = int(labels_or_n)
    return list(KFold(min(n_splits, n), shuffle=True, random_state=seed).split(np.zeros(n)))


class PairClassifierMatcher(_PairModel):
    """A logistic regression on features of the pair decides whether two texts are duplicates.

    Parameters
    ----------
    vectorizer : None or fitted :class:`~learnsim.text.TextVectorizer`, default=None
        The word tf.idf (sparse term vectors). None: a tf.idf with sublinear tf and L2 rows
        fitted on the texts given to :meth:`fit`. Give the vectoriser an ``embedding`` was
        trained on.
    embedding : None or fitted transformer of the word tf.idf, default=None
        E.g. a :class:`~learnsim.film.FILM` fitted on ``vectorizer.transform(texts)``; needed by
        (and only by) the ``"embedding"`` and ``"embedding_cosine"`` blocks.
    features : sequence of str, default=DEFAULT_FEATURES
        Feature blocks (module docstring; :data:`FEATURE_BLOCKS`).
    C : "auto" or float > 0, default="auto"
        Inverse regularisation of the logistic regression; "auto": the value of ``C_grid`` with
        the best out-of-fold log loss over ``n_splits`` stratified folds of the fitted pairs.
    C_grid : sequence of float, default=DEFAULT_C_GRID
    n_components : int, default=100
        Dimension of the LSI of the ``"lowrank"`` block.
    char_ngram_range : (int, int), default=(2, 5)
    char_features : int, default=18
        The character n-grams are hashed into ``2**char_features`` columns.
    n_splits : int, default=5
        Folds for choosing C and for the out-of-fold values that set the threshold and the
        calibration.
    random_state : int, numpy Generator or None, default=None
        Seeds the folds and the LSI (None: 0; a Generator: a seed drawn from it).
    encoder : None or fitted text encoder, default=None
        A pre-trained sentence encoder (:func:`learnsim.text.encoders.load_encoder`): needed by
        the ``"encoder_cosine"`` block; with it, ``embedding`` is a transformer of the
        encoder's vectors (FILM fitted on them) rather than of the word tf.idf.
    lexical : {"fitted", "collection"}, default="fitted"
        Which statistics weight the blocks that learn nothing per word (``"input_cosine"``,
        ``"char_cosine"``, ``"overlap"``, ``"length"``). "fitted": the vectoriser's vocabulary
        and idf and the fit's character idf, so a word the fit never saw is dropped (and
        counts only through its character n-grams). "collection" (issue 32, part 6; what the
        graded learner of :func:`learnsim.fit` uses): those of the collection the pairs are
        scored in, the fit's texts together with the texts given (``collection_``), so words
        the fit never saw count in every block but ``"word_pairs"``, whose weights are learned
        per word of the vectoriser. Model files saved before this parameter load as "fitted".

    Attributes
    ----------
    C_ : float
    cv_scores_ : ndarray
        Out-of-fold log loss for every C tried.
    coef_ : ndarray of shape (n_features_,)
        Weights of the (standardised dense, then sparse) features; ``intercept_`` the bias.
    feature_mean_, feature_scale_ : ndarray
        Standardisation of the dense features.
    threshold_ : float
        Pairs with ``decision_function >= threshold_`` are predicted duplicates (accuracy-optimal
        on the out-of-fold values).
    validation_accuracy_ : float
        Out-of-fold accuracy at that threshold.
    slope_, calibration_intercept_ : float
        Platt scaling of the decision value, fitted on the out-of-fold values.
    vectorizer_, char_idf_, lsi_components_, features_
    char_fold_ : bool
        Whether the character n-grams are taken from the text in NFKC, lowercased
        (:func:`learnsim.text._char_hash.fold_chars`): True for every fit; False for a model
        saved before this, which lowercases alone, as it was fitted.
    char_casefold_ : bool
        Whether that reading case-folds (``str.casefold``: "Straße" and "STRASSE" give the same
        n-grams, as the word features read them): True for every fit; False for a model saved
        before this, which lowercases with ``str.lower``, as it was fitted.
    collection_ : dict or None
        ``lexical="collection"``: the statistics of the fit's texts
        (:func:`learnsim.text.collection_vocabulary`) that every scored collection adds to.

    Notes
    -----
    The texts of :meth:`fit` are kept in memory (as features) so that ``X`` may be omitted
    later; a saved model does not keep them and needs ``X``.

    References
    ----------
    Ji, Y. & Eisenstein, J. (2013). Discriminative improvements to distributional sentence
    similarity. EMNLP 2013.

    Examples
    --------
    Twelve labelled pairs of ten questions (``C`` is fixed, so nothing is cross-validated):

    >>> import numpy as np
    >>> texts = ["how do i learn python", "how can i learn python", "what is the capital of france",
    ...          "which city is the capital of france", "best way to lose weight", "how to lose weight fast",
    ...          "how do i cook rice", "what is a good laptop", "how to learn python quickly",
    ...          "capital city of france"]
    >>> pairs = np.array([[0, 1], [2, 3], [4, 5], [0, 8], [2, 9], [0, 2], [1, 6], [3, 7], [4, 6],
    ...                   [5, 7], [8, 9], [6, 7]])
    >>> y = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0])
    >>> from learnsim.matching import PairClassifierMatcher
    >>> clf = PairClassifierMatcher(C=1.0, random_state=0).fit(texts, pairs, y)
    >>> clf.predict(pairs).tolist() == y.tolist()
    True
    >>> proba = clf.predict_proba(pairs)
    >>> proba.shape, bool(proba[0, 1] > 0.5)
    ((12, 2), True)
    """

    # best_threshold returns inf when predicting no duplicate at all is best
    _STATE_NONFINITE = ("threshold",)

    _parameter_constraints = {**_COMMON_CONSTRAINTS, **_regularisation("C")}

    def __init__(self, vectorizer=None, embedding=None, features=DEFAULT_FEATURES, C="auto",
                 C_grid=DEFAULT_C_GRID, n_components=100, char_ngram_range=(2, 5), char_features=18,
                 n_splits=5, random_state=None, encoder=None, lexical="fitted"):
        self.vectorizer = vectorizer
        self.embedding = embedding
        self.features = features
        self.C = C
        self.C_grid = C_grid
        self.n_components = n_components
        self.char_ngram_range = char_ngram_range
        self.char_features = char_features
        self.n_splits = n_splits
        self.random_state = random_state
        self.encoder = encoder
        self.lexical = lexical

    def _logistic(self, C):
        # Newton-CG: the same optimum as lbfgs (no penalty on the intercept, unlike liblinear) in
        # 6-8 Newton steps where lbfgs took 30-130 iterations on the sparse word-pair features
        return LogisticRegression(C=C, max_iter=2000, solver="newton-cg")

    def fit(self, X, pairs, y=None):
        """Learn the model from labelled pairs of the texts ``X``.

        Parameters
        ----------
        X : sequence of str
            The texts; the pairs index into it. A text holding a lone surrogate (half of a
            UTF-16 pair, e.g. from ``errors="surrogateescape"``) is a ValueError naming it.
        pairs : Pairs with labels, or (n_pairs, 2) int array
        y : array of bool / 0-1, optional
            The labels when ``pairs`` is an index array.

        Returns
        -------
        self
        """
        texts, idx = self._fit_inputs(X, pairs)
        labels = _check_pair_labels(pairs, y, idx.shape[0])
        return self._fit_labelled(texts, idx, labels)

    def _fit_labelled(self, texts, idx, labels, shared=None, calibrate=True):
        """:meth:`fit` on checked inputs; ``shared``: a model fitted on the same texts with the
        same vectoriser and character settings, whose representations are reused (the rules of
        :func:`~learnsim.matching.choose_matcher` fit up to three classifiers on one collection).
        ``calibrate=False`` (a fixed C): one fit, no folds; the caller sets the threshold and
        the calibration with :meth:`_calibrate` on pairs of its own (the re-ranker's held-out
        candidate lists)."""
        if shared is not None or not calibrate:
            self._check_params()
        _require_both_classes(labels, "the fitted pairs")
        fewer = min(int(labels.sum()), int((~labels).sum()))
        if calibrate and fewer < 2:
            # one pair of a kind leaves a fold's training part without it: scikit-learn's
            # "needs samples of at least 2 classes ... np.False_" was all the caller read
            raise ValueError(f"the fitted pairs hold {int(labels.sum())} duplicate(s) and {int((~labels).sum())} "
                             "non-duplicate(s): the classifier chooses C and calibrates its probabilities out of "
                             "fold, which needs at least two pairs of each kind")
        grid = self._check_grid(self.C, self.C_grid, "C")
        self.features_ = self._features
        rep = self._fit_representations(texts, shared)
        D, S = self._pair_features(rep, idx)
        if not calibrate:
            if len(grid) != 1:
                raise ValueError("a fit without calibration takes one C, not 'auto'")
            self.C_, self.cv_scores_ = grid[0], np.zeros(0)
            self._standardise(D)
            with one_blas_thread():
                model = self._logistic(self.C_).fit(self._design(D, S), labels)
            self.coef_ = model.coef_.ravel().astype(np.float64)
            self.intercept_ = float(model.intercept_[0])
            self._fitted_rep = rep
            Z = self._design(D, S)
            self._design_cache = (Z, labels)
            # in-sample values until the caller calibrates on pairs of its own
            self._calibrate(np.asarray(Z @ self.coef_).ravel() + self.intercept_, labels)
            return self
        folds = _folds(self.n_splits, labels, self.random_state, stratified=True)
        oof = np.empty((len(grid), idx.shape[0]))
        # the solver's work is vector operations of the size of the features: BLAS threads only
        # add their start-up, and on a busy machine spinning threads made each fit 10-20x slower
        with one_blas_thread():
            for train, held in folds:
                self._standardise(D[train])
                Z = self._design(D, S)
                for g, C in enumerate(grid):
                    model = self._logistic(C).fit(Z[train], labels[train])
                    oof[g, held] = model.decision_function(Z[held])
            losses = np.array([np.mean(np.logaddexp(0.0, np.where(labels, -o, o))) for o in oof])
            best = int(np.argmin(losses))
            self.C_, self.cv_scores_ = grid[best], losses
            self._standardise(D)
            model = self._logistic(self.C_).fit(self._design(D, S), labels)
        self.coef_ = model.coef_.ravel().astype(np.float64)
        self.intercept_ = float(model.intercept_[0])
        # the calibration's 0.5 point is the threshold: predict_proba >= 0.5 where predict says 1
        self.threshold_, self.validation_accuracy_, self.slope_, self.calibration_intercept_ = \
            _fit_calibration(oof[best], labels)
        self._fitted_rep = rep
        return self

    def _with_C(self, C):
        """A copy fitted at another C on the features of this model's fit without calibration
        (the re-ranker tries a few C on one set of pairs: their features are computed once)."""
        import copy

        Z, labels = self._design_cache
        other = copy.copy(self)
        other.C = other.C_ = float(C)
        with one_blas_thread():
            model = other._logistic(other.C_).fit(Z, labels)
        other.coef_ = model.coef_.ravel().astype(np.float64)
        other.intercept_ = float(model.intercept_[0])
        other._calibrate(np.asarray(Z @ other.coef_).ravel() + other.intercept_, labels)
        return other

    def _calibrate(self, decision, labels):
        """The threshold (accuracy-optimal) and the Platt scaling from decision values of
        labelled pairs the model was not fitted on. The re-ranker's (its only caller): its
        probability ranks hits and decides nothing, so the Platt fit is free (its 0.5 point need
        not be the threshold; :meth:`_raw_probability` reads it)."""
        labels = np.asarray(labels, dtype=bool)
        self.threshold_, self.validation_accuracy_ = best_threshold(decision, labels)
        self.slope_, self.calibration_intercept_ = _fit_platt(decision, labels)
        return self

    def predict_proba(self, pairs, X=None):
        """Columns P(not duplicate), P(duplicate) (Platt scaling of the decision value, centred on
        ``threshold_``): P(duplicate) >= 0.5 exactly where :meth:`predict` gives 1."""
        p = self.probability_of(self.decision_function(pairs, X))
        return np.column_stack([1.0 - p, p])

    def predict(self, pairs, X=None):
        """1 (duplicate) where the decision value reaches ``threshold_``, else 0."""
        return (self.decision_function(pairs, X) >= self.threshold_).astype(np.int64)

    def probability_of(self, decision):
        """P(duplicate) of decision values (:meth:`decision_function`) already computed: what
        :meth:`predict_proba` gives, without building the pairs' features again."""
        decision = np.asarray(decision, dtype=np.float64)
        return _agreeing(self._raw_probability(decision), decision >= self.threshold_)

    def _raw_probability(self, decision):
        """The Platt scaling of decision values as it is (the re-ranker's probability, which ranks
        and decides nothing: no tie at 0.5 where a saved model's calibration and its threshold
        disagree)."""
        return _sigmoid(self.slope_ * np.asarray(decision, dtype=np.float64) + self.calibration_intercept_)

    def pair_score(self, pairs, X=None):
        """The decision value (higher = more likely a duplicate), as ThresholdMatcher.pair_score."""
        return self.decision_function(pairs, X)

    def score(self, pairs, y=None, X=None):
        """Accuracy of :meth:`predict` on labelled pairs (labels in ``pairs`` or ``y``)."""
        check_is_fitted(self)
        pred = self.predict(pairs, X)
        labels = _check_pair_labels(pairs, y, pred.size)
        return float(np.mean(pred.astype(bool) == labels))

    def _extra_params(self):
        grid = [float(c) for c in self.C_grid]
        return {"C": self.C if isinstance(self.C, str) else float(self.C), "C_grid": grid}

    def _extra_state(self):
        return {"C_fitted": self.C_, "threshold": self.threshold_, "validation_accuracy": self.validation_accuracy_,
                "slope": self.slope_, "calibration_intercept": self.calibration_intercept_,
                "cv_scores": [float(v) for v in self.cv_scores_]}

    def _set_extra_state(self, meta):
        name = type(self).__name__
        self._check_grid(self.C, self.C_grid, "C")
        self.C_ = state_number(meta, "C_fitted", name, low=0.0, low_open=True)
        threshold = meta.get("threshold")
        if not (isinstance(threshold, numbers.Real) and not isinstance(threshold, bool) and not np.isnan(threshold)):
            raise ValueError(f"{name} state: threshold must be a number; got {threshold!r}")
        self.threshold_ = float(threshold)
        self.validation_accuracy_ = state_number(meta, "validation_accuracy", name, low=0.0, high=1.0)
        self.slope_ = state_number(meta, "slope", name)
        self.calibration_intercept_ = state_number(meta, "calibration_intercept", name)
        scores = meta.get("cv_scores")
        if not isinstance(scores, list) or not all(isinstance(v, numbers.Real) for v in scores):
            raise ValueError(f"{name} state: cv_scores must be a list of numbers")
        self.cv_scores_ = np.asarray(scores, dtype=np.float64)


class PairScoreRegressor(_PairModel):
    """A ridge regression on features of the pair predicts a graded similarity (e.g. STS scores).

    Parameters are those of :class:`PairClassifierMatcher`, with ``alpha`` ("auto": the value
    of ``alpha_grid`` with the best out-of-fold Pearson correlation over ``n_splits`` folds)
    in place of C. With ``lexical="collection"`` (the graded learner's) the lexical blocks of
    the pairs given to :meth:`predict` are weighted by the statistics of the fit's texts and
    the texts given together, so a word the fit never saw counts.

    Attributes
    ----------
    alpha_ : float
    cv_scores_ : ndarray
        Out-of-fold Pearson correlation for every alpha tried.
    validation_pearson_ : float
        The best of them.
    coef_, intercept_, feature_mean_, feature_scale_, vectorizer_, char_idf_, char_fold_, lsi_components_,
    features_, collection_

    References
    ----------
    Ji, Y. & Eisenstein, J. (2013). Discriminative improvements to distributional sentence
    similarity. EMNLP 2013.

    Examples
    --------
    The same pairs graded 0-5 (``alpha`` is fixed, so nothing is cross-validated):

    >>> import numpy as np
    >>> texts = ["how do i learn python", "how can i learn python", "what is the capital of france",
    ...          "which city is the capital of france", "best way to lose weight", "how to lose weight fast",
    ...          "how do i cook rice", "what is a good laptop", "how to learn python quickly",
    ...          "capital city of france"]
    >>> pairs = np.array([[0, 1], [2, 3], [4, 5], [0, 8], [2, 9], [0, 2], [1, 6], [3, 7], [4, 6],
    ...                   [5, 7], [8, 9], [6, 7]])
    >>> y = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0])
    >>> from learnsim.matching import PairScoreRegressor
    >>> reg = PairScoreRegressor(alpha=1.0, random_state=0).fit(texts, pairs, 5.0 * y)
    >>> predicted = reg.predict(pairs)
    >>> predicted.shape
    (12,)
    >>> bool(predicted[y == 1].min() > predicted[y == 0].max())
    True
    """

    _parameter_constraints = {**_COMMON_CONSTRAINTS, **_regularisation("alpha")}

    def __init__(self, vectorizer=None, embedding=None, features=DEFAULT_FEATURES, alpha="auto",
                 alpha_grid=DEFAULT_ALPHA_GRID, n_components=100, char_ngram_range=(2, 5), char_features=18,
                 n_splits=5, random_state=None, encoder=None, lexical="fitted"):
        self.vectorizer = vectorizer
        self.embedding = embedding
        self.features = features
        self.alpha = alpha
        self.alpha_grid = alpha_grid
        self.n_components = n_components
        self.char_ngram_range = char_ngram_range
        self.char_features = char_features
        self.n_splits = n_splits
        self.random_state = random_state
        self.encoder = encoder
        self.lexical = lexical

    def fit(self, X, pairs, y=None):
        """Learn the regression from graded pairs of the texts ``X``.

        Parameters
        ----------
        X : sequence of str
        pairs : Pairs with scores, or (n_pairs, 2) int array
        y : array of float, optional
            The scores when ``pairs`` is an index array.

        Returns
        -------
        self
        """
        return self._fit_scored(X, pairs, y)

    def _fit_scored(self, X, pairs, y=None, shared=None):
        """:meth:`fit`; ``shared``: a regression fitted on the same texts with the same
        vectoriser, encoder and character settings, whose representations are reused (the
        graded learner fits three on one collection, :func:`~learnsim.matching._graded.choose_regressor`)."""
        texts, idx = self._fit_inputs(X, pairs)
        target = self._check_target(pairs, y, idx.shape[0])
        grid = self._check_grid(self.alpha, self.alpha_grid, "alpha")
        self.features_ = self._features
        rep = self._fit_representations(texts, shared)
        D, S = self._pair_features(rep, idx)
        oof = np.empty((len(grid), idx.shape[0]))
        # as the classifier's logistic fits: a sparse design is solved by conjugate gradients,
        # thousands of dot products of the features' length, which OpenBLAS split over its
        # threads: on a loaded 2-core machine each took 0.8-2 ms instead of 0.03 (a JSTS fit of
        # 4,000 pairs spent 216 of its 337 s in 108 ridge fits)
        with one_blas_thread():
            for train, held in _folds(self.n_splits, idx.shape[0], self.random_state, stratified=False):
                self._standardise(D[train])
                Z = self._design(D, S)
                for g, alpha in enumerate(grid):
                    oof[g, held] = Ridge(alpha=alpha).fit(Z[train], target[train]).predict(Z[held])
            scores = np.array([pearson(o, target) if np.std(o) > 0 else -1.0 for o in oof])
            best = int(np.argmax(scores))
            self.alpha_, self.cv_scores_, self.validation_pearson_ = grid[best], scores, float(scores[best])
            self._standardise(D)
            model = Ridge(alpha=self.alpha_).fit(self._design(D, S), target)
        self.coef_ = np.asarray(model.coef_, dtype=np.float64).ravel()
        self.intercept_ = float(model.intercept_)
        self._fitted_rep = rep
        return self

    @staticmethod
    def _check_target(pairs, y, n):
        if isinstance(pairs, Pairs):
            if not pairs.is_graded:
                raise ValueError("pairs are labelled duplicate / not duplicate; PairScoreRegressor needs graded "
                                 "pairs (Pairs(indices, scores=...)); use PairClassifierMatcher for labels")
            if y is not None:
                raise ValueError("pairs is a graded Pairs object and y was given too; give the scores once")
            target = np.asarray(pairs.scores, dtype=np.float64)
        else:
            if y is None:
                raise ValueError("y (the graded scores) is required when pairs is an index array")
            target = np.asarray(y, dtype=np.float64)
        if target.shape != (n,):
            raise ValueError(f"y must hold one score per pair ({n}); got shape {target.shape}")
        if not np.isfinite(target).all():
            raise ValueError("y contains NaN or infinite scores")
        if np.ptp(target) == 0:
            raise ValueError("every pair has the same score; nothing to learn")
        return target

    def predict(self, pairs, X=None):
        """The predicted similarity of each pair."""
        return self.decision_function(pairs, X)

    pair_score = predict

    def score(self, pairs, y=None, X=None):
        """Pearson correlation of :meth:`predict` with the graded scores."""
        pred = self.predict(pairs, X)
        return pearson(pred, self._check_target(pairs, y, pred.size))

    def _extra_params(self):
        return {"alpha": self.alpha if isinstance(self.alpha, str) else float(self.alpha),
                "alpha_grid": [float(a) for a in self.alpha_grid]}

    def _extra_state(self):
        return {"alpha_fitted": self.alpha_, "validation_pearson": self.validation_pearson_,
                "cv_scores": [float(v) for v in self.cv_scores_]}

    def _set_extra_state(self, meta):
        name = type(self).__name__
        self._check_grid(self.alpha, self.alpha_grid, "alpha")
        self.alpha_ = state_number(meta, "alpha_fitted", name, low=0.0, low_open=True)
        self.validation_pearson_ = state_number(meta, "validation_pearson", name, low=-1.0, high=1.0)
        scores = meta.get("cv_scores")
        if not isinstance(scores, list) or not all(isinstance(v, numbers.Real) for v in scores):
            raise ValueError(f"{name} state: cv_scores must be a list of numbers")
        self.cv_scores_ = np.asarray(scores, dtype=np.float64)


# The characters of a text hashed at once. scikit-learn's hashing lists every character n-gram of
# a text as a Python string before counting them: a text of 38 MB took more than 4 GB (400 times
# itself). A longer text is hashed in pieces cut at whitespace, whose counts add up to the text's:
# "char_wb" takes its n-grams inside the words of str.split(), never across a space. Only a word
# longer than a piece is cut inside itself (its n-grams across the cut are lost, a few of millions).
_CHAR_PIECE = CHAR_PIECE


def _as_given(text):
    """The hashing's preprocessor for a text :func:`fold_chars` has read already."""
    return text


def _text_pieces(text):
    """``text`` in pieces of at most ``_CHAR_PIECE`` characters, cut after whitespace, as the
    index's re-ranker cuts it (:func:`learnsim.text._char_hash.char_pieces`)."""
    return char_pieces(text, _CHAR_PIECE)


def _long_char_counts(hasher, texts):
    """The hashed character n-gram counts of ``texts`` (a CSR matrix, a row each), the long ones
    hashed piece by piece (``_text_pieces``) so that memory stays in proportion to a piece.
    :meth:`_PairModel._char_counts` gives them folded already (:func:`fold_chars` of a whole text,
    as the index's re-ranker reads it, not of each piece)."""
    short = [t if len(t) <= _CHAR_PIECE else "" for t in texts]
    C = hasher.transform(short).tocsr()
    rows, cols, vals = [], [], []
    for i, text in enumerate(texts):
        if len(text) > _CHAR_PIECE:
            total = None
            for piece in _text_pieces(text):
                part = hasher.transform([piece])
                total = part if total is None else total + part
            total = total.tocsr()
            rows.append(np.full(total.indices.size, i, dtype=np.int64))
            cols.append(total.indices)
            vals.append(total.data)
    extra = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=C.shape)
    return (C + extra).tocsr()
