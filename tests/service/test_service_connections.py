"""Connections that hold ``learnsim serve`` without asking anything (learnsim.service._connections):
silent ones, half request heads and bodies a byte at a time are closed; one address holds a
bounded number; the open-files limit is raised at start. A uvicorn server in this process with
short timeouts, and the real command once."""
from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time

import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")

from serve_process import running_server  # noqa: E402
from index_models import corpus, model  # noqa: E402

from learnsim.index import Index  # noqa: E402
from learnsim.service import _connections  # noqa: E402


async def _app(scope, receive, send):
    """Reads the whole body, answers its length."""
    if scope["type"] != "http":
        return
    size, more = 0, True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        size += len(message.get("body", b""))
        more = message.get("more_body", False)
    body = json.dumps({"read": size}).encode() if scope["path"] != "/big" else b"x" * (8 << 20)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


@contextlib.contextmanager
def _server(base=None):
    """A uvicorn server in a thread on 127.0.0.1 with the guarded protocol (``base``: uvicorn's
    protocol class under it); yields its port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(_app, http=_connections.guarded_protocol(base), log_level="error", lifespan="off",
                            timeout_keep_alive=30)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the test server did not start"
        time.sleep(0.02)
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def _connect(port, data=b"", source="127.0.0.1"):
    s = socket.socket()
    s.settimeout(5)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    if data:
        s.sendall(data)
    return s


def _closed_within(s, seconds):
    """Whether the server closes ``s`` (an empty read, or a reset) within ``seconds``; what it
    sent before closing is ignored."""
    s.settimeout(seconds)
    try:
        while s.recv(4096):
            pass
        return True
    except socket.timeout:
        return False
    except OSError:
        return True


def _read_all(s):
    """Every byte ``s`` receives until the server closes it."""
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    return data


def _ask(port, body=b"{}", source="127.0.0.1"):
    return _read_all(_connect(
        port, b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
        % (len(body), body), source))


@pytest.fixture
def short(monkeypatch):
    monkeypatch.setattr(_connections, "HEAD_TIMEOUT_S", 0.6)
    monkeypatch.setattr(_connections, "CHECK_S", 0.6)
    monkeypatch.setattr(_connections, "BODY_MIN_RATE", 1000)


def _protocols():
    out = [None]
    from uvicorn.protocols.http.h11_impl import H11Protocol
    out.append(H11Protocol)
    return out


@pytest.mark.parametrize("base", _protocols(), ids=["default", "h11"])
def test_silent_half_heads_and_trickled_bodies_are_closed(short, base):
    with _server(base) as port:
        silent = _connect(port)
        half = _connect(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        trickle = _connect(port, b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n{")
        start = time.monotonic()
        for s in (silent, half, trickle):
            assert _closed_within(s, 5)
        assert time.monotonic() - start < 4
        # an honest request meanwhile and after: answered in full
        assert b'{"read": 2}' in _ask(port)


def test_a_body_at_a_fair_rate_is_not_cut(short):
    with _server() as port:
        head = b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4000\r\nConnection: close\r\n\r\n"
        s = _connect(port, head)
        for _ in range(8):              # 500 bytes every 0.2 s: 2,500 bytes a second, over the checks
            time.sleep(0.2)
            s.sendall(b"a" * 500)
        data = _read_all(s)
        assert data.startswith(b"HTTP/1.1 200") and b'{"read": 4000}' in data


def _asks_big(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 * 1024)
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return s


def test_an_answer_left_unread_is_closed_and_one_read_slowly_is_not(short):
    with _server() as port:
        unread = _asks_big(port)
        slow = _asks_big(port)
        got, start = 0, time.monotonic()
        while got < 8 << 20:        # about 1.3 MB a second, in small reads
            chunk = slow.recv(32 * 1024)
            assert chunk, f"the slow reader was cut after {got} bytes"
            got += len(chunk)
            time.sleep(0.02)
        assert time.monotonic() - start > 1.5      # it spanned more than two checks
        assert _closed_within(unread, 5)


def test_one_address_holds_a_bounded_number_of_connections(short, monkeypatch):
    monkeypatch.setattr(_connections, "MAX_CONNECTIONS_PER_ADDRESS", 5)
    try:
        socket.socket().bind(("127.0.0.2", 0))
    except OSError:
        pytest.skip("this machine cannot use 127.0.0.2 as a source address")
    with _server() as port:
        held = [_connect(port, source="127.0.0.2") for _ in range(5)]
        time.sleep(0.1)
        refused = _ask(port, source="127.0.0.2")
        assert refused.startswith(b"HTTP/1.1 503") and b"retry-after: 1" in refused.lower()
        assert "too many connections from this address" in json.loads(refused.split(b"\r\n\r\n", 1)[1])["error"]
        # another address is answered meanwhile
        assert b'{"read": 2}' in _ask(port, source="127.0.0.1")
        # the held ones are closed by the head timeout; the address is served again
        assert all(_closed_within(s, 5) for s in held)
        time.sleep(0.1)
        assert b'{"read": 2}' in _ask(port, source="127.0.0.2")


def test_the_open_files_limit_is_raised_towards_the_hard_one():
    resource = pytest.importorskip("resource")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        low = min(256, soft)
        resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))
        got = _connections.raise_open_files_limit(wanted=512)
        expected = 512 if hard == resource.RLIM_INFINITY else min(512, hard)
        assert got == expected == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        # never lowered
        assert _connections.raise_open_files_limit(wanted=16) == expected
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_the_bounds_follow_the_open_files_limit(monkeypatch):
    monkeypatch.setattr(_connections, "_connection_total", lambda: 768)      # a limit of 1,024
    assert _connections._connection_caps() == (768, 384)
    monkeypatch.setattr(_connections, "_connection_total", lambda: 65536 - 256)
    assert _connections._connection_caps() == (65280, _connections.MAX_CONNECTIONS_PER_ADDRESS)


def test_the_command_guards_its_connections(tmp_path):
    """``learnsim serve`` itself: one address holds a bounded number of connections (the next is
    answered 503 JSON), and another address is answered meanwhile."""
    resource = pytest.importorskip("resource")
    try:
        socket.socket().bind(("127.0.0.2", 0))
    except OSError:
        pytest.skip("this machine cannot use 127.0.0.2 as a source address")
    import httpx

    # the server raises its limit as this does: its bound per address follows
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = _connections.raise_open_files_limit()
    try:
        total = max(64, limit - _connections.FILES_RESERVED)
        per_address = min(_connections.MAX_CONNECTIONS_PER_ADDRESS, max(32, total // 2))
        if limit < per_address + 200:
            pytest.skip(f"this process may open {limit} files: too few to hold {per_address} connections")
        _hold_one_too_many(tmp_path, per_address, httpx)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _hold_one_too_many(tmp_path, per_address, httpx):
    """``per_address`` connections from 127.0.0.2 held, the next refused, 127.0.0.1 served."""
    texts, _, ids, meta = corpus()
    Index.build(tmp_path / "idx", model("linklearn"), texts[:30], ids[:30], list(meta[:30])).close()
    with running_server(tmp_path / "idx") as base:
        port = int(base.rsplit(":", 1)[1])
        held = [_connect(port, source="127.0.0.2") for _ in range(per_address)]
        time.sleep(0.2)
        assert not _closed_within(held[-1], 0.2)        # the last one within the bound is kept
        refused = _ask(port, source="127.0.0.2")
        assert refused.startswith(b"HTTP/1.1 503") and b"application/json" in refused
        assert httpx.get(f"{base}/v1/search", params={"q": texts[0][:40], "k": 2}, timeout=5).status_code == 200
        for s in held:
            s.close()


def _as_ipv6_peers(base_class):
    """uvicorn's protocol with each peer 127.0.0.N taken for 2001:db8::N (one IPv6 /64) and
    127.0.0.1 kept: what a server on a public IPv6 address sees of one host rotating its
    addresses (this machine cannot send from them)."""
    class AsIPv6(base_class):
        def connection_made(self, transport):
            super().connection_made(transport)
            host, port = self.client
            if host != "127.0.0.1":
                self.client = (f"2001:db8::{host.rsplit('.', 1)[1]}", port)

    return AsIPv6


def test_one_ipv6_network_is_one_address_for_the_bound(monkeypatch):
    # before: an IPv6 host holds 2^64 addresses of its /64 and may send from any of them (privacy
    # addresses rotate on their own), so the bound per address never held it: each address had
    # MAX_CONNECTIONS_PER_ADDRESS of its own, and it could take every connection of the process
    monkeypatch.setattr(_connections, "MAX_CONNECTIONS_PER_ADDRESS", 5)
    try:
        for n in (2, 3, 4):
            socket.socket().bind((f"127.0.0.{n}", 0))
    except OSError:
        pytest.skip("this machine cannot use 127.0.0.2-4 as source addresses")
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    except ImportError:
        from uvicorn.protocols.http.h11_impl import H11Protocol as base
    with _server(_as_ipv6_peers(base)) as port:
        held = [_connect(port, source="127.0.0.2") for _ in range(3)] + [_connect(port, source="127.0.0.3")
                                                                        for _ in range(2)]
        time.sleep(0.1)
        refused = _ask(port, source="127.0.0.4")
        assert refused.startswith(b"HTTP/1.1 503"), refused[:80]
        assert "too many connections from this address" in json.loads(refused.split(b"\r\n\r\n", 1)[1])["error"]
        assert b'{"read": 2}' in _ask(port, source="127.0.0.1")
        for s in held:
            s.close()


def test_the_address_counted_of_a_peer():
    key = _connections.address_key
    assert key("2001:db8::1") == key("2001:db8::ffff:1") == key("2001:db8:0:0:1::") == "2001:db8::/64"
    assert key("2001:db8:0:1::1") != key("2001:db8::1")
    # an IPv4 address itself, written as an IPv4-mapped IPv6 one too (a dual-stack socket)
    assert key("::ffff:192.0.2.7") == key("192.0.2.7") == "192.0.2.7" != key("192.0.2.8")
    # loopback addresses each on their own: every local client would otherwise share one bound,
    # which one local caller could fill for all the others
    assert key("127.0.0.1") != key("127.0.0.2")
    assert key("::1") == "::1" and key("fe80::1%eth0") == "fe80::/64"
    # 6to4 (2002:V4ADDR::/48, 65,536 /64s of one IPv4 address's holder) and Teredo (the /64 is the
    # relay's) as the IPv4 address they carry: by /64 one IPv4 host held 65,536 bounds
    assert key("2002:c000:0204::1") == key("2002:c000:0204:ffff::1") == "192.0.2.4" == key("192.0.2.4")
    assert key("2001:0:4136:e378:8000:63bf:3fff:fdd2") == "192.0.2.45"
    assert key("") == "" and key("not an address") == "not an address"


def _send_head(port, header_bytes):
    """Send a request head with one header of ``header_bytes`` bytes (in 64 KiB pieces); what the
    server answers, b"" when it closed the connection before answering."""
    s = _connect(port)
    piece = 64 << 10
    try:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Big: ")
        for start in range(0, header_bytes, piece):
            s.sendall(b"a" * min(piece, header_bytes - start))
        s.sendall(b"\r\n\r\n")
    except OSError:         # closed (reset) by the server while sending
        pass
    try:
        return _read_all(s)
    except OSError:
        return b""


@pytest.mark.parametrize("base", _protocols(), ids=["default", "h11"])
def test_a_request_the_parser_refuses_is_a_json_400(base):
    # uvicorn's parser answered these in plain text ("Invalid HTTP request received."), the
    # one answer of the service that was not its JSON error
    with _server(base) as port:
        for request in (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\x00b\r\n\r\n",
                        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
                        b"G@T / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"):
            answer = _read_all(_connect(port, request))
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 400"), (request, answer[:200])
            assert b"content-type: application/json" in head.lower() and b"nosniff" in head.lower()
            error = json.loads(body)
            assert error["code"] == 400 and "not valid HTTP/1.1" in error["error"], error
        assert b'{"read": 2}' in _ask(port)      # the server goes on


@pytest.mark.parametrize("base", _protocols())
def test_a_request_head_is_bounded_in_bytes(base):
    # before: httptools' parser took a header of any size and built it by concatenation while the
    # event loop waited (a header of 58 MiB, sent within the 10 s of the head's timeout, held every
    # other client of the server for 5-6 s and 70 MB of memory); one within the bound is read
    with _server(base) as port:
        answer = _send_head(port, 4 << 20)
        assert not answer.startswith(b"HTTP/1.1 200"), answer[:80]
        if answer:
            assert answer.split(b" ", 2)[1] in (b"400", b"431"), answer[:80]
        # one within the bound is read: 64 KiB under httptools; h11 bounds a head that arrives in
        # more than one read at 16 KiB itself (h11_max_incomplete_event_size), so whether 64 KiB
        # passed it depended on how the loaded machine split the reads (CI failed it once in three)
        assert b'{"read": 0}' in _send_head(port, (64 if base is None else 12) << 10)
        assert b'{"read": 2}' in _ask(port)
        # a body is not a head: 3 MiB read whole, in one piece with its head
        assert b'{"read": 3145728}' in _ask(port, b"x" * (3 << 20))
