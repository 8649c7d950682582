"""Checks of untrusted input shared by the readers, the command line and the service (issue 45).

- **JSON nesting.** Every JSON text learnsim reads from a user (a JSON Lines record of
  documents, a corpus, queries, pairs or judgements; a ``--filter`` object; a request body and a
  filter of ``learnsim serve``) may nest arrays and objects at most :data:`MAX_JSON_DEPTH`
  levels deep (the outermost array or object is level 1). The depth is found by a scan of the
  brackets outside strings (no recursion, so 100,000 levels cost a scan, never a
  ``RecursionError``), before the text is parsed; deeper is a :class:`JSONDepthError` (a
  ``ValueError``) saying so. Stored metadata follows the same bound (a metadata object is level
  1: :func:`learnsim.index._store.check_metadata`).
- **Duplicate keys.** An object that names one key twice is a :class:`DuplicateKeyError` (a
  ``ValueError``) naming the key: Python's ``json`` keeps the last one silently, other tools
  the first, so such a record means what its writer did not say.
- **Texts with nothing to search.** :func:`has_content`: a text holds at least one letter or
  digit (any script: ``str.isalnum``). An empty query, or one of spaces and punctuation alone,
  has no term to score and ranks the collection arbitrarily; a document of that kind can never
  be found. The command line and the service refuse both (the OpenAPI schema states the rule
  as the pattern :data:`CONTENT_PATTERN`).
- **Text that is not Unicode text.** A JSON string may spell a lone surrogate (``"\\ud800"``,
  half of a UTF-16 pair), and Python's ``json`` reads bytes with ``surrogatepass``, so the
  bytes ``ED A0 80`` become one too. No UTF-8 can hold it: stored, logged or answered, it fails
  far from where it came in (or a tokenizer drops it, so that a query silently means less).
  :func:`loads` refuses both with a :class:`TextError` (a ``ValueError``).

Only the standard library is imported here (numpy, lazily, for a long scan).
"""
from __future__ import annotations

import json
import re
from array import array
import sys
import unicodedata

__all__ = ["check_flag", "MAX_JSON_DEPTH", "MAX_GRADE", "CONTENT_PATTERN", "RADICAL_CLASS", "EMOJI_CLASS", "FLAG_CLASS", "DuplicateKeyError", "JSONDepthError", "LongIntegerError", "TextError",
           "as_path", "check_grade", "check_json_depth", "check_text", "has_content", "has_surrogate", "loads",
           "short_repr", "unique_keys", "id_by_value", "trec_order"]

#: The deepest nesting of arrays and objects accepted in any JSON input (the outermost is 1).
MAX_JSON_DEPTH = 64

#: The largest relevance grade in size: trec_eval reads a grade into a C int, and a grade of
#: hundreds of digits cannot become the float nDCG's gain is (an OverflowError, not an answer).
MAX_GRADE = 2**31 - 1

#: The CJK radicals the tokenizer reads as the ideographs they stand for (``fold_radicals``: the
#: Kangxi radicals and the two others with a compatibility form; ⼈ U+2F08 is 人), as the body of a
#: regular expression class.
RADICAL_CLASS = r"\u2e9f\u2ef3\u2f00-\u2fd5"
#: The emoji the tokenizer reads as terms (``emoji_terms``: the pictographs of U+1F300-U+1FAFF and
#: the symbols most often shown as emoji), and the regional indicators of flags, as the bodies of
#: regular expression classes (the tokenizer's reading is in learnsim.text._folds).
EMOJI_CLASS = (r"\u231a\u231b\u23e9-\u23fa\u2600-\u2775\u2794-\u27bf\u2b1b\u2b1c\u2b50\u2b55\u3030\u303d\u3297\u3299"
               r"\U0001f004\U0001f0cf\U0001f18e\U0001f191-\U0001f19a\U0001f300-\U0001f3fa\U0001f400-\U0001faff")
FLAG_CLASS = r"\U0001f1e6-\U0001f1ff"
#: A text with something to search: a letter or a digit (Python's ``re``: ``[^\W_]``), such a
#: radical (a symbol to ``str.isalnum``: a query copied from a PDF as "⼈⼝" was refused as empty),
#: or an emoji (a term since emoji_terms: a query of 👍 alone was refused as empty by the command
#: line and the service while the library searched it), or a keycap's mark (#️⃣ and *️⃣, terms since
#: emoji_sequences).
CONTENT_PATTERN = r"[^\W_]|[" + RADICAL_CLASS + EMOJI_CLASS + FLAG_CLASS + r"\u20e3]"
_CONTENT = re.compile(CONTENT_PATTERN)

# a JSON string: quotes around anything but a quote or a backslash, or a backslash escape
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_OPEN, _CLOSE = b"[{", b"]}"
# the escape of a surrogate (a lone one survives json's reading; a pair becomes one character)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# below this many bytes the scan is a plain loop (numpy's import and set-up cost more)
_NUMPY_FROM = 4096


class JSONDepthError(ValueError):
    """A JSON text nests arrays and objects deeper than :data:`MAX_JSON_DEPTH`."""


class TextError(ValueError):
    """A JSON text is not UTF-8, or one of its strings holds a lone surrogate."""


class DuplicateKeyError(ValueError):
    """A JSON object names one key twice (``key``: the key)."""

    def __init__(self, key):
        self.key = key
        shown = key if len(key) <= 80 else key[:80] + "..."
        super().__init__(f"the key {shown!r} appears twice in one object")


def unique_keys(pairs):
    """An ``object_pairs_hook`` for :func:`json.loads`: the dict of ``pairs``, or a
    :class:`DuplicateKeyError` naming a key given twice."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return out


def _depth(raw):
    """The deepest nesting of brackets in ``raw`` (bytes), strings left out; no recursion."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_JSON_DEPTH:
        return 0     # too few brackets to be too deep (the common case: one scan in C)
    if b'"' in raw:
        raw = _STRING.sub(b"", raw)
    if len(raw) < _NUMPY_FROM:
        depth = deepest = 0
        for byte in raw:
            if byte in _OPEN:
                depth += 1
                if depth > deepest:
                    deepest = depth
            elif byte in _CLOSE:
                depth -= 1
        return deepest
    import numpy as np

    b = np.frombuffer(raw, dtype=np.uint8)
    step = ((b == 0x5B) | (b == 0x7B)).astype(np.int32) - ((b == 0x5D) | (b == 0x7D)).astype(np.int32)
    return int(np.cumsum(step).max(initial=0))


def check_json_depth(text, limit=MAX_JSON_DEPTH):
    """Raise :class:`JSONDepthError` when the JSON ``text`` (str or bytes) nests deeper than
    ``limit`` levels (counted on the brackets outside strings, without parsing it).

    Examples
    --------
    >>> from learnsim._utils.inputs import check_json_depth
    >>> check_json_depth('{"a": [[1]]}')
    >>> check_json_depth("[" * 65 + "]" * 65)
    Traceback (most recent call last):
    ...
    learnsim._utils.inputs.JSONDepthError: the JSON nests deeper than 64 levels (arrays and objects inside one another; MAX_JSON_DEPTH)
    """
    raw = text if isinstance(text, (bytes, bytearray)) else str(text).encode("utf-8", "surrogatepass")
    if _depth(bytes(raw)) > limit:
        raise JSONDepthError(f"the JSON nests deeper than {limit} levels (arrays and objects inside one "
                             "another; MAX_JSON_DEPTH)")


class LongIntegerError(ValueError):
    """A JSON integer of more digits than Python converts (``sys.get_int_max_str_digits()``)."""


def loads(text, *, limit=MAX_JSON_DEPTH):
    """:func:`json.loads` of untrusted input: at most ``limit`` levels deep
    (:class:`JSONDepthError`), no key twice in an object (:class:`DuplicateKeyError`); invalid
    JSON is the :class:`json.JSONDecodeError` of :func:`json.loads`. All three are ValueErrors.

    Examples
    --------
    >>> from learnsim._utils.inputs import loads
    >>> loads('{"k": 1}')
    {'k': 1}
    >>> loads('{"k": 1, "k": 2}')
    Traceback (most recent call last):
    ...
    learnsim._utils.inputs.DuplicateKeyError: the key 'k' appears twice in one object
    """
    check_json_depth(text, limit)
    if isinstance(text, (bytes, bytearray)):
        # strictly: json's own reading of bytes lets the bytes of a surrogate through
        raw = bytes(text)
        try:
            text = raw.decode("utf-8-sig" if raw.startswith(b"\xef\xbb\xbf") else "utf-8")
        except UnicodeDecodeError as exc:
            raise TextError(f"the JSON is not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    try:
        value = json.loads(text, object_pairs_hook=unique_keys)
    except RecursionError:      # a deep stack already: the scan above bounds the parser's own depth
        raise JSONDepthError(f"the JSON nests too deeply to be read (at most {limit} levels)") from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError) or "integer string conversion" not in str(exc):
            raise
        # Python's own words name sys.set_int_max_str_digits, a setting of the reader, not the input
        raise LongIntegerError(f"the JSON holds an integer of more than {sys.get_int_max_str_digits():,} digits, "
                               "more than any number it can mean") from None
    if _SURROGATE_ESCAPE.search(text) is not None or not text.isascii() and _SURROGATE.search(text) is not None:
        check_text(value)
    return value


def trec_order(scores):
    """``{doc_id: score}`` as ``[(doc_id, score)]`` in trec_eval's order: by descending score, ties
    by descending document id. trec_eval holds a score as a C float (``TEXT_RESULTS.sim``; so does
    pytrec_eval, and BEIR through it), so scores equal in single precision tie there (1 + 1e-9 and
    1; any two beyond 3.4e38, infinite as floats): ranked by the full double, a run's near ties
    went by score where trec_eval's went by id. The scores are returned as given.

    >>> from learnsim._utils.inputs import trec_order
    >>> trec_order({"a": 1.0 + 1e-9, "b": 1.0, "c": 2.0})
    [('c', 2.0), ('b', 1.0), ('a', 1.000000001)]
    """
    docs = list(scores)
    # array("f") rounds as C's cast to float does, to infinity past its range, without an error
    held = array("f", [float(scores[doc]) for doc in docs]).tolist()
    order = sorted(range(len(docs)), key=lambda i: (held[i], docs[i]), reverse=True)
    return [(docs[i], scores[docs[i]]) for i in order]


def id_by_value(key):
    """An id as judgements, runs and collections are matched by it: stripped, and an all-digit one
    (ASCII digits: int() reads "٧" and fails on "²", which str.isdigit takes too) without its
    leading zeros ("001" in cran.qry and "1" in a qrels file name one query).

    Examples
    --------
    >>> from learnsim._utils.inputs import id_by_value
    >>> id_by_value(" 007"), id_by_value("LA-07"), id_by_value("²")
    ('7', 'LA-07', '²')

    An id beyond ASCII is compared in NFC: 'čaj' typed precomposed in a corpus and with a combining
    caron in a qrels file (as macOS file names and some editors write it) look alike and are one id
    (the judgement named an "unknown document 'čaj'"), as cluster labels are compared.
    """
    key = key.strip()
    if key.isascii():
        return str(int(key)) if key.isdigit() else key
    return unicodedata.normalize("NFC", key)


def has_surrogate(text):
    """Whether the str ``text`` holds a lone surrogate (an ASCII text is looked at no further)."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def check_text(value, where=None):
    r"""Raise :class:`TextError` when a string in ``value`` (a str, or the dicts and lists of a
    JSON value, keys included) holds a lone surrogate, which no UTF-8 text can hold;
    ``where`` (e.g. ``"texts[3]"``) begins the message.

    Examples
    --------
    >>> from learnsim._utils.inputs import check_text
    >>> check_text({"q": ["caf\u00e9"]})
    >>> check_text(["ok", "half " + chr(0xD800) + " a pair"])
    Traceback (most recent call last):
    ...
    learnsim._utils.inputs.TextError: a string holds a lone surrogate (U+D800), half of a UTF-16 pair and no character: 'half \ud800 a pair'
    """
    if isinstance(value, str):
        found = None if value.isascii() else _SURROGATE.search(value)
        if found is not None:
            shown = value if len(value) <= 60 else value[:60] + "..."
            raise TextError(f"{where + ': ' if where else ''}a string holds a lone surrogate "
                            f"(U+{ord(found.group()):04X}), half of a UTF-16 pair and no character: {ascii(shown)}")
    elif isinstance(value, dict):
        for k, v in value.items():
            check_text(k, where)
            check_text(v, where)
    elif isinstance(value, (list, tuple)):
        for v in value:
            check_text(v, where)


def has_content(text):
    """Whether ``text`` holds a letter or a digit (in any script), i.e. something to search for
    or to find: not empty, not spaces and punctuation alone.

    Examples
    --------
    >>> from learnsim._utils.inputs import has_content
    >>> has_content("how to learn python?"), has_content("東京"), has_content(" ?! ... "), has_content("")
    (True, True, False, False)
    """
    return isinstance(text, str) and _CONTENT.search(text) is not None


def as_path(value, name="path", what="the path of a file"):
    """``value`` as a :class:`pathlib.Path`: a str or an ``os.PathLike``, else a TypeError that
    names the parameter (``os.fspath``'s "expected str, bytes or os.PathLike object" named none,
    and bytes paths are not taken: a path is text).

    Examples
    --------
    >>> as_path("model.npz").name
    'model.npz'
    >>> as_path(None, "path")
    Traceback (most recent call last):
        ...
    TypeError: path must be the path of a file (a str or a pathlib.Path); got NoneType
    """
    import os
    from pathlib import Path

    if isinstance(value, (str, os.PathLike)) and not isinstance(value, bytes):
        path = os.fspath(value)
        if isinstance(path, str):
            if not path:
                raise ValueError(f"{name} is empty: give {what}")
            return Path(path)
    raise TypeError(f"{name} must be {what} (a str or a pathlib.Path); got {type(value).__name__}")


def check_flag(value, name):
    """``value`` as a bool (numpy's ``bool_`` too, told by its type's name: this module imports no
    numpy), else a TypeError naming ``name``: a flag read for its truth value took ``"no"`` or
    ``"false"`` (from a form) as true, silently another answer. The index's and the client's."""
    if isinstance(value, bool) or (type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_")):
        return bool(value)
    raise TypeError(f"{name} must be True or False; got {short_repr(value)}")


def short_repr(value, limit=40):
    """``repr(value)`` cut to ``limit`` characters, for an error message about hostile input (an
    integer too long for ``repr`` says its size instead)."""
    try:
        text = repr(value)
    except ValueError:      # Python's limit on converting a long integer to text
        return f"an integer of {value.bit_length()} bits"
    return text if len(text) <= limit else text[:limit] + "..."


def check_grade(grade, where, text=None):
    """An integer relevance grade within +-MAX_GRADE, or a ValueError naming ``where`` (``text``:
    what the file said, for the message).

    >>> from learnsim._utils.inputs import check_grade
    >>> check_grade(3, "qrels.tsv, line 1")
    3
    >>> check_grade(10**40, "qrels.tsv, line 2")
    Traceback (most recent call last):
    ...
    ValueError: qrels.tsv, line 2: relevance grade 1000000000000000000000000000000000000000... is out of range: a grade is an integer from -2,147,483,648 to 2,147,483,647, as trec_eval reads it
    """
    if not -MAX_GRADE - 1 <= grade <= MAX_GRADE:
        shown = short_repr(text) if text is not None else short_repr(grade)
        raise ValueError(f"{where}: relevance grade {shown} is out of range: a grade is an integer from "
                         f"{-MAX_GRADE - 1:,} to {MAX_GRADE:,}, as trec_eval reads it")
    return grade
