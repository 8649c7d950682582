"""Index.get and Index.count, as a chromadb user calls collection.get(ids=..., where=...,
include=...) and collection.count() (and txtai's embeddings.count()): both were an
AttributeError. get returns the documents asked for by id (in the order asked) and/or by filter
(the grammar of search), the ids always and the texts and metadata as ``include`` says; an id
not in the index is a KeyError naming it (``missing_ok=True`` leaves it out), never a shorter
answer without a word. count is the number of live documents (matching a filter), after deletes,
upserts and another handle's writes alike."""
from __future__ import annotations

import shutil

import pytest

from index_models import corpus, model

from learnsim.exceptions import FilterError
from learnsim.index import Index


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("getcount") / "idx"
    Index.build(path, model("linklearn"), texts[:30], ids[:30], meta[:30]).close()
    return path


@pytest.fixture
def index(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    with Index.open(tmp_path / "idx") as idx:
        yield idx


def test_count_is_the_live_documents_after_deletes_and_upserts(index):
    assert index.count() == len(index) == 30
    index.delete(["d0", "d1"])
    assert index.count() == 28
    index.upsert(["w001 w002", "w003 w004"], ids=["d2", "fresh"])
    assert index.count() == 29
    assert index.count(filter={"half": "even"}) == sum(1 for i in range(30) if i % 2 == 0 and i not in (0, 2))
    assert index.count(filter={"nokey": 1}) == 0


def test_count_sees_another_handles_writes(index, tmp_path):
    with Index.open(tmp_path / "idx") as other:
        other.delete(["d5"])
        other.add(["w010 w011"], ids=["new"])
    assert index.count() == 30
    assert index.get(["new"])["texts"] == ["w010 w011"]


def test_get_by_ids_in_the_order_asked(index):
    texts, _, _, meta = corpus()
    got = index.get(["d7", "d3"])
    assert got["ids"] == ["d7", "d3"]
    assert got["texts"] == [texts[7], texts[3]]
    assert got["metadata"] == [meta[7], meta[3]]
    assert index.get("d7")["ids"] == ["d7"]


def test_get_with_no_ids_is_empty_and_none_is_every_document(index):
    assert index.get([]) == {"ids": [], "texts": [], "metadata": []}
    every = index.get()
    assert every["ids"] == [f"d{i}" for i in range(30)]
    index.delete("d4")
    assert "d4" not in index.get()["ids"] and len(index.get()["ids"]) == 29


def test_get_missing_ids_are_named_not_dropped(index):
    with pytest.raises(KeyError, match="nope.*missing_ok"):
        index.get(["d1", "nope"])
    index.delete("d1")
    with pytest.raises(KeyError, match="d1"):
        index.get(["d1"])
    assert index.get(["d1", "d2", "nope"], missing_ok=True)["ids"] == ["d2"]


def test_get_by_filter_limit_offset(index):
    odd = index.get(filter={"half": "odd"})
    assert odd["ids"] == [f"d{i}" for i in range(1, 30, 2)]
    assert all(m["half"] == "odd" for m in odd["metadata"])
    assert index.get(filter={"half": "odd"}, limit=3, offset=2)["ids"] == ["d5", "d7", "d9"]
    assert index.get(["d1", "d2", "d3"], filter={"half": "odd"})["ids"] == ["d1", "d3"]
    assert index.get(filter={"n": {"$gte": 28}})["ids"] == ["d28", "d29"]
    with pytest.raises(FilterError):
        index.get(filter={"n": {"$regex": "a"}})


def test_get_include(index):
    assert index.get(["d1"], include=["metadata"]) == {"ids": ["d1"], "metadata": [corpus()[3][1]]}
    assert index.get(["d1"], include=[]) == {"ids": ["d1"]}
    with pytest.raises(ValueError, match="metadatas.*metadata"):
        index.get(["d1"], include=["metadatas"])
    with pytest.raises(ValueError, match="embeddings"):
        index.get(["d1"], include=["embeddings"])


@pytest.mark.parametrize("kw, error", [
    (dict(ids=["d1", "d1"]), ValueError), (dict(ids=[True]), TypeError), (dict(ids=b"d1"), TypeError),
    (dict(limit=0), ValueError), (dict(limit=True), ValueError), (dict(offset=-1), ValueError),
    (dict(include="texts"), TypeError),
])
def test_get_refuses_bad_arguments_by_name(index, kw, error):
    with pytest.raises(error):
        index.get(**kw)


def test_get_on_an_emptied_index(index):
    index.delete([f"d{i}" for i in range(30)])
    assert index.count() == 0
    assert index.get() == {"ids": [], "texts": [], "metadata": []}
    assert index.get(filter={"half": "odd"})["ids"] == []
