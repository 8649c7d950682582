"""An id over the 1,000-character bound (MAX_ID_CHARS) in the path of a read or a delete
(GET /v1/docs/{id}, DELETE, GET and POST .../similar) was answered 404 "not in the index", where
PUT answers 422 naming the bound for the same id: every id route now answers 422 naming it. An
index built before the bound (f2adf11) may hold such an id: it is still found and deleted."""
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
KEY = "long-ids-key"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("longids") / "idx"
    Index.build(path, model("bm25"), texts[:20], ids[:20], meta[:20]).close()
    return path


def _client(path):
    return TestClient(create_app(path, api_key=KEY), raise_server_exceptions=False, base_url="http://127.0.0.1")


def _routes(c, doc_id):
    headers = {"X-API-Key": KEY}
    return {"get": c.get(f"/v1/docs/{doc_id}"), "similar": c.get(f"/v1/docs/{doc_id}/similar"),
            "similar_post": c.post(f"/v1/docs/{doc_id}/similar", json={"k": 3}),
            "put": c.put(f"/v1/docs/{doc_id}", json={"text": "a text"}, headers=headers),
            "delete": c.delete(f"/v1/docs/{doc_id}", headers=headers)}


def test_an_id_over_the_bound_is_a_422_naming_it_on_every_id_route(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    with _client(tmp_path / "idx") as c:
        for name, r in _routes(c, "x" * 1001).items():
            assert r.status_code == 422, (name, r.status_code, r.text[:200])
            assert "at most 1000 characters" in r.json()["error"], name
        # at the bound, an unknown id is still "not in the index"
        answers = _routes(c, "y" * 1000)    # in this order: the reads, PUT (adds it), DELETE
        assert {name: r.status_code for name, r in answers.items()} == \
            {"get": 404, "similar": 404, "similar_post": 404, "put": 201, "delete": 200}
        assert c.delete("/v1/docs/" + "w" * 1000, headers={"X-API-Key": KEY}).status_code == 404


def test_a_long_id_of_an_index_built_before_the_bound_is_still_read_and_deleted(tmp_path, monkeypatch):
    from learnsim.index import _arguments

    texts = corpus()[0]
    long_id = "z" * 1500
    path = tmp_path / "idx"
    with monkeypatch.context() as patch:
        patch.setattr(_arguments, "MAX_ID_CHARS", 10 ** 6)     # as an index written before the bound
        Index.build(path, model("bm25"), texts[:20], [long_id] + [f"d{i}" for i in range(1, 20)]).close()
    with _client(path) as c:
        assert c.get(f"/v1/docs/{long_id}").json()["id"] == long_id
        assert c.get(f"/v1/docs/{long_id}/similar", params={"k": 2}).status_code == 200
        r = c.delete(f"/v1/docs/{long_id}", headers={"X-API-Key": KEY})
        assert r.status_code == 200 and r.json()["deleted"] == 1
        r = c.get(f"/v1/docs/{long_id}")
        assert r.status_code == 422 and "at most 1000 characters" in r.json()["error"]
