"""``learnsim serve`` bounds the bytes of its answers (the guard, ``_guard._AnswerBytes``): one
answer over ``MAX_ANSWER_BYTES`` is a JSON 422 naming its size, and an answer that would take the
bytes the process is sending over ``MAX_ANSWER_BYTES_IN_FLIGHT`` a JSON 503 with ``Retry-After``,
each before any of it is sent. A hit carries its text: 1,000 documents of 10,000 emoji made a
46-byte search answer 80 MB, and clients that sent it without reading the answer held it in the
server's memory until it died.

The guard is driven directly with a ``send`` that holds a body until the test releases it (an
answer not yet drained), so the count is checked at each step without timings; one test runs it
in uvicorn against a client that does not read, the case itself.
"""
from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
import time
import warnings
from contextlib import nullcontext

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from learnsim.index import Index  # noqa: E402
from learnsim.service import _guard, _limits  # noqa: E402
from learnsim.service import create_app  # noqa: E402
from learnsim.service._guard import _BodyLimit, answer_bytes_in_flight  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

BIG = 100_000           # over SMALL_ANSWER_BYTES (64 KiB): counted and bounded
SEARCH = {"queries": ["w173 w165 w328", "w092 w045"], "k": 50}


@pytest.fixture(autouse=True)
def _count_is_zero():
    # each test starts and ends with nothing in flight: a leak would show in the next test too
    assert answer_bytes_in_flight() == 0
    yield
    assert answer_bytes_in_flight() == 0


@pytest.fixture(scope="module")
def index_path(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("answer_bytes") / "mcd"
    Index.build(path, model("mcd"), texts, ids, meta).close()
    return path


@pytest.fixture(scope="module")
def client(index_path):
    with TestClient(create_app(index_path), raise_server_exceptions=False,
                    base_url="http://127.0.0.1") as c:
        yield c


def _is_error(r, code, *words):
    assert r.status_code == code, (r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("application/json")
    assert r.headers["x-content-type-options"] == "nosniff"
    body = r.json()
    assert set(body) == {"error", "code"} and body["code"] == code
    for word in words:
        assert word in body["error"], (word, body["error"])
    return body


# -- one answer ----------------------------------------------------------------------------


def test_an_answer_over_the_bound_of_one_answer_is_a_422_naming_its_size(client, monkeypatch):
    r = client.post("/v1/search", json=SEARCH)
    assert r.status_code == 200
    size = int(r.headers["content-length"])
    assert size == len(r.content) > 1000
    monkeypatch.setattr(_limits, "SMALL_ANSWER_BYTES", 0)      # (answers this small are not looked at)
    monkeypatch.setattr(_limits, "MAX_ANSWER_BYTES", size - 1)
    _is_error(client.post("/v1/search", json=SEARCH), 422, f"{size} bytes", str(size - 1), "fewer hits")
    _is_error(client.get("/v1/search", params={"q": "w173 w165", "k": 100}), 422, "MAX_ANSWER_BYTES")
    # a HEAD is answered as its GET
    assert client.head("/v1/search", params={"q": "w173 w165", "k": 100}).status_code == 422
    # exactly at the bound: the same answer, byte for byte, header for header
    monkeypatch.setattr(_limits, "MAX_ANSWER_BYTES", size)
    again = client.post("/v1/search", json=SEARCH)
    assert again.status_code == 200
    assert again.content == r.content
    assert again.headers.multi_items() == r.headers.multi_items()


def test_a_normal_answer_passes_unchanged(client):
    r = client.get("/v1/search", params={"q": "w173 w165", "k": 3})
    assert r.status_code == 200 and len(r.json()["hits"]) == 3
    assert r.headers["content-length"] == str(len(r.content))
    assert client.get("/healthz").status_code == 200
    assert client.get("/docs").status_code == 200


def test_writes_are_never_refused(index_path, tmp_path, monkeypatch):
    # a write happened before its answer: a 422 or 503 would make the client repeat it
    import shutil

    path = tmp_path / "idx"
    shutil.copytree(index_path, path)
    with TestClient(create_app(path), raise_server_exceptions=False, base_url="http://127.0.0.1") as c:
        monkeypatch.setattr(_limits, "SMALL_ANSWER_BYTES", 0)
        monkeypatch.setattr(_limits, "MAX_ANSWER_BYTES", 10)
        r = c.post("/v1/docs", json={"documents": [{"id": "new1", "text": "w173 w165 w328 w092"}]})
        assert r.status_code == 201, r.text
        _is_error(c.get("/v1/docs/new1"), 422, "MAX_ANSWER_BYTES")


# -- the guard driven directly ---------------------------------------------------------------


def _scope(method="GET", path="/big", headers=()):
    return {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "query_string": b"",
            "headers": [(b"host", b"127.0.0.1"), *headers]}


async def _receive():
    return {"type": "http.request", "body": b"", "more_body": False}


def _answering(size=BIG, chunks=1, length=True, fail_after_start=False):
    """An application answering ``size`` bytes in ``chunks`` body messages, with a Content-Length
    (or without: streamed)."""
    async def app(scope, receive, send):
        headers = [(b"content-type", b"application/octet-stream")]
        if length:
            headers.append((b"content-length", str(size).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        if fail_after_start:
            raise RuntimeError("the application failed mid-answer")
        step = size // chunks
        for i in range(chunks):
            part = b"x" * (step if i < chunks - 1 else size - step * (chunks - 1))
            await send({"type": "http.response.body", "body": part, "more_body": i < chunks - 1})

    return app


class _Client:
    """A ``send`` recording the answer; with ``hold``, each body message waits for the event
    (the bytes not yet drained to a client that does not read)."""

    def __init__(self, hold=None, fail_on_body=False):
        self.messages, self.hold, self.fail_on_body = [], hold, fail_on_body

    async def __call__(self, message):
        self.messages.append(message)
        if message["type"] == "http.response.body":
            if self.fail_on_body:
                raise OSError("connection reset")
            if self.hold is not None:
                await self.hold.wait()

    @property
    def status(self):
        return self.messages[0]["status"]

    @property
    def headers(self):
        return dict(self.messages[0]["headers"])

    @property
    def body(self):
        return b"".join(m.get("body", b"") for m in self.messages[1:])


def _run(guard, client, scope=None):
    return guard(scope or _scope(), _receive, client)


async def _held(guard):
    """(client, its event, its task): an answer of BIG bytes the guard has started to send and the
    client does not read until the event is set, counted in flight."""
    hold = asyncio.Event()
    first = _Client(hold)
    task = asyncio.ensure_future(_run(guard, first))
    for _ in range(20):
        await asyncio.sleep(0)
    assert answer_bytes_in_flight() == BIG
    return first, hold, task


def test_the_guard_passes_an_answer_unchanged_and_counts_it_until_it_has_left():
    async def main():
        guard = _BodyLimit(_answering(BIG, chunks=3), max_bytes=1000)
        first, hold, task = await _held(guard)
        hold.set()
        await task
        assert answer_bytes_in_flight() == 0
        assert first.status == 200 and first.body == b"x" * BIG
        assert first.headers[b"content-length"] == str(BIG).encode()
        assert first.headers[b"x-content-type-options"] == b"nosniff"
        # the last message is empty: with uvicorn, its send returns once the body has drained
        assert first.messages[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
        assert all(m["more_body"] for m in first.messages[1:-1])

    asyncio.run(main())


def test_an_answer_over_the_bytes_in_flight_is_a_503_until_the_first_has_left(monkeypatch):
    monkeypatch.setattr(_limits, "MAX_ANSWER_BYTES_IN_FLIGHT", BIG + BIG // 2)

    async def main():
        guard = _BodyLimit(_answering(BIG), max_bytes=1000)
        first, hold, task = await _held(guard)
        second = _Client()
        await _run(guard, second)
        assert second.status == 503 and second.headers[b"retry-after"] == b"1"
        assert second.headers[b"content-type"] == b"application/json"
        assert second.headers[b"x-content-type-options"] == b"nosniff"
        body = json.loads(second.body)
        assert body["code"] == 503 and "too many large answers" in body["error"] and "retry" in body["error"]
        assert second.headers[b"content-length"] == str(len(second.body)).encode()
        assert answer_bytes_in_flight() == BIG
        # a small answer, and a write's answer, still go out meanwhile
        small = _Client()
        await _run(_BodyLimit(_answering(1000), max_bytes=1000), small)
        assert small.status == 200 and small.body == b"x" * 1000
        write = _Client()
        await _run(guard, write, _scope("POST", "/v1/docs", [(b"content-type", b"application/json")]))
        assert write.status == 200 and len(write.body) == BIG
        assert answer_bytes_in_flight() == BIG
        hold.set()
        await task
        assert answer_bytes_in_flight() == 0
        third = _Client()
        await _run(guard, third)
        assert third.status == 200 and third.body == b"x" * BIG
        assert answer_bytes_in_flight() == 0

    asyncio.run(main())


def test_a_streamed_answer_is_not_counted(monkeypatch):
    monkeypatch.setattr(_limits, "MAX_ANSWER_BYTES", 10)
    monkeypatch.setattr(_limits, "MAX_ANSWER_BYTES_IN_FLIGHT", 10)

    async def main():
        client = _Client()
        await _run(_BodyLimit(_answering(BIG, chunks=4, length=False), max_bytes=1000), client)
        assert client.status == 200 and client.body == b"x" * BIG
        assert [m.get("more_body") for m in client.messages[1:]] == [True, True, True, False]

    asyncio.run(main())


@pytest.mark.parametrize("how", ["send fails", "application fails", "client gone", "cancelled"])
def test_the_count_returns_to_zero_on_every_way_out(how):
    async def main():
        guard = _BodyLimit(_answering(BIG, chunks=2, fail_after_start=how == "application fails"), max_bytes=1000)
        hold = asyncio.Event() if how == "cancelled" else None
        # uvicorn's send does nothing once the client is gone: a send that records only
        client = _Client(hold, fail_on_body=how == "send fails")
        task = asyncio.ensure_future(_run(guard, client))
        for _ in range(20):
            await asyncio.sleep(0)
        if how == "cancelled":
            assert answer_bytes_in_flight() == BIG
            task.cancel()
        with nullcontext() if how == "client gone" else pytest.raises((OSError, RuntimeError, asyncio.CancelledError)):
            await task
        assert answer_bytes_in_flight() == 0

    asyncio.run(main())


# -- in uvicorn, against a client that does not read ---------------------------------------------


def test_uvicorn_counts_an_answer_until_a_slow_client_has_read_it(monkeypatch):
    uvicorn = pytest.importorskip("uvicorn")
    size = 16 * 2 ** 20          # far over what the sockets' buffers take
    monkeypatch.setattr(_limits, "MAX_ANSWER_BYTES_IN_FLIGHT", size + size // 2)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(_BodyLimit(_answering(size), max_bytes=1000), lifespan="off",
                                           log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    slow = None
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.01)
        slow = socket.socket()
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.connect(("127.0.0.1", port))
        slow.sendall(b"GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        while answer_bytes_in_flight() != size and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)
        # uvicorn wrote the body to the connection's buffer long ago: it is still counted
        assert answer_bytes_in_flight() == size
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/big")
        r = conn.getresponse()
        assert r.status == 503 and r.getheader("Retry-After") == "1"
        assert json.loads(r.read())["code"] == 503
        slow.settimeout(10)
        head, got = b"", 0
        while got < size:
            chunk = slow.recv(2 ** 20)
            assert chunk
            if b"\r\n\r\n" not in head:
                head += chunk
                chunk = head.partition(b"\r\n\r\n")[2]
            got += len(chunk)
        assert head.startswith(b"HTTP/1.1 200")
        while answer_bytes_in_flight() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert answer_bytes_in_flight() == 0
        conn.request("GET", "/big")
        r = conn.getresponse()
        assert r.status == 200 and len(r.read()) == size
        conn.close()
    finally:
        if slow is not None:
            slow.close()
        server.should_exit = True
        thread.join(10)
        listener.close()
    assert _guard._in_flight == 0
