"""The FastAPI application of ``learnsim serve``: one opened :class:`~learnsim.index.Index`
behind JSON routes.

Routes (``{id}`` may hold any character, ``/`` included, percent-encoded)::

    GET    /healthz                      {"status": "ok"} ("degraded" once damage was seen)
    GET    /v1/info                      Index.info() with the version, pipeline and method
    GET    /v1/search?q=&k=&filter=&explain=&n_top=&offset=&include=
    POST   /v1/search                    {"queries": [...], "k", "filter", "explain", "n_top", "offset", "include"}
    GET    /v1/docs/{id}                 {"id", "text", "metadata"}
    GET    /v1/docs/{id}/similar?k=&filter=&offset=&include=
    POST   /v1/docs/{id}/similar         {"k", "filter", "offset", "include"} (a filter over a query string's bounds)
    POST   /v1/match                     {"text", "k", "filter"} or {"pairs": [[a, b], ...]}
    POST   /v1/explain                   {"query", "document", "n_top"}

Every answer that carries scores says what they are and which way is better: ``"score"``
names the hits' (or the decisions') ``score`` ("similarity", "distance", "score" of term
weights, "probability" of a re-ranked search, ...) and ``"higher_is_better"`` is false for a
distance, as in the JSON of ``learnsim search``; ``/v1/info`` gives both for the index's
scoring (and ``"search_score"``, what its search hits carry); an explanation (``/v1/explain``,
``explain=true``) carries ``"measure"`` and ``"higher_is_better"``, its ``"score"`` being the
number (``Pipeline.explain``).
    POST   /v1/docs                      {"documents": [{"id", "text", "metadata"}, ...]} -> 201
                                         ("mode": "upsert": replace the ids already there; 200 if none was new)
    PUT    /v1/docs/{id}                 {"text": ..., "metadata": {...}}: add, or replace (201 / 200)
    DELETE /v1/docs/{id}
    POST   /v1/reindex                   (no body, or {})
    GET    /openapi.json                 the OpenAPI schema
    GET    /docs                         the schema as a page (Swagger UI, served here: no CDN)
    GET    /                             the search page (HTML; learnsim.service.page)
    GET    /static/page.css, page.js     its style and script (served here: nothing from outside)

``filter`` is a metadata filter: ``{field: value or [values]}``, operators (``{"year": {"$gte":
2020}}``), dotted paths and ``$and``, ``$or``, ``$not`` (the grammar of
:func:`learnsim.index._store.check_filter`; in a query string, as a JSON object:
``filter={"topic": 3}``; ``filter=`` and ``{}`` are no filter). At most 10 keys an object and 10
filters an ``$and`` or ``$or``, nested at most 3 deep, 32 field conditions in all; fields names
of 1 to 64 letters, digits, ``_`` and ``-`` (or dotted paths of them); values str, int (64
bits), float, bool or null, at most 1,000 a list (in a query string 50, strings of at most 200
characters: the request head must stay under the HTTP parser's bound of about 80 KB; POST
/v1/search takes more). Over a bound, or not well formed: a 400 naming it
(:func:`~learnsim.service._limits._check_filter`).

Ids are routed by the raw path: ``GET /v1/docs/ID/similar`` with a literal ``/similar`` is the
similar route; a percent-encoded ``%2Fsimilar`` is part of the id. A client that encodes an id
wholly (``quote(id, safe="")``) reaches any id, ``a/b/similar`` included (an id of dots alone,
``.`` or ``..``, as ``%2E``: clients remove dot segments from a path before sending it).

**Bounds** (each checked before any work starts; over them is a JSON 413 or 422 naming the limit):

=================================  ==========================================================
query, text, document              at most ``max_query_chars`` characters (10,000): 413
body                               at most ``max_body_bytes`` bytes (1 MB): 413
k (search, similar)                1 .. ``MAX_K`` (1,000)
offset (search, similar)           0 .. ``MAX_K`` - 1, offset + k <= ``MAX_K`` (the hits read;
                                   :mod:`~learnsim.service._paging`)
queries of one POST /v1/search     1 .. ``MAX_BATCH`` (1,000)
hits of one search request         queries x (offset + k) <= ``MAX_HITS`` (2,000)
explain                            only with k <= ``MAX_EXPLAIN_K`` (20); explained hits
                                   (queries x k) <= ``MAX_EXPLAINED`` (100) and explained hits
                                   x n_top <= ``MAX_EXPLAIN_WORDS`` (2,000); n_top 1 .. 100
POST /v1/match                     k <= ``MAX_MATCH_K`` (100), pairs <= ``MAX_PAIRS`` (1,000)
POST /v1/docs                      1 .. 100,000 documents (and the body bound)
=================================  ==========================================================

An explanation costs 5-10 ms (MCD), a search of a batch of 64 queries about as much as one: the
budget keeps one request's work on the index under about a second. Work is split into pieces (at
most 64 queries or 500 hits of a search, 2 explanations, 100 pairs) queued one after another:
a search that comes in meanwhile runs between two pieces of a heavy request, never after all of
them, and a request still running after ``deadline_s`` (10 s) is stopped between two pieces and
answered 503 (a write that started is always finished and answered: its effect must be reported).

**Web safety** (a service on localhost can be reached by any web page the user opens):

- the ``Host`` header must name the bound address (127.0.0.1, localhost and [::1] for a loopback
  address; that host otherwise; any port) or one of ``allowed_hosts``, else 421 (DNS rebinding);
- a write (POST /v1/docs, DELETE /v1/docs/{id}, POST /v1/reindex) is checked before its body is
  read: the API key (401), ``read_only`` (403), then a POST needs ``Content-Type:
  application/json`` (415: no HTML form can send it), and any POST or DELETE that carries an
  ``Origin`` other than the service's own (or one of ``cors_origins``) gets 403;
- no CORS headers unless ``cors_origins`` lists origins (then for exactly those);
- ``protect_reads``: every route but ``/healthz`` and ``/openapi.json`` needs the key (the search
  page too: for clients, or a proxy, that send it); without it, reads are open, and with a key
  configured ``/v1/info`` gives the library versions only to callers that send it.

Errors are ``{"error": message, "code": status}``: 400 bad input (malformed JSON, a bad filter,
a path that is not UTF-8), 401 no or a wrong API key, 403 a write to a read-only service or a
foreign ``Origin``, 404 an unknown id or route, 405 a wrong method (with ``Allow``), 409 an id
already in the index or given twice in one request, 413 over a size bound, 415 a write that is
not JSON, 421 a ``Host`` not served, 422 a request of the wrong shape, with an unknown query
parameter or over the budget, or a match on a model without a duplicate rule (whose schema then
leaves ``/v1/match`` out), 429 more than ``max_pending`` requests waiting for the index (with
``Retry-After``), 503 the index not free within ``timeout_s`` or the request past its deadline,
500 a bug (logged on the server, never a traceback in the answer). A request head over the HTTP
parser's bound (about 80 KB: a very long query string), or that the parser refuses otherwise, is a
400 too (``_connections``: uvicorn answered it in plain text).

A damaged index file (``IndexFormatError``, ``IndexDamagedError``) is a 503 ``{"error": ...,
"code": "index_damaged"}`` naming the file relative to the index directory (never the server's
paths); what is intact is still served, and ``/healthz`` answers 200 ``{"status": "degraded",
"damage": ...}`` from then on (200: the service still answers what it can, and a probe that
restarted it would not repair the file).

The parts: :mod:`~learnsim.service._guard` (the checks on a request's head, before its body),
:mod:`~learnsim.service._limits` (the budget, the filters, the pieces),
:mod:`~learnsim.service._schema` (the OpenAPI schema), :mod:`~learnsim.service._http` (JSON
errors and bodies), :mod:`~learnsim.service._fast` (the hot path of ``GET /v1/search``).

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
import json
import logging
import os
import re
import time
from contextlib import asynccontextmanager, contextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

try:
    from fastapi import Depends, FastAPI, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import HTMLResponse, Response
    from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictFloat,
                          StrictInt, StrictStr)
    from starlette.exceptions import HTTPException
    from starlette.routing import Match
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("learnsim serve needs fastapi and uvicorn: pip install learnsim[serve]") from exc

from .. import __version__
from .._utils.inputs import has_content
from .._utils.net import is_loopback
from ..exceptions import IndexChangingError
from ..index import Index, IndexFormatError
from . import page
from ._fast import FastSearch
from ._interleaved import interleaved_answer
from ._page_error import PAGE_HEADERS as _PAGE_HEADERS
from ._page_versions import explained_page
from ._guard import HEAD, _BodyLimit, _authorized, allowed_host_names
from ._keys import key_problem
from ._http import (_RETRY_AFTER_S, StrictJSONRoute, _damage_message, _error, _error_of, _fail, _json, _short,
                    _validation_message, body_json)
from ._limits import (BODY_FILTER, CHUNK_EXPLAIN, CHUNK_PAIRS, MAX_BATCH, MAX_DOCUMENTS, MAX_EXPLAIN_K,  # noqa: F401
                      MAX_EXPLAIN_WORDS, MAX_EXPLAINED, MAX_HITS, MAX_ID_CHARS, MAX_K, MAX_MATCH_K, MAX_N_TOP,
                      MAX_PAIRS, QUERY_FILTER, _check_filter, _groups, _parse_filter, search_budget)
from ._docs import add_docs_routes
from ._ids import long_id_problem
from ._paging import MAX_OFFSET, check_offset, parse_include, shown
from ._loading import can_match, model_loading
from ._schema import _BOUNDS_TEXT, _openapi
from ._worker import Busy, IndexWorker, Labelled, SearchTrace, TimedOut
from ._unwritable import unwritable_reason
from ._writes import NewWords
from ._scores import _rule_score_name, _rule_warnings, _score_names

__all__ = ["create_app", "app_from_environment", "search_budget", "allowed_host_names"]

# learnsim serve --workers N: the options each worker process builds its application from
OPTIONS_VARIABLE = "LEARNSIM_SERVE_OPTIONS"

log = logging.getLogger("learnsim.service")



def _missing_package(exc):
    """What to answer (503) for an optional package this server lacks, or None for another
    exception: an index whose model reads text with fugashi, SudachiPy or jieba, served where it is
    not installed, answered 500 'internal error (ImportError)' to every request. learnsim's own
    ImportErrors for an extra name what to install ('pip install ...'), as the command line's
    one-line message shows them."""
    if isinstance(exc, ImportError) and "pip install" in str(exc):
        return f"this server cannot read the index's text: {exc}"
    return None


# pydantic's error types for a body that is missing or not a JSON object
_NOT_AN_OBJECT = ("missing", "model_attributes_type", "model_type", "dict_type")
# where pydantic places such an error: the body, or one of the forms of POST /v1/match's (a
# union: a body that is no object was a 422 there, naming both models, a 400 on every other route)
_WHOLE_BODY = ((), ("MatchText",), ("MatchPairs",))
_STATIC = {"page.css": "text/css; charset=utf-8", "page.js": "text/javascript; charset=utf-8"}


# --------------------------------------------------------------------------- request bodies
class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _whole_number(value):
    # JSON has one kind of number: 7.0 is the integer 7 (as the schema's "integer" says), 7.5 is not
    if isinstance(value, float) and value.is_integer() and abs(value) <= 10 ** 18:
        return int(value)
    return value


def _each_once(ids):
    # the results followed, each once: a list naming one many times says nothing more
    # (learnsim.feedback's FeedbackLog.record_clicks refuses it too)
    if len(set(ids)) != len(ids):
        twice = next(x for i, x in enumerate(ids) if x in ids[:i])
        raise ValueError(f"names {twice[:80]!r} more than once")
    return ids


# any JSON value, read by _check_filter: a filter that is no object (a list, a string) is its 400
# naming it, as in a query string and as every other bad filter, not the schema validation's 422
# (the OpenAPI schema still says an object: _schema sets it)
Filter = Optional[Any]
# numbers and booleans are strict (issue 45): a JSON bool is not a number ("k": true), a string
# is not a number ("k": "10"), a number is not a bool; a whole float (10.0) is the integer
Whole = Annotated[StrictInt, BeforeValidator(_whole_number)]


# a hit's fields to give (learnsim.service._paging): the names are checked by parse_include, which
# names an unknown one; the schema lists them (_schema); more than 100 is no list of them
Include = Optional[list[StrictStr]]
_INCLUDE = Field(None, max_length=100, description="The fields a hit carries besides id and rank: any of text, "
                                                   "metadata, score (all when not given)")
_OFFSET = Field(0, ge=0, le=MAX_OFFSET, description="The hits to skip: the answer holds those ranked offset + 1 to "
                                                     "offset + k (offset + k <= 1000)")


class SearchBatch(_Body):
    queries: list[StrictStr] = Field(min_length=1, max_length=MAX_BATCH)
    k: Whole = Field(10, ge=1, le=MAX_K)
    filter: Filter = None
    explain: StrictBool = False
    n_top: Whole = Field(10, ge=1, le=MAX_N_TOP)
    offset: Whole = _OFFSET
    include: Include = _INCLUDE


class MatchText(_Body):
    """A text matched against the index: its near-duplicates among its k closest documents."""
    text: StrictStr
    k: Whole = Field(10, ge=1, le=MAX_MATCH_K)
    filter: Filter = None


class SimilarRequest(_Body):
    """GET /v1/docs/{id}/similar's k and filter in a body: a filter within a body's bounds and
    over a query string's (or a URL's length) has no other way there."""
    k: Whole = Field(10, ge=1, le=MAX_K)
    filter: Filter = None
    offset: Whole = _OFFSET
    include: Include = _INCLUDE


class MatchPairs(_Body):
    """Pairs of texts decided by the duplicate rule alone."""
    pairs: list[tuple[StrictStr, StrictStr]] = Field(min_length=1, max_length=MAX_PAIRS)


class ExplainRequest(_Body):
    query: StrictStr
    document: StrictStr
    n_top: Whole = Field(10, ge=1, le=MAX_N_TOP)


# the longest id a write takes: the index's own bound, MAX_ID_CHARS of learnsim.index._store


class FeedbackRequest(_Body):
    """The results of an answered search that were followed (``learnsim serve --learn-from-clicks``)."""
    impression: StrictStr = Field(min_length=1, max_length=100,
                                  description='The "impression" of the search\'s answer')
    clicked: Annotated[list[Annotated[StrictStr, Field(min_length=1, max_length=MAX_ID_CHARS)]],
                       AfterValidator(_each_once)] = Field(
        min_length=1, max_length=100, json_schema_extra={"uniqueItems": True},
        description="Ids of the results followed, each once")
    # allow_inf_nan: Python's JSON reads NaN, Infinity and 1e400 (no JSON numbers), and "dwell":
    # NaN was refused as "less than or equal to 10000000", a bound it is not over
    dwell: Optional[StrictFloat] = Field(None, ge=0, le=1e7, allow_inf_nan=False,
                                         description="Seconds spent on the result (optional)")
    relevance: Optional[StrictFloat] = Field(None, ge=0, le=1e3, allow_inf_nan=False,
                                             description="An explicit grade (optional)")


# what the schema cannot state of metadata (JSON numbers do not tell 10**30 from 1e30)
_METADATA_TEXT = ("JSON values, nested at most 64 levels; an integer within 64 bits (a larger one as a string) "
                  "and no NUL character in a string or key: otherwise a 400 naming it")


class DocumentIn(_Body):
    # a str or an int, as Index.add takes ids: stored and answered as a str (7 and "7" are one id)
    id: Optional[Union[Annotated[StrictStr, Field(min_length=1, max_length=MAX_ID_CHARS)],
                       Annotated[StrictInt, Field(ge=-10 ** 18, le=10 ** 18), BeforeValidator(_whole_number)]]] = None
    text: StrictStr
    metadata: Optional[dict[str, Any]] = Field(None, description=_METADATA_TEXT)


class AddRequest(_Body):
    documents: list[DocumentIn] = Field(min_length=1, max_length=MAX_DOCUMENTS)
    # "add": an id already in the index is a 409; "upsert": it is replaced (Index.upsert)
    mode: Literal["add", "upsert"] = "add"


class PutRequest(_Body):
    text: StrictStr
    metadata: Optional[dict[str, Any]] = Field(None, description=_METADATA_TEXT)


def _mixed_ids_supported():
    """Whether Index.add numbers the documents given no id among others given one (ids with None
    entries): then a batch may mix them, else it gives every document an id or none."""
    from ..index import core

    try:
        core._check_ids([None, "x"], 2)
    except (TypeError, ValueError):
        return False
    except Exception:   # pragma: no cover - another signature: do not rely on it
        return False
    return True


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


_WHOLE_NUMBER = re.compile(r"-?[0-9]{1,19}")


def _known_parameters(request: Request):
    """A dependency of every route: a query parameter the route does not take is a 422 (the schema
    lists each route's parameters, and no others), as a mistyped name would be silently ignored;
    so is one given twice (no route takes a list: the framework would keep the last silently,
    as a JSON key given twice would be). The search page (not in the schema) reads its own."""
    route = request.scope.get("route")
    if not request.scope.get("query_string") or route is None or not getattr(route, "include_in_schema", False):
        return
    known = {p.alias for p in route.dependant.query_params}
    seen = set()
    for name, _ in request.query_params.multi_items():
        if name not in known:
            raise _fail(422, f"unknown query parameter {name[:80]!r} (this route takes: "
                             f"{', '.join(sorted(known)) or 'none'})")
        if name in seen:
            raise _fail(422, f"the query parameter {name[:80]!r} is given more than once")
        seen.add(name)
    # numbers and booleans as strict as in a body (issue 45): the framework would read "5_0" as
    # 50, " 5" and "+5" as 5, and "1", "on" or "yes" as true
    for param in route.dependant.query_params:
        value = request.query_params.get(param.alias)
        kind = param.field_info.annotation
        if value is None or kind not in (int, bool):
            continue
        if kind is int and not _WHOLE_NUMBER.fullmatch(value):
            raise _fail(422, f"{param.alias} must be a whole number written in digits; got {value[:40]!r}")
        if kind is bool and value not in ("true", "false"):
            raise _fail(422, f"{param.alias} must be true or false; got {value[:40]!r}")


def create_app(index_path, *, read_only=False, api_key=None, max_body_bytes=1_000_000,
               max_query_chars=10_000, max_pending=64, timeout_s=30, deadline_s=10, host="127.0.0.1",
               allowed_hosts=(), cors_origins=(), protect_reads=False, background=False, learn_from_clicks=False,
               feedback_max_days=90.0, feedback_max_rows=1_000_000, interleave=0.0, interleave_pool=100,
               seed=None, feedback_max_bytes=None, feedback_client_share=None, allow_anonymous_learning=False,
               feedback_ipv6_prefix=64):
    """A FastAPI application serving the index at ``index_path`` (see the module notes).

    Parameters
    ----------
    index_path : str or Path
        An index directory (``learnsim index build``); opened once, here.
    read_only : bool, default=False
        Refuse every write with 403.
    api_key : str, optional
        When given, writes need ``Authorization: Bearer KEY`` or ``X-API-Key: KEY`` (else 401),
        checked before the body is read. Reads stay open unless ``protect_reads``.
    max_body_bytes : int, default=1_000_000
        Larger request bodies get 413.
    max_query_chars : int, default=10_000
        Longer queries, texts and documents (search, match, explain) get 413.
    max_pending : int, default=64
        Requests allowed to wait for the index at once; more get 429 with ``Retry-After``.
    timeout_s : float, default=30
        How long a request waits for the index before it gets 503.
    deadline_s : float, default=10
        A request still running after this long is stopped between two pieces of its work and
        answered 503.
    host : str, default="127.0.0.1"
        The address the service is bound to: the ``Host`` names it answers follow from it
        (:func:`allowed_host_names`).
    allowed_hosts : iterable of str
        More ``Host`` names to answer (``"*"``: any; the DNS-rebinding check is then off).
    cors_origins : iterable of str
        Origins (``https://app.example``) given CORS headers and allowed to write; none by default.
    protect_reads : bool, default=False
        With ``api_key``, every route but ``/healthz`` and ``/openapi.json`` needs the key.
    background : bool, default=False
        Return once the index is opened (its manifest, segment descriptions and document count
        checked), before the rest is loaded: every segment's rows and the query plan are checked
        first on the index's thread (``Index.warm(search=False)``), then the kernels and the
        approximate structures warm up there (:meth:`Index.warm`), and the model loads in a
        thread of its own. Until the check is done ``/healthz`` answers 503 ``{"status":
        "starting"}`` (requests wait for it in the queue); damage found on the way makes the
        status "degraded" with the damage named, as damage found by a request does. A request
        that needs the model waits for its load. ``learnsim serve`` sets it, so that the service
        answers within a second or two of its start whatever the size of the model; without it
        everything is loaded and checked before this returns.
    learn_from_clicks : bool, default=False
        Record every search answered (an impression, named in the answer) and the results
        followed (``POST /v1/feedback``, the page's links) in ``feedback.sqlite`` beside the index
        (:mod:`learnsim.service._feedback`). Not with ``read_only``: feedback is a write.
    feedback_max_days, feedback_max_rows : float, int
        The log's retention: records older than this many days, and past this many impressions
        the oldest, are dropped.
    feedback_max_bytes, feedback_client_share : int, float, optional
        The log's bound in bytes (default 256 MiB) and the share of it one client may hold
        (default 0.1); past them impressions are dropped (counted in ``/v1/info``) and clicks
        refused (507).
    allow_anonymous_learning : bool, default=False
        ``learn_from_clicks`` without ``api_key`` on an address other than a loopback one is
        refused (ValueError) unless this is set: anyone who reaches the service would feed what
        it learns, each address counted as one client (an IPv6 one by its network of
        ``feedback_ipv6_prefix`` bits, 48 to 64, default 64).
    interleave : float in [0, 1], default=0
        With a candidate model staged in the index (:meth:`Index.stage`), the share of single
        searches answered by a team-draft interleaving of the served and the candidate ranking
        (needs ``learn_from_clicks``).
    interleave_pool : int, default=100
        The served model's hits the candidate re-ranks for an interleaved search.
    seed : int, optional
        Seeds which searches are interleaved and the draft's coin (for tests).

    Returns
    -------
    fastapi.FastAPI
        With ``app.state.index`` (the read handle), ``app.state.worker`` and ``app.state.writer``
        (the :class:`~learnsim.service._worker.IndexWorker` of the reads and of the writes),
        ``app.state.damage`` (None, or the message of the first damage seen).

    Raises
    ------
    FileNotFoundError, IndexFormatError
        When ``index_path`` holds no valid index.
    ValueError
        For a bad option.

    Examples
    --------
    A tiny index in a temporary directory (its model fitted on six texts, too few to check it
    against the baseline, which the fit warns about), served in process by FastAPI's
    ``TestClient``, whose requests name the host ``testserver`` (allowed here; any other host
    than the bound address gets 421):

    >>> import os, tempfile
    >>> import learnsim
    >>> from learnsim.index import Index
    >>> from learnsim.service import create_app
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])
    >>> path = os.path.join(tempfile.mkdtemp(), "index")
    >>> Index.build(path, model, texts, ids=["a", "b", "c", "d", "e", "f"]).close()
    >>> app = create_app(path, allowed_hosts=["testserver"])
    >>> from fastapi.testclient import TestClient
    >>> with TestClient(app) as client:
    ...     response = client.get("/v1/search", params={"q": "I forgot my password", "k": 2})
    >>> response.status_code
    200
    >>> hit = response.json()["hits"][0]
    >>> hit["rank"], hit["id"], hit["text"]
    (1, 'b', 'forgot my password')
    """
    for name, value, low in (("max_body_bytes", max_body_bytes, 1), ("max_query_chars", max_query_chars, 1),
                             ("max_pending", max_pending, 0), ("timeout_s", timeout_s, 0),
                             ("deadline_s", deadline_s, 0)):
        _check_option(name, value, low)
    if api_key is not None and (not isinstance(api_key, str) or not api_key):
        raise ValueError("api_key must be a non-empty str (or None for no key)")
    if api_key is not None and key_problem(api_key):
        raise ValueError(f"api_key: {key_problem(api_key)}")
    if protect_reads and api_key is None:
        raise ValueError("protect_reads needs an api_key")
    allowed_hosts = [allowed_hosts] if isinstance(allowed_hosts, str) else list(allowed_hosts)
    cors_origins = [cors_origins] if isinstance(cors_origins, str) else list(cors_origins)
    for origin in cors_origins:
        if not re.fullmatch(r"https?://[^/\s]+", str(origin).rstrip("/")):
            raise ValueError(f"a CORS origin is scheme://host[:port] (no path); got {origin!r}")
    hosts = allowed_host_names(str(host), allowed_hosts)
    if learn_from_clicks and read_only:
        raise ValueError("a read-only service takes no feedback: learn_from_clicks needs writes")
    if interleave and not learn_from_clicks:
        raise ValueError("interleave needs learn_from_clicks (its outcome is read from the click log)")
    if learn_from_clicks and api_key is None and not allow_anonymous_learning and not is_loopback(host):
        raise ValueError(f"learn_from_clicks on {host} without an api_key: anyone who reaches it would feed what it "
                         "learns (allow_anonymous_learning=True to accept that, each address counted as one client)")
    index = Index.open(index_path)
    if background:
        write_index = Index.open(index_path)
    else:
        # a search needs only the index's query plan, but a write, a match, an explanation and
        # the page need the model: loaded now, or the first of them would hold every request
        # behind it for as long as the load takes (seconds: scikit-learn's import, the model's checks)
        index.pipeline
        index.warm()
        # the write handle shares the loaded model (read-only once fitted)
        write_index = Index.open(index_path, _pipeline=index.pipeline)
    # searches and writes on threads of their own, side by side (_worker's docstring says why
    # they no longer take turns)
    worker = IndexWorker(index, int(max_pending), float(timeout_s), trace=_search_trace())
    writer = IndexWorker(write_index, int(max_pending), float(timeout_s), next_to=worker)
    new_words = NewWords()      # what a write's new words are answered and logged as
    key = api_key.encode() if api_key is not None else None
    static = {name: resources.files(__package__).joinpath("static", name).read_bytes() for name in _STATIC}
    versions = _versions()
    mixed_ids = _mixed_ids_supported()
    root = Path(index_path)
    deadline_s = float(deadline_s)
    # what the scores are, from the read handle's manifest: read at each answer, as a promotion
    # (learnsim index promote, issue 34) may change the model's kind while the service runs
    def found_score():
        return _score_names(index)

    recorder = None
    if learn_from_clicks:
        from ..feedback._log import MAX_QUERY_CHARS as MAX_LOGGED_QUERY
        from ..feedback._log import FeedbackLogError, LogDamaged, LogFull, LogTooNew, NotTheSearcher
        from ._feedback import IMPRESSION_WAIT_S, ClickRecorder

        recorder = ClickRecorder(root, max_days=feedback_max_days, max_rows=feedback_max_rows, seed=seed,
                                 max_bytes=feedback_max_bytes, client_share=feedback_client_share, interleave=interleave,
                                 pool=interleave_pool, max_pending=int(max_pending), timeout_s=float(timeout_s),
                                 ipv6_prefix=feedback_ipv6_prefix)

    @asynccontextmanager
    async def lifespan(app):
        # what was loaded to start (the model, scikit-learn, the framework) lives as long as the
        # service: out of the collector's sight, a full collection no longer walks it all, which
        # stalled every request in flight for 50-100 ms now and then (benchmarks/bench_serve.py)
        gc.collect()
        gc.freeze()
        yield
        writer.close()   # what is queued runs first: nothing acknowledged is dropped
        new_words.flush()
        if recorder is not None:
            recorder.close()
        worker.close()
        write_index.close()
        index.close()

    # FastAPI's /docs and /redoc load their scripts from a CDN: /docs is served here (_docs)
    app = _Service(title="learnsim", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  dependencies=[Depends(_known_parameters)],
                  description="Search, match and explain over a learnsim index.\n\n" + _BOUNDS_TEXT)
    # request bodies are read strictly: no key twice, at most MAX_JSON_DEPTH levels (_http.body_json)
    app.router.route_class = StrictJSONRoute
    app.state.index, app.state.worker, app.state.writer, app.state.damage = index, worker, writer, None
    app.state.recorder = recorder
    app.state.warm_up = _start_in_background(app, index, worker, writer, root) if background else None

    @app.exception_handler(HTTPException)
    async def _http_error(request, exc):
        if exc.status_code == 405:
            # every method of the path, not only those of the first route that matched it
            methods = set()
            for route in app.router.routes:
                if getattr(route, "methods", None) and route.matches(request.scope)[0] != Match.NONE:
                    methods |= route.methods
            if "GET" in methods and request.url.path != "/click":
                methods.add("HEAD")     # answered as the GET (_guard), as /openapi.json's Allow said
            if methods:
                return _error(405, exc.detail, {"Allow": ", ".join(sorted(methods))})
        return _error_of(exc)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request, exc):
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            return _error(400, "the body is not valid JSON")
        # no body, or one that is not a JSON object (a wrong Content-Type lands here too)
        if any(tuple(e.get("loc", ()))[:1] == ("body",) and tuple(e.get("loc", ()))[1:] in _WHOLE_BODY
               and e.get("type") in _NOT_AN_OBJECT for e in errors):
            return _error(400, "the body must be a JSON object (Content-Type: application/json)")
        return _error(422, _validation_message(errors, getattr(exc, "body", None)))

    @app.exception_handler(Exception)
    async def _bug(request, exc):
        missing = _missing_package(exc)
        if missing is not None:
            log.error("%s %s: %s", request.method, request.url.path, missing)
            return _error(503, missing)
        log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
        return _error(500, f"internal error ({type(exc).__name__}); see the server log")

    @contextmanager
    def index_errors(by_id):
        """The index's exceptions as answers: an unknown id (``by_id``) is 404, bad input 400, a
        damaged index 503 ``index_damaged`` (the file named relative to the index)."""
        try:
            yield
        except HTTPException:
            raise
        except KeyError as exc:
            if not by_id:
                raise   # a bug: 500
            # by_id: True, or (the path's id,): one over the bound is refused as a write refuses it
            too_long = long_id_problem(by_id[0]) if isinstance(by_id, tuple) else None
            raise _fail(422 if too_long else 404, too_long or (exc.args[0] if exc.args else "not found")) from None
        except IndexChangingError as exc:
            raise _fail(503, str(exc), {"Retry-After": str(_RETRY_AFTER_S)}) from None
        except IndexFormatError as exc:
            log.error("the index is damaged: %s", exc)
            message = _short(_damage_message(exc, root))
            if app.state.damage is None:
                app.state.damage = message
            raise _fail(503, f"the index is damaged: {message}", name="index_damaged") from None
        except (ValueError, TypeError) as exc:
            raise _fail(400, str(exc) or type(exc).__name__) from None
        except ImportError as exc:
            missing = _missing_package(exc)
            if missing is None:
                raise   # a bug: 500
            log.error("%s", missing)
            raise _fail(503, missing) from None
        except OSError as exc:
            # the machine's refusal of a write (a read-only file or mount, a full disk): no bug
            # (500) and nothing acknowledged; the answer names no path of the server
            why = unwritable_reason(exc)
            if why is None:
                raise
            log.error("a write to the index failed: %s", exc)
            raise _fail(503, f"the index cannot be written ({why}); nothing was written, retry once it can be",
                        {"Retry-After": str(_RETRY_AFTER_S)}) from None

    def deadline():
        return time.monotonic() + deadline_s

    def past_deadline():
        return _fail(503, f"the request ran past its deadline of {deadline_s:g} s and was stopped; "
                          "ask for less (fewer queries, a smaller k, no explain)",
                     {"Retry-After": str(_RETRY_AFTER_S)})

    async def run(fn, by_id=False, on=worker, until=None, **search):
        """``fn(index)`` in the thread of ``on`` (the reads' worker or the writes'), or a
        batchable search (``key``, ``queries``); not started after ``until`` (a deadline)."""
        wait = on.timeout_s
        if until is not None:
            left = until - time.monotonic()
            if left <= 0:
                raise past_deadline()
            wait = min(wait, left)
        try:
            with index_errors(by_id):
                return await on.call(fn, timeout=wait, **search)
        except Busy:
            raise _fail(429, f"the index is busy ({on.waiting} requests waiting); retry later",
                        {"Retry-After": str(_RETRY_AFTER_S)}) from None
        except TimedOut:
            if until is not None and time.monotonic() >= until:
                raise past_deadline() from None
            raise _fail(503, f"the index was not free within {on.timeout_s:g} s; retry later",
                        {"Retry-After": str(_RETRY_AFTER_S)}) from None

    async def explained(pairs, n_top, until, labels=False, searched=False):
        """The explanation of each (query, text) of ``pairs``: CHUNK_EXPLAIN a call (``labels``:
        and the set of the versions' labels that explained them; ``searched``: hits of searches,
        each query explained as the search read it, Index.read_query)."""
        out, seen = [], set()
        for start in range(0, len(pairs), CHUNK_EXPLAIN):
            piece = pairs[start:start + CHUNK_EXPLAIN]

            def explain_piece(idx, piece=piece):
                statistics = idx.statistics or None   # read from disk once a piece
                read = {q: idx.read_query(q) for q in {q for q, _ in piece}} if searched else None
                return Labelled([idx.pipeline.explain(read[q] if searched else q, t, n_top=n_top,
                                                      statistics=statistics) for q, t in piece],
                                labelled(idx))

            part = await run(explain_piece, until=until)
            out.extend(part)
            seen.add(part.label)
        return (out, seen) if labels else out

    async def searched(queries, k, conditions, explain, n_top, until, offset=0):
        """(one list of hits per query, the label of the version that found them): searched in
        pieces one after another (searches with the same depth and filter that wait together run
        as one batch), then explained in pieces. Pieces are separate calls: when a promotion or a
        rollback falls between two, the answer would mix versions, and it is searched again.
        ``offset``: the hits ranked offset + 1 to offset + k (a search of offset + k)."""
        depth = offset + k
        key = (depth, json.dumps(conditions, sort_keys=True))
        for _ in range(_SAME_VERSION_TRIES):
            results, labels = [], set()
            for group in _groups(queries, depth):
                part = await run(lambda idx, qs: Labelled(idx.search(qs, depth, filter=conditions), labelled(idx)),
                                 key=key, queries=group, until=until)
                # the hits skipped are never explained nor sent (each kept its rank in the whole)
                results.extend(hits[offset:] for hits in part)
                labels.add(part.label)
            if explain and len(labels) == 1:
                labels |= await explain_into(queries, results, n_top, until)
            if len(labels) == 1:
                return results, labels.pop()
        raise _fail(503, "the model version changed during every try of this search; retry",
                    {"Retry-After": str(_RETRY_AFTER_S)})

    async def explain_into(queries, results, n_top, until):
        """Explain the hits in place; the labels of the versions that explained them."""
        todo = [(q, h) for q, hits in zip(queries, results) for h in hits]
        explanations, labels = await explained([(q, h["text"]) for q, h in todo], n_top, until, labels=True,
                                               searched=True)
        for (_, h), e in zip(todo, explanations):
            h["explanation"] = e
        return labels

    def served_model(idx):
        return f"v{int(getattr(idx, 'model_version', 1))}"

    def unlogged(scope, offset=0):
        """Why a search is answered and not learned from (the reason /v1/info counts), or None:
        another site's page made the visitor's browser send it (an <img>, a fetch: what it
        searched for is that site's choice); a page past the first (the log's positions are
        ranks from 1); no key on a service with one (no click can name it: a click needs the
        key, and with it is the holder's; logged, keyless callers of ten addresses filled the
        log's bound and the holder's were dropped). Nor is such a search interleaved: it would
        show the candidate's picks for no evidence."""
        if cross_site(scope):
            return "cross_site"
        if offset:
            return "paged"
        return "keyless" if key is not None and not _authorized(scope.get("headers", []), key) else None

    async def record(queries, results, scope, until, interleaved=None, version=None, offset=0):
        """Log an impression for each query answered (before the answer is sent: a click that
        names it must find it); their ids, None for one not logged. Never an error, never a
        wait of more than IMPRESSION_WAIT_S (issue 45: a busy, locked, damaged or full log drops
        the impression, counted by the recorder). A page past the first (``offset``) is not
        logged: the log's positions are ranks from 1, and its first hit was not ranked 1."""
        # the key's holder only with the key of a service that has one: X-Client-Id is ignored
        # on a service without a key (anyone could give each click a new name)
        authorized = key is not None and _authorized(scope.get("headers", []), key)
        client = recorder.client_of(scope, authorized, recorder.ipv6_prefix)
        # the version that produced the answer (its label), not the one served by now
        model = interleaved[1] if interleaved else version or served_model(index)
        teams = interleaved[0] if interleaved else None
        stop = time.monotonic() + max(0.001, min(IMPRESSION_WAIT_S, until - time.monotonic()))
        out = [None] * len(queries)
        if scope.get(HEAD):
            return out      # a HEAD: nobody sees the answer, so nothing can be clicked in it
        # nothing to learn from (and nothing the log takes): no hit, a blank query, one over the
        # log's bound (a service may take longer queries than the log keeps)
        kept = [n for n, (q, hits) in enumerate(zip(queries, results))
                if hits and q.strip() and len(q) <= MAX_LOGGED_QUERY]
        why = unlogged(scope, offset) if kept else None
        if why is not None:
            recorder._drop(why, len(kept))
            return out
        items = [(queries[n], [h["id"] for h in results[n]], model, client, teams) for n in kept]
        try:
            tokens = await recorder.impressions(items, timeout=stop - time.monotonic()) if items else []
        except ValueError:
            # one is over the log's bounds (an id of an index built in Python): the others
            # are still logged, one by one
            tokens = []
            for item in items:
                try:
                    tokens.extend(await recorder.impressions([item], timeout=max(0.001, stop - time.monotonic())))
                except ValueError:
                    # counted, and logged at most once every DROP_WARNING_S: a client sending
                    # such searches over and over must not fill the server's log
                    recorder._drop("invalid", 1)
                    tokens.append(None)
        for n, token in zip(kept, tokens):
            out[n] = token
        return out

    def check_query(*texts):
        for text in texts:
            if len(text) > max_query_chars:
                raise _fail(413, f"a query is longer than {max_query_chars} characters ({len(text)})")

    def check_document(field, text):
        # the bound of a query holds for what is stored too: a document's text comes back in
        # every answer that finds it (a budget of 2,000 hits assumes about 1 MB of them), and
        # it is the query of GET /v1/docs/{id}/similar
        if len(text) > max_query_chars:
            raise _fail(413, f"{field} is longer than {max_query_chars} characters ({len(text)})")
        check_content(field, text, "to find it by")

    def check_content(field, text, purpose="to search for"):
        # an empty query, or spaces and punctuation alone, has no term: it would rank the
        # collection arbitrarily (and a document of that kind could never be found)
        if not has_content(text):
            raise _fail(422, f"{field} has no letter or digit: it is empty, or spaces and punctuation alone, "
                             f"with nothing {purpose}")

    def check_budget(n_queries, k, explain, n_top, offset=0):
        # the hits read (offset + k a query) against the budget of hits; those explained are
        # the k given
        check_offset(offset, k)
        if offset and n_queries * (offset + k) > MAX_HITS:
            raise _fail(422, f"queries x (offset + k) = {n_queries} x {offset + k} is over the budget of {MAX_HITS} "
                             "hits of one request (MAX_HITS): a search reads offset + k hits to answer k")
        problem = search_budget(n_queries, k, explain, n_top)
        if problem:
            raise _fail(422, problem)

    def doc_id_of(request, doc_id):
        # routed by the raw path (_BodyLimit): the id as the client encoded it
        return request.scope.get("learnsim.doc_id", doc_id)

    # ---------------------------------------------------------------- reads
    @app.get("/healthz")
    async def healthz():
        # the click log's file is looked at here too (a stat and 100 bytes): damage done to it
        # while no one writes is reported at once (issue 45)
        log_damage = recorder.check_damage() if recorder is not None else None
        if app.state.damage is not None or log_damage is not None:
            out = {"status": "degraded", "damage": app.state.damage or log_damage}
            if log_damage is not None:
                out["feedback_log"] = log_damage
            return _json(out)
        warm_up = app.state.warm_up
        if warm_up is not None and not warm_up.done():
            # (background) the rows and the plan are being checked; requests wait for it
            answer = _json({"status": "starting"}, status=503)
            answer.headers["Retry-After"] = str(_RETRY_AFTER_S)
            return answer
        return _json({"status": "ok"})

    @app.get("/v1/info")
    async def info(request: Request):
        def read(idx):
            out = idx.info()
            out["last_comparison"] = page.last_comparison(idx)
            out["warnings"] = [] if model_loading(app) else _rule_warnings(idx.pipeline)
            # no wait for a model loading in the background (the reads' thread would hold the searches)
            return out, None if model_loading(app) else repr(idx.pipeline)

        out, pipeline = await run(read, until=deadline())
        last = out.get("last_comparison") or {}
        if last.get("damaged") and app.state.damage is None:
            # versions.json damaged: searches go on (nothing is interleaved), /healthz says so
            app.state.damage = _short(last["reason"])
        # the server's directory layout is none of a client's business: the name is enough
        out["path"] = Path(out["path"]).name
        out.update(version=__version__, pipeline=pipeline, model="loading" if pipeline is None else "loaded")
        if key is None or _authorized(request.headers, key):
            out["versions"] = versions   # what a bug report needs, and an attacker would like
        out.setdefault("method", index.manifest.get("method"))
        names = found_score()
        out.update(higher_is_better=names["similar"][1], search_score=names["search"][0])
        if recorder is not None:
            out["learn_from_clicks"] = {"interleave": recorder.interleave, "pool": recorder.pool,
                                        **recorder.counts()}
        return _json(out)

    def labelled(idx):
        """(model version, score names) of the state the read handle has loaded: taken in the
        worker's call that produced the answer it labels, never after (issue 45: a promotion
        between the two would label one version's ranking with the other's score)."""
        names = _score_names(idx)
        return served_model(idx), tuple(sorted(names.items()))

    def scored(name, label=None, **body):
        """``body`` with the score's name and which way is better: those of ``label`` (the
        version that produced the answer, named as ``"model_version"``), else the index's now."""
        if label is None:
            score, higher = found_score()[name]
            return _json(dict(body, score=score, higher_is_better=higher))
        version, names = label
        score, higher = dict(names)[name]
        return _json(dict(body, score=score, higher_is_better=higher, model_version=version))

    async def search_answer(q, k, filter, explain, n_top, scope=None, offset=0, include=None):
        check_query(q)
        check_content("q", q)
        check_budget(1, k, explain, n_top, offset)
        include = parse_include(include)
        conditions = _parse_filter(filter)
        until = deadline()
        if recorder is None:
            (hits,), label = await searched([q], k, conditions, explain, n_top, until, offset)
            return scored("search", label, hits=shown(hits, include))
        mixed = None
        # a page past the first is the served ranking's (an interleaving drafts from the top)
        if unlogged(scope or {}, offset) is None and recorder.wants_interleaving():
            mixed, label = await interleaved_answer(
                lambda: run(lambda idx: (recorder.interleaved(idx, q, k, conditions), labelled(idx)), until=until),
                explain_into, q, explain, n_top, until, _SAME_VERSION_TRIES)
        if mixed is None:
            (hits,), label = await searched([q], k, conditions, explain, n_top, until, offset)
        else:
            hits = mixed[0]     # explained, by the version it names (learnsim.service._interleaved)
        impression, = await record([q], [hits], scope or {}, until, mixed and mixed[1:], version=label[0],
                                   offset=offset)
        extra = {"impression": impression} if mixed is None else {"impression": impression, "interleaved": True,
                                                                  "candidate_version": mixed[2].split("|")[1]}
        return scored("search", label, hits=shown(hits, include), **extra)

    # plainly valid requests are answered by search_answer before they reach this route (see
    # learnsim.service._fast): the route answers the rest, with the framework's validation
    @app.get("/v1/search")
    async def search(request: Request, q: str, k: int = Query(10, ge=1, le=MAX_K),
                     filter: Optional[str] = None, explain: bool = False,
                     n_top: int = Query(10, ge=1, le=MAX_N_TOP), offset: int = Query(0, ge=0, le=MAX_OFFSET),
                     include: Optional[str] = None):
        return await search_answer(q, k, filter, explain, n_top, scope=request.scope, offset=offset, include=include)

    @app.post("/v1/search")
    async def search_batch(body: SearchBatch, request: Request):
        check_query(*body.queries)
        for n, q in enumerate(body.queries):
            check_content(f"queries[{n}]", q)
        check_budget(len(body.queries), body.k, body.explain, body.n_top, body.offset)
        include = parse_include(body.include)
        conditions = _check_filter(body.filter, BODY_FILTER)
        until = deadline()
        results, label = await searched(body.queries, body.k, conditions, body.explain, body.n_top, until,
                                        body.offset)
        shown_results = [shown(hits, include) for hits in results]
        if recorder is None:
            return scored("search", label, results=shown_results)
        # a batch is not interleaved (a program's batch is rarely clicked as a whole): each
        # query's answer is logged as the served ranking's
        impressions = await record(body.queries, results, request.scope, until, version=label[0],
                                   offset=body.offset)
        return scored("search", label, results=shown_results, impressions=impressions)

    # declared before /v1/docs/{id}; _BodyLimit routes /v1/docs/... by the raw path
    @app.get("/v1/docs/{doc_id:path}/similar")
    async def similar(doc_id: str, request: Request, k: int = Query(10, ge=1, le=MAX_K),
                      filter: Optional[str] = None, offset: int = Query(0, ge=0, le=MAX_OFFSET),
                      include: Optional[str] = None):
        doc_id = doc_id_of(request, doc_id)
        check_offset(offset, k)
        include = parse_include(include)
        conditions = _parse_filter(filter)
        return await similar_answer(doc_id, k, conditions, offset, include)

    @app.post("/v1/docs/{doc_id:path}/similar")
    async def similar_by_post(doc_id: str, request: Request, body: SimilarRequest):
        doc_id = doc_id_of(request, doc_id)
        check_offset(body.offset, body.k)
        include = parse_include(body.include)
        return await similar_answer(doc_id, body.k, _check_filter(body.filter, BODY_FILTER), body.offset, include)

    async def similar_answer(doc_id, k, conditions, offset=0, include=None):
        hits, label = await run(lambda idx: (idx.more_like(doc_id, offset + k, filter=conditions), labelled(idx)),
                                by_id=(doc_id,), until=deadline())
        return scored("similar", label, id=doc_id, hits=shown(hits[offset:], include))

    # no :path here: _BodyLimit gives these routes /v1/docs/- (the id is in the scope), so a
    # literal /similar path matches the similar route alone (405 for a DELETE of it)
    @app.get("/v1/docs/{doc_id}")
    async def document(doc_id: str, request: Request):
        doc_id = doc_id_of(request, doc_id)
        text, metadata = await run(lambda idx: idx.document(doc_id), by_id=(doc_id,), until=deadline())
        return _json({"id": doc_id, "text": text, "metadata": metadata})

    @app.post("/v1/match")
    async def match(body: Union[MatchText, MatchPairs]):
        until = deadline()
        texts = [body.text] if isinstance(body, MatchText) else [t for pair in body.pairs for t in pair]
        check_query(*texts)
        if isinstance(body, MatchText):
            check_content("text", body.text, "to match")
        else:
            for n, pair in enumerate(body.pairs):
                for side, text in enumerate(pair):
                    check_content(f"pairs[{n}][{side}]", text, "to match")
        conditions = _check_filter(body.filter, BODY_FILTER) if isinstance(body, MatchText) else None

        def rule(idx):
            if idx.pipeline.matcher is None:
                raise _fail(422, f"this {idx.pipeline.method} model has no duplicate rule "
                                 "(only a FILM fitted on labelled pairs has one)")
            # what learnsim match and fit say of the rule (a threshold of +inf calls no pair a
            # duplicate): the version's own, read in the call that decides
            return _rule_warnings(idx.pipeline)

        if isinstance(body, MatchText):
            def decide(idx):
                warned = rule(idx)
                return idx.match(body.text, body.k, filter=conditions), labelled(idx), warned

            # each match: the search's score, and the rule's probability (or predicted_score)
            matches, label, warned = await run(decide, until=until)
            return scored("search", label, matches=matches, warnings=warned)
        pairs = [tuple(p) for p in body.pairs]
        # pieces are separate calls: decided again when a promotion or a rollback fell between
        # two (as a search is), so that every decision is one version's, the one named
        for _ in range(_SAME_VERSION_TRIES):
            decisions, seen = [], set()
            # a rule that decides a pair among the texts decided with it (the kNN rule) gets them
            # all at once, as learnsim match and Pipeline.match give them: in pieces of 100, 15 of
            # 250 pairs were decided otherwise (which rule: asked of the version each call runs)
            start = 0
            while start < len(pairs):
                def decide_piece(idx, start=start):
                    warned = rule(idx)
                    together = getattr(idx.pipeline.matcher, "decides_together", False)
                    piece = pairs if together else pairs[start:start + CHUNK_PAIRS]
                    if together and start:
                        return None, None, together     # promoted to such a rule since the first piece
                    return (idx.pipeline.match(piece), (served_model(idx), _rule_score_name(idx.pipeline.matcher),
                                                        tuple(warned)), together)

                decided, label, together = await run(decide_piece, until=until)
                if decided is None:
                    seen.update(("a piece", "then all"))    # decided again, whole
                    break
                start = len(pairs) if together else start + CHUNK_PAIRS
                decisions.extend(decided)
                seen.add(label)
            if len(seen) == 1:
                version, name, warned = seen.pop()
                return _json({"decisions": decisions, "score": name, "higher_is_better": True,
                              "model_version": version, "warnings": list(warned)})
        raise _fail(503, "the model version changed during every try of this match; retry",
                    {"Retry-After": str(_RETRY_AFTER_S)})

    @app.post("/v1/explain")
    async def explain(body: ExplainRequest):
        check_query(body.query, body.document)
        check_content("query", body.query, "to explain")
        check_content("document", body.document, "to explain")
        return _json((await explained([(body.query, body.document)], body.n_top, deadline()))[0])

    # ---------------------------------------------------------------- feedback
    trusted_origins = frozenset(o.rstrip("/").lower() for o in cors_origins)

    def cross_site(scope):
        """Whether a browser says the request came from another site's page (Sec-Fetch-Site
        cross-site or same-site: another port of this host too) that is not one of
        ``cors_origins``. A GET carries no Origin a page cannot avoid sending, so this is what
        tells; a request from a program (no such header), a typed address or a bookmark ("none")
        and this service's own page ("same-origin") are not."""
        fetch_site = origin = host = None
        for name, value in scope.get("headers", ()):
            if name == b"sec-fetch-site":
                fetch_site = value.decode("latin-1").strip().lower()
            elif name == b"origin":
                origin = value.decode("latin-1").rstrip("/").lower()
            elif name == b"host":
                host = value.decode("latin-1").lower()
        if origin is not None and origin not in trusted_origins \
                and origin != f"{scope.get('scheme', 'http')}://{host}":
            return True     # an Origin of another site, sent or not with Sec-Fetch-Site (a POST's rule)
        return fetch_site in ("cross-site", "same-site") and origin not in trusted_origins

    async def record_clicks(impression, clicked, scope, dwell=None, relevance=None):
        if recorder is None:
            raise _fail(404, "this service records no feedback (learnsim serve --learn-from-clicks)")
        authorized = key is not None and _authorized(scope.get("headers", []), key)
        retry = {"Retry-After": str(_RETRY_AFTER_S)}
        try:
            # at most CLICK_WAIT_S for the log's thread, the write's own wait for a lock bounded too
            return await recorder.clicks(impression, clicked, dwell=dwell, relevance=relevance,
                                         client=recorder.client_of(scope, authorized, recorder.ipv6_prefix))
        except KeyError as exc:
            raise _fail(404, exc.args[0] if exc.args else "no such impression") from None
        except NotTheSearcher as exc:
            # the same X-Client-Id (with the key), or the same address, as the search
            raise _fail(403, str(exc), name="not_the_searcher") from None
        except LogTooNew as exc:     # a ValueError too, but the log's state, not the request's
            raise _fail(503, f"{exc}; the click was not recorded", name="feedback_log_too_new") from None
        except ValueError as exc:
            raise _fail(422, str(exc)) from None
        except LogFull as exc:
            raise _fail(507, f"{exc}; the click was not recorded") from None
        except LogDamaged as exc:
            # not acknowledged: what is answered 201 must be readable again after a restart
            raise _fail(503, f"{exc}; the click was not recorded (move the log away and restart to start a new one)",
                        name="feedback_log_damaged") from None
        except (Busy, TimedOut, FeedbackLogError) as exc:
            why = str(exc) if isinstance(exc, FeedbackLogError) else "the click log is busy"
            raise _fail(503, f"{why}; the click was not recorded, retry later", retry) from None

    # a write: the key, read_only, the Origin and the Content-Type were checked by _BodyLimit
    @app.post("/v1/feedback", status_code=201)
    async def feedback(body: FeedbackRequest, request: Request):
        """Record the results of an answered search that were followed (its ``impression``)."""
        n = await record_clicks(body.impression, body.clicked, request.scope, body.dwell, body.relevance)
        return _json({"impression": body.impression, "recorded": n}, status=201)

    @app.get("/click", include_in_schema=False)
    async def click(request: Request):
        """The page's result links: record the click, then show the document (303 to its view)."""
        params = request.query_params
        impression, doc_id = params.get("i"), params.get("d")
        # each name once: repeated, the last would be recorded silently (a click feeds learning)
        names = sorted(name for name, _ in params.multi_items())
        if not impression or not doc_id or names != ["d", "i"] or len(impression) > 100:
            raise _fail(400, "a click link is /click?i=IMPRESSION&d=ID")
        if not cross_site(request.scope):
            # a link of this page followed (or pasted); from another site's page, only shown
            try:
                await record_clicks(impression, [doc_id], request.scope)
            except HTTPException as exc:     # a link shown to another client (shared): shown, not learned from
                if getattr(exc, "name", None) != "not_the_searcher":
                    raise
        return Response(status_code=303, headers=dict(_PAGE_HEADERS, Location=page._link(similar=doc_id)))

    # ---------------------------------------------------------------- writes
    # the key, read_only, the Origin and the Content-Type were checked by _BodyLimit
    @app.post("/v1/docs", status_code=201)
    async def add(body: AddRequest):
        docs = body.documents
        for n, d in enumerate(docs):
            check_document(f"documents[{n}].text", d.text)
        ids = [d.id for d in docs]
        given = [i is not None for i in ids]
        if body.mode == "upsert":
            if not all(given):
                raise _fail(422, "an upsert gives every document an id")

            def upsert(idx):
                # Index.upsert returns once the change is durable: one transaction, one segment
                try:
                    counts, said = new_words.upsert(idx, [d.text for d in docs], ids, [d.metadata for d in docs])
                except ValueError as exc:
                    if "given twice" in str(exc):
                        raise _fail(409, str(exc)) from None
                    raise
                return counts, len(idx), said

            counts, n, said = await run(upsert, on=writer, until=deadline())
            return _json({"ids": [str(i) for i in ids], **counts, "documents": n, **said},
                         status=201 if counts["added"] else 200)
        if any(given) and not all(given) and not mixed_ids:
            raise _fail(422, "give every document an id, or none (then the index numbers them)")

        def write(idx):
            # Index.add returns once the documents are durable: only then is 201 sent
            try:
                added, said = new_words.add(idx, [d.text for d in docs], ids if any(given) else None,
                                            [d.metadata for d in docs])
            except ValueError as exc:
                if "already in the index" in str(exc) or "given twice" in str(exc):
                    raise _fail(409, str(exc)) from None   # a conflict of ids: nothing was added
                raise
            return added, len(idx), said

        added, n, said = await run(write, on=writer, until=deadline())
        return _json({"ids": added, "added": len(added), "documents": n, **said}, status=201)

    @app.put("/v1/docs/{doc_id}", status_code=201)
    async def put(doc_id: str, body: PutRequest, request: Request):
        """Add the document with this id, or replace it: 201 when it was new, 200 when replaced."""
        doc_id = doc_id_of(request, doc_id)
        if long_id_problem(doc_id):
            # the bound of an id in POST /v1/docs (DocumentIn): the path must not be a way around it
            raise _fail(422, long_id_problem(doc_id))
        check_document("text", body.text)
        (counts, said), n = await run(lambda idx: (new_words.upsert(idx, [body.text], [doc_id], [body.metadata]),
                                                   len(idx)), on=writer, until=deadline())
        return _json({"id": doc_id, **counts, "documents": n, **said}, status=201 if counts["added"] else 200)

    @app.delete("/v1/docs/{doc_id}")
    async def delete(doc_id: str, request: Request):
        doc_id = doc_id_of(request, doc_id)
        if await request.body():
            # the path names the one document deleted: a body (a list of ids?) would be ignored
            raise _fail(422, "DELETE /v1/docs/{id} takes no body: the path names the document deleted")
        n, left = await run(lambda idx: (idx.delete([doc_id]), len(idx)), by_id=(doc_id,), on=writer, until=deadline())
        return _json({"deleted": n, "documents": left})

    @app.post("/v1/reindex")
    async def reindex(request: Request):
        body = await request.body()
        if body.strip():
            try:
                value = body_json(body)
            except ValueError:
                raise _fail(400, "the body is not valid JSON") from None
            if not isinstance(value, dict) or value:
                raise _fail(422, "POST /v1/reindex takes no body, or {}")

        def redo(idx):
            idx.reindex()
            return idx.info()

        out = await run(redo, on=writer, until=deadline())
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

        message = page.refused_params(params.multi_items())
        if message is not None:   # answered as it stood, it was a view of what the address does not say
            return html(page.render_error(message, (q or "")[:200]), 400)

        # ASCII digits, few (str.isdigit takes "²" and "٣", which int() refuses or reads)
        if not (k_text.isascii() and k_text.isdigit() and len(k_text) <= 6) or not 1 <= int(k_text) <= page.MAX_PAGE_K:
            return html(page.render_error(f"k must be a whole number from 1 to {page.MAX_PAGE_K}", q), 400)
        k = int(k_text)
        if q is not None and len(q) > max_query_chars:
            return html(page.render_error(f"the query is longer than {max_query_chars} characters", q[:200], k), 413)
        if q is not None and not has_content(q):
            return html(page.render_error("the query has no letter or digit to search for", q[:200], k), 422)
        fragment = params.get("fragment") == "1"
        view = dict(q=q, k=k, similar=params.get("similar"), duplicates=params.get("duplicates"))
        until = deadline()
        mix = recorder is not None and q is not None and unlogged(request.scope) is None \
            and recorder.wants_interleaving()

        def gathered(idx):
            before = served_model(idx)   # the version whose score name and kind gather reads first
            data = page.gather(idx, info=not fragment, explain=False, loading=model_loading(app), **view)
            # the version that found these hits, for their impression: read later, a promotion
            # landing meanwhile labelled them with a model that had not ranked them
            data["_version"] = served_model(idx)
            mixed = recorder.interleaved(idx, q, k, None) if mix else None
            if mixed is not None:
                data["hits"], data["interleaved"] = mixed[0], mixed[1:]
            data["_versions"] = {before, data["_version"], served_model(idx)}   # (a search may load a switch)
            return data

        try:
            # gathered and explained by one version (learnsim.service._page_versions)
            data = await explained_page(lambda: run(gathered, by_id=True, until=until), lambda data, piece: run(
                lambda idx: (page.explain_hits(idx, data, piece), served_model(idx))[1], until=until),
                CHUNK_EXPLAIN, _SAME_VERSION_TRIES)
            if data is None:
                raise _fail(503, "the model version changed during every try of this search; retry",
                            {"Retry-After": str(_RETRY_AFTER_S)})
            hits = data["hits"] or []
            if recorder is not None and q is not None:
                data["impression"], = await record([q], [hits], request.scope, until, data.get("interleaved"),
                                                   version=data["_version"])
                # the page's click links are GETs a browser follows without the key: with a key
                # and open reads they would be refused, so the page shows none
                data["click_links"] = key is None or protect_reads
        except HTTPException as exc:
            return html(page.render_error(exc.detail, q, k), exc.status_code)
        return html(page.render_results(data) if fragment else page.render_page(data))

    @app.get("/static/{name}", include_in_schema=False)
    async def static_file(name: str):
        if name not in static:
            raise _fail(404, f"no file {name!r}")
        return Response(static[name], media_type=_STATIC[name], headers=_PAGE_HEADERS)

    add_docs_routes(app)

    # (it leaves /v1/match out for a model without a duplicate rule: while the model loads in the
    # background, the model file's manifest says whether it has one)
    app.openapi = lambda: _openapi(app, key is not None, protect_reads, max_query_chars, mixed_ids,
                                   can_match(index, model_loading(app)), recorder is not None)
    # the service's own layers, in front of the framework's (its error middleware, telemetry
    # and body limit): outermost, the connection's own address, what a client is counted by,
    # kept before the proxy headers are applied (learnsim serve runs uvicorn without its own;
    # issue 45); then the Host, UTF-8, key, Origin and body checks; CORS; and plainly valid
    # searches answered there (_fast), every other request going on to the framework
    from ._feedback import Peer

    front = FastSearch(_framework(app), answer=search_answer, error=_error_of, max_k=MAX_K, max_n_top=MAX_N_TOP)
    if cors_origins:
        from ._cors import ServiceCORS

        # lower case: the origin a browser sends (the Origin check of writes compares without case)
        front = ServiceCORS(front, [o.rstrip("/").lower() for o in cors_origins])
    front = _BodyLimit(front, max_bytes=int(max_body_bytes), hosts=hosts, key=key, read_only=read_only,
                       protect_reads=protect_reads, origins=cors_origins)
    app.front = Peer(front)
    return app


class _Service(FastAPI):
    """The service's application: a request goes through ``front`` (the service's own layers,
    set by :func:`create_app`) before the framework's. A plain search never reaches the
    framework: its middleware cost a tenth of the event loop's time a search under load
    (``benchmarks/bench_serve.py``, py-spy)."""

    front = None

    async def __call__(self, scope, receive, send):
        if self.front is None:
            await super().__call__(scope, receive, send)
        else:
            await self.front(scope, receive, send)


def _framework(app):
    """The ASGI callable of ``app``'s framework part (FastAPI's own handling, its middleware in front)."""
    async def framework(scope, receive, send):
        await FastAPI.__call__(app, scope, receive, send)

    return framework


# searches run again when a promotion or a rollback fell between the calls of one answer
_SAME_VERSION_TRIES = 3


TRACE_VARIABLE = "LEARNSIM_TRACE_SEARCHES"


def _search_trace():
    """The SearchTrace this process writes each search's times to (``searches-PID.tsv`` in the
    directory that ``LEARNSIM_TRACE_SEARCHES`` names; ``bench_serve.py --trace`` reads them), or
    None: not set, or a directory that is not there or cannot be written (logged; the service
    serves all the same)."""
    where = os.environ.get(TRACE_VARIABLE)
    if not where:
        return None
    path = os.path.join(where, f"searches-{os.getpid()}.tsv")
    if not os.path.isdir(where):
        log.warning("%s=%r is not a directory: the searches are not traced", TRACE_VARIABLE, where)
        return None
    try:
        trace = SearchTrace(path)
    except OSError as exc:
        log.warning("%s: %s cannot be written (%s): the searches are not traced", TRACE_VARIABLE, path,
                    exc.strerror or exc)
        return None
    log.warning("%s: each search's times are written to %s", TRACE_VARIABLE, path)
    return trace


def _start_in_background(app, index, worker, writer, root):
    """Start what ``create_app(background=True)`` leaves for later; returns the future of the
    check of the index's files (``Index.warm(search=False)``: every segment's rows and the query
    plan), queued first on the reads' thread, which ``/healthz`` waits for. The warm-up (the
    kernels, the approximate structures) follows it there, then the model loads in a thread of
    its own (``Index.pipeline`` holds a lock meanwhile: a call that needs it waits), and the write
    handle takes it over in the first call of the writes' thread. What fails is logged and kept
    in ``app.state.damage`` (``/healthz`` says "degraded"); a request that needs what failed meets
    the same failure itself, and is answered as any request that meets it."""
    import threading
    from concurrent.futures import Future

    def failed(exc, what):
        if isinstance(exc, IndexFormatError):
            log.error("the index is damaged: %s", exc)
            message = _short(_damage_message(exc, root))
        elif _missing_package(exc) is not None:
            log.error("%s failed: %s", what, exc)
            message = _missing_package(exc)
        else:
            log.error("%s failed", what, exc_info=exc)
            message = f"{what} failed ({type(exc).__name__}); see the server log"
        if app.state.damage is None:
            app.state.damage = message

    loaded = Future()
    loader = threading.Thread(target=lambda: load_model(), name="learnsim-load-model", daemon=True)

    def check(idx):
        try:
            idx.warm(search=False)    # every row and the plan against their checksums
        except BaseException as exc:
            failed(exc, "checking the index")   # before the future is done: /healthz sees it at once
            raise

    def warm(idx):
        try:
            idx.warm()                # the kernels and approximate structures: speed, not safety
        except BaseException as exc:
            failed(exc, "warming the index up")
            raise
        finally:
            # the model's load after the warm-up, not beside it: scikit-learn's import holds the
            # interpreter most of the time, and the warm-up is what the first searches wait for
            loader.start()

    def load_model():
        try:
            index.pipeline
        except BaseException as exc:
            failed(exc, "loading the model")
            loaded.set_result(None)
            return
        # with the model it is: a promotion (learnsim index promote) may land meanwhile
        loaded.set_result((index.pipeline, index.manifest["model_sha256"]))
        # as the lifespan does for what was loaded before the start: out of the collector's sight
        gc.collect()
        gc.freeze()

    def share_model(widx):
        # the write handle shares the loaded model (read-only once fitted); after a failed
        # load, a write loads it itself, and meets the same failure
        model = loaded.result()
        # only the model its own manifest serves: after a promotion, the write handle loads its own
        if model is not None and widx._pipeline is None and widx.manifest.get("model_sha256") == model[1]:
            widx._pipeline = model[0]

    app.state.model_load = loaded       # /, /openapi.json and /v1/info answer meanwhile (_loading)
    writer.submit(share_model)
    checked = worker.submit(check)
    worker.submit(warm)
    return checked


def app_from_environment():
    """The application of one worker process of ``learnsim serve --workers N``: the options
    (index path, read_only, the name of the API key's variable, the web-safety options, the
    deadline) come as JSON in the environment variable ``LEARNSIM_SERVE_OPTIONS``, which the
    command sets before starting the workers.

    Raises
    ------
    RuntimeError
        When ``LEARNSIM_SERVE_OPTIONS`` is not set (or not JSON), or the API key's variable it
        names is not set.

    Examples
    --------
    The options of a read-only service over a tiny index (its model fitted on six texts, too
    few to check it against the baseline, which the fit warns about):

    >>> import json, os, tempfile
    >>> import learnsim
    >>> from learnsim.index import Index
    >>> from learnsim.service.app import app_from_environment
    >>> os.environ.pop("LEARNSIM_SERVE_OPTIONS", None)
    >>> app_from_environment()
    Traceback (most recent call last):
    ...
    RuntimeError: LEARNSIM_SERVE_OPTIONS is not set to the options of learnsim serve
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])
    >>> path = os.path.join(tempfile.mkdtemp(), "index")
    >>> Index.build(path, model, texts).close()
    >>> os.environ["LEARNSIM_SERVE_OPTIONS"] = json.dumps(
    ...     {"index": path, "read_only": True, "allowed_hosts": ["testserver"]})
    >>> app = app_from_environment()
    >>> from fastapi.testclient import TestClient
    >>> with TestClient(app) as client:
    ...     response = client.delete("/v1/docs/0")
    >>> response.status_code, response.json()["code"]             # read_only: no writes
    (403, 403)
    >>> del os.environ["LEARNSIM_SERVE_OPTIONS"]
    """
    try:
        options = json.loads(os.environ[OPTIONS_VARIABLE])
    except (KeyError, ValueError):
        raise RuntimeError(f"{OPTIONS_VARIABLE} is not set to the options of learnsim serve") from None
    key_env = options.get("api_key_env")
    api_key = os.environ.get(key_env) if key_env else None
    if key_env and not api_key:
        raise RuntimeError(f"the API key's variable {key_env} is not set")
    extra = {name: options[name] for name in ("deadline_s", "host", "allowed_hosts", "cors_origins", "protect_reads",
                                              "background", "learn_from_clicks", "feedback_max_days",
                                              "feedback_max_rows", "interleave", "interleave_pool",
                                              "feedback_max_bytes", "feedback_client_share",
                                              "allow_anonymous_learning", "feedback_ipv6_prefix")
             if name in options}
    if not options.get("dictionary_checked"):
        return create_app(options["index"], read_only=bool(options.get("read_only")), api_key=api_key, **extra)
    import warnings

    with warnings.catch_warnings():
        # learnsim serve opened the index, and warned of a dictionary other than the fitted one,
        # before it started its workers: each worker said it again, at uvicorn's line; the
        # warning is still noted as given (learnsim.text._dictionary), so no search says it later
        warnings.filterwarnings("ignore", message=r"the index's model was fitted with analyzer=", category=UserWarning)
        return create_app(options["index"], read_only=bool(options.get("read_only")), api_key=api_key, **extra)
