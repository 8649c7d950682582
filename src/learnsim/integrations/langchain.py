"""A LangChain retriever over a learnsim index: :class:`LearnsimRetriever`.

``pip install "learnsim[langchain]"`` (langchain-core). The retriever searches a
:class:`learnsim.index.Index` (given, or opened from its path) or a running ``learnsim serve``
(through a :class:`learnsim.client.Client`, an :class:`~learnsim.client.AsyncClient` or both),
and returns exactly the hits of :meth:`Index.search(query, k, filter=...)
<learnsim.index.Index.search>`, in its order, each as a ``Document``::

    Document(page_content=text, id=id,
             metadata={**the document's metadata, "id": id, "score": score, "rank": rank,
                       "score_name": "similarity" | "distance" | "score" | "probability",
                       "higher_is_better": bool, ["explanation": ...]})

The hits are best first whatever the model. ``metadata["score"]`` is learnsim's score, the same
number as ``Index.search``, the command line and the service give: a similarity (higher is
closer), a term-weight score, a re-ranker's probability or, for a distance model (MCD, relative
comparisons: ``Index.higher_is_closer`` false), the distance, lower being closer.
``metadata["higher_is_better"]`` says which, ``metadata["score_name"]`` what the score is. A
key of learnsim's (``id``, ``score``, ``rank``, ``score_name``, ``higher_is_better``,
``explanation``) replaces a key of the same name in a document's own metadata.

Examples
--------
>>> import os, tempfile
>>> import learnsim
>>> from learnsim.index import Index
>>> from learnsim.integrations.langchain import LearnsimRetriever
>>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
...          "refund for a double charge", "app crashes on start", "crash after the update"]
>>> topics = ["account", "account", "billing", "billing", "app", "app"]
>>> model = learnsim.fit(texts, clusters=topics)                # too few to check: the strongest baseline, warns
>>> path = os.path.join(tempfile.mkdtemp(), "tickets")
>>> Index.build(path, model, texts, ids=["t1", "t2", "t3", "t4", "t5", "t6"],
...             metadata=[{"topic": t} for t in topics]).close()
>>> retriever = LearnsimRetriever(index=path, k=1)
>>> [(d.id, d.page_content, d.metadata["topic"]) for d in retriever.invoke("I forgot my password")]
[('t2', 'forgot my password', 'account')]
>>> doc = retriever.invoke("I was charged twice", filter={"topic": "billing"}, k=2)[1]
>>> doc.id, doc.metadata["rank"], doc.metadata["score_name"], doc.metadata["higher_is_better"]
('t4', 2, 'score', True)
>>> import asyncio
>>> [d.id for d in asyncio.run(retriever.ainvoke("refund for a double charge"))]
['t4']
>>> retriever.index.close()
"""
import copy
from typing import Any, Dict, List, Optional


try:
    from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:
    raise ImportError('learnsim.integrations.langchain needs langchain-core: pip install "learnsim[langchain]" '
                      f"({exc})", name="langchain_core") from exc

from ._source import Source, check_filter, check_flag, check_k, hit_parts, pickled_index, unpickled_index

__all__ = ["LearnsimRetriever"]

_FIELDS = getattr(Document, "model_fields", None) or getattr(Document, "__fields__", {})
# Document.id: langchain-core 0.2.11 and later
_DOCUMENT_HAS_ID = "id" in _FIELDS
# what LangChain's invoke() passes on besides the retriever's own options
_IGNORED_KWARGS = ("verbose",)


# the options the constructor and invoke() both take, and their one check
_CHECKS = {"k": check_k, "n_top": check_k, "explain": check_flag}
_OWN_FIELDS = ("index", "client", "async_client", "k", "filter", "explain", "n_top")


class LearnsimRetriever(BaseRetriever):
    """A LangChain retriever of the hits of a learnsim index (see the module notes for what a
    ``Document`` holds and what its ``score`` means).

    Parameters
    ----------
    index : learnsim.index.Index, str or os.PathLike, optional
        The index, or the path of one (opened here and kept open: ``retriever.index.close()``).
    client : learnsim.client.Client or AsyncClient, optional
        Instead of an index: a client of a running ``learnsim serve``. A :class:`Client` serves
        ``invoke`` (and ``ainvoke``, in a thread); an :class:`AsyncClient` serves ``ainvoke``.
    async_client : learnsim.client.AsyncClient, optional
        With ``client``: the client ``ainvoke`` awaits.
    k : int, default=4
        Documents per query.
    filter : dict, optional
        A learnsim metadata filter, as :meth:`learnsim.index.Index.search` takes it
        (``{"topic": "billing"}``, ``{"year": {"$gte": 2020}}``, ...).
    explain : bool, default=False
        Put each hit's explanation (:meth:`Index.search(explain=True)
        <learnsim.index.Index.search>`) in ``metadata["explanation"]``.
    n_top : int, default=10
        Words an explanation lists.

    ``invoke(query, k=..., filter=..., explain=..., n_top=...)`` overrides them for one call (a
    ``filter`` given there replaces the retriever's, it is not merged with it). The options are
    checked alike in both places: ``k`` and ``n_top`` positive integers, ``explain`` True or
    False (a string such as ``"false"`` is refused, not read as true, nor converted).
    """

    index: Any = None
    client: Any = None
    async_client: Any = None
    k: int = 4
    filter: Optional[Dict[str, Any]] = None
    explain: bool = False
    n_top: int = 10

    def __init__(self, index: Any = None, **kwargs: Any) -> None:
        client, async_client = kwargs.pop("client", None), kwargs.pop("async_client", None)
        # the arguments are checked before the index is opened (as pydantic checks a model's
        # fields first): a bad one beside a wrong path was hidden by the FileNotFoundError
        # checked before pydantic sees them: it would read k="3" as 3 and explain="false" as False,
        # which invoke() refuses (one rule for both, the stricter)
        for name, check in _CHECKS.items():
            if name in kwargs:
                kwargs[name] = check(kwargs[name], name)
        # pydantic's BaseRetriever ignores a field it does not have: search_kwargs={"k": 1} (the
        # as_retriever idiom) or a misspelt top_k=1 searched with k=4 without a word
        fields = getattr(type(self), "model_fields", None) or getattr(type(self), "__fields__", {})
        unknown = sorted(set(kwargs) - set(fields))
        if unknown:
            hint = ""
            if "search_kwargs" in unknown and isinstance(kwargs["search_kwargs"], dict):
                given = ", ".join(f"{key}={value!r}" for key, value in kwargs["search_kwargs"].items())
                hint = f" (give search_kwargs' options as arguments: LearnsimRetriever(..., {given}))"
            raise TypeError(f"LearnsimRetriever got unexpected keyword arguments {unknown}{hint}: it takes "
                            f"index, client, async_client, k, filter, explain, n_top (and LangChain's "
                            f"{', '.join(sorted(set(fields) - set(_OWN_FIELDS)))})")
        check_filter(kwargs.get("filter"))
        source = Source(index, client, async_client)
        super().__init__(index=source.index, client=source.client, async_client=source.async_client, **kwargs)
        check_k(self.k)

    # an open Index holds locks and file handles that no pickle carries: a pickled retriever
    # holds the index's path, opened again when it is unpickled (multiprocessing, joblib and
    # LangChain's own caches pickle retrievers); one over a client is refused, naming why
    def __getstate__(self) -> Dict[str, Any]:
        state = super().__getstate__()
        fields = dict(state["__dict__"])
        fields["index"] = pickled_index(self.index, self.client, self.async_client, "LearnsimRetriever")
        return {**state, "__dict__": fields}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        fields = dict(state["__dict__"])
        fields["index"] = unpickled_index(fields.get("index"))
        super().__setstate__({**state, "__dict__": fields})

    # pydantic's deep copy (copy.deepcopy, model_copy(deep=True)) copied the open Index field by
    # field and failed "cannot pickle '_thread.lock' object": a deep copy is made as a pickle is,
    # the index opened again from its path (as LlamaIndex's retriever, which copies by its pickle
    # state, does); copy.copy still shares the index
    def __deepcopy__(self, memo: Optional[Dict[int, Any]] = None) -> "LearnsimRetriever":
        state = copy.deepcopy(self.__getstate__(), memo)
        other = type(self).__new__(type(self))
        other.__setstate__(state)
        return other

    def _source(self) -> Source:
        return Source(self.index, self.client, self.async_client)

    def _options(self, kwargs: Dict[str, Any]) -> tuple:
        """(k, filter, explain, n_top) of one call: the retriever's, overridden by ``kwargs``
        (checked as the constructor checks them)."""
        kwargs = dict(kwargs)
        options = (check_k(kwargs.pop("k", self.k)), kwargs.pop("filter", self.filter),
                   check_flag(kwargs.pop("explain", self.explain), "explain"),
                   check_k(kwargs.pop("n_top", self.n_top), "n_top"))
        unknown = sorted(key for key in kwargs if key not in _IGNORED_KWARGS)
        if unknown:
            raise TypeError(f"LearnsimRetriever got unexpected keyword arguments {unknown}: "
                            "it takes k, filter, explain and n_top")
        return options

    @staticmethod
    def _documents(found: tuple) -> List[Document]:
        hits, score_name, higher_is_better = found
        documents = []
        for hit in hits:
            doc_id, text, _, metadata = hit_parts(hit, score_name, higher_is_better)
            extra = {"id": doc_id} if _DOCUMENT_HAS_ID else {}
            documents.append(Document(page_content=text, metadata=metadata, **extra))
        return documents

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                **kwargs: Any) -> List[Document]:
        return self._documents(self._source().search(query, *self._options(kwargs)))

    async def _aget_relevant_documents(self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun,
                                       **kwargs: Any) -> List[Document]:
        return self._documents(await self._source().asearch(query, *self._options(kwargs)))
