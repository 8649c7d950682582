"""Text features: tokenisation, term weighting (binary, tf, tf.idf, BM25), LSI and length resampling.

Everything downstream (metric learning, retrieval, the paper reproductions) consumes the
vectors built here, so the weighting formulas are spelled out once, in this docstring:

``binary``
    1 if the term occurs in the document, else 0.
``tf``
    the raw count ``tf``, or ``1 + log(tf)`` with ``sublinear_tf=True``.
``tfidf``
    ``tf * idf`` with ``idf = log(N / df) + 1`` (N training documents, df the number of them
    containing the term). This is scikit-learn's ``TfidfVectorizer(smooth_idf=False)``: the
    ``+ 1`` keeps terms that occur in every document instead of zeroing them.
``bm25``
    document side ``idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))`` with Lucene's
    ``idf = log(1 + (N - df + 0.5) / (df + 0.5))``, which is never negative. ``dl`` is the
    number of the document's terms (tokens, plus n-grams when ``ngram_range`` asks for them)
    that are in the fitted vocabulary, and ``avgdl`` its mean over the training documents.
    Query vectors (``transform(..., role="query")``) are the raw term counts, so that
    ``q_vec @ d_vec.T`` is exactly the Okapi BM25 score of document d for query q.

For the other weightings queries and documents are weighted alike.
"""
from __future__ import annotations

import numbers
import warnings
from collections import Counter
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from learnsim._utils.linalg import truncated_svd
from learnsim.text import _term_stream
from learnsim.text._term_stream import term_counts
from learnsim.text._dictionary import check_dictionary, checked_dictionary, installed_dictionary
from learnsim.text._tokenize import DEFAULT_TOKEN_PATTERN, LATER_READINGS, Tokenizer, tokenizer_params
from learnsim.text.bm25 import _check_b, _check_k1
from learnsim._utils.params import Checked, Interval, Options, validate_param
from learnsim._utils.validation import check_random_state, check_state_header, state_array, state_number

__all__ = ["Tokenizer", "TextVectorizer", "check_documents", "resample_counts", "find_empty_rows"]

WEIGHTINGS = ("binary", "tf", "tfidf", "bm25")
ROLES = ("document", "query")

_STATE_VERSION = 1


def _refuse_named_collection(docs, name):
    """A TypeError for what list() reads as something else than its texts: a table (a pandas
    DataFrame gives its column names, a datasets.Dataset its rows as dicts), a mapping (its keys)
    or a set (its texts in the order of the hash seed, rows that match nothing given). Told
    apart by their attributes: pandas and datasets are not imported here."""
    from collections.abc import Mapping

    if hasattr(docs, "columns") and hasattr(docs, "iloc"):
        column = next(iter(docs.columns), "text")
        raise TypeError(f"{name} is a pandas DataFrame, whose column names would be read as the documents: "
                        f"give its column of texts, {name}=df[{column!r}]")
    if hasattr(docs, "column_names") and hasattr(docs, "features"):
        raise TypeError(f"{name} is a datasets.Dataset, whose rows are dicts: give its column of texts, "
                        f"{name}=ds['text']")
    if isinstance(docs, Mapping):
        raise TypeError(f"{name} is a {type(docs).__name__}, whose keys would be read as the documents: give a "
                        "list of strings (list(d.values()) for {id: text})")
    if isinstance(docs, (set, frozenset)):
        raise TypeError(f"{name} is a {type(docs).__name__}, which has no order (its rows would come in the order "
                        "of Python's hash seed): give a list of strings, e.g. sorted(...)")


def check_documents(docs, name="docs"):
    """``docs`` as a non-empty list of str, or a TypeError/ValueError naming the problem: the
    check of every text input of :class:`TextVectorizer` (and of the Dask vectoriser).

    Parameters
    ----------
    docs : iterable of str
    name : str, default="docs"
        The argument's name in the messages.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from learnsim.text import check_documents
    >>> check_documents(("a cat", "a dog"))
    ['a cat', 'a dog']
    >>> check_documents("a cat")
    Traceback (most recent call last):
    TypeError: docs must be a list of strings, not a single str; wrap one document in a list: [doc]
    """
    if docs is None:
        raise TypeError(f"{name} is None; expected a list of strings")
    if isinstance(docs, (str, bytes)):
        raise TypeError(f"{name} must be a list of strings, not a single {type(docs).__name__}; "
                        f"wrap one document in a list: [doc]")
    if sp.issparse(docs):
        raise TypeError(f"{name} is a sparse matrix; TextVectorizer takes raw text (a list of strings)")
    _refuse_named_collection(docs, name)
    try:
        docs = list(docs)
    except TypeError:
        raise TypeError(f"{name} must be an iterable of strings; got {type(docs).__name__}") from None
    if not docs:
        raise ValueError(f"{name} is empty: at least one document is required")
    for i, doc in enumerate(docs):
        if not isinstance(doc, str):
            hint = "; decode bytes first (e.g. doc.decode('utf-8'))" if isinstance(doc, bytes) else ""
            raise TypeError(f"{name}[{i}] is {type(doc).__name__}, not str; every document must be a string{hint}")
    return docs


def _count_terms(docs, analyze, vocabulary=None):
    """Count the terms of each document into a CSR matrix.

    With ``vocabulary=None`` the vocabulary grows as terms are met (ids in order of first
    appearance) and is returned; otherwise terms outside the given vocabulary are ignored.
    """
    grow = vocabulary is None
    vocab = {} if grow else vocabulary
    indices, values, indptr = [], [], [0]
    for doc in docs:
        # a long text's terms are counted a batch at a time, never all held (._term_stream)
        counts = Counter(analyze(doc)) if len(doc) < _term_stream.STREAM_CHARS else term_counts(analyze, doc)
        if grow:
            indices.extend(vocab.setdefault(term, len(vocab)) for term in counts)
            values.extend(counts.values())
        else:
            for term, n in counts.items():
                j = vocab.get(term)
                if j is not None:
                    indices.append(j)
                    values.append(n)
        indptr.append(len(indices))
    X = sp.csr_matrix((np.asarray(values, dtype=np.int64), np.asarray(indices, dtype=np.int64),
                       np.asarray(indptr, dtype=np.int64)), shape=(len(indptr) - 1, len(vocab)))
    X.sort_indices()
    return X, vocab


def _check_counts(counts, name="counts"):
    if sp.issparse(counts):
        X = sp.csr_matrix(counts, copy=True)
    else:
        arr = np.asarray(counts)
        if arr.ndim != 2 or arr.dtype.kind not in "biuf":
            raise ValueError(f"{name} must be a 2-D numeric matrix (documents x terms) of counts; "
                             f"got an array of shape {arr.shape} and dtype {arr.dtype}")
        X = sp.csr_matrix(arr)
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold numeric counts; got dtype {X.dtype}")
    data = X.data
    if data.size:
        if X.dtype.kind == "f" and not np.isfinite(data).all():
            raise ValueError(f"{name} contains NaN or infinite values; expected term counts")
        if (data < 0).any():
            raise ValueError(f"{name} contains negative values; expected term counts")
        if X.dtype.kind == "f" and (np.mod(data, 1) != 0).any():
            raise ValueError(f"{name} contains non-integer values; resampling needs raw term counts, "
                             "not weighted (tf.idf, normalised) vectors")
    return X


def resample_counts(counts, target_length, random_state=None):
    """Resample each document's tokens to ``target_length`` tokens (paper 000, sec. 5.2.1).

    A document longer than the target is subsampled without replacement (a multivariate
    hypergeometric draw over its term counts), so its new counts are a sub-multiset of the
    old ones. A shorter document is kept whole and topped up with tokens drawn with
    replacement from its own term distribution. Empty documents stay empty.

    Parameters
    ----------
    counts : sparse matrix or 2-D array of shape (n_docs, n_terms)
        Non-negative integer term counts; a document's length is its row sum.
    target_length : int >= 1
        Length every non-empty document has afterwards.
    random_state : None, int or numpy Generator
        Seed for the draws.

    Returns
    -------
    scipy.sparse.csr_matrix of the same shape and dtype as ``counts``.

    References
    ----------
    .. [1] D. Mochihashi, G. Kikui and K. Kita, "Learning Nonstructural Distance Metric by Minimum
       Cluster Distortions", Proceedings of the 2004 Conference on Empirical Methods in Natural
       Language Processing (EMNLP), 2004 (paper 000 in ../shared/papers).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from learnsim.text import resample_counts
    >>> counts = sp.csr_matrix(np.array([[6, 2, 0], [1, 0, 1], [0, 0, 0]]))
    >>> R = resample_counts(counts, 4, random_state=0)
    >>> np.asarray(R.sum(axis=1)).ravel().tolist()    # every non-empty document now has 4 tokens
    [4, 4, 0]
    """
    if not isinstance(target_length, numbers.Integral) or isinstance(target_length, bool) or target_length < 1:
        raise ValueError(f"target_length must be a positive integer; got {target_length!r}")
    target_length = int(target_length)
    X = _check_counts(counts)
    rng = check_random_state(random_state)
    out_dtype = X.dtype
    indptr, indices = X.indptr, X.indices
    data = X.data.astype(np.int64)
    new_data = np.empty_like(data)
    for i in range(X.shape[0]):
        start, end = indptr[i], indptr[i + 1]
        row = data[start:end]
        length = int(row.sum())
        if length == 0 or length == target_length:
            new_data[start:end] = row
        elif length > target_length:
            new_data[start:end] = rng.multivariate_hypergeometric(row, target_length)
        else:
            new_data[start:end] = row + rng.multinomial(target_length - length, row / length)
    out = sp.csr_matrix((new_data.astype(out_dtype), indices.copy(), indptr.copy()), shape=X.shape)
    out.eliminate_zeros()
    return out


def find_empty_rows(X):
    """Indices of the all-zero rows of a vectorised matrix (sparse or dense).

    ``TextVectorizer.transform`` gives a zero row for a document none of whose terms is in the
    fitted vocabulary; this finds them, e.g. to skip such queries.

    Examples
    --------
    >>> from learnsim.text import TextVectorizer, find_empty_rows
    >>> vec = TextVectorizer().fit(["the cat sat", "the dog ran"])
    >>> find_empty_rows(vec.transform(["a cat", "zebra"])).tolist()
    [1]
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        X.eliminate_zeros()
        return np.flatnonzero(np.diff(X.indptr) == 0)
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-D; got shape {arr.shape}")
    return np.flatnonzero(~arr.any(axis=1))


def _truncated_svd(X, k, seed):
    """Top-``k`` singular values and right singular vectors of ``X`` (see learnsim._linalg)."""
    return truncated_svd(X, k, seed)


_DF_CONSTRAINTS = [Interval(Integral, 0, None, description=">= 0 as an int (a document count)"),
                   Interval(Real, 0, 1, description="a float in [0, 1] (a fraction of the documents)")]


def _check_n_components(nc):
    if nc is None:
        return
    if isinstance(nc, bool) or not isinstance(nc, numbers.Real):
        raise ValueError(f"n_components must be None, a positive int or a float in (0, 1); got {nc!r}")
    if isinstance(nc, numbers.Integral):
        if nc < 1:
            raise ValueError(f"n_components must be >= 1; got {nc}")
    elif not 0.0 < nc < 1.0:
        raise ValueError(f"n_components as a float is a fraction of the vocabulary size and must lie "
                         f"in (0, 1); got {nc}")


def _check_float_dtype(value):
    try:
        dtype = np.dtype(value)
    except TypeError:
        raise ValueError(f"dtype must be a numpy float dtype; got {value!r}") from None
    if dtype.kind != "f":
        raise ValueError(f"dtype must be a float dtype (float32 or float64); got {dtype}")
    return dtype



def _unit_rows(X):
    """The rows of float64 CSR ``X`` scaled to unit Euclidean length, in place (rows of zeros
    left as they are): sklearn's ``normalize(X, norm="l2", copy=False)``, the same sums in the
    same order (each row's squares added from its first stored value on) and so the same values,
    without its argument checks (ten rows of 35,000 columns: 0.02 ms against sklearn's 0.24, most
    of it the checks; once per vectorised batch, an index write of ten documents or a query)."""
    counts = np.diff(X.indptr)
    if X.nnz:
        rows = np.repeat(np.arange(X.shape[0]), counts)
        norms = np.sqrt(np.bincount(rows, weights=X.data * X.data, minlength=X.shape[0]))
        norms[norms == 0.0] = 1.0
        X.data /= np.repeat(norms, counts)
    return X

class TextVectorizer(BaseEstimator):
    """Turn a list of strings into weighted term vectors, optionally reduced by LSI.

    See the module docstring for the weighting formulas.

    Parameters
    ----------
    weighting : {"binary", "tf", "tfidf", "bm25"}, default="tfidf"
    lowercase, token_pattern, stop_words, stem, ngram_range
        Passed to :class:`Tokenizer`.
    min_df, max_df : int or float, default=1 and 1.0
        Keep terms found in at least ``min_df`` and at most ``max_df`` training documents; a
        float in [0, 1] is a fraction of the documents.
    max_features : int or None, default=None
        Keep only the terms with the largest total counts (ties go to the earlier term in
        alphabetical order).
    sublinear_tf : bool, default=False
        Use ``1 + log(tf)`` instead of ``tf`` ("tf" and "tfidf" only).
    norm : None or "l2", default=None
        L2-normalise each weighted vector (before any LSI projection). Not applied to BM25
        query vectors, whose scale does not change rankings.
    k1, b : float, default=1.2 and 0.75
        BM25 parameters (k1 >= 0, 0 <= b <= 1).
    n_components : None, int or float, default=None
        LSI: project on the top right singular vectors of the weighted (and normalised)
        training matrix. An int is the number of dimensions, a float in (0, 1) a fraction of
        the vocabulary size. It is capped at ``min(n_docs, n_terms)`` with a ``UserWarning``;
        the dimension used is ``n_components_``. Output is then dense: ``X_weighted @
        components_.T`` (a plain projection, not scaled by the singular values).
    resample_length : None, "median" or int, default=None
        Resample each training document's in-vocabulary tokens to this common length (paper
        000, sec. 5.2.1; ``"median"`` is the median length of the non-empty training
        documents), see :func:`resample_counts`. The rule: fitting resamples, ``transform``
        never does. ``fit`` and ``fit_transform`` learn the same state (the LSI basis comes
        from the resampled training vectors), and ``fit_transform`` returns the resampled
        training vectors, so ``fit(docs).transform(docs)`` differs from ``fit_transform(docs)``.
        The vocabulary, document frequencies and ``avgdl`` come from the original counts.
    random_state : None, int or numpy Generator
        Seeds the resampling and the randomized SVD.
    dtype : float dtype, default=np.float32
        dtype of the output.
    analyzer : {"cjk", "words", "sudachi", "fugashi", "jieba"}, default="cjk"
        How text written without spaces (Chinese, Japanese, Korean, Thai) is cut into terms,
        passed to :class:`Tokenizer`: character bigrams by default; recorded in the saved model
        (one saved before this setting existed reads text with ``"words"``, as it was fitted).
    cjk_unigrams : bool, default=False
        Passed to :class:`Tokenizer`: each character of such a run too.
    unicode_words : bool, default=True
        Passed to :class:`Tokenizer`: text that is not ASCII read by Unicode's rules for words
        (NFC, combining marks kept in their words: Hindi, Bengali, Tamil, Arabic and Hebrew
        with vowel points, an accent written apart); recorded in the saved model (one saved
        before this setting existed reads text with the token pattern alone, as it was fitted).
    drop_ignorables : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, the invisible characters that say
        nothing of a word (soft hyphen, zero-width joiner, word joiner, byte order mark,
        bidirectional marks, variation selectors) left out before words are found, so that
        ``"co\\u00adoperate"`` is ``"cooperate"``; recorded in the saved model (one saved before
        this setting existed cuts words at them, as it was fitted).
    uax29_punctuation : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, punctuation read as Unicode's word
        rules read it (the Katakana middle dot, Myanmar's and Khmer's sentence marks end a run of
        their script; Catalan's middle dot and Hebrew's gershayim stay inside a word); recorded
        in the saved model (one saved before this setting existed reads them as it was fitted).
    fold_variants : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, the Arabic script's letter variants
        (alef with hamza, teh marbuta, alef maksura, the Persian yeh and keheh) read as one
        letter each, every script's decimal digits as ASCII digits, and compatibility letters
        (ligatures, Arabic presentation forms, Roman numerals) as what they stand for, Greek
        without its accents, final sigma as sigma and Russian's ё as е; recorded
        in the saved model (one saved before this setting existed reads each as a term of its
        own).
    fold_radicals : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, the Kangxi radicals that text from
        a PDF of Chinese or Japanese holds in place of ideographs read as those ideographs
        (``"⼈⼝"`` is ``"人口"``); recorded in the saved model (one saved before this setting
        existed reads them as symbols, no term).
    indic_zwnj : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, the zero-width non-joiner inside
        a word of an Indic script (Bengali ``"র\u200c্যাব"``) left out, where it cut the word and
        lost a part of it; recorded in the saved model (one saved before this setting existed
        reads it as a break).
    sara_am : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, Thai's and Lao's sara am written
        as two characters (``"ํา"``) read as the one (``"ำ"``), where ``"น้ํา"`` and ``"น้ำ"``
        (water) shared only ``"น้"``; recorded in the saved model (one saved before this
        setting existed reads them apart).
    ela_geminada : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, Catalan's ``"ŀ"`` read as
        ``"l·"``, so that ``"coŀlecció"`` and ``"col·lecció"`` are one term; recorded in the
        saved model (one saved before this setting existed reads them apart).
    fold_squares : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, the CJK compatibility squares
        (``"㎏"``, ``"㍻"``, ``"㌔"``) read as their NFKC (``"kg"``, ``"平成"``, ``"キロ"``), where
        they gave no term; recorded in the saved model (one saved before this setting existed
        reads them as symbols).
    casefold : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words`` and ``lowercase``, text that is not
        ASCII case-folded (``"Straße"`` is ``"strasse"``, as ``"STRASSE"`` is) rather than
        lowercased; recorded in the saved model (one saved before this setting existed reads
        ``"straße"`` and ``"strasse"`` apart).
    latin_digraphs : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, the Latin digraph letters
        (``"ĳ"``, ``"ǆ"``, ``"ǉ"``, ``"ǌ"``) read as their two letters, where ``"ĳs"`` and
        ``"ijs"`` were two terms; recorded in the saved model (one saved before this setting
        existed reads them apart).
    lao_digraphs : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, Lao's ``"ໜ"`` and ``"ໝ"`` read as
        ``"ຫນ"`` and ``"ຫມ"``, where ``"ໜ້າ"`` and ``"ຫນ້າ"`` shared only ``"້າ"``; recorded in
        the saved model (one saved before this setting existed reads them apart).
    cyrillic_apostrophe : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, an apostrophe between two Cyrillic
        letters kept inside the word (``"сім'я"``, family, was ``"сім"``, seven); recorded in
        the saved model (one saved before this setting existed reads it as a break).
    fold_stop_words : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, the stop words read as the text's
        words are (Arabic ``"إلى"``, Greek ``"είναι"`` were kept, their words folded and the
        list not); recorded in the saved model (one saved before this setting existed keeps
        them).
    sara_ae : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, Thai's ``"เเ"`` (two sara e)
        read as ``"แ"`` (and Lao's ``"ເເ"`` as ``"ແ"``), where ``"เเม่"`` and ``"แม่"`` shared no
        bigram; recorded in the saved model (one saved before this setting existed reads them apart).
    malayalam_chillu : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, a Malayalam chillu written with a
        virama and a zero-width joiner read as the atomic chillu, where ``"അവന്\u200d"`` (he)
        never matched ``"അവൻ"``; recorded in the saved model (one saved before this setting
        existed reads them apart).
    fold_enclosed : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, the enclosed alphanumerics
        (``"⑩"``, ``"Ⓐ"``) read as their NFKC (``"10"``, ``"a"``), each a word of its own, where
        ``"⑩"`` gave no term; recorded in the saved model (one saved before this setting
        existed reads them as symbols).
    emoji_terms : bool, default=True
        Passed to :class:`Tokenizer`: with ``unicode_words``, each emoji a term (``"👍"`` gave
        none); recorded in the saved model (one saved before this setting existed reads none).
    emoji_sequences : bool, default=True
        Passed to :class:`Tokenizer`: with ``emoji_terms``, an emoji sequence one term
        (``"👩‍💻"`` read as ``"👩"`` and ``"💻"``, the flags of England and Scotland both as
        ``"🏴"``); recorded in the saved model (one saved before this setting existed reads them so).
    khanda_ta : bool, default=True
        Passed to :class:`Tokenizer`: Bengali's ta, virama and zero-width joiner read as khanda
        ta (``"ৎ"``); recorded in the saved model (one saved before this setting existed reads
        them as ta and virama).
    vietnamese_tones : bool, default=True
        Passed to :class:`Tokenizer`: Vietnamese's oa, oe and uy ending a syllable read with the
        tone on the second vowel (``"hòa"`` as ``"hoà"``, two terms before); recorded in the saved
        model (one saved before this setting existed reads the two styles apart).
    devanagari_visarga : bool, default=True
        Passed to :class:`Tokenizer`: a colon between two Devanagari characters read as the
        visarga (``"दु:ख"`` as ``"दुःख"``); recorded in the saved model (one saved before this
        setting existed reads the colon as a break).
    jieba_search : bool, default=True
        Passed to :class:`Tokenizer`: with ``analyzer="jieba"``, jieba's search mode (the shorter
        words inside a long one too: 北京 finds 北京大学); recorded in the saved model (one saved
        before this setting existed reads jieba's longest words alone).
    mai_yamok : bool, default=True
        Passed to :class:`Tokenizer`: Thai's ``"ๆ"`` and Lao's ``"ໆ"`` read as a space (``"ดีๆ"``
        as ``"ดี ๆ"`` and ``"ดี"``); recorded in the saved model (one saved before this setting
        existed reads the mark as a letter of the run).
    hangul_jamo : bool, default=True
        Passed to :class:`Tokenizer`: a run of compatibility jamo that is syllables alone read as
        them (``"ㅎㅏㄴㄱㅜㄱㅇㅓ"`` as ``"한국어"``; ``"ㅋㅋㅋ"`` stays); recorded in the saved model
        (one saved before this setting existed reads the jamo letter by letter).
    yiddish_ligatures : bool, default=True
        Passed to :class:`Tokenizer`: Yiddish's ``"װ"``, ``"ױ"``, ``"ײ"`` read as ``"וו"``,
        ``"וי"``, ``"יי"`` (``"װאַסער"`` and ``"וואַסער"``, water, were two terms); recorded in the
        saved model (one saved before this setting existed reads them apart).
    lunate_sigma : bool, default=True
        Passed to :class:`Tokenizer`: Greek's lunate sigma (``"ϲ"``, ``"Ϲ"``) read as sigma
        (``"ϲοφια"`` and ``"σοφια"`` were two terms); recorded in the saved model (one saved
        before this setting existed reads it apart).
    vietnamese_eth : bool, default=True
        Passed to :class:`Tokenizer`: ``"Ð"``, ``"ð"`` read as Vietnamese's ``"Đ"``, ``"đ"`` in a
        word holding a letter only Vietnamese writes (``"Ðà Nẵng"`` as ``"Đà Nẵng"``; Icelandic
        ð stays); recorded in the saved model (one saved before this setting existed reads them apart).
    devanagari_anusvara : bool, default=True
        Passed to :class:`Tokenizer`: a Devanagari nasal and virama before a consonant of its class
        read as the anusvara (``"हिन्दी"`` as ``"हिंदी"``, two terms before); recorded in the saved
        model (one saved before this setting existed reads the two spellings apart).
    cyrillic_latin_i : bool, default=True
        Passed to :class:`Tokenizer`: the Latin ``"i"`` and ``"ï"`` of a Cyrillic word read as
        Ukrainian's ``"і"`` and ``"ї"`` (``"мiсто"`` and ``"місто"``, city, were two terms);
        recorded in the saved model (one saved before this setting existed reads them apart).
    armenian_marks : bool, default=True
        Passed to :class:`Tokenizer`: Armenian's emphasis, exclamation and question marks
        between two Armenian letters left out (``"ինչպե՞ս"``, how?, gave ``"ինչպե"``); recorded
        in the saved model (one saved before this setting existed reads them as breaks).
    katakana_variants : bool, default=True
        Passed to :class:`Tokenizer`: Katakana's small ``"ヶ"`` and ``"ヵ"`` read as ``"ケ"`` and
        ``"カ"`` (``"霞ヶ関"`` and ``"霞ケ関"`` were two spellings), and a fullwidth dash after a
        Katakana letter as the long mark ``"ー"`` (``"コ－ヒ－"`` gave no term of ``"コーヒー"``);
        recorded in the saved model (one saved before this setting existed reads them as before).
    turkish_lowercase : bool, default=True
        Passed to :class:`Tokenizer`: with Turkish's stop words or stems, ``"I"`` lowercased as
        ``"ı"`` and ``"İ"`` as ``"i"``, as Turkish writes them (``"IRMAK"`` was ``"irmak"`` and
        never met ``"ırmak"``); recorded in the saved model (one saved before this setting
        existed, a Turkish one among them, reads ``"I"`` as ``"i"``).
    turkish_apostrophe : bool, default=True
        Passed to :class:`Tokenizer`: with Turkish's stop words or stems, the suffix written
        after an apostrophe in a word left out (``"Ankara'nın"`` is ``"ankara"``; ``"nın"`` was
        a term too); recorded in the saved model (one saved before this setting existed reads
        the suffix as a term).
    irish_lowercase : bool, default=True
        Passed to :class:`Tokenizer`: with Irish's stop words or stems, the ``n`` or ``t`` Irish
        writes before a capital vowel left out (``"nAthair"`` is ``"athair"``; it was
        ``"nathair"``, snake); recorded in the saved model (one saved before this setting
        existed reads ``"nathair"``).
    tai_scripts : bool, default=True
        Passed to :class:`Tokenizer`: Tai Tham, New Tai Lue, Tai Le, Tai Viet and Ahom, written
        without spaces, cut into bigrams as Thai is; recorded in the saved model (one saved before
        this setting existed reads a run of them as one term).
    cyrillic_stress : bool, default=True
        Passed to :class:`Tokenizer`: the stress mark over a Cyrillic vowel (``"Москва\u0301"``)
        left out; recorded in the saved model (one saved before this setting existed keeps it).
    syriac_points : bool, default=True
        Passed to :class:`Tokenizer`: Syriac's optional vowel points and dots left out, as
        Hebrew's are; recorded in the saved model (one saved before this setting keeps them).
    language : str or None, default=None
        The texts' language as a fit was told it (``learnsim fit --language tr``,
        ``learnsim.fit(..., language="tr")``), recorded for what reads the model later: its
        reading is ``stop_words`` and ``stem`` alone, but ``learnsim evaluate`` reads its
        baselines in this language, as the fit's check did (a model fitted with ``--language tr``
        and neither ``--stop-words`` nor ``--stem`` recorded nothing of it, and its baselines
        read a collection of Turkish titles, which hold no stop word, as English). None: not
        told (and every model saved before this setting existed).

    Attributes
    ----------
    dictionary_ : dict or None
        The morphological analyser's dictionary at fit, ``{"name": ..., "version": ...}``
        (None for the rule-based analyzers, or a model saved before it was recorded); a load
        where another is installed warns.
    vocabulary_ : dict of str -> int
        Term to column index; columns are in alphabetical order of the terms.
    terms_ : ndarray of str
        The terms in column order.
    document_frequency_ : ndarray of int
        Number of training documents containing each term.
    idf_ : ndarray or None
        The idf of the weighting ("tfidf": ``log(N/df) + 1``, "bm25": Lucene's), None for
        "binary" and "tf".
    avgdl_ : float
        Mean training document length (in-vocabulary terms), used by BM25.
    n_documents_ : int
        Number of training documents.
    empty_rows_ : ndarray of int
        Training documents without any vocabulary term (zero rows); fitting warns about them.
    resample_length_ : int or None
        The resampling length actually used.
    n_components_ : int or None
        The LSI dimension actually used.
    components_ : ndarray of shape (n_components_, n_terms) or None
    singular_values_ : ndarray of shape (n_components_,) or None
    n_features_out_ : int
        Number of output columns.

    Examples
    --------
    >>> from learnsim.text import TextVectorizer
    >>> docs = ["the cat sat on the mat", "the dog sat on the log", "cats and dogs"]
    >>> vec = TextVectorizer("tfidf", norm="l2")
    >>> X = vec.fit_transform(docs)
    >>> X.shape
    (3, 10)
    >>> vec.get_feature_names_out()[:4].tolist()
    ['and', 'cat', 'cats', 'dog']
    >>> TextVectorizer("tf").fit_transform(docs).toarray()[0].tolist()
    [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0]
    """

    # the hashing and Dask vectorisers, whose parameters are their own, are told no language
    language = None

    _parameter_constraints = {
        "weighting": [Options(WEIGHTINGS)],
        # True or False: read for its truth value (Tokenizer's bool), lowercase="no" lowercased
        "lowercase": ["boolean"],
        "token_pattern": ["no_validation"],    # these four: checked by Tokenizer
        "stop_words": ["no_validation"],
        "stem": ["no_validation"],
        "ngram_range": ["no_validation"],
        "analyzer": ["no_validation"],
        # the readings: True or False (a saved state's "false", read for its truth value, was True)
        "cjk_unigrams": ["boolean"],
        "unicode_words": ["boolean"],
        "drop_ignorables": ["boolean"],
        "uax29_punctuation": ["boolean"],
        "fold_variants": ["boolean"],
        "fold_radicals": ["boolean"],
        "indic_zwnj": ["boolean"],
        "sara_am": ["boolean"],
        "ela_geminada": ["boolean"],
        "fold_squares": ["boolean"],
        "casefold": ["boolean"],
        "latin_digraphs": ["boolean"],
        "lao_digraphs": ["boolean"],
        "cyrillic_apostrophe": ["boolean"],
        "fold_stop_words": ["boolean"],
        "sara_ae": ["boolean"],
        "malayalam_chillu": ["boolean"],
        "fold_enclosed": ["boolean"],
        "emoji_terms": ["boolean"],
        "emoji_sequences": ["boolean"],
        "khanda_ta": ["boolean"],
        "vietnamese_tones": ["boolean"],
        "devanagari_visarga": ["boolean"],
        "mai_yamok": ["boolean"],
        "hangul_jamo": ["boolean"],
        "yiddish_ligatures": ["boolean"],
        "lunate_sigma": ["boolean"],
        "vietnamese_eth": ["boolean"],
        "devanagari_anusvara": ["boolean"],
        "cyrillic_latin_i": ["boolean"],
        "armenian_marks": ["boolean"],
        "katakana_variants": ["boolean"],
        "turkish_lowercase": ["boolean"],
        "turkish_apostrophe": ["boolean"],
        "irish_lowercase": ["boolean"],
        "tai_scripts": ["boolean"],
        "cyrillic_stress": ["boolean"],
        "syriac_points": ["boolean"],
        "jieba_search": ["boolean"],
        "language": [str, None],
        "min_df": _DF_CONSTRAINTS,
        "max_df": _DF_CONSTRAINTS,
        "max_features": [Interval(Integral, 1, None), None],
        # True or False (read for its truth value, sublinear_tf="no" took 1 + log(tf)); its
        # weighting checked in _check_params
        "sublinear_tf": ["boolean"],
        "norm": [Options({"l2"}), None],
        "k1": [Checked(_check_k1)],            # k1 and b: the checks (and messages) of BM25's
        "b": [Checked(_check_b)],
        "n_components": [Checked(_check_n_components)],
        "resample_length": [Options({"median"}), Interval(Integral, 1, None), None],
        "random_state": ["no_validation"],     # checked by check_random_state where it is used
        "dtype": [Checked(_check_float_dtype)],
    }

    def __init__(self, weighting="tfidf", *, lowercase=True, token_pattern=DEFAULT_TOKEN_PATTERN,
                 stop_words=None, stem=None, ngram_range=(1, 1), min_df=1, max_df=1.0,
                 max_features=None, sublinear_tf=False, norm=None, k1=1.2, b=0.75,
                 n_components=None, resample_length=None, random_state=None, dtype=np.float32,
                 analyzer="cjk", cjk_unigrams=False, unicode_words=True, drop_ignorables=True,
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
                 turkish_apostrophe=True, irish_lowercase=True, tai_scripts=True, cyrillic_stress=True, syriac_points=True,
                 language=None):
        self.weighting = weighting
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.stop_words = stop_words
        self.stem = stem
        self.ngram_range = ngram_range
        self.min_df = min_df
        self.max_df = max_df
        self.max_features = max_features
        self.sublinear_tf = sublinear_tf
        self.norm = norm
        self.k1 = k1
        self.b = b
        self.n_components = n_components
        self.resample_length = resample_length
        self.random_state = random_state
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
        self.language = language

    # ------------------------------------------------------------------ parameter checks
    def _check_params(self):
        # the attributes rather than get_params: HashingTextVectorizer fixes some of them on the class
        for name, allowed in TextVectorizer._parameter_constraints.items():
            validate_param(name, getattr(self, name), allowed)
        if self.sublinear_tf and self.weighting not in ("tf", "tfidf"):
            raise ValueError(f"sublinear_tf applies to 'tf' and 'tfidf' weighting only; got weighting={self.weighting!r}")
        return _check_float_dtype(self.dtype)

    def _make_tokenizer(self):
        return Tokenizer(**tokenizer_params(self))

    def build_tokenizer(self):
        """A :class:`learnsim.text.Tokenizer` reading text as this vectoriser does (its analysis,
        stop words, stems and n-grams), as scikit-learn's ``CountVectorizer.build_tokenizer``."""
        return self._make_tokenizer()

    # ------------------------------------------------------------------ fitting
    def _build_vocabulary(self, docs):
        counts, vocab = _count_terms(docs, self._tokenizer)
        if not vocab:
            raise ValueError("empty vocabulary: every document is empty after tokenisation (no token matches "
                             "token_pattern, or every token is a stop word)")
        terms = sorted(vocab)
        new_index = np.empty(len(terms), dtype=np.int64)
        new_index[[vocab[t] for t in terms]] = np.arange(len(terms))
        # keep the index dtype of indptr: scipy < 1.13 refuses to slice a matrix whose two differ
        counts.indices = new_index[counts.indices].astype(counts.indptr.dtype, copy=False)
        counts.has_sorted_indices = False
        counts.sort_indices()

        n_docs = counts.shape[0]
        df = np.bincount(counts.indices, minlength=len(terms))
        min_count = self.min_df if isinstance(self.min_df, numbers.Integral) else self.min_df * n_docs
        max_count = self.max_df if isinstance(self.max_df, numbers.Integral) else self.max_df * n_docs
        if max_count < min_count:
            raise ValueError(f"max_df={self.max_df!r} allows fewer documents ({max_count:g}) than "
                             f"min_df={self.min_df!r} requires ({min_count:g}) for {n_docs} documents")
        keep = np.flatnonzero((df >= min_count) & (df <= max_count))
        if self.max_features is not None and keep.size > self.max_features:
            totals = np.asarray(counts.sum(axis=0)).ravel()[keep]
            keep = np.sort(keep[np.argsort(-totals, kind="stable")[:self.max_features]])
        if keep.size == 0:
            raise ValueError(f"empty vocabulary: no term remains after filtering with min_df={self.min_df!r}, "
                             f"max_df={self.max_df!r} on {n_docs} documents")
        if keep.size < len(terms):
            counts = counts[:, keep]
            terms = [terms[j] for j in keep]
        return counts, terms

    def _fit(self, docs):
        dtype = self._check_params()
        docs = check_documents(docs)
        self._tokenizer = self._make_tokenizer()
        # the analyser's dictionary, so that a load with another one says so (._dictionary)
        self.dictionary_ = installed_dictionary(self.analyzer)
        counts, terms = self._build_vocabulary(docs)
        n_docs, n_terms = counts.shape

        self.terms_ = np.asarray(terms, dtype=object)
        self.vocabulary_ = {t: j for j, t in enumerate(terms)}
        self.n_documents_ = n_docs
        self.document_frequency_ = np.bincount(counts.indices, minlength=n_terms).astype(np.int64)
        self.idf_ = self._compute_idf(self.document_frequency_, n_docs)
        lengths = np.asarray(counts.sum(axis=1)).ravel()
        self.avgdl_ = float(lengths.mean())
        self.empty_rows_ = np.flatnonzero(lengths == 0)
        if self.empty_rows_.size:
            warnings.warn(f"{self.empty_rows_.size} of {n_docs} training documents are empty after tokenisation "
                          "and vocabulary filtering; they get zero rows (indices in empty_rows_)",
                          UserWarning, stacklevel=3)

        rng = check_random_state(self.random_state)
        if self.resample_length is None:
            self.resample_length_ = None
            train_counts = counts
        else:
            if self.resample_length == "median":
                nonempty = lengths[lengths > 0]
                self.resample_length_ = max(1, int(round(float(np.median(nonempty)))))
            else:
                self.resample_length_ = int(self.resample_length)
            train_counts = resample_counts(counts, self.resample_length_, rng)

        X = self._weight(train_counts, "document")
        if self.n_components is None:
            self.n_components_ = None
            self.components_ = None
            self.singular_values_ = None
            self.n_features_out_ = n_terms
            return X.astype(dtype)

        k = self._resolve_n_components(n_docs, n_terms)
        seed = int(rng.integers(2**31 - 1))
        s, Vt = _truncated_svd(X, k, seed)
        self.n_components_ = k
        self.singular_values_ = s.astype(dtype)
        # column-major: the projection X @ components_.T of a sparse X needs components_.T
        # C-contiguous, which scipy otherwise copies whole on every transform
        self.components_ = np.asfortranarray(Vt, dtype=dtype)
        self.n_features_out_ = k
        return self._project(X)

    def _resolve_n_components(self, n_docs, n_terms):
        nc = self.n_components
        if isinstance(nc, numbers.Integral):
            k = int(nc)
            asked = f"n_components={k}"
        else:
            k = max(1, int(round(nc * n_terms)))
            asked = f"n_components={nc} ({k} of {n_terms} terms)"
        cap = min(n_docs, n_terms)
        if k > cap:
            warnings.warn(f"{asked} exceeds the largest possible SVD rank min(n_docs={n_docs}, n_terms={n_terms}) "
                          f"= {cap}; using {cap} dimensions (see n_components_)", UserWarning, stacklevel=4)
            k = cap
        return k

    def _compute_idf(self, df, n_docs):
        df = df.astype(np.float64)
        if self.weighting == "tfidf":
            return np.log(n_docs / df) + 1.0
        if self.weighting == "bm25":
            return np.log1p((n_docs - df + 0.5) / (df + 0.5))
        return None

    # ------------------------------------------------------------------ weighting
    def _weight(self, counts, role):
        """Weighted (and normalised) float64 CSR matrix from a count matrix."""
        X = counts.astype(np.float64)
        X.eliminate_zeros()
        w = self.weighting
        if w == "bm25" and role == "query":
            return X
        if w == "binary":
            X.data[:] = 1.0
        elif w in ("tf", "tfidf"):
            if self.sublinear_tf:
                X.data = 1.0 + np.log(X.data)
            if w == "tfidf":
                X.data *= self.idf_[X.indices]
        else:  # bm25, document side
            lengths = np.asarray(X.sum(axis=1)).ravel()
            row_norm = self.k1 * (1.0 - self.b + self.b * lengths / self.avgdl_)
            tf = X.data
            X.data = self.idf_[X.indices] * tf * (self.k1 + 1.0) / (tf + np.repeat(row_norm, np.diff(X.indptr)))
        if self.norm == "l2":
            X = _unit_rows(X)
        return X

    def _project(self, X):
        dtype = self.components_.dtype
        return np.asarray(X.astype(dtype) @ self.components_.T, dtype=dtype)

    # ------------------------------------------------------------------ public API
    def __sklearn_tags__(self):
        # fit takes a list of str, not a 2-D array of numbers (what scikit-learn's own text
        # vectorisers say): its checks and meta-estimators read this
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags

    def fit(self, docs, y=None):
        """Learn the vocabulary, idf, avgdl and (optionally) the LSI basis from ``docs``.

        Parameters
        ----------
        docs : list of str
        y : ignored

        Returns
        -------
        self
        """
        self._fit(docs)
        return self

    def fit_transform(self, docs, y=None):
        """Fit on ``docs`` and return their vectors (resampled when ``resample_length`` is set).

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_docs, n_terms), or ndarray (n_docs, n_components_) with LSI.
        """
        return self._fit(docs)

    def transform(self, docs, role="document"):
        """Vectorise ``docs`` with the fitted vocabulary and weighting (never resampled).

        Parameters
        ----------
        docs : list of str
        role : {"document", "query"}, default="document"
            Only matters for BM25: query vectors are raw term counts, so that
            ``q_vec @ d_vec.T`` is the BM25 score.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_docs, n_terms), or ndarray (n_docs, n_components_) with LSI.
        Documents without a vocabulary term give zero rows (see :func:`find_empty_rows`).
        """
        check_is_fitted(self, "vocabulary_")
        if role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}; got {role!r}")
        docs = check_documents(docs)
        counts, _ = _count_terms(docs, self._tokenizer, self.vocabulary_)
        X = self._weight(counts, role)
        if self.components_ is not None:
            return self._project(X)
        return X.astype(np.dtype(self.dtype))

    def get_feature_names_out(self, input_features=None):
        """Names of the output columns: the terms, or ``lsi0, lsi1, ...`` with LSI."""
        check_is_fitted(self, "vocabulary_")
        if self.components_ is not None:
            return np.asarray([f"lsi{i}" for i in range(self.n_components_)], dtype=object)
        return self.terms_.copy()

    # ------------------------------------------------------------------ persistence
    def _get_state(self):
        """Return (JSON-serialisable metadata, named arrays) describing the fitted vectorizer."""
        check_is_fitted(self, "vocabulary_")
        params = self.get_params()
        if params["stop_words"] is not None and not isinstance(params["stop_words"], str):
            params["stop_words"] = sorted(set(params["stop_words"]))
        params["ngram_range"] = [int(n) for n in params["ngram_range"]]
        params["dtype"] = np.dtype(params["dtype"]).name
        rs = params["random_state"]
        # A Generator cannot be written to JSON; the state is already fitted, so only a refit would miss it.
        params["random_state"] = int(rs) if isinstance(rs, numbers.Integral) else None
        for key in ("min_df", "max_df", "k1", "b", "n_components"):
            value = params[key]
            if isinstance(value, numbers.Integral):
                params[key] = int(value)
            elif isinstance(value, numbers.Real):
                params[key] = float(value)
        meta = {
            "state_version": _STATE_VERSION,
            "params": params,
            "terms": [str(t) for t in self.terms_],
            "n_documents": int(self.n_documents_),
            "avgdl": float(self.avgdl_),
            "resample_length": self.resample_length_,
            "n_components": self.n_components_,
        }
        if getattr(self, "dictionary_", None) is not None:     # written only where there is one
            meta["dictionary"] = self.dictionary_
        arrays = {
            "document_frequency": self.document_frequency_,
            "empty_rows": self.empty_rows_,
        }
        if self.idf_ is not None:
            arrays["idf"] = self.idf_
        if self.components_ is not None:
            arrays["components"] = np.ascontiguousarray(self.components_)
            arrays["singular_values"] = self.singular_values_
        return meta, arrays

    @classmethod
    def _from_state(cls, meta, arrays):
        """Rebuild a fitted vectorizer from :meth:`_get_state` output, checking its consistency."""
        check_state_header("TextVectorizer", meta, arrays, _STATE_VERSION,
                           ("params", "terms", "n_documents", "avgdl", "resample_length", "n_components"),
                           version_optional=True)
        params = dict(meta["params"])
        valid = set(cls().get_params())
        unknown = sorted(set(params) - valid)
        if unknown:
            raise ValueError(f"TextVectorizer state has unknown parameters {unknown}")
        if isinstance(params.get("ngram_range"), list):
            params["ngram_range"] = tuple(params["ngram_range"])
        # a model saved before the analyzer was recorded read every text with the token pattern
        # alone: it keeps doing so (its vocabulary holds whole runs of Japanese, say)
        params.setdefault("analyzer", "words")
        # and one saved before unicode_words existed cut words at combining marks
        params.setdefault("unicode_words", False)
        # and one saved before a later reading existed reads without it, as it was fitted
        for name in LATER_READINGS:
            params.setdefault(name, False)
        obj = cls(**params)
        dtype = obj._check_params()

        terms = meta["terms"]
        if not isinstance(terms, list) or not terms or not all(isinstance(t, str) for t in terms):
            raise ValueError("TextVectorizer state: 'terms' must be a non-empty list of str")
        if len(set(terms)) != len(terms):
            raise ValueError("TextVectorizer state: 'terms' contains duplicates")
        n_terms = len(terms)

        name = cls.__name__
        n_docs = state_number(meta, "n_documents", name, integer=True, low=1)
        df = state_array(arrays, "document_frequency", name, shape=(n_terms,), kind="iu", low=0,
                         high=n_docs).astype(np.int64)
        empty_rows = np.asarray(arrays.get("empty_rows", np.zeros(0, dtype=np.int64)))
        if empty_rows.ndim != 1 or (empty_rows.size and (empty_rows.dtype.kind not in "iu"
                                                         or empty_rows.min() < 0 or empty_rows.max() >= n_docs)):
            raise ValueError("TextVectorizer state: 'empty_rows' must be indices of training documents")
        if obj.weighting in ("tfidf", "bm25"):
            idf = state_array(arrays, "idf", name, shape=(n_terms,)).astype(np.float64)
        else:
            idf = None
        k = meta["n_components"]
        if (k is None) != (obj.n_components is None):
            raise ValueError("TextVectorizer state: n_components and the n_components parameter disagree")
        if k is not None:
            if not isinstance(k, int) or not 1 <= k <= min(n_docs, n_terms):
                raise ValueError(f"TextVectorizer state: n_components={k!r} is not in [1, min(n_documents, n_terms)]")
            components = np.asfortranarray(state_array(arrays, "components", name, shape=(k, n_terms)),
                                           dtype=dtype)
            singular_values = state_array(arrays, "singular_values", name, shape=(k,), low=0.0).astype(dtype)
        else:
            components = singular_values = None
        resample_length = meta["resample_length"]
        if resample_length is not None and (not isinstance(resample_length, int) or resample_length < 1):
            raise ValueError(f"TextVectorizer state: resample_length must be None or a positive int; "
                             f"got {resample_length!r}")
        avgdl = state_number(meta, "avgdl", name, low=0.0, low_open=True)

        obj._tokenizer = obj._make_tokenizer()      # (an analyser missing: its ImportError)
        # a model saved before the dictionary was recorded: None, and nothing said
        obj.dictionary_ = checked_dictionary(meta.get("dictionary"), "TextVectorizer state")
        check_dictionary(obj.analyzer, obj.dictionary_)
        obj.terms_ = np.asarray(terms, dtype=object)
        obj.vocabulary_ = {t: j for j, t in enumerate(terms)}
        obj.n_documents_ = n_docs
        obj.document_frequency_ = df
        obj.idf_ = idf
        obj.avgdl_ = float(avgdl)
        obj.empty_rows_ = empty_rows.astype(np.int64)
        obj.resample_length_ = resample_length
        obj.n_components_ = k
        obj.components_ = components
        obj.singular_values_ = singular_values
        obj.n_features_out_ = k if k is not None else n_terms
        return obj
