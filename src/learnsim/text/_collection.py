"""The searched collection's own vocabulary (issue 32, part 6).

A fitted :class:`~learnsim.text.TextVectorizer` keeps the vocabulary, document frequencies and
mean length of the texts it was fitted on, so a word met only in another collection is dropped
from every vector. The lexical part of a model's scoring (FILM's input cosine, the term
weightings of LinkLearn and LearnedBM25) is not learned per word, and should see the collection
it searches as a tf-idf cosine or BM25 fitted on that collection does. Two functions:

- :func:`collection_vocabulary`: the vocabulary, document frequencies, number of documents and
  mean length of a collection, tokenised as the vectoriser tokenises (lowercasing, token
  pattern, stop words, stemming, n-grams), as a dict of numpy arrays: what an index saves with
  its other collection statistics, fixed at build and reindex and used by adds. The fit's
  vocabulary filters (``min_df``, ``max_df``, ``max_features``: LinkLearn's fit drops the words
  of a single training article, which carry no link) are not applied: every word of the
  collection counts, as in a BM25 or tf-idf index of it.
- :func:`collection_vectorizer`: the vectoriser with its tokenizer and weighting, but that
  vocabulary and those statistics: its ``transform`` is the output of the same vectoriser
  fitted on the collection.

Only a term vectoriser without LSI has a lexical part to move: an LSI basis, hashed columns or a
dense encoder are kept as fitted (:func:`has_lexical_part`).
"""
from __future__ import annotations

import copy

import numpy as np

__all__ = ["collection_vocabulary", "collection_vectorizer", "collection_vectors", "collection_terms",
           "has_lexical_part", "VOCABULARY_KEYS"]

#: The keys :func:`collection_vocabulary` fills, all numeric arrays (an index saves them as its
#: other statistics): the terms as their UTF-8 bytes one after the other ("vocabulary") and
#: where each starts ("vocabulary_offsets", n_terms + 1), document frequencies, number of
#: documents, mean length. A statistics dict holding "vocabulary" is the collection's; without
#: it the vectoriser's own vocabulary is used, as before issue 32.
VOCABULARY_KEYS = ("vocabulary", "vocabulary_offsets", "vocabulary_df", "vocabulary_n_documents",
                   "vocabulary_avgdl")


def has_lexical_part(vectorizer):
    """Whether ``vectorizer`` is a fitted term vectoriser whose vocabulary and statistics can be
    those of another collection (a :class:`TextVectorizer` without LSI; not a hashing one).

    Examples
    --------
    >>> from learnsim.text import TextVectorizer, has_lexical_part
    >>> docs = ["the cat sat", "a dog barked"]
    >>> has_lexical_part(TextVectorizer(norm="l2").fit(docs))
    True
    >>> has_lexical_part(TextVectorizer(n_components=1).fit(docs))
    False
    """
    from ._vectorizer import TextVectorizer

    return (type(vectorizer) is TextVectorizer and hasattr(vectorizer, "vocabulary_")
            and getattr(vectorizer, "components_", None) is None)


def collection_vocabulary(vectorizer, texts, return_counts=False):
    """The vocabulary and statistics of the collection ``texts`` under ``vectorizer``'s
    tokenizer and vocabulary filters.

    Parameters
    ----------
    vectorizer : fitted TextVectorizer
        Its tokenizer is applied to ``texts``; its vocabulary filters (``min_df``, ``max_df``,
        ``max_features``), LSI and resampling are not (module notes).
    texts : list of str
        The collection (at least one text).
    return_counts : bool, default=False
        Also return the collection's term counts over that vocabulary (a CSR matrix, int64).

    Returns
    -------
    statistics : dict
        The arrays of :data:`VOCABULARY_KEYS` (the terms in alphabetical order:
        :func:`collection_terms`). A collection without any term gives an empty vocabulary
        (every vector is zero).
    counts : scipy.sparse.csr_matrix, only with ``return_counts``

    Examples
    --------
    >>> from learnsim.text import TextVectorizer, collection_vocabulary
    >>> vec = TextVectorizer(norm="l2").fit(["the cat sat", "a dog barked"])
    >>> stats = collection_vocabulary(vec, ["a cat and a parrot", "the parrot sat"])
    >>> collection_terms(stats)
    ['and', 'cat', 'parrot', 'sat', 'the']
    >>> stats["vocabulary_df"].tolist(), int(stats["vocabulary_n_documents"]), float(stats["vocabulary_avgdl"])
    ([1, 1, 2, 1, 1], 2, 3.0)
    """
    import scipy.sparse as sp

    from ._vectorizer import _count_terms, check_documents

    if not has_lexical_part(vectorizer):
        raise ValueError(f"{type(vectorizer).__name__} has no vocabulary of its own to replace (an LSI basis, "
                         "hashed columns or a dense encoder is kept as fitted)")
    docs = check_documents(texts, "texts")
    if not docs:
        raise ValueError("texts is empty: a collection's vocabulary needs at least one text")
    probe = copy.copy(vectorizer)
    probe._tokenizer = _tokenizer(vectorizer)
    probe.min_df, probe.max_df, probe.max_features = 1, 1.0, None
    try:
        counts, terms = probe._build_vocabulary(docs)
    except ValueError:
        # no term left (every text empty after tokenisation, or filtered away): zero vectors
        counts = sp.csr_matrix((len(docs), 0), dtype=np.int64)
        terms = []
    counts = sp.csr_matrix(counts, dtype=np.int64)
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    # (surrogatepass: a term of a custom token pattern may hold a lone surrogate, from text decoded
    # with surrogateescape, as the vectoriser's own vocabulary may; strict UTF-8 failed on it)
    encoded = [t.encode("utf-8", "surrogatepass") for t in terms]
    offsets = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    statistics = {"vocabulary": np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(),
                  "vocabulary_offsets": offsets,
                  "vocabulary_df": np.bincount(counts.indices, minlength=len(terms)).astype(np.int64),
                  "vocabulary_n_documents": np.asarray(len(docs), dtype=np.int64),
                  "vocabulary_avgdl": np.asarray(float(lengths.mean()) if lengths.size else 0.0)}
    return (statistics, counts) if return_counts else statistics


def collection_vectorizer(vectorizer, statistics):
    """``vectorizer`` with the vocabulary, idf and mean length of ``statistics``
    (:func:`collection_vocabulary`): its ``transform`` equals that of the same vectoriser fitted
    on the collection (without resampling, and without vocabulary filters).

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.text import TextVectorizer, collection_vectorizer, collection_vocabulary
    >>> vec = TextVectorizer(norm="l2").fit(["the cat sat", "a dog barked"])
    >>> corpus = ["a cat and a parrot", "the parrot sat"]
    >>> mine = collection_vectorizer(vec, collection_vocabulary(vec, corpus))
    >>> fitted = TextVectorizer(norm="l2").fit(corpus)
    >>> bool(np.allclose(mine.transform(["parrot"]).toarray(), fitted.transform(["parrot"]).toarray()))
    True
    >>> vec.transform(["parrot"]).nnz                  # the vectoriser's own vocabulary drops it
    0
    """
    terms, df, n_docs, avgdl = _checked(statistics)
    vec = copy.copy(vectorizer)
    vec._tokenizer = _tokenizer(vectorizer)
    vec.terms_ = np.asarray(terms, dtype=object)
    vec.vocabulary_ = {t: j for j, t in enumerate(terms)}
    vec.n_documents_ = n_docs
    vec.document_frequency_ = df
    vec.idf_ = vec._compute_idf(df, n_docs) if len(terms) else (None if vectorizer.idf_ is None else np.zeros(0))
    vec.avgdl_ = avgdl if avgdl > 0 else 1.0
    vec.empty_rows_ = np.zeros(0, dtype=np.int64)
    vec.resample_length_ = None
    vec.n_components_ = vec.components_ = vec.singular_values_ = None
    vec.n_features_out_ = len(terms)
    if not terms:
        vec.norm = None             # zero vectors of no column: nothing to normalise
    return vec


def collection_vectors(vectorizer, texts):
    """The collection's vocabulary, its vectoriser and the texts' vectors under it, tokenising
    the texts once: ``(statistics, vectoriser, X)`` with X as float64.

    Examples
    --------
    >>> from learnsim.text import TextVectorizer, collection_vectors
    >>> vec = TextVectorizer("tf").fit(["the cat sat", "a dog barked"])
    >>> stats, collection_vec, X = collection_vectors(vec, ["a cat and a parrot", "the parrot sat"])
    >>> collection_vec.get_feature_names_out().tolist()
    ['and', 'cat', 'parrot', 'sat', 'the']
    >>> X.toarray().tolist()
    [[1.0, 1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0, 1.0]]
    """
    statistics, counts = collection_vocabulary(vectorizer, texts, return_counts=True)
    vec = collection_vectorizer(vectorizer, statistics)
    X = vec._weight(counts, "document").astype(np.dtype(vec.dtype)).astype(np.float64)
    return statistics, vec, X


def collection_terms(statistics):
    """The terms of a collection vocabulary (:func:`collection_vocabulary`), as a list of str.

    Examples
    --------
    >>> from learnsim.text import TextVectorizer, collection_terms, collection_vocabulary
    >>> vec = TextVectorizer().fit(["the cat sat"])
    >>> collection_terms(collection_vocabulary(vec, ["naïve café", "café au lait"]))
    ['au', 'café', 'lait', 'naïve']
    """
    return _checked(statistics)[0]


def _tokenizer(vectorizer):
    tok = getattr(vectorizer, "_tokenizer", None)
    return tok if tok is not None else vectorizer._make_tokenizer()


def _checked(statistics):
    """(terms, df, n_documents, avgdl) of a statistics dict, or a ValueError naming what is wrong."""
    try:
        raw = np.asarray(statistics["vocabulary"])
        offsets = np.asarray(statistics["vocabulary_offsets"])
        if raw.dtype != np.uint8 or raw.ndim != 1 or offsets.ndim != 1 or offsets.dtype.kind not in "iu" \
                or offsets.size < 1 or offsets[0] != 0 or offsets[-1] != raw.size or (np.diff(offsets) < 0).any():
            raise ValueError("vocabulary must be UTF-8 bytes (uint8) cut by vocabulary_offsets")
        data = raw.tobytes()
        terms = [data[a:z].decode("utf-8", "surrogatepass") for a, z in zip(offsets[:-1].tolist(), offsets[1:].tolist())]
        df = np.asarray(statistics["vocabulary_df"])
        n_docs = int(np.asarray(statistics["vocabulary_n_documents"]))
        avgdl = float(np.asarray(statistics["vocabulary_avgdl"]))
    except (KeyError, TypeError, ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"a collection vocabulary needs {', '.join(VOCABULARY_KEYS)} "
                         f"(learnsim.text.collection_vocabulary); {exc}") from None
    if len(set(terms)) != len(terms):
        raise ValueError("the collection vocabulary holds a term twice")
    if df.shape != (len(terms),) or df.dtype.kind not in "iu" or n_docs < 1 or (df < 1).any() or (df > n_docs).any():
        raise ValueError(f"the collection vocabulary's document frequencies must be {len(terms)} counts in "
                         "[1, vocabulary_n_documents]")
    if not np.isfinite(avgdl) or avgdl < 0:
        raise ValueError(f"the collection vocabulary's mean length must be a number >= 0; got {avgdl}")
    return terms, df.astype(np.int64), n_docs, avgdl
