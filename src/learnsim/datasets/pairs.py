"""Text pairs: the general pair reader, for the user's own files and in-memory data.

:func:`read_pairs` reads pairs of texts labelled duplicate / not duplicate (a binary label) or
graded with a similarity score, from a TSV, CSV or JSON Lines file, a list of tuples or dicts,
or a pandas DataFrame. The columns are chosen by name or 0-based position with ``columns``
(:func:`parse_columns` reads the command line's ``label=0,text_a=3,text_b=4``); without it the
common layouts are recognised (the Quora release and sample, STS Benchmark, a header naming
``text_a``/``text_b``/``label`` or ``sentence1``/``sentence2``/``score``).
"""
from __future__ import annotations

import csv
import math
import numbers
import re
import os
from pathlib import Path

import numpy as np

from .._utils.callers import warn_outside
from .._utils.inputs import short_repr
from ._base import _object_array
from ._decode import DocumentFormatError, check_encoding, check_encoding_errors, decoded_lines, json_record, refuse_underflow

_QUOTINGS = ("auto", "csv", "none")

__all__ = ["PAIR_ROLES", "pair_columns", "parse_columns", "read_pairs"]

#: The roles ``columns`` can give a column: one of ``label`` (binary) and ``score`` (graded),
#: the two texts, and optionally the id of each text and of the pair.
PAIR_ROLES = ("label", "score", "text_a", "text_b", "id_a", "id_b", "pair_id")
_VALUE_ROLES = ("label", "score")
_ROLE_ALIASES = {"id": "pair_id"}

# Header names recognised without ``columns`` (lower case): the Quora release (id, qid1, qid2,
# question1, question2, is_duplicate), STS-style sentence1/sentence2/score, and the role names.
_HEADER_NAMES = {
    "text_a": ("text_a", "sentence1", "question1", "text1"),
    "text_b": ("text_b", "sentence2", "question2", "text2"),
    "label": ("label", "is_duplicate"),
    "score": ("score", "similarity"),
    "id_a": ("id_a", "qid1"),
    "id_b": ("id_b", "qid2"),
    "pair_id": ("pair_id", "id"),
}
# Headerless layouts recognised from the first row.
_QUORA_SAMPLE_COLUMNS = {"label": 0, "text_a": 1, "text_b": 2, "pair_id": 3}
_STS_COLUMNS = {"pair_id": 3, "score": 4, "text_a": 5, "text_b": 6}
_FORMATS = ("tsv", "csv", "jsonl")
# .json too: JGLUE ships JSTS as JSON Lines named train-v1.3.json, which docs/languages.md fits as
# it is (a .json file holding one JSON array is refused by name in _read_jsonl)
_SUFFIX_FORMATS = {".tsv": "tsv", ".tab": "tsv", ".txt": "tsv", ".csv": "csv", ".jsonl": "jsonl",
                   ".ndjson": "jsonl", ".json": "jsonl"}
_TRUE = ("1", "true", "yes")
_FALSE = ("0", "false", "no")
_COLUMNS_HINT = ("pass columns=, e.g. columns='label=0,text_a=3,text_b=4' (--columns on the command line); "
                 "roles: " + ", ".join(PAIR_ROLES))


class _UnknownLayout(DocumentFormatError):
    """No ``columns`` and a layout :func:`read_pairs` does not recognise (the named loaders
    replace the message with their own)."""


# ------------------------------------------------------------------ helpers of the loaders

def _index_pair_texts(first, second):
    """Unique texts in order of first appearance (reading each pair left to right) and the
    ``(n, 2)`` index of every pair into them; identical strings share one index."""
    index = {}
    for a, b in zip(first, second):
        index.setdefault(a, len(index))
        index.setdefault(b, len(index))
    indices = np.array([(index[a], index[b]) for a, b in zip(first, second)], dtype=np.int64)
    return list(index), indices.reshape(-1, 2)


def _drop_identical_pairs(columns, first_key, second_key):
    """Drop the rows whose two texts are the same string: :class:`Pairs` cannot hold a pair
    of an item with itself. Returns the filtered columns and how many rows went."""
    keep = [a != b for a, b in zip(columns[first_key], columns[second_key])]
    n_dropped = len(keep) - sum(keep)
    if n_dropped:
        columns = {key: [v for v, k in zip(values, keep) if k] for key, values in columns.items()}
    return columns, n_dropped


def _parse_pair_ids(raw_ids):
    """int64 ids when every id is an integer written in ASCII digits within int64, else an object
    array of the ids as written; ``0..n-1`` without ids. int() alone read "1_0" as 10 and "٣"
    as 3 (ids the file does not hold), and an id past 64 bits raised OverflowError."""
    if all(v is None for v in raw_ids):
        return np.arange(len(raw_ids), dtype=np.int64)
    if all(isinstance(v, str) and _PLAIN_INTEGER.fullmatch(v) for v in raw_ids):
        values = [int(v) for v in raw_ids]
        if all(-2 ** 63 <= v < 2 ** 63 for v in values):
            return np.array(values, dtype=np.int64)
    return _object_array(raw_ids)


_PLAIN_INTEGER = re.compile(r"-?[0-9]{1,20}")


#: The longest field of a quoted .csv/.tsv record (64 MiB).
MAX_QUOTED_FIELD = 64 << 20


def _delimited_records(path, delimiter, quoting, encoding_errors, counts, hint="", encoding="utf-8"):
    """Yield ``(line_number, fields)`` per record of a delimited file, skipping blank lines.

    With ``quoting`` a field may be quoted CSV-style (inner quotes doubled) and then hold the
    delimiter or a line break; ``line_number`` is the record's first physical line. Without it
    the lines are split on the delimiter only: plain TSV has no quoting, and the STS files hold
    unbalanced quotes that a CSV reader would take as quoting and use to swallow delimiters and
    whole lines. ``hint`` ends the message of a malformed quoting error.
    """
    lines = decoded_lines(path, encoding_errors=encoding_errors, keepends=quoting, counts=counts, encoding=encoding)
    if not quoting:
        for number, line in lines:
            if line.strip():
                yield number, line.split(delimiter)
        return
    reader = csv.reader((line for _number, line in lines), delimiter=delimiter, quotechar='"',
                        doublequote=True, strict=True)
    last_line = 0
    # the csv module's limit of a field is 128 KiB, below a long article's text: raised (it is the
    # process's, and a reader of a file may stop before the end), a field beyond it named as such
    if csv.field_size_limit() < MAX_QUOTED_FIELD:
        csv.field_size_limit(MAX_QUOTED_FIELD)
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            if "field larger than field limit" in str(exc):
                raise DocumentFormatError(f"{path}, line {last_line + 1}: a field longer than "
                                          f"{MAX_QUOTED_FIELD >> 20} MiB (or a quote left open)") from None
            reason = str(exc).replace("\t", "TAB")
            raise DocumentFormatError(f"{path}, line {last_line + 1}: malformed quoting ({reason}); a field "
                                      f"that starts with a double quote must end with one{hint}") from None
        start, last_line = last_line + 1, reader.line_num
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            continue  # blank line
        yield start, fields


def check_quoting(quoting):
    """Refuse a ``quoting`` other than ``"auto"``, ``"csv"`` and ``"none"``."""
    if quoting not in _QUOTINGS:
        raise ValueError(f"quoting must be 'auto', 'csv' or 'none'; got {quoting!r}")


# -------------------------------------------------------------------------- the columns

def parse_columns(spec):
    """Read a column choice: which column holds which role of a pair.

    Parameters
    ----------
    spec : str or dict
        ``"role=column,role=column,..."`` as on the command line (``--columns
        label=0,text_a=3,text_b=4``), or a dict ``{role: column}``. A column is a 0-based
        position (an ``int``, or in the string form a number) or a column name (a header name,
        a JSON key, a DataFrame column). Roles: ``text_a`` and ``text_b`` (required), at most one
        of ``label`` (binary: 0/1, true/false, yes/no) and ``score`` (graded: a number), and
        optionally ``id_a``, ``id_b``, ``pair_id`` (also spelled ``id``). Without ``label``
        and ``score`` the pairs are unlabelled (pairs to decide, not supervision).

    Returns
    -------
    dict
        ``{role: position or name}``.

    Raises
    ------
    ValueError
        On an unknown or repeated role, an item without ``=``, an empty or negative column, a
        column given two roles, a missing text role, or both ``label`` and ``score``.
    TypeError
        If ``spec`` is neither a string nor a dict, or a column is neither a name nor a position.

    Examples
    --------
    >>> from learnsim.datasets import parse_columns
    >>> parse_columns("text_a=question1,text_b=question2,label=is_duplicate")
    {'text_a': 'question1', 'text_b': 'question2', 'label': 'is_duplicate'}
    >>> parse_columns({"text_a": 0, "text_b": 1, "score": 2})
    {'text_a': 0, 'text_b': 1, 'score': 2}
    """
    if isinstance(spec, str):
        items = []
        for item in spec.split(","):
            if not item.strip():
                raise ValueError(f"columns {spec!r}: an empty item; write role=column items separated "
                                 "by commas, e.g. 'label=0,text_a=3,text_b=4'")
            role, eq, column = item.partition("=")
            if not eq:
                raise ValueError(f"columns {spec!r}: {item.strip()!r} is not role=column, e.g. 'text_a=3'")
            column = column.strip()
            items.append((role.strip(), int(column) if column.isdigit() else column))
    elif isinstance(spec, dict):
        items = list(spec.items())
    else:
        raise TypeError(f"columns must be a string such as 'label=0,text_a=3,text_b=4' or a dict "
                        f"{{role: column}}; got {type(spec).__name__}")
    columns = {}
    for role, column in items:
        role = _ROLE_ALIASES.get(role, role)
        if role not in PAIR_ROLES:
            raise ValueError(f"columns: unknown role {role!r}; the roles are {', '.join(PAIR_ROLES)}")
        if role in columns:
            raise ValueError(f"columns: role {role!r} is given twice")
        if isinstance(column, bool) or not isinstance(column, (str, numbers.Integral)):
            raise TypeError(f"columns: {role} must be a column name or a 0-based position; got {column!r}")
        if isinstance(column, str) and not column.strip():
            raise ValueError(f"columns: {role} has an empty column")
        if isinstance(column, numbers.Integral):
            if column < 0:
                raise ValueError(f"columns: {role}={column}: positions count from 0")
            column = int(column)
        clash = [r for r, c in columns.items() if c == column]
        if clash:
            raise ValueError(f"columns: column {column!r} is given two roles, {clash[0]} and {role}")
        columns[role] = column
    missing = [r for r in ("text_a", "text_b") if r not in columns]
    if missing:
        raise ValueError(f"columns: no {' and no '.join(missing)}; a pair needs both texts")
    if "label" in columns and "score" in columns:
        raise ValueError("columns: give one of label (binary) and score (graded), not both")
    return columns


def _layout_from_names(names):
    """``{role: position}`` from a header's names when it names both texts and at most one of
    label and score, else None."""
    lowered = [str(n).strip().lower() for n in names]
    found = {}
    for role, synonyms in _HEADER_NAMES.items():
        hits = [i for i, n in enumerate(lowered) if n in synonyms]
        if len(hits) == 1:
            found[role] = hits[0]
        elif len(hits) > 1:
            return None  # two candidate columns for one role: ambiguous
    if "text_a" in found and "text_b" in found and not ("label" in found and "score" in found):
        return found
    return None


def _is_number(value):
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def _layout_from_first_row(fields, delimiter):
    """``(name, {role: position}, quoting)`` of a recognised headerless layout, else None;
    ``quoting`` is what ``quoting="auto"`` means for it: False for the STS files, True for the
    Quora sample (written with CSV quoting), None (by the file's format) for the others."""
    cells = [f.strip() for f in fields]
    if delimiter == "\t" and len(cells) >= 7 and _is_number(cells[4]):
        return "sts", dict(_STS_COLUMNS), False
    if len(cells) == 4 and cells[0] in ("0", "1"):
        return "quora-sample", dict(_QUORA_SAMPLE_COLUMNS), True
    if len(cells) == 3 and _number(cells[0]) in (0, 1):
        # "1.0"/"0.0" too, as under a header naming the label; a later value other than 0 and 1
        # makes the column graded (_read_delimited), so the whole column decides, not its first row
        return "label-text-text", {"label": 0, "text_a": 1, "text_b": 2}, None
    if len(cells) == 3 and _is_number(cells[0]):
        return "score-text-text", {"score": 0, "text_a": 1, "text_b": 2}, None
    if len(cells) == 2:
        return "text-text", {"text_a": 0, "text_b": 1}, None
    return None


# the names an id column goes by in the header of an id<TAB>text file (datasets.documents and
# datasets.trec read such files; here such a header is refused as pairs')
_TSV_ID_NAMES = ("id", "_id", "docno", "doc_id", "docid", "doc-id", "qid", "query_id", "query-id", "queryid",
                 "corpus-id", "corpus_id", "pid")
# the names of the text columns in such a header
_TSV_TEXT_NAMES = ("text", "query", "body", "title", "contents", "passage")
# the names of a labelled documents file's label column (label<TAB>text, category,text)
_DOCUMENT_LABEL_NAMES = ("label", "category", "class", "topic")


def _headerless_hint(fields, delimiter):
    """What to do with a first row of no recognised layout. Two texts and then a number
    (text_a<TAB>text_b<TAB>label, the label last where the headerless layouts read it first) is
    a file written without its header: the header line to add and the columns that read it as
    it is are named; any other row gets the general advice."""
    cells = [f.strip() for f in fields]
    if len(cells) == 3 and _is_number(cells[2]) and not _is_number(cells[0]) and not _is_number(cells[1]):
        role = "label" if _number(cells[2]) in (0, 1) else "score"
        sep = "<TAB>" if delimiter == "\t" else delimiter
        return (f"it reads as two texts and a {role} with no header line: add the header "
                f"text_a{sep}text_b{sep}{role} as the first line, or pass columns='text_a=0,text_b=1,{role}=2' "
                f"(--columns text_a=0,text_b=1,{role}=2 on the command line)")
    return ("add a header line naming the columns (text_a, text_b, and label or score), or " + _COLUMNS_HINT)


def _refuse_documents_header(fields, where):
    """Refuse a first row of two cells that is the header of a documents file (``id<TAB>text``,
    ``label<TAB>text``, either way round): read as unlabelled pairs, the header was a pair and
    each document's id or label the first text of a pair with its own text, decided by ``match
    --pairs`` without a word."""
    cells = [f.strip().lower() for f in fields]
    if len(cells) == 2 and any(c in _TSV_TEXT_NAMES + ("sentence",) for c in cells) and \
            any(c in _TSV_ID_NAMES + _DOCUMENT_LABEL_NAMES for c in cells):
        raise DocumentFormatError(
            f"{where}: the header names the columns {fields[0].strip()!r} and {fields[1].strip()!r} of a documents "
            "file, not of pairs; a pairs file holds two texts a line (and a label or a score), with a header "
            f"naming text_a and text_b or none; {_COLUMNS_HINT}")


def _is_quora_header(names):
    """Whether a header names ``question1`` and ``question2``: the Quora release and sample,
    whose tab-separated files are written with CSV quoting."""
    lowered = {str(n).strip().lower() for n in names}
    return "question1" in lowered and "question2" in lowered


def _resolve(columns, names, where):
    """Positions of ``columns`` (names looked up in the header ``names``)."""
    resolved = {}
    for role, column in columns.items():
        if isinstance(column, int):
            if names is not None and column >= len(names):
                raise DocumentFormatError(f"{where}: {role}={column} is out of range: the header has "
                                          f"{len(names)} column(s), positions 0..{len(names) - 1}")
            resolved[role] = column
            continue
        if names is None:
            raise DocumentFormatError(f"{where}: {role}={column!r} names a column, but the data has no "
                                      "header; give positions (0-based) or header=True")
        lowered = [str(n).strip().lower() for n in names]
        hits = [i for i, n in enumerate(lowered) if n == column.strip().lower()]
        if not hits:
            raise DocumentFormatError(f"{where}: no column named {column!r} (for {role}); the columns are "
                                      f"{', '.join(repr(str(n)) for n in names)}")
        if len(hits) > 1:
            raise DocumentFormatError(f"{where}: {len(hits)} columns are named {column!r}; give {role} "
                                      "by position")
        resolved[role] = hits[0]
    return resolved


def pair_columns(names, columns=None, *, where="the data"):
    """The position of each role of a pair among the column ``names`` of a table, chosen as
    :func:`read_pairs` chooses them: by ``columns`` (names or positions, see
    :func:`parse_columns`), else by the recognised header names (``text_a``/``text_b``,
    ``question1``/``question2``, ``label``/``is_duplicate``, ``score``, ...).

    Returns
    -------
    dict
        ``{role: position}``.

    Raises
    ------
    DocumentFormatError
        A name that is no column, a name two columns share, two columns that could both hold a
        role (``question1`` and ``text_a``), or, without ``columns``, no recognised layout.

    Examples
    --------
    >>> from learnsim.datasets import pair_columns
    >>> pair_columns(["qid", "question1", "question2", "is_duplicate"])
    {'text_a': 1, 'text_b': 2, 'label': 3}
    >>> pair_columns(["q1", "q2", "dup"], {"text_a": "q1", "text_b": "q2", "label": "dup"})
    {'text_a': 0, 'text_b': 1, 'label': 2}
    """
    names = [str(n) for n in names]
    if columns is not None:
        return _resolve(parse_columns(columns), names, where)
    roles = _layout_from_names(names)
    if roles is not None:
        return roles
    lowered = [n.strip().lower() for n in names]
    for role, synonyms in _HEADER_NAMES.items():
        hits = [names[i] for i, n in enumerate(lowered) if n in synonyms]
        if len(hits) > 1:
            raise DocumentFormatError(f"{where}: the columns {' and '.join(map(repr, hits))} could each be {role}; "
                                      f"name the one to use ({role}=...), or {_COLUMNS_HINT}")
    raise DocumentFormatError(f"{where}: the columns {', '.join(map(repr, names))} are not a recognised pair "
                              f"layout; name them (text_a=..., text_b=..., label=... or score=...), or {_COLUMNS_HINT}")


# ------------------------------------------------------------------------ row parsing

class _Columns:
    """The parsed columns of a pair source, one entry per pair."""

    def __init__(self, kind):
        self.kind = kind
        self.text_a, self.text_b, self.values = [], [], []
        self.ids = {"id_a": [], "id_b": [], "pair_id": []}
        self.line_numbers = []
        self.n_empty = 0

    def add(self, get, roles, where, number, json=False):
        texts = []
        for role in ("text_a", "text_b"):
            text = get(roles[role], role)
            if text is None and json:
                # JSON's null is no text: read as "" without a word, it paired a blank with the
                # other text (--input refuses a null text the same way)
                raise DocumentFormatError(f"{where}: {role} must be text; got null (write \"\" for an empty text, "
                                          "or leave the pair out)")
            if json and isinstance(text, float):
                # NaN (which Python's json reads) is a DataFrame's missing cell, not JSON's: refused
                # as Infinity is, below
                raise DocumentFormatError(f"{where}: {role} must be text; got float {text!r}")
            if text is None or (isinstance(text, float) and math.isnan(text)):
                text = ""  # a missing cell (None, or NaN in a DataFrame) is an empty text
            if not isinstance(text, str):
                raise DocumentFormatError(f"{where}: {role} must be text; got {type(text).__name__} {text!r}")
            if not text.strip():
                self.n_empty += 1
            texts.append(text)
        role = "label" if "label" in roles else "score" if "score" in roles else None
        if role is not None:
            raw = get(roles[role], role)
            _refuse_underflow(raw, role, where)
        self.values.append(None if role is None else _parse_value(raw, self.kind, role, where))
        for key in self.ids:
            raw = get(roles[key], key) if key in roles else None
            if json and raw is not None and (isinstance(raw, bool) or not isinstance(raw, (str, int))):
                # str() made a list "[1]", a float "1.5" and NaN no id: refused, as documents' ids are
                raise DocumentFormatError(f"{where}: {key} must be a string or an integer; got "
                                          f"{type(raw).__name__} {_shown(raw)}")
            if isinstance(raw, float) and math.isnan(raw):
                raw = None
            self.ids[key].append(None if raw is None else str(raw).strip())
        self.text_a.append(texts[0])
        self.text_b.append(texts[1])
        self.line_numbers.append(number)


def _parse_value(raw, kind, role, where):
    if kind == "binary":
        if isinstance(raw, (bool, np.bool_)):
            return bool(raw)
        if isinstance(raw, numbers.Real) and raw in (0, 1):
            return bool(raw)
        text = raw.strip().lower() if isinstance(raw, str) else ""
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        if _number(raw) in (0, 1):      # "1.0", "0.0": a label written as a float, as JSON's 1.0 is read
            return bool(_number(raw))
        error = DocumentFormatError(f"{where}: {role} must be 0 or 1 (or true/false, yes/no) for a binary "
                                    f"label; got {_shown(raw)}")
        # a number other than 0 and 1: the file is graded, and a reader trying the graded reading
        # next reports that reading's error (learnsim._inputs.read_pairs_either)
        error.numeric = math.isfinite(_number(raw))
        raise error
    value = _number(raw)
    if not math.isfinite(value):
        raise DocumentFormatError(f"{where}: {role} must be a finite number for a graded score; "
                                  f"got {_shown(raw)}")
    if abs(value) > MAX_SCORE:
        # squared and summed by the fit, 1e300 overflowed into a model of NaNs saved as a success
        raise DocumentFormatError(f"{where}: {role} {_shown(raw)} is beyond +-{MAX_SCORE:g}, the largest graded "
                                  "score taken; rescale the scores")
    return value


def _refuse_underflow(raw, role, where):
    """Refuse a cell's text that Python's float reads as 0.0 though it is no zero ("1e-400", below
    the smallest float): a score read as the lowest grade, or a label as a non-duplicate, without
    a word, where the same number in a JSON line is refused (refuse_underflow)."""
    if not isinstance(raw, str) or _number(raw) != 0.0:
        return
    mantissa = re.split(r"[eE]", raw.strip(), maxsplit=1)[0]
    if any(c in "123456789" for c in mantissa):
        raise DocumentFormatError(f"{where}: {role!r} is {raw.strip()}, a number too small for a float (it would "
                                  "read as 0.0); give it as 0")


def _number(raw):
    """``raw`` (a cell's text or value) as a float; NaN where it is none (a bool is none)."""
    if isinstance(raw, bool):
        return math.nan
    try:
        return float(raw.strip() if isinstance(raw, str) else raw)
    except (TypeError, ValueError, OverflowError):      # OverflowError: an integer of hundreds of digits
        return math.nan


#: The largest graded score (in absolute value) a pair may carry: far beyond any scale of
#: similarity, and far below where the fit's sums of squares overflow.
MAX_SCORE = 1e12


def _shown(raw):
    """A cell for an error message: its text, quoted and cut short (:func:`short_repr`)."""
    try:
        return short_repr(raw if isinstance(raw, str) else str(raw))
    except ValueError:          # an integer too long for Python to write
        return short_repr(raw)


def _value_kind(roles, label_kind):
    """``"binary"``, ``"graded"``, or ``"unlabelled"`` when no column holds a label or score."""
    if label_kind is not None and label_kind not in ("binary", "graded"):
        raise ValueError(f"label_kind must be None, 'binary' or 'graded'; got {label_kind!r}")
    if roles and not any(role in roles for role in _VALUE_ROLES):
        return "unlabelled"
    if label_kind is None:
        return "binary" if "label" in roles else "graded"
    return label_kind


def _rows_source(rows, names, roles, kind, where_of):
    """Parse ``rows`` = iterable of ``(number, cells)`` where ``cells`` is a sequence."""
    columns = _Columns(kind)
    n_needed = max(roles.values()) + 1
    n_extra = 0
    width = None
    for number, cells in rows:
        where = where_of(number)
        if len(cells) < n_needed or (names is not None and len(cells) != len(names)):
            expected = (f"the header's {len(names)}" if names is not None else f"at least {n_needed}")
            raise DocumentFormatError(f"{where}: {len(cells)} field(s), expected {expected}")
        if width is None:
            width = len(cells)
        elif len(cells) > width:
            n_extra += 1  # e.g. STS licence notes after the second sentence
        columns.add(lambda col, _role: cells[col], roles, where, number)
    return columns, n_extra


# ------------------------------------------------------------------------------ sources

def _file_format(path, fmt):
    if fmt is not None:
        if fmt not in _FORMATS:
            raise ValueError(f"format must be one of {_FORMATS} or None (from the extension); got {fmt!r}")
        return fmt
    suffix = path.suffix.lower()
    if suffix == ".gz":
        suffix = Path(path.stem).suffix.lower()
    if suffix not in _SUFFIX_FORMATS:
        raise DocumentFormatError(f"{path}: unknown file type {suffix or '(no extension)'!r}; use .tsv, .csv, "
                                  ".txt or .jsonl (.json: JSON Lines), or pass format='tsv' / 'csv' / 'jsonl'")
    return _SUFFIX_FORMATS[suffix]


# a field wholly in CSV quotes with a doubled quote inside: how pandas' to_csv(sep="\t") writes a
# text holding a double quote ('say "hi" now' as '"say ""hi"" now"'), which no plain text is
_CSV_QUOTED_FIELD = re.compile(r'"(?:[^"]|"")*""(?:[^"]|"")*"')


def refuse_csv_quoted(fields, where):
    """Refuse a field of a plain TSV line (``quoting="auto"``) that is wholly in CSV quotes with
    its quotes doubled, as pandas' ``to_csv(sep="\\t")`` writes a text holding a double quote:
    read verbatim, the text kept its quotes doubled ('"say ""hi"" now"') without a word. The
    error names both readings; ``where`` is the file and the line."""
    for field in fields:
        if _CSV_QUOTED_FIELD.fullmatch(field.strip()):
            raise DocumentFormatError(
                f"{where}: the field {field.strip()[:60]!r} is in CSV quotes with its quotes doubled, as pandas' "
                "to_csv(sep='\\t') writes a text holding a double quote; quoting='csv' (--quoting csv) reads it as "
                "that text, quoting='none' (--quoting none) keeps it as written")


def _read_delimited(path, fmt, columns, delimiter, header, quoting, kind_arg, encoding_errors, encoding="utf-8"):
    counts = {"undecodable_lines": 0}
    if delimiter is None:
        # Tab for TSV; for CSV too when the first line has a tab and no comma outside it: the
        # STS Benchmark's sts-*.csv files are tab-separated.
        first = next((line for _n, line in decoded_lines(path, encoding_errors="replace", encoding=encoding)
                      if line.strip()), "")
        delimiter = "\t" if fmt == "tsv" or "\t" in first else ","
    elif not isinstance(delimiter, str) or len(delimiter) != 1:
        raise ValueError(f"delimiter must be one character; got {delimiter!r}")
    check_quoting(quoting)
    # "auto": by the format (CSV quoting for CSV, none for TSV), but for the layouts of known
    # files (below): the STS .csv files are split on tabs only, the Quora .tsv files are quoted
    quote = quoting == "csv" or (quoting == "auto" and fmt == "csv")

    def records(quote):
        hint = (f"; quoting={'none' if quote else 'csv'!r} (--quoting {'none' if quote else 'csv'}) "
                f"reads {'quotes as text' if quote else 'CSV quoting'}")
        return _delimited_records(path, delimiter, quote, encoding_errors, counts, hint=hint, encoding=encoding)

    probe = records(quote)
    try:
        first_number, first_fields = next(probe)
    except StopIteration:
        raise DocumentFormatError(f"{path} contains no pairs (the file is empty)") from None
    finally:
        probe.close()
    layout = "columns"
    names = None
    if columns is None:
        by_name = _layout_from_names(first_fields) if header is not False else None
        by_row = _layout_from_first_row(first_fields, delimiter) if header is not True else None
        if by_name is not None:
            roles, names, layout = by_name, first_fields, "header"
        elif by_row is not None:
            if header is not True:
                _refuse_documents_header(first_fields, f"{path}, line {first_number}")
            layout, roles, row_quote = by_row
            if quoting == "auto" and row_quote is not None:
                quote = row_quote
        else:
            raise _UnknownLayout(
                f"{path}, line {first_number}: not a recognised pair layout ({len(first_fields)} "
                f"{'tab' if delimiter == chr(9) else repr(delimiter)}-separated field(s): "
                f"{', '.join(repr(f[:20]) for f in first_fields[:8])}); {_headerless_hint(first_fields, delimiter)}")
    else:
        columns = parse_columns(columns)
        by_name = any(isinstance(c, str) for c in columns.values())
        if header is True or (header is None and by_name):
            names = first_fields
        elif header is None:
            # positions only: the first row is a header when its label/score cell is not a
            # value, or (unlabelled pairs) when it names the columns
            role = "label" if "label" in columns else "score" if "score" in columns else None
            if role is None:
                if _layout_from_names(first_fields) is not None:
                    names = first_fields
            else:
                cell = first_fields[columns[role]] if columns[role] < len(first_fields) else None
                if cell is not None and not _is_value(cell, _value_kind(columns, kind_arg)):
                    names = first_fields
        roles = _resolve(columns, names, f"{path}, line {first_number}")
    if quoting == "auto" and fmt == "tsv" and names is not None and _is_quora_header(names):
        quote = True  # the Quora release (and sample) header: CSV-quoted, tab-separated
    kind = _value_kind(roles, kind_arg)

    def parse(roles, kind):
        rows = records(quote)
        if quoting == "auto" and fmt == "tsv" and not quote:
            rows = _csv_quoted_refused(rows, path)
        if names is not None:
            next(rows)
        return _rows_source(rows, names if layout != "sts" else None, roles, kind,
                            lambda number: f"{path}, line {number}")

    try:
        parsed, n_extra = parse(roles, kind)
    except DocumentFormatError as exc:
        # headerless label text_a text_b whose first label is 0 or 1 but a later one another number:
        # a column of graded scores, as a list of tuples is (binary only when every value is 0/1)
        if not (layout == "label-text-text" and kind_arg is None and getattr(exc, "numeric", False)):
            raise
        layout, roles, kind = "score-text-text", {"score": 0, "text_a": 1, "text_b": 2}, "graded"
        parsed, n_extra = parse(roles, kind)
    return parsed, dict(layout=layout, roles=roles, n_extra_field_lines=n_extra,
                        n_undecodable_lines=counts["undecodable_lines"], names=names)


def _csv_quoted_refused(rows, path):
    """``rows`` (``(number, fields)`` of a plain TSV file), each checked by :func:`refuse_csv_quoted`."""
    for number, fields in rows:
        if any('""' in field for field in fields):
            refuse_csv_quoted(fields, f"{path}, line {number}")
        yield number, fields


def _is_value(cell, kind):
    try:
        _parse_value(cell, kind, "", "")
        return True
    except DocumentFormatError:
        return False


def _read_objects(objects, columns, kind_arg, where_of, json=False):
    """Pairs from ``(number, dict)`` items (JSON Lines, ``json``: a null text is refused; a list
    of dicts: None is a missing cell, an empty text)."""
    objects = list(objects)
    if not objects:
        return None, None
    first_number, first = objects[0]
    if columns is None:
        roles = _layout_from_names(list(first))
        if roles is None:
            raise _UnknownLayout(f"{where_of(first_number)}: the keys {', '.join(map(repr, first))} are not a "
                                      f"recognised pair layout; {_COLUMNS_HINT}")
        keys = list(first)
        roles = {role: keys[i] for role, i in roles.items()}
    else:
        roles = parse_columns(columns)
        positional = [r for r, c in roles.items() if isinstance(c, int)]
        if positional:
            raise DocumentFormatError(f"{where_of(first_number)}: {positional[0]}={roles[positional[0]]} is a "
                                      "position, but JSON objects have keys; name the key instead")
    kind = _value_kind(roles, kind_arg)
    parsed = _Columns(kind)
    for number, obj in objects:
        where = where_of(number)
        if not isinstance(obj, dict):
            raise DocumentFormatError(f"{where}: expected an object with keys; got {type(obj).__name__}")

        def get(key, role, obj=obj, where=where):
            if key not in obj:
                raise DocumentFormatError(f"{where}: no {key!r} key (for {role}); the keys are "
                                          f"{', '.join(map(repr, obj))}")
            return obj[key]

        parsed.add(get, roles, where, number, json=json)
    return parsed, dict(layout="header" if columns is None else "columns", roles=roles, n_extra_field_lines=0,
                        n_undecodable_lines=0, names=None)


def _read_jsonl(path, columns, kind_arg, encoding_errors, encoding="utf-8"):
    counts = {"undecodable_lines": 0}
    objects = []
    for number, line in decoded_lines(path, encoding_errors=encoding_errors, counts=counts, encoding=encoding):
        if not line.strip():
            continue
        if not objects and line.lstrip().startswith("["):
            raise DocumentFormatError(f"{path}, line {number}: a JSON array; pairs are read from JSON Lines, one "
                                      "object a line ({\"text_a\": ..., \"text_b\": ..., \"label\": ...})")
        record = json_record(line, f"{path}, line {number}")
        # a label or score 1e-400 read as 0 (not a duplicate, the lowest grade): refused, naming it
        refuse_underflow(record, line, f"{path}, line {number}")
        objects.append((number, record))
    parsed, info = _read_objects(objects, columns, kind_arg, lambda number: f"{path}, line {number}", json=True)
    if parsed is None:
        raise DocumentFormatError(f"{path} contains no pairs (the file is empty)")
    info["n_undecodable_lines"] = counts["undecodable_lines"]
    return parsed, info


def _is_dataframe(source):
    # Duck-typed, so that pandas stays optional and is never imported here.
    return hasattr(source, "columns") and hasattr(source, "itertuples") and hasattr(source, "iloc")


def _read_dataframe(frame, columns, kind_arg, path=None):
    """``path``: the .parquet file the frame was read from, named in the messages, its rows
    counted from 1 as the documents readers count them (a DataFrame's from 0, as its index)."""
    names = [str(c) for c in frame.columns]
    if path is None:
        where_of = lambda number: f"DataFrame row {number}"  # noqa: E731
    else:
        where_of = lambda number: f"{path}, row {number + 1}"  # noqa: E731
    if columns is None:
        roles = _layout_from_names(names)
        if roles is None:
            raise DocumentFormatError(f"{'DataFrame' if path is None else path} columns "
                                      f"{', '.join(map(repr, names))} are not a recognised pair layout; "
                                      f"{_COLUMNS_HINT}")
    else:
        roles = _resolve(parse_columns(columns), names, "DataFrame")
    rows = ((number, row) for number, row in enumerate(frame.itertuples(index=False, name=None)))
    parsed, _ = _rows_source(rows, None, roles, _value_kind(roles, kind_arg), where_of)
    return parsed, dict(layout="header" if columns is None else "columns", roles=roles,
                        n_extra_field_lines=0, n_undecodable_lines=0, names=names)


def _binary_like(value):
    """Whether a tuple's value reads as a binary label (a bool, 0/1, or such a string)."""
    if isinstance(value, (bool, np.bool_)):
        return True
    if isinstance(value, numbers.Real):
        return value in (0, 1)
    return isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE


def _read_list(items, columns, kind_arg):
    items = list(items)
    if not items:
        raise ValueError("the list of pairs is empty")
    where_of = lambda number: f"pair {number}"  # noqa: E731
    if all(isinstance(item, dict) for item in items):
        return _read_objects(enumerate(items), columns, kind_arg, where_of)
    for number, item in enumerate(items):
        if not isinstance(item, (tuple, list)):
            raise TypeError(f"pair {number}: expected a tuple such as (text_a, text_b, label) (or a dict in a "
                            f"list of dicts); got {type(item).__name__}")
    if columns is None and all(len(item) == 2 for item in items):
        roles = {"text_a": 0, "text_b": 1}
    elif columns is None:
        if any(len(item) != 3 for item in items):
            bad = next(i for i, item in enumerate(items) if len(item) != 3)
            raise DocumentFormatError(f"pair {bad} has {len(items[bad])} element(s); without columns= a tuple "
                                      f"is (text_a, text_b) or (text_a, text_b, label or score); {_COLUMNS_HINT}")
        # binary only when every value reads as one, so that a score column whose first values
        # happen to be 0 or 1 is not taken for labels
        binary = kind_arg == "binary" or (kind_arg is None and all(_binary_like(item[2]) for item in items))
        roles = {"text_a": 0, "text_b": 1, "label" if binary else "score": 2}
    else:
        roles = _resolve(parse_columns(columns), None, "pairs")
    parsed, _ = _rows_source(enumerate(items), None, roles, _value_kind(roles, kind_arg), where_of)
    return parsed, dict(layout="tuples" if columns is None else "columns", roles=roles,
                        n_extra_field_lines=0, n_undecodable_lines=0, names=None)


# ---------------------------------------------------------------------------- the reader

def _pair_indices(text_a, text_b):
    """Texts (distinct, in order of first appearance) and the ``(n, 2)`` index of every pair.

    A pair of two identical texts is valid data (a text is a duplicate of itself), but
    :class:`Pairs` needs two distinct items: its second text gets an entry of its own, a copy,
    shared by every such pair of that text. Returns the texts, the indices and the number of
    such pairs.
    """
    index, copies = {}, {}
    texts = []
    rows = []
    n_identical = 0
    for a, b in zip(text_a, text_b):
        for t in (a, b):
            if t not in index:
                index[t] = len(texts)
                texts.append(t)
        if a == b:
            n_identical += 1
            if a not in copies:
                copies[a] = len(texts)
                texts.append(a)
            rows.append((index[a], copies[a]))
        else:
            rows.append((index[a], index[b]))
    return texts, np.array(rows, dtype=np.int64).reshape(-1, 2), n_identical


def _conflicting_pairs(indices, labels, line_numbers, where, counted):
    """The number of pairs of the same two texts (in either order) labelled 1 on one line and 0 on
    another, with one warning naming the first two such lines (``counted``: "lines", "rows", ...,
    and the offset from a position to the number shown): no duplicate rule gets both right, and
    fit said so only once it had vectorised every text, naming no line."""
    first = {}                  # the pair (sorted indices) -> (its label, its position)
    conflicting, example = set(), None
    for position, ((i, j), label) in enumerate(zip(indices.tolist(), labels.tolist())):
        key = (i, j) if i < j else (j, i)
        earlier = first.setdefault(key, (label, position))
        if earlier[0] != label:
            if example is None:
                example = (earlier[1], position)
            conflicting.add(key)
    if example is not None:
        word, offset = counted
        a, b = (int(line_numbers[p]) + offset for p in example)
        warn_outside(UserWarning(
            f"{where}: {len(conflicting)} pair(s) of the same two texts are labelled 1 on one line and 0 on another "
            f"(first: {word} {a} and {b}); no duplicate rule can get both right: correct the label, or drop one "
            "of the lines"), UserWarning, stacklevel=2)
    return len(conflicting)


def read_pairs(source, *, columns=None, format=None, delimiter=None, header=None, quoting="auto",
               encoding_errors="replace", label_kind=None, encoding="utf-8"):
    """Read text pairs, labelled duplicate / not duplicate or graded with a score.

    Parameters
    ----------
    source : path-like, list, or pandas DataFrame
        * a file: TSV (``.tsv``, ``.tab``, ``.txt``), CSV (``.csv``) or JSON Lines (``.jsonl``,
          ``.ndjson``, ``.json``: JGLUE's JSTS files), told apart by the extension (``.gz`` is decompressed) or ``format``;
        * a list of tuples (read like a headerless file: positions) or of dicts (like JSON
          Lines: keys). Without ``columns`` a tuple is ``(text_a, text_b, label_or_score)``,
          binary when the first tuple's third element is a bool or 0/1, else graded;
        * a pandas DataFrame (columns by name or position; pandas is not needed otherwise).
    columns : str or dict, optional
        Which column holds which role, by name or 0-based position, e.g.
        ``"label=0,text_a=3,text_b=4"`` or ``{"score": "sim", "text_a": "s1", "text_b": "s2"}``;
        see :func:`parse_columns`. ``label`` is a binary label (0/1, true/false, yes/no),
        ``score`` a graded score (any finite number). Without it the common layouts are
        recognised:

        * a header naming both texts and at most one of label / score: ``text_a``/``text_b``,
          ``sentence1``/``sentence2``, ``question1``/``question2``, ``text1``/``text2``, with
          ``label``/``is_duplicate`` or ``score``/``similarity``, and optionally ``id_a``/``qid1``,
          ``id_b``/``qid2``, ``pair_id``/``id`` (the Quora release's ``id qid1 qid2 question1
          question2 is_duplicate`` is one);
        * without header: the Quora sample, ``label question1 question2 pair_id`` (label 0 or
          1); ``label text_a text_b`` (every label 0 or 1, also written ``1.0``/``0.0``, as
          under a header naming ``label``); ``score text_a text_b`` (a first column of numbers
          not all 0 and 1: graded); ``text_a text_b`` (unlabelled pairs);
        * the STS Benchmark, ``genre file year id score sentence1 sentence2 [notes...]``
          tab-separated without header, read without quote processing.

        Anything else is an error that asks for ``columns``. Pairs without a label or score
        column are unlabelled: pairs to decide, not supervision (``pairs`` is then None).
    format : {"tsv", "csv", "jsonl"}, optional
        Overrides the extension.
    delimiter : str, optional
        Field separator of a TSV/CSV file; by default a tab for TSV, and for CSV a tab when
        the first line has one (the STS files are ``.csv`` but tab-separated), else a comma.
    header : bool, optional
        Whether the first row of a TSV/CSV file is a header. By default it is when ``columns``
        names a column, or when its label/score cell (columns by position) is not a value.
    quoting : {"auto", "csv", "none"}, default="auto"
        ``"csv"``: a field may be quoted with ``"`` (inner quotes doubled) and then hold the
        delimiter or a line break; a field that starts with ``"`` and does not end with one is
        an error. ``"none"``: split on the delimiter only; every quote is text, kept verbatim.
        ``"auto"`` goes by the format (the extension, or ``format``):

        * TSV (``.tsv``, ``.tab``, ``.txt``): ``"none"``, as plain TSV has no quoting (a text
          may start with ``"`` or hold an unbalanced one); except the Quora files, written
          with CSV quoting: the Quora sample layout without header, and a header naming
          ``question1`` and ``question2`` (the Quora release), are read with ``"csv"``;
        * CSV (``.csv``): ``"csv"``; except the STS Benchmark layout (its ``.csv`` files are
          tab-separated and hold unbalanced quotes), read with ``"none"``.

        Pass ``"csv"`` to read a CSV-quoted ``.tsv`` file (quoted fields holding tabs or line
        breaks), ``"none"`` to keep the quotes of a ``.csv`` file as text.
    encoding_errors : {"replace", "strict"}, default="replace"
        Bytes that are not UTF-8 become U+FFFD, with one
        :class:`~learnsim.datasets.UndecodableBytesWarning` counting the lines affected;
        ``"strict"`` raises :class:`~learnsim.datasets.DocumentFormatError` instead.
    label_kind : {None, "binary", "graded"}, optional
        Overrides how the label / score column is read (by default from its role).
    encoding : str, default="utf-8"
        The text encoding of a file, as in Python's ``open`` and pandas' ``read_csv``: e.g.
        ``"cp1254"`` (Turkish), ``"cp1253"`` (Greek), ``"cp1250"`` (Czech), ``"cp1255"``
        (Hebrew), ``"cp1256"`` (Arabic, Urdu). An unknown name, or one that does not write
        ASCII as ASCII (UTF-16), is a ``ValueError``.

    Returns
    -------
    Bunch
        ``texts`` (distinct texts in order of first appearance; see below), ``pairs``
        (:class:`learnsim.supervision.Pairs` indexing ``texts``: ``labels`` for a binary label,
        ``scores`` for a graded one, so ``pairs.is_graded`` tells them apart; None for
        unlabelled pairs), ``indices`` (the ``(n_pairs, 2)`` index of each pair into ``texts``,
        whatever the kind), ``kind`` (``"binary"``, ``"graded"`` or ``"unlabelled"``),
        ``labels`` (int64, 1 = duplicate; None unless binary), ``scores`` (float64; None
        unless graded), ``text_a``, ``text_b`` (object arrays, one
        entry per pair), ``pair_ids`` (int64 when every id is an integer, else an object array;
        ``0..n-1`` without a ``pair_id`` column), ``id_a``, ``id_b`` (object arrays, None
        without such a column), ``line_numbers`` (line of each pair in the file; the row or
        list position for in-memory data), ``n_identical_pairs`` (pairs whose two texts are
        the same string: kept, as a text is a duplicate of itself; the second text of such a
        pair is a second entry in ``texts``, since a pair needs two distinct items),
        ``n_conflicting_pairs`` (binary: pairs of the same two texts, in either order, labelled
        1 on one line and 0 on another; kept as given, under a ``UserWarning`` naming the first
        two such lines),
        ``n_empty_texts`` (empty or blank texts, kept), ``n_undecodable_lines``,
        ``n_extra_field_lines`` (headerless rows with more fields than the first; the extra
        fields are ignored), ``layout`` (``"header"``, ``"quora-sample"``, ``"sts"``, ``"label-text-text"``,
        ``"score-text-text"``, ``"text-text"``,
        ``"tuples"`` or ``"columns"``), ``columns`` (the role of each column: position, or key
        for JSON and dicts), ``filename`` (None for in-memory data).

    Raises
    ------
    DocumentFormatError
        (a ``ValueError``) On a bad column choice for the data (an unknown name, a position
        out of range, a name without header), a row with too few fields, a label that is not
        0/1, a score that is not a number, a text that is not a string, invalid JSON, broken
        quoting, an unrecognised layout without ``columns``, no pairs at all, or (with
        ``encoding_errors="strict"``) bytes that are not UTF-8. The message names the file and
        line (or the row); for broken quoting it names the ``quoting`` that reads the file
        the other way.
    ValueError, TypeError
        On a malformed ``columns`` (see :func:`parse_columns`) or another bad argument.
    FileNotFoundError, IsADirectoryError

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.datasets import read_pairs
    >>> path = os.path.join(tempfile.mkdtemp(), "pairs.tsv")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write("text_a\\ttext_b\\tlabel\\n"
    ...                 "how do I reset my password\\tforgot my password\\t1\\n"
    ...                 "I was charged twice\\tthe app crashes\\t0\\n")
    >>> data = read_pairs(path)
    >>> data.pairs, data.kind
    (Pairs(n_pairs=2, n_similar=1), 'binary')
    >>> data.texts
    ['how do I reset my password', 'forgot my password', 'I was charged twice', 'the app crashes']
    >>> data.indices
    array([[0, 1],
           [2, 3]])
    """
    check_encoding_errors(encoding_errors)
    check_encoding(encoding)
    check_quoting(quoting)
    if header not in (None, True, False):
        raise ValueError(f"header must be None (detect), True or False; got {header!r}")
    if label_kind is not None:
        _value_kind({}, label_kind)
    filename = None
    if isinstance(source, (str, os.PathLike)):
        if isinstance(source, str) and not source.strip():
            raise ValueError("source is an empty string; pass a file, a list of pairs or a DataFrame")
        path = Path(source).expanduser()
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file")
        if path.is_dir():
            raise IsADirectoryError(f"{path} is a folder, not a pairs file")
        fmt = "parquet" if path.suffix.lower() == ".parquet" and format in (None, "auto") else _file_format(path, format)
        if fmt == "parquet":
            from ._base import read_parquet_frame

            parsed, info = _read_dataframe(read_parquet_frame(path), columns, label_kind, path)
        elif fmt == "jsonl":
            parsed, info = _read_jsonl(path, columns, label_kind, encoding_errors, encoding)
        elif not path.is_file():
            # a pipe (mkfifo, <(zcat ...)) is read once: its layout told from a first reading, it
            # was opened again for its pairs, which waited for a writer forever
            raise DocumentFormatError(f"{path} is a pipe or a device, not a file: the layout of a .{fmt} is told "
                                      "from a first reading before its pairs are read; save it to a file first (a "
                                      ".jsonl is read in one pass)")
        else:
            parsed, info = _read_delimited(path, fmt, columns, delimiter, header, quoting, label_kind,
                                           encoding_errors, encoding)
        filename = str(path)
    elif _is_dataframe(source):
        parsed, info = _read_dataframe(source, columns, label_kind)
    elif isinstance(source, (list, tuple)):
        parsed, info = _read_list(source, columns, label_kind)
    else:
        raise TypeError(f"source must be a path, a list of pairs or a pandas DataFrame; got {type(source).__name__}")
    if not parsed.values:
        raise DocumentFormatError(f"{filename or 'the data'} has a header but no pairs")

    # here, not at the top: learnsim.io (the documents reader) imports this module, and scikit-learn
    # (1.7 s) and scipy (0.2 s) would come with every command that reads a file, a search's queries too
    from sklearn.utils import Bunch

    from learnsim.supervision import Pairs

    texts, indices, n_identical = _pair_indices(parsed.text_a, parsed.text_b)
    binary = parsed.kind == "binary"
    n_conflicting = 0
    if parsed.kind == "unlabelled":
        values, pairs = None, None
    else:
        values = np.array(parsed.values, dtype=bool if binary else np.float64)
        pairs = Pairs(indices, labels=values) if binary else Pairs(indices, scores=values)
    if binary:
        counted = (("rows", 1) if fmt == "parquet" else ("lines", 0)) if filename is not None else \
            (("DataFrame rows", 0) if _is_dataframe(source) else ("pairs", 0))
        n_conflicting = _conflicting_pairs(indices, values, parsed.line_numbers, filename or "the data", counted)
    optional = {key: (_object_array(ids) if any(v is not None for v in ids) else None)
                for key, ids in parsed.ids.items() if key != "pair_id"}
    return Bunch(
        texts=texts,
        pairs=pairs,
        indices=indices,
        kind=parsed.kind,
        labels=values.astype(np.int64) if binary else None,
        scores=values if parsed.kind == "graded" else None,
        text_a=_object_array(parsed.text_a),
        text_b=_object_array(parsed.text_b),
        pair_ids=_parse_pair_ids(parsed.ids["pair_id"]),
        id_a=optional["id_a"],
        id_b=optional["id_b"],
        line_numbers=np.array(parsed.line_numbers, dtype=np.int64),
        n_identical_pairs=n_identical,
        n_conflicting_pairs=n_conflicting,
        n_empty_texts=parsed.n_empty,
        n_undecodable_lines=info["n_undecodable_lines"],
        n_extra_field_lines=info["n_extra_field_lines"],
        layout=info["layout"],
        columns=dict(info["roles"]),
        filename=filename,
    )
