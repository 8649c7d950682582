"""Metadata filters with operators over HTTP (issue 33, point 2), through the in-process app.

Checked: 50 seeded random filters, in a query string (GET /v1/search) and in a body (POST
/v1/search), give exactly the ids of the pure-Python reading of the filter
(tests/filter_reference.py) in the unfiltered rank order; /v1/docs/{id}/similar and POST
/v1/match take them too; an unknown operator, an operand of the wrong type, a bad path, nesting
past the service's bound (MAX_REQUEST_FILTER_DEPTH, lower than Python's: 500 levels, and 50,000,
past the JSON parser's recursion) and every other bound of the service (keys, list lengths,
field conditions, string lengths) are a JSON 400 naming the problem, never a 500; the OpenAPI
schema of a filter accepts what the service accepts and refuses what it refuses (the one bound
JSON Schema cannot state, the count of field conditions, aside).

About 20 s on a 2-core machine (two small index builds).
"""
from __future__ import annotations

import json
import random
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from filter_reference import collection, expected_ids, matches, random_filter  # noqa: E402
from index_models import corpus, model, near_duplicate  # noqa: E402

from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402
from learnsim.service._limits import (MAX_FILTER_FIELDS, MAX_REQUEST_FILTER_CONDITIONS,  # noqa: E402
                                     MAX_REQUEST_FILTER_DEPTH, filter_conditions)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

BASE = "http://127.0.0.1"
QUERY = "w001 w002 w003 w120 w240"
N = 600


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(client, {id: metadata}, the ids in unfiltered rank order) of N documents of random metadata."""
    texts, ids, meta = collection(N, seed=21)
    path = tmp_path_factory.mktemp("ops-http") / "idx"
    Index.build(path, model("film"), texts, ids, meta).close()
    client = TestClient(create_app(path), raise_server_exceptions=False, base_url=BASE)
    ranked = [h["id"] for h in client.get("/v1/search", params={"q": QUERY, "k": N}).json()["hits"]]
    assert sorted(ranked) == sorted(ids)
    return client, dict(zip(ids, meta)), ranked


def _within_bounds(n, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        f = random_filter(rng, max_depth=MAX_REQUEST_FILTER_DEPTH)
        if filter_conditions(f) <= MAX_REQUEST_FILTER_CONDITIONS:
            out.append(f)
    return out


def _is_error(r, code=400, *fragments):
    assert r.status_code == code, r.text[:300]
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert body["code"] == code and "Traceback" not in r.text
    for fragment in fragments:
        assert fragment in body["error"], (fragment, body["error"])
    return body["error"]


def test_random_filters_over_http_match_the_python_reference(served):
    client, meta_of, ranked = served
    counts = []
    for i, f in enumerate(_within_bounds(50, seed=330)):
        if i % 2:
            r = client.get("/v1/search", params={"q": QUERY, "k": N, "filter": json.dumps(f)})
            hits = r.json()["hits"]
        else:
            r = client.post("/v1/search", json={"queries": [QUERY], "k": N, "filter": f})
            hits, = r.json()["results"]
        assert r.status_code == 200, (f, r.text[:300])
        want = expected_ids(f, ranked, meta_of)
        assert [h["id"] for h in hits] == want, f
        counts.append(len(want))
    assert min(counts) == 0 and max(counts) == N and sum(1 for c in counts if 0 < c < N) >= 20


def test_similar_and_match_take_operators(served, tmp_path):
    client, meta_of, _ = served
    f = {"u": {"$lt": 0.5}, "$not": {"a": {"$exists": False}}}
    r = client.get("/v1/docs/f3/similar", params={"k": 30, "filter": json.dumps(f)})
    assert r.status_code == 200, r.text[:300]
    hits = r.json()["hits"]
    assert hits and "f3" not in {h["id"] for h in hits} and all(matches(f, meta_of[h["id"]]) for h in hits)
    texts, _, ids, meta = corpus()
    dup = near_duplicate(texts[100], seed=100)
    Index.build(tmp_path / "pairs", model("film_pairs"), texts, ids, [dict(m, m={"n": m["n"]}) for m in meta]).close()
    pairs = TestClient(create_app(tmp_path / "pairs"), raise_server_exceptions=False, base_url=BASE)
    r = pairs.post("/v1/match", json={"text": dup, "k": 5, "filter": {"m.n": {"$gte": 100, "$lte": 100}}})
    assert r.status_code == 200, r.text[:300]
    assert [h["id"] for h in r.json()["matches"]] in (["d100"], [])
    assert pairs.post("/v1/match", json={"text": dup, "k": 5, "filter": {"m.n": {"$gt": 10 ** 6}}}).json()["matches"] == []
    _is_error(pairs.post("/v1/match", json={"text": dup, "filter": {"m.n": {"$near": 1}}}), 400, "'$near'")


def _deep(levels):
    f = {"a": 1}
    for _ in range(levels):
        f = {"$not": f}
    return f


@pytest.mark.parametrize("bad, fragments", [
    ({"year": {"$regex": "^20"}}, ("unknown filter operator '$regex' on 'year'",)),
    ({"year": {"$gtee": 1}}, ("'$gtee'",)),
    ({"$nor": [{"a": 1}]}, ("unknown filter operator '$nor'",)),
    ({"a": {"$in": 3}}, ("$in on 'a' takes a non-empty list",)),
    ({"$and": {"a": 1}}, ("$and takes a list of 1 to",)),
    ({"$or": []}, ("$or takes a list of 1 to",)),
    ({"$and": [{}]}, ("$and takes non-empty filter objects",)),
    ({"$not": [{"a": 1}]}, ("$not takes non-empty filter objects; got list",)),
    ({"a": {"$gt": [1, 2]}}, ("$gt on 'a' compares a number",)),
    ({"a": {"$gt": True}}, ("$gt on 'a' compares a number",)),
    ({"a": {"$eq": [1]}}, ("$eq on 'a' takes one value",)),
    ({"a": {"$exists": "yes"}}, ("$exists on 'a' takes true or false",)),
    ({"a": {}}, ("filter value of 'a'",)),
    ({"a..b": 1}, ("filter field 'a..b'",)),
    ({"a.b c": 1}, ("filter field",)),
    ({"é€": 1}, ("filter field",)),                     # a symbol is no letter, in any script
    ({"x" * 65: 1}, ("filter field",)),
    ({".".join("p" * 17): 1}, ("dotted path of at most 16",)),
    ({"a": {"$in": list(range(1001))}}, ("$in on 'a' lists 1001 values (1 to ",)),
    ({f"f{i}": i for i in range(MAX_FILTER_FIELDS + 1)}, ("at most 10 keys",)),
    ({"$or": [{"a": i} for i in range(MAX_FILTER_FIELDS + 1)]}, ("$or takes a list of 1 to 10 filters; got 11",)),
    ({"$and": [{f"f{i}": {"$gt": i, "$lt": i + 9, "$ne": 3, "$exists": True}} for i in range(MAX_FILTER_FIELDS)]},
     (f"at most {MAX_REQUEST_FILTER_CONDITIONS} field conditions", "got 40")),
    (_deep(MAX_REQUEST_FILTER_DEPTH), (f"nests deeper than {MAX_REQUEST_FILTER_DEPTH} levels",)),
    # far deeper: refused as any JSON nested past MAX_JSON_DEPTH is, before it is parsed
    (_deep(500), ("the JSON nests deeper than 64 levels",)),
    # not an object: a body's was a 422 of the schema's validation, a query string's this 400
    ([{"a": 1}], ("filter must be a JSON object", "got list")),
    ("topic", ("filter must be a JSON object", "got str")),
    (3, ("filter must be a JSON object", "got int")),
])
def test_bad_filters_are_a_400_naming_the_problem(served, bad, fragments):
    client = served[0]
    for r in (client.get("/v1/search", params={"q": QUERY, "filter": json.dumps(bad)}),
              client.post("/v1/search", json={"queries": [QUERY], "filter": bad}),
              client.get("/v1/docs/f1/similar", params={"filter": json.dumps(bad)}),
              client.post("/v1/match", json={"text": QUERY, "filter": bad}),
              client.post("/v1/docs/f1/similar", json={"filter": bad})):
        _is_error(r, 400, *fragments)


def test_a_field_of_any_script_is_taken_as_in_python(served, validators):
    # "année" was a 400 here while Index.search and the CLI took it: one rule, str.isalnum's
    client = served[0]
    # "cafe\u0301": café written with a combining accent (Unicode NFD), a name as in Python
    for good in ({"année": 1}, {"meta.年": {"$exists": False}}, {"$not": {"Ωmega-2_x": [1, 2]}},
                 {"cafe\u0301": 1}):
        for r in (client.get("/v1/search", params={"q": QUERY, "filter": json.dumps(good)}),
                  client.post("/v1/search", json={"queries": [QUERY], "filter": good}),
                  client.get("/v1/docs/f1/similar", params={"filter": json.dumps(good)}),
                  client.post("/v1/docs/f1/similar", json={"filter": good})):
            assert r.status_code == 200, r.text[:300]
        assert validators["Filter"].is_valid(good) and validators["QueryFilter"].is_valid(good)
    for bad in ({"é€": 1}, {"a b": 1}, {"x" * 65: 1}, {"\u0301a": 1}):
        assert not validators["Filter"].is_valid(bad)


@pytest.mark.parametrize("bad, fragments", [
    ({"a": {"$in": list(range(51))}}, ("$in on 'a' lists 51 values (1 to 50)",)),
    ({"a": ["x"] * 51}, ("filter field 'a' lists 51 values (1 to 50)",)),
    ({"a": "x" * 201}, ("at most 200 characters",)),
    ({"$or": [{"a": {"$ne": "x" * 201}}]}, ("at most 200 characters",)),
])
def test_a_query_string_has_tighter_bounds(served, bad, fragments):
    client = served[0]
    for r in (client.get("/v1/search", params={"q": QUERY, "filter": json.dumps(bad)}),
              client.get("/v1/docs/f1/similar", params={"filter": json.dumps(bad)})):
        _is_error(r, 400, *fragments)
    assert client.post("/v1/search", json={"queries": [QUERY], "filter": bad}).status_code == 200


def test_the_deepest_filter_allowed_is_served(served):
    client, meta_of, ranked = served
    f = _deep(MAX_REQUEST_FILTER_DEPTH - 1)
    hits = client.post("/v1/search", json={"queries": [QUERY], "k": N, "filter": f}).json()["results"][0]
    assert [h["id"] for h in hits] == expected_ids(f, ranked, meta_of)


def test_nesting_past_the_json_parser_is_a_400(served):
    client = served[0]
    deep = '{"$not": ' * 50_000 + '{"a": 1}' + "}" * 50_000   # under the 1 MB body bound
    r = client.post("/v1/search", content=f'{{"queries": ["a"], "filter": {deep}}}'.encode(),
                    headers={"content-type": "application/json"})
    _is_error(r, 400)
    shallower = '{"$not": ' * 1_500 + '{"a": 1}' + "}" * 1_500   # past json.loads's recursion, under httpx's URL bound
    _is_error(client.get("/v1/search", params={"q": "a", "filter": shallower}), 400)


# --------------------------------------------------------------------- the OpenAPI schema
@pytest.fixture(scope="module")
def validators(served):
    """Validators of the schemas Filter and QueryFilter, resolved within the served document."""
    jsonschema_rs = pytest.importorskip("jsonschema_rs")
    doc = served[0].get("/openapi.json").json()
    return {name: jsonschema_rs.Draft202012Validator(dict(doc, **{"$ref": f"#/components/schemas/{name}"}))
            for name in ("Filter", "QueryFilter")}


def _mutants(rng, f):
    """``f`` with one thing made wrong (or not): a key, an operator, an operand, a nesting."""
    f = json.loads(json.dumps(f))
    r = rng.random()
    key = rng.choice(list(f))
    if r < 0.2:
        f[rng.choice(["$regex", "$nor", "a b", "", "a..b", "$gte"])] = 1
    elif r < 0.4:
        f[key] = rng.choice([{}, [], {"$in": 3}, {"$gt": [1]}, {"$gt": None}, {"$exists": 0}, {"$eq": {"x": 1}},
                             {"x": 1}, [[1]], {"$and": [{"a": 1}]},
                             # a NUL character, which the index refuses (the schema said nothing of it)
                             "a\x00b", {"$in": ["x", "\x00"]}, {"$gte": "b\x00"}])
    elif r < 0.5:
        f = {"$and": rng.choice([[], {"a": 1}, [{}], [3]])}
    elif r < 0.6:
        f = _deep(rng.randint(MAX_REQUEST_FILTER_DEPTH - 2, MAX_REQUEST_FILTER_DEPTH + 1))
    return f


@pytest.mark.parametrize("name, where", [("Filter", "body"), ("QueryFilter", "query")])
def test_the_schema_accepts_what_the_service_accepts(served, validators, name, where):
    client = served[0]
    rng = random.Random(7)
    seen = {True: 0, False: 0}
    for f in _within_bounds(40, seed=331 if where == "body" else 332):
        for candidate in (f, _mutants(rng, f), _mutants(rng, f)):
            if filter_conditions(candidate) > MAX_REQUEST_FILTER_CONDITIONS:
                continue          # JSON Schema cannot count them: the description says it
            if where == "body":
                r = client.post("/v1/search", json={"queries": [QUERY], "k": 1, "filter": candidate})
            else:
                r = client.get("/v1/search", params={"q": QUERY, "k": 1, "filter": json.dumps(candidate)})
            assert r.status_code in (200, 400), r.text[:300]
            valid = validators[name].is_valid(candidate)
            assert valid == (r.status_code == 200), (candidate, r.text[:300])
            seen[valid] += 1
    assert seen[True] >= 40 and seen[False] >= 20
    schema = client.get("/openapi.json").json()["components"]["schemas"][name]
    assert "$gte" in schema["description"] and "$and" in schema["$defs"]["level2"]["properties"]
    assert f"level{MAX_REQUEST_FILTER_DEPTH + 1}" not in schema["$defs"]


@pytest.mark.parametrize("raw, fragment", [
    ('{"x": NaN}', "filter value of 'x' is NaN: not a number JSON allows"),
    ('{"x": [1, NaN]}', "filter value of 'x' is NaN"),
    ('{"x": {"$ne": NaN}}', "$ne operand of 'x' is NaN"),
    ('{"x": {"$gt": Infinity}}', "$gt operand of 'x' is Infinity"),
    ('{"$not": {"x": -Infinity}}', "filter value of 'x' is -Infinity"),
    ('{"x": {"$contains": 1e999}}', "$contains operand of 'x' is Infinity"),
])
def test_nan_and_infinity_as_filter_values_are_named(served, raw, fragment):
    """{"x": NaN} (Python's json reads NaN and Infinity, which JSON has not) was a 400 saying a
    value 'must be str, a finite number (an integer within 64 bits), bool or null', which a
    caller sending a float from a NaN-holding column did not see as naming it."""
    client = served[0]
    head = {"content-type": "application/json"}
    for r in (client.get("/v1/search", params={"q": QUERY, "filter": raw}),
              client.post("/v1/search", content=f'{{"queries": ["{QUERY}"], "filter": {raw}}}', headers=head),
              client.post("/v1/match", content=f'{{"text": "{QUERY}", "filter": {raw}}}', headers=head),
              client.post("/v1/docs/f1/similar", content=f'{{"filter": {raw}}}', headers=head)):
        _is_error(r, 400, fragment)
