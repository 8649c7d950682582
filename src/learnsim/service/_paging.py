"""Paging and the fields of a hit (``offset`` and ``include`` of ``learnsim serve``'s search and
similar routes).

``offset`` skips the first hits, as Elasticsearch's ``from`` and txtai's ``offset`` do: the
answer holds the hits ranked ``offset + 1`` to ``offset + k``, each keeping its rank in the whole
ranking. The index reads ``offset + k`` hits to give them, so ``offset + k`` is bounded as ``k``
is (``MAX_K``) and counts in the budget of hits (queries x (offset + k) <= ``MAX_HITS``).

``include`` names the fields a hit carries besides its ``"id"`` and ``"rank"``, as chromadb's
``include`` does with its own names: ``"text"``, ``"metadata"``, ``"score"`` (with a re-ranked
search's ``"first_stage_score"`` and ``"first_stage_rank"``); all of them when it is not given
(the answers before it), none when it is empty. In a query string it is a comma-separated list
(``include=score,metadata``; ``include=`` is the empty list). An unknown name, or one given
twice, is a 422 naming it. ``explain`` still decides the ``"explanation"``.
"""
from __future__ import annotations

from ._http import _fail
from ._limits import MAX_K

__all__ = ["HIT_FIELDS", "MAX_OFFSET", "check_offset", "parse_include", "shown"]

#: What ``include`` may name: a hit's fields besides ``"id"`` and ``"rank"``, which every hit keeps.
HIT_FIELDS = ("text", "metadata", "score")
#: The largest offset: a search reads ``offset + k`` hits, at most ``MAX_K``.
MAX_OFFSET = MAX_K - 1
# the fields each name of include stands for (a re-ranked hit's first stage is part of its score)
_FIELDS_OF = {"text": ("text",), "metadata": ("metadata",),
              "score": ("score", "first_stage_score", "first_stage_rank")}
_OPTIONAL = frozenset(f for fields in _FIELDS_OF.values() for f in fields)


def check_offset(offset, k):
    """A 422 unless ``offset + k`` is within ``MAX_K`` (each alone is checked by its parameter's
    bounds): the index reads that many hits."""
    if offset + k > MAX_K:
        raise _fail(422, f"offset + k = {offset} + {k} = {offset + k} is over the bound of {MAX_K} hits a query "
                         f"(MAX_K): a search reads offset + k hits to answer k")


def parse_include(value):
    """The names of ``include`` as a frozenset, or None for every field (not given). ``value``:
    None, a list of str (a body's), or a str (a query string's, comma-separated; empty: none).
    An unknown name or one given twice is a 422 naming it."""
    if value is None:
        return None
    names = (value.split(",") if value else []) if isinstance(value, str) else list(value)
    seen = set()
    for name in names:
        if name not in _FIELDS_OF:
            raise _fail(422, f"include: unknown field {name[:40]!r} (a hit's fields: {', '.join(HIT_FIELDS)}; "
                             "id and rank are always given)")
        if name in seen:
            raise _fail(422, f"include: {name!r} is given more than once")
        seen.add(name)
    return frozenset(seen)


def shown(hits, include):
    """``hits`` without the fields ``include`` leaves out (``include`` None: as they are), the
    explanation, id and rank kept. New dicts: a hit may be the index handle's own."""
    if include is None:
        return hits
    dropped = _OPTIONAL - {f for name in include for f in _FIELDS_OF[name]}
    return [{f: v for f, v in hit.items() if f not in dropped} for hit in hits]
