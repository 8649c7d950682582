"""The hot path of ``learnsim serve``: ``GET /v1/search`` answered without the framework.

FastAPI's routing, dependency solving and validation cost about as much CPU as a batched search
of 100,000 dense rows (``benchmarks/bench_serve.py``): on two cores, under load, that is a third of
the service's throughput. So a plainly valid ``GET /v1/search`` - each known parameter given at
most once, ``k``, ``n_top`` and ``offset`` whole numbers in range, ``explain`` ``true`` or
``false``, ``include`` as given (the answer checks it), no other parameter - is answered here by the same code the route runs (``answer``); anything else (a
missing ``q``, a ``k`` of ``"ten"``, an unknown parameter) goes on to the FastAPI route, which
gives the framework's answer. So no request is answered differently for taking this path, and
``tests/service/test_service.py`` checks that the two paths answer alike.
"""
from __future__ import annotations

import logging
from urllib.parse import parse_qsl

__all__ = ["FastSearch"]

log = logging.getLogger("learnsim.service")

_KNOWN = frozenset(("q", "k", "filter", "explain", "n_top", "offset", "include"))


def plain_search_params(query_string, max_k, max_n_top):
    """The arguments of a plainly valid search query string (bytes), or None to let the route
    decide. Decoded as Starlette decodes it (latin-1 bytes, then percent-decoding as UTF-8)."""
    pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    params = dict(pairs)
    if len(params) != len(pairs) or not params.keys() <= _KNOWN or not params.get("q"):
        return None
    out = {"q": params["q"], "k": 10, "filter": params.get("filter"), "explain": False, "n_top": 10, "offset": 0,
           "include": params.get("include")}
    for name, low, top in (("k", 1, max_k), ("n_top", 1, max_n_top), ("offset", 0, max_k - 1)):
        if name in params:
            text = params[name]
            if not (text.isascii() and text.isdigit() and len(text) <= 6 and low <= int(text) <= top):
                return None
            out[name] = int(text)
    if "explain" in params:
        if params["explain"] not in ("true", "false"):
            return None
        out["explain"] = params["explain"] == "true"
    return out


class FastSearch:
    """ASGI middleware: plainly valid ``GET /v1/search`` requests are answered by
    ``answer(q=, k=, filter=, explain=, n_top=, offset=, include=, scope=)`` (a coroutine returning a Response, raising the
    service's HTTPException for an error, which ``error(exc)`` turns into an answer); every other
    request goes on to ``app``."""

    def __init__(self, app, answer, error, max_k, max_n_top):
        self.app, self.answer, self.error = app, answer, error
        self.max_k, self.max_n_top = max_k, max_n_top

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "GET" and scope["path"] == "/v1/search":
            params = plain_search_params(scope.get("query_string", b""), self.max_k, self.max_n_top)
            if params is not None:
                from starlette.exceptions import HTTPException

                try:
                    response = await self.answer(**params, scope=scope)
                except HTTPException as exc:
                    response = self.error(exc)
                except Exception as exc:   # a bug: logged here, never a traceback to the client
                    log.error("unexpected error on GET /v1/search", exc_info=exc)
                    response = self.error(HTTPException(500, f"internal error ({type(exc).__name__}); "
                                                             "see the server log"))
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
