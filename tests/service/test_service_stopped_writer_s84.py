"""``learnsim serve`` while another writer of its index stops between its SQLite commit and its
segment (``learnsim index add`` stopped by Ctrl-C or killed there, an exception in a script's
``Index.add``). The service's handles were open before: its searches never found those
documents (a fresh open does), and its next ``POST /v1/docs`` wrote its own segment past them,
so the index no longer opened ("its segments hold 31 live documents ... where docs.sqlite holds
32"), the service's acknowledged add inside it; a restart failed. Now the service serves them and
its write stores them (tests/index/test_index_stopped_write_s84.py for the handles)."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from index_models import corpus, model  # noqa: E402

from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")

# words of the build's vocabulary, so that a search finds them before any reindex
STOPPED, POSTED = "w101 w102 w103 w104 w105 w106", "w201 w202 w203 w204 w205 w206"


def test_the_service_serves_and_stores_what_a_stopped_writer_committed(tmp_path, monkeypatch):
    texts, _, ids, meta = corpus()
    path = tmp_path / "idx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Index.build(path, model("linklearn"), texts[:30], ids[:30], meta[:30]).close()
    with TestClient(create_app(path), raise_server_exceptions=False, base_url="http://127.0.0.1") as client:
        assert client.get("/v1/search", params={"q": "w001", "k": 1}).status_code == 200
        other = Index.open(path)

        def interrupted(seqs, rows):
            raise KeyboardInterrupt
        monkeypatch.setattr(other, "_write_rows", interrupted)
        with pytest.raises(KeyboardInterrupt):
            other.add([STOPPED], ids=["stopped"])
        other.close()
        found = client.get("/v1/search", params={"q": STOPPED, "k": 1}).json()
        assert [h["id"] for h in found["hits"]] == ["stopped"]
        r = client.post("/v1/docs", json={"documents": [{"id": "posted", "text": POSTED}]})
        assert r.status_code == 201 and r.json()["documents"] == 32
        assert client.get("/healthz").json()["status"] == "ok"
    assert Index.verify_at(path)["ok"]
    with Index.open(path) as again:
        assert len(again) == 32
        assert [h["id"] for h in again.search(POSTED, k=1)] == ["posted"]
        assert [h["id"] for h in again.search(STOPPED, k=1)] == ["stopped"]
