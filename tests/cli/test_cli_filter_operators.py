"""``learnsim search --index --filter`` with operators (issue 33, point 2): ``FIELD OP VALUE``
(``= == != > >= < <=``, dotted fields), a JSON filter, repeated options all holding (but
``FIELD=VALUE`` options of one field: any of their values, as before), the documented
number/string rule of VALUE, and one-line errors with exit status 2 (an unknown operator, bad
JSON, a comparison with true/false/null, nesting past the bound).

The hits are checked against the pure-Python reading of the equivalent filter
(tests/filter_reference.py), in the unfiltered rank order. About 10 s on a 2-core machine.
"""
from __future__ import annotations

import json

import pytest

from filter_reference import collection, expected_ids
from index_models import model
from test_cli_index import assert_user_error, ok_json

from learnsim.cli.search import parse_filter
from learnsim.index import Index
from learnsim.index._store import MAX_FILTER_DEPTH

QUERY = "w001 w002 w003 w120 w240"
N = 400


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(index path, {id: metadata}, the ids in unfiltered rank order)."""
    texts, ids, meta = collection(N, seed=41)
    # a field whose strs look like numbers, for the number/string rule
    meta = [dict(m or {}, code=str(i % 4) if i % 3 else i % 4, year=1990 + i % 40) for i, m in enumerate(meta)]
    path = tmp_path_factory.mktemp("cli-ops") / "idx"
    Index.build(path, model("film"), texts, ids, meta).close()
    ranked = _search(path)
    assert sorted(ranked) == sorted(ids)
    return path, dict(zip(ids, meta)), ranked


def _search(path, *filters):
    args = ["search", "--index", str(path), "--query", QUERY, "-k", str(N)]
    for f in filters:
        args += ["--filter", f]
    (result,) = ok_json(args)
    return [h["id"] for h in result["hits"]]


@pytest.mark.parametrize("options, equivalent", [
    (["year>=2020"], {"year": {"$gte": 2020}}),
    (["year >= 2020", "year<2025"], {"year": {"$gte": 2020, "$lt": 2025}}),
    (["year>2020", "year<=2025", "year!=2023"], {"year": {"$gt": 2020, "$lte": 2025, "$nin": [2023, "2023"]}}),
    (["u<0.25"], {"u": {"$lt": 0.25}}),
    (["m.x>=1"], {"m.x": {"$gte": 1}}),
    (["m.n.z!=b"], {"m.n.z": {"$ne": "b"}}),
    (["b>=a", "b<b"], {"b": {"$gte": "a", "$lt": "b"}}),
    # = and != on a number match the number and the same text as a string; quoted JSON: the string alone
    (["code=3"], {"code": [3, "3"]}),
    (["code==3"], {"code": [3, "3"]}),
    (['code="3"'], {"code": "3"}),
    (["code!=3"], {"code": {"$nin": [3, "3"]}}),
    (["code=1", "code=2", "year<2000"], {"code": [1, "1", 2, "2"], "year": {"$lt": 2000}}),
    (["code=true"], {"code": [True, "true"]}),
    # a JSON filter, alone or with other options (all must hold)
    (['{"$or": [{"year": {"$lt": 1995}}, {"m.x": {"$exists": true}}]}'],
     {"$or": [{"year": {"$lt": 1995}}, {"m.x": {"$exists": True}}]}),
    (['{"$not": {"a": {"$in": [1, "a"]}}}', "year>=2000", 'code="2"'],
     {"$and": [{"code": "2"}, {"$not": {"a": {"$in": [1, "a"]}}}, {"year": {"$gte": 2000}}]}),
    (['{"year": {"$gte": 2010}}', "year<2015"], {"year": {"$gte": 2010, "$lt": 2015}}),
])
def test_filter_options_match_the_python_reference(built, options, equivalent):
    path, meta_of, ranked = built
    got = _search(path, *options)
    assert got == expected_ids(equivalent, ranked, meta_of)
    # each option narrows the collection (code=true matches nothing: code holds numbers and strs)
    assert (0 < len(got) < N) != (options == ["code=true"])


@pytest.mark.parametrize("options, expected", [
    (["topic=1", "topic=2", "half=odd"], {"topic": [1, "1", 2, "2"], "half": ["odd"]}),
    (["year>=2020", "year<2024"], {"year": {"$gte": 2020, "$lt": 2024}}),
    (["year>=2020", "year>=2021"], {"$and": [{"year": {"$gte": 2020}}, {"year": {"$gte": 2021}}]}),
    (['{"a": 1}', "a=2"], {"$and": [{"a": [2, "2"]}, {"a": 1}]}),
    (["url=http://x/?a=b"], {"url": ["http://x/?a=b"]}),
    (["name>=m"], {"name": {"$gte": "m"}}),
    (['name<"2020"'], {"name": {"$lt": "2020"}}),
])
def test_parse_filter_builds_one_filter(options, expected):
    assert parse_filter(options) == expected
    assert parse_filter(None) is None


@pytest.mark.parametrize("option, fragments", [
    ('{"year": {"$regex": "^20"}}', ("unknown filter operator '$regex' on 'year'",)),
    ('{"year": {"$gte": [2020]}}', ("$gte on 'year' compares a number",)),
    ('{"$and": {"a": 1}}', ("$and takes a non-empty list of filters",)),
    ('{"year": ', ("is not a JSON object",)),
    ("year>true", ("> compares numbers or strings, not true",)),
    ("year<=null", ("<= compares numbers or strings, not null",)),
    ("year", ("FIELD=VALUE", "'year'")),
    (">=3", ("FIELD=VALUE",)),
    ("year!2020", ("FIELD=VALUE",)),
    ("a..b=1", ("filter field 'a..b'",)),
    (json.dumps({"$not": {"$not": {"$not": {"$not": {"$not": {"$not": {"$not": {"$not": {"a": 1}}}}}}}}}),
     (f"nests deeper than {MAX_FILTER_DEPTH} levels",)),
])
def test_bad_filters_are_one_line_errors(built, option, fragments):
    path = built[0]
    for json_flag in ([], ["--json"]):
        assert_user_error(["search", "--index", str(path), "--query", QUERY, "--filter", option] + json_flag,
                          *fragments)
