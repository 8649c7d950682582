"""Every error and warning type that learnsim documents, in one module (issue 31).

Each is also importable from where it was first defined (``learnsim.persistence.ModelFormatError``,
``learnsim.index.IndexFormatError``, ...): those modules import it from here, so both paths name the
same class. This module imports nothing, so that the command line can filter the warnings at
start-up and catch the errors without loading numpy or scikit-learn (``learnsim search --index``
stays fast).

Errors
------
ModelFormatError
    A file is not a valid learnsim model file (``ValueError``).
ANNFormatError
    A saved approximate-nearest-neighbour directory is not valid (a ``ModelFormatError``).
UnknownIdError
    Ids that are not in an approximate index (``KeyError`` and ``ValueError``).
DocumentFormatError
    A file that cannot be read as asked (``ValueError``).
IndexFormatError
    A directory that is not a valid learnsim index (``ValueError``).
IndexDamagedError
    A file of an index is damaged (an ``IndexFormatError``).
IndexChangingError
    The index changed under every try of a read (``RuntimeError``): retry.
FilterError
    A metadata filter that is not well formed (``ValueError`` and ``TypeError``).
ParameterTypeError
    An estimator's parameter of a type it does not take (``TypeError`` and ``ValueError``).
UsageError
    A command line called wrongly (``Exception``).

Warnings
--------
UndecodableBytesWarning, CollectionShiftWarning, BaselineWarning, AnnFallbackWarning
    All ``UserWarning``.
"""
from __future__ import annotations

__all__ = [
    "ModelFormatError", "ANNFormatError", "UnknownIdError", "DocumentFormatError",
    "IndexFormatError", "IndexDamagedError", "IndexChangingError", "IndexBusyError", "FilterError",
    "ParameterTypeError", "UsageError",
    "UndecodableBytesWarning", "CollectionShiftWarning", "BaselineWarning", "AnnFallbackWarning",
]


# -------------------------------------------------------------------------------------- errors
class ModelFormatError(ValueError):
    """The file is not a valid learnsim model file (corrupted, edited, or from a newer version)."""


class ANNFormatError(ModelFormatError):
    """A saved ANN directory is damaged, edited or was written by a newer learnsim.

    A subclass of :class:`learnsim.persistence.ModelFormatError`, hence of ``ValueError``.
    """


class UnknownIdError(KeyError, ValueError):
    """:meth:`ApproximateIndex.remove` was given ids that are not in the index.

    Both a ``KeyError`` (an id is a key) and a ``ValueError`` (it is bad input).
    """

    def __str__(self):
        # KeyError would print the repr of the message, quotes and all
        return str(self.args[0]) if self.args else ""


class DocumentFormatError(ValueError):
    """A file (or data) that cannot be read as asked; the message names the file and the line."""


class IndexFormatError(ValueError):
    """The directory is not a valid learnsim index (damaged, edited, or from a newer version)."""


class IndexDamagedError(IndexFormatError):
    """A file of the index is damaged: its checksum does not match, it is truncated or empty, it
    is not the JSON or ``.npy`` it must be, or SQLite reports its database damaged.

    Attributes
    ----------
    path : str
        The damaged file.
    """

    def __init__(self, path, problem):
        self.path = str(path)
        # one line: the command line prints it as the error, a server logs it
        self.problem = " ".join(str(problem).split())
        super().__init__(f"{self.path} is damaged: {self.problem}")

    def __reduce__(self):
        # picklable (a process pool): its arguments are not the message Exception pickles
        return type(self), (self.path, self.problem)


class IndexChangingError(RuntimeError):
    """The index changed (a promotion, a rollback, a reindex by another process) under every
    attempt of a read, so no answer of one version could be given: retry (the service answers
    503 with Retry-After). An answer is never a mix of two versions."""


class IndexBusyError(IndexChangingError):
    """Another writer held the index's lock longer than a write (or ``verify``) waits for it
    (60 s): nothing was changed; retry once it is done (the service answers 503 with
    Retry-After, the command line one line and status 2)."""


class FilterError(ValueError, TypeError):
    """A metadata filter that is not ``{field: value or [values]}`` of plain JSON scalars.

    A ValueError (the command line's one-line errors, the service's 400) and, for the callers of
    0.1 that caught a value of the wrong type, a TypeError."""


class ParameterTypeError(TypeError, ValueError):
    """An estimator was given a parameter of a type it does not take (``n_components="10"``).

    Raised when the estimator checks its parameters (by ``fit``, mostly); the message names the
    parameter, what it may be and the value. A TypeError and, as learnsim 0.1 raised a
    ValueError for most of these, a ValueError too. A value of the right type that is out of
    range raises a plain ValueError.
    """


class UsageError(Exception):
    """A mistake in how the command was called: reported in one line, exit status 2."""


# ------------------------------------------------------------------------------------ warnings
class UndecodableBytesWarning(UserWarning):
    """A file had bytes that are not valid in its encoding and were replaced by U+FFFD.

    Issued once per file by every reader called with ``encoding_errors="replace"`` (the
    default); the message names the file, counts the lines affected and gives the first.
    """


class CollectionShiftWarning(UserWarning):
    """An in-domain weighting (paper 002's eq. 5) is applied to a collection whose statistics
    differ widely from those it was trained on; :class:`learnsim.weighting.LearnedBM25` is the
    weighting meant to transfer."""


class BaselineWarning(UserWarning):
    """The learned part did not beat the baseline on held-out supervision (the fit fell back to
    the baseline), or there was too little supervision to check it."""


class AnnFallbackWarning(UserWarning):
    """A segment's approximate structure could not be used: the segment is searched exactly."""
