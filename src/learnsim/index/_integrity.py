"""Integrity of an index (format version 2): checksums, damage, and readers racing writers.

Every file an index writes is covered by a sha256 recorded when it is written: the manifest's
own (``manifest_sha256``, over its canonical JSON without that field), each segment's
``segment.json`` in the manifest's entry and its arrays in ``segment.json``, the statistics
(``statistics_sha256``), the plan (``plan_sha256``) and the model (``model_sha256``) in the
manifest. Each file is checked before its first use (the manifest, ``segment.json`` and
``seqs.npy`` at open; the other arrays, the plan and the statistics at first use), and read into
memory, so that a file changed under a running process cannot crash it. ``docs.sqlite`` changes
in place and carries no checksum: an error SQLite reports is damage, :meth:`Index.verify` runs
its ``quick_check``, and at open the live documents SQLite holds up to ``covered_seq`` must be
those the segments hold (counted), and a sample of them the same documents as the segments'
copies (:func:`check_same_documents`). Damage is an :class:`IndexDamagedError` naming the file;
:meth:`Index.verify` (:mod:`learnsim.index._verify`) lists every damaged file. A version 1
index (no checksums) is still read: its checksums are "not recorded".

Readers and writers: a writer publishes a new manifest before it removes the files the old one
listed, so a reader that finds a file gone or changed while the manifest moved on reads the new
manifest and tries again (at most :data:`RELOAD_TRIES` times) instead of reporting damage.

Only numpy and the standard library are imported here.
"""
from __future__ import annotations

import functools
import json
import os
import sqlite3
import time
import warnings
from pathlib import Path

import numpy as np

from .._utils.files import open_regular, sha256_file
from .._utils.progress import stage_for
from ..exceptions import IndexBusyError, IndexChangingError
from ._chroma_words import foreign_keywords, refuse_foreign_keywords
from ._reload import file_id
from ._segments import IndexDamagedError, IndexFormatError, load_npy, seal, write_json_atomic
from ._store import _SQLITE_FULL, _SQLITE_READONLY, DocumentStore

__all__ = ["RELOAD_TRIES", "LOCK_WAIT_S", "Lock", "model_encoder", "sqlite_damage", "sqlite_guarded", "write_manifest", "plan_checksums",
           "read_store", "plan_of", "checked_up_to", "check_against_store", "check_same_documents", "load_statistics", "statistics_key", "load_pipeline",
           "load_plan", "retry_if_moved", "read_retrying", "collection_rows", "FORGED_TOMBSTONE", "has_writes"]

MANIFEST = "manifest.json"
DOCS = "docs.sqlite"
# how often a reader reads a newer manifest again when the files the one it read listed vanished
# under it (a writer published the newer one and removed them): each try sees a manifest at most
# one writer's operation old, so this bounds how many writes may land during one open
RELOAD_TRIES = 20
# SQLite's primary result codes that are no damage of the file: busy or locked (a writer held it
# past the timeout), out of memory or disk, interrupted, read-only
_SQLITE_NOT_DAMAGE = {5, 6, 7, 8, 9, 13}
# SQLITE_IOERR_WRITE (an extended code): the system refused a write (a file-size limit, a disk
# full part-way, a failing disk). SQLite's commit is atomic, so the file is as before the write:
# not damage, which made a served index refuse every write until a restart
_SQLITE_IOERR_WRITE = 778


#: Seconds a writer (and ``verify``) waits for another writer's lock before IndexBusyError; a
#: note (a RuntimeWarning) says it is waiting after the first second.
LOCK_WAIT_S = 60.0


class Lock:
    """An exclusive lock on the index for one writer (fcntl where available), waited for at most
    ``wait`` seconds: a writer suspended (or a shell) holding it made every other writer, and
    ``verify``, wait without end and without a word. ``name``: what the busy error names (by
    default the folder of the lock file)."""

    def __init__(self, path, wait=None, name=None):
        self.path = path
        self.wait = LOCK_WAIT_S if wait is None else wait
        self.name = name

    def __enter__(self):
        self.fh = _open_lock(self.path)
        try:
            import fcntl
        except ImportError:       # not POSIX: one writer is the caller's responsibility
            return self
        start = time.monotonic()
        noted = False
        while True:
            try:
                fcntl.flock(self.fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                waited = time.monotonic() - start
                if waited >= self.wait:
                    self.fh.close()
                    raise IndexBusyError(f"{self.name or Path(self.path).parent}: another writer has held the index's "
                                         f"lock for {waited:.0f} s; nothing was changed: try again once it is done") from None
                if not noted and waited >= 1.0:
                    noted = True
                    warnings.warn(f"waiting for another writer of {self.name or Path(self.path).parent} to finish (at "
                                  f"most {self.wait:.0f} s)", RuntimeWarning, stacklevel=2)
                time.sleep(0.02)
                continue
            if _same_file(self.fh, self.path):
                return self
            # the file was removed or replaced while it was waited for (an index swapped in by
            # ``Index.build(overwrite=True)``, a build's lock removed once done): a lock on the
            # old one excludes nobody, so the one at the path now is taken instead
            self.fh.close()
            self.fh = _open_lock(self.path)

    def __exit__(self, *exc):
        self.fh.close()


def _open_lock(path):
    """The lock file at ``path`` opened for flock (created where missing). A directory, a named
    pipe or a device in its place is an IndexDamagedError naming it: every write failed with
    Python's "Is a directory" or "File or stream is not seekable", naming no file, and verify,
    which takes the lock where it can, said the index was intact."""
    import stat

    try:
        # O_NONBLOCK: a named pipe opened so never waits for a writer at its other end
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NONBLOCK", 0), 0o666)
    except IsADirectoryError:
        raise IndexDamagedError(path, "a directory is where the writers' lock file must be") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        what = "a named pipe" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) \
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file"
        raise IndexDamagedError(path, f"{what} is where the writers' lock file must be")
    return open(fd, "a+")


def _same_file(fh, path):
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    own = os.fstat(fh.fileno())
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


def sqlite_damage(path, exc):
    """The IndexDamagedError of an sqlite3.DatabaseError on ``path``, or None when it is not
    damage (busy, locked, disk full, ...: see _SQLITE_NOT_DAMAGE)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and ((code & 0xFF) in _SQLITE_NOT_DAMAGE or code == _SQLITE_IOERR_WRITE):
        return None
    return IndexDamagedError(path, f"SQLite cannot use it ({exc})")


def sqlite_guarded(method):
    """An Index method whose sqlite3.DatabaseError (damage of docs.sqlite) is an IndexDamagedError;
    a chromadb keyword it does not take (``where=``, ``documents=``) a TypeError naming learnsim's."""
    foreign = foreign_keywords(method)

    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        if kwargs and foreign and not foreign.isdisjoint(kwargs):
            refuse_foreign_keywords(method, foreign, kwargs)
        if getattr(self, "closed", False):
            # SQLite's "cannot operate on a closed database" is no damage (a 503 index_damaged
            # in the service): the handle was closed, as a file's I/O after close() is a ValueError
            raise ValueError(f"the index {self.path} is closed (Index.open it again)")
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            damage = sqlite_damage(self.path / DOCS, exc)
            if damage is None:
                unwritable = _unwritable(self.path / DOCS, exc)
                if unwritable is None:
                    raise
                raise unwritable from None
            raise damage from None
    return guarded


def _unwritable(path, exc):
    """The OSError of SQLite's "attempt to write a readonly database" (a docs.sqlite of mode 444,
    a file mounted read-only in a writable folder), "database or disk is full" or a write the
    system refused (SQLITE_IOERR_WRITE), or None: all are the machine's, not damage and not a
    bug, and were raised as a bare sqlite3 error (a
    traceback from the CLI, a 500 from the service)."""
    import errno

    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and (code & 0xFF) == _SQLITE_READONLY:
        return PermissionError(f"{path}: the index cannot be written: SQLite may only read its database ({exc}; "
                               "a read-only file or mount)")
    if code is not None and (code & 0xFF) == _SQLITE_FULL:
        return OSError(errno.ENOSPC, f"the index cannot be written: the disk is full ({exc})", str(path))
    if code == _SQLITE_IOERR_WRITE:
        return OSError(errno.EIO, f"the index cannot be written: the system refused the write ({exc}: a full "
                                  "disk, a file-size limit or a failing disk)", str(path))
    return None


def write_manifest(path, manifest):
    """Seal the manifest (its own checksum) and write it atomically."""
    write_json_atomic(Path(path) / MANIFEST, seal(manifest))


def plan_checksums(directory):
    """{file name: sha256} of the files of a plan directory."""
    return {f.name: sha256_file(f) for f in sorted(Path(directory).iterdir()) if f.is_file()}


#: The rows of ``docs`` marked deleted by no deleting write (set outside learnsim).
FORGED_TOMBSTONE = ("deleted_seq IS NOT NULL AND deleted_seq NOT IN "
                    "(SELECT seq FROM writes WHERE kind IN ('delete', 'update', 'upsert'))")


def has_writes(conn):
    """Whether docs.sqlite records its writes (every index since deletions were numbered)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'writes'").fetchone() is not None


def _live_up_to(conn, seq):
    """How many live documents SQLite holds with a sequence number up to ``seq``: all the live
    ones, counted on the partial index of their ids (far smaller than the table, whose pages
    hold the texts: a count of the table's rows reads the whole database), less those after
    ``seq`` (the few added after the last segment)."""
    live = conn.execute("SELECT COUNT(*) FROM docs WHERE deleted_seq IS NULL").fetchone()[0]
    after = conn.execute("SELECT COUNT(*) FROM docs WHERE seq > ? AND deleted_seq IS NULL", (int(seq),)).fetchone()[0]
    return int(live) - int(after)


#: Documents of ``docs.sqlite`` compared with the segments' copies at an open, spread over the
#: index: a B-tree lookup and a 16-byte read each, well under a millisecond in all.
SAMPLED_DOCUMENTS = 64


def check_same_documents(path, store, segments):
    """``docs.sqlite`` must hold this index's documents: the digests it records of up to
    :data:`SAMPLED_DOCUMENTS` documents, spread over the segments, must be those the segments'
    copies record (``docs_digest.npy``). The counts compared by :func:`check_against_store` pass
    for the database of another index of as many documents (a restore from the wrong backup, two
    folders mixed up): its searches read the segments, while ``document()``, ``more_like`` and
    every filter read the other's texts and metadata under the same ids. IndexDamagedError naming
    ``docs.sqlite`` (or the segment's file, when it is the one damaged). Segments written before
    their store, and rows written before digests, are not compared."""
    held = [seg for seg in segments if getattr(seg, "docs", None) is not None and seg.n]
    total = sum(seg.n for seg in held)
    if not total or not store.digests:
        return
    picks = np.unique(np.linspace(0, total - 1, min(total, SAMPLED_DOCUMENTS)).astype(np.int64))
    start, wanted = 0, []
    for seg in held:
        rows = picks[(picks >= start) & (picks < start + seg.n)] - start
        start += seg.n
        if rows.size:
            seqs = np.asarray(seg.seqs)[rows].tolist()
            wanted.append((seg, rows.tolist(), seqs, seg.docs.stored_digests(rows.tolist())))
    every = [seq for _, _, seqs, _ in wanted for seq in seqs]
    marks = ",".join("?" * len(every))
    stored = dict(store.conn.execute(f"SELECT seq, digest FROM docs WHERE seq IN ({marks})", every).fetchall())
    differ = []
    for seg, rows, seqs, digests in wanted:
        bad = [seq for seq, digest in zip(seqs, digests)
               if stored.get(seq) is not None and stored[seq] != digest.hex()]
        if bad:
            seg.docs.checked_digests()      # the segment's own file damaged: named by its checksum
            differ.extend(bad)
    if differ:
        raise IndexDamagedError(Path(path) / DOCS, f"{len(differ)} of {len(every)} documents compared differ from "
                                                   f"the segments' copies (sequence numbers {differ[:5]}): "
                                                   "the database of another index?")


def read_store(path, m, seqs, since=None, segments=(), store=None):
    """Open ``docs.sqlite`` and read, in one snapshot, what an open needs and checks: returns
    (store, documents after covered_seq as (seq, text), deleted seqs, data_version), once
    :func:`check_against_store` passed (and, at an open, :func:`check_same_documents` of
    ``segments``). IndexDamagedError for an error SQLite reports.

    ``since``: a sequence number up to which the segments were checked against SQLite
    already (a handle reloading a manifest that only added segments after the ones it checked):
    only the documents after it are counted, on a range of the table's key, not every live
    document (6 ms at 100k, 50-70 ms at 1M, on every reload after a write).

    ``store``: the handle's open DocumentStore to read on (:func:`._reload.kept_store`), left
    open whatever happens; None: a new connection, closed when anything fails."""
    path = Path(path)
    kept = store is not None
    try:
        if store is None:
            # which file it is, before connecting: a file swapped in between is then taken for
            # another one at the next reload (a new connection), never the other way round
            opened = file_id(path / DOCS)
            store = DocumentStore(path / DOCS)
            store.file_id = opened
        conn = store.conn
        # one snapshot for what is compared: a delete between two reads would look like damage
        conn.execute("BEGIN")
        try:
            tail = store.rows_after(m["covered_seq"])
            dead = store.deleted_seqs()
            if since is None:
                live_stored = _live_up_to(conn, m["covered_seq"])
            else:
                live_stored = conn.execute("SELECT COUNT(*) FROM docs WHERE seq > ? AND seq <= ? AND deleted_seq IS NULL",
                                           (int(since), int(m["covered_seq"]))).fetchone()[0]
            data_version = conn.execute("PRAGMA data_version").fetchone()[0]
            # a tombstone names the write that deleted it: one naming no deleting write was set
            # outside learnsim, and the document would silently be left out of every answer
            # (the deleted rows alone are read: an index of them, and a key lookup each)
            forged = (conn.execute(f"SELECT id FROM docs WHERE {FORGED_TOMBSTONE} LIMIT 1").fetchone()
                      if has_writes(conn) else None)
        finally:
            conn.execute("COMMIT")
        if forged is not None:
            raise IndexDamagedError(path / DOCS, f"the document {forged[0]!r:.40} is marked deleted by a write that "
                                                 "never happened (changed outside learnsim)")
        if since is None:
            check_against_store(path, m, seqs, dead, live_stored)
            check_same_documents(path, store, segments)
        else:
            dead_after = np.asarray(dead, dtype=np.int64)
            check_against_store(path, m, seqs[seqs > since], dead_after[dead_after > since], live_stored)
        return store, tail, dead, data_version
    except BaseException as exc:
        if store is not None and not kept:
            store.close()
        if not isinstance(exc, sqlite3.DatabaseError) or sqlite_damage(path / DOCS, exc) is None:
            raise
        raise IndexDamagedError(path / DOCS, f"cannot read {DOCS} ({exc})") from None


def checked_up_to(old, m):
    """The sequence number up to which a handle whose manifest was ``old`` checked the segments of
    the manifest ``m`` against SQLite already, or None (an open, a compaction, a reindex:
    everything is counted).

    ``old``'s covered_seq when ``m`` only added segments after the ones ``old`` lists (an add: the
    common reload). When ``m`` keeps the first of ``old``'s segments and replaces the rest (a merge
    of the small segments that adds leave, every ``MERGE_AT`` adds), the last document of those it
    keeps: only the documents after it are counted again. A count of every live document took
    17 ms at 100k documents (50-70 ms at 1M) on every reload after a merge, in every process
    serving the index, while its searches waited."""
    if old is None or m["covered_seq"] < old["covered_seq"]:
        return None
    kept = 0
    for a, b in zip(old["segments"], m["segments"]):
        if not (isinstance(a, dict) and isinstance(b, dict)
                and (a.get("name"), a.get("sha256"), a.get("n")) == (b.get("name"), b.get("sha256"), b.get("n"))):
            break
        kept += 1
    if kept == len(old["segments"]):
        return old["covered_seq"]
    # the last document of the segments kept (their first and last were checked against their
    # rows when the handle opened them)
    last = [e.get("last_seq") for e in old["segments"][:kept] if e.get("n")]
    if not last or not all(isinstance(x, int) and not isinstance(x, bool) for x in last):
        return None
    return max(last)


def check_against_store(path, m, seqs, dead, live_stored):
    """The manifest must cover what SQLite holds: as many live documents up to covered_seq as
    SQLite holds (a manifest that lost segments, or SQLite that lost documents), and no more
    documents than SQLite has up to it, deleted ones included (compared by counts: O(documents)
    in numpy)."""
    where = Path(path) / MANIFEST
    if seqs.size > 1 and not np.all(np.diff(seqs) > 0):
        raise IndexFormatError(f"{path}: segments overlap or are out of order")
    if seqs.size and int(seqs[-1]) > m["covered_seq"]:
        raise IndexDamagedError(where, f"its segments hold document {int(seqs[-1])}, past its covered_seq "
                                       f"{m['covered_seq']}")
    dead = np.asarray(dead, dtype=np.int64)
    dead = dead[dead <= m["covered_seq"]]
    live_segments = int(seqs.size) - (int(np.count_nonzero(np.isin(dead, seqs, assume_unique=True)))
                                      if dead.size else 0)
    # every deleted document is a row of SQLite: the rows up to covered_seq, deleted or live
    stored = int(live_stored) + int(dead.size)
    if live_segments != live_stored or seqs.size > stored:
        raise IndexDamagedError(where, f"it disagrees with {DOCS}: its segments hold {live_segments} live documents "
                                       f"({int(seqs.size)} in all) up to sequence number {m['covered_seq']}, where "
                                       f"{DOCS} holds {live_stored} ({stored} in all)")


def load_statistics(path, m):
    """{name: array} of the statistics the manifest ``m`` lists, each checked (checksum, finite)."""
    directory = Path(path) / str(m.get("statistics_dir"))
    sums = m.get("statistics_sha256") or {}
    out = {}
    for name in m.get("statistics", []):
        file = directory / f"{name}.npy"
        if m["format_version"] >= 2 and name not in sums:
            raise IndexDamagedError(file, "the manifest records no sha256 of it")
        out[name] = load_npy(file, sums.get(name))
        if out[name].dtype.kind not in "fiu" or not np.isfinite(out[name]).all():
            raise IndexFormatError(f"{path}: statistics {name!r} are not finite numbers ({file})")
    return out


def statistics_key(m):
    """What identifies the statistics of a manifest (a handle caches them under it)."""
    return m.get("statistics_dir"), json.dumps(m.get("statistics_sha256"), sort_keys=True)


def plan_of(manifest):
    """What identifies the query plan of a manifest (a handle keeps it while this stays): its
    folder's name alone is the same in an index rebuilt in place of another (``query-1``), whose
    plan holds other statistics."""
    return manifest.get("plan_dir"), repr(manifest.get("plan_sha256"))


def load_pipeline(model, sha256):
    """The pipeline of the model file ``model``, once its checksum matched ``sha256``."""
    from ..persistence import ModelFormatError
    from ..pipeline import Pipeline

    try:
        digest = sha256_file(model)
    except OSError as exc:
        raise IndexDamagedError(model, f"it cannot be read ({exc.strerror or exc})") from None
    if digest != sha256:
        raise IndexDamagedError(model, "it does not match the checksum in the manifest (edited or damaged)")
    try:
        return Pipeline.load(model)
    except ModelFormatError as exc:
        raise IndexDamagedError(model, str(exc)) from None


def load_plan(path, m):
    """The query plan of the manifest ``m``, every file checked (IndexFormatError if not)."""
    from ._query import QueryPlan

    try:
        plan = QueryPlan.load(Path(path) / m["plan_dir"], m.get("plan_sha256"), required=m["format_version"] >= 2)
    except IndexFormatError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise IndexFormatError(f"{path}: cannot read the query plan ({exc})") from None
    if not all(np.isfinite(a).all() for a in plan.arrays.values() if a.dtype.kind == "f"):
        raise IndexFormatError(f"{path}: the query plan holds NaN or infinite values")
    return plan


def check_plan_dictionary(path, m):
    """Warn, at an index's open, where its query plan was fitted with another dictionary than its
    analyser reads here (:func:`learnsim.text.check_dictionary`; once a process). The plan itself
    loads at the first search (its vocabulary takes 30-40 ms at 100k documents), and the warning
    came only then: a program that opens its index at its start learned of it in the middle of
    its work. Only ``plan.json`` is read here, and parsed only where it names a
    morphological analyser; anything wrong with it is left to the first search, which says so."""
    plan_dir = m.get("plan_dir")
    if not isinstance(plan_dir, str):
        return
    import hashlib

    try:
        # opened as every file of an index is (a named pipe or a link to /dev/zero is damage,
        # not a wait for ever), and not taken from what a command reads ahead for its search
        with open_regular(Path(path) / plan_dir / "plan.json") as fh:
            raw = fh.read()
        if not any(name in raw for name in (b'"sudachi"', b'"fugashi"', b'"jieba"')):
            return
        # hashed only here: a FILM's plan.json holds its training vocabulary (megabytes)
        recorded = (m.get("plan_sha256") or {}).get("plan.json")
        if recorded is not None and hashlib.sha256(raw).hexdigest() != recorded:
            return
        meta = json.loads(raw.decode("utf-8"))
        analyzer = meta["tokenizer"]["analyzer"]
    except Exception:   # noqa: BLE001 - a damaged or unreadable plan: the first search names it
        return
    from ..text import check_dictionary

    try:
        check_dictionary(analyzer, meta.get("dictionary"), "the index's model")
    except ValueError:  # a damaged record: the plan's load refuses it at the first search
        return


def analysis_info(index):
    """``Index.info()["analysis"]``: how the query plan cuts text (its analyzer, and the
    dictionary of a morphological analyser recorded at fit beside the one installed here); None
    for an index without a plan (its pipeline reads queries)."""
    if index.manifest.get("plan_dir") is None:
        return None
    if index._plan is None:
        try:
            index._plan = load_plan(index.path, index.manifest)
        except (IndexFormatError, IndexDamagedError) as exc:
            # info describes a damaged index too (learnsim index verify names what is wrong)
            return {"unreadable": str(exc)}
    from ..text import installed_dictionary

    plan = index._plan
    analyzer = plan.tokenizer.analyzer
    return {"analyzer": analyzer, "cjk_unigrams": plan.tokenizer.cjk_unigrams,
            "dictionary": plan.meta.get("dictionary"), "installed_dictionary": installed_dictionary(analyzer)}


def retry_if_moved(index, load):
    """Run ``load`` (which reads the manifest and what it lists); when it fails while the manifest
    file was replaced since it read it (``index._loading_manifest``), a writer removed what the
    old one listed: run it again on the newer manifest (at most RELOAD_TRIES times)."""
    for attempt in range(RELOAD_TRIES):
        try:
            return load()
        except (IndexFormatError, OSError):
            if attempt == RELOAD_TRIES - 1 or index._manifest_id() == getattr(index, "_loading_manifest", None):
                raise
            time.sleep(0.002 * (attempt + 1))


def read_retrying(index, read):
    """Run a read (a search, ...) on one state of the index: when it fails because a file it
    needed first now (the plan, a segment's arrays, the statistics) was removed by a writer that
    published a newer manifest since the handle loaded its own, load the newer one and run it
    again; and when it succeeded but the handle loaded a newer state while it ran (a promotion, a
    rollback or a reindex seen half-way), run it again too: an answer is one version's, never a
    mix of two (issue 45)."""
    for attempt in range(RELOAD_TRIES):
        index._see_changes()
        loads = getattr(index, "_loads", 0)
        try:
            result = read()
        except (IndexFormatError, OSError):
            if attempt == RELOAD_TRIES - 1 or index._manifest_id() == index._seen_manifest:
                raise
            time.sleep(0.002 * (attempt + 1))
            continue
        if getattr(index, "_loads", 0) == loads:
            return result
    raise IndexChangingError(f"{index.path}: the index changed under every one of {RELOAD_TRIES} reads; retry")


def collection_rows(pipeline, texts):
    """(X, statistics) of the texts an index is (re)built from: the collection statistics
    (``Pipeline.collection_statistics``: the collection's vocabulary where the model has a
    lexical part, issue 32) and the vectors the rows are computed from (None: the rows come from
    the texts, ``Pipeline.document_rows``)."""
    with stage_for(f"index: vectorizing {len(texts)} texts", len(texts)):
        if pipeline.uses_collection_vocabulary:
            return None, pipeline.collection_statistics(texts)
        X = pipeline.vectorize(texts)
        return X, pipeline.scorer.collection_statistics(X)


def model_encoder(pipeline):
    """The short name of a pipeline's sentence encoder (``learnsim.text.encoders.encoder_name``),
    or None for a model over term vectors: what an index records beside its method."""
    from ..text.encoders import encoder_name, is_encoder

    return encoder_name(pipeline.vectorizer) if is_encoder(pipeline.vectorizer) else None
