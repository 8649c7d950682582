"""A request whose target is in absolute form (``GET http://evil.example/v1/search HTTP/1.1``).
RFC 9112 (3.2.2) has the server take the target's authority as the request's host and ignore
the Host header; uvicorn routed the path and the host check read the header, so a request naming
a foreign host in its target and this one in its header was answered (200) where the same host in
the header is a 421. Now the target's host is the one checked."""
from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from serve_process import exchange, served_index  # noqa: E402


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    with served_index(tmp_path_factory, "target") as address:
        yield address


def _ask(base, target, host=b"127.0.0.1"):
    return exchange(base, b"GET " + target + b" HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n")


@pytest.mark.parametrize("target", [b"http://evil.example/v1/search?q=w001&k=1", b"http://evil.example:8000/healthz",
                                    b"https://127.0.0.1@evil.example/healthz"])
def test_an_absolute_target_naming_another_host_is_a_421(base, target):
    answer = _ask(base, target)
    assert answer.startswith(b"HTTP/1.1 421"), answer[:300]
    assert b"evil.example" in answer.partition(b"\r\n\r\n")[2]


@pytest.mark.parametrize("target", [b"http://127.0.0.1/healthz", b"http://localhost:1234/healthz"])
def test_an_absolute_target_naming_this_host_is_answered(base, target):
    assert _ask(base, target, host=b"evil.example").startswith(b"HTTP/1.1 200")
