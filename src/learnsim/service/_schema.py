"""The OpenAPI schema of ``learnsim serve``: FastAPI's, with every status each route can answer
(the error model), the API key where it applies, the filters and the bounds."""
from __future__ import annotations

from itertools import permutations

from fastapi.openapi.utils import get_openapi

from .._utils.inputs import CONTENT_PATTERN, MAX_JSON_DEPTH
from ._guard import _OPEN_PATHS
from ._paging import HIT_FIELDS
from ._limits import (BODY_FILTER, MAX_BATCH, MAX_EXPLAIN_K, MAX_EXPLAIN_WORDS, MAX_EXPLAINED, MAX_HITS, MAX_K,
                      MAX_MATCH_K, MAX_N_TOP, MAX_PAIRS, QUERY_FILTER, _SCHEMA_END, _filter_schema)

# CONTENT_PATTERN as JSON Schema reads a pattern (ECMA-262's dialect, as jsonschema_rs does):
# Python's [^\W_] is a letter or digit of any script, but \W is ASCII-only there, so a
# validating client refused "αβγ" and "中文", which the server searches
SCHEMA_CONTENT_PATTERN = CONTENT_PATTERN.replace(r"[^\W_]", r"[\p{L}\p{N}]", 1)

_BOUNDS_TEXT = (
    f"Bounds of one request (over them: 413 or 422 naming the limit): a query, text or document of at most "
    f"max_query_chars characters (10,000 by default), a body of at most max_body_bytes (1 MB); k 1..{MAX_K}; "
    f"1..{MAX_BATCH} queries a batch; queries x k <= {MAX_HITS}; explain only with k <= {MAX_EXPLAIN_K}, "
    f"explained hits (queries x k) <= {MAX_EXPLAINED} and explained hits x n_top <= {MAX_EXPLAIN_WORDS}; "
    f"n_top 1..{MAX_N_TOP}; offset 0..{MAX_K - 1} with offset + k <= {MAX_K}, and queries x (offset + k) <= "
    f"{MAX_HITS} (a search reads offset + k hits); match: k <= {MAX_MATCH_K}, pairs <= {MAX_PAIRS}. "
    "A request still running after "
    "its deadline (10 s by default) is stopped and answered 503. Writes need Content-Type: application/json "
    "(POST) and refuse a foreign Origin; the Host header must name this service (421 otherwise). Errors are "
    '{"error": message, "code": status} ("code": "index_damaged" for a damaged index file, 503). '
    f"A JSON body (or filter) nesting arrays and objects deeper than {MAX_JSON_DEPTH} levels, or naming a key "
    "twice in one object, is a 400. Numbers and booleans are strict: true is not a number, \"10\" is not a "
    "number, 10.0 is the integer 10. A query, a text matched and a document's text hold a letter or a digit "
    "(pattern [\\p{L}\\p{N}]): an empty one, or one of spaces and punctuation alone, is a 422.")

# the statuses each operation can answer, besides its success (see the module notes)
# 422: an unknown query parameter; 415: a body in another charset than UTF-8, compressed, or in a
# transfer coding other than chunked, on any route (a write's Content-Type too: _STATUSES)
_COMMON = (400, 413, 415, 421, 422, 500)
_INDEX = (429, 503)
_STATUSES = {
    ("get", "/healthz"): (),
    ("get", "/v1/info"): _INDEX,
    ("get", "/v1/search"): (422,) + _INDEX,
    ("post", "/v1/search"): (403, 422) + _INDEX,
    ("get", "/v1/docs/{doc_id}/similar"): (404, 422) + _INDEX,
    ("post", "/v1/docs/{doc_id}/similar"): (403, 404, 422) + _INDEX,
    ("get", "/v1/docs/{doc_id}"): (404, 422) + _INDEX,   # 422: an unknown id over MAX_ID_CHARS
    ("post", "/v1/match"): (403, 422) + _INDEX,
    ("post", "/v1/explain"): (403, 422) + _INDEX,
    ("post", "/v1/docs"): (403, 409, 415, 422) + _INDEX,
    ("put", "/v1/docs/{doc_id}"): (403, 409, 415, 422) + _INDEX,
    ("delete", "/v1/docs/{doc_id}"): (403, 404, 422) + _INDEX,
    ("post", "/v1/reindex"): (403, 415, 422) + _INDEX,
    ("post", "/v1/feedback"): (403, 404, 415, 422, 507) + _INDEX,
}
_WRITES = {("post", "/v1/docs"), ("put", "/v1/docs/{doc_id}"), ("delete", "/v1/docs/{doc_id}"), ("post", "/v1/reindex"),
           ("post", "/v1/feedback")}
_DESCRIPTIONS = {400: "Bad input: malformed JSON, a bad filter, a path that is not UTF-8, a request the HTTP parser "
                      "refuses (a request head over its bound, about 80 KB)",
                 401: "No API key, or a wrong one", 403: "A write to a read-only service, or a foreign Origin",
                 404: "An unknown id", 409: "An id already in the index, or given twice",
                 413: "A body, query or text over its size bound",
                 415: "A write that is not Content-Type: application/json; a body said to be in another charset "
                      "than UTF-8, compressed (Content-Encoding) or in a transfer coding other than chunked",
                 421: "A Host header this service does not answer for",
                 422: "A request of the wrong shape, with an unknown query parameter, or over the budget",
                 429: "Too many requests waiting (Retry-After)",
                 500: "A bug (logged on the server)",
                 503: "The index not free in time, the request past its deadline, or a damaged index file "
                      '("code": "index_damaged"); a click log that is busy (Retry-After) or damaged '
                      '("code": "feedback_log_damaged")',
                 507: "The click log holds its bound in bytes, or the client's share of it: the click was not "
                      "recorded"}

# the answers that carry scores say what they are and which way is better (more properties
# follow; only these are stated)
_SCORE_NAME = {"type": "string", "description": 'What each "score" is: "similarity", "distance" (lower is closer), '
                                                '"score" (term weights), "probability" (a re-ranked search), or, '
                                                'for pairs, "similarity", "decision", "mutual_neighbours", '
                                                '"predicted_score"'}
_HIGHER = {"type": "boolean", "description": "Whether a higher score is better (closer); false for a distance"}


_MODEL_VERSION = {"type": "string", "pattern": "^v[1-9][0-9]*" + _SCHEMA_END,
                  "description": "The model version that produced the answer (learnsim index versions): every hit, "
                                 "score and explanation of one answer is that version's"}


def _scored(*lists):
    return {"type": "object", "required": ["score", "higher_is_better", *lists],
            "properties": dict({name: {"type": "array"} for name in lists}, score=_SCORE_NAME,
                               higher_is_better=_HIGHER, model_version=_MODEL_VERSION)}


def _warned(schema):
    schema["required"].append("warnings")
    schema["properties"]["warnings"] = {"type": "array", "items": {"type": "string"},
                                        "description": "What the answer cannot say itself: a duplicate rule that "
                                                       "calls no pair a duplicate (its threshold is infinite)"}
    return schema


# what a write of documents says of their words the index's vocabulary lacks (more properties
# follow; only these are stated)
_WRITTEN = {"type": "object", "required": ["with_new_words", "without_model_terms", "warnings"],
            "properties": {"with_new_words": {"type": "integer", "minimum": 0,
                                              "description": "The documents written holding words the index's "
                                                             "vocabulary lacks: not found by them until a reindex"},
                           "without_model_terms": {"type": "integer", "minimum": 0,
                                                   "description": "The documents written with no term of the "
                                                                  "model's vocabulary: a search leaves them out"},
                           "warnings": {"type": "array", "items": {"type": "string"},
                                        "description": "What the answer cannot say itself: such words, and "
                                                       "that POST /v1/reindex brings them in"}}}


_SCORED = {
    ("get", "/v1/search"): _scored("hits"),
    ("post", "/v1/search"): _scored("results"),
    ("get", "/v1/docs/{doc_id}/similar"): _scored("hits"),
    ("post", "/v1/docs/{doc_id}/similar"): _scored("hits"),
    ("post", "/v1/match"): {"anyOf": [_warned(_scored("matches")), _warned(_scored("decisions"))]},
    ("get", "/v1/info"): {"type": "object", "required": ["score", "higher_is_better", "search_score"],
                          "properties": {"score": _SCORE_NAME, "higher_is_better": _HIGHER,
                                         "search_score": dict(_SCORE_NAME, description="What a search's hits' score is "
                                                                                       "(\"probability\" when re-ranked)"),
                                         "model": {"type": "string", "enum": ["loading", "loaded"],
                                                   "description": "Whether the model is still loading (a service "
                                                                  "started in the background; pipeline is null "
                                                                  "meanwhile)"}}},
    ("post", "/v1/explain"): {"type": "object", "required": ["score", "measure", "higher_is_better", "words", "rest"],
                              "properties": {"score": {"type": "number"},
                                             "measure": {"type": "string", "enum": ["similarity", "distance", "score"]},
                                             "higher_is_better": _HIGHER,
                                             "words": {"type": "array"}, "rest": {"type": "number"}}},
}


def _openapi(app, keyed, protect_reads, max_query_chars, mixed_ids, can_match, learns=False):
    """The OpenAPI schema, telling every status each route can answer (with the error model),
    the API key where one applies, the filters and the bounds. POST /v1/match is left out for a
    model without a duplicate rule: there it answers nothing but 422; POST /v1/feedback for a
    service that records no clicks (it answers 404)."""
    if app.openapi_schema is not None:
        return app.openapi_schema
    left_out = ({"/v1/match"} if not can_match else set()) | ({"/v1/feedback"} if not learns else set())
    routes = [r for r in app.routes if getattr(r, "path", None) not in left_out]
    schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=routes)
    components = schema.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    schemas["Error"] = {"type": "object", "title": "Error", "required": ["error", "code"],
                        "properties": {"error": {"type": "string"},
                                       "code": {"anyOf": [{"type": "integer"},
                                                          {"type": "string", "enum": ["index_damaged"]}]}}}
    schemas["Filter"] = _filter_schema(BODY_FILTER, "in a body")
    schemas["QueryFilter"] = _filter_schema(QUERY_FILTER, "in a query string")
    if keyed:
        components["securitySchemes"] = {"ApiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
                                         "Bearer": {"type": "http", "scheme": "bearer"}}
    error_ref = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path, item in schema["paths"].items():
        for method, op in item.items():
            guarded = keyed and ((method, path) in _WRITES or (protect_reads and path not in _OPEN_PATHS))
            codes = set(_COMMON) | set(_STATUSES.get((method, path), ()))
            if guarded:
                codes.add(401)
                op["security"] = [{"ApiKey": []}, {"Bearer": []}]
            responses = op.setdefault("responses", {})
            responses.pop("422", None)
            for code in sorted(codes):
                responses[str(code)] = {"description": _DESCRIPTIONS.get(code, "Error"), "content": error_ref}
            for param in op.get("parameters", ()):
                if param["name"] == "filter":
                    # a JSON object in the query string
                    param.pop("schema", None)
                    param["content"] = {"application/json": {"schema": {"$ref": "#/components/schemas/QueryFilter"}}}
                    param["description"] = 'A metadata filter as JSON, e.g. filter={"topic": 3}; empty: no filter'
                elif param["name"] == "q":
                    param["schema"]["maxLength"] = max_query_chars
                    param["schema"]["pattern"] = SCHEMA_CONTENT_PATTERN
                elif param["name"] == "include":
                    # a comma-separated list of names (_paging): empty, or each name once (every
                    # order of every subset: 16 of three names, so that the schema says it exactly)
                    lists = [",".join(p) for n in range(1, len(HIT_FIELDS) + 1) for p in permutations(HIT_FIELDS, n)]
                    param["schema"] = {"type": "string", "pattern": f"^({'|'.join(lists)})?{_SCHEMA_END}"}
                    param["description"] = (f"The fields a hit carries besides id and rank, comma-separated, each once: "
                                            f"any of {', '.join(HIT_FIELDS)} (all when not given; empty: none)")
                elif param["name"] == "doc_id" and method == "put":
                    param["schema"]["maxLength"] = 1000     # app.MAX_ID_CHARS, as a POST's ids
            if (method, path) == ("post", "/v1/reindex"):
                op["requestBody"] = {"required": True, "description": "{} (or no body)", "content": {
                    "application/json": {"schema": {"type": "object", "maxProperties": 0}}}}
    if "AddRequest" in schemas:
        # "mode": "upsert" names every document's id (an upsert of a document without one is a 422)
        schemas["AddRequest"]["if"] = {"required": ["mode"], "properties": {"mode": {"const": "upsert"}}}
        schemas["AddRequest"]["then"] = {"properties": {"documents": {"items": {
            "required": ["id"], "properties": {"id": {"not": {"type": "null"}}}}}}}
    for key in (("put", "/v1/docs/{doc_id}"), ("post", "/v1/docs")):
        # an upsert answers 201 when it added a document and 200 when it only replaced some
        op = schema["paths"].get(key[1], {}).get(key[0])
        if op is not None:
            ok = dict(op["responses"].get("201") or op["responses"].get("200") or {}, content={
                "application/json": {"schema": _WRITTEN}})
            op["responses"]["201"] = dict(ok, description="Written: at least one document was new")
            op["responses"]["200"] = dict(ok, description="Written: every document replaced one with its id (upsert)")
    for key, body in _SCORED.items():
        op = schema["paths"].get(key[1], {}).get(key[0])
        if op is not None:
            op["responses"]["200"]["content"] = {"application/json": {"schema": body}}
    for name in ("SearchBatch", "SimilarRequest"):
        props = schemas.get(name, {}).get("properties", {})
        if "include" in props:
            props["include"] = {"anyOf": [{"type": "array", "items": {"type": "string", "enum": list(HIT_FIELDS)},
                                           "uniqueItems": True, "maxItems": len(HIT_FIELDS)}, {"type": "null"}],
                                "description": props["include"].get("description", "")}
    for name, fields in (("SearchBatch", ("queries",)), ("MatchText", ("text",)), ("MatchPairs", ("pairs",)),
                         ("ExplainRequest", ("query", "document")), ("DocumentIn", ("text",)),
                         ("PutRequest", ("text",)), ("SimilarRequest", ())):
        props = schemas.get(name, {}).get("properties", {})
        for field in fields:
            _cap_strings(props.get(field), max_query_chars)
        if "filter" in props:
            props["filter"] = {"anyOf": [{"$ref": "#/components/schemas/Filter"}, {"type": "null"}]}
    for name, fields in (("SearchBatch", ("queries",)), ("MatchText", ("text",)), ("MatchPairs", ("pairs",)),
                         ("ExplainRequest", ("query", "document")), ("DocumentIn", ("text",)),
                         ("PutRequest", ("text",))):
        # a letter or a digit: an empty query (or a text of punctuation alone) is refused
        props = schemas.get(name, {}).get("properties", {})
        for field in fields:
            _require_content(props.get(field))
    if not mixed_ids and "AddRequest" in schemas:
        # every document with an id, or none with one
        docs = schemas["AddRequest"]["properties"]["documents"]
        with_id = {"allOf": [{"$ref": "#/components/schemas/DocumentIn"},
                             {"required": ["id"], "properties": {"id": {"type": "string"}}}]}
        without = {"allOf": [{"$ref": "#/components/schemas/DocumentIn"}, {"not": {"required": ["id"]}}]}
        docs.pop("items", None)
        docs["anyOf"] = [{"type": "array", "items": with_id}, {"type": "array", "items": without}]
    app.openapi_schema = schema
    return schema


def _require_content(prop):
    """The pattern CONTENT_PATTERN (a letter or a digit) on the strings of a property."""
    if not isinstance(prop, dict):
        return
    if prop.get("type") == "string":
        prop["pattern"] = SCHEMA_CONTENT_PATTERN
    for sub in ("items", "prefixItems", "anyOf"):
        value = prop.get(sub)
        for part in (value if isinstance(value, list) else [value]):
            _require_content(part)


def _cap_strings(prop, limit):
    """maxLength ``limit`` on the strings of a property (a string, or arrays of them)."""
    if not isinstance(prop, dict):
        return
    if prop.get("type") == "string":
        prop["maxLength"] = limit
    for sub in ("items", "prefixItems", "anyOf"):
        value = prop.get(sub)
        for part in (value if isinstance(value, list) else [value]):
            _cap_strings(part, limit)
