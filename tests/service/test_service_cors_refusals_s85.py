"""A service opened to a page's origin (``cors_origins``) and the answers that page's script can
read. The checks in front of the framework (the key's 401, the Content-Type's 415, the body
bound's 413, a header given twice) answered without ``Access-Control-Allow-Origin``, so the
browser hid them from the page as a network failure ("Failed to fetch" for "this write needs the
API key"); and a preflight the service refuses (a method, a header or an origin it does not allow)
was answered with the text "Disallowed CORS headers", not the JSON error every refusal is."""
from __future__ import annotations

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

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PAGE = "https://app.example"
KEY = "cors-s85-key"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("cors85") / "bm25"
    Index.build(path, model("bm25"), texts[:20], ids[:20], meta[:20]).close()
    app = create_app(path, api_key=KEY, cors_origins=[PAGE])
    return TestClient(app, raise_server_exceptions=False, base_url="http://127.0.0.1")


def _json_error(r, status):
    assert r.status_code == status, r.text[:300]
    assert r.headers["content-type"].startswith("application/json"), r.headers
    body = r.json()
    assert isinstance(body["error"], str) and body["code"] == status, body
    return body["error"]


@pytest.mark.parametrize("case", ["no key", "wrong key", "text/plain", "body too large", "two content types",
                                  "gzip"])
def test_a_refusal_in_front_of_the_framework_is_readable_by_the_allowed_page(client, case):
    headers = {"Origin": PAGE, "Content-Type": "application/json", "X-API-Key": KEY}
    body = b"{}"
    status = {"no key": 401, "wrong key": 401, "text/plain": 415, "body too large": 413,
              "two content types": 400, "gzip": 415}[case]
    if case == "no key":
        del headers["X-API-Key"]
    elif case == "wrong key":
        headers["X-API-Key"] = "nope"
    elif case == "text/plain":
        headers["Content-Type"] = "text/plain"
    elif case == "body too large":
        body = b" " * 1_100_000
    elif case == "gzip":
        headers["Content-Encoding"] = "gzip"
    if case == "two content types":
        r = client.post("/v1/reindex", content=body,
                        headers=[(k, v) for k, v in headers.items()] + [("Content-Type", "application/json")])
    else:
        r = client.post("/v1/reindex", content=body, headers=headers)
    _json_error(r, status)
    assert r.headers.get("access-control-allow-origin") == PAGE, r.headers
    assert "origin" in r.headers.get("vary", "").lower()


def test_a_refusal_to_another_origin_names_no_origin_allowed(client):
    r = client.post("/v1/reindex", content=b"{}", headers={"Origin": "https://evil.example",
                                                           "Content-Type": "application/json", "X-API-Key": KEY})
    _json_error(r, 403)
    assert "access-control-allow-origin" not in r.headers
    r = client.post("/v1/reindex", content=b"{}", headers={"Origin": "https://evil.example",
                                                           "Content-Type": "application/json"})
    _json_error(r, 401)
    assert "access-control-allow-origin" not in r.headers


@pytest.mark.parametrize("asked, names", [
    ({"access-control-request-method": "PATCH"}, "method"),
    ({"access-control-request-method": "POST", "access-control-request-headers": "content-type, x-secret"},
     "header"),
    ({"access-control-request-method": "POST", "origin": "https://evil.example"}, "origin"),
])
def test_a_refused_preflight_is_a_json_error_naming_what_is_not_allowed(client, asked, names):
    r = client.options("/v1/docs", headers={"origin": PAGE, **asked})
    assert names in _json_error(r, 400)


def test_an_allowed_preflight_is_still_allowed_and_takes_x_client_id(client):
    r = client.options("/v1/docs", headers={"origin": PAGE, "access-control-request-method": "POST",
                                            "access-control-request-headers": "content-type, x-api-key, x-client-id"})
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == PAGE
    assert "x-client-id" in r.headers["access-control-allow-headers"].lower()


def test_an_origin_given_in_capitals_is_the_origin_browsers_send(tmp_path):
    # a browser sends its origin's scheme and host in lower case; the Origin check of writes
    # compared without case, Starlette's CORS layer with it: the preflight of
    # --cors-origin https://App.Example was refused, its writes then accepted
    texts, _, ids, meta = corpus()
    Index.build(tmp_path / "bm25", model("bm25"), texts[:10], ids[:10], meta[:10]).close()
    c = TestClient(create_app(tmp_path / "bm25", cors_origins=["https://App.Example/"]),
                   raise_server_exceptions=False, base_url="http://127.0.0.1")
    r = c.options("/v1/docs", headers={"origin": "https://app.example", "access-control-request-method": "POST",
                                       "access-control-request-headers": "content-type"})
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "https://app.example", r.text
    r = c.get("/v1/search", params={"q": "w001"}, headers={"origin": "https://app.example"})
    assert r.headers["access-control-allow-origin"] == "https://app.example"
