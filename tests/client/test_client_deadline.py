"""learnsim.client (issue 45, part 4): a call ends within the client's ``deadline`` whatever the
server does. ``timeout`` bounds each read only: a server sending its head or its body a byte at
a time kept a client with ``timeout=2.0`` waiting 170 s. Each misbehaving server here is a raw
socket server on 127.0.0.1 (a free port) in a thread, which gives up by itself after
:data:`LIFETIME_S`: a client that does not keep its deadline fails the timing assertions instead
of hanging the suite."""
from __future__ import annotations

import asyncio
import math
import select
import socket
import threading
import time

import pytest

httpx = pytest.importorskip("httpx")

from learnsim.client import (AsyncClient, Client, ClientError, ConnectionFailed, DeadlineExceeded,  # noqa: E402
                             Unavailable)

KINDS = ("sync", "async")
# the deadline of the calls here, and how far past it a call may end (the work of stopping it
# on a machine shared with other jobs; it ends within some 20 ms when the machine is idle)
DEADLINE = 0.75
SLACK = 1.0
# a misbehaving server stops by itself after this long (a client that does not keep its
# deadline then takes about this long, not forever)
LIFETIME_S = 8.0
# a trickling server sends a byte this often: well within any read timeout
TRICKLE_S = 0.2
# a length a stalling server announces: large, but within the client's max_answer_bytes (a
# larger one is refused at once: test_client_answers.py)
BIG = 10 ** 7


# --------------------------------------------------------------------------- misbehaving servers
class Server:
    """A server on 127.0.0.1 handling each connection, once it has read the request head, with
    ``behaviour(server, conn, head)`` in a thread of its own, for at most ``lifetime`` seconds.

    ``url`` is its address; ``connections`` counts the connections accepted; ``closed`` is set
    when the client closed one (seen as the end of its stream, or a failed send)."""

    def __init__(self, behaviour, lifetime=LIFETIME_S):
        self.behaviour, self.connections = behaviour, 0
        self.closed, self._stop = threading.Event(), threading.Event()
        self._until = time.monotonic() + lifetime
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.05)
        self.url = "http://127.0.0.1:%d" % self._sock.getsockname()[1]
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self._stop.set()
        for thread in list(self._threads):
            thread.join(timeout=2)
        self._sock.close()

    def running(self):
        return not self._stop.is_set() and time.monotonic() < self._until

    def _accept(self):
        while self.running():
            try:
                conn, _ = self._sock.accept()
            except (socket.timeout, OSError):
                continue
            self.connections += 1
            thread = threading.Thread(target=self._handle, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _handle(self, conn):
        with conn:
            try:
                head = b""
                while b"\r\n\r\n" not in head and self.running():
                    if select.select([conn], [], [], 0.05)[0]:
                        data = conn.recv(65536)
                        if not data:
                            self.closed.set()
                            return
                        head += data
                if self.running():
                    self.behaviour(self, conn, head)
            except OSError:      # a send to a connection the client closed
                self.closed.set()

    def wait(self, conn, seconds):
        """Wait ``seconds``, watching ``conn``: False when the client closed it or the server is
        stopping (then the behaviour ends, and the connection is closed)."""
        if select.select([conn], [], [], seconds)[0] and not conn.recv(65536):
            self.closed.set()
            return False
        return self.running()

    def trickle(self, conn, data):
        """Send ``data`` a byte each :data:`TRICKLE_S`, then hold the connection open."""
        for i in range(len(data)):
            conn.sendall(data[i:i + 1])
            if not self.wait(conn, TRICKLE_S):
                return
        self.hold(conn)

    def hold(self, conn):
        while self.wait(conn, TRICKLE_S):
            pass


def _head(status=200, length=None, extra=""):
    length = "" if length is None else f"Content-Length: {length}\r\n"
    return (f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{length}{extra}\r\n").encode()


def silent(server, conn, head):
    """Accept the request and never answer."""
    server.hold(conn)


def slow_head(server, conn, head):
    """The head of an answer a byte at a time, without end."""
    server.trickle(conn, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: " + b"a" * 10_000)


def slow_body(server, conn, head):
    """A whole head at once, then the body a byte at a time."""
    conn.sendall(_head(length=100_000))
    server.trickle(conn, b'{"status": "' + b"o" * 100_000)


def stall(server, conn, head):
    """A huge Content-Length, a little of the body, then nothing."""
    conn.sendall(_head(length=BIG) + b'{"status": ')
    server.hold(conn)


def never_close(server, conn, head):
    """A body whose end is the end of the connection (no length), which never comes."""
    conn.sendall(_head(extra="Connection: close\r\n") + b'{"status": "ok"}')
    server.hold(conn)


def fast(server, conn, head):
    body = b'{"status": "ok"}'
    conn.sendall(_head(length=len(body), extra="Connection: close\r\n") + body)


def fast_health(server, conn, head):
    """``/healthz`` answered at once, every other route never."""
    (fast if head.startswith(b"GET /healthz ") else silent)(server, conn, head)


def unavailable(server, conn, head):
    """503, try again in 0.2 s."""
    body = b'{"error": "busy", "code": 503}'
    conn.sendall(_head(503, len(body), "Retry-After: 0.2\r\nConnection: close\r\n") + body)


# --------------------------------------------------------------------------- calling
def through(kind, base, call, server=None, **options):
    """``call(client)`` with a new Client or AsyncClient on ``base``: ``(outcome, seconds, closed)``,
    the outcome the answer or the :class:`ClientError` raised, ``closed`` whether ``server`` saw
    the connection closed within a second, before the client itself was closed."""
    def after(start):
        elapsed = time.monotonic() - start
        return elapsed, (server.closed.wait(1.0) if server is not None else None)

    if kind == "sync":
        with Client(base, **options) as client:
            start = time.monotonic()
            try:
                outcome = call(client)
            except ClientError as err:
                outcome = err
            return (outcome, *after(start))

    async def main():
        async with AsyncClient(base, **options) as client:
            start = time.monotonic()
            try:
                outcome = await call(client)
            except ClientError as err:
                outcome = err
            return (outcome, *await asyncio.to_thread(after, start))

    return asyncio.run(main())


def _in_time(elapsed, deadline=DEADLINE):
    # not before the deadline either: the call was not stopped by something else
    return deadline - 0.05 <= elapsed < deadline + SLACK


# --------------------------------------------------------------------------- the attacks
@pytest.mark.parametrize("behaviour", [silent, slow_head, slow_body, stall, never_close],
                         ids=lambda b: b.__name__)
@pytest.mark.parametrize("kind", KINDS)
def test_every_call_ends_at_its_deadline(kind, behaviour):
    with Server(behaviour) as server:
        err, elapsed, closed = through(kind, server.url, lambda c: c.info(), server, deadline=DEADLINE)
    assert isinstance(err, DeadlineExceeded), err
    assert _in_time(elapsed), f"{behaviour.__name__}: {elapsed:.2f} s for a deadline of {DEADLINE} s"
    assert isinstance(err, ConnectionFailed) and isinstance(err, TimeoutError) and err.status is None
    assert err.deadline == DEADLINE and err.tries == 1 and err.request.url.path == "/v1/info"
    assert str(err).startswith("GET /v1/info: no whole answer from") and f"deadline of {DEADLINE:g} s" in str(err)
    assert closed, "the connection of a stopped call is closed, not kept"


@pytest.mark.parametrize("kind", KINDS)
def test_a_write_too(kind):
    # a POST with a body, not retried (it may have been applied): stopped all the same
    with Server(slow_body) as server:
        err, elapsed, _ = through(kind, server.url, lambda c: c.add(["a text"], ids=["x"]), deadline=DEADLINE)
    assert isinstance(err, DeadlineExceeded) and _in_time(elapsed) and err.request.method == "POST"


@pytest.mark.parametrize("kind", KINDS)
def test_the_deadline_covers_the_retries_and_their_waits(kind):
    # each try times out after 0.25 s and is tried again after 0.05 s: without the deadline,
    # 11 tries and 10 waits (3 s); with it, the third try (from 0.6 s) is cut short at 0.75 s
    with Server(silent) as server:
        err, elapsed, _ = through(kind, server.url, lambda c: c.info(), deadline=DEADLINE, timeout=0.25,
                                  max_retries=10, max_wait=0.05)
    assert isinstance(err, DeadlineExceeded) and _in_time(elapsed)
    assert err.tries == 3 and server.connections == 3


@pytest.mark.parametrize("kind", KINDS)
def test_a_retry_that_would_start_past_the_deadline_is_not_made(kind):
    # 503s asking for 0.2 s: tries at 0, 0.2, 0.4, 0.6 s; one at 0.8 s would be past 0.75 s, so
    # the last 503 is raised then, not a wait into the deadline
    with Server(unavailable) as server:
        err, elapsed, _ = through(kind, server.url, lambda c: c.info(), deadline=DEADLINE, max_retries=10)
    assert type(err) is Unavailable and err.message == "busy"
    assert elapsed < DEADLINE + SLACK and server.connections in (3, 4)      # 4 unless the machine is slow


@pytest.mark.parametrize("kind", KINDS)
def test_a_prompt_server_is_answered(kind):
    with Server(fast) as server:
        answer, elapsed, _ = through(kind, server.url, lambda c: c.health(), deadline=DEADLINE)
    assert answer == {"status": "ok"} and elapsed < DEADLINE


def test_the_read_timeout_alone_does_not_bound_a_call():
    # the attack: each byte comes within the read timeout, so httpx waits for the server to give
    # up (here after 1.2 s), however small the timeout
    with Server(slow_body, lifetime=1.2) as server, httpx.Client(timeout=0.3) as plain:
        start = time.monotonic()
        with pytest.raises(httpx.HTTPError):
            plain.get(server.url + "/v1/info")
        assert time.monotonic() - start > 1.0


# --------------------------------------------------------------------------- other transports
class _Trickle(httpx.SyncByteStream, httpx.AsyncByteStream):
    """An answer's body a byte each 0.1 s, for 10 s."""

    def __iter__(self):
        for _ in range(100):
            time.sleep(0.1)
            yield b" "

    async def __aiter__(self):
        for _ in range(100):
            await asyncio.sleep(0.1)
            yield b" "


@pytest.mark.parametrize("kind", KINDS)
def test_another_transport_is_stopped_between_two_pieces(kind):
    def handler(request):
        return httpx.Response(200, stream=_Trickle())

    transport = httpx.MockTransport(handler)
    err, elapsed, _ = through(kind, "http://127.0.0.1", lambda c: c.info(), deadline=0.4, transport=transport)
    assert isinstance(err, DeadlineExceeded) and _in_time(elapsed, 0.4)


class _Failing:
    """A MockTransport handler failing to connect, counting the requests."""

    def __init__(self):
        self.requests = 0

    def __call__(self, request):
        self.requests += 1
        raise httpx.ConnectError("refused", request=request)


def test_no_wait_into_the_deadline_after_a_broken_connection():
    # the waits are recorded, not slept: 0.5 s fits in 1 s, the next (1 s) does not
    failing, sleeps = _Failing(), []
    with Client("http://127.0.0.1", transport=httpx.MockTransport(failing), deadline=1.0,
                sleep=sleeps.append) as client:
        with pytest.raises(ConnectionFailed, match="past the deadline of 1 s") as info:
            client.info()
    assert type(info.value) is ConnectionFailed and sleeps == [0.5] and failing.requests == 2


def test_a_redirect_is_not_followed():
    # so it cannot take a call elsewhere, or past its deadline
    requests = []

    def handler(request):
        requests.append(request)
        return httpx.Response(302, headers={"Location": "http://127.0.0.1/elsewhere"})

    with Client("http://127.0.0.1", transport=httpx.MockTransport(handler), deadline=1.0) as client:
        with pytest.raises(ClientError) as info:
            client.info()
    assert info.value.status == 302 and len(requests) == 1


# --------------------------------------------------------------------------- the option
def test_with_options_gives_a_client_with_another_deadline():
    with Server(fast_health) as server, Client(server.url, deadline=60) as client:
        quick = client.with_options(deadline=DEADLINE, max_retries=0)
        assert (quick.deadline, quick.max_retries, client.deadline, client.max_retries) == (DEADLINE, 0, 60.0, 3)
        start = time.monotonic()
        with pytest.raises(DeadlineExceeded) as info:
            quick.info()
        assert _in_time(time.monotonic() - start) and info.value.deadline == DEADLINE
        with quick:       # closing the copy leaves the client's connections open
            pass
        assert client.health() == {"status": "ok"}
    assert AsyncClient().with_options(deadline=None).deadline is None


def test_the_default_deadline():
    with Client() as one, Client(deadline=None) as none, Client(deadline=5) as five:
        assert one.deadline == AsyncClient().deadline == 120.0
        assert none.deadline is None and five.deadline == 5.0


@pytest.mark.parametrize("deadline", [0, -1, math.nan, math.inf, True, "5"])
def test_bad_deadlines(deadline):
    with pytest.raises(ValueError, match="deadline"):
        Client(deadline=deadline)
    with pytest.raises(ValueError, match="deadline"):
        Client().with_options(deadline=deadline)


def test_the_error_is_exported_and_plain():
    import learnsim.client as client

    assert "DeadlineExceeded" in client.__all__ and client.DeadlineExceeded is DeadlineExceeded
    err = DeadlineExceeded("late", deadline=2.0, tries=3)
    assert (str(err), err.deadline, err.tries, err.status, err.response) == ("late", 2.0, 3, None, None)
