"""What the service says of a request it refuses: the problem named in terms of the request the
caller sent (POST /v1/match's one form, not pydantic's two tries), and ids the schema's pattern
and the server judge alike."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def film(tmp_path_factory):
    """A FILM-pairs index (a model with a duplicate rule, so that /v1/match is served)."""
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("refusals") / "film"
    Index.build(path, model("film_pairs"), texts, ids, meta).close()
    return path


@pytest.fixture(scope="module")
def client(film):
    return TestClient(create_app(film), raise_server_exceptions=False, base_url="http://127.0.0.1")


def _is_422(r):
    assert r.status_code == 422, r.text[:300]
    body = r.json()
    assert body["code"] == 422 and "Traceback" not in r.text
    return body["error"]


@pytest.mark.parametrize("body, names, not_named", [
    # the form is the one whose key the body holds: only its problem is named, by the field's name
    ({"text": "w001", "k": 0}, ["k", "greater than or equal to 1"], ["pairs", "Match"]),
    ({"text": 5}, ["text", "string"], ["pairs", "Match"]),
    ({"text": "w001", "kk": 1}, ["kk"], ["pairs", "Match"]),
    ({"pairs": [["a", "b"]], "k": 3}, ["k", "not permitted"], ["text", "Match"]),
    ({"pairs": [["a"]]}, ["pairs.0.1"], ["text", "Match"]),
    ({"pairs": []}, ["pairs", "at least 1"], ["text", "Match"]),
    # neither key, or both: the two forms, said once
    ({}, ["text", "pairs"], ["Match", "Field required"]),
    ({"texts": "a"}, ["text", "pairs"], ["Match"]),
    ({"text": "a", "pairs": [["a", "b"]]}, ["not both"], ["Match", "Extra inputs"]),
])
def test_a_refused_match_names_the_problem_of_the_form_it_was_sent_in(client, body, names, not_named):
    error = _is_422(client.post("/v1/match", json=body))
    for word in names:
        assert word in error, (body, error)
    for word in not_named:
        assert word not in error, (body, error)


def _patterns(node):
    """Every pattern of a schema: "pattern" values and "patternProperties" keys."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            if key == "patternProperties":
                yield from value
            yield from _patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from _patterns(value)


def test_no_pattern_of_the_schema_takes_a_trailing_newline_the_server_refuses(client):
    """"$" ends a JSON Schema (ECMA-262) pattern at the string's end, but in Python's re, which
    jsonschema, schemathesis and hypothesis read the schema with, it matches before a trailing
    newline as well: include=text\\n and a filter field "topic\\n" passed the documented patterns
    and were refused by the server (422, 400)."""
    schema = client.get("/openapi.json").json()
    import re
    # Python's re has no \\p{L}: its \\w is letters and digits of every script and "_"
    # (and no \\p{M}: the combining marks a name's letters may carry, "cafe\u0301", are these)
    found = {re.sub(r"\[\\p\{L\}\\p\{N\}_-\]", r"[\\w-]", p) for p in _patterns(schema)}
    found = {re.sub(r"\[\\p\{L\}\\p\{N\}\\p\{M\}_-\]", "[\\\\w\u0300-\u036f-]", p) for p in found}
    anchored = [p for p in found if "$" in p.replace("\\$", "")]
    assert len(anchored) >= 3, anchored   # include's, the filter fields', model_version's
    for pattern, valid in (("^v[1-9][0-9]*", "v12"), ("^(text|", "text"), ("^[\\w-][\\w", "topic")):
        (p,) = {p for p in anchored if p.startswith(pattern)}
        assert re.search(p, valid), (p, valid)
        assert re.search(p, valid + "\n") is None, p
    # and the server refuses them, as the schema says
    assert client.get("/v1/search", params={"q": "w001", "include": "text\n"}).status_code == 422
    assert client.get("/v1/search", params={"q": "w001", "filter": '{"topic\\n": 1}'}).status_code == 400
    assert client.get("/v1/search", params={"q": "w001", "include": "text"}).status_code == 200


@pytest.fixture
def counted(film, tmp_path, monkeypatch):
    """A client of a copy of the index that may be written to, and the list of the filters the
    index read the metadata for."""
    import shutil

    from learnsim.index._store import DocumentStore

    path = tmp_path / "film"
    shutil.copytree(film, path)
    reads = []
    original = DocumentStore.filter_plan

    def filter_plan(self, conditions, top_keys=None):
        reads.append(conditions)
        return original(self, conditions, top_keys)

    monkeypatch.setattr(DocumentStore, "filter_plan", filter_plan)
    with TestClient(create_app(path), raise_server_exceptions=False, base_url="http://127.0.0.1") as c:
        yield c, reads


def test_a_refused_filter_is_judged_once_while_the_rows_stay(counted):
    """A filter refused for what the documents hold ('Topic' where they hold 'topic', a value
    condition on a field of lists) read every document's metadata to say so, at every request:
    0.7-1.8 s each at 50,000 documents, a request any caller could repeat. The refusal is kept
    as an accepted filter's rows are, while the rows stay the same."""
    c, reads = counted
    errors = []
    for _ in range(5):
        r = c.get("/v1/search", params={"q": "w001", "filter": '{"Topic": 1}'})
        assert r.status_code == 400, r.text
        errors.append(r.json()["error"])
    assert len(set(errors)) == 1 and "'topic'" in errors[0]
    assert len(reads) == 1
    # a write changes the rows: the filter is judged again, and now a document holds the field
    r = c.put("/v1/docs/new", json={"text": "w001 w002", "metadata": {"Topic": 1}})
    assert r.status_code == 201, r.text
    r = c.get("/v1/search", params={"q": "w001", "filter": '{"Topic": 1}'})
    assert r.status_code == 200, r.text
    assert [h["id"] for h in r.json()["hits"]] == ["new"]
    assert len(reads) == 2


def test_a_refusal_is_kept_for_every_value_of_the_refused_fields(counted):
    """The refusal depends on the fields and the kinds of condition alone: a caller varying the
    value ({"Topic": 1}, {"Topic": 2}, ...) cost a pass over the metadata each time."""
    c, reads = counted
    errors = {_refused(c, {"Topic": n}) for n in range(20)}
    errors |= {_refused(c, {"Topic": {"$in": [n, n + 1]}}) for n in range(20)}
    assert len(errors) == 1 and len(reads) == 1
    # another kind of condition on the field is judged apart (its refusal may differ)
    _refused(c, {"Topic": {"$exists": True}, "topic": {"$contains": 1}})
    assert len(reads) == 2


def _refused(c, filter):
    import json

    r = c.get("/v1/search", params={"q": "w001", "filter": json.dumps(filter)})
    assert r.status_code == 400, r.text
    return r.json()["error"]


def test_refusals_kept_are_bounded(counted):
    from itertools import product

    from learnsim.index._filter_rows import FILTER_CACHE

    c, reads = counted
    # every way of writing the fields in another case: a refusal each, of its own shape
    names = ["".join(cased) for field in ("topic", "half") for cased in product(*((ch, ch.upper()) for ch in field))
             if "".join(cased) != field]
    assert len(names) > FILTER_CACHE
    for name in names:
        _refused(c, {name: 1})
    assert len(reads) == len(names)
    # the oldest were let go: judged again
    _refused(c, {names[0]: 2})
    assert len(reads) == len(names) + 1


@pytest.mark.parametrize("value, says", [
    (1.5, "documents.0.id: Input should be a valid string or a valid integer"),
    (True, "documents.0.id: Input should be a valid string or a valid integer"),
    ("", "documents.0.id: String should have at least 1 character"),
    ("x" * 1001, "documents.0.id: String should have at most 1000 characters"),
    (10 ** 19, "documents.0.id: Input should be less than or equal to"),
])
def test_a_refused_id_is_named_without_the_validators_inner_names(client, value, says):
    """An id is a str or an int (a union): pydantic tried both and said so in its own terms,
    "documents.0.id.constrained-str: ...; documents.0.id.function-before[_whole_number(),
    constrained-int]: Input should be a valid integer", naming a private function of the
    service. The id is named as the request names it, with the problem of the kind it was sent as
    (both kinds where it is neither)."""
    r = client.post("/v1/docs", json={"documents": [{"id": value, "text": "w001"}]})
    error = _is_422(r)
    assert error.startswith(says), error
    for inner in ("constrained", "function-", "_whole_number", ";"):
        assert inner not in error, error
