"""A persistent, incremental index of a collection under a fitted pipeline.

``Index.build(path, pipeline, texts, ids=..., metadata=...)`` writes a directory that
``Index.open(path)`` opens in well under a second; ``add``, ``delete``, ``update``, ``compact``
and ``reindex`` change it in place; ``search`` (with metadata filters and explanations),
``more_like``, ``match``, ``dedupe`` and ``cluster`` use the scoring the pipeline was validated
with. See :mod:`learnsim.index.core` for the layout and the durability rules.

Importing this package imports numpy and the standard library only.
"""
from ._segments import IndexDamagedError, IndexFormatError
from ._store import MAX_FILTER_VALUES, FilterError
from .core import Index

__all__ = ["Index", "IndexFormatError", "IndexDamagedError", "FilterError", "MAX_FILTER_VALUES", "build", "open_index"]


def build(path, pipeline, texts, ids=None, metadata=None, **kwargs):
    """:meth:`Index.build`."""
    return Index.build(path, pipeline, texts, ids, metadata, **kwargs)


def open_index(path):
    """:meth:`Index.open`."""
    return Index.open(path)
