"""Schemathesis hooks of ``tests/test_service_schema.py`` (``SCHEMATHESIS_HOOKS=schemathesis_hooks``).

The schema of ``learnsim serve`` tells every bound a JSON Schema can state (lengths, ranges,
shapes). The budget of a search (queries x k, and explain only for small k, explained hits x
n_top: :func:`learnsim.service.app.search_budget`) ties several fields together, which neither a
query string's parameters nor JSON Schema can say; the schema's description says it, and the
server answers 422 naming the limit (``tests/test_service_hostile.py`` checks that). So is the
number of field conditions of a filter, at any depth (MAX_REQUEST_FILTER_CONDITIONS: a 400,
``tests/service/test_filter_operators_http.py``). So is metadata holding an integer beyond 64 bits
(JSON Schema's numbers cannot tell 10**30 from the float 1e30, which is stored) or a NUL character
in a string (a 400 naming it: SQLite would compare the string cut there; ``tests/index``).
Generated cases over them are left out here, so that every schema-valid request the run sends is
one the server must accept."""
from __future__ import annotations

import json

import schemathesis

from learnsim.service._limits import MAX_REQUEST_FILTER_CONDITIONS, filter_conditions
from learnsim.service.app import MAX_K, search_budget


def _int(value, default):
    try:
        return int(value) if value is not None else default
    except (TypeError, ValueError):
        return None


def _over_budget(n_queries, k, explain, n_top, offset=None):
    k, n_top, offset = _int(k, 10), _int(n_top, 10), _int(offset, 0)
    if k is None or n_top is None or offset is None or not isinstance(n_queries, int):
        return False   # not a whole number: the server refuses it by the schema (422)
    # a search reads offset + k hits (learnsim.service._paging): within MAX_K and the budget of hits
    if offset + k > MAX_K or (offset and search_budget(n_queries, offset + k) is not None):
        return True
    return search_budget(n_queries, k, explain in (True, "true"), n_top) is not None


def _over_filter_bound(value):
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return False   # not JSON: the server refuses it (400)
    return filter_conditions(value) > MAX_REQUEST_FILTER_CONDITIONS


def _refused_metadata(value, inside=False):
    """Whether a body holds metadata (at any depth under a "metadata" key) that the index refuses
    by name: an integer beyond 64 bits, or a str (or key) holding a NUL character."""
    if isinstance(value, dict):
        return any((inside and "\x00" in k) or _refused_metadata(v, inside or k == "metadata")
                   for k, v in value.items())
    if isinstance(value, list):
        return any(_refused_metadata(v, inside) for v in value)
    if not inside:
        return False
    if isinstance(value, str):
        return "\x00" in value
    return isinstance(value, int) and not isinstance(value, bool) and not -2 ** 63 <= value < 2 ** 63


@schemathesis.hook
def filter_case(context, case):
    body = case.body if isinstance(case.body, dict) else {}
    if _over_filter_bound((case.query or {}).get("filter")) or _over_filter_bound(body.get("filter")):
        return False
    if _refused_metadata(body):
        return False
    if case.operation.path == "/v1/docs/{doc_id}/similar":
        where = (case.query or {}) if case.method.upper() == "GET" else body
        return not _over_budget(1, where.get("k"), False, 10, where.get("offset"))
    if case.operation.path != "/v1/search":
        return True
    if case.method.upper() == "GET":
        query = case.query or {}
        return not _over_budget(1, query.get("k"), query.get("explain"), query.get("n_top"), query.get("offset"))
    body = case.body if isinstance(case.body, dict) else {}
    queries = body.get("queries")
    return not _over_budget(len(queries) if isinstance(queries, list) else None, body.get("k"), body.get("explain"),
                            body.get("n_top"), body.get("offset"))
