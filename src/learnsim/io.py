"""Readers for the document files the ``learnsim`` command line takes.

They live in :mod:`learnsim.datasets` (``learnsim.datasets.documents``), beside every other
reader; this module keeps the names importable from ``learnsim.io``. See
:func:`learnsim.datasets.read_documents` and :func:`learnsim.datasets.read_labelled_documents`
for the file layouts, and :mod:`learnsim.datasets._decode` for the bad-bytes policy
(``encoding_errors="replace"`` or ``"strict"``).
"""
from __future__ import annotations

from .datasets._decode import (ENCODING_ERRORS, DocumentFormatError, UndecodableBytesWarning,
                               check_encoding_errors, decoded_lines)
from .datasets.documents import NO_CLUSTER, Documents, read_documents, read_labelled_documents
# the CLI reads its links file with it
from .datasets.documents import _lines  # noqa: F401

__all__ = ["DocumentFormatError", "Documents", "ENCODING_ERRORS", "NO_CLUSTER", "UndecodableBytesWarning",
           "check_encoding_errors", "decoded_lines", "read_documents", "read_labelled_documents"]
