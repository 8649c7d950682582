"""learnsim.service and ``learnsim serve`` (issue 15): every route's answer, every error code as
JSON, hostile requests answered 4xx (never 5xx), writes visible to the next search, the bounds
(body, query, pending requests), and a real server in a subprocess."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from serve_process import running_server  # noqa: E402
from index_models import corpus, model, near_duplicate  # noqa: E402

from learnsim.service._schema import SCHEMA_CONTENT_PATTERN as CONTENT_PATTERN  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

with warnings.catch_warnings():
    # starlette's TestClient warns about httpx versions; that is none of ours to fix
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

KEY = "s3cret-key"
# the Host the test client sends: a name the service answers for (it refuses "testserver")
BASE = "http://127.0.0.1"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """An MCD index and a FILM-pairs index (with a near-duplicate of d100) of the collection."""
    texts, _, ids, meta = corpus()
    root = tmp_path_factory.mktemp("service")
    Index.build(root / "mcd", model("mcd"), texts, ids, meta).close()
    dup = near_duplicate(texts[100], seed=100)
    Index.build(root / "film", model("film_pairs"), texts + [dup], ids + ["dup100"],
                meta + [{"topic": meta[100]["topic"]}]).close()
    return root


@pytest.fixture(scope="module")
def client(built):
    """A client of the read routes (nothing it does changes the index)."""
    return TestClient(create_app(built / "mcd"), raise_server_exceptions=False, base_url=BASE)


@pytest.fixture
def fresh(built, tmp_path):
    """A copy of the MCD index that a test may write to."""
    path = tmp_path / "idx"
    shutil.copytree(built / "mcd", path)
    return path


def _client(path, **options):
    return TestClient(create_app(path, **options), raise_server_exceptions=False, base_url=BASE)


def _is_error(r, code):
    """The answer is the JSON error ``code``: {"error": message, "code": code}, no traceback."""
    assert r.status_code == code, r.text[:300]
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert body["code"] == code and isinstance(body["error"], str) and body["error"]
    assert "Traceback" not in r.text
    return body["error"]


# --------------------------------------------------------------------------- reads
def test_health_info_and_openapi(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    info = client.get("/v1/info").json()
    texts = corpus()[0]
    assert info["documents"] == len(texts) and info["added_since_statistics"] == 0
    assert info["method"] == "MinimumClusterDistortion" and "version" in info and info["pipeline"]
    assert info["versions"]["learnsim"] == info["version"] and info["versions"]["numpy"]
    assert not Path(info["path"]).is_absolute()   # the server's directories are not told
    # how queries are cut (an English model: bigrams over the spaceless scripts, no dictionary)
    analysis = info["analysis"]
    assert analysis is None or (analysis["analyzer"] in ("cjk", "words") and analysis["dictionary"] is None)
    schema = client.get("/openapi.json").json()
    assert {"/v1/search", "/v1/explain", "/v1/docs"} <= set(schema["paths"])
    # an MCD model has no duplicate rule: POST /v1/match answers only 422 there, and the schema leaves it out
    assert "/v1/match" not in schema["paths"]


def test_get_search_ranks_filters_and_explains(client):
    texts, topics, ids, _ = corpus()
    r = client.get("/v1/search", params={"q": texts[7], "k": 5})
    hits = r.json()["hits"]
    assert [h["rank"] for h in hits] == [1, 2, 3, 4, 5]
    assert hits[0]["id"] == ids[7]   # a document is closest to itself
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores)   # a distance: closest first
    other = (topics[7] + 1) % 6
    filtered = client.get("/v1/search", params={"q": texts[7], "k": 10, "filter": f'{{"topic": {other}}}'}).json()["hits"]
    assert filtered and all(h["metadata"]["topic"] == other for h in filtered)
    explained = client.get("/v1/search", params={"q": texts[7], "k": 2, "explain": "true", "n_top": 3}).json()["hits"]
    assert all("explanation" in h and len(h["explanation"]["words"]) <= 3 for h in explained)


def test_post_search_is_a_batch_of_get_searches(client):
    texts = corpus()[0]
    queries = [texts[0], texts[50], "w001 w002"]
    batch = client.post("/v1/search", json={"queries": queries, "k": 4}).json()["results"]
    assert len(batch) == 3
    for q, hits in zip(queries, batch):
        single = client.get("/v1/search", params={"q": q, "k": 4}).json()["hits"]
        assert [h["id"] for h in hits] == [h["id"] for h in single]


def test_document_and_similar(client):
    texts, _, ids, meta = corpus()
    doc = client.get(f"/v1/docs/{ids[3]}").json()
    assert doc == {"id": ids[3], "text": texts[3], "metadata": meta[3]}
    hits = client.get(f"/v1/docs/{ids[3]}/similar", params={"k": 6}).json()["hits"]
    assert len(hits) == 6 and ids[3] not in [h["id"] for h in hits]
    _is_error(client.get("/v1/docs/no-such-id"), 404)
    _is_error(client.get("/v1/docs/no-such-id/similar"), 404)


def test_match_text_and_pairs_on_a_model_with_a_duplicate_rule(built):
    texts = corpus()[0]
    c = _client(built / "film")
    assert "/v1/match" in c.get("/openapi.json").json()["paths"]
    found = c.post("/v1/match", json={"text": near_duplicate(texts[110], seed=7), "k": 10}).json()["matches"]
    assert found and found[0]["id"] == "d110" and 0.0 <= found[0]["probability"] <= 1.0
    decisions = c.post("/v1/match", json={"pairs": [[texts[0], texts[0]], [texts[0], texts[60]]]}).json()["decisions"]
    assert len(decisions) == 2 and all(set(d) == {"probability", "duplicate", "score"} for d in decisions)
    assert decisions[0]["probability"] >= decisions[1]["probability"]
    # named as every answer of a model is: by its version (the pieces of a long list, one version's)
    answer = c.post("/v1/match", json={"pairs": [[texts[0], texts[i % len(texts)]] for i in range(250)]}).json()
    assert answer["model_version"] == "v1" and len(answer["decisions"]) == 250
    pairs = c.get("/openapi.json").json()["components"]["schemas"]["MatchPairs"]["properties"]["pairs"]
    assert all(p["pattern"] == CONTENT_PATTERN and p["maxLength"] == 10_000 for p in pairs["items"]["prefixItems"])
    _is_error(c.post("/v1/match", json={"text": "a", "pairs": [["a", "b"]]}), 422)   # one or the other
    _is_error(c.post("/v1/match", json={}), 422)
    # a body that is no JSON object is a 400, as on every route (it was a 422 naming both forms)
    for body in (b"null", b"[]", b"1", b'"x"'):
        error = _is_error(c.post("/v1/match", content=body, headers={"content-type": "application/json"}), 400)
        assert "must be a JSON object" in error, (body, error)


def test_match_without_a_duplicate_rule_is_422(client):
    assert "duplicate rule" in _is_error(client.post("/v1/match", json={"text": "w001 w002"}), 422)
    _is_error(client.post("/v1/match", json={"pairs": [["a", "b"]]}), 422)


def test_explain_is_the_pipelines_explanation(client, built):
    texts = corpus()[0]
    body = client.post("/v1/explain", json={"query": texts[1], "document": texts[2], "n_top": 4}).json()
    expected = model("mcd").explain(texts[1], texts[2], n_top=4)
    assert body["score"] == pytest.approx(expected["score"])
    assert [w["word"] for w in body["words"]] == [w["word"] for w in expected["words"]]


def test_a_refused_field_is_named_even_one_called_query(client):
    """POST /v1/explain's field "query" was taken for the location of a query-string parameter
    and left out of the 422: "Field required; document: Field required" named one of two."""
    assert _is_error(client.post("/v1/explain", json={}), 422).startswith("query: Field required; document:")
    assert _is_error(client.post("/v1/explain", json={"query": 5, "document": "w001"}), 422).startswith("query: ")
    assert _is_error(client.get("/v1/search", params={"k": 3}), 422).startswith("q: ")


# --------------------------------------------------------------------------- writes
def test_added_document_is_found_and_comes_back_unchanged(fresh):
    c = _client(fresh)
    script = "<script>alert('x')</script> w003 w004 w005 w006 w007 w008"
    r = c.post("/v1/docs", json={"documents": [{"id": "new/1", "text": script, "metadata": {"topic": 99}}]})
    assert r.status_code == 201 and r.json()["ids"] == ["new/1"]
    hits = c.get("/v1/search", params={"q": script, "k": 3}).json()["hits"]
    assert hits[0]["id"] == "new/1" and hits[0]["text"] == script
    assert c.get("/v1/search", params={"q": script, "filter": '{"topic": 99}'}).json()["hits"][0]["id"] == "new/1"
    # an id with a '/' is reachable percent-encoded, and the text is data, unchanged
    assert c.get("/v1/docs/new%2F1").json()["text"] == script
    # durable: another opening of the directory sees it
    with Index.open(fresh) as again:
        assert again.document("new/1")[0] == script
    _is_error(c.post("/v1/docs", json={"documents": [{"id": "new/1", "text": "again"}]}), 409)   # id taken


def test_delete_and_reindex(fresh):
    c = _client(fresh)
    n = c.get("/v1/info").json()["documents"]
    assert c.delete("/v1/docs/d5").json() == {"deleted": 1, "documents": n - 1}
    _is_error(c.get("/v1/docs/d5"), 404)
    _is_error(c.delete("/v1/docs/d5"), 404)
    c.post("/v1/docs", json={"documents": [{"text": "w001 w002 w003"}, {"text": "w004 w005"}]})
    assert c.get("/v1/info").json()["added_since_statistics"] == 2
    info = c.post("/v1/reindex", json={}).json()   # a write: JSON
    assert info["added_since_statistics"] == 0 and info["documents"] == n + 1


def test_api_key_guards_writes_only(fresh):
    c = _client(fresh, api_key=KEY)
    doc = {"documents": [{"id": "k1", "text": "w010 w011"}]}
    _is_error(c.post("/v1/docs", json=doc), 401)
    _is_error(c.post("/v1/docs", json=doc, headers={"Authorization": "Bearer wrong"}), 401)
    _is_error(c.post("/v1/reindex", headers={"X-API-Key": KEY + "x"}), 401)
    assert c.post("/v1/docs", json=doc, headers={"Authorization": f"Bearer {KEY}"}).status_code == 201
    assert c.delete("/v1/docs/k1", headers={"X-API-Key": KEY}).status_code == 200
    assert c.get("/v1/search", params={"q": "w010"}).status_code == 200   # reads need no key


def test_read_only_refuses_writes(fresh):
    c = _client(fresh, read_only=True)
    _is_error(c.post("/v1/docs", json={"documents": [{"text": "w001"}]}), 403)
    _is_error(c.delete("/v1/docs/d1"), 403)
    _is_error(c.post("/v1/reindex"), 403)
    assert c.get("/v1/docs/d1").status_code == 200   # still there
    assert c.get("/v1/info").json()["documents"] == len(corpus()[0])


# --------------------------------------------------------------------------- hostile requests
@pytest.mark.parametrize("path", ["/v1/docs/..%2F..%2Fetc%2Fpasswd", "/v1/docs/../../etc/passwd",
                                  "/v1/docs/%00", "/v1/docs/'%20OR%201=1--", "/v1/docs/..%2F..%2Fetc%2Fpasswd/similar"])
def test_path_traversal_and_injection_in_ids_are_404(client, path):
    r = client.get(path)
    _is_error(r, 404)
    assert "root:" not in r.text


def test_bad_requests_are_4xx_json(client):
    _is_error(client.post("/v1/search", content=b'{"queries": [', headers={"content-type": "application/json"}), 400)
    _is_error(client.post("/v1/search", content=b"\xff\xfe\x00{", headers={"content-type": "application/json"}), 400)
    _is_error(client.post("/v1/search", content=b"queries=a"), 400)   # not JSON at all
    _is_error(client.post("/v1/search", json=["a"]), 400)
    _is_error(client.post("/v1/search", json={"queries": ["a"], "unknown": 1}), 422)
    _is_error(client.post("/v1/explain", json={"query": "a", "document": "b", "n_top": 3, "x": 1}), 422)
    _is_error(client.post("/v1/search", json={"queries": [1, 2]}), 422)
    _is_error(client.post("/v1/search", json={"queries": []}), 422)
    _is_error(client.get("/v1/search", params={"q": "a", "k": 1001}), 422)
    _is_error(client.get("/v1/search", params={"q": "a", "k": 0}), 422)
    _is_error(client.get("/v1/search", params={"q": "a", "k": "many"}), 422)
    _is_error(client.get("/v1/search"), 422)   # no q
    _is_error(client.get("/v1/search", params={"q": "a", "filter": "{not json"}), 400)
    _is_error(client.get("/v1/search", params={"q": "a", "filter": "[1, 2]"}), 400)
    _is_error(client.get("/v1/search", params={"q": "a", "filter": '{"bad field!": 1}'}), 400)
    _is_error(client.post("/v1/docs", json={"documents": [{"text": "a", "metadata": {"x": [1, {"y": None}]}, "z": 0}]}), 422)
    json_type = {"content-type": "application/json"}
    _is_error(client.post("/v1/search", content=b"[" * 100_000, headers=json_type), 400)   # nested past recursion
    nan = b'{"documents": [{"id": "z", "text": "a", "metadata": {"x": NaN}}]}'
    _is_error(client.post("/v1/docs", content=nan, headers=json_type), 400)
    _is_error(client.get("/v1/search", params={"q": "a", "filter": '{"topic": {"a": 1}}'}), 400)
    _is_error(client.put("/v1/search"), 405)
    _is_error(client.get("/v1/nothing"), 404)


def test_bodies_and_queries_over_the_bounds_are_413(fresh):
    c = _client(fresh, max_body_bytes=10_000, max_query_chars=100)
    _is_error(c.post("/v1/search", json={"queries": ["w001 " * 5000]}), 413)   # Content-Length
    chunks = (b'{"queries": ["' + b"w001 " * 1000, b"w002 " * 2000 + b'"]}')
    _is_error(c.post("/v1/search", content=iter(chunks), headers={"content-type": "application/json"}), 413)  # chunked
    _is_error(c.post("/v1/search", content=b"x", headers={"content-length": "99999999999"}), 413)
    _is_error(c.get("/v1/search", params={"q": "w001 " * 30}), 413)
    _is_error(c.post("/v1/search", json={"queries": ["w001", "w002 " * 30]}), 413)
    _is_error(c.post("/v1/match", json={"text": "w001 " * 30}), 413)
    _is_error(c.post("/v1/explain", json={"query": "w001 " * 30, "document": "w001"}), 413)
    _is_error(c.post("/v1/docs", json={"documents": [{"text": "w001 " * 3000}]}), 413)
    assert c.get("/v1/info").json()["documents"] == len(corpus()[0])   # nothing was added


def test_ten_megabyte_queries_are_refused(client):
    big = "w001 " * 2_000_000
    _is_error(client.post("/v1/search", json={"queries": [big]}), 413)
    _is_error(client.post("/v1/match", json={"text": big}), 413)
    # httpx refuses long URLs (older versions well below 64 KiB): twice the query limit, in a URL
    _is_error(client.get("/v1/search", params={"q": big[:20_000]}), 413)


def _wait_for(condition, seconds=5):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert condition()


def test_too_many_waiting_requests_get_429_and_a_slow_index_503(built):
    app = create_app(built / "mcd", max_pending=1, timeout_s=10)
    c = TestClient(app, raise_server_exceptions=False, base_url=BASE)
    worker = app.state.worker
    answers = []
    with worker.lock:   # the index is busy
        waiter = threading.Thread(target=lambda: answers.append(c.get("/v1/search", params={"q": "w001"})))
        waiter.start()
        _wait_for(lambda: worker.waiting == 1)
        r = c.get("/v1/search", params={"q": "w002"})
        _is_error(r, 429)
        assert int(r.headers["Retry-After"]) >= 1
    waiter.join(10)
    assert answers and answers[0].status_code == 200   # the one that waited got its answer
    impatient = create_app(built / "mcd", timeout_s=0.1)
    with impatient.state.worker.lock:
        _is_error(TestClient(impatient, raise_server_exceptions=False, base_url=BASE).get("/v1/info"), 503)


def test_a_write_that_timed_out_waiting_never_happens(fresh):
    app = create_app(fresh, timeout_s=0.2)
    c = TestClient(app, raise_server_exceptions=False, base_url=BASE)
    with app.state.writer.lock:
        _is_error(c.post("/v1/docs", json={"documents": [{"id": "late", "text": "w001 w002"}]}), 503)
        # reads go on while the writes wait
        assert c.get("/v1/search", params={"q": "w001"}).status_code == 200
    _is_error(c.get("/v1/docs/late"), 404)   # withdrawn, not run behind the client's back
    assert c.get("/v1/info").json()["documents"] == len(corpus()[0])


def test_searches_waiting_together_run_as_one_batch_with_their_own_answers(built):
    app = create_app(built / "mcd")
    c = TestClient(app, raise_server_exceptions=False, base_url=BASE)
    worker = app.state.worker
    texts = corpus()[0]
    queries = [texts[i] for i in (3, 20, 40, 60, 80)]
    expected = [c.get("/v1/search", params={"q": q, "k": 4}).json()["hits"] for q in queries]
    before = (worker.batches, worker.batched_queries)
    answers = {}
    with worker.lock:
        threads = [threading.Thread(target=lambda i=i, q=q: answers.__setitem__(
            i, c.get("/v1/search", params={"q": q, "k": 4}))) for i, q in enumerate(queries)]
        for t in threads:
            t.start()
        # the first is taken by the worker thread (blocked on the lock), the rest queue behind it
        _wait_for(lambda: worker.waiting == len(queries))
    for t in threads:
        t.join(10)
    assert [answers[i].json()["hits"] for i in range(len(queries))] == expected
    batches, batched = worker.batches - before[0], worker.batched_queries - before[1]
    assert batched == len(queries) and batches < len(queries)
    # a different k is not batched with them
    assert c.get("/v1/search", params={"q": queries[0], "k": 2}).json()["hits"] == expected[0][:2]


def test_a_failing_search_in_a_batch_fails_alone(built):
    app = create_app(built / "mcd")
    c = TestClient(app, raise_server_exceptions=False, base_url=BASE)
    worker = app.state.worker
    answers = {}
    texts = corpus()[0]
    with worker.lock:
        good = threading.Thread(target=lambda: answers.__setitem__("good", c.get("/v1/search", params={"q": texts[5]})))
        good.start()
        _wait_for(lambda: worker.waiting == 1)
        bad = threading.Thread(target=lambda: answers.__setitem__("bad", c.post("/v1/search", json={"queries": [texts[6]]})))
        bad.start()
        _wait_for(lambda: worker.waiting == 2)
        index = app.state.index
        real = index.search

        def search(queries, *args, **kwargs):   # the second query of a batch breaks the search
            if isinstance(queries, list) and texts[6] in queries:
                raise ValueError("this query is refused")
            return real(queries, *args, **kwargs)

        index.search = search
    good.join(10)
    bad.join(10)
    assert answers["good"].status_code == 200 and answers["good"].json()["hits"][0]["id"] == corpus()[2][5]
    _is_error(answers["bad"], 400)


def test_a_bug_is_a_500_json_without_traceback(built, monkeypatch):
    app = create_app(built / "mcd")

    def broken():
        raise RuntimeError("secret internals")

    monkeypatch.setattr(app.state.index, "info", broken)
    r = TestClient(app, raise_server_exceptions=False, base_url=BASE).get("/v1/info")
    assert "secret internals" not in _is_error(r, 500)


def test_create_app_refuses_bad_options_and_paths(built, tmp_path):
    with pytest.raises(ValueError, match="max_pending"):
        create_app(built / "mcd", max_pending=-1)
    with pytest.raises(ValueError, match="api_key"):
        create_app(built / "mcd", api_key="")
    with pytest.raises(FileNotFoundError):
        create_app(tmp_path / "none")


# --------------------------------------------------------------------------- the command
def test_serve_usage_errors(built, monkeypatch, capsys):
    from learnsim.cli import main

    monkeypatch.delenv("LEARNSIM_TEST_NO_SUCH_KEY", raising=False)
    assert main(["serve", str(built / "mcd"), "--api-key-env", "LEARNSIM_TEST_NO_SUCH_KEY"]) == 2
    err = capsys.readouterr().err.strip()
    assert "LEARNSIM_TEST_NO_SUCH_KEY" in err and "\n" not in err
    monkeypatch.setitem(sys.modules, "uvicorn", None)   # as if uvicorn were not installed
    assert main(["serve", str(built / "mcd")]) == 2
    assert "pip install learnsim[serve]" in capsys.readouterr().err
    assert main(["serve", str(built / "mcd"), "--port", "70000"]) == 2
    monkeypatch.delitem(sys.modules, "uvicorn")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        capsys.readouterr()
        assert main(["serve", str(built / "mcd"), "--port", str(port)]) == 2
        assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_import_learnsim_and_help_do_not_import_fastapi():
    code = ("import sys, learnsim, learnsim.cli; learnsim.cli.build_parser(); "
            "assert 'fastapi' not in sys.modules and 'uvicorn' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=30)


def test_learnsim_serve_runs_a_real_server(built):
    import httpx

    with running_server(built / "mcd") as base:
        texts, _, ids, _ = corpus()
        hits = httpx.get(f"{base}/v1/search", params={"q": texts[9], "k": 3}, timeout=10).json()["hits"]
        assert hits[0]["id"] == ids[9]
        r = httpx.get(f"{base}/v1/docs/nope", timeout=10)
        assert r.status_code == 404 and r.json()["code"] == 404
        # a query over the bound reaches the application (not h11's bare 400) and gets 413 JSON
        r = httpx.get(f"{base}/v1/search", params={"q": "w001 " * 8000}, timeout=10)
        assert r.status_code == 413 and r.json()["code"] == 413
        # bytes that are not UTF-8, percent-encoded, in the path or the query: 400 JSON
        for target in (b"/v1/search?q=%FF%FE", b"/v1/docs/%C3%28", b"/v1/docs/d1/similar?k=%FF"):
            status, body = _raw_get(base, target)
            assert status == 400 and b'"code":400' in body and b"UTF-8" in body, (target, body)
        # the search page answers its own HTML error page (a browser showed the JSON as text)
        status, body = _raw_get(base, b"/?q=%FF")
        assert status == 400 and b"<form" in body and b"not valid UTF-8" in body and b'"code":400' not in body, body
        # sent raw, they are not HTTP (a request line is ASCII): the HTTP parser refuses them
        # before the application sees them, with its own 400 (text: no JSON can be made there)
        assert _raw_get(base, b"/v1/search?q=\xff\xfe")[0] == 400
        assert httpx.get(f"{base}/healthz", timeout=10).status_code == 200   # and it goes on serving


def _raw_get(base, target):
    """(status, body) of a GET of the raw bytes ``target``, sent as they are (clients would
    percent-encode or refuse them)."""
    host, port = base.rsplit("/", 1)[1].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: " + host.encode() + b"\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def test_the_fast_search_path_answers_as_the_route(client, built):
    """GET /v1/search that is plainly valid is answered before the framework; a k written
    "0000010" (seven digits, which the fast path leaves to the route) sends the same request
    through the route: the answers must be the same."""
    from learnsim.service._fast import plain_search_params

    texts = corpus()[0]
    cases = [{"q": texts[4]}, {"q": texts[4], "k": "3"}, {"q": texts[8], "k": "5", "explain": "true", "n_top": "4"},
             {"q": "w001 w002", "filter": '{"topic": 1}'}, {"q": "w001", "filter": '{"bad field!": 1}'},
             {"q": "w001", "filter": "[1]"}, {"q": "w001 " * 3000}, {"q": texts[4], "offset": "3", "include": "score"},
             {"q": texts[4], "include": "bogus"}, {"q": texts[4], "offset": "999", "k": "5"}]
    for params in cases:
        fast = client.get("/v1/search", params=params)
        routed = client.get("/v1/search", params=dict(params, k=params.get("k", "10").zfill(7)))
        assert fast.status_code == routed.status_code and fast.json() == routed.json(), params
    assert plain_search_params(b"q=a+b&k=3", 1000, 100) == {"q": "a b", "k": 3, "filter": None,
                                                           "explain": False, "n_top": 10, "offset": 0, "include": None}
    assert plain_search_params("q=%C3%A9t%C3%A9".encode(), 1000, 100)["q"] == "été"
    # what the route must decide (and answer with the framework's error or its own reading)
    for qs in (b"k=3", b"q=", b"q=a&k=0", b"q=a&k=1001", b"q=a&k=ten", b"q=a&k=%EF%BC%93", b"q=a&q=b",
               b"q=a&explain=yes", b"q=a&n_top=101", b"q=a&other=1", b"q=a&offset=1000", b"q=a&offset=-1",
               b"q=a&offset=%EF%BC%93"):
        assert plain_search_params(qs, 1000, 100) is None, qs
    _is_error(client.get("/v1/search", params={"q": "a", "k": "0"}), 422)
    # a parameter given twice is refused, not read as its last value (nor its first)
    for twice in ("q=w001&q=w002", "q=w001&k=3&k=4", f"q={texts[4][:40]}&explain=false&explain=true"):
        assert "more than once" in _is_error(client.get("/v1/search?" + twice), 422)
    # and what the framework would read loosely, the route refuses (a body's rules)
    for loose in ({"k": "+10"}, {"k": "1_0"}, {"explain": "yes"}, {"explain": "1"}):
        assert next(iter(loose)) in _is_error(client.get("/v1/search", params=dict({"q": texts[4]}, **loose)), 422)


def test_a_plain_search_goes_around_the_framework_and_its_checks_still_hold(built):
    """The service's own layers (Peer, the head checks, the plain search) come before the
    framework's middleware: a plain GET /v1/search never enters it, every other request does;
    the Host check and the API key of protect_reads still answer a plain search first."""
    seen = []

    class Counting:
        def __init__(self, app):
            self.app = app

        async def __call__(self, scope, receive, send):
            if scope["type"] == "http":
                seen.append(scope["path"])
            await self.app(scope, receive, send)

    app = create_app(built / "mcd", api_key="k3y", protect_reads=True)
    app.add_middleware(Counting)
    texts = corpus()[0]
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as client:
        key = {"X-API-Key": "k3y"}
        assert client.get("/v1/search", params={"q": texts[4]}, headers=key).status_code == 200
        assert seen == []
        assert client.get("/v1/search", params={"q": texts[4], "k": "0000003"}, headers=key).status_code == 200
        assert client.get("/healthz").status_code == 200
        assert seen == ["/v1/search", "/healthz"]
        _is_error(client.get("/v1/search", params={"q": texts[4]}), 401)
        _is_error(client.get("/v1/search", params={"q": texts[4]}, headers=dict(key, Host="evil.example")), 421)
        assert seen == ["/v1/search", "/healthz"]


def test_json_answers_plain_values_as_they_are_and_numpy_made_plain():
    """_json encodes an answer of plain values as it is; numpy values and a NaN or infinity
    (which json refuses) are made plain first: the same body either way."""
    import json

    import numpy as np

    from learnsim.service._http import _json

    plain = {"hits": [{"rank": 1, "id": "a", "score": 0.5, "text": "été", "metadata": {"year": 2020}}], "n": 3}
    body = _json(plain).body
    assert json.loads(body) == plain and "été".encode() in body
    numpy_valued = {"hits": [{"rank": np.int64(1), "id": "a", "score": np.float32(0.5), "text": "été",
                              "metadata": {"year": np.int32(2020)}}], "n": np.array([3])[0]}
    assert _json(numpy_valued).body == body
    assert json.loads(_json({"score": float("nan"), "v": np.array([1.0, np.inf])}).body) == {"score": None,
                                                                                            "v": [1.0, None]}


@pytest.mark.parametrize("with_orjson", [True, False])
def test_json_answers_are_the_same_value_with_and_without_orjson(monkeypatch, with_orjson):
    """With orjson (the serve extra) or without it, every answer is the same JSON value: what
    orjson does not take (non-str keys, an integer over 64 bits, a lone surrogate, numpy
    values, NaN) goes the standard library's way, as before."""
    import json

    import numpy as np

    from learnsim.service import _http

    if with_orjson:
        pytest.importorskip("orjson")
    else:
        monkeypatch.setattr(_http, "_orjson", None)
    cases = [
        {"hits": [{"rank": 1, "id": "a", "score": 0.1 + 0.2, "text": "été 日本語 \u2028", "metadata": {"n": 2 ** 63 - 1}}]},
        {"big": 10 ** 30, "small": -(10 ** 25)},                    # over 64 bits: orjson refuses
        {1: "int key", None: "none key", False: "bool key"},       # non-str keys: json makes them str
        {"score": float("nan"), "inf": float("-inf"), "tiny": 5e-324, "e": 1e-05, "big": 1e22},
        {"np": np.float32(0.25), "arr": np.arange(3), "i": np.int64(7)},
        {"deep": [[[[{"a": [1, 2.5, None, False]}]]]], "empty": {}, "list": []},
    ]
    def before(obj):   # what _json answered before orjson
        try:
            return json.dumps(obj, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError):
            return json.dumps(_http._plain(obj), ensure_ascii=False, allow_nan=False)

    for case in cases:
        expected = json.loads(before(case))
        answer = _http._json(case)
        assert answer.media_type == "application/json" and json.loads(answer.body) == expected
    # a lone surrogate cannot be UTF-8: refused as before, whichever encoder
    with pytest.raises(UnicodeEncodeError):
        _http._json({"text": "\ud800"})


def test_learnsim_serve_with_worker_processes_shares_writes(built, tmp_path):
    """--workers 2: two processes with their own handles on the index answer on one port; a
    document one of them acknowledged is found by every later request, whichever answers it."""
    import httpx

    path = tmp_path / "idx"
    shutil.copytree(built / "mcd", path)
    texts, _, ids, _ = corpus()
    with running_server(path, "--workers", "2", seconds=60) as base:
        # a new connection each time: the kernel spreads them over the two workers
        r = httpx.post(f"{base}/v1/docs", json={"documents": [{"id": "new-1", "text": texts[17] + " w999"}]}, timeout=20)
        assert r.status_code == 201
        for _ in range(12):
            hits = httpx.get(f"{base}/v1/search", params={"q": texts[17] + " w999", "k": 2}, timeout=20).json()["hits"]
            assert "new-1" in {h["id"] for h in hits}
            assert httpx.get(f"{base}/v1/docs/new-1", timeout=20).status_code == 200
        assert httpx.delete(f"{base}/v1/docs/new-1", timeout=20).status_code == 200
        for _ in range(6):
            assert httpx.get(f"{base}/v1/docs/new-1", timeout=20).status_code == 404


def _worker_pids(parent):
    """The worker processes of ``learnsim serve --workers N`` (pid ``parent``): its children that
    multiprocessing spawned (not its resource tracker)."""
    import os

    out = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == parent and b"spawn_main" in cmd:
            out.append(int(entry))
    return sorted(out)


def _listening_sockets(port):
    """How many TCP sockets listen on ``port`` on this machine (/proc/net/tcp, tcp6)."""
    n = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as fh:
                rows = fh.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                n += 1
    return n


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_worker_processes_listen_on_sockets_of_their_own_and_a_dead_one_is_replaced(built, tmp_path):
    """--workers 2: each worker listens on its own SO_REUSEPORT socket (the kernel spreads new
    connections over them; uvicorn's shared socket gave 35 of 50 to one), and one killed with
    SIGKILL is replaced, with a line on stderr, while the other goes on answering."""
    import os
    import signal

    import httpx

    path = tmp_path / "idx"
    shutil.copytree(built / "mcd", path)
    with running_server(path, "--workers", "2", seconds=60, with_process=True) as (base, proc):
        port = int(base.rsplit(":", 1)[1])
        deadline = time.monotonic() + 60
        while len(_worker_pids(proc.pid)) < 2 or _listening_sockets(port) < 2:
            assert time.monotonic() < deadline, "two workers do not listen"
            time.sleep(0.1)
        workers = _worker_pids(proc.pid)
        assert len(workers) == 2 and _listening_sockets(port) == 2
        os.kill(workers[0], signal.SIGKILL)
        while True:
            now = _worker_pids(proc.pid)
            if len(now) == 2 and workers[0] not in now and _listening_sockets(port) == 2:
                break
            assert time.monotonic() < deadline, f"the worker was not replaced: {now}"
            time.sleep(0.2)
        for _ in range(8):   # new connections: the kernel spreads them over both workers
            assert httpx.get(f"{base}/v1/search", params={"q": "w001", "k": 2}, timeout=30).status_code == 200
        assert any("starting another" in line for line in proc.log)


def test_serve_refuses_a_bad_number_of_workers(built, capsys):
    from learnsim.cli import main

    assert main(["serve", str(built / "mcd"), "--workers", "0"]) == 2
    assert "worker processes" in capsys.readouterr().err


def test_a_worker_process_builds_its_app_from_the_environment(built, monkeypatch):
    from learnsim.service.app import OPTIONS_VARIABLE, app_from_environment

    monkeypatch.delenv(OPTIONS_VARIABLE, raising=False)
    with pytest.raises(RuntimeError, match=OPTIONS_VARIABLE):
        app_from_environment()
    monkeypatch.setenv(OPTIONS_VARIABLE, '{"index": "%s", "read_only": true}' % (built / "mcd").as_posix())
    c = TestClient(app_from_environment(), raise_server_exceptions=False, base_url=BASE)
    assert c.get("/v1/info").json()["documents"] == len(corpus()[0])
    _is_error(c.post("/v1/docs", json={"documents": [{"text": "w001"}]}), 403)
    monkeypatch.setenv(OPTIONS_VARIABLE, '{"index": "%s", "api_key_env": "LEARNSIM_TEST_UNSET_KEY"}'
                       % (built / "mcd").as_posix())
    monkeypatch.delenv("LEARNSIM_TEST_UNSET_KEY", raising=False)
    with pytest.raises(RuntimeError, match="LEARNSIM_TEST_UNSET_KEY"):
        app_from_environment()


# --------------------------------------------------------------------------- which way is better
def _says_which_way(body, score, higher):
    assert body["score"] == score and body["higher_is_better"] is higher, {k: body.get(k) for k in ("score", "higher_is_better")}


def test_every_scored_answer_says_what_the_score_is_and_which_way_is_better(client, built):
    """Issue 32, part 5: the service's JSON as the command line's (higher_is_better, false for a
    distance), on the fast path of GET /v1/search and on the route's alike."""
    texts, _, ids, _ = corpus()
    fast = client.get("/v1/search", params={"q": texts[4], "k": 2}).json()
    slow = client.get("/v1/search", params={"q": texts[4], "k": "0000002"}).json()   # the route's path
    for body in (fast, slow):
        _says_which_way(body, "distance", False)
    assert [h["id"] for h in fast["hits"]] == [h["id"] for h in slow["hits"]]
    _says_which_way(client.post("/v1/search", json={"queries": [texts[4]], "k": 2}).json(), "distance", False)
    _says_which_way(client.get(f"/v1/docs/{ids[4]}/similar", params={"k": 2}).json(), "distance", False)
    info = client.get("/v1/info").json()
    _says_which_way(info, "distance", False)
    assert info["search_score"] == "distance"
    e = client.post("/v1/explain", json={"query": texts[1], "document": texts[2]}).json()
    assert e["measure"] == "distance" and e["higher_is_better"] is False and "closer_words" in e
    explained = client.get("/v1/search", params={"q": texts[4], "k": 1, "explain": "true"}).json()
    assert explained["hits"][0]["explanation"]["higher_is_better"] is False

    c = _client(built / "film")
    info = c.get("/v1/info").json()
    _says_which_way(info, "similarity", True)
    search = info["search_score"]        # "probability" where the model re-ranks its hits
    assert search in ("similarity", "probability")
    _says_which_way(c.get("/v1/search", params={"q": texts[4], "k": 2}).json(), search, True)
    _says_which_way(c.post("/v1/match", json={"text": texts[4], "k": 3}).json(), search, True)
    decided = c.post("/v1/match", json={"pairs": [[texts[0], texts[1]]]}).json()
    assert decided["higher_is_better"] is True
    assert decided["score"] in ("similarity", "decision", "mutual_neighbours", "predicted_score")
    e = c.post("/v1/explain", json={"query": texts[1], "document": texts[2]}).json()
    assert e["measure"] == "similarity" and e["higher_is_better"] is True
    schema = c.get("/openapi.json").json()
    body = schema["paths"]["/v1/search"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert {"score", "higher_is_better", "hits"} <= set(body["required"])


class _Recorder:
    """A stand-in index for IndexWorker: records each batch's queries, taking ``seconds`` a batch."""

    def __init__(self):
        self.batches, self.seconds = [], 0.0

    def search(self, index, queries):
        import time

        self.batches.append(list(queries))
        time.sleep(self.seconds)
        return [[q] for q in queries]


def test_a_search_under_load_waits_for_its_batch_and_an_idle_one_does_not():
    """After a batch of many requests (load) a search waits a little for the clients it answered
    to ask again, so that they join its batch; after a batch of one request (an idle service, or
    one client's list of queries) it runs at once, and a write never waits."""
    import time

    from learnsim.service._worker import LINGER_MIN_BATCH, IndexWorker

    rec = _Recorder()
    # a long wait allowed, so that the test does not race the thread: at most half the last
    # batch's time and until the last batch's number of queries are queued again
    worker = IndexWorker(None, max_pending=100, timeout_s=30, linger_s=10.0)

    def load(prefix, n, seconds):
        """n one-query requests queued behind a write: they run as one batch of ``seconds``."""
        worker.submit(lambda index: time.sleep(0.2))
        rec.seconds = seconds
        fs = [worker.submit(rec.search, key="k", queries=[f"{prefix}{i}"]) for i in range(n)]
        assert [f.result(10) for f in fs] == [[[f"{prefix}{i}"]] for i in range(n)]
        assert rec.batches[-1] == [f"{prefix}{i}" for i in range(n)]
        rec.seconds = 0.0

    try:
        load("a", LINGER_MIN_BATCH + 4, 0.6)
        first = worker.submit(rec.search, key="k", queries=["b0"])
        time.sleep(0.05)
        rest = [worker.submit(rec.search, key="k", queries=[f"b{i}"]) for i in range(1, 4)]
        rec.seconds = 2.0   # (this batch's time: the next wait is at most 1 s)
        assert [f.result(10) for f in [first] + rest] == [[["b0"]], [["b1"]], [["b2"]], [["b3"]]]
        # they came within the wait: one batch
        assert rec.batches[-1] == ["b0", "b1", "b2", "b3"]
        # the last batch's number of queries queued again (4, and the one there was) ends the
        # wait at once, well before its 1 s
        rec.seconds = 0.0
        start = time.monotonic()
        fs = [worker.submit(rec.search, key="k", queries=["c0"])]
        time.sleep(0.1)   # the thread is waiting for more
        fs += [worker.submit(rec.search, key="k", queries=[f"c{i}"]) for i in range(1, 5)]
        assert [f.result(10) for f in fs] == [[[f"c{i}"]] for i in range(5)]
        assert rec.batches[-1] == [f"c{i}" for i in range(5)] and time.monotonic() - start < 0.8
        # a batch of one request (an idle service), however long it took: the next search does
        # not wait (a wait would be 1 s here)
        rec.seconds = 2.0
        worker.submit(rec.search, key="k", queries=["d"]).result(10)
        rec.seconds = 0.0
        start = time.monotonic()
        assert worker.submit(rec.search, key="k", queries=["e"]).result(10) == [["e"]]
        assert time.monotonic() - start < 0.5
        # nor after one client's list of many queries (one request): a program posting lists one
        # after another never waits for others
        rec.seconds = 2.0
        worker.submit(rec.search, key="k", queries=[f"g{i}" for i in range(LINGER_MIN_BATCH + 4)]).result(10)
        rec.seconds = 0.0
        start = time.monotonic()
        assert worker.submit(rec.search, key="k", queries=["h"]).result(10) == [["h"]]
        assert time.monotonic() - start < 0.5
        # writes (no key) never wait, even after a batch of many requests
        load("f", LINGER_MIN_BATCH + 4, 2.0)
        start = time.monotonic()
        assert worker.submit(lambda index: "written").result(10) == "written"
        assert time.monotonic() - start < 0.5
    finally:
        worker.close()


def test_the_trace_records_each_search_in_the_worker_once_in_order_and_no_write(tmp_path, monkeypatch, caplog):
    """With a trace file, every search call answered gets one row: queued <= started <= finished
    <= resumed, the searches batched together share their batch's start, end and size, and a
    write (no key) is not traced; the service traces only where LEARNSIM_TRACE_SEARCHES names a
    directory."""
    import asyncio
    import time

    from learnsim.service import app as service_app
    from learnsim.service._worker import IndexWorker, SearchTrace

    rec = _Recorder()
    path = tmp_path / "searches.tsv"
    worker = IndexWorker(None, max_pending=100, timeout_s=30, trace=SearchTrace(path))

    async def run():
        await worker.call(rec.search, key="k", queries=["a"])
        # held behind a write (called as the service calls one), the next three wait together: one batch
        write = asyncio.ensure_future(worker.call(lambda index: time.sleep(0.2)))
        await asyncio.sleep(0.05)
        got = await asyncio.gather(*(worker.call(rec.search, key="k", queries=[f"b{i}"]) for i in range(3)))
        assert got == [[["b0"]], [["b1"]], [["b2"]]]
        await write

    try:
        asyncio.run(run())
    finally:
        worker.close()
    lines = path.read_text(encoding="ascii").splitlines()
    assert lines[0].split("\t")[:6] == ["queued", "started", "finished", "resumed", "batch_queries", "batch_requests"]
    rows = [[float(x) for x in line.split("\t")] for line in lines[1:]]
    assert len(rows) == 4 == sum(len(b) for b in rec.batches)
    for queued, started, finished, resumed, n_queries, n_requests, *_ in rows:
        assert queued <= started <= finished <= resumed
        assert n_queries == n_requests and n_queries >= 1
    assert rows[0][4] == 1
    together = rows[1:]
    assert rec.batches[-1] == ["b0", "b1", "b2"]
    assert {tuple(r[1:3]) for r in together} == {tuple(together[0][1:3])} and all(r[4] == 3 for r in together)

    monkeypatch.setenv(service_app.TRACE_VARIABLE, str(tmp_path))
    with caplog.at_level("WARNING"):
        trace = service_app._search_trace()
    assert trace.path == str(tmp_path / f"searches-{os.getpid()}.tsv") and str(tmp_path) in caplog.text
    assert (tmp_path / f"searches-{os.getpid()}.tsv").read_text(encoding="ascii") == lines[0] + "\n"
    # not a directory, or one that cannot be written: logged, and no trace (the service serves)
    caplog.clear()
    monkeypatch.setenv(service_app.TRACE_VARIABLE, str(tmp_path / "missing"))
    with caplog.at_level("WARNING"):
        assert service_app._search_trace() is None
    assert "not a directory" in caplog.text
    caplog.clear()
    monkeypatch.setenv(service_app.TRACE_VARIABLE, str(tmp_path))
    monkeypatch.setattr(service_app, "SearchTrace", _unwritable)
    with caplog.at_level("WARNING"):
        assert service_app._search_trace() is None
    assert "cannot be written" in caplog.text
    monkeypatch.delenv(service_app.TRACE_VARIABLE)
    assert service_app._search_trace() is None


def _unwritable(path):
    raise PermissionError(13, "Permission denied", str(path))


def test_a_search_batch_does_not_wait_for_a_write_of_its_process():
    """The service's two threads run side by side: a batch queued while a write runs starts and
    ends before the write does (they took turns before: the batch waited for the whole write,
    its fsyncs included), and a write queued while a batch runs starts at once too."""
    import threading as _threading
    import time

    from learnsim.service._worker import IndexWorker

    spans, lock = {}, _threading.Lock()

    def timed(name, seconds):
        def run(*args):
            start = time.monotonic()
            time.sleep(seconds)
            with lock:
                spans[name] = (start, time.monotonic())
            return [[name]] * len(args[1]) if len(args) > 1 else name
        return run

    reads = IndexWorker(None, max_pending=100, timeout_s=30, linger_s=0)
    writes = IndexWorker(None, max_pending=100, timeout_s=30)
    try:
        w1 = writes.submit(timed("w1", 1.0))
        time.sleep(0.1)   # w1 is running
        assert reads.submit(timed("b1", 0.2), key="k", queries=["q"]).result(10) == [["b1"]]
        assert not w1.done()
        assert w1.result(10) == "w1"
        assert spans["w1"][0] < spans["b1"][0] < spans["b1"][1] < spans["w1"][1]
        b2 = reads.submit(timed("b2", 1.0), key="k", queries=["r"])
        time.sleep(0.1)   # b2 is running
        assert writes.submit(timed("w2", 0.2)).result(10) == "w2"
        assert not b2.done()
        assert b2.result(10) == [["b2"]]
        assert spans["b2"][0] < spans["w2"][0] < spans["w2"][1] < spans["b2"][1]
    finally:
        reads.close()
        writes.close()


def test_a_failing_search_alone_runs_once():
    """A batch of one request that fails gives its caller the error it raised, without running it
    again: a refused search (a filter the documents refuse) cost its reads twice."""
    from learnsim.service._worker import IndexWorker

    runs = []

    def refused(index, queries):
        runs.append(list(queries))
        raise ValueError("refused")

    worker = IndexWorker(None, max_pending=10, timeout_s=30)
    try:
        future = worker.submit(refused, key="k", queries=["q"])
        with pytest.raises(ValueError, match="refused"):
            future.result(10)
        assert runs == [["q"]]
    finally:
        worker.close()


def test_a_batch_refused_for_its_filter_runs_once():
    """A batch of several requests that failed was run again request by request, so that a filter
    the documents refuse ('Topic' where they hold 'topic'), sent by several callers at once, cost
    every request its reads twice. The requests of a batch share its filter (the batch's key):
    a FilterError is every request's, each given it from the one run; an error of another kind
    may be one request's, and each request still gets its own answer."""
    import threading

    from learnsim.exceptions import FilterError
    from learnsim.service._worker import IndexWorker

    runs, gate = [], threading.Event()

    def refused(index, queries):
        runs.append(list(queries))
        raise FilterError("the filter is refused")

    def one_bad(index, queries):
        runs.append(list(queries))
        if "bad" in queries:
            raise ValueError("bad query")
        return [[q] for q in queries]

    worker = IndexWorker(None, max_pending=100, timeout_s=30, linger_s=0)
    try:
        for fn, key in ((refused, "refused"), (one_bad, "one_bad")):
            runs.clear()
            gate.clear()
            worker.submit(lambda index: gate.wait(10))         # the searches queue up behind it
            qs = ["a", "b", "bad", "c"]
            fs = [worker.submit(fn, key=key, queries=[q]) for q in qs]
            gate.set()
            errors = []
            for q, f in zip(qs, fs):
                if fn is refused or q == "bad":
                    with pytest.raises(ValueError) as caught:
                        f.result(10)
                    errors.append(caught.value)
                else:
                    assert f.result(10) == [[q]]
            assert runs[0] == qs
            if fn is refused:
                assert runs == [qs]
                assert len({id(e) for e in errors}) == len(qs)      # a copy each: no shared traceback
                assert all(isinstance(e, FilterError) and str(e) == "the filter is refused" for e in errors)
            else:
                assert sorted(runs[1:]) == [[q] for q in sorted(qs)]
    finally:
        worker.close()
