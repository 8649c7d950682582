"""Index.build, add and update take the one input rule of learnsim.fit (issue 33, point 3): a
pandas DataFrame or a Hugging Face Dataset with id and metadata columns, a documents file, what
read_documents returns, give the same index as the lists; ids are str or int, stored and
returned as str (7 and "7" are one id), bool and float refused; the service takes the same ids."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from index_models import corpus, hugging_face_datasets, model

from learnsim.datasets import read_documents
from learnsim.index import Index

N = 60
QUERIES = ("w001 w002 w003 w120 w240", "w050 w051 w300")


def _pandas():
    return pytest.importorskip("pandas", reason="pandas is not installed (pip install pandas)")


@pytest.fixture(scope="module")
def docs():
    texts, topics, ids, meta = corpus()
    return texts[:N], ids[:N], meta[:N]


@pytest.fixture(scope="module")
def reference(docs, tmp_path_factory):
    texts, ids, meta = docs
    path = tmp_path_factory.mktemp("lists") / "idx"
    with Index.build(path, model("mcd"), texts, ids, meta) as index:
        yield _answers(index)


def _answers(index):
    """What an index answers: searches (with and without a filter), and each document."""
    out = [index.search(list(QUERIES), k=8), index.search(QUERIES[0], k=5, filter={"half": "odd"}),
           index.search(QUERIES[1], k=5, filter={"topic": [1, 2]})]
    out.append({hit["id"]: index.document(hit["id"]) for hits in out[0] for hit in hits})
    return out


def _frame(docs):
    pd = _pandas()
    texts, ids, meta = docs
    return pd.DataFrame({"doc_id": ids, "body": texts, "topic": [m["topic"] for m in meta],
                         "half": [m["half"] for m in meta], "n": [m["n"] for m in meta]})


FORMS = ["dataframe", "dataframe-columns", "dataframe-defaults", "dataframe-dicts", "dataset", "parquet",
         "parquet-defaults", "jsonl", "read_documents"]


def _form(form, docs, tmp_path):
    """(texts, keyword arguments) of ``form``."""
    texts, ids, meta = docs
    if form in ("jsonl", "read_documents"):
        path = tmp_path / "docs.jsonl"
        path.write_text("".join(json.dumps({"id": i, "text": t, "metadata": m}) + "\n"
                                for i, t, m in zip(ids, texts, meta)), encoding="utf-8")
        return (path, {}) if form == "jsonl" else (read_documents(path), {})
    frame = _frame(docs)
    named = {"text": "body", "ids": "doc_id", "metadata": ["topic", "half", "n"]}
    if form == "dataframe":
        return frame, named
    if form == "dataframe-columns":
        return frame, {"columns": {"text": "body", "id": "doc_id", "metadata": ["topic", "half", "n"]}}
    if form == "dataframe-defaults":
        # the reader's names: text, id, and a metadata column of dicts
        return frame.rename(columns={"body": "text", "doc_id": "id"}).assign(metadata=meta)[["id", "text", "metadata"]], {}
    if form == "dataframe-dicts":
        return frame.assign(meta=meta), {"text": "body", "ids": "doc_id", "metadata": "meta"}
    if form == "dataset":
        hf = hugging_face_datasets()
        return hf.Dataset.from_pandas(frame), named
    if form in ("parquet", "parquet-defaults"):
        pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow): no .parquet")
        path = tmp_path / "docs.parquet"
        if form == "parquet":
            frame.to_parquet(path)
            return path, named
        # no column named: read as read_documents reads it, the other columns the metadata, as a
        # .jsonl's other fields (they were all dropped: every hit's metadata None)
        frame.rename(columns={"body": "text", "doc_id": "id"}).to_parquet(path)
        return path, {}
    raise AssertionError(form)


@pytest.mark.parametrize("form", FORMS)
def test_build_from_every_form_answers_as_from_lists(form, docs, reference, tmp_path):
    source, keywords = _form(form, docs, tmp_path)
    with Index.build(tmp_path / "idx", model("mcd"), source, **keywords) as index:
        assert _answers(index) == reference
        assert len(index) == N


def test_add_and_update_take_tables(docs, tmp_path):
    pd = _pandas()
    texts, ids, meta = docs
    frame = _frame(docs)
    with Index.build(tmp_path / "a", model("mcd"), texts[:40], ids[:40], meta[:40]) as a, \
            Index.build(tmp_path / "b", model("mcd"), frame.iloc[:40], text="body", ids="doc_id",
                        metadata=["topic", "half", "n"]) as b:
        assert a.add(texts[40:], ids[40:], meta[40:]) == b.add(frame.iloc[40:], text="body", ids="doc_id",
                                                                  metadata=["topic", "half", "n"]) == ids[40:]
        changed = frame.iloc[:5].assign(body=[texts[59 - k] for k in range(5)])
        a.update(ids[:5], list(changed["body"]), meta[:5])
        b.update(changed.rename(columns={"doc_id": "id"}), text="body", metadata=["topic", "half", "n"])
        assert _answers(a) == _answers(b)
        with pytest.raises(ValueError, match="no 'id' column"):
            b.update(changed, text="body")
        # upsert: the table's ids, one new and one replaced
        both = frame.iloc[[6, 7]].assign(doc_id=["d6", 1234])
        assert b.upsert(both, text="body", ids="doc_id", metadata=["topic"]) == {"added": 1, "updated": 1}
        assert b.document(1234) == (texts[7], {"topic": meta[7]["topic"]})


def test_missing_values_and_columns_are_named(docs, tmp_path):
    pd = _pandas()
    frame = _frame(docs)
    broken = frame.copy()
    broken.loc[4, "body"] = np.nan
    with pytest.raises(ValueError, match=r"column 'body' \(text\), row 4, is missing"):
        Index.build(tmp_path / "x", model("mcd"), broken, text="body")
    with pytest.raises(ValueError, match=r"no 'text' column for text \(its columns are 'doc_id', 'body'"):
        Index.build(tmp_path / "x", model("mcd"), frame)
    with pytest.raises(ValueError, match="no column named 'year'"):
        Index.build(tmp_path / "x", model("mcd"), frame, text="body", metadata=["year"])
    with pytest.raises(ValueError, match="got 3 ids for 60 texts"):
        Index.build(tmp_path / "x", model("mcd"), frame["body"], ids=pd.Series(["a", "b", "c"]))
    with pytest.raises(TypeError, match="metadata names columns .* only where texts is a DataFrame"):
        Index.build(tmp_path / "x", model("mcd"), list(frame["body"]), metadata=["topic"] * N)
    # a missing metadata cell leaves the field out
    sparse = frame.assign(n=[float("nan")] + list(frame["n"][1:]))
    with Index.build(tmp_path / "y", model("mcd"), sparse, text="body", ids="doc_id", metadata=["n", "half"]) as idx:
        assert idx.document("d0")[1] == {"half": "even"} and idx.document("d1")[1] == {"half": "odd", "n": 1.0}
    assert not (tmp_path / "x").exists()


# ------------------------------------------------------------------------------- ids

@pytest.fixture
def numbered(docs, tmp_path):
    texts, _, _ = docs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        index = Index.build(tmp_path / "ids", model("mcd"), texts[:20], ids=list(range(100, 120)))
    with index:
        yield index


def test_integer_ids_are_their_decimal_str(numbered, docs):
    texts, _, _ = docs
    hits = numbered.search(texts[3], k=1)
    assert hits[0]["id"] == "103" and isinstance(hits[0]["id"], str)
    assert numbered.document(103) == numbered.document("103") == (texts[3], None)
    assert numbered.add([texts[30]], ids=[np.int64(7)]) == ["7"]
    assert numbered.add([texts[31]], ids=np.array([-8])) == ["-8"]
    # 7 and "7" are the same id
    with pytest.raises(ValueError, match="'7' is already in the index"):
        numbered.add([texts[32]], ids=["7"])
    with pytest.raises(ValueError, match="id '9' is given twice"):
        numbered.add(texts[32:34], ids=[9, "9"])
    assert [h["id"] for h in numbered.more_like(103, k=3)] == [h["id"] for h in numbered.more_like("103", k=3)]
    numbered.update([104], [texts[40]])
    assert numbered.document("104")[0] == texts[40]
    assert numbered.delete(105) == 1 and numbered.delete([106, "107"]) == 2
    with pytest.raises(KeyError):
        numbered.document(105)


@pytest.mark.parametrize("bad, error, message", [
    (True, TypeError, "got bool True"),
    (np.bool_(True), TypeError, "got bool"),
    (7.0, TypeError, r"got float 7\.0 \(a pandas integer column"),
    (float("nan"), ValueError, "is missing"),
    (b"7", TypeError, "got bytes"),
    ("", TypeError, "non-empty"),
])
def test_bool_float_and_other_ids_are_refused(numbered, docs, bad, error, message):
    texts, _, _ = docs
    with pytest.raises(error, match=r"ids\[0\] .*" + message if error is TypeError else message):
        numbered.add([texts[50]], ids=[bad])
    assert len(numbered) == 20


@pytest.mark.parametrize("bad", [b"100", bytearray(b"100"), {"100": 1}, 7.0, True, None])
def test_delete_refuses_what_is_not_an_id_or_a_list_of_them(numbered, bad):
    """A bytes object iterated as its byte values: delete(b"a") deleted the id "97" (and a dict
    its keys): nothing is deleted now, and the error says what ids are."""
    with pytest.raises(TypeError, match="ids must be an id"):
        numbered.delete(bad)
    assert len(numbered) == 20


def test_delete_of_an_id_given_twice_says_so_and_deletes_nothing(numbered):
    with pytest.raises(ValueError, match="id '101' is given twice"):
        numbered.delete([101, "102", "101"])
    assert len(numbered) == 20 and numbered.document(101)


def test_a_lone_surrogate_in_a_text_an_id_or_metadata_is_refused_naming_it(numbered, docs):
    texts, _, _ = docs
    for call, where in ((lambda: numbered.add([texts[50], "half \ud800 a pair"]), r"texts\[1\]"),
                        (lambda: numbered.add([texts[50]], ids=["x\udc80"]), r"ids\[0\]"),
                        (lambda: numbered.add([texts[50]], metadata=[{"k": ["\ud800"]}]), r"metadata\[0\]"),
                        (lambda: numbered.search(["w001", "w002 \ud800"]), r"query\[1\]")):
        with pytest.raises(ValueError, match=where + ": a string holds a lone surrogate"):
            call()
    assert len(numbered) == 20 and numbered.verify()["ok"]


def test_a_lone_surrogate_in_an_id_looked_up_or_deleted_is_refused_naming_it(numbered):
    """document, more_like and delete passed a str id to SQLite as given: one holding a lone
    surrogate was a UnicodeEncodeError of its codec, naming nothing (the docs promise a ValueError
    naming the argument, as add gives); None was looked up as an id (a KeyError)."""
    for call, where in ((lambda: numbered.document("x\ud800"), "id"),
                        (lambda: numbered.more_like("x\udc80"), "id"),
                        (lambda: numbered.delete("x\ud800"), r"ids\[0\]"),
                        (lambda: numbered.delete(["101", "x\ud800"]), r"ids\[1\]"),
                        (lambda: numbered.delete(["x\ud800"], missing_ok=True), r"ids\[0\]")):
        with pytest.raises(ValueError, match=where + ": a string holds a lone surrogate"):
            call()
    for call in (lambda: numbered.document(None), lambda: numbered.more_like(None)):
        with pytest.raises(TypeError, match="id must be a str or an int; got None"):
            call()
    assert len(numbered) == 20 and numbered.document(101)
    # an unknown id, whatever its characters, is still a KeyError
    with pytest.raises(KeyError):
        numbered.document("caf\u00e9 \U0001f600")


def test_a_closed_index_says_it_is_closed_not_damaged(docs, tmp_path):
    texts, _, _ = docs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        index = Index.build(tmp_path / "closed", model("mcd"), texts[:10])
    index.close()
    for call in (lambda: index.search(texts[0]), lambda: index.add([texts[11]]), lambda: index.delete("1"),
                 lambda: index.document("1"), lambda: index.info(), lambda: index.compact()):
        with pytest.raises(ValueError, match="is closed"):
            call()
    with Index.open(tmp_path / "closed") as again:
        assert len(again) == 10 and again.verify()["ok"]


def test_a_float_id_column_says_why(docs, tmp_path):
    pd = _pandas()
    texts, _, _ = docs
    frame = pd.DataFrame({"text": texts[:3], "id": [1, None, 3]})     # pandas makes it float
    with pytest.raises(ValueError, match=r"column 'id' \(id\), row 1, is missing"):
        Index.build(tmp_path / "f", model("mcd"), frame)
    with Index.build(tmp_path / "g", model("mcd"), frame.astype({"id": "Int64"}).fillna({"id": 2})) as index:
        assert sorted(h["id"] for h in index.search(texts[0], k=3)) == ["1", "2", "3"]


def test_the_service_takes_integer_ids(docs, tmp_path):
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from learnsim.service import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    texts, ids, meta = docs
    Index.build(tmp_path / "s", model("mcd"), texts[:20], ids[:20], meta[:20]).close()
    client = TestClient(create_app(tmp_path / "s"), raise_server_exceptions=False, base_url="http://127.0.0.1")
    r = client.post("/v1/docs", json={"documents": [{"id": 7, "text": texts[30]}]})
    assert r.status_code == 201 and r.json()["ids"] == ["7"]
    assert client.get("/v1/docs/7").json() == {"id": "7", "text": texts[30], "metadata": None}
    assert client.post("/v1/docs", json={"documents": [{"id": "7", "text": texts[31]}]}).status_code == 409
    for bad in (True, 7.5, [7]):
        assert client.post("/v1/docs", json={"documents": [{"id": bad, "text": texts[31]}]}).status_code == 422


def test_pipeline_search_takes_a_series_by_position(docs):
    pd = _pandas()
    texts, _, _ = docs
    pipeline = model("film_pairs")
    shuffled = pd.Series(texts, index=np.arange(len(texts))[::-1])
    assert pipeline.search(QUERIES[0], shuffled, k=5) == pipeline.search(QUERIES[0], texts, k=5)
    assert pipeline.search(QUERIES[0], pd.DataFrame({"text": texts, "x": 1}), k=5) == \
        pipeline.search(QUERIES[0], texts, k=5)
    np.testing.assert_array_equal(pipeline.encode(shuffled), pipeline.encode(texts))
    with pytest.raises(ValueError, match=r"corpus \(DataFrame\) has no 'text' column .*corpus=df\['...'\]"):
        pipeline.search(QUERIES[0], pd.DataFrame({"a": texts, "b": texts}))


@pytest.mark.parametrize("name", ["idx%41", "100%25 done", "a?b#c%zz"])
def test_an_index_path_holding_a_percent_sign_is_built_opened_and_verified(docs, tmp_path, name):
    """docs.sqlite is opened read-only by a URI, whose %XX escapes SQLite decodes: an index in
    "idx%41" read "idxA/docs.sqlite", and its build failed with SQLite's "unable to open database
    file" (verify reported the file damaged)."""
    texts, ids, meta = docs
    path = tmp_path / name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Index.build(path, model("mcd"), texts[:20], ids[:20], meta[:20]).close()
    with Index.open(path) as index:
        assert len(index) == 20 and index.search(QUERIES[0], k=3)
        index.add(texts[20:22], ids=ids[20:22])
        index.compact()
        assert len(index) == 22 and index.verify()["ok"]
    assert Index.verify_at(path)["ok"]
    assert not (tmp_path / "idxA").exists()


@pytest.mark.parametrize("bad", ["no", "false", 0, 1, None, [True]])
def test_explain_is_a_flag_not_a_truth_value(numbered, bad):
    """search(explain="no") was read for its truth value and explained every hit (and
    explain=0 did not): a flag takes True or False (numpy's too), else a TypeError naming it."""
    with pytest.raises(TypeError, match=r"explain must be True or False; got"):
        numbered.search("w001 w002", k=2, explain=bad)
    assert all("explanation" in h for h in numbered.search("w001 w002", k=2, explain=np.bool_(True)))
    assert not any("explanation" in h for h in numbered.search("w001 w002", k=2, explain=False))
