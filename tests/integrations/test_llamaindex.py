"""learnsim.integrations.llamaindex (issue 33, point 4): the nodes of LearnsimRetriever checked
against Index.search on the same index (ids, order, scores and their direction, metadata; with
filters, explanations, a distance model and a similarity one), sync and async, over an index
and over the service in process."""
from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("llama_index.core", reason='llama-index-core is not installed (pip install "learnsim[llamaindex]")')

from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode  # noqa: E402

from learnsim.index import Index  # noqa: E402
from learnsim.integrations.llamaindex import LearnsimRetriever  # noqa: E402

# a distance model (lower is closer) and a similarity one
FAMILIES = ("mcd", "film")
FILTERS = (None, {"topic": [1, 2]}, {"half": "even"})
LEARNSIM_KEYS = {"id", "score", "rank", "score_name", "higher_is_better"}


@pytest.fixture(scope="module", params=FAMILIES)
def index(request, tmp_path_factory):
    from index_models import corpus, model

    texts, _, ids, metadata = corpus()
    with Index.build(tmp_path_factory.mktemp(request.param) / "index", model(request.param), texts, ids,
                     metadata) as built:
        yield built


def _queries():
    from index_models import corpus

    texts = corpus()[0]
    return [texts[7], texts[64], " ".join(texts[100].split()[:5])]


def _check(nodes, hits, higher_is_better, score_name):
    """``nodes`` are ``hits`` of Index.search, in their order."""
    assert all(isinstance(n, NodeWithScore) and isinstance(n.node, TextNode) for n in nodes)
    assert [n.node.node_id for n in nodes] == [h["id"] for h in hits]
    assert [n.node.get_content() for n in nodes] == [h["text"] for h in hits]
    for n, h in zip(nodes, hits):
        assert n.node.metadata == {**h["metadata"], **{k: v for k, v in h.items() if k not in ("text", "metadata")},
                                   "score_name": score_name, "higher_is_better": higher_is_better}
        # NodeWithScore.score is higher-is-better: the distance negated
        assert n.score == pytest.approx(h["score"] if higher_is_better else -h["score"])
    scores = [n.score for n in nodes]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("filter", FILTERS)
def test_nodes_are_the_hits_of_index_search(index, filter):
    retriever = LearnsimRetriever(index, similarity_top_k=7, filter=filter)
    for query in _queries():
        nodes = retriever.retrieve(query)
        assert len(nodes) == 7
        _check(nodes, index.search(query, 7, filter=filter), index.higher_is_closer, index.column)
    # a QueryBundle as well as a str
    assert [n.node.node_id for n in retriever.retrieve(QueryBundle(_queries()[0]))] == \
        [n.node.node_id for n in retriever.retrieve(_queries()[0])]


def test_the_score_and_its_direction(index):
    nodes = LearnsimRetriever(index, similarity_top_k=10).retrieve(_queries()[0])
    learnsim_scores = [n.node.metadata["score"] for n in nodes]
    if index.higher_is_closer:
        assert index.column == "similarity" and [n.score for n in nodes] == learnsim_scores
    else:
        assert index.column == "distance" and learnsim_scores == sorted(learnsim_scores)
        assert [n.score for n in nodes] == [-s for s in learnsim_scores]
    assert {n.node.metadata["higher_is_better"] for n in nodes} == {index.higher_is_closer}


def test_learnsims_keys_stay_out_of_the_llms_text(index):
    node = LearnsimRetriever(index, similarity_top_k=1, explain=True).retrieve(_queries()[1])[0].node
    assert set(node.excluded_llm_metadata_keys) == LEARNSIM_KEYS | {"explanation"}
    assert set(node.excluded_embed_metadata_keys) == LEARNSIM_KEYS | {"explanation"}
    for mode in (MetadataMode.LLM, MetadataMode.EMBED):
        text = node.get_content(metadata_mode=mode)
        assert "topic: " in text and "higher_is_better" not in text and "explanation" not in text


def test_explanations_go_into_the_metadata(index):
    query = _queries()[0]
    nodes = LearnsimRetriever(index, similarity_top_k=2, explain=True, n_top=3).retrieve(query)
    assert [n.node.metadata["explanation"] for n in nodes] == [h["explanation"] for h in
                                                                index.search(query, 2, explain=True, n_top=3)]


@pytest.mark.parametrize("filter", FILTERS[:2])
def test_async_nodes_are_the_hits_of_index_search(index, filter):
    retriever = LearnsimRetriever(index, similarity_top_k=6, filter=filter)
    queries = _queries()

    async def run():
        return await asyncio.gather(*(retriever.aretrieve(q) for q in queries * 3))

    for query, nodes in zip(queries * 3, asyncio.run(run())):
        _check(nodes, index.search(query, 6, filter=filter), index.higher_is_closer, index.column)


def test_a_pickled_retriever_reopens_its_index(index):
    """pickle.dumps of a retriever over an open Index failed "cannot pickle '_thread.lock'": it
    now carries the index's path and options, and the copy searches the index opened again."""
    import pickle

    retriever = LearnsimRetriever(index=index, similarity_top_k=3, filter={"half": "even"})
    copy = pickle.loads(pickle.dumps(retriever))
    try:
        assert isinstance(copy.index, Index) and copy.index is not index
        assert (copy.similarity_top_k, copy.filter) == (3, {"half": "even"})
        query = _queries()[1]
        assert ([n.node.id_ for n in copy.retrieve(query)]
                == [h["id"] for h in index.search(query, 3, filter={"half": "even"})])
    finally:
        copy.index.close()


def test_an_index_by_its_path_and_bad_arguments(index):
    retriever = LearnsimRetriever(str(index.path), similarity_top_k=3)
    try:
        query = _queries()[2]
        _check(retriever.retrieve(query), index.search(query, 3), index.higher_is_closer, index.column)
    finally:
        retriever.index.close()
    with pytest.raises(TypeError, match="give an index"):
        LearnsimRetriever()
    with pytest.raises(ValueError, match="similarity_top_k must be a positive integer"):
        LearnsimRetriever(index, similarity_top_k=0)



def _llama_filters():
    """(LlamaIndex's MetadataFilters, the learnsim filter that means the same)."""
    from llama_index.core.vector_stores import FilterCondition, FilterOperator, MetadataFilter, MetadataFilters

    F, Op = MetadataFilter, FilterOperator
    return [
        (MetadataFilters(filters=[F(key="half", value="even")]), {"half": "even"}),
        (MetadataFilters(filters=[F(key="topic", value=[1, 2], operator=Op.IN), F(key="n", value=40, operator=Op.GTE)]),
         {"$and": [{"topic": {"$in": [1, 2]}}, {"n": {"$gte": 40}}]}),
        (MetadataFilters(filters=[F(key="n", value=10, operator=Op.LT), F(key="topic", value=3, operator=Op.EQ)],
                         condition=FilterCondition.OR), {"$or": [{"n": {"$lt": 10}}, {"topic": 3}]}),
        (MetadataFilters(filters=[F(key="half", value="odd", operator=Op.NE), F(key="topic", value=[0], operator=Op.NIN)],
                         condition=FilterCondition.NOT), {"$not": {"$or": [{"half": {"$ne": "odd"}},
                                                                          {"topic": {"$nin": [0]}}]}}),
        # nested, as LlamaIndex's vector stores take them
        (MetadataFilters(filters=[F(key="n", value=30, operator=Op.GT),
                                  MetadataFilters(filters=[F(key="topic", value=1), F(key="topic", value=2)],
                                                  condition=FilterCondition.OR)]),
         {"$and": [{"n": {"$gt": 30}}, {"$or": [{"topic": 1}, {"topic": 2}]}]}),
    ]


def test_llamaindex_metadata_filters_select_as_learnsim_filters(index):
    # a LlamaIndex user filters with MetadataFilters (VectorIndexRetriever(filters=...)): it was
    # refused as "filter must be a non-empty dict"
    query = _queries()[0]
    for filters, same in _llama_filters():
        expected = index.search(query, 5, filter=same)
        assert expected, same
        for retriever in (LearnsimRetriever(index, similarity_top_k=5, filter=filters),
                          LearnsimRetriever(index, similarity_top_k=5, filters=filters)):
            _check(retriever.retrieve(query), expected, index.higher_is_closer, index.column)
    # no filter in it: every document
    from llama_index.core.vector_stores import FilterOperator, MetadataFilter, MetadataFilters

    empty = LearnsimRetriever(index, similarity_top_k=3, filters=MetadataFilters(filters=[]))
    _check(empty.retrieve(query), index.search(query, 3), index.higher_is_closer, index.column)
    # an operator learnsim's filters cannot express is named, at construction
    for op in (FilterOperator.TEXT_MATCH, FilterOperator.IS_EMPTY, FilterOperator.TEXT_MATCH_INSENSITIVE):
        with pytest.raises(ValueError, match=f"operator {op.value!r} on 'half' has no learnsim filter"):
            LearnsimRetriever(index, filters=MetadataFilters(filters=[MetadataFilter(key="half", value=["x"],
                                                                                     operator=op)]))
    with pytest.raises(TypeError, match="give filter or filters, not both"):
        LearnsimRetriever(index, filter={"half": "odd"}, filters=MetadataFilters(filters=[]))


def test_async_over_the_service(tmp_path):
    pytest.importorskip("fastapi")
    httpx = pytest.importorskip("httpx")
    from index_models import corpus, model

    from learnsim.client import AsyncClient
    from learnsim.service import create_app

    texts, _, ids, metadata = corpus()
    path = tmp_path / "index"
    Index.build(path, model("mcd"), texts, ids, metadata).close()
    queries = _queries()

    async def scenario():
        app = create_app(path)
        async with app.router.lifespan_context(app):
            async with AsyncClient("http://127.0.0.1", transport=httpx.ASGITransport(app=app)) as client:
                retriever = LearnsimRetriever(client=client, similarity_top_k=5, filter={"topic": [0, 3]})
                return await asyncio.gather(*(retriever.aretrieve(q) for q in queries))

    found = asyncio.run(scenario())
    with Index.open(path) as index:
        for query, nodes in zip(queries, found):
            _check(nodes, index.search(query, 5, filter={"topic": [0, 3]}), False, "distance")


def test_llamaindex_list_operators_are_contains(tmp_path):
    """contains, any and all (a list in the metadata holds the value, any or all of the values)
    were refused as having no learnsim filter; they are $contains and $or / $and of it."""
    from index_models import corpus, model
    from llama_index.core.vector_stores import FilterOperator, MetadataFilter, MetadataFilters

    texts, _, ids, _ = corpus()
    tags = [["a", "b"], ["b"], ["c"], [], ["a", "c"]]
    meta = [{"tags": tags[i % 5]} for i in range(40)]
    query = _queries()[0]
    with Index.build(tmp_path / "idx", model("film"), texts[:40], ids[:40], meta) as index:
        every = index.search(query, 40)
        for op, value, holds in ((FilterOperator.CONTAINS, "a", lambda t: "a" in t),
                                 (FilterOperator.ANY, ["a", "c"], lambda t: "a" in t or "c" in t),
                                 (FilterOperator.ALL, ["a", "c"], lambda t: "a" in t and "c" in t),
                                 (FilterOperator.ANY, ["b"], lambda t: "b" in t)):
            filters = MetadataFilters(filters=[MetadataFilter(key="tags", value=value, operator=op)])
            want = [h["id"] for h in every if holds(h["metadata"]["tags"])]
            retriever = LearnsimRetriever(index, similarity_top_k=40, filters=filters)
            got = [n.node.node_id for n in retriever.retrieve(query)]
            assert got == want and 0 < len(want) < 40, (op, value)
        with pytest.raises(ValueError, match="operator 'any' on 'tags' takes a non-empty list"):
            LearnsimRetriever(index, filters=MetadataFilters(filters=[MetadataFilter(key="tags", value=[],
                                                                                     operator=FilterOperator.ANY)]))
