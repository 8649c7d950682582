"""A vectoriser without a vocabulary: terms hashed to a fixed number of columns
(:class:`HashingTextVectorizer`), so that partitions vectorise alike without a vocabulary pass.

Only numpy, scipy and scikit-learn are imported here (a model file holding one loads without Dask).
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from ..text import DEFAULT_TOKEN_PATTERN, LATER_READINGS, TextVectorizer, check_dictionary, check_documents, \
    installed_dictionary
from .._utils.validation import check_state_header, state_array, state_number

__all__ = ["HashingTextVectorizer"]

_STATE_VERSION = 1
# the weightings that take statistics from the training collection
NEEDS_STATISTICS = ("tfidf", "bm25")


def _hash_column(term, n_features):
    from sklearn.utils import murmurhash3_32

    return murmurhash3_32(term, seed=0, positive=True) % n_features


class HashingTextVectorizer(TextVectorizer):
    """:class:`learnsim.text.TextVectorizer` whose columns are hashes of the terms.

    Term t goes to column ``murmurhash3_32(t, seed=0) mod n_features`` (scikit-learn's
    ``HashingVectorizer`` hash, without its alternating sign: counts stay counts), so every
    process maps a term to the same column with no vocabulary to agree on; colliding terms add
    up. The weightings are the TextVectorizer's; "tfidf" and "bm25" take the document
    frequencies (per column), the number of documents and the mean length of a training
    collection, "binary" and "tf" nothing (fitting them reads no document). A column that no
    training document reaches has idf 0: its terms weigh nothing, as terms outside a
    TextVectorizer's vocabulary.

    Parameters
    ----------
    n_features : int, default=2**20
        Number of columns.
    weighting, lowercase, token_pattern, stop_words, stem, ngram_range, sublinear_tf, norm, k1, b, dtype, \
    analyzer, cjk_unigrams, unicode_words, drop_ignorables, uax29_punctuation, fold_variants, fold_radicals, indic_zwnj, \
    sara_am, ela_geminada, fold_squares, casefold, latin_digraphs, lao_digraphs, cyrillic_apostrophe, fold_stop_words, \
    sara_ae, malayalam_chillu, fold_enclosed, emoji_terms, emoji_sequences, khanda_ta, \
    vietnamese_tones, devanagari_visarga, jieba_search, mai_yamok, hangul_jamo, yiddish_ligatures, lunate_sigma, vietnamese_eth, devanagari_anusvara, \
    cyrillic_latin_i, armenian_marks, katakana_variants, turkish_lowercase, turkish_apostrophe, irish_lowercase, tai_scripts, cyrillic_stress, syriac_points
        As for :class:`learnsim.text.TextVectorizer`. Its vocabulary filters (``min_df``,
        ``max_df``, ``max_features``), LSI and resampling do not apply to hashed columns.

    Attributes
    ----------
    n_documents_, document_frequency_, idf_, avgdl_, empty_rows_
        As for TextVectorizer ("tfidf" and "bm25"); None for "binary" and "tf".
    n_features_out_ : int
        ``n_features``.

    References
    ----------
    Weinberger, Dasgupta, Langford, Smola and Attenberg, "Feature hashing for large scale
    multitask learning", ICML 2009; scikit-learn's ``HashingVectorizer``.

    Examples
    --------
    Fitted in one process ("tfidf" reads the documents for its statistics):

    >>> from learnsim.distributed import HashingTextVectorizer
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> vec = HashingTextVectorizer(n_features=1024).fit(texts)
    >>> vec.n_documents_, round(vec.avgdl_, 3)
    (6, 3.833)
    >>> X = vec.transform(["reset my password"])
    >>> type(X).__name__, X.shape, X.nnz
    ('csr_matrix', (1, 1024), 3)

    "tf" needs no documents to fit: counts stay counts.

    >>> counts = HashingTextVectorizer(n_features=1024, weighting="tf").fit()
    >>> sorted(counts.transform(["password password reset"]).data.tolist())
    [1.0, 2.0]

    On a Dask collection, :func:`learnsim.distributed.fit_vectorizer` with ``hashing=n_features``
    fits the same vectoriser partition by partition:

    >>> import dask
    >>> import dask.bag as db
    >>> import numpy as np
    >>> from learnsim.distributed import fit_vectorizer
    >>> with dask.config.set(scheduler="synchronous"):
    ...     fitted = fit_vectorizer(db.from_sequence(texts, npartitions=2), hashing=1024)
    >>> bool(np.array_equal(fitted.idf_, vec.idf_))
    True
    """

    # the TextVectorizer's options that do not apply (read by its parameter checks)
    min_df, max_df, max_features = 1, 1.0, None
    n_components = resample_length = random_state = None

    def __init__(self, n_features=2 ** 20, weighting="tfidf", *, lowercase=True, token_pattern=DEFAULT_TOKEN_PATTERN,
                 stop_words=None, stem=None, ngram_range=(1, 1), sublinear_tf=False, norm=None, k1=1.2, b=0.75,
                 dtype=np.float32, analyzer="cjk", cjk_unigrams=False, unicode_words=True, drop_ignorables=True,
                 uax29_punctuation=True, fold_variants=True, fold_radicals=True, indic_zwnj=True,
                 sara_am=True, ela_geminada=True, fold_squares=True, casefold=True, latin_digraphs=True,
                 lao_digraphs=True, cyrillic_apostrophe=True, fold_stop_words=True,
                 sara_ae=True,
                 malayalam_chillu=True,
                 fold_enclosed=True,
                 emoji_terms=True, emoji_sequences=True, khanda_ta=True,
                 vietnamese_tones=True, devanagari_visarga=True,
                 jieba_search=True, mai_yamok=True, hangul_jamo=True, yiddish_ligatures=True,
                 lunate_sigma=True, vietnamese_eth=True, devanagari_anusvara=True,
                 cyrillic_latin_i=True, armenian_marks=True, katakana_variants=True, turkish_lowercase=True,
                 turkish_apostrophe=True, irish_lowercase=True, tai_scripts=True, cyrillic_stress=True,
                 syriac_points=True):
        self.n_features = n_features
        self.weighting = weighting
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.stop_words = stop_words
        self.stem = stem
        self.ngram_range = ngram_range
        self.sublinear_tf = sublinear_tf
        self.norm = norm
        self.k1 = k1
        self.b = b
        self.dtype = dtype
        self.analyzer = analyzer
        self.cjk_unigrams = cjk_unigrams
        self.unicode_words = unicode_words
        self.drop_ignorables = drop_ignorables
        self.uax29_punctuation = uax29_punctuation
        self.fold_variants = fold_variants
        self.fold_radicals = fold_radicals
        self.indic_zwnj = indic_zwnj
        self.sara_am = sara_am
        self.ela_geminada = ela_geminada
        self.fold_squares = fold_squares
        self.casefold = casefold
        self.latin_digraphs = latin_digraphs
        self.lao_digraphs = lao_digraphs
        self.cyrillic_apostrophe = cyrillic_apostrophe
        self.fold_stop_words = fold_stop_words
        self.sara_ae = sara_ae
        self.malayalam_chillu = malayalam_chillu
        self.fold_enclosed = fold_enclosed
        self.emoji_terms = emoji_terms
        self.emoji_sequences = emoji_sequences
        self.khanda_ta = khanda_ta
        self.vietnamese_tones = vietnamese_tones
        self.devanagari_visarga = devanagari_visarga
        self.jieba_search = jieba_search
        self.mai_yamok = mai_yamok
        self.hangul_jamo = hangul_jamo
        self.yiddish_ligatures = yiddish_ligatures
        self.lunate_sigma = lunate_sigma
        self.vietnamese_eth = vietnamese_eth
        self.devanagari_anusvara = devanagari_anusvara
        self.cyrillic_latin_i = cyrillic_latin_i
        self.armenian_marks = armenian_marks
        self.katakana_variants = katakana_variants
        self.turkish_lowercase = turkish_lowercase
        self.turkish_apostrophe = turkish_apostrophe
        self.irish_lowercase = irish_lowercase
        self.tai_scripts = tai_scripts
        self.cyrillic_stress = cyrillic_stress
        self.syriac_points = syriac_points

    def _check_params(self):
        n = self.n_features
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or not 1 <= n <= 2 ** 31 - 1:
            raise ValueError(f"n_features must be an int in [1, 2**31 - 1]; got {n!r}")
        return super()._check_params()

    def _compute_idf(self, df, n_docs):
        # a column no training document reaches weighs 0, as a vocabulary leaves an unseen term out
        # (log(N / 0) would make it infinite)
        df = np.asarray(df)
        idf = super()._compute_idf(np.maximum(df, 1), n_docs)
        if idf is not None:
            idf[df == 0] = 0.0
        return idf

    # ------------------------------------------------------------------ counting
    def _hash_counts(self, docs):
        """Term counts per hashed column (int64 CSR, duplicates summed)."""
        n = int(self.n_features)
        column = {}
        indices, values, indptr = [], [], [0]
        for doc in docs:
            counts = {}
            for term in self._tokenizer(doc):
                counts[term] = counts.get(term, 0) + 1
            for term, c in counts.items():
                j = column.get(term)
                if j is None:
                    j = column[term] = _hash_column(term, n)
                indices.append(j)
                values.append(c)
            indptr.append(len(indices))
        X = sp.csr_matrix((np.asarray(values, dtype=np.int64), np.asarray(indices, dtype=np.int64),
                           np.asarray(indptr, dtype=np.int64)), shape=(len(indptr) - 1, n))
        X.sum_duplicates()
        return X

    def partial_statistics(self, docs):
        """(document frequency per column, number of documents, total count, empty positions)
        of ``docs``: what fitting sums over the partitions of a collection."""
        counts = self._hash_counts(docs)
        lengths = np.asarray(counts.sum(axis=1)).ravel()
        df = np.bincount(counts.indices, minlength=int(self.n_features)).astype(np.int64)
        return df, counts.shape[0], int(lengths.sum()), np.flatnonzero(lengths == 0)

    def _set_statistics(self, df, n_docs, total, empty_rows):
        """The fitted state from a collection's statistics (None for "binary" and "tf")."""
        import warnings

        self.n_features_out_ = int(self.n_features)
        if self.weighting not in NEEDS_STATISTICS:
            self.n_documents_ = self.document_frequency_ = self.idf_ = self.avgdl_ = self.empty_rows_ = None
            return self
        if n_docs < 1:
            raise ValueError("the collection is empty: at least one document is required")
        if total == 0:
            raise ValueError("empty vocabulary: every document is empty after tokenisation (no token matches "
                             "token_pattern, or every token is a stop word)")
        self.n_documents_ = int(n_docs)
        self.document_frequency_ = np.asarray(df, dtype=np.int64)
        self.idf_ = self._compute_idf(self.document_frequency_, self.n_documents_)
        self.avgdl_ = float(total) / self.n_documents_
        self.empty_rows_ = np.asarray(empty_rows, dtype=np.int64)
        if self.empty_rows_.size:
            warnings.warn(f"{self.empty_rows_.size} of {n_docs} training documents are empty after tokenisation; "
                          "they get zero rows (indices in empty_rows_)", UserWarning, stacklevel=3)
        return self

    # ------------------------------------------------------------------ public API
    def fit(self, docs=None, y=None):
        """Learn the statistics of the weighting from ``docs`` ("tfidf", "bm25"; "binary" and
        "tf" need none, and ``docs`` may be None).

        Returns
        -------
        self
        """
        self._check_params()
        self._tokenizer = self._make_tokenizer()
        self.dictionary_ = installed_dictionary(self.analyzer)    # as TextVectorizer records it
        if self.weighting not in NEEDS_STATISTICS:
            return self._set_statistics(None, 0, 0, None)
        return self._set_statistics(*self.partial_statistics(check_documents(docs)))

    def fit_transform(self, docs, y=None):
        return self.fit(docs).transform(docs)

    def transform(self, docs, role="document"):
        """Vectorise ``docs``: scipy.sparse.csr_matrix of shape (n_docs, n_features), weighted as
        :meth:`learnsim.text.TextVectorizer.transform` weights."""
        from ..text._vectorizer import ROLES

        check_is_fitted(self, "n_features_out_")
        if role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}; got {role!r}")
        X = self._weight(self._hash_counts(check_documents(docs)), role)
        X.eliminate_zeros()     # the unseen columns' terms, weighted 0
        return X.astype(np.dtype(self.dtype))

    def get_feature_names_out(self, input_features=None):
        """``hash0, hash1, ...``: a column is every term that hashes to it."""
        check_is_fitted(self, "n_features_out_")
        return np.asarray([f"hash{i}" for i in range(int(self.n_features))], dtype=object)

    # ------------------------------------------------------------------ persistence
    def _get_state(self):
        check_is_fitted(self, "n_features_out_")
        params = self.get_params()
        if params["stop_words"] is not None and not isinstance(params["stop_words"], str):
            params["stop_words"] = sorted(set(params["stop_words"]))
        params["ngram_range"] = [int(v) for v in params["ngram_range"]]
        params["dtype"] = np.dtype(params["dtype"]).name
        for key in ("k1", "b"):
            params[key] = float(params[key])
        params["n_features"] = int(params["n_features"])
        meta = {"state_version": _STATE_VERSION, "params": params,
                "n_documents": self.n_documents_, "avgdl": self.avgdl_}
        if getattr(self, "dictionary_", None) is not None:
            meta["dictionary"] = self.dictionary_
        arrays = {}
        if self.n_documents_ is not None:
            arrays = {"document_frequency": self.document_frequency_, "idf": self.idf_,
                      "empty_rows": self.empty_rows_}
        return meta, arrays

    @classmethod
    def _from_state(cls, meta, arrays):
        """Rebuild a fitted vectoriser from :meth:`_get_state` output, checking it like ``fit`` output."""
        name = cls.__name__
        check_state_header(name, meta, arrays, _STATE_VERSION, ("params", "n_documents", "avgdl"))
        params = dict(meta["params"])
        unknown = sorted(set(params) - set(cls().get_params()))
        if unknown:
            raise ValueError(f"{name} state has unknown parameters {unknown}")
        if isinstance(params.get("ngram_range"), list):
            params["ngram_range"] = tuple(params["ngram_range"])
        params.setdefault("analyzer", "words")      # saved before the analyzer was recorded
        params.setdefault("unicode_words", False)   # saved before unicode_words existed
        for name in LATER_READINGS:                 # saved before a later reading existed
            params.setdefault(name, False)
        obj = cls(**params)
        obj._check_params()
        obj._tokenizer = obj._make_tokenizer()
        check_dictionary(obj.analyzer, meta.get("dictionary"))     # saved before the record: nothing said
        obj.dictionary_ = meta.get("dictionary")
        n = int(obj.n_features)
        if obj.weighting not in NEEDS_STATISTICS:
            if meta["n_documents"] is not None or arrays:
                raise ValueError(f"{name} state: weighting {obj.weighting!r} keeps no collection statistics")
            return obj._set_statistics(None, 0, 0, None)
        n_docs = state_number(meta, "n_documents", name, integer=True, low=1)
        avgdl = state_number(meta, "avgdl", name, low=0.0, low_open=True)
        df = state_array(arrays, "document_frequency", name, shape=(n,), kind="iu", low=0, high=n_docs)
        idf = state_array(arrays, "idf", name, shape=(n,)).astype(np.float64)
        empty = np.asarray(arrays.get("empty_rows", np.zeros(0, dtype=np.int64)))
        if empty.ndim != 1 or (empty.size and (empty.dtype.kind not in "iu" or empty.min() < 0
                                               or empty.max() >= n_docs)):
            raise ValueError(f"{name} state: 'empty_rows' must be indices of training documents")
        expected = obj._compute_idf(df.astype(np.int64), n_docs)
        if not np.allclose(idf, expected, rtol=1e-12, atol=0):
            raise ValueError(f"{name} state: 'idf' does not follow from the document frequencies")
        obj.n_features_out_ = n
        obj.n_documents_ = n_docs
        obj.document_frequency_ = df.astype(np.int64)
        obj.idf_ = expected
        obj.avgdl_ = float(avgdl)
        obj.empty_rows_ = empty.astype(np.int64)
        return obj
