"""learnsim.client (issue 33, point 4): the retries, the Retry-After waits and the typed errors
against ``httpx.MockTransport`` (no network, no sleeping: the sleep is injected), then every
route through :class:`Client` (a real ``learnsim serve`` on 127.0.0.1) and :class:`AsyncClient`
(the application in process, through ``httpx.ASGITransport``), with search results checked
against :meth:`Index.search` on the same index."""
from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

import pytest

httpx = pytest.importorskip("httpx")

from learnsim.client import (AsyncClient, BadRequest, Client, ClientError, Conflict, ConnectionFailed,  # noqa: E402
                             NotFound, PayloadTooLarge, RateLimited, ServerError, Unauthorized, Unavailable)
from learnsim.client._clients import retry_after_seconds  # noqa: E402

BASE = "http://127.0.0.1"
KEY = "client-test-key"
KEY_ENV = "LEARNSIM_CLIENT_TEST_KEY"
KINDS = ("sync", "async")


# --------------------------------------------------------------------------- a mocked service
class Service:
    """A MockTransport handler answering the requests in turn with ``answers`` (each a status, a
    ``(status, body, headers)``, or an exception class to raise), the last one again once they
    are used up; ``requests`` holds what came."""

    def __init__(self, *answers):
        self.answers, self.requests = list(answers), []

    def __call__(self, request):
        self.requests.append(request)
        answer = self.answers[min(len(self.requests), len(self.answers)) - 1]
        if isinstance(answer, type) and issubclass(answer, Exception):
            raise answer("mocked failure", request=request)
        status, body, headers = answer if isinstance(answer, tuple) else (answer, None, {})
        if body is None:
            body = dict(_fields(request), ok=True) if status < 300 else {"error": f"mocked {status}", "code": status}
        content = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        return httpx.Response(status, content=content, headers=headers)


def _fields(request):
    """The fields the route of ``request`` answers (each answer is checked for its shape): no hits,
    nothing written."""
    path, method = request.url.path, request.method
    if path.endswith("/v1/search"):
        return {"hits": []} if method == "GET" else {"results": [[] for _ in json.loads(request.content)["queries"]]}
    if path.endswith("/similar"):
        return {"hits": []}
    if path.endswith(("/v1/info", "/v1/reindex")):
        return {"documents": 0, "method": "BM25"}
    if path.endswith("/v1/match"):
        return {"matches": [], "decisions": [], "score": "similarity", "higher_is_better": True}
    if path.endswith("/v1/explain"):
        return {"score": 0.0, "measure": "similarity", "higher_is_better": True, "words": []}
    if path.endswith("/v1/feedback"):
        return {"impression": "i", "recorded": 1}
    if path.endswith("/openapi.json"):
        return {"openapi": "3.1.0", "paths": {}}
    if path.endswith("/healthz"):
        return {"status": "ok"}
    if path.endswith("/v1/docs"):
        return {"ids": [], "added": 0, "updated": 0, "documents": 0}
    if method == "DELETE":
        return {"deleted": 1, "documents": 0}
    return {"id": "x", "text": "t", "added": 0, "updated": 1, "documents": 0}     # GET and PUT /v1/docs/{id}


@pytest.fixture(params=KINDS)
def mocked(request):
    """``make(*answers, **options)`` -> (client, run, service, sleeps): a Client or an AsyncClient
    on a :class:`Service`; ``run(client.method(...))`` gives the answer either way, ``sleeps`` the
    waits asked for."""
    def make(*answers, **options):
        service, sleeps = Service(*answers), []
        transport = httpx.MockTransport(service)
        if request.param == "sync":
            return Client(BASE, transport=transport, sleep=sleeps.append, **options), _same, service, sleeps

        async def sleep(seconds):
            sleeps.append(seconds)

        return AsyncClient(BASE, transport=transport, sleep=sleep, **options), asyncio.run, service, sleeps

    return make


def _same(value):
    return value


def test_a_429_is_tried_again_after_its_retry_after(mocked):
    client, run, service, sleeps = mocked((429, None, {"Retry-After": "2"}), 200)
    assert run(client.search("q")) == {"hits": [], "ok": True}
    assert len(service.requests) == 2 and sleeps == [2.0]


def test_the_wait_is_capped_and_the_tries_are_counted(mocked):
    # an hour asked for, as seconds and as an HTTP date: each wait is cut to max_wait
    later = email.utils.format_datetime(datetime.now(timezone.utc) + timedelta(hours=1), usegmt=True)
    client, run, service, sleeps = mocked((503, None, {"Retry-After": "3600"}),
                                          (503, None, {"Retry-After": later}), max_wait=60)
    with pytest.raises(Unavailable) as info:
        run(client.info())
    assert len(service.requests) == 4 and sleeps == [60.0, 60.0, 60.0]   # 1 try + max_retries=3
    assert info.value.status == 503 and info.value.message == "mocked 503" and info.value.retry_after > 3500
    assert isinstance(info.value, ServerError) and info.value.request.url.path == "/v1/info"


def test_without_retry_after_the_waits_double(mocked):
    client, run, service, sleeps = mocked(429, max_retries=4, max_wait=3)
    with pytest.raises(RateLimited):
        run(client.search("q"))
    assert sleeps == [0.5, 1.0, 2.0, 3.0] and len(service.requests) == 5


def test_no_retries_when_max_retries_is_0(mocked):
    client, run, service, sleeps = mocked(429, max_retries=0)
    with pytest.raises(RateLimited):
        run(client.search("q"))
    assert len(service.requests) == 1 and sleeps == []


def test_a_damaged_index_is_not_retried(mocked):
    client, run, service, _ = mocked((503, {"error": "segments/a1 is damaged", "code": "index_damaged"}, {}))
    with pytest.raises(Unavailable) as info:
        run(client.search("q"))
    assert len(service.requests) == 1 and info.value.code == "index_damaged"


def test_a_write_is_retried_after_429_and_503_which_mean_not_run(mocked):
    client, run, service, sleeps = mocked((429, None, {"Retry-After": "1"}), (503, None, {"Retry-After": "1"}), 201)
    assert run(client.add(["a text"], ids=["x"]))["ok"] is True
    assert len(service.requests) == 3 and sleeps == [1.0, 1.0]
    assert [json.loads(r.content) for r in service.requests] == [{"documents": [{"text": "a text", "id": "x"}]}] * 3


def test_a_write_is_not_retried_after_a_broken_connection(mocked):
    client, run, service, sleeps = mocked(httpx.ReadError, 201)
    with pytest.raises(ConnectionFailed, match="may have been applied") as info:
        run(client.add(["a text"]))
    assert len(service.requests) == 1 and sleeps == []
    assert isinstance(info.value.__cause__, httpx.ReadError) and info.value.status is None
    client, run, service, _ = mocked(httpx.ReadTimeout, 200)
    with pytest.raises(ConnectionFailed):
        run(client.reindex())
    assert len(service.requests) == 1
    client, run, service, _ = mocked(500, 201)
    with pytest.raises(ServerError):
        run(client.add(["a text"]))
    assert len(service.requests) == 1


def test_a_write_is_retried_when_the_connection_was_never_made(mocked):
    client, run, service, sleeps = mocked(httpx.ConnectError, 201)
    assert run(client.add(["a text"]))["ok"] is True
    assert len(service.requests) == 2 and sleeps == [0.5]


def test_reads_and_idempotent_writes_are_retried_after_a_broken_connection(mocked):
    client, run, service, sleeps = mocked(httpx.ReadTimeout)
    with pytest.raises(ConnectionFailed) as info:
        run(client.search(["a", "b"]))                 # a POST, but a read
    assert len(service.requests) == 4 and sleeps == [0.5, 1.0, 2.0]
    assert isinstance(info.value.__cause__, httpx.ReadTimeout)
    for call in (lambda c: c.delete("x"), lambda c: c.upsert("x", "a text"), lambda c: c.match("a text")):
        client, run, service, _ = mocked(httpx.RemoteProtocolError, 200)
        assert run(call(client))["ok"] is True and len(service.requests) == 2


@pytest.mark.parametrize("status,cls", [(400, BadRequest), (422, BadRequest), (401, Unauthorized),
                                        (403, Unauthorized), (404, NotFound), (409, Conflict),
                                        (413, PayloadTooLarge), (429, RateLimited), (500, ServerError),
                                        (502, ServerError), (503, Unavailable), (405, ClientError),
                                        (421, ClientError)])
def test_each_status_raises_its_error_with_the_servers_message(mocked, status, cls):
    client, run, service, _ = mocked((status, {"error": f"why {status}", "code": status}, {}), max_retries=0)
    with pytest.raises(cls) as info:
        run(client.document("a/b"))
    err = info.value
    assert type(err) is cls and (err.status, err.code, err.message) == (status, status, f"why {status}")
    assert err.request.method == "GET" and err.response.status_code == status
    assert str(err) == f"GET /v1/docs/a%2Fb -> {status}: why {status}"
    if status == 404:
        assert isinstance(err, KeyError)     # as Index.document raises
    if status in (400, 422):
        assert isinstance(err, ValueError)


def test_an_answer_that_is_not_the_services_json(mocked):
    # the HTTP parser's own plain-text 400 (a request head over its bound), a proxy's page
    client, run, _, _ = mocked((400, "Bad Request\n  header too large", {}))
    with pytest.raises(BadRequest) as info:
        run(client.search("q"))
    assert info.value.message == "Bad Request header too large" and info.value.code is None
    client, run, _, _ = mocked((200, "<html>not the service</html>", {}))
    with pytest.raises(ClientError, match="not JSON"):
        run(client.info())


def test_health_returns_starting_without_retrying(mocked):
    client, run, service, _ = mocked((503, {"status": "starting"}, {"Retry-After": "1"}))
    assert run(client.health()) == {"status": "starting"} and len(service.requests) == 1


def test_health_refuses_an_answer_without_a_status(mocked):
    # another server's JSON object (a 200 of {} or of another route's shape) was returned as
    # the health, and health()["status"] was a KeyError
    for body in ({}, {"hits": []}, {"status": 5}):
        client, run, _, _ = mocked((200, body, {}))
        with pytest.raises(ClientError, match="not the service's") as info:
            run(client.health())
        assert info.value.status == 200
    client, run, _, _ = mocked((200, {"status": "degraded", "damage": "x"}, {}))
    assert run(client.health()) == {"status": "degraded", "damage": "x"}


def test_health_raises_a_503_error_rather_than_returning_it(mocked):
    # a 503 JSON error at /healthz (a server at its connection bound; a proxy) is no health
    # status: returned, health()["status"] was a KeyError; it is an Unavailable, retried as any
    busy = (503, {"error": "too many connections from this address", "code": 503}, {"Retry-After": "1"})
    client, run, service, sleeps = mocked(busy, (200, {"status": "ok"}, {}))
    assert run(client.health()) == {"status": "ok"} and len(service.requests) == 2 and sleeps == [1.0]
    client, run, service, _ = mocked(busy, max_retries=0)
    with pytest.raises(Unavailable) as info:
        run(client.health())
    assert info.value.message == "too many connections from this address"


def test_what_is_sent(mocked):
    client, run, service, _ = mocked(200, api_key=KEY)
    run(client.search("a query", k=3, filter={"topic": [1, 2]}, explain=True, n_top=4))
    run(client.more_like("d/1", k=2, filter={"topic": 1}))
    run(client.delete(".."))
    run(client.reindex())
    run(client.match_pairs([("a", "b")]))
    run(client.more_like("d/1", k=2, filter={"topic": list(range(60))}))
    search, similar, delete, reindex, pairs, similar_post = service.requests
    assert similar.method == "GET"
    # a filter over a query string's bounds goes in a body, to the same path
    assert similar_post.method == "POST" and similar_post.url.raw_path == b"/v1/docs/d%2F1/similar"
    assert json.loads(similar_post.content) == {"k": 2, "filter": {"topic": list(range(60))}}
    assert search.headers["X-API-Key"] == KEY and search.headers["User-Agent"].startswith("learnsim-client/")
    assert dict(search.url.params) == {"q": "a query", "k": "3", "filter": '{"topic":[1,2]}', "explain": "true",
                                       "n_top": "4"}
    # an id is encoded wholly: /similar after it is the route, %2F inside it is the id
    assert similar.url.raw_path.startswith(b"/v1/docs/d%2F1/similar?")
    assert delete.method == "DELETE" and delete.url.raw_path == b"/v1/docs/%2E%2E"
    assert reindex.headers["Content-Type"] == "application/json" and json.loads(reindex.content) == {}
    assert json.loads(pairs.content) == {"pairs": [["a", "b"]]}
    client, run, service, _ = mocked(200)
    run(client.info())
    assert "X-API-Key" not in service.requests[0].headers


def test_a_path_prefix_is_kept():
    service = Service(200)
    with Client("http://127.0.0.1:9/learnsim/", transport=httpx.MockTransport(service)) as client:
        client.document("é")
    assert service.requests[0].url.raw_path == b"/learnsim/v1/docs/%C3%A9"


def test_a_long_query_or_a_large_filter_is_searched_by_post(mocked):
    answer = (200, {"results": [[{"id": "d1", "score": 0.5}]], "score": "similarity", "higher_is_better": True}, {})
    for query, filter in (("long " * 500, None), ("short", {"topic": list(range(60))}),
                          ("short", {"$or": [{"topic": {"$in": list(range(60))}}, {"lang": "en"}]}),
                          ("short", {"title": "t" * 201})):
        client, run, service, _ = mocked(answer)
        assert run(client.search(query, k=2, filter=filter)) == {"hits": [{"id": "d1", "score": 0.5}],
                                                                 "score": "similarity", "higher_is_better": True}
        request, = service.requests
        assert request.method == "POST"
        sent = {"queries": [query], "k": 2}
        if filter:
            sent["filter"] = filter
        assert json.loads(request.content) == sent


def test_the_query_string_bounds_are_the_services():
    pytest.importorskip("fastapi")
    from learnsim.client import _routes
    from learnsim.service._limits import QUERY_FILTER

    assert _routes.QUERY_FILTER_VALUES == QUERY_FILTER["values"]
    assert _routes.QUERY_FILTER_CHARS == QUERY_FILTER["chars"]


@pytest.mark.parametrize("call,error", [
    (lambda c: c.add("one text"), TypeError), (lambda c: c.add(["a"], ids=["x", "y"]), ValueError),
    (lambda c: c.add(["a"], metadata={"a": 1}), TypeError), (lambda c: c.add([]), ValueError),
    (lambda c: c.upsert(["x"], "a"), TypeError), (lambda c: c.upsert(None, ["a"]), ValueError),
    (lambda c: c.upsert(["x", None], ["a", "b"]), ValueError), (lambda c: c.document(7), TypeError),
    (lambda c: c.delete(""), ValueError), (lambda c: c.match_pairs(("a", "b")), TypeError),
    (lambda c: c.match(["a"]), TypeError), (lambda c: c.search([1]), TypeError)])
def test_arguments_are_checked_before_sending(mocked, call, error):
    client, _, service, _ = mocked(200)
    with pytest.raises(error):
        call(client)
    assert service.requests == []


def test_numbers_and_flags_are_sent_alike_by_get_and_post(mocked):
    # one query goes as a GET, a list as a POST: the same k must read the same either way. A
    # whole float (2.0) went as "k=2.0" (a 422 of the GET) but "k": 2.0 (the POST's 2); a numpy
    # integer as "k=3" but failed the POST's JSON encoding (TypeError)
    np = pytest.importorskip("numpy")
    client, run, service, _ = mocked(200)
    for k in (2.0, np.int64(2), np.int32(2)):
        run(client.search("q", k=k, explain=True, n_top=np.int64(4)))
        run(client.search(["q"], k=k, explain=np.bool_(True), n_top=4.0))
        run(client.more_like("d1", k=k))
        run(client.match("q", k=k))
        run(client.explain("q", "d", n_top=k))
    sent = [dict(r.url.params) if r.method == "GET" else json.loads(r.content) for r in service.requests]
    for n in range(0, len(sent), 5):
        get, post, similar, match, explain = sent[n:n + 5]
        assert get == {"q": "q", "k": "2", "explain": "true", "n_top": "4"}
        assert post == {"queries": ["q"], "k": 2, "explain": True, "n_top": 4}
        assert similar == {"k": "2"} and match == {"text": "q", "k": 2}
        assert explain == {"query": "q", "document": "d", "n_top": 2}


def test_numpy_dwell_and_relevance_are_sent_as_numbers(mocked):
    # a DataFrame's dwell (np.float64) failed the body's JSON encoding (TypeError: float64 is
    # not JSON serializable) before anything was sent
    np = pytest.importorskip("numpy")
    client, run, service, _ = mocked(201)
    run(client.feedback("imp1", ["d1"], dwell=np.float64(3.5), relevance=np.float32(0.5)))
    run(client.feedback("imp1", "d1", dwell=np.int64(3), relevance=1))
    bodies = [json.loads(r.content) for r in service.requests]
    assert bodies == [{"impression": "imp1", "clicked": ["d1"], "dwell": 3.5, "relevance": 0.5},
                      {"impression": "imp1", "clicked": ["d1"], "dwell": 3.0, "relevance": 1.0}]


@pytest.mark.parametrize("explain", ["false", 1, 0, None])
def test_explain_is_a_bool(mocked, explain):
    # the string "false" is true to Python: it asked for explanations; the service takes only
    # true and false too
    client, _, service, _ = mocked(200)
    with pytest.raises(TypeError, match="explain"):
        client.search("q", explain=explain)
    with pytest.raises(TypeError, match="explain"):
        client.search(["q"], explain=explain)
    assert service.requests == []


@pytest.mark.parametrize("options", [{"max_retries": -1}, {"max_retries": 1.5}, {"max_wait": -1}, {"api_key": ""}])
def test_bad_options(options):
    with pytest.raises(ValueError):
        Client(BASE, **options)


def test_retry_after_forms():
    now = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)
    assert retry_after_seconds("3", now) == 3.0 and retry_after_seconds(" 1.5 ", now) == 1.5
    assert retry_after_seconds("Wed, 01 May 2024 12:00:30 GMT", now) == 30.0
    assert retry_after_seconds("Wed, 01 May 2024 11:00:00 GMT", now) == 0.0    # past: now
    assert retry_after_seconds("-5", now) == 0.0
    for bad in (None, "soon", "", "nan", "inf"):
        assert retry_after_seconds(bad, now) is None


OVERFLOWING_DATES = ("Mon, 99999999999999999999 Jan 2020 00:00:00 GMT", "Mon, 01 Jan 2020 99999999999999999999:00:00 GMT",
                     "Mon, 01 Jan 2020 00:00:00 +99999999999999999999")


@pytest.mark.parametrize("value", OVERFLOWING_DATES)
def test_a_retry_after_date_past_any_integer_is_no_wait_given(value):
    assert retry_after_seconds(value) is None


def test_a_refusal_with_an_overflowing_retry_after_is_its_error(mocked):
    """A server (or a proxy) answering 503 with such a date made every call raise Python's
    OverflowError ("Python int too large to convert to C long"), no ClientError: the refusal is
    now tried again after the client's own wait, and raised as its error at the end."""
    client, run, service, sleeps = mocked((503, None, {"Retry-After": OVERFLOWING_DATES[0]}), max_retries=1)
    with pytest.raises(Unavailable) as info:
        run(client.search("w001"))
    assert info.value.retry_after is None and len(service.requests) == 2 and len(sleeps) == 1


@pytest.mark.parametrize("charset", ["rot13", "base64", "zlib_codec", "idna"])
@pytest.mark.parametrize("status, cls", [(500, ServerError), (400, BadRequest), (200, ClientError)])
def test_an_answer_in_a_charset_that_is_no_text_encoding_is_its_error(mocked, charset, status, cls):
    """An answer that is not the service's JSON is told by its text, decoded by the charset its
    Content-Type names: one naming a codec of Python's that is no text encoding (rot13, base64,
    zlib_codec) made the call raise LookupError, idna a UnicodeError, no ClientError. Its text
    is now read as UTF-8, as an unknown charset's is."""
    client, run, service, _ = mocked((status, "proxy says no", {"Content-Type": f"text/plain; charset={charset}"}),
                                     max_retries=0)
    with pytest.raises(cls) as info:
        run(client.search("w001"))
    assert type(info.value) is cls and info.value.status == status and "proxy says no" in str(info.value)


def test_the_default_sleep_really_waits():
    service = Service((429, None, {"Retry-After": "0.05"}), 200)
    with Client(BASE, transport=httpx.MockTransport(service)) as client:
        start = time.monotonic()
        client.info()
    assert 0.05 <= time.monotonic() - start < 5 and len(service.requests) == 2


def test_import_learnsim_does_not_import_httpx_and_a_client_needs_it():
    code = ("import sys, learnsim, learnsim.client; print('httpx' in sys.modules); "
            "sys.modules['httpx'] = None\n"
            "try:\n    learnsim.client.Client()\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.splitlines() == ["False", 'learnsim.client needs httpx: pip install "learnsim[client]"']


# --------------------------------------------------------------------------- the real service
@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A FILM index fitted on duplicate pairs (it has a duplicate rule: /v1/match answers)."""
    from index_models import corpus, model

    from learnsim.index import Index

    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("client") / "built"
    Index.build(path, model("film_pairs"), texts, ids, meta).close()
    return path


@pytest.fixture(scope="module")
def served(built, tmp_path_factory):
    """``through(kind, scenario)``: ``scenario(client, anonymous, index_path)`` (a coroutine
    function) run with two clients of one service, the first with its API key: a ``learnsim
    serve`` subprocess for Client, the application in process for AsyncClient, each on its own
    copy of the index."""
    pytest.importorskip("fastapi")
    from serve_process import running_server

    from learnsim.service import create_app

    copies = {kind: tmp_path_factory.mktemp(kind) / "idx" for kind in KINDS}
    for path in copies.values():
        shutil.copytree(built, path)

    async def in_process(scenario):
        app = create_app(copies["async"], api_key=KEY)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with AsyncClient(BASE, api_key=KEY, transport=transport) as client, \
                    AsyncClient(BASE, transport=transport) as anonymous:
                return await scenario(client, anonymous, copies["async"])

    with pytest.MonkeyPatch.context() as env:
        env.setenv(KEY_ENV, KEY)
        with running_server(copies["sync"], "--api-key-env", KEY_ENV, seconds=60) as base:
            def through(kind, scenario):
                if kind == "async":
                    return asyncio.run(in_process(scenario))
                with Client(base, api_key=KEY) as client, Client(base) as anonymous:
                    return asyncio.run(scenario(client, anonymous, copies["sync"]))

            yield through


async def _answer(value):
    """What a method gave: a Client's answer, or an AsyncClient's awaited."""
    return await value if asyncio.iscoroutine(value) else value


async def _refused(call, cls):
    with pytest.raises(cls) as info:
        await _answer(call())
    return info.value


def _ids(hits):
    return [h["id"] for h in hits]


@contextlib.contextmanager
def _index(path):
    from learnsim.index import Index

    with Index.open(path) as index:
        yield index


async def _every_route(client, anonymous, path):
    from index_models import corpus

    texts, topics, ids, meta = corpus()
    a = _answer
    assert await a(client.health()) == {"status": "ok"}
    info = await a(client.info())
    assert info["documents"] == len(texts) and info["search_score"] == "similarity" and "versions" in info
    assert "versions" not in await a(anonymous.info())    # only for who sends the key
    assert {"/v1/search", "/v1/docs/{doc_id}/similar", "/v1/match"} <= set((await a(client.openapi()))["paths"])

    # searches: the ids, in order, and the scores of Index.search on the same index
    queries = [texts[7], texts[60], "w001 w002 w003"]
    long_query = " ".join(texts[20:40])           # over the GET bound: sent as a POST
    one = await a(client.search(texts[7], k=5))
    batch = await a(client.search(queries, k=4))
    long = await a(client.search(long_query, k=3))
    filtered = await a(client.search(texts[7], k=3, filter={"topic": [topics[30]]}, explain=True, n_top=2))
    similar = await a(client.more_like(ids[3], k=6))
    # over a query string's bounds (a list of 60 values) and long (over 70 KB, past httpx's URL
    # bound): sent as a POST; as a GET it was a 400, and httpx's InvalidURL
    wide = {"topic": [topics[30]] + [f"t{i}" for i in range(59)]}
    long_filter = {"$or": [{f"f{i}": {"$in": [f"{n:03d}" + "x" * 196 for n in range(50)]}} for i in range(7)]
                   + [{"topic": topics[30]}]}
    similar_wide = await a(client.more_like(ids[3], k=4, filter=wide))
    similar_long = await a(client.more_like(ids[3], k=4, filter=long_filter))
    with _index(path) as index:
        assert _ids(similar_wide["hits"]) == _ids(index.more_like(ids[3], 4, filter=wide)) != []
        assert _ids(similar_long["hits"]) == _ids(index.more_like(ids[3], 4, filter=long_filter)) != []
        assert _ids(one["hits"]) == _ids(index.search(texts[7], 5))
        assert one["hits"][0]["score"] == pytest.approx(index.search(texts[7], 5)[0]["score"])
        assert [_ids(hits) for hits in batch["results"]] == [_ids(hits) for hits in index.search(queries, 4)]
        assert _ids(long["hits"]) == _ids(index.search(long_query, 3))
        assert _ids(filtered["hits"]) == _ids(index.search(texts[7], 3, filter={"topic": [topics[30]]}))
        assert _ids(similar["hits"]) == _ids(index.more_like(ids[3], 6))
    assert one["score"] == "similarity" and one["higher_is_better"] is True
    assert all(h["metadata"]["topic"] == topics[30] and len(h["explanation"]["words"]) <= 2 for h in filtered["hits"])
    assert similar["id"] == ids[3] and ids[3] not in _ids(similar["hits"])

    assert await a(client.document(ids[3])) == {"id": ids[3], "text": texts[3], "metadata": meta[3]}
    matches = (await a(client.match(texts[110], k=5)))["matches"]
    assert matches[0]["id"] == ids[110] and 0.0 <= matches[0]["probability"] <= 1.0
    decisions = (await a(client.match_pairs([(texts[0], texts[0]), (texts[0], texts[60])])))["decisions"]
    assert len(decisions) == 2 and decisions[0]["probability"] >= decisions[1]["probability"]
    explanation = await a(client.explain(texts[7], texts[8], n_top=3))
    assert explanation["measure"] == "similarity" and len(explanation["words"]) <= 3

    # writes: an id holding "/similar" and the dots of a path segment are ids like any other
    added = await a(client.add(["a new text w001 w002", "w003 w004"], ids=["x/similar", ".."],
                               metadata=[{"topic": 99}, None]))
    assert {k: added[k] for k in ("ids", "added", "documents")} == {"ids": ["x/similar", ".."], "added": 2,
                                                                     "documents": len(texts) + 2}
    # the words the index's vocabulary lacks ("new" is no word of the collection): counted, and
    # said in "warnings", as the service answers them
    assert added["with_new_words"] >= 1 and any("reindex" in w for w in added["warnings"])
    assert await a(client.document("x/similar")) == {"id": "x/similar", "text": "a new text w001 w002",
                                                     "metadata": {"topic": 99}}
    assert (await a(client.more_like("x/similar", k=1)))["id"] == "x/similar"
    assert (await a(client.document("..")))["text"] == "w003 w004"
    assert await a(client.delete("..")) == {"deleted": 1, "documents": len(texts) + 1}
    assert (await a(client.reindex()))["documents"] == len(texts) + 1
    # a text with no term of the model's vocabulary ("x": no word the vectoriser reads), which
    # every search leaves out: counted, and said in "warnings" naming it
    nothing = await a(client.add(["x"], ids=["no term"]))
    assert nothing["without_model_terms"] == 1 and any("'no term'" in w for w in nothing["warnings"]), nothing
    assert added["without_model_terms"] == 0
    await a(client.delete("no term"))

    # refusals, each its error with the server's message
    err = await _refused(lambda: client.document(".."), NotFound)
    assert err.status == 404 and ".." in err.message
    await _refused(lambda: client.delete("no such id"), NotFound)
    err = await _refused(lambda: client.add(["again"], ids=["x/similar"]), Conflict)
    assert "already in the index" in err.message
    await _refused(lambda: client.search("q", k=5000), BadRequest)
    await _refused(lambda: client.search([texts[0]] * 3, k=1000), BadRequest)     # over queries x k
    await _refused(lambda: client.search("w " * 6000), PayloadTooLarge)
    err = await _refused(lambda: anonymous.add(["no key"]), Unauthorized)
    assert err.status == 401 and "API key" in err.message
    assert (await a(client.info()))["documents"] == len(texts) + 1      # nothing refused was applied


async def _upserts(client, anonymous, path):
    try:
        created = await _answer(client.upsert("u/1", "an upserted text w001", {"topic": 1}))
    except ClientError as err:
        if err.status == 405:
            pytest.skip("this learnsim serve has no PUT /v1/docs/{id} (405): upsert is not on the server yet")
        raise
    replaced = await _answer(client.upsert("u/1", "replaced w002", None))
    assert isinstance(created, dict) and isinstance(replaced, dict)
    # "upserted" and "replaced" are no words of the collection: each answer counts its document
    assert all(d["with_new_words"] == 1 and len(d["warnings"]) == 1 for d in (created, replaced))
    assert await _answer(client.document("u/1")) == {"id": "u/1", "text": "replaced w002", "metadata": None}
    many = await _answer(client.upsert(["u/1", "u2"], ["again w003", "new w004"], [{"topic": 2}, None]))
    assert isinstance(many, dict)
    assert (await _answer(client.document("u/1")))["text"] == "again w003"
    assert (await _answer(client.document("u2")))["text"] == "new w004"
    await _refused(lambda: anonymous.upsert("u3", "no key"), Unauthorized)


@pytest.mark.parametrize("kind", KINDS)
def test_every_route(served, kind):
    served(kind, _every_route)


@pytest.mark.parametrize("kind", KINDS)
def test_upsert(served, kind):
    served(kind, _upserts)


async def _pages(client, anonymous, path):
    """offset and include through both clients: a page is the whole ranking's slice (ranks kept),
    include keeps the fields named, a batch, a long query (sent as a POST) and similar alike; an
    unknown field is the service's 422 naming it, a lone str the client's TypeError."""
    from index_models import corpus

    texts, _, ids, _ = corpus()
    a = _answer
    long_query = " ".join(texts[20:40])
    with _index(path) as index:
        for query in (texts[7], long_query):
            whole = index.search(query, 9)
            page = await a(client.search(query, k=4, offset=5, include=["score"]))
            assert _ids(page["hits"]) == _ids(whole[5:9])
            assert [h["rank"] for h in page["hits"]] == [6, 7, 8, 9]
            assert all(set(h) == {"id", "rank", "score"} for h in page["hits"])
            assert [h["score"] for h in page["hits"]] == pytest.approx([h["score"] for h in whole[5:9]])
        bare = await a(client.search([texts[7], texts[60]], k=3, offset=2, include=[]))
        assert [_ids(hits) for hits in bare["results"]] == [_ids(hits[2:]) for hits in index.search([texts[7], texts[60]], 5)]
        assert all(set(h) == {"id", "rank"} for hits in bare["results"] for h in hits)
        similar = await a(client.more_like(ids[3], k=2, offset=3, include=["text", "metadata"]))
        assert _ids(similar["hits"]) == _ids(index.more_like(ids[3], 5)[3:])
        assert all(set(h) == {"id", "rank", "text", "metadata"} for h in similar["hits"])
    err = await _refused(lambda: client.search(texts[7], include=["txt"]), BadRequest)
    assert err.status == 422 and "'txt'" in err.message
    err = await _refused(lambda: client.more_like(ids[3], k=10, offset=995), BadRequest)
    assert "offset + k" in err.message
    with pytest.raises(TypeError, match="single str"):
        client.search(texts[7], include="text")


@pytest.mark.parametrize("kind", KINDS)
def test_pages_and_the_fields_of_a_hit(served, kind):
    served(kind, _pages)
