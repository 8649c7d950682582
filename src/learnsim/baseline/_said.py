"""Warnings a fit recorded, said again once it is known which model is saved.

A fit's checks each warn as they decide ('... so the model falls back to the baseline'), before a
later check may replace the model; so a fit records them (``warnings.catch_warnings(record=True)``)
and says them again afterwards, leaving out those that name a model not saved and saying the
ones of one cause as one. The rule of each fit is its own (:func:`learnsim._search_checks.said_if_kept`,
the ``said_once`` of :mod:`learnsim.film._said`, :mod:`learnsim.linklearn._said` and
:mod:`learnsim.relative._said`); the replay is this one, so that each warning keeps where it
was first said (its file and line) and its order.

It sits in :mod:`learnsim.baseline`, below the method packages, so that they may import it.
"""
from __future__ import annotations

import warnings

__all__ = ["fell_back", "replay"]


def fell_back(w):
    """Whether the recorded warning ``w`` is a check's fall-back (a :class:`BaselineWarning`)."""
    from ..exceptions import BaselineWarning

    return issubclass(w.category, BaselineWarning)


def replay(said, drop=None, merged=()):
    """Warn again the recorded warnings ``said``, in their order: none that ``drop(w)`` is true
    of; each group of ``merged`` (``(warnings, message)``: recorded warnings of one cause) as its
    one ``message`` where the first of them stood (a group with no warning, or no message, leaves
    its warnings as they are)."""
    first, gone = {}, set()
    for group, message in merged:
        if group and message:
            first[id(group[0])] = message
            gone.update(id(w) for w in group)
    for w in said:
        if id(w) in gone:
            if id(w) in first:
                warnings.warn_explicit(first[id(w)], w.category, w.filename, w.lineno)
            continue
        if drop is None or not drop(w):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
