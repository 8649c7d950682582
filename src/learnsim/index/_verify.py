"""Check every file of an index (:meth:`learnsim.index.Index.verify`, ``learnsim index verify``).

Unlike opening and searching, which check each file before its first use and stop at the first
damage, this reads everything and lists every damaged file: the manifest (its own checksum and
fields), the model (and ``versions/``: versions.json and each model version's file), the
statistics, the query plan, each segment (``segment.json``, each array's checksum, shape and
values: what :meth:`Segment.check` checks; its documents' store, each file against its sha256
and each row's digest against docs.sqlite's), the approximate structures' files, and
``docs.sqlite`` (SQLite's ``PRAGMA quick_check``, every row against the digest of its id, text
and metadata recorded when it was written, and its documents against the segments' sequence
numbers, exactly; each live row's text key, which Index.match finds exact copies by, against its
text). Rows written before learnsim recorded digests (an index written before
issue 45) cannot be checked: the report says how many (``"unchecked_documents"`` and a note),
which is no damage.

Only numpy and the standard library are imported here.
"""
from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import numpy as np

from .._utils.files import sha256_file
from ._segments import FORMAT_NAME, FORMAT_VERSION, IndexDamagedError, IndexFormatError, Segment, check_seal, \
    load_json, load_npy, read_manifest
from ._build import no_index
from ._manifest_fields import invalid_field
from ._store import read_only_connection

__all__ = ["verify_index", "verify_locked"]

_MANIFEST = "manifest.json"
_MODEL = "model.npz"
_DOCS = "docs.sqlite"
# problems SQLite's quick_check reports, at most (it stops there too)
_QUICK_CHECK_ROWS = 100


class _Report:
    def __init__(self, path):
        self.path = Path(path)
        self.damaged = []
        self.notes = []
        self.files = 0
        self.bytes = 0
        self.unchecked_documents = 0
        # (docs.bin, seqs, digests) of each segment's document store, checked against docs.sqlite
        self.segment_digests = []

    def bad(self, file, problem):
        # one line a damaged file: the first problem found (a segment that cannot be opened has
        # its arrays checked again one by one, which would name the same file twice)
        if all(d["file"] != str(file) for d in self.damaged):
            self.damaged.append({"file": str(file), "problem": " ".join(str(problem).split())})

    def exc(self, exc, fallback):
        """Record an IndexFormatError: the file it names, else ``fallback``."""
        if isinstance(exc, IndexDamagedError):
            self.bad(exc.path, exc.problem)
        else:
            self.bad(fallback, str(exc))

    def counted(self, file):
        try:
            self.bytes += Path(file).stat().st_size
            self.files += 1
        except OSError:
            pass


def _check_file(report, file, digest, required):
    """Whether ``file`` matches its recorded sha256 (recording the damage if not)."""
    report.counted(file)
    if digest is None:
        if required:
            report.bad(file, "no sha256 of it is recorded")
            return False
        return Path(file).is_file() or report.bad(file, "the file is missing") or False
    try:
        actual = sha256_file(file)
    except FileNotFoundError:
        report.bad(file, "the file is missing")
        return False
    except OSError as exc:
        report.bad(file, f"it cannot be read ({exc.strerror or exc})")
        return False
    if actual != digest:
        report.bad(file, "its sha256 does not match the one recorded when it was written")
        return False
    return True


def _check_segment(report, directory, entry, m, required):
    """Every file of one segment; returns its sequence numbers (None when unreadable)."""
    name = entry.get("name") if isinstance(entry, dict) else None
    where = Path(directory) / str(name)
    report.counted(where / "segment.json")
    try:
        seg = Segment(directory, entry, kind=m["kind"], n_features=m.get("n_features"),
                      dense_dim=m.get("dense_dim"), checksums_required=required)
    except IndexFormatError as exc:
        report.exc(exc, where)
        # the arrays whose checksums segment.json records can still be checked one by one
        if isinstance(entry, dict) and (where / "segment.json").is_file():
            try:
                meta = load_json(where / "segment.json")
            except IndexFormatError:
                meta = None     # already reported: Segment read it first
            sums = meta.get("sha256") if isinstance(meta, dict) else None
            if isinstance(sums, dict):
                for key, digest in sums.items():
                    if isinstance(key, str) and isinstance(digest, str) and "/" not in key:
                        _check_file(report, where / f"{key}.npy", digest, False)
            docs = meta.get("docs") if isinstance(meta, dict) else None
            if isinstance(docs, dict) and isinstance(docs.get("sha256"), str):
                _check_file(report, where / "docs.bin", docs["sha256"], False)
        return None
    report.counted(seg.path / "seqs.npy")
    ok = True
    for key in Segment._ARRAYS:
        if seg.has(key):
            file = seg.path / f"{key}.npy"
            report.counted(file)
            try:
                load_npy(file, seg.checksums.get(key) if seg.checksums else None)
            except IndexFormatError as exc:
                report.exc(exc, file)
                ok = False
            if required and key not in seg.checksums:
                report.bad(file, "segment.json records no sha256 of it")
                ok = False
    if seg.docs is not None:
        _check_segment_docs(report, seg)
    if ok:
        try:
            seg.check()
        except IndexFormatError as exc:
            report.exc(exc, seg.path)
    if seg.ann_meta is not None:
        _check_ann(report, seg)
    return np.asarray(seg.seqs)


def _check_segment_docs(report, seg):
    """The copy of a segment's documents (learnsim.index._segment_docs), read once: each file
    against its sha256 and the offsets as a search checks them (``SegmentDocs.whole``), every row
    against its digest; the digests are then compared with docs.sqlite's (_check_sqlite)."""
    import hashlib

    for file in seg.docs.files():
        report.counted(file)
    try:
        raw, offsets, digests = seg.docs.whole()
    except IndexFormatError as exc:
        report.exc(exc, seg.path / "docs.bin")
        return
    view, ends = memoryview(raw), offsets.tolist()
    for row in range(seg.n):
        if hashlib.blake2b(view[ends[row]:ends[row + 1]], digest_size=16).digest() != digests[row].tobytes():
            report.bad(seg.path / "docs.bin", f"the row of the document with sequence number {int(seg.seqs[row])} "
                                              "does not match its checksum")
            return
    report.segment_digests.append((seg.path / "docs.bin", np.asarray(seg.seqs), digests))


def _check_ann(report, seg):
    """The files of a segment's approximate structure: meta.json against segment.json, the
    others against meta.json (a damaged structure is searched exactly, but it is damage)."""
    meta = seg.ann_meta
    target = seg.path / "ann"
    if not isinstance(meta, dict) or not isinstance(meta.get("meta_sha256"), str):
        report.bad(seg.path / "segment.json", "its 'ann' entry records no sha256 of the structure's meta.json")
        return
    if not _check_file(report, target / "meta.json", meta["meta_sha256"], True):
        return
    try:
        ann_meta = load_json(target / "meta.json")
    except IndexFormatError as exc:
        report.exc(exc, target / "meta.json")
        return
    files = ann_meta.get("files") if isinstance(ann_meta, dict) else None
    if not isinstance(files, dict):
        report.bad(target / "meta.json", "it lists no files")
        return
    for name, digest in files.items():
        if not isinstance(name, str) or ".." in name.split("/") or not isinstance(digest, str):
            report.bad(target / "meta.json", f"it lists a file {name!r} wrongly")
            continue
        _check_file(report, target / name, digest, True)


def _check_sqlite(report, path, m, segment_seqs):
    """SQLite's quick_check, then its documents against the segments' (exactly)."""
    file = Path(path) / _DOCS
    report.counted(file)
    if not file.is_file():
        report.bad(file, "the file is missing")
        return
    try:
        # (a read-only mount is read as it is, not reported damaged for the -shm file SQLite could not make)
        conn = read_only_connection(str(file))
    except PermissionError as exc:
        report.bad(file, f"cannot read it ({exc})")
        return
    except sqlite3.DatabaseError as exc:
        report.bad(file, f"SQLite cannot open it ({exc})")
        return
    try:
        rows = [r[0] for r in conn.execute(f"PRAGMA quick_check({_QUICK_CHECK_ROWS})")]
        if rows != ["ok"]:
            report.bad(file, "SQLite's quick_check: " + "; ".join(map(str, rows[:5]))
                       + (f" (and {len(rows) - 5} more)" if len(rows) > 5 else ""))
            return
        _check_rows(report, file, conn)
        _check_text_keys(report, file, conn)
        _check_tombstones(report, file, conn)
        if m is None or segment_seqs is None:
            return
        covered = int(m["covered_seq"])
        conn.execute("BEGIN")
        stored = np.fromiter((r[0] for r in conn.execute("SELECT seq FROM docs WHERE seq <= ? ORDER BY seq",
                                                         (covered,))), dtype=np.int64)
        dead = np.fromiter((r[0] for r in conn.execute(
            "SELECT seq FROM docs WHERE deleted_seq IS NOT NULL AND seq <= ?", (covered,))), dtype=np.int64)
        conn.execute("COMMIT")
        _check_segment_digests(report, conn)
        missing = np.setdiff1d(segment_seqs, stored, assume_unique=True)
        live = np.setdiff1d(stored, dead, assume_unique=True)
        unsegmented = np.setdiff1d(live, segment_seqs, assume_unique=True)
        if missing.size:
            report.bad(Path(path) / _MANIFEST, f"its segments hold {missing.size} document(s) {_DOCS} lacks "
                                               f"(sequence numbers {missing[:5].tolist()}...)")
        if unsegmented.size:
            report.bad(Path(path) / _MANIFEST, f"its segments lack {unsegmented.size} live document(s) of {_DOCS} "
                                               f"up to covered_seq {covered} (sequence numbers "
                                               f"{unsegmented[:5].tolist()}...)")
    except sqlite3.DatabaseError as exc:
        report.bad(file, f"SQLite cannot read it ({exc})")
    finally:
        conn.close()


def _check_segment_digests(report, conn):
    """Each segment's stored documents against docs.sqlite's: the digest of each row alike (a
    row docs.sqlite records no digest of, written before digests, is not compared)."""
    if not report.segment_digests or not any(r[1] == "digest" for r in conn.execute("PRAGMA table_info(docs)")):
        return
    for file, seqs, digests in report.segment_digests:
        if not seqs.size:
            continue
        recorded = dict(conn.execute("SELECT seq, digest FROM docs WHERE seq BETWEEN ? AND ? AND digest IS NOT NULL",
                                     (int(seqs[0]), int(seqs[-1]))))
        differ = [seq for seq, digest in zip(seqs.tolist(), digests) if seq in recorded
                  and recorded[seq] != bytes(digest).hex()]
        if differ:
            report.bad(file, f"{len(differ)} of its documents differ from those {_DOCS} records (sequence numbers "
                             f"{differ[:5]}{'...' if len(differ) > 5 else ''})")


def _check_tombstones(report, file, conn):
    """Each deleted document names the write that deleted it (``deleted_seq``): a delete, an
    update or an upsert recorded in ``writes``. A tombstone naming no such write was set outside
    learnsim (a search would silently leave the document out). One set to a real write's number
    cannot be told from that write's own: the row digests cover what a document says, not
    whether it is live."""
    from ._integrity import FORGED_TOMBSTONE, has_writes

    if not has_writes(conn):
        return
    bad = conn.execute(f"SELECT seq, id, deleted_seq FROM docs WHERE {FORGED_TOMBSTONE} ORDER BY seq LIMIT 4").fetchall()
    if bad:
        shown = ", ".join(f"{doc_id!r:.40} (sequence number {seq}, deleted by write {gone!r:.20})"
                          for seq, doc_id, gone in bad[:3])
        report.bad(file, f"document(s) are marked deleted by a write that never happened (changed outside "
                         f"learnsim): {shown}" + (" ..." if len(bad) > 3 else ""))


def _check_rows(report, file, conn):
    """Every row of ``docs`` against its digest (the id, text and metadata as written)."""
    from ._store import row_matches

    has_digest = any(row[1] == "digest" for row in conn.execute("PRAGMA table_info(docs)"))
    if not has_digest:
        n = conn.execute("SELECT COUNT(*) FROM docs").fetchone()[0]
        report.unchecked_documents = int(n)
        if n:
            report.notes.append(f"{_DOCS}: its {n} document(s) were written before learnsim recorded a checksum of "
                                "each document's text and metadata, so those cannot be checked; the next write "
                                "records checksums for the documents it writes")
        return
    changed, unchecked = [], 0
    for seq, doc_id, text, meta, digest in conn.execute("SELECT seq, id, text, meta, digest FROM docs ORDER BY seq"):
        if digest is None:
            unchecked += 1
        elif not row_matches(doc_id, text, meta, digest):
            changed.append((seq, doc_id))
    report.unchecked_documents = unchecked
    if unchecked:
        report.notes.append(f"{_DOCS}: {unchecked} document(s) were written before learnsim recorded a checksum of "
                            "each document's text and metadata, so those cannot be checked")
    if changed:
        shown = ", ".join(f"{doc_id!r:.40} (sequence number {seq})" for seq, doc_id in changed[:3])
        report.bad(file, f"{len(changed)} document(s) do not match the checksum of their text and metadata recorded "
                         f"when they were written (changed outside learnsim): {shown}"
                         + (" ..." if len(changed) > 3 else ""))


def _check_text_keys(report, file, conn):
    """Each live row's ``text_key`` (its text's BLAKE2b, which Index.match finds exact copies by)
    against its text: a key edited with sqlite3 cannot make a match of another text (the text is
    compared before a copy is taken) but hides the copy it was the key of. A row with none
    (written before text keys, keyed by the next write) is not compared, nor a database that has
    no such column."""
    from ._store import text_key

    if not any(row[1] == "text_key" for row in conn.execute("PRAGMA table_info(docs)")):
        return
    changed = []
    for seq, doc_id, text, key in conn.execute("SELECT seq, id, text, text_key FROM docs "
                                               "WHERE deleted_seq IS NULL AND text_key IS NOT NULL ORDER BY seq"):
        try:
            ok = isinstance(text, str) and key == text_key(text)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            changed.append((seq, doc_id))
    if changed:
        shown = ", ".join(f"{doc_id!r:.40} (sequence number {seq})" for seq, doc_id in changed[:3])
        report.bad(file, f"{len(changed)} document(s) carry a text key that is not the key of their text (changed "
                         f"outside learnsim; an exact copy of them is not found by match): {shown}"
                         + (" ..." if len(changed) > 3 else ""))

def verify_index(path):
    """Check every file of the index at ``path``; see the module notes.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    dict
        ``path``, ``ok`` (no damage found), ``damaged`` (a list of ``{"file", "problem"}``, every
        damaged file, the manifest first), ``files`` and ``bytes`` checked, ``format_version``,
        ``unchecked_documents`` (rows written before learnsim recorded their digests),
        ``notes`` (what could not be checked, in words) and ``seconds``.
    """
    started = time.perf_counter()
    path = Path(path)
    if not (path / _MANIFEST).is_file():
        raise FileNotFoundError(no_index(path))
    report = _Report(path)
    m = None
    report.counted(path / _MANIFEST)
    try:
        m = read_manifest(path, _MANIFEST, FORMAT_NAME, FORMAT_VERSION)
        if not isinstance(m.get("format_version"), int):
            raise IndexDamagedError(path / _MANIFEST, "it has no valid 'format_version'")
        check_seal(m, path / _MANIFEST, required=m["format_version"] >= 2)
        bad = invalid_field(m)
        if bad is not None:
            raise IndexDamagedError(path / _MANIFEST, f"it has no valid {bad[0]!r} ({bad[1]})")
    except IndexFormatError as exc:
        report.exc(exc, path / _MANIFEST)
        m = None
    segment_seqs = None
    if m is not None:
        required = m["format_version"] >= 2
        _check_models(report, path, m)
        stats_dir = path / str(m.get("statistics_dir"))
        sums = m.get("statistics_sha256") or {}
        for name in m.get("statistics") or []:
            file = stats_dir / f"{name}.npy"
            if _check_file(report, file, sums.get(name), required):
                try:
                    arr = load_npy(file)
                    if arr.dtype.kind not in "fiu" or not np.isfinite(arr).all():
                        report.bad(file, "the statistics are not finite numbers")
                except IndexFormatError as exc:
                    report.exc(exc, file)
        if m.get("plan_dir") is not None:
            _check_plan(report, path / str(m["plan_dir"]), m.get("plan_sha256"), required)
        parts, whole = [], True
        for entry in m["segments"]:
            seqs = _check_segment(report, path / "segments", entry, m, required)
            if seqs is None:
                whole = False
            else:
                parts.append(seqs)
        if whole:
            segment_seqs = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    _check_sqlite(report, path, m, segment_seqs)
    return {"path": str(path), "ok": not report.damaged, "damaged": report.damaged, "files": report.files,
            "bytes": report.bytes, "format_version": None if m is None else m["format_version"],
            "unchecked_documents": report.unchecked_documents, "notes": report.notes,
            "seconds": round(time.perf_counter() - started, 3)}


def _check_models(report, path, m):
    """The model the manifest serves (the file it names), versions.json and every version's file
    (learnsim.index._versions), and model.npz: the served model, or where the manifest names a
    version's file, a copy of a version (of the one served before, for a moment after a promotion)."""
    from ._versions import check_versions, model_file

    try:
        served = model_file(path, m)
    except IndexFormatError as exc:
        report.exc(exc, path / _MANIFEST)
        return
    _check_file(report, served, m["model_sha256"], True)
    known = check_versions(path, m, report.bad, lambda file, digest: _check_file(report, file, digest, True))
    if served.name != _MODEL:
        report.counted(path / _MODEL)
        try:
            digest = sha256_file(path / _MODEL)
        except OSError as exc:
            report.bad(path / _MODEL, f"it cannot be read ({exc.strerror or exc})")
            return
        if known is not None and digest not in known:
            report.bad(path / _MODEL, "it is none of the index's model versions (edited or damaged)")


def _check_plan(report, directory, sums, required):
    from ._query import QueryPlan

    sums = sums or {}
    if not isinstance(sums, dict):
        report.bad(directory, "the manifest's plan_sha256 is not {file: sha256}")
        return
    names = set(sums)
    if not names:
        names = {f.name for f in directory.iterdir() if f.is_file()} if directory.is_dir() else {"plan.json"}
    if required:
        names |= {"plan.json", "terms.json"}
    whole = True
    for name in sorted(names):
        if "/" in name or name.startswith("."):
            report.bad(directory, f"the manifest lists a plan file {name!r} that is not a plain name")
            whole = False
            continue
        whole &= _check_file(report, directory / name, sums.get(name), required)
    if whole:
        try:
            plan = QueryPlan.load(directory, sums or None, required=required)
            if not all(np.isfinite(a).all() for a in plan.arrays.values() if a.dtype.kind == "f"):
                report.bad(directory, "the query plan holds NaN or infinite values")
        except IndexFormatError as exc:
            report.exc(exc, directory)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            report.bad(directory / "plan.json", f"the query plan cannot be read ({exc})")


def verify_locked(path):
    """:func:`verify_index` holding the writers' lock, so that a
    concurrent write is not taken for damage. FileNotFoundError when ``path`` holds no index."""
    from ._integrity import MANIFEST, Lock

    path = Path(path)
    if not (path / MANIFEST).is_file():
        raise FileNotFoundError(no_index(path))
    lock_damage = None
    try:
        lock = Lock(path / "lock").__enter__()
    except IndexDamagedError as exc:    # a directory or a pipe in the lock's place: every write fails
        lock, lock_damage = None, exc
    except OSError:         # a read-only directory: no writer can be running there either
        lock = None
    try:
        report = verify_index(path)
        if lock_damage is not None:
            report["damaged"].append({"file": lock_damage.path, "problem": lock_damage.problem})
            report["ok"] = False
        return report
    finally:
        if lock is not None:
            lock.__exit__(None, None, None)

