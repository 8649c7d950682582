"""The rows a filter lets through, kept while an open index's rows stay the same
(:meth:`learnsim.index.Index._allowed`), and a filter's refusal kept likewise.

A row's metadata never changes (an update writes a new row): while the rows and deletes stay
(``index._seqs``, ``index._live``: replaced, never changed in place), the same filter costs an
AND, not a pass over the metadata (1 us a document and condition). Its refusal (a
:class:`~learnsim.exceptions.FilterError`: 'Topic' where the documents hold 'topic', a value
condition on a field of lists) reads the kinds of value the live documents hold (a delete
changes them): it was not kept, so that a caller repeating a refused filter cost a pass over
every document's metadata each time (0.7-1.8 s a request at 50,000 documents, where an accepted
filter cost 7 ms). It is kept as the rows are, and raised anew from its copy, by the filter's
shape: the verdict (:func:`~learnsim.index._field_case.check_field_case`) reads the fields and
the kinds of condition on each, never the values, so that ``{"Topic": 1}``, ``{"Topic": 2}``, ...
are one refusal, not a pass over the metadata each.
"""
from __future__ import annotations

import copy

import numpy as np

from ..exceptions import FilterError
from ._field_case import _leaves, _top_fields

__all__ = ["allowed_rows"]

# filters whose matching rows (or refusal) an open index keeps (the rows: one bool per document)
FILTER_CACHE = 32


def _keep(cache, key, value):
    """``cache[key] = value``, the oldest entry let go past FILTER_CACHE of them."""
    if len(cache) >= FILTER_CACHE:
        try:
            cache.pop(next(iter(cache)))     # the oldest
        except (RuntimeError, StopIteration, KeyError):
            pass                             # another thread's search did it
    cache[key] = value


def _shape(conditions):
    """What check_field_case's verdict on ``conditions`` depends on: the first names of the fields in
    order, and each path's kinds of condition (in order: the first refusal found is the one said)."""
    return ("refused", tuple(_top_fields(conditions, {})),
            tuple((path, tuple(sorted(kinds))) for path, kinds in _leaves(conditions, {}).items()))


def allowed_rows(index, conditions):
    """One bool per row of ``index`` (``index._seqs``): whether its metadata satisfies
    ``conditions`` (the tree of :func:`~learnsim.index._store.check_filter`), deleted rows
    included (the caller ANDs the live ones). Raises the FilterError of a filter the documents
    refuse, each time it is asked, while the rows stay."""
    key = repr(conditions)
    cache = getattr(index, "_filter_cache", None)
    if cache is None or cache[0] is not index._seqs or cache[2] is not index._live:
        cache = index._filter_cache = (index._seqs, {}, index._live, [])
    allowed = cache[1].get(key)
    if allowed is None:
        shape = _shape(conditions)
        refused = cache[1].get(shape)
        if refused is not None:
            # a copy with no traceback: raising the kept one would grow its traceback at each raise
            raise copy.copy(refused).with_traceback(None)
        try:
            plan = index.store.filter_plan(conditions, lambda: _top_keys(index, cache))
        except FilterError as exc:
            # filter_plan's one FilterError is check_field_case's (the tree was checked before)
            _keep(cache[1], shape, copy.copy(exc).with_traceback(None))
            raise
        # a filter decided by fields no document holds ({"Topic1": 1}; {"Topic1": {"$ne": 1}}) is
        # answered without a pass: no row, or every row (the caller ANDs the live ones)
        allowed = np.full(index._seqs.shape[0], plan is True, dtype=bool)
        seqs = np.asarray(index.store.seqs_where(plan) if not isinstance(plan, bool) else [], dtype=np.int64)
        if seqs.size:
            pos = np.searchsorted(index._seqs, seqs)
            ok = pos < index._seqs.size
            ok[ok] = index._seqs[pos[ok]] == seqs[ok]
            allowed[pos[ok]] = True
        _keep(cache[1], key, allowed)
    return allowed


def _top_keys(index, cache):
    """The live documents' top metadata keys, read once while the rows stay (``cache``'s last
    item): a filter naming a field no document has read them at each new value ({"Topic1": 1},
    {"Topic1": 2}, ...: about 300 ms a request at 50,000 documents)."""
    if not cache[3]:
        from ._field_case import live_top_keys

        cache[3].append(live_top_keys(index.store.conn))
    return cache[3][0]
