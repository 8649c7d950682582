"""LearnsimRetriever (LangChain) given an argument it has no field for: pydantic's BaseRetriever
ignores extra fields, so ``LearnsimRetriever(index=..., search_kwargs={"k": 1})`` (the
``vectorstore.as_retriever(search_kwargs=...)`` idiom) or a misspelt ``top_k=1`` searched with the
default k=4 without a word. Now a TypeError names the argument and the fields that are there."""
from __future__ import annotations

import pytest

pytest.importorskip("langchain_core", reason='langchain-core is not installed (pip install "learnsim[langchain]")')

from learnsim.index import Index  # noqa: E402
from learnsim.integrations.langchain import LearnsimRetriever  # noqa: E402

TEXTS = ["how do I reset my password", "forgot my password", "I was charged twice",
         "refund for a double charge", "app crashes on start", "crash after the update"]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    import warnings

    import learnsim

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # six texts: the fit ends as a baseline, and says so
        model = learnsim.fit(TEXTS, clusters=[0, 0, 1, 1, 2, 2])
    with Index.build(tmp_path_factory.mktemp("lc") / "index", model, TEXTS) as built:
        yield built


@pytest.mark.parametrize("name, value", [("search_kwargs", {"k": 1}), ("top_k", 1), ("similarity_top_k", 1),
                                         ("filters", {"x": 1})])
def test_an_unknown_argument_is_refused_naming_it(index, name, value):
    with pytest.raises(TypeError, match=name) as info:
        LearnsimRetriever(index=index, **{name: value})
    assert "k" in str(info.value).split(":")[-1]       # the fields it takes are named


def test_search_kwargs_points_to_k(index):
    with pytest.raises(TypeError, match=r"k=1"):
        LearnsimRetriever(index=index, search_kwargs={"k": 1})


def test_langchains_own_fields_are_still_taken(index):
    retriever = LearnsimRetriever(index=index, k=1, tags=["a"], metadata={"m": 1})
    assert retriever.tags == ["a"] and retriever.metadata == {"m": 1}
    assert len(retriever.invoke("password charge crash")) == 1
