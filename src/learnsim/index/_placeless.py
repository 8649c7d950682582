"""Documents without a place in the model's space: a text none of whose terms is in the model's
vocabulary has an all-zero row. Under a distance model (MCD, relative comparisons) its distance
to every query is the query's own norm, whatever the query says, so it stood near every query
(first for most queries of a small index); under FILM's cosine it scores 0 against every query,
above a document that shares the query's word but whose learned cosine with it is below 0. A
search leaves such documents out under every model (``learnsim.index._scan._placeless``).
``Index.build`` and ``Index.add`` name such documents in one warning, as ``cluster`` and
``learnsim match`` do."""
from __future__ import annotations

import numpy as np

__all__ = ["zero_rows", "warn_placeless"]

# ids named in the warning; the count says how many more
_SHOWN = 3


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


def warn_placeless(ids, texts, empty, kind):
    """One warning naming (a few of) the documents ``ids`` (of ``texts``) at positions ``empty``
    written under a model of scoring ``kind``; nothing when there are none. A text without a
    letter or digit is left out: it has its own warning (``check_texts``)."""
    from .._utils.callers import warn_outside
    from .._utils.inputs import has_content

    empty = [i for i in np.asarray(empty).tolist() if has_content(texts[i])]
    if not empty:
        return
    n_total = len(texts)

    shown = ", ".join(repr(ids[i]) for i in list(empty)[:_SHOWN]) + (", ..." if len(empty) > _SHOWN else "")
    warn_outside(f"{len(empty)} of the {n_total} document(s) written have no term of the model's vocabulary "
                 f"({shown}): a search leaves them out (" + ("their distance to every query would be the same)"
                                                          if kind == "distance" else "they would score 0 against every "
                                                          "query)"), UserWarning)
