"""Where ``Index.build`` writes: the check of the folder, a lock between two builds of one folder,
and the replacement of an index (``overwrite=True``) that leaves the old one whole unless the new
one is complete.

A build writes the new index into a hidden sibling folder of the same parent,
``.<name>.building-<pid>-<token>`` (the same file system, so a rename is atomic), and once it is
complete renames it to ``<index>`` (nothing there) or swaps it in (a replacement), holding the old index's writers' lock (an ``add`` of a handle open on it
waits, then writes to the new one). On Linux the swap is one ``renameat2(RENAME_EXCHANGE)``: at
every moment ``<index>`` holds a whole index, the old one or the new one. Elsewhere (or on a file
system without it) it is two renames: ``<index>`` to ``.<name>.old-<token>``, then the new folder to
``<index>``; a failure of the second puts the old one back. What a crash (kill -9, power) leaves:

- while writing the new index: the old index (or nothing) as it was, and a partial
  ``.<name>.building-*``, removed by the next build of that path;
- while writing into an empty folder given (written in place: perhaps a mount point, which no
  rename may replace): the marker ``.build-in-progress``, written (and made durable) before
  anything else, and a partial index. The next build of that path removes what a build writes
  there (the names of the layout, ``_WRITTEN``), then the marker, and leaves any other file; a
  marker beside a manifest (renamed into place last) is a whole index, kept, the marker removed;
- between the two renames (not on Linux): no folder at ``<index>`` and the old index whole at
  ``.<name>.old-*``, which the next build of that path puts back before anything else (or rename
  it back by hand);
- after the swap: the new index, and the old one at ``.<name>.building-*`` or ``.<name>.old-*``,
  removed by the next build.

The embedding cache of a model over a sentence encoder is named after the index's path
(``<index>.embeddings``): the caller holds it open around the whole write, so that the writing in
the hidden folder uses (and fills) the cache of ``<index>``, not one of its own.

Two builds of one path take the lock ``.<name>.build-lock`` beside it (waited for as a writer
waits for an index's lock, then :class:`learnsim.exceptions.IndexBusyError`), removed once done.
"""
from __future__ import annotations

import contextlib
import errno
import fnmatch
import glob
import os
import secrets
import shutil
import sys
from pathlib import Path

from ._integrity import Lock


__all__ = ["check_target", "building", "interrupted", "no_index", "tree_bytes"]

_MANIFEST = "manifest.json"
# written first into an empty folder a build writes in place, removed last
MARKER = ".build-in-progress"
# the entries a build writes at the top of an index folder (temporary files too): what is removed
# of a build interrupted in place, and nothing else (a file the user put there stays)
_WRITTEN = ("model.npz", "docs.sqlite", "docs.sqlite-*", "segments", "versions", "lock", _MANIFEST,
            "statistics-*", "query-*", ".model.npz.*.tmp", f".{_MANIFEST}.*.tmp")


def interrupted(path):
    """Whether ``path`` holds only what a build written in place left when it was stopped (a
    crash, kill -9): no manifest, the marker there. The next build of it removes that."""
    path = Path(path)
    return (path / MARKER).exists() and not (path / _MANIFEST).exists()


def no_index(path):
    """What a folder without a manifest is, for the FileNotFoundError of an open or a verify."""
    if interrupted(path):
        return (f"{path} holds no learnsim index: a build of it was stopped before it was complete (build it "
                "again: the build removes what the stopped one wrote)")
    return f"{path} holds no learnsim index (no {_MANIFEST})"


def check_target(path, overwrite):
    """Whether ``path`` holds an index to replace (True) or nothing yet (False); a FileExistsError
    where the build may not write there."""
    if not path.exists():
        return False
    if not path.is_dir():
        raise FileExistsError(f"{path} exists and is not a directory")
    if not any(path.iterdir()) or interrupted(path):
        return False
    if not overwrite:
        raise FileExistsError(f"{path} is not empty; pass overwrite=True to replace an index there")
    if not (path / _MANIFEST).exists():
        raise FileExistsError(f"{path} is not empty and holds no index; refusing to overwrite it")
    return True


@contextlib.contextmanager
def building(path, overwrite):
    """The folder to write the index of ``path`` in: a hidden sibling renamed (or swapped) into
    place when the block ends without an exception, removed when it raises; ``path`` itself when
    it is an empty folder, emptied again when the block raises.
    The build lock of ``path`` is held throughout; the folder is checked again under it (another
    build may have written there since the caller's first check)."""
    parent = path.parent
    parent.mkdir(parents=True, exist_ok=True)
    lock_file = parent / f".{path.name}.build-lock"
    with Lock(lock_file, name=f"{path} (another build of it)"):
        try:
            _recover(path)
            replace = check_target(path, overwrite)
            if not replace and path.exists():
                # an empty folder given (perhaps a mount point, which no rename may replace):
                # written in place, and emptied again when the build fails; the marker, durable
                # before anything else is written, tells a later build what a crash left
                _write_marker(path)
                try:
                    yield path
                except BaseException:
                    _remove_written(path)
                    raise
                (path / MARKER).unlink()
                _sync_folder(path)
                return
            new = parent / f".{path.name}.building-{os.getpid()}-{secrets.token_hex(4)}"
            try:
                new.mkdir()
                yield new
                if replace:
                    with _old_writers_lock(path):
                        _swap_in(new, path)
                else:       # nothing at the path: a failed build leaves nothing there either
                    os.rename(new, path)
                    _sync_folder(parent)
            finally:
                shutil.rmtree(new, ignore_errors=True)      # the new one, failed, or the old one, swapped out
        finally:
            # held: a build waiting on this file sees it gone and takes a new one (Lock)
            with contextlib.suppress(OSError):
                lock_file.unlink()


@contextlib.contextmanager
def _old_writers_lock(path):
    """The writers' lock of the index being replaced, held while it is swapped out. Where a
    directory or a pipe is in the lock's place (IndexDamagedError), no writer can hold it or write
    there, and the rebuild, the way to mend such an index, goes on: it failed at its last step,
    after all its work, and left the damaged index in place."""
    from ._segments import IndexDamagedError

    try:
        lock = Lock(path / "lock", name=path).__enter__()
    except IndexDamagedError:
        lock = None
    try:
        yield
    finally:
        if lock is not None:
            lock.__exit__(None, None, None)


def _recover(path):
    """What a build of ``path`` stopped by a crash left beside it (see the module notes)."""
    parent = path.parent
    aside = sorted(parent.glob(f".{glob.escape(path.name)}.old-*"), key=lambda p: p.stat().st_mtime)
    if aside and not path.exists() and (aside[-1] / _MANIFEST).exists():
        os.rename(aside[-1], path)      # stopped between the two renames: the old index goes back
        aside.pop()
    for leftover in aside + list(parent.glob(f".{glob.escape(path.name)}.building-*")):
        shutil.rmtree(leftover, ignore_errors=True)
    if path.is_dir() and (path / MARKER).exists():
        if (path / _MANIFEST).exists():     # stopped after the manifest: a whole index
            (path / MARKER).unlink()
            _sync_folder(path)
        else:
            _remove_written(path)


def _written(name):
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in _WRITTEN)


def _write_marker(folder):
    fd = os.open(folder / MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        os.write(fd, f"learnsim is building an index here (process {os.getpid()}). If no build is running, "
                     "the next build of this folder removes what it wrote.\n".encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    _sync_folder(folder)


def _remove_written(folder):
    """What a build wrote into ``folder`` (``_WRITTEN``), then its marker; other entries stay."""
    for entry in folder.iterdir():
        if not _written(entry.name):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    if not any(_written(entry.name) for entry in folder.iterdir()):
        (folder / MARKER).unlink(missing_ok=True)       # kept while anything written is left
    _sync_folder(folder)


def _swap_in(new, path):
    if _exchange(new, path):
        _sync_folder(path.parent)
        return
    aside = path.parent / f".{path.name}.old-{secrets.token_hex(4)}"
    os.rename(path, aside)
    try:
        os.rename(new, path)
    except BaseException:
        os.rename(aside, path)
        raise
    _sync_folder(path.parent)
    shutil.rmtree(aside, ignore_errors=True)


def _exchange(a, b):
    """Swap the folders ``a`` and ``b`` atomically (Linux's renameat2 RENAME_EXCHANGE); False where
    the system or the file system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):       # a C library before glibc 2.28
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EPERM):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _sync_folder(folder):
    """The renames made durable (the folder's entries written to disk)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def tree_bytes(path):
    """The bytes of the files under ``path``, counted as a writer of another process may be
    removing folders meanwhile (a segment merged away, a temporary folder renamed): what went
    is not counted, never an error (a ``Path.rglob`` raised FileNotFoundError there)."""
    size = 0
    for root, _dirs, files in os.walk(path, onerror=lambda exc: None):
        for name in files:
            try:
                size += os.stat(os.path.join(root, name), follow_symlinks=False).st_size
            except OSError:
                pass
    return size
