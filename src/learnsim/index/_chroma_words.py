"""chromadb's keyword names on :class:`~learnsim.index.Index`'s methods: a chromadb user calls
``add(documents=..., metadatas=...)``, ``get(where=...)``, ``query(query_texts=...,
n_results=...)``, ``delete(where=...)``, and was answered Python's bare "got an unexpected
keyword argument 'documents'", which names no learnsim word. Each stays a TypeError (nothing
runs), naming learnsim's word for it, or what to do where learnsim has none. Checked only for
the keywords a method does not take: a call Python would have accepted is never refused."""
from __future__ import annotations

import functools
import inspect

__all__ = ["chromadb_keywords", "foreign_keywords", "refuse_foreign_keywords"]

# chromadb's keyword: learnsim's, or None where it has none (said in _NO_WORD)
_CHROMA = {"documents": "texts", "metadatas": "metadata", "where": "filter", "n_results": "k",
           "query_texts": "query", "where_document": None, "embeddings": None, "query_embeddings": None}
_NO_WORD = {
    "where_document": "learnsim's filters read metadata only (filter=...); a search finds documents by their words",
    "embeddings": "an index computes every document's row from its texts with its model: give the texts",
    "query_embeddings": "an index computes a query's row from its text with its model: give the query text",
}


def foreign_keywords(method):
    """The chromadb keywords ``method`` does not take (a frozenset, empty for most methods)."""
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):     # pragma: no cover - a builtin without a signature
        return frozenset()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return frozenset()
    return frozenset(name for name in _CHROMA if name not in params)


def refuse_foreign_keywords(method, foreign, kwargs):
    """A TypeError naming learnsim's word for the first of ``kwargs`` that is one of chromadb's
    (``foreign``, from :func:`foreign_keywords`), as Python's own error would, with the word."""
    name = next(key for key in kwargs if key in foreign)
    call = f"{method.__name__}()"
    said = f"{call} got an unexpected keyword argument {name!r}: that is chromadb's name"
    ours = _CHROMA[name]
    params = inspect.signature(method).parameters
    if name == "where" and method.__name__ == "delete":
        raise TypeError(f"{said}; learnsim's delete takes ids: delete(index.get(filter=...)['ids']) deletes "
                        "the documents a filter selects")
    if ours is None:
        raise TypeError(f"{said}; {_NO_WORD[name]}")
    if ours in params:
        raise TypeError(f"{said}; learnsim's is {ours}=")
    raise TypeError(f"{said} ({call} takes {', '.join(p for p in params if p != 'self')})")


def chromadb_keywords(method):
    """``method``, refusing chromadb's keywords it does not take by :func:`refuse_foreign_keywords`
    (the methods that are not ``sqlite_guarded``, which checks them itself: ``Index.build``)."""
    foreign = foreign_keywords(method)

    @functools.wraps(method)
    def checked(*args, **kwargs):
        if kwargs and foreign and not foreign.isdisjoint(kwargs):
            refuse_foreign_keywords(method, foreign, kwargs)
        return method(*args, **kwargs)
    return checked
