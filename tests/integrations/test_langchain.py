"""learnsim.integrations.langchain (issue 33, point 4): LangChain's standard retriever tests, and
the documents of LearnsimRetriever checked against Index.search on the same index (ids, order,
scores, metadata; with filters, per-call options, explanations, a distance model and a
similarity one), sync and async, over an index and over the service (in process, and a real
``learnsim serve`` for the synchronous Client)."""
from __future__ import annotations

import asyncio
import importlib.util

import numpy as np
import pytest

pytest.importorskip("langchain_core", reason='langchain-core is not installed (pip install "learnsim[langchain]")')

from langchain_core.documents import Document  # noqa: E402

from learnsim.index import Index  # noqa: E402
from learnsim.integrations.langchain import LearnsimRetriever  # noqa: E402

# a distance model (lower is closer) and a similarity one
FAMILIES = ("mcd", "film")
FILTERS = (None, {"topic": [1, 2]}, {"half": "even"})


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


def _expected(hits, index):
    """The documents a retriever should give for ``hits`` of ``index.search``."""
    higher = index.higher_is_closer
    return [Document(page_content=h["text"], id=h["id"],
                     metadata={**h["metadata"], **{k: v for k, v in h.items() if k not in ("text", "metadata")},
                               "score_name": index.column, "higher_is_better": higher})
            for h in hits]


def _same(documents, expected):
    assert [d.id for d in documents] == [e.id for e in expected]
    assert [(d.page_content, d.metadata) for d in documents] == [(e.page_content, e.metadata) for e in expected]


# --------------------------------------------------------------------------- LangChain's own tests
try:
    from langchain_tests.integration_tests import RetrieversIntegrationTests
except ImportError:   # langchain-tests (the test extra has it) is not installed
    RetrieversIntegrationTests = None


@pytest.fixture(scope="module")
def mcd_index(tmp_path_factory):
    from index_models import corpus, model

    texts, _, ids, metadata = corpus()
    with Index.build(tmp_path_factory.mktemp("standard") / "index", model("mcd"), texts, ids, metadata) as built:
        yield built


@pytest.fixture
def anyio_backend():
    # LangChain's callbacks need asyncio's loop (not trio's)
    return "asyncio"


if RetrieversIntegrationTests is not None:
    # the standard tests' async test is a plain coroutine function: anyio's plugin runs it
    @pytest.mark.anyio
    class TestLearnsimRetrieverStandard(RetrieversIntegrationTests):
        @pytest.fixture(autouse=True)
        def _index(self, mcd_index):
            self.opened = mcd_index

        @property
        def retriever_constructor(self):
            return LearnsimRetriever

        @property
        def retriever_constructor_params(self):
            return {"index": self.opened, "k": 4}

        @property
        def retriever_query_example(self):
            from index_models import corpus

            return corpus()[0][7]
else:
    def test_langchain_standard_tests():
        pytest.skip('langchain-tests is not installed (pip install langchain-tests, or "learnsim[test]")')


# --------------------------------------------------------------------------- the same as Index.search
@pytest.mark.parametrize("filter", FILTERS)
def test_documents_are_the_hits_of_index_search(index, filter):
    retriever = LearnsimRetriever(index=index, k=7, filter=filter)
    for query in _queries():
        hits = index.search(query, 7, filter=filter)
        documents = retriever.invoke(query)
        _same(documents, _expected(hits, index))
        assert len(documents) == 7 and all(isinstance(d, Document) for d in documents)
        if filter is not None:
            field, allowed = next(iter(filter.items()))
            allowed = allowed if isinstance(allowed, list) else [allowed]
            assert all(d.metadata[field] in allowed for d in documents)


def test_the_score_and_its_direction(index):
    documents = LearnsimRetriever(index=index, k=10).invoke(_queries()[0])
    scores = [d.metadata["score"] for d in documents]
    assert [d.metadata["rank"] for d in documents] == list(range(1, 11))
    if index.higher_is_closer:
        assert scores == sorted(scores, reverse=True)
        assert {d.metadata["score_name"] for d in documents} == {"similarity"}
    else:
        # a distance model: learnsim's distance as it is, lower first
        assert scores == sorted(scores) and scores[0] >= 0
        assert {d.metadata["score_name"] for d in documents} == {"distance"}
    assert {d.metadata["higher_is_better"] for d in documents} == {index.higher_is_closer}


def test_options_given_to_invoke_replace_the_retrievers(index):
    retriever = LearnsimRetriever(index=index, k=3, filter={"half": "odd"})
    query = _queries()[1]
    _same(retriever.invoke(query, k=5, filter={"topic": 4}),
          _expected(index.search(query, 5, filter={"topic": 4}), index))
    _same(retriever.invoke(query, filter=None), _expected(index.search(query, 3), index))
    _same(retriever.invoke(query), _expected(index.search(query, 3, filter={"half": "odd"}), index))


def test_explanations_go_into_the_metadata(index):
    query = _queries()[0]
    documents = LearnsimRetriever(index=index, k=2, explain=True, n_top=3).invoke(query)
    hits = index.search(query, 2, explain=True, n_top=3)
    assert [d.metadata["explanation"] for d in documents] == [h["explanation"] for h in hits]
    assert "explanation" not in LearnsimRetriever(index=index, k=2).invoke(query)[0].metadata


@pytest.mark.parametrize("name, value, error", [
    ("explain", "false", TypeError), ("explain", "0", TypeError), ("explain", 1, TypeError),
    ("explain", None, TypeError), ("k", "3", ValueError), ("k", 2.0, ValueError),
    ("n_top", "5", ValueError), ("n_top", 0, ValueError)])
def test_options_are_checked_alike_in_the_constructor_and_in_invoke(index, name, value, error):
    # invoke(explain="false") turned explanations on (bool of a string) while the constructor read
    # it as False; the constructor took k="3", which invoke refused: one rule, the stricter, in both
    match = f"{name} must be"
    with pytest.raises(error, match=match):
        LearnsimRetriever(index=index, **{name: value})
    with pytest.raises(error, match=match):
        LearnsimRetriever(index=index, k=2).invoke(_queries()[0], **{name: value})
    # the values they stand for are taken in both places (a numpy bool and int too)
    good = {"explain": np.bool_(False), "k": np.int64(3), "n_top": 5}[name]
    documents = LearnsimRetriever(index=index, **{name: good}).invoke(_queries()[0])
    assert documents == LearnsimRetriever(index=index).invoke(_queries()[0], **{name: good})
    assert all("explanation" not in d.metadata for d in documents)


def test_an_index_by_its_path(index):
    retriever = LearnsimRetriever(index=index.path, k=4)
    try:
        query = _queries()[2]
        _same(retriever.invoke(query), _expected(index.search(query, 4), index))
        assert isinstance(retriever.index, Index) and retriever.index is not index
    finally:
        retriever.index.close()


def test_a_pickled_retriever_reopens_its_index(index):
    """pickle.dumps of a retriever over an open Index failed "cannot pickle '_thread.lock'": it
    now carries the index's path and options, and the copy searches the index opened again."""
    import pickle

    from learnsim.client import Client

    retriever = LearnsimRetriever(index=index, k=3, filter={"half": "even"})
    copy = pickle.loads(pickle.dumps(retriever))
    try:
        assert isinstance(copy.index, Index) and copy.index is not index
        assert (copy.k, copy.filter) == (3, {"half": "even"})
        query = _queries()[1]
        _same(copy.invoke(query), _expected(index.search(query, 3, filter={"half": "even"}), index))
    finally:
        copy.index.close()
    with pytest.raises(TypeError, match="client of learnsim serve cannot be pickled.*new Client"):
        pickle.dumps(LearnsimRetriever(client=Client("http://127.0.0.1:9")))


@pytest.mark.parametrize("filter", FILTERS[:2])
def test_async_documents_are_the_hits_of_index_search(index, filter):
    retriever = LearnsimRetriever(index=index, k=6, filter=filter)
    queries = _queries()

    async def run():
        # at once, on one index: the searches take turns in their threads
        return await asyncio.gather(*(retriever.ainvoke(q) for q in queries * 3))

    for query, documents in zip(queries * 3, asyncio.run(run())):
        _same(documents, _expected(index.search(query, 6, filter=filter), index))


def test_bad_arguments(index):
    with pytest.raises(TypeError, match="give an index"):
        LearnsimRetriever()
    if importlib.util.find_spec("httpx") is not None:
        from learnsim.client import Client

        with Client() as client, pytest.raises(TypeError, match="not both"):
            LearnsimRetriever(index=index, client=client)
    with pytest.raises(TypeError, match="index must be"):
        LearnsimRetriever(index=42)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        LearnsimRetriever(index=index, k=0)
    retriever = LearnsimRetriever(index=index)
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['top_k'\]"):
        retriever.invoke("a query", top_k=3)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        retriever.invoke("a query", k=-1)
    # one query a call (a list was an AttributeError inside); a numpy k is a k, as Index.search takes it
    with pytest.raises(TypeError, match="query must be a str"):
        retriever.invoke(["a query", "another"])
    assert len(retriever.invoke("w001 w002", k=np.int64(2))) <= 2


# --------------------------------------------------------------------------- over learnsim serve
@pytest.fixture(scope="module")
def service_index(tmp_path_factory):
    pytest.importorskip("httpx")
    pytest.importorskip("fastapi")
    from index_models import corpus, model

    texts, _, ids, metadata = corpus()
    path = tmp_path_factory.mktemp("served") / "index"
    Index.build(path, model("mcd"), texts, ids, metadata).close()
    return path


async def _in_process(path, scenario):
    """``scenario(async_client)`` against the service of ``path``, in process."""
    import httpx

    from learnsim.client import AsyncClient
    from learnsim.service import create_app

    app = create_app(path)
    async with app.router.lifespan_context(app):
        async with AsyncClient("http://127.0.0.1", transport=httpx.ASGITransport(app=app)) as client:
            return await scenario(client)


def test_async_over_the_service(service_index):
    queries = _queries()

    async def scenario(client):
        retriever = LearnsimRetriever(client=client, k=5, filter={"topic": [0, 3]}, explain=True, n_top=2)
        with pytest.raises(TypeError, match="only an AsyncClient"):
            retriever.invoke(queries[0])
        return await asyncio.gather(*(retriever.ainvoke(q) for q in queries))

    found = asyncio.run(_in_process(service_index, scenario))
    with Index.open(service_index) as index:
        for query, documents in zip(queries, found):
            hits = index.search(query, 5, filter={"topic": [0, 3]}, explain=True, n_top=2)
            expected = _expected(hits, index)
            assert [d.id for d in documents] == [e.id for e in expected]
            assert [d.metadata["score"] for d in documents] == pytest.approx([e.metadata["score"] for e in expected])
            assert {d.metadata["score_name"] for d in documents} == {"distance"}
            assert not any(d.metadata["higher_is_better"] for d in documents)
            assert all("explanation" in d.metadata for d in documents)


def test_sync_over_a_running_server(service_index):
    from serve_process import running_server

    from learnsim.client import Client

    query = _queries()[1]
    with running_server(service_index, seconds=60) as base, Client(base) as client:
        retriever = LearnsimRetriever(client=client, k=4)
        documents = retriever.invoke(query, filter={"half": "odd"})
        in_thread = asyncio.run(retriever.ainvoke(query, filter={"half": "odd"}))
    with Index.open(service_index) as index:
        expected = _expected(index.search(query, 4, filter={"half": "odd"}), index)
    for found in (documents, in_thread):
        assert [d.id for d in found] == [e.id for e in expected]
        assert [d.metadata["score"] for d in found] == pytest.approx([e.metadata["score"] for e in expected])
        assert [d.metadata["topic"] for d in found] == [e.metadata["topic"] for e in expected]
