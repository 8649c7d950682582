"""The errors of :mod:`learnsim.client`: one class per kind of answer ``learnsim serve`` refuses a
request with (its JSON ``{"error": message, "code": status}``), and :class:`ConnectionFailed`
when no answer came (:class:`DeadlineExceeded`: no whole one within the client's deadline).
Plain Python: nothing here imports httpx."""
from __future__ import annotations

from .._utils.inputs import MAX_JSON_DEPTH, loads

__all__ = ["ClientError", "BadRequest", "Unauthorized", "NotFound", "Conflict", "PayloadTooLarge",
           "RateLimited", "ServerError", "Unavailable", "ConnectionFailed", "DeadlineExceeded", "error_of",
           "read_json", "text_of", "MAX_ANSWER_DEPTH"]

# an error's message quotes at most this much of an answer that is not the service's JSON
_MAX_TEXT = 500
#: The deepest nesting read in an answer: a document's metadata may itself nest MAX_JSON_DEPTH
#: levels (the service's bound), inside the few levels of an answer (results, hits, a hit).
MAX_ANSWER_DEPTH = 2 * MAX_JSON_DEPTH


def read_json(content):
    """The JSON value of an answer's body (bytes), read without recursion past
    :data:`MAX_ANSWER_DEPTH` levels; any ``ValueError`` (not JSON, too deep, a key twice, not
    UTF-8) for a body the client cannot take."""
    return loads(content, limit=MAX_ANSWER_DEPTH)


def text_of(response, limit=_MAX_TEXT):
    """The start of an answer's body as one line of text, at most ``limit`` characters (then
    "..."): only its first bytes are decoded, whatever its size."""
    raw = response.content[:8 * limit]
    try:
        decoded = raw.decode(response.encoding or "utf-8", "replace")
    except (LookupError, UnicodeError):
        # a charset that names a codec of Python's that is no text encoding (rot13, base64:
        # LookupError; idna takes no "replace": UnicodeError): read as an unknown one's is
        decoded = raw.decode("utf-8", "replace")
    text = " ".join(decoded.split())
    return (text[:limit] + "...") if len(text) > limit or len(response.content) > len(raw) else text


class ClientError(Exception):
    """A request to ``learnsim serve`` that failed: the base of every error :mod:`learnsim.client`
    raises (besides ``TypeError`` and ``ValueError`` for arguments it refuses before sending).

    Attributes
    ----------
    message : str
        The server's message (the ``"error"`` of its JSON answer), or what went wrong.
    status : int or None
        The HTTP status of the answer; None when no answer came (:class:`ConnectionFailed`).
    code : int, str or None
        The ``"code"`` of the server's JSON answer: the status, or ``"index_damaged"`` (503) for a
        damaged index file; None when the answer was not the service's JSON.
    request : httpx.Request or None
        The request that failed (its last try).
    response : httpx.Response or None
        The answer, when one came.
    retry_after : float or None
        Seconds the server asked the client to wait before trying again (``Retry-After``).

    Examples
    --------
    >>> from learnsim.client import ClientError, NotFound
    >>> err = NotFound("id 't999' is not in the index", status=404, code=404)
    >>> isinstance(err, ClientError), isinstance(err, KeyError), err.status
    (True, True, 404)
    >>> print(err)                        # with a request: "GET /v1/docs/t999 -> 404: ..."
    404: id 't999' is not in the index
    """

    def __init__(self, message, *, status=None, code=None, request=None, response=None, retry_after=None):
        super().__init__(message)
        self.message, self.status, self.code = message, status, code
        self.request, self.response, self.retry_after = request, response, retry_after

    def __str__(self):
        # a KeyError (NotFound) would print the repr of its message, quotes and all
        where = ""
        if self.request is not None:
            # the path as sent (an id's "/" encoded), without the query string
            path = self.request.url.raw_path.split(b"?", 1)[0].decode("ascii", "replace")
            where = f"{self.request.method} {path}"
            where = f"{where} -> {self.status}: " if self.status is not None else f"{where}: "
        elif self.status is not None:
            where = f"{self.status}: "
        return where + str(self.message)


class BadRequest(ClientError, ValueError):
    """400 or 422: a request the service cannot take (malformed, of the wrong shape, a bad filter,
    over a bound of one request such as ``queries x k``). Also a ``ValueError``, as the index's
    own checks raise for bad input."""


class Unauthorized(ClientError):
    """401 or 403: no API key or a wrong one (401); a write to a read-only service or a request
    from a foreign ``Origin`` (403)."""


class NotFound(ClientError, KeyError):
    """404: no document with that id (or no such route). Also a ``KeyError``, as
    :meth:`learnsim.index.Index.document` raises for an unknown id."""


class Conflict(ClientError):
    """409: an id already in the index, or given twice in one request (nothing was added)."""


class PayloadTooLarge(ClientError):
    """413: a body, query, text or document over the service's size bound."""


class RateLimited(ClientError):
    """429: too many requests waiting for the index (the request was not run); raised once the
    client's retries are spent."""


class ServerError(ClientError):
    """A 5xx answer: 500 is a bug of the service (logged on the server)."""


class Unavailable(ServerError):
    """503: the index was not free in time or the request ran past its deadline (it was not run,
    or stopped between two pieces of a read), raised once the client's retries are spent; or a
    damaged index file (``code == "index_damaged"``, never retried)."""


class ConnectionFailed(ClientError):
    """No answer: the client could not connect, the connection broke, or the answer did not come
    within the timeout (the httpx error is the ``__cause__``). A write that fails so may or may
    not have been applied, unless it failed to connect."""


class DeadlineExceeded(ConnectionFailed, TimeoutError):
    """No whole answer within the client's deadline (``deadline=``, 120 s by default): every try
    and every wait between tries together took that long, however the server answered (slowly,
    a byte at a time, not at all). The call was stopped and its connection closed; it is not
    tried again. Also a ``TimeoutError`` (as ``asyncio.timeout`` raises), and a
    :class:`ConnectionFailed`: a write stopped so may or may not have been applied.

    Attributes
    ----------
    deadline : float
        The deadline, in seconds, that the call ran past.
    tries : int
        The tries the call made (the last one stopped).

    Examples
    --------
    >>> from learnsim.client import ConnectionFailed, DeadlineExceeded
    >>> err = DeadlineExceeded("no whole answer within the deadline of 2 s", deadline=2.0, tries=1)
    >>> isinstance(err, ConnectionFailed), isinstance(err, TimeoutError), err.status, err.deadline
    (True, True, None, 2.0)
    """

    def __init__(self, message, *, deadline=None, tries=None, **kwargs):
        super().__init__(message, **kwargs)
        self.deadline, self.tries = deadline, tries


_BY_STATUS = {400: BadRequest, 422: BadRequest, 401: Unauthorized, 403: Unauthorized, 404: NotFound,
              409: Conflict, 413: PayloadTooLarge, 429: RateLimited, 503: Unavailable}


def error_of(response, retry_after=None):
    """The :class:`ClientError` of an ``httpx.Response`` that is not a success: its class from the
    status, its message and code from the service's JSON error (or the answer's text)."""
    status = response.status_code
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else ClientError)
    message, code = None, None
    try:
        body = read_json(response.content)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        message, code = body["error"], body.get("code")
    location = response.headers.get("Location")
    if message is None and 300 <= status < 400 and location:
        # the client follows no redirect (as httpx): "307: Temporary Redirect" named neither
        # where it pointed (a proxy's http:// to https://, a path prefix left out) nor what to do
        message = (f"redirected to {location[:200]!r}: the client follows no redirect; give base_url the "
                   f"address the service answers at")
    if message is None:
        # another server's answer (a proxy's, the HTTP parser's plain-text 400): its text
        message = text_of(response) or response.reason_phrase
    return cls(message, status=status, code=code, request=response.request, response=response,
               retry_after=retry_after)
