"""Warning classes that the command line filters at start-up: kept in a module that imports
nothing, so that a command which reads no file (``learnsim search --index``) stays fast."""
from __future__ import annotations

__all__ = ["UndecodableBytesWarning"]


class UndecodableBytesWarning(UserWarning):
    """A file had bytes that are not valid in its encoding and were replaced by U+FFFD.

    Issued once per file by every reader called with ``encoding_errors="replace"`` (the
    default); the message names the file, counts the lines affected and gives the first.
    """
