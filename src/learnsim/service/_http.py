"""The answers of ``learnsim serve`` that every part of it gives: JSON errors ``{"error":
message, "code": status}`` (``"index_damaged"`` for a damaged index file) and JSON bodies; and
how request bodies are read (:class:`StrictJSONRoute`: no key twice, at most MAX_JSON_DEPTH
levels deep)."""
from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import numpy as np
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.requests import Request

from .._utils.inputs import DuplicateKeyError, JSONDepthError, LongIntegerError, TextError, loads

try:
    import orjson as _orjson
except ImportError:   # without it, the standard library's encoder
    _orjson = None

# error messages echo user input at times (a bad metadata value): keep answers short
_MAX_MESSAGE = 500
_RETRY_AFTER_S = 1


def _error(code, message, headers=None, name=None):
    """The JSON error answer ``{"error": message, "code": code}`` (``code`` is ``name`` where
    given: "index_damaged")."""
    message = str(message)
    if len(message) > _MAX_MESSAGE:
        message = message[:_MAX_MESSAGE] + "..."
    return JSONResponse({"error": message, "code": name or int(code)}, status_code=int(code), headers=headers)


def _error_of(exc):
    """The answer of the service's HTTPException ``exc``."""
    return _error(exc.status_code, exc.detail, getattr(exc, "headers", None), getattr(exc, "name", None))


def _fail(code, message, headers=None, name=None):
    exc = HTTPException(code, _short(message), headers=headers)
    exc.name = name
    return exc


def _short(message):
    message = " ".join(str(message).split())
    return message if len(message) <= _MAX_MESSAGE else message[:_MAX_MESSAGE] + "..."


# POST /v1/match's two forms (a union of two models), by the key that selects each
_FORMS = {"MatchText": "text", "MatchPairs": "pairs"}


def _one_form(errors, body):
    """The errors of the form of POST /v1/match that ``body`` was sent in, or a message of its
    own: pydantic tries a union's every model and names what each lacks, so ``{"text": "a",
    "k": 0}`` was refused as "MatchText.k: ...; MatchPairs.pairs: Field required;
    MatchPairs.text: Extra inputs are not permitted", naming a form the caller never meant and
    models no caller knows. The form is the one whose key the body holds."""
    if not any(tuple(e.get("loc", ()))[1:2] in ((name,) for name in _FORMS) for e in errors):
        return errors
    given = [name for name, key in _FORMS.items() if isinstance(body, dict) and key in body]
    if len(given) == 2:
        return "give text (a text matched against the index) or pairs (pairs of texts decided), not both"
    if not given:
        return "the body needs text (a text matched against the index) or pairs (a list of [text, text] pairs)"
    return [dict(e, loc=tuple(e["loc"])[:1] + tuple(e["loc"])[2:]) for e in errors
            if tuple(e.get("loc", ()))[1:2] == (given[0],)]


# pydantic's error types that say a value is not of a union member's kind (its other members'
# errors say what is wrong with it)
_NOT_OF_KIND = ("string_type", "int_type", "int_parsing", "int_from_float", "float_type", "bool_type", "none_required",
                "list_type", "dict_type", "tuple_type")


def _is_member_tag(part):
    # the models' fields are identifiers; a union's member is named in the location by a tag that
    # is none ("constrained-str", "function-before[_whole_number(), constrained-int]")
    return isinstance(part, str) and not part.isidentifier()


def _one_member(errors):
    """The errors of a union of kinds (a document's id: a str or an int) as one per value: pydantic
    tries each member and names each with its own tag, so that an id 1.5 was refused as
    "documents.0.id.constrained-str: Input should be a valid string; documents.0.id.function-before
    [_whole_number(), constrained-int]: Input should be a valid integer", a private function of the
    service in the answer. The value is named as the request names it, with the problem of the
    member of its kind, or, where it is of no member's kind, every kind it may be."""
    out, at = [], {}
    for err in errors:
        loc = tuple(err.get("loc", ()))
        if not any(_is_member_tag(p) for p in loc):
            out.append(err)
            continue
        plain = tuple(p for p in loc if not _is_member_tag(p))
        if plain not in at:
            at[plain] = []
            out.append(plain)
        at[plain].append(err)
    merged = []
    for item in out:
        if isinstance(item, dict):
            merged.append(item)
            continue
        tried = at[item]
        of_kind = [e for e in tried if e.get("type") not in _NOT_OF_KIND]
        if of_kind:
            merged.append(dict(of_kind[0], loc=item))
        else:
            said = [str(e.get("msg", "invalid")) for e in tried]
            said = said[:1] + [m.removeprefix("Input should be ") for m in said[1:]]
            merged.append(dict(tried[0], loc=item, msg=" or ".join(dict.fromkeys(said))))
    return merged


def _validation_message(errors, body=None):
    """One line out of pydantic's errors: ``where: what`` of the first few (never the input,
    which can be megabytes). ``body``: the request's, read only to tell which form of POST
    /v1/match it was sent in."""
    errors = _one_form(errors, body)
    if isinstance(errors, str):
        return errors
    errors = _one_member(errors)
    parts = []
    for err in errors[:3]:
        loc = tuple(err.get("loc", ()))
        # the first part says where (the body, the query string, the path): not a field; a
        # field named "query" (POST /v1/explain's) is named
        loc = ".".join(str(p) for p in (loc[1:] if loc[:1] in (("body",), ("query",), ("path",)) else loc))
        parts.append(f"{loc}: {err.get('msg', 'invalid')}" if loc else str(err.get("msg", "invalid")))
    if len(errors) > 3:
        parts.append(f"and {len(errors) - 3} more")
    return "; ".join(parts) or "invalid request"


def _without_paths(message, root):
    """``message`` with the index directory's absolute path, and any other absolute path, cut
    to what is relative to the index (or to a file's name): a client learns which file is
    damaged, never the server's layout."""
    for prefix in sorted({str(root), str(Path(root).resolve())}, key=len, reverse=True):
        # the whole path only: an index directory named "s" must not eat the s of "its sha256"
        pattern = r"(?<![\w.~/-])" + re.escape(prefix) + r"(?:" + re.escape(os.sep) + r"|(?![\w.-]))"
        message = re.sub(pattern, lambda found: "" if found.group(0).endswith(os.sep) else ".", message)
    return re.sub(r"(?<![\w.~])(?:/[^\s'\"/:]+)+/([^\s'\"/:]+)", r"\1", message)


def _damage_message(exc, root):
    """What a client is told of the damage ``exc``: the file relative to the index directory
    (IndexDamagedError's ``path``; or any path in the message cut so) and the problem."""
    path, problem = getattr(exc, "path", None), getattr(exc, "problem", None)
    if path and problem is not None:
        try:
            name = Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
        except (ValueError, OSError):
            name = Path(path).name
        return f"{name} is damaged: {_without_paths(str(problem), root)}"
    return _without_paths(str(exc), root)


def _json(obj, status=200):
    """A JSON answer encoded here: FastAPI's own encoder walks every value in Python first, which
    cost more than a search of a small index. With orjson (the serve extra), an answer of plain
    values is encoded by it: a search's 10 hits took 55 us with the standard library's encoder
    and 3 us with orjson, on the event loop every request waits on. Anything orjson does not
    take as it is (numpy values, an integer over 64 bits, a lone surrogate) goes the standard
    library's way below, which answered every request before, so the answer is the same JSON
    value either way (a NaN or an infinity is null in both)."""
    if _orjson is not None:
        try:
            return Response(_orjson.dumps(obj), status_code=status, media_type="application/json")
        except TypeError:   # orjson.JSONEncodeError
            pass
    try:
        # an answer of plain values (a search's hits are made of Python's ints, floats and
        # strings) is encoded as it is: walking it first cost as much as the encoding
        body = json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError):   # numpy values, or a NaN or infinity: made plain first
        body = json.dumps(_plain(obj), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return Response(body.encode("utf-8"), status_code=status, media_type="application/json")


def _plain(obj):
    """``obj`` with numpy scalars and arrays as plain Python (JSON) values."""
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _plain(obj.tolist())
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None   # JSON has no NaN or infinity
    return obj


def body_json(body):
    """The JSON value of a request body, read as every JSON input of learnsim is
    (:func:`learnsim._utils.inputs.loads`): nested at most MAX_JSON_DEPTH (64) levels, no
    object naming a key twice (Python's json would keep the last silently), UTF-8 with no lone
    surrogate in a string, else a 400 naming the problem; invalid JSON is json's own JSONDecodeError (the framework's "json_invalid")."""
    try:
        return loads(body)
    except (JSONDepthError, DuplicateKeyError, LongIntegerError, TextError) as exc:
        raise _fail(400, f"the body is refused: {exc}") from None


class _StrictJSONRequest(Request):
    async def json(self):
        if not hasattr(self, "_json"):
            self._json = body_json(await self.body())
        return self._json


class StrictJSONRoute(APIRoute):
    """The routes of the service: the framework reads a JSON body with :func:`body_json`."""

    def get_route_handler(self):
        handler = super().get_route_handler()

        async def strict(request):
            return await handler(_StrictJSONRequest(request.scope, request.receive))

        return strict
