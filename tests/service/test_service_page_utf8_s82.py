"""The search page (``GET /``) given a query string that is not UTF-8 (``/?q=%FF``) answered the
JSON API's 400 (``{"code": 400, ...}``), which a browser shows as raw JSON: the page answers its
own HTML error page with status 400, for each of its parameters; the JSON API keeps JSON."""
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


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    texts, _, ids, meta = corpus()
    root = tmp_path_factory.mktemp("page_utf8")
    Index.build(root / "bm25", model("bm25"), texts, ids, meta).close()
    return TestClient(create_app(root / "bm25"), raise_server_exceptions=False, base_url="http://127.0.0.1")


@pytest.mark.parametrize("query", ["q=%FF", "q=w001%C3%28", "k=%FF", "similar=%FF", "duplicates=%C3",
                                   "fragment=%FF", "q=%ED%A0%80", "%FF=1", "q=w001&k=5&similar=%FE"])
def test_the_page_answers_bad_utf8_with_its_html_error_page(client, query):
    r = client.get(f"/?{query}")
    assert r.status_code == 400, (query, r.status_code, r.text[:200])
    assert r.headers["content-type"].startswith("text/html"), (query, r.headers["content-type"])
    assert "<form" in r.text and "not valid UTF-8" in r.text
    # the page's own headers: no script or style from elsewhere
    assert "default-src 'none'" in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff"


def test_head_of_the_page_is_the_same_status_without_a_body(client):
    r = client.head("/?q=%FF")
    assert r.status_code == 400 and r.headers["content-type"].startswith("text/html") and r.content == b""


@pytest.mark.parametrize("target", ["/v1/search?q=%FF", "/v1/docs/%C3%28", "/healthz?x=%FF", "/static/page.css?v=%FF"])
def test_the_json_api_keeps_its_json_400(client, target):
    r = client.get(target)
    assert r.status_code == 400 and r.headers["content-type"].startswith("application/json")
    assert r.json()["code"] == 400 and "UTF-8" in r.json()["error"]


def test_the_page_still_searches(client):
    r = client.get("/", params={"q": "w001 é"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
