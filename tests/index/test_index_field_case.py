"""A filter naming a field no document has, where one differs from it in case alone
(learnsim.index._field_case): an index built from a .csv before its column names were kept as
written holds "topic" for the column "Topic", and the filter {"Topic": ...} matched nothing (or,
negated, everything) without a word. It is a FilterError naming both names, in Python, on the
command line and over HTTP; a field that no document has in any case stays a filter matching
nothing, as in chromadb and Elasticsearch."""
from __future__ import annotations

import pytest

from conftest import run_cli
from index_models import corpus, model

from learnsim.index import FilterError, Index

QUERY = "w001 w002 w003 w120 w240"


@pytest.fixture(scope="module")
def old_csv_index(tmp_path_factory):
    texts, topics, ids, _ = corpus()
    # the metadata as an older learnsim read a .csv whose header is id,text,Topic,Lang: in lower case
    meta = [{"topic": int(t), "lang": "en"} for t in topics[:60]]
    path = tmp_path_factory.mktemp("case") / "idx"
    Index.build(path, model("linklearn"), texts[:60], ids[:60], meta).close()
    return path, meta


@pytest.mark.parametrize("bad", [{"Topic": 1}, {"Topic": {"$ne": 1}}, {"$not": {"Topic": 1}},
                                 {"Topic": {"$exists": False}}, {"$or": [{"lang": "en"}, {"LANG": "en"}]},
                                 {"topic": 1, "Lang": {"$nin": ["fr"]}}])
def test_a_field_named_in_another_case_is_named(old_csv_index, bad):
    path, _ = old_csv_index
    with Index.open(path) as index:
        with pytest.raises(FilterError, match=r"no document of the index has the metadata field '(Topic|LANG|Lang)', "
                                              r"but '(topic|lang)' differs from it in case alone"):
            index.search(QUERY, 5, filter=bad)
        with pytest.raises(FilterError, match="differs from it in case alone"):
            index.more_like(index.search(QUERY, 1)[0]["id"], 3, filter=bad)


def test_the_names_as_held_and_absent_fields_are_answered_as_before(old_csv_index):
    path, _ = old_csv_index
    with Index.open(path) as index:
        every = index.search(QUERY, 60)
        hits = index.search(QUERY, 60, filter={"topic": 1})
        assert hits and [h["id"] for h in hits] == [h["id"] for h in every if h["metadata"]["topic"] == 1]
        assert index.search(QUERY, 5, filter={"nowhere": 1}) == []
        assert [h["id"] for h in index.search(QUERY, 60, filter={"nowhere": {"$ne": 1}})] == [h["id"] for h in every]


def test_the_command_line_and_the_service_name_it(old_csv_index):
    path, _ = old_csv_index
    code, out, err = run_cli(["search", "--index", path, "--query", QUERY, "--filter", "Topic=1"])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "'Topic'" in err and "'topic'" in err and "Traceback" not in err
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    import json
    import warnings

    from learnsim.service import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    with TestClient(create_app(path), raise_server_exceptions=False, base_url="http://127.0.0.1") as client:
        for r in (client.get("/v1/search", params={"q": QUERY, "filter": json.dumps({"Topic": 1})}),
                  client.post("/v1/search", json={"queries": [QUERY], "filter": {"Topic": 1}})):
            assert r.status_code == 400 and "'topic'" in r.json()["error"], r.text[:300]


def test_a_dotted_field_no_document_has_as_a_path_but_one_has_as_a_key_is_named(tmp_path):
    """{"a.b": 1} reads a path a -> b: a document holding the key "a.b" itself was not matched,
    without a word."""
    texts, _, ids, _ = corpus()
    meta = [{"src.lang": "en", "n": i} for i in range(20)]
    with Index.build(tmp_path / "idx", model("linklearn"), texts[:20], ids[:20], meta) as index:
        for bad in ({"src.lang": "en"}, {"$not": {"src.lang": "en"}}, {"n": 1, "src.lang": {"$exists": False}}):
            with pytest.raises(FilterError, match=r"'src\.lang' is a path .* has the metadata key 'src\.lang' itself"):
                index.search(QUERY, 5, filter=bad)
        assert index.search(QUERY, 5, filter={"other.path": 1}) == []      # a path nobody has: nothing, as before
        index.add([texts[30]], ids=["nested"], metadata=[{"src": {"lang": "en"}}])
        # a document holding the path beside those holding the key: it was the one hit, the 20 others
        # missed without a word
        with pytest.raises(FilterError, match=r"'src\.lang' is a path .* has the metadata key 'src\.lang' itself"):
            index.search(texts[30], 30, filter={"src.lang": "en"})
        index.delete(ids[:20])
        assert [h["id"] for h in index.search(texts[30], 30, filter={"src.lang": "en"})] == ["nested"]
    code, out, err = run_cli(["search", "--index", tmp_path / "idx", "--query", QUERY, "--filter", "n.x=1"])
    assert code == 0, err


@pytest.mark.parametrize("held, field", [({"a.b": {"c": 1}}, "a.b.c"), ({"a": {"b.c": 1}}, "a.b.c"),
                                         ({"a.b.c": 1}, "a.b.c"), ({"é.ü": 1}, "é.ü")])
def test_a_dotted_key_beside_the_path_is_named_in_any_grouping(tmp_path, held, field):
    """{"a.b.c": 1} read a -> b -> c only: the documents holding "a.b" -> "c" or "a" -> "b.c" were
    missed where another document held the path, without a word."""
    texts, _, ids, _ = corpus()
    path_meta, names = 1, field.split(".")
    for name in reversed(names):
        path_meta = {name: path_meta}
    meta = [path_meta if i % 2 else held for i in range(10)]
    with Index.build(tmp_path / "idx", model("film"), texts[:10], ids[:10], meta) as index:
        with pytest.raises(FilterError, match=f"{field!r} is a path .* has the metadata key '.*\\..*' itself"):
            index.search(QUERY, 5, filter={field: 1})
        with pytest.raises(FilterError, match="is a path"):
            index.search(QUERY, 5, filter={"$not": {field: {"$exists": True}}})
        # a value with a dot, or a key with a dot on another path, is no such key
        index.delete([ids[i] for i in range(0, 10, 2)])
        index.add(texts[10:12], ids=ids[10:12], metadata=[{names[0]: "x.y"}, {"other.key": field}])
        assert sorted(h["id"] for h in index.search(QUERY, 20, filter={field: 1})) == sorted(ids[1:10:2])


def test_the_checks_read_the_documents_once_for_many_absent_or_dotted_fields(tmp_path):
    """A filter of 32 fields no document has cost 32 passes of json_each over every document's
    metadata (7.6 s of the index's thread at 100,000 documents for a request within the service's
    bounds); the absent names now cost one, and the dotted fields one pass together."""
    import json

    from learnsim.index._field_case import check_field_case
    from learnsim.index._store import DocumentStore, check_filter

    store = DocumentStore(tmp_path / "docs.sqlite")
    store.add([str(i) for i in range(50)], ["t"] * 50, [json.dumps({"m": {"y": i}, "topic": i % 3}) for i in range(50)])
    statements = []
    store.conn.set_trace_callback(statements.append)
    f = {**{f"absent{i}.x.y": 1 for i in range(16)}, **{f"m.n{i}": {"$gt": 1} for i in range(16)}, "topic": 1}
    check_field_case(store.conn, check_filter(f))
    # the top keys once, and the keys under m once for its 16 names no document holds there (a
    # name written otherwise than the documents' is named: test_a_nested_field_...)
    assert sum("json_each" in s for s in statements) == 2
    assert sum("instr(" in s for s in statements) == 1
    # a query or two a field at most, besides: the absent ones and their paths none
    assert len(statements) <= 2 + 2 + 3 * 16 + 3, len(statements)
    store.close()


def test_the_fields_documents_hold_are_read_once_while_the_rows_stay(tmp_path):
    """A filter naming a field no document holds read every document's top keys to say whether
    another differs from it in case alone, at each new value ({"Topic1": 1}, {"Topic1": 2}, ...:
    about 300 ms a request at 50,000 documents); the keys are kept with the filters' rows while the
    rows stay the same, and read again after a write (which may add a field)."""
    from learnsim.index import _field_case

    texts, topics, ids, _ = corpus()
    path = tmp_path / "idx"
    Index.build(path, model("linklearn"), texts[:40], ids[:40], [{"topic": int(t)} for t in topics[:40]]).close()
    reads = []
    real = _field_case.live_top_keys

    def counted(conn):
        reads.append(1)
        return real(conn)

    with Index.open(path) as index:
        _field_case.live_top_keys, saved = counted, _field_case.live_top_keys
        try:
            for value in range(5):
                assert index.search(QUERY, 5, filter={"Topic1": value}) == []
            with pytest.raises(FilterError, match="differs from it in case alone"):
                index.search(QUERY, 5, filter={"Topic": 1})
            assert len(reads) == 1
            index.add([texts[40]], ids=[ids[40]], metadata=[{"Topic1": 3}])
            assert [h["id"] for h in index.search(texts[40], 5, filter={"Topic1": 3})] == [ids[40]]
            assert len(reads) == 2
        finally:
            _field_case.live_top_keys = saved


NFC, NFD = "caf\u00e9", "cafe\u0301"        # "café" as one letter é, and as e and a combining accent


@pytest.mark.parametrize("held, asked", [(NFC, NFD), (NFD, NFC), (NFC, "Cafe\u0301")])
def test_a_field_written_in_another_unicode_normal_form_is_named(tmp_path, held, asked):
    """"café" written with a combining accent (NFD, as macOS file names and some exports hold it)
    was refused as no "name of letters", so that metadata keyed so could not be filtered, and a
    filter so written never reached metadata keyed in NFC, with a message naming the wrong thing.
    A key matches as written (chromadb's and Elasticsearch's rule); a field no document holds
    where one differs from it in normal form alone is refused by name, as one in case alone is."""
    texts, _, ids, _ = corpus()
    meta = [{held: i % 2} for i in range(10)]
    with Index.build(tmp_path / "idx", model("linklearn"), texts[:10], ids[:10], meta) as index:
        every = [h["id"] for h in index.search(QUERY, 10)]
        hits = [h["id"] for h in index.search(QUERY, 10, filter={held: 1})]
        assert hits and hits == [i for i in every if ids.index(i) % 2]
        for bad in ({asked: 1}, {asked: {"$ne": 1}}, {"$not": {asked: {"$exists": True}}}):
            with pytest.raises(FilterError, match=r"Unicode normal form") as caught:
                index.search(QUERY, 5, filter=bad)
            message = str(caught.value)
            assert ascii(held) in message and ascii(asked) in message and "NFC" in message, message
            assert ("case and Unicode normal form" in message) == (asked.lower() != asked), message
    code, out, err = run_cli(["search", "--index", tmp_path / "idx", "--query", QUERY, "--filter", f"{asked}=1"])
    assert code == 2 and out == "" and "Unicode normal form" in err and "Traceback" not in err, err
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    import json
    import warnings

    from learnsim.service import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    with TestClient(create_app(tmp_path / "idx"), raise_server_exceptions=False, base_url="http://127.0.0.1") as client:
        for r in (client.get("/v1/search", params={"q": QUERY, "filter": json.dumps({asked: 1})}),
                  client.post("/v1/search", json={"queries": [QUERY], "filter": {asked: 1}})):
            assert r.status_code == 400 and "Unicode normal form" in r.json()["error"], r.text[:300]
        r = client.post("/v1/search", json={"queries": [QUERY], "filter": {held: 1}, "k": 10})
        assert r.status_code == 200, r.text[:300]


def test_a_combining_mark_is_part_of_a_name_but_no_name_of_its_own():
    from learnsim.index._store import check_filter

    assert check_filter({NFD: 1}) == ("in", (NFD,), [1], False)
    assert check_filter({"m." + NFD: {"$exists": True}})[1] == ("m", NFD)
    for bad in ("\u0301", "a.\u0301b", "e\u0301 x"):
        with pytest.raises(FilterError, match="must be a name of letters"):
            check_filter({bad: 1})


@pytest.mark.parametrize("held, asked, how", [(NFC, NFD, "Unicode normal form alone"), ("Topic", "topic", "case alone"),
                                              (NFC, "Cafe\u0301", "case and Unicode normal form")])
def test_a_nested_field_written_otherwise_than_the_documents_is_named(tmp_path, held, asked, how):
    """Only a path's first name was checked: on documents holding {"m": {"café": 1}} (NFC),
    {"m.cafe\u0301": 1} (NFD) and, for {"m": {"Topic": 1}}, {"m.topic": 1} matched nothing
    without a word (or, negated, everything). The name that leaves the documents' paths is
    compared with the keys held there, as a first name is with the top keys."""
    texts, _, ids, _ = corpus()
    meta = [{"m": {held: i % 2}, "n": i} for i in range(10)]
    with Index.build(tmp_path / "idx", model("linklearn"), texts[:10], ids[:10], meta) as index:
        assert index.search(QUERY, 10, filter={f"m.{held}": 1})
        for bad in ({f"m.{asked}": 1}, {f"m.{asked}": {"$ne": 1}}, {f"m.{asked}": {"$exists": True}},
                    {"n": {"$gte": 0}, f"m.{asked}": {"$in": [0, 1]}}):
            with pytest.raises(FilterError, match=how) as caught:
                index.search(QUERY, 5, filter=bad)
            message = str(caught.value)
            assert repr(f"m.{asked}") in message or ascii(asked) in message, message
        # a nested name nobody has, in any spelling: nothing, as before
        assert index.search(QUERY, 5, filter={"m.other": 1}) == []
        assert index.search(QUERY, 5, filter={"m.x.y": 1}) == []
    code, out, err = run_cli(["search", "--index", tmp_path / "idx", "--query", QUERY, "--filter", f"m.{asked}=1"])
    assert code == 2 and out == "" and how.split()[0] in err and "Traceback" not in err, err
