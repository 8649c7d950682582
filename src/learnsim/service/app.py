"""The FastAPI application of ``learnsim serve``: one opened :class:`~learnsim.index.Index`
behind JSON routes.

Routes (``{id}`` may hold any character, ``/`` included, percent-encoded)::

    GET    /healthz                      {"status": "ok"} (never waits for the index)
    GET    /v1/info                      Index.info() with the version, pipeline and method
    GET    /v1/search?q=&k=&filter=&explain=&n_top=
    POST   /v1/search                    {"queries": [...], "k", "filter", "explain", "n_top"}
    GET    /v1/docs/{id}                 {"id", "text", "metadata"}
    GET    /v1/docs/{id}/similar?k=&filter=
    POST   /v1/match                     {"text", "k", "filter"} or {"pairs": [[a, b], ...]}
    POST   /v1/explain                   {"query", "document", "n_top"}
    POST   /v1/docs                      {"documents": [{"id", "text", "metadata"}, ...]} -> 201
    DELETE /v1/docs/{id}
    POST   /v1/reindex
    GET    /openapi.json                 the OpenAPI schema
    GET    /                             the search page (HTML; learnsim.service.page)
    GET    /static/page.css, page.js     its style and script (served here: nothing from outside)

``filter`` is a metadata filter ``{field: value or [values]}`` (in a query string, as a JSON
object: ``filter={"topic": 3}``).

Errors are ``{"error": message, "code": status}``: 400 bad input (malformed JSON, a bad filter,
an id given twice), 401 a write without the API key, 403 a write to a read-only service, 404 an
unknown id or route, 405 a wrong method, 413 a body over ``max_body_bytes`` or a query over
``max_query_chars``, 422 a request of the wrong shape (unknown fields, k outside [1, 1000]) or a
match on a model without a duplicate rule, 429 more than ``max_pending`` requests waiting for the
index (with ``Retry-After``), 503 the index not free within ``timeout_s``, 500 a bug (logged on
the server, never a traceback in the answer).

An Index is not thread-safe: the service opens the index twice, a handle for reads and one for
writes, and one thread runs every call on each, in order (:mod:`learnsim.service._worker`).
Searches never wait for a write (a write's fsyncs and segment merges take tens of milliseconds);
the read handle sees each write as soon as it returned (SQLite's data_version), so a client reads
its own writes. Searches with the same options that wait together run as one batch. The endpoints
are coroutines that wait for those threads, so the event loop never blocks on the index. A write
returns only after the index made it durable.
"""
from __future__ import annotations

import gc
import hmac
import json
import logging
import math
from contextlib import asynccontextmanager, contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, Optional

import numpy as np

try:
    from fastapi import FastAPI, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import HTMLResponse, JSONResponse, Response
    from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, model_validator
    from starlette.exceptions import HTTPException
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("learnsim serve needs fastapi and uvicorn: pip install learnsim[serve]") from exc

from .. import __version__
from ..index import Index, IndexFormatError
from . import page
from ._fast import FastSearch
from ._worker import Busy, IndexWorker, TimedOut

__all__ = ["create_app", "app_from_environment"]

# learnsim serve --workers N: the options each worker process builds its application from
OPTIONS_VARIABLE = "LEARNSIM_SERVE_OPTIONS"

log = logging.getLogger("learnsim.service")

MAX_K = 1000
MAX_N_TOP = 100
MAX_BATCH = 1000
# error messages echo user input at times (a bad metadata value): keep answers short
_MAX_MESSAGE = 500
_RETRY_AFTER_S = 1
# pydantic's error types for a body that is missing or not a JSON object
_NOT_AN_OBJECT = ("missing", "model_attributes_type", "model_type", "dict_type")
# the page and its files load nothing from anywhere but this service, and run no inline script
_PAGE_HEADERS = {"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
                                            "connect-src 'self'; img-src 'self'; form-action 'self'; "
                                            "base-uri 'none'; frame-ancestors 'none'",
                 "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
_STATIC = {"page.css": "text/css; charset=utf-8", "page.js": "text/javascript; charset=utf-8"}


# --------------------------------------------------------------------------- errors
def _error(code, message, headers=None):
    message = str(message)
    if len(message) > _MAX_MESSAGE:
        message = message[:_MAX_MESSAGE] + "..."
    return JSONResponse({"error": message, "code": int(code)}, status_code=int(code), headers=headers)


def _fail(code, message, headers=None):
    return HTTPException(code, _short(message), headers=headers)


def _short(message):
    message = " ".join(str(message).split())
    return message if len(message) <= _MAX_MESSAGE else message[:_MAX_MESSAGE] + "..."


def _validation_message(errors):
    """One line out of pydantic's errors: ``where: what`` of the first few (never the input,
    which can be megabytes)."""
    parts = []
    for err in errors[:3]:
        loc = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path"))
        parts.append(f"{loc}: {err.get('msg', 'invalid')}" if loc else str(err.get("msg", "invalid")))
    if len(errors) > 3:
        parts.append(f"and {len(errors) - 3} more")
    return "; ".join(parts) or "invalid request"


# --------------------------------------------------------------------------- the body bound
def _bad_utf8(scope):
    """What is not UTF-8 in the request's path or query string (percent-decoded), or None."""
    from urllib.parse import unquote_to_bytes

    for what, raw in (("path", scope.get("raw_path") or scope.get("path", "").encode("utf-8", "surrogateescape")),
                      ("query string", scope.get("query_string", b""))):
        try:
            unquote_to_bytes(raw.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            return f"the {what} is not valid UTF-8 (percent-encode UTF-8 bytes)"
    return None


class _BodyLimit:
    """ASGI middleware: a path or query string that is not UTF-8 gets 400; a body over
    ``max_bytes`` gets 413, whether Content-Length says so or the bytes that arrive (chunked, or a
    lying header) do. The body is read here and replayed to the
    application, so that nothing downstream ever holds more than ``max_bytes``."""

    def __init__(self, app, max_bytes):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = _bad_utf8(scope)
        if problem:
            # the framework would decode it with U+FFFD in place of the bad bytes: a search for
            # something the client never sent, or an id no document has
            await _error(400, problem)(scope, receive, send)
            return
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


# --------------------------------------------------------------------------- the index's errors
@contextmanager
def _index_errors(by_id):
    """The index's exceptions as answers: an unknown id (``by_id``) is 404, bad input 400, a
    damaged index 500 (its message names files of the server: logged, not sent)."""
    try:
        yield
    except HTTPException:
        raise
    except KeyError as exc:
        if not by_id:
            raise   # a bug: 500
        raise _fail(404, exc.args[0] if exc.args else "not found") from None
    except IndexFormatError:
        log.exception("the index is damaged")
        raise _fail(500, "the index is damaged or was edited; see the server log") from None
    except (ValueError, TypeError) as exc:
        raise _fail(400, str(exc) or type(exc).__name__) from None


# --------------------------------------------------------------------------- JSON
def _json(obj, status=200):
    """A JSON answer encoded here: FastAPI's own encoder walks every value in Python first, which
    cost more than a search of a small index."""
    body = json.dumps(_plain(obj), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return Response(body.encode("utf-8"), status_code=status, media_type="application/json")


def _plain(obj):
    """``obj`` with numpy scalars and arrays as plain Python (JSON) values."""
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _plain(obj.tolist())
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None   # JSON has no NaN or infinity
    return obj


def _parse_filter(text):
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        raise _fail(400, 'filter must be a JSON object, e.g. filter={"topic": 3}') from None
    if not isinstance(value, dict):
        raise _fail(400, f'filter must be a JSON object, e.g. filter={{"topic": 3}}; got {type(value).__name__}')
    return value


# --------------------------------------------------------------------------- request bodies
class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


Filter = Optional[dict[str, Any]]


class SearchBatch(_Body):
    queries: list[StrictStr] = Field(min_length=1, max_length=MAX_BATCH)
    k: int = Field(10, ge=1, le=MAX_K)
    filter: Filter = None
    explain: StrictBool = False
    n_top: int = Field(10, ge=1, le=MAX_N_TOP)


class MatchRequest(_Body):
    text: Optional[StrictStr] = None
    pairs: Optional[list[tuple[StrictStr, StrictStr]]] = Field(None, min_length=1, max_length=10_000)
    k: int = Field(10, ge=1, le=MAX_K)
    filter: Filter = None

    @model_validator(mode="after")
    def _one_of(self):
        if (self.text is None) == (self.pairs is None):
            raise ValueError('give either "text" (matched against the index) or "pairs" (decided alone)')
        if self.pairs is not None and self.filter is not None:
            raise ValueError('"filter" applies to "text" only')
        return self


class ExplainRequest(_Body):
    query: StrictStr
    document: StrictStr
    n_top: int = Field(10, ge=1, le=MAX_N_TOP)


class DocumentIn(_Body):
    id: Optional[StrictStr] = Field(None, min_length=1, max_length=1000)
    text: StrictStr
    metadata: Optional[dict[str, Any]] = None


class AddRequest(_Body):
    documents: list[DocumentIn] = Field(min_length=1, max_length=100_000)


# --------------------------------------------------------------------------- the application
def _versions():
    """The versions a bug report needs: Python's and the installed packages' that score and serve."""
    import platform
    from importlib import metadata

    out = {"learnsim": __version__, "python": platform.python_version()}
    for name in ("numpy", "scipy", "scikit-learn", "numba", "fastapi", "uvicorn"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def _check_option(name, value, low):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= low:
        raise ValueError(f"{name} must be a number >= {low}; got {value!r}")


def create_app(index_path, *, read_only=False, api_key=None, max_body_bytes=1_000_000,
               max_query_chars=10_000, max_pending=64, timeout_s=30):
    """A FastAPI application serving the index at ``index_path`` (see the module notes).

    Parameters
    ----------
    index_path : str or Path
        An index directory (``learnsim index build``); opened once, here.
    read_only : bool, default=False
        Refuse every write with 403.
    api_key : str, optional
        When given, writes need ``Authorization: Bearer KEY`` or ``X-API-Key: KEY`` (else 401).
        Reads stay open.
    max_body_bytes : int, default=1_000_000
        Larger request bodies get 413.
    max_query_chars : int, default=10_000
        Longer queries (search, match, explain) get 413.
    max_pending : int, default=64
        Requests allowed to wait for the index at once; more get 429 with ``Retry-After``.
    timeout_s : float, default=30
        How long a request waits for the index before it gets 503.

    Returns
    -------
    fastapi.FastAPI
        With ``app.state.index`` (the read handle), ``app.state.worker`` and ``app.state.writer``
        (the :class:`~learnsim.service._worker.IndexWorker` of the reads and of the writes).

    Raises
    ------
    FileNotFoundError, IndexFormatError
        When ``index_path`` holds no valid index.
    ValueError
        For a bad option.
    """
    for name, value, low in (("max_body_bytes", max_body_bytes, 1), ("max_query_chars", max_query_chars, 1),
                             ("max_pending", max_pending, 0), ("timeout_s", timeout_s, 0)):
        _check_option(name, value, low)
    if api_key is not None and (not isinstance(api_key, str) or not api_key):
        raise ValueError("api_key must be a non-empty str (or None for no key)")
    index = Index.open(index_path)
    # a search needs only the index's query plan, but a write, a match, an explanation and the
    # page need the model: loaded now, or the first of them would hold every request behind it
    # for as long as the load takes (seconds: scikit-learn's import, the model's checks)
    index.pipeline
    index.warm()
    # the write handle shares the loaded model (read-only once fitted)
    write_index = Index.open(index_path, _pipeline=index.pipeline)
    worker = IndexWorker(index, int(max_pending), float(timeout_s))
    writer = IndexWorker(write_index, int(max_pending), float(timeout_s))
    key = api_key.encode() if api_key is not None else None
    static = {name: resources.files(__package__).joinpath("static", name).read_bytes() for name in _STATIC}
    versions = _versions()

    @asynccontextmanager
    async def lifespan(app):
        # what was loaded to start (the model, scikit-learn, the framework) lives as long as the
        # service: out of the collector's sight, a full collection no longer walks it all, which
        # stalled every request in flight for 50-100 ms now and then (benchmarks/bench_serve.py)
        gc.collect()
        gc.freeze()
        yield
        writer.close()   # what is queued runs first: nothing acknowledged is dropped
        worker.close()
        write_index.close()
        index.close()

    # no /docs or /redoc: FastAPI's pages load their scripts from a CDN
    app = FastAPI(title="learnsim", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Search, match and explain over a learnsim index.")
    app.state.index, app.state.worker, app.state.writer = index, worker, writer

    @app.exception_handler(HTTPException)
    async def _http_error(request, exc):
        return _error(exc.status_code, exc.detail, getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request, exc):
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            return _error(400, "the body is not valid JSON")
        # no body, or one that is not a JSON object (a wrong Content-Type lands here too)
        if any(tuple(e.get("loc", ())) == ("body",) and e.get("type") in _NOT_AN_OBJECT for e in errors):
            return _error(400, "the body must be a JSON object (Content-Type: application/json)")
        return _error(422, _validation_message(errors))

    @app.exception_handler(Exception)
    async def _bug(request, exc):
        log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
        return _error(500, f"internal error ({type(exc).__name__}); see the server log")

    async def run(fn, by_id=False, on=worker, **search):
        """``fn(index)`` in the thread of ``on`` (the reads' worker or the writes'), or a
        batchable search (``key``, ``queries``)."""
        try:
            with _index_errors(by_id):
                return await on.call(fn, **search)
        except Busy:
            raise _fail(429, f"the index is busy ({on.waiting} requests waiting); retry later",
                        {"Retry-After": str(_RETRY_AFTER_S)}) from None
        except TimedOut:
            raise _fail(503, f"the index was not free within {on.timeout_s:g} s; retry later",
                        {"Retry-After": str(_RETRY_AFTER_S)}) from None

    async def searched(queries, k, conditions, explain, n_top):
        """One list of hits per query; searches with the same options run together."""
        options = (k, json.dumps(conditions, sort_keys=True), bool(explain), n_top)
        return await run(lambda idx, qs: idx.search(qs, k, filter=conditions, explain=explain, n_top=n_top),
                         key=options, queries=list(queries))

    def check_query(*texts):
        for text in texts:
            if len(text) > max_query_chars:
                raise _fail(413, f"a query is longer than {max_query_chars} characters ({len(text)})")

    def check_writer(request):
        if key is not None:
            given = request.headers.get("x-api-key")
            auth = request.headers.get("authorization", "")
            if given is None and auth[:7].lower() == "bearer ":
                given = auth[7:].strip()
            # constant time: the comparison must not tell how much of a guess was right
            if given is None or not hmac.compare_digest(given.encode("utf-8", "replace"), key):
                raise _fail(401, "this write needs the API key (Authorization: Bearer KEY or X-API-Key: KEY)",
                            {"WWW-Authenticate": "Bearer"})
        if read_only:
            raise _fail(403, "the service is read-only")

    # ---------------------------------------------------------------- reads
    @app.get("/healthz")
    async def healthz():
        return {"status": "ok"}

    @app.get("/v1/info")
    async def info():
        def read(idx):
            return idx.info(), repr(idx.pipeline)

        out, pipeline = await run(read)
        # the server's directory layout is none of a client's business: the name is enough
        out["path"] = Path(out["path"]).name
        out.update(version=__version__, versions=versions, pipeline=pipeline)
        out.setdefault("method", index.manifest.get("method"))
        return _json(out)

    async def search_answer(q, k, filter, explain, n_top):
        check_query(q)
        hits, = await searched([q], k, _parse_filter(filter), explain, n_top)
        return _json({"hits": hits})

    # plainly valid requests are answered by search_answer before they reach this route (see
    # learnsim.service._fast): the route answers the rest, with the framework's validation
    @app.get("/v1/search")
    async def search(q: str, k: int = Query(10, ge=1, le=MAX_K), filter: Optional[str] = None,
                     explain: bool = False, n_top: int = Query(10, ge=1, le=MAX_N_TOP)):
        return await search_answer(q, k, filter, explain, n_top)

    @app.post("/v1/search")
    async def search_batch(body: SearchBatch):
        check_query(*body.queries)
        return _json({"results": await searched(body.queries, body.k, body.filter, body.explain, body.n_top)})

    # declared before /v1/docs/{id}: that route's id takes '/' too, so it would take this path
    @app.get("/v1/docs/{doc_id:path}/similar")
    async def similar(doc_id: str, k: int = Query(10, ge=1, le=MAX_K), filter: Optional[str] = None):
        conditions = _parse_filter(filter)
        hits = await run(lambda idx: idx.more_like(doc_id, k, filter=conditions), by_id=True)
        return _json({"id": doc_id, "hits": hits})

    @app.get("/v1/docs/{doc_id:path}")
    async def document(doc_id: str):
        text, metadata = await run(lambda idx: idx.document(doc_id), by_id=True)
        return _json({"id": doc_id, "text": text, "metadata": metadata})

    @app.post("/v1/match")
    async def match(body: MatchRequest):
        check_query(*([body.text] if body.text is not None else [t for pair in body.pairs for t in pair]))

        def decide(idx):
            if idx.pipeline.matcher is None:
                raise _fail(422, f"this {type(idx.pipeline.metric).__name__} model has no duplicate rule "
                                 "(only a FILM fitted on labelled pairs has one)")
            if body.text is not None:
                return {"matches": idx.match(body.text, body.k, filter=body.filter)}
            return {"decisions": idx.pipeline.match([tuple(p) for p in body.pairs])}

        return _json(await run(decide))

    @app.post("/v1/explain")
    async def explain(body: ExplainRequest):
        check_query(body.query)
        return _json(await run(lambda idx: idx.pipeline.explain(body.query, body.document, body.n_top,
                                                                 statistics=idx.statistics or None)))

    # ---------------------------------------------------------------- writes
    @app.post("/v1/docs", status_code=201)
    async def add(body: AddRequest, request: Request):
        check_writer(request)
        docs = body.documents
        ids = [d.id for d in docs]
        if any(i is None for i in ids) and any(i is not None for i in ids):
            raise _fail(400, "give every document an id, or none (then the index numbers them)")

        def write(idx):
            # Index.add returns once the documents are durable: only then is 201 sent
            added = idx.add([d.text for d in docs], None if ids[0] is None else ids, [d.metadata for d in docs])
            return added, len(idx)

        added, n = await run(write, on=writer)
        return _json({"ids": added, "added": len(added), "documents": n}, status=201)

    @app.delete("/v1/docs/{doc_id:path}")
    async def delete(doc_id: str, request: Request):
        check_writer(request)
        n, left = await run(lambda idx: (idx.delete([doc_id]), len(idx)), by_id=True, on=writer)
        return _json({"deleted": n, "documents": left})

    @app.post("/v1/reindex")
    async def reindex(request: Request):
        check_writer(request)

        def redo(idx):
            idx.reindex()
            return idx.info()

        out = await run(redo, on=writer)
        out["path"] = Path(out["path"]).name
        return _json(out)

    # ---------------------------------------------------------------- the page
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def search_page(request: Request):
        params = request.query_params
        q = (params.get("q") or "").strip() or None
        k_text = params.get("k") or str(page.PAGE_K)

        def html(text, status=200):
            return HTMLResponse(text, status_code=status, headers=_PAGE_HEADERS)

        if not k_text.isdigit() or not 1 <= int(k_text) <= page.MAX_PAGE_K:
            return html(page.render_error(f"k must be a whole number from 1 to {page.MAX_PAGE_K}", q), 400)
        k = int(k_text)
        if q is not None and len(q) > max_query_chars:
            return html(page.render_error(f"the query is longer than {max_query_chars} characters", q[:200], k), 413)
        fragment = params.get("fragment") == "1"
        view = dict(q=q, k=k, similar=params.get("similar"), duplicates=params.get("duplicates"))
        try:
            data = await run(lambda idx: page.gather(idx, info=not fragment, **view), by_id=True)
        except HTTPException as exc:
            return html(page.render_error(exc.detail, q, k), exc.status_code)
        return html(page.render_results(data) if fragment else page.render_page(data))

    @app.get("/static/{name}", include_in_schema=False)
    async def static_file(name: str):
        if name not in static:
            raise _fail(404, f"no file {name!r}")
        return Response(static[name], media_type=_STATIC[name], headers=_PAGE_HEADERS)

    app.add_middleware(FastSearch, answer=search_answer, error=_error, max_k=MAX_K, max_n_top=MAX_N_TOP)
    # added last, so outermost: the UTF-8 and body checks come before everything else
    app.add_middleware(_BodyLimit, max_bytes=int(max_body_bytes))
    return app


def app_from_environment():
    """The application of one worker process of ``learnsim serve --workers N``: the options
    (index path, read_only, the name of the API key's variable) come as JSON in the environment
    variable ``LEARNSIM_SERVE_OPTIONS``, which the command sets before starting the workers."""
    import os

    try:
        options = json.loads(os.environ[OPTIONS_VARIABLE])
    except (KeyError, ValueError):
        raise RuntimeError(f"{OPTIONS_VARIABLE} is not set to the options of learnsim serve") from None
    key_env = options.get("api_key_env")
    api_key = os.environ.get(key_env) if key_env else None
    if key_env and not api_key:
        raise RuntimeError(f"the API key's variable {key_env} is not set")
    return create_app(options["index"], read_only=bool(options.get("read_only")), api_key=api_key)
