"""Request heads a hostile or careless caller sends, refused by name before the body is read
(``learnsim.service._guard``): a JSON body said to be in another charset than UTF-8 (read as
UTF-8 it was another text than the one sent: "Ã©" in ISO-8859-1 searched as "é"), a request
with no Host at all (the 421 named the host 'None')."""
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

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
KEY = "hostile-heads-key"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("heads") / "mcd"
    Index.build(path, model("mcd"), texts[:60], ids[:60], meta[:60]).close()
    return path


@pytest.fixture(scope="module")
def client(built):
    return TestClient(create_app(built, api_key=KEY), raise_server_exceptions=False, base_url="http://127.0.0.1")


def _refused(r, status, *words):
    assert r.status_code == status, (r.status_code, r.text[:300])
    body = r.json()
    assert body["code"] == status and "Traceback" not in r.text
    for word in words:
        assert word in body["error"], body["error"]
    return body["error"]


SEARCH = json.dumps({"queries": ["caf\u00e9 w001"], "k": 1}, ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize("charset", ["iso-8859-1", "ISO-8859-1", "latin1", '"windows-1252"', "utf-16", "ascii2",
                                     "utf-8, latin1"])
@pytest.mark.parametrize("route,body", [("/v1/search", SEARCH), ("/v1/docs", b'{"documents": [{"id": "x", "text": "caf\xc3\xa9"}]}')])
def test_a_json_body_in_another_charset_is_refused_unread(client, route, body, charset):
    r = client.post(route, content=body, headers={"Content-Type": f"application/json; charset={charset}",
                                                  "X-API-Key": KEY})
    _refused(r, 415, "UTF-8", "charset")
    assert client.get("/v1/docs/x", headers={"X-API-Key": KEY}).status_code == 404   # nothing written


@pytest.mark.parametrize("content_type", ["application/json; charset=utf-8", "application/json;charset=UTF-8",
                                          'application/json; charset="utf-8"', "application/json; charset=utf8",
                                          "application/json", "Application/JSON; Charset=UTF-8"])
def test_utf8_said_or_unsaid_is_read(client, content_type):
    r = client.post("/v1/search", content=SEARCH, headers={"Content-Type": content_type})
    assert r.status_code == 200, r.text[:300]


def test_a_request_naming_no_host_is_a_400_saying_so(built):
    app = create_app(built)
    sent = []

    async def run():
        scope = {"type": "http", "method": "GET", "path": "/healthz", "raw_path": b"/healthz", "query_string": b"",
                 "headers": [], "scheme": "http", "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 5000),
                 "http_version": "1.1", "asgi": {"version": "3.0"}, "root_path": ""}

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            sent.append(message)
        await app(scope, receive, send)

    import asyncio
    asyncio.run(run())
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = json.loads(b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"))
    assert start["status"] == 400 and "Host" in body["error"] and "None" not in body["error"], body
