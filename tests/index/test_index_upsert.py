"""Index.upsert: new ids added and live ones replaced in one transaction and one segment, with
the counts of each; the same meaning on the command line (index add --update)."""
from __future__ import annotations

import json
import shutil

import pytest

from index_models import corpus, model

from learnsim.cli import main
from learnsim.index import Index


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("upsert") / "idx"
    Index.build(path, model("linklearn"), texts[:30], ids[:30], meta[:30]).close()
    return path


@pytest.fixture
def index(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    with Index.open(tmp_path / "idx") as idx:
        yield idx


def test_upsert_adds_and_replaces_in_one_segment(index):
    texts, _, ids, _ = corpus()
    before, segments = len(index), index.info()["segments"]
    got = index.upsert([texts[40], texts[41], "w001 w002 w003"], ids=[ids[0], "fresh", "7"],
                       metadata=[{"topic": 9}, None, {"n": 1}])
    assert got == {"added": 2, "updated": 1}
    assert len(index) == before + 2 and index.info()["segments"] == segments + 1
    assert index.document(ids[0]) == (texts[40], {"topic": 9})
    assert index.document("7") == ("w001 w002 w003", {"n": 1})
    # the replaced text is what search finds; the old one is gone
    assert index.search(texts[40], k=1)[0]["id"] == ids[0]
    assert [h["id"] for h in index.search(texts[0], k=40)].count(ids[0]) == 1
    live = [r[1] for rows in index.store.live_rows() for r in rows]
    assert len(live) == len(set(live))
    assert index.upsert([], ids=[]) == {"added": 0, "updated": 0}


@pytest.mark.parametrize("ids,match", [(["a", "a"], "given twice"), (["a", None], "id for every document"),
                                       ([True, "b"], "id")])
def test_bad_ids_write_nothing(index, ids, match):
    n, seq = len(index), index.store.last_seq()
    with pytest.raises((ValueError, TypeError), match=match):
        index.upsert(["w001", "w002"], ids=ids)
    assert len(index) == n and index.store.last_seq() == seq


def test_index_add_update_is_an_upsert(built, tmp_path, capsys):
    path = tmp_path / "idx"
    shutil.copytree(built, path)
    texts, _, ids, _ = corpus()
    corpus_file = tmp_path / "docs.jsonl"
    corpus_file.write_text("\n".join(json.dumps({"id": i, "text": t}) for i, t in
                                     [(ids[1], texts[50]), ("new-1", texts[51])]) + "\n", encoding="utf-8")
    assert main(["index", "add", str(path), "--corpus", str(corpus_file), "--update", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["added"], out["updated"], out["documents"]) == (1, 1, 31)
    with Index.open(path) as idx:
        assert idx.document(ids[1])[0] == texts[50]
    # without --update an indexed id is refused: exit 2, one line
    assert main(["index", "add", str(path), "--corpus", str(corpus_file)]) == 2
    err = capsys.readouterr().err.strip()
    assert "already in the index" in err and len(err.splitlines()) == 1


def test_a_repeated_filter_sees_every_write(index):
    # the rows a filter matches are kept while the index's rows stay the same: each write
    # (upsert, delete, add) must show in the next filtered search
    texts, _, ids, meta = corpus()
    flt = {"topic": {"$eq": meta[0]["topic"]}}
    first = {h["id"] for h in index.search(texts[0], k=30, filter=flt)}
    assert ids[0] in first and index.search(texts[0], k=30, filter=flt)[0]["id"] == ids[0]
    index.upsert([texts[0]], ids=[ids[0]], metadata=[{"topic": -5}])
    assert ids[0] not in {h["id"] for h in index.search(texts[0], k=30, filter=flt)}
    other = next(i for i in first if i != ids[0])
    index.delete([other])
    assert other not in {h["id"] for h in index.search(texts[0], k=30, filter=flt)}
    index.add([texts[0]], ["copy"], [{"topic": meta[0]["topic"]}])
    assert index.search(texts[0], k=30, filter=flt)[0]["id"] == "copy"
    assert {h["id"] for h in index.search(texts[0], k=30, filter={"topic": -5})} == {ids[0]}


def test_an_update_of_texts_alone_keeps_each_documents_metadata(index):
    """``update(ids, texts)`` dropped the metadata (a filter on it no longer found the document);
    chromadb's ``update(ids, documents=...)`` keeps it, as ``update(ids, metadata=...)`` keeps the text."""
    import pandas as pd

    texts, _, ids, meta = corpus()
    index.update([ids[3], ids[4]], [texts[40], texts[41]])
    assert index.document(ids[3]) == (texts[40], meta[3]) and index.document(ids[4]) == (texts[41], meta[4])
    hits = index.search(texts[40], k=3, filter={"n": 3})
    assert [h["id"] for h in hits] == [ids[3]] and hits[0]["metadata"] == meta[3]
    # a table of ids and texts alone: kept too; metadata given: replaced, as before
    index.update(pd.DataFrame({"id": [ids[5]], "text": [texts[42]]}))
    assert index.document(ids[5]) == (texts[42], meta[5])
    index.update([ids[6]], [texts[43]], [{"topic": 99}])
    assert index.document(ids[6]) == (texts[43], {"topic": 99})
    index.update([ids[7]], [texts[44]], [None])
    assert index.document(ids[7]) == (texts[44], None)
    with pytest.raises(KeyError, match="use add"):
        index.update(["no such id"], [texts[45]])
    assert Index.verify_at(index.path)["ok"]
