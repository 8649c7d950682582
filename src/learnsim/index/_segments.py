"""Segments and the manifest of an index: ``.npy`` arrays written atomically, each with its sha256.

A segment holds the rows of a run of documents, in the order of their sequence numbers:

- ``seqs.npy``      int64 (n,): the documents' sequence numbers (strictly increasing);
- ``dense.npy``     float32/float64 (n, d): the dense part of the rows (FILM, MCD), if any;
- ``indptr.npy``, ``indices.npy``, ``data.npy``: the sparse part by term (CSC: the posting list
  of term t is ``indices[indptr[t]:indptr[t + 1]]``, rows within the segment, with its weights
  in ``data``), if any;
- ``sq.npy``        float64 (n,): squared norms in the model's metric (distance models only);
- ``segment.json``  what the arrays must be (n, shapes, dtype) and the sha256 of each, written last;
  its own sha256 is in the manifest's entry of the segment.

A segment is written into a temporary directory, every file and the directory are fsynced,
and it is renamed into place; only then does the manifest (written the same way: a temporary
file, fsync, rename, fsync of the directory) list it. Opening reads only the segments the
manifest lists, so a half-written segment is never read, whatever stopped the writer.

Integrity (format version 2): every file carries a sha256 recorded when it is written, and is
checked before its first use: ``segment.json`` and ``seqs.npy`` when the segment is opened, the
other arrays when a search (or a merge) first needs them (:meth:`Segment.check`). A checked file
is read once into memory and the array built from those bytes, never mmapped: a file truncated or
rewritten under a running process cannot then crash it (SIGBUS) or change its answers. Damage is
an :class:`IndexDamagedError` naming the file. A version 1 index (no checksums) is still read:
its checksums are "not recorded", and only the shapes and values are checked.

Only numpy and the standard library are imported here.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import secrets
import shutil
import threading
from pathlib import Path

import numpy as np

from .._utils import prefetch
from .._utils.files import open_regular, save_npy, sha256_file
from ..exceptions import IndexDamagedError, IndexFormatError  # noqa: F401  (defined there; importable here as in 0.1)

__all__ = ["IndexFormatError", "IndexDamagedError", "write_json_atomic", "write_segment", "Segment", "fsync_dir",
           "rows_of", "merged_rows", "read_verified", "load_npy", "npy_header", "seal", "check_seal",
           "SEAL_KEY"]

FORMAT_NAME = "learnsim-index"
# 2: every file's sha256 is recorded (the manifest's own under SEAL_KEY); 1 is still read
FORMAT_VERSION = 2
# the manifest's field holding the sha256 of its canonical JSON without that field
SEAL_KEY = "manifest_sha256"
# largest .npy header read (numpy's own default bound)
_MAX_HEADER = 10_000


def _sha256(raw):
    return hashlib.sha256(raw).hexdigest()


# A file at least this large is read and hashed at once (:func:`_read_and_hash`)
_OVERLAP_BYTES = 8 << 20
_OVERLAP_CHUNK = 4 << 20


def _read(path, into_array=False, sha256=None):
    """(content, its sha256 or None) of the file ``path``: bytes, or (``into_array``) a uint8
    array (numpy allocates large ones page-aligned: the arrays built over it are aligned as
    np.load's). The digest is computed here (``sha256``: the one to check, None: no check) only
    where the read and the hash can overlap; else None, and the caller hashes."""
    ahead = prefetch.take(path)
    if ahead is not None:
        # read and hashed on another core while the command's imports ran (learnsim._utils.prefetch)
        buf, digest = ahead
        return (np.frombuffer(buf, dtype=np.uint8) if into_array else bytes(buf)), digest
    try:
        with open_regular(path) as fh:
            if not into_array:
                return fh.read(), None
            size = os.fstat(fh.fileno()).st_size
            buf = np.empty(size, dtype=np.uint8)
            if sha256 is not None and size >= _OVERLAP_BYTES:
                got, digest = _read_and_hash(fh, buf)
            else:
                got, digest = _read_into(fh, memoryview(buf)), None
            if got != size:         # shrunk meanwhile: what was read is what is hashed
                buf = buf[:got]
            return buf, digest
    except FileNotFoundError:
        raise IndexDamagedError(path, "the file is missing") from None
    except OSError as exc:
        raise IndexDamagedError(path, f"it cannot be read ({exc.strerror or exc})") from None


def _read_into(fh, view):
    """Fill ``view`` from ``fh``; the bytes read (fewer at the end of the file). One read call
    returns at most about 2 GB on Linux: a loop, not one call."""
    pos = 0
    while pos < len(view):
        got = fh.readinto(view[pos:])
        if not got:
            break
        pos += got
    return pos


def _read_and_hash(fh, buf):
    """Read ``fh`` into ``buf`` in a thread while this one hashes what has arrived: (bytes read,
    their sha256). Both release the GIL; one after the other they cost their sum (38 MB of
    FILM rows: 16 ms to read from the page cache, 40 ms to hash, on a 2-core Xeon), overlapped
    about the hash alone: the first search of an index checks its segments this way."""
    view = memoryview(buf)
    state = {"read": 0, "done": False, "error": None}
    arrived = threading.Condition()

    def reader():
        try:
            pos = 0
            while pos < len(buf):
                got = fh.readinto(view[pos:pos + _OVERLAP_CHUNK])
                if not got:
                    break
                pos += got
                with arrived:
                    state["read"] = pos
                    arrived.notify()
        except BaseException as exc:    # noqa: BLE001 - raised again in the caller's thread
            state["error"] = exc
        finally:
            with arrived:
                state["done"] = True
                arrived.notify()

    thread = threading.Thread(target=reader, name="learnsim-read", daemon=True)
    thread.start()
    digest = hashlib.sha256()
    hashed = 0
    while True:
        with arrived:
            while state["read"] == hashed and not state["done"]:
                arrived.wait()
            upto, done = state["read"], state["done"]
        if upto > hashed:
            digest.update(view[hashed:upto])
            hashed = upto
        elif done:
            break
    thread.join()
    if state["error"] is not None:
        raise state["error"]
    return hashed, digest.hexdigest()


def read_verified(path, sha256=None, into_array=False):
    """The content of the file ``path`` (bytes, or a uint8 array: :func:`_read`), checked
    against its recorded ``sha256`` (None: not recorded). IndexDamagedError when it cannot be
    read or does not match."""
    raw, digest = _read(path, into_array, sha256)
    if sha256 is not None and (digest if digest is not None else _sha256(raw)) != sha256:
        raise IndexDamagedError(path, "its sha256 does not match the one recorded when it was written")
    return raw


# the header numpy's np.save writes: {'descr': ..., 'fortran_order': ..., 'shape': (...), }
_NPY_HEADER = re.compile(r"\{'descr': '([<>|=]?[A-Za-z]\d*)', 'fortran_order': (False|True), "
                         r"'shape': \(((?:\d+, ?)*\d*)\), \}\s*")
# numpy parses other headers with the ast module, which CPython 3.11 does not make safe for
# threads (a server's workers open segments concurrently): one at a time
_AST_LOCK = threading.Lock()


def _parse_npy_header(head, path):
    """(shape, dtype, offset of the data) of the .npy bytes ``head``."""
    if len(head) < 10 or head[:6] != b"\x93NUMPY":
        raise IndexDamagedError(path, "it is not a whole .npy file (no .npy header)")
    major = head[6]
    if major == 1:
        size, start = int.from_bytes(head[8:10], "little"), 10
    elif major in (2, 3):
        size, start = int.from_bytes(head[8:12], "little"), 12
    else:
        raise IndexDamagedError(path, f"it is not a .npy file numpy writes (version {major})")
    if size > _MAX_HEADER or len(head) < start + size:
        raise IndexDamagedError(path, "it is not a whole .npy file (its header is cut or oversized)")
    text = head[start:start + size].decode("latin1" if major < 3 else "utf-8", errors="replace")
    found = _NPY_HEADER.fullmatch(text)
    if found is not None:
        try:
            dtype = np.dtype(found.group(1))
        except TypeError:
            raise IndexDamagedError(path, f"its header names no dtype numpy knows ({found.group(1)!r})") from None
        fortran = found.group(2) == "True"
        shape = tuple(int(x) for x in found.group(3).replace(" ", "").split(",") if x)
    else:
        import io

        fh = io.BytesIO(head)
        try:
            with _AST_LOCK:
                version = np.lib.format.read_magic(fh)
                if version == (1, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh, max_header_size=_MAX_HEADER)
                else:
                    shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh, max_header_size=_MAX_HEADER)
        except (ValueError, EOFError, OSError, SyntaxError, TypeError) as exc:
            raise IndexDamagedError(path, f"it is not a whole .npy file ({exc or 'empty'})") from None
    if dtype.hasobject or fortran:
        raise IndexDamagedError(path, f"it holds {'objects' if dtype.hasobject else 'a Fortran-ordered array'}, "
                                      f"which no index writes")
    return tuple(shape), dtype, start + size


def npy_header(path):
    """(shape, dtype) of a ``.npy`` file from its header, checking that the file holds exactly the
    bytes the header announces (a truncated file is found without reading it)."""
    try:
        size = os.stat(path).st_size
        with open_regular(path) as fh:
            head = fh.read(min(size, _MAX_HEADER + 16))
    except FileNotFoundError:
        raise IndexDamagedError(path, "the file is missing") from None
    except OSError as exc:
        raise IndexDamagedError(path, f"it cannot be read ({exc.strerror or exc})") from None
    shape, dtype, offset = _parse_npy_header(head, path)
    # a Python int: numpy's int64 product of a forged shape wraps around (2^32 * 2^32 is 0)
    expected = offset + math.prod(shape) * dtype.itemsize
    if size != expected:
        raise IndexDamagedError(path, f"it holds {size} bytes where its header announces {expected} (truncated "
                                      f"or extended)")
    return shape, dtype


def load_npy(path, sha256=None):
    """The array of a ``.npy`` file, read once into memory and checked against its recorded
    ``sha256`` (None: not recorded); read-only. Never a memory map: a file truncated later
    cannot crash the process (SIGBUS), and the bytes hashed are the bytes used."""
    raw = read_verified(path, sha256, into_array=True)
    shape, dtype, offset = _parse_npy_header(raw[:_MAX_HEADER + 16].tobytes(), path)
    count = math.prod(shape)        # a Python int: an int64 product of a forged shape wraps
    if raw.shape[0] != offset + count * dtype.itemsize:
        raise IndexDamagedError(path, f"it holds {raw.shape[0]} bytes where its header announces "
                                      f"{offset + count * dtype.itemsize} (truncated or extended)")
    # over the bytes read (no copy), read-only as the mapped arrays were
    arr = np.frombuffer(raw, dtype=dtype, count=count, offset=offset).reshape(shape)
    arr.flags.writeable = False
    return arr


def load_json(path, sha256=None):
    """The JSON of a file, checked against its recorded ``sha256``; IndexDamagedError if not JSON."""
    raw = read_verified(path, sha256)
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise IndexDamagedError(path, f"it is not valid UTF-8 JSON ({exc})") from None


def _canonical(obj):
    return json.dumps({k: v for k, v in obj.items() if k != SEAL_KEY}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True, allow_nan=False).encode("ascii")


def seal(manifest):
    """Set the manifest's own checksum (:data:`SEAL_KEY`: the sha256 of its canonical JSON without
    that field) and return it."""
    manifest[SEAL_KEY] = _sha256(_canonical(manifest))
    return manifest


def check_seal(manifest, path, required):
    """IndexDamagedError naming ``path`` when the manifest's own checksum does not match, or is
    absent where ``required`` (format version 2 on)."""
    recorded = manifest.get(SEAL_KEY)
    if recorded is None:
        if required:
            raise IndexDamagedError(path, f"its checksum ({SEAL_KEY!r}) is missing")
        return
    try:
        ok = isinstance(recorded, str) and _sha256(_canonical(manifest)) == recorded
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise IndexDamagedError(path, "its checksum does not match its content (edited or damaged)")


def fsync_dir(path):
    """fsync a directory, so that a rename inside it survives a crash (no-op where unsupported)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _fsync_file(path):
    with open(path, "rb+") as fh:
        os.fsync(fh.fileno())


def read_manifest(path, name, format_name, format_version, what="index"):
    """The manifest ``path / name`` of a learnsim ``what`` whose format is ``format_name``, read
    and checked as far as every manifest goes (a dict, the format, a version this learnsim reads);
    IndexFormatError otherwise. The fields of each kind of manifest are checked by its reader."""
    try:
        with open_regular(path / name) as fh:
            m = json.loads(fh.read().decode("utf-8"))
    except FileNotFoundError as exc:
        raise IndexFormatError(f"{path}: cannot read {name} ({exc})") from None
    except (OSError, ValueError, RecursionError) as exc:
        raise IndexDamagedError(path / name, f"cannot read {name} ({exc})") from None
    if not isinstance(m, dict) or m.get("format") != format_name:
        raise IndexFormatError(f"{path}: {name} is not a learnsim {what} manifest")
    if type(m.get("format_version")) is not int:
        # not a version a newer learnsim wrote ("None is newer than this learnsim reads"): damage
        raise IndexDamagedError(path / name, f"its format_version is {m.get('format_version')!r}, not a whole number")
    if m["format_version"] > format_version:
        raise IndexFormatError(f"{path}: {what} format version {m.get('format_version')!r} is newer than "
                               f"this learnsim reads ({format_version}); upgrade learnsim")
    if what == "index":
        part = linked_part(path)
        if part is not None:
            # another index's folder or file linked in: its checks pass there, and a compact
            # here removed that index's segments (or left a link to a removed one)
            raise IndexDamagedError(path / part, f"{part} is a symbolic link (to {os.readlink(path / part)}): "
                                                 "an index's files are its own")
    return m


def linked_part(path):
    """The first symbolic link inside the index folder ``path`` (the folder itself may be one),
    as a relative POSIX path, or None: segments/, versions/ and docs.sqlite, and as well the
    model, the statistics, a segment folder or any file in one. Listings only (no file is
    opened nor stat'ed where the OS gives the entry's type); a folder removed meanwhile by a
    writer's compaction is skipped."""
    pending = [(path, "")]
    while pending:
        folder, prefix = pending.pop(0)
        try:
            with os.scandir(folder) as entries:
                entries = sorted(entries, key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in entries:
            if entry.is_symlink():
                return prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                pending.append((entry.path, f"{prefix}{entry.name}/"))
    return None


def write_json_atomic(path, obj):
    """Write JSON to ``path`` through a fsynced temporary file and a rename (an index's manifest
    is sealed by the caller first: :func:`seal`)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, indent=1, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


def write_segment(directory, name, seqs, rows, dtype, extra=None, docs=None):
    """Write a segment (see the module notes) of documents ``seqs`` with ``rows`` (a Rows of CSR
    and dense parts) and return its manifest entry. ``docs``, if given, is the copy of the rows'
    documents (:meth:`learnsim.index._store.DocumentStore.segment_docs`, written by
    learnsim.index._segment_docs.write_docs). ``extra(tmp_dir, rows, meta)``, if given, writes
    more files into the segment's temporary directory (fsynced) and records them in ``meta``
    (segment.json) before the rename: the approximate structure of :mod:`learnsim.index._ann`."""
    import scipy.sparse as sp

    directory = Path(directory)
    final = directory / name
    tmp = directory / f".tmp-{name}-{secrets.token_hex(4)}"
    tmp.mkdir(parents=True)
    try:
        seqs = np.asarray(seqs, dtype=np.int64)
        n = seqs.shape[0]
        meta = {"n": int(n), "dtype": np.dtype(dtype).name, "first_seq": int(seqs[0]) if n else 0,
                "last_seq": int(seqs[-1]) if n else 0}
        files = {"seqs": seqs}
        if rows.dense is not None:
            dense = np.ascontiguousarray(rows.dense, dtype=dtype)
            files["dense"] = dense
            meta["dense_dim"] = int(dense.shape[1])
        if rows.sparse is not None:
            csc = sp.csc_matrix(rows.sparse, dtype=dtype)
            csc.sort_indices()
            files["indptr"] = csc.indptr.astype(np.int64)
            files["indices"] = csc.indices.astype(np.int32)
            files["data"] = csc.data.astype(dtype)
            meta["n_features"] = int(csc.shape[1])
            meta["nnz"] = int(csc.nnz)
        if rows.sq is not None:
            files["sq"] = np.asarray(rows.sq, dtype=np.float64)
        if docs is not None:
            from ._segment_docs import write_docs

            files.update(write_docs(tmp, docs, meta))
        checksums = {}
        for key, arr in files.items():
            save_npy(tmp / f"{key}.npy", arr)
            _fsync_file(tmp / f"{key}.npy")
            # of the bytes on disk, read back: what a reader will hash
            checksums[key] = sha256_file(tmp / f"{key}.npy")
        meta["files"] = sorted(files)
        meta["sha256"] = checksums
        if extra is not None:
            extra(tmp, rows, meta)
        raw = json.dumps(meta).encode("utf-8")
        with open(tmp / "segment.json", "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        fsync_dir(tmp)
        os.replace(tmp, final)
        fsync_dir(directory)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return {"name": name, "n": int(n), "first_seq": meta["first_seq"], "last_seq": meta["last_seq"],
            "sha256": _sha256(raw)}


class Segment:
    """A segment of an index; its files are checked before their first use (see the module notes).

    At open: ``segment.json`` against the sha256 of the manifest's entry, ``seqs.npy`` (read and
    checked), and the header and size of every other array (their shapes and dtypes against
    ``segment.json`` and the manifest: a truncated file is found here, unread). The other arrays
    (``dense``, ``indptr``, ``indices``, ``data``, ``sq``) are read, checked against their
    sha256 and then entry by entry (finite values, rows in range, increasing sequence numbers)
    at their first use, :meth:`check`: what is read from disk is checked like what the index
    computed.

    Parameters
    ----------
    directory : Path
        The directory of the segments.
    entry : dict
        The manifest's entry of the segment: ``name``, ``n``, ``first_seq``, ``last_seq`` and
        (format version 2) ``sha256``, of ``segment.json``.
    kind : str
        The scoring kind (a "distance" model's segments have ``sq.npy``).
    n_features, dense_dim : int or None
        What the manifest says the posting lists and the dense rows must be.
    checksums_required : bool, default=False
        Format version 2 on: a missing checksum is damage, not "not recorded".
    """

    _ARRAYS = ("dense", "indptr", "indices", "data", "sq")

    def __init__(self, directory, entry, *, kind, n_features=None, dense_dim=None, checksums_required=False):
        name = entry.get("name") if isinstance(entry, dict) else None
        if (not isinstance(name, str) or not name or name.startswith(".") or "/" in name or "\\" in name
                or isinstance(entry.get("n"), bool) or not isinstance(entry.get("n"), int) or entry["n"] < 0):
            raise IndexFormatError(f"a segment entry of the manifest is not {{name, n, ...}} with a plain "
                                   f"directory name: {entry!r}")
        self.name = name
        self.path = path = Path(directory) / self.name
        self.kind = kind
        where = f"segment {self.name!r} ({path})"
        recorded = entry.get("sha256")
        if recorded is None and checksums_required:
            raise IndexDamagedError(path / "segment.json", "the manifest records no sha256 of it")
        if not (path / "segment.json").is_file():
            raise IndexFormatError(f"{where}: cannot read segment.json (it is missing: {path / 'segment.json'})")
        meta = load_json(path / "segment.json", recorded)
        if not isinstance(meta, dict) or meta.get("n") != entry.get("n"):
            raise IndexFormatError(f"{where}: segment.json does not match the manifest")
        self.n = int(entry["n"])
        # the approximate structure, opened on first use (learnsim.index._ann.segment_ann)
        self.ann_meta = meta.get("ann")
        # why a segment large enough for one has no structure: its recall at build (issue 45)
        self.ann_exact = meta.get("ann_exact")
        try:
            self.dtype = np.dtype(meta.get("dtype", "float32"))
        except TypeError:
            raise IndexFormatError(f"{where}: segment.json names no dtype numpy knows") from None
        if self.dtype not in (np.float32, np.float64):
            raise IndexFormatError(f"{where}: dtype {self.dtype} is not float32 or float64")
        sums = meta.get("sha256")
        if sums is None and checksums_required:
            raise IndexDamagedError(path / "segment.json", "it records no sha256 of the segment's arrays")
        if sums is not None and not (isinstance(sums, dict) and all(isinstance(v, str) for v in sums.values())):
            raise IndexDamagedError(path / "segment.json", "its 'sha256' entry is not {array: hex digest}")
        self.checksums = sums or {}
        self._checksums_required = sums is not None

        def header(key, required=True):
            file = path / f"{key}.npy"
            if not file.exists():
                if required:
                    raise IndexFormatError(f"{where}: {key}.npy is missing ({file})")
                return None
            if self._checksums_required and key not in self.checksums:
                raise IndexDamagedError(file, "segment.json records no sha256 of it")
            return npy_header(file)

        self._files = {}
        self.seqs = load_npy(path / "seqs.npy", self._sum("seqs")) if (path / "seqs.npy").exists() else None
        if self.seqs is None:
            raise IndexFormatError(f"{where}: seqs.npy is missing ({path / 'seqs.npy'})")
        if self.seqs.shape != (self.n,) or self.seqs.dtype != np.int64:
            raise IndexFormatError(f"{where}: seqs.npy must be int64 of shape ({self.n},)")
        if self.n and [int(self.seqs[0]), int(self.seqs[-1])] != [entry.get("first_seq"), entry.get("last_seq")]:
            raise IndexFormatError(f"{where}: seqs.npy does not hold the documents the manifest lists")
        dense = header("dense", required=dense_dim is not None)
        if dense is not None and (len(dense[0]) != 2 or dense[0] != (self.n, dense_dim) or dense[1] != self.dtype):
            self._refuse(("dense",), f"{where}: dense.npy must be {self.dtype} of shape ({self.n}, {dense_dim}); "
                                     f"got {dense[1]} {dense[0]}")
        indptr = header("indptr", required=n_features is not None)
        indices = data = None
        if indptr is not None:
            indices, data = header("indices"), header("data")
            if (indptr[0] != (n_features + 1,) or indptr[1] != np.int64 or indices[1] != np.int32
                    or data[1] != self.dtype or indices[0] != data[0] or len(indices[0]) != 1):
                self._refuse(("indptr", "indices", "data"),
                             f"{where}: the posting lists (indptr, indices, data) are inconsistent")
        sq = header("sq", required=kind == "distance")
        if sq is not None and (sq[0] != (self.n,) or sq[1] != np.float64):
            self._refuse(("sq",), f"{where}: sq.npy must be float64 of shape ({self.n},)")
        self._present = {key: h is not None for key, h in
                         (("dense", dense), ("indptr", indptr), ("indices", indices), ("data", data), ("sq", sq))}
        # the rows' ids, texts and metadata, where the segment was written with them (issue 46)
        docs = meta.get("docs")
        if docs is None:
            self.docs = None
        else:
            from ._segment_docs import SegmentDocs

            self.docs = SegmentDocs(path, self.n, docs, self._sum, npy_header, load_npy)
        self._loaded = None
        self._checked = False

    def _refuse(self, keys, message):
        """Raise for arrays ``keys`` whose headers disagree with the segment: IndexDamagedError
        naming the one whose sha256 does not match (another index's file put there: the header
        is read before the bytes are, and the error named the segment alone, not the file), else
        IndexFormatError ``message``. Hashes the arrays, on this path only."""
        for key in keys:
            if self.checksums.get(key) is not None:
                read_verified(self.path / f"{key}.npy", self.checksums[key])
        raise IndexFormatError(message)

    def _sum(self, key):
        if self._checksums_required and key not in self.checksums:
            raise IndexDamagedError(self.path / f"{key}.npy", "segment.json records no sha256 of it")
        return self.checksums.get(key)

    def has(self, key):
        """Whether the segment has the array ``key`` (without reading it)."""
        return self._present.get(key, key == "seqs")

    def _arrays(self):
        """The arrays other than seqs, read once and checked against their sha256 (all of them at
        the first use of any: a search uses them together)."""
        if self._loaded is None:
            loaded = {}
            for key in self._ARRAYS:
                loaded[key] = load_npy(self.path / f"{key}.npy", self._sum(key)) if self._present[key] else None
            if loaded["indptr"] is not None:
                n_terms = loaded["indptr"].shape[0]
                if int(loaded["indptr"][0]) != 0 or int(loaded["indptr"][n_terms - 1]) != loaded["indices"].shape[0]:
                    raise IndexFormatError(f"segment {self.name!r} ({self.path}): the posting lists (indptr, indices, data) "
                                           f"are inconsistent")
            self._loaded = loaded
        return self._loaded

    dense = property(lambda self: self._arrays()["dense"] if self._present["dense"] else None)
    indptr = property(lambda self: self._arrays()["indptr"] if self._present["indptr"] else None)
    indices = property(lambda self: self._arrays()["indices"] if self._present["indices"] else None)
    data = property(lambda self: self._arrays()["data"] if self._present["data"] else None)
    sq = property(lambda self: self._arrays()["sq"] if self._present["sq"] else None)

    def files(self):
        """{path: recorded sha256 or None} of every file of the segment (segment.json excluded)."""
        files = {self.path / f"{key}.npy": self.checksums.get(key) for key in ("seqs",) + self._ARRAYS
                 if self.has(key)}
        return files if self.docs is None else {**files, **self.docs.files()}

    def check(self):
        """Read the arrays (checksums) and check them entry by entry, once: O(size of the segment)."""
        if self._checked:
            return
        where = f"segment {self.name!r}"
        self._arrays()
        if self.n and not np.all(np.diff(self.seqs) > 0):
            raise IndexFormatError(f"{where}: sequence numbers are not increasing")
        if self.dense is not None and not np.isfinite(self.dense).all():
            raise IndexFormatError(f"{where}: dense.npy holds NaN or infinite values")
        if self.indptr is not None:
            if np.any(np.diff(self.indptr) < 0):
                raise IndexFormatError(f"{where}: indptr.npy is not non-decreasing")
            if self.indices.size and (int(self.indices.min()) < 0 or int(self.indices.max()) >= self.n):
                raise IndexFormatError(f"{where}: a posting list names a row outside the segment")
            if not np.isfinite(self.data).all():
                raise IndexFormatError(f"{where}: data.npy holds NaN or infinite values")
        if self.sq is not None and not (np.isfinite(self.sq).all() and (self.sq >= -1e-6 * max(1.0, float(np.abs(self.sq).max(initial=0)))).all()):
            raise IndexFormatError(f"{where}: sq.npy holds NaN, infinite or negative values")
        self._checked = True

    def inner(self, q_sparse, q_dense):
        """Inner products (float64, n) of one query's rows with this segment's rows.

        ``q_sparse``: (term ids int64, weights float64) or None; ``q_dense``: float64 (d,) or None.
        """
        self.check()
        out = np.zeros(self.n)
        if q_sparse is not None and self.indptr is not None and q_sparse[0].size:
            terms, weights = q_sparse
            starts, ends = self.indptr[terms], self.indptr[terms + 1]
            hit = ends > starts
            if hit.any():
                rows = np.concatenate([self.indices[s:e] for s, e in zip(starts[hit], ends[hit])])
                vals = np.concatenate([self.data[s:e].astype(np.float64) * w
                                       for s, e, w in zip(starts[hit], ends[hit], weights[hit])])
                out += np.bincount(rows, weights=vals, minlength=self.n)
        if q_dense is not None and self.dense is not None and self.n:
            out += (self.dense @ np.asarray(q_dense, dtype=self.dtype)).astype(np.float64)
        return out


def rows_of(seg, keep=None):
    """The Rows (CSR sparse part) of a segment, optionally only the rows in ``keep``."""
    import scipy.sparse as sp

    from ..scorer import Rows

    sparse = dense = sq = None
    if seg.indptr is not None:
        n_features = seg.indptr.shape[0] - 1
        sparse = sp.csc_matrix((np.asarray(seg.data), np.asarray(seg.indices), np.asarray(seg.indptr)),
                               shape=(seg.n, n_features)).tocsr()
        sparse = sparse[keep] if keep is not None else sparse
    if seg.dense is not None:
        dense = np.asarray(seg.dense)
        dense = dense[keep] if keep is not None else dense
    if seg.sq is not None:
        sq = np.asarray(seg.sq)
        sq = sq[keep] if keep is not None else sq
    return Rows(sparse=sparse, dense=dense, sq=sq)


def merged_rows(segments, keep):
    """The Rows of ``segments`` one after another, only the rows where ``keep`` (a mask over all
    of them) is True: what a merge or a compaction writes as one segment."""
    import scipy.sparse as sp

    from ..scorer import Rows

    parts, offset = [], 0
    for seg in segments:
        # its checksums and values first: damage must not be written into a new segment, under a
        # new checksum
        seg.check()
        parts.append(rows_of(seg, np.asarray(keep[offset:offset + seg.n])))
        offset += seg.n
    if not parts:
        return Rows()
    sparse = sp.vstack([r.sparse for r in parts], format="csr") if parts[0].sparse is not None else None
    dense = np.vstack([r.dense for r in parts]) if parts[0].dense is not None else None
    sq = np.concatenate([r.sq for r in parts]) if parts[0].sq is not None else None
    return Rows(sparse=sparse, dense=dense, sq=sq)
