"""The search page's address says what it shows, or the page refuses it (400, its error page):
a parameter it does not take (``filter``, ``offset``: the API's, which the page ignored, so
``/?q=...&filter={"topic": 1}`` showed unfiltered hits as if filtered) and two views at once
(``q`` with ``similar``: the search was shown and the similar view dropped) were answered as
if they had not been there."""
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
def page(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("page-params") / "film"
    Index.build(path, model("film_pairs"), texts[:60], ids[:60], meta[:60]).close()
    with TestClient(create_app(path), raise_server_exceptions=False, base_url="http://127.0.0.1") as c:
        yield c, texts, ids


@pytest.mark.parametrize("extra,words", [
    ({"filter": '{"topic": 1}'}, ["'filter'", "/v1/search"]),
    ({"offset": "10"}, ["'offset'"]),
    ({"Q": "w001"}, ["'Q'"]),
    ({"similar": "ID"}, ["one view", "similar"]),
    ({"duplicates": "ID"}, ["one view", "duplicates"]),
])
def test_a_page_address_the_page_cannot_honour_is_refused(page, extra, words):
    c, texts, ids = page
    params = {"q": texts[0][:40], **{k: ids[1] if v == "ID" else v for k, v in extra.items()}}
    r = c.get("/", params=params)
    assert r.status_code == 400 and r.headers["content-type"].startswith("text/html"), r.status_code
    for word in words:
        assert word.replace("'", "&#x27;") in r.text or word in r.text, (word, r.text[-800:])


def test_similar_and_duplicates_together_are_refused(page):
    c, _, ids = page
    assert c.get("/", params={"similar": ids[1], "duplicates": ids[1]}).status_code == 400


@pytest.mark.parametrize("params", [
    {"q": "w001 w002"}, {"q": "w001", "k": "5"}, {"q": "w001", "fragment": "1"}, {"similar": "ID", "k": "5"},
    {"duplicates": "ID"}, {}, {"q": "", "similar": "ID"},
])
def test_what_the_page_itself_sends_is_shown(page, params):
    c, _, ids = page
    r = c.get("/", params={k: ids[1] if v == "ID" else v for k, v in params.items()})
    assert r.status_code == 200, r.text[-500:]
