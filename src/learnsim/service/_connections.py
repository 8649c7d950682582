"""Connections of ``learnsim serve`` that hold it without asking anything (issue 45: never a
stalled server).

uvicorn waits for a request for as long as a connection stays open: a connection that sends
nothing, half a request head, or a body a byte at a time is kept for ever. Each holds a file
descriptor, and a service runs under the usual limit of 1,024 of them: 1,000 such connections from
one caller (opened in well under a second) made every other client's connection fail ("connection
reset") until the caller let go. The guard here (:func:`guarded_protocol`, uvicorn's ``http``
protocol with the checks below) and the limit raised at start (:func:`raise_open_files_limit`)
answer it as nginx's ``client_header_timeout``, ``client_body_timeout``, ``send_timeout`` and
``limit_conn`` and Apache's ``mod_reqtimeout`` do:

- **A request head within** :data:`HEAD_TIMEOUT_S` of the connection's start, or of the end of the
  answer before it (an idle keep-alive connection is closed sooner, by uvicorn's 5 s).
- **A request head of at most** :data:`MAX_HEAD_BYTES` (uvicorn's h11 parser bounds it at
  16 KiB itself; httptools' took a header of any size, building it by concatenation while the
  event loop waited: a 58 MiB header sent within the head's timeout held every other client for
  5-6 s and 70 MB of memory): a longer one is answered ``431`` (JSON) and closed, once what still
  comes of it is read and dropped (bounded): closed with it unread, the client got a reset.
- **A body at a fair rate:** checked every :data:`CHECK_S` once its head is in, a body must bring
  :data:`BODY_MIN_RATE` bytes a second (a 64 MiB upload at 1 MB/s passes; a byte a second does not).
- **An answer read at a fair rate:** a client whose answer waits unread in the send buffer with no
  byte taken between two checks is closed.
- **Connections counted:** at most the open-files limit less :data:`FILES_RESERVED` (the index's
  files, the logs) in all, per server process, and from one address at most half of that, and at
  most :data:`MAX_CONNECTIONS_PER_ADDRESS` (so that one caller cannot take them all, while a load
  test of hundreds of clients on one machine is served); one more is answered ``503`` with a JSON
  error and ``Retry-After`` and closed. An IPv6 address is counted by its /64
  (:func:`address_key`): a host may send from any of its network's 2^64 addresses.

A connection closed for its slowness gets no answer: it sent no request to answer, or not all of
one (nginx closes it the same way). The application's own time for a request that was read whole
is its deadline's business (``--deadline``), not this guard's.

Only the standard library is imported here, and uvicorn's protocol when the class is built.
"""
from __future__ import annotations

import ipaddress
import json

#: Seconds a connection has to send a whole request head.
HEAD_TIMEOUT_S = 10.0
#: Bytes of one request head (its request line and headers), at most: twice what one read of the
#: event loop gives (256 KiB), so that a read holding a body's end and a pipelined head's start is
#: never taken for a long head, and far above what a browser sends (8-16 KiB; nginx's default
#: bound is 4 buffers of 8 KiB, Node's 16 KiB).
MAX_HEAD_BYTES = 512 * 1024
#: Seconds between two checks of a body or an answer in progress.
CHECK_S = 10.0
#: Bytes a second a request body must bring in, on average between two checks.
BODY_MIN_RATE = 8 * 1024
#: Connections one client address may hold open on one server process, at most (and at most half
#: of all those the process may hold).
MAX_CONNECTIONS_PER_ADDRESS = 1024
#: File descriptors kept for the index's files, the click log and the logs: connections may take
#: the open-files limit less these.
FILES_RESERVED = 256
#: Seconds a refused connection stays open for its request to be read, at most.
REFUSED_LINGER_S = 1.0
#: Bytes of a refused request head still read (and dropped) after its 431, at most: see
#: ``GuardedProtocol._refuse_head``.
REFUSED_HEAD_DRAIN_BYTES = 64 * 1024 * 1024
#: The soft open-files limit asked for at start (at most the hard limit).
OPEN_FILES_WANTED = 65536


def raise_open_files_limit(wanted=OPEN_FILES_WANTED):
    """Raise this process's soft limit on open files towards ``wanted`` (at most its hard limit;
    Go's runtime does the same at start), so that connections do not run out of descriptors at
    the usual soft limit of 1,024. Returns the soft limit in force, or None where there is none
    to read (not POSIX)."""
    try:
        import resource
    except ImportError:      # Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return None if soft == resource.RLIM_INFINITY else int(soft)


def _connection_caps():
    """(the connections one process may hold: its open-files limit less FILES_RESERVED, at least
    64; those one address may hold: half of them, at least 32, at most MAX_CONNECTIONS_PER_ADDRESS)."""
    total = _connection_total()
    return total, max(1, min(MAX_CONNECTIONS_PER_ADDRESS, max(32, total // 2)))


def _connection_total():
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except ImportError:
        return 4096
    if soft == resource.RLIM_INFINITY:
        return 1 << 20
    return max(64, int(soft) - FILES_RESERVED)


# RFC 6052's well-known prefix: a NAT64 or SIIT translator's IPv4 clients, each 64:ff9b::V4ADDR
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def ipv4_inside(address):
    """The IPv4 address of the host behind an IPv6 ``address`` (an ``ipaddress`` object) that
    carries one, else None: an IPv4-mapped address's, a 6to4 address's (2002:V4ADDR::/48: the
    holder of one IPv4 address has the 65,536 /64s of that /48, each a client and a bound of its
    own when counted by /64), a Teredo address's client (its /64 is the Teredo server's) and a
    NAT64 address's (64:ff9b::V4ADDR, RFC 6052)."""
    if address.version != 6:
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64:
        # a translator's IPv4 client (RFC 6052's well-known prefix): by /64, every IPv4 client of
        # an IPv6 service behind SIIT was one client
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_key(host):
    """What the bound per address counts a peer ``host`` as: an IPv6 address by its /64 (one
    host's network: privacy addresses rotate within it, and a caller may send from any of its
    2^64 addresses, so that the bound counted per address never held it), an IPv4-mapped one as
    its IPv4 address (and so a 6to4 or Teredo one: :func:`ipv4_inside`), any other address itself.
    Loopback addresses stay one each: all the local
    clients of a server on 127.0.0.1 counted as one would share one bound, which one local caller
    could fill for the others (a local user can open connections from all of 127.0.0.0/8; the
    bound in all, the open-files limit's, still holds)."""
    try:
        address = ipaddress.ip_address(str(host).split("%", 1)[0])
    except ValueError:
        return host
    if address.version == 6:
        if ipv4_inside(address) is not None:
            return str(ipv4_inside(address))
        if not address.is_loopback:
            return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def _refusal(message):
    body = json.dumps({"error": message, "code": 503}).encode("utf-8")
    return (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
            b"x-content-type-options: nosniff\r\nretry-after: 1\r\nconnection: close\r\n"
            b"content-length: " + str(len(body)).encode("ascii") + b"\r\n\r\n" + body)


def _busy_address(cap):
    return _refusal(f"too many connections from this address (at most {cap} at once to one server process); "
                    "reuse connections, or retry later")


_BUSY = _refusal("too many open connections; retry later")


def _head_too_long():
    body = json.dumps({"error": f"the request head (its line and headers) is over {MAX_HEAD_BYTES} bytes "
                                "(MAX_HEAD_BYTES)", "code": 431}).encode("utf-8")
    return (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\n"
            b"x-content-type-options: nosniff\r\nconnection: close\r\n"
            b"content-length: " + str(len(body)).encode("ascii") + b"\r\n\r\n" + body)


#: The longest request target (path and query string) httptools' parser reads: it gives a URL's
#: parts 16-bit offsets, and refused a longer one as not HTTP.
MAX_TARGET_BYTES = 65_535


def _target_too_long():
    body = json.dumps({"error": f"the request target (the path and the query string) is over {MAX_TARGET_BYTES:,} "
                                "bytes (MAX_TARGET_BYTES): send the parameters in a POST body",
                       "code": 414}).encode("utf-8")
    return (b"HTTP/1.1 414 URI Too Long\r\ncontent-type: application/json\r\n"
            b"x-content-type-options: nosniff\r\nconnection: close\r\n"
            b"content-length: " + str(len(body)).encode("ascii") + b"\r\n\r\n" + body)


def _not_http(message):
    body = json.dumps({"error": f"the request is not valid HTTP/1.1 ({message.rstrip('.')}): its request line, a "
                                "header (a NUL, a folded line, bytes that are not ASCII) or its body's framing "
                                "(Content-Length, chunks) was refused by the server's HTTP parser",
                       "code": 400}).encode("utf-8")
    return (b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n"
            b"x-content-type-options: nosniff\r\nconnection: close\r\n"
            b"content-length: " + str(len(body)).encode("ascii") + b"\r\n\r\n" + body)


def guarded_protocol(base=None):
    """uvicorn's HTTP protocol class (httptools', or h11's where httptools is not installed; or
    ``base``) with the checks of this module, for ``uvicorn.Config(http=...)``."""
    if base is None:
        try:
            from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
        except ImportError:
            from uvicorn.protocols.http.h11_impl import H11Protocol as base

    class GuardedProtocol(base):
        # counts shared by the connections of this process (one event loop: no lock needed)
        open_by_address = {}
        open_total = [0]
        lingering = [0]
        cap = [None, None, None]      # (all, per address, the refusal's bytes), at the first connection

        def connection_made(self, transport):
            super().connection_made(transport)
            self._guard = None
            self._counted = None
            self._refused = self._lingering = False
            self._dropping = None     # bytes still dropped after a 431 (None: not refused so)
            self._received = self._mark = 0
            self._unsent = None
            # the bytes of the request head being read (None: none is, a body or an answer is
            # under way); httptools' parser says where a head begins and ends, h11's bounds its own
            self._head = 0 if hasattr(base, "on_headers_complete") else None
            if GuardedProtocol.cap[0] is None:
                total, per_address = _connection_caps()
                GuardedProtocol.cap[:] = [total, per_address, _busy_address(per_address)]
            cap, per_address, busy_address = GuardedProtocol.cap
            address = address_key(self.client[0]) if self.client else ""
            held = GuardedProtocol.open_by_address.get(address, 0)
            if held >= per_address or GuardedProtocol.open_total[0] >= cap:
                # answered at once, and closed once the request is read (closed with the request
                # unread, the system would reset the connection and the client might never read
                # the answer), or after REFUSED_LINGER_S
                # (at once when those waiting would take the descriptors the cap keeps free)
                self._refused = True
                transport.write(busy_address if held >= per_address else _BUSY)
                if GuardedProtocol.open_total[0] + GuardedProtocol.lingering[0] >= cap:
                    transport.close()
                else:
                    GuardedProtocol.lingering[0] += 1
                    self._lingering = True
                    self._guard = self.loop.call_later(REFUSED_LINGER_S, transport.close)
                return
            GuardedProtocol.open_by_address[address] = held + 1
            GuardedProtocol.open_total[0] += 1
            self._counted = address
            self._arm(HEAD_TIMEOUT_S)

        def connection_lost(self, exc):
            if self._lingering:
                self._lingering = False
                GuardedProtocol.lingering[0] -= 1
            if self._guard is not None:
                self._guard.cancel()
                self._guard = None
            address, self._counted = self._counted, None
            if address is not None:
                left = GuardedProtocol.open_by_address.get(address, 1) - 1
                if left > 0:
                    GuardedProtocol.open_by_address[address] = left
                else:
                    GuardedProtocol.open_by_address.pop(address, None)
                GuardedProtocol.open_total[0] -= 1
            super().connection_lost(exc)

        def data_received(self, data):
            if self._refused:
                self.transport.close()
                return
            if self._dropping is not None:
                self._dropping -= len(data)
                if self._dropping <= 0:
                    self.transport.close()
                return
            self._received += len(data)
            reading_head = self._head is not None
            super().data_received(data)
            if self._head is not None and reading_head and not self.transport.is_closing():
                # counted once the parser has it: a read that ends a head (or begins one) is not
                # all head, so a head is at most MAX_HEAD_BYTES and one read when it is refused
                self._head += len(data)
                if self._head > MAX_HEAD_BYTES:
                    self._refuse_head()

        def _refuse_head(self):
            # closed at once with the rest of the head still coming, the system reset the
            # connection and a client that reads an answer only once its request is sent (httpx,
            # curl) lost the 431 ("connection reset"). As nginx's lingering close: the 431 and a
            # FIN are sent, and what still comes is read and dropped (never parsed) for at most
            # REFUSED_LINGER_S and REFUSED_HEAD_DRAIN_BYTES, then the connection is closed
            transport = self.transport
            transport.write(_head_too_long())
            try:
                transport.write_eof()
            except (AttributeError, NotImplementedError, OSError, RuntimeError):
                transport.close()
                return
            self._dropping = REFUSED_HEAD_DRAIN_BYTES
            if self._guard is not None:
                self._guard.cancel()
            self._guard = self.loop.call_later(REFUSED_LINGER_S, transport.close)

        def send_400_response(self, msg):
            # uvicorn's answer to a request its parser refuses was plain text, where every other
            # answer of the service is its JSON error (a client reads {"error", "code"})
            # a valid request whose target is over the parser's bound was said to be no HTTP
            too_long = len(getattr(self, "url", None) or b"") > MAX_TARGET_BYTES
            self.transport.write(_target_too_long() if too_long else _not_http(msg))
            self.transport.close()

        def _should_upgrade(self):
            # never: the service serves HTTP alone. uvicorn handed a WebSocket upgrade's connection
            # to its WebSocket protocol (transport.set_protocol), so that connection_lost above was
            # never called and the connection's place was held for good: 1,024 upgrade requests
            # (0.8 s) shut their address out until a restart. The request is answered as HTTP,
            # and its connection closed after: httptools' parser reads nothing past an upgrade
            # request, so a request sent behind it went unanswered until the head's timeout
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete:
                cycle.keep_alive = False
            return False

        def _unsupported_upgrade_warning(self):
            pass    # a line per request any caller can send: nothing the operator must do

        def on_message_begin(self):
            super().on_message_begin()
            self._head = 0

        def on_headers_complete(self):
            self._head = None
            url = getattr(self, "url", b"")
            if url[:1] not in (b"/", b"*", b"") and b"://" in url:
                # an absolute-form target: its authority is the request's host, the Host header
                # ignored (RFC 9112, 3.2.2); the host check read the header, so a target naming
                # another host was answered. The header the check reads is the target's
                authority = url.split(b"://", 1)[1].split(b"/", 1)[0].split(b"?", 1)[0].split(b"#", 1)[0]
                self.headers[:] = [(n, v) for n, v in self.headers if n != b"host"] + [(b"host", authority)]
            super().on_headers_complete()

        def on_response_complete(self):
            super().on_response_complete()
            if self._counted is not None and not self.transport.is_closing():
                cycle = self.cycle
                # idle, or the next request's head on its way: it has HEAD_TIMEOUT_S; a pipelined
                # request started at once is checked as any other
                self._arm(HEAD_TIMEOUT_S if cycle is None or cycle.response_complete else CHECK_S)

        def _arm(self, seconds):
            if self._guard is not None:
                self._guard.cancel()
            self._mark = self._received
            self._guard = self.loop.call_later(seconds, self._check, seconds)

        def _check(self, period):
            self._guard = None
            transport = self.transport
            if transport is None or transport.is_closing():
                return
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete:
                if cycle.more_body:
                    # a body on its way: it must keep a fair rate (unless this side stopped reading
                    # it: uvicorn pauses a body the application has not taken yet)
                    paused = getattr(getattr(self, "flow", None), "read_paused", False)
                    if paused or self._received - self._mark >= BODY_MIN_RATE * period:
                        self._arm(CHECK_S)
                        return
                else:
                    # the request is read: the application answers it (under its deadline); the
                    # client must take the answer as it is written
                    unsent = transport.get_write_buffer_size()
                    stalled = unsent > 0 and self._unsent is not None and unsent >= self._unsent
                    self._unsent = unsent if unsent > 0 else None
                    if not stalled:
                        self._arm(CHECK_S)
                        return
            # no whole head in time, a body too slow, or an answer not read
            transport.close()

    GuardedProtocol.__name__ = GuardedProtocol.__qualname__ = f"Guarded{base.__name__}"
    return GuardedProtocol
