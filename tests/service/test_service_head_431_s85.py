"""A request head over MAX_HEAD_BYTES (512 KiB) was answered 431 and its connection closed at
once, with the rest of the head still coming: the system then reset the connection, and the
client (which reads an answer only once it has sent its request) lost the 431 and saw a
"connection reset". The server now stops reading the head but lingers, discarding what still
comes (bounded in time and bytes), before it closes: the client reads the 431."""
from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from test_service_connections import _ask, _protocols, _send_head, _server  # noqa: E402


@pytest.mark.parametrize("base", _protocols()[:1], ids=["default"])
@pytest.mark.parametrize("size", [1 << 20, 4 << 20])   # over the bound and one read (256 KiB)
def test_a_head_over_the_bound_is_answered_431_and_the_client_reads_it(base, size):
    with _server(base) as port:
        for _ in range(3):
            answer = _send_head(port, size)
            assert answer.startswith(b"HTTP/1.1 431"), answer[:80]
            assert b"MAX_HEAD_BYTES" in answer
        # httpx (as learnsim.client sends) reads it too, not a reset
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            r = client.get("/", headers={"X-Big": "a" * size})
        assert r.status_code == 431 and r.json()["code"] == 431
        assert b'{"read": 2}' in _ask(port)
