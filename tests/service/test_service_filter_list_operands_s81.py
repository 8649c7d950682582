"""A filter operator that takes one value given an empty list ({"n": {"$lt": []}}) was refused
with "$lt on 'n' lists 0 values (1 to 1000)": as if a list of 1 to 1,000 values were what $lt
takes, where {"n": {"$lt": [5]}} is refused as "compares a number ... or a str; got [5]". The
service's bound on a list's length now applies to the lists a filter takes ($in, $nin, a field's
list of values); the other operators' lists get check_filter's message, naming what they take."""
from __future__ import annotations

import json
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
BASE = "http://127.0.0.1"
ONE_VALUE = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$contains", "$not_contains", "$exists"]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("filter-lists-s81") / "idx"
    Index.build(path, model("bm25"), texts[:30], ids[:30], meta[:30]).close()
    with TestClient(create_app(path), raise_server_exceptions=False, base_url=BASE) as c:
        yield c, texts[0]


@pytest.mark.parametrize("op", ONE_VALUE)
@pytest.mark.parametrize("operand", [[], [5], list(range(1001))], ids=["empty", "one", "over"])
def test_a_list_given_to_an_operator_of_one_value_is_refused_naming_the_operator(client, op, operand):
    c, q = client
    condition = {"n": {op: operand}}
    for r in (c.post("/v1/search", json={"queries": [q], "k": 3, "filter": condition}),
              c.get("/v1/search", params={"q": q, "k": 3, "filter": json.dumps(condition)})):
        assert r.status_code == 400, r.text
        message = r.json()["error"]
        assert op in message and "'n'" in message, message
        assert "(1 to" not in message, message      # no list length is what it takes


@pytest.mark.parametrize("op", ["$in", "$nin"])
def test_the_lists_a_filter_takes_keep_their_bounds(client, op):
    c, q = client
    for operand, bound in (([], 1000), (list(range(1001)), 1000)):
        r = c.post("/v1/search", json={"queries": [q], "k": 3, "filter": {"n": {op: operand}}})
        assert r.status_code == 400 and f"(1 to {bound})" in r.json()["error"], r.text
    r = c.get("/v1/search", params={"q": q, "k": 3, "filter": json.dumps({"n": {op: list(range(51))}})})
    assert r.status_code == 400 and "(1 to 50)" in r.json()["error"], r.text
    r = c.post("/v1/search", json={"queries": [q], "k": 3, "filter": {"n": []}})
    assert r.status_code == 400 and "(1 to 1000)" in r.json()["error"], r.text
