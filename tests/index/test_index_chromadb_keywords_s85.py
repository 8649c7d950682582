"""A chromadb user's keywords on the Index: ``add(documents=..., metadatas=...)``,
``get(where=...)``, ``search(query_texts=..., n_results=...)``, ``delete(where=...)`` were
Python's bare "got an unexpected keyword argument 'documents'", which named no learnsim word
(get's ``include`` already names chromadb's "documents" and "metadatas" back). Each is still a
TypeError, and nothing is written, but it names learnsim's word for it, or what to do where
there is none."""
from __future__ import annotations

import shutil

import pytest

from index_models import corpus, model

from learnsim.index import Index


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("chroma") / "idx"
    Index.build(path, model("linklearn"), texts[:12], ids[:12], meta[:12]).close()
    return path


@pytest.fixture
def index(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    with Index.open(tmp_path / "idx") as idx:
        yield idx


@pytest.mark.parametrize("call, ours", [
    (lambda idx: idx.add(documents=["w001 w002"], ids=["x"]), "texts"),
    (lambda idx: idx.add(["w001 w002"], ids=["x"], metadatas=[{"a": 1}]), "metadata"),
    (lambda idx: idx.upsert(["w001 w002"], ids=["x"], metadatas=[{"a": 1}]), "metadata"),
    (lambda idx: idx.update(["d1"], documents=["w001 w002"]), "texts"),
    (lambda idx: idx.get(where={"topic": 1}), "filter"),
    (lambda idx: idx.count(where={"topic": 1}), "filter"),
    (lambda idx: idx.search("w001", where={"topic": 1}), "filter"),
    (lambda idx: idx.search("w001", n_results=3), "k"),
    (lambda idx: idx.search(query_texts=["w001"]), "query"),
    (lambda idx: idx.delete(where={"topic": 1}), "get(filter="),
    (lambda idx: idx.get(where_document={"$contains": "w001"}), "metadata"),
    (lambda idx: idx.add(["w001"], ids=["x"], embeddings=[[0.1, 0.2]]), "texts"),
])
def test_a_chromadb_keyword_names_learnsims_word(index, call, ours):
    with pytest.raises(TypeError, match="chromadb") as info:
        call(index)
    assert ours in str(info.value)
    assert index.count() == 12             # nothing written
    assert index.document("d1")[0] == corpus()[0][1]


def test_learnsims_own_keywords_still_work_and_others_are_pythons_error(index):
    assert index.get(filter={"topic": corpus()[1][0]}, include=[])["ids"]
    assert len(index.search("w001", k=2, filter=None)) <= 2
    with pytest.raises(TypeError, match="unexpected keyword argument 'nonsense'"):
        index.search("w001", nonsense=1)


def test_build_names_learnsims_words_too(tmp_path):
    texts, _, ids, meta = corpus()
    with pytest.raises(TypeError, match="chromadb.*metadata="):
        Index.build(tmp_path / "new", model("linklearn"), texts[:5], ids=ids[:5], metadatas=meta[:5])
    with pytest.raises(TypeError, match="chromadb.*texts="):
        Index.build(tmp_path / "new", model("linklearn"), documents=texts[:5])
    assert not (tmp_path / "new").exists()
