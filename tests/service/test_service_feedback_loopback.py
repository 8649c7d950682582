"""Every loopback address is one client (attack sweep s69, cases 1 and 2).

Any local user can open its connections from any address of 127.0.0.0/8 (and ::1) without
privileges. Counted one by one, a single process on 127.0.0.2..127.0.0.6 was five clients: it
promoted a candidate fitted on another collection ("mean over 5 clients") on its own, and on
127.0.0.2..127.0.0.13 it filled twelve clients' shares of the log in bytes. Now all of them are
one client, as an IPv6 caller is one /64: one vote and one share.

In process (FastAPI's TestClient, the peer address given), bounded in time.
"""
from __future__ import annotations

import shutil
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model, staged_index  # noqa: E402

from learnsim.feedback import FeedbackLog, promotion_evidence  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402
from learnsim.service._feedback import LOOPBACK, _network  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
BASE = "http://127.0.0.1"
LOCAL = ("127.0.0.1", "127.0.0.2", "127.0.0.6", "127.255.255.254", "::1", "0:0:0:0:0:0:0:1",
         "::ffff:127.0.0.3", "::ffff:127.9.9.9")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("loopback") / "idx"
    Index.build(path, model("bm25"), texts[:40], ids[:40], meta[:40]).close()
    return path


@pytest.fixture
def fresh(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    return tmp_path / "idx"


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    return staged_index(tmp_path_factory.mktemp("loopback-staged"))


def _as(app, address):
    return TestClient(app, raise_server_exceptions=False, base_url=BASE, client=(address, 40000))


def test_every_loopback_address_is_counted_as_one():
    assert {_network(a) for a in LOCAL} == {LOOPBACK}
    # the others as before: an IPv4 address itself (mapped or not), an IPv6 one by its /64
    assert _network("10.0.0.1") == _network("::ffff:10.0.0.1") == "10.0.0.1"
    assert _network("2001:db8::1") == _network("2001:db8::ffff") == "2001:db8::/64"
    assert _network("128.0.0.1") == "128.0.0.1" and _network("testclient") == "testclient"


def test_a_keyless_service_logs_every_local_caller_as_one_client(fresh):
    texts = corpus()[0]
    app = create_app(fresh, learn_from_clicks=True)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE):
        for i, address in enumerate(LOCAL + ("10.0.0.1",)):
            r = _as(app, address).get("/v1/search", params={"q": texts[i]})
            assert r.status_code == 200 and r.json()["impression"]
    with FeedbackLog(fresh, readonly=True) as log:
        clients = [imp["client"] for imp in log.impressions()]
        stats = log.stats()
    assert len(set(clients[:-1])) == 1 and clients[-1] != clients[0]
    assert stats["clients"] == 2


def test_one_local_process_on_five_loopback_addresses_does_not_promote(staged, tmp_path):
    """Case 1 of the sweep: the candidate's results clicked from 127.0.0.2..127.0.0.6, 8 searches
    each. Five 10.0.1.x addresses doing the same promote (test_a_promotion_needs_five_clients);
    five loopback addresses are one client, short of the 5 a promotion needs."""
    path = tmp_path / "idx"
    shutil.copytree(staged, path)
    texts = corpus()[0]
    app = create_app(path, learn_from_clicks=True, interleave=1.0, seed=0)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE), FeedbackLog(path, readonly=True) as log:
        for user in range(5):
            c = _as(app, f"127.0.0.{user + 2}")
            for i in range(8):
                answer = c.get("/v1/search", params={"q": texts[(3 * i + 5 * user) % len(texts)], "k": 6}).json()
                (imp,) = [x for x in log.impressions() if x["id"] == answer["impression"]]
                picks = [h["id"] for h, team in zip(answer["hits"], imp["teams"]) if team == "c"]
                if picks:
                    assert c.post("/v1/feedback", json={"impression": answer["impression"],
                                                        "clicked": picks[:1]}).status_code == 201
    with Index.open(path) as index:
        evidence = promotion_evidence(index, index.version_pipeline(2))
    inter = evidence["interleaving"]
    assert inter["wins"] >= 20 and inter["losses"] == 0          # what had promoted it
    assert inter["clients"] == 1 and inter["deciding_clients"] == 1
    assert evidence["better"] is False and "fewer than the 5" in evidence["reason"]


def test_a_flood_from_loopback_addresses_stops_at_one_share(fresh):
    """Case 2 of the sweep: a flood from 127.0.0.2..127.0.0.13 held each address to a share of
    its own (twelve shares: the whole log). Now it stops at one share, and a caller from another
    address still has room."""
    texts = corpus()[0]
    max_bytes, share = 20_000, 0.2
    app = create_app(fresh, learn_from_clicks=True, feedback_max_bytes=max_bytes, feedback_client_share=share)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        for last in range(2, 14):
            flood = _as(app, f"127.0.0.{last}")
            for _ in range(20):
                assert flood.get("/v1/search", params={"q": texts[0], "k": 20}).status_code == 200
        with FeedbackLog(fresh, readonly=True) as log:
            flooded = log.stats()["bytes"]
        other = _as(app, "10.0.0.1").get("/v1/search", params={"q": texts[1], "k": 20}).json()
        dropped = c.get("/v1/info").json()["learn_from_clicks"]["dropped"]
    assert flooded <= share * max_bytes
    assert other["impression"] is not None
    assert "total_bytes" not in dropped and dropped["client_bytes"] > 12 * 20 / 2
