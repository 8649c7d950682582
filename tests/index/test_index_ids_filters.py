"""Hostile ids and filters against learnsim.index (issue 30, part 4): automatic ids never collide
with explicit ones (the wedge is impossible, across reopening too), ids with any character
round-trip, filter values are checked before SQLite sees them (no OverflowError, no 500), and
filters with up to MAX_FILTER_VALUES values work (then a clear error).
"""
from __future__ import annotations

import pytest

from conftest import run_cli
from index_models import corpus, model

from learnsim.index import MAX_FILTER_VALUES, FilterError, Index

QUERY = "w001 w002 w003 w120 w240"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("ids") / "idx"
    Index.build(path, model("linklearn"), texts[:60], ids[:60], meta[:60]).close()
    return path


@pytest.fixture
def index(pristine, tmp_path):
    import shutil

    dst = tmp_path / "idx"
    shutil.copytree(pristine, dst)
    with Index.open(dst) as idx:
        yield idx


# ---------------------------------------------------------------------- automatic ids
def test_an_explicit_id_equal_to_the_next_automatic_id_does_not_wedge_adds(index):
    texts = corpus()[0]
    nxt = str(index.store.last_seq() + 1)
    assert index.add([texts[70]], ids=[nxt]) == [nxt]
    # before: every add without ids failed with "id ... is already in the index", forever
    auto = index.add([texts[71]])
    assert auto != [nxt] and auto[0].isdigit()
    more = index.add([texts[72], texts[73]])
    assert len(set(auto + more + [nxt])) == 4
    for doc_id, text in zip([nxt] + auto + more, texts[70:74]):
        assert index.document(doc_id)[0] == text
    # and after reopening (the wedge survived restarts)
    path = index.path
    index.close()
    with Index.open(path) as again:
        assert again.add([texts[74]])[0] not in {nxt, *auto, *more}
        assert len(again) == 65


def test_an_explicit_id_equal_to_the_placeholder_of_an_automatic_one_does_not_wedge_adds(index):
    """An add without ids wrote its row under the live id "\\0pending" until its number was
    known: a document given that very id made every such add fail with "id None is already in
    the index" (until it was deleted)."""
    texts = corpus()[0]
    assert index.add([texts[70]], ids=["\0pending"]) == ["\0pending"]
    auto = index.add([texts[71], texts[72]])
    assert len(auto) == 2 and all(a.isdigit() for a in auto)
    assert index.add([texts[73]], ids=[None])[0].isdigit()
    assert index.document("\0pending")[0] == texts[70]
    for doc_id, text in zip(auto, texts[71:73]):
        assert index.document(doc_id)[0] == text
    assert len(index) == 64 and index.verify()["ok"]


def test_a_run_of_explicit_numeric_ids_ahead_is_skipped(index):
    texts = corpus()[0]
    start = index.store.last_seq() + 1
    taken = [str(start + i) for i in range(5)]
    index.add(texts[80:85], ids=taken)
    auto = index.add(texts[85:88])
    assert not set(auto) & set(taken)
    assert all(int(a) > start + 4 for a in auto)
    assert {h["id"] for h in index.search(texts[86], k=3)} >= {auto[1]}


def test_a_batch_may_mix_documents_with_and_without_ids(index):
    texts = corpus()[0]
    got = index.add(texts[90:93], ids=["x1", None, "x3"])
    assert got[0] == "x1" and got[2] == "x3" and got[1].isdigit()
    assert index.document(got[1])[0] == texts[91]
    with pytest.raises(ValueError, match="given twice"):
        index.add(texts[93:95], ids=["y", "y"])
    with pytest.raises(TypeError, match=r"ids\[1\]"):
        index.add(texts[93:95], ids=["y", ""])
    with pytest.raises(ValueError, match="needs the ids"):
        index.update([None], [texts[95]])


@pytest.mark.parametrize("doc_id", ["a/b/similar", "a%2Fb", "../../etc/passwd", "x?y#z", "  spaced  ",
                                    "ünïcødé/文", "'; DROP TABLE docs; --", "\0nul"])
def test_ids_of_any_character_round_trip(index, doc_id):
    text = corpus()[0][99]
    assert index.add([text], ids=[doc_id]) == [doc_id]
    assert index.document(doc_id)[0] == text
    assert doc_id in [h["id"] for h in index.search(text, k=3)]
    assert index.more_like(doc_id, k=2)
    assert index.delete([doc_id]) == 1
    with pytest.raises(KeyError):
        index.document(doc_id)


# ---------------------------------------------------------------------- filter values
@pytest.mark.parametrize("bad, message", [
    ({"n": 2 ** 63}, "64 bits"), ({"n": -(2 ** 63) - 1}, "64 bits"), ({"n": [1, 2 ** 70]}, "64 bits"),
    ({"n": float("nan")}, "finite"), ({"n": float("inf")}, "finite"), ({"n": [[1, 2]]}, "must be a str"),
    ({"n": {"$regex": 1}}, r"operator '\$regex'"), ({"n": b"bytes"}, "must be a str"), ({"n": []}, "lists no value"),
    ({"": 1}, "field"), ({"a..b": 1}, "field"), ({'a"]': 1}, "field"), ({1: 1}, "field"), ([("n", 1)], "dict"),
    ({}, "non-empty"),
])
def test_bad_filter_values_are_refused_by_name(index, bad, message):
    with pytest.raises(FilterError, match=message) as info:
        index.search(QUERY, k=3, filter=bad)
    # a ValueError (the CLI's one line, the service's 400) and a TypeError (0.1's callers)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


def test_int64_bounds_themselves_are_fine(index):
    assert index.search(QUERY, k=3, filter={"n": [2 ** 63 - 1, -(2 ** 63)]}) == []


def test_filters_with_many_values_work_up_to_the_limit(index):
    texts, topics, ids, meta = corpus()
    # every n of the collection, among MAX_FILTER_VALUES values of mixed kinds
    values = list(range(MAX_FILTER_VALUES - 4)) + ["3", True, None, 7.0]
    assert len(values) == MAX_FILTER_VALUES
    hits = index.search(QUERY, k=1000, filter={"n": values})
    # every document the query finds (those sharing a word with it)
    assert hits and hits == index.search(QUERY, k=1000)
    # a str "3" is not the number 3, a float 7.0 is the integer 7, True is not 1
    assert {h["id"] for h in index.search(texts[3], k=1000, filter={"n": ["3", "5"]})} == set()
    assert [h["id"] for h in index.search(texts[7], k=1000, filter={"n": [7.0]})] == ["d7"]
    assert index.search(QUERY, k=1000, filter={"n": True}) == []
    strs = [f"odd{i}" for i in range(MAX_FILTER_VALUES - 1)] + ["even"]
    found = {h["id"] for h in hits}
    evens = index.search(QUERY, k=1000, filter={"half": strs})
    assert evens and {h["id"] for h in evens} == found & {i for i, m in zip(ids[:60], meta[:60]) if m["half"] == "even"}
    # two fields: both must hold
    both = index.search(QUERY, k=1000, filter={"half": "even", "topic": [topics[0], topics[1]]})
    assert {h["id"] for h in both} == found & {i for i, m in zip(ids[:60], meta[:60])
                                              if m["half"] == "even" and m["topic"] in (topics[0], topics[1])}
    with pytest.raises(FilterError, match=f"more than {MAX_FILTER_VALUES}"):
        index.search(QUERY, k=3, filter={"n": list(range(MAX_FILTER_VALUES + 1))})
    with pytest.raises(FilterError, match=f"more than {MAX_FILTER_VALUES}"):
        index.search(QUERY, k=3, filter={"n": list(range(MAX_FILTER_VALUES)), "topic": 1})


@pytest.mark.parametrize("value", ["9223372036854775808", "-9223372036854775809", "NaN", "Infinity", "-1e999",
                                   # past Python's 4,300 digits an int is no JSON it reads: this compared as a
                                   # string and exited 0, where 25 digits are refused
                                   "9" * 5000, "n>=-" + "9" * 5000])
def test_cli_filter_values_out_of_range_are_one_line_errors(pristine, value):
    item = value if value.startswith("n>=") else f"n={value}"
    code, out, err = run_cli(["search", "--index", str(pristine), "--query", QUERY, "--filter", item])
    assert code == 2, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "filter" in err
    if "9" * 30 in value:
        assert "64 bits" in err and len(err) < 600


def test_a_json_filter_with_an_integer_past_pythons_digits_names_it(pristine):
    """As JSON, an integer of 5,000 digits was refused with Python's own hint ("use
    sys.set_int_max_str_digits() to increase the limit"), a setting of the reader, not the input."""
    code, _, err = run_cli(["search", "--index", str(pristine), "--query", QUERY, "--filter",
                            '{"n": %s}' % ("9" * 5000)])
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "integer of more than" in err and "set_int_max_str_digits" not in err and len(err) < 600


# ---------------------------------------------------------------------- metadata alone
def test_update_with_metadata_alone_keeps_the_texts_and_is_filtered_on(index):
    """A chromadb user's update(ids, metadatas=...): update(ids, metadata=...) without texts was
    "texts must be a list of str; got NoneType". Each document keeps its text (and its score for
    a query), its metadata is replaced and filtered on; one id and one dict too; an unknown id or
    an id given twice writes nothing."""
    ids = [str(i) for i in corpus()[2][:3]]
    before = {h["id"]: h["score"] for h in index.search(QUERY, k=60)}
    texts = {i: index.document(i)[0] for i in ids}
    assert index.update(ids[:2], metadata=[{"tag": "a"}, {"tag": "b", "n": 2}]) is None
    index.update(ids[2], metadata={"tag": "a"})
    assert [index.document(i) for i in ids] == [(texts[ids[0]], {"tag": "a"}), (texts[ids[1]], {"tag": "b", "n": 2}),
                                                (texts[ids[2]], {"tag": "a"})]
    after = {h["id"]: h["score"] for h in index.search(QUERY, k=60)}
    assert after.keys() == before.keys()
    assert all(abs(after[i] - before[i]) <= 1e-6 * max(1.0, abs(before[i])) for i in before)
    every = " ".join(texts.values())
    assert {h["id"] for h in index.search(every, k=60, filter={"tag": "a"})} == {ids[0], ids[2]}
    n = len(index)
    with pytest.raises(KeyError, match="is not in the index"):
        index.update([ids[0], "no such id"], metadata=[{"tag": "z"}, {"tag": "z"}])
    with pytest.raises(ValueError, match="given twice"):
        index.update([ids[0], ids[0]], metadata=[{"tag": "z"}, {"tag": "z"}])
    assert len(index) == n and index.document(ids[0])[1] == {"tag": "a"} and index.verify()["ok"]


# ---------------------------------------------------------------------- the bound of an id
def test_an_id_has_at_most_max_id_chars_characters_everywhere(index, tmp_path):
    """Index.add took an id of 1,000,000 characters (every hit then carried it) where the service
    refused one over 1,000: one bound, learnsim.index._store.MAX_ID_CHARS, for every write."""
    from learnsim.index._store import MAX_ID_CHARS

    texts = corpus()[0]
    longest, over = "x" * MAX_ID_CHARS, "é" * (MAX_ID_CHARS + 1)
    assert index.add([texts[90]], ids=[longest]) == [longest]
    assert index.document(longest)[0] == texts[90]
    n = len(index)
    for write in (lambda: index.add(texts[91:93], ids=["ok", "y" * 1_000_000]),
                  lambda: index.upsert(texts[91:93], ids=["ok", over]),
                  lambda: index.update([over], texts[91:92])):
        with pytest.raises(ValueError, match=r"ids\[\d\] has [\d,]+ characters; an id has at most 1,000"):
            write()
    with pytest.raises(ValueError, match=r"ids\[0\] is an integer of more than 1,000 digits"):
        index.add(texts[91:92], ids=[10 ** 5000])
    with pytest.raises(ValueError, match=r"ids\[0\] has 1,001 characters"):
        Index.build(tmp_path / "new", model("linklearn"), texts[:2], ids=[over, "b"])
    assert len(index) == n and not (tmp_path / "new").exists()
    # the command line: one line, exit status 2, nothing written
    docs = tmp_path / "long.jsonl"
    docs.write_text('{"id": "%s", "text": "%s"}\n' % ("z" * 5000, texts[93]))
    code, out, err = run_cli(["index", "add", str(index.path), "--corpus", str(docs)])
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "at most 1,000" in err
    pytest.importorskip("fastapi")
    from learnsim.service import app

    assert app.MAX_ID_CHARS is MAX_ID_CHARS          # the service's bound is the index's


def test_a_lookup_by_an_integer_of_too_many_digits_names_the_id(index):
    """index.document(10 ** 5000) raised Python's own "Exceeds the limit (4300 digits)"
    ValueError, naming no argument: a lookup names its id as a write does."""
    n = len(index)
    for lookup in (lambda: index.document(10 ** 5000), lambda: index.more_like(-10 ** 5000, k=2),
                   lambda: index.document(10 ** 1500)):
        with pytest.raises(ValueError, match=r"^id is an integer of more than 1,000 digits; an id has at most"):
            lookup()
    with pytest.raises(ValueError, match=r"^ids\[1\] is an integer of more than 1,000 digits"):
        index.delete(["no such id", 10 ** 5000], missing_ok=True)
    assert len(index) == n
