"""The routes of ``learnsim serve``, each one method of :class:`Routes`, which
:class:`~learnsim.client.Client` and :class:`~learnsim.client.AsyncClient` share: a method checks
its arguments, describes its request (a :class:`Call`) and hands it to the client's ``_send``,
which sends it (with the retries) and returns the answer's JSON (a coroutine of it for the
asynchronous client). Nothing here imports httpx."""
from __future__ import annotations

import json
import math
import numbers
import reprlib
from urllib.parse import quote, urlencode

from .._utils.inputs import check_flag

__all__ = ["Call", "Routes", "ShapeError", "doc_path"]

# the bounds of a filter in a query string (learnsim.service._limits.QUERY_FILTER; in a body
# they are wider): a GET search whose filter is over them is sent as a POST instead
QUERY_FILTER_VALUES, QUERY_FILTER_CHARS = 50, 200
# a GET search whose query string would be longer is sent as a POST (a proxy may refuse long
# URLs, and the service's HTTP parser answers a request head over about 80 KB itself)
MAX_QUERY_STRING = 2000


class ShapeError(ValueError):
    """An answer (a JSON object) that is not of the shape its route answers: a :class:`Call`'s
    ``shape`` raises it, and the client turns it into a :class:`~learnsim.client.ClientError`."""


class Call:
    """One request: ``method`` and ``path`` (relative to the client's base address), query
    ``params``, a ``json`` body; ``idempotent``: whether sending it twice does no harm (then a
    broken connection is retried); ``shape``: what to make of the answer's JSON; ``answers``:
    statuses besides 2xx whose JSON object is the answer (``/healthz``'s 503)."""

    __slots__ = ("method", "path", "params", "json", "idempotent", "shape", "answers")

    def __init__(self, method, path, *, params=None, json=None, idempotent=True, shape=None, answers=()):
        self.method, self.path, self.params, self.json = method, path, params, json
        self.idempotent, self.shape, self.answers = idempotent, shape, tuple(answers)

    def __repr__(self):
        return f"Call({self.method} {self.path})"


def check_finite(value, where):
    """A ValueError naming the place of a NaN or an infinity in a JSON body: JSON has neither, and
    httpx's own "Out of range float values are not JSON compliant" named no argument
    (``client.add(texts, metadata=[{"x": float("nan")}])``). Called once httpx has refused a body,
    so that a body of plain values is not walked twice."""
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{where} is {value!r}: JSON has no NaN or infinity (send None or a number)")
    elif isinstance(value, dict):
        for key, item in value.items():
            check_finite(item, f"{where}[{key!r}]")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            check_finite(item, f"{where}[{i}]")


def check_encodable(value, where):
    """A ValueError naming the place of a lone surrogate (U+D800..U+DFFF: half of a UTF-16 pair,
    as ``"\\ud800"`` in JSON or a name decoded with ``surrogateescape`` leaves) in a str, a dict's
    keys or values, or a list: UTF-8 cannot carry one, and httpx's own "'utf-8' codec can't encode
    character '\\ud800' in position 5" named no argument. Called, as :func:`check_finite`, once
    httpx has refused a request."""
    if isinstance(value, str):
        lone = next((c for c in value if "\ud800" <= c <= "\udfff"), None)
        if lone is not None:
            raise ValueError(f"{where} holds a lone surrogate (U+{ord(lone):04X}), half of a UTF-16 pair and no "
                             "character: UTF-8 cannot carry it (decode the text whole, or drop it)")
    elif isinstance(value, dict):
        for key, item in value.items():
            check_encodable(key, f"a key of {where}")
            check_encodable(item, f"{where}[{key!r}]")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            check_encodable(item, f"{where}[{i}]")


def doc_path(doc_id, suffix=""):
    """The path of the document ``doc_id``: the id encoded wholly (``/`` too, so that an id
    ending in ``/similar`` is an id), an id of dots alone as ``%2E`` (a client would otherwise
    remove it as a dot segment)."""
    if not isinstance(doc_id, str):
        raise TypeError(f"a document id is a str; got {type(doc_id).__name__}")
    if not doc_id:
        raise ValueError("a document id is a non-empty str")
    check_encodable(doc_id, f"the document id {doc_id!r}")
    encoded = "%2E" * len(doc_id) if set(doc_id) == {"."} else quote(doc_id, safe="")
    return f"v1/docs/{encoded}{suffix}"


def _listed(values, what, wanted="a list of str"):
    """``values`` (a list, a tuple, any iterable of them) as a list, or a TypeError naming
    ``what`` and the type: read with list(), a dict gave its keys (client.add({id: text}) sent
    the ids as the texts), bytes its byte values, None "'NoneType' object is not iterable"."""
    if isinstance(values, (bytes, bytearray, memoryview, dict)) or not hasattr(values, "__iter__"):
        hint = "; decode bytes first" if isinstance(values, (bytes, bytearray, memoryview)) else \
            " (its values are .values())" if isinstance(values, dict) else ""
        raise TypeError(f"{what} must be {wanted}; got {type(values).__name__}{hint}")
    return list(values)


def _texts(texts, what="texts", wanted="a list of str"):
    if isinstance(texts, str):
        raise TypeError(f"{what} must be a list of str, not a single str (wrap it in a list)")
    texts = _listed(texts, what, wanted)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"{what}[{i}] must be a str; got {type(t).__name__}")
    return texts


def _documents(texts, ids, metadata):
    """The ``documents`` of a POST /v1/docs body."""
    texts = _texts(texts)
    if not texts:
        raise ValueError("no documents to send")
    if ids is not None:
        if isinstance(ids, str):
            raise TypeError("ids must be a list of str, not a single str")
        ids = _listed(ids, "ids")
        if len(ids) != len(texts):
            raise ValueError(f"got {len(ids)} ids for {len(texts)} texts")
    if metadata is not None:
        if isinstance(metadata, dict):
            raise TypeError("metadata must be a list with one dict (or None) per text")
        metadata = list(metadata)
        if len(metadata) != len(texts):
            raise ValueError(f"got {len(metadata)} metadata entries for {len(texts)} texts")
    docs = []
    for i, text in enumerate(texts):
        doc = {"text": text}
        if ids is not None and ids[i] is not None:
            doc["id"] = ids[i]
        if metadata is not None and metadata[i] is not None:
            doc["metadata"] = metadata[i]
        docs.append(doc)
    return docs


def _whole(value):
    """A count (``k``, ``n_top``) as the service reads it the same in a query string and in a
    body: an integer (numpy's too) or a whole float as a plain int; anything else as given (the
    service refuses it either way). Sent as given, 2.0 went as ``k=2.0`` in a GET (a 422) but
    as 2 in a POST's JSON, and a numpy integer failed the POST's JSON encoding."""
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer():
        return int(value)
    return value


def _plain_number(value):
    """A number (numpy's too: ``np.float64(3.5)``, a DataFrame's value) as a plain float for the
    body's JSON, whose encoding failed on it (TypeError: float64 is not JSON serializable); a bool
    or anything else as given (the service refuses it)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and type(value).__name__ != "bool_":
        return float(value)
    return value


def _fits_a_query_string(value):
    """Whether a filter (or a part of one: operators and ``$and``/``$or`` nest) is within the
    bounds of one in a query string: no list of more values, no longer string."""
    if isinstance(value, dict):
        return all(_fits_a_query_string(v) for v in value.values())
    if isinstance(value, list):
        return len(value) <= QUERY_FILTER_VALUES and all(_fits_a_query_string(v) for v in value)
    return not (isinstance(value, str) and len(value) > QUERY_FILTER_CHARS)


def _check_hits(hits, where, scored=True):
    """``hits`` if it is a list of hits (objects with an ``"id"`` string and, ``scored``, a finite
    ``"score"``), else :class:`ShapeError` naming ``where``: the caller would index into a string
    or sort by NaN. A search whose ``include`` leaves the score out is answered without one."""
    if not isinstance(hits, list):
        raise ShapeError(f"{where} is a list of hits; got {reprlib.repr(hits)}")
    for n, hit in enumerate(hits):
        score = hit.get("score") if isinstance(hit, dict) else None
        if not (isinstance(hit, dict) and isinstance(hit.get("id"), str)
                and (not scored or (isinstance(score, (int, float)) and not isinstance(score, bool)
                                    and math.isfinite(score)))):
            what = '"id": str, "score": finite number' if scored else '"id": str'
            raise ShapeError(f"{where}[{n}] is a hit {{{what}, ...}}; got {reprlib.repr(hit)}")
    return hits


def _health(answer):
    """A /healthz answer: :class:`ShapeError` unless its ``"status"`` is a str (a 200 of another
    server's JSON was returned as it was, and ``health()["status"]`` a KeyError)."""
    if not isinstance(answer.get("status"), str):
        raise ShapeError(f'/healthz answers {{"status": str, ...}}; got {reprlib.repr(answer)}')
    return answer


def _one_result(answer, scored=True):
    """A GET /v1/search answer (one query): :class:`ShapeError` unless its ``"hits"`` are hits."""
    _check_hits(answer.get("hits"), '"hits"', scored)
    return answer


def _results(answer, scored=True):
    """A POST /v1/search answer (a list of queries): :class:`ShapeError` unless ``"results"`` is a
    list of lists of hits."""
    results = answer.get("results")
    if not isinstance(results, list):
        raise ShapeError(f'a search of a list of queries is answered {{"results": [[hits], ...]}}; got '
                         f"{reprlib.repr(results)}")
    for n, hits in enumerate(results):
        _check_hits(hits, f'"results"[{n}]', scored)
    return answer


def _first_result(answer, scored=True):
    """A POST /v1/search answer of one query (a dict) as the GET answer: ``{"hits", "score", ...}``;
    :class:`ShapeError` unless its ``"results"`` is a list of one list."""
    results = answer.get("results")
    if not (isinstance(results, list) and len(results) == 1 and isinstance(results[0], list)):
        # reprlib: the answer may be large (and deep, up to the client's bound)
        got = "no \"results\"" if "results" not in answer else f'"results": {reprlib.repr(results)}'
        raise ShapeError('a search of one query is answered {"results": [[hits]], ...}; got ' + got)
    answer = dict(answer)
    answer["hits"] = _check_hits(answer.pop("results")[0], '"results"[0]', scored)
    return answer


def _finite(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


# the types an answer's fields are checked for: (test, what the message calls it)
_TYPES = {
    "str": (lambda v: isinstance(v, str), "str"),
    "count": (lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0, "whole number >= 0"),
    "number": (_finite, "finite number"),
    "bool": (lambda v: isinstance(v, bool), "bool"),
    "list": (lambda v: isinstance(v, list), "list"),
    "object": (lambda v: isinstance(v, dict), "object"),
    "strs": (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "list of str"),
    "objects": (lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v), "list of objects"),
}

# What each route answers: the fields its caller reads, each with its type; a name ending in "?"
# is checked only where the answer has it (an older service's answer lacks it). The search and
# similar-documents routes' hits are checked by _one_result/_results; /healthz by _health. Only
# search, similar and health were checked: an answer {} to add() was returned as it was, and
# answer["ids"] a KeyError in the caller.
ANSWERS = {
    "info": {"documents": "count", "method": "str", "score?": "str", "higher_is_better?": "bool",
             "search_score?": "str", "warnings?": "strs"},
    "openapi": {"openapi": "str", "paths": "object"},
    "document": {"id": "str", "text": "str"},
    "match": {"matches": "objects", "score": "str", "higher_is_better": "bool", "warnings?": "strs"},
    "match_pairs": {"decisions": "objects", "score": "str", "higher_is_better": "bool", "warnings?": "strs"},
    "explain": {"score": "number", "measure": "str", "higher_is_better": "bool", "words": "objects",
                "rest?": "number"},
    "add": {"ids": "strs", "added": "count", "documents": "count", "with_new_words?": "count",
            "without_model_terms?": "count", "warnings?": "strs"},
    "upsert": {"ids": "strs", "added": "count", "updated": "count", "documents": "count",
               "with_new_words?": "count", "without_model_terms?": "count", "warnings?": "strs"},
    "put": {"id": "str", "added": "count", "updated": "count", "documents": "count",
            "with_new_words?": "count", "without_model_terms?": "count", "warnings?": "strs"},
    "delete": {"deleted": "count", "documents": "count"},
    "reindex": {"documents": "count", "method": "str"},
    "feedback": {"impression": "str", "recorded": "count"},
}


def _answer(route, then=None):
    """The ``shape`` of a :class:`Call` of ``route`` (a key of :data:`ANSWERS`): the answer if its
    fields are of their types (then ``then(answer)``), else :class:`ShapeError` naming the field."""
    fields = ANSWERS[route]
    shown = ", ".join(f'"{k.rstrip("?")}": {_TYPES[t][1]}' for k, t in fields.items() if not k.endswith("?"))

    def check(answer):
        for key, kind in fields.items():
            name = key.rstrip("?")
            if name not in answer:
                if key.endswith("?"):
                    continue
                problem = f'no "{name}"'
            elif not _TYPES[kind][0](answer[name]):
                problem = f'"{name}" is {reprlib.repr(answer[name])}, not a {_TYPES[kind][1]}'
            else:
                continue
            raise ShapeError(f"{route}() is answered {{{shown}, ...}}; {problem} in {reprlib.repr(answer)}")
        return answer if then is None else then(answer)
    return check


def _shape(check, include):
    """``check`` of an answer whose hits carry a score unless ``include`` leaves it out."""
    if include is None or "score" in include:
        return check
    return lambda answer: check(answer, scored=False)


def _include(include):
    """``include`` as the list the service takes (None: every field), checked for its type only:
    the service names an unknown field (422). A lone str is refused: ``include="text"`` would
    otherwise read as the names t, e, x, t."""
    return None if include is None else _texts(include, "include")


def _paged(params, offset, include, query_string):
    """``params`` with ``offset`` and ``include`` where given (``query_string``: include as one
    comma-separated value, else a list)."""
    if offset != 0:
        params["offset"] = offset
    if include is not None:
        params["include"] = ",".join(include) if query_string else include
    return params


class Routes:
    """The routes of ``learnsim serve`` as methods; a subclass sends a :class:`Call` with ``_send``."""

    def _send(self, call):  # pragma: no cover - the clients define it
        raise NotImplementedError

    # ------------------------------------------------------------------ the service
    def health(self):
        """``GET /healthz``: whether the service is up.

        Returns
        -------
        dict
            ``{"status": "ok"}``; ``{"status": "starting"}`` while the index's files are being
            checked (the service answers that with 503; it is returned, not raised, and not
            retried); ``{"status": "degraded", "damage": "..."}`` once damage to an index file
            was seen (what is intact is still served).

        Raises
        ------
        Unavailable
            A 503 that is a JSON error (``{"error", "code"}``: the service at its bound of
            connections, a proxy), after the retries, as any other route's.

        Examples
        --------
        >>> from learnsim.client import Client
        >>> with Client("http://127.0.0.1:8000") as client:       # doctest: +SKIP
        ...     client.health()
        {'status': 'ok'}
        """
        return self._send(Call("GET", "healthz", answers=(503,), shape=_health))

    def info(self):
        """``GET /v1/info``: what the index holds and how it scores.

        Returns
        -------
        dict
            :meth:`learnsim.index.Index.info` (``"documents"``, ``"method"``, ``"path"``: the
            index directory's name, ...) with ``"version"`` (learnsim's on the server),
            ``"pipeline"``, ``"score"`` (what a similar-documents hit's score is),
            ``"higher_is_better"``, ``"search_score"`` (what a search hit's score is),
            ``"warnings"`` (what the model's duplicate rule calls for, as :meth:`match`'s) and, when
            the service has no API key or this client sends it, ``"versions"`` (the libraries').

        Examples
        --------
        >>> from learnsim.client import Client
        >>> client = Client("http://127.0.0.1:8000")   # doctest: +SKIP
        >>> info = client.info()                                 # doctest: +SKIP
        >>> info["documents"], info["search_score"], info["higher_is_better"]   # doctest: +SKIP
        (120, 'similarity', True)
        """
        return self._send(Call("GET", "v1/info", shape=_answer("info")))

    def openapi(self):
        """``GET /openapi.json``: the service's OpenAPI schema (every route, the statuses each can
        answer, the bounds), as a dict."""
        return self._send(Call("GET", "openapi.json", shape=_answer("openapi")))

    # ------------------------------------------------------------------ reads
    def search(self, query, k=10, *, filter=None, explain=False, n_top=10, offset=0, include=None):
        """Search the index: ``GET /v1/search`` for one query, ``POST /v1/search`` for a list.

        Parameters
        ----------
        query : str or list of str
            One query, or a batch (at most 1,000, and ``len(query) * k`` at most 2,000 hits).
        k : int, default=10
            Hits per query (1 to 1,000).
        filter : dict, optional
            A metadata filter ``{field: value or [values]}``: a document matches when its
            metadata has one of the values for every field.
        explain : bool, default=False
            Give each hit its ``"explanation"`` (only with k <= 20).
        n_top : int, default=10
            Words an explanation lists.
        offset : int, default=0
            Hits to skip (a page past the first): the hits ranked ``offset + 1`` to ``offset + k``,
            each with its rank in the whole ranking; ``offset + k`` at most 1,000.
        include : list of str, optional
            The fields each hit carries besides ``"id"`` and ``"rank"``: any of ``"text"``,
            ``"metadata"``, ``"score"`` (all when not given; ``[]``: ids and ranks alone). An
            unknown name is the service's 422 (:class:`BadRequest`).

        Returns
        -------
        dict
            For one query ``{"hits": [...], "score": name, "higher_is_better": bool}``, the
            hits as :meth:`learnsim.index.Index.search` returns them (``"rank"``, ``"id"``,
            ``"score"``, ``"text"``, ``"metadata"``), best first; ``"score"`` names what their
            score is ("similarity", "distance", "score" of term weights, "probability" of a
            re-ranked search), and ``"higher_is_better"`` is false for a distance. For a list,
            ``{"results": [hits of each query], "score", "higher_is_better"}``.

        Notes
        -----
        A single query whose URL would be long (a query string over 2,000 characters), or whose
        filter is over the bounds of one in a query string (a list of more than 50 values, a
        string over 200 characters), is sent as a POST of one query; the answer has the same
        shape.

        Examples
        --------
        >>> from learnsim.client import Client
        >>> client = Client("http://127.0.0.1:8000")   # doctest: +SKIP
        >>> answer = client.search("I paid twice for one order", k=3)          # doctest: +SKIP
        >>> [(h["id"], round(h["score"], 3)) for h in answer["hits"]], answer["score"]   # doctest: +SKIP
        ([('t001', 0.477), ('t007', 0.299), ('t043', 0.267)], 'similarity')
        >>> batch = client.search(["I paid twice for one order", "where is my parcel"], k=1,
        ...                       filter={"label": ["billing", "delivery"]})   # doctest: +SKIP
        >>> [hits[0]["id"] for hits in batch["results"]]                         # doctest: +SKIP
        ['t001', 't017']
        """
        if isinstance(filter, dict) and not filter:
            filter = None
        k, n_top, explain = _whole(k), _whole(n_top), check_flag(explain, "explain")
        offset, include = _whole(offset), _include(include)
        if isinstance(query, str):
            # urlencode below meets a lone surrogate before httpx does: named here, as in a body
            check_encodable(query, "query (q)")
            check_encodable(filter, "filter")
            params = {"q": query, "k": k}
            if filter is not None:
                params["filter"] = json.dumps(filter, separators=(",", ":"), ensure_ascii=False)
            if explain:
                params.update(explain="true", n_top=n_top)
            _paged(params, offset, include, query_string=True)
            if (len(urlencode(params)) <= MAX_QUERY_STRING
                    and (not isinstance(filter, dict) or _fits_a_query_string(filter))):
                return self._send(Call("GET", "v1/search", params=params, shape=_shape(_one_result, include)))
            body = _paged(self._search_body([query], k, filter, explain, n_top), offset, include, query_string=False)
            return self._send(Call("POST", "v1/search", json=body, shape=_shape(_first_result, include)))
        queries = _texts(query, "queries", "a str or a list of str")
        body = _paged(self._search_body(queries, k, filter, explain, n_top), offset, include, query_string=False)
        return self._send(Call("POST", "v1/search", json=body, shape=_shape(_results, include)))

    @staticmethod
    def _search_body(queries, k, filter, explain, n_top):
        body = {"queries": queries, "k": k}
        if filter is not None:
            body["filter"] = filter
        if explain:
            body.update(explain=True, n_top=n_top)
        return body

    def document(self, doc_id):
        """``GET /v1/docs/{id}``: a document of the index.

        Returns
        -------
        dict
            ``{"id": str, "text": str, "metadata": dict or None}``.

        Raises
        ------
        NotFound
            No live document has the id (also a ``KeyError``).
        BadRequest
            No live document has the id, and it is over the 1,000 characters of an id (the
            service's 422, as for a write of it).

        Examples
        --------
        >>> from learnsim.client import Client
        >>> Client("http://127.0.0.1:8000").document("t001")      # doctest: +SKIP
        {'id': 't001', 'text': 'I was charged twice for the same order', 'metadata': {'label': 'billing'}}
        """
        return self._send(Call("GET", doc_path(doc_id), shape=_answer("document")))

    def more_like(self, doc_id, k=10, *, filter=None, offset=0, include=None):
        """``GET /v1/docs/{id}/similar``: the k documents closest to the document ``doc_id``
        (itself excluded), as :meth:`learnsim.index.Index.more_like`. A filter over the bounds of
        one in a query string, or a long one, is sent by ``POST /v1/docs/{id}/similar``, as
        :meth:`search` sends it. ``offset`` and ``include`` as :meth:`search`'s.

        Returns
        -------
        dict
            ``{"id": doc_id, "hits": [...], "score": name, "higher_is_better": bool}``, the hits
            as a search's (``"score"`` is the first stage's: never a re-ranker's probability).

        Raises
        ------
        NotFound
            No live document has the id.

        Examples
        --------
        >>> from learnsim.client import Client
        >>> answer = Client("http://127.0.0.1:8000").more_like("t001", k=2)   # doctest: +SKIP
        >>> answer["hits"][0]["id"]                                             # doctest: +SKIP
        't077'
        """
        params = {"k": _whole(k)}
        offset, include = _whole(offset), _include(include)
        if filter:
            check_encodable(filter, "filter")       # before urlencode meets it
            params["filter"] = json.dumps(filter, separators=(",", ":"), ensure_ascii=False)
        path = doc_path(doc_id, "/similar")
        if filter and (len(urlencode(params)) > MAX_QUERY_STRING
                       or (isinstance(filter, dict) and not _fits_a_query_string(filter))):
            # in the URL it was the service's 400 (a list of 60 values), or httpx's InvalidURL
            # ("URL component 'query' too long"), no ClientError
            body = _paged({"k": params["k"], "filter": filter}, offset, include, query_string=False)
            return self._send(Call("POST", path, json=body, shape=_shape(_one_result, include)))
        return self._send(Call("GET", path, params=_paged(params, offset, include, query_string=True),
                               shape=_shape(_one_result, include)))

    def match(self, text, k=10, *, filter=None):
        """``POST /v1/match``: the near-duplicates of ``text`` among its k closest documents, as
        :meth:`learnsim.index.Index.match` (the model needs a duplicate rule: a FILM fitted on
        labelled pairs; otherwise :class:`BadRequest`, 422).

        Returns
        -------
        dict
            ``{"matches": [...], "score": name, "higher_is_better": bool, "warnings": [...]}``:
            the hits the rule accepts, most probable first, each with its ``"probability"`` (or
            the ``"predicted_score"`` of a model fitted on graded pairs); ``"warnings"`` says
            what the answer cannot (a rule whose threshold is infinite calls no pair a duplicate).

        Examples
        --------
        >>> from learnsim.client import Client
        >>> answer = Client("http://127.0.0.1:8000").match("How can I delete my account?")   # doctest: +SKIP
        >>> [(m["id"], round(m["probability"], 2)) for m in answer["matches"]]            # doctest: +SKIP
        [('t050', 0.85)]
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str; got {type(text).__name__}")
        body = {"text": text, "k": _whole(k)}
        if filter:
            body["filter"] = filter
        return self._send(Call("POST", "v1/match", json=body, shape=_answer("match")))

    def match_pairs(self, pairs):
        """``POST /v1/match`` with pairs: each pair of texts decided by the model's duplicate rule
        alone (at most 1,000 pairs).

        Returns
        -------
        dict
            ``{"decisions": [{"duplicate": bool, "probability": float, ...}, ...], "score":
            name, "higher_is_better": true, "warnings": [...]}``, one decision per pair, in order;
            ``"score"`` names each decision's ``"score"`` ("similarity", "decision",
            "mutual_neighbours", "predicted_score"); ``"warnings"`` as :meth:`match`'s.

        Examples
        --------
        >>> from learnsim.client import Client
        >>> client = Client("http://127.0.0.1:8000")   # doctest: +SKIP
        >>> answer = client.match_pairs([("How do I delete my account?",
        ...                               "How can I delete my account?")])                   # doctest: +SKIP
        >>> answer["decisions"][0]["duplicate"], round(answer["decisions"][0]["probability"], 2)  # doctest: +SKIP
        (True, 0.85)
        """
        if isinstance(pairs, (str, tuple)) and len(pairs) == 2 and all(isinstance(t, str) for t in pairs):
            raise TypeError("pairs must be a list of (text, text) pairs (wrap one pair in a list)")
        pairs = [list(p) for p in pairs]
        for i, pair in enumerate(pairs):
            if len(pair) != 2 or not all(isinstance(t, str) for t in pair):
                raise TypeError(f"pairs[{i}] must be two str")
        return self._send(Call("POST", "v1/match", json={"pairs": pairs}, shape=_answer("match_pairs")))

    def explain(self, query, document, n_top=10):
        """``POST /v1/explain``: why ``document`` scores as it does for ``query``
        (:meth:`learnsim.pipeline.Pipeline.explain`).

        Returns
        -------
        dict
            ``{"score": float, "measure": "similarity" | "distance" | "score",
            "higher_is_better": bool, "words": [...], "rest": float, ...}``: the score and the
            ``n_top`` words that contribute most to it.

        Examples
        --------
        >>> from learnsim.client import Client
        >>> client = Client("http://127.0.0.1:8000")   # doctest: +SKIP
        >>> answer = client.explain("I paid twice for one order", "I was charged twice for the same order",
        ...                         n_top=3)                                            # doctest: +SKIP
        >>> answer["measure"], [w["word"] for w in answer["words"]]                      # doctest: +SKIP
        ('similarity', ['twice', 'order', 'for'])
        """
        if not isinstance(query, str) or not isinstance(document, str):
            raise TypeError("query and document must be str")
        return self._send(Call("POST", "v1/explain", json={"query": query, "document": document,
                                                            "n_top": _whole(n_top)},
                               shape=_answer("explain")))

    # ------------------------------------------------------------------ writes
    def add(self, texts, ids=None, metadata=None):
        """``POST /v1/docs``: add documents, as :meth:`learnsim.index.Index.add`; the service
        answers once they are durable.

        Parameters
        ----------
        texts : list of str
        ids : list of str (or None), optional
            A None entry, or no ids, is numbered by the index.
        metadata : list of dict (or None), optional

        Returns
        -------
        dict
            ``{"ids": [the ids, in order], "added": n, "documents": documents in the index,
            "with_new_words": m, "without_model_terms": z, "warnings": [...]}``: ``m`` of the
            documents hold words the index's vocabulary lacks, which a search finds them by only
            after :meth:`reindex`; ``z`` have no term of the model's vocabulary at all, which
            every search leaves out (``"warnings"`` says each, naming them; empty when both are 0).

        Raises
        ------
        Conflict
            An id already in the index, or given twice (nothing was added).
        Unauthorized
            The service has an API key and this client does not send it (401), or it is read-only (403).

        Notes
        -----
        An add is never sent twice after a broken connection (it may have been applied); it is
        after a 429 or 503 answer, which the service gives only to a request it did not run.

        Examples
        --------
        >>> from learnsim.client import Client
        >>> with Client("http://127.0.0.1:8000", api_key="s3cret") as client:     # doctest: +SKIP
        ...     client.add(["The box was empty when my parcel arrived", "Where is my refund?"],
        ...                ids=["t121", "t122"], metadata=[{"label": "delivery"}, None])
        {'ids': ['t121', 't122'], 'added': 2, 'documents': 122, 'with_new_words': 0, 'without_model_terms': 0, 'warnings': []}
        """
        return self._send(Call("POST", "v1/docs", json={"documents": _documents(texts, ids, metadata)},
                               idempotent=False, shape=_answer("add")))

    def upsert(self, ids, texts, metadata=None):
        """Add or replace documents by id: ``PUT /v1/docs/{id}`` for one (``ids`` and ``texts``
        a str each, ``metadata`` a dict or None), ``POST /v1/docs`` with ``"mode": "upsert"`` for
        lists.

        Returns
        -------
        dict
            The service's answer (``PUT`` answers 201 when it created the document, 200 when
            it replaced one), with ``"with_new_words"``, ``"without_model_terms"`` and ``"warnings"``
            as :meth:`add`'s.

        Raises
        ------
        ClientError
            With ``status == 405`` from a service that has no upsert (an older learnsim).

        Examples
        --------
        >>> from learnsim.client import Client
        >>> client = Client("http://127.0.0.1:8000", api_key="s3cret")   # doctest: +SKIP
        >>> client.upsert("t121", "The parcel arrived empty", {"label": "delivery"})   # doctest: +SKIP
        >>> client.upsert(["t121", "t123"], ["The parcel arrived empty", "My parcel is late"])   # doctest: +SKIP
        """
        if isinstance(ids, str):
            if not isinstance(texts, str):
                raise TypeError("one id takes one text (a str); give lists for several documents")
            if metadata is not None and not isinstance(metadata, dict):
                raise TypeError(f"the metadata of one document is a dict or None; got {type(metadata).__name__}")
            body = {"text": texts} if metadata is None else {"text": texts, "metadata": metadata}
            return self._send(Call("PUT", doc_path(ids), json=body, shape=_answer("put")))
        if ids is None:
            raise ValueError("upsert needs the ids of the documents")
        documents = _documents(texts, ids, metadata)
        if any("id" not in d for d in documents):
            raise ValueError("upsert needs an id for every document")
        return self._send(Call("POST", "v1/docs", json={"documents": documents, "mode": "upsert"},
                               shape=_answer("upsert")))

    def delete(self, doc_id):
        """``DELETE /v1/docs/{id}``: delete one document.

        Returns
        -------
        dict
            ``{"deleted": 1, "documents": documents left}``.

        Raises
        ------
        NotFound
            No live document has the id (also after a retry, when the first try deleted it but
            its answer was lost).
        BadRequest
            No live document has the id, and it is over the 1,000 characters of an id.

        Examples
        --------
        >>> from learnsim.client import Client
        >>> Client("http://127.0.0.1:8000", api_key="s3cret").delete("t121")   # doctest: +SKIP
        {'deleted': 1, 'documents': 121}
        """
        return self._send(Call("DELETE", doc_path(doc_id), shape=_answer("delete")))

    def reindex(self):
        """``POST /v1/reindex``: rebuild the index's rows with the statistics of what it holds now
        (:meth:`learnsim.index.Index.reindex`); never sent twice after a broken connection (it
        may be running still).

        Returns
        -------
        dict
            The index's :meth:`~learnsim.index.Index.info` after it.
        """
        return self._send(Call("POST", "v1/reindex", json={}, idempotent=False, shape=_answer("reindex")))

    def feedback(self, impression, clicked, *, dwell=None, relevance=None):
        """``POST /v1/feedback``: record the results of an answered search that the user followed
        (a service run with ``--learn-from-clicks``); never sent twice after a broken connection
        (a click recorded twice would count twice).

        Parameters
        ----------
        impression : str
            The ``"impression"`` of the search's answer (``"impressions"`` of a batch, one per query).
        clicked : str or list of str
            Ids of the results followed (1 to 100).
        dwell : float, optional
            Seconds spent on the result.
        relevance : float, optional
            An explicit grade.

        Returns
        -------
        dict
            ``{"impression": ..., "recorded": n}``.

        Raises
        ------
        NotFound
            No such impression (unknown, past the log's retention, or a service that records no
            clicks).
        BadRequest
            An id the search did not show, or over a bound (422).

        Examples
        --------
        >>> from learnsim.client import Client
        >>> client = Client("http://127.0.0.1:8000")                           # doctest: +SKIP
        >>> answer = client.search("I paid twice for one order", k=3)          # doctest: +SKIP
        >>> client.feedback(answer["impression"], [answer["hits"][1]["id"]])   # doctest: +SKIP
        {'impression': '9f2c795e6ddaf948b619057c', 'recorded': 1}
        """
        clicked = [clicked] if isinstance(clicked, str) else list(clicked)
        body = {"impression": impression, "clicked": clicked}
        if dwell is not None:
            body["dwell"] = _plain_number(dwell)
        if relevance is not None:
            body["relevance"] = _plain_number(relevance)
        return self._send(Call("POST", "v1/feedback", json=body, idempotent=False, shape=_answer("feedback")))
