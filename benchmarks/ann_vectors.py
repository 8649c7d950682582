"""The vectors `bench_ann.py` searches: learned FILM vectors of real corpora and of synthetic sentences.

Every set is a collection and a pool of queries, both FILM embeddings (``FILM.transform`` of
sublinear tf-idf rows) with L2-normalised rows in float32, so that the inner product is FILM's
cosine, the similarity learnsim's search ranks by:

* ``20ng`` - 20 Newsgroups "bydate" (headers removed): tf-idf and FILM (class labels) fitted on
  the 11,314 training messages; collection = training + test messages (18,846); queries = test
  messages.
* ``quora`` - the Quora sample: tf-idf and FILM fitted on the dev questions, FILM on the clusters
  that chains of dev duplicate pairs join (``pairs_to_clusters``; questions in no duplicate pair
  are unclustered), as ``learnsim fit --method film --pairs`` learns from them; collection =
  every distinct question of dev and test; queries = the test questions that are not in dev.
* ``flickr`` - Flickr8k captions, the five captions of an image a cluster: tf-idf and FILM fitted
  on the training images' captions; collection = all 40,460 captions; queries = test captions.
* ``synthetic`` - ``n`` + 10,000 sentences of ``bench_film_scale.make_sentence_corpus`` (an
  80,000-word Zipf vocabulary with synonym sets, paraphrase clusters in topics, sublinear tf-idf);
  FILM (M-FILM, 10,000 triplets an iteration) fitted on the triplets of
  ``bench_film_scale.make_supervision`` over the first ``fit_n`` sentences, then applied to all
  of them in blocks. 10,000 random sentences after the first ``fit_n`` are the query pool (not in
  the collection); the other ``n`` are the collection.

For the real corpora the queries are members of the collection (their own row is normally
their first hit, for the exact search and an ANN alike); queries without any vocabulary term
(an all-zero row, whose exact top 10 is an arbitrary tie) are dropped. The query pool is
stored shuffled (seeded), so the first ``q`` rows are a random sample of ``q`` queries.

Each set is cached under ``<workdir>/<name>-d<dimensions>[-n<n>]-s<seed>/`` as
``collection.npy``, ``queries.npy`` and ``info.json`` (written last, so a set without it is
rebuilt); a cached set is checked on load like a fresh one (shapes, dtype, finite, unit or zero
rows).
"""
from __future__ import annotations

import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

CORPORA = ("20ng", "quora", "flickr", "synthetic")
SYNTHETIC_QUERY_POOL = 10_000
# FILM fitted on this many synthetic sentences (M-FILM: an iteration costs the same at any n, the
# SVD grows with it; bench_film_scale measured 25 s at 100k on 2 cores)
DEFAULT_FIT_N = 100_000
SYNTHETIC_BATCH_SIZE = 10_000          # M-FILM triplets per iteration, as bench_film_scale
TRANSFORM_BLOCK = 100_000              # rows of the synthetic collection embedded at a time
_NORM_TOLERANCE = 1e-3


def _unit_rows_float32(E):
    """Rows of E scaled to unit length (all-zero rows stay zero), as float32."""
    E = np.asarray(E, dtype=np.float64)
    norms = np.linalg.norm(E, axis=1, keepdims=True)
    return (E / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def _vectorizer():
    from learnsim.text import TextVectorizer

    # the weighting of bench_film_scale's synthetic tf-idf and of `learnsim fit`'s default
    return TextVectorizer("tfidf", sublinear_tf=True, norm="l2", dtype=np.float64)


def _film(dimensions, seed, batch_size=None):
    from learnsim.film import FILM

    # the map alone is searched (the inner product of unit FILM rows), so the held-out check of
    # the input-cosine weight, a second fit, is left out
    return FILM(n_components=dimensions, batch_size=batch_size, baseline_holdout=None, random_state=seed)


def _queries_of(X, candidates, rng):
    """The candidate rows of X that have a vocabulary term, shuffled."""
    from learnsim.text import find_empty_rows

    candidates = np.asarray(candidates, dtype=np.int64)
    empty = find_empty_rows(X[candidates])
    keep = np.delete(candidates, empty)
    return keep[rng.permutation(keep.size)], int(empty.size)


# --------------------------------------------------------------------------- the real corpora
def _newsgroups(dimensions, seed, data_dir):
    from learnsim.datasets import load_20newsgroups

    train = load_20newsgroups("train", data_dir=data_dir)
    test = load_20newsgroups("test", data_dir=data_dir)
    vec = _vectorizer()
    X_train = vec.fit_transform(train.data)
    model = _film(dimensions, seed).fit(X_train, train.target)
    X = vec.transform(list(train.data) + list(test.data))
    queries, dropped = _queries_of(X, np.arange(len(train.data), X.shape[0]), np.random.default_rng(seed))
    return X, model, queries, {"fit_items": len(train.data), "empty_queries_dropped": dropped,
                               "query_source": "test messages (in the collection)"}


def _quora(dimensions, seed, data_dir):
    from learnsim.datasets import load_quora_pairs
    from learnsim.supervision import pairs_to_clusters

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # the sample's undecodable lines, counted per load
        dev = load_quora_pairs("dev", data_dir=data_dir)
        test = load_quora_pairs("test", data_dir=data_dir)
        labels = np.asarray(pairs_to_clusters(dev.pairs, len(dev.texts)).labels)
    vec = _vectorizer()
    X_dev = vec.fit_transform(dev.texts)
    model = _film(dimensions, seed).fit(X_dev, labels)
    seen = set(dev.texts)
    held_out = [t for t in test.texts if t not in seen]
    texts = list(dev.texts) + held_out
    X = vec.transform(texts)
    queries, dropped = _queries_of(X, np.arange(len(dev.texts), len(texts)), np.random.default_rng(seed))
    return X, model, queries, {"fit_items": len(dev.texts), "fit_clusters": int(labels.max() + 1),
                               "empty_queries_dropped": dropped,
                               "query_source": "test questions not in dev (in the collection)"}


def _flickr(dimensions, seed, data_dir):
    from learnsim.datasets import load_flickr8k_captions

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train = load_flickr8k_captions(data_dir, split="train")
        test = load_flickr8k_captions(data_dir, split="test")
        every = load_flickr8k_captions(data_dir)
    vec = _vectorizer()
    X_train = vec.fit_transform(train.data)
    model = _film(dimensions, seed).fit(X_train, train.target)
    X = vec.transform(every.data)
    # the test captions' rows in the caption file's order (captions can repeat: match by image)
    test_images = set(test.image_ids)
    rows = np.flatnonzero([every.image_ids[t] in test_images for t in every.target])
    queries, dropped = _queries_of(X, rows, np.random.default_rng(seed))
    return X, model, queries, {"fit_items": len(train.data), "empty_queries_dropped": dropped,
                               "query_source": "test captions (in the collection)"}


_REAL = {"20ng": _newsgroups, "quora": _quora, "flickr": _flickr}


def _prepare_real(name, dimensions, seed, data_dir):
    X, model, queries, info = _REAL[name](dimensions, seed, data_dir)
    E = _unit_rows_float32(model.transform(X))
    info.update(film_iterations=int(model.n_iter_), svd_rank=int(model.svd_rank_), n_terms=int(X.shape[1]))
    return E, E[queries], queries, info


# --------------------------------------------------------------------------- synthetic sentences
def _prepare_synthetic(n, fit_n, dimensions, seed, out_path, log):
    """Embed ``n`` + SYNTHETIC_QUERY_POOL synthetic sentences; the collection goes straight to
    ``out_path`` (a .npy written block by block, so 1M rows never exist twice in memory)."""
    from bench_film_scale import make_sentence_corpus, make_supervision

    total = n + SYNTHETIC_QUERY_POOL
    if fit_n > n:
        fit_n = n
    t0 = time.perf_counter()
    corpus = make_sentence_corpus(total, random_state=seed)
    X = corpus["X"]
    generate_s = time.perf_counter() - t0
    log(f"  generated {total:,} sentences ({X.shape[1]:,} terms, {X.nnz:,} non-zeros) in {generate_s:.1f} s")

    # FILM learns from the first fit_n sentences (sentences are grouped by cluster, so whole clusters)
    t0 = time.perf_counter()
    n_clusters = int(corpus["cluster"][fit_n - 1]) + 1
    sub = {"X": X[:fit_n], "cluster": corpus["cluster"][:fit_n], "topic": corpus["topic"][:fit_n],
           "n_clusters": n_clusters}
    triplets = make_supervision(sub, random_state=seed + 1)["train"]
    model = _film(dimensions, seed, batch_size=SYNTHETIC_BATCH_SIZE).fit(sub["X"], triplets)
    fit_s = time.perf_counter() - t0
    log(f"  FILM (d={dimensions}, M-FILM {SYNTHETIC_BATCH_SIZE} triplets/iteration) on {fit_n:,} sentences, "
        f"{len(triplets):,} triplets: {fit_s:.1f} s, {model.n_iter_} iterations")

    rng = np.random.default_rng(seed + 2)
    queries = np.sort(fit_n + rng.choice(total - fit_n, SYNTHETIC_QUERY_POOL, replace=False))
    is_query = np.zeros(total, dtype=bool)
    is_query[queries] = True
    rows = np.flatnonzero(~is_query)
    t0 = time.perf_counter()
    out = np.lib.format.open_memmap(out_path, mode="w+", dtype=np.float32, shape=(n, dimensions))
    for start in range(0, n, TRANSFORM_BLOCK):
        block = rows[start:start + TRANSFORM_BLOCK]
        out[start:start + block.size] = _unit_rows_float32(model.transform(X[block]))
    out.flush()
    del out
    Q = _unit_rows_float32(model.transform(X[queries]))[rng.permutation(queries.size)]
    transform_s = time.perf_counter() - t0
    log(f"  embedded {total:,} sentences in {transform_s:.1f} s")
    info = {"fit_items": fit_n, "fit_triplets": int(len(triplets)), "film_iterations": int(model.n_iter_),
            "svd_rank": int(model.svd_rank_), "n_terms": int(X.shape[1]), "generate_seconds": generate_s,
            "film_fit_seconds": fit_s, "transform_seconds": transform_s, "empty_queries_dropped": 0,
            "query_source": f"{SYNTHETIC_QUERY_POOL:,} held-out sentences (not in the collection)"}
    return Q, info


# --------------------------------------------------------------------------- cache
def set_dir(workdir, name, dimensions, seed, n=None):
    """The cache folder of one vector set."""
    suffix = f"-n{n}" if name == "synthetic" else ""
    return Path(workdir) / f"{name}-d{dimensions}{suffix}-s{seed}"


def check_vectors(X, name, n_rows=None, dimensions=None):
    """Raise a ValueError naming the problem unless X is a 2-D float32 array of unit or zero rows
    (of the given shape)."""
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype != np.float32:
        raise ValueError(f"{name}: expected a 2-D float32 array; got "
                         f"{getattr(X, 'dtype', type(X).__name__)} of shape {getattr(X, 'shape', None)}")
    if (n_rows is not None and X.shape[0] != n_rows) or (dimensions is not None and X.shape[1] != dimensions):
        raise ValueError(f"{name}: shape {X.shape}, expected ({n_rows}, {dimensions})")
    for start in range(0, X.shape[0], TRANSFORM_BLOCK):
        block = np.asarray(X[start:start + TRANSFORM_BLOCK], dtype=np.float64)
        if not np.isfinite(block).all():
            raise ValueError(f"{name}: non-finite values in rows {start}..{start + block.shape[0] - 1}")
        norms = np.linalg.norm(block, axis=1)
        bad = np.flatnonzero((norms != 0) & (np.abs(norms - 1.0) > _NORM_TOLERANCE))
        if bad.size:
            raise ValueError(f"{name}: row {start + bad[0]} has norm {norms[bad[0]]:.6f}; rows must have "
                             "unit length (or be zero)")
    return X


def load_set(folder):
    """(collection, queries, info) of a cached set, checked; None when it is absent or incomplete."""
    folder = Path(folder)
    info_path = folder / "info.json"
    if not info_path.is_file():
        return None
    try:
        info = json.loads(info_path.read_text(encoding="utf-8"))
        n, d, q = int(info["n"]), int(info["dimensions"]), int(info["n_queries"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{info_path} is not a vector set's info file ({exc}); delete {folder} to rebuild it")
    try:
        X = np.load(folder / "collection.npy", mmap_mode="r", allow_pickle=False)
        Q = np.load(folder / "queries.npy", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{folder}: the cached vectors cannot be read ({exc}); delete the folder to rebuild them")
    check_vectors(X, str(folder / "collection.npy"), n, d)
    check_vectors(Q, str(folder / "queries.npy"), q, d)
    # the whole collection in memory: every backend and the exact search read it many times
    return np.ascontiguousarray(X), Q, info


def prepare(name, workdir, *, dimensions=100, seed=0, n=1_000_000, fit_n=DEFAULT_FIT_N, data_dir=None,
            log=print):
    """The (collection, queries, info) of vector set ``name``, from the cache or built and cached.

    Parameters
    ----------
    name : {"20ng", "quora", "flickr", "synthetic"}
    workdir : path-like
        Cache folder (see the module docstring).
    dimensions : int, default=100
        FILM's ``n_components``.
    seed : int, default=0
        Seeds FILM, the query order and the synthetic corpus.
    n, fit_n : int
        ``synthetic`` only: the collection size and the sentences FILM is fitted on.
    data_dir : path-like, optional
        Where the corpora are (:func:`learnsim.datasets.find_data_dir`).
    log : callable
        Progress messages.

    Returns
    -------
    collection : ndarray (n_items, dimensions), float32, unit rows
    queries : ndarray (n_queries, dimensions), float32, in random order
    info : dict
        Sizes, where the queries come from, the preparation's seconds.

    Raises
    ------
    FileNotFoundError
        When a real corpus is absent (the caller skips it).
    """
    if name not in CORPORA:
        raise ValueError(f"unknown vector set {name!r}; use one of {', '.join(CORPORA)}")
    if not isinstance(dimensions, int) or dimensions < 1:
        raise ValueError(f"dimensions must be a positive int; got {dimensions!r}")
    if name == "synthetic" and (n < 100 or fit_n < 100):
        raise ValueError(f"the synthetic set needs n and fit_n >= 100; got n={n}, fit_n={fit_n}")
    folder = set_dir(workdir, name, dimensions, seed, n)
    cached = load_set(folder)
    if cached is not None:
        info = cached[2]
        if name != "synthetic" or (info.get("fit_items") == min(fit_n, n)
                                   and info["n_queries"] == SYNTHETIC_QUERY_POOL):
            log(f"{name}: cached vectors in {folder}")
            return cached
        log(f"{name}: the cached vectors in {folder} were made with other settings (FILM fitted on "
            f"{info.get('fit_items')} sentences, {info['n_queries']} queries); rebuilding them")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "info.json").unlink(missing_ok=True)
    log(f"{name}: preparing FILM vectors -> {folder}")
    t0 = time.perf_counter()
    partial = folder / "collection.partial.npy"
    if name == "synthetic":
        Q, info = _prepare_synthetic(n, fit_n, dimensions, seed, partial, log)
    else:
        from learnsim.datasets import find_data_dir

        E, Q, _, info = _prepare_real(name, dimensions, seed, find_data_dir(data_dir))
        np.save(partial, E)
        n = E.shape[0]
    os.replace(partial, folder / "collection.npy")
    np.save(folder / "queries.npy", Q)
    info.update(name=name, n=int(n), dimensions=dimensions, n_queries=int(Q.shape[0]), seed=seed,
                prepare_seconds=time.perf_counter() - t0)
    (folder / "info.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    log(f"  {n:,} x {dimensions} collection, {Q.shape[0]:,} queries in {info['prepare_seconds']:.1f} s")
    return load_set(folder)
