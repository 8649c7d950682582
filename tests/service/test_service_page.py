"""The search page of learnsim serve (``GET /``, learnsim.service.page): hits in the index's order
with their scores, the words that made each score marked, links to similar documents and
near-duplicates, the model and the collection's size and staleness; searching without
JavaScript; document text escaped; nothing loaded from outside; errors as pages."""
from __future__ import annotations

import html
import re
import shutil
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model, near_duplicate  # noqa: E402

from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402
from learnsim.service.page import marked  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# the Host the test client sends: a name the service answers for (it refuses "testserver")
BASE = "http://127.0.0.1"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    root = tmp_path_factory.mktemp("page")
    Index.build(root / "mcd", model("mcd"), texts, ids, meta).close()
    Index.build(root / "bm25", model("bm25"), texts, ids, meta).close()
    dup = near_duplicate(texts[100], seed=100)
    Index.build(root / "film", model("film_pairs"), texts + [dup], ids + ["dup100"],
                meta + [{"topic": meta[100]["topic"]}]).close()
    return root


def _client(path):
    return TestClient(create_app(path), raise_server_exceptions=False, base_url=BASE)


@pytest.fixture(scope="module")
def film(built):
    return _client(built / "film")


def _hits(page):
    """(id, score text, text html) of each hit of a page, in order."""
    return re.findall(r'<li class="hit" data-id="([^"]*)">.*?<span class="score"[^>]*>([^<]*)</span>.*?'
                      r'<p class="text">(.*?)</p>', page, flags=re.S)


def _marked_words(text_html):
    return [html.unescape(m) for m in re.findall(r"<mark>(.*?)</mark>", text_html)]


def test_the_empty_page_is_a_form_get_with_the_model_and_the_collection(film):
    r = film.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    page = r.text
    form = re.search(r'<form id="search" action="/" method="get"[^>]*>(.*?)</form>', page, flags=re.S)
    assert form and 'name="q"' in form.group(1)   # searching needs no script: a plain form GET
    assert "FILM" in page and f"{len(corpus()[0]) + 1:,} documents" in page
    assert "statistics up to date" in page


def test_hits_are_the_index_order_with_scores_and_marked_words(built, film):
    texts, _, ids, _ = corpus()
    query = texts[7]
    page = film.get("/", params={"q": query, "k": 5}).text
    api = film.get("/v1/search", params={"q": query, "k": 5}).json()["hits"]
    hits = _hits(page)
    assert [h[0] for h in hits] == [h["id"] for h in api]
    assert [float(h[1]) for h in hits] == pytest.approx([h["score"] for h in api], abs=1e-4)
    # the best hit is the query's own text: its marked words are words of the query with a
    # positive share of the score, and the explanation lists them
    words = _marked_words(hits[0][2])
    assert words and set(w.lower() for w in words) <= set(query.lower().split())
    explanation = film.get("/v1/search", params={"q": query, "k": 1, "explain": "true"}).json()["hits"][0]["explanation"]
    positive = {w["word"] for w in explanation["words"] if w["contribution"] > 0}
    assert positive <= {w.lower() for w in words}
    assert '<p class="why">' in page


def test_a_distance_model_marks_the_words_shared_with_the_query(built):
    texts = corpus()[0]
    query = " ".join(texts[11].split()[:4])
    page = _client(built / "mcd").get("/", params={"q": query}).text
    hits = _hits(page)
    assert hits
    marked_any = False
    for _, _, text_html in hits:
        words = _marked_words(text_html)
        assert set(w.lower() for w in words) <= set(query.lower().split())
        marked_any |= bool(words)
    assert marked_any


def test_links_to_similar_documents_and_near_duplicates(built, film):
    texts, _, ids, _ = corpus()
    page = film.get("/", params={"q": texts[100], "k": 3}).text
    assert f'href="/?similar={ids[100]}"' in page and f'href="/?duplicates={ids[100]}"' in page
    similar = film.get("/", params={"similar": ids[100], "k": 5}).text
    got = [h[0] for h in _hits(similar)]
    api = film.get(f"/v1/docs/{ids[100]}/similar", params={"k": 5}).json()["hits"]
    assert got == [h["id"] for h in api] and ids[100] not in got
    dupes = film.get("/", params={"duplicates": ids[100]}).text
    found = _hits(dupes)
    assert found and found[0][0] == "dup100" and found[0][1].startswith("p = ")
    # a model without a duplicate rule: no such link, and the view says why
    mcd = _client(built / "mcd")
    assert "?duplicates=" not in mcd.get("/", params={"q": texts[3]}).text
    assert "no duplicate rule" in mcd.get("/", params={"duplicates": ids[3]}).text


def test_document_text_ids_and_metadata_are_escaped(built, tmp_path):
    path = tmp_path / "idx"
    shutil.copytree(built / "bm25", path)
    c = _client(path)
    evil = '<script>alert("x")</script> <img src=x onerror=alert(1)> w001 w002'
    doc_id = '"><script>alert(2)</script>'
    r = c.post("/v1/docs", json={"documents": [{"id": doc_id, "text": evil,
                                                 "metadata": {"note": "<b onmouseover=alert(3)>hi</b>"}}]})
    assert r.status_code == 201
    page = c.get("/", params={"q": "w001 w002 script alert", "k": 3}).text
    assert "<script>alert" not in page and "<img src=x" not in page and "<b onmouseover" not in page
    assert "&lt;script&gt;" in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert page.count("<script") == 1   # the page's own script, from /static
    # the whole page, including the escaped id in the links, parses back to the same id
    assert html.escape(doc_id, quote=True) in page


def test_control_characters_are_not_put_into_the_page(built, tmp_path):
    # HTML forbids U+0000 and the other controls (a parse error, each browser reads them its
    # own way): GET /?q=w001%00 put a raw U+0000 in the title, the form and the results
    path = tmp_path / "idx"
    shutil.copytree(built / "bm25", path)
    c = _client(path)
    r = c.post("/v1/docs", json={"documents": [{"id": "c\x01", "text": "w001 w002 bell\x07 nul\x00 c1\x85"}]})
    assert r.status_code == 201
    for params in ({"q": "w001\x00"}, {"q": "w001 w002 bell\x07\x1b", "k": 20}):
        r = c.get("/", params=params)
        assert r.status_code == 200
        assert not re.search("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]", r.text), params
        assert "\ufffd" in r.text


def test_the_json_link_of_an_id_of_dots_reaches_that_document(built, tmp_path):
    # a browser removes the dot segments of a link's path before it follows it (RFC 3986,
    # 5.2.4): /v1/docs/.. was /v1/, and /v1/docs/. the id '' (404); such ids go as %2E, as the
    # client sends them
    from urllib.parse import urljoin

    path = tmp_path / "idx"
    shutil.copytree(built / "bm25", path)
    c = _client(path)
    ids = [".", "..", "...", "a.b"]
    r = c.post("/v1/docs", json={"documents": [{"id": i, "text": f"w001 w002 dots {n}"} for n, i in enumerate(ids)]})
    assert r.status_code == 201
    page = c.get("/", params={"q": "w001 w002 dots", "k": 10}).text
    links = dict(re.findall(r'<li class="hit" data-id="([^"]*)">.*?<a class="json" href="([^"]*)">', page, flags=re.S))
    for doc_id in ids:
        followed = urljoin(f"{BASE}/?q=w001", html.unescape(links[doc_id]))   # as a browser resolves it
        r = c.get(followed)
        assert r.status_code == 200 and r.json()["id"] == doc_id, (doc_id, followed, r.text[:200])


def test_fragment_is_the_results_alone(film):
    texts = corpus()[0]
    r = film.get("/", params={"q": texts[2], "fragment": "1"})
    assert r.status_code == 200 and "<html" not in r.text and '<ol class="hits">' in r.text


def test_page_errors_are_pages_with_a_status(film):
    r = film.get("/", params={"q": "w001", "k": "many"})
    assert r.status_code == 400 and "k must be a whole number" in r.text and "<form" in r.text
    assert film.get("/", params={"q": "w001", "k": 0}).status_code == 400
    # digits str.isdigit takes and int() refuses or reads otherwise: a 500 before
    for k in ("\u00b2", "\u0663", "\uff13", "9" * 5000):
        r = film.get("/", params={"q": "w001", "k": k})
        assert r.status_code == 400 and "k must be a whole number" in r.text, (k[:10], r.status_code)
    assert film.get("/", params={"similar": "no such id"}).status_code == 404
    r = film.get("/", params={"q": "w001 " * 4000})
    assert r.status_code == 413 and "longer than" in r.text
    assert film.get("/", params={"similar": "%FF"}).status_code == 404


def test_nothing_is_loaded_from_outside(film):
    texts = corpus()[0]
    page = film.get("/", params={"q": texts[4]}).text
    policy = film.get("/").headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy
    for ref in re.findall(r'(?:src|href|action)="([^"]*)"', page):
        assert ref.startswith("/"), ref   # no scheme, no host: this service only
    for name, kind in (("page.css", "text/css"), ("page.js", "text/javascript")):
        r = film.get(f"/static/{name}")
        assert r.status_code == 200 and r.headers["content-type"].startswith(kind)
        assert not re.search(r"https?://|url\(\s*['\"]?//", r.text)
    assert film.get("/static/..%2Fapp.py").status_code == 404
    assert film.get("/static/app.py").status_code == 404
    # FastAPI's /redoc loads its script from a CDN: it is off; /docs is served here, from here
    # (test_the_api_documentation_is_served_here)
    assert film.get("/redoc").status_code == 404
    docs = film.get("/docs")
    if docs.status_code == 200:
        assert all(ref.startswith("/") for ref in re.findall(r'(?:src|href)="([^"]*)"', docs.text))


def test_marked_escapes_and_cuts():
    text = "a <b> & c"
    assert marked(text, [(0, 1), (2, 5)]) == "<mark>a</mark> <mark>&lt;b&gt;</mark> &amp; c"
    assert marked(text, [(2, 5), (3, 4)]) == "a <mark>&lt;b&gt;</mark> &amp; c"   # overlap: the first wins
    assert marked("abcdef", [(4, 6)], limit=5) == "abcd<mark>e</mark>&hellip;"
    assert marked("abc", [(7, 9)]) == "abc"


def _head(page):
    """(measure label, score, direction label) of each hit's head."""
    return re.findall(r'<div class="head"><span class="rank">\d+</span>(?:<span class="measure">([^<]*)</span>)?'
                      r'<span class="score"[^>]*>([^<]*)</span>(?:<span class="direction">([^<]*)</span>)?', page)


def test_a_distance_reads_as_a_distance_and_a_similarity_as_a_similarity(built, film):
    """Issue 32, part 5: a distance model's hits say "distance", lower is closer, and their
    explanations split the distance against an empty document (what brings the hit closer
    first); a similarity model's hits say "similarity"."""
    texts = corpus()[0]
    page = _client(built / "mcd").get("/", params={"q": texts[11], "k": 3}).text
    heads = _head(page)
    assert len(heads) == 3 and all(m == "distance" and d == "lower is closer" for m, _, d in heads)
    assert "(lower is closer)" in page.split('<ol class="hits">')[0]
    why = re.findall(r'<p class="why"[^>]*>(.*?)</p>', page, flags=re.S)
    assert len(why) == 3 and all("for an empty document" in w and "brings it closer" in w for w in why)
    # the hit that is the query's own text: its words bring it closer (negative, listed first)
    first = re.findall(r'<span class="w">[^<]*</span> ([+-][0-9.]+)', why[0])
    assert first and float(first[0]) < 0
    page = film.get("/", params={"q": texts[11], "k": 3}).text
    heads = _head(page)
    assert heads and all(m in ("similarity", "") for m, _, d in heads) and not any(d for _, _, d in heads)
    assert "lower is closer" not in page


def test_re_ranked_hits_keep_their_probability():
    from learnsim.service.page import render_results

    data = {"q": "my password", "k": 10, "similar": None, "duplicates": None, "kind": "cosine",
            "scoring": "cosine in the learned space", "column": "similarity", "can_match": True,
            "method": "FILM", "source": None, "info": {"documents": 6},
            "hits": [{"rank": 1, "id": "b", "score": 0.93, "first_stage_rank": 3, "first_stage_score": 0.41,
                      "text": "forgot my password", "metadata": None, "marks": []}]}
    page = render_results(data)
    assert _head(page) == [("", "p = 0.930", "")]
    assert "re-ranked by the learned pair model" in page
    data["kind"], data["column"] = "distance", "distance"
    assert _head(render_results(data)) == [("", "p = 0.930", "")]


def test_the_api_documentation_is_served_here(built, monkeypatch):
    pytest.importorskip("fastapi_offline", reason="/docs needs fastapi-offline (in the serve and test extras)")
    from learnsim.service import _docs

    c = _client(built / "bm25")
    page = c.get("/docs")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self';" in csp
    # every script and style the page loads is this service's own, and each is there
    refs = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert refs and all(r.startswith("/docs/") for r in refs)
    assert "<script>" not in page.text            # no inline script: the policy would block it
    for ref in refs:
        r = c.get(ref)
        assert r.status_code == 200 and len(r.content) > 0, ref
    assert b"SwaggerUIBundle" in c.get("/docs/static/swagger-ui-bundle.js").content
    for name in ("../page.js", "nope.js", "%2e%2e%2fapp.py"):
        r = c.get(f"/docs/static/{name}")
        assert r.status_code == 404 and r.headers["content-type"].startswith("application/json"), name
    # the schema it shows is the service's, which stays out of its own paths
    assert "/docs" not in c.get("/openapi.json").json()["paths"]
    # without Swagger UI's files: a JSON 404 that says what to install
    monkeypatch.setattr(_docs, "docs_assets", lambda: None)
    r = _client(built / "bm25").get("/docs")
    assert r.status_code == 404 and "fastapi-offline" in r.json()["error"]


def test_what_users_and_documents_wrote_is_isolated_from_the_pages_own_text(film):
    """A right-to-left override (U+202E) in a query reordered the page's words after it (its
    summary, its title): the query is in a <bdi>, the title's between isolates, and the page's
    style isolates ids, texts and metadata."""
    q = "\u202egnp.exe w001"
    page = film.get("/", params={"q": q}).text
    assert f"&ldquo;<bdi>{q}</bdi>&rdquo;" in page
    assert f"<title>\u2068{q}\u2069 - learnsim</title>" in page
    css = film.get("/static/page.css").text
    assert "unicode-bidi: isolate" in css and ".doc-id" in css.split("unicode-bidi: isolate")[0].rsplit("\n", 1)[-1]


def test_a_long_hit_is_marked_where_the_page_shows_it(tmp_path):
    # the page shows a hit's first SHOWN_CHARS: its words are marked there alone (a whole long
    # text written with Turkish İ took 0.7 s for 200,000 characters to mark)
    import learnsim
    from learnsim.service.page import MARK_MARGIN, SHOWN_CHARS, gather

    texts = ["İstanbul password reset " * 4000, "forgot my password", "I was charged twice",
             "refund for a double charge", "app crashes on start", "crash after the update"]
    model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2], baseline_holdout=None)
    with Index.build(tmp_path / "index", model, texts) as index:
        data = gather(index, q="password reset", k=1)
    hit = data["hits"][0]
    assert hit["text"] == texts[0] and hit["marks"]
    assert max(b for _, b in hit["marks"]) <= SHOWN_CHARS + MARK_MARGIN
    shown = [(a, b) for a, b, _ in model.term_spans(texts[0]) if b <= SHOWN_CHARS]
    assert set(shown) >= {m for m in hit["marks"] if m[1] <= SHOWN_CHARS} and len(hit["marks"]) >= 2


def test_a_source_whose_spans_cannot_be_given_still_marks_its_hits(tmp_path):
    # the terms a distance model marks are the source's as the tokenizer reads it: taken from its
    # spans, a source with no spans (a Hebrew acronym typed with an ASCII quote, read by its
    # neighbours, beside Turkish İ) marked no hit at all
    import learnsim
    from learnsim.service.page import gather

    texts = ["password reset \u05e6\u05d4\"\u05dc İstanbul", "forgot my password", "I was charged twice",
             "refund for a double charge", "app crashes on start", "crash after the update"]
    model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2], baseline_holdout=None)
    assert model.term_spans(texts[0]) == [] and "password" in model.terms(texts[0])
    with Index.build(tmp_path / "index", model, texts, ids=list("abcdef")) as index:
        data = gather(index, similar="a", k=5)
    assert data["kind"] == "distance"
    hit = next(h for h in data["hits"] if h["id"] == "b")
    assert hit["marks"] == [(10, 18)]
