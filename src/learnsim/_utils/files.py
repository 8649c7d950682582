"""File helpers shared by the model files, the index and the ANN directories: the standard
library only, so that an index search (which must not import scikit-learn) can use them."""
from __future__ import annotations

import errno
import hashlib
import os
import re
import stat

__all__ = ["NotRegularFileError", "open_regular", "read_only_uri", "sha256_file"]


class NotRegularFileError(OSError):
    """A path that names a device, a named pipe or a socket where a file is read."""


def open_regular(path):
    """``path`` opened for reading in binary, once it is a regular file: a named pipe in a file's
    place (or a symbolic link to one, or to ``/dev/zero``) made a read wait for ever for a writer,
    or read without end. ``O_NONBLOCK`` keeps the open itself from waiting on a pipe, and the type
    is checked on the opened descriptor (the file cannot be swapped between the check and the
    reads; the flag does nothing to a regular file's reads). NotRegularFileError (an OSError)
    otherwise, FileNotFoundError and the other OSErrors as ``open`` raises them."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFileError(errno.EINVAL, "not a regular file: a device, pipe or socket", str(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def sha256_file(path):
    """The hex sha256 of a file, read in 1 MiB pieces (a model or a native index may be
    gigabytes); what the index manifests and the ANN directories record of their files."""
    digest = hashlib.sha256()
    with open_regular(path) as handle:
        for piece in iter(lambda: handle.read(1 << 20), b""):
            digest.update(piece)
    return digest.hexdigest()


def read_only_uri(path):
    """The SQLite URI that opens the database at ``path`` read-only: the path's ``%``, ``?`` and
    ``#`` escaped, as a URI's are decoded (an index in "idx%41" opened "idxA/docs.sqlite", and its
    build failed with SQLite's "unable to open database file"). Used by the index and the
    feedback log alike."""
    quoted = str(path).replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    return "file:" + quoted + "?mode=ro"


# numpy's short write of an array ("6288 requested and 5104 written"): an OSError with no number
_SHORT_WRITE = re.compile(r"\d+ requested and \d+ written")


def save_npy(path, arr):
    """``np.save(path, arr, allow_pickle=False)``; a write the disk takes only part of (a full
    disk, a file-size limit) is an OSError numbered ENOSPC naming ``path``: numpy's own has no
    number, which the command line took for a bug (a traceback) and the service for one (500).
    (numpy is imported here, not above: the rest of this module is the standard library's.)"""
    import numpy as np

    try:
        np.save(path, arr, allow_pickle=False)
    except OSError as exc:
        if exc.errno is None and _SHORT_WRITE.fullmatch(str(exc)):
            raise OSError(errno.ENOSPC, f"the disk took part of a write ({exc} bytes): it is full, or the file "
                                        "would pass the size limit of files here", str(path)) from None
        raise
