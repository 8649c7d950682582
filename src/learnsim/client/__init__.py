"""A Python client of ``learnsim serve``: :class:`Client` and :class:`AsyncClient` (on httpx).

Each route of the service is one method, which returns the service's JSON answer as plain dicts
and lists (the shapes are in each method's docstring and in :mod:`learnsim.service.app`)::

    health()                          GET    /healthz
    info()                            GET    /v1/info
    openapi()                         GET    /openapi.json
    search(query, k, filter=, explain=, n_top=)
                                      GET    /v1/search (one query), POST /v1/search (a list)
    document(id)                      GET    /v1/docs/{id}
    more_like(id, k, filter=)         GET    /v1/docs/{id}/similar
    match(text, k, filter=)           POST   /v1/match {"text", ...}
    match_pairs(pairs)                POST   /v1/match {"pairs": ...}
    explain(query, document, n_top)   POST   /v1/explain
    add(texts, ids, metadata)         POST   /v1/docs
    upsert(ids, texts, metadata)      PUT    /v1/docs/{id} (one), POST /v1/docs "mode": "upsert" (a list)
    delete(id)                        DELETE /v1/docs/{id}
    reindex()                         POST   /v1/reindex

A refused request raises a :class:`ClientError` of the status's class (:class:`BadRequest` 400
and 422, :class:`Unauthorized` 401 and 403, :class:`NotFound` 404, :class:`Conflict` 409,
:class:`PayloadTooLarge` 413, :class:`RateLimited` 429, :class:`Unavailable` 503,
:class:`ServerError` 5xx; others the base class) carrying the status, the server's message and
the request; no answer at all raises :class:`ConnectionFailed`. 429 and 503 (the service did
not run the request) are retried after their ``Retry-After``, writes included; a broken
connection only for what may be sent twice. A call, its tries and the waits between them
together, ends within the client's ``deadline`` (120 s unless given; ``timeout`` bounds each
read only) whatever the server does, else raises :class:`DeadlineExceeded` (a
:class:`ConnectionFailed` and a ``TimeoutError``). An answer that is not the service's (not
JSON, nested deeper than the client reads, not of its route's shape, not its
``Content-Encoding``), or larger than the client's ``max_answer_bytes`` (64 MiB unless given;
refused without reading the rest), raises the base :class:`ClientError`, and is not retried.

``import learnsim`` does not import this package, and this package imports httpx only when a
client is made: ``pip install "learnsim[client]"``.

Examples
--------
>>> from learnsim.client import Client, ClientError
>>> with Client("http://127.0.0.1:8000") as client:          # doctest: +SKIP
...     answer = client.search("I paid twice for one order", k=3)
>>> [hit["id"] for hit in answer["hits"]], answer["score"]    # doctest: +SKIP
(['t001', 't007', 't043'], 'similarity')
"""
from __future__ import annotations

from ._clients import AsyncClient, Client
from ._errors import (BadRequest, ClientError, Conflict, ConnectionFailed, DeadlineExceeded, NotFound, PayloadTooLarge,
                      RateLimited, ServerError, Unauthorized, Unavailable)

__all__ = ["Client", "AsyncClient", "ClientError", "BadRequest", "Unauthorized", "NotFound", "Conflict",
           "PayloadTooLarge", "RateLimited", "ServerError", "Unavailable", "ConnectionFailed", "DeadlineExceeded"]
