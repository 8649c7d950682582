"""LearnsimRetriever (LangChain and LlamaIndex) checks its arguments before it touches the disk:
``LearnsimRetriever(index="/nonexist", search_kwargs={...})`` reported the missing index (a
FileNotFoundError) and hid the bad argument, which a LangChain user fixes first (pydantic checks
a model's fields before anything else runs); a malformed filter was found only by the first
search, after the index was opened."""
from __future__ import annotations

import pytest

from learnsim.index import FilterError


def _langchain():
    pytest.importorskip("langchain_core", reason='langchain-core is not installed (pip install "learnsim[langchain]")')
    from learnsim.integrations.langchain import LearnsimRetriever

    return LearnsimRetriever


def _llamaindex():
    pytest.importorskip("llama_index.core", reason='llama-index-core is not installed (pip install "learnsim[llamaindex]")')
    from learnsim.integrations.llamaindex import LearnsimRetriever

    return LearnsimRetriever


@pytest.mark.parametrize("kwargs, error, match", [
    ({"search_kwargs": {"k": 1}}, TypeError, "search_kwargs"),
    ({"k": 0}, ValueError, "k must be a positive integer"),
    ({"k": "3"}, ValueError, "k must be"),
    ({"explain": "false"}, TypeError, "explain"),
    ({"n_top": -1}, ValueError, "n_top"),
    ({"filter": {}}, FilterError, "filter"),
    ({"filter": {"$bogus": 1}}, FilterError, r"\$bogus"),
])
def test_langchain_checks_its_arguments_before_opening_the_index(tmp_path, kwargs, error, match):
    retriever = _langchain()
    with pytest.raises(error, match=match):
        retriever(index=str(tmp_path / "nonexist"), **kwargs)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"similarity_top_k": 0}, ValueError, "similarity_top_k"),
    ({"explain": "false"}, TypeError, "explain"),
    ({"n_top": 0}, ValueError, "n_top"),
    ({"filter": {"a": 1}, "filters": {"a": 1}}, TypeError, "not both"),
    ({"filter": {"$bogus": 1}}, FilterError, r"\$bogus"),
])
def test_llamaindex_checks_its_arguments_before_opening_the_index(tmp_path, kwargs, error, match):
    retriever = _llamaindex()
    with pytest.raises(error, match=match):
        retriever(str(tmp_path / "nonexist"), **kwargs)


@pytest.mark.parametrize("make", [_langchain, _llamaindex])
def test_a_missing_index_with_good_arguments_is_still_named(tmp_path, make):
    with pytest.raises(FileNotFoundError, match="nonexist"):
        make()(str(tmp_path / "nonexist"))
