"""Upsert over HTTP: PUT /v1/docs/{id} (201 added, 200 replaced) and POST /v1/docs with
"mode": "upsert", with the write rules of every write (key, read-only, JSON, Origin)."""
from __future__ import annotations

import shutil
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
KEY = "upsert-test-key"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("upsert") / "idx"
    Index.build(path, model("bm25"), texts[:20], ids[:20], meta[:20]).close()
    return path


@pytest.fixture
def fresh(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    return tmp_path / "idx"


def _client(path, **options):
    return TestClient(create_app(path, **options), raise_server_exceptions=False, base_url="http://127.0.0.1")


def test_put_adds_then_replaces(fresh):
    texts, _, ids, _ = corpus()
    with _client(fresh) as c:
        r = c.put("/v1/docs/a%2Fb", json={"text": texts[30], "metadata": {"topic": 1}})
        assert r.status_code == 201 and r.json()["added"] == 1 and r.json()["id"] == "a/b"
        r = c.put("/v1/docs/a%2Fb", json={"text": texts[31]})
        assert r.status_code == 200 and (r.json()["added"], r.json()["updated"]) == (0, 1)
        assert r.json()["documents"] == 21
        assert c.get("/v1/docs/a%2Fb").json()["text"] == texts[31]
        r = c.put(f"/v1/docs/{ids[0]}", json={"text": texts[32]})
        assert r.status_code == 200 and r.json()["documents"] == 21
        hits = c.get("/v1/search", params={"q": texts[32], "k": 20}).json()["hits"]
        assert [h["id"] for h in hits].count(ids[0]) == 1 and hits[0]["id"] == ids[0]
        for bad in ({}, {"text": 3}, {"text": "x", "extra": 1}, {"text": "x", "metadata": [1]}):
            r = c.put("/v1/docs/x", json=bad)
            assert r.status_code in (400, 422) and "error" in r.json(), bad
        assert c.put("/v1/docs/x", content=b'{"text": "x"}', headers={"content-type": "text/plain"}).status_code == 415
        # the id bound of POST /v1/docs holds for an id in the path too
        r = c.put("/v1/docs/" + "a" * 1001, json={"text": "x"})
        assert r.status_code == 422 and "at most 1000" in r.json()["error"]
        assert c.put("/v1/docs/" + "a" * 1000, json={"text": "x"}).status_code == 201


def test_post_in_upsert_mode(fresh):
    texts, _, ids, _ = corpus()
    with _client(fresh) as c:
        docs = [{"id": ids[1], "text": texts[40]}, {"id": "99", "text": texts[41]}]
        r = c.post("/v1/docs", json={"documents": docs, "mode": "upsert"})
        assert r.status_code == 201 and (r.json()["added"], r.json()["updated"]) == (1, 1)
        assert r.json()["ids"] == [ids[1], "99"]
        r = c.post("/v1/docs", json={"documents": docs, "mode": "upsert"})
        assert r.status_code == 200 and (r.json()["added"], r.json()["updated"]) == (0, 2)
        # the plain add still refuses an indexed id
        assert c.post("/v1/docs", json={"documents": docs}).status_code == 409
        for bad, code in (({"documents": [docs[0], docs[0]], "mode": "upsert"}, 409),
                          ({"documents": [{"text": "no id"}], "mode": "upsert"}, 422),
                          ({"documents": docs, "mode": "merge"}, 422)):
            r = c.post("/v1/docs", json=bad)
            assert r.status_code == code and "error" in r.json(), bad
        assert c.get("/v1/info").json()["documents"] == 21


def test_put_follows_the_write_rules(fresh):
    with _client(fresh, api_key=KEY) as c:
        assert c.put("/v1/docs/k", json={"text": "w001"}).status_code == 401
        assert c.put("/v1/docs/k", json={"text": "w001"}, headers={"X-API-Key": KEY}).status_code == 201
        r = c.put("/v1/docs/k", json={"text": "w002"}, headers={"X-API-Key": KEY, "Origin": "http://evil.example"})
        assert r.status_code == 403
        schema = c.get("/openapi.json").json()
        put = schema["paths"]["/v1/docs/{doc_id}"]["put"]
        assert put["security"] and {"200", "201", "401", "409"} <= set(put["responses"])
    with _client(fresh, read_only=True) as c:
        assert c.put("/v1/docs/k", json={"text": "w001"}).status_code == 403


def _known_and_new():
    """(a text of words the index knows, a text holding words it lacks): its vocabulary is that
    of the first 20 texts."""
    texts, _, _, _ = corpus()
    return texts[0], texts[0] + " zzqnewword zzqother"


def test_a_write_answers_its_new_words_and_the_log_says_it_once(fresh, caplog):
    """POST /v1/docs (both modes) and PUT answer how many documents hold words the vocabulary
    lacks ("with_new_words", a sentence in "warnings"); the server's log says it once, not at
    every write (a writer posting every 0.1 s flooded it), and the index's own warning is not
    given besides."""
    known, new = _known_and_new()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with caplog.at_level("WARNING", logger="learnsim.service"), _client(fresh) as c:
            r = c.post("/v1/docs", json={"documents": [{"text": known}]})
            assert r.status_code == 201 and r.json()["with_new_words"] == 0 and r.json()["warnings"] == []
            for n in range(1, 13):
                # a count that changes from write to write: each was a line of its own
                docs = [{"text": f"{new} zzq{n}x{i}"} for i in range(n % 4 + 1)] + [{"text": known}]
                r = c.post("/v1/docs", json={"documents": docs})
                assert r.status_code == 201, r.text
                body = r.json()
                assert body["with_new_words"] == n % 4 + 1 and len(body["warnings"]) == 1
                assert f"{n % 4 + 1} of the {n % 4 + 2} document(s)" in body["warnings"][0]
                assert "reindex" in body["warnings"][0]
            r = c.post("/v1/docs", json={"documents": [{"id": "u1", "text": new}], "mode": "upsert"})
            assert r.status_code == 201 and r.json()["with_new_words"] == 1 and r.json()["warnings"]
            r = c.put("/v1/docs/u2", json={"text": new})
            assert r.status_code == 201 and r.json()["with_new_words"] == 1 and r.json()["warnings"]
            r = c.put("/v1/docs/u2", json={"text": known})
            assert r.status_code == 200 and r.json()["with_new_words"] == 0 and r.json()["warnings"] == []
            # a refused write says nothing of its words
            r = c.post("/v1/docs", json={"documents": [{"id": "u1", "text": new}]})
            assert r.status_code == 409 and "with_new_words" not in r.json()
            # what the answer says, a reindex brings in: the same text now has no new word
            assert c.post("/v1/reindex", json={}).status_code == 200
            r = c.post("/v1/docs", json={"documents": [{"text": new}]})
            assert r.json()["with_new_words"] == 0 and r.json()["warnings"] == []
            schema = c.get("/openapi.json").json()
    # one line in full, and at the end the sum of the 13 writes after it
    lines = [rec.getMessage() for rec in caplog.records if "vocabulary lacks" in rec.getMessage()]
    assert len(lines) == 2 and "at most one line every" in lines[0] and "13 write(s)" in lines[1]
    from learnsim.index import NewWordsWarning

    assert not [w for w in caught if issubclass(w.category, NewWordsWarning)]
    for path, method in (("/v1/docs", "post"), ("/v1/docs/{doc_id}", "put")):
        for status in ("200", "201"):
            said = schema["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"]
            assert {"with_new_words", "warnings"} <= set(said["required"]), (path, status)


def test_the_new_words_log_sums_up_at_most_once_a_period(caplog):
    """After its first line the log gives one summary line a period, counting the writes and
    documents since its last line, and the rest at the service's end."""
    from learnsim.service._writes import NewWords

    now = [0.0]
    noted = NewWords(every_s=60, clock=lambda: now[0])
    report = (2, 0, ["zzq"], 5)
    with caplog.at_level("WARNING", logger="learnsim.service"):
        for step in range(10):          # 10 writes in 45 s: the first line alone
            now[0] = step * 5.0
            noted._said(report)
        assert len(caplog.records) == 1 and "2 of the 5 document(s)" in caplog.records[0].getMessage()
        now[0] = 61.0                   # a period after the first line: one summary of the 10 since
        noted._said(report)
        assert len(caplog.records) == 2 and "10 write(s)" in caplog.records[1].getMessage()
        assert "20 document(s)" in caplog.records[1].getMessage()
        now[0] = 62.0
        noted._said(report)
        noted._said(report)
        assert len(caplog.records) == 2
        noted.flush()
        assert len(caplog.records) == 3 and "2 write(s)" in caplog.records[2].getMessage()
        noted.flush()                   # nothing more to tell
        assert len(caplog.records) == 3


@pytest.mark.parametrize("name,text", [("mcd", "zzunknown{n}"), ("bm25", "x")])
def test_a_write_of_documents_with_no_term_of_the_model_answers_it_and_the_log_says_it_once(
        tmp_path, caplog, name, text):
    """A document with no term of the model's vocabulary (any unseen word under a distance model,
    "x" under BM25) is left out of every search: the index's warning of it named its ids, so each
    write was a log line of its own (and an entry of the warnings registry) while the answer said
    nothing. Now the answer counts it ("without_model_terms", a sentence in "warnings"), and the
    log says it once, then sums up."""
    texts, _, ids, meta = corpus()
    Index.build(tmp_path / "idx", model(name), texts[:20], ids[:20], meta[:20]).close()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with caplog.at_level("WARNING", logger="learnsim.service"), _client(tmp_path / "idx") as c:
            for n in range(10):
                r = c.post("/v1/docs", json={"documents": [{"text": text.format(n=n)}]})
                assert r.status_code == 201, r.text
                body = r.json()
                assert body["without_model_terms"] == 1, body
                assert any("no term of the model's vocabulary" in w and repr(body["ids"][0]) in w
                           for w in body["warnings"]), body
            r = c.put("/v1/docs/p1", json={"text": text.format(n=99)})
            assert r.status_code == 201 and r.json()["without_model_terms"] == 1
            r = c.post("/v1/docs", json={"documents": [{"text": texts[30]}]})
            assert r.status_code == 201 and r.json()["without_model_terms"] == 0
            schema = c.get("/openapi.json").json()
    lines = [rec.getMessage() for rec in caplog.records if "no term of the model's vocabulary" in rec.getMessage()]
    # 11 writes: the first in full, the 10 after it summed up at the end
    assert len(lines) == 2 and "at most one line every" in lines[0] and "10 write(s)" in lines[1], lines
    assert not [w for w in caught if "no term of the model's vocabulary" in str(w.message)]
    said = schema["paths"]["/v1/docs"]["post"]["responses"]["201"]["content"]["application/json"]["schema"]
    assert "without_model_terms" in said["required"]
