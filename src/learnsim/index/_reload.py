"""What a handle keeps of its SQLite connection when it reloads after another handle's write
(``Index._load``, by way of :func:`learnsim.index._integrity.read_store`).

Every reload used to open a new connection to ``docs.sqlite`` (and close the old one): the
connection, SQLite's ``journal_mode`` and schema statements, the schema read, and a cold page
cache, in every handle serving the index, after every write of any of them. A reload that only
adds what it has not checked yet (an add, or the merge of the small segments adds leave:
:func:`~learnsim.index._integrity.checked_up_to` is not None) reads its snapshot on the
connection it has, as long as ``docs.sqlite`` is still the file that connection opened: a build
that replaced the index (a folder swapped in) or anything else gets a new one, as before. The
reads and checks are the same either way; a failed reload leaves the connection as it was (it
only read)."""
from __future__ import annotations

import os

import numpy as np

__all__ = ["file_id", "kept_store", "load_is_behind", "ordered_seqs"]


def file_id(path):
    """(device, inode) of ``path``, or None when it cannot be stat()ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def kept_store(store, since):
    """``store`` (a handle's open DocumentStore) when a reload that checks only what came after
    ``since`` may read on it: ``since`` is not None, the store is open (a promotion or a reindex
    closes it before the files under it are replaced, then loads) and its file is still the one
    it opened (``store.file_id``, set by read_store before it connected). None: a new connection."""
    if since is None or store is None or getattr(store, "closed", False):
        return None
    opened = getattr(store, "file_id", None)
    if opened is None or file_id(store.path) != opened:
        return None
    return store


def ordered_seqs(segments, checked=()):
    """(the sequence numbers of ``segments``, one array in their order, whether they increase
    strictly). ``checked``: segments found in order by a load before (the same objects: a
    segment never changes once loaded); the first of ``segments`` that are these are not compared
    again, only the rest and the seam (a reload after an add compared all 100,000 of an index's
    numbers again, for the ten it added)."""
    arrays = [np.asarray(s.seqs) for s in segments]
    seqs = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
    start = 0
    for old, seg, a in zip(checked, segments, arrays):
        if old is not seg:
            break
        start += a.size
    rest = seqs[max(start - 1, 0):]
    return seqs, rest.size < 2 or bool(np.all(np.diff(rest) > 0))


def load_is_behind(idx):
    """Whether the handle ``idx`` must load again though its manifest is the index's file: a
    write stopped part-way (a Ctrl-C, any exception, another process killed there) changed no
    manifest or left this handle's unloaded. It reads other segments than its manifest lists; its
    connection was closed by a reindex or a promotion stopped before its load (every later call
    was "docs.sqlite is damaged: ... Cannot operate on a closed database"); or docs.sqlite holds
    documents after the last it scores (its manifest's ``covered_seq`` and those it scores in
    memory), committed by a write stopped before its segment. A load scores these from their
    texts and the next write stores them; unseen, the handle missed them in its searches, and
    its next add wrote its own segment past them, moving ``covered_seq`` over documents no
    segment held (the index no longer opened)."""
    if getattr(idx.store, "closed", False):
        return True
    # a write changes its manifest in place, writes it, then loads it: stopped before the load,
    # the manifest was the file's and the handle read the segments from before (after a compact,
    # files it had removed: "a segment lists document 31, which docs.sqlite does not hold")
    listed = [e.get("name") if isinstance(e, dict) else None for e in idx.manifest["segments"]]
    if [getattr(s, "name", None) for s in idx.segments[:len(listed)]] != listed:
        return True
    scored = int(idx.manifest["covered_seq"])
    if idx._seqs.size:
        scored = max(scored, int(idx._seqs[-1]))
    return idx.store.last_seq() > scored
