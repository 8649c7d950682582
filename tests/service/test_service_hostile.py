"""``learnsim serve`` against the attacks of issue 30: every request's work bounded before it starts
(the search budget, a deadline that stops a request between two pieces of its work, a fair queue
where a light search runs between a heavy request's pieces), the API key checked before the body
is read, the Host allowlist (DNS rebinding), cross-site form posts and foreign origins on every
write route, CORS off unless asked for, ``protect_reads``, ids holding ``/``, ``%``, ``?``, ``#``,
spaces and non-ASCII letters on every route, and a damaged index answered 503 ``index_damaged``
(no server path in the answer) while the intact parts are still served and ``/healthz`` says
``degraded``. Issue 45: numbers and booleans strict in every request model, a key given twice in
a body or filter refused naming it, nesting refused at MAX_JSON_DEPTH (64), texts with no letter
or digit refused naming the field, and a document edited in docs.sqlite answered 503, never served.

Ordering and progress are asserted, never timings: the index's calls are recorded (and held
where a test needs the queue in a given state), so the tests say the same on a loaded machine.
"""
from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import threading
import time
import warnings
from urllib.parse import quote

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from learnsim.service._schema import SCHEMA_CONTENT_PATTERN as CONTENT_PATTERN  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402
from learnsim.service import app as service  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

KEY = "hostile-test-key"
BASE = "http://127.0.0.1"
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    root = tmp_path_factory.mktemp("hostile")
    Index.build(root / "mcd", model("mcd"), texts, ids, meta).close()
    Index.build(root / "bm25", model("bm25"), texts, ids, meta).close()
    return root


@pytest.fixture
def fresh(built, tmp_path):
    path = tmp_path / "idx"
    shutil.copytree(built / "mcd", path)
    return path


def _client(path, base=BASE, **options):
    return TestClient(create_app(path, **options), raise_server_exceptions=False, base_url=base)


def _is_error(r, code, *words):
    assert r.status_code == code, (r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert set(body) == {"error", "code"} and isinstance(body["error"], str) and body["error"]
    for word in words:
        assert word in body["error"], (word, body["error"])
    return body


def _wait_for(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert condition()


class Recorder:
    """Wraps ``index.search`` (called in the index's thread) and records each call's queries; a
    call whose first query is a key of ``holds`` waits until that key's event is set (and sets
    ``holding[key]`` meanwhile)."""

    def __init__(self, index, holds=(), delay=0.0):
        self.index, self.real, self.delay = index, index.search, delay
        self.holds = {q: threading.Event() for q in holds}
        self.holding = {q: threading.Event() for q in holds}
        self.calls = []
        index.search = self

    def __call__(self, queries, *args, **kwargs):
        batch = [queries] if isinstance(queries, str) else list(queries)
        self.calls.append(batch)
        if batch[0] in self.holds:
            self.holding[batch[0]].set()
            assert self.holds[batch[0]].wait(20)
        if self.delay:
            time.sleep(self.delay)
        return self.real(queries, *args, **kwargs)


# --------------------------------------------------------------------------- the budget
def test_the_attack_search_is_refused_before_any_work(built):
    """25 queries, k=1000, explain=true: 44 s of the read thread before; now a 422 naming the
    limit, and the index is never called."""
    app = create_app(built / "mcd")
    c = TestClient(app, raise_server_exceptions=False, base_url=BASE)
    rec = Recorder(app.state.index)
    attack = {"queries": [f"w{i:03d} w{i + 1:03d}" for i in range(25)], "k": 1000, "explain": True, "n_top": 100}
    assert len(json.dumps(attack)) < 600
    _is_error(c.post("/v1/search", json=attack), 422, "MAX_HITS")
    _is_error(c.post("/v1/search", json=dict(attack, k=30)), 422, "MAX_EXPLAIN_K")
    _is_error(c.post("/v1/search", json=dict(attack, k=20, n_top=10)), 422, "MAX_EXPLAINED")
    _is_error(c.post("/v1/search", json=dict(attack, queries=attack["queries"][:2], k=20, n_top=100)), 422,
              "MAX_EXPLAIN_WORDS")
    _is_error(c.get("/v1/search", params={"q": "w001", "k": 21, "explain": "true"}), 422, "MAX_EXPLAIN_K")
    _is_error(c.get("/v1/search", params={"q": "w001", "k": 20, "explain": "true", "n_top": 101}), 422)
    _is_error(c.post("/v1/search", json={"queries": ["w001"] * 3, "k": 1000}), 422, "MAX_HITS")
    assert rec.calls == []   # refused before anything ran
    # at the bounds: answered
    assert c.post("/v1/search", json={"queries": ["w001"] * 2, "k": 1000}).status_code == 200
    hits = c.get("/v1/search", params={"q": "w001 w002", "k": 20, "explain": "true", "n_top": 100}).json()["hits"]
    assert len(hits) == 20 and all("explanation" in h for h in hits)
    r = c.post("/v1/search", json={"queries": ["w001 w002"] * 5, "k": 20, "explain": True, "n_top": 20})
    assert r.status_code == 200 and all("explanation" in h for hits in r.json()["results"] for h in hits)
    assert service.search_budget(1, service.MAX_K) is None
    assert service.search_budget(service.MAX_HITS // 10 + 1, 10) is not None


def test_explained_hits_are_the_index_explanations(built):
    """Explanations computed a few hits a call are the ones Index.search(explain=True) gives."""
    c = _client(built / "mcd")
    texts = corpus()[0]
    hits = c.get("/v1/search", params={"q": texts[3], "k": 6, "explain": "true", "n_top": 4}).json()["hits"]
    with Index.open(built / "mcd") as idx:
        expected = idx.search(texts[3], 6, explain=True, n_top=4)
    assert [h["id"] for h in hits] == [h["id"] for h in expected]
    for got, want in zip(hits, expected):
        assert [w["word"] for w in got["explanation"]["words"]] == [w["word"] for w in want["explanation"]["words"]]
        assert got["explanation"]["score"] == pytest.approx(want["explanation"]["score"])


def test_match_and_body_bounds_are_refused(built):
    c = _client(built / "mcd")
    _is_error(c.post("/v1/match", json={"text": "w001", "k": service.MAX_MATCH_K + 1}), 422)
    _is_error(c.post("/v1/match", json={"pairs": [["a", "b"]] * (service.MAX_PAIRS + 1)}), 422)
    _is_error(c.post("/v1/explain", json={"query": "w001", "document": "w001 " * 3000}), 413)
    _is_error(c.get("/v1/docs/d1/similar", params={"k": service.MAX_K + 1}), 422)


def test_an_integer_past_pythons_digits_is_a_400_naming_it(built):
    """A JSON integer of 5,000 digits (Python converts at most 4,300) in a body or a filter."""
    c = _client(built / "mcd")
    long = "9" * 5000
    _is_error(c.post("/v1/search", content='{"queries": ["w001"], "k": %s}' % long, headers=JSON), 400,
              "integer of more than")
    _is_error(c.get("/v1/search", params={"q": "w001", "filter": '{"n": %s}' % long}), 400, "integer of more than")


# --------------------------------------------------------------------------- deadline and fairness
def test_a_request_past_its_deadline_is_stopped_and_frees_the_worker(built):
    app = create_app(built / "mcd", deadline_s=0.3)
    c = TestClient(app, raise_server_exceptions=False, base_url=BASE)
    rec = Recorder(app.state.index, delay=0.1)
    heavy = {"queries": [f"w{i:03d} w{i + 7:03d}" for i in range(10)], "k": 200}   # 5 pieces of 2 queries
    r = c.post("/v1/search", json=heavy)
    _is_error(r, 503, "deadline")
    ran = len(rec.calls)
    assert 1 <= ran < 5   # stopped between two pieces, not run to the end
    time.sleep(0.3)
    assert len(rec.calls) == ran   # nothing more of it runs afterwards
    rec.delay = 0
    assert c.get("/v1/search", params={"q": "w001"}).status_code == 200   # the worker is free
    # explanations stop the same way
    rec.delay = 0.1
    r = c.post("/v1/search", json={"queries": ["w001 w002"] * 5, "k": 20, "explain": True})
    _is_error(r, 503, "deadline")


def test_a_light_search_runs_between_the_pieces_of_a_heavy_one(built):
    """A heavy in-budget search (10 queries x k=200: 5 pieces of 2 queries) is held in its first
    piece while three light searches come in: they run, as one batch, right after that piece and
    before the heavy request's next one, and are answered while the heavy request waits in its
    second piece (held until they are)."""
    app = create_app(built / "mcd")
    c = TestClient(app, raise_server_exceptions=False, base_url=BASE)
    worker = app.state.worker
    heavy = [f"w{i:03d} w{i + 3:03d} heavy" for i in range(10)]
    rec = Recorder(app.state.index, holds=(heavy[0], heavy[2]))
    answers = {}

    def light(i):
        answers[i] = c.get("/v1/search", params={"q": f"w{100 + i:03d}", "k": 3})

    heavy_thread = threading.Thread(target=lambda: answers.__setitem__(
        "heavy", c.post("/v1/search", json={"queries": heavy, "k": 200})))
    heavy_thread.start()
    assert rec.holding[heavy[0]].wait(20)   # the heavy request's first piece is running
    lights = [threading.Thread(target=light, args=(i,)) for i in range(3)]
    for t in lights:
        t.start()
    _wait_for(lambda: worker.waiting == 3)
    rec.holds[heavy[0]].set()
    for t in lights:
        t.join(30)
    # the light searches are answered; the heavy one is still in its second piece
    assert all(answers[i].status_code == 200 and len(answers[i].json()["hits"]) == 3 for i in range(3))
    # (its second piece may start a moment after the light answers: waited for, on a loaded machine)
    assert rec.holding[heavy[2]].wait(20) and "heavy" not in answers and heavy_thread.is_alive()
    rec.holds[heavy[2]].set()
    heavy_thread.join(30)
    assert answers["heavy"].status_code == 200 and len(answers["heavy"].json()["results"]) == 10
    kinds = ["heavy" if call[0].endswith("heavy") else "light" for call in rec.calls]
    assert kinds == ["heavy", "light"] + ["heavy"] * 4, kinds   # the light ones, as one batch, second
    assert sorted(rec.calls[1]) == sorted(f"w{100 + i:03d}" for i in range(3))


# --------------------------------------------------------------------------- the key, before the body
def _asgi_call(app, method, path, headers, body=b"", query=b""):
    """Run one request through the ASGI app directly: (status, answer body, receive() calls)."""
    sent, received = [], []

    async def receive():
        received.append(1)
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
             "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query,
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
             "client": ("127.0.0.1", 5), "server": ("127.0.0.1", 80), "root_path": ""}
    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    return start["status"], b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"), len(received)


def test_the_key_is_checked_before_the_body_is_read(fresh):
    app = create_app(fresh, api_key=KEY)
    big = b'{"documents": [{"text": "' + b"w001 " * 200_000 + b'"}]}'
    head = {"host": "127.0.0.1", "content-type": "application/json", "content-length": str(len(big))}
    status, body, reads = _asgi_call(app, "POST", "/v1/docs", head, big)
    assert status == 401 and json.loads(body)["code"] == 401
    assert reads == 0   # the body was never read, let alone parsed
    for method, path in (("POST", "/v1/reindex"), ("DELETE", "/v1/docs/d1")):
        status, _, reads = _asgi_call(app, method, path, head, big)
        assert (status, reads) == (401, 0)
    # with the key, the same request is read (then refused for its size)
    status, _, reads = _asgi_call(app, "POST", "/v1/docs", dict(head, **{"x-api-key": KEY}), big)
    assert status == 413
    c = TestClient(app, raise_server_exceptions=False, base_url=BASE)
    _is_error(c.post("/v1/docs", content=big, headers=JSON), 401)
    assert c.get("/v1/search", params={"q": "w001"}).status_code == 200   # reads open by default


def test_protect_reads_puts_every_read_behind_the_key(fresh):
    c = _client(fresh, api_key=KEY, protect_reads=True)
    for path in ("/v1/search?q=w001", "/v1/info", "/v1/docs/d1", "/v1/docs/d1/similar", "/", "/static/page.js"):
        _is_error(c.get(path), 401)
        assert c.get(path, headers={"X-API-Key": KEY}).status_code == 200, path
    _is_error(c.post("/v1/search", json={"queries": ["w001"]}), 401)
    assert c.post("/v1/search", json={"queries": ["w001"]}, headers={"Authorization": f"Bearer {KEY}"}).status_code == 200
    assert c.get("/healthz").status_code == 200 and c.get("/openapi.json").status_code == 200
    if c.get("/docs").status_code != 404:       # (fastapi-offline installed) the schema's page is open too
        assert c.get("/docs").status_code == 200 and c.get("/docs/init.js").status_code == 200
    status, _, reads = _asgi_call(c.app, "POST", "/v1/search", {"host": "127.0.0.1", "content-type": "application/json",
                                                                "content-length": "900000"}, b"x" * 900_000)
    assert (status, reads) == (401, 0)
    with pytest.raises(ValueError, match="protect_reads"):
        create_app(fresh, protect_reads=True)


def test_versions_go_only_to_callers_with_the_key(fresh):
    c = _client(fresh, api_key=KEY)
    assert "versions" not in c.get("/v1/info").json() and c.get("/v1/info").json()["documents"]
    assert c.get("/v1/info", headers={"X-API-Key": KEY}).json()["versions"]["numpy"]
    assert _client(fresh).get("/v1/info").json()["versions"]["numpy"]   # no key configured: open


# --------------------------------------------------------------------------- Host (DNS rebinding)
def test_a_foreign_host_is_refused_on_every_route(fresh):
    app = create_app(fresh)
    for base in ("http://evil.example", "http://127.0.0.1.evil.example:8000", "http://attacker.test:8000"):
        c = TestClient(app, raise_server_exceptions=False, base_url=base)
        _is_error(c.get("/v1/search", params={"q": "w001"}), 421)
        _is_error(c.get("/"), 421)
        _is_error(c.post("/v1/docs", json={"documents": [{"id": "rebound", "text": "w001"}]}), 421)
        _is_error(c.delete("/v1/docs/d1"), 421)
        _is_error(c.post("/v1/reindex", json={}), 421)
    ok = TestClient(app, raise_server_exceptions=False, base_url=BASE)
    _is_error(ok.get("/v1/docs/rebound"), 404)   # nothing was added
    assert ok.get("/v1/docs/d1").status_code == 200   # nor deleted
    for host in ("127.0.0.1", "127.0.0.1:8000", "localhost", "LOCALHOST:1", "[::1]", "[::1]:8000"):
        r = ok.get("/healthz", headers={"host": host})
        assert r.status_code == 200, host
    for host in ("", "127.0.0.1:x", "[::1", "evil.example"):
        _is_error(ok.get("/healthz", headers={"host": host}), 421)


def test_allowed_hosts_open_other_names(fresh):
    c = _client(fresh, base="http://search.example.org:8080", allowed_hosts=["search.example.org"])
    assert c.get("/v1/search", params={"q": "w001"}).status_code == 200
    assert _client(fresh, base="http://anything.test", allowed_hosts=["*"]).get("/healthz").status_code == 200
    names = service.allowed_host_names
    assert names("127.0.0.1") == {"127.0.0.1", "localhost", "[::1]"}
    assert names("::1") == {"127.0.0.1", "localhost", "[::1]"}
    assert names("10.1.2.3") == {"10.1.2.3"} and names("fe80::1") == {"[fe80::1]"}
    assert {"127.0.0.1", "localhost"} <= names("0.0.0.0")
    assert names("127.0.0.1", ["*"]) is None


# --------------------------------------------------------------------------- cross-site writes
FORMS = [("text/plain", b'{"documents": [{"id": "csrf", "text": "w001"}]}'),
         ("application/x-www-form-urlencoded", b"documents=csrf"),
         ("multipart/form-data; boundary=x", b"--x\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--x--\r\n")]


@pytest.mark.parametrize("content_type, body", FORMS, ids=["text-plain", "urlencoded", "multipart"])
def test_a_cross_site_form_post_changes_nothing(fresh, content_type, body):
    c = _client(fresh)
    for path in ("/v1/docs", "/v1/reindex"):
        _is_error(c.post(path, content=body, headers={"content-type": content_type}), 415, "application/json")
        _is_error(c.post(path, content=body, headers={"content-type": content_type,
                                                     "origin": "http://evil.example"}), 403)
    _is_error(c.post("/v1/reindex"), 415)   # no body, no type: what a bodiless form or beacon sends
    _is_error(c.get("/v1/docs/csrf"), 404)
    assert c.get("/v1/info").json()["documents"] == len(corpus()[0])


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:9999", "https://127.0.0.1"])
def test_a_foreign_origin_is_refused_on_every_write_route(fresh, origin):
    c = _client(fresh)
    head = {"origin": origin}
    _is_error(c.post("/v1/docs", json={"documents": [{"id": "x1", "text": "w001"}]}, headers=head), 403, "origin")
    _is_error(c.delete("/v1/docs/d1", headers=head), 403)
    _is_error(c.post("/v1/reindex", json={}, headers=head), 403)
    _is_error(c.post("/v1/search", json={"queries": ["w001"]}, headers=head), 403)   # costs CPU: refused too
    assert c.get("/v1/docs/d1").status_code == 200
    _is_error(c.get("/v1/docs/x1"), 404)


def test_the_services_own_origin_and_no_origin_may_write(fresh):
    c = _client(fresh)
    r = c.post("/v1/docs", json={"documents": [{"id": "same", "text": "w001"}]}, headers={"origin": BASE})
    assert r.status_code == 201
    assert c.delete("/v1/docs/same").status_code == 200   # no Origin: a program, not a page
    assert c.post("/v1/reindex", json={}).status_code == 200
    assert c.post("/v1/reindex", headers=JSON).status_code == 200   # no body, the right type
    _is_error(c.post("/v1/reindex", json={"x": 1}), 422)


def test_cors_is_off_by_default_and_on_for_the_origins_given(fresh):
    preflight = {"origin": "https://app.example", "access-control-request-method": "POST",
                 "access-control-request-headers": "content-type"}
    c = _client(fresh)
    for r in (c.options("/v1/docs", headers=preflight), c.get("/v1/search", params={"q": "w001"}, headers=preflight)):
        assert not any(h.startswith("access-control-") for h in r.headers)
    c = _client(fresh, cors_origins=["https://app.example"])
    r = c.options("/v1/docs", headers=preflight)
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "https://app.example"
    r = c.options("/v1/docs", headers=dict(preflight, origin="https://other.example"))
    assert r.headers.get("access-control-allow-origin") != "https://other.example"
    r = c.post("/v1/docs", json={"documents": [{"id": "cors", "text": "w001"}]}, headers={"origin": "https://app.example"})
    assert r.status_code == 201 and r.headers["access-control-allow-origin"] == "https://app.example"
    # a plain search, answered in front of the framework, carries them too
    r = c.get("/v1/search", params={"q": "w001"}, headers={"origin": "https://app.example"})
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "https://app.example"
    _is_error(c.post("/v1/docs", json={"documents": [{"id": "c2", "text": "w001"}]},
                     headers={"origin": "https://other.example"}), 403)
    with pytest.raises(ValueError, match="CORS origin"):
        create_app(fresh, cors_origins=["https://app.example/path"])


# --------------------------------------------------------------------------- ids
IDS = ["a/b/similar", "a/b", "a%2Fb", "a%b", "x?y=1&k=2", "x#frag", "with space", "ünïcødé/文書", "/lead", "trail/",
       "..", "similar", "+plus+"]


def _doc_path(doc_id):
    """The path of an id, encoded wholly; an id of dots alone as %2E, since clients remove the dot
    segments of a path (RFC 3986) before sending it."""
    encoded = quote(doc_id, safe="")
    return "/v1/docs/" + (encoded.replace(".", "%2E") if set(doc_id) == {"."} else encoded)


def test_ids_round_trip_on_every_route(fresh):
    c = _client(fresh)
    texts = corpus()[0]
    docs = [{"id": doc_id, "text": texts[i] + f" w39{i % 10}", "metadata": {"n": i}} for i, doc_id in enumerate(IDS)]
    r = c.post("/v1/docs", json={"documents": docs})
    assert r.status_code == 201 and r.json()["ids"] == IDS
    for doc in docs:
        path = _doc_path(doc["id"])
        got = c.get(path)
        assert got.status_code == 200 and got.json() == {"id": doc["id"], "text": doc["text"],
                                                         "metadata": doc["metadata"]}, doc["id"]
        similar = c.get(path + "/similar", params={"k": 3})
        assert similar.status_code == 200 and similar.json()["id"] == doc["id"], doc["id"]
        assert doc["id"] not in [h["id"] for h in similar.json()["hits"]]
    # a literal /similar is the similar route, an encoded one part of the id
    assert c.get("/v1/docs/a%2Fb/similar").json()["id"] == "a/b"
    assert c.get("/v1/docs/a%2Fb%2Fsimilar").json()["text"] == docs[0]["text"]
    _is_error(c.delete("/v1/docs/a%2Fb/similar"), 405)
    assert c.delete("/v1/docs/a%2Fb/similar").headers["allow"] == "GET, HEAD, POST"
    assert c.options("/v1/docs/a%2Fb").headers["allow"] == "DELETE, GET, HEAD, PUT"
    for doc_id in IDS:
        r = c.delete(_doc_path(doc_id))
        assert r.status_code == 200 and r.json()["deleted"] == 1, doc_id
        _is_error(c.get(_doc_path(doc_id)), 404)
    assert c.get("/v1/info").json()["documents"] == len(texts)


def test_the_page_links_encode_ids(fresh):
    c = _client(fresh)
    doc_id = "a/b?c=#d similar"
    c.post("/v1/docs", json={"documents": [{"id": doc_id, "text": "w001 w002 w003 w004"}]})
    page = c.get("/", params={"q": "w001 w002 w003 w004"}).text
    json_link = "/v1/docs/" + quote(doc_id, safe="")
    assert f'href="{json_link}"' in page
    assert c.get(json_link).json()["id"] == doc_id
    similar = c.get("/", params={"similar": doc_id})
    assert similar.status_code == 200 and "Documents closest to" in similar.text


# --------------------------------------------------------------------------- damage
def test_a_damaged_file_is_503_index_damaged_and_health_degraded(built, tmp_path):
    path = tmp_path / "bm25"
    shutil.copytree(built / "bm25", path)
    c = _client(path)
    assert c.get("/healthz").json() == {"status": "ok"}
    (path / "statistics-1" / "avgdl.npy").write_bytes(b"damaged")   # read again at each explanation
    r = c.get("/v1/search", params={"q": "w001 w002", "k": 3, "explain": "true"})
    assert r.status_code == 503 and r.json()["code"] == "index_damaged"
    message = r.json()["error"]
    assert "avgdl.npy" in message and str(tmp_path) not in message and str(path.resolve()) not in message
    assert not any(part.startswith("/") for part in message.split())
    # what is intact is still served
    assert c.get("/v1/search", params={"q": "w001 w002", "k": 3}).status_code == 200
    assert c.get("/v1/docs/d1").status_code == 200
    health = c.get("/healthz")
    assert health.status_code == 200 and health.json()["status"] == "degraded" and "avgdl.npy" in health.json()["damage"]
    # the page shows it as an error page with the status
    assert c.get("/", params={"q": "w001 w002"}).status_code == 503


def test_damage_found_by_the_index_names_the_file_relative_to_it(fresh):
    from learnsim.index import IndexDamagedError

    app = create_app(fresh)
    c = TestClient(app, raise_server_exceptions=False, base_url=BASE)
    segment = fresh / "segments" / "g1-000000" / "rows.npy"

    def broken(*args, **kwargs):
        raise IndexDamagedError(segment, f"its sha256 does not match (also {fresh.resolve()}/manifest.json)")

    app.state.index.search = broken
    for r in (c.get("/v1/search", params={"q": "w001"}), c.post("/v1/search", json={"queries": ["w001"]})):
        body = r.json()
        assert r.status_code == 503 and body["code"] == "index_damaged"
        assert "segments/g1-000000/rows.npy" in body["error"] and "manifest.json" in body["error"]
        assert str(fresh) not in body["error"] and str(fresh.resolve()) not in body["error"]
    assert c.get("/v1/docs/d2").status_code == 200
    assert c.get("/healthz").json()["status"] == "degraded"
    # other errors keep their numeric code
    assert c.get("/v1/docs/nope").json()["code"] == 404


def test_damage_of_an_index_in_a_short_relative_directory_keeps_its_message(built, tmp_path, monkeypatch):
    """An index served as "s" (relative): only the path is cut from the message, not every "s"
    of its words ("its sha256" came out as "it. .ha256")."""
    shutil.copytree(built / "bm25", tmp_path / "s")
    monkeypatch.chdir(tmp_path)
    c = _client("s")
    (tmp_path / "s" / "statistics-1" / "avgdl.npy").write_bytes(b"damaged")
    r = c.get("/v1/search", params={"q": "w001 w002", "k": 3, "explain": "true"})
    assert r.status_code == 503 and r.json()["code"] == "index_damaged"
    assert r.json()["error"].startswith("the index is damaged: statistics-1/avgdl.npy is damaged: its sha256 does ")


# --------------------------------------------------------------------------- the command
def test_serve_refuses_bad_web_options(built, monkeypatch, capsys):
    from learnsim.cli import main

    assert main(["serve", str(built / "mcd"), "--protect-reads"]) == 2
    assert "--protect-reads needs --api-key-env" in capsys.readouterr().err
    monkeypatch.setenv("LEARNSIM_HOSTILE_KEY", KEY)
    assert main(["serve", str(built / "mcd"), "--api-key-env", "LEARNSIM_HOSTILE_KEY",
                 "--cors-origin", "https://app.example/path"]) == 2
    assert "--cors-origin" in capsys.readouterr().err
    assert main(["serve", str(built / "mcd"), "--deadline", "0"]) == 2
    assert "--deadline" in capsys.readouterr().err
    # a name no Host header can carry (compared without its port): every request would be a 421
    for name in ("http://search.example", "search.example:8080", "", "a b", "search.example/"):
        assert main(["serve", str(built / "mcd"), "--allowed-host", name]) == 2, name
        err = capsys.readouterr().err
        assert "--allowed-host" in err and len(err.strip().splitlines()) == 1, err


def test_a_real_server_checks_the_host_and_the_content_type(built):
    import httpx

    from serve_process import running_server

    with running_server(built / "mcd", "--allowed-host", "search.example.org", "--deadline", "5") as base:
        port = base.rsplit(":", 1)[1]
        assert httpx.get(f"{base}/v1/search", params={"q": "w001"}, timeout=10).status_code == 200
        for host, status in ((f"localhost:{port}", 200), ("search.example.org", 200),
                             (f"evil.example:{port}", 421), ("127.0.0.1.nip.io", 421)):
            r = httpx.get(f"{base}/healthz", headers={"host": host}, timeout=10)
            assert r.status_code == status, host
        r = httpx.post(f"{base}/v1/docs", content=b'{"documents": [{"text": "w001"}]}',
                       headers={"content-type": "text/plain"}, timeout=10)
        assert r.status_code == 415 and r.json()["code"] == 415
        r = httpx.post(f"{base}/v1/reindex", headers={"origin": "http://evil.example"}, timeout=10)
        assert r.status_code == 403


# --------------------------------------------------------------------------- issue 45: strict JSON, blank texts
def _nested(levels, leaf="1"):
    return "[" * levels + leaf + "]" * levels


def test_numbers_and_booleans_are_strict_in_every_request_model(fresh):
    """"k": true and "k": "10" were taken as 1 and 10 (pydantic's lax mode): now a 422 naming
    the field; a whole float is still the integer (JSON has one kind of number)."""
    c = _client(fresh)
    rec = Recorder(c.app.state.index)
    for body, field in (({"queries": ["w001"], "k": True}, "k"), ({"queries": ["w001"], "k": "10"}, "k"),
                        ({"queries": ["w001"], "n_top": "3"}, "n_top"), ({"queries": ["w001"], "explain": 1}, "explain"),
                        ({"queries": ["w001"], "explain": "true"}, "explain"), ({"queries": ["w001"], "k": False}, "k")):
        _is_error(c.post("/v1/search", json=body), 422, field)
    _is_error(c.post("/v1/match", json={"text": "w001", "k": True}), 422, "k")
    _is_error(c.post("/v1/explain", json={"query": "w001", "document": "w002", "n_top": "5"}), 422, "n_top")
    _is_error(c.post("/v1/docs", json={"documents": [{"id": True, "text": "w001"}]}), 422, "id")
    assert rec.calls == []
    hits = c.post("/v1/search", json={"queries": ["w001"], "k": 3.0, "explain": False}).json()["results"][0]
    assert len(hits) == 3
    for bad in ({"dwell": "3"}, {"dwell": True}, {"relevance": "1"}, {"relevance": False}):
        with pytest.raises(ValueError):
            service.FeedbackRequest.model_validate(dict({"impression": "i1", "clicked": ["d1"]}, **bad))
    assert service.FeedbackRequest.model_validate({"impression": "i1", "clicked": ["d1"], "dwell": 3}).dwell == 3.0
    with pytest.raises(ValueError, match="more than once"):
        service.FeedbackRequest.model_validate({"impression": "i1", "clicked": ["d1", "d2", "d1"]})


@pytest.mark.parametrize("params, field", [
    ({"k": "5_0"}, "k"), ({"k": " 5"}, "k"), ({"k": "+5"}, "k"), ({"k": "5 "}, "k"), ({"k": "\u0665"}, "k"),
    ({"k": "0x10"}, "k"), ({"k": "5.0"}, "k"), ({"explain": "1"}, "explain"), ({"explain": "on"}, "explain"),
    ({"explain": "True"}, "explain"), ({"explain": "yes"}, "explain"), ({"n_top": "1_0"}, "n_top")])
def test_query_string_numbers_and_booleans_are_as_strict_as_a_body(fresh, params, field):
    """The framework's reading of a query string took "5_0" as 50, " 5" and "+5" as 5 and "1",
    "on" or "yes" as true: now a 422 naming the parameter, on every route that takes one."""
    c = _client(fresh)
    rec = Recorder(c.app.state.index)
    _is_error(c.get("/v1/search", params=dict({"q": "w001"}, **params)), 422, field)
    if field == "k":
        _is_error(c.get("/v1/docs/d1/similar", params=params), 422, "k")
    assert rec.calls == []
    assert len(c.get("/v1/search", params={"q": "w001", "k": "3", "explain": "false"}).json()["hits"]) == 3


def test_duplicate_keys_in_a_body_are_refused_naming_the_key(fresh):
    c = _client(fresh)
    rec = Recorder(c.app.state.index)
    r = c.post("/v1/search", content=b'{"queries": ["w001"], "k": 3, "k": 500}', headers=JSON)
    _is_error(r, 400, "'k'", "twice")
    r = c.post("/v1/search", content=b'{"queries": ["w001"], "filter": {"topic": 1, "topic": 2}}', headers=JSON)
    _is_error(r, 400, "'topic'", "twice")
    _is_error(c.get("/v1/search", params={"q": "w001", "filter": '{"topic": 1, "topic": 2}'}), 400, "'topic'")
    assert rec.calls == []
    n = c.get("/v1/info").json()["documents"]
    _is_error(c.post("/v1/docs", content=b'{"documents": [{"id": "x1", "text": "w001", "text": "w002"}]}',
                     headers=JSON), 400, "'text'", "twice")
    _is_error(c.post("/v1/docs", content=b'{"documents": [{"id": "x1", "text": "w001", "metadata": {"a": 1, "a": 2}}]}',
                     headers=JSON), 400, "'a'")
    _is_error(c.put("/v1/docs/x2", content=b'{"text": "w001", "text": "w003"}', headers=JSON), 400, "'text'")
    _is_error(c.post("/v1/reindex", content=b'{"a": 1, "a": 1}', headers=JSON), 400)
    assert c.get("/v1/info").json()["documents"] == n
    _is_error(c.get("/v1/docs/x1"), 404)


def test_nesting_is_refused_at_the_documented_depth(fresh):
    from learnsim._utils.inputs import MAX_JSON_DEPTH

    c = _client(fresh)
    assert MAX_JSON_DEPTH == 64
    # body (1) > documents (2) > a document (3) > metadata (4): 61 more levels inside it are 65
    ok = '{"documents": [{"id": "deep-ok", "text": "w001", "metadata": {"m": ' + _nested(MAX_JSON_DEPTH - 4) + "}}]}"
    assert c.post("/v1/docs", content=ok.encode(), headers=JSON).status_code == 201
    assert c.get("/v1/docs/deep-ok").json()["metadata"]["m"]
    for levels in (MAX_JSON_DEPTH - 3, 100_000):
        body = '{"documents": [{"id": "deep", "text": "w001", "metadata": {"m": ' + _nested(levels) + "}}]}"
        _is_error(c.post("/v1/docs", content=body.encode(), headers=JSON), 400, "64 levels")
    for body in ("[" * 200_000, '{"queries": ["w001"], "filter": {"a": ' + _nested(100) + "}}"):
        _is_error(c.post("/v1/search", content=body.encode(), headers=JSON), 400, "64 levels")
    _is_error(c.get("/v1/search", params={"q": "w001", "filter": '{"a": ' + _nested(70) + "}"}), 400, "64 levels")
    _is_error(c.get("/v1/docs/deep"), 404)


def test_a_lone_surrogate_or_bytes_that_are_not_utf8_are_refused_in_any_body(fresh):
    """A "\\ud800" escape in a query was dropped by the tokenizer (the answer of a query that
    said less), and in a document's text a codec error; Python's json let the bytes ED A0 80 of
    a surrogate through. Now a 400 naming the problem, wherever in the body, nothing done."""
    c = _client(fresh)
    rec = Recorder(c.app.state.index)
    n = c.get("/v1/info").json()["documents"]
    for body in (b'{"queries": ["w001 \\ud800"]}', b'{"queries": ["w001 \\udfff w002"], "k": 3}',
                 b'{"queries": ["w001"], "filter": {"topic": "\\ud800"}}', b'{"queries": ["w001 \xed\xa0\x80"]}',
                 b'{"queries": ["w001 \xff"]}'):
        err = _is_error(c.post("/v1/search", content=body, headers=JSON), 400)["error"]
        assert "surrogate" in err or "not UTF-8" in err, err
    for body in (b'{"documents": [{"id": "s1", "text": "w001 \\ud800"}]}',
                 b'{"documents": [{"id": "s1", "text": "w001", "metadata": {"\\udc00": 1}}]}',
                 b'{"documents": [{"id": "s\\ud800", "text": "w001"}]}'):
        _is_error(c.post("/v1/docs", content=body, headers=JSON), 400, "surrogate")
    _is_error(c.put("/v1/docs/s2", content=b'{"text": "w001", "metadata": {"a": ["\\ud800"]}}', headers=JSON),
              400, "surrogate")
    _is_error(c.post("/v1/match", content=b'{"text": "w001 \\ud800"}', headers=JSON), 400, "surrogate")
    _is_error(c.post("/v1/explain", content=b'{"query": "w001", "document": "\\ud800 w002"}', headers=JSON),
              400, "surrogate")
    _is_error(c.get("/v1/search", params={"q": "w001", "filter": '{"topic": "\\ud800"}'}), 400, "surrogate")
    assert rec.calls == [] and c.get("/v1/info").json()["documents"] == n
    # a pair of surrogates is one character (an emoji): a query like any other
    r = c.post("/v1/search", content=b'{"queries": ["w001 \\ud83d\\ude00"], "k": 3}', headers=JSON)
    assert r.status_code == 200 and len(r.json()["results"][0]) == 3


def test_a_document_over_the_text_bound_is_413_as_a_query_is(fresh):
    """The documented bound of "queries, texts and documents" held for queries only: a document
    of any length up to the body's bound was stored, then sent back in every answer that found
    it (a 10-hit search of 5.9 MB) and searched with through /similar."""
    c = _client(fresh, max_query_chars=100)
    n = c.get("/v1/info").json()["documents"]
    long = "w001 " * 21      # 105 characters
    _is_error(c.post("/v1/docs", json={"documents": [{"id": "a", "text": "w002"}, {"id": "b", "text": long}]}),
              413, "documents[1].text", "100 characters")
    _is_error(c.post("/v1/docs", json={"documents": [{"id": "b", "text": long}], "mode": "upsert"}), 413)
    _is_error(c.put("/v1/docs/b", json={"text": long}), 413, "text", "100 characters")
    assert c.get("/v1/info").json()["documents"] == n
    _is_error(c.get("/v1/docs/a"), 404)
    assert c.put("/v1/docs/b", json={"text": long[:100]}).status_code == 201
    props = c.get("/openapi.json").json()["components"]["schemas"]
    assert props["DocumentIn"]["properties"]["text"]["maxLength"] == 100
    assert props["PutRequest"]["properties"]["text"]["maxLength"] == 100


def test_head_is_the_get_without_its_body_and_records_nothing(fresh):
    """Health probes and link checkers send HEAD (RFC 9110: a GET resource answers it); it was a
    405 on every route. A HEAD of a search logs no impression: nobody sees what it would show."""
    c = _client(fresh, learn_from_clicks=True)
    with c:
        for path, params in (("/healthz", None), ("/v1/info", None), ("/v1/search", {"q": "w001", "k": 3}),
                             ("/v1/docs/d1", None), ("/v1/docs/d1/similar", {"k": 2}), ("/", {"q": "w001"})):
            got, head = c.get(path, params=params), c.head(path, params=params)
            assert head.status_code == got.status_code == 200, (path, head.status_code)
            assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"], path
            if path not in ("/v1/info", "/v1/search", "/"):       # (counts, impressions: each answer its own)
                assert int(head.headers["content-length"]) == len(got.content), path
        assert c.head("/v1/search", params={"q": "w001", "k": "5_0"}).status_code == 422
        assert c.head("/click", params={"i": "x", "d": "d1"}).status_code == 405
        # a 405's Allow names HEAD wherever GET is (it named GET alone, but on /openapi.json)
        for path, allow in (("/healthz", "GET, HEAD"), ("/v1/search", "GET, HEAD, POST"),
                            ("/v1/docs/d1", "DELETE, GET, HEAD, PUT"), ("/v1/docs/d1/similar", "GET, HEAD, POST"),
                            ("/openapi.json", "GET, HEAD"), ("/v1/match", "POST"), ("/click", "GET")):
            assert c.request("PATCH", path).headers["allow"] == allow, path
        logged = c.get("/v1/info").json()["learn_from_clicks"]
    from learnsim.feedback import FeedbackLog

    with FeedbackLog(fresh, readonly=True) as log:
        # the GETs of the search and of the page, not their HEADs
        assert log.stats()["impressions"] == 2, (log.stats(), logged)


def test_two_host_headers_are_refused(fresh):
    """The check read the last Host header; which one a proxy reads is its own choice: a 400."""
    c = _client(fresh)
    for hosts in (("evil.example", "127.0.0.1"), ("127.0.0.1", "evil.example"), ("127.0.0.1", "127.0.0.1")):
        r = c.get("/healthz", headers=[("host", h) for h in hosts])
        _is_error(r, 400, "Host more than once")


def test_every_answer_says_nosniff(fresh):
    """A JSON answer echoes what the caller sent (a query, an id, a document's text): with
    ``X-Content-Type-Options: nosniff`` no browser takes it for a page or a script. Every kind of
    answer carries it: the fast search path, a route, the page, a refusal before the route, an error."""
    c = _client(fresh, api_key=KEY)
    with c:
        answers = [c.get("/v1/search", params={"q": "w001"}), c.post("/v1/search", json={"queries": ["w001"]}),
                   c.get("/healthz"), c.get("/v1/info"), c.get("/", params={"q": "w001"}), c.get("/v1/docs/d1"),
                   c.head("/v1/search", params={"q": "w001"}), c.get("/v1/docs/nope"),
                   c.get("/v1/search", params={"q": "w001", "k": "ten"}), c.get("/healthz", headers={"host": "evil.example"}),
                   c.post("/v1/docs", json={"documents": []}), c.get("/no/such/route")]
    codes = [r.status_code for r in answers]
    assert codes == [200, 200, 200, 200, 200, 200, 200, 404, 422, 421, 401, 404], codes
    for r in answers:
        assert r.headers.get_list("x-content-type-options") == ["nosniff"], (r.request.url, r.headers)


@pytest.mark.parametrize("text", ["", "   ", "?!", " ... -- ", "_"])
def test_a_text_with_nothing_to_search_for_is_refused(fresh, text):
    c = _client(fresh)
    rec = Recorder(c.app.state.index)
    n = c.get("/v1/info").json()["documents"]
    _is_error(c.get("/v1/search", params={"q": text}), 422, "q has no letter or digit")
    _is_error(c.post("/v1/search", json={"queries": ["w001", text]}), 422, "queries[1]")
    _is_error(c.post("/v1/match", json={"text": text}), 422, "text")
    _is_error(c.post("/v1/match", json={"pairs": [["w001", "w002"], ["w003", text]]}), 422, "pairs[1][1]")
    _is_error(c.post("/v1/explain", json={"query": text, "document": "w001"}), 422, "query")
    _is_error(c.post("/v1/explain", json={"query": "w001", "document": text}), 422, "document")
    assert rec.calls == []
    for mode in ("add", "upsert"):
        r = c.post("/v1/docs", json={"documents": [{"id": "t1", "text": "w001"}, {"id": "t2", "text": text}],
                                     "mode": mode})
        _is_error(r, 422, "documents[1].text")
    _is_error(c.put("/v1/docs/t3", json={"text": text}), 422, "text")
    assert c.get("/v1/info").json()["documents"] == n
    assert c.get("/", params={"q": text}).status_code in ((200,) if not text.strip() else (422,))
    # a letter or a digit anywhere is something to search for
    assert c.get("/v1/search", params={"q": f"{text} w001"}).status_code == 200


def test_a_query_of_words_the_model_does_not_know_has_no_hits(fresh):
    """Not 422 (it has letters), and not k documents scoring alike: no hits, as Elasticsearch
    answers a query that matches nothing; a known word beside the unknown ones is answered."""
    c = _client(fresh)
    r = c.get("/v1/search", params={"q": "zqxv wuffle"})
    assert r.status_code == 200 and r.json()["hits"] == []
    r = c.post("/v1/search", json={"queries": ["zqxv wuffle", "w001 zqxv"], "k": 3})
    assert r.status_code == 200
    assert [len(hits) for hits in r.json()["results"]] == [0, 3]
    page = c.get("/", params={"q": "zqxv wuffle"})
    assert page.status_code == 200 and "None of the query's words is in the model" in page.text
    assert "None of the query" not in c.get("/", params={"q": "w001"}).text


def test_the_schema_states_the_rules(fresh):
    schema = _client(fresh).get("/openapi.json").json()
    q = next(p for p in schema["paths"]["/v1/search"]["get"]["parameters"] if p["name"] == "q")
    assert q["schema"]["pattern"] == CONTENT_PATTERN
    # Kangxi radicals (a query copied from a PDF) are read as ideographs: a query, not "nothing"
    assert _client(fresh).get("/v1/search", params={"q": "\u2f08\u2f1d"}).status_code == 200
    assert _client(fresh).get("/v1/search", params={"q": "\u2fe0"}).status_code == 422
    schemas = schema["components"]["schemas"]
    assert schemas["DocumentIn"]["properties"]["text"]["pattern"] == CONTENT_PATTERN
    assert schemas["SearchBatch"]["properties"]["queries"]["items"]["pattern"] == CONTENT_PATTERN
    assert schemas["ExplainRequest"]["properties"]["document"]["pattern"] == CONTENT_PATTERN
    learning = _client(fresh, learn_from_clicks=True).get("/openapi.json").json()["components"]["schemas"]
    assert learning["FeedbackRequest"]["properties"]["clicked"]["uniqueItems"] is True
    assert "64 levels" in schema["info"]["description"] and "twice" in schema["info"]["description"]


def test_a_document_edited_in_sqlite_is_never_served(fresh):
    import sqlite3

    conn = sqlite3.connect(fresh / "docs.sqlite")
    with conn:
        text = conn.execute("SELECT text FROM docs WHERE id = 'd1'").fetchone()[0]
        conn.execute("UPDATE docs SET text = ? WHERE id = 'd1'", (text + " edited",))
    conn.close()
    c = _client(fresh)
    body = _is_error(c.get("/v1/docs/d1"), 503, "docs.sqlite", "'d1'")
    assert body["code"] == "index_damaged"
    # a search reads its hits from the segments' copies (issue 46): d1 as it was written
    hits = c.get("/v1/search", params={"q": text, "k": 3}).json()["hits"]
    assert [h["text"] for h in hits if h["id"] == "d1"] == [text]
    assert c.get("/v1/docs/d2").status_code == 200
    assert c.get("/healthz").json()["status"] == "degraded"


def test_a_document_damaged_in_its_segments_copy_is_never_served(fresh, monkeypatch):
    # one byte of d1's row in its segment's copy (docs.bin): a search that finds d1 answers 503
    # naming the file, the other documents are served, /healthz says degraded. (A server reads a
    # collection this small into memory from docs.sqlite at once, checked, and never reads the
    # copies: here it does not, as for a collection too large for that.)
    import numpy as np

    from learnsim.index._store import DocumentCache

    monkeypatch.setattr(DocumentCache, "preload", lambda self, store, n_live, read_ahead=True: 0)

    seg = next(fresh.glob("segments/*/docs.bin")).parent
    seqs = np.load(seg / "seqs.npy")
    offsets = np.load(seg / "docs_offsets.npy")
    raw = bytearray((seg / "docs.bin").read_bytes())
    row = next(i for i in range(len(seqs)) if bytes(raw[offsets[i]:offsets[i + 1]]).startswith(b'["d1", '))
    text = json.loads(bytes(raw[offsets[row]:offsets[row + 1]]))[1]
    at = int(offsets[row]) + 8
    raw[at] = ord("x") if raw[at] != ord("x") else ord("y")
    (seg / "docs.bin").write_bytes(bytes(raw))
    c = _client(fresh)
    body = _is_error(c.get("/v1/search", params={"q": text, "k": 3}), 503, "docs.bin", "does not match")
    assert body["code"] == "index_damaged" and str(fresh) not in body["error"]
    assert c.get("/v1/docs/d1").status_code == 200          # docs.sqlite's row is intact
    assert c.get("/healthz").json()["status"] == "degraded"


# --------------------------------------------------------------------------- stop 68's sweep
def test_a_delete_with_a_body_is_refused_not_read_as_the_path(fresh):
    with _client(fresh) as c:
        ids = [h["id"] for h in c.get("/v1/search", params={"q": corpus()[0][0], "k": 2}).json()["hits"]]
        r = c.request("DELETE", f"/v1/docs/{quote(ids[0], safe='')}", json={"documents": [{"id": ids[1]}]})
        _is_error(r, 422, "takes no body")
        assert c.get(f"/v1/docs/{quote(ids[0], safe='')}").status_code == 200     # nothing deleted
        assert c.delete(f"/v1/docs/{quote(ids[0], safe='')}").status_code == 200


@pytest.mark.parametrize("encoding", ["gzip", "br", "x-made-up"])
def test_a_content_encoding_is_refused_not_misread(fresh, encoding):
    with _client(fresh) as c:
        r = c.post("/v1/docs", content=json.dumps({"documents": [{"text": "a new text about parcels"}]}),
                   headers={**JSON, "Content-Encoding": encoding})
        _is_error(r, 415, "Content-Encoding", "uncompressed")
        assert c.post("/v1/docs", content=json.dumps({"documents": [{"text": "a new text about parcels"}]}),
                      headers={**JSON, "Content-Encoding": "identity"}).status_code == 201


def test_a_key_given_twice_is_refused_whichever_comes_last(fresh):
    with _client(fresh, api_key=KEY) as c:
        doc = c.get("/v1/search", params={"q": corpus()[0][0], "k": 1}, headers={"X-API-Key": KEY}).json()
        path = f"/v1/docs/{quote(doc['hits'][0]['id'], safe='')}"
        for headers in ([("Authorization", "Bearer wrong"), ("Authorization", f"Bearer {KEY}")],
                        [("X-API-Key", "wrong"), ("X-API-Key", KEY)], [("X-API-Key", KEY), ("X-API-Key", KEY)]):
            _is_error(c.request("DELETE", path, headers=headers), 400, "more than once")
        # one header of each scheme (what a client of the schema's two schemes may send): X-API-Key is read
        assert c.request("DELETE", path, headers=[("Authorization", "Bearer other"), ("X-API-Key", KEY)]).status_code \
            == 200


def test_an_origin_content_type_or_encoding_given_twice_is_refused_whichever_comes_last(fresh):
    """The head's check read the last Origin, the framework and CORS the first: a write giving
    the service's own Origin after a foreign one was accepted (201), the other order refused;
    two Content-Types or Content-Encodings were read differently by the check and the body's
    reader. Each is a 400 naming the header, nothing written."""
    body = json.dumps({"documents": [{"text": "a new text about parcels"}]})
    with _client(fresh) as c:
        n = c.get("/v1/info").json()["documents"]
        for name, values in (("Origin", ("http://evil.example", BASE)),
                             ("Content-Type", ("text/plain", "application/json")),
                             ("Content-Encoding", ("gzip", "identity"))):
            for pair in (values, values[::-1]):
                headers = [(name, v) for v in pair] + ([] if name == "Content-Type" else list(JSON.items()))
                _is_error(c.post("/v1/docs", content=body, headers=headers), 400, name, "more than once")
        assert c.get("/v1/info").json()["documents"] == n
        # one of each is read as before
        assert c.post("/v1/docs", content=body, headers={**JSON, "Origin": BASE}).status_code == 201


def test_the_page_refuses_a_parameter_given_twice(fresh):
    with _client(fresh) as c:
        r = c.get("/?q=parcel&q=my+order&k=2")
        assert r.status_code == 400 and "given more than once" in r.text
        r = c.get("/?q=parcel&k=2&k=5")
        assert r.status_code == 400 and "given more than once" in r.text
        assert c.get("/?q=parcel&k=2").status_code == 200


@pytest.mark.parametrize("code, message, words", [
    (8, "attempt to write a readonly database", "read-only"),
    (13, "database or disk is full", "the disk is full"),
])
def test_a_write_the_disk_refuses_is_503_naming_why_not_500(fresh, monkeypatch, code, message, words):
    """A docs.sqlite SQLite may only read (a read-only file or mount) or a full disk: a write was
    a 500 "internal error (OperationalError)". Now 503 with Retry-After, saying why and naming no
    path of the server; nothing is acknowledged, searches go on, and the write is taken once it can."""
    from learnsim.index import _store

    def refuse(self, *args, **kwargs):
        exc = sqlite3.OperationalError(message)
        exc.sqlite_errorcode = code
        raise exc

    texts, _, _, _ = corpus()
    doc = {"documents": [{"id": "new-1", "text": texts[3] + " w999"}]}
    with _client(fresh) as c:
        with monkeypatch.context() as patched:
            patched.setattr(_store.DocumentStore, "add", refuse)
            r = c.post("/v1/docs", json=doc)
            body = _is_error(r, 503, "the index cannot be written", words)
            assert "Retry-After" in r.headers and str(fresh) not in body["error"]
            assert c.get("/v1/search", params={"q": texts[3]}).status_code == 200
            assert c.get("/v1/docs/new-1").status_code == 404
        assert c.post("/v1/docs", json=doc).status_code == 201
        assert c.get("/v1/docs/new-1").status_code == 200
