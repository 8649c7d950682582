"""The one bad-bytes policy of every reader in learnsim.

A file with bytes that are not valid in its encoding (most often UTF-8 text cut in the middle
of a character, or a Latin-1 file read as UTF-8) is treated the same way by every reader,
through :func:`decoded_lines` (line by line) or :func:`read_text` (a whole file):

``encoding_errors="replace"`` (the default)
    the bad bytes become U+FFFD and, once the file is read, one
    :class:`UndecodableBytesWarning` names the file, counts the lines affected and gives the
    first of them;
``encoding_errors="strict"``
    the first such line raises :class:`DocumentFormatError` (a ``ValueError``) naming the file
    and the line.

The command line's ``--encoding-errors replace|strict`` is passed through as ``encoding_errors``.
"""
from __future__ import annotations

import codecs
import gzip
import json
import warnings
import zlib
from pathlib import Path

from .._utils.inputs import DuplicateKeyError, JSONDepthError, loads as _strict_loads
from ..exceptions import DocumentFormatError, UndecodableBytesWarning  # noqa: F401  (defined there; importable here as in 0.1)

__all__ = ["DocumentFormatError", "ENCODING_ERRORS", "UndecodableBytesWarning", "check_encoding_errors",
           "decoded_lines", "read_text"]


#: The accepted values of every reader's ``encoding_errors`` argument (and ``--encoding-errors``).
ENCODING_ERRORS = ("replace", "strict")


def check_encoding_errors(value):
    """Check an ``encoding_errors`` argument.

    Parameters
    ----------
    value : {"replace", "strict"}

    Returns
    -------
    str
        ``value``.

    Raises
    ------
    ValueError
        If ``value`` is not one of :data:`ENCODING_ERRORS`.

    Examples
    --------
    >>> from learnsim.datasets import check_encoding_errors
    >>> check_encoding_errors("strict")
    'strict'
    >>> check_encoding_errors("ignore")
    Traceback (most recent call last):
        ...
    ValueError: ...
    """
    if not isinstance(value, str) or value not in ENCODING_ERRORS:
        raise ValueError(f"encoding_errors must be 'replace' (bad bytes become U+FFFD, with a warning) "
                         f"or 'strict' (bad bytes are an error); got {value!r}")
    return value


class _Decoder:
    """Decodes the lines of one file under one bad-bytes policy and remembers what it replaced.

    Every reader goes through this class, so that a file with bytes that are not valid in its
    encoding is treated the same way everywhere: ``"strict"`` raises a
    :class:`DocumentFormatError` naming the file and the first bad line; ``"replace"`` puts
    U+FFFD in place of the bad bytes and, once the file is read, :meth:`warn` issues one
    :class:`UndecodableBytesWarning` counting the lines affected.
    """

    def __init__(self, where, encoding_errors="replace", encoding="utf-8", hint=None):
        self.where = where
        self.errors = check_encoding_errors(encoding_errors)
        try:
            canonical = codecs.lookup(encoding).name
        except (LookupError, TypeError):
            raise ValueError(f"unknown encoding {encoding!r}") from None
        self.encoding = encoding
        # the name users know, so that messages say "not UTF-8 text" whatever the spelling
        self.encoding_name = "UTF-8" if canonical == "utf-8" else encoding
        self.hint = hint
        self.n_lines = 0
        self.first_line = None

    def decode(self, raw, number):
        """Text of the line ``raw`` (bytes), which is line ``number`` of the file."""
        try:
            return raw.decode(self.encoding)
        except UnicodeDecodeError as exc:
            if self.errors == "strict":
                hint = f"; {self.hint}" if self.hint else ""
                raise DocumentFormatError(
                    f"{self.where}, line {number}: not {self.encoding_name} text ({exc.reason} at byte "
                    f"{exc.start}){hint}; pass encoding_errors='replace' (--encoding-errors replace) "
                    "to read it with U+FFFD in place of the bad bytes") from None
            self.n_lines += 1
            if self.first_line is None:
                self.first_line = number
            return raw.decode(self.encoding, errors="replace")

    def decode_text(self, raw):
        """Whole text of ``raw`` (bytes); lines are split on ``\\n`` bytes to name and count them,
        which is exact for UTF-8 and the single-byte encodings."""
        try:
            return raw.decode(self.encoding)
        except UnicodeDecodeError:
            pass
        return "\n".join(self.decode(line, number)
                         for number, line in enumerate(raw.split(b"\n"), start=1))

    def warn(self, stacklevel=3):
        """Issue the one warning of the file, if a line had bad bytes."""
        if self.n_lines:
            hint = f" ({self.hint})" if self.hint else ""
            warnings.warn(UndecodableBytesWarning(
                f"{self.where}: {self.n_lines} line(s) are not {self.encoding_name} text (first: line "
                f"{self.first_line}); their bad bytes became U+FFFD{hint}. Pass "
                "encoding_errors='strict' (--encoding-errors strict) to refuse such a file."),
                stacklevel=stacklevel)


def json_record(line, where, invalid="invalid JSON"):
    """The JSON value of one line of a JSON Lines file (``where``: "FILE, line N"), or a
    :class:`DocumentFormatError` naming ``where`` and the problem: invalid JSON (``invalid``
    and the parser's reason), nesting deeper than :data:`learnsim._utils.inputs.MAX_JSON_DEPTH`
    levels, or a key given twice in one object (learnsim._utils.inputs). Every JSON Lines
    reader of learnsim reads its lines here."""
    try:
        return _strict_loads(line)
    except json.JSONDecodeError as exc:
        raise DocumentFormatError(f"{where}: {invalid} ({exc.msg} at column {exc.colno})") from None
    except (JSONDepthError, DuplicateKeyError) as exc:
        raise DocumentFormatError(f"{where}: {exc}") from None


def decoded_lines(path, *, encoding_errors="replace", encoding="utf-8", keepends=False, hint=None,
                  counts=None):
    """Yield ``(line_number, line)`` of a plain or gzipped text file under the bad-bytes policy.

    This is the one place where the readers decode files (see :class:`_Decoder`).

    Parameters
    ----------
    path : path-like
    encoding_errors : {"replace", "strict"}, default="replace"
        ``"replace"``: bytes that are not valid ``encoding`` become U+FFFD and, after the last
        line, one :class:`UndecodableBytesWarning` names the file and counts the lines
        affected. ``"strict"``: the first such line raises :class:`DocumentFormatError`.
    encoding : str, default="utf-8"
    keepends : bool, default=False
        Keep the line end (for a ``csv`` reader); else ``\\r\\n`` / ``\\n`` are removed.
    hint : str, optional
        Added to the error and the warning (e.g. which encoding the file is likely to be in).
    counts : dict, optional
        Receives ``"undecodable_lines"``: the number of lines whose bytes were replaced.

    Notes
    -----
    Only ``\\n`` ends a line, so a stray ``\\r`` inside a field is not a line break. A UTF-8
    byte-order mark at the start of the file is dropped. A file ending in ``.gz`` is
    decompressed.

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.datasets import decoded_lines
    >>> path = os.path.join(tempfile.mkdtemp(), "notes.txt")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write("first line\\nsecond line\\n")
    >>> list(decoded_lines(path))
    [(1, 'first line'), (2, 'second line')]
    """
    path = Path(path)
    decoder = _Decoder(path, encoding_errors, encoding, hint)
    gzipped = path.name.endswith(".gz")
    opener = gzip.open if gzipped else open
    try:
        with opener(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                line = decoder.decode(raw, number)
                if number == 1:
                    line = line.lstrip("\ufeff")  # a byte-order mark some editors write
                yield number, (line if keepends else line.rstrip("\r\n"))
    except (FileNotFoundError, IsADirectoryError):
        raise
    except (OSError, EOFError, zlib.error) as exc:
        raise DocumentFormatError(f"{path} could not be read ({exc}); is the file complete and "
                                  f"{'gzip-compressed' if gzipped else 'plain text'}?") from None
    if counts is not None:
        counts["undecodable_lines"] = decoder.n_lines
    decoder.warn()


def read_text(path, *, encoding_errors="replace", encoding="utf-8", hint=None, counts=None):
    """Whole text of a plain or gzipped file under the bad-bytes policy.

    Parameters
    ----------
    path : path-like
        A file; one ending in ``.gz`` is decompressed.
    encoding_errors, encoding, hint, counts
        As in :func:`decoded_lines`.

    Returns
    -------
    str
        The text with its line ends as in the file (a UTF-8 byte-order mark is dropped).

    Raises
    ------
    DocumentFormatError
        If the file cannot be read (a broken gzip stream, a Unix ``.Z`` file) or, with
        ``encoding_errors="strict"``, is not ``encoding`` text.

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.datasets import read_text
    >>> path = os.path.join(tempfile.mkdtemp(), "notes.txt")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write("first line\\nsecond line\\n")
    >>> read_text(path)
    'first line\\nsecond line\\n'
    """
    path = Path(path)
    decoder = _Decoder(path, encoding_errors, encoding, hint)
    if path.suffix == ".Z":
        raise DocumentFormatError(f"{path}: Unix compress (.Z) files are not supported; uncompress them "
                                  "(or recompress with gzip) first")
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as handle:
            raw = handle.read()
    except (FileNotFoundError, IsADirectoryError):
        raise
    except (OSError, EOFError, zlib.error) as exc:
        raise DocumentFormatError(f"{path} could not be read ({exc})") from None
    text = decoder.decode_text(raw)
    if counts is not None:
        counts["undecodable_lines"] = decoder.n_lines
    decoder.warn(stacklevel=2)
    return text.removeprefix("\ufeff")
