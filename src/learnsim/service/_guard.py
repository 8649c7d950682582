"""The first check of every request to ``learnsim serve``, on its head alone, before its body is
read (:class:`_BodyLimit`): the Host allowlist (DNS rebinding), UTF-8, the API key, read-only,
the Origin of a POST or DELETE, the Content-Type of a write; then the routing of
``/v1/docs/...`` by the raw path, and the body bound. See :mod:`learnsim.service.app`."""
from __future__ import annotations

import hmac
import socket
from urllib.parse import unquote_to_bytes

from . import _limits
from ._cors import readable_by
from ._http import _error, _short
from ._page_error import page_refusal

_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
# what needs no key even with protect_reads: a liveness probe, the schema and its page (which
# shows the schema alone)
_OPEN_PATHS = ("/healthz", "/openapi.json", "/docs", "/docs/init.js", "/docs/static/swagger-ui-bundle.js",
               "/docs/static/swagger-ui.css", "/docs/static/favicon.png")
_DOCS_PREFIX = b"/v1/docs/"
_SIMILAR = b"/similar"


def _bad_utf8(scope):
    """What is not UTF-8 in the request's path or query string (percent-decoded), or None."""
    for what, raw in (("path", _raw_path(scope)), ("query string", scope.get("query_string", b""))):
        try:
            unquote_to_bytes(raw.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            return f"the {what} is not valid UTF-8 (percent-encode UTF-8 bytes)"
    return None


def _raw_path(scope):
    raw = scope.get("raw_path")
    if not raw:
        from urllib.parse import quote

        raw = quote(scope.get("path", ""), safe="/").encode("ascii")
    return raw.split(b"?", 1)[0]


def _charset(content_type):
    """The charset a Content-Type names (lowercase, unquoted), or None."""
    for param in (content_type or "").split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip('"').strip().lower()
    return None


def _host_name(value):
    """The name part of a Host header (lowercase, brackets kept for IPv6), or None."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0 or (value[end + 1:] and not (value[end + 1] == ":" and value[end + 2:].isdigit())):
            return None
        return value[:end + 1]
    name, colon, port = value.partition(":")
    if colon and not port.isdigit():
        return None
    return name or None


def allowed_host_names(host="127.0.0.1", extra=()):
    """The Host names a service bound to ``host`` answers: the loopback names for a loopback
    address, the machine's for a wildcard one (0.0.0.0, ::) as well, ``host`` itself otherwise;
    and ``extra`` (``"*"``: any).

    Examples
    --------
    >>> from learnsim.service.app import allowed_host_names
    >>> sorted(allowed_host_names('127.0.0.1'))
    ['127.0.0.1', '[::1]', 'localhost']
    >>> sorted(allowed_host_names('10.0.0.5', extra=['search.example']))
    ['10.0.0.5', 'search.example']
    """
    names = set()
    bare = host.strip("[]").lower()
    if bare in ("127.0.0.1", "localhost", "::1") or bare.startswith("127."):
        names.update(_LOOPBACK)
        names.add(bare if ":" not in bare else f"[{bare}]")
    elif bare in ("0.0.0.0", "::", ""):
        names.update(_LOOPBACK)
        names.add(socket.gethostname().lower())
    else:
        names.add(f"[{bare}]" if ":" in bare else bare)
    for name in extra:
        name = str(name).strip().lower()
        if name == "*":
            return None
        names.add(f"[{name}]" if ":" in name and not name.startswith("[") else name)
    return frozenset(names)


def _authorized(headers, key):
    """Whether the headers (a Starlette Headers or the ASGI list) carry the API key ``key``."""
    if isinstance(headers, list):
        given = auth = None
        for name, value in headers:
            if name == b"x-api-key":
                given = value.decode("latin-1")
            elif name == b"authorization":
                auth = value.decode("latin-1")
    else:
        given, auth = headers.get("x-api-key"), headers.get("authorization")
    if given is None and auth and auth[:7].lower() == "bearer ":
        given = auth[7:].strip()
    # constant time: the comparison must not tell how much of a guess was right
    return given is not None and hmac.compare_digest(given.encode("utf-8", "replace"), key)


def _keys_disagree(keys):
    """Whether a key header (``{b"authorization" | b"x-api-key": [values]}``) is given twice:
    which one counts would be the order's accident. (One of each is the schema's two schemes,
    X-API-Key read first, as the API documents.)"""
    return any(len(values) > 1 for values in keys.values())


def _is_write(method, path, raw=None):
    """Whether the request writes. ``raw``: the raw path, where a literal ``/similar`` is the
    similar route, a read with no PUT or DELETE (405 from the router, not a write's 401/415)."""
    if method in ("PUT", "DELETE") and raw is not None and raw.endswith(_SIMILAR):
        return False
    # feedback is a write (issue 34): POST /v1/feedback, and the page's click links (GET /click)
    return ((method == "POST" and path in ("/v1/docs", "/v1/reindex", "/v1/feedback"))
            or (method in ("PUT", "DELETE") and path.startswith("/v1/docs/"))
            or (method == "GET" and path == "/click"))


# headers a request gives once, whose value the checks here decide on (a second one is a 400)
_ONCE = {b"origin": "Origin", b"content-type": "Content-Type", b"content-encoding": "Content-Encoding"}

#: The scope's mark of a HEAD request answered as its GET (see _BodyLimit).
HEAD = "learnsim.head"


_NOSNIFF = (b"x-content-type-options", b"nosniff")


def _without_body(send):
    """``send`` with the body of the answer left out (a HEAD's: the headers, Content-Length
    included, are the GET's)."""
    async def send_head(message):
        if message["type"] == "http.response.body":
            if message.get("more_body", False):
                return
            message = {"type": "http.response.body", "body": b"", "more_body": False}
        await send(message)

    return send_head


_in_flight = 0   # the bytes of the answers this process is sending (see _AnswerBytes)
_START, _BODY = "http.response.start", "http.response.body"
_CONTENT_LENGTH = b"content-length"


def answer_bytes_in_flight():
    """The bytes of the answers this process is sending now (``MAX_ANSWER_BYTES_IN_FLIGHT``)."""
    return _in_flight


class _AnswerBytes:
    """``send`` (its method :meth:`send`) adding ``X-Content-Type-Options: nosniff`` to every
    answer that does not say it, and bounding the bytes of answers: one answer's
    (``MAX_ANSWER_BYTES``, else a 422) and those of every answer the process is sending
    (``MAX_ANSWER_BYTES_IN_FLIGHT``, else a 503 with ``Retry-After``), each checked on the
    answer's Content-Length before any of it is sent. An answer without one (streamed) is not
    counted: every JSON answer of the service has one.

    An answer is counted from its start until its bytes have left: uvicorn's ``send`` writes a
    body to the connection's buffer and returns at once, and waits for that buffer to drain (a
    client that does not read) at the start of the *next* message. So the last body message is sent
    as a body with ``more_body`` and an empty last one, which returns once the body has drained;
    :meth:`release` then, or on any other way out (the client gone, an exception: the guard calls
    it in a ``finally``). One event loop a process: no lock."""

    __slots__ = ("_send", "scope", "held", "refused")

    def __init__(self, send, scope):
        self._send, self.scope, self.held, self.refused = send, scope, 0, False

    async def send(self, message):
        global _in_flight
        kind = message["type"]
        if kind == _BODY:
            if self.refused:
                return                  # the answer this one replaced: nothing of it is sent
            if not self.held or message.get("more_body", False):
                await self._send(message)
                return
            try:
                if message.get("body"):
                    await self._send(dict(message, more_body=True))
                    await self._send({"type": _BODY, "body": b"", "more_body": False})
                else:
                    await self._send(message)
            finally:
                self.release()
            return
        if kind == _START:
            size, sniff = 0, False
            headers = message.get("headers", ())
            for name, value in headers:
                if name == _CONTENT_LENGTH:
                    size = int(value)
                elif name == _NOSNIFF[0]:
                    sniff = True
            if not sniff:
                # every answer: a browser takes a JSON answer (which echoes a query, an id, a
                # document's text) as JSON, never as a page or a script it guessed from the bytes
                message = dict(message, headers=[*headers, _NOSNIFF])
            # a small answer (a search of short texts is a few KB) is neither counted nor held:
            # the search path pays one look at its headers, no extra message
            if size > _limits.SMALL_ANSWER_BYTES:
                problem = self._refusal(size)
                if problem is not None:
                    await self._refuse(message, problem)
                    return
                _in_flight += size
                self.held = size
        await self._send(message)

    def release(self):
        """Take this answer out of the count (once: the later calls do nothing)."""
        global _in_flight
        _in_flight -= self.held
        self.held = 0

    def _refusal(self, size):
        """The error answer replacing an answer of ``size`` bytes, or None to send it."""
        if size > _limits.MAX_ANSWER_BYTES and not self._write():
            return _error(422, f"the answer would be {size} bytes, over the bound of {_limits.MAX_ANSWER_BYTES} "
                               "bytes of one answer (MAX_ANSWER_BYTES): ask for fewer hits or queries (a smaller k)")
        if _in_flight + size > _limits.MAX_ANSWER_BYTES_IN_FLIGHT and not self._write():
            return _error(503, "the server is sending too many large answers at once (MAX_ANSWER_BYTES_IN_FLIGHT); "
                               "retry", {"Retry-After": "1"})
        return None

    def _write(self):
        # a write happened before its answer: that answer must reach the client, or a retry
        # would repeat it (a 409 for an id now in the index)
        scope = self.scope
        return _is_write(scope["method"], scope["path"], _raw_path(scope))

    async def _refuse(self, start, problem):
        self.refused = True
        # a cross-origin client must still be able to read the refusal
        cors = [(n, v) for n, v in start.get("headers", ()) if n.startswith(b"access-control-") or n == b"vary"]
        await self._send({"type": _START, "status": problem.status_code,
                          "headers": problem.raw_headers + cors + [_NOSNIFF]})
        await self._send({"type": _BODY, "body": problem.body, "more_body": False})


class _BodyLimit:
    """ASGI middleware, the first to see a request, which it checks before its body is read:

    1. the ``Host`` header names an allowed host (else 421);
    2. the path and the query string are UTF-8 (else 400);
    3. a write (and, with ``protect_reads``, any route but ``/healthz`` and ``/openapi.json``)
       carries the API key (else 401), a write to a read-only service is 403;
    4. a POST or DELETE with an ``Origin`` header comes from this service's own origin or one of
       ``cors_origins`` (else 403); a write POST or PUT is ``application/json`` (else 415);
    5. ``/v1/docs/...`` is routed by the raw path (see the module notes);
    6. a body over ``max_bytes`` gets 413, whether Content-Length says so or the bytes that arrive
       (chunked, or a lying header) do. The body is read here and replayed to the application,
       so that nothing downstream ever holds more than ``max_bytes``;
    7. a ``HEAD`` of a route that answers ``GET`` is answered as the ``GET`` would be, without
       its body (RFC 9110, 9.3.2: health probes and link checkers send it), and records nothing
       (``"learnsim.head"`` in the scope): not a click of ``/click`` (a 405 there), not an
       impression of a search;
    8. every answer carries ``X-Content-Type-Options: nosniff``;
    9. the bytes of answers are bounded, one answer's and those of all the answers the process
       is sending (:class:`_AnswerBytes`): over them an answer is replaced by a 422 or a 503."""

    def __init__(self, app, max_bytes, hosts=None, key=None, read_only=False, protect_reads=False,
                 origins=()):
        self.app, self.max_bytes, self.hosts, self.key = app, max_bytes, hosts, key
        self.read_only, self.protect_reads = read_only, protect_reads
        self.origins = frozenset(o.rstrip("/").lower() for o in origins)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] == "HEAD" and scope["path"] != "/click":
            scope = dict(scope, method="GET", **{HEAD: True})
            send = _without_body(send)
        if self.origins:
            # an allowed page reads the refusals made here too (learnsim.service._cors)
            send = readable_by(scope, self.origins, send)
        answer = _AnswerBytes(send, scope)
        try:
            await self._checked(scope, receive, answer.send)
        finally:
            if answer.held:         # the client went away, or the application or the server failed
                answer.release()

    async def _checked(self, scope, receive, send):
        """The checks 1-6 (see the class), then the application."""
        problem = self._refusal(scope)
        if problem is not None:
            await problem(scope, receive, send)
            return
        raw = _raw_path(scope)
        if raw.startswith(_DOCS_PREFIX):
            # the id is what lies between /v1/docs/ and a literal /similar, decoded once: an
            # encoded %2Fsimilar is part of it (the decoded path cannot tell them apart)
            rest = raw[len(_DOCS_PREFIX):]
            similar = rest.endswith(_SIMILAR)
            encoded = rest[:-len(_SIMILAR)] if similar else rest
            scope = dict(scope, path="/v1/docs/-/similar" if similar else "/v1/docs/-")
            scope["learnsim.doc_id"] = unquote_to_bytes(encoded).decode("utf-8")
        too_big = f"the request body is larger than {self.max_bytes} bytes"
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await _error(400, "Content-Length is not a number")(scope, receive, send)
                    return
                if declared > self.max_bytes:
                    await _error(413, too_big)(scope, receive, send)
                    return
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client went away: nobody to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _error(413, too_big)(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body, replayed = b"".join(chunks), False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()   # after the body: only the disconnect is left to wait for

        await self.app(scope, replay, send)

    def _refusal(self, scope):
        """The answer refusing the request on its head alone, or None."""
        headers = scope.get("headers", ())
        host = origin = content_type = encoding = None
        hosts = client_ids = 0
        codings = []
        keys, seen = {}, set()
        for name, value in headers:
            if name in _ONCE:
                if name in seen:
                    # this check read the last, the framework and CORS the first: a write
                    # carrying its own Origin after a foreign one was accepted, before it refused
                    return _error(400, f"the request gives its {_ONCE[name]} header more than once")
                seen.add(name)
            if name == b"host":
                host = value.decode("latin-1")
                hosts += 1
            elif name == b"origin":
                origin = value.decode("latin-1")
            elif name == b"content-type":
                content_type = value.decode("latin-1")
            elif name in (b"authorization", b"x-api-key"):
                keys.setdefault(name, []).append(value)
            elif name == b"content-encoding":
                encoding = value.decode("latin-1").strip().lower()
            elif name == b"x-client-id":
                client_ids += 1
            elif name == b"transfer-encoding":
                codings += [c.strip().lower() for c in value.decode("latin-1").split(",")]
        if hosts > 1:
            # which one a proxy or this check would read is anyone's guess (RFC 9112, 3.2: a 400)
            return _error(400, "the request names its Host more than once")
        if _keys_disagree(keys):
            # the last would be taken silently: a client sending two keys has one it did not mean
            return _error(400, "the request gives its key more than once (one Authorization header, one "
                               "X-API-Key header)")
        if client_ids > 1 and self.key is not None:
            # with the key, X-Client-Id names whom a search and its clicks count for (the click
            # log's clients): the first was taken silently, whichever user the front end meant
            return _error(400, "the request names its client more than once (one X-Client-Id header)")
        if encoding not in (None, "", "identity"):
            # a gzip body was read as text ("not UTF-8"), a plain one labelled gzip taken as is
            return _error(415, f"Content-Encoding {_short(encoding)[:40]!r} is not accepted: send the body "
                               "uncompressed")
        coding = next((c for c in codings if c != "chunked"), None)
        if coding is not None:
            # the server's parser undoes the chunks alone and hands the rest on as it came, as a
            # Content-Encoding above: a gzip body was refused as "not UTF-8", a plain one labelled
            # gzip written as it was
            return _error(415, f"Transfer-Encoding {_short(coding)[:40]!r} is not accepted: send the body "
                               "uncompressed (with Content-Length, or Transfer-Encoding: chunked alone)")
        if self.hosts is not None and host is None:
            # HTTP/1.1 needs one (RFC 9112, 3.2: a 400); the 421 below named the host 'None'
            return _error(400, "the request names no Host (send a Host header naming this service)")
        if self.hosts is not None and _host_name(host) not in self.hosts:
            # a name this service does not go by: a DNS-rebinding page, or a wrong address
            return _error(421, f"this service does not answer for the host {_short(host)[:100]!r} "
                               "(learnsim serve --allowed-host NAME adds one)")
        problem = _bad_utf8(scope)
        if problem:
            # the framework would decode it with U+FFFD in place of the bad bytes: a search for
            # something the client never sent, or an id no document has; the search page answers
            # its own HTML page (a browser showed the JSON as text), the API its JSON
            return page_refusal(scope, 400, problem) or _error(400, problem)
        method, path = scope["method"], scope["path"]
        write = _is_write(method, path, _raw_path(scope))
        if self.key is not None and method != "OPTIONS" and (
                write or (self.protect_reads and path not in _OPEN_PATHS)) and not _authorized(
                    list(headers), self.key):
            what = "this write" if write else "this service"
            return _error(401, f"{what} needs the API key (Authorization: Bearer KEY or X-API-Key: KEY)",
                          {"WWW-Authenticate": "Bearer"})
        if write and self.read_only:
            return _error(403, "the service is read-only")
        if origin is not None and method in ("POST", "DELETE", "PUT", "PATCH"):
            own = f"{scope.get('scheme', 'http')}://{host}".lower() if host else None
            if origin.rstrip("/").lower() not in self.origins and origin.lower() != own:
                return _error(403, f"a request from the origin {_short(origin)[:100]!r} is refused (cross-site); "
                                   "learnsim serve --cors-origin ORIGIN allows one")
        charset = _charset(content_type)
        if charset is not None and charset not in ("utf-8", "utf8") and method in ("POST", "PUT", "PATCH", "DELETE"):
            # the body is read as UTF-8 JSON whatever the header says: ISO-8859-1's "Ã©" (its
            # bytes C3 A9) was searched as "é", another text than the one sent
            return _error(415, f"the body must be UTF-8 JSON; the Content-Type names the charset {_short(charset)[:40]!r} "
                               "(send UTF-8, with charset=utf-8 or none)")
        if write and method in ("POST", "PUT"):
            media = (content_type or "").split(";", 1)[0].strip().lower()
            if media != "application/json":
                return _error(415, "a write needs Content-Type: application/json"
                                   + (f"; got {_short(content_type)[:100]!r}" if content_type else ""))
        return None
