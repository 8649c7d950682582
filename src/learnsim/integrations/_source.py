"""What the retrievers of :mod:`learnsim.integrations` share: where the hits come from (an
:class:`~learnsim.index.Index`, a :class:`~learnsim.client.Client`, an
:class:`~learnsim.client.AsyncClient`), one search of it, and what a hit's metadata holds.
Imports neither LangChain nor LlamaIndex (nor httpx, nor the index, until they are used)."""
from __future__ import annotations

import asyncio
import numbers
import os
import threading
import weakref

import numpy as np

from ..client import AsyncClient, Client

__all__ = ["Source", "HIT_KEYS", "check_filter", "check_k", "check_flag", "check_query_bundle", "hit_parts", "pickled_index", "unpickled_index"]

# what a hit's metadata gets from learnsim, over the document's own keys of the same names;
# besides these, whatever else the hit carries ("explanation", a re-ranked search's
# "first_stage_rank" and "first_stage_score")
HIT_KEYS = ("id", "score", "rank", "score_name", "higher_is_better")

# one lock per index: searches of one Index (from the threads an async caller runs them in,
# and from the caller's own) run one at a time, as they do on the service's reads thread
_LOCKS = weakref.WeakKeyDictionary()
_LOCKS_GUARD = threading.Lock()
_SHARED_LOCK = threading.Lock()   # for an index object that takes no weak reference


def _lock_of(index):
    with _LOCKS_GUARD:
        try:
            lock = _LOCKS.get(index)
            if lock is None:
                lock = _LOCKS[index] = threading.Lock()
        except TypeError:
            return _SHARED_LOCK
        return lock


def check_k(k, name="k"):
    """``k`` as an int (a numpy integer too, as Index.search takes it), or a ValueError naming ``name``."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"{name} must be a positive integer; got {k!r}")
    return int(k)


def check_flag(value, name):
    """``value`` as a bool (a numpy bool too), or a TypeError naming ``name``: ``bool("false")``
    is True, so a string is refused rather than read one way here and another elsewhere."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def check_filter(filter):
    """``filter`` as given, once the index's own check (:func:`learnsim.index._store.check_filter`,
    imported when a filter is given) finds it well formed: a retriever checks it when it is made,
    as its other arguments, not at its first search (a FilterError then, after the index was opened)."""
    if filter is not None:
        from ..index._store import check_filter as index_check

        index_check(filter)
    return filter


def check_query(query):
    """``query``, a str: a retriever answers one query (a list was an AttributeError deep inside)."""
    if not isinstance(query, str):
        raise TypeError(f"query must be a str (one query; batch() takes several); got {type(query).__name__}")
    return query


def check_query_bundle(query, bundle_type):
    """``query`` (a str or LlamaIndex's ``QueryBundle``), or a TypeError naming what it is: bytes
    was an AttributeError from inside LlamaIndex, None or a dict a pydantic ValidationError of its
    instrumentation event."""
    if not isinstance(query, (str, bundle_type)):
        raise TypeError(f"query must be a str or a QueryBundle (one query); got {type(query).__name__}")
    return query


def hit_parts(hit, score_name, higher_is_better):
    """``(id, text, score, metadata)`` of a hit of :meth:`Index.search` (or of the service):
    the metadata is the document's, then the hit's other keys (``id``, ``score``, ``rank``,
    ``explanation``, ...), then ``score_name`` and ``higher_is_better``."""
    metadata = dict(hit.get("metadata") or {})
    metadata.update((key, value) for key, value in hit.items() if key not in ("text", "metadata"))
    metadata["score_name"], metadata["higher_is_better"] = score_name, bool(higher_is_better)
    return hit["id"], hit["text"], hit["score"], metadata


def _index_score(index):
    """(what a search's ``score`` is, whether higher is closer), as the service names them: a
    re-ranked search gives the re-ranker's probability, else the index's column."""
    manifest = getattr(index, "manifest", None) or {}
    if manifest.get("rerank") is not None:
        return "probability", True
    return getattr(index, "column", "score"), bool(getattr(index, "higher_is_closer", True))


class _ReopenedIndex:
    """What a pickled retriever holds for its open :class:`~learnsim.index.Index`: the index's
    path, opened again when the retriever is unpickled (an open index holds locks and file
    handles, which no pickle carries)."""

    def __init__(self, path):
        self.path = str(path)


def pickled_index(index, client, async_client, retriever):
    """What a pickle of a ``retriever`` over ``index`` (or the clients) holds in place of the
    index: its path, reopened by :func:`unpickled_index`. A retriever over a client of learnsim
    serve is refused with a TypeError naming what to do (a client holds an open connection
    pool; its URL and credentials are the caller's to pass again)."""
    if client is not None or async_client is not None:
        raise TypeError(f"a {retriever} over a client of learnsim serve cannot be pickled nor deep-copied: pickle "
                        "the service's URL and make a new Client (or AsyncClient) and retriever from it (copy.copy "
                        "shares the client)")
    from ..index import Index

    if isinstance(index, Index):
        return _ReopenedIndex(os.path.abspath(index.path))   # the unpickling process may run elsewhere
    return index          # an object of the caller's with a search(): pickled as it pickles


def unpickled_index(value):
    """The index a pickled retriever held: an :class:`~learnsim.index.Index` pickled as its path
    is opened again (the index as it is on disk now)."""
    if isinstance(value, _ReopenedIndex):
        from ..index import Index

        return Index.open(value.path)
    return value


class Source:
    """An index, or a client of ``learnsim serve`` (a :class:`Client` for the synchronous
    calls, an :class:`AsyncClient` for the asynchronous ones; one of them does for both).

    ``index`` is an :class:`~learnsim.index.Index` (or anything with its ``search``), or the
    path of one, opened here (and kept open: ``source.index.close()`` closes it)."""

    def __init__(self, index=None, client=None, async_client=None):
        if isinstance(client, AsyncClient) and async_client is None:
            client, async_client = None, client
        if index is not None and (client is not None or async_client is not None):
            raise TypeError("give an index or a client of learnsim serve, not both")
        if index is None and client is None and async_client is None:
            raise TypeError("give an index (a learnsim.index.Index or its path) or a client of learnsim serve "
                            "(learnsim.client.Client or AsyncClient)")
        if client is not None and not isinstance(client, Client):
            raise TypeError(f"client must be a learnsim.client.Client (or AsyncClient); got {type(client).__name__}")
        if async_client is not None and not isinstance(async_client, AsyncClient):
            raise TypeError(f"async_client must be a learnsim.client.AsyncClient; got {type(async_client).__name__}")
        if isinstance(index, (str, os.PathLike)):
            from ..index import Index

            index = Index.open(index)
        elif index is not None and not callable(getattr(index, "search", None)):
            raise TypeError(f"index must be a learnsim.index.Index or the path of one; got {type(index).__name__}")
        self.index, self.client, self.async_client = index, client, async_client

    def search(self, query, k, filter, explain, n_top):
        """``(hits, score_name, higher_is_better)`` of one query, best first."""
        check_query(query)
        if self.index is not None:
            with _lock_of(self.index):
                hits = self.index.search(query, k, filter=filter, explain=explain, n_top=n_top)
                return (hits, *_index_score(self.index))
        if self.client is None:
            raise TypeError("this retriever has only an AsyncClient: use its asynchronous calls, or give it a "
                            "learnsim.client.Client (client=) too")
        return self._answer(self.client.search(query, k, filter=filter, explain=explain, n_top=n_top))

    async def asearch(self, query, k, filter, explain, n_top):
        """:meth:`search`, awaited: the AsyncClient's request, or the index's search (or the
        Client's request) in a thread."""
        check_query(query)
        if self.index is None and self.async_client is not None:
            answer = await self.async_client.search(query, k, filter=filter, explain=explain, n_top=n_top)
            return self._answer(answer)
        return await asyncio.to_thread(self.search, query, k, filter, explain, n_top)

    @staticmethod
    def _answer(answer):
        return answer["hits"], answer.get("score", "score"), bool(answer.get("higher_is_better", True))
