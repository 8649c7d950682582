"""Files read and hashed ahead, on another core, while a command's imports run.

A command-line search of an index spends its first 0.15-0.2 s importing numpy and learnsim, one
core busy and the other idle; then it reads and checks (sha256) the files a search needs: at
100,000 FILM documents 40 MB of rows and 14 MB of the query plan's map, 40-50 ms after the
imports, about 35 ms of which is hashing. Reading a file and hashing it let go of the GIL, so a
thread started before the imports does both meanwhile, and the index's reader
(:func:`learnsim.index._segments.read_verified`) takes the bytes and their digest from here
instead of reading again. Nothing is trusted for being here: the digest is compared with the
one the manifest records as for any read, and the bytes used are the bytes hashed. A file that
changed since it was read ahead (another inode, size, modification or change time) is read
again by its reader.

Only the standard library: this runs before numpy is imported.
"""
from __future__ import annotations

import hashlib
import json
import mmap
import os
import stat
import threading

__all__ = ["start", "take", "index_files"]

# files smaller than this are read by their reader (too little to save)
MIN_BYTES = 256 << 10
# bytes read ahead at most (a larger index's first search reads the rest itself)
MAX_BYTES = 1 << 30
# read and hashed a piece at a time: each piece takes the GIL back twice (the other thread,
# importing, gives it up every 5 ms), so few large pieces
_CHUNK = 16 << 20

_cond = threading.Condition()
_entries = {}


def _forget():
    # a forked child has no reading thread: it reads its files itself (a "reading" entry would
    # make its reader wait for ever)
    global _cond, _entries
    _cond, _entries = threading.Condition(), {}


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget)


def _name(path):
    """The name a file is kept under: its absolute path, so that "idx", "./idx" and "idx/" name
    the same files (whether it is still the same file is the key's business, below)."""
    return os.path.abspath(os.fspath(path))


def _key(st):
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def index_files(directory):
    """The files of the index at ``directory`` that its first search reads and checks: the query
    plan's and the segments' arrays, from the manifest (unchecked here: names that are not plain
    file names are left out, and what is read is checked by its reader); [] where there is no
    readable manifest."""
    try:
        # not blocking (a FIFO in its place would stall the command before its own check says so)
        fd = os.open(os.path.join(directory, "manifest.json"), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return []
            manifest = json.loads(fh.read(1 << 20))
    except (OSError, ValueError, RecursionError):
        return []
    if not isinstance(manifest, dict):
        return []

    def plain(name):
        return isinstance(name, str) and name and os.sep not in name and "/" not in name and not name.startswith(".")

    paths = []
    plan_dir, plan_files = manifest.get("plan_dir"), manifest.get("plan_sha256")
    if plain(plan_dir) and isinstance(plan_files, dict):
        paths += [os.path.join(directory, plan_dir, name) for name in plan_files if plain(name)]
    segments = manifest.get("segments")
    for seg in segments if isinstance(segments, list) else ():
        name = seg.get("name") if isinstance(seg, dict) else None
        if plain(name):
            folder = os.path.join(directory, "segments", name)
            try:
                paths += [os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".npy")]
            except OSError:
                pass
    return paths


def start(paths):
    """Read and hash the regular files among ``paths`` of at least MIN_BYTES (up to MAX_BYTES in
    all), in a daemon thread; their readers :func:`take` them."""
    chosen, total = [], 0
    for path in paths:
        path = _name(path)
        try:
            st = os.stat(path)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_size < MIN_BYTES or total + st.st_size > MAX_BYTES:
            continue
        chosen.append(path)
        total += st.st_size
    with _cond:
        chosen = [p for p in chosen if p not in _entries]
        for path in chosen:
            _entries[path] = {"state": "pending"}
    if chosen:
        threading.Thread(target=_run, args=(chosen,), name="learnsim-prefetch", daemon=True).start()
    return chosen


def _run(paths):
    for path in paths:
        with _cond:
            entry = _entries.get(path)
            if entry is None or entry["state"] != "pending":
                continue            # its reader came first and reads it itself
            entry["state"] = "reading"
        try:
            result = _read(path)
        except BaseException:       # noqa: BLE001 - its reader meets the error again and reports it
            result = None
        with _cond:
            if result is None:
                entry["state"] = "failed"
            else:
                entry.update(state="done", key=result[0], buffer=result[1], digest=result[2])
            _cond.notify_all()


def _read(path):
    """(key, buffer, sha256) of a regular file read whole, or None (not one, or it changed while
    read). The buffer is an anonymous memory map: page-aligned, as numpy's large arrays are."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))   # a FIFO must not block
    with os.fdopen(fd, "rb", buffering=0) as fh:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode) or before.st_size == 0:
            return None
        size = before.st_size
        buf = mmap.mmap(-1, size)
        view = memoryview(buf)
        digest = hashlib.sha256()
        pos = 0
        try:
            while pos < size:
                got = fh.readinto(view[pos:pos + _CHUNK])
                if not got:
                    break
                digest.update(view[pos:pos + got])
                pos += got
        finally:
            view.release()
        if pos != size or _key(os.fstat(fd)) != _key(before):
            return None
    return _key(before), buf, digest.hexdigest()


def take(path):
    """(buffer, sha256) of ``path`` as read ahead, once, where it is still the same file; else
    None and its reader reads it (a file not started yet is no longer read ahead)."""
    if not _entries:
        return None             # nothing read ahead (every read of a process that never started it)
    path = _name(path)
    with _cond:
        entry = _entries.get(path)
        if entry is None:
            return None
        if entry["state"] == "pending":
            entry["state"] = "claimed"
            return None
        while entry["state"] == "reading":
            _cond.wait()
        del _entries[path]
        if entry["state"] != "done":
            return None
    try:
        same = _key(os.stat(path)) == entry["key"]
    except OSError:
        same = False
    return (entry["buffer"], entry["digest"]) if same else None
