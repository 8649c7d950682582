"""Copies and hostile queries of the two retrievers (red team, round 82).

copy.deepcopy of LangChain's LearnsimRetriever over an open Index (and pydantic's
model_copy(deep=True), which LangChain's with_config paths may take) failed "cannot pickle
'_thread.lock' object" from deep inside copy.py, where LlamaIndex's retriever, deep-copied
through its pickle state, reopened the index. LlamaIndex's retrieve(b"...") was an
AttributeError "'bytes' object has no attribute 'query_str'" from inside llama_index, and
retrieve(None) (a dict, a number) a pydantic ValidationError of its instrumentation event."""
from __future__ import annotations

import asyncio
import copy

import pytest

from learnsim.index import Index

TEXTS = ["how do I reset my password", "forgot my password", "I was charged twice",
         "refund for a double charge", "app crashes on start", "crash after the update"]
TOPICS = ["account", "account", "billing", "billing", "app", "app"]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    import warnings

    import learnsim

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # too few texts to check: the baseline, warned
        model = learnsim.fit(TEXTS, clusters=TOPICS)
    with Index.build(tmp_path_factory.mktemp("copies") / "index", model, TEXTS, ids=[f"t{i}" for i in range(6)],
                     metadata=[{"topic": t} for t in TOPICS]) as built:
        yield built


def test_langchain_deepcopy_reopens_the_index(index):
    pytest.importorskip("langchain_core")
    from learnsim.integrations.langchain import LearnsimRetriever

    retriever = LearnsimRetriever(index=index, k=2, filter={"topic": "account"})
    for other in (copy.deepcopy(retriever), retriever.model_copy(deep=True)):
        try:
            assert isinstance(other.index, Index) and other.index is not index
            assert (other.k, other.filter) == (2, {"topic": "account"})
            assert other.filter is not retriever.filter                   # deep: the filter is a copy
            assert [d.id for d in other.invoke("password")] == [d.id for d in retriever.invoke("password")]
        finally:
            other.index.close()
    shallow = copy.copy(retriever)
    assert shallow.index is index


def test_langchain_deepcopy_over_a_client_names_why(index):
    pytest.importorskip("langchain_core")
    from learnsim.client import Client
    from learnsim.integrations.langchain import LearnsimRetriever

    with Client("http://127.0.0.1:9") as client:
        with pytest.raises(TypeError, match="client of learnsim serve cannot be pickled nor deep-copied"):
            copy.deepcopy(LearnsimRetriever(client=client))


def test_llamaindex_deepcopy_over_a_client_names_why(index):
    pytest.importorskip("llama_index.core")
    from learnsim.client import Client
    from learnsim.integrations.llamaindex import LearnsimRetriever

    with Client("http://127.0.0.1:9") as client:
        with pytest.raises(TypeError, match="client of learnsim serve cannot be pickled nor deep-copied"):
            copy.deepcopy(LearnsimRetriever(client=client))


@pytest.mark.parametrize("query", [b"password", None, {"q": "password"}, 5, ["password"]])
def test_llamaindex_refuses_a_query_that_is_not_text(index, query):
    pytest.importorskip("llama_index.core")
    from learnsim.integrations.llamaindex import LearnsimRetriever

    retriever = LearnsimRetriever(index, similarity_top_k=2)
    with pytest.raises(TypeError, match=r"query must be a str or a QueryBundle.*got " + type(query).__name__):
        retriever.retrieve(query)
    with pytest.raises(TypeError, match=r"query must be a str or a QueryBundle.*got " + type(query).__name__):
        asyncio.run(retriever.aretrieve(query))
    # what it takes, as before
    from llama_index.core.schema import QueryBundle

    assert [n.node.node_id for n in retriever.retrieve("password")] == ["t0", "t1"]
    assert [n.node.node_id for n in retriever.retrieve(QueryBundle("password"))] == ["t0", "t1"]


def test_llamaindex_filters_nested_too_deep_are_refused_not_a_recursion_error(index):
    """learnsim_filter of MetadataFilters nested 1,000 deep was a RecursionError from inside its
    own recursion (the retriever's constructor raised it): the nesting is bounded, a FilterError
    naming the bound; a nesting within it still converts (a one-filter level adds no level)."""
    pytest.importorskip("llama_index.core")
    from llama_index.core.vector_stores.types import MetadataFilter, MetadataFilters

    from learnsim.exceptions import FilterError
    from learnsim.integrations.llamaindex import MAX_FILTERS_NESTING, LearnsimRetriever, learnsim_filter

    def nested(depth):
        filters = MetadataFilters(filters=[MetadataFilter(key="topic", value="billing")])
        for _ in range(depth - 1):
            filters = MetadataFilters(filters=[filters])
        return filters

    assert learnsim_filter(nested(MAX_FILTERS_NESTING)) == {"topic": {"$eq": "billing"}}
    retriever = LearnsimRetriever(index, similarity_top_k=2, filters=nested(MAX_FILTERS_NESTING))
    assert [n.node.node_id for n in retriever.retrieve("charged")] == ["t2", "t3"]
    for depth in (MAX_FILTERS_NESTING + 1, 5_000):
        with pytest.raises(FilterError, match=f"MetadataFilters nest deeper than {MAX_FILTERS_NESTING} levels"):
            learnsim_filter(nested(depth))
        with pytest.raises(FilterError, match=f"MetadataFilters nest deeper than {MAX_FILTERS_NESTING} levels"):
            LearnsimRetriever(index, filters=nested(depth))
