"""serve --learn-from-clicks against a hostile caller (a sweep of issue 45's defences): the
cases the earlier tests missed.

- On a service with an API key whose searches are open (no ``protect_reads``), a search made
  without the key was logged as an impression of its address, though no click can ever name
  it (a click is a write: it needs the key, and with the key it is the holder's, another
  client). Anonymous callers on ten addresses then filled the log's bound in bytes with
  impressions nobody could learn from, and the key holder's own searches were answered with
  ``"impression": null``: learning stopped until retention freed room (90 days). Such a search
  is now answered and not logged, counted in ``/v1/info`` (``dropped.keyless``).

Everything runs in process (FastAPI's TestClient), against 127.0.0.1, bounded in time.
"""
from __future__ import annotations

import re
import shutil
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from learnsim.feedback import FeedbackLog  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
KEY = "sweep-test-key"
BASE = "http://127.0.0.1"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("fb-sweep") / "idx"
    Index.build(path, model("bm25"), texts[:40], ids[:40], meta[:40]).close()
    return path


@pytest.fixture
def fresh(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    return tmp_path / "idx"


def _as(app, address):
    return TestClient(app, raise_server_exceptions=False, base_url=BASE, client=(address, 40000))


def test_keyless_searches_of_a_keyed_service_do_not_crowd_out_the_key_holders(fresh):
    texts = corpus()[0]
    app = create_app(fresh, learn_from_clicks=True, api_key=KEY, feedback_max_bytes=20_000,
                     feedback_client_share=0.1)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        for n in range(12):     # twelve addresses, each up to its share of the log
            anonymous = _as(app, f"10.9.0.{n}")
            for i in range(15):
                r = anonymous.get("/v1/search", params={"q": texts[i], "k": 20})
                assert r.status_code == 200 and r.json()["hits"] and r.json()["impression"] is None
        r = anonymous.post("/v1/search", json={"queries": texts[:2], "k": 5})
        assert r.status_code == 200 and r.json()["impressions"] == [None, None]
        front_end = _as(app, "10.0.0.1")
        for i in range(3):
            r = front_end.get("/v1/search", params={"q": texts[i], "k": 20},
                              headers={"X-API-Key": KEY, "X-Client-Id": f"user-{i}"})
            body = r.json()
            assert r.status_code == 200 and body["impression"], r.text
            click = front_end.post("/v1/feedback", json={"impression": body["impression"],
                                                         "clicked": [body["hits"][1]["id"]]},
                                   headers={"X-API-Key": KEY, "X-Client-Id": f"user-{i}"})
            assert click.status_code == 201, click.text
        info = c.get("/v1/info", headers={"X-API-Key": KEY}).json()["learn_from_clicks"]
        assert info["dropped"] == {"keyless": 12 * 15 + 2}
    with FeedbackLog(fresh, readonly=True) as log:
        stats = log.stats()
    assert stats["impressions"] == 3 and stats["clicks"] == 3 and stats["clients"] == 3


def test_a_keyed_service_whose_reads_need_the_key_logs_its_searches(fresh):
    texts = corpus()[0]
    app = create_app(fresh, learn_from_clicks=True, api_key=KEY, protect_reads=True)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        r = c.get("/v1/search", params={"q": texts[0]}, headers={"X-API-Key": KEY})
        assert r.status_code == 200 and r.json()["impression"]
        assert c.get("/v1/search", params={"q": texts[0]}).status_code == 401


def test_an_ipv4_client_through_a_nat64_translator_is_that_ipv4_client():
    """An IPv6 service reached by IPv4 clients through a stateless translator (SIIT, RFC 7915)
    sees each as 64:ff9b::V4ADDR (RFC 6052's well-known prefix): by /64 every IPv4 client of
    the translator was one client, one vote and one share of the log for all of them, and one
    address of the connection bound. Each is now its IPv4 address, as a 6to4 or Teredo one is."""
    from learnsim.service._connections import address_key
    from learnsim.service._feedback import _network

    assert _network("64:ff9b::c000:204") == _network("192.0.2.4") == "192.0.2.4"
    assert _network("64:ff9b::c000:205") == "192.0.2.5"
    assert address_key("64:ff9b::c000:204") == "192.0.2.4" != address_key("64:ff9b::c000:205")
    # the rest of 64:ff9b::/64 (not the /96) carries no IPv4 address: counted by /64 as before
    assert _network("64:ff9b::1:c000:204") == "64:ff9b::/64"


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    from index_models import staged_index

    return staged_index(tmp_path_factory.mktemp("fb-sweep-staged"))


def test_a_search_whose_impression_is_not_logged_is_not_interleaved(staged, tmp_path):
    """Interleaving shows a searcher the candidate's picks for half the list, at the price of
    a ranking not yet trusted, so that their clicks say which model is better. A search whose
    impression is not logged (one without the key on a keyed service, one another site's page
    made a browser send) gives no such evidence, and was interleaved all the same: the searcher
    paid for nothing. It is answered by the served model; a search that is logged is
    interleaved as before."""
    texts = corpus()[0]
    path = tmp_path / "idx"
    shutil.copytree(staged, path)
    queries = [texts[5 * i] for i in range(4)]
    with Index.open(path) as index:
        served = [[h["id"] for h in hits] for hits in index.search(queries, 10)]
    app = create_app(path, learn_from_clicks=True, interleave=1.0, seed=0, api_key=KEY)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        for q, ranking in zip(queries, served):
            logged = c.get("/v1/search", params={"q": q, "k": 6}, headers={"X-API-Key": KEY}).json()
            assert logged.get("interleaved") is True and logged["impression"]
            for headers in ({}, {"X-API-Key": KEY, "Sec-Fetch-Site": "cross-site"}):
                r = c.get("/v1/search", params={"q": q, "k": 6}, headers=headers)
                assert r.status_code == 200 and r.json()["impression"] is None
                assert "interleaved" not in r.json() and [h["id"] for h in r.json()["hits"]] == ranking[:6], headers
            page = c.get("/", params={"q": q})       # the page, without the key: not logged either
            shown = re.findall(r'href="/\?similar=(d\d+)"', page.text)
            assert page.status_code == 200 and shown == ranking[:len(shown)] and len(shown) >= 6
