"""Documents without a place in the model's space: a text none of whose terms is in the model's
vocabulary has an all-zero row. Under a distance model (MCD, relative comparisons) its distance
to every query is the query's own norm, whatever the query says, so it stood near every query
(first for most queries of a small index); under FILM's cosine it scores 0 against every query,
above a document that shares the query's word but whose learned cosine with it is below 0. A
search leaves such documents out under every model (``learnsim.index._scan._placeless``).
``Index.build`` and ``Index.add`` count such documents in one :class:`PlacelessWarning` (their ids its
attribute), as ``cluster`` and ``learnsim match`` do; a server's writes take it instead
(:func:`placeless_taken`)."""
from __future__ import annotations

import contextlib
import threading

import numpy as np

__all__ = ["PlacelessWarning", "zero_rows", "warn_placeless", "placeless_taken"]

# where warn_placeless puts what it would warn, per thread (placeless_taken)
_taken = threading.local()

# ids named in the warning; the count says how many more
_SHOWN = 3

# where the message says which documents: their ids are the warning's attribute, not its text (a
# process warned once per distinct text keeps each text in its warnings registry, and every write
# of a long-running one named other ids: a new line and a new entry each)
_IDS = "the warning's ids"


class PlacelessWarning(UserWarning):
    """Documents written to an index have no term of the model's vocabulary: a search leaves them
    out.

    Attributes
    ----------
    ids : list
        The ids of those documents.
    n_documents : int
        How many they are.
    n_written : int
        The documents written.
    """

    def __init__(self, message, ids=(), n_written=0):
        super().__init__(message)
        self.ids = list(ids)
        self.n_documents, self.n_written = len(self.ids), n_written

    def naming_ids(self):
        """The warning's text naming the first ids, as the command line shows it."""
        shown = ", ".join(map(repr, self.ids[:_SHOWN])) + (", ..." if len(self.ids) > _SHOWN else "")
        return str(self).replace(_IDS, shown)


def zero_rows(rows):
    """Positions of the all-zero rows of :class:`learnsim.scorer.Rows` (every part zero)."""
    n = rows.n_rows
    empty = np.ones(n, dtype=bool)
    if rows.sparse is not None:
        S = rows.sparse.tocsr()
        nonzero = np.diff(S.indptr) > 0
        if nonzero.any():       # stored zeros count as zero
            nonzero = np.asarray(abs(S).sum(axis=1)).ravel() > 0
        empty &= ~nonzero
    if rows.dense is not None:
        empty &= ~np.any(np.asarray(rows.dense) != 0, axis=1)
    if rows.sq is not None:
        empty &= np.asarray(rows.sq) == 0
    return np.flatnonzero(empty)


@contextlib.contextmanager
def placeless_taken():
    """Within it, in this thread, :func:`warn_placeless` warns nothing: it appends ``(documents
    without a term, the warning's text)`` to the list yielded, for the caller to say instead.
    ``learnsim.service._writes`` answers a write with it and logs it rate-limited: as a warning it
    named its ids, so every write's was a new log line and a new entry of the process's warnings
    registry, while the writer's answer said nothing. Per thread, as a filter of the warnings
    module is not: a server's searches run beside its writes."""
    outer = getattr(_taken, "into", None)
    _taken.into = into = []
    try:
        yield into
    finally:
        _taken.into = outer


def warn_placeless(ids, texts, empty, kind):
    """One :class:`PlacelessWarning` of the documents ``ids`` (of ``texts``) at positions ``empty``
    written under a model of scoring ``kind``; nothing when there are none. A text without a
    letter or digit is left out: it has its own warning (``check_texts``)."""
    from .._utils.callers import warn_outside
    from .._utils.inputs import has_content

    empty = [i for i in np.asarray(empty).tolist() if has_content(texts[i])]
    if not empty:
        return
    n_total = len(texts)

    message = (f"{len(empty)} of the {n_total} document(s) written have no term of the model's vocabulary "
               f"({_IDS}): a search leaves them out (" + ("their distance to every query would be the same)"
                                                         if kind == "distance" else "they would score 0 against "
                                                         "every query)"))
    warning = PlacelessWarning(message, [ids[i] for i in empty], n_total)
    into = getattr(_taken, "into", None)
    if into is not None:
        # a write's answer names its own documents
        into.append((len(empty), warning.naming_ids()))
        return
    warn_outside(warning)
