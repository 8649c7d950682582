"""Save and load fitted learnsim models without pickle.

A model file is one ``.npz`` archive (a zip of ``.npy`` arrays, written by numpy) holding the
arrays of one or more objects plus a JSON manifest stored as UTF-8 bytes under
``"__manifest__"``. Loading never unpickles anything: the file is read with
``np.load(path, allow_pickle=False)``, object arrays are refused, and the class named in the
manifest must live in the ``learnsim`` package and define ``_from_state``.

Manifest (format version 1)::

    {"format": "learnsim-model", "format_version": 1, "learnsim_version": "0.1.0",
     "created": "2024-01-01T00:00:00+00:00", "saved_as": "object" | "dict",
     "objects": {"model": {"class": "learnsim.text.TextVectorizer",
                           "meta": {...},
                           "arrays": {"components": {"shape": [5, 3], "dtype": "<f8",
                                                     "sha256": "..."},
                                      "X": {"sparse": "csr_matrix", "shape": [4, 9],
                                            "parts": {"data": {...}, "indices": {...},
                                                      "indptr": {...}}}}}}}

Dense array ``key`` of object ``name`` is stored as archive entry ``"name/key"``; the CSR parts
of a sparse array as ``"name/key/data"``, ``"name/key/indices"`` and ``"name/key/indptr"``.

Objects take part by implementing ``_get_state() -> (meta, arrays)`` (``meta`` JSON-serialisable,
``arrays`` a dict of numpy arrays or scipy.sparse matrices) and the classmethod
``_from_state(meta, arrays)``. JSON turns tuples into lists; ``_from_state`` gets lists.
A file can be edited and its checksums recomputed, so ``_from_state`` checks what it gets as
``fit`` output (shapes, ranges); :func:`load` has already refused NaN and infinity anywhere in
the state except in the fields the class lists in ``_STATE_NONFINITE``. A class nesting another
object's state (``_STATE_NESTED``) leaves that part to the nested class's own checks.
Strings that have no UTF-8 form (lone surrogates, from ``errors="surrogateescape"``) are
written as JSON escapes and read back unchanged.
Sparse matrices of any format come back as CSR (``csr_matrix`` or ``csr_array``, as saved).

:func:`load` returns what :func:`save` was given: the object when one object was saved, the
dict ``name -> object`` when a dict was saved.
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import math
import os
import re
import secrets
import stat
import struct
import sys
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from ._utils.inputs import DuplicateKeyError, as_path, unique_keys
from ._utils.validation import check_state_values
from .exceptions import ModelFormatError  # noqa: F401  (defined there; importable here as in 0.1)

__all__ = ["ModelFormatError", "save", "load", "read_manifest", "FORMAT_NAME", "FORMAT_VERSION"]

FORMAT_NAME = "learnsim-model"
FORMAT_VERSION = 1
MANIFEST_KEY = "__manifest__"
_SINGLE_NAME = "model"
# Names become archive entry names ("name/key"), so no slashes and nothing that looks like a path.
_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")
_IDENTIFIER_PATH_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")
# bool, integers, floats, complex, bytes and unicode strings: all readable without pickle
_ALLOWED_DTYPE_KINDS = "biufcSU"
_CSR_PARTS = ("data", "indices", "indptr")
#: Largest manifest entry that :func:`load` reads (bytes, uncompressed). Array entries are
#: bounded by the sizes the manifest declares; the manifest itself has nothing to bound it.
MAX_MANIFEST_BYTES = 1 << 30
#: A model file's entries may inflate to at most :data:`MAX_INFLATION_RATIO` times the file's
#: size, once they exceed :data:`INFLATION_ALLOWANCE` bytes in all: the sizes the manifest and
#: the .npy headers declare are the attacker's to choose, so a 17 MB file agreeing on a 4 GB
#: array of zeros was inflated whole (4 GB of memory, 42 s) before its checksum refused it.
#: Deflate packs real arrays (floats, indices, terms) a few times at most; :func:`save` stores
#: uncompressed what it would otherwise pack beyond the ratio, so it writes no file load refuses.
MAX_INFLATION_RATIO = 100
INFLATION_ALLOWANCE = 256 << 20


# --------------------------------------------------------------------------------------------
# saving
# --------------------------------------------------------------------------------------------

def _check_name(name, what):
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(f"{what} {name!r} is not allowed: use letters, digits, '_', '.' and '-' "
                         "(not starting with '.' or '-')")
    return name


def _class_path(cls):
    """The class's public path: a class of a private module that its package exports is saved
    under the package (``learnsim.film._film.FILM`` as ``learnsim.film.FILM``), so that model
    files do not depend on where inside a package a class is written."""
    import sys

    parts = cls.__module__.split(".")
    while len(parts) > 2 and parts[-1].startswith("_"):
        parent = sys.modules.get(".".join(parts[:-1]))
        if parent is None or getattr(parent, cls.__qualname__, None) is not cls:
            break
        parts.pop()
    return f"{'.'.join(parts)}.{cls.__qualname__}"


# Classes whose 0.1 path no longer names them (learnsim.scoring was split between FILM's search
# weight and the duplicate rule): the path model files of 0.1 hold, and where the class is now.
_RENAMED_CLASSES = {"learnsim.scoring.MatchRule": "learnsim.matching.MatchRule"}


def _is_learnsim_class(cls):
    module = getattr(cls, "__module__", "") or ""
    return module == "learnsim" or module.startswith("learnsim.")


def _array_digest(arr):
    # hash the C-order bytes through a uint8 view, so large arrays are not copied to bytes
    flat = np.ascontiguousarray(arr).reshape(-1)
    return hashlib.sha256(flat.view(np.uint8)).hexdigest()


def _check_dense_for_saving(arr, where):
    if arr.dtype.kind not in _ALLOWED_DTYPE_KINDS:
        raise TypeError(f"{where} has dtype {arr.dtype}, which cannot be saved without pickle; "
                        "use numeric or fixed-width string arrays")


def _describe(arr):
    return {"shape": list(arr.shape), "dtype": arr.dtype.str, "sha256": _array_digest(arr)}


def _json_default(value):
    # numpy scalars (np.int64, np.bool_, ...) are common in params; plain numbers read back fine
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"value of type {type(value).__name__} is not JSON-serialisable")


def _collect(name, obj, entries):
    """Manifest entry of one object; its arrays are added to ``entries``."""
    cls = type(obj)
    if not (_is_learnsim_class(cls) and callable(getattr(obj, "_get_state", None))
            and callable(getattr(cls, "_from_state", None))):
        raise TypeError(f"cannot save {_class_path(cls)}: only learnsim classes that implement "
                        "_get_state() and _from_state() can be saved")
    if callable(getattr(obj, "fit", None)):
        check_is_fitted(obj)  # NotFittedError: an unfitted estimator has nothing to save
    state = obj._get_state()
    if not (isinstance(state, tuple) and len(state) == 2 and isinstance(state[0], dict)
            and isinstance(state[1], dict)):
        raise TypeError(f"{_class_path(cls)}._get_state() must return (meta: dict, arrays: dict)")
    meta, arrays = state
    described = {}
    for key, value in arrays.items():
        _check_name(key, f"array name of {name!r}")
        where = f"array {key!r} of {name!r}"
        if sp.issparse(value):
            kind = "csr_array" if isinstance(value, sp.sparray) else "csr_matrix"
            csr = sp.csr_matrix(value)
            csr.sum_duplicates()  # canonical form, so the parts check on load is strict
            parts = {}
            for part in _CSR_PARTS:
                arr = np.asarray(getattr(csr, part))
                _check_dense_for_saving(arr, where)
                entries[f"{name}/{key}/{part}"] = arr
                parts[part] = _describe(arr)
            described[key] = {"sparse": kind, "shape": list(csr.shape), "parts": parts}
        elif isinstance(value, np.ndarray):
            _check_dense_for_saving(value, where)
            entries[f"{name}/{key}"] = value
            described[key] = _describe(value)
        else:
            raise TypeError(f"{where} is a {type(value).__name__}; _get_state() must return numpy "
                            "arrays or scipy.sparse matrices (put scalars in meta)")
    return {"class": _class_path(cls), "meta": meta, "arrays": described}


def save(obj, path, *, compress=False):
    """Save a fitted learnsim object, or a dict ``name -> object``, to one ``.npz`` file.

    Parameters
    ----------
    obj : learnsim object or dict
        An object implementing ``_get_state``/``_from_state`` (saved under the name ``"model"``),
        or a dict of them, e.g. ``{"vectorizer": v, "metric": m}``.
    path : str or Path
        Destination, written as given (``.npz`` is the conventional suffix). The file is
        written to a temporary file in the same directory and moved into place, so an
        interrupted save never leaves a half-written model behind.
    compress : bool
        Compress the arrays (smaller file, slower save and load).

    Returns
    -------
    Path
        The path written.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If an estimator is not fitted.
    TypeError
        If an object cannot be saved (not a learnsim class with the protocol, object arrays,
        meta that is not JSON-serialisable).
    FileNotFoundError
        If the destination directory does not exist.
    FileExistsError
        If the destination exists and is not a regular file (a device, a pipe, a socket: it
        would be replaced, not written to). A symbolic link is followed: the file it names is
        written, the link kept.

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.persistence import save, load
    >>> from learnsim.text import TextVectorizer
    >>> vectorizer = TextVectorizer().fit(["the cat sat", "a dog barked", "the dog sat"])
    >>> tmp = tempfile.mkdtemp()
    >>> save(vectorizer, os.path.join(tmp, "vectorizer.npz")).name
    'vectorizer.npz'
    >>> both = save({"a": vectorizer, "b": vectorizer}, os.path.join(tmp, "both.npz"))
    >>> sorted(load(both))
    ['a', 'b']
    """
    if isinstance(obj, dict):
        if not obj:
            raise ValueError("nothing to save: the dict of objects is empty")
        objects, saved_as = obj, "dict"
    else:
        objects, saved_as = {_SINGLE_NAME: obj}, "object"
    entries = {}
    manifest_objects = {}
    for name, item in objects.items():
        _check_name(name, "object name")
        manifest_objects[name] = _collect(name, item, entries)
    from . import __version__
    manifest = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "learnsim_version": __version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "saved_as": saved_as,
        "objects": manifest_objects,
    }
    try:
        text = json.dumps(manifest, default=_json_default, ensure_ascii=False)
        try:
            raw = text.encode("utf-8")
        except UnicodeEncodeError:
            # a lone surrogate (text decoded with errors="surrogateescape") has no UTF-8 form;
            # JSON's \uXXXX escapes carry it, so the string reads back exactly as it was
            raw = json.dumps(manifest, default=_json_default, ensure_ascii=True).encode("ascii")
    except (TypeError, ValueError) as exc:
        raise TypeError(f"meta returned by _get_state() is not JSON-serialisable: {exc}") from None
    entries[MANIFEST_KEY] = np.frombuffer(raw, dtype=np.uint8)

    path = given = as_path(path)
    if path.is_symlink():
        # the file the link names is written (as an editor saves through a link); the link stays
        path = Path(os.path.realpath(path))
    directory = path.parent
    if not directory.is_dir():
        raise FileNotFoundError(f"cannot save to {given}: directory {directory} does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"cannot save to {given}: it is a directory")
    if path.exists() and not path.is_file():
        # the file is moved into place: a device (/dev/null), a pipe or a socket would be
        # replaced by it, not written to
        raise FileExistsError(f"cannot save to {given}: it is not a regular file (a device, a pipe or a socket); "
                              "give the path of a file")
    tmp = directory / f".{path.name}.{secrets.token_hex(8)}.tmp"
    writer = np.savez_compressed if compress else np.savez
    try:
        # os.open with mode 0o666 lets the umask decide permissions, as for an ordinary file
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as handle:
            writer(handle, **entries)
            # each entry's .npy header counted generously: load sums the entries as the zip lists them
            if compress and _inflates_too_far(sum(entry.nbytes + 4096 for entry in entries.values()), handle.tell()):
                # packed beyond the ratio load accepts (an array of mostly zeros): stored instead
                handle.seek(0)
                handle.truncate()
                np.savez(handle, **entries)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


# --------------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------------

_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")


def _zip64_sizes(extra, usize, csize):
    """The (uncompressed, compressed) sizes a local header declares, and whether they agree.

    The zip64 extra field (id 0x0001) of a local header holds both sizes as 8-byte values
    (APPNOTE 4.5.3). Python >= 3.11 sets the 4-byte fields to 0xFFFFFFFF and readers take the
    sizes from the extra field; Python 3.10 writes the real sizes in both places. Either way,
    a size given twice must be the same twice.
    """
    pos = 0
    while pos + 4 <= len(extra):
        tag, size = struct.unpack_from("<HH", extra, pos)
        body = extra[pos + 4:pos + 4 + size]
        if tag == 0x0001:
            values = [struct.unpack_from("<Q", body, 8 * i)[0] for i in range(len(body) // 8)]
            consistent = True
            for field, value in zip(("usize", "csize"), values):
                declared = usize if field == "usize" else csize
                if declared != 0xFFFFFFFF and declared != value:
                    consistent = False
            if usize == 0xFFFFFFFF and values:
                usize = values.pop(0)
            if csize == 0xFFFFFFFF and values:
                csize = values.pop(0)
            return usize, csize, consistent
        pos += 4 + size
    return usize, csize, True


def _check_local_headers(fh, path):
    """Compare every entry's local zip header with the central directory.

    ``zipfile`` reads sizes and CRCs from the central directory only, so damage to a local
    header (CRC, sizes, name) would go unnoticed while the payload still loads; a model file
    must be intact, so such a file is refused too. ``fh`` is the open file, ``path`` its name
    for messages.
    """
    try:
        fh.seek(0)
        with zipfile.ZipFile(fh) as zf:
            for info in zf.infolist():
                fh.seek(info.header_offset)
                raw = fh.read(_LOCAL_HEADER.size)
                if len(raw) != _LOCAL_HEADER.size:
                    raise ModelFormatError(f"{path}: truncated local header of entry {info.filename!r}")
                sig, _, flags, method, _, _, crc, csize, usize, name_len, extra_len = _LOCAL_HEADER.unpack(raw)
                name = fh.read(name_len)
                extra = fh.read(extra_len)
                deferred = flags & 0x08          # sizes and CRC given after the data instead
                consistent = True
                if not deferred:
                    usize, csize, consistent = _zip64_sizes(extra, usize, csize)
                ok = (consistent and sig == b"PK\x03\x04" and method == info.compress_type and len(extra) == extra_len
                      and name == info.orig_filename.encode("utf-8", "surrogateescape")
                      and (deferred or crc == info.CRC)
                      and (deferred or csize == info.compress_size)
                      and (deferred or usize == info.file_size))
                if not ok:
                    raise ModelFormatError(f"{path}: entry {info.filename!r} is corrupted (its local zip "
                                           "header disagrees with the archive's directory)")
    except (zipfile.BadZipFile, OSError, EOFError, struct.error) as exc:
        raise ModelFormatError(f"{path} is not a readable .npz archive: {exc}") from None


def _open_regular_file(path, what="model file"):
    """``path`` opened for binary reading, refused unless it is a regular file (``what`` names
    the kind of file in messages).

    A device such as ``/dev/zero`` never ends (zipfile would read it until memory runs out)
    and a named pipe blocks until a writer comes. ``O_NONBLOCK`` keeps the open itself from
    waiting on a pipe; the type is checked on the opened descriptor, so the file cannot be
    swapped between the check and the reads.
    """
    if not path.exists():
        raise FileNotFoundError(f"{what} {path} does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a {what}")
    if not stat.S_ISREG(path.stat().st_mode):
        raise ModelFormatError(f"{path} is not a regular file (a device, pipe or socket), so it "
                               f"cannot be a learnsim {what}")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ModelFormatError(f"{path} is not a regular file (a device, pipe or socket), so it "
                                   f"cannot be a learnsim {what}")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


@contextlib.contextmanager
def _open_npz(path):
    """The ``NpzFile`` of the model file at ``path``, checked as a zip archive."""
    path = Path(path)
    with _open_regular_file(path) as fh:
        if not zipfile.is_zipfile(fh):
            raise ModelFormatError(f"{path} is not a learnsim model file: not a zip/.npz archive "
                                   "(truncated, or a different kind of file)")
        _check_local_headers(fh, path)
        fh.seek(0)
        try:
            archive = np.load(fh, allow_pickle=False)
        except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
            raise ModelFormatError(f"{path} is not a readable .npz archive: {exc}") from None
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise ModelFormatError(f"{path} is not a .npz archive")
        inflated = sum(info.file_size for info in archive.zip.infolist())
        size = os.fstat(fh.fileno()).st_size
        if _inflates_too_far(inflated, size):
            archive.close()
            raise ModelFormatError(
                f"{path}: its entries inflate to {inflated} bytes from a file of {size} bytes, more than "
                f"{MAX_INFLATION_RATIO} times its size (as a zip bomb does; learnsim saves no such file): "
                "it is refused unread")
        with archive:
            yield archive


def _inflates_too_far(inflated, size):
    return inflated > max(INFLATION_ALLOWANCE, MAX_INFLATION_RATIO * size)


def _zip_info(archive, key):
    # np.savez stores array "key" as member "key.npy"; NpzFile also reads a bare "key"
    for member in (key + ".npy", key):
        try:
            return archive.zip.getinfo(member)
        except KeyError:
            continue
    raise KeyError(key)


def _npy_header(stream):
    """(shape, dtype, bytes of the header) of the .npy data at the start of ``stream``, from its
    header alone (ValueError or EOFError when it is not one numpy reads)."""
    version = np.lib.format.read_magic(stream)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
    else:
        raise ValueError(f"unsupported .npy format version {version}")
    return tuple(shape), dtype, stream.tell()


def _npy_size_problem(name, size, shape, dtype, header_bytes):
    """Why .npy data of ``size`` bytes with this header is refused before its data is read (None:
    it is not): objects would be unpickled, and a header announcing more (or fewer) bytes than
    there are would make numpy allocate that much first (10^12 rows: terabytes). The count is a
    Python int: numpy's int64 product of a crafted shape wraps around to match."""
    if dtype.hasobject:
        return f"{name} is an object array, which is refused (it could only be read by unpickling)"
    declared = header_bytes + math.prod(shape) * dtype.itemsize
    if size != declared:
        return (f"{name} is {size} bytes, but its .npy header announces {declared} (shape {list(shape)}, "
                f"dtype {dtype.str}: truncated, extended or forged); it is refused unread")
    return None


def _entry_header(archive, key, path):
    """(shape, dtype) of entry ``key`` from its .npy header, refused before its data is read
    where it holds objects or a size other than its header announces."""
    try:
        info = _zip_info(archive, key)
        with archive.zip.open(info) as member:
            shape, dtype, header_bytes = _npy_header(member)
    except (ValueError, OSError, EOFError, KeyError, zipfile.BadZipFile) as exc:
        raise ModelFormatError(f"{path}: entry {key!r} is corrupted: {exc}") from None
    problem = _npy_size_problem(f"entry {key!r}", info.file_size, shape, dtype, header_bytes)
    if problem is not None:
        raise ModelFormatError(f"{path}: {problem}")
    return shape, dtype


def _check_entry_size(archive, key, desc, where, path):
    """Refuse entry ``key`` before its data is read unless its .npy header gives the shape
    and dtype of ``desc`` (its manifest description) and the entry holds exactly that many
    bytes: a tampered directory or header could otherwise make ``load`` inflate gigabytes
    (a zip bomb) or allocate an array of any size."""
    shape, dtype = _entry_header(archive, key, path)
    if list(shape) != desc["shape"] or dtype.str != desc["dtype"]:
        raise ModelFormatError(f"{path}: {where} has shape {list(shape)} and dtype {dtype.str}, but the "
                               f"manifest says {desc['shape']} and {desc['dtype']}")


@contextlib.contextmanager
def open_npz_checked(path):
    """The arrays of any ``.npz`` file (a learnsim model's or not) as a function ``read(key)``
    with the keys' sorted list: ``with open_npz_checked(p) as (keys, read): ...``.

    The checks of :func:`load` without its manifest: a regular file, a zip whose local headers
    agree with its directory, entries that do not inflate past MAX_INFLATION_RATIO times the
    file (a zip bomb is refused unread), and each entry's .npy header checked against the
    entry's size, objects refused, before the entry is inflated. ModelFormatError names the file
    and the problem.
    """
    with _open_npz(path) as archive:
        def read(key):
            _entry_header(archive, key, path)
            return _read_entry(archive, key, path)

        yield sorted(archive.files), read


def check_npy_file(path, what="array file"):
    """(shape, dtype) of the ``.npy`` file at ``path`` from its header, refused (ModelFormatError
    naming the file) unless it is a regular file numpy reads, without objects (a pickle), holding
    exactly the bytes its header announces: np.load would otherwise allocate what a forged
    header claims before finding the data short. Only the header is read, so a file checked
    this way can still be memory-mapped."""
    with _checked_npy(Path(path), what) as (shape, dtype, _fh):
        return shape, dtype


@contextlib.contextmanager
def _checked_npy(path, what):
    """``(shape, dtype, handle)`` of the checked ``.npy`` file ``path`` (:func:`check_npy_file`),
    ``handle`` open on it just past its header."""
    try:
        fh = _open_regular_file(path, what)
    except OSError as exc:
        raise ModelFormatError(f"{path}: {exc.strerror or exc}") from None
    with fh:
        try:
            size = os.fstat(fh.fileno()).st_size
            shape, dtype, header_bytes = _npy_header(fh)
        except (ValueError, EOFError, SyntaxError) as exc:
            raise ModelFormatError(f"{path} is not a .npy array file numpy reads ({exc or 'empty'})") from None
        except OSError as exc:
            raise ModelFormatError(f"{path}: {exc.strerror or exc}") from None
        problem = _npy_size_problem("it", size, shape, dtype, header_bytes)
        if problem is not None:
            raise ModelFormatError(f"{path}: {problem}")
        yield shape, dtype, fh


def load_npy_file(path, *, mmap_mode=None, what="array file"):
    """np.load of the ``.npy`` file ``path`` (``mmap_mode`` as np.load's) after
    :func:`check_npy_file`; never unpickles. ModelFormatError names the file and the problem.
    Without ``mmap_mode`` the data is read from the handle the check opened, so the file cannot
    be swapped (for a named pipe, which would stall the read) between the check and the read."""
    path = Path(path)
    try:
        if mmap_mode is not None:
            check_npy_file(path, what)
            return np.load(path, mmap_mode=mmap_mode, allow_pickle=False)
        with _checked_npy(path, what) as (_shape, _dtype, fh):
            fh.seek(0)
            return np.lib.format.read_array(fh, allow_pickle=False)
    except ModelFormatError:
        raise
    except (ValueError, OSError, EOFError) as exc:
        raise ModelFormatError(f"{path} is not a readable .npy array: {exc}") from None


def _read_entry(archive, key, path):
    try:
        return archive[key]
    except ValueError as exc:
        if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
            raise ModelFormatError(f"{path}: entry {key!r} is an object array, which is refused "
                                   "(it could only be read by unpickling)") from None
        raise ModelFormatError(f"{path}: entry {key!r} is corrupted: {exc}") from None
    except (zipfile.BadZipFile, OSError, EOFError, KeyError) as exc:
        raise ModelFormatError(f"{path}: entry {key!r} is corrupted: {exc}") from None


def _parse_manifest(archive, path):
    if MANIFEST_KEY not in archive.files:
        raise ModelFormatError(f"{path} has no {MANIFEST_KEY!r} entry: it is an .npz file but "
                               "not a learnsim model")
    size = _zip_info(archive, MANIFEST_KEY).file_size
    if size > MAX_MANIFEST_BYTES:
        raise ModelFormatError(f"{path}: the manifest entry is {size} bytes uncompressed, larger than "
                               f"the limit of {MAX_MANIFEST_BYTES} (persistence.MAX_MANIFEST_BYTES); "
                               "it is refused unread")
    raw = _read_entry(archive, MANIFEST_KEY, path)
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise ModelFormatError(f"{path}: the manifest must be a 1-D uint8 array of UTF-8 JSON; "
                               f"got dtype {raw.dtype}, shape {raw.shape}")
    try:
        # a key given twice refused (json keeps the last silently: "format" twice read as its
        # second); not _utils.inputs.loads, which refuses the lone surrogates save escapes here
        manifest = json.loads(raw.tobytes().decode("utf-8"), object_pairs_hook=unique_keys)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFormatError(f"{path}: the manifest is not valid UTF-8 JSON: {exc}") from None
    except DuplicateKeyError as exc:
        raise ModelFormatError(f"{path}: the manifest is damaged: {exc}") from None
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
        # Python's words name sys.set_int_max_str_digits, a setting of the reader, not the file
        raise ModelFormatError(f"{path}: the manifest holds an integer of more than "
                               f"{sys.get_int_max_str_digits():,} digits, which no learnsim model writes") from None
    except RecursionError:
        raise ModelFormatError(f"{path}: the manifest nests too deeply to be read (no learnsim "
                               "model writes such a manifest)") from None
    if not isinstance(manifest, dict):
        raise ModelFormatError(f"{path}: the manifest must be a JSON object")
    if manifest.get("format") != FORMAT_NAME:
        raise ModelFormatError(f"{path}: manifest format is {manifest.get('format')!r}, "
                               f"expected {FORMAT_NAME!r}")
    version = manifest.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ModelFormatError(f"{path}: invalid format_version {version!r}")
    if version > FORMAT_VERSION:
        raise ModelFormatError(
            f"{path} was written in format version {version} (by learnsim "
            f"{manifest.get('learnsim_version', '?')}); this learnsim reads up to version "
            f"{FORMAT_VERSION}: upgrade learnsim to load it")
    objects = manifest.get("objects")
    if not isinstance(objects, dict) or not objects:
        raise ModelFormatError(f"{path}: the manifest lists no objects")
    if manifest.get("saved_as", "dict") not in ("object", "dict"):
        raise ModelFormatError(f"{path}: invalid saved_as {manifest.get('saved_as')!r}")
    for name, entry in objects.items():
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise ModelFormatError(f"{path}: invalid object name {name!r} in the manifest")
        if not (isinstance(entry, dict) and isinstance(entry.get("class"), str)
                and isinstance(entry.get("meta"), dict) and isinstance(entry.get("arrays"), dict)):
            raise ModelFormatError(f"{path}: manifest entry of object {name!r} must have "
                                   "'class' (str), 'meta' (object) and 'arrays' (object)")
    return manifest


def _release(version):
    """The leading numbers of a version string as a tuple ("0.10.2rc1" -> (0, 10, 2)), or None."""
    match = re.match(r"(\d+(?:\.\d+)*)", version) if isinstance(version, str) else None
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def _newer_note(manifest):
    """What to add to the refusal of a state this learnsim cannot read when a newer learnsim
    wrote it: the format version stays 1 while classes add parameters and state versions, so
    "unknown parameters ['x']" alone read as a damaged file, not as one to upgrade for."""
    from . import __version__

    made_by = manifest.get("learnsim_version")
    theirs, ours = _release(made_by), _release(__version__)
    if theirs is None or ours is None or theirs <= ours:
        return ""
    return f"; it was made by learnsim {made_by}, newer than this one ({__version__}): upgrade learnsim to load it"


def _resolve_class(class_path, path):
    """The learnsim class named by ``class_path``; anything else is refused before import."""
    if not _IDENTIFIER_PATH_RE.match(class_path) or class_path.split(".")[0] != "learnsim":
        raise ModelFormatError(f"{path}: class {class_path!r} is not allowed; only learnsim classes "
                               "can be loaded")
    module_name, _, attr = _RENAMED_CLASSES.get(class_path, class_path).rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ModelFormatError(f"{path}: unknown class {class_path!r} ({exc}); the file may need "
                               "a newer learnsim") from None
    cls = getattr(module, attr, None)
    if cls is None:
        raise ModelFormatError(f"{path}: unknown class {class_path!r}; the file may need a newer "
                               "learnsim")
    if not isinstance(cls, type) or not _is_learnsim_class(cls):
        raise ModelFormatError(f"{path}: {class_path!r} is not a learnsim class and is not allowed")
    if not callable(getattr(cls, "_from_state", None)):
        raise ModelFormatError(f"{path}: class {class_path!r} cannot be loaded (no _from_state)")
    return cls


def _restore(cls, meta, arrays):
    """``cls._from_state(meta, arrays)``, after the check every saved state must pass.

    Whatever a file holds was checked against its own checksums only, which anyone editing it
    can recompute; so no NaN or infinity may reach a model (except in the fields a class lists
    in ``_STATE_NONFINITE``, which its ``fit`` may leave non-finite), and each ``_from_state``
    then checks shapes and ranges against what its ``fit`` produces. Objects nested in a state
    (listed in ``_STATE_NESTED``, e.g. a matcher's transformer) are restored through here too.
    """
    check_state_values(cls.__name__, meta, arrays, allow_nonfinite=getattr(cls, "_STATE_NONFINITE", ()),
                       nested=getattr(cls, "_STATE_NESTED", ()))
    return cls._from_state(meta, arrays)


def _check_description(desc, where, path):
    if not (isinstance(desc, dict) and isinstance(desc.get("shape"), list)
            and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in desc["shape"])
            and isinstance(desc.get("dtype"), str) and isinstance(desc.get("sha256"), str)):
        raise ModelFormatError(f"{path}: manifest description of {where} must give 'shape' "
                               "(list of ints), 'dtype' and 'sha256'")
    try:
        dtype = np.dtype(desc["dtype"])
    except TypeError:
        raise ModelFormatError(f"{path}: {where} has unknown dtype {desc['dtype']!r}") from None
    if dtype.kind not in _ALLOWED_DTYPE_KINDS:
        raise ModelFormatError(f"{path}: {where} has dtype {dtype}, which is refused (object and "
                               "structured arrays could execute code or are not supported)")


def _load_dense(archive, key, desc, where, path):
    _check_description(desc, where, path)
    if key not in archive.files:
        raise ModelFormatError(f"{path}: {where} is listed in the manifest but missing from the file")
    _check_entry_size(archive, key, desc, where, path)
    arr = _read_entry(archive, key, path)
    if list(arr.shape) != desc["shape"] or arr.dtype.str != desc["dtype"]:
        raise ModelFormatError(f"{path}: {where} has shape {list(arr.shape)} and dtype "
                               f"{arr.dtype.str}, but the manifest says {desc['shape']} and "
                               f"{desc['dtype']}")
    if _array_digest(arr) != desc["sha256"]:
        raise ModelFormatError(f"{path}: {where} is corrupted (sha256 checksum mismatch)")
    return arr


def _load_sparse(archive, stem, desc, where, path):
    parts_desc = desc.get("parts")
    shape = desc.get("shape")
    if not (isinstance(parts_desc, dict) and set(parts_desc) == set(_CSR_PARTS)
            and isinstance(shape, list) and len(shape) == 2
            and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape)
            and desc["sparse"] in ("csr_matrix", "csr_array")):
        raise ModelFormatError(f"{path}: manifest description of sparse {where} must give "
                               "'sparse' ('csr_matrix' or 'csr_array'), 'shape' [rows, cols] and "
                               "'parts' data/indices/indptr")
    parts = {part: _load_dense(archive, f"{stem}/{part}", parts_desc[part],
                               f"{where} (CSR {part})", path) for part in _CSR_PARTS}
    build = sp.csr_array if desc["sparse"] == "csr_array" else sp.csr_matrix
    try:
        matrix = build((parts["data"], parts["indices"], parts["indptr"]), shape=tuple(shape))
        matrix.check_format(full_check=True)
    except (ValueError, TypeError, IndexError) as exc:
        raise ModelFormatError(f"{path}: sparse {where} is inconsistent: {exc}") from None
    return matrix


def read_manifest(path):
    """The validated manifest of a model file (a dict), without building any object.

    Raises the errors of :func:`load` that concern the file and its manifest.

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.persistence import read_manifest, save
    >>> from learnsim.text import TextVectorizer
    >>> path = save(TextVectorizer().fit(["the cat sat", "a dog barked"]),
    ...             os.path.join(tempfile.mkdtemp(), "vectorizer.npz"))
    >>> manifest = read_manifest(path)
    >>> manifest["format"], manifest["format_version"], manifest["saved_as"]
    ('learnsim-model', 1, 'object')
    >>> manifest["objects"]["model"]["class"]
    'learnsim.text.TextVectorizer'
    """
    with _open_npz(path) as archive:
        return _parse_manifest(archive, Path(path))


def load(path, *, name=None):
    """Load what :func:`save` wrote.

    Parameters
    ----------
    path : str or Path
    name : str, optional
        Load only the object saved under this name (``"model"`` for a single object).

    Returns
    -------
    object or dict
        The object when one object was saved (or ``name`` is given), the dict
        ``name -> object`` when a dict was saved.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ModelFormatError
        If the file is not a valid learnsim model file; the message names the problem
        (not a regular file, not an npz, missing, invalid or oversized manifest, newer format
        version, disallowed class, missing, mismatched, oversized or corrupted array, object
        array, or a state that no ``fit`` produces: NaN or infinite values, values out of
        range, inconsistent shapes).
    KeyError
        If ``name`` is not in the file.

    Notes
    -----
    The checksums only detect accidental damage: anyone editing a file can recompute them.
    So everything a file holds is checked as input: only regular files are read, no entry
    is read beyond the size the manifest declares for it (the manifest itself is limited to
    :data:`MAX_MANIFEST_BYTES`), and each class checks the state it is restored from
    against what its ``fit`` produces.

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.persistence import load, save
    >>> from learnsim.text import TextVectorizer
    >>> texts = ["the cat sat", "a dog barked", "the dog sat"]
    >>> vectorizer = TextVectorizer().fit(texts)
    >>> path = save({"vectorizer": vectorizer}, os.path.join(tempfile.mkdtemp(), "model.npz"))
    >>> restored = load(path, name="vectorizer")
    >>> (restored.transform(texts) != vectorizer.transform(texts)).nnz
    0
    >>> load(os.path.join(os.path.dirname(path), "missing.npz"))
    Traceback (most recent call last):
        ...
    FileNotFoundError: ...
    """
    path = as_path(path)
    with _open_npz(path) as archive:
        manifest = _parse_manifest(archive, path)
        objects = manifest["objects"]
        if name is not None and name not in objects:
            raise KeyError(f"{path} holds no object named {name!r}; it holds {sorted(objects)}")
        expected_entries = {MANIFEST_KEY}
        for obj_name, entry in objects.items():
            for key, desc in entry["arrays"].items():
                if isinstance(desc, dict) and "sparse" in desc:
                    parts = desc.get("parts")
                    expected_entries.update(f"{obj_name}/{key}/{p}" for p in (parts or {}))
                else:
                    expected_entries.add(f"{obj_name}/{key}")
        unexpected = set(archive.files) - expected_entries
        if unexpected:
            raise ModelFormatError(f"{path} contains entries the manifest does not list: "
                                   f"{sorted(unexpected)}")
        wanted = [name] if name is not None else list(objects)
        # resolve every class first, so a disallowed class is refused before any array is read
        try:
            classes = {obj_name: _resolve_class(objects[obj_name]["class"], path) for obj_name in wanted}
        except ModelFormatError as exc:
            raise ModelFormatError(f"{exc}{_newer_note(manifest)}") from None
        loaded = {}
        for obj_name in wanted:
            entry = objects[obj_name]
            arrays = {}
            for key, desc in entry["arrays"].items():
                where = f"array {key!r} of object {obj_name!r}"
                if not isinstance(key, str) or not _NAME_RE.match(key):
                    raise ModelFormatError(f"{path}: invalid array name {key!r} in the manifest")
                if isinstance(desc, dict) and "sparse" in desc:
                    arrays[key] = _load_sparse(archive, f"{obj_name}/{key}", desc, where, path)
                else:
                    arrays[key] = _load_dense(archive, f"{obj_name}/{key}", desc, where, path)
            cls = classes[obj_name]
            try:
                loaded[obj_name] = _restore(cls, entry["meta"], arrays)
            except (ValueError, TypeError, KeyError, IndexError, OverflowError, RecursionError) as exc:
                raise ModelFormatError(f"{path}: object {obj_name!r} ({entry['class']}) rejected "
                                       f"its saved state: {exc}{_newer_note(manifest)}") from None
    if name is not None:
        return loaded[name]
    if manifest.get("saved_as") == "object" and len(loaded) == 1:
        return next(iter(loaded.values()))
    return loaded


# --------------------------------------------------------------------------------------------
# test fixture of the format
# --------------------------------------------------------------------------------------------

class _ExampleState:
    """Minimal object implementing the persistence protocol, used by the tests of this module
    (classes outside learnsim cannot be loaded, so the fixture has to live here).

    It holds arbitrary JSON ``meta`` and a dict of ``arrays`` and returns them unchanged.
    """

    def __init__(self, meta=None, arrays=None):
        self.meta = {} if meta is None else meta
        self.arrays = {} if arrays is None else arrays

    def _get_state(self):
        return dict(self.meta), dict(self.arrays)

    @classmethod
    def _from_state(cls, meta, arrays):
        if not isinstance(meta, dict) or not isinstance(arrays, dict):
            raise ValueError("_ExampleState state must be (dict, dict)")
        if meta.get("reject"):
            raise ValueError("meta asks to be rejected")
        return cls(meta, arrays)


# ------------------------------------------------------------------ a transformer nested in a state
# A matcher (learnsim.matching), a HybridEmbedding (learnsim.film.hybrid) and the pair classifier
# save the transformer they wrap inside their own state: its class path and metadata under
# "transformer", its arrays under names prefixed with "transformer.". The helpers live here, with
# the class paths they write and resolve, so that none of those modules imports another for them.

TRANSFORMER_PREFIX = "transformer."


def transformer_state(transformer):
    """(meta, arrays) of the transformer (a learnsim object) nested in a matcher's state (arrays prefixed)."""
    if transformer is None:
        return None, {}
    cls = type(transformer)
    module = getattr(cls, "__module__", "") or ""
    if not ((module == "learnsim" or module.startswith("learnsim."))
            and callable(getattr(transformer, "_get_state", None))
            and callable(getattr(cls, "_from_state", None))):
        raise TypeError(f"cannot save a matcher whose transformer is a {cls.__module__}.{cls.__qualname__}: "
                        "only learnsim objects that implement _get_state() can be saved with it. "
                        "Save the transformer separately and fit the matcher on its embeddings "
                        "(transformer=None), or save the embeddings")
    meta, arrays = transformer._get_state()
    return ({"class": _class_path(cls), "meta": meta},
            {TRANSFORMER_PREFIX + key: value for key, value in arrays.items()})


def transformer_from_state(meta, arrays):
    if meta is None:
        if any(key.startswith(TRANSFORMER_PREFIX) for key in arrays):
            raise ValueError("matcher state has transformer arrays but no transformer metadata")
        return None
    if not (isinstance(meta, dict) and isinstance(meta.get("class"), str) and "meta" in meta):
        raise ValueError("matcher state: 'transformer' must be a dict with 'class' and 'meta'")
    cls = _resolve_class(meta["class"], "matcher state")
    nested = {key[len(TRANSFORMER_PREFIX):]: value for key, value in arrays.items()
              if key.startswith(TRANSFORMER_PREFIX)}
    if not isinstance(meta["meta"], dict):
        raise ValueError("matcher state: the transformer's 'meta' must be a dict")
    return _restore(cls, meta["meta"], nested)
