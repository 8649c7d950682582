"""Issue 45: learning from use is safe by default, and its recording is bounded.

- who a client is comes from what a caller cannot choose: a keyless service ignores
  X-Client-Id (and X-Forwarded-For), each address one client; the spoofing flood of the issue
  (100 searches and clicks under rotating ids against 10 honest users) neither promotes its
  candidate nor passes its cap in the comparisons;
- keyless learning on a network address is refused unless asked for;
- the log is bounded in bytes, in all and per client; a locked log does not slow searches and
  clicks get a quick 503; damage to the file is reported by /healthz and no click is
  acknowledged into it.

Everything runs in process (FastAPI's TestClient), against 127.0.0.1, bounded in time.
"""
from __future__ import annotations

import json
import shutil
import sqlite3
import time
import warnings
from urllib.parse import quote

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model, staged_index  # noqa: E402

from learnsim.cli import main  # noqa: E402
from learnsim.feedback import FeedbackLog, click_comparisons, interleaving_verdict, promotion_evidence  # noqa: E402
from learnsim.feedback._clicks import _client_cap  # noqa: E402
from learnsim.feedback._compare import MIN_PROMOTION_CLIENTS, interleaved_outcomes  # noqa: E402
from learnsim.feedback._log import DEFAULT_MAX_BYTES, LogBusy, LogDamaged, LogFull  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402
from learnsim.service._feedback import LOOPBACK, ClickRecorder, _network  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
KEY = "safety-test-key"
BASE = "http://127.0.0.1"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("safety") / "idx"
    Index.build(path, model("bm25"), texts[:40], ids[:40], meta[:40]).close()
    return path


@pytest.fixture
def fresh(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    return tmp_path / "idx"


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    return staged_index(tmp_path_factory.mktemp("safety-staged"))


def _app(path, **options):
    options.setdefault("learn_from_clicks", True)
    return create_app(path, **options)


def _as(app, address):
    """A client of ``app`` calling from ``address`` (the lifespan is run by another, with ``with``)."""
    return TestClient(app, raise_server_exceptions=False, base_url=BASE, client=(address, 40000))


def _clients_logged(path):
    with FeedbackLog(path, readonly=True) as log:
        return [imp["client"] for imp in log.impressions()]


# --------------------------------------------------------------------------- who a client is
def test_a_keyless_service_counts_each_address_once_whatever_the_headers_say(fresh):
    texts = corpus()[0]
    app = _app(fresh)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE):
        local = _as(app, "127.0.0.1")
        for i in range(6):      # a new name, and a new forwarded address, at every search
            r = local.get("/v1/search", params={"q": texts[i]},
                          headers={"X-Client-Id": f"spoof-{i}", "X-Forwarded-For": f"10.1.2.{i}"})
            assert r.status_code == 200 and r.json()["impression"]
        for address in ("10.0.0.1", "10.0.0.2", "2001:db8::1", "2001:db8::ffff", "2001:db8:0:1::1",
                        "::ffff:10.0.0.1"):
            assert _as(app, address).get("/v1/search", params={"q": texts[7]}).status_code == 200
    clients = _clients_logged(fresh)
    assert len(set(clients[:6])) == 1                      # one address, one client
    others = clients[6:]
    assert len(set(others)) == 4 and others[0] != clients[0]
    assert others[2] == others[3]                          # one IPv6 /64: one client
    assert others[5] == others[0]                          # an IPv4-mapped address is the IPv4 one
    assert all(len(c) == 16 for c in clients)              # pseudonyms, not addresses


def test_with_a_key_the_holder_or_the_users_it_names(fresh):
    texts = corpus()[0]
    app = _app(fresh, api_key=KEY)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE):
        front_end = _as(app, "10.0.0.9")
        for i in range(3):
            front_end.get("/v1/search", params={"q": texts[i]}, headers={"X-Client-Id": f"user-{i}", "X-API-Key": KEY})
        front_end.get("/v1/search", params={"q": texts[3]}, headers={"X-API-Key": KEY})
        _as(app, "10.0.0.8").get("/v1/search", params={"q": texts[4]}, headers={"X-API-Key": KEY})
        # no key: not "user-0", and not logged at all (no click could name it: a click needs the key)
        r = _as(app, "10.0.0.8").get("/v1/search", params={"q": texts[5]}, headers={"X-Client-Id": "user-0"})
        assert r.status_code == 200 and r.json()["impression"] is None
    clients = _clients_logged(fresh)
    assert len(clients) == 5
    assert len(set(clients[:3])) == 3                     # the key's holder vouches for its users
    assert clients[3] == clients[4] and clients[3] not in clients[:3]    # the holder itself


def test_a_client_named_twice_is_refused(fresh):
    """With the key, X-Client-Id names the user a search and its clicks count for; given twice,
    the first was taken silently (which user the front end meant is anyone's guess), as a key
    or a Host given twice is a 400. Nothing is logged for it. A service without a key reads no
    X-Client-Id, and answers as before."""
    texts = corpus()[0]
    twice = [("X-Client-Id", "user-1"), ("X-Client-Id", "user-2"), ("X-API-Key", KEY)]
    app = _app(fresh, api_key=KEY)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        r = c.get("/v1/search", params={"q": texts[0]}, headers=twice)
        assert r.status_code == 400 and "X-Client-Id" in r.json()["error"], r.text
        first = c.get("/v1/search", params={"q": texts[0]}, headers=twice[1:]).json()
        r = c.post("/v1/feedback", json={"impression": first["impression"], "clicked": [first["hits"][0]["id"]]},
                   headers=twice)
        assert r.status_code == 400 and "X-Client-Id" in r.json()["error"], r.text
    assert len(_clients_logged(fresh)) == 1
    with TestClient(_app(fresh), raise_server_exceptions=False, base_url=BASE) as c:
        assert c.get("/v1/search", params={"q": texts[0]}, headers=twice[:2]).status_code == 200


def test_another_sites_page_is_answered_and_not_learned_from(fresh):
    """A search a browser says another site's page sent (an <img> or a fetch: Sec-Fetch-Site) is
    answered and logs no impression, counted as cross_site; a link of the page followed from
    there records no click. The service's own page, a typed address, a program (no header) and
    an origin given to cors_origins are logged."""
    texts = corpus()[0]
    app = _app(fresh, cors_origins=["https://front.example"])
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        logged = c.get("/v1/search", params={"q": texts[0]}).json()["impression"]
        assert logged
        for headers in ({"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"},
                        {"Sec-Fetch-Site": "Cross-Site", "Origin": "https://evil.example"}):
            r = c.get("/v1/search", params={"q": texts[1]}, headers=headers)
            assert r.status_code == 200 and r.json()["hits"] and r.json()["impression"] is None
        r = c.post("/v1/search", json={"queries": [texts[2], texts[3]]}, headers={"Sec-Fetch-Site": "cross-site"})
        assert r.status_code == 200 and r.json()["impressions"] == [None, None]
        for headers in ({"Sec-Fetch-Site": "same-origin"}, {"Sec-Fetch-Site": "none"},
                        {"Sec-Fetch-Site": "cross-site", "Origin": "https://front.example/"}):
            assert c.get("/v1/search", params={"q": texts[4]}, headers=headers).json()["impression"]
        assert c.get("/v1/info").json()["learn_from_clicks"]["dropped"] == {"cross_site": 5}
        hit = c.get("/v1/search", params={"q": texts[0]}).json()
        link = {"i": hit["impression"], "d": hit["hits"][0]["id"]}
        r = c.get("/click", params=link, headers={"Sec-Fetch-Site": "cross-site"}, follow_redirects=False)
        assert r.status_code == 303
        r = c.get("/click", params=link, headers={"Sec-Fetch-Site": "same-origin"}, follow_redirects=False)
        assert r.status_code == 303
    with FeedbackLog(fresh, readonly=True) as log:
        assert [len(imp["clicks"]) for imp in log.impressions()] == [0, 0, 0, 0, 1]


def test_the_proxy_headers_still_apply_to_the_scheme(fresh):
    """The service keeps the connection's address for counting clients, and applies uvicorn's
    proxy headers itself (learnsim serve runs uvicorn without them): a proxy on this machine
    still says the scheme was https, which the Origin check of writes reads."""
    texts = corpus()[0]
    app = _app(fresh)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE):
        proxy = _as(app, "127.0.0.1")
        r = proxy.get("/v1/search", params={"q": texts[0], "k": 2})
        body = {"impression": r.json()["impression"], "clicked": [r.json()["hits"][0]["id"]]}
        assert proxy.post("/v1/feedback", json=body, headers={"Origin": "https://127.0.0.1"}).status_code == 403
        r = proxy.post("/v1/feedback", json=body, headers={"Origin": "https://127.0.0.1", "X-Forwarded-Proto": "https"})
        assert r.status_code == 201


def test_the_spoofing_flood_of_the_issue_neither_promotes_nor_passes_its_cap(staged, tmp_path, capsys):
    """The attack of issue 45, replayed: 100 searches and clicks from one caller under rotating
    X-Client-Id, all clicking the candidate's results, against 10 honest users (3 searches each)
    who click the served ranking's. Counted by name, that had promoted the candidate ("mean over
    110 clients, +0.858"); counted by address the flood is one client of 11 and one vote."""
    path = tmp_path / "idx"
    shutil.copytree(staged, path)
    texts = corpus()[0]
    app = _app(path, interleave=1.0, seed=0)

    def search_and_click(c, q, prefer, headers=None):
        r = c.get("/v1/search", params={"q": q, "k": 6}, headers=headers or {})
        assert r.status_code == 200, r.text
        answer = r.json()
        with FeedbackLog(path, readonly=True) as log:
            (imp,) = [x for x in log.impressions() if x["id"] == answer["impression"]]
        picks = [h["id"] for h, team in zip(answer["hits"], imp["teams"]) if team == prefer]
        if picks:
            assert c.post("/v1/feedback", json={"impression": answer["impression"], "clicked": picks[:1]},
                          headers=headers or {}).status_code == 201

    with TestClient(app, raise_server_exceptions=False, base_url=BASE):
        for user in range(10):
            honest = _as(app, f"10.0.0.{user + 1}")
            for i in range(3):
                search_and_click(honest, texts[(3 * user + i) % 60], "s")
        attacker = _as(app, "10.6.6.6")
        for i in range(100):       # queries of its own: its comparisons can be told apart below
            search_and_click(attacker, texts[60 + i % 60], "c", {"X-Client-Id": f"sybil-{i}"})

    with Index.open(path) as index:
        evidence = promotion_evidence(index, index.version_pipeline(2))
    inter = evidence["interleaving"]
    assert evidence["better"] is False and inter["clients"] == 11 and inter["delta"] < 0
    with FeedbackLog(path, readonly=True) as log:
        impressions = list(log.impressions(with_clicks_only=True))
        flood = log.pseudonym("addr:10.6.6.6")
    assert sum(imp["client"] == flood for imp in impressions) >= 90
    # the same searches counted one by one (what rotating names had bought): the flood would win
    outcomes, _ = interleaved_outcomes(impressions, 1, 2)
    assert interleaving_verdict(outcomes)["better"] is True
    assert main(["index", "promote", str(path), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["promoted"] is False
    with Index.open(path) as index:
        assert index.model_version == 1

    # the flood is one client in the comparisons a refit learns from too, held to its cap
    flood_queries = set(texts[60:])

    def flooded(rows):
        return sum(q in flood_queries for q, _, _ in rows)

    raw = click_comparisons(impressions, max_client_share=1.0, position_bias="joachims")
    capped = click_comparisons(impressions, position_bias="joachims")
    counts = {}
    for imp in impressions:
        counts.setdefault(imp["client"], []).append(imp)
    counts = {c: len(click_comparisons(imps, max_client_share=1.0, position_bias="joachims"))
              for c, imps in counts.items()}
    cap = _client_cap(counts, 0.1)
    assert flooded(raw) == counts[flood] >= 0.6 * len(raw)       # uncapped, most of the comparisons
    assert flooded(capped) == cap < counts[flood]                  # capped: the typical client's volume
    assert len(capped) - flooded(capped) == len(raw) - flooded(raw)   # the users' all kept
    assert flooded(capped) <= 0.25 * len(capped)


def test_a_promotion_needs_five_clients(staged, tmp_path):
    """However clear the interleaved searches of four clients, they do not promote (one client,
    one vote, none weighing more than a fifth); a fifth client does."""
    path = tmp_path / "idx"
    shutil.copytree(staged, path)
    texts = corpus()[0]
    app = _app(path, interleave=1.0, seed=0)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE), FeedbackLog(path, readonly=True) as log:
        def session(address, n):
            c = _as(app, address)
            for i in range(n):
                answer = c.get("/v1/search", params={"q": texts[(3 * i + len(address)) % len(texts)], "k": 6}).json()
                (imp,) = [x for x in log.impressions() if x["id"] == answer["impression"]]
                picks = [h["id"] for h, team in zip(answer["hits"], imp["teams"]) if team == "c"]
                if picks:
                    c.post("/v1/feedback", json={"impression": answer["impression"], "clicked": picks[:1]})

        for user in range(4):
            session(f"10.0.1.{user + 1}", 8)
        with Index.open(path) as index:
            four = promotion_evidence(index, index.version_pipeline(2))
            assert promotion_evidence(index, index.version_pipeline(2), min_clients=4)["better"] is True
        session("10.0.1.9", 8)
        with Index.open(path) as index:
            five = promotion_evidence(index, index.version_pipeline(2))
    assert MIN_PROMOTION_CLIENTS == 5
    assert four["better"] is False and "fewer than the 5" in four["reason"] and four["interleaving"]["delta"] > 0.5
    assert five["better"] is True and five["interleaving"]["deciding_clients"] == 5


# --------------------------------------------------------------------------- keyless on a network
def test_keyless_learning_on_a_network_address_is_refused(fresh, capsys):
    for argv in (["--host", "0.0.0.0"], ["--host", "10.1.2.3"], ["--host", "::"], ["--host", "example.org"]):
        assert main(["serve", str(fresh), "--learn-from-clicks", *argv]) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--allow-anonymous-learning" in err[0] and "--api-key-env" in err[0], err
    assert main(["serve", str(fresh), "--allow-anonymous-learning"]) == 2
    assert "need --learn-from-clicks" in capsys.readouterr().err
    for bad in ("12", "1X", "-5M"):
        assert main(["serve", str(fresh), "--learn-from-clicks", f"--feedback-max-bytes={bad}"]) == 2
        assert "number of bytes" in capsys.readouterr().err
    with pytest.raises(ValueError, match="allow_anonymous_learning"):
        create_app(fresh, learn_from_clicks=True, host="0.0.0.0")
    # asked for, or with a key, or on this machine alone: served
    for options in ({"host": "0.0.0.0", "allow_anonymous_learning": True}, {"host": "0.0.0.0", "api_key": KEY},
                    {"host": "127.0.0.1"}, {"host": "::1"}, {"host": "localhost"}):
        with TestClient(create_app(fresh, learn_from_clicks=True, allowed_hosts=["127.0.0.1"], **options),
                        base_url=BASE) as c:
            assert c.get("/healthz").status_code == 200, options


# --------------------------------------------------------------------------- bounded recording
def test_a_flood_of_impressions_stops_at_the_bounds_counted(fresh):
    texts = corpus()[0]
    app = _app(fresh, feedback_max_bytes=20_000, feedback_client_share=0.4)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        flood = _as(app, "10.6.6.6")
        # the same search again and again: impressions of one size
        answers = [flood.get("/v1/search", params={"q": texts[0], "k": 20}) for i in range(60)]
        assert all(r.status_code == 200 and r.json()["hits"] for r in answers)     # searches answered all along
        named = [r.json()["impression"] for r in answers]
        assert named[0] and named[-1] is None                                       # recorded, then not
        first_drop = named.index(None)
        assert all(x is None for x in named[first_drop:])
        info = c.get("/v1/info").json()["learn_from_clicks"]
        assert info["max_bytes"] == 20_000 and info["client_share"] == 0.4
        assert info["dropped"] == {"client_bytes": 60 - first_drop} and info["dropped_impressions"] == 60 - first_drop
        # other clients have room still, until the whole log is full
        more = []
        for address in ("10.0.0.1", "10.0.0.2"):
            other = _as(app, address)
            more += [other.get("/v1/search", params={"q": texts[1], "k": 20}).json()["impression"] for i in range(60)]
        assert more[0] and more[60] and more[-1] is None
        info = c.get("/v1/info").json()["learn_from_clicks"]
        assert info["dropped"]["total_bytes"] >= 1
        # a click on a kept impression is taken, in the part of the bound impressions leave to
        # clicks (it was a 507: a log full of impressions took no click), ...
        r = flood.post("/v1/feedback", json={"impression": named[0], "clicked": [answers[0].json()["hits"][0]["id"]]})
        assert r.status_code == 201, r.text
        # ... and a click past the bound is refused, not acknowledged
        codes = [flood.post("/v1/feedback", json={"impression": token, "clicked": [h["id"] for h in a.json()["hits"]]})
                 for token, a in zip(named[1:first_drop], answers[1:first_drop])]
        refused = [r for r in codes if r.status_code != 201]
        assert refused and all(r.status_code == 507 and "not recorded" in r.json()["error"] for r in refused)
    with FeedbackLog(fresh, readonly=True) as log:
        stats = log.stats()
        rows = log.conn.execute("SELECT * FROM impressions LIMIT 1")
        columns = {d[0] for d in rows.description}
    assert stats["bytes"] <= 20_000 and stats["impressions"] == first_drop + sum(x is not None for x in more)
    # only what learning needs: the query, the ids shown in order, the model, the pseudonym, the teams
    assert columns == {"id", "time", "query", "shown", "model", "client", "teams", "bytes"}
    shown_texts = [h["text"] for h in answers[0].json()["hits"] if h["text"] not in texts[:2]]   # not a query
    raw = b"".join(f.read_bytes() for f in fresh.glob("feedback.sqlite*"))
    assert len(shown_texts) >= 10 and not any(t.encode() in raw for t in shown_texts) and b"10.6.6.6" not in raw


def test_an_impression_the_log_refuses_is_counted_and_logged_once(fresh, caplog):
    """A search whose impression the log does not take (an item over its bounds) was answered
    with none and a log line each: a client sending such searches filled the server's log, and
    /v1/info counted nothing."""
    texts = corpus()[0]
    app = _app(fresh)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        recorder = app.state.recorder

        async def refused(items, **kwargs):
            raise ValueError("an item the log does not take")

        recorder.impressions = refused
        answers = [c.get("/v1/search", params={"q": texts[i], "k": 3}) for i in range(20)]
        answers.append(c.post("/v1/search", json={"queries": [texts[0], texts[1]], "k": 3}))
        assert all(r.status_code == 200 for r in answers)
        assert all(r.json()["impression"] is None for r in answers[:20]) and answers[-1].json()["impressions"] == [None, None]
        info = c.get("/v1/info").json()["learn_from_clicks"]
        assert info["dropped"] == {"invalid": 22} and info["dropped_impressions"] == 22
    lines = [r for r in caplog.records if r.name == "learnsim.service" and "impression" in r.getMessage()]
    assert len(lines) == 1, [r.getMessage() for r in lines]


def test_the_log_counts_its_bytes_whoever_writes_it(tmp_path):
    """The counts are the database's (triggers): right after a purge by another handle, after
    retention, and for a log made before the counts (migrated once)."""
    with FeedbackLog(tmp_path, max_rows=30) as log:
        for i in range(150):
            log.record_impression(f"query {i}", ["a", "b"], client=f"c{i % 3}")
        total = log.conn.execute("SELECT SUM(bytes) FROM impressions").fetchone()[0]
        assert log.stats()["bytes"] == total and log.stats()["impressions"] <= 130
        per = dict(log.conn.execute("SELECT client, bytes FROM usage WHERE client != '*'").fetchall())
        assert per == dict(log.conn.execute("SELECT client, SUM(bytes) FROM impressions GROUP BY client").fetchall())
        with FeedbackLog(tmp_path) as other:
            other.purge(everything=True)
        assert log.stats()["bytes"] == 0
        assert log.conn.execute("SELECT COUNT(*) FROM usage WHERE client != '*'").fetchone()[0] == 0
    old = tmp_path / "old.sqlite"
    conn = sqlite3.connect(old)
    conn.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('salt', '00ff');
        CREATE TABLE impressions (id TEXT PRIMARY KEY, time REAL NOT NULL, query TEXT NOT NULL, shown TEXT NOT NULL,
                                  model TEXT, client TEXT);
        CREATE TABLE clicks (seq INTEGER PRIMARY KEY AUTOINCREMENT, impression TEXT NOT NULL, doc_id TEXT NOT NULL,
                             position INTEGER NOT NULL, time REAL NOT NULL, dwell REAL, relevance REAL, client TEXT);
        INSERT INTO impressions VALUES ('i1', 1e9, 'abc', '["a","b"]', 'v1', 'x');
        INSERT INTO clicks(impression, doc_id, position, time) VALUES ('i1', 'a', 1, 1e9);
    """)
    conn.close()
    with FeedbackLog(old) as log:
        expected = 3 + len('["a","b"]') + 100 + (1 + 48)
        assert log.stats()["bytes"] == expected
        assert log.conn.execute("SELECT bytes FROM usage WHERE client = 'x'").fetchone()[0] == expected


def test_a_locked_log_does_not_slow_searches_and_clicks_get_a_quick_503(fresh, caplog):
    texts = corpus()[0]
    app = _app(fresh)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        r = c.get("/v1/search", params={"q": texts[0], "k": 3})
        before = {"impression": r.json()["impression"], "clicked": [r.json()["hits"][0]["id"]]}
        other = sqlite3.connect(fresh / "feedback.sqlite", isolation_level=None, timeout=5)
        other.execute("BEGIN EXCLUSIVE")           # a purge, a backup, a sqlite3 shell
        try:
            slowest = 0.0
            for i in range(15):
                start = time.monotonic()
                r = c.get("/v1/search", params={"q": texts[i + 1], "k": 5})
                slowest = max(slowest, time.monotonic() - start)
                assert r.status_code == 200 and r.json()["hits"] and r.json()["impression"] is None
            start = time.monotonic()
            page = c.get("/", params={"q": texts[2]})
            assert page.status_code == 200 and time.monotonic() - start < 1.0     # it explains its hits too
            batch = c.post("/v1/search", json={"queries": [texts[3], texts[4]], "k": 2})
            assert batch.status_code == 200 and batch.json()["impressions"] == [None, None]
            assert slowest < 0.5, slowest
            start = time.monotonic()
            r = c.post("/v1/feedback", json=before)
            took = time.monotonic() - start
            assert r.status_code == 503 and r.headers["Retry-After"] and took < 1.5, (r.status_code, took)
            assert "not recorded" in r.json()["error"]
            info = c.get("/v1/info").json()["learn_from_clicks"]
            assert info["dropped_impressions"] >= 18 and info["dropped"].get("busy", 0) >= 1
            # said in the server's log, at most once a minute
            lines = [r for r in caplog.records if "dropped" in r.getMessage() and r.name == "learnsim.service"]
            assert len(lines) == 1
        finally:
            other.execute("ROLLBACK")
            other.close()
        # the lock gone, all is as before
        r = c.get("/v1/search", params={"q": texts[5], "k": 3})
        assert r.json()["impression"]
        assert c.post("/v1/feedback", json=before).status_code == 201
        assert c.get("/healthz").json() == {"status": "ok"}


def test_a_log_damaged_while_serving_is_reported_and_takes_no_click(fresh):
    texts = corpus()[0]
    app = _app(fresh)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        r = c.get("/v1/search", params={"q": texts[0], "k": 3})
        body = {"impression": r.json()["impression"], "clicked": [r.json()["hits"][0]["id"]]}
        assert c.post("/v1/feedback", json=body).status_code == 201
        with open(fresh / "feedback.sqlite", "r+b") as f:
            f.write(b"\0" * 100)
        health = c.get("/healthz")
        assert health.status_code == 200 and health.json()["status"] == "degraded"
        assert "feedback.sqlite is damaged" in health.json()["feedback_log"] and str(fresh) not in health.text
        r = c.post("/v1/feedback", json=body)
        assert r.status_code == 503 and r.json()["code"] == "feedback_log_damaged"
        r = c.get("/v1/search", params={"q": texts[1], "k": 3})      # searches go on, unrecorded
        assert r.status_code == 200 and r.json()["hits"] and r.json()["impression"] is None
        info = c.get("/v1/info").json()["learn_from_clicks"]
        assert "damaged" in info["damage"] and info["dropped"]["damaged"] >= 1
    # nothing refused was written: the log, once readable again (a checkpoint at the close may
    # have written its first page back from the WAL), holds the one click acknowledged
    try:
        log = FeedbackLog(fresh, readonly=True)
    except ValueError as exc:
        assert "not a learnsim feedback log" in str(exc)
    else:
        with log:
            assert log.stats()["clicks"] == 1


def test_damage_is_found_when_the_log_opens_and_on_every_write(tmp_path):
    """A page damaged inside the file: PRAGMA quick_check (the service runs it when it starts);
    a file removed or replaced under an open log: the next write."""
    with FeedbackLog(tmp_path) as log:
        for i in range(300):
            log.record_impression(f"a query {i} " + "x" * 200, [f"d{j}" for j in range(20)], client=str(i))
        log.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    file = tmp_path / "feedback.sqlite"
    data = bytearray(file.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[3 * page:3 * page + 200] = b"\xa5" * 200          # a b-tree page's header and cells
    file.write_bytes(bytes(data))
    with FeedbackLog(tmp_path) as log:
        with pytest.raises(LogDamaged):
            log.check()
        assert log.damage and "feedback.sqlite is damaged" in log.damage
        with pytest.raises(LogDamaged):
            log.record_impression("q", ["a"])
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    with FeedbackLog(fresh) as log:
        log.check()
        shown = log.record_impression("q", ["a", "b"])
        (fresh / "feedback.sqlite").rename(fresh / "moved.sqlite")
        with pytest.raises(LogDamaged, match="removed"):
            log.record_clicks(shown, ["a"])


def test_the_log_tells_a_lock_and_its_bounds_apart(tmp_path):
    log = FeedbackLog(tmp_path, busy_timeout=0.05, max_bytes=4096, client_share=0.5)
    try:
        assert log.max_bytes == 4096 and FeedbackLog.__init__.__kwdefaults__["max_bytes"] == DEFAULT_MAX_BYTES
        many = ["a", "b"] + [f"s{i}" for i in range(18)]
        shown = log.record_impression("q", many, client="me")
        ids = log.record_impressions([("query", ["a"] * 1 + [f"b{i}" for i in range(50)], None, "me", None)] * 8)
        assert ids.count(None) >= 1 and log.dropped["client_bytes"] == ids.count(None)
        other = sqlite3.connect(log.path, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        start = time.monotonic()
        with pytest.raises(LogBusy):
            log.record_clicks(shown, ["a"])
        assert time.monotonic() - start < 0.5
        other.execute("ROLLBACK")
        other.close()
        with pytest.raises(LogFull) as full:
            log.record_clicks(shown, many)
        assert full.value.bound == "client"
        assert log.conn.execute("SELECT COUNT(*) FROM clicks").fetchone()[0] == 0     # none of the 20
        # the bound is this client's: another one's click is taken
        theirs = log.record_impression("q", ["a", "b"], client="someone else")
        assert log.record_clicks(theirs, ["b"]) == 1 and log.damage is None
    finally:
        log.close()


def test_a_click_link_with_a_document_given_twice_or_a_foreign_origin_records_nothing(fresh):
    """Stop 68's sweep: /click took the last of two d= silently (a click of another document fed
    learning), and recorded a click carrying another site's Origin, which a POST refuses."""
    texts = corpus()[0]
    app = _app(fresh)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        hit = c.get("/v1/search", params={"q": texts[0], "k": 3}).json()
        ids = [h["id"] for h in hit["hits"]]
        twice = f"/click?i={hit['impression']}&d={quote(ids[0], safe='')}&d={quote(ids[1], safe='')}"
        assert c.get(twice, follow_redirects=False).status_code == 400
        again = f"/click?i={hit['impression']}&i={hit['impression']}&d={quote(ids[0], safe='')}"
        assert c.get(again, follow_redirects=False).status_code == 400
        link = {"i": hit["impression"], "d": ids[2]}
        r = c.get("/click", params=link, headers={"Origin": "https://evil.example"}, follow_redirects=False)
        assert r.status_code == 303                       # shown, not recorded
        r = c.get("/click", params=link, headers={"Origin": BASE}, follow_redirects=False)
        assert r.status_code == 303                       # the service's own origin: recorded
    with FeedbackLog(fresh, readonly=True) as log:
        assert [len(imp["clicks"]) for imp in log.impressions()] == [1]

# --------------------------------------------------------------------------- every loopback address is one client
# (stop 69's sweep, cases 1 and 2) Any local user can open its connections from any address of
# 127.0.0.0/8 (and ::1) without privileges. Counted one by one, a single process on
# 127.0.0.2..127.0.0.6 was five clients: it promoted a candidate fitted on another collection
# ("mean over 5 clients") on its own, and on 127.0.0.2..127.0.0.13 it filled twelve clients'
# shares of the log in bytes. Now all of them are one client, as an IPv6 caller is one /64.

LOCAL = ("127.0.0.1", "127.0.0.2", "127.0.0.6", "127.255.255.254", "::1", "0:0:0:0:0:0:0:1",
         "::ffff:127.0.0.3", "::ffff:127.9.9.9")


def test_every_loopback_address_is_counted_as_one():
    assert {_network(a) for a in LOCAL} == {LOOPBACK}
    # the others as before: an IPv4 address itself (mapped or not), an IPv6 one by its /64
    assert _network("10.0.0.1") == _network("::ffff:10.0.0.1") == "10.0.0.1"
    assert _network("2001:db8::1") == _network("2001:db8::ffff") == "2001:db8::/64"
    assert _network("128.0.0.1") == "128.0.0.1" and _network("testclient") == "testclient"


def test_an_ipv6_address_carrying_an_ipv4_one_is_that_ipv4_client():
    """6to4 gives the holder of one IPv4 address the /48 2002:V4ADDR::, 65,536 /64s: counted by
    /64, one caller was as many clients as it liked (five are a promotion's votes, ten fill the
    log's bound in bytes). A 6to4 address is now its IPv4 address, as an IPv4-mapped one is, and
    a Teredo address its client's IPv4 address (its /64 is the relay's, shared by strangers)."""
    one = {_network(f"2002:c000:0204:{n:x}::{n + 1:x}") for n in range(0, 65536, 4099)}
    assert one == {"192.0.2.4"} == {_network("192.0.2.4")}
    assert _network("2002:c000:0205::1") == "192.0.2.5"
    teredo = "2001:0:4136:e378:8000:63bf:3fff:fdd2"     # RFC 4380's example: client 192.0.2.45
    assert _network(teredo) == "192.0.2.45" != _network("2001:0:4136:e378:8000:63bf:3fff:fdd3")
    assert _network("2002:7f00:0001::1") == LOOPBACK   # 6to4 of 127.0.0.1: local, as it is


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


@pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"-Infinity", b"1e400"])
def test_a_grade_that_is_no_finite_number_is_named_so(fresh, number):
    """Python's JSON reads NaN, Infinity and 1e400 (none a JSON number): a click's "dwell" of NaN
    was refused as "less than or equal to 10000000", a bound it is not over. It is now a 422
    saying the grade must be a finite number; nothing is recorded."""
    texts = corpus()[0]
    with TestClient(_app(fresh), raise_server_exceptions=False, base_url=BASE) as c:
        found = c.get("/v1/search", params={"q": texts[0]}).json()
        for field in (b"dwell", b"relevance"):
            body = b'{"impression": "%s", "clicked": ["%s"], "%s": %s}' % (
                found["impression"].encode(), found["hits"][0]["id"].encode(), field, number)
            r = c.post("/v1/feedback", content=body, headers={"Content-Type": "application/json"})
            assert r.status_code == 422 and "finite number" in r.json()["error"] and field.decode() in r.json()["error"], r.text
    with FeedbackLog(fresh, readonly=True) as log:
        assert [len(imp["clicks"]) for imp in log.impressions()] == [0]


# --------------------------------------------------------------------------- who may click
def test_a_click_counts_only_from_the_client_that_searched(fresh):
    """Before, a click counted for whoever had searched, whoever sent it: with an impression's
    token, client b voted (and spent its share of the log) in a's name. Another client's click
    is now a 403 naming it, nothing written; the searcher's own, with the key and the same
    X-Client-Id (a front end that searches and clicks for its user), or from the same address,
    is recorded; a page's click link followed by another client still shows the document."""
    texts = corpus()[0]
    app = _app(fresh, api_key=KEY)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE):
        front_end = _as(app, "10.0.0.9")
        as_a = {"X-Client-Id": "a", "X-API-Key": KEY}
        r = front_end.get("/v1/search", params={"q": texts[0], "k": 3}, headers=as_a)
        token, shown = r.json()["impression"], [h["id"] for h in r.json()["hits"]]
        for other in ({"X-Client-Id": "b", "X-API-Key": KEY}, {"X-API-Key": KEY}):
            r = front_end.post("/v1/feedback", json={"impression": token, "clicked": [shown[0]]}, headers=other)
            assert r.status_code == 403 and "another client" in r.json()["error"], r.text
        r = front_end.post("/v1/feedback", json={"impression": token, "clicked": [shown[1]]}, headers=as_a)
        assert r.status_code == 201, r.text
    with FeedbackLog(fresh, readonly=True) as log:
        clicks = [c["doc_id"] for imp in log.impressions() for c in imp["clicks"]]
    assert clicks == [shown[1]]


def test_a_keyless_click_counts_only_from_the_searchers_address(fresh):
    texts = corpus()[0]
    app = _app(fresh)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE):
        r = _as(app, "10.0.0.1").get("/v1/search", params={"q": texts[0], "k": 3})
        token, shown = r.json()["impression"], [h["id"] for h in r.json()["hits"]]
        r = _as(app, "10.0.0.2").post("/v1/feedback", json={"impression": token, "clicked": [shown[0]]})
        assert r.status_code == 403 and "another client" in r.json()["error"], r.text
        link = _as(app, "10.0.0.2").get("/click", params={"i": token, "d": shown[0]}, follow_redirects=False)
        assert link.status_code == 303                    # shown, not learned from
        r = _as(app, "10.0.0.1").post("/v1/feedback", json={"impression": token, "clicked": [shown[1]]})
        assert r.status_code == 201, r.text
    with FeedbackLog(fresh, readonly=True) as log:
        assert [c["doc_id"] for imp in log.impressions() for c in imp["clicks"]] == [shown[1]]


def test_an_ipv6_prefix_coarser_than_a_64_counts_a_customers_networks_as_one():
    """A customer given a /56 or /48 holds 256 or 65,536 /64s: counted by /64, as many clients
    (five are a promotion's votes). ``ipv6_prefix`` (``--ipv6-prefix``, 48..64) counts by a
    coarser network; the default stays the /64, and IPv4 and loopback are as before."""
    site = [f"2001:db8:{n:x}:{m:x}::1" for n in (0, 1) for m in range(0, 65536, 8191)]
    assert len({_network(a) for a in site}) == len(site)               # by /64: each a client
    assert {_network(a, 48) for a in site} == {"2001:db8::/48", "2001:db8:1::/48"}
    assert len({_network(f"2001:db8:0:{m:x}::1", 56) for m in range(256)}) == 1
    assert _network("10.0.0.1", 48) == "10.0.0.1" and _network("::1", 48) == LOOPBACK
    for bad in (47, 65, 64.5, True, "56"):
        with pytest.raises(ValueError, match="48 to 64"):
            ClickRecorder("unused", max_days=1, max_rows=1, interleave=0, pool=1, seed=0, max_pending=1,
                          timeout_s=1, ipv6_prefix=bad)


def test_the_service_counts_ipv6_callers_by_the_prefix_given(fresh):
    texts = corpus()[0]
    app = _app(fresh, feedback_ipv6_prefix=48)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE):
        for n in range(5):      # five /64s of one /48
            r = _as(app, f"2001:db8:7:{n:x}::1").get("/v1/search", params={"q": texts[n], "k": 3})
            assert r.status_code == 200
        token, shown = r.json()["impression"], [h["id"] for h in r.json()["hits"]]
        # a click from another /64 of the same /48 is the same client's
        r = _as(app, "2001:db8:7:ff::9").post("/v1/feedback", json={"impression": token, "clicked": [shown[0]]})
        assert r.status_code == 201, r.text
    assert len(set(_clients_logged(fresh))) == 1


def test_serve_refuses_an_ipv6_prefix_out_of_range(fresh, capsys):
    for bad in ("47", "65", "x"):
        assert main(["serve", str(fresh), "--learn-from-clicks", "--ipv6-prefix", bad]) == 2
        assert "IPv6 prefix" in capsys.readouterr().err
    assert main(["serve", str(fresh), "--ipv6-prefix", "56"]) == 2
    assert "--ipv6-prefix" in capsys.readouterr().err
