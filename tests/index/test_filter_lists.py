"""List metadata and chromadb's ``$contains`` / ``$not_contains`` (learnsim.index._store): a
list of str, int, float or bool is stored and answered as it is; ``$contains`` matches a list
holding the value (by the rule of ``$eq``: 3 holds 3.0, a bool is not a number),
``$not_contains`` every other document (missing, not a list); a list operand is a FilterError,
as in chromadb. ``$eq`` and ``$in`` compare values, never elements (chromadb's answer): where
every document having the field holds a list, a value condition on it is a FilterError pointing
to ``$contains``, not a filter that matches nothing; so is ``$contains`` on a field holding no
list. The same in Python, on the command line (a .jsonl's list field, ``--filter`` with a JSON
object) and over HTTP (a body, a query string, the schema)."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli
from filter_reference import matches
from index_models import corpus, model

from learnsim.index import FilterError, Index
from learnsim.index._store import check_filter

QUERY = "w001 w002 w003 w120 w240"
N = 40


def _meta(i):
    """Lists of every kind (and their mixtures and nestings), scalars and nothing, by position."""
    tags = (["billing", "refund"], ["refund"], [], ["billing"], None)[i % 5]
    out = {"n": i, "scores": [i % 3, (i % 4) + 0.5, True] if i % 2 else [float(i % 3)],
           "mixed": [i % 3, "2", None, [2], {"x": 2}] if i % 7 == 0 else ("2" if i % 7 == 1 else 2)}
    if tags is not None:
        out["tags"] = tags
    if i % 6 == 0:
        out["m"] = {"tags": ["deep"] if i % 12 == 0 else "deep"}
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, _ = corpus()
    meta = [_meta(i) for i in range(N)]
    path = tmp_path_factory.mktemp("lists") / "idx"
    Index.build(path, model("film"), texts[:N], ids[:N], meta).close()
    index = Index.open(path)
    every = index.search(QUERY, N)
    assert len(every) == N
    yield path, index, dict(zip(ids[:N], meta)), [h["id"] for h in every]
    index.close()


def _contains(v, x):
    def same(e):
        if isinstance(x, bool) or x is None or isinstance(e, bool) or e is None:
            return type(e) is type(x) and e == x
        if isinstance(x, str) or isinstance(e, str):
            return type(e) is type(x) and e == x
        return isinstance(e, (int, float)) and e == x
    return isinstance(v, list) and any(same(e) for e in v)


def _want(f, meta_of, ranked):
    """The ids a filter of one $contains / $not_contains on one field gives, in rank order."""
    ((field, cond),) = f.items()
    ((op, x),) = cond.items()
    def at(meta):
        cur = meta
        for name in field.split("."):
            cur = cur.get(name) if isinstance(cur, dict) else None
        return cur
    return [i for i in ranked if _contains(at(meta_of[i]), x) == (op == "$contains")]


CONTAINS = [{"tags": {"$contains": "refund"}}, {"tags": {"$not_contains": "refund"}},
            {"tags": {"$contains": "billing"}}, {"tags": {"$contains": "nothing"}},
            {"scores": {"$contains": 1}}, {"scores": {"$contains": 1.0}}, {"scores": {"$contains": 2.5}},
            {"scores": {"$contains": True}}, {"scores": {"$not_contains": 0}}, {"scores": {"$contains": False}},
            {"mixed": {"$contains": 2}}, {"mixed": {"$contains": "2"}}, {"mixed": {"$contains": None}},
            {"m.tags": {"$contains": "deep"}}, {"m.tags": {"$not_contains": "deep"}}]


@pytest.mark.parametrize("f", CONTAINS)
def test_contains_looks_into_lists(built, f):
    _, index, meta_of, ranked = built
    got = [h["id"] for h in index.search(QUERY, N, filter=f)]
    assert got == _want(f, meta_of, ranked)


def test_the_lists_come_back_as_stored_and_combine_with_the_other_operators(built):
    _, index, meta_of, ranked = built
    for h in index.search(QUERY, N):
        assert h["metadata"] == meta_of[h["id"]]
    f = {"$or": [{"tags": {"$contains": "billing"}, "n": {"$lt": 20}}, {"$not": {"scores": {"$contains": 1}}}]}
    want = [i for i in ranked if (_contains(meta_of[i].get("tags"), "billing") and meta_of[i]["n"] < 20)
            or not _contains(meta_of[i]["scores"], 1)]
    assert [h["id"] for h in index.search(QUERY, N, filter=f)] == want
    assert 0 < len(want) < N
    # a field of values and lists: $eq compares the values, never an element (chromadb's answer)
    assert [h["id"] for h in index.search(QUERY, N, filter={"mixed": 2})] == \
        [i for i in ranked if matches({"mixed": 2}, meta_of[i])]


@pytest.mark.parametrize("bad, message", [
    ({"tags": {"$contains": ["refund"]}}, r"\$contains on 'tags' takes one value"),
    ({"tags": {"$not_contains": {"a": 1}}}, r"\$not_contains on 'tags' takes one value"),
    ({"tags": {"$contains": float("nan")}}, r"\$contains operand of 'tags' is NaN: not a number JSON allows"),
    ({"tags": {"$contains": 2 ** 70}}, r"\$contains operand of 'tags' must be"),
    ({"tags": {"$has": "a"}}, r"unknown filter operator '\$has' on 'tags'; the operators of a field are .*\$contains"),
])
def test_bad_operands_are_refused_by_name(bad, message):
    with pytest.raises(FilterError, match=message):
        check_filter(bad)


@pytest.mark.parametrize("trap", [{"tags": "refund"}, {"tags": ["refund", "billing"]}, {"tags": {"$ne": "refund"}},
                                  {"$not": {"tags": {"$nin": ["x"]}}}, {"scores": {"$gte": 1}}])
def test_a_value_condition_on_a_field_of_lists_points_to_contains(built, trap):
    """{"tags": "refund"} (an Elasticsearch user's filter) matched nothing, {"$ne": ...} everything."""
    _, index, _, _ = built
    with pytest.raises(FilterError, match=r"'(tags|scores)' hold lists there, which equal and compare with no value "
                                          r".*\$contains"):
        index.search(QUERY, 5, filter=trap)


def test_a_filter_asking_a_field_both_ways_is_no_mistake(built):
    """{"$or": [{f: v}, {f: {"$contains": v}}]}, the filter of a field holding values and lists,
    knows of the lists: on a field of lists only it is answered, not refused."""
    _, index, meta_of, ranked = built
    f = {"$or": [{"tags": "refund"}, {"tags": {"$contains": "refund"}}]}
    assert [h["id"] for h in index.search(QUERY, N, filter=f)] == \
        _want({"tags": {"$contains": "refund"}}, meta_of, ranked)
    assert index.search(QUERY, N, filter={"$or": [{"n": 3}, {"n": {"$contains": 3}}]})


def test_contains_on_a_field_of_values_points_to_eq(built):
    _, index, _, _ = built
    with pytest.raises(FilterError, match=r"no document holds a list at the metadata field 'n': compare its value"):
        index.search(QUERY, 5, filter={"n": {"$contains": 3}})
    # a field no document has: nothing, as any filter on it (chromadb, Elasticsearch)
    assert index.search(QUERY, 5, filter={"nowhere": {"$contains": 3}}) == []


def test_the_command_line_reads_list_fields_and_filters_them(tmp_path):
    texts, _, ids, _ = corpus()
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"id": ids[i], "text": texts[i], "tags": ["a", "b"] if i % 2 else ["c"]}) + "\n"
                            for i in range(N)))
    m = tmp_path / "m.npz"
    model("film").save(m)
    code, _, err = run_cli(["index", "build", "--model", m, "--corpus", docs, "--out", tmp_path / "idx"])
    assert code == 0, err
    code, out, err = run_cli(["search", "--index", tmp_path / "idx", "--query", QUERY, "-k", str(N), "--json",
                              "--filter", '{"tags": {"$contains": "b"}}'])
    assert code == 0, err
    hits = json.loads(out)[0]["hits"]
    assert hits and all("b" in h["metadata"]["tags"] for h in hits) and len(hits) == N // 2
    code, out, err = run_cli(["search", "--index", tmp_path / "idx", "--query", QUERY, "--filter", "tags=b"])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "$contains" in err, err


def test_the_service_takes_contains(built):
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    import warnings

    from learnsim.service import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    path, _, meta_of, ranked = built
    f = {"tags": {"$contains": "refund"}}
    with TestClient(create_app(path), raise_server_exceptions=False, base_url="http://127.0.0.1") as client:
        for r in (client.get("/v1/search", params={"q": QUERY, "k": N, "filter": json.dumps(f)}),
                  client.post("/v1/search", json={"queries": [QUERY], "k": N, "filter": f})):
            assert r.status_code == 200, r.text[:300]
            body = r.json()
            hits = body["hits"] if "hits" in body else body["results"][0]
            assert [h["id"] for h in hits] == _want(f, meta_of, ranked)
        r = client.post("/v1/search", json={"queries": [QUERY], "filter": {"tags": {"$contains": ["refund"]}}})
        assert r.status_code == 400 and "takes one value" in r.json()["error"], r.text[:300]
        schema = client.get("/openapi.json").json()["components"]["schemas"]["Filter"]["$defs"]
        assert set(schema["condition"]["anyOf"][2]["properties"]) >= {"$contains", "$not_contains"}


def test_a_value_condition_on_a_field_of_dicts_names_a_path_into_them(built):
    """{"m": "deep"} where every document having m holds a dict there matched nothing, without a word."""
    _, index, meta_of, ranked = built
    for trap in ({"m": "deep"}, {"m": {"$ne": 1}}, {"m": {"$gt": 0}}):
        with pytest.raises(FilterError, match=r"'m' hold dicts there, which equal and compare with no value: name a "
                                              r"field inside them, 'm\.name'"):
            index.search(QUERY, 5, filter=trap)
    assert [h["id"] for h in index.search(QUERY, N, filter={"m": {"$exists": True}})] == \
        [i for i in ranked if "m" in meta_of[i]]


def test_a_delete_is_seen_by_the_kinds_a_filter_is_checked_against(tmp_path):
    """A handle kept the rows of a filter it had answered, keyed on its rows, which a delete does
    not replace: after the one document holding a value at a field of lists was deleted, the same
    filter gave nothing on that handle where a fresh open refuses it, pointing to $contains (and
    $contains, refused while no list was live, was not answered once one was)."""
    texts = corpus()[0][:6]
    meta = [{"tags": "refund"}, {"tags": ["refund", "x"]}, {"tags": ["y"]}, {"tags": ["refund"]},
            {"n": [1]}, {"n": 2}]
    index = Index.build(tmp_path / "idx", model("film"), texts, [f"d{i}" for i in range(6)], meta)
    value, contains = {"tags": "refund"}, {"n": {"$contains": 1}}
    assert [h["id"] for h in index.search(QUERY, 6, filter=value)] == ["d0"]
    assert [h["id"] for h in index.search(QUERY, 6, filter=contains)] == ["d4"]
    index.delete(["d0", "d4"])
    fresh = Index.open(tmp_path / "idx")
    for handle in (fresh, index):
        with pytest.raises(FilterError, match=r"'tags' hold lists there.*\$contains"):
            handle.search(QUERY, 6, filter=value)
        with pytest.raises(FilterError, match=r"no document holds a list at the metadata field 'n'"):
            handle.search(QUERY, 6, filter=contains)
    fresh.close()
    index.close()
