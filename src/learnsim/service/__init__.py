"""An HTTP service over one :class:`learnsim.index.Index` (``learnsim serve``).

``create_app(index_path, ...)`` returns a FastAPI application: search (single and batch),
documents, similar documents, near-duplicate matching, explanations and writes (add, delete,
reindex), every answer and every error as JSON. See :mod:`learnsim.service.app` for the routes,
the bounds and the error codes.

This package needs the ``serve`` extra (``pip install learnsim[serve]``: fastapi and uvicorn);
the library never imports it, so ``import learnsim`` does not need them.
"""
from __future__ import annotations

__all__ = ["create_app"]


def create_app(index_path, **options):
    """:func:`learnsim.service.app.create_app` (fastapi is imported on this first call).

    Examples
    --------
    The options are checked, then the index is opened (see
    :func:`learnsim.service.app.create_app` for a search served through FastAPI's ``TestClient``):

    >>> from learnsim.service import create_app
    >>> create_app("no-such-index", max_pending=-1)
    Traceback (most recent call last):
    ...
    ValueError: max_pending must be a number >= 0; got -1
    >>> create_app("no-such-index")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no-such-index holds no learnsim index (no manifest.json)
    """
    from .app import create_app as _create_app

    return _create_app(index_path, **options)
