"""The bounds of one request to ``learnsim serve`` (see :mod:`learnsim.service.app`): the
search budget, the filters' shape (and its JSON Schema), and the pieces work is split into."""
from __future__ import annotations

import math
import unicodedata

from .._utils.inputs import DuplicateKeyError, JSONDepthError, LongIntegerError, TextError, loads
from ..index._store import (FIELD_OPERATORS, MAX_ID_CHARS, MAX_PATH_SEGMENTS, FilterError,  # noqa: F401
                             check_filter, not_json_number)
from ._http import _fail

# the bounds of one request (see the module notes)
MAX_K = 1000
MAX_N_TOP = 100
MAX_BATCH = 1000
# a hit carries its text: 2,000 hits of short texts answer about 1 MB of JSON, 15 ms to encode on
# the event loop (texts of 10,000 emoji answer 80 MB: MAX_ANSWER_BYTES bounds the bytes)
MAX_HITS = 2_000
#: The bytes of one answer (its Content-Length), checked by the guard before any of it is sent:
#: a larger one is answered by a JSON 422 naming its size (ask for fewer hits or queries). The
#: counts above bound hits, not bytes: a hit carries its text, up to 10,000 characters of up to 4
#: UTF-8 bytes each (40 KB, and more with JSON's escapes). The project's client refuses answers
#: over 64 MiB.
MAX_ANSWER_BYTES = 32 * 2 ** 20
#: The bytes of all the answers one server process is sending at once, from an answer's start to
#: the moment its bytes have left for the client (a client that does not read holds them in the
#: server's memory): an answer that would take them over this is replaced by a JSON 503 with
#: ``Retry-After: 1`` before any of it is sent. Answers of a write are counted but never
#: refused; answers of at most ``SMALL_ANSWER_BYTES`` are not counted. Each worker process of ``learnsim serve
#: --workers N`` has its own count.
MAX_ANSWER_BYTES_IN_FLIGHT = 256 * 2 ** 20
#: Answers this small are neither counted nor refused (``MAX_ANSWER_BYTES`` is far above it):
#: refusing them would free next to nothing, a liveness probe, an error or a light search must
#: still be answered while large answers wait for their clients, and the search path then pays
#: nothing for the bound but a look at its headers.
SMALL_ANSWER_BYTES = 64 * 2 ** 10
MAX_EXPLAIN_K = 20
MAX_EXPLAINED = 100
MAX_EXPLAIN_WORDS = 2_000
MAX_MATCH_K = 100
MAX_PAIRS = 1_000
MAX_DOCUMENTS = 100_000
# the pieces a request's work is split into, each one call in the index's thread
CHUNK_QUERIES = 64
# about 12 ms of a dense 100k-row index's thread a piece (100 dimensions), 16 ms of explanations:
# what a light search waits at most behind a heavy request (benchmarks/bench_serve.py --heavy)
CHUNK_HITS = 500
CHUNK_CHARS = 100_000
CHUNK_EXPLAIN = 2
CHUNK_PAIRS = 100


def search_budget(n_queries, k, explain=False, n_top=10):
    """None when a search of ``n_queries`` queries for ``k`` hits each (``explain``: with
    ``n_top`` words) is within the budget, else the message naming the limit it is over.

    Examples
    --------
    >>> from learnsim.service.app import search_budget
    >>> search_budget(5, 10) is None
    True
    >>> search_budget(1000, 1000)
    'queries x k = 1000 x 1000 is over the budget of 2000 hits of one request (MAX_HITS)'
    """
    hits = n_queries * k
    if hits > MAX_HITS:
        return f"queries x k = {n_queries} x {k} is over the budget of {MAX_HITS} hits of one request (MAX_HITS)"
    if explain:
        if k > MAX_EXPLAIN_K:
            return f"explain needs k <= {MAX_EXPLAIN_K} (MAX_EXPLAIN_K); got k={k}"
        if hits > MAX_EXPLAINED:
            return (f"explained hits (queries x k = {n_queries} x {k}) are over the budget of {MAX_EXPLAINED} "
                    "of one request (MAX_EXPLAINED)")
        if hits * n_top > MAX_EXPLAIN_WORDS:
            return (f"explained hits x n_top = {hits} x {n_top} is over the budget of {MAX_EXPLAIN_WORDS} "
                    "(MAX_EXPLAIN_WORDS)")
    return None


# a field of a filter: a name, or a dotted path of names into nested metadata. A name's
# characters are check_filter's (str.isalnum, "_" and "-", and a letter's combining marks after
# it: "café" written with a combining accent, Unicode NFD), so that a field Python and the CLI
# take ("année") is no 400 here: _field_ok; the schema says it in ECMA-262's dialect, whose \w is
# ASCII alone (_SCHEMA_PATH)
_NAME_MAX = 64


def _field_ok(key):
    names = key.split(".")
    return len(names) <= MAX_PATH_SEGMENTS and all(
        1 <= len(name) <= _NAME_MAX and (name[0].isalnum() or name[0] in "_-")
        and all(c.isalnum() or c in "_-" or unicodedata.category(c)[0] == "M" for c in name[1:])
        for name in names)


# (a name's bound of 64 stated apart, as no run of 65 characters without a dot: the counted
# Unicode classes compile past a validator's bound on a regex, jsonschema_rs's)
_SCHEMA_NAME = "[\\p{L}\\p{N}_-][\\p{L}\\p{N}\\p{M}_-]*"
_SCHEMA_PATH = f"{_SCHEMA_NAME}(?:\\.{_SCHEMA_NAME}){{0,{MAX_PATH_SEGMENTS - 1}}}"
# the end of a schema's pattern: "$" is the string's end in ECMA-262 (JSON Schema's dialect) but in
# Python's re (jsonschema, schemathesis, hypothesis read the schema with it) it matches before a
# trailing newline too, so that "topic\n" passed the documented pattern of a field the server
# refuses; the lookahead makes it the end in both dialects (Python's \Z is no ECMA-262)
_SCHEMA_END = "$(?!\\n)"
_INT64 = (-(1 << 63), (1 << 63) - 1)
# the bounds of a filter: in a body, and in a query string (whose request head must stay well
# under the HTTP parser's bound, about 80 KB, past which the parser refuses it: a 400)
MAX_FILTER_FIELDS = 10
# field conditions ({field: v} is one, {field: {"$gte": a, "$lt": b}} two) in a whole filter: a
# condition costs up to two JSON reads of every document's metadata, in the SQL statement that
# runs in the index's thread in one piece (20-40 ms each at 100,000 documents on a 2-core
# machine); 10 fields of mixed lists cost about as much (up to 5 reads each) before operators came.
# JSON Schema cannot count them: the schema's description says it, and the schemathesis run
# leaves generated filters over it out (tests/schemathesis_hooks.py), as it does the search budget
MAX_REQUEST_FILTER_CONDITIONS = 32
# filter objects nested in one another ($and, $or and $not each open one more): fewer than
# Python's MAX_FILTER_DEPTH (8), so that the schema says the bound exactly and stays small enough
# for the tools that read it (a generator of test cases enumerates each level under each of its
# three parents, 3^depth: 4 levels cost the schemathesis run 90 s more, 3 levels 45 s)
MAX_REQUEST_FILTER_DEPTH = 3
BODY_FILTER = {"values": 1000, "chars": None}
QUERY_FILTER = {"values": 50, "chars": 200}
_LOGICAL = ("$and", "$or", "$not")


def _scalar_ok(v, chars):
    if v is None or isinstance(v, bool):
        return True
    if isinstance(v, str):
        return chars is None or len(v) <= chars
    if isinstance(v, int):
        return _INT64[0] <= v <= _INT64[1]
    return isinstance(v, float) and math.isfinite(v)


def _check_filter(value, bounds=BODY_FILTER):
    """A filter as the schema describes it (:func:`_filter_schema`), None for no filter (absent
    or ``{}``); anything else raises a 400 naming what is wrong.

    The service's own bounds are checked first, walking no deeper than
    ``MAX_REQUEST_FILTER_DEPTH`` filter objects: at most ``MAX_FILTER_FIELDS`` keys in an object
    and filters in an ``$and`` or ``$or``, ``bounds["values"]`` values in a list, names of
    letters and digits of any script, a letter's combining marks after it
    (:func:`~learnsim.index._store.check_filter`'s rule), ``_``
    and ``-`` (64 at most a name), strings of ``bounds["chars"]``, then
    ``MAX_REQUEST_FILTER_CONDITIONS`` field conditions in all; then the grammar itself
    (:func:`learnsim.index._store.check_filter`, whose FilterError becomes the 400)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _fail(400, f'filter must be a JSON object, e.g. filter={{"topic": 3}}; got {type(value).__name__}')
    if not value:
        return None
    _walk_filter(value, bounds, 1)
    n = filter_conditions(value)
    if n > MAX_REQUEST_FILTER_CONDITIONS:
        raise _fail(400, f"a filter has at most {MAX_REQUEST_FILTER_CONDITIONS} field conditions "
                         f'(MAX_REQUEST_FILTER_CONDITIONS; {{"year": {{"$gte": 2020, "$lt": 2024}}}} is two); got {n}')
    try:
        check_filter(value)
    except FilterError as exc:
        raise _fail(400, str(exc)) from None
    return value


def filter_conditions(value, depth=1):
    """The field conditions of a filter (``MAX_REQUEST_FILTER_CONDITIONS``): a value, a list or
    an operator on a field is one. Of any JSON value, nested any depth (counted to
    ``MAX_REQUEST_FILTER_DEPTH`` levels only): what is not a filter counts nothing, its refusal
    being :func:`_check_filter`'s.

    Examples
    --------
    >>> from learnsim.service._limits import filter_conditions
    >>> filter_conditions({"year": {"$gte": 2020, "$lt": 2024}, "$or": [{"a": 1}, {"b": [1, 2]}]})
    4
    """
    if not isinstance(value, dict) or depth > MAX_REQUEST_FILTER_DEPTH:
        return 0
    n = 0
    for key, v in value.items():
        if key in ("$and", "$or"):
            n += sum(filter_conditions(sub, depth + 1) for sub in v) if isinstance(v, list) else 0
        elif key == "$not":
            n += filter_conditions(v, depth + 1)
        else:
            n += len(v) if isinstance(v, dict) and not key.startswith("$") else 1
    return n


def _walk_filter(value, bounds, depth):
    """Check the service's bounds on a filter object at ``depth`` (the top one is 1): a 400
    naming the first one over."""
    if len(value) > MAX_FILTER_FIELDS:
        raise _fail(400, f"a filter object has at most {MAX_FILTER_FIELDS} keys; got {len(value)}")
    for key, v in value.items():
        if key in _LOGICAL:
            subs = [v] if key == "$not" else v
            if key != "$not" and (not isinstance(v, list) or not 1 <= len(v) <= MAX_FILTER_FIELDS):
                got = f"{len(v)} filters" if isinstance(v, list) else type(v).__name__
                raise _fail(400, f"{key} takes a list of 1 to {MAX_FILTER_FIELDS} filters; got {got}")
            if depth >= MAX_REQUEST_FILTER_DEPTH:
                raise _fail(400, f"the filter nests deeper than {MAX_REQUEST_FILTER_DEPTH} levels ($and, $or and "
                                 "$not each add one; MAX_REQUEST_FILTER_DEPTH)")
            for sub in subs:
                if not isinstance(sub, dict) or not sub:
                    got = "{}" if isinstance(sub, dict) else type(sub).__name__
                    raise _fail(400, f"{key} takes non-empty filter objects; got {got}")
                _walk_filter(sub, bounds, depth + 1)
        elif key.startswith("$"):
            continue            # an unknown operator: check_filter names it
        elif not _field_ok(key):
            raise _fail(400, f"filter field {key[:80]!r} must be a name of 1 to 64 letters, digits, '_' or '-', "
                             f"or a dotted path of at most {MAX_PATH_SEGMENTS} of them (meta.year)")
        elif isinstance(v, dict):
            for op, operand in v.items():
                _check_values(key, operand, bounds, op)
        else:
            _check_values(key, v, bounds)


def _check_values(field, v, bounds, op=None):
    """A condition's value or list of values within the service's bounds (their kinds are
    check_filter's to judge)."""
    if isinstance(v, list) and op not in (None, "$in", "$nin"):
        # an operator of one value ($lt, $eq, $contains, ...) takes no list of any length:
        # check_filter names what it takes ("lists 0 values (1 to 1000)" told of a bound it has not)
        return
    values = v if isinstance(v, list) else [v]
    where = f"{op} on {field!r}" if op else f"filter field {field!r}"
    if isinstance(v, list) and not 1 <= len(v) <= bounds["values"]:
        raise _fail(400, f"{where} lists {len(values)} values (1 to {bounds['values']})")
    for x in values:
        why = not_json_number(x)
        if why:
            # NaN and Infinity, which Python's json reads: named, as check_filter names them
            what = f"{op} operand" if op and op not in ("$in", "$nin") else "filter value"
            raise _fail(400, f"{what} of {field!r} {why}; a filter value is a str, a finite number (an integer "
                             "within 64 bits), a bool or null")
    if not all(_scalar_ok(x, bounds["chars"]) for x in values if not isinstance(x, (list, dict))):
        longest = f" (at most {bounds['chars']} characters)" if bounds["chars"] else ""
        raise _fail(400, f"filter values of {where} must be str{longest}, a finite number (an integer "
                         "within 64 bits), bool or null")


def _parse_filter(text):
    """The filter of a query string (JSON): None for none (absent, empty, ``{}``)."""
    if not text:
        return None
    try:
        value = loads(text)
    except (JSONDepthError, DuplicateKeyError, LongIntegerError, TextError) as exc:
        raise _fail(400, f"filter: {exc}") from None
    except ValueError:
        raise _fail(400, 'filter must be a JSON object, e.g. filter={"topic": 3}') from None
    return _check_filter(value, QUERY_FILTER)


def _filter_schema(bounds, where):
    """The JSON Schema of a filter (``where``: "in a body" or "in a query string"), as
    :func:`_check_filter` takes it: the grammar of :func:`learnsim.index._store.check_filter`
    with the service's bounds. JSON Schema cannot count the field conditions of a whole filter
    (at most ``MAX_REQUEST_FILTER_CONDITIONS``): the description says it.

    The nesting is unrolled, one definition a level (``$defs``, reached by a JSON pointer into
    the component, ``#/components/schemas/Filter`` or ``QueryFilter`` as ``_schema`` stores them),
    so that the schema says the depth bound exactly and stays as long as the levels."""
    name = "Filter" if where == "in a body" else "QueryFilter"
    ref = f"#/components/schemas/{name}/$defs/"
    # no NUL character: the index refuses one (SQLite's JSON functions end a string there), a 400
    string = {"type": "string", "pattern": "^[^\\x00]*" + _SCHEMA_END}
    if bounds["chars"] is not None:
        string["maxLength"] = bounds["chars"]
    number = [{"type": "integer", "minimum": _INT64[0], "maximum": _INT64[1]}, {"type": "number"}]
    values = {"type": "array", "minItems": 1, "maxItems": bounds["values"], "items": {"$ref": ref + "scalar"}}
    operators = {"$eq": {"$ref": ref + "scalar"}, "$ne": {"$ref": ref + "scalar"}, "$in": {"$ref": ref + "values"},
                 "$nin": {"$ref": ref + "values"}, "$exists": {"type": "boolean"},
                 "$contains": {"$ref": ref + "scalar"}, "$not_contains": {"$ref": ref + "scalar"}}
    operators.update((op, {"$ref": ref + "ordered"}) for op in ("$gt", "$gte", "$lt", "$lte"))
    defs = {
        "scalar": {"anyOf": [string, *number, {"type": "boolean"}, {"type": "null"}]},
        "ordered": {"anyOf": [string, *number]},
        "values": values,
        "condition": {"anyOf": [{"$ref": ref + "scalar"}, {"$ref": ref + "values"},
                                {"type": "object", "minProperties": 1, "additionalProperties": False,
                                 "properties": {op: operators[op] for op in FIELD_OPERATORS}}]},
    }

    def level(depth):
        out = {"type": "object", "minProperties": 1, "maxProperties": MAX_FILTER_FIELDS,
               "patternProperties": {f"^{_SCHEMA_PATH}{_SCHEMA_END}": {"$ref": ref + "condition"}},
               "additionalProperties": False,
               "propertyNames": {"not": {"pattern": "[^.]{65}"}}}
        if depth < MAX_REQUEST_FILTER_DEPTH:
            sub = {"$ref": ref + f"level{depth + 1}"}
            listed = {"type": "array", "minItems": 1, "maxItems": MAX_FILTER_FIELDS, "items": sub}
            out["properties"] = {"$and": listed, "$or": listed, "$not": sub}
        return out

    defs.update((f"level{d}", level(d)) for d in range(2, MAX_REQUEST_FILTER_DEPTH + 1))
    top = dict(level(1), minProperties=0)
    return dict(top, title=f"Filter ({where})", **{"$defs": defs}, description=(
        "A metadata filter: {} is none. Keys are fields (names of letters, digits, '_' and '-', or dotted paths "
        'into nested metadata: "meta.year"), all of which must hold, and $and, $or (lists of filters) and $not (a '
        'filter). A field takes a value ({"topic": 3}: equal), a list ({"topic": [1, 2]}: any of them) or '
        'operators, all of which must hold: {"year": {"$gte": 2020, "$lt": 2024}}; $eq, $ne (a value), $gt, $gte, '
        "$lt, $lte (a number or a string, compared with the same kind only), $in, $nin (a list), $exists (a bool), "
        "$contains, $not_contains (a value: a list in the metadata holds it / does not; a list equals no value). "
        "A missing field matches $ne, $nin, $exists: false and a $not around a condition, nothing else; a bool is "
        f"not a number. At most {MAX_REQUEST_FILTER_DEPTH} filter objects nested ($and, $or and $not each add one), "
        f"{MAX_FILTER_FIELDS} keys an object or filters a list, {bounds['values']} values a list and "
        f"{MAX_REQUEST_FILTER_CONDITIONS} field conditions in all (a value, a list or an operator on a field is one)."))


def _groups(queries, k):
    """``queries`` in pieces of at most CHUNK_QUERIES queries, CHUNK_HITS hits and CHUNK_CHARS
    characters (a query longer than that alone)."""
    group, chars = [], 0
    for q in queries:
        if group and (len(group) >= CHUNK_QUERIES or (len(group) + 1) * k > CHUNK_HITS
                      or chars + len(q) > CHUNK_CHARS):
            yield group
            group, chars = [], 0
        group.append(q)
        chars += len(q)
    if group:
        yield group
