"""Fitting and indexing from a Dask collection of documents (the ``dask`` extra:
``pip install learnsim[dask]``).

A collection is a ``dask.bag.Bag`` of str (or a Dask dataframe column); its vectors are a
``dask.array.Array`` (n_documents, n_features) whose blocks are ``scipy.sparse.csr_matrix`` row
blocks, one per partition, full width, with known row chunk sizes. Every step is a map over the
partitions and a tree reduction of small partial results, run by Dask (``dask.bag``,
``dask.array``, ``distributed``), so the same model comes out as from a fit in one process:

- :mod:`learnsim.distributed.text`: :func:`fit_vectorizer` (the vocabulary by map-reduce, or
  hashed columns), :func:`vectorize`, :func:`document_frequencies`, :func:`collection_statistics`;
- :mod:`learnsim.distributed.methods`: :func:`fit_mcd` (MinimumClusterDistortion's scatter as a
  sum of per-partition scatters), :func:`fit_film` (FILM with its truncated SVD and gradient
  terms as sums over partitions);
- :mod:`learnsim.distributed.search`: :class:`DistributedIndex`, an index written partition by
  partition and searched by merging per-partition top-k lists.

The names below are imported on first use (PEP 562), so ``import learnsim.distributed`` itself
imports no Dask; a missing Dask raises an ImportError naming the extra when a function needs it.
"""
from __future__ import annotations

import importlib

__all__ = ["fit_vectorizer", "vectorize", "partition_lengths", "document_frequencies", "collection_statistics",
           "HashingTextVectorizer", "DistributedIndex", "fit_mcd", "fit_film", "from_local"]

# public name -> the submodule that defines it
_EXPORTS = {"fit_vectorizer": "text", "vectorize": "text", "partition_lengths": "text",
            "document_frequencies": "text", "collection_statistics": "text", "HashingTextVectorizer": "text",
            "DistributedIndex": "search", "fit_mcd": "methods", "fit_film": "methods",
            "from_local": "methods"}


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
