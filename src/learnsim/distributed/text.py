"""Vocabulary, vectors and collection statistics of a Dask collection of texts, by map-reduce.

A collection is a ``dask.bag.Bag`` of str (or a Dask dataframe column). Every step maps each
partition to a small partial result on a worker and sums those in a tree (``split_every`` at a
time), so no process ever holds the collection:

- :func:`fit_vectorizer`: per-partition term counts and document frequencies, summed; the
  vocabulary is then chosen on the driver exactly as :meth:`learnsim.text.TextVectorizer.fit`
  chooses it, and the result *is* a fitted TextVectorizer, equal to one fitted in one process
  on all the texts. With ``hashing=n_features`` terms are hashed to columns instead
  (:class:`HashingTextVectorizer`): no vocabulary pass.
- :func:`vectorize`: the shared representation of a vectorised collection, a
  ``dask.array.Array`` (n_documents, n_features) whose blocks are ``scipy.sparse.csr_matrix``
  row blocks, one per partition, full width, with known row chunk sizes.
- :func:`document_frequencies`, :func:`collection_statistics`: what an index takes from the
  whole collection (document frequencies, number of documents, mean length), from per-block sums.

The texts are read, tokenised and checked on the workers; a partition holding something other
than str raises a TypeError naming the partition and the position.

References
----------
Dean and Ghemawat, "MapReduce: simplified data processing on large clusters", OSDI 2004.
Rocklin, "Dask: parallel computation with blocked algorithms and task scheduling", SciPy 2015.
"""
from __future__ import annotations

import numbers
import warnings
from collections import Counter

import numpy as np
import scipy.sparse as sp

from ._dask import (SPLIT_EVERY, as_bag, check_split_every, compute, partition_items, portable, ready, require,
                    tree_reduce)
from ..text import installed_dictionary
from ._hashing import NEEDS_STATISTICS, HashingTextVectorizer

__all__ = ["fit_vectorizer", "vectorize", "partition_lengths", "document_frequencies", "collection_statistics",
           "HashingTextVectorizer"]

# TextVectorizer options whose fit is not a sum over documents: LSI (an SVD of the whole weighted
# matrix, whose randomized single-process result a distributed SVD would not reproduce) and
# resampling (one random stream drawn document after document)
_NOT_MAP_REDUCE = {"n_components": "LSI (an SVD of the whole weighted matrix)",
                   "resample_length": "resampling (one random stream over all the documents in order)"}


# ---------------------------------------------------------------------- checks on the workers
def _checked_texts(texts, partition):
    texts = partition_items(texts, "texts", partition)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            hint = "; decode bytes first" if isinstance(t, bytes) else ""
            raise TypeError(f"partition {partition}, item {i} is {type(t).__name__}, not str; every document "
                            f"must be a string{hint}")
    return texts


def _check_params(params, hashing):
    from ..text import TextVectorizer

    cls = TextVectorizer if hashing is None else HashingTextVectorizer
    valid = set(cls().get_params()) - ({"n_features"} if hashing is not None else set())
    unknown = sorted(set(params) - valid)
    if unknown:
        raise TypeError(f"unknown {cls.__name__} parameter(s) {unknown}; fit_vectorizer takes {sorted(valid)}")
    for name, what in _NOT_MAP_REDUCE.items():
        if params.get(name) is not None:
            raise ValueError(f"{name}={params[name]!r}: {what} cannot be fitted by map-reduce; fit the "
                             f"vectoriser without it (and reduce the vectors afterwards, e.g. "
                             f"dask.array.linalg.svd_compressed)")
    vec = cls(**params) if hashing is None else cls(n_features=hashing, **params)
    vec._check_params()
    return vec


# ---------------------------------------------------------------------- the vocabulary pass
def _partition_counts(texts, tokenizer_params, partition):
    """Map: (n documents, document frequencies, total counts, positions of empty documents)."""
    from ..text import Tokenizer

    tokenizer = Tokenizer(**tokenizer_params)
    df, tf, empty = Counter(), Counter(), []
    texts = _checked_texts(texts, partition)
    for i, doc in enumerate(texts):
        terms = tokenizer(doc)
        if not terms:
            empty.append(i)
            continue
        tf.update(terms)
        df.update(set(terms))
    return len(texts), df, tf, np.asarray(empty, dtype=np.int64)


def _combine_counts(parts):
    """Reduce: sums of the counts, in partition order (empty positions shifted by the rows before)."""
    n, df, tf, empty = 0, Counter(), Counter(), []
    for n_i, df_i, tf_i, empty_i in parts:
        df.update(df_i)
        tf.update(tf_i)
        empty.append(empty_i + n)
        n += n_i
    return n, df, tf, np.concatenate(empty)


def _partition_empty(texts, vocabulary, tokenizer_params):
    """Map: positions of the documents none of whose terms is in ``vocabulary``."""
    from ..text import Tokenizer

    tokenizer = Tokenizer(**tokenizer_params)
    return np.asarray([i for i, doc in enumerate(texts) if not any(t in vocabulary for t in tokenizer(doc))],
                      dtype=np.int64)


def _tokenizer_params(vec):
    from ..text import tokenizer_params

    return tokenizer_params(vec)


def _choose_vocabulary(vec, n_docs, df_counter, tf_counter):
    """(terms, document frequencies, totals) kept, exactly as TextVectorizer._build_vocabulary keeps them."""
    if not df_counter:
        raise ValueError("empty vocabulary: every document is empty after tokenisation (no token matches "
                         "token_pattern, or every token is a stop word)")
    terms = sorted(df_counter)
    df = np.fromiter((df_counter[t] for t in terms), dtype=np.int64, count=len(terms))
    totals = np.fromiter((tf_counter[t] for t in terms), dtype=np.int64, count=len(terms))
    min_count = vec.min_df if isinstance(vec.min_df, numbers.Integral) else vec.min_df * n_docs
    max_count = vec.max_df if isinstance(vec.max_df, numbers.Integral) else vec.max_df * n_docs
    if max_count < min_count:
        raise ValueError(f"max_df={vec.max_df!r} allows fewer documents ({max_count:g}) than "
                         f"min_df={vec.min_df!r} requires ({min_count:g}) for {n_docs} documents")
    keep = np.flatnonzero((df >= min_count) & (df <= max_count))
    if vec.max_features is not None and keep.size > vec.max_features:
        # the same stable sort of the same totals in alphabetical order: ties to the earlier term
        keep = np.sort(keep[np.argsort(-totals[keep], kind="stable")[:vec.max_features]])
    if keep.size == 0:
        raise ValueError(f"empty vocabulary: no term remains after filtering with min_df={vec.min_df!r}, "
                         f"max_df={vec.max_df!r} on {n_docs} documents")
    return [terms[j] for j in keep], df[keep], totals[keep], keep.size < len(terms)


def fit_vectorizer(texts, *, hashing=None, split_every=SPLIT_EVERY, client=None, **params):
    """Fit a :class:`learnsim.text.TextVectorizer` on a Dask collection of texts by map-reduce.

    Each partition's term counts and document frequencies are computed on a worker and summed in
    a tree; the vocabulary is then chosen as ``TextVectorizer.fit`` chooses it (alphabetical
    columns, ``min_df``/``max_df``/``max_features`` with its tie rule, stop words, n-grams).

    Parameters
    ----------
    texts : dask.bag.Bag of str, or a Dask dataframe column
    hashing : None or int, default=None
        None: a vocabulary pass, and the result equals ``TextVectorizer(**params).fit(all the
        texts)`` (vocabulary, document frequencies, idf, avgdl, empty rows). An int: the number
        of hashed columns of a :class:`HashingTextVectorizer` (no vocabulary; "tfidf" and "bm25"
        take one pass for their statistics, "binary" and "tf" none).
    split_every : int, default=8
        Partial results combined per task of the tree reduction.
    client : distributed.Client, optional
        Where to compute (default: Dask's current scheduler, e.g. the client last created).
    **params
        TextVectorizer parameters. ``n_components`` (LSI) and ``resample_length`` are refused:
        neither is a sum over documents.

    Returns
    -------
    TextVectorizer or HashingTextVectorizer, fitted

    Raises
    ------
    TypeError
        ``texts`` is not a Bag (or a dataframe column), an item is not a str, or a parameter is unknown.
    ValueError
        A parameter is invalid or cannot be fitted by map-reduce, the collection is empty, or the
        vocabulary is empty (the messages of ``TextVectorizer.fit``).

    Examples
    --------
    Six texts in two partitions, computed in this process (the synchronous scheduler): the
    vocabulary and the idf are those of one ``TextVectorizer.fit`` on all the texts.

    >>> import dask
    >>> import dask.bag as db
    >>> import numpy as np
    >>> from learnsim.text import TextVectorizer
    >>> from learnsim.distributed import fit_vectorizer
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> bag = db.from_sequence(texts, npartitions=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     vec = fit_vectorizer(bag)
    >>> vec.n_documents_, len(vec.terms_), list(vec.terms_[:4])
    (6, 21, ['after', 'app', 'charge', 'charged'])
    >>> local = TextVectorizer().fit(texts)
    >>> list(vec.terms_) == list(local.terms_), bool(np.allclose(vec.idf_, local.idf_))
    (True, True)

    Hashed columns instead of a vocabulary:

    >>> with dask.config.set(scheduler="synchronous"):
    ...     hashed = fit_vectorizer(bag, hashing=1024)
    >>> type(hashed).__name__, hashed.n_features_out_
    ('HashingTextVectorizer', 1024)
    """
    split_every = check_split_every(split_every)
    if hashing is not None and (isinstance(hashing, bool) or not isinstance(hashing, numbers.Integral)):
        raise TypeError(f"hashing must be None or an int (the number of hashed columns); got {hashing!r}")
    for name in ("min_df", "max_df", "max_features"):
        if hashing is not None and name in params:
            raise ValueError(f"{name} filters a vocabulary; hashed columns have none (hashing={hashing})")
    vec = _check_params(params, hashing)
    bag = as_bag(texts)
    if hashing is not None:
        return _fit_hashing(vec, bag, split_every, client)
    dask = require("dask")
    tok = _tokenizer_params(vec)
    parts = [dask.delayed(_partition_counts)(p, tok, i) for i, p in enumerate(bag.to_delayed(optimize_graph=False))]
    n_docs, df_counter, tf_counter, empty = compute(tree_reduce(parts, _combine_counts, split_every), client)
    if n_docs == 0:
        raise ValueError("texts is empty: at least one document is required")
    terms, df, totals, filtered = _choose_vocabulary(vec, n_docs, df_counter, tf_counter)
    del df_counter, tf_counter
    if filtered:
        # a document whose every term was filtered out is empty too: one more pass finds them
        vocab_d = dask.delayed(frozenset(terms))
        found = [dask.delayed(_partition_empty)(p, vocab_d, tok) for p in bag.to_delayed(optimize_graph=False)]
        lengths = [dask.delayed(len)(p) for p in bag.to_delayed(optimize_graph=False)]
        found, lengths = compute((found, lengths), client)
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        empty = np.concatenate([f + o for f, o in zip(found, offsets)]) if found else empty
    return _fitted(vec, terms, df, totals, n_docs, empty)


def _fitted(vec, terms, df, totals, n_docs, empty):
    """The TextVectorizer's fitted state from the reduced statistics (see TextVectorizer._fit)."""
    vec._tokenizer = vec._make_tokenizer()
    vec.dictionary_ = installed_dictionary(vec.analyzer)
    vec.terms_ = np.asarray(terms, dtype=object)
    vec.vocabulary_ = {t: j for j, t in enumerate(terms)}
    vec.n_documents_ = int(n_docs)
    vec.document_frequency_ = np.asarray(df, dtype=np.int64)
    vec.idf_ = vec._compute_idf(vec.document_frequency_, n_docs)
    # the mean of the integer lengths, as np.mean takes it: exact below 2**53 tokens
    vec.avgdl_ = float(int(totals.sum()) / n_docs)
    vec.empty_rows_ = np.asarray(empty, dtype=np.int64)
    if vec.empty_rows_.size:
        warnings.warn(f"{vec.empty_rows_.size} of {n_docs} training documents are empty after tokenisation "
                      "and vocabulary filtering; they get zero rows (indices in empty_rows_)",
                      UserWarning, stacklevel=3)
    vec.resample_length_ = None
    vec.n_components_ = vec.components_ = vec.singular_values_ = None
    vec.n_features_out_ = len(terms)
    return vec


def _partition_hash_statistics(texts, vec, partition):
    return ready(vec).partial_statistics(_checked_texts(texts, partition))


def _combine_hash_statistics(parts):
    df, n, total, empty = None, 0, 0, []
    for df_i, n_i, total_i, empty_i in parts:
        df = df_i.copy() if df is None else df + df_i
        empty.append(empty_i + n)
        n += n_i
        total += total_i
    return df, n, total, np.concatenate(empty)


def _fit_hashing(vec, bag, split_every, client):
    dask = require("dask")
    vec._tokenizer = vec._make_tokenizer()
    vec.dictionary_ = installed_dictionary(vec.analyzer)
    if vec.weighting not in NEEDS_STATISTICS:
        return vec._set_statistics(None, 0, 0, None)
    vec_d = dask.delayed(portable(vec))
    parts = [dask.delayed(_partition_hash_statistics)(p, vec_d, i) for i, p in enumerate(bag.to_delayed(optimize_graph=False))]
    df, n, total, empty = compute(tree_reduce(parts, _combine_hash_statistics, split_every), client)
    if n == 0:
        raise ValueError("texts is empty: at least one document is required")
    return vec._set_statistics(df, n, total, empty)


# ---------------------------------------------------------------------- vectors
def _vectorizer_of(vectorizer):
    """The fitted vectoriser of a Pipeline, or the vectoriser itself (a sentence encoder too)."""
    from ..text.encoders import is_encoder

    vec = vectorizer.vectorizer if hasattr(vectorizer, "metric") and hasattr(vectorizer, "vectorizer") else vectorizer
    if is_encoder(vec):
        return vec
    if not hasattr(vec, "transform") or not hasattr(vec, "get_params"):
        raise TypeError(f"vectorizer must be a fitted TextVectorizer, a sentence encoder (or a Pipeline); got "
                        f"{type(vectorizer).__name__}")
    if not hasattr(vec, "n_features_out_"):
        raise ValueError(f"the {type(vec).__name__} is not fitted: fit it first (fit_vectorizer)")
    return vec


def _width_and_dense(vec):
    """(columns, dense) of a fitted vectoriser's rows: a sentence encoder's ``embedding_dim_``
    dense columns (it has no ``n_features_out_``), an LSI's dense components, else sparse terms."""
    from ..text.encoders import is_encoder

    if is_encoder(vec):
        return int(vec.embedding_dim_), True
    return int(vec.n_features_out_), getattr(vec, "components_", None) is not None


def vectorize_partition(texts, vec, partition=0, expected=None):
    """The float64 vectors of one partition: a CSR block (a dense block with LSI or a sentence
    encoder), zero rows for an empty partition."""
    from ..text.encoders import checked_rows, is_encoder

    texts = _checked_texts(texts, partition)
    if expected is not None and len(texts) != expected:
        raise ValueError(f"partition {partition} holds {len(texts)} texts, not the {expected} given in lengths")
    width, dense = _width_and_dense(vec)
    if not texts:
        return np.zeros((0, width)) if dense else sp.csr_matrix((0, width), dtype=np.float64)
    X = ready(vec).transform(texts)
    if is_encoder(vec):
        # a custom encoder's rows are checked nowhere else on a worker: one finite row per text
        X = checked_rows(X, len(texts), f"partition {partition}: the encoder {type(vec).__name__}", width)
    if dense:
        return np.asarray(X, dtype=np.float64)
    return sp.csr_matrix(X, dtype=np.float64)


def partition_lengths(texts, client=None):
    """The number of texts in each partition (one pass that reads, but does not tokenise, them).

    Parameters
    ----------
    texts : dask.bag.Bag of str, or a Dask dataframe column
    client : distributed.Client, optional
        Where to compute (default: Dask's current scheduler).

    Returns
    -------
    list of int
        One count per partition, in partition order.

    Examples
    --------
    >>> import dask
    >>> import dask.bag as db
    >>> from learnsim.distributed import partition_lengths
    >>> bag = db.from_sequence(["a b", "c", "d e f", "g", "h"], npartitions=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     partition_lengths(bag)
    [3, 2]
    """
    dask = require("dask")
    bag = as_bag(texts)
    return [int(n) for n in compute([dask.delayed(len)(p) for p in bag.to_delayed(optimize_graph=False)], client)]


def vectorize(texts, vectorizer, *, lengths=None, client=None):
    """The vectors of a Dask collection of texts: a Dask array of CSR row blocks.

    Parameters
    ----------
    texts : dask.bag.Bag of str, or a Dask dataframe column
    vectorizer : fitted TextVectorizer, HashingTextVectorizer, or a Pipeline (its vectoriser)
    lengths : list of int, optional
        The number of texts in each partition. Without it a pass counts them
        (:func:`partition_lengths`), so that the array's chunks are known.
    client : distributed.Client, optional
        Where the counting pass runs.

    Returns
    -------
    dask.array.Array of shape (n_documents, n_features), float64
        One block per partition, full width (one column chunk), whose blocks are
        ``scipy.sparse.csr_matrix`` (dense ndarrays for an LSI vectoriser); the texts are
        vectorised when a block is computed.

    Examples
    --------
    >>> import dask
    >>> import dask.bag as db
    >>> from learnsim.distributed import fit_vectorizer, vectorize
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> bag = db.from_sequence(texts, npartitions=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     vec = fit_vectorizer(bag)
    ...     X = vectorize(bag, vec)
    ...     first = X.blocks[0].compute()
    >>> X.shape, X.chunks
    ((6, 21), ((3, 3), (21,)))
    >>> type(first).__name__, first.shape
    ('csr_matrix', (3, 21))

    The rows are those of the vectoriser's own ``transform``:

    >>> import numpy as np
    >>> bool(np.allclose(first.toarray(), vec.transform(texts[:3]).toarray()))
    True
    """
    dask = require("dask")
    da = require("dask.array")
    bag = as_bag(texts)
    vec = _vectorizer_of(vectorizer)
    # unoptimised: the bag's own keys. Optimising fuses and renames them, so two computations of
    # one bag could send the scheduler equal keys with different tasks (dask/dask#9888), which
    # failed now and then with a KeyError
    parts = bag.to_delayed(optimize_graph=False)
    if lengths is None:
        lengths = partition_lengths(bag, client)
    lengths = list(lengths)
    if len(lengths) != len(parts):
        raise ValueError(f"lengths has {len(lengths)} entries for {len(parts)} partitions")
    for i, n in enumerate(lengths):
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
            raise ValueError(f"lengths[{i}] must be a non-negative int; got {n!r}")
    width, dense = _width_and_dense(vec)
    meta = np.zeros((0, width)) if dense else sp.csr_matrix((0, width), dtype=np.float64)
    vec_d = dask.delayed(portable(vec))
    if not parts:
        raise ValueError("texts has no partitions")
    # one block per partition, empty ones included (da.concatenate of from_delayed blocks would
    # drop those): block (i, 0) of the array is the task vectorising partition i, written into
    # the array's own layer (not an alias of a delayed task: dask's fusion of aliases lost keys
    # of other partitions when one block was computed, now and then)
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    name = "learnsim-vectorize-" + tokenize(*[p.key for p in parts], vec_d.key, lengths)
    layer = {(name, i, 0): (vectorize_partition, p.key, vec_d.key, i, int(n))
             for i, (p, n) in enumerate(zip(parts, lengths))}
    graph = HighLevelGraph.from_collections(name, layer, dependencies=[*parts, vec_d])
    return da.Array(graph, name, chunks=(tuple(int(n) for n in lengths), (width,)), dtype=np.float64, meta=meta)


# ---------------------------------------------------------------------- collection statistics
def _blocks_of(X):
    """The delayed row blocks of a vectorised collection (checked to be full width)."""
    da = require("dask.array")
    if not isinstance(X, da.Array):
        raise TypeError(f"X must be a dask.array.Array of CSR row blocks (see vectorize); got {type(X).__name__}")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (documents x features); got {X.ndim} dimensions")
    if X.numblocks[1] != 1:
        raise ValueError(f"X must have one column chunk (full-width row blocks); it has {X.numblocks[1]}: "
                         "rechunk it with X.rechunk({1: -1})")
    return list(X.to_delayed(optimize_graph=False).ravel())


def block_statistics(block, counts=False):
    """Map: (document frequencies, number of rows, total of the values) of a block; ``counts``:
    the values must be raw term counts (non-negative integers), as LearnedBM25 requires."""
    X = sp.csr_matrix(block, dtype=np.float64)
    data = X.data
    if data.size and not np.isfinite(data).all():
        raise ValueError("X contains NaN or infinite values; clean or impute them first")
    if counts and data.size and ((data < 0).any() or (np.mod(data, 1.0) != 0).any()):
        raise ValueError("X must hold raw term counts (e.g. TextVectorizer(weighting='tf') output): it has "
                         "negative or non-integer values")
    X.sum_duplicates()
    df = np.bincount(X.indices[X.data != 0], minlength=X.shape[1]).astype(np.int64)
    return df, X.shape[0], float(X.data.sum())


def _combine_statistics(parts):
    df, n, total = None, 0, 0.0
    for df_i, n_i, total_i in parts:
        df = df_i.copy() if df is None else df + df_i
        n += n_i
        total += total_i
    return df, n, total


def _reduced_statistics(blocks, split_every, client, counts=False):
    dask = require("dask")
    parts = [dask.delayed(block_statistics)(b, counts) for b in blocks]
    return compute(tree_reduce(parts, _combine_statistics, split_every), client)


def document_frequencies(X, *, split_every=SPLIT_EVERY, client=None):
    """The number of rows of ``X`` in which each column is non-zero, summed over its blocks.

    Parameters
    ----------
    X : dask.array.Array of CSR row blocks (see :func:`vectorize`)

    Returns
    -------
    ndarray of int64, shape (n_features,)

    Examples
    --------
    >>> import dask
    >>> import dask.bag as db
    >>> from learnsim.distributed import document_frequencies, fit_vectorizer, vectorize
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> bag = db.from_sequence(texts, npartitions=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     vec = fit_vectorizer(bag)
    ...     df = document_frequencies(vectorize(bag, vec))
    >>> df.shape, int(df[list(vec.terms_).index("password")])
    ((21,), 2)
    >>> bool((df == vec.document_frequency_).all())
    True
    """
    df, _, _ = _reduced_statistics(_blocks_of(X), check_split_every(split_every), client)
    return df


def statistics_from_sums(scorer, df, n_docs, total):
    """The collection statistics of ``scorer`` (:meth:`learnsim.scorer.Scorer.collection_statistics`)
    from the sums over a collection: document frequencies, number of documents and total count."""
    if scorer.kind != "term_weights":
        return {}
    from ..linklearn import LearnedBM25

    if n_docs < 1:
        raise ValueError("the collection is empty: its statistics need at least one document")
    if isinstance(scorer.metric, LearnedBM25):
        if total == 0:
            raise ValueError(f"every one of the {n_docs} documents in X is empty (all counts are 0)")
        return {"document_frequency": np.asarray(df, dtype=np.int64), "n_documents": np.asarray(n_docs, dtype=np.int64),
                "avgdl": np.asarray(total / n_docs)}
    # LinkLearn: idf = log(N / df), 0 for absent terms (learnsim.linklearn.idf_from_counts)
    df = np.asarray(df, dtype=np.float64)
    idf = np.zeros(df.shape[0])
    present = df > 0
    idf[present] = np.log(n_docs / df[present])
    return {"idf": idf}


def _scorer_of(pipeline_or_scorer):
    from ..scorer import Scorer

    if isinstance(pipeline_or_scorer, Scorer):
        return pipeline_or_scorer
    scorer = getattr(pipeline_or_scorer, "scorer", None)
    if not isinstance(scorer, Scorer):
        raise TypeError(f"expected a learnsim Pipeline or Scorer; got {type(pipeline_or_scorer).__name__}")
    return scorer


def collection_statistics(pipeline_or_scorer, X, *, split_every=SPLIT_EVERY, client=None):
    """What an index takes from the whole collection ``X``, from per-block sums: equal to
    ``scorer.collection_statistics`` of all the rows in one process.

    Parameters
    ----------
    pipeline_or_scorer : learnsim.pipeline.Pipeline or learnsim.scorer.Scorer
    X : dask.array.Array of CSR row blocks (:func:`vectorize` of the pipeline's vectoriser)

    Returns
    -------
    dict of ndarrays
        LearnedBM25: ``document_frequency``, ``n_documents``, ``avgdl``; LinkLearn: ``idf``;
        the other families take nothing from the collection (an empty dict, and no pass is made).

    Examples
    --------
    A BM25 pipeline (term counts and :class:`learnsim.linklearn.LearnedBM25` with fixed
    parameters: no training) takes its statistics from the whole collection:

    >>> import dask
    >>> import dask.bag as db
    >>> import numpy as np
    >>> from learnsim.linklearn import LearnedBM25
    >>> from learnsim.pipeline import Pipeline
    >>> from learnsim.distributed import collection_statistics, fit_vectorizer, vectorize
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> bag = db.from_sequence(texts, npartitions=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     vec = fit_vectorizer(bag, weighting="tf")
    ...     pipeline = Pipeline(vec, LearnedBM25.from_params(k1=1.5, b=0.6))
    ...     stats = collection_statistics(pipeline, vectorize(bag, vec))
    >>> sorted(stats), int(stats["n_documents"]), round(float(stats["avgdl"]), 3)
    (['avgdl', 'document_frequency', 'n_documents'], 6, 3.833)

    The same as the scorer's statistics of all the rows in one process:

    >>> local = pipeline.scorer.collection_statistics(vec.transform(texts))
    >>> all(np.array_equal(local[key], stats[key]) for key in local)
    True
    """
    scorer = _scorer_of(pipeline_or_scorer)
    blocks = _blocks_of(X)
    if scorer.kind != "term_weights":
        return {}
    from ..linklearn import LearnedBM25

    # LearnedBM25 weights raw counts: each block is checked as its collection_statistics checks X
    df, n, total = _reduced_statistics(blocks, check_split_every(split_every), client,
                                       counts=isinstance(scorer.metric, LearnedBM25))
    return statistics_from_sums(scorer, df, n, total)
