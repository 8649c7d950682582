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
    found = {re.sub(r"\[\\p\{L\}\\p\{N\}_-\]", r"[\\w-]", p) for p in _patterns(schema)}
    anchored = [p for p in found if "$" in p.replace("\\$", "")]
    assert len(anchored) >= 3, anchored   # include's, the filter fields', model_version's
    for pattern, valid in (("^v[1-9][0-9]*", "v12"), ("^(text|", "text"), ("^[\\w-]+", "topic")):
        (p,) = {p for p in anchored if p.startswith(pattern)}
        assert re.search(p, valid), (p, valid)
        assert re.search(p, valid + "\n") is None, p
    # and the server refuses them, as the schema says
    assert client.get("/v1/search", params={"q": "w001", "include": "text\n"}).status_code == 422
    assert client.get("/v1/search", params={"q": "w001", "filter": '{"topic\\n": 1}'}).status_code == 400
    assert client.get("/v1/search", params={"q": "w001", "include": "text"}).status_code == 200

