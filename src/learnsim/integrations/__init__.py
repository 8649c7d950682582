"""Retrievers of other frameworks over a learnsim index, each an optional extra.

- :mod:`learnsim.integrations.langchain`: ``LearnsimRetriever``, a LangChain
  ``BaseRetriever`` (``pip install "learnsim[langchain]"``).
- :mod:`learnsim.integrations.llamaindex`: ``LearnsimRetriever``, a LlamaIndex
  ``BaseRetriever`` (``pip install "learnsim[llamaindex]"``).

Both search a :class:`learnsim.index.Index` (opened from a path, or given) or a running
``learnsim serve`` (through :mod:`learnsim.client`), and return exactly the hits of
:meth:`learnsim.index.Index.search`, in its order. Neither this package nor ``import learnsim``
imports LangChain or LlamaIndex: only importing one of the two modules does. See
docs/integrations.md.
"""
