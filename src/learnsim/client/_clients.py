""":class:`Client` and :class:`AsyncClient`: the routes of :mod:`~learnsim.client._routes` sent
with httpx (imported when a client is made), retried as :class:`_Session` decides."""
from __future__ import annotations

import email.utils
import inspect
import json
import logging
import math
import time
from datetime import datetime, timezone

from .. import __version__
from ._errors import ClientError, ConnectionFailed, error_of
from ._routes import Routes

__all__ = ["Client", "AsyncClient"]

log = logging.getLogger("learnsim.client")

# the first wait after a broken connection, or after a 429/503 without Retry-After; doubled
# each try, at most max_wait
BACKOFF_S = 0.5
# statuses that mean the service did not run the request: retried, writes included
_RETRIED = (429, 503)
_NOT_JSON = object()


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
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        seconds = (when - (now or datetime.now(timezone.utc))).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


class _Session(Routes):
    """What both clients share: the options, the httpx request of a :class:`Call`, and what to do
    with an answer or a failure (a result, a wait before the next try, or an error)."""

    def __init__(self, base_url, api_key, timeout, max_retries, transport, max_wait, sleep, client_class):
        httpx = _httpx()   # first: without it, the error says what to install
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be a whole number >= 0; got {max_retries!r}")
        if isinstance(max_wait, bool) or not isinstance(max_wait, (int, float)) or not max_wait >= 0:
            raise ValueError(f"max_wait must be a number of seconds >= 0; got {max_wait!r}")
        if api_key is not None and (not isinstance(api_key, str) or not api_key):
            raise ValueError("api_key must be a non-empty str (or None)")
        self._errors = httpx.TransportError
        # no request was sent: safe to retry whatever it was
        self._unsent = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
        self.base_url = str(base_url).rstrip("/")
        self.max_retries, self.max_wait, self._sleep = max_retries, float(max_wait), sleep
        headers = {"User-Agent": f"learnsim-client/{__version__}", "Accept": "application/json"}
        if api_key is not None:
            headers["X-API-Key"] = api_key
        self._http = getattr(httpx, client_class)(base_url=self.base_url + "/", headers=headers,
                                                  timeout=timeout, transport=transport)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_url!r})"

    def _request(self, call):
        return self._http.build_request(call.method, call.path, params=call.params, json=call.json)

    def _backoff(self, attempt):
        return min(self.max_wait, BACKOFF_S * 2.0 ** min(attempt, 30))

    def _after_failure(self, call, request, exc, attempt):
        """The wait before the next try after the transport error ``exc``; raises
        :class:`ConnectionFailed` when there is none."""
        retried = attempt < self.max_retries and (call.idempotent or isinstance(exc, self._unsent))
        if not retried:
            what = "" if call.idempotent or isinstance(exc, self._unsent) else \
                " (not retried: it may have been applied)"
            raise ConnectionFailed(f"no answer from {self.base_url}: {type(exc).__name__}: {exc}{what}",
                                   request=request) from exc
        wait = self._backoff(attempt)
        log.info("%s %s: %s; try %d of %d in %.2f s", call.method, call.path, type(exc).__name__, attempt + 2,
                 self.max_retries + 1, wait)
        return wait

    def _outcome(self, call, response, attempt):
        """``(answer, None)`` for a success, ``(None, wait)`` to try again; raises the
        :class:`ClientError` of a refusal."""
        status = response.status_code
        if 200 <= status < 300 or status in call.answers:
            try:
                answer = json.loads(response.content) if response.content.strip() else None
            except ValueError:
                answer = _NOT_JSON
            if 200 <= status < 300 or isinstance(answer, dict):
                if answer is _NOT_JSON:
                    raise ClientError(f"the answer is not JSON: {response.text[:200]!r}", status=status,
                                      request=response.request, response=response)
                return (call.shape(answer) if call.shape else answer), None
        retry_after = retry_after_seconds(response.headers.get("Retry-After"))
        error = error_of(response, retry_after)
        if status not in _RETRIED or error.code == "index_damaged" or attempt >= self.max_retries:
            raise error
        wait = self._backoff(attempt) if retry_after is None else min(retry_after, self.max_wait)
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
        Seconds to wait for a connection and for each read of an answer (None: no limit).
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
                 *, max_wait=60.0, sleep=None):
        super().__init__(base_url, api_key, timeout, max_retries, transport, max_wait, sleep or time.sleep,
                         "Client")

    def _send(self, call):
        attempt = 0
        while True:
            request = self._request(call)
            try:
                response = self._http.send(request)
            except self._errors as exc:
                wait = self._after_failure(call, request, exc, attempt)
            else:
                answer, wait = self._outcome(call, response, attempt)
                if wait is None:
                    return answer
            self._sleep(wait)
            attempt += 1

    def close(self):
        """Close the client's connections."""
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
    base_url, api_key, timeout, max_retries, max_wait
        As :class:`Client`'s.
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
                 *, max_wait=60.0, sleep=None):
        import asyncio

        super().__init__(base_url, api_key, timeout, max_retries, transport, max_wait, sleep or asyncio.sleep,
                         "AsyncClient")

    async def _send(self, call):
        attempt = 0
        while True:
            request = self._request(call)
            try:
                response = await self._http.send(request)
            except self._errors as exc:
                wait = self._after_failure(call, request, exc, attempt)
            else:
                answer, wait = self._outcome(call, response, attempt)
                if wait is None:
                    return answer
            slept = self._sleep(wait)
            if inspect.isawaitable(slept):
                await slept
            attempt += 1

    async def close(self):
        """Close the client's connections."""
        await self._http.aclose()

    aclose = close

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc_info):
        await self.close()
