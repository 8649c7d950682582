"""The OpenAPI schema's pattern for a text with something to search (a query, a text matched, a
document's text) says what the server takes, read as JSON Schema reads a pattern (ECMA-262's
dialect; jsonschema_rs, which schemathesis checks answers with, reads it as the server's tests
do here). It was Python's ``[^\\W_]``, whose ``\\W`` is ASCII-only in ECMA-262 and in
jsonschema_rs: a validating client refused every query without an ASCII letter or digit,
"αβγ", "中文", "café" aside, which the server searches (schemathesis, 2,342 cases against
``learnsim serve``: "Schema-violating request accepted" for a q of "\u00aeØ=")."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
jsonschema_rs = pytest.importorskip("jsonschema_rs")

from index_models import corpus, model  # noqa: E402

from learnsim._utils.inputs import has_content  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SAMPLES = ["w001", "αβγ", "中文", "café", "Ø", "e\u0301", "٣", "Ⅻ", "👍", "⼈⼝", "#️⃣", "🇫🇷", "a_b",
           "", "   ", "_", "!?", "\u0301", "---", "\u00ae=", "\u200b"]


@pytest.fixture(scope="module")
def schema(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("dialect") / "film"
    Index.build(path, model("film_pairs"), texts[:60], ids[:60], meta[:60]).close()
    with TestClient(create_app(path), raise_server_exceptions=False, base_url="http://127.0.0.1") as c:
        return c.get("/openapi.json").json()


def _text_patterns(node):
    """The patterns of the schema's texts with something to search (they hold the letters' class)."""
    if isinstance(node, dict):
        pattern = node.get("pattern")
        if isinstance(pattern, str) and "\\u20e3" in pattern:
            yield pattern
        for value in node.values():
            yield from _text_patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from _text_patterns(value)


def test_the_schema_says_which_texts_the_server_searches(schema):
    patterns = set(_text_patterns(schema))
    assert patterns, "no pattern of a text with something to search in the schema"
    for pattern in patterns:
        validator = jsonschema_rs.validator_for({"type": "string", "pattern": pattern})
        for text in SAMPLES:
            assert validator.is_valid(text) == has_content(text), (text, pattern)
