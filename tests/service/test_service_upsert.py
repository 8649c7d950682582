"""Upsert over HTTP: PUT /v1/docs/{id} (201 added, 200 replaced) and POST /v1/docs with
"mode": "upsert", with the write rules of every write (key, read-only, JSON, Origin)."""
from __future__ import annotations

import shutil
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
KEY = "upsert-test-key"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("upsert") / "idx"
    Index.build(path, model("bm25"), texts[:20], ids[:20], meta[:20]).close()
    return path


@pytest.fixture
def fresh(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    return tmp_path / "idx"


def _client(path, **options):
    return TestClient(create_app(path, **options), raise_server_exceptions=False, base_url="http://127.0.0.1")


def test_put_adds_then_replaces(fresh):
    texts, _, ids, _ = corpus()
    with _client(fresh) as c:
        r = c.put("/v1/docs/a%2Fb", json={"text": texts[30], "metadata": {"topic": 1}})
        assert r.status_code == 201 and r.json()["added"] == 1 and r.json()["id"] == "a/b"
        r = c.put("/v1/docs/a%2Fb", json={"text": texts[31]})
        assert r.status_code == 200 and (r.json()["added"], r.json()["updated"]) == (0, 1)
        assert r.json()["documents"] == 21
        assert c.get("/v1/docs/a%2Fb").json()["text"] == texts[31]
        r = c.put(f"/v1/docs/{ids[0]}", json={"text": texts[32]})
        assert r.status_code == 200 and r.json()["documents"] == 21
        hits = c.get("/v1/search", params={"q": texts[32], "k": 20}).json()["hits"]
        assert [h["id"] for h in hits].count(ids[0]) == 1 and hits[0]["id"] == ids[0]
        for bad in ({}, {"text": 3}, {"text": "x", "extra": 1}, {"text": "x", "metadata": [1]}):
            r = c.put("/v1/docs/x", json=bad)
            assert r.status_code in (400, 422) and "error" in r.json(), bad
        assert c.put("/v1/docs/x", content=b'{"text": "x"}', headers={"content-type": "text/plain"}).status_code == 415
        # the id bound of POST /v1/docs holds for an id in the path too
        r = c.put("/v1/docs/" + "a" * 1001, json={"text": "x"})
        assert r.status_code == 422 and "at most 1000" in r.json()["error"]
        assert c.put("/v1/docs/" + "a" * 1000, json={"text": "x"}).status_code == 201


def test_post_in_upsert_mode(fresh):
    texts, _, ids, _ = corpus()
    with _client(fresh) as c:
        docs = [{"id": ids[1], "text": texts[40]}, {"id": "99", "text": texts[41]}]
        r = c.post("/v1/docs", json={"documents": docs, "mode": "upsert"})
        assert r.status_code == 201 and (r.json()["added"], r.json()["updated"]) == (1, 1)
        assert r.json()["ids"] == [ids[1], "99"]
        r = c.post("/v1/docs", json={"documents": docs, "mode": "upsert"})
        assert r.status_code == 200 and (r.json()["added"], r.json()["updated"]) == (0, 2)
        # the plain add still refuses an indexed id
        assert c.post("/v1/docs", json={"documents": docs}).status_code == 409
        for bad, code in (({"documents": [docs[0], docs[0]], "mode": "upsert"}, 409),
                          ({"documents": [{"text": "no id"}], "mode": "upsert"}, 422),
                          ({"documents": docs, "mode": "merge"}, 422)):
            r = c.post("/v1/docs", json=bad)
            assert r.status_code == code and "error" in r.json(), bad
        assert c.get("/v1/info").json()["documents"] == 21


def test_put_follows_the_write_rules(fresh):
    with _client(fresh, api_key=KEY) as c:
        assert c.put("/v1/docs/k", json={"text": "w001"}).status_code == 401
        assert c.put("/v1/docs/k", json={"text": "w001"}, headers={"X-API-Key": KEY}).status_code == 201
        r = c.put("/v1/docs/k", json={"text": "w002"}, headers={"X-API-Key": KEY, "Origin": "http://evil.example"})
        assert r.status_code == 403
        schema = c.get("/openapi.json").json()
        put = schema["paths"]["/v1/docs/{doc_id}"]["put"]
        assert put["security"] and {"200", "201", "401", "409"} <= set(put["responses"])
    with _client(fresh, read_only=True) as c:
        assert c.put("/v1/docs/k", json={"text": "w001"}).status_code == 403
