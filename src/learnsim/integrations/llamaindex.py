"""A LlamaIndex retriever over a learnsim index: :class:`LearnsimRetriever`.

``pip install "learnsim[llamaindex]"`` (llama-index-core). The retriever searches a
:class:`learnsim.index.Index` (given, or opened from its path) or a running ``learnsim serve``
(through a :class:`learnsim.client.Client`, an :class:`~learnsim.client.AsyncClient` or both),
and returns exactly the hits of :meth:`Index.search(query, k, filter=...)
<learnsim.index.Index.search>`, in its order, each as a ``NodeWithScore``::

    NodeWithScore(node=TextNode(text=text, id_=id,
                                metadata={**the document's metadata, "id": id, "score": score,
                                          "rank": rank, "score_name": ..., "higher_is_better": bool,
                                          ["explanation": ...]}),
                  score=score if higher_is_better else -score)

The scores, the same as the LangChain retriever's (:mod:`learnsim.integrations.langchain`):
``node.metadata["score"]`` is learnsim's score, the number ``Index.search``, the command line
and the service give (a similarity, a term-weight score, a re-ranker's probability, or for a
distance model, MCD or relative comparisons, the distance: lower is closer), with
``"higher_is_better"`` saying which and ``"score_name"`` what it is. ``NodeWithScore.score``,
which LlamaIndex reads as higher-is-better (``SimilarityPostprocessor``, the fusion retrievers),
is that score where higher is better and the negated distance for a distance model, so that it
ranks the nodes as learnsim does. The keys learnsim adds are left out of the text a node gives
an LLM or an embedding model (``excluded_llm_metadata_keys``, ``excluded_embed_metadata_keys``);
each replaces a key of the same name in a document's own metadata. ``filter`` (or ``filters``)
takes a learnsim filter or LlamaIndex's ``MetadataFilters`` (:func:`learnsim_filter`).

Examples
--------
>>> import os, tempfile
>>> import learnsim
>>> from learnsim.index import Index
>>> from learnsim.integrations.llamaindex import LearnsimRetriever
>>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
...          "refund for a double charge", "app crashes on start", "crash after the update"]
>>> topics = ["account", "account", "billing", "billing", "app", "app"]
>>> model = learnsim.fit(texts, clusters=topics)                # too few to check: the strongest baseline, warns
>>> path = os.path.join(tempfile.mkdtemp(), "tickets")
>>> Index.build(path, model, texts, ids=["t1", "t2", "t3", "t4", "t5", "t6"],
...             metadata=[{"topic": t} for t in topics]).close()
>>> retriever = LearnsimRetriever(path, similarity_top_k=2, filter={"topic": "billing"})
>>> found = retriever.retrieve("I was charged twice")
>>> [(n.node.node_id, n.node.get_content(), n.node.metadata["topic"]) for n in found]
[('t3', 'I was charged twice', 'billing'), ('t4', 'refund for a double charge', 'billing')]
>>> found[1].node.metadata["score_name"], found[1].score == found[1].node.metadata["score"]   # a distance's: negated
('score', True)
>>> import asyncio
>>> [n.node.node_id for n in asyncio.run(retriever.aretrieve("refund for a double charge"))]
['t4', 't3']
>>> retriever.index.close()
"""
from typing import Any, Dict, List, Optional

try:
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.constants import DEFAULT_SIMILARITY_TOP_K
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
    from llama_index.core.vector_stores.types import FilterCondition, MetadataFilter, MetadataFilters
except ImportError as exc:
    raise ImportError('learnsim.integrations.llamaindex needs llama-index-core: pip install "learnsim[llamaindex]" '
                      f"({exc})", name="llama_index") from exc

from ._source import Source, check_filter, check_flag, check_k, check_query_bundle, hit_parts, pickled_index, unpickled_index

__all__ = ["LearnsimRetriever", "learnsim_filter", "MAX_FILTERS_NESTING"]

#: The deepest nesting of ``MetadataFilters`` :func:`learnsim_filter` reads (a learnsim filter nests
#: at most 8 levels, but a level of one filter adds none): 1,000 levels were a RecursionError.
MAX_FILTERS_NESTING = 64

# LlamaIndex's filter operators that learnsim's filters express, and how (a field a document lacks
# matches != and nin in both)
_OPERATORS = {"==": "$eq", "!=": "$ne", ">": "$gt", ">=": "$gte", "<": "$lt", "<=": "$lte", "in": "$in",
              "nin": "$nin"}
# LlamaIndex's operators of a list in the metadata, as learnsim's $contains (chromadb's)
_LIST_OPERATORS = ("contains", "any", "all")


def _value(item):
    return getattr(item, "value", item)


def learnsim_filter(filters, _depth=1):
    """The learnsim metadata filter (:meth:`learnsim.index.Index.search`'s ``filter``) that selects
    what LlamaIndex's ``MetadataFilters`` (or one ``MetadataFilter``) selects; a learnsim filter
    (a dict) or None is returned as it is.

    ``==``, ``!=``, ``>``, ``>=``, ``<``, ``<=``, ``in`` and ``nin`` become ``$eq``, ``$ne``, ...,
    ``$in``, ``$nin``; ``contains`` (a list in the metadata holds the value) becomes ``$contains``,
    ``any`` and ``all`` (of a list of values) an ``$or`` and an ``$and`` of them; the conditions
    ``and``, ``or`` and ``not`` (none of them matches) become ``$and``, ``$or`` and ``$not`` of an
    ``$or``; nested ``MetadataFilters`` nest. A ``MetadataFilters`` with no filter selects every
    document (None). The other operators (``text_match``, ``is_empty``, ...) have no learnsim
    filter: a ValueError names the operator and the key. MetadataFilters nested deeper than
    :data:`MAX_FILTERS_NESTING` (64) levels are a FilterError (a ValueError).
    """
    if filters is None or isinstance(filters, dict):
        return filters
    if isinstance(filters, MetadataFilter):
        op = str(_value(filters.operator))
        if op in _LIST_OPERATORS:
            # a list in the metadata holds the value (contains), any or all of the values
            key, value = filters.key, filters.value
            if op == "contains":
                return {key: {"$contains": value}}
            if not isinstance(value, (list, tuple)) or not value:
                raise ValueError(f"LlamaIndex's filter operator {op!r} on {key!r} takes a non-empty list of values; "
                                 f"got {value!r:.80}")
            parts = [{key: {"$contains": v}} for v in value]
            return parts[0] if len(parts) == 1 else {"$or" if op == "any" else "$and": parts}
        if op not in _OPERATORS:
            raise ValueError(f"LlamaIndex's filter operator {op!r} on {filters.key!r} has no learnsim filter; "
                             f"learnsim filters take {', '.join((*_OPERATORS, *_LIST_OPERATORS))} (or a learnsim "
                             "filter dict)")
        return {filters.key: {_OPERATORS[op]: filters.value}}
    if isinstance(filters, MetadataFilters):
        if _depth > MAX_FILTERS_NESTING:
            from ..index import FilterError     # the index's own error of a filter (imported when used)

            raise FilterError(f"LlamaIndex's MetadataFilters nest deeper than {MAX_FILTERS_NESTING} levels "
                              "(MAX_FILTERS_NESTING); a learnsim filter nests at most 8")
        parts = [learnsim_filter(f, _depth + 1) for f in filters.filters]
        parts = [p for p in parts if p is not None]          # an empty MetadataFilters inside selects all
        condition = str(_value(filters.condition or FilterCondition.AND))
        if condition == "not":
            return {"$not": {"$or": parts}} if parts else None
        if not parts:
            return None
        if condition not in ("and", "or"):
            raise ValueError(f"LlamaIndex's filter condition {condition!r} has no learnsim filter (and, or, not)")
        return parts[0] if len(parts) == 1 else {f"${condition}": parts}
    return filters          # anything else: Index.search names what a filter must be


class LearnsimRetriever(BaseRetriever):
    """A LlamaIndex retriever of the hits of a learnsim index (see the module notes for what a
    node holds and what its scores mean).

    Parameters
    ----------
    index : learnsim.index.Index, str or os.PathLike, optional
        The index, or the path of one (opened here and kept open: ``retriever.index.close()``).
    client : learnsim.client.Client or AsyncClient, optional
        Instead of an index: a client of a running ``learnsim serve``. A :class:`Client` serves
        ``retrieve`` (and ``aretrieve``, in a thread); an :class:`AsyncClient` serves ``aretrieve``.
    async_client : learnsim.client.AsyncClient, optional
        With ``client``: the client ``aretrieve`` awaits.
    similarity_top_k : int, default=llama_index.core.constants.DEFAULT_SIMILARITY_TOP_K
        Nodes per query (LlamaIndex's default, 2).
    filter : dict or llama_index.core.vector_stores.MetadataFilters, optional
        A learnsim metadata filter, as :meth:`learnsim.index.Index.search` takes it, or
        LlamaIndex's ``MetadataFilters`` (read by :func:`learnsim_filter`; ``self.filter`` is
        then the learnsim filter).
    filters : llama_index.core.vector_stores.MetadataFilters, optional
        The same, under the name LlamaIndex's retrievers give it (not with ``filter``).
    explain : bool, default=False
        Put each hit's explanation in ``node.metadata["explanation"]``.
    n_top : int, default=10
        Words an explanation lists.
    callback_manager, object_map, objects, verbose
        As LlamaIndex's ``BaseRetriever``.
    """

    def __init__(self, index: Any = None, *, client: Any = None, async_client: Any = None,
                 similarity_top_k: int = DEFAULT_SIMILARITY_TOP_K, filter: Optional[Any] = None,
                 filters: Optional[Any] = None, explain: bool = False, n_top: int = 10, callback_manager: Any = None,
                 object_map: Optional[Dict] = None, objects: Optional[List] = None, verbose: bool = False) -> None:
        # the arguments checked before the index is opened: a bad one beside a wrong path was
        # hidden by the FileNotFoundError
        self.similarity_top_k = check_k(similarity_top_k, "similarity_top_k")
        # as the LangChain retriever reads them: bool("false") is True, and n_top is a count
        if filter is not None and filters is not None:
            raise TypeError("give filter or filters, not both (filters is LlamaIndex's name for it)")
        self.filter = check_filter(learnsim_filter(filters if filters is not None else filter))
        self.explain = check_flag(explain, "explain")
        self.n_top = check_k(n_top, "n_top")
        self._source = Source(index, client, async_client)
        super().__init__(callback_manager=callback_manager, object_map=object_map, objects=objects, verbose=verbose)

    # an open Index holds locks and file handles that no pickle carries: a pickled retriever
    # holds the index's path, opened again when it is unpickled; one over a client is refused
    def __getstate__(self) -> Dict[str, Any]:
        state = dict(self.__dict__)
        source = state.pop("_source")
        state["_index"] = pickled_index(source.index, source.client, source.async_client, "LearnsimRetriever")
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        state = dict(state)
        index = unpickled_index(state.pop("_index"))
        self.__dict__.update(state)
        self._source = Source(index)

    @property
    def index(self):
        """The :class:`~learnsim.index.Index` searched (None for a client's)."""
        return self._source.index

    @property
    def client(self):
        return self._source.client

    @property
    def async_client(self):
        return self._source.async_client

    # checked before LlamaIndex's own retrieve(): its instrumentation event refused a None with a
    # pydantic ValidationError, and bytes went on to an AttributeError inside it
    def retrieve(self, str_or_query_bundle: Any) -> List[NodeWithScore]:
        return super().retrieve(check_query_bundle(str_or_query_bundle, QueryBundle))

    async def aretrieve(self, str_or_query_bundle: Any) -> List[NodeWithScore]:
        return await super().aretrieve(check_query_bundle(str_or_query_bundle, QueryBundle))

    def _options(self) -> tuple:
        # checked again here, by their names: LlamaIndex configures a retriever by setting them
        # (retriever.similarity_top_k = 5), and a bad one set so was refused as "k must be ..."
        return (check_k(self.similarity_top_k, "similarity_top_k"), self.filter, check_flag(self.explain, "explain"),
                check_k(self.n_top, "n_top"))

    @staticmethod
    def _nodes(found: tuple) -> List[NodeWithScore]:
        hits, score_name, higher_is_better = found
        nodes = []
        for hit in hits:
            doc_id, text, score, metadata = hit_parts(hit, score_name, higher_is_better)
            learnsim_keys = [key for key in hit if key not in ("text", "metadata")] + ["score_name", "higher_is_better"]
            node = TextNode(text=text, id_=doc_id, metadata=metadata, excluded_llm_metadata_keys=learnsim_keys,
                            excluded_embed_metadata_keys=list(learnsim_keys))
            nodes.append(NodeWithScore(node=node, score=float(score) if higher_is_better else -float(score)))
        return nodes

    def _retrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        return self._nodes(self._source.search(query_bundle.query_str, *self._options()))

    async def _aretrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        return self._nodes(await self._source.asearch(query_bundle.query_str, *self._options()))
