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
