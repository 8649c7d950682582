"""A request asking to upgrade its connection (``Upgrade: websocket``, ``h2c``) to ``learnsim
serve``, which serves HTTP alone. uvicorn handed such a connection to its WebSocket protocol,
taking it from the connection guard (learnsim.service._connections) without its close ever
being counted: each upgrade request held one of its address's places for good, so that 1,024 of
them (0.8 s from one client) had every later connection of that address answered 503 "too many
connections from this address" until the server restarted; the refusal was uvicorn's plain-text
403. Now the request is answered as any other (JSON), and its address keeps its places."""
from __future__ import annotations

import json
import socket

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from test_service_connections import _ask, _connect, _protocols, _server  # noqa: E402

from learnsim.service import _connections  # noqa: E402

UPGRADES = {
    "websocket": b"Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                 b"Sec-WebSocket-Version: 13\r\n",
    "h2c": b"Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n",
}


def _upgrade(port, headers, source):
    """The answer to an upgrade request (read to its Content-Length: the connection may stay open)."""
    s = _connect(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + b"\r\n", source)
    data = b""
    try:
        while b"\r\n\r\n" not in data or len(data.partition(b"\r\n\r\n")[2]) < _length(data):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    return data


def _length(data):
    for line in data.partition(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 1 << 30      # none: read until the server closes


@pytest.mark.parametrize("kind", sorted(UPGRADES))
@pytest.mark.parametrize("base", _protocols(), ids=["default", "h11"])
def test_upgrade_requests_are_answered_as_http_and_never_hold_a_place(monkeypatch, base, kind):
    monkeypatch.setattr(_connections, "MAX_CONNECTIONS_PER_ADDRESS", 5)
    try:
        socket.socket().bind(("127.0.0.2", 0))
    except OSError:
        pytest.skip("this machine cannot use 127.0.0.2 as a source address")
    with _server(base) as port:
        for _ in range(12):          # more than the address's 5 places
            answer = _upgrade(port, UPGRADES[kind], "127.0.0.2")
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200"), answer[:300]
            assert json.loads(body) == {"read": 0}
        answered = _ask(port, source="127.0.0.2")
        assert answered.startswith(b"HTTP/1.1 200") and b'{"read": 2}' in answered, answered[:300]


@pytest.mark.parametrize("base", _protocols(), ids=["default", "h11"])
def test_a_request_sent_behind_an_upgrade_request_is_answered_or_closed_at_once(base):
    """httptools' parser reads nothing past an upgrade request: a request sent behind it (in the
    same packet) went unanswered until the guard's head timeout closed the connection (10 s).
    Now the upgrade request's answer closes the connection (Connection: close), or the request
    behind it is answered (h11)."""
    behind = b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc"
    with _server(base) as port:
        s = _connect(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + UPGRADES["websocket"] + b"\r\n" + behind)
        s.settimeout(3)
        data = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        except socket.timeout:
            pytest.fail(f"the connection was neither answered whole nor closed within 3 s: {data[:300]!r}")
        finally:
            s.close()
        assert data.startswith(b"HTTP/1.1 200") and b'{"read": 0}' in data, data[:300]
        assert b'{"read": 3}' in data or b"connection: close" in data.lower(), data[:300]
