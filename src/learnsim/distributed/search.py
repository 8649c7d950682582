"""An index built from a Dask collection, one directory per partition, searched by map-reduce.

:meth:`DistributedIndex.build` takes the collection statistics of a fitted pipeline by one
map-reduce pass (term-weight models only: the other families take nothing from the
collection), then vectorises every partition on a worker and writes its rows (a
:mod:`learnsim.index` segment) and its texts to a directory of its own. :meth:`DistributedIndex.search`
computes the query rows once on the driver, scores each partition on a worker (its k best,
ties to the lower position, with the kernels of :mod:`learnsim.index`) and merges the partial
lists in a tree into the global k best: the hits of :meth:`learnsim.index.Index.search` over the
same texts, to the float rounding of the rows.

Layout of a distributed index directory::

    manifest.json         format, the model's checksum, the scoring, the partitions (name,
                          rows, offset of their first row), the statistics; written last
    model.npz             the fitted pipeline (a model file, as ``learnsim fit`` writes)
    statistics/<s>.npy    the collection statistics the rows were computed with
    partitions/<name>/    a segment and the partition's texts (learnsim.distributed._partition)

Every worker must see ``path`` (one machine, or a shared file system). A document's position is
its row in the collection (partitions in order); its id is the id given, else ``str(position + 1)``
(:class:`learnsim.index.Index`'s default ids for the same texts).
"""
from __future__ import annotations

import functools
import json
import secrets
import shutil
import time
from pathlib import Path

import numpy as np

from .._utils.files import save_npy, sha256_file
from ..index._arguments import check_k as _check_k, check_texts
from ..index._segments import IndexFormatError, read_manifest, write_json_atomic
from ._dask import SPLIT_EVERY, as_bag, check_split_every, compute, portable, require, tree_reduce
from ._partition import PartitionTexts, merge_best, search_partition, write_partition

__all__ = ["DistributedIndex", "IndexFormatError"]

FORMAT_NAME = "learnsim-distributed-index"
FORMAT_VERSION = 1
_MANIFEST = "manifest.json"
_MODEL = "model.npz"


def _check_queries(queries):
    """(the queries as a list, whether one str was given), by the rules of Index.search."""
    if isinstance(queries, str):
        return check_texts([queries], "query"), True
    return check_texts(queries, "queries"), False


def _prepare_directory(path, overwrite):
    """The directory to build the index for ``path`` in: a new sibling of it, moved into place
    by :func:`_move_into_place` once the index is whole, so that a build that fails leaves
    what was at ``path`` as it was. ``path`` must be empty, or, with ``overwrite``, hold a
    distributed index (its manifest says so: any folder holding a file named manifest.json
    was wiped, a persistent :class:`learnsim.index.Index` too)."""
    if path.exists():
        if not path.is_dir():
            raise FileExistsError(f"{path} exists and is not a directory")
        if any(path.iterdir()):
            if not overwrite:
                raise FileExistsError(f"{path} is not empty; pass overwrite=True to replace an index there")
            if not _holds_distributed_index(path):
                raise FileExistsError(f"{path} is not empty and holds no distributed index (its {_MANIFEST} is "
                                      "missing or not one); refusing to overwrite it")
    building = path.parent / f".{path.name}.building-{secrets.token_hex(4)}"
    building.mkdir(parents=True)
    (building / "partitions").mkdir()
    (building / "statistics").mkdir()
    return building


def _holds_distributed_index(path):
    try:
        with open(path / _MANIFEST, encoding="utf-8") as fh:
            manifest = json.load(fh)
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("format") == FORMAT_NAME


def _move_into_place(building, path):
    """Put the whole index ``building`` at ``path``, the index there before removed after."""
    old = None
    if path.exists():
        old = path.parent / f".{path.name}.old-{secrets.token_hex(4)}"
        path.rename(old)
    building.rename(path)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _whole_partition(texts, partition):
    """A partition's texts (``partition``: its number, a one-item list), checked for lone surrogates."""
    from ._partition import whole_strings

    return whole_strings(texts, "texts", partition[0])


def _statistics_pass(bag, pipeline, split_every, client):
    """The pipeline's collection statistics of the whole bag, by map-reduce: the collection's
    vocabulary where the model scores with it (:meth:`learnsim.pipeline.Pipeline.collection_statistics`,
    issue 32), then the term weightings' statistics over it."""
    from ..linklearn import LearnedBM25
    from .text import _combine_statistics, statistics_from_sums

    dask = require("dask")
    scorer = pipeline.scorer
    statistics, vec = {}, pipeline.vectorizer
    if pipeline.uses_collection_vocabulary:
        # the vectoriser of the lexical part: the model's "lexical" part where its search mixes one in
        statistics = _vocabulary_pass(bag, pipeline._lexical_base(), split_every, client)
        vec = pipeline.lexical_vectorizer(statistics)
    if scorer.kind != "term_weights":
        return statistics
    counts = isinstance(scorer.metric, LearnedBM25)
    vec_d = dask.delayed(portable(vec))
    parts = [dask.delayed(_partition_statistics)(p, vec_d, i, counts) for i, p in enumerate(bag.to_delayed(optimize_graph=False))]
    df, n, total = compute(tree_reduce(parts, _combine_statistics, split_every), client)
    statistics.update(statistics_from_sums(scorer, df, n, total))
    return statistics


def _vocabulary_pass(bag, vectorizer, split_every, client):
    """The collection vocabulary of the whole bag (:func:`learnsim.text.collection_vocabulary`),
    by map-reduce of each partition's {term: document frequency}, documents and length."""
    dask = require("dask")
    vec_d = dask.delayed(portable(vectorizer))
    parts = [dask.delayed(_partition_vocabulary)(p, vec_d, i) for i, p in enumerate(bag.to_delayed(optimize_graph=False))]
    df, n, total = compute(tree_reduce(parts, _combine_vocabularies, split_every), client)
    if n == 0:
        raise ValueError("texts is empty: an index needs at least one text")
    terms = sorted(df)
    # surrogatepass, as collection_vocabulary writes them: a custom token pattern's term may hold
    # a lone surrogate, of text decoded with surrogateescape (strict UTF-8 raised on it)
    encoded = [t.encode("utf-8", "surrogatepass") for t in terms]
    offsets = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return {"vocabulary": np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), "vocabulary_offsets": offsets,
            "vocabulary_df": np.array([df[t] for t in terms], dtype=np.int64),
            "vocabulary_n_documents": np.asarray(n, dtype=np.int64), "vocabulary_avgdl": np.asarray(total / n)}


def _partition_vocabulary(texts, vec, partition):
    from ..text import collection_terms, collection_vocabulary
    from .text import _checked_texts

    texts = _checked_texts(texts, partition)
    if not texts:
        return {}, 0, 0.0
    stats = collection_vocabulary(vec, texts)
    n = int(stats["vocabulary_n_documents"])
    return (dict(zip(collection_terms(stats), stats["vocabulary_df"].tolist())), n,
            float(stats["vocabulary_avgdl"]) * n)


def _combine_vocabularies(parts):
    df, n, total = {}, 0, 0.0
    for df_i, n_i, total_i in parts:
        for term, count in df_i.items():
            df[term] = df.get(term, 0) + count
        n += n_i
        total += total_i
    return df, n, total


def _partition_statistics(texts, vec, partition, counts):
    from .text import block_statistics, vectorize_partition

    return block_statistics(vectorize_partition(texts, vec, partition), counts)


class DistributedIndex:
    """A collection indexed partition by partition with Dask, searched by map-reduce.

    Build one with :meth:`build`, open it with :meth:`open`. See the module notes for the
    layout. The index is written once (no adds or deletes: build a
    :class:`learnsim.index.Index` for a collection that changes).

    Attributes
    ----------
    path : Path
    manifest : dict
    scoring : str
        The name of the scoring (``learnsim.scorer.Scorer.name``).
    column : {"similarity", "score", "distance"}
        What a hit's ``score`` is.
    higher_is_closer : bool

    Examples
    --------
    A model fitted on six texts in three topics (too few to check a learned model, so the fit
    ends as the strongest baseline, BM25 here, and warns), a collection of them in two partitions, indexed in a temporary directory and
    searched, all computed in this process (the synchronous scheduler):

    >>> import os, tempfile
    >>> import dask
    >>> import dask.bag as db
    >>> import learnsim
    >>> from learnsim.distributed import DistributedIndex
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])
    >>> bag = db.from_sequence(texts, npartitions=2)
    >>> ids = db.from_sequence(["a", "b", "c", "d", "e", "f"], npartitions=2)
    >>> path = os.path.join(tempfile.mkdtemp(), "dindex")
    >>> with dask.config.set(scheduler="synchronous"):
    ...     index = DistributedIndex.build(path, model, bag, ids=ids)
    ...     hits = index.search("I forgot my password", k=2)
    >>> index
    DistributedIndex('.../dindex', 6 documents in 2 partitions, baseline: BM25)
    >>> len(index), index.column
    (6, 'score')
    >>> [(h["rank"], h["id"], h["text"]) for h in hits][0]
    (1, 'b', 'forgot my password')

    The hits of a :class:`learnsim.index.Index` of the same texts:

    >>> from learnsim.index import Index
    >>> local = Index.build(os.path.join(tempfile.mkdtemp(), "index"), model, texts,
    ...                     ids=["a", "b", "c", "d", "e", "f"])
    >>> [h["id"] for h in local.search("I forgot my password", k=2)] == [h["id"] for h in hits]
    True
    >>> local.close()
    >>> with dask.config.set(scheduler="synchronous"):
    ...     reopened = DistributedIndex.open(path)
    ...     batch = reopened.search(["password", "refund"], k=1)
    >>> [found[0]["id"] for found in batch]
    ['a', 'd']
    """

    @classmethod
    def build(cls, path, pipeline, texts, ids=None, *, dtype=None, overwrite=False, split_every=SPLIT_EVERY,
              client=None):
        """Index a Dask collection of texts under ``pipeline`` in a new directory ``path``.

        Parameters
        ----------
        path : str or Path
            A directory that does not exist or is empty (or a distributed index, with
            ``overwrite=True``), visible to every worker.
        pipeline : learnsim.pipeline.Pipeline or str or Path
            The fitted pipeline, or a model file written by ``learnsim fit``.
        texts : dask.bag.Bag of str, or a Dask dataframe column
        ids : dask.bag.Bag of str, optional
            Unique non-empty ids, partitioned like ``texts`` (same number of partitions and of
            items in each); by default ``str(position + 1)``.
        dtype : {"float32", "float64"}, optional
            Of the stored rows; by default as :meth:`learnsim.index.Index.build` chooses
            (float64 for the distance models, float32 otherwise).
        overwrite : bool, default=False
        split_every : int, default=8
            Partial results combined per task of the statistics' tree reduction.
        client : distributed.Client, optional
            Where to compute (default: Dask's current scheduler).

        Returns
        -------
        DistributedIndex

        Raises
        ------
        TypeError
            ``texts`` or ``ids`` is not a Bag, an item is not a str.
        ValueError
            The collection is empty, ``ids`` are partitioned unlike the texts or repeat an id.
        """
        from ..pipeline import Pipeline

        dask = require("dask")
        path = Path(path)
        split_every = check_split_every(split_every)
        if not isinstance(pipeline, Pipeline):
            if not isinstance(pipeline, (str, Path)):
                raise TypeError(f"pipeline must be a learnsim Pipeline or a model file; got {type(pipeline).__name__}")
            pipeline = Pipeline.load(pipeline)
        # each partition's texts checked as they are read, before the statistics pass (a text with a
        # lone surrogate refused at once, as Index.build refuses it; write_partition checks again)
        bag = as_bag(texts)
        n_parts = bag.npartitions
        bag = bag.map_partitions(_whole_partition, require("dask.bag").range(n_parts, npartitions=n_parts))
        id_parts = None
        if ids is not None:
            id_bag = as_bag(ids, "ids")
            if id_bag.npartitions != bag.npartitions:
                raise ValueError(f"ids has {id_bag.npartitions} partitions and texts {bag.npartitions}: ids must "
                                 "be partitioned like the texts")
            id_parts = id_bag.to_delayed(optimize_graph=False)
        scorer = pipeline.scorer
        dtype = np.dtype(dtype if dtype is not None else ("float64" if scorer.kind == "distance" else "float32"))
        if dtype not in (np.float32, np.float64):
            raise ValueError(f"dtype must be float32 or float64; got {dtype}")
        building = _prepare_directory(path, overwrite)
        try:
            started = time.time()
            statistics = _statistics_pass(bag, pipeline, split_every, client)
            for name, arr in statistics.items():
                save_npy(building / "statistics" / f"{name}.npy", np.asarray(arr))
            pipeline.save(building / _MODEL)
            pipe_d = dask.delayed(portable(pipeline))
            stats_d = dask.delayed(statistics)
            tasks = [dask.delayed(write_partition)(p, None if id_parts is None else id_parts[i], pipe_d,
                                                              stats_d, str(building / "partitions"), f"p{i:06d}",
                                                              dtype.name, i)
                     for i, p in enumerate(bag.to_delayed(optimize_graph=False))]
            written = compute(tasks, client)
            entries, offset = [], 0
            for entry, _ in written:
                if entry["n"]:
                    entries.append(dict(entry, offset=offset))
                offset += entry["n"]
            if offset == 0:
                raise ValueError("texts is empty: an index needs at least one text")
            if ids is not None:
                _check_unique_ids(building, entries, written)
            first = entries[0]["name"]
            manifest = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION,
                        "model_sha256": sha256_file(building / _MODEL), "kind": scorer.kind, "scoring": scorer.name,
                        "column": scorer.column, "higher_is_closer": bool(scorer.higher_is_closer),
                        "method": pipeline.method, "dtype": dtype.name, "partitions": entries,
                        "n_documents": offset, "ids": ids is not None, "statistics": sorted(statistics),
                        "n_features": _segment_meta(building, first).get("n_features"),
                        "dense_dim": _segment_meta(building, first).get("dense_dim"),
                        "created": time.time(), "build_seconds": time.time() - started}
            write_json_atomic(building / _MANIFEST, manifest)
            _move_into_place(building, path)
        except BaseException:
            shutil.rmtree(building, ignore_errors=True)
            raise
        return cls.open(path, _pipeline=pipeline)

    @classmethod
    def open(cls, path, *, _pipeline=None):
        """Open the distributed index at ``path``; its manifest and partitions are checked
        (IndexFormatError, a ValueError, for a damaged or edited one)."""
        self = cls.__new__(cls)
        self.path = Path(path)
        if not (self.path / _MANIFEST).is_file():
            raise FileNotFoundError(f"{self.path} holds no learnsim distributed index (no {_MANIFEST})")
        self._pipeline = _pipeline
        self._texts = {}
        self._load()
        return self

    def _load(self):
        from ._partition import open_segment

        m = read_manifest(self.path, _MANIFEST, FORMAT_NAME, FORMAT_VERSION, what="distributed index")
        for key, kind in (("partitions", list), ("n_documents", int), ("kind", str), ("dtype", str),
                          ("model_sha256", str), ("ids", bool), ("statistics", list)):
            if not isinstance(m.get(key), kind) or isinstance(m.get(key), bool) != (kind is bool):
                raise IndexFormatError(f"{self.path}: {_MANIFEST} has no valid {key!r}")
        if m["kind"] not in ("term_weights", "cosine", "distance"):
            raise IndexFormatError(f"{self.path}: unknown scoring kind {m['kind']!r}")
        if m["dtype"] not in ("float32", "float64"):
            raise IndexFormatError(f"{self.path}: {_MANIFEST} has dtype {m['dtype']!r}, not float32 or float64")
        for key in ("n_features", "dense_dim"):
            v = m.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise IndexFormatError(f"{self.path}: {_MANIFEST} has no valid {key!r}")
        offset = 0
        for e in m["partitions"]:
            if not isinstance(e, dict) or e.get("offset") != offset or isinstance(e.get("n"), bool) \
                    or not isinstance(e.get("n"), int) or e["n"] < 1:
                raise IndexFormatError(f"{self.path}: the partitions of {_MANIFEST} do not follow one another "
                                       f"(entry {e!r} at row {offset})")
            offset += e["n"]
        if offset != m["n_documents"] or not m["partitions"]:
            raise IndexFormatError(f"{self.path}: the partitions hold {offset} rows, the manifest says "
                                   f"{m['n_documents']}")
        self.manifest = m
        self.kind = m["kind"]
        self.scoring, self.column = m.get("scoring", ""), m.get("column", "score")
        self.higher_is_closer = bool(m.get("higher_is_closer", True))
        for e in m["partitions"]:
            # shapes and dtypes against the manifest (mmap: cheap); values are checked where scored
            open_segment(self.path, e, m)
        self._offsets = np.asarray([e["offset"] for e in m["partitions"]], dtype=np.int64)

    def __len__(self):
        return int(self.manifest["n_documents"])

    def __repr__(self):
        return (f"DistributedIndex({str(self.path)!r}, {len(self)} documents in {len(self.manifest['partitions'])} "
                f"partitions, {self.manifest.get('method')}: {self.scoring})")

    @property
    def pipeline(self):
        """The fitted pipeline (loaded on first use; its checksum is checked against the manifest)."""
        if self._pipeline is None:
            from ..pipeline import Pipeline

            model = self.path / _MODEL
            if not model.is_file() or sha256_file(model) != self.manifest["model_sha256"]:
                raise IndexFormatError(f"{model} is missing or does not match the checksum in the manifest "
                                       "(edited or damaged)")
            self._pipeline = Pipeline.load(model)
        return self._pipeline

    @property
    def statistics(self):
        """The collection statistics the rows were computed with (a dict of arrays)."""
        out = {}
        for name in self.manifest["statistics"]:
            if not isinstance(name, str) or not name.isidentifier():
                raise IndexFormatError(f"{self.path}: invalid statistics name {name!r}")
            from ..persistence import load_npy_file

            try:
                # header checked against the size first (a forged one: MemoryError before)
                arr = load_npy_file(self.path / "statistics" / f"{name}.npy")
            except (OSError, ValueError) as exc:
                raise IndexFormatError(f"{self.path}: cannot read statistics {name!r}: {exc}") from None
            if arr.dtype.kind not in "fiu" or not np.isfinite(arr).all():
                raise IndexFormatError(f"{self.path}: statistics {name!r} are not finite numbers")
            out[name] = arr
        return out

    def query_rows(self, queries):
        """The query rows of ``queries`` (a :class:`learnsim.index._query.QueryRows`), computed
        on the driver with the pipeline and the build's statistics."""
        from ..index._query import QueryRows

        p = self.pipeline
        return QueryRows.from_rows(p.query_rows(list(queries), self.statistics or None))

    def search(self, queries, k=10, *, split_every=SPLIT_EVERY, client=None):
        """The k documents closest to each query: every partition's k best (on the workers),
        merged in a tree.

        Parameters
        ----------
        queries : str or list of str
        k : int, default=10
        split_every : int, default=8
            Partial top-k lists merged per task.
        client : distributed.Client, optional
            Where to compute (default: Dask's current scheduler).

        Returns
        -------
        list of dict, or a list of them for a list of queries
            Each hit: ``rank``, ``id``, ``score`` (the similarity, or the distance for the
            distance models: see :attr:`column`), ``text``; best first, ties to the lower position.
            A model with a re-ranker (``pipeline.rerank``) re-scores the first stage's best
            ``max(k, n_candidates)`` as :meth:`learnsim.index.Index.search` does: ``score`` is the
            re-ranker's probability, with ``first_stage_rank`` and ``first_stage_score``.
        """
        dask = require("dask")
        queries, single = _check_queries(queries)
        k = _check_k(k)
        split_every = check_split_every(split_every)
        if not queries:
            return []
        # a lone 猫 read as the terms holding it, as Index.search and Pipeline.search read it (it
        # was a term no document has: no hits, where they find the documents holding 子猫, 猫が)
        queries = self._read_lone_characters(queries)
        rows = self.query_rows(queries)
        rows_d = dask.delayed(rows)
        # a model with a re-ranker (a FILM fitted on pairs) searches as Index.search does: the
        # first stage's max(k, n_candidates) best, re-scored, the best k of them (the first
        # stage's k best alone, in its order and with its scores, were answered before)
        reranker = self.pipeline.rerank
        depth = k if reranker is None else max(k, int(reranker.n_candidates))
        m = {key: self.manifest.get(key) for key in ("kind", "n_features", "dense_dim")}
        parts = [dask.delayed(search_partition)(str(self.path), e, m, rows_d, depth)
                 for e in self.manifest["partitions"]]
        merge = functools.partial(merge_best, k=depth, distance=self.kind == "distance", dtype=self.manifest["dtype"])
        found = compute(tree_reduce(parts, merge, split_every), client)
        # a query with no word the model knows gets no hits, as Index.search gives it
        results = [[] if blank else self._hits(pos, vals) for (pos, vals), blank in zip(found, rows.blank())]
        if reranker is not None:
            from ..pipeline import rerank_hits

            results = [rerank_hits(reranker, query, hits, [h["text"] for h in hits])[:k] if hits else hits
                       for query, hits in zip(queries, results)]
        return results[0] if single else results

    def _read_lone_characters(self, queries):
        """``queries`` with each lone character of a spaceless script that the model's
        vocabularies (its lexical part's over the collection, its own) do not hold read as the
        terms holding it (:class:`learnsim.text.LoneCharacters`), as
        ``Pipeline.searcher(...).read_lone_characters`` reads them; the queries themselves where
        none is one, and for a model without a vocabulary (an encoder, hashed columns)."""
        if all(q.isascii() for q in queries):
            return queries
        reader = getattr(self, "_lone", None)
        if reader is None:
            from ..pipeline import lone_character_reader

            p = self.pipeline
            self._lone = reader = lone_character_reader(p.lexical_vectorizer(self.statistics or None), p.vectorizer)
        return [reader(q) for q in queries] if reader else queries

    def _partition_texts(self, p):
        texts = self._texts.get(p)
        if texts is None:
            e = self.manifest["partitions"][p]
            texts = self._texts[p] = PartitionTexts(self.path / "partitions" / e["name"], e["n"])
            if (texts.ids is not None) != self.manifest["ids"]:
                raise IndexFormatError(f"{self.path}: partition {e['name']!r} has ids where the manifest says "
                                       f"{'it has' if self.manifest['ids'] else 'none'}")
        return texts

    def _hits(self, positions, values):
        hits = []
        for rank, (pos, v) in enumerate(zip(positions, values)):
            pos = int(pos)
            p = int(np.searchsorted(self._offsets, pos, side="right")) - 1
            texts = self._partition_texts(p)
            local = pos - int(self._offsets[p])
            doc_id = texts.id(local) if self.manifest["ids"] else str(pos + 1)
            v = float(v)
            hits.append({"rank": rank + 1, "id": doc_id, "score": v if self.higher_is_closer else -v,
                         "text": texts.text(local)})
        return hits


def _segment_meta(path, name):
    with open(Path(path) / "partitions" / name / "segment.json", encoding="utf-8") as fh:
        return json.load(fh)


def _check_unique_ids(path, entries, written):
    """Refuse a repeated id: hashes of all the ids first, then the ids whose hashes repeat, read back."""
    hashes = [h for _, h in written if h is not None]
    allh = np.concatenate(hashes) if hashes else np.zeros(0, dtype=np.int64)
    uniq, counts = np.unique(allh, return_counts=True)
    repeated = set(uniq[counts > 1].tolist())
    if not repeated:
        return
    seen = set()
    for e in entries:
        texts = PartitionTexts(Path(path) / "partitions" / e["name"], e["n"])
        local = _id_hashes_of(texts)
        for i in np.flatnonzero(np.isin(local, list(repeated))):
            x = texts.id(int(i))
            if x in seen:
                raise ValueError(f"id {x!r} is given twice")
            seen.add(x)


def _id_hashes_of(texts):
    from ._partition import _id_hashes

    return _id_hashes([texts.id(i) for i in range(texts.texts[1].shape[0] - 1)])
