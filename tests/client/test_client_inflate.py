"""learnsim.client: a compressed answer is inflated a piece at a time, so that ``max_answer_bytes``
bounds what the client holds however much one piece from the wire would inflate to. httpx
decodes each piece read from the socket whole: a gzip body of 1,827 bytes ("Content-Encoding:
gzip, gzip", 1 GiB of zeros inside) made a client with ``max_answer_bytes=1_000_000`` allocate
the whole GiB (2 GB of peak RSS) before it refused the answer. An encoding the client does not
inflate itself (zstd, brotli, two layers) is not asked for and is refused unread. The servers
are those of ``test_client_deadline.py``: raw sockets on 127.0.0.1 that stop by themselves."""
from __future__ import annotations

import gzip
import tracemalloc
import zlib

import pytest

httpx = pytest.importorskip("httpx")

from test_client_deadline import KINDS, Server, _head, through  # noqa: E402

from learnsim.client import ClientError, ConnectionFailed  # noqa: E402

LONG = 10.0
BOUND = 1_000_000


def answering(body, extra=""):
    def behaviour(server, conn, head):
        server.heads.append(head)
        conn.sendall(_head(200, len(body), extra + "Connection: close\r\n") + body)
    return behaviour


def _serve(body, extra=""):
    server = Server(answering(body, extra))
    server.heads = []
    return server


def _plain(err):
    return type(err) is ClientError and not isinstance(err, ConnectionFailed)


def _deflate(data, wbits):
    c = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return c.compress(data) + c.flush()


# 40 MB of JSON in some 40 KB: a single piece from the socket inflates to tens of MB
INSIDE = b'"' + b" " * 40_000_000 + b'"'


@pytest.mark.parametrize("encoding,wbits", [("gzip", 31), ("deflate", 15), ("deflate", -15)],
                         ids=["gzip", "zlib-deflate", "raw-deflate"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_compressed_answer_over_the_bound_is_refused_holding_about_the_bound(kind, encoding, wbits):
    bomb = _deflate(INSIDE, wbits)
    assert len(bomb) < 100_000
    with _serve(bomb, f"Content-Encoding: {encoding}\r\n") as server:
        tracemalloc.start()
        try:
            err, elapsed, _ = through(kind, server.url, lambda c: c.info(), deadline=LONG, max_answer_bytes=BOUND)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert _plain(err) and "max_answer_bytes" in str(err) and elapsed < LONG, err
    # the bound, the pieces in hand and the client's own objects: far from the 40 MB inside
    assert peak < 8 * BOUND, peak


@pytest.mark.parametrize("encoding,wbits", [("gzip", 31), ("x-gzip", 31), ("deflate", 15), ("deflate", -15)],
                         ids=["gzip", "x-gzip", "zlib-deflate", "raw-deflate"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_compressed_answer_within_the_bound_is_read(kind, encoding, wbits):
    text = "o" * 300_000     # inflated over several pieces
    body = _deflate(b'{"status": "' + text.encode() + b'"}', wbits)
    with _serve(body, f"Content-Encoding: {encoding}\r\n") as server:
        answer, _, _ = through(kind, server.url, lambda c: c.health(), deadline=LONG, max_answer_bytes=BOUND)
    assert answer == {"status": text}


@pytest.mark.parametrize("kind", KINDS)
def test_the_client_asks_only_for_what_it_inflates_itself(kind):
    with _serve(b'{"status": "ok"}') as server:
        through(kind, server.url, lambda c: c.health(), deadline=LONG)
    (head,) = server.heads
    asked = [line.split(b":", 1)[1].strip().lower() for line in head.split(b"\r\n")
             if line.lower().startswith(b"accept-encoding:")]
    assert asked == [b"gzip, deflate"], head


@pytest.mark.parametrize("encoding", ["zstd", "br", "gzip, gzip", "compress"])
@pytest.mark.parametrize("kind", KINDS)
def test_an_encoding_not_asked_for_is_refused_unread(kind, encoding):
    body = gzip.compress(gzip.compress(b'{"status": "ok"}'))
    with _serve(body, f"Content-Encoding: {encoding}\r\n") as server:
        err, elapsed, _ = through(kind, server.url, lambda c: c.health(), deadline=LONG, max_retries=3)
    assert _plain(err) and err.status == 200 and elapsed < LONG, err
    assert "Content-Encoding" in str(err) and repr(encoding) in str(err), err
    assert server.connections == 1      # not tried again: it would be answered the same


@pytest.mark.parametrize("kind", KINDS)
def test_a_truncated_gzip_answer_is_a_client_error(kind):
    body = gzip.compress(b'{"status": "ok"}')[:-12]
    with _serve(body, "Content-Encoding: gzip\r\n") as server:
        err, _, _ = through(kind, server.url, lambda c: c.health(), deadline=LONG)
    assert _plain(err) and "could not be read" in str(err), err


@pytest.mark.parametrize("wbits", [15, -15], ids=["zlib-deflate", "raw-deflate"])
def test_a_deflate_answer_coming_a_byte_at_a_time_is_read(wbits):
    # the kind of deflate is told by its first two bytes, which may come in two pieces
    from learnsim.client._inflate import Inflater

    body = _deflate(b'{"status": "ok"}', wbits)
    inflater = Inflater("deflate")
    out = b"".join(piece for i in range(len(body)) for piece in inflater.pieces(body[i:i + 1]))
    assert out + b"".join(inflater.end()) == b'{"status": "ok"}'


@pytest.mark.parametrize("kind", KINDS)
def test_a_gzip_answer_of_several_members_is_read_whole(kind):
    # RFC 1952: a gzip file is a series of members (a compressor flushing as it streams writes
    # several); reading the first alone gave a JSON cut short, or one that ends early
    body = gzip.compress(b'{"status": ') + gzip.compress(b'"ok"}')
    with _serve(body, "Content-Encoding: gzip\r\n") as server:
        answer, _, _ = through(kind, server.url, lambda c: c.health(), deadline=LONG)
    assert answer == {"status": "ok"}


@pytest.mark.parametrize("kind", KINDS)
def test_bytes_after_a_deflate_stream_are_refused(kind):
    body = _deflate(b'{"status": "ok"}', 15) + b'{"status": "degraded"}'
    with _serve(body, "Content-Encoding: deflate\r\n") as server:
        err, _, _ = through(kind, server.url, lambda c: c.health(), deadline=LONG)
    assert _plain(err) and "could not be read" in str(err), err
