"""learnsim.client: whatever a server answers, a call of :class:`Client` or :class:`AsyncClient`
returns the service's JSON object or raises a :class:`ClientError`, within its deadline: never a
``RecursionError`` (JSON nested 100,000 deep), an httpx error (a ``Content-Encoding`` its body is
not), a ``KeyError`` or ``TypeError`` (an answer of another shape), and never an answer held
whole in memory however large (``max_answer_bytes``). The servers are those of
``test_client_deadline.py``: raw sockets on 127.0.0.1 that stop by themselves."""
from __future__ import annotations

import asyncio
import gzip
import json

import pytest

httpx = pytest.importorskip("httpx")

from test_client_deadline import KINDS, Server, _head, through  # noqa: E402

from learnsim.client import (AsyncClient, BadRequest, Client, ClientError, ConnectionFailed,  # noqa: E402
                             DeadlineExceeded)
from learnsim.client._clients import MAX_ANSWER_BYTES  # noqa: E402
from learnsim.client._errors import MAX_ANSWER_DEPTH  # noqa: E402

# the slack allowed past a deadline (a loaded 2-core machine), and a deadline no prompt call nears
SLACK = 2.0
LONG = 10.0
NESTED = b"[" * 100_000 + b"]" * 100_000
LONG_QUERY = "word " * 500          # over the GET bound: searched by a POST of one query


def answering(body, status=200, extra=""):
    """A behaviour answering every request with ``body`` (bytes) at once, then closing."""
    def behaviour(server, conn, head):
        conn.sendall(_head(status, len(body), extra + "Connection: close\r\n") + body)
    return behaviour


def _plain(err):
    """A bad answer is a ClientError of its own, not a failure to connect (which is retried)."""
    return type(err) is ClientError and not isinstance(err, ConnectionFailed)


# --------------------------------------------------------------------------- bodies the client cannot read
@pytest.mark.parametrize("body,why", [
    (NESTED, "nests deeper"),
    (b'{"status": "ok", "status": "degraded"}', "appears twice"),
    (b'{"status": "\xff\xfe"}', "not UTF-8"),
    (b'{"status": "\\ud800"}', "surrogate"),
    (b'{"status": "o', "not JSON"),
], ids=["nested", "duplicate-key", "not-utf8", "lone-surrogate", "truncated"])
@pytest.mark.parametrize("kind", KINDS)
def test_an_unreadable_json_answer_is_a_client_error(kind, body, why):
    with Server(answering(body)) as server:
        err, elapsed, _ = through(kind, server.url, lambda c: c.health(), deadline=LONG, max_retries=3)
    assert _plain(err) and err.status == 200 and elapsed < LONG, err
    assert "not JSON" in str(err) and why in str(err)
    assert server.connections == 1          # not tried again: it would be answered the same


@pytest.mark.parametrize("kind", KINDS)
def test_a_nested_refusal_is_its_statuss_error(kind):
    with Server(answering(NESTED, status=400)) as server:
        err, _, _ = through(kind, server.url, lambda c: c.health(), deadline=LONG)
    assert isinstance(err, BadRequest) and err.status == 400 and err.code is None
    # the start of the body as text, cut short: not 200,000 characters in a message
    assert err.message.startswith("[[[[") and err.message.endswith("...") and len(err.message) < 600


@pytest.mark.parametrize("kind", KINDS)
def test_deep_metadata_within_the_services_bound_is_read(kind):
    # a document's metadata may nest 64 levels (the service's bound): its answer is deeper
    metadata = {}
    for _ in range(63):
        metadata = {"a": metadata}
    document = {"id": "d", "text": "t", "metadata": metadata}
    assert MAX_ANSWER_DEPTH > 64 + 4
    with Server(answering(json.dumps(document).encode())) as server:
        answer, _, _ = through(kind, server.url, lambda c: c.document("d"), deadline=LONG)
    assert answer == document


@pytest.mark.parametrize("kind", KINDS)
def test_a_body_that_is_not_its_content_encoding_is_a_client_error(kind):
    with Server(answering(b"not gzip at all", extra="Content-Encoding: gzip\r\n")) as server:
        err, elapsed, _ = through(kind, server.url, lambda c: c.info(), deadline=LONG, max_retries=3)
    assert _plain(err) and err.status == 200 and "could not be read" in str(err) and elapsed < LONG, err
    assert isinstance(err.__cause__, httpx.DecodingError) and server.connections == 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_gzipped_answer_is_still_read(kind):
    body = gzip.compress(b'{"status": "ok"}')
    with Server(answering(body, extra="Content-Encoding: gzip\r\n")) as server:
        answer, _, _ = through(kind, server.url, lambda c: c.health(), deadline=LONG)
    assert answer == {"status": "ok"}


# --------------------------------------------------------------------------- answers of another shape
def _mocked(kind, body, **options):
    """A Client or an AsyncClient on a MockTransport answering 200 with ``body`` (bytes), and
    ``run``, which gives a method's answer either way."""
    def handler(request):
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    if kind == "sync":
        return Client("http://127.0.0.1", transport=httpx.MockTransport(handler), **options), lambda value: value
    return AsyncClient("http://127.0.0.1", transport=httpx.MockTransport(handler), **options), asyncio.run


@pytest.mark.parametrize("body,why", [
    (b"[]", "not an object"), (b"", "empty"), (b"  \n", "empty"), (b"null", "not an object"),
    (b"{}", 'no "results"'), (b'{"results": []}', '"results": []'), (b'{"results": "hits"}', "'hits'"),
    (b'{"results": [{"id": "d1"}]}', "{'id': 'd1'}"), (b'{"results": [[], []]}', "[[], []]"),
], ids=["list", "empty", "blank", "null", "no-results", "no-list", "a-str", "not-a-list", "two-lists"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_search_answered_in_another_shape_is_a_client_error(kind, body, why):
    client, run = _mocked(kind, body)
    with pytest.raises(ClientError) as info:
        run(client.search(LONG_QUERY, k=3))
    assert _plain(info.value) and info.value.status == 200 and why in str(info.value), info.value
    assert str(info.value).startswith("POST /v1/search -> 200: the answer is not the service's")


@pytest.mark.parametrize("body", [b"[]", b"", b'"ok"', b"null"])
@pytest.mark.parametrize("call", [lambda c: c.search("q"), lambda c: c.search(["q", "r"]), lambda c: c.info(),
                                  lambda c: c.document("d"), lambda c: c.add(["a text"])],
                         ids=["get-search", "batch-search", "info", "document", "add"])
@pytest.mark.parametrize("kind", KINDS)
def test_every_route_is_answered_a_json_object(kind, call, body):
    client, run = _mocked(kind, body)
    with pytest.raises(ClientError, match="the answer is not the service's") as info:
        run(call(client))
    assert _plain(info.value)


def test_a_search_of_one_query_by_post_keeps_its_shape():
    client, run = _mocked("sync", b'{"results": [[{"id": "d1", "score": 0.5}]], "score": "similarity"}')
    assert run(client.search(LONG_QUERY, k=1)) == {"hits": [{"id": "d1", "score": 0.5}], "score": "similarity"}


@pytest.mark.parametrize("body,why", [
    (b'{"hits": "not a list"}', "'not a list'"), (b'{"score": "similarity"}', "None"),
    (b'{"hits": [{"id": "d1", "score": NaN}]}', '"hits"[0]'), (b'{"hits": [{"id": 7, "score": 1.0}]}', '"hits"[0]'),
    (b'{"hits": [{"id": "d1", "score": "1"}]}', '"hits"[0]'), (b'{"hits": ["d1"]}', '"hits"[0]'),
], ids=["a-str", "no-hits", "nan-score", "int-id", "str-score", "not-a-hit"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_get_search_answered_in_another_shape_is_a_client_error(kind, body, why):
    """The answer of GET /v1/search is checked as the POST's is (stop 68's sweep: a caller got a
    TypeError from "hits": "not a list", or sorted by a NaN score)."""
    client, run = _mocked(kind, body)
    with pytest.raises(ClientError) as info:
        run(client.search("q", k=3))
    assert _plain(info.value) and why in str(info.value), info.value
    assert str(info.value).startswith("GET /v1/search -> 200: the answer is not the service's")


@pytest.mark.parametrize("body,why", [
    (b'{"results": "hits"}', "'hits'"), (b'{"results": [[{"id": "d1", "score": 1.0}], "x"]}', '"results"[1]'),
    (b'{"results": [[{"id": "d1", "score": Infinity}]]}', '"results"[0][0]'),
], ids=["a-str", "a-str-inside", "inf-score"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_batch_search_answered_in_another_shape_is_a_client_error(kind, body, why):
    client, run = _mocked(kind, body)
    with pytest.raises(ClientError) as info:
        run(client.search(["q", "r"], k=3))
    assert _plain(info.value) and why in str(info.value), info.value


# --------------------------------------------------------------------------- the size bound
def streaming(total=None, piece=64 * 1024, pause=0.0, encoding=None):
    """A behaviour sending a JSON body generated as it goes (``total`` bytes, or without end when
    None, with no Content-Length), a ``piece`` at a time, ``pause`` seconds apart: nothing large
    is held by the server."""
    def behaviour(server, conn, head):
        extra = "Connection: close\r\n"
        length = None if total is None else total + 2
        conn.sendall(_head(200, length, extra) + b'"')
        sent, filler = 0, b"x" * piece
        while total is None or sent < total:
            if not server.running():
                return
            n = piece if total is None else min(piece, total - sent)
            conn.sendall(filler[:n])
            sent += n
            if pause and not server.wait(conn, pause):
                return
        conn.sendall(b'"')
    return behaviour


@pytest.mark.parametrize("kind", KINDS)
def test_an_answer_announced_over_the_bound_is_refused_unread(kind):
    with Server(streaming(total=10 ** 12)) as server:
        err, elapsed, closed = through(kind, server.url, lambda c: c.info(), server, deadline=LONG,
                                       max_answer_bytes=1024 * 1024, max_retries=3)
    assert _plain(err) and err.status == 200, err
    assert "max_answer_bytes" in str(err) and "1048576 bytes" in str(err) and "announces 1000000000002" in str(err)
    assert elapsed < LONG and closed and server.connections == 1


@pytest.mark.parametrize("pause", [0.0, 0.01], ids=["fast", "slow"])
@pytest.mark.parametrize("kind", KINDS)
def test_an_answer_over_the_bound_is_stopped_as_it_comes(kind, pause):
    # no Content-Length: the bound is found as the body comes, and the rest is not read
    with Server(streaming(pause=pause)) as server:
        err, elapsed, closed = through(kind, server.url, lambda c: c.info(), server, deadline=LONG,
                                       max_answer_bytes=512 * 1024)
    assert _plain(err) and "max_answer_bytes" in str(err) and "524288 bytes" in str(err), err
    assert elapsed < LONG and closed and server.connections == 1


@pytest.mark.parametrize("kind", KINDS)
def test_the_bound_is_on_the_decoded_answer(kind):
    # 20 MB of JSON compressed to some 20 KB: small on the wire, refused once decoded
    bomb = gzip.compress(b'"' + b" " * 20_000_000 + b'"', compresslevel=9)
    assert len(bomb) < 100_000
    with Server(answering(bomb, extra="Content-Encoding: gzip\r\n")) as server:
        err, elapsed, _ = through(kind, server.url, lambda c: c.info(), deadline=LONG, max_answer_bytes=1_000_000)
    assert _plain(err) and "max_answer_bytes" in str(err) and elapsed < LONG, err


@pytest.mark.parametrize("kind", KINDS)
def test_an_answer_of_the_bound_is_read(kind):
    body = b'{"status": "' + b"o" * 1000 + b'"}'
    client, run = _mocked(kind, body, max_answer_bytes=len(body))
    assert run(client.health()) == {"status": "o" * 1000}
    client, run = _mocked(kind, body, max_answer_bytes=len(body) - 1)
    with pytest.raises(ClientError, match="max_answer_bytes"):
        run(client.health())


@pytest.mark.parametrize("kind", KINDS)
def test_a_fast_endless_answer_is_stopped_at_the_deadline(kind):
    # a body that never ends, each piece at once (no read ever waits for the socket timeout),
    # under a bound it would take minutes to reach: the deadline stops it; the pace keeps what
    # the client holds until then to some tens of MB
    deadline = 1.0
    with Server(streaming(pause=0.004)) as server:
        err, elapsed, closed = through(kind, server.url, lambda c: c.info(), server, deadline=deadline,
                                       timeout=30.0, max_answer_bytes=10 ** 12)
    assert isinstance(err, DeadlineExceeded) and err.deadline == deadline and err.tries == 1, err
    assert deadline - 0.05 <= elapsed < deadline + SLACK and closed


def test_the_default_bound_and_bad_ones():
    with Client() as client:
        assert client.max_answer_bytes == AsyncClient().max_answer_bytes == MAX_ANSWER_BYTES == 64 * 1024 * 1024
        assert client.with_options(max_answer_bytes=10).max_answer_bytes == 10
        assert client.max_answer_bytes == MAX_ANSWER_BYTES
    for bad in (0, -1, 1.5, True, "5", None):
        with pytest.raises(ValueError, match="max_answer_bytes"):
            Client(max_answer_bytes=bad)
        with pytest.raises(ValueError, match="max_answer_bytes"):
            AsyncClient(max_answer_bytes=bad)


# --------------------------------------------------------------------------- every route's shape
# each method with an answer of its route's shape (the service's, cut to the fields a caller reads)
_EVERY = {
    "info": (lambda c: c.info(), {"documents": 3, "method": "BM25"}),
    "openapi": (lambda c: c.openapi(), {"openapi": "3.1.0", "paths": {}}),
    "document": (lambda c: c.document("d"), {"id": "d", "text": "t", "metadata": None}),
    "more_like": (lambda c: c.more_like("d", k=1), {"id": "d", "hits": [{"id": "e", "score": 0.5}]}),
    "match": (lambda c: c.match("t"), {"matches": [], "score": "similarity", "higher_is_better": True,
                                       "warnings": []}),
    "match_pairs": (lambda c: c.match_pairs([("a", "b")]),
                    {"decisions": [{"duplicate": True}], "score": "similarity", "higher_is_better": True}),
    "explain": (lambda c: c.explain("q", "d"), {"score": 0.5, "measure": "similarity", "higher_is_better": True,
                                                "words": [], "rest": 0.0}),
    "add": (lambda c: c.add(["t"]), {"ids": ["1"], "added": 1, "documents": 4, "with_new_words": 0,
                                     "warnings": []}),
    "upsert": (lambda c: c.upsert(["a"], ["t"]), {"ids": ["a"], "added": 1, "updated": 0, "documents": 4}),
    "put": (lambda c: c.upsert("a", "t"), {"id": "a", "added": 0, "updated": 1, "documents": 4}),
    "delete": (lambda c: c.delete("d"), {"deleted": 1, "documents": 2}),
    "reindex": (lambda c: c.reindex(), {"documents": 3, "method": "BM25", "path": "idx"}),
    "feedback": (lambda c: c.feedback("imp", ["d"]), {"impression": "imp", "recorded": 1}),
}


# a field of each answer that its caller reads
_CHECKED = {"info": "documents", "openapi": "paths", "document": "text", "more_like": "hits", "match": "matches",
            "match_pairs": "decisions", "explain": "score", "add": "ids", "upsert": "updated", "put": "id",
            "delete": "deleted", "reindex": "documents", "feedback": "recorded"}


@pytest.mark.parametrize("route", sorted(_EVERY))
@pytest.mark.parametrize("kind", KINDS)
def test_every_method_returns_an_answer_of_its_shape(kind, route):
    call, answer = _EVERY[route]
    client, run = _mocked(kind, json.dumps(answer).encode())
    assert run(call(client)) == answer


@pytest.mark.parametrize("route", sorted(_EVERY))
@pytest.mark.parametrize("kind", KINDS)
def test_every_method_answered_in_another_shape_is_a_client_error(kind, route):
    # {} to add() was returned as it was: answer["ids"] a KeyError in the caller
    call, answer = _EVERY[route]
    field = _CHECKED[route]
    for body, why in (({}, f'"{field}"'), (dict(answer, **{field: True}), "True")):
        client, run = _mocked(kind, json.dumps(body).encode())
        with pytest.raises(ClientError) as info:
            run(call(client))
        assert _plain(info.value) and info.value.status == 200, info.value
        assert "the answer is not the service's" in str(info.value) and why in str(info.value), (body, info.value)


def test_every_route_method_checks_its_answer():
    # a method added without a shape would return whatever a server answers
    from learnsim.client._routes import Routes

    calls = []

    class Recorder(Routes):
        def _send(self, call):
            calls.append(call)

    methods = {name for name in dir(Routes) if not name.startswith("_") and callable(getattr(Routes, name))}
    assert methods == {"health", "search"} | set(_EVERY) - {"put"}, methods
    recorder = Recorder()
    for call, _ in _EVERY.values():
        call(recorder)
    recorder.health(), recorder.search("q"), recorder.search(["q", "r"])
    assert calls and all(c.shape is not None for c in calls), [c for c in calls if c.shape is None]


# --------------------------------------------------------------------------- bodies the client cannot send
@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_a_nan_or_infinity_in_a_body_is_a_value_error_naming_its_place(value):
    # httpx raised its own "Out of range float values are not JSON compliant", naming no argument;
    # refused before any connection (none is listening at this address)
    client = Client("http://127.0.0.1:9", timeout=0.5, max_retries=0)
    try:
        with pytest.raises(ValueError, match=r"\['documents'\]\[1\]\['metadata'\]\['x'\].*no NaN or infinity"):
            client.add(["one", "two"], metadata=[None, {"x": value}])
        with pytest.raises(ValueError, match="no NaN or infinity"):
            client.add(["one"], metadata=[{"y": [1.0, value]}])
    finally:
        client.close()
