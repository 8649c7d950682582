"""A click on a document deleted after its search (POST /v1/feedback naming it) is taken (201:
the search did show it, and the click log keeps what the service acknowledged), and the
promotion's evidence leaves that search out as one of its ``foreign_impressions``, as it leaves
out every search that shows an id the index no longer holds: the click weighs for neither model.
A guard of what docs/feedback.md says (red-team case 4, stop 85)."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from learnsim.feedback import promotion_evidence  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
KEY = "feedback-deleted-key"


def test_a_click_on_a_deleted_document_is_taken_and_weighs_for_neither_model(tmp_path):
    texts, _, ids, meta = corpus()
    path = tmp_path / "idx"
    Index.build(path, model("bm25"), texts[:30], ids[:30], meta[:30]).close()
    headers = {"X-API-Key": KEY}
    app = create_app(path, api_key=KEY, learn_from_clicks=True)
    with TestClient(app, raise_server_exceptions=False, base_url="http://127.0.0.1") as c:
        kept = c.get("/v1/search", params={"q": texts[1], "k": 3}, headers=headers).json()
        gone = c.get("/v1/search", params={"q": texts[0], "k": 3}, headers=headers).json()
        shown = [h["id"] for h in gone["hits"]]
        assert [h["id"] for h in kept["hits"]][0] not in shown
        assert c.delete(f"/v1/docs/{shown[0]}", headers=headers).status_code == 200
        r = c.post("/v1/feedback", json={"impression": gone["impression"], "clicked": [shown[0]]}, headers=headers)
        assert r.status_code == 201, r.text
        r = c.post("/v1/feedback", json={"impression": kept["impression"], "clicked": [kept["hits"][0]["id"]]},
                   headers=headers)
        assert r.status_code == 201, r.text
    with Index.open(path) as index:
        evidence = promotion_evidence(index, index.pipeline)
    assert evidence["foreign_impressions"] == 1
    assert "documents removed since" in evidence["reason"]
