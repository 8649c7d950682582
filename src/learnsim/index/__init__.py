"""A persistent, incremental index of a collection under a fitted pipeline.

``Index.build(path, pipeline, texts, ids=..., metadata=...)`` writes a directory that
``Index.open(path)`` opens in well under a second; ``add``, ``delete``, ``update``, ``compact``
and ``reindex`` change it in place; ``search`` (with metadata filters and explanations),
``more_like``, ``match``, ``dedupe`` and ``cluster`` use the scoring the pipeline was validated
with. In a group of ``dedupe`` the duplicate rule accepted every two documents as a pair
(``linkage="single"``: the connected components of the accepted pairs, where a chain a~b~c~d
joins a and d, which share nothing). See
:mod:`learnsim.index.core` for the layout and the durability rules.

Importing this package imports numpy and the standard library only.
"""
from ._segments import IndexDamagedError, IndexFormatError
from ._new_words import NewWordsWarning
from ._placeless import PlacelessWarning
from ._store import MAX_FILTER_VALUES, FilterError
from .core import Index

__all__ = ["Index", "IndexFormatError", "IndexDamagedError", "FilterError", "MAX_FILTER_VALUES", "NewWordsWarning",
           "PlacelessWarning", "build", "open_index"]


def build(path, pipeline, texts, ids=None, metadata=None, **kwargs):
    """:meth:`Index.build`.

    Examples
    --------
    >>> import os, tempfile
    >>> import learnsim
    >>> from learnsim.index import build
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: warns
    >>> index = build(os.path.join(tempfile.mkdtemp(), "index"), model, texts)
    >>> len(index), index.search("forgot my password", k=1)[0]["id"]
    (6, '2')
    """
    return Index.build(path, pipeline, texts, ids, metadata, **kwargs)


def open_index(path):
    """:meth:`Index.open`.

    Examples
    --------
    >>> import os, tempfile
    >>> import learnsim
    >>> from learnsim.index import build, open_index
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: the strongest baseline, warns
    >>> path = os.path.join(tempfile.mkdtemp(), "index")
    >>> build(path, model, texts).close()
    >>> open_index(path)
    Index('.../index', 6 documents, baseline: BM25)
    """
    return Index.open(path)
