""":class:`Client` and :class:`AsyncClient`: the routes of :mod:`~learnsim.client._routes` sent
with httpx (imported when a client is made), retried as :class:`_Session` decides, each call
within its deadline (:mod:`~learnsim.client._deadline` for :class:`Client`, a cancel scope
around the call for :class:`AsyncClient`)."""
from __future__ import annotations

import copy
import email.utils
import inspect
import logging
import math
import re
import time
from datetime import datetime, timezone
from urllib.parse import unquote, urlsplit

from .. import __version__
from ._errors import ClientError, ConnectionFailed, DeadlineExceeded, error_of, read_json, text_of
from ._inflate import ACCEPTED, Undecodable, inflater
from ._routes import Routes, ShapeError, check_encodable, check_finite

__all__ = ["Client", "AsyncClient"]

log = logging.getLogger("learnsim.client")

# the first wait after a broken connection, or after a 429/503 without Retry-After; doubled
# each try, at most max_wait
BACKOFF_S = 0.5
# the default deadline of a call, all its tries and the waits between them: room for a request
# that waits the service's 30 s for the index (its timeout_s) and runs its 10 s (its
# deadline_s), and for a retry after it; above the client's max_wait (60 s), so that a long
# Retry-After can still be honoured once
DEADLINE_S = 120.0
# the default bound of an answer's body (decoded): the service's answers are bounded by its
# search budget at about 1-2 MB, so this leaves room, while a huge answer (a wrong server, a
# compression bomb) is refused before it fills the memory, and its parse stays short
MAX_ANSWER_BYTES = 64 * 1024 * 1024
# statuses that mean the service did not run the request: retried, writes included
_RETRIED = (429, 503)
_NOT_JSON, _EMPTY = object(), object()
# with_options: an option not given stays as it is
_KEEP = object()


def _httpx():
    try:
        import httpx
    except ImportError as exc:
        raise ImportError('learnsim.client needs httpx: pip install "learnsim[client]"', name="httpx") from exc
    return httpx


def retry_after_seconds(value, now=None):
    """The seconds a ``Retry-After`` header asks to wait (a number of seconds, or an HTTP date;
    0 for a date past), or None when it is neither."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError, OverflowError):
            # (OverflowError: a day, an hour or a zone of more digits than a C long takes)
            return None
        if when is None:
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        seconds = (when - (now or datetime.now(timezone.utc))).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _redacted(url):
    """``url`` with the password of its userinfo shown as "[secure]" (as httpx shows a URL), and
    that password (None when it has none): an address is shown in the client's repr and errors."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, host = parts.netloc.rsplit("@", 1)
    if ":" not in userinfo:
        return url, None
    user, password = userinfo.split(":", 1)
    if not password:
        return url, None
    return url.replace(parts.netloc, f"{user}:[secure]@{host}", 1), password


def _checked_base_url(base_url, httpx):
    """``base_url`` (a str or an ``httpx.URL``) without its trailing "/", and the same with its
    password redacted (what is shown); or a TypeError or ValueError naming it: Client(None) was
    made with the address 'None', b"http://..." with "b'http://...'", and every call of either
    failed later with a ConnectionFailed of an UnsupportedProtocol."""
    if not isinstance(base_url, (str, httpx.URL)):
        raise TypeError(f"base_url must be a str such as 'http://127.0.0.1:8000'; got {type(base_url).__name__}")
    url = str(base_url).strip()
    shown = _redacted(url)[0]
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise ValueError(f"base_url must begin with http:// or https:// (learnsim serve's address, such as "
                         f"'http://127.0.0.1:8000'); got {shown[:100]!r}")
    if not parts.hostname:
        raise ValueError(f"base_url names no host; got {shown[:100]!r}")
    if parts.query or url.split("#", 1)[0].endswith("?"):
        # each route's path was appended after it, inside the query: every call went to the
        # search page "/" (an address copied from the browser's bar, http://host:8000/?q=...)
        raise ValueError(f"base_url holds a query string ({'?' + parts.query!r}): give the service's address "
                         f"alone, such as 'http://127.0.0.1:8000'; got {shown[:100]!r}")
    return url.rstrip("/"), shown.rstrip("/")


def _checked_timeout(timeout, httpx):
    """``timeout`` as an ``httpx.Timeout`` (from seconds, a tuple or None, as httpx reads them),
    or a TypeError or ValueError naming it: 0, a negative number, NaN or infinity was taken and
    failed each call deep in the send (or bounded nothing), a str failed with "'<' not supported
    between instances of 'float' and 'str'"."""
    if isinstance(timeout, (bool, str, bytes)) or not (
            timeout is None or isinstance(timeout, (int, float, tuple, httpx.Timeout))):
        raise TypeError(f"timeout must be seconds (a number > 0), an httpx.Timeout, a tuple (connect, read, write, "
                        f"pool) or None (no limit); got {type(timeout).__name__}")
    try:
        checked = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
    except (TypeError, ValueError, IndexError) as exc:   # (IndexError: a tuple of one)
        raise ValueError(f"timeout {timeout!r} is not one httpx takes: {exc}") from None
    for name in ("connect", "read", "write", "pool"):
        value = getattr(checked, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not 0 < value < math.inf):
            raise ValueError(f"timeout's {name} must be a number of seconds > 0 (or None: no limit); "
                             f"got {value!r}")
    return checked


def _announced_length(response):
    """The ``Content-Length`` of ``response`` as an int; None when it has none (or not a number:
    the transport, not this, decides what to make of that)."""
    try:
        return int(response.headers.get("Content-Length", ""))
    except ValueError:
        return None


class _Body:
    """An answer's body read piece by piece: refused once it is over the client's
    ``max_answer_bytes`` (announced, or as it comes) or the call is past its deadline, without
    reading the rest. httpx's own ``read()`` would take any size, and a fast sender is never
    stopped by the socket timeouts: each read returns at once."""

    def __init__(self, session, response, deadline, tries):
        self._session, self._response, self._deadline, self._tries = session, response, deadline, tries
        self._chunks, self._size = [], 0
        announced = _announced_length(response)
        if announced is not None and announced > session.max_answer_bytes:
            raise session._too_large(response, f"it announces {announced} bytes")
        # an answer a transport gave whole (httpx.MockTransport's) was read, and decoded, already
        self.read_already = hasattr(response, "_content")
        try:
            # read raw and inflated here a step at a time: httpx inflates each piece whole
            self._inflater = None if self.read_already else inflater(response.headers.get("Content-Encoding"))
        except ValueError as exc:
            raise session._bad_answer(response, str(exc)) from None

    def raw(self, pieces):
        """The pieces of the body to :meth:`feed`: ``pieces`` (the response's raw ones), or its
        content when it was read already."""
        return [self._response.content] if self.read_already else pieces

    def feed(self, raw):
        """Take the next raw piece of the body (None: its end), inflated when it is compressed."""
        if self._inflater is None:
            if raw:
                self.add(raw)
            return
        try:
            for piece in (self._inflater.end() if raw is None else self._inflater.pieces(raw)):
                self.add(piece)
        except Undecodable as exc:
            raise self._session._httpx.DecodingError(str(exc), request=self._response.request) from None

    def add(self, chunk):
        self._size += len(chunk)
        if self._size > self._session.max_answer_bytes:
            raise self._session._too_large(self._response, f"{self._size} bytes read so far")
        if self._session._deadlines.past(self._deadline):
            raise self._session._late(self._response.request, self._tries)
        self._chunks.append(chunk)

    def done(self):
        # what Response.read() sets: the answer, and the error's response, read as usual
        self._response._content = b"".join(self._chunks)
        return self._response


class _Session(Routes):
    """What both clients share: the options, the httpx request of a :class:`Call`, and what to do
    with an answer or a failure (a result, a wait before the next try, or an error)."""

    def __init__(self, base_url, api_key, timeout, max_retries, transport, max_wait, sleep, client_class, deadline,
                 max_answer_bytes):
        httpx = _httpx()   # first: without it, the error says what to install
        from . import _deadline   # imports httpx: with a client, not with the package

        self._set_options(max_retries, max_wait, deadline, max_answer_bytes)
        self.client_id = None   # with_options(client_id=...) names a user
        if api_key is not None and (not isinstance(api_key, str) or not api_key):
            raise ValueError("api_key must be a non-empty str (or None)")
        if api_key is not None and not re.fullmatch(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?", api_key):
            # a header carries visible ASCII as it is: a space at an end is dropped (the key
            # refused as another), a line break or a character outside ASCII failed the first
            # request deep in httpx (UnicodeEncodeError, or "no answer" for a write)
            raise ValueError("api_key must be letters, digits and punctuation (spaces inside only): "
                             "a header cannot carry a space at either end, a control character or non-ASCII")
        self._httpx, self._deadlines = httpx, _deadline
        self._errors = httpx.TransportError
        # an answer that came but cannot be decoded (a Content-Encoding its body is not)
        self._undecodable = httpx.DecodingError
        # no request was sent: safe to retry whatever it was
        self._unsent = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
        # a password in the address (for a proxy in front of the service: httpx sends the
        # userinfo as Basic auth) is never shown: base_url, the repr and the errors hold
        # "[secure]" in its place, as httpx's URL does
        url, self.base_url = _checked_base_url(base_url, httpx)
        self._password = _redacted(url)[1]
        self._sleep = sleep
        # only what _Body inflates in bounded steps (httpx would ask for zstd too)
        headers = {"User-Agent": f"learnsim-client/{__version__}", "Accept": "application/json",
                   "Accept-Encoding": ACCEPTED}
        if api_key is not None:
            headers["X-API-Key"] = api_key
        self._http = getattr(httpx, client_class)(base_url=url + "/", headers=headers,
                                                  timeout=_checked_timeout(timeout, httpx), transport=transport)
        # a copy made by with_options shares the connections and leaves closing them to this one
        self._owns_http = True

    def _set_options(self, max_retries=_KEEP, max_wait=_KEEP, deadline=_KEEP, max_answer_bytes=_KEEP):
        """Check and set the options :meth:`with_options` may change."""
        if max_retries is not _KEEP:
            if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
                raise ValueError(f"max_retries must be a whole number >= 0; got {max_retries!r}")
            self.max_retries = max_retries
        if max_wait is not _KEEP:
            if isinstance(max_wait, bool) or not isinstance(max_wait, (int, float)) or not max_wait >= 0:
                raise ValueError(f"max_wait must be a number of seconds >= 0; got {max_wait!r}")
            self.max_wait = float(max_wait)
        if deadline is not _KEEP:
            if deadline is not None and (isinstance(deadline, bool) or not isinstance(deadline, (int, float))
                                         or not 0 < deadline < math.inf):
                raise ValueError(f"deadline must be a number of seconds > 0 (or None); got {deadline!r}")
            self.deadline = None if deadline is None else float(deadline)
        if max_answer_bytes is not _KEEP:
            if isinstance(max_answer_bytes, bool) or not isinstance(max_answer_bytes, int) or max_answer_bytes < 1:
                raise ValueError(f"max_answer_bytes must be a whole number of bytes >= 1; got {max_answer_bytes!r}")
            self.max_answer_bytes = max_answer_bytes

    def with_options(self, *, deadline=_KEEP, max_retries=_KEEP, max_wait=_KEEP, max_answer_bytes=_KEEP,
                     client_id=_KEEP):
        """This client with other options, for the calls made through it: a copy that shares
        this client's connections (closing it leaves them open; close this client).

        Parameters
        ----------
        deadline : float or None, optional
            Seconds each call may take, all its tries and waits together (None: no bound).
        max_retries : int, optional
            Tries after the first.
        max_wait : float, optional
            The longest wait before a try.
        max_answer_bytes : int, optional
            The largest answer (its body, decoded) a call reads.
        client_id : str or None, optional
            The user the calls are made for, sent as ``X-Client-Id`` (None: none): with the key,
            a search and its clicks count for that user in the click log (its per-client caps,
            a promotion's one vote a client), not for the key's holder. Needs ``api_key``: a
            service ignores the header on a request without its key. Printable characters, any
            script's (sent as their UTF-8), no space at either end (a header's value loses it).

        Returns
        -------
        Client or AsyncClient
            The copy; an option not given is this client's.

        Examples
        --------
        >>> from learnsim.client import Client
        >>> client = Client("http://127.0.0.1:8000")                # doctest: +SKIP
        >>> client.with_options(deadline=600).reindex()             # doctest: +SKIP
        >>> quick = client.with_options(deadline=2.0, max_retries=0)   # doctest: +SKIP
        >>> quick.health()                                          # doctest: +SKIP
        {'status': 'ok'}
        >>> alice = client.with_options(client_id="alice")          # doctest: +SKIP
        """
        if client_id is not _KEEP and client_id is not None:
            if not isinstance(client_id, str) or not client_id or not client_id.isprintable():
                # a line break would end the header (httpx refuses it, deep in the send)
                raise ValueError(f"client_id must be a non-empty str of printable characters (or None); "
                                 f"got {client_id!r}")
            if client_id != client_id.strip(" "):
                # HTTP drops the spaces around a header's value: " alice" was "alice" to the service
                raise ValueError(f"client_id must not begin or end with a space (a header's value loses it, "
                                 f"and the user would be another's); got {client_id!r}")
            if self._http.headers.get("X-API-Key") is None:
                raise ValueError("client_id needs the api_key: a service ignores X-Client-Id on a request "
                                 "without its key (all the users would be one client)")
        other = copy.copy(self)
        other._owns_http = False
        other._set_options(max_retries, max_wait, deadline, max_answer_bytes)
        if client_id is not _KEEP:
            other.client_id = client_id
        return other

    def __repr__(self):
        return f"{type(self).__name__}({self.base_url!r})"

    def _shown(self, text):
        """``text`` (an httpx error's, which may quote the address) without the address's password."""
        if self._password:
            for secret in {self._password, unquote(self._password)}:
                text = text.replace(secret, "[secure]")
        return text

    def _deadline_from_now(self):
        """The ``time.monotonic()`` a call starting now must end by; None without a deadline."""
        return None if self.deadline is None else time.monotonic() + self.deadline

    def _request(self, call, deadline):
        try:
            return self._build(call, deadline)
        except ValueError:
            # names the NaN's (or the lone surrogate's) place, where httpx named none
            if call.json is not None:
                check_finite(call.json, "the request")
                check_encodable(call.json, "the request")
            if call.params:
                check_encodable(dict(call.params), "the query string's")
            raise

    def _build(self, call, deadline):
        # its UTF-8 bytes: httpx encodes a str header as ASCII, and a user "José" failed every call
        headers = None if self.client_id is None else {"X-Client-Id": self.client_id.encode("utf-8")}
        if deadline is None:
            return self._http.build_request(call.method, call.path, params=call.params, json=call.json,
                                            headers=headers)
        # every timeout of the try cut to the time left: a connection that never answers, or a
        # pool that never frees one, fails at the deadline
        left = max(self._deadlines.left(deadline), 0.0)
        base = self._http.timeout
        cut = [left if t is None else min(t, left) for t in (base.connect, base.read, base.write, base.pool)]
        timeout = self._httpx.Timeout(connect=cut[0], read=cut[1], write=cut[2], pool=cut[3])
        return self._http.build_request(call.method, call.path, params=call.params, json=call.json, timeout=timeout,
                                        headers=headers)

    def _backoff(self, attempt):
        return min(self.max_wait, BACKOFF_S * 2.0 ** min(attempt, 30))

    def _in_time(self, wait, deadline):
        """Whether a try after ``wait`` seconds would start before ``deadline``."""
        return deadline is None or time.monotonic() + wait + self._deadlines.CLOCK_SLACK_S < deadline

    def _late(self, request, tries):
        """The :class:`DeadlineExceeded` of a call that made ``tries`` tries, the last ``request``."""
        return DeadlineExceeded(f"no whole answer from {self.base_url} within the deadline of {self.deadline:g} s "
                                f"({tries} {'try' if tries == 1 else 'tries'})", request=request,
                                deadline=self.deadline, tries=tries)

    def _too_large(self, response, what):
        """The :class:`ClientError` of an answer over ``max_answer_bytes`` (``what``: how it was seen)."""
        return ClientError(f"the answer is larger than the client's bound of {self.max_answer_bytes} bytes "
                           f"(max_answer_bytes): {what}; not read further", status=response.status_code,
                           request=response.request, response=response)

    def _unreadable(self, request, exc, response=None):
        """The :class:`ClientError` of an httpx error that is not a broken connection: an answer
        that came but cannot be decoded, or another failure of httpx's (not retried: a second
        try would be answered the same)."""
        return ClientError(f"the answer from {self.base_url} could not be read: "
                           f"{type(exc).__name__}: {self._shown(str(exc))}",
                           status=None if response is None else response.status_code, request=request,
                           response=response)

    def _bad_answer(self, response, why):
        """The :class:`ClientError` of an answer that is not one the service gives (``why``)."""
        return ClientError(f"the answer is not the service's: {why}", status=response.status_code,
                           request=response.request, response=response)

    def _after_failure(self, call, request, exc, attempt, deadline):
        """The wait before the next try after the transport error ``exc``; raises
        :class:`ConnectionFailed` when there is none (:class:`DeadlineExceeded` when the
        deadline has passed)."""
        if self._deadlines.past(deadline):
            raise self._late(request, attempt + 1) from exc
        may = call.idempotent or isinstance(exc, self._unsent)
        wait = self._backoff(attempt)
        if not may or attempt >= self.max_retries or not self._in_time(wait, deadline):
            what = " (not retried: it may have been applied)" if not may else \
                "" if attempt >= self.max_retries else \
                f" (not tried again: the try would start past the deadline of {self.deadline:g} s)"
            raise ConnectionFailed(f"no answer from {self.base_url}: {type(exc).__name__}: "
                                   f"{self._shown(str(exc))}{what}",
                                   request=request) from exc
        log.info("%s %s: %s; try %d of %d in %.2f s", call.method, call.path, type(exc).__name__, attempt + 2,
                 self.max_retries + 1, wait)
        return wait

    def _outcome(self, call, response, attempt, deadline):
        """``(answer, None)`` for a success, ``(None, wait)`` to try again; raises the
        :class:`ClientError` of a refusal."""
        status = response.status_code
        if 200 <= status < 300 or status in call.answers:
            why = None
            try:
                answer = read_json(response.content) if response.content.strip() else _EMPTY
            except ValueError as exc:     # not JSON, nested too deep, a key twice, not UTF-8
                answer, why = _NOT_JSON, exc
            # a JSON error ({"error", "code"}: the connection bound's 503, a proxy's) under a
            # status the route answers with (/healthz's 503) is a refusal, raised and retried
            # as any: returned, health() gave {"error", "code"} where a "status" is promised
            if 200 <= status < 300 or (isinstance(answer, dict) and not {"error", "code"} <= answer.keys()):
                if answer is _NOT_JSON:
                    raise self._bad_answer(response, f"it is not JSON ({why}): {text_of(response, 200)!r}")
                if answer is _EMPTY:
                    raise self._bad_answer(response, "it is empty (every route answers a JSON object)")
                if not isinstance(answer, dict):
                    raise self._bad_answer(response, f"it is a JSON {type(answer).__name__}, not an object "
                                                     f"(every route answers one): {text_of(response, 200)!r}")
                if call.shape is None:
                    return answer, None
                try:
                    return call.shape(answer), None
                except ShapeError as exc:
                    raise self._bad_answer(response, str(exc)) from None
        retry_after = retry_after_seconds(response.headers.get("Retry-After"))
        error = error_of(response, retry_after)
        if status not in _RETRIED or error.code == "index_damaged" or attempt >= self.max_retries:
            raise error
        wait = self._backoff(attempt) if retry_after is None else min(retry_after, self.max_wait)
        if not self._in_time(wait, deadline):
            # a try that would start past the deadline is not made: the refusal is the answer
            log.info("%s %s: %d; not tried again: the wait of %.2f s ends past the deadline of %g s", call.method,
                     call.path, status, wait, self.deadline)
            raise error
        log.info("%s %s: %d; try %d of %d in %.2f s", call.method, call.path, status, attempt + 2,
                 self.max_retries + 1, wait)
        return None, wait


class Client(_Session):
    """A client of ``learnsim serve`` (its JSON API), on httpx; every route is a method that
    returns the service's JSON answer as plain dicts and lists.

    Parameters
    ----------
    base_url : str, default="http://127.0.0.1:8000"
        Where the service listens (a path prefix, for one behind a proxy, is kept).
    api_key : str, optional
        The service's API key (``learnsim serve --api-key-env``), sent as ``X-API-Key`` with
        every request: writes need it, reads too with ``--protect-reads``.
    timeout : float, httpx.Timeout or None, default=30.0
        Seconds to wait for a connection and for each read of an answer (None: no limit). It
        bounds each read, not a call: ``deadline`` does.
    max_retries : int, default=3
        Tries after the first. A 429 or 503 (the service did not run the request) is tried
        again after its ``Retry-After``; a broken connection or a timeout only for a request
        that may be sent twice: reads, ``delete``, ``upsert``, never ``add`` or ``reindex``
        (unless the connection was never made). A 503 for a damaged index file is not retried.
    transport : httpx.BaseTransport, optional
        What sends the requests (``httpx.MockTransport`` in tests); default: HTTP.
    max_wait : float, default=60.0
        The longest wait before a try: a longer ``Retry-After`` is cut to it.
    sleep : callable, optional
        ``sleep(seconds)`` between tries (default: ``time.sleep``).
    deadline : float or None, default=120.0
        Seconds a call may take, all its tries and the waits between them together, however the
        server answers (its head or its body a byte at a time, nothing at all, never closing):
        past it the call is stopped, its connection closed, and :class:`DeadlineExceeded`
        raised (moments after: some milliseconds). A try that would start past it is not made (the last
        refusal or :class:`ConnectionFailed` is raised at once). None: no bound but
        ``timeout``'s. :meth:`with_options` gives a client with another one.
    max_answer_bytes : int, default=64 MiB (67,108,864)
        The largest answer (its body, decoded) a call reads: a larger one, announced by its
        ``Content-Length`` or found so as it comes, raises :class:`ClientError` naming this
        bound, without reading the rest (and is not retried). The service's answers are bounded
        at about 1-2 MB by its search budget.

    Raises
    ------
    ImportError
        When httpx is not installed (``pip install "learnsim[client]"``).

    See Also
    --------
    AsyncClient : the same methods, awaited.
    learnsim.client.ClientError : what a failed request raises.

    Notes
    -----
    The methods (:meth:`search`, :meth:`document`, :meth:`more_like`, :meth:`match`,
    :meth:`match_pairs`, :meth:`explain`, :meth:`add`, :meth:`upsert`, :meth:`delete`,
    :meth:`reindex`, :meth:`info`, :meth:`health`, :meth:`openapi`) are those of
    ``learnsim.client._routes.Routes``. A client may be shared between threads (httpx's is);
    close it (or use it in a ``with`` block) to close its connections.

    The deadline bounds every connect, read and write of a socket by the time left to the
    call (httpx's HTTP transport, the default, or one passed that is an ``httpx.HTTPTransport``);
    another transport is stopped between two pieces of an answer. The name lookup of the
    server's host (DNS) is the system's and is not bounded.

    Examples
    --------
    >>> from learnsim.client import Client, NotFound
    >>> with Client("http://127.0.0.1:8000", api_key="s3cret") as client:   # doctest: +SKIP
    ...     added = client.add(["Where is my refund?"], ids=["t122"])
    ...     top = client.search("where is my refund", k=1)["hits"][0]["id"]
    ...     try:
    ...         client.document("t999")
    ...     except NotFound as err:
    ...         print(top, err.status, err.message)
    t122 404 id 't999' is not in the index
    """

    def __init__(self, base_url="http://127.0.0.1:8000", api_key=None, timeout=30.0, max_retries=3, transport=None,
                 *, max_wait=60.0, sleep=None, deadline=DEADLINE_S, max_answer_bytes=MAX_ANSWER_BYTES):
        super().__init__(base_url, api_key, timeout, max_retries, transport, max_wait, sleep or time.sleep,
                         "Client", deadline, max_answer_bytes)
        # httpx's timeouts bound each read: each socket operation is bounded by the time left
        self._deadlines.bound_sockets(self._http)

    def _send(self, call):
        deadline = self._deadline_from_now()
        attempt, request = 0, None
        while True:
            if self._deadlines.past(deadline):   # a sleep that overran
                raise self._late(request, attempt)
            request = self._request(call, deadline)
            try:
                response = self._try(request, deadline, attempt + 1)
            except self._errors as exc:
                wait = self._after_failure(call, request, exc, attempt, deadline)
            except self._httpx.HTTPError as exc:
                raise self._unreadable(request, exc) from exc
            else:
                answer, wait = self._outcome(call, response, attempt, deadline)
                if wait is None:
                    return answer
            self._sleep(wait)
            attempt += 1

    def _try(self, request, deadline, tries):
        """Send ``request`` and read its answer whole, every socket operation within ``deadline``,
        the body within ``max_answer_bytes``; ``tries``: this one's number, for the error."""
        bound = self._deadlines.current()
        token = bound.set(deadline)
        try:
            # streamed, so that the body is read under the deadline too, and the connection
            # closed (not kept for another call) when it is stopped half way
            response = self._http.send(request, stream=True)
            try:
                body = _Body(self, response, deadline, tries)
                try:
                    for chunk in body.raw(self._deadlines.clocked(response, deadline).iter_raw()):
                        body.feed(chunk)
                    body.feed(None)
                except self._undecodable as exc:
                    raise self._unreadable(request, exc, response) from exc
                body.done()
            finally:
                response.close()
        finally:
            bound.reset(token)
        return response

    def close(self):
        """Close the client's connections (not those of a client made by :meth:`with_options`,
        which are this one's)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


class AsyncClient(_Session):
    """The asynchronous client of ``learnsim serve``: :class:`Client`'s parameters and methods,
    each method a coroutine (``await client.search("...")``), on ``httpx.AsyncClient``.

    Parameters
    ----------
    base_url, api_key, timeout, max_retries, max_wait, deadline, max_answer_bytes
        As :class:`Client`'s: past the deadline the call (its tries and waits) is cancelled,
        its connection closed, and :class:`DeadlineExceeded` raised.
    transport : httpx.AsyncBaseTransport, optional
        ``httpx.ASGITransport(app=learnsim.service.create_app(...))`` serves an index in the
        same process (its lifespan is the caller's to run); default: HTTP.
    sleep : callable, optional
        ``sleep(seconds)`` between tries, a coroutine function or a plain one (default:
        ``asyncio.sleep``).

    Examples
    --------
    >>> import asyncio
    >>> from learnsim.client import AsyncClient
    >>> async def main():
    ...     async with AsyncClient("http://127.0.0.1:8000") as client:
    ...         answers = await asyncio.gather(client.search("where is my refund"), client.info())
    ...     return answers[0]["hits"][0]["id"], answers[1]["documents"]
    >>> asyncio.run(main())                                   # doctest: +SKIP
    ('t122', 121)
    """

    def __init__(self, base_url="http://127.0.0.1:8000", api_key=None, timeout=30.0, max_retries=3, transport=None,
                 *, max_wait=60.0, sleep=None, deadline=DEADLINE_S, max_answer_bytes=MAX_ANSWER_BYTES):
        import asyncio

        import anyio   # httpx's own dependency: its cancel scopes work under asyncio and trio

        super().__init__(base_url, api_key, timeout, max_retries, transport, max_wait, sleep or asyncio.sleep,
                         "AsyncClient", deadline, max_answer_bytes)
        self._anyio = anyio

    async def _send(self, call):
        deadline = self._deadline_from_now()
        sent = [None, 0]   # the last request, the tries begun: for the error
        if deadline is None:
            return await self._tries(call, deadline, sent)
        # the whole call (its tries, the reads of each answer, the waits between) is cancelled
        # at the deadline; httpx closes a connection whose answer was stopped half way
        with self._anyio.move_on_after(self.deadline):
            return await self._tries(call, deadline, sent)
        raise self._late(*sent)

    async def _tries(self, call, deadline, sent):
        attempt = 0
        while True:
            if self._deadlines.past(deadline):   # a sleep that overran
                raise self._late(*sent)
            request = self._request(call, deadline)
            sent[:] = request, attempt + 1
            try:
                response = await self._try(request, deadline, attempt + 1)
            except self._errors as exc:
                wait = self._after_failure(call, request, exc, attempt, deadline)
            except self._httpx.HTTPError as exc:
                raise self._unreadable(request, exc) from exc
            else:
                answer, wait = self._outcome(call, response, attempt, deadline)
                if wait is None:
                    return answer
            slept = self._sleep(wait)
            if inspect.isawaitable(slept):
                await slept
            attempt += 1

    async def _try(self, request, deadline, tries):
        """Send ``request`` and read its answer whole, within ``max_answer_bytes``."""
        response = await self._http.send(request, stream=True)
        try:
            body = _Body(self, response, deadline, tries)
            try:
                # the deadline checked between pieces, not left to the cancel scope alone: that
                # stops the call only where it awaits, and decoding a piece never does
                if body.read_already:
                    body.feed(response.content)
                else:
                    async for chunk in response.aiter_raw():
                        body.feed(chunk)
                body.feed(None)
            except self._undecodable as exc:
                raise self._unreadable(request, exc, response) from exc
            body.done()
        finally:
            await response.aclose()
        return response

    async def close(self):
        """Close the client's connections (not those of a client made by :meth:`with_options`,
        which are this one's)."""
        if self._owns_http:
            await self._http.aclose()

    aclose = close

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc_info):
        await self.close()
