"""File helpers shared by the model files, the index and the ANN directories: the standard
library only, so that an index search (which must not import scikit-learn) can use them."""
from __future__ import annotations

import hashlib

__all__ = ["read_only_uri", "sha256_file"]


def sha256_file(path):
    """The hex sha256 of a file, read in 1 MiB pieces (a model or a native index may be
    gigabytes); what the index manifests and the ANN directories record of their files."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
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
