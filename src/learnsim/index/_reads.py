"""Index.get and Index.count (:class:`DocumentReads`, a base of :class:`~learnsim.index.Index`):
the documents by id and/or by metadata filter, and how many are live, as a chromadb user calls
``collection.get(ids=..., where=..., include=...)`` and ``collection.count()`` (txtai's
``embeddings.count()``): both were an AttributeError; and ``len(index)`` and ``repr(index)``,
which count as ``count()`` does. Kept out of core.py, near its size limit."""
from __future__ import annotations

import numbers

import numpy as np

from .._utils.inputs import check_flag
from ._arguments import ids_to_delete
from ._integrity import read_retrying, sqlite_guarded as _sqlite_guarded
from ._store import check_filter, not_updated

__all__ = ["DocumentReads"]

_FIELDS = ("texts", "metadata")
# chromadb's include names: a chromadb user's words, named back in learnsim's
_CHROMA_NAMES = {"documents": "texts", "metadatas": "metadata"}


class DocumentReads:
    """The read methods of :class:`~learnsim.index.Index` that look documents up rather than
    search (they use its store, live rows and filter)."""

    def __len__(self):
        """The number of live documents, as :meth:`count` gives it: another handle's (or
        process's) writes seen, at the cost of one SQLite ``PRAGMA data_version`` and a stat of
        the manifest when there were none. It was this handle's last view, stale until its next
        read (``len(index)`` 30 beside ``count()`` 28 after another handle's delete). A closed
        handle's is a ValueError, as every call's."""
        return self.count()

    def _n_live(self):
        """The live documents of the state this handle has loaded: what a read under way counts
        (``len`` would look for another handle's writes in the middle of it)."""
        return int(self._live.sum())

    def __repr__(self):
        where = f"Index({str(self.path)!r}, "
        if getattr(self, "closed", False):
            return where + "closed)"
        try:
            n = len(self)
        except Exception:       # a repr never raises: a damaged or changing index shows the last view
            n = self._n_live()
        return where + f"{n} documents, {self.manifest.get('method')}: {self.scoring})"

    @_sqlite_guarded
    def count(self, *, filter=None):
        """The number of live documents (those matching ``filter``, the grammar of
        :meth:`search`), as of the index's latest state: another handle's writes count (as they
        do in ``len(index)``).

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
        >>> index.delete("1"), index.count(), index.count(filter={"topic": "a"})
        (1, 5, 1)
        """
        conditions = check_filter(filter)
        return read_retrying(self, lambda: int(np.count_nonzero(self._allowed(conditions))))

    @_sqlite_guarded
    def get(self, ids=None, *, filter=None, limit=None, offset=0, include=_FIELDS, missing_ok=False):
        """Live documents by id and/or filter, as chromadb's ``get``.

        Parameters
        ----------
        ids : id or list of ids, optional
            The documents asked for (str, or int as its decimal str), returned in this order;
            none given twice. An id not in the index (never added, or deleted) is a KeyError
            naming it, unless ``missing_ok`` (then it is left out). None: every live document,
            in the order written; ``[]``: none.
        filter : dict, optional
            A metadata filter (the grammar of :meth:`search`): only the documents it matches.
        limit, offset : int, optional
            At most ``limit`` documents (>= 1), after skipping ``offset`` (>= 0) of them.
        include : list of {"texts", "metadata"}, default both
            What is returned beside the ids (chromadb's "documents" and "metadatas" are named
            back in these words; an index holds no embeddings to return).

        Returns
        -------
        dict
            ``{"ids": [...], "texts": [...], "metadata": [...]}`` (the lists aligned; metadata
            None for a document written without).

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
        >>> got = index.get(["4", "2"])
        >>> got["ids"], got["texts"], got["metadata"]
        (['4', '2'], ['refund for a double charge', 'forgot my password'], [{'topic': 'b'}, {'topic': 'a'}])
        >>> index.get(filter={"topic": "c"}, include=[])
        {'ids': ['5', '6']}
        """
        wanted = None if ids is None else ids_to_delete(ids, "get")
        conditions = check_filter(filter)
        limit = _check_count(limit, "limit", 1)
        offset = _check_count(offset, "offset", 0)
        fields = _check_include(include)
        missing_ok = check_flag(missing_ok, "missing_ok")

        def read():
            seqs = self._seqs[self._allowed(conditions)] if wanted is None else self._seqs_of(wanted, conditions,
                                                                                                 missing_ok)
            seqs = [int(s) for s in seqs[offset:None if limit is None else offset + limit]]
            # read from docs.sqlite, each row against its digest (as a filtered search's hits are)
            docs = self.store.documents(seqs) if seqs else {}
            out = {"ids": [docs[s][0] for s in seqs]}
            if "texts" in fields:
                out["texts"] = [docs[s][1] for s in seqs]
            if "metadata" in fields:
                out["metadata"] = [docs[s][2] for s in seqs]
            return out

        return read_retrying(self, read)

    def _texts_kept(self, ids):
        """The texts of the live documents ``ids``, which an update of their metadata alone keeps
        (read under its write lock); the ids not in the index named in one KeyError, as the
        store's update names them (the first alone was named, without the way round)."""
        texts, missing = [], []
        for doc_id in ids:
            try:
                texts.append(self.document(doc_id)[0])
            except KeyError:
                missing.append(doc_id)
        if missing:
            raise not_updated(missing)
        return texts

    def _seqs_of(self, wanted, conditions, missing_ok):
        """The sequence numbers of the live documents ``wanted`` (ids, in that order) that
        ``conditions`` allow; the ids not in the index named in one KeyError."""
        seqs, missing = [], []
        for doc_id in wanted:
            try:
                seqs.append(self.store.live_seq_of(doc_id))
            except KeyError:
                missing.append(doc_id)
        if missing and not missing_ok:
            shown = ", ".join(repr(m)[:80] for m in missing[:5]) + (f" and {len(missing) - 5} more"
                                                                   if len(missing) > 5 else "")
            raise KeyError(f"id{'s' if len(missing) > 1 else ''} {shown} not in the index (never added, or "
                           "deleted); get(..., missing_ok=True) leaves out the ids not in it")
        seqs = np.asarray(seqs, dtype=np.int64)
        if conditions is not None and seqs.size:
            allowed = self._allowed(conditions)
            pos = np.minimum(np.searchsorted(self._seqs, seqs), max(len(self._seqs) - 1, 0))
            seqs = seqs[(self._seqs[pos] == seqs) & allowed[pos]] if len(self._seqs) else seqs[:0]
        return seqs


def _check_count(value, name, least):
    if value is None and name == "limit":
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise ValueError(f"{name} must be an integer >= {least}" + (" or None" if name == "limit" else "")
                         + f"; got {value!r}")
    return int(value)


def _check_include(include):
    if isinstance(include, (str, bytes)) or not isinstance(include, (list, tuple, set, frozenset)):
        raise TypeError(f"include must be a list of {' and/or '.join(map(repr, _FIELDS))}; got {include!r}")
    fields = set()
    for name in include:
        if name in _FIELDS:
            fields.add(name)
        elif name in _CHROMA_NAMES:
            raise ValueError(f"include: {name!r} is chromadb's name; an index's is {_CHROMA_NAMES[name]!r}")
        else:
            raise ValueError(f"include: unknown field {name!r}; an index's get returns the ids and "
                             f"{' and/or '.join(map(repr, _FIELDS))} (it keeps no embeddings to return)")
    return fields
