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
    """:func:`learnsim.service.app.create_app` (fastapi is imported on this first call)."""
    from .app import create_app as _create_app

    return _create_app(index_path, **options)
