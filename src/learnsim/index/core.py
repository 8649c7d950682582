"""A persistent, incremental index of a collection under a fitted pipeline.

Layout of an index directory::

    manifest.json        format, version, the pipeline's checksum, the scoring, the segments,
                         the last sequence number they cover, the statistics and plan in use
    model.npz            the fitted pipeline (a model file, as ``learnsim fit`` writes): the served
                         one, or a copy of it once the manifest names a version file ("model_file")
    versions/            every model the index served or was offered (learnsim.index._versions):
                         versions.json and v<N>.npz; see :meth:`Index.promote`
    docs.sqlite          ids, texts and metadata (learnsim.index._store)
    segments/<name>/     rows of documents as .npy arrays (learnsim.index._segments)
    statistics-<g>/      the collection statistics the rows were computed with (idf, avgdl)
    query-<g>/           the query plan (learnsim.index._query), when the pipeline has one
    lock                 held by a writer (add, delete, update, compact, reindex)

Durability: ``add`` vectorises the texts (bad input fails here, before anything is written),
commits them to SQLite (WAL, synchronous=FULL: once ``add`` returns the documents survive any
crash), then writes their rows as a new segment and the manifest, each atomically. Opening
scores the documents the manifest does not cover (added before a crash) from their texts, and
the next writer writes them as a segment. Deletes are tombstones in SQLite, read at open.

Collection statistics (the idf and mean length of a term weighting) are those of the build
until :meth:`Index.reindex`; :meth:`Index.info` reports how many documents were added since.

Integrity (every file checksummed, damage an IndexDamagedError naming the file, readers racing
writers): see :mod:`learnsim.index._integrity`.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import threading
import time
from pathlib import Path

import numpy as np

from .._inputs import index_inputs
from .._utils.files import sha256_file
from .._utils.inputs import as_path, check_flag as _check_flag
from .._utils.progress import enabled_for, progress, stage_for, with_show_progress_bar
from ._arguments import check_ids as _check_ids, check_k as _check_k, \
    check_metadatas as _check_metadatas, check_texts as _check_texts, doc_id as _doc_id, ids_to_delete as _ids_to_delete, \
    update_arguments as _update_arguments
from ._ann import AnnSearch, ann_config, check_ann_config, search_info, write_segment_of
from ._batch import best_k_dense_batch, dense_batch_applies
from ._build import building, check_target, no_index, tree_bytes as _tree_bytes
from ._chroma_words import chromadb_keywords
from ._integrity import Lock as _Lock, check_plan_dictionary, checked_up_to, model_encoder, load_plan, load_statistics, plan_checksums as _plan_checksums, read_retrying, \
    read_store, plan_of as _plan_of, retry_if_moved, sqlite_guarded as _sqlite_guarded, statistics_key, analysis_info, \
    write_manifest as _write_manifest, collection_rows as _collection
from ._match import exact_copy_hits, matched_hits
from ._manifest_fields import invalid_field
from ._new_words import added_rows, embeddings_of as _embeddings_of, warn_new_words
from .._utils.files import save_npy
from ._scan import MemorySegment, SegmentRun, best_k, scanned_segments
from ._placeless import warn_placeless, zero_rows
from ._docs_writer import RowsFromTexts
from ._segment_docs import docs_layout, documents_at, merged_docs
from ._segments import FORMAT_NAME, FORMAT_VERSION, IndexDamagedError, IndexFormatError, Segment, check_seal, \
    load_json, merged_rows, read_manifest, rows_of
from ._filter_rows import allowed_rows
from ._kernels import searching_often
from ._reload import kept_store, load_is_behind, ordered_seqs
from ._store import DocumentCache, DocumentStore, check_filter
from . import _versions
from ._versioned import ModelVersions
from ._reads import DocumentReads
from ._verify import verify_locked

__all__ = ["Index", "IndexFormatError", "IndexDamagedError"]

_MANIFEST = "manifest.json"
_MODEL = "model.npz"
_DOCS = "docs.sqlite"
# documents vectorised (and written as one segment) at a time when building or reindexing
SEGMENT_ROWS = 100_000
# adds of fewer documents than this make "small" segments; MERGE_AT small ones in a row are merged
SMALL_SEGMENT_ROWS = 10_000
MERGE_AT = 8
# documents the plan is checked on at build, their first characters (a query's length: a 60 MB one was read twice)
_PLAN_CHECK, _PLAN_CHECK_CHARS = 64, 1 << 16


class Index(ModelVersions, DocumentReads):
    """A collection searched under a fitted pipeline, kept on disk and grown in place.

    Build one with :meth:`build`, open it with :meth:`open` (well under a second: the rows are
    read, and their checksums checked, at their first use, and a search needs neither
    scikit-learn nor the pipeline when the index has a query plan). See the module notes for the
    layout, the durability and the integrity rules; :meth:`verify` checks every file.

    Attributes
    ----------
    path : Path
    scoring : str
        The name of the scoring (``learnsim.scorer.Scorer.name``).
    column : {"similarity", "score", "distance"}
        What a hit's ``score`` is.
    higher_is_closer : bool

    Examples
    --------
    A model fitted on nine support tickets in three topics (too few to check a learned model,
    so the fit ends as the strongest baseline, BM25 here, and warns), an index of them in a
    temporary directory, and a search:

    >>> import os, tempfile
    >>> import learnsim
    >>> from learnsim.index import Index
    >>> texts = ["how do I reset my password", "password reset link not working",
    ...          "forgot my password", "invoice shows the wrong amount", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start",
    ...          "the app closes when I open it", "crash after the update"]
    >>> topics = ["account"] * 3 + ["billing"] * 3 + ["app"] * 3
    >>> model = learnsim.fit(texts, clusters=topics)
    >>> path = os.path.join(tempfile.mkdtemp(), "tickets")
    >>> index = Index.build(path, model, texts, metadata=[{"topic": t} for t in topics])
    >>> len(index), index.column
    (9, 'score')
    >>> hit = index.search("I forgot my password", k=1)[0]
    >>> hit["rank"], hit["id"], hit["text"], hit["metadata"]
    (1, '3', 'forgot my password', {'topic': 'account'})
    >>> [h["metadata"]["topic"] for h in index.search("charge", k=2, filter={"topic": "billing"})]
    ['billing', 'billing']
    >>> index.add(["the app freezes"], metadata=[{"topic": "app"}])
    ['10']
    >>> index.delete(["1", "2"]), len(index)
    (2, 8)
    >>> index.verify()["ok"]
    True
    >>> index.close()
    >>> Index.open(path)
    Index('.../tickets', 8 documents, baseline: BM25)
    """

    # ------------------------------------------------------------------ building and opening
    @classmethod
    @chromadb_keywords
    @with_show_progress_bar
    def build(cls, path, pipeline, texts, ids=None, metadata=None, *, text=None, columns=None, dtype=None,
              overwrite=False, ann="auto"):
        """Index ``texts`` under ``pipeline`` in a new directory ``path``.

        ``texts``, ``ids`` and ``metadata`` take the forms of learnsim's one input rule
        (:mod:`learnsim._inputs`, as :func:`learnsim.fit`): lists, numpy arrays and pandas
        Series; a pandas DataFrame or a Hugging Face ``datasets.Dataset`` as ``texts``, with
        its text, id and metadata columns; what :func:`learnsim.datasets.read_documents`
        returns; a documents file as a :class:`pathlib.Path` (.tsv, .txt, .csv, .jsonl,
        .parquet), read with its ids and metadata. A ``str`` as texts is refused (a single str),
        never read as a file name.

        Parameters
        ----------
        path : str or Path
            A directory that does not exist or is empty (or any index with ``overwrite=True``).
        pipeline : learnsim.pipeline.Pipeline or str or Path
            The fitted pipeline, or a model file written by ``learnsim fit``.
        texts : list of str, table, Documents or pathlib.Path
            A table gives its ``text`` column (or ``text=``; a table of one column, that one);
            a missing value (NaN) is a ValueError naming the column and row.
        ids : list of (str, int or None), or a column name, optional
            Unique ids: a str, or an int (numpy integers too; not bool or float) stored and
            returned as its decimal str, so ``7`` and ``"7"`` are the same id (given twice, an
            error). By default (and for a None entry) the sequence number of each document as
            a string ("1", "2", ...), skipping any number a document was given as its id. With a
            table as texts, the name of its id column (default: its ``id`` column, if any).
        metadata : list of dict or None, or column names, optional
            JSON metadata of each document, for filters. With a table as texts: a list of column
            names (each row's metadata is ``{column: value}``, a missing cell left out) or the
            name of a column of dicts (default: its ``metadata`` column, if any).
        text : str or int, optional
            The text column of a table, by name or position.
        columns : dict or str, optional
            The columns of a table by role, ``{"text": ..., "id": ..., "metadata": [...]}``.
        dtype : {"float32", "float64"}, optional
            Of the stored rows. Default: float32 for the cosine and term-weight models (their
            scores are within 1e-6 of float64), float64 for the distance models (a distance
            subtracts squared norms, which float32 would round away for near documents).
        overwrite : bool, default=False
            Replace an existing index at ``path``: the new one is written beside it and swapped in
            once complete, so a failed rebuild keeps the old one (see docs/indexes.md, Rebuilding).
        ann : None, "exact", "auto", str or dict, default="auto"
            Approximate search of the segments of dense rows (FILM, dense distance models) of at
            least ``min_rows`` rows (:data:`learnsim.index._ann.ANN_MIN_ROWS`): "auto" takes the
            first installed backend of ``AUTO_BACKENDS`` (exact when none is), a name of
            :data:`learnsim.ann.ANN_BACKENDS` that one, ``{"backend": name, "min_rows": N,
            **params}`` sets the size and the backend's parameters; None or "exact" never.
            Kept in the manifest for later writes; :meth:`info` reports the search in use.
            Each structure's recall@10 is measured when it is written (200 of its rows and 200
            vectors drawn like them, against an exact scan): under 0.95 its search effort is
            raised, and if that does not reach it the segment stays exact (``info()["search"]``).
        show_progress_bar : bool or None, default=None
            Progress on stderr (the vectorising of the collection and the writing of its rows);
            nothing is drawn for fewer than 1000 texts unless True. None: as
            :func:`learnsim.set_progress` says (by default on a terminal or in a notebook); True or
            False beat it for this call.

        Returns
        -------
        Index

        Examples
        --------
        >>> import os, tempfile
        >>> import learnsim
        >>> from learnsim.index import Index
        >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
        ...          "refund for a double charge", "app crashes on start", "crash after the update"]
        >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: warns
        >>> index = Index.build(os.path.join(tempfile.mkdtemp(), "index"), model, texts,
        ...                     ids=["a", "b", "c", "d", "e", "f"])
        >>> index
        Index('.../index', 6 documents, baseline: BM25)
        """
        from ..pipeline import Pipeline

        path = as_path(path, "path", "the path of the index's directory")
        if not isinstance(pipeline, Pipeline):
            pipeline = as_path(pipeline, "pipeline", "a fitted learnsim Pipeline or the path of a model file")
        source = None if isinstance(pipeline, Pipeline) else str(pipeline)     # version 1's note
        if not isinstance(pipeline, Pipeline):
            pipeline = Pipeline.load(pipeline)
        texts, ids, metadata = index_inputs(texts, ids, metadata, text=text, columns=columns)
        texts = _check_texts(texts, documents=True)
        if not texts:
            raise ValueError("an index needs at least one text to build from (its collection statistics)")
        ids = _check_ids(ids, len(texts))
        metas = _check_metadatas(metadata, len(texts))
        ann = ann_config(ann)       # before an index there is replaced
        check_target(path, overwrite)      # at once; again under the build lock (_build)
        scorer = pipeline.scorer
        if dtype is None:
            dtype = "float64" if scorer.kind == "distance" else "float32"
        dtype = np.dtype(dtype)
        if dtype not in (np.float32, np.float64):
            raise ValueError(f"dtype must be float32 or float64; got {dtype}")
        # vectorise first: a text the pipeline refuses leaves nothing behind
        with _embeddings_of(path, pipeline):
            X, statistics = _collection(pipeline, texts)
        # the new index is written beside the old one and swapped in once complete: a failure
        # anywhere (a refused text, a full disk, Ctrl-C) keeps the old index (_build)
        with building(path, overwrite) as folder, _embeddings_of(path, pipeline):
            (folder / "segments").mkdir()
            pipeline.save(folder / _MODEL)
            manifest = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION,
                        "model_sha256": sha256_file(folder / _MODEL), "kind": scorer.kind, "scoring": scorer.name,
                        "column": scorer.column, "higher_is_closer": bool(scorer.higher_is_closer),
                        "method": pipeline.method, "encoder": model_encoder(pipeline),
                        "dtype": dtype.name, "segments": [],
                        "covered_seq": 0, "statistics_seq": 0, "generation": 0, "created": time.time(), "ann": ann,
                        # searches that re-rank know it without loading the pipeline
                        "rerank": None if pipeline.rerank is None else int(pipeline.rerank.n_candidates)}
            store = DocumentStore(folder / _DOCS)
            try:
                seqs = store.add(ids, texts, metas)
            finally:
                store.close()
            placeless = cls._finish_build(folder, pipeline, manifest, statistics, texts, X, seqs, dtype)
            _versions.record_build(folder, source)
        warn_placeless([str(s) if i is None else i for s, i in zip(seqs, ids)], texts, placeless, scorer.kind)
        return cls.open(path, _pipeline=pipeline)

    @classmethod
    def _finish_build(cls, path, pipeline, manifest, statistics, texts, X, seqs, dtype):
        """Write statistics, plan and segments of a (re)built index, then its manifest; returns the
        positions of the rows that are zero (:mod:`learnsim.index._placeless`)."""
        from ._plan import build_plan

        generation = int(manifest.get("generation", 0)) + 1
        stats_dir = f"statistics-{generation}"
        (path / stats_dir).mkdir()
        statistics_sha256 = {}
        for name, arr in statistics.items():
            save_npy(path / stats_dir / f"{name}.npy", np.asarray(arr))
            statistics_sha256[name] = sha256_file(path / stats_dir / f"{name}.npy")
        plan_dir = f"query-{generation}"
        check = [t[:_PLAN_CHECK_CHARS] for t in texts[:_PLAN_CHECK]] + [" ".join(t[:200] for t in texts[:3])[:200]]
        usable = build_plan(pipeline, statistics, path / plan_dir, check)
        if usable and pipeline.rerank is not None:
            from ._rerank import write_rerank_plan

            write_rerank_plan(pipeline.rerank, path / plan_dir, check)
        scorer = pipeline.scorer
        entries, placeless = [], []
        starts = range(0, len(seqs), SEGMENT_ROWS)
        # each segment holds its documents too, written from the texts held (learnsim.index._docs_writer)
        store = DocumentStore(path / _DOCS, readonly=True)
        with (stage_for(f"index: writing the rows of {len(seqs)} documents", len(seqs)), _embeddings_of(path, pipeline),
              contextlib.closing(store)):
            # a bar where there are several segments (the stage says the rest)
            bar = progress(starts, desc="index: segments written", enabled=None if len(starts) > 1 else False)
            for start in bar:
                if X is not None:
                    rows = scorer.document_rows(X[start:start + SEGMENT_ROWS], statistics)
                else:
                    rows = pipeline.document_rows(texts[start:start + SEGMENT_ROWS], statistics)
                placeless.append(start + zero_rows(rows))
                entries.append(write_segment_of(path / "segments", f"g{generation}-{start // SEGMENT_ROWS:06d}",
                                                seqs[start:start + SEGMENT_ROWS], rows, manifest,
                                                RowsFromTexts(store, seqs[start:start + SEGMENT_ROWS], texts[start:start + SEGMENT_ROWS])))
        old = (manifest.get("statistics_dir"), manifest.get("plan_dir"), [e["name"] for e in manifest["segments"]])
        manifest.update(segments=entries, covered_seq=int(seqs[-1]) if seqs else manifest["covered_seq"],
                        statistics_seq=int(seqs[-1]) if seqs else 0, statistics_dir=stats_dir,
                        statistics=sorted(statistics), plan_dir=plan_dir if usable else None,
                        generation=generation, updated=time.time(),
                        dense_dim=_first(entries, path, "dense_dim"), n_features=_first(entries, path, "n_features"),
                        statistics_sha256=statistics_sha256,
                        plan_sha256=_plan_checksums(path / plan_dir) if usable else None,
                        # every file is written anew with its checksum: a version 1 index is now a 2
                        format_version=FORMAT_VERSION)
        _write_manifest(path, manifest)
        _remove_old(path, old)
        return np.concatenate(placeless) if placeless else np.zeros(0, dtype=np.int64)

    @classmethod
    def open(cls, path, *, _pipeline=None):
        """Open the index at ``path`` (its manifest and segments are checked; see the notes).

        A writer that publishes a newer manifest meanwhile (and removes what the one read
        listed) makes the open read the newer one, not report damage.

        Examples
        --------
        >>> import os, tempfile
        >>> import learnsim
        >>> from learnsim.index import Index
        >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
        ...          "refund for a double charge", "app crashes on start", "crash after the update"]
        >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: warns
        >>> path = os.path.join(tempfile.mkdtemp(), "index")
        >>> Index.build(path, model, texts).close()
        >>> index = Index.open(path)
        >>> len(index), index.search("forgot my password", k=1)[0]["text"]
        (6, 'forgot my password')
        """
        self = cls.__new__(cls)
        self.path = as_path(path, "path", "the path of an index directory")
        # stat()ed before every read (_manifest_id): the string, made once
        self._manifest_file = str(self.path / _MANIFEST)
        if not (self.path / _MANIFEST).is_file():
            raise FileNotFoundError(no_index(self.path))
        self._pipeline = _pipeline
        # held while the pipeline loads: a server loads it in a thread of its own while the
        # index's thread serves searches, and a call that needs it meanwhile waits for that load
        self._pipeline_lock = threading.Lock()
        self._plan = None
        self._ann_search = AnnSearch()
        retry_if_moved(self, self._load)
        # a dictionary other than the fitted one warns here, not at the first search
        check_plan_dictionary(self.path, self.manifest)
        return self

    def _read_manifest(self):
        """The manifest, its own checksum checked; records which file it was read from."""
        self._loading_manifest = self._manifest_id()
        m = read_manifest(self.path, _MANIFEST, FORMAT_NAME, FORMAT_VERSION)
        if not isinstance(m.get("format_version"), int):
            raise IndexFormatError(f"{self.path}: {_MANIFEST} has no valid 'format_version'")
        check_seal(m, self.path / _MANIFEST, required=m["format_version"] >= 2)
        return m

    def _open_segment(self, entry, m):
        return Segment(self.path / "segments", entry, kind=m["kind"], n_features=m.get("n_features"),
                       dense_dim=m.get("dense_dim"), checksums_required=m["format_version"] >= 2)

    def _load(self, m=None):
        """Load the manifest ``m`` (read by :meth:`_read_manifest`; None: read it here) and what it lists."""
        m = self._read_manifest() if m is None else m
        bad = invalid_field(m)
        if bad is not None:
            raise IndexFormatError(f"{self.path}: {_MANIFEST} has no valid {bad[0]!r} ({bad[1]})")
        if m["kind"] not in ("term_weights", "cosine", "distance"):
            raise IndexFormatError(f"{self.path}: unknown scoring kind {m['kind']!r}")
        if m["dtype"] not in ("float32", "float64"):
            raise IndexFormatError(f"{self.path}: {_MANIFEST} has dtype {m['dtype']!r}, not float32 or float64")
        for key in ("n_features", "dense_dim"):
            v = m.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise IndexFormatError(f"{self.path}: {_MANIFEST} has no valid {key!r}")
        for key in ("statistics_sha256", "plan_sha256"):
            v = m.get(key)
            if v is not None and not (isinstance(v, dict) and all(isinstance(x, str) for x in v.values())):
                raise IndexFormatError(f"{self.path}: {_MANIFEST} has no valid {key!r}")
        check_ann_config(m, self.path)
        if not (self.path / _DOCS).is_file():
            raise IndexFormatError(f"{self.path}: {_DOCS} is missing")
        if _plan_of(m) != _plan_of(getattr(self, "manifest", {})):
            # another handle reindexed, or the index was rebuilt (overwrite=True: a plan of the same
            # name, of other statistics): the old plan has the old statistics
            self._plan = self._rerank_cache = self._plan_explainer = None
        # a segment never changes once written: one already opened (and checked) is kept, so a
        # write does not make the next search re-read and re-check the whole index (its checksum
        # too: a segment written again under the same name is another one)
        cache = getattr(self, "_segment_cache", {})
        segments = []
        for e in m["segments"]:
            key = (e.get("name"), e.get("sha256"), e.get("n")) if isinstance(e, dict) else None
            seg = cache.get(key)
            if seg is None:
                seg = self._open_segment(e, m)
            segments.append(seg)
        # a new connection, kept only when everything loaded: a failed reload leaves the handle
        # as it was (its own manifest, segments and connection), not half-loaded
        seqs = np.concatenate([s.seqs for s in segments]) if segments else np.zeros(0, dtype=np.int64)
        since = checked_up_to(getattr(self, "manifest", None), m)
        old_store = getattr(self, "store", None)
        store, tail, dead, data_version = read_store(self.path, m, seqs, since, segments, kept_store(old_store, since))
        if old_store is not None and old_store is not store:
            old_store.close()
        self.store = store
        if getattr(self, "manifest", m).get("model_sha256") != m["model_sha256"]:
            # another handle promoted (or rolled back) a model version: what was loaded from the
            # old model goes (the plan, statistics and re-ranker are keyed on their files too)
            self._pipeline = None
            self._plan = None
            self._rerank_cache = self._plan_explainer = self._statistics_cache = None
        self.manifest = m
        self.kind = m["kind"]
        self.scoring, self.column = m.get("scoring", ""), m.get("column", "score")
        self.higher_is_closer = bool(m.get("higher_is_closer", True))
        self.segments = segments
        self._segment_cache = {(seg.name, e.get("sha256"), seg.n): seg for seg, e in zip(segments, m["segments"])}
        self._seqs = seqs
        if tail:
            # added before a crash, after the last segment: scored from their texts
            seqs = [r[0] for r in tail]
            pipeline = self.pipeline
            rows = pipeline.document_rows([r[1] for r in tail], self.statistics)
            self.segments.append(MemorySegment(seqs, rows, m["dtype"]))
        self._seen_manifest = self._loading_manifest
        # each load counts: a read that saw one during it may have mixed two states (read_retrying)
        self._loads = getattr(self, "_loads", 0) + 1
        self._refresh_positions(dead, data_version)

    def _refresh_positions(self, dead=None, data_version=None):
        self._seqs, ordered = ordered_seqs(self.segments, getattr(self, "_ordered", ()))
        self._docs_layout = docs_layout(self.segments)
        if not ordered:
            raise IndexFormatError(f"{self.path}: segments overlap or are out of order")
        self._ordered = list(self.segments)
        self._refresh_deleted(dead, data_version)

    #: Seconds this handle spent before its reads loading what other handles wrote (a service's trace).
    reload_seconds = 0.0

    def _see_changes(self):
        """Before a read: see what other handles (or processes) wrote since, when SQLite says
        something was (its data_version): their deletes, and their segments when the manifest changed."""
        if (self.store.closed or self.store.conn.execute("PRAGMA data_version").fetchone()[0] != self._data_version
                or self._manifest_id() != self._seen_manifest):
            started, loads = time.monotonic(), self._loads
            retry_if_moved(self, self._reload_if_changed)
            if self._loads == loads:    # (a load read the deletes in its own snapshot)
                self._refresh_deleted()
            self.reload_seconds += time.monotonic() - started

    def _manifest_id(self):
        """Which manifest file is there now: a reindex or a compact changes no row of SQLite
        (its data_version stays), but every manifest is written anew and renamed into place."""
        try:
            st = os.stat(self._manifest_file)
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _refresh_deleted(self, dead=None, data_version=None):
        if dead is None:
            # the version first: a delete committed between the two reads is seen again next time
            data_version = self.store.conn.execute("PRAGMA data_version").fetchone()[0]
            dead = self.store.deleted_seqs()
        self._data_version = data_version
        live = np.ones(self._seqs.shape[0], dtype=bool)
        dead = np.asarray(dead, dtype=np.int64)
        if dead.size:
            pos = np.searchsorted(self._seqs, dead)
            ok = (pos < self._seqs.size)
            ok[ok] = self._seqs[pos[ok]] == dead[ok]
            live[pos[ok]] = False
        self._live = live

    #: Whether :meth:`close` was called: every call on the handle is then a ValueError saying so.
    closed = False

    def close(self):
        if getattr(self, "store", None) is not None:
            self.store.close()
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ the pipeline, statistics, plan
    @property
    def pipeline(self):
        """The fitted pipeline (loaded on first use; its checksum is checked against the manifest)."""
        if self._pipeline is None:
            with self._pipeline_lock:
                if self._pipeline is None:
                    # the file the manifest names (a version's, or model.npz): _versions.load_model
                    manifest = self.manifest
                    loaded = _versions.load_model(self.path, manifest)
                    if self.manifest.get("model_sha256") != manifest.get("model_sha256"):
                        # a reload switched the version while this loaded (serve loads the model
                        # in a thread as searches reload): kept, it served the new manifest with
                        # the old model, and explained searches during a promote answered 400
                        return loaded
                    self._pipeline = loaded
        return self._pipeline

    @property
    def statistics(self):
        """The collection statistics in use ({name: array}), checked at their first use."""
        key = statistics_key(self.manifest)
        cached = getattr(self, "_statistics_cache", None)
        if cached is None or cached[0] != key:
            self._statistics_cache = cached = (key, load_statistics(self.path, self.manifest))
        return dict(cached[1])

    def _check_segments_meanwhile(self):
        """A started thread reading and checking the segments not checked yet, while this one loads
        the query plan, at the first search of an open index (and in ``warm``); None when there is
        nothing to do side by side. The caller joins it before any row is used. An error it meets is left to the
        search's own check, which meets it again and raises it.

        Both read and hash files (the rows of 100,000 documents of 100 dimensions are 40 MB: 50-70 ms
        of sha256; the plan 30-40 ms, its vocabulary parsed in Python), and sha256 and file reads
        let go of the GIL: on two cores the first search at 100k took 107-126 ms one after the other."""
        if self._plan is not None or self.manifest.get("plan_dir") is None:
            return None
        todo = [seg for seg in self.segments if getattr(seg, "_checked", True) is False]
        if not todo:
            return None

        def check():
            for seg in todo:
                try:
                    seg.check()
                except BaseException:   # noqa: BLE001 - met again by the search, which raises it
                    return

        thread = threading.Thread(target=check, name="learnsim-check", daemon=True)
        thread.start()
        return thread

    def read_query(self, query):
        """``query`` as :meth:`search` reads it: each lone character of a script written without
        spaces that the index's vocabulary does not hold read as the vocabulary's terms holding it
        (:class:`learnsim.text.LoneCharacters`), the text itself otherwise. An explanation of a
        hit made apart from the search (``Pipeline.explain``, as the service and its page do) is
        made of this text, so that it sums to the hit's score.

        Examples
        --------
        >>> import os, tempfile
        >>> import learnsim
        >>> from learnsim.index import Index
        >>> texts = ["子猫が好き", "猫が寝ている", "犬が走る", "犬の散歩"]
        >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1], baseline_holdout=None)
        >>> index = Index.build(os.path.join(tempfile.mkdtemp(), "index"), model, texts)
        >>> index.read_query("猫"), index.read_query("犬が走る")
        ('子猫 猫が', '犬が走る')
        >>> index.close()
        """
        if not isinstance(query, str):
            raise TypeError(f"query must be a str; got {type(query).__name__}")
        return self._with_lone_characters([query])[0]

    def _with_lone_characters(self, queries):
        """``queries``, each lone character of a spaceless script that the plan's vocabulary does
        not hold read as the terms holding it (:class:`learnsim.text.LoneCharacters`: a query of 猫
        found nothing where the documents hold 子猫 and 猫が); the queries themselves where none is
        one, and where the index has no plan (its pipeline reads queries as fitted)."""
        if all(q.isascii() for q in queries) or self.manifest.get("plan_dir") is None:
            return queries
        if self._plan is None:
            self._plan = load_plan(self.path, self.manifest)
        cached = getattr(self, "_lone_cache", None)
        if cached is None or cached[0] is not self._plan:
            from ..text import LoneCharacters

            plan = self._plan
            vocabularies = [plan.vocabulary] + ([plan.learned.vocabulary] if plan.learned is not None else [])
            self._lone_cache = cached = (plan, LoneCharacters(plan.tokenizer, vocabularies))
        return [cached[1](q) for q in queries]

    def _query_rows(self, texts):
        from ._query import QueryRows

        plan_dir = self.manifest.get("plan_dir")
        if plan_dir is not None:
            if self._plan is None:
                self._plan = load_plan(self.path, self.manifest)
            try:
                return self._plan.rows(texts)
            except (IndexError, ValueError, KeyError, TypeError) as exc:
                # arrays of the wrong shape: the plan was edited or damaged after the build checked it
                raise IndexFormatError(f"{self.path}: the query plan is damaged ({exc})") from None
        p = self.pipeline
        return QueryRows.from_rows(p.query_rows(texts, self.statistics))

    # ------------------------------------------------------------------ search
    def _all_live(self, ok):
        if ok is not self._live:
            return False
        if getattr(self, "_n_live_cache", None) is None or self._n_live_cache[0] is not self._live:
            self._n_live_cache = (self._live, bool(self._live.all()))
        return self._n_live_cache[1]

    def _allowed(self, conditions):
        """The rows a search may return: the live ones whose metadata satisfies ``conditions``
        (the tree of :func:`check_filter`; None for every live row)."""
        if conditions is None:
            return self._live
        # kept while the rows stay, as a refusal is (_filter_rows)
        return allowed_rows(self, conditions) & self._live

    def _check_filtered(self, conditions, orders):
        """A filter reads docs.sqlite's metadata, a hit comes from its segment's copy: the hits of a
        filtered search are read from docs.sqlite too, each against its digest, so that metadata
        edited there to let a document through is damage (IndexDamagedError naming the
        document), never a hit the filter would not have given. (Metadata edited to keep a
        document out is not seen here, only by ``verify``: a hit missing.) One read of k rows."""
        if conditions is None or not orders:
            return
        order = np.concatenate(orders)
        if order.size:
            self.store.documents(self._seqs[order].tolist(), raw_meta=True)

    def _hits(self, values, order, explain_query=None, n_top=10, docs=None):
        """The hits at global positions ``order`` with higher-is-closer ``values`` (aligned);
        ``docs``: the documents already read for them (several queries' hits in one read)."""
        # Python ints and floats once for all the hits (a numpy scalar per hit costs more than the dict)
        seqs = self._seqs[order].tolist()
        if docs is None:
            docs = self._documents_at(order, seqs)
        hits = []
        # read from disk: once for all the hits, not per explanation
        statistics = (self.statistics or None) if explain_query is not None else None
        sign = 1.0 if self.higher_is_closer else -1.0
        for rank, (seq, v) in enumerate(zip(seqs, np.asarray(values, dtype=np.float64).tolist())):
            row = docs.get(seq)
            if row is None:
                raise IndexFormatError(f"{self.path}: a segment lists document {seq}, which "
                                       f"{_DOCS} does not hold (edited or damaged)")
            doc_id, text, meta = row
            hit = {"rank": rank + 1, "id": doc_id, "score": sign * v, "text": text, "metadata": meta}
            if explain_query is not None:
                hit["explanation"] = self._model_parts().explain(explain_query, text, n_top=n_top,
                                                                 statistics=statistics)
            hits.append(hit)
        return hits

    def _document_cache_of(self):
        """The handle's DocumentCache, which starts again if the index at this path was built anew
        (its manifest's creation time); in a process that searches often, a small collection is
        read into it whole at once."""
        key = self.manifest.get("created")
        cache = getattr(self, "_document_cache", None)
        if cache is None or cache.key != key:
            self._document_cache = cache = DocumentCache(key)
        if not cache.preloaded and searching_often():
            # SQLite read ahead only where some segment has no copy of its documents
            cache.preload(self.store, self._n_live(),
                          read_ahead=any(getattr(seg, "docs", None) is None for seg in self.segments))
        return cache

    def _documents_at(self, positions, seqs=None):
        """{seq: (id, text, meta)} of the documents at global ``positions`` (their sequence numbers
        ``seqs``, a list, where the caller has them), through the handle's cache of those found
        before: from the copy their segment holds (learnsim.index._segment_docs: a read and a
        digest each, no SQLite), else from SQLite (small segments, segments written before,
        documents added before a crash); all from the cache where it holds the whole collection."""
        positions = positions.tolist() if hasattr(positions, "tolist") else list(positions)
        if seqs is None:
            seqs = self._seqs[positions].tolist()
        cache = self._document_cache_of()
        layout = getattr(self, "_docs_layout", None)
        if cache.holds_all or layout is None:
            return cache.documents(self.store, seqs)

        def read(missing):
            found, rest = documents_at([positions[i] for i in missing], [seqs[i] for i in missing], *layout)
            if rest:
                found.update(self.store.documents(rest, raw_meta=True))
            return found

        # through the cache all the same: a server asked the same queries again finds their hits there
        return cache.documents(self.store, seqs, read)

    def _model_parts(self):
        """What explains a hit (``explain``) and gives the clustering the learned metric
        (``metric``): the pipeline once it is loaded; before, for the models the query plan
        describes fully (cosine, MCD), the plan (learnsim.index._explain: the pipeline's load
        imports scikit-learn and hashes the model file, most of the time of a command that
        explains a search)."""
        if self._pipeline is None and self.manifest.get("plan_dir") is not None:
            from ._explain import plan_pipeline

            if self._plan is None:
                self._plan = load_plan(self.path, self.manifest)
            cached = getattr(self, "_plan_explainer", None)
            if cached is None or cached[0] is not self._plan:
                self._plan_explainer = cached = (self._plan, plan_pipeline(self._plan, self.kind, self.scoring,
                                                                           self.manifest.get("statistics") or ()))
            if cached[1] is not None:
                return cached[1]
        return self.pipeline

    def _scanned(self):
        """The segments as a search scans them: runs of small ones as one (_scan.scanned_segments),
        made again when the segments change."""
        cached = getattr(self, "_scanned_cache", None)
        if (cached is None or len(cached[0]) != len(self.segments)
                or any(a is not b for a, b in zip(cached[0], self.segments))):
            runs = [s for s in cached[1] if isinstance(s, SegmentRun)] if cached is not None else ()
            self._scanned_cache = cached = (list(self.segments),
                                            scanned_segments(self.segments, self.manifest.get("dense_dim"), runs))
        return cached[1]

    def _search_rows(self, rows, k, allowed, exclude=None):
        segments = self._scanned()
        if dense_batch_applies(segments, rows, self.kind == "distance"):
            # several dense queries: one matrix product per block of rows for them all
            with stage_for(f"index: searching {len(rows)} queries", len(rows)):
                found = best_k_dense_batch(segments, rows.dense, k, None if self._all_live(allowed) else allowed,
                                           exclude, ann=self._ann_search)
            return [(values, order) for order, values in found]
        out = []
        queries = range(len(rows))
        if enabled_for(len(rows), loop=True) is not False:     # a search of one query sets nothing up
            queries = progress(queries, desc="index: searching the queries")
        for i in queries:
            s, d, q = rows.row(i)
            # every document allowed (no filter, no delete): no mask to apply
            order, values = best_k(segments, s, d, q, self.kind == "distance", k,
                                   None if self._all_live(allowed) else allowed,
                                   exclude=None if exclude is None else exclude[i], ann=self._ann_search)
            out.append((values, order))
        return out

    @_sqlite_guarded
    def warm(self, *, search=True):
        """Load now what the first searches of a long-running process would: the query plan,
        each segment's check, and the numba kernels where the index is large enough for them to
        pay (see :mod:`learnsim.index._kernels`). A server calls it before its first request,
        which would otherwise wait for them (half a second for numba).

        ``search=False`` only reads and checks the files every search reads (each segment's
        arrays against their checksums and values, the query plan): what a server waits for
        before it says it is ready; the kernels and the approximate structures load with the
        first search (or a later ``warm()``)."""
        from ._kernels import note_long_running, warm_dense

        if not search:
            def check():
                # the plan beside the segments' checksums, as a first search loads them
                checking = self._check_segments_meanwhile()
                try:
                    if self.manifest.get("plan_dir") is not None:
                        self._query_rows(["warm"])
                finally:
                    if checking is not None:
                        checking.join()
                for seg in self.segments:
                    seg.check()
            read_retrying(self, check)
            return self
        note_long_running()
        # a text of the collection, so that its words touch posting lists and every kernel of a
        # search runs once (a made-up word would leave the sparse ones unloaded)
        text = "warm"
        if self._seqs.size:
            found = self.store.documents(self._seqs[:1])
            text = next(iter(found.values()))[1][:500] if found else text
        self.search(text, k=1)

        def exact_kernels():
            # and the kernels of an exact scan, which a segment searched through an approximate
            # structure does not run, but the first segment a write adds will
            rows = {}
            for seg in self.segments:
                D = getattr(seg, "dense", None) if seg.n else None
                if D is not None:
                    rows.setdefault(D.dtype, D)
            for D in rows.values():
                warm_dense(D, self._n_live())
        read_retrying(self, exact_kernels)
        return self

    @_sqlite_guarded
    @with_show_progress_bar
    def search(self, query, k=10, *, filter=None, explain=False, n_top=10):
        """The k documents closest to ``query`` under the pipeline's validated scoring.

        Parameters
        ----------
        query : str or list of str
        k : int, default=10
        filter : dict, optional
            A metadata filter: ``{field: value}``, ``{field: [values]}`` (any of them), operators
            (``{"year": {"$gte": 2020}}``: ``$eq $ne $gt $gte $lt $lte $in $nin $exists``),
            dotted paths into nested metadata (``{"meta.year": 2020}``) and ``$and``, ``$or``,
            ``$not`` (the grammar and its semantics: :func:`learnsim.index._store.check_filter`).
            Only the documents that match are searched (never one that does not, and fewer than k
            hits when fewer match). A filter that is not well formed raises
            :class:`~learnsim.exceptions.FilterError` naming what is wrong.
        explain : bool, default=False
            Add each hit's ``explanation``: the words (and word pairs) that add most to its score,
            summing exactly to it (:meth:`learnsim.pipeline.Pipeline.explain`).
        n_top : int, default=10
            Words listed per explanation.
        show_progress_bar : bool or None, default=None
            Progress on stderr (a bar over the queries of a batch); nothing is drawn for fewer than
            1000 queries unless True. None: as :func:`learnsim.set_progress` says (by default on a
            terminal or in a notebook); True or False beat it for this call.

        Returns
        -------
        list of dict, or a list of them for a list of queries
            Each hit: ``rank``, ``id``, ``score`` (the similarity, or the distance for distance
            models: see :attr:`column`), ``text``, ``metadata`` (and ``explanation``). A query
            none of whose words the model knows gets no hits: every document would score the
            same (Elasticsearch and Pyserini answer so; bm25s returns k documents scoring 0).

        Examples
        --------
        >>> import os, tempfile
        >>> import learnsim
        >>> from learnsim.index import Index
        >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
        ...          "refund for a double charge", "app crashes on start", "crash after the update"]
        >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: warns
        >>> index = Index.build(os.path.join(tempfile.mkdtemp(), "index"), model, texts,
        ...                     metadata=[{"topic": t} for t in "aabbcc"])
        >>> hit = index.search("I forgot my password", k=1)[0]
        >>> hit["id"], hit["text"], hit["metadata"]
        ('2', 'forgot my password', {'topic': 'a'})
        >>> [[h["id"] for h in hits] for hits in index.search(["password", "charged twice"], k=1)]
        [['1'], ['3']]
        >>> sorted(h["id"] for h in index.search("crash", k=5, filter={"topic": "c"}))
        ['5', '6']
        """
        single = isinstance(query, str)
        queries = _check_texts([query] if single else query, "query")
        k = _check_k(k)
        explain = _check_flag(explain, "explain")
        conditions = check_filter(filter)       # a bad filter is the caller's error, before any read

        depth = self._rerank_depth(k)

        def read():
            allowed = self._allowed(conditions)
            checking = self._check_segments_meanwhile()
            try:
                # (read here, by the plan this read sees: a promotion may change it)
                texts = self._with_lone_characters(queries)
                rows = self._query_rows(texts)
            finally:
                if checking is not None:
                    checking.join()
            # a query with no word the model knows: no hits, not k arbitrary documents (and no
            # scan when every query is one)
            blank = rows.blank()
            found = [None] * len(blank) if all(blank) else self._search_rows(rows, depth, allowed)
            for qi in (qi for qi, b in enumerate(blank) if b):
                found[qi] = (np.zeros(0), np.zeros(0, dtype=np.int64))
            self._check_filtered(conditions, [o for _, o in found])
            # one read for the hits of every query (a server batches queries)
            docs = self._documents_at(np.concatenate([o for _, o in found])) if len(found) > 1 else None
            # (whether the model re-ranks, not whether depth == k: a search of k at or above the
            # re-ranker's candidates read depth == k and returned the first stage's hits)
            if self.manifest.get("rerank") is None:
                return [self._hits(values, order, texts[qi] if explain else None, n_top, docs)
                        for qi, (values, order) in enumerate(found)]
            return [self._reranked(texts[qi], self._hits(values, order, None, n_top, docs), k, explain, n_top)
                    for qi, (values, order) in enumerate(found)]

        results = read_retrying(self, read)
        return results[0] if single else results

    def _rerank_depth(self, k):
        """How many first-stage hits a search of k reads: k, or the re-ranker's candidates."""
        n = self.manifest.get("rerank")
        if n is None:
            return k
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10_000:
            raise IndexFormatError(f"{self.path}: the manifest's 'rerank' must be the re-ranker's number of "
                                   f"candidates (1 to 10000); got {n!r} (edited or damaged)")
        return max(k, n)

    def _reranked(self, query, hits, k, explain, n_top):
        """The first-stage hits in the re-ranker's order, the best k (pipeline.rerank_hits); with
        ``explain``, each keeps the first stage's explanation and adds ``"rerank"``: the
        re-ranker's features and the rank it moved from."""
        from ..pipeline import rerank_hits

        reranker = self._rerank_plan() or self.pipeline.rerank
        if reranker is None:
            raise IndexFormatError(f"{self.path}: the manifest says the model re-ranks, but it has no re-ranker "
                                   "(edited or damaged)")
        hits = rerank_hits(reranker, query, hits, [h["text"] for h in hits])[:k]
        if explain:
            statistics = self.statistics or None
            for hit in hits:
                hit["explanation"] = self._model_parts().explain(query, hit["text"], n_top=n_top, statistics=statistics)
                hit["explanation"]["rerank"] = dict(reranker.explain(query, hit["text"], n_top=n_top),
                                                    first_stage_rank=hit["first_stage_rank"], rank=hit["rank"])
        return hits

    def _rerank_plan(self):
        """The re-ranker from the plan directory's arrays (learnsim.index._rerank), or None where
        the index has none (built before them, or a re-ranker they cannot express): then the
        pipeline's."""
        plan_dir = self.manifest.get("plan_dir")
        if plan_dir is None:
            return None
        cached = getattr(self, "_rerank_cache", None)
        if cached is None or cached[0] != plan_dir:
            from ._rerank import RerankPlan

            try:
                plan = RerankPlan.load(self.path / plan_dir, self.manifest.get("plan_sha256"),
                                       required=self.manifest["format_version"] >= 2)
            except IndexFormatError:
                raise
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise IndexFormatError(f"{self.path}: cannot read the re-ranker's plan ({exc})") from None
            if plan is not None and plan.n_candidates != self.manifest.get("rerank"):
                raise IndexFormatError(f"{self.path}: the re-ranker's plan re-scores {plan.n_candidates} candidates "
                                       f"but the manifest says {self.manifest.get('rerank')!r} (edited or damaged)")
            self._rerank_cache = cached = (plan_dir, plan)
        return cached[1]

    @_sqlite_guarded
    def live_documents(self):
        """(ids, texts) of the live documents, in their order (what a refit or an evaluation over
        the index's collection reads)."""
        ids, texts = [], []
        for rows in self.store.live_rows():
            for _seq, doc_id, text, _meta in rows:
                ids.append(doc_id)
                texts.append(text)
        return ids, texts

    @_sqlite_guarded
    def document(self, doc_id):
        """(text, metadata) of a live document (``doc_id`` a str, or an int: its decimal str)."""
        seq = self.store.live_seq_of(_doc_id(doc_id, call="document"))
        _, text, meta = self.store.documents([seq])[seq]
        return text, meta

    @_sqlite_guarded
    def more_like(self, doc_id, k=10, *, filter=None):
        """The k documents closest to the document ``doc_id`` (itself excluded); ``filter`` as
        for :meth:`search`."""
        doc_id = _doc_id(doc_id, call="more_like")
        k = _check_k(k)
        conditions = check_filter(filter)

        def read():
            seq = self.store.live_seq_of(doc_id)
            text, _ = self.document(doc_id)
            pos = int(np.searchsorted(self._seqs, seq))
            allowed = self._allowed(conditions)
            rows = self._query_rows([text])
            if rows.blank()[0]:
                return []       # a text with no word the model knows (added since the build): as search
            (values, order), = self._search_rows(rows, k, allowed, exclude=[pos])
            self._check_filtered(conditions, [order])
            return self._hits(values, order)

        return read_retrying(self, read)

    @_sqlite_guarded
    def match(self, text, k=10, *, filter=None):
        """Near-duplicates of a new ``text`` in the collection: its k closest documents that the
        pipeline's calibrated duplicate rule accepts, most probable first, each with its
        ``probability`` (the model must have a duplicate rule: fitted on pairs). A model fitted on
        graded pairs keeps every one of the k, highest ``predicted_score`` first. ``filter`` as
        for :meth:`search`: only the documents it matches are candidates.

        The candidates are the k hits of ``search(text, k, filter=filter)`` and, beside them, every
        live document whose text is exactly ``text`` (that the filter allows), wherever the
        search ranks it: the search scores by the model's search rule, not by its duplicate rule,
        and k texts that outscore an exact copy (BM25 prefers a text that repeats the query's
        words) kept the most obvious duplicate out. A copy is found by its text's key in
        docs.sqlite (:func:`learnsim.index._store.text_key`: microseconds, not a read of every
        text) and taken only when the text served for it is the query's itself. Its hit is a
        search hit: its ``score`` is what the search gives it (its row scored for the query, as
        an exact scan scores it; for an index that re-ranks, the re-ranker's probability, with
        ``first_stage_score`` and ``first_stage_rank``, its rank in an exact first stage).
        At most k documents are returned, as before. An index whose docs.sqlite was written
        before text keys has no such candidates (the k hits alone, as before) until its next
        add, update or upsert, which keys every live document.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str; got {type(text).__name__}")
        k = _check_k(k)
        conditions = check_filter(filter)

        def read():
            hits = self.search(text, k, filter=filter)
            return hits, exact_copy_hits(self, text, k, conditions, hits)

        hits, copies = read_retrying(self, read)
        return matched_hits(self.pipeline, text, hits + copies, k)

    @_sqlite_guarded
    @with_show_progress_bar
    def dedupe(self, k=10, *, linkage="complete"):
        """Groups of near-duplicates across the collection: each document's k closest documents
        are checked with the duplicate rule, and every two documents of a group are a pair it
        accepted (``linkage="complete"``; the most probable pairs first). ``"single"`` joins the
        accepted pairs transitively (connected components): a chain a~b~c~d is one group though
        a and d share nothing (on the 19,107 Quora test questions its largest group held 6,002).

        Returns a list of groups, each a list of ``{"id", "text", "probability"}`` (the largest
        probability with which the document was matched to another of its group), the largest
        group first.

        Parameters
        ----------
        k : int, default=10
        linkage : {"complete", "single"}, default="complete"
        show_progress_bar : bool or None, default=None
            Progress on stderr (a bar over the collection's documents); nothing is drawn for fewer
            than 1000 documents unless True. None: as :func:`learnsim.set_progress` says (by default
            on a terminal or in a notebook); True or False beat it for this call.
        """
        from ._dedupe import dedupe_documents

        return dedupe_documents(self, _check_k(k), linkage)

    @_sqlite_guarded
    @with_show_progress_bar
    def cluster(self, k=None, *, distance_threshold=None, random_state=0):
        """Group the collection under the learned metric: K-means into ``k`` clusters (paper 000,
        Figure 4) in the space where the learned similarity is a Euclidean one, or, with
        ``distance_threshold``, average-link agglomerative clustering of the learned distances
        (at most 20,000 documents). Returns ``{id: cluster label}``.

        Parameters
        ----------
        k : int, optional
        distance_threshold : float, optional
        random_state : int, default=0
        show_progress_bar : bool or None, default=None
            Progress on stderr (the elapsed time of the clustering); nothing is drawn for fewer than
            1000 documents unless True. None: as :func:`learnsim.set_progress` says (by default on a
            terminal or in a notebook); True or False beat it for this call.
        """
        from ._cluster import cluster_documents

        with stage_for(f"index: clustering {len(self)} documents", len(self)):
            return cluster_documents(self, k, distance_threshold, random_state)

    # ------------------------------------------------------------------ writes
    def _lock(self):
        return _Lock(self.path / "lock")

    def _flush_tail(self):
        """Write the documents scored in memory (added before a crash) as a segment."""
        tail = [s for s in self.segments if isinstance(s, MemorySegment)]
        if not tail:
            return
        seg = tail[0]
        rows = rows_of(seg)
        entry = write_segment_of(self.path / "segments", f"a{int(seg.seqs[0]):012d}", seg.seqs, rows, self.manifest,
                                 self._docs_copy(seg.seqs))
        self.manifest["segments"].append(entry)
        self.manifest["covered_seq"] = int(seg.seqs[-1])
        _write_manifest(self.path, self.manifest)
        self._load_after_write()

    def _load_after_write(self):
        self._load()

    @_sqlite_guarded
    @with_show_progress_bar
    def add(self, texts, ids=None, metadata=None, *, text=None, columns=None):
        """Add documents; returns their ids as str (``texts``, ``ids``, ``metadata``, ``text`` and
        ``columns`` as in :meth:`build`: a table, a file, int ids; a None entry, or no ids, is
        numbered by the index). Once it returns, they survive any crash (see the notes).
        Their rows use the statistics of the last build or reindex: a word the index's vocabulary
        lacks counts after :meth:`reindex`, and a :class:`NewWordsWarning` says how many documents hold one.

        Parameters
        ----------
        show_progress_bar : bool or None, default=None
            Progress on stderr (the elapsed time of the vectorising and writing); nothing is drawn
            for fewer than 1000 documents unless True. None: as :func:`learnsim.set_progress` says
            (by default on a terminal or in a notebook); True or False beat it for this call.

        Examples
        --------
        >>> import os, tempfile
        >>> import learnsim
        >>> from learnsim.index import Index
        >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
        ...          "refund for a double charge", "app crashes on start", "crash after the update"]
        >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: warns
        >>> index = Index.build(os.path.join(tempfile.mkdtemp(), "index"), model, texts)
        >>> index.add(["the app freezes", "refund please"], ids=["t1", None])
        ['t1', '8']
        >>> index.add(["refund twice"], ids=[42])        # an int id is its str
        ['42']
        >>> len(index), index.document("42") == index.document(42)
        (9, True)
        """
        texts, ids, metadata = index_inputs(texts, ids, metadata, text=text, columns=columns)
        texts = _check_texts(texts, documents=True)
        ids = _check_ids(ids, len(texts))
        metas = _check_metadatas(metadata, len(texts))
        if not texts:
            return []
        with self._lock(), stage_for(f"index: adding {len(texts)} documents", len(texts)):
            self._begin_write()
            self._flush_tail()
            rows, new = added_rows(self, texts)
            seqs = self.store.add(ids, texts, metas)
            self._write_rows(seqs, rows)
        ids = [str(s) if i is None else i for s, i in zip(seqs, ids)]
        # a word first met here counts after reindex; documents of such words alone: one warning, not two
        if not warn_new_words(new):
            warn_placeless(ids, texts, zero_rows(rows), self.kind)
        return ids

    def _write_rows(self, seqs, rows):
        entry = write_segment_of(self.path / "segments", f"a{int(seqs[0]):012d}", seqs, rows, self.manifest,
                                 self._docs_copy(seqs))
        self.manifest["segments"].append(entry)
        self.manifest["covered_seq"] = int(seqs[-1])
        self.manifest["updated"] = time.time()
        merged = self._merge_small_tail()
        _write_manifest(self.path, self.manifest)
        if merged:
            _remove_old(self.path, (None, None, merged))
        self._load_after_write()

    def _docs_copy(self, seqs):
        """The copy of its documents a new segment of ``seqs`` holds (read from SQLite), or None: a
        small segment (an add of fewer than SMALL_SEGMENT_ROWS documents) holds no copy. Its hits are read from SQLite
        through the handle's cache, as before; the merge that makes it part of a large segment,
        a compaction or a reindex writes the copy. Writing one for every add made a write of 10
        documents 1.7 ms longer (12.4 to 14.1 ms at 100k), and the service's searches, which then
        waited for the writes' turns, saw their p99 wait rise from 14-18 to 23-29 ms
        (bench_serve.py --model film)."""
        return RowsFromTexts(self.store, seqs) if len(seqs) >= SMALL_SEGMENT_ROWS else None

    def _merge_small_tail(self):
        """When the newest MERGE_AT segments are all small (adds of a few documents each), merge
        them into one, so that searching does not go through ever more segments; deleted rows
        stay (compact drops them). Returns the names merged (to remove once the manifest no
        longer lists them)."""
        entries = self.manifest["segments"]
        run = 0
        while run < len(entries) and entries[-1 - run]["n"] < SMALL_SEGMENT_ROWS:
            run += 1
        if run < MERGE_AT:
            return []
        tail = entries[-run:]
        by_name = {s.name: s for s in self.segments if not isinstance(s, MemorySegment)}
        segs = [by_name.get(e["name"]) for e in tail]
        if any(seg is None for seg in segs):       # the newest one: open it
            segs = [by_name.get(e["name"]) or self._open_segment(e, self.manifest) for e in tail]
        n = sum(seg.n for seg in segs)
        rows = merged_rows(segs, np.ones(n, dtype=bool))
        seqs = np.concatenate([np.asarray(seg.seqs) for seg in segs])
        # a copy of the documents where the merged segment is not small (see _docs_copy)
        docs = merged_docs(segs, np.ones(n, dtype=bool), self.store) if n >= SMALL_SEGMENT_ROWS else None
        entry = write_segment_of(self.path / "segments", f"m{int(seqs[0]):012d}-{int(seqs[-1]):012d}", seqs, rows,
                                 self.manifest, docs)
        self.manifest["segments"] = entries[:-run] + [entry]
        return [e["name"] for e in tail]

    def _begin_write(self):
        """With the lock held: see the other writers' changes, and remove what a writer that was
        stopped left behind (no manifest lists it, so no reader reads it)."""
        self._reload_if_changed()
        self._refresh_deleted()         # another handle's deletes: compact must not keep their rows
        _remove_unreferenced(self.path, self.manifest)
        self._data_version = None       # a write stopped before its load: the next read looks (load_is_behind)

    def _reload_if_changed(self):
        seen = self._manifest_id()
        # read (and its seal checked) once: the load below is of this manifest, not of a second read
        current = self._read_manifest()
        if current != self.manifest or load_is_behind(self):
            self._load(current)
        else:
            self._seen_manifest = seen

    @_sqlite_guarded
    def delete(self, ids, *, missing_ok=False):
        """Delete documents by id (tombstones until :meth:`compact`); returns how many. Ids not in the
        index are one KeyError naming them, nothing deleted, unless ``missing_ok`` (True or False).

        Examples
        --------
        >>> import os, tempfile
        >>> import learnsim
        >>> from learnsim.index import Index
        >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
        ...          "refund for a double charge", "app crashes on start", "crash after the update"]
        >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: warns
        >>> index = Index.build(os.path.join(tempfile.mkdtemp(), "index"), model, texts)
        >>> index.delete(["1", "2"]), len(index)
        (2, 4)
        >>> index.delete("no such id", missing_ok=True)
        0
        """
        ids = _ids_to_delete(ids)
        with self._lock():
            n = self.store.delete(ids, missing_ok=_check_flag(missing_ok, "missing_ok"))
            self._refresh_deleted()
        return n

    @_sqlite_guarded
    @with_show_progress_bar
    def update(self, ids, texts=None, metadata=None, *, text=None, columns=None):
        """Replace the texts (and metadata) of live documents, keeping their ids (the forms of
        :meth:`build`; ``update(frame)`` takes the ids from the table's ``id`` column).
        ``update(ids, metadata=...)`` without texts replaces the metadata alone, each document
        keeping its text (as chromadb's ``update(ids, metadatas=...)``; one id and one dict too);
        ``update(ids, texts)`` without metadata the texts alone, each keeping its metadata.

        Parameters
        ----------
        show_progress_bar : bool or None, default=None
            Progress on stderr (the elapsed time of the vectorising and writing); nothing is drawn
            for fewer than 1000 documents unless True. None: as :func:`learnsim.set_progress` says
            (by default on a terminal or in a notebook); True or False beat it for this call.
        """
        ids, texts, metas = _update_arguments(ids, texts, metadata, text, columns)
        if not ids:
            return
        with self._lock(), stage_for(f"index: updating {len(ids)} documents", len(ids)):
            self._begin_write()
            self._flush_tail()
            given = texts is not None
            if not given:   # metadata alone: the texts read under the write lock
                texts = self._texts_kept(ids)
            if metas is None:   # texts alone: the metadata kept (it was dropped: a filter lost them)
                metas = _check_metadatas([self._metadata_kept(doc_id) for doc_id in ids], len(ids))
            rows, new = added_rows(self, texts, report=given)
            seqs = self.store.update(ids, texts, metas)
            self._write_rows(seqs, rows)
        if not warn_new_words(new):
            warn_placeless(ids, texts, zero_rows(rows), self.kind)

    def _metadata_kept(self, doc_id):
        try:
            return self.document(doc_id)[1]     # checked against its digest: an edited row is refused
        except KeyError:        # not in the index: the store's update says so ("use add")
            return None

    @_sqlite_guarded
    @with_show_progress_bar
    def upsert(self, texts, ids=None, metadata=None, *, text=None, columns=None):
        """Add the documents whose ids are new and replace those already in the index, in one
        transaction and one segment; returns ``{"added": n, "updated": m}``. Every document needs
        an id (the forms of :meth:`build`: a table or file gives its own); an id given twice is a
        ValueError, and nothing is written. Once it returns, the change survives any crash: each
        id then has exactly one live document, holding the text given here.

        Parameters
        ----------
        show_progress_bar : bool or None, default=None
            Progress on stderr (the elapsed time of the vectorising and writing); nothing is drawn
            for fewer than 1000 documents unless True. None: as :func:`learnsim.set_progress` says
            (by default on a terminal or in a notebook); True or False beat it for this call.

        Examples
        --------
        >>> import os, tempfile
        >>> import learnsim
        >>> from learnsim.index import Index
        >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
        ...          "refund for a double charge", "app crashes on start", "crash after the update"]
        >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: warns
        >>> index = Index.build(os.path.join(tempfile.mkdtemp(), "index"), model, texts)
        >>> index.upsert(["charged two times", "refund not received"], ids=["3", "new"])
        {'added': 1, 'updated': 1}
        >>> len(index), index.document("3")[0]
        (7, 'charged two times')
        """
        texts, ids, metadata = index_inputs(texts, ids, metadata, text=text, columns=columns, need_ids=True)
        texts = _check_texts(texts, documents=True)
        ids = _check_ids(ids, len(texts))
        if None in ids:
            raise ValueError(f"upsert needs an id for every document; ids[{ids.index(None)}] is None")
        metas = _check_metadatas(metadata, len(texts))
        if not texts:
            return {"added": 0, "updated": 0}
        with self._lock(), stage_for(f"index: upserting {len(texts)} documents", len(texts)):
            self._begin_write()
            self._flush_tail()
            rows, new = added_rows(self, texts)
            seqs, added, replaced = self.store.upsert(ids, texts, metas)
            self._write_rows(seqs, rows)
        if not warn_new_words(new):
            warn_placeless(ids, texts, zero_rows(rows), self.kind)
        return {"added": int(added), "updated": int(replaced)}

    @_sqlite_guarded
    @with_show_progress_bar
    def compact(self):
        """Merge the segments into one, dropping deleted documents (their tombstones too).

        Parameters
        ----------
        show_progress_bar : bool or None, default=None
            Progress on stderr (the elapsed time of the merge); nothing is drawn for fewer than 1000
            documents unless True. None: as :func:`learnsim.set_progress` says (by default on a
            terminal or in a notebook); True or False beat it for this call.
        """
        n = int(self._seqs.size)
        with self._lock(), stage_for(f"index: compacting {n} documents", n):
            self._begin_write()
            self._flush_tail()
            keep = self._live
            rows = merged_rows(self.segments, keep)
            seqs = self._seqs[keep]
            generation = int(self.manifest.get("generation", 0))
            name = f"c{generation}-{int(seqs[-1]) if seqs.size else 0:012d}-{int(time.time() * 1e3) % 10**9:09d}"
            old = [e["name"] for e in self.manifest["segments"]]
            entry = (write_segment_of(self.path / "segments", name, seqs, rows, self.manifest,
                                      merged_docs(self.segments, keep, self.store)) if seqs.size else None)
            self.manifest["segments"] = [entry] if entry else []
            self.manifest["updated"] = time.time()
            _write_manifest(self.path, self.manifest)
            _remove_old(self.path, (None, None, old))
            # the rows are gone from every segment: now the tombstones can go
            with self.store.conn:
                self.store.conn.execute("DELETE FROM docs WHERE deleted_seq IS NOT NULL AND seq <= ?",
                                        (self.manifest["covered_seq"],))
            self._load_after_write()

    @_sqlite_guarded
    @with_show_progress_bar
    def reindex(self):
        """Recompute the collection statistics over the live documents and every row with them:
        the index then equals one built in one go from its live documents, in order.

        Parameters
        ----------
        show_progress_bar : bool or None, default=None
            Progress on stderr (the elapsed time, and a bar over the segments written); nothing is
            drawn for fewer than 1000 documents unless True. None: as :func:`learnsim.set_progress`
            says (by default on a terminal or in a notebook); True or False beat it for this call.
        """
        n = len(self)
        with self._lock(), stage_for(f"index: reindexing {n} documents", n):
            self._begin_write()
            texts, seqs = [], []
            for batch in self.store.live_rows():
                seqs.extend(r[0] for r in batch)
                texts.extend(r[2] for r in batch)
            if not texts:
                raise ValueError("the index has no live document to compute statistics from")
            p = self.pipeline
            with _embeddings_of(self.path, p):
                X, statistics = _collection(p, texts)
            self.store.close()
            manifest = dict(self.manifest)
            manifest["covered_seq"] = max(manifest["covered_seq"], int(seqs[-1]))
            try:
                type(self)._finish_build(self.path, p, manifest, statistics, texts, X, seqs, np.dtype(manifest["dtype"]))
            finally:
                # a build the disk refused leaves the manifest as it was: the index before, opened
                # again (left closed, every later call was "Cannot operate on a closed database")
                self._plan = None
                self._load()

    # ------------------------------------------------------------------ information
    @with_show_progress_bar
    def verify(self):
        """Check every file of the index and SQLite; list every damaged file (not only the first).

        Reads everything: the manifest, model, statistics, plan, every segment's files (their
        checksums, shapes and values) and approximate structures, and ``docs.sqlite`` (SQLite's
        ``quick_check`` and its documents against the segments'), holding the writers' lock so
        that a concurrent write is not taken for damage. See :mod:`learnsim.index._verify`.

        Parameters
        ----------
        show_progress_bar : bool or None, default=None
            The elapsed time of the check on stderr, for a check that lasts. None: as
            :func:`learnsim.set_progress` says (by default on a terminal or in a notebook);
            True or False beat it for this call.

        Returns
        -------
        dict
            ``ok``, ``damaged`` (a list of ``{"file", "problem"}``), ``files``, ``bytes``,
            ``format_version``, ``unchecked_documents`` and ``notes`` (documents written before
            learnsim recorded the checksum of each one's text and metadata), ``seconds``, ``path``.

        Examples
        --------
        >>> import os, tempfile
        >>> import learnsim
        >>> from learnsim.index import Index
        >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
        ...          "refund for a double charge", "app crashes on start", "crash after the update"]
        >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: warns
        >>> index = Index.build(os.path.join(tempfile.mkdtemp(), "index"), model, texts)
        >>> report = index.verify()
        >>> report["ok"], report["damaged"]
        (True, [])
        """
        return type(self).verify_at(self.path)

    @classmethod
    @with_show_progress_bar
    def verify_at(cls, path):
        """:meth:`verify` of the index at ``path`` without opening it (a damaged manifest or
        segment is reported, not raised). FileNotFoundError when ``path`` holds no index;
        ``show_progress_bar`` as for :meth:`verify`."""
        # reading every file is never a hot path: the rule (and its wait of AFTER seconds) decides
        with stage_for(f"index: verifying {path}", 1, at_least=0):
            return verify_locked(path)

    @_sqlite_guarded
    def info(self):
        """A dict describing the index: documents, segments, scoring, staleness of the statistics,
        ``"analysis"`` (how queries are cut; an analyser's dictionary) and ``"vocabulary"``: ``"collection"`` when the lexical part (an input cosine, a term
        weighting) scores with the collection's own words, ``"model"`` when with the model's (a
        model without a lexical part, or an index built before learnsim scored with the
        collection's words: ``learnsim index reindex`` moves it)."""
        self._see_changes()
        m = self.manifest
        size = _tree_bytes(self.path)
        return {"path": str(self.path), "format_version": m["format_version"], "method": m.get("method"),
                "encoder": m.get("encoder"), "analysis": analysis_info(self),
                "scoring": self.scoring, "score": self.column, "kind": self.kind, "dtype": m["dtype"],
                "documents": len(self), "deleted": int((~self._live).sum()),
                "segments": len(m["segments"]), "unsegmented": sum(isinstance(s, MemorySegment) for s in self.segments),
                "added_since_statistics": self.store.count(live=True, after=m["statistics_seq"]),
                "query_plan": m.get("plan_dir") is not None, "bytes": size, "search": search_info(self),
                "model_version": self.model_version,
                # whose words the lexical part scores with: an index built before issue 32 (or a
                # model without a lexical part) keeps the model's; 'learnsim index reindex'
                # moves the former to the collection's
                "vocabulary": "collection" if "vocabulary" in m.get("statistics", []) else "model"}

    def set_search_params(self, **params):
        """Trade the approximate search's recall for its speed: ``overfetch`` (candidates asked
        per hit; default :data:`learnsim.index._ann.OVERFETCH`) and the backends' own
        (``ef_search`` of faiss HNSW, ``nprobe`` of IVF, ``expansion_search`` of usearch).
        For this handle; returns it."""
        self._ann_search.set(params, self.segments)
        return self


def _first(entries, path, key):
    for e in entries:
        return load_json(Path(path) / "segments" / e["name"] / "segment.json", e.get("sha256")).get(key)
    return None


def _remove_old(path, old):
    stats_dir, plan_dir, segments = old
    for d in (stats_dir, plan_dir):
        if d:
            shutil.rmtree(Path(path) / d, ignore_errors=True)
    for name in segments:
        shutil.rmtree(Path(path) / "segments" / name, ignore_errors=True)
    for tmp in (Path(path) / "segments").glob(".tmp-*"):
        # left by a writer that was stopped; never listed by a manifest
        shutil.rmtree(tmp, ignore_errors=True)


def _remove_unreferenced(path, manifest):
    """Remove the segments, statistics and plans the manifest does not list and the temporary
    files of the manifest: left by a writer stopped before (or after) its manifest was written.
    Only with the lock held (no other writer is between writing them and listing them)."""
    path = Path(path)
    listed = {e["name"] for e in manifest["segments"]}
    if (path / "segments").is_dir():
        for d in (path / "segments").iterdir():
            if d.name not in listed:
                shutil.rmtree(d, ignore_errors=True)
    keep = {manifest.get("statistics_dir"), manifest.get("plan_dir")}
    for f in path.iterdir():
        if f.is_dir() and f.name.startswith(("statistics-", "query-")) and f.name not in keep:
            shutil.rmtree(f, ignore_errors=True)
        elif f.is_file() and f.name.startswith(f".{_MANIFEST}.") and f.name.endswith(".tmp"):
            f.unlink(missing_ok=True)

