"""A request body sent with a transfer coding other than ``chunked`` (``Transfer-Encoding: gzip,
chunked``). uvicorn's parsers undo the chunks alone and hand the rest on as it came: a gzip body
was refused as "the JSON is not UTF-8 text", naming a problem the client does not have, and a
plain body labelled gzip was read as it was, as a Content-Encoding was before it was refused
(tests/service/test_service_hostile.py::test_a_content_encoding_is_refused_not_misread). Now
such a request is a 415 naming the header, before its body is read, and nothing is written."""
from __future__ import annotations

import gzip
import json

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from serve_process import exchange, served_index  # noqa: E402


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    with served_index(tmp_path_factory, "coding") as address:
        yield address


def _send(base, path, coding, body):
    """The status line and JSON body of a chunked POST with Transfer-Encoding ``coding``."""
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    data = exchange(base, b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    b"Transfer-Encoding: " + coding + b"\r\nConnection: close\r\n\r\n" + chunked)
    head, _, payload = data.partition(b"\r\n\r\n")
    return head.split(b"\r\n", 1)[0], json.loads(payload)


SEARCH = json.dumps({"queries": ["w001"], "k": 1}).encode()
WRITE = json.dumps({"documents": [{"id": "new-1", "text": "w001 w002 a new text"}]}).encode()


@pytest.mark.parametrize("coding", [b"gzip, chunked", b"deflate, chunked", b"x-made-up, chunked",
                                    b"identity, chunked", b"GZIP ,chunked"])
@pytest.mark.parametrize("route,body", [(b"/v1/search", SEARCH), (b"/v1/docs", WRITE)])
def test_a_transfer_coding_other_than_chunked_is_a_415_naming_it(base, coding, route, body):
    import httpx

    for sent in (body, gzip.compress(body)):
        status, answer = _send(base, route, coding, sent)
        assert status.startswith(b"HTTP/1.1 415"), (status, answer)
        assert answer["code"] == 415 and "Transfer-Encoding" in answer["error"], answer
        assert "UTF-8" not in answer["error"]
    assert httpx.get(f"{base}/v1/docs/new-1", timeout=10).status_code == 404      # nothing written


def test_a_chunked_body_is_read(base):
    status, answer = _send(base, b"/v1/search", b"chunked", SEARCH)
    assert status.startswith(b"HTTP/1.1 200") and len(answer["results"][0]) == 1, answer
    status, answer = _send(base, b"/v1/search", b"Chunked", SEARCH)
    assert status.startswith(b"HTTP/1.1 200"), answer
