"""``offset`` and ``include`` of the search and similar routes (learnsim.service._paging): a page
is the whole ranking's slice, its hits keeping their ranks; ``include`` keeps the fields it names
(id and rank always); the bounds (offset + k within MAX_K, queries x (offset + k) within the
budget of hits) and every malformed value answered 4xx naming it, the GET's fast path and the
framework's route alike; a page past the first logs no impression (the log's positions count
from the top)."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("fastapi")

from index_models import corpus, model  # noqa: E402

from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402
from learnsim.service._limits import MAX_HITS, MAX_K  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
BASE = "http://127.0.0.1"


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    texts, _, ids, meta = corpus()
    out = tmp_path_factory.mktemp("paging") / "idx"
    Index.build(out, model("mcd"), texts, ids, meta).close()
    return out


@pytest.fixture(scope="module")
def client(path):
    with TestClient(create_app(path), raise_server_exceptions=False, base_url=BASE) as c:
        yield c


def _ids(hits):
    return [h["id"] for h in hits]


def test_a_page_is_the_slice_of_the_whole_ranking(client):
    texts, *_ = corpus()
    q = texts[5]
    whole = client.get("/v1/search", params={"q": q, "k": 30}).json()["hits"]
    for offset, k in ((0, 7), (7, 7), (14, 16), (29, 1)):
        got = client.get("/v1/search", params={"q": q, "k": k, "offset": offset}).json()["hits"]
        assert got == whole[offset:offset + k]          # ranks, scores, texts: the whole's own
        batch = client.post("/v1/search", json={"queries": [q, q], "k": k, "offset": offset}).json()["results"]
        assert batch == [whole[offset:offset + k]] * 2
    past = client.get("/v1/search", params={"q": q, "k": 10, "offset": len(texts)})
    assert past.status_code == 200 and past.json()["hits"] == []
    similar = client.get("/v1/docs/d5/similar", params={"k": 12}).json()["hits"]
    page = client.get("/v1/docs/d5/similar", params={"k": 4, "offset": 8}).json()["hits"]
    assert page == similar[8:12] and [h["rank"] for h in page] == [9, 10, 11, 12]
    assert client.post("/v1/docs/d5/similar", json={"k": 4, "offset": 8}).json()["hits"] == page


def test_an_explained_page_explains_its_own_hits(client):
    texts, *_ = corpus()
    whole = client.get("/v1/search", params={"q": texts[5], "k": 6, "explain": "true"}).json()["hits"]
    page = client.get("/v1/search", params={"q": texts[5], "k": 2, "offset": 4, "explain": "true"}).json()["hits"]
    assert _ids(page) == _ids(whole[4:])
    assert [h["explanation"]["score"] for h in page] == pytest.approx([h["explanation"]["score"] for h in whole[4:]])


@pytest.mark.parametrize("include, fields", [
    ("score", {"score"}), ("text,metadata", {"text", "metadata"}), ("", set()),
    ("metadata,score,text", {"text", "metadata", "score"})])
def test_include_keeps_the_fields_it_names(client, include, fields):
    texts, *_ = corpus()
    whole = client.get("/v1/search", params={"q": texts[9], "k": 5}).json()["hits"]
    routes = [("get", "/v1/search", {"params": {"q": texts[9], "k": 5, "include": include}}, "hits"),
              ("post", "/v1/search", {"json": {"queries": [texts[9]], "k": 5,
                                               "include": include.split(",") if include else []}}, "results"),
              ("get", "/v1/docs/d9/similar", {"params": {"k": 5, "include": include}}, "hits"),
              ("post", "/v1/docs/d9/similar", {"json": {"k": 5, "include": include.split(",") if include else []}},
               "hits")]
    for method, route, request, name in routes:
        r = getattr(client, method)(route, **request)
        assert r.status_code == 200, (route, r.text)
        hits = r.json()[name][0] if name == "results" else r.json()[name]
        assert hits and all(set(h) == {"id", "rank"} | fields for h in hits), (route, hits[0])
        if route == "/v1/search":
            assert [{f: h[f] for f in {"id", "rank"} | fields} for h in whole] == hits
    # the index's own hits are untouched: the next answer without include has every field
    assert client.get("/v1/search", params={"q": texts[9], "k": 5}).json()["hits"] == whole


@pytest.mark.parametrize("params, says", [
    ({"include": "txt"}, "'txt'"), ({"include": "text,text"}, "more than once"), ({"include": "text, score"}, "' score'"),
    ({"include": ","}, "unknown field ''"), ({"offset": "-1"}, "offset"), ({"offset": "1.5"}, "offset"),
    ({"offset": str(MAX_K)}, "offset"), ({"offset": str(MAX_K - 5), "k": "10"}, "offset + k"),
    ({"offset": "0x1"}, "offset"), ({"offset": "１"}, "offset")])
def test_bad_paging_in_a_query_string_is_a_422_naming_it(client, params, says):
    for route, extra in (("/v1/search", {"q": "w001 w002"}), ("/v1/docs/d1/similar", {})):
        r = client.get(route, params={**extra, **params})
        assert r.status_code == 422 and says in r.json()["error"], (route, params, r.text)


@pytest.mark.parametrize("body, says", [
    ({"include": ["score", "bogus"]}, "'bogus'"), ({"include": "text"}, "include"), ({"include": [1]}, "include"),
    ({"include": ["text"] * 101}, "include"), ({"include": {"text": True}}, "include"), ({"offset": -1}, "offset"),
    ({"offset": True}, "offset"), ({"offset": "3"}, "offset"), ({"offset": 2.5}, "offset"),
    ({"offset": 10 ** 30}, "offset"), ({"offset": MAX_K - 3, "k": 5}, "offset + k")])
def test_bad_paging_in_a_body_is_a_422_naming_it(client, body, says):
    for route, extra in (("/v1/search", {"queries": ["w001 w002"]}), ("/v1/docs/d1/similar", {})):
        r = client.post(route, json={**extra, **body})
        assert r.status_code == 422 and says in r.json()["error"], (route, body, r.text)


def test_the_hits_read_count_in_the_budget(client):
    # 2 queries x (offset + k) = 2 x 1,000 is the budget exactly; one more query is over it
    n = MAX_HITS // MAX_K
    ok = client.post("/v1/search", json={"queries": ["w001"] * n, "k": 1, "offset": MAX_K - 1})
    assert ok.status_code == 200, ok.text
    over = client.post("/v1/search", json={"queries": ["w001"] * (n + 1), "k": 1, "offset": MAX_K - 1})
    assert over.status_code == 422 and "queries x (offset + k)" in over.json()["error"] and "MAX_HITS" in over.json()["error"]


def test_a_page_past_the_first_logs_no_impression(path, tmp_path):
    import shutil

    copy = tmp_path / "idx"
    shutil.copytree(path, copy)
    texts, *_ = corpus()
    with TestClient(create_app(copy, learn_from_clicks=True), raise_server_exceptions=False, base_url=BASE) as c:
        first = c.get("/v1/search", params={"q": texts[3], "k": 5}).json()
        second = c.get("/v1/search", params={"q": texts[3], "k": 5, "offset": 5, "include": "score"}).json()
        batch = c.post("/v1/search", json={"queries": [texts[3]], "k": 5, "offset": 5}).json()
        assert first["impression"] and second["impression"] is None and batch["impressions"] == [None]
        assert c.get("/v1/info").json()["learn_from_clicks"]["dropped"].get("paged") == 2
        # the first page's clicks are recorded as before (a click of its 2nd hit: position 2)
        r = c.post("/v1/feedback", json={"impression": first["impression"], "clicked": [first["hits"][1]["id"]]})
        assert r.status_code == 201, r.text
