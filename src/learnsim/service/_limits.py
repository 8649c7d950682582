"""The bounds of one request to ``learnsim serve`` (see :mod:`learnsim.service.app`): the
search budget, the filters' shape (and its JSON Schema), and the pieces work is split into."""
from __future__ import annotations

import json
import math
import re

from ._http import _fail

# the bounds of one request (see the module notes)
MAX_K = 1000
MAX_N_TOP = 100
MAX_BATCH = 1000
# a hit carries its text: 2,000 hits answer about 1 MB of JSON, 15 ms to encode on the event loop
MAX_HITS = 2_000
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


_FIELD = re.compile(r"[A-Za-z0-9_-]{1,64}")
_INT64 = (-(1 << 63), (1 << 63) - 1)
# the bounds of a filter: in a body, and in a query string (whose request head must stay well
# under the HTTP parser's bound, about 80 KB, past which it answers a plain-text 400 itself)
MAX_FILTER_FIELDS = 10
BODY_FILTER = {"values": 1000, "chars": None}
QUERY_FILTER = {"values": 50, "chars": 200}


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
    or ``{}``); anything else raises a 400 naming what is wrong."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _fail(400, f'filter must be a JSON object, e.g. filter={{"topic": 3}}; got {type(value).__name__}')
    if len(value) > MAX_FILTER_FIELDS:
        raise _fail(400, f"a filter has at most {MAX_FILTER_FIELDS} fields; got {len(value)}")
    chars = bounds["chars"]
    for field, v in value.items():
        if not _FIELD.fullmatch(field):
            raise _fail(400, f"filter field {field[:80]!r} must be a name of 1 to 64 letters, digits, '_' or '-'")
        values = v if isinstance(v, list) else [v]
        if not values or len(values) > bounds["values"]:
            raise _fail(400, f"filter field {field!r} lists {len(values)} values (1 to {bounds['values']})")
        if not all(_scalar_ok(x, chars) for x in values):
            longest = f" (at most {chars} characters)" if chars else ""
            raise _fail(400, f"filter values of {field!r} must be str{longest}, a finite number (an integer "
                             "within 64 bits), bool or null")
    return value or None


def _parse_filter(text):
    """The filter of a query string (JSON): None for none (absent, empty, ``{}``)."""
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        raise _fail(400, 'filter must be a JSON object, e.g. filter={"topic": 3}') from None
    return _check_filter(value, QUERY_FILTER)


def _filter_schema(bounds, where):
    string = {"type": "string"} if bounds["chars"] is None else {"type": "string", "maxLength": bounds["chars"]}
    scalars = [string, {"type": "integer", "minimum": _INT64[0], "maximum": _INT64[1]}, {"type": "number"},
               {"type": "boolean"}, {"type": "null"}]
    return {
        "type": "object", "title": f"Filter ({where})", "maxProperties": MAX_FILTER_FIELDS,
        "description": "A metadata filter {field: value or [values]}: a document matches when its metadata has, "
                       "for every field, one of the values. {} is no filter.",
        "propertyNames": {"pattern": "^[A-Za-z0-9_-]{1,64}$"},
        "additionalProperties": {"anyOf": scalars + [{"type": "array", "minItems": 1, "maxItems": bounds["values"],
                                                      "items": {"anyOf": scalars}}]}}


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
