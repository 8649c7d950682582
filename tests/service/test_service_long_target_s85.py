"""A request target (path and query string) of more than 65,535 bytes: httptools' parser reads
URLs with 16-bit offsets, so the server refused it, answered as "the request is not valid
HTTP/1.1 (...): its request line, a header (a NUL, a folded line, bytes that are not ASCII) or its
body's framing", though the request was valid and well under the head's bound (512 KiB): a long
filter or id list in a query string got an error naming the wrong problem. It is now a JSON 414
naming the bound (send the parameters in a POST body); a target of 65,535 bytes is still read."""
from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time

import pytest

uvicorn = pytest.importorskip("uvicorn")
pytest.importorskip("httptools")

from learnsim.service import _connections  # noqa: E402


async def _app(scope, receive, send):
    if scope["type"] != "http":
        return
    body = json.dumps({"target": len(scope["raw_path"]) + 1 + len(scope["query_string"])}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


@contextlib.contextmanager
def _server():
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(_app, http=_connections.guarded_protocol(HttpToolsProtocol), log_level="error",
                            lifespan="off")
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


def _get(port, target):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answer = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            answer += chunk
    return answer


def test_a_target_over_the_parsers_bound_is_a_json_414_naming_it():
    prefix = b"/v1/search?q=w175&x="
    with _server() as port:
        answer = _get(port, prefix + b"a" * (65_535 - len(prefix)))
        assert answer.startswith(b"HTTP/1.1 200") and b'{"target": 65535}' in answer, answer[:200]
        answer = _get(port, prefix + b"a" * (65_536 - len(prefix)))
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 414"), answer[:200]
        assert b"content-type: application/json" in head.lower()
        error = json.loads(body)
        assert error["code"] == 414 and "65535" in error["error"].replace(",", "") and "POST" in error["error"], error
        # and the server goes on
        assert _get(port, b"/v1/info").startswith(b"HTTP/1.1 200")
