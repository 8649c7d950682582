"""The documents of an index: ids, texts and metadata in SQLite, each write with a sequence number.

One table ``docs``: ``seq`` (INTEGER PRIMARY KEY AUTOINCREMENT: the sequence number of the add,
never reused), ``id`` (the user's id), ``text``, ``meta`` (JSON or NULL) and ``deleted_seq``
(NULL while the document is live, else the sequence number of the delete, from the table
``writes``). A live id is unique (a partial unique index). The database runs in WAL mode with
``synchronous=FULL``: once a commit returns, the write survives a crash of the process or of
the machine, which is what :meth:`learnsim.index.Index.add` acknowledges.

``digest`` (issue 45) is each row's checksum of its id, text and metadata (:func:`row_digest`),
recorded when the row is written: a text or metadata edited in the database behind learnsim's
back is damage, found by :meth:`learnsim.index.Index.verify` and when the row is read
(:meth:`DocumentStore.documents`, :meth:`DocumentStore.live_rows`). A database written before
has no such column: the first write adds it (``ALTER TABLE``, no rewrite), and the rows written
before carry no digest (NULL), which verify reports as unchecked rather than damaged.

``text_key`` is the 16-byte BLAKE2b of each live row's text (:func:`text_key`, its UTF-8 with
``surrogatepass``: the key :meth:`learnsim.index.Index.dedupe` groups exact copies by), under a
partial index over the live rows (``docs_text_key``): :meth:`DocumentStore.live_seqs_with_text`
finds the live documents whose text is exactly a given one in a few microseconds, where a look-up
by ``text`` (which has no index) read the whole table (21-45 ms at 100,000 documents).
:meth:`learnsim.index.Index.match` takes them as candidates beside its search's hits, and
compares each one's text with the query before taking it: a key is a pointer, never a proof. A
database written before has no such column: opening, searching and matching read it as before,
with no exact-copy candidates (nothing is written by a reader), and its first add, update or
upsert adds the column and the index (``ALTER TABLE``, ``CREATE INDEX``) and keys every live row
in that write's transaction (:meth:`DocumentStore._migrate`, as for ``digest``).

Only the standard library is imported here: opening an index to search must stay fast.
"""
from __future__ import annotations

import hashlib
import json
import json.encoder
import math
import sqlite3
import unicodedata

from .._utils.files import read_only_uri
from .._utils.inputs import MAX_JSON_DEPTH, check_text, has_surrogate
from ..exceptions import FilterError  # noqa: F401  (defined there; importable here as in 0.1)
from . import _row_pieces
from ._row_pieces import long_row_pieces, utf8_pieces

__all__ = ["DocumentStore", "FilterError", "MissingIdsError", "MAX_FILTER_VALUES", "MAX_ID_CHARS", "check_metadata", "check_filter",
           "text_key", "not_json_number"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL,
    text TEXT NOT NULL,
    meta TEXT,
    deleted_seq INTEGER,
    digest TEXT,
    text_key BLOB
);
CREATE UNIQUE INDEX IF NOT EXISTS docs_live_id ON docs(id) WHERE deleted_seq IS NULL;
CREATE INDEX IF NOT EXISTS docs_deleted ON docs(deleted_seq) WHERE deleted_seq IS NOT NULL;
CREATE TABLE IF NOT EXISTS writes (seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL);
"""
# SQLite binds at most this many parameters in one statement (999 in old builds)
_CHUNK = 900
# The index of the live rows' text keys: made by the first write (_migrate), not by _SCHEMA, which
# every open runs and which would fail on a database whose table has no text_key column
_TEXT_KEY_INDEX = "CREATE INDEX IF NOT EXISTS docs_text_key ON docs(text_key) WHERE deleted_seq IS NULL"
_INSERT = "INSERT INTO docs(id, text, meta, digest, text_key) VALUES (?, ?, ?, ?, ?)"
# live rows keyed per statement when a write keys the rows of a database written before text keys
_KEY_BATCH = 10_000


def text_key(text):
    """The key of a text's exact copies: 16 bytes of BLAKE2b over its UTF-8 (``surrogatepass``:
    a lone surrogate has a key too). docs.sqlite's ``text_key`` column and
    :meth:`learnsim.index.Index.dedupe` use it; equal keys are a candidate, equal texts the proof.

    >>> from learnsim.index._store import text_key
    >>> len(text_key("refund policy")), text_key("refund policy") == text_key("refund policy ")
    (16, False)
    """
    if len(text) <= _row_pieces.CHUNK:
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    h = hashlib.blake2b(digest_size=16)
    for piece in utf8_pieces(text):         # a long text's UTF-8 a piece at a time (._row_pieces)
        h.update(piece)
    return h.digest()


def _json_value_ok(value, depth=1):
    """Whether ``value`` is a JSON value (str keys, finite numbers), its arrays and objects
    nested at most MAX_JSON_DEPTH levels (``depth``: the level of ``value`` itself); None when
    it nests deeper (said apart from a bad value)."""
    if value is None or isinstance(value, (str, bool)):
        return True
    if isinstance(value, int):
        # SQLite reads an integer beyond 64 bits in JSON as a float: stored, a filter compared it
        # rounded ({"v": -2**63} matched -2**63 - 1, and $lt missed it), so it is refused as
        # filters refuse one
        return _INT64[0] <= value <= _INT64[1]
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple, dict)) and depth > MAX_JSON_DEPTH:
        return None
    if isinstance(value, (list, tuple)):
        items = value
    elif isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return False
        items = value.values()
    else:
        return False
    for v in items:
        ok = _json_value_ok(v, depth + 1)
        if not ok:
            return ok
    return True


def check_metadata(meta, where="metadata"):
    """A document's metadata: None or a dict of JSON values (str keys, finite numbers), nested
    at most :data:`learnsim._utils.inputs.MAX_JSON_DEPTH` levels (the dict itself is level 1)."""
    if meta is None:
        return None
    if not isinstance(meta, dict):
        raise TypeError(f"{where} must be a dict (or None); got {type(meta).__name__}")
    ok = _json_value_ok(meta)
    if ok is None:
        raise ValueError(f"{where} nests deeper than {MAX_JSON_DEPTH} levels (lists and dicts inside one another, "
                         "the metadata dict being level 1; MAX_JSON_DEPTH)")
    if not ok:
        raise ValueError(f"{where} must hold JSON values only (str keys; str, int within 64 bits (a larger "
                         f"one as a str), float, bool, None, lists and dicts of them; no NaN or infinity); "
                         f"got {_short(meta, 200)}{_first_not_json(meta, where)}")
    text = json.dumps(meta, ensure_ascii=False, sort_keys=True, allow_nan=False)
    if not text.isascii():
        check_text(meta, where)     # a lone surrogate: no UTF-8 (SQLite's codec error, naming nothing)
    # (json.dumps writes a NUL as \u0000; a str holding a backslash and "u0000" matches too, so look)
    if "\\u0000" in text and _holds_nul(meta):
        # SQLite's JSON functions end a string at a NUL character: a filter read "a\x00b" as "a",
        # and {"k": "a"} matched it (the filters compare json_extract's values)
        raise ValueError(f"{where} holds a str with a NUL character (\\x00), which a filter cannot "
                         f"compare (SQLite's JSON functions end a string there); got {_short(meta, 200)}")
    return text


def _first_not_json(value, path):
    """``"; first: <path> = <value>, a <type>"``: the first value (or key) of ``value`` that
    :func:`_json_value_ok` refuses, said where it is: the whole dict alone named no value (a
    numpy int64 from a DataFrame's cell looks like any int); "" when none is found."""
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return f"; first: the key {_short(k, 40)} of {path}, a {type(k).__name__} (keys are str)"
            found = _first_not_json(v, f"{path}[{k!r:.40}]")
            if found:
                return found
        return ""
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = _first_not_json(v, f"{path}[{i}]")
            if found:
                return found
        return ""
    if _json_value_ok(value, MAX_JSON_DEPTH):
        return ""
    kind = type(value)
    if kind.__module__ == "numpy":
        # a DataFrame's cell, row[...] or arr[i]: one of numpy's scalars, no JSON value as it is
        return (f"; first: {path} = {_short(value, 40)}, a numpy {kind.__name__} (convert it: v.item(), or "
                "int(v) / float(v) / str(v); df.to_dict('records') gives Python values)")
    article = "an" if kind.__name__[:1] in "aeiou" else "a"
    return f"; first: {path} = {_short(value, 40)}, {article} {kind.__name__}"


def _holds_nul(value):
    """Whether a str of a JSON value (keys included) holds a NUL character."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_holds_nul(v) for v in value)
    return False


#: The longest id a write takes, in characters (Python's, the command line's and the service's
#: bound): Index.add took an id of a million characters, which every hit and answer then carried,
#: where the service refused one over 1,000
MAX_ID_CHARS = 1000
# the values one filter may list, over all its conditions: a list is one JSON array read by
# json_each, whatever its length, so the bound is the cost of a search
MAX_FILTER_VALUES = 10_000
# the field conditions of one filter ({field: v} is one, {field: {"$gte": a, "$lt": b}} two): each
# costs up to two JSON reads of every document's metadata (0.2-0.4 us a document), 20-40 s at
# 100,000 documents for this many; before operators, 1,000 fields overflowed SQLite's expression depth
MAX_FILTER_CONDITIONS = 1_000
# filter objects nested in one another ($and, $or and $not each open one more): the compiled
# WHERE must stay inside SQLite's parser stack (about 100 nested parentheses in 3.40)
MAX_FILTER_DEPTH = 8
# names in a dotted path (meta.year is two); check_metadata nests dicts at most MAX_JSON_DEPTH (64) deep
MAX_PATH_SEGMENTS = 16
_INT64 = (-(1 << 63), (1 << 63) - 1)
FIELD_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$contains", "$not_contains")
LOGICAL_OPERATORS = ("$and", "$or", "$not")
_ORDERED = ("$gt", "$gte", "$lt", "$lte")
_SQL_COMPARE = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}
_OPERATOR_HELP = ("the operators of a field are " + ", ".join(FIELD_OPERATORS)
                  + "; of a filter " + ", ".join(LOGICAL_OPERATORS))


def _filter_value_ok(v):
    if v is None or isinstance(v, bool):
        return True
    if isinstance(v, str):
        # SQLite takes UTF-8: a lone surrogate would fail in the driver, not here by name
        return not has_surrogate(v)
    if isinstance(v, int):
        # SQLite's integers are 64-bit: a larger one overflows in the driver
        return _INT64[0] <= v <= _INT64[1]
    return isinstance(v, float) and math.isfinite(v)


def not_json_number(value):
    """Why ``value`` is no number JSON allows, where it is a NaN or an infinite float (Python's
    json reads NaN, Infinity and 1e999 as them); None for anything else. A refusal that said "must
    be a finite number; got nan" left a caller sending a column with gaps to find the NaN (the
    service's 400 says it in the same words)."""
    if not isinstance(value, float) or math.isfinite(value):
        return None
    if math.isnan(value):
        return "is NaN: not a number JSON allows"
    return (f"is {'-' if value < 0 else ''}Infinity (or a number past a float's range, such as 1e999): not a "
            "number JSON allows")


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _name_ok(name):
    """Letters, digits, '_' and '-', a letter's combining marks after it: "café" written with a
    combining accent (Unicode NFD, as macOS file names and some exports hold keys) is a name, and
    metadata keyed so can be filtered (a key matches as written; check_field_case names a field
    that differs from a held one by normal form alone)."""
    return bool(name) and (name[0].isalnum() or name[0] in "_-") and all(
        c.isalnum() or c in "_-" or unicodedata.category(c)[0] == "M" for c in name[1:])


def _check_path(field):
    """The segments of a field name or dotted path, or FilterError."""
    segments = field.split(".") if isinstance(field, str) else ()
    if not segments or len(segments) > MAX_PATH_SEGMENTS or not all(_name_ok(seg) for seg in segments):
        raise FilterError(f"filter field {_short(field)} must be a name of letters, digits, '_' or '-', or a "
                          f"dotted path of at most {MAX_PATH_SEGMENTS} of them (meta.year)")
    return tuple(segments)


class _Budget:
    """The values and conditions of a filter so far, against :data:`MAX_FILTER_VALUES` and
    :data:`MAX_FILTER_CONDITIONS`."""

    __slots__ = ("values", "conditions")

    def __init__(self):
        self.values = self.conditions = 0

    def take(self, n):
        self.values += n
        if self.values > MAX_FILTER_VALUES:
            raise FilterError(f"the filter lists more than {MAX_FILTER_VALUES} values")

    def condition(self):
        self.conditions += 1
        if self.conditions > MAX_FILTER_CONDITIONS:
            raise FilterError(f"the filter has more than {MAX_FILTER_CONDITIONS} field conditions")


def _plain(v):
    """A numpy scalar (a DataFrame's np.int64, np.bool_, np.float32) as the Python value it holds,
    as ids and k take numpy integers: a filter of ``df.year.max()`` was refused as not "an integer
    within 64 bits; got np.int64(2020)". Anything else as it is."""
    if type(v).__module__ == "numpy" and getattr(v, "ndim", None) == 0 and hasattr(v, "item"):
        item = v.item()
        if item is None or isinstance(item, (bool, int, float, str)):
            return item
    return v


def _is_list(value):
    """Whether a filter operand is a list of values: a list, tuple or set, or a 1-D numpy array
    (``df.year.unique()``; its values are numpy scalars, read by :func:`_plain`)."""
    return isinstance(value, (list, tuple, set, frozenset)) or (
        type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 1)


def _checked_value(field, v, what="filter value"):
    v = _plain(v)
    if isinstance(v, str) and "\x00" in v:
        raise FilterError(f"{what} of {field!r} holds a NUL character (\\x00), which SQLite's JSON functions end "
                          f"a string at (metadata may hold none either); got {_short(v)}")
    if not _filter_value_ok(v):
        why = not_json_number(v)
        raise FilterError(f"{what} of {field!r} {why}; a filter value is a str, a finite number (an integer within "
                          "64 bits), a bool or None" if why else
                          f"{what} of {field!r} must be a str, a finite number (an integer within 64 bits), "
                          f"a bool or None; got {_short(v)}")
    return v


def _checked_values(field, value, op, budget):
    if not _is_list(value):
        raise FilterError(f"{op} on {field!r} takes a non-empty list of values; got {_short(value)}")
    values = list(value)
    if not values:
        raise FilterError(f"filter field {field!r} lists no value" if op is None else
                          f"{op} on {field!r} lists no value")
    budget.take(len(values))
    return [_checked_value(field, v) for v in values]


def _field_condition(field, path, value, budget):
    """The condition tree of one field's value: a scalar, a list or an operator object."""
    if isinstance(value, dict):
        ops = [k for k in value if isinstance(k, str) and k.startswith("$")]
        if not ops or len(ops) != len(value):
            if ops:
                other = next(k for k in value if not (isinstance(k, str) and k.startswith("$")))
                raise FilterError(f"unknown filter operator {_short(other)} on {field!r}; {_OPERATOR_HELP}")
            raise FilterError(f"filter value of {field!r} must be a str, a finite number (an integer within 64 "
                              "bits), a bool, None, a list of them or an operator object such as "
                              f'{{"$gte": 2020}}; got {_short(value)}')
        out = []
        for op, operand in value.items():
            budget.condition()
            if op not in FIELD_OPERATORS:
                hint = "; $not negates a filter: {\"$not\": {field: ...}}" if op == "$not" else ""
                raise FilterError(f"unknown filter operator {_short(op)} on {field!r}; {_OPERATOR_HELP}{hint}")
            if op in ("$in", "$nin"):
                out.append(("in", path, _checked_values(field, operand, op, budget), op == "$nin"))
                continue
            budget.take(1)
            operand = _plain(operand)
            if op in ("$contains", "$not_contains"):
                # chromadb's operators of a list in the metadata: one element, never a list of them
                if isinstance(operand, (dict, set, frozenset, list, tuple)) or _is_list(operand):
                    raise FilterError(f"{op} on {field!r} takes one value that a list in the metadata holds (a str, "
                                      f"number, bool or None); got {_short(operand)}")
                out.append(("contains", path, _checked_value(field, operand, f"{op} operand"),
                            op == "$not_contains"))
            elif op == "$exists":
                if not isinstance(operand, bool):
                    raise FilterError(f"$exists on {field!r} takes true or false; got {_short(operand)}")
                out.append(("exists", path, operand))
            elif op in _ORDERED:
                if isinstance(operand, (str, float)):
                    _checked_value(field, operand, f"{op} operand")     # a NUL, a NaN: named
                if not (_is_number(operand) or isinstance(operand, str)) or not _filter_value_ok(operand):
                    raise FilterError(f"{op} on {field!r} compares a number (an integer within 64 bits, a finite "
                                      f"float) or a str; got {_short(operand)}")
                out.append(("cmp", path, op, operand))
            else:
                if isinstance(operand, (list, tuple, set, frozenset, dict)):
                    raise FilterError(f"{op} on {field!r} takes one value (a str, number, bool or None; "
                                      f"$in and $nin take lists); got {_short(operand)}")
                out.append(("in", path, [_checked_value(field, operand, f"{op} operand")], op == "$ne"))
        return out[0] if len(out) == 1 else ("and", out)
    budget.condition()
    if _is_list(value):
        return ("in", path, _checked_values(field, value, None, budget), False)
    budget.take(1)
    return ("in", path, [_checked_value(field, value)], False)


def _filter_tree(filter, depth, budget):
    if depth == 1 and isinstance(filter, dict) and not filter:
        # refused as documented, but with the way to ask for every document (chromadb and
        # MongoDB read {} so; a LlamaIndex MetadataFilters with no filter is None already)
        raise FilterError("filter must be a non-empty dict {field: value or [values] or {operator: value}}; got {} "
                          "(pass filter=None, or no filter, for every document)")
    if not isinstance(filter, dict) or not filter:
        where = "filter" if depth == 1 else "a filter inside $and, $or or $not"
        raise FilterError(f"{where} must be a non-empty dict {{field: value or [values] or {{operator: value}}}}; "
                          f"got {_short(filter)}")
    if depth > MAX_FILTER_DEPTH:
        raise FilterError(f"the filter nests deeper than {MAX_FILTER_DEPTH} levels ($and, $or and $not each "
                          "add one)")
    out = []
    for key, value in filter.items():
        if isinstance(key, str) and key.startswith("$"):
            if key == "$not":
                if not isinstance(value, dict):
                    raise FilterError(f"$not takes a filter (a dict); got {_short(value)}")
                out.append(("not", _filter_tree(value, depth + 1, budget)))
            elif key in ("$and", "$or"):
                if not isinstance(value, (list, tuple)) or not value:
                    raise FilterError(f"{key} takes a non-empty list of filters; got {_short(value)}")
                out.append((key[1:], [_filter_tree(f, depth + 1, budget) for f in value]))
            else:
                raise FilterError(f"unknown filter operator {_short(key)}; {_OPERATOR_HELP}")
        else:
            out.append(_field_condition(key, _check_path(key), value, budget))
    return out[0] if len(out) == 1 else ("and", out)


def check_filter(filter):
    """Check a metadata filter; its condition tree for :meth:`DocumentStore.seqs_matching`.

    Parameters
    ----------
    filter : dict or None
        The grammar (chromadb's, with dotted paths and strings ordered too)::

            filter    := {key: condition, ...}              every key must hold (AND)
            key       := field | $and | $or | $not
            field     := name or dotted path: letters (and their combining marks), digits, '_',
                         '-' ("topic", "meta.year")
            condition := scalar                             {field: v} is {field: {"$eq": v}}
                       | [scalar, ...]                      {field: [..]} is {field: {"$in": [..]}}
                       | {operator: operand, ...}           every operator must hold (AND)
            $and: [filter, ...]   $or: [filter, ...]   $not: filter

        Field operators: ``$eq``, ``$ne`` (a scalar), ``$gt``, ``$gte``, ``$lt``, ``$lte`` (a
        number or a str), ``$in``, ``$nin`` (a non-empty list of scalars), ``$exists`` (a
        bool). A scalar is a str, a bool, None, a finite float or an integer within 64 bits.

    Returns
    -------
    tuple or None
        None for no filter (``None``); else the tree of the conditions, for
        :meth:`DocumentStore.seqs_matching` alone.

    Raises
    ------
    FilterError
        Naming what is wrong: an unknown operator (``$regex``), an operand of the wrong type
        (``$in`` with a non-list, ``$and`` with a non-list or an empty one, ``$gt`` with a
        list, a bool or None), a field that is not a name or a dotted path of at most
        :data:`MAX_PATH_SEGMENTS` names, nesting deeper than :data:`MAX_FILTER_DEPTH` filter
        objects (the top one is the first; each ``$and``, ``$or`` and ``$not`` adds one), more
        than :data:`MAX_FILTER_VALUES` values in all (a list counts its values, every other
        operand one) or :data:`MAX_FILTER_CONDITIONS` field conditions (a value, a list or an
        operator on a field is one), an empty filter (``{}``; use None).

    Notes
    -----
    How a document's metadata matches:

    - A dotted path walks nested dicts (``meta.year`` is ``metadata["meta"]["year"]``); a path
      through something that is not a dict reaches nothing, as does a missing field.
    - ``$eq`` (and ``$in``) compares values of one kind: numbers with numbers (the integer 3
      equals the float 3.0), strs with strs, bools with bools, None with a JSON null that is
      there (a missing field is not None). A bool is not a number: ``True`` never equals 1.
      A list or a dict in the metadata equals no scalar.
    - ``$gt``, ``$gte``, ``$lt``, ``$lte`` compare numbers with numbers and strs with strs (by
      code point); a value that is missing or of another kind (a bool among them) does not
      match. A bool or None operand is a FilterError.
    - ``$ne`` and ``$nin`` are the negations of ``$eq`` and ``$in``: a document whose field is
      missing, or holds a value of another kind, matches them (as in chromadb).
    - ``$exists: true`` matches a field that is there, whatever its value (a null too);
      ``false`` a field that is missing.
    - ``$not`` negates a whole filter (a document lacking the field matches
      ``{"$not": {"year": {"$gte": 2020}}}``); ``$and`` and ``$or`` take non-empty lists of
      filters.

    Examples
    --------
    >>> from learnsim.index._store import check_filter
    >>> check_filter({"topic": "billing"})
    ('in', ('topic',), ['billing'], False)
    >>> check_filter({"meta.year": {"$gte": 2020, "$lt": 2024}})[0]
    'and'
    >>> check_filter({"year": {"$regex": "^20"}})
    Traceback (most recent call last):
    ...
    learnsim.exceptions.FilterError: unknown filter operator '$regex' on 'year'; the operators of a field ...
    """
    if filter is None:
        return None
    return _filter_tree(filter, 1, _Budget())


def _short(value, limit=80):
    try:
        text = repr(value)
    except RecursionError:          # a hostile list of lists, nested past the interpreter's stack
        return f"a {type(value).__name__} nested too deep to show"
    return text if len(text) <= limit else text[:limit] + "..."


def row_bytes(doc_id, text, meta):
    """The bytes a row's digest is taken over: its id, text and stored metadata JSON (or None) as
    the UTF-8 of ``json.dumps([doc_id, text, meta], ensure_ascii=False)``. A segment's document
    store (learnsim.index._segment_docs) holds exactly these bytes, so that a hit is checked
    against the digest without building them again."""
    if type(doc_id) is str and type(text) is str and (meta is None or type(meta) is str):
        # the bytes json.dumps([doc_id, text, meta], ensure_ascii=False) writes, without building
        # an encoder per call (most of a digest's time for a short document): its separator is
        # ", " and its strings are encode_basestring's (tests/index/test_index_row_digests.py compares them)
        raw = "[" + _JSON_STRING(doc_id) + ", " + _JSON_STRING(text) + ", " + \
            ("null" if meta is None else _JSON_STRING(meta)) + "]"
    else:
        raw = json.dumps([doc_id, text, meta], ensure_ascii=False)
    return raw.encode("utf-8", "surrogatepass")


def row_digest(doc_id, text, meta):
    """The checksum of a row (its id, text and stored metadata JSON or None): 32 hex digits of
    BLAKE2b over their JSON array (:func:`row_bytes`). Damage, not forgery, is what it finds:
    anyone who can edit the database can recompute it."""
    return _row_hash(doc_id, text, meta).hexdigest()


def _row_hash(doc_id, text, meta, into=None):
    """The BLAKE2b of :func:`row_bytes`, a long text's a piece at a time (._row_pieces), its
    bytes appended to the bytearray ``into`` where given."""
    pieces = long_row_pieces(doc_id, text, meta)
    if pieces is None:
        raw = row_bytes(doc_id, text, meta)
        if into is not None:
            into += raw
        return hashlib.blake2b(raw, digest_size=16)
    h = hashlib.blake2b(digest_size=16)
    for piece in pieces:
        h.update(piece)
        if into is not None:
            into += piece
    return h


def row_matches(doc_id, text, meta, digest):
    """Whether a row is as written: its ``digest`` (None: a row written before digests, which
    cannot be checked) is :func:`row_digest` of its id, text and metadata. A value of another type
    stored in a column's place (a blob for a text) does not match."""
    if digest is None:
        return True
    try:
        return isinstance(text, str) and digest == row_digest(doc_id, text, meta)
    except (TypeError, ValueError):
        return False


_JSON_STRING = json.encoder.encode_basestring
_META_JSON = json.JSONDecoder()


def meta_value(raw):
    """``json.loads`` of a stored metadata JSON text. The text was written by ``json.dumps`` (no
    white space around the value), so the decoder's scanner is called directly (a third of
    ``json.loads``'s time for short metadata); anything else goes to ``json.loads`` itself, which
    reads it or raises its error."""
    try:
        value, end = _META_JSON.scan_once(raw, 0)
    except (StopIteration, TypeError):
        end = -1
    return value if end == len(raw) else json.loads(raw)


# A collection of at most this many live documents is read whole into the cache of a process
# that searches often (:meth:`DocumentCache.preload`): every hit is then a dictionary lookup, as
# a faiss user's list of texts is, where a first read of ten rows costs ten page reads of SQLite
PRELOAD_MAX_DOCS = 16_384


class DocumentCache:
    """The documents searches returned, read and checked once, by sequence number: a row of
    ``docs.sqlite`` never changes once written (an update writes a new row; sequence numbers are
    never reused), so a document found again costs a dictionary lookup, not a read of SQLite and
    its digest. Bounded in documents and in characters of text; the oldest entries go first.
    ``key`` names the database the entries came from (an index built again at the same path
    starts its numbers again: its handle gets a new cache). Metadata is kept as its JSON and
    decoded for each answer, so that a caller who changes a hit's metadata changes nothing here."""

    def __init__(self, key, max_docs=PRELOAD_MAX_DOCS, max_chars=1 << 24):
        self.key, self.max_docs, self.max_chars = key, max_docs, max_chars
        self._docs, self._chars = {}, 0
        # preloaded: the preload ran (once); holds_all: it read every live document
        self.preloaded = self.holds_all = False

    def preload(self, store, n_live, read_ahead=True):
        """Read every live document into the cache at once, where the collection's ``n_live``
        documents fit its bounds (else nothing); once per cache. A row that does not match its
        digest is left out: a search that finds it reads it and refuses it, as before. Returns
        how many documents it read. ``read_ahead``: where they do not fit, ask the operating
        system to read the database ahead (not when the hits are read from the segments)."""
        if self.preloaded:
            return 0
        self.preloaded = True
        if n_live > self.max_docs:
            # too large to hold: the operating system is asked to read the file ahead instead
            # (its page cache, not this process's memory), so that a hit is not a read of the disk
            if read_ahead:
                store.read_ahead()
            return 0
        count = 0
        for rows in store.live_rows(damaged="skip"):
            for seq, doc_id, text, meta in rows:
                if len(self._docs) >= self.max_docs or self._chars + len(text) > self.max_chars:
                    return count        # full: the rest is read when found, as without a preload
                if len(text) <= self.max_chars // 16 and seq not in self._docs:
                    self._docs[seq] = (doc_id, text, meta)
                    self._chars += len(text)
                    count += 1
        self.holds_all = count >= n_live
        return count

    def documents(self, store, seqs, read=None):
        """{seq: (id, text, meta dict or None)}, as :meth:`DocumentStore.documents`; ``read``:
        what reads those it does not hold ({seq: (id, text, metadata JSON or None)} of a list of
        indices into ``seqs``: the segments' copies, learnsim.index._segment_docs), else SQLite."""
        cached, missing = {}, []
        held = self._docs
        seqs = seqs.tolist() if hasattr(seqs, "tolist") else [int(seq) for seq in seqs]
        for i, seq in enumerate(seqs):
            row = held.get(seq)
            if row is None:
                missing.append(i)
            else:
                cached[seq] = row
        if missing:
            got = (read(missing) if read is not None
                   else store.documents([seqs[i] for i in missing], raw_meta=True))
            for seq, row in got.items():
                cached[seq] = row
                self._keep(seq, row)
        return {seq: (doc_id, text, meta if meta is None else meta_value(meta))
                for seq, (doc_id, text, meta) in cached.items()}

    def _keep(self, seq, row):
        size = len(row[1])
        if size > self.max_chars // 16:
            return                      # a very long text is not worth what it would push out
        while self._docs and (len(self._docs) >= self.max_docs or self._chars + size > self.max_chars):
            try:
                old = self._docs.pop(next(iter(self._docs)))
            except (RuntimeError, StopIteration, KeyError):     # another thread's search did it
                break
            self._chars -= len(old[1])
        self._docs[seq] = row
        self._chars += size


# SQLite's primary result codes of a database it could open for reading only, or not at all
_SQLITE_READONLY, _SQLITE_CANTOPEN, _SQLITE_FULL = 8, 14, 13


def _cannot_write_beside(path, exc):
    """Whether ``exc`` (from opening the database at ``path`` for writing) is SQLite's lack of
    write access there: read-only or unable to open, in a directory (or of a file) this process
    cannot write, which includes a read-only mount."""
    import os

    code = getattr(exc, "sqlite_errorcode", None)
    if code is None or (code & 0xFF) not in (_SQLITE_READONLY, _SQLITE_CANTOPEN):
        return False
    return not (os.access(os.path.dirname(os.path.abspath(path)) or ".", os.W_OK) and os.access(path, os.W_OK))


def read_only_connection(path):
    """A read-only connection to the WAL database at ``path``: ``mode=ro``, which SQLite reads
    the log of through its -shm file (made beside the database where it can be: a writer's crash
    leaves a log). Where nothing may be written beside it (a read-only mount, a directory of
    another user) and there is no -shm, ``immutable=1`` where no log is left to read (a writer
    that closed cleanly folded it into the database and removed it); a log left without its
    -shm cannot be read without writing one: a PermissionError saying so, not damage."""
    import os

    conn = sqlite3.connect(read_only_uri(path), uri=True, timeout=30.0, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return conn
    except sqlite3.OperationalError as exc:
        conn.close()
        if not _cannot_write_beside(path, exc):
            raise
    try:
        log = os.path.getsize(path + "-wal")
    except OSError:
        log = 0
    if log:
        raise PermissionError(f"{path}: this process cannot write beside docs.sqlite, and its write-ahead log "
                              "(docs.sqlite-wal) can only be read by writing its index (docs.sqlite-shm): open "
                              "the index once where it can be written, which folds the log in")
    return sqlite3.connect(read_only_uri(path) + "&immutable=1", uri=True, timeout=30.0, isolation_level=None,
                           check_same_thread=False)


class MissingIdsError(KeyError):
    """A KeyError of ids a write or read found not in the index. ``args[0]`` is the plain message,
    which the command line and the service show beside their own way round (``--missing-ok``; a
    404); ``str()`` adds ``remedy``, the Python call's (``delete(..., missing_ok=True)``), which a
    KeyError's repr-quoted message did not name."""

    def __init__(self, message, remedy=""):
        super().__init__(message)
        self.remedy = remedy

    def __str__(self):
        return f"{self.args[0]}{self.remedy}"


def missing_ids_message(missing):
    """``id 'a'`` / ``ids 'a', 'b' and 3 more``: the ids not in the index, the first five shown."""
    shown = ", ".join(repr(m)[:80] for m in missing[:5])
    more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
    return f"id{'s' if len(missing) > 1 else ''} {shown}{more}"


def not_updated(missing):
    """The MissingIdsError of an update of ids not in the index (all of them named, as a delete's)."""
    return MissingIdsError(f"{missing_ids_message(missing)} {'are' if len(missing) > 1 else 'is'} not in the index "
                           "(never added, or deleted); nothing was updated (use add for new documents, or upsert, "
                           "which adds or replaces)")


def _rollback(conn):
    """Roll back the write under way on ``conn``, where SQLite has not already: it rolls a
    transaction back itself when its COMMIT meets a full disk (SQLITE_FULL) or an I/O error, and a
    ROLLBACK then raised "cannot rollback - no transaction is active" in place of that error, which
    was taken for damage (a full disk made a served index "damaged", every write refused until a
    restart, where ``index verify`` found it intact)."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")


class DocumentStore:
    """The SQLite database of an index (see the module notes)."""

    def __init__(self, path, *, readonly=False):
        self.path = str(path)
        if readonly:
            # mode=ro still reads the WAL of a writer that crashed (it needs the -shm file)
            uri = read_only_uri(self.path)
            self.conn = sqlite3.connect(uri, uri=True, timeout=30.0, isolation_level=None, check_same_thread=False)
        else:
            # an Index may be used from several threads (a server's worker pool); the caller
            # serialises the calls (one lock per Index), which sqlite3's own check would refuse
            self.conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            try:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.executescript(_SCHEMA)
            except sqlite3.OperationalError as exc:
                self.conn.close()
                if not _cannot_write_beside(self.path, exc):
                    raise
                # an index on a read-only mount (a container image, a shared volume) or in a
                # directory this process cannot write: SQLite could not make the WAL's index (the
                # -shm file) beside it, "unable to open database file", which an open reported as
                # damage of docs.sqlite. It is read as it is, and a write says why it cannot be
                self.conn = read_only_connection(self.path)
        self.conn.execute("PRAGMA synchronous=FULL")
        self._read_schema()
        # whether this connection's first write has keyed the live rows a writer left unkeyed
        self._keys_filled = False

    def _read_schema(self):
        """What the database has: ``digests``, rows carry a digest (a database written before
        issue 45 gains the column at its next write); ``text_keys``, live rows carry a text key
        under its index, which exact-copy look-ups use (a database written before gains both at
        its next write; until then :meth:`live_seqs_with_text` finds nothing)."""
        columns = self._columns()
        self.digests = "digest" in columns
        self.text_keys = "text_key" in columns and self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'docs_text_key'").fetchone() is not None

    def _columns(self):
        return {row[1] for row in self.conn.execute("PRAGMA table_info(docs)")}

    def _migrate(self):
        """Inside a write's transaction: add the digest column to a database written before it,
        and the text_key column and its index, keying the live rows that have no key (every one
        of a database written before text keys; once per connection, a look-up on the index
        after that). The caller's rollback undoes it all (:meth:`_rolled_back`)."""
        if self.digests and self._keys_filled:
            return
        conn = self.conn
        columns = self._columns()
        if not self.digests:
            if "digest" not in columns:
                conn.execute("ALTER TABLE docs ADD COLUMN digest TEXT")
            self.digests = True
        if not self._keys_filled:
            if "text_key" not in columns:
                conn.execute("ALTER TABLE docs ADD COLUMN text_key BLOB")
            conn.execute(_TEXT_KEY_INDEX)
            last = 0
            while True:
                rows = conn.execute("SELECT seq, text FROM docs WHERE text_key IS NULL AND deleted_seq IS NULL "
                                    "AND seq > ? ORDER BY seq LIMIT ?", (last, _KEY_BATCH)).fetchall()
                if not rows:
                    break
                last = rows[-1][0]
                # a text that is not a str (a blob put there with sqlite3) stays unkeyed: no copy of anything
                conn.executemany("UPDATE docs SET text_key = ? WHERE seq = ?",
                                 [(text_key(text), seq) for seq, text in rows if isinstance(text, str)])
            self.text_keys = self._keys_filled = True

    def _rolled_back(self):
        """After a write's ROLLBACK: what _migrate added is gone with it."""
        self._keys_filled = False
        self._read_schema()

    def _tampered(self, seq, doc_id):
        from ..exceptions import IndexDamagedError

        return IndexDamagedError(self.path, f"the document {_short(doc_id)} (sequence number {seq}) does not match "
                                            "the checksum recorded when it was written: its text, metadata or id "
                                            "was changed outside learnsim")

    def _checked(self, seq, doc_id, text, meta, digest):
        if not row_matches(doc_id, text, meta, digest):
            raise self._tampered(seq, doc_id)

    #: Whether :meth:`close` was called (a reload keeps only an open connection: _reload.kept_store).
    closed = False

    def close(self):
        self.closed = True
        self.conn.close()

    # ------------------------------------------------------------------ writes
    def add(self, ids, texts, metas):
        """Insert documents in one transaction; returns their sequence numbers (ascending).
        A live id already present, or repeated, is a ValueError and nothing is written."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            self._migrate()
            seqs = []
            for doc_id, text, meta in zip(ids, texts, metas):
                try:
                    if doc_id is None:
                        cur, doc_id = self._insert_numbered(text, meta)
                    else:
                        cur = conn.execute(_INSERT, (doc_id, text, meta, row_digest(doc_id, text, meta),
                                                     text_key(text)))
                except sqlite3.IntegrityError:
                    raise ValueError(f"id {doc_id!r} is already in the index (use update to replace it, "
                                     "or delete it first)") from None
                seqs.append(cur.lastrowid)
            conn.execute("INSERT INTO writes(kind) VALUES ('add')")
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            self._rolled_back()
            raise
        return seqs

    def _insert_numbered(self, text, meta):
        """Insert a document given no id: its id is its sequence number as a str. Where a live
        document was given that very id explicitly, the row takes the next sequence number
        instead (AUTOINCREMENT never hands one out twice), until its number is free: an automatic
        id never collides with an explicit one, so no explicit id can wedge later adds. Inside
        the caller's transaction; returns (cursor, id)."""
        conn = self.conn
        while True:
            # the row is written marked deleted (deleted_seq 0, inside this transaction only) until
            # its id is known: a live placeholder id collided with a document given that very id
            # ("\0pending"), and every add without ids then failed with "id None is already in the index"
            cur = conn.execute("INSERT INTO docs(id, text, meta, text_key, deleted_seq) VALUES (?, ?, ?, ?, 0)",
                               ("\0pending", text, meta, text_key(text)))
            doc_id = str(cur.lastrowid)
            if conn.execute("SELECT 1 FROM docs WHERE id = ? AND deleted_seq IS NULL", (doc_id,)).fetchone() is None:
                conn.execute("UPDATE docs SET id = ?, digest = ?, deleted_seq = NULL WHERE seq = ?",
                             (doc_id, row_digest(doc_id, text, meta), cur.lastrowid))
                return cur, doc_id
            conn.execute("DELETE FROM docs WHERE seq = ?", (cur.lastrowid,))

    def delete(self, ids, *, missing_ok=False):
        """Tombstone the live documents of ``ids`` in one transaction; returns how many."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            n = 0
            if ids:
                seq = conn.execute("INSERT INTO writes(kind) VALUES ('delete')").lastrowid
                missing = []
                for doc_id in ids:
                    cur = conn.execute("UPDATE docs SET deleted_seq = ? WHERE id = ? AND deleted_seq IS NULL",
                                       (seq, doc_id))
                    if cur.rowcount == 0 and not missing_ok:
                        missing.append(doc_id)     # all named at once: one at a time made a user retry n times
                    n += cur.rowcount
                if missing:
                    # one transaction: the ids given beside them are not deleted either (rolled back)
                    raise MissingIdsError(f"{missing_ids_message(missing)} {'are' if len(missing) > 1 else 'is'} "
                                          "not in the index (never added, or deleted)",
                                          "; nothing was deleted (delete(..., missing_ok=True) deletes the others)")
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            raise
        return n

    def update(self, ids, texts, metas):
        """Replace live documents (delete + add in one transaction); returns the new sequence numbers."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            self._migrate()
            seq = conn.execute("INSERT INTO writes(kind) VALUES ('update')").lastrowid
            seqs, missing = [], []
            for doc_id, text, meta in zip(ids, texts, metas):
                cur = conn.execute("UPDATE docs SET deleted_seq = ? WHERE id = ? AND deleted_seq IS NULL",
                                   (seq, doc_id))
                if cur.rowcount == 0:
                    missing.append(doc_id)      # all named at once (rolled back below)
                    continue
                seqs.append(conn.execute(_INSERT, (doc_id, text, meta, row_digest(doc_id, text, meta),
                                                   text_key(text))).lastrowid)
            if missing:
                raise not_updated(missing)
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            self._rolled_back()
            raise
        return seqs

    def upsert(self, ids, texts, metas):
        """Add the documents whose ids are new and replace the live ones, in one transaction;
        returns (sequence numbers, how many were added, how many replaced). An id given twice is
        a ValueError and nothing is written (which text would win is not the caller's to guess)."""
        seen = set()
        for doc_id in ids:
            if doc_id in seen:
                raise ValueError(f"id {doc_id!r} is given twice; an upsert takes each id once")
            seen.add(doc_id)
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            self._migrate()
            seq = conn.execute("INSERT INTO writes(kind) VALUES ('upsert')").lastrowid
            seqs, replaced = [], 0
            for doc_id, text, meta in zip(ids, texts, metas):
                replaced += conn.execute("UPDATE docs SET deleted_seq = ? WHERE id = ? AND deleted_seq IS NULL",
                                         (seq, doc_id)).rowcount
                seqs.append(conn.execute(_INSERT, (doc_id, text, meta, row_digest(doc_id, text, meta),
                                                   text_key(text))).lastrowid)
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            self._rolled_back()
            raise
        return seqs, len(seqs) - replaced, replaced

    # ------------------------------------------------------------------ reads
    def last_seq(self):
        row = self.conn.execute("SELECT MAX(seq) FROM docs").fetchone()
        return int(row[0] or 0)

    def count(self, *, live=True, after=None):
        sql = "SELECT COUNT(*) FROM docs WHERE 1=1"
        args = []
        if live:
            sql += " AND deleted_seq IS NULL"
        if after is not None:
            sql += " AND seq > ?"
            args.append(int(after))
        return int(self.conn.execute(sql, args).fetchone()[0])

    def deleted_seqs(self):
        """Sequence numbers of the deleted documents."""
        return [r[0] for r in self.conn.execute("SELECT seq FROM docs WHERE deleted_seq IS NOT NULL")]

    def rows_after(self, seq):
        """(seq, text) of every document added after ``seq``, in order (deleted ones too)."""
        return self.conn.execute("SELECT seq, text FROM docs WHERE seq > ? ORDER BY seq", (int(seq),)).fetchall()

    def live_rows(self, batch=10_000, damaged="raise"):
        """(seq, id, text, meta) of the live documents in order, in batches, each row checked
        against its digest: IndexDamagedError for one changed outside learnsim, or with
        ``damaged="skip"`` that row left out (:meth:`DocumentCache.preload`: a search that finds
        it reads it and refuses it)."""
        digests = self.digests
        cur = self.conn.execute("SELECT seq, id, text, meta" + (", digest" if digests else "")
                                + " FROM docs WHERE deleted_seq IS NULL ORDER BY seq")
        while True:
            rows = cur.fetchmany(batch)
            if not rows:
                return
            if digests:
                if damaged == "skip":
                    rows = [row for row in rows if row_matches(*row[1:])]
                else:
                    for row in rows:
                        self._checked(*row)
                rows = [row[:4] for row in rows]
            yield rows

    def read_ahead(self):
        """Ask the operating system to read the database file into its page cache, in the
        background (``posix_fadvise(WILLNEED)``; nothing where the platform has none)."""
        import os

        if not hasattr(os, "posix_fadvise"):
            return
        try:
            # never waits: a FIFO or device put in the file's place is not opened for reading
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            return
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
        except OSError:
            pass
        finally:
            os.close(fd)

    def documents(self, seqs, raw_meta=False):
        """{seq: (id, text, meta dict or None)} of the given sequence numbers (``raw_meta``: the
        metadata's JSON text, not decoded)."""
        out = {}
        seqs = [int(s) for s in seqs]
        digests = self.digests
        columns = "seq, id, text, meta" + (", digest" if digests else "")
        for start in range(0, len(seqs), _CHUNK):
            chunk = seqs[start:start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for row in self.conn.execute(f"SELECT {columns} FROM docs WHERE seq IN ({marks})", chunk):
                seq, doc_id, text, meta = row[:4]
                if digests:
                    self._checked(*row)
                out[seq] = (doc_id, text, meta if raw_meta or meta is None else meta_value(meta))
        return out

    def segment_docs(self, seqs):
        """(the rows' bytes joined, their offsets int64 (n + 1,), their BLAKE2b digests uint8
        (n, 16)) of the documents ``seqs`` (increasing), deleted or not: what a segment's document
        store holds (learnsim.index._segment_docs). A row that does not match its recorded digest
        is refused, not copied under a new checksum; a row written before digests gets one now."""
        import numpy as np

        seqs = np.asarray(seqs, dtype=np.int64)
        n = int(seqs.shape[0])
        # the rows' bytes appended to one bytearray: a long row is built a piece at a time, never
        # whole beside its pieces and then again in a join
        blob, offsets, digests = bytearray(), np.zeros(n + 1, dtype=np.int64), bytearray()
        if n:
            wanted = seqs.tolist()
            i = 0
            columns = "seq, id, text, meta" + (", digest" if self.digests else ", NULL")
            for seq, doc_id, text, meta, digest in self.conn.execute(
                    f"SELECT {columns} FROM docs WHERE seq BETWEEN ? AND ? ORDER BY seq", (wanted[0], wanted[-1])):
                if i == n or seq != wanted[i]:
                    continue                # a row between them that the segment does not hold
                try:
                    dig = _row_hash(doc_id, text, meta, blob) if isinstance(text, str) else None
                except (TypeError, ValueError):
                    dig = None
                if dig is None or (digest is not None and dig.hexdigest() != digest):
                    raise self._tampered(seq, doc_id)
                digests += dig.digest()
                i += 1
                offsets[i] = len(blob)
            if i != n:
                from ..exceptions import IndexDamagedError

                raise IndexDamagedError(self.path, f"the document with sequence number {wanted[i]}, which a "
                                                   "segment being written holds, is missing")
        return blob, offsets, np.frombuffer(bytes(digests), dtype=np.uint8).reshape(n, 16)

    def live_seq_of(self, doc_id):
        row = self.conn.execute("SELECT seq FROM docs WHERE id = ? AND deleted_seq IS NULL", (doc_id,)).fetchone()
        if row is None:
            raise KeyError(f"id {doc_id!r} is not in the index")
        return int(row[0])

    def live_seqs_with_text(self, text):
        """Sequence numbers (ascending) of the live documents whose ``text_key`` is ``text``'s
        (:func:`text_key`): one probe of the partial index ``docs_text_key``, a few microseconds
        at any size. Candidates only: the caller compares each one's text with ``text`` (a key
        edited with sqlite3 points anywhere). An empty list where the database has no text keys
        yet (written before them: its next write adds them), as before they were kept."""
        if not self.text_keys:
            return []
        return [r[0] for r in self.conn.execute(
            "SELECT seq FROM docs WHERE text_key = ? AND deleted_seq IS NULL ORDER BY seq", (text_key(text),))]

    def seqs_matching(self, conditions, top_keys=None):
        """Sequence numbers of the live documents whose metadata satisfies ``conditions`` (the
        tree of :func:`check_filter`), by one SQL statement: see :func:`_where`. ``top_keys``:
        the live documents' top metadata keys, kept by the caller (``check_field_case``)."""
        plan = self.filter_plan(conditions, top_keys)
        if plan is True:
            return [r[0] for r in self.conn.execute("SELECT seq FROM docs WHERE deleted_seq IS NULL")]
        return [] if plan is False else self.seqs_where(plan)

    def filter_plan(self, conditions, top_keys=None):
        """``conditions`` checked against what the live documents hold (a FilterError for 'Topic'
        on an index that holds 'topic', ...: ``check_field_case``), and, given ``top_keys``, with
        the conditions on fields no live document holds answered by the keys
        (``without_absent``): True (every live document matches), False (none) or the tree that
        :meth:`seqs_where` runs."""
        from ._field_case import check_field_case, without_absent

        check_field_case(self.conn, conditions, top_keys)     # 'Topic' on an index that holds 'topic': named
        # a field no document holds costs no pass over the metadata, at each new value
        return conditions if top_keys is None else without_absent(conditions, top_keys())

    def seqs_where(self, conditions):
        """Sequence numbers of the live documents whose metadata satisfies ``conditions``, a tree
        :meth:`filter_plan` gave, unchecked: one SQL statement."""
        where, args = _where(conditions)
        sql = f"SELECT seq FROM docs WHERE deleted_seq IS NULL AND ({where})"
        return [r[0] for r in self.conn.execute(sql, args)]


# terms of one AND or OR written side by side: SQLite nests a chain of n terms n deep (its bound
# is 1,000); longer lists are grouped in parentheses, which cost its parser stack instead
_CHAIN = 32


class _Params:
    """The values and paths of a filter as bound parameters, one named parameter each.

    A scalar (a path, a value) is bound as a one-element JSON array read back by
    ``json_extract(:pN, '$[0]')``, so that SQLite gives it the type JSON gives it (integer,
    real, text) as it gives the metadata's; a list is bound as one JSON array, read by
    ``json_each(:pN)``, whatever its length. A filter has at most a few parameters per condition
    (the conditions are bounded), so their number stays small; a value used twice is bound once.
    They used to share JSON arrays of 64: SQLite evaluates ``json_extract`` of a parameter again
    for every row where it stands inside a CASE, and each evaluation parsed the whole shared array,
    lists included. A filter of 32 lists of 310 long strings took 22 s of one search's time on
    19,000 documents; the rows times the filter's whole size."""

    def __init__(self):
        self.values, self._numbers = [], {}

    def __call__(self, value):
        key = (type(value), value) if not isinstance(value, list) else None
        n = self._numbers.get(key) if key is not None else None
        if n is None:
            self.values.append(value)
            n = len(self.values) - 1
            if key is not None:
                self._numbers[key] = n
        return f":p{n}" if isinstance(value, list) else f"json_extract(:p{n}, '$[0]')"

    def args(self):
        return {f"p{n}": json.dumps(v if isinstance(v, list) else [v], ensure_ascii=False, allow_nan=False)
                for n, v in enumerate(self.values)}


def _where(tree):
    """(SQL, parameters) of the condition tree of :func:`check_filter`, over ``docs.meta``.

    Every condition is written to be 0 or 1, never NULL, so that a negation is exact in SQL's
    three-valued logic: a missing field makes ``$eq`` false and ``$ne`` true, as the Python
    reading of the filter says. ``$not`` is pushed down to the conditions (De
    Morgan), so it adds no parentheses; nested ANDs (ORs) are flattened into one. Nothing of the
    filter is written into the SQL: the paths (``$."a"."b"``, from checked names) and the values
    are bound parameters (:class:`_Params`; a list as one JSON array read by
    ``json_each``, whatever its length); ``json_type`` tells integers, reals, text, true, false
    and null apart."""
    params = _Params()
    return _sql(_pushed(tree, False), params), params.args()


def _pushed(tree, negate):
    """The tree with every ``not`` moved onto the conditions, and nested ands (ors) flattened."""
    kind = tree[0]
    if kind == "not":
        return _pushed(tree[1], not negate)
    if kind in ("and", "or"):
        own = kind if not negate else ("or" if kind == "and" else "and")
        flat = []
        for child in tree[1]:
            child = _pushed(child, negate)
            flat.extend(child[1] if child[0] == own else [child])
        return (own, flat)
    return ("leaf", tree, negate)


def _sql(node, params):
    if node[0] == "leaf":
        return _condition_sql(node[1], node[2], params)
    glue = " AND " if node[0] == "and" else " OR "
    # a child is a condition, or an OR under an AND (an AND under an OR): parenthesised
    terms = [_sql(child, params) if child[0] == "leaf" else f"({_sql(child, params)})" for child in node[1]]
    while len(terms) > _CHAIN:
        terms = [glue.join(terms[i:i + _CHAIN]) for i in range(0, len(terms), _CHAIN)]
        terms = [f"({t})" for t in terms]
    return glue.join(terms)


def _condition_sql(cond, negate, params):
    """One condition as a CASE on the value's JSON type: ``json_type`` is called once, and
    ``json_extract`` only for a value of a kind the condition compares (at most two calls a row:
    their number is what a filter costs). A missing field has no JSON type (NULL): ELSE 0."""
    kind, path = cond[0], cond[1]
    p = params("$" + "".join(f'."{seg}"' for seg in path))
    typ, val = f"json_type(meta, {p})", f"json_extract(meta, {p})"
    if kind == "exists":
        return f"{typ} IS {'NOT ' if cond[2] != negate else ''}NULL"
    if kind == "contains":
        _, _, v, negated = cond
        # json_each of a scalar gives the scalar itself as one row: only an array is looked into
        if v is None or isinstance(v, bool):
            test = f"e.type = '{'null' if v is None else 'true' if v else 'false'}'"
        else:
            kinds = "'text'" if isinstance(v, str) else "'integer', 'real'"     # 3 holds 3.0, as $eq has it
            test = f"e.type IN ({kinds}) AND e.value = {params(v)}"
        found = f"EXISTS (SELECT 1 FROM json_each(meta, {p}) AS e WHERE {test})"
        return f"CASE {typ} WHEN 'array' THEN {found} ELSE 0 END{' = 0' if negate != negated else ''}"
    if kind == "cmp":
        _, _, op, v = cond
        test = f"{val} {_SQL_COMPARE[op]} {params(v)}"
        whens = [("text", test)] if isinstance(v, str) else [("integer", test), ("real", test)]
    else:
        _, _, values, negated = cond
        negate = negate != negated
        whens = []
        texts = [v for v in values if isinstance(v, str)]
        numbers = [v for v in values if _is_number(v)]
        for part, kinds in ((texts, ("text",)), (numbers, ("integer", "real"))):
            if len(part) == 1:
                test = f"{val} = {params(part[0])}"
            elif part:
                # json_each gives integers as integers and floats as reals: 3 matches 3.0
                test = f"{val} IN (SELECT value FROM json_each({params(part)}))"
            whens.extend((k, test) for k in kinds if part)
        for flag in sorted({v for v in values if isinstance(v, bool)}):
            whens.append(("true" if flag else "false", "1"))
        if any(v is None for v in values):
            whens.append(("null", "1"))
    cases = " ".join(f"WHEN '{k}' THEN {test}" for k, test in whens)
    # 0 or 1, never NULL: a negation is exact, and a missing field matches $ne and $nin
    return f"CASE {typ} {cases} ELSE 0 END{' = 0' if negate else ''}"
