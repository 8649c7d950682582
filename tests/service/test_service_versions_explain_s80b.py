"""Explained searches (``explain=true``) through promotions and rollbacks made by another process:
every answer is 200 (or the 503 that says to retry), its hits are those of the version it names
(``"model_version"``), and so are its explanations: their kind (``"measure"``: BM25's "score",
MCD's "distance") and their number (the hit's score). An explained search once answered 400 in
79 of 667 requests ("a term-weight model weights the document with the statistics of the
collection ...": a handle kept the old version's model under the new manifest, fixed in
Index.pipeline), and an interleaved answer carried the explanations of another version than the
one it names (its explanations were made by a call after the interleaving's, across a switch)."""
from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from serve_process import running_server  # noqa: E402

from learnsim.index import Index  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SWITCHES = 12          # promotions and rollbacks, one after another, while the searches run
K = 5
MEASURE = {"score": "score", "distance": "distance"}     # the search's score name -> the explanation's measure


def _versions(path, pool, candidate=False):
    """Build the index (v1 BM25, staged v2 MCD, served v1; ``candidate``: v3 staged too): the
    staged v2, the queries, and {version: {query: ({id: score}, score name)}} over ``pool`` hits."""
    texts, _, ids, meta = corpus()
    index = Index.build(path, model("bm25"), texts, ids, meta)
    queries = [" ".join(texts[i].split()[:5]) for i in range(3, len(texts), max(1, len(texts) // 5))][:5]

    def now():
        return {q: ([h["id"] for h in hs], {h["id"]: h["score"] for h in hs}, index.column)
                for q, hs in zip(queries, index.search(queries, pool))}

    expected = {f"v{index.model_version}": now()}
    staged = index.stage(model("mcd"))
    index.promote(staged)
    expected[f"v{index.model_version}"] = now()
    index.rollback()
    if candidate:
        assert index.stage(model("linklearn")) == 3
    index.close()
    assert {name for answers in expected.values() for *_, name in answers.values()} == {"score", "distance"}
    return staged, queries, expected


def _through_switches(path, staged, ask, answers, server_args=()):
    """Run ``ask(base, n, done)`` in 4 clients while another handle promotes ``staged`` and rolls
    back SWITCHES times, some answers between two switches (a bound on the wait, not a timing)."""
    errors, done = [], threading.Event()

    def switch():
        try:
            with Index.open(path) as other:
                for n in range(SWITCHES):
                    other.promote(staged) if n % 2 == 0 else other.rollback()
                    until, wanted = time.monotonic() + 15, len(answers) + 6
                    while len(answers) < wanted and time.monotonic() < until:
                        time.sleep(0.02)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            done.set()

    with running_server(path, *server_args) as base:
        askers = [threading.Thread(target=ask, args=(base, n, done), daemon=True) for n in range(4)]
        for t in askers:
            t.start()
        time.sleep(0.3)
        switcher = threading.Thread(target=switch, daemon=True)
        switcher.start()
        switcher.join(240)
        done.set()
        for t in askers:
            t.join(60)
    assert not errors, errors


def _check_hits(version, expected, q, hits, whole_ranking):
    """The hits are the version's (its ranking, or each one it found with its score) and each
    explanation is of its kind and number."""
    ranking, scores, name = expected[version][q]
    if whole_ranking:
        assert [h["id"] for h in hits] == ranking[:K], (version, q)
    for h in hits:
        assert h["id"] in scores and h["score"] == pytest.approx(scores[h["id"]], rel=1e-5, abs=1e-7), (version, q, h)
        e = h["explanation"]
        assert e["measure"] == MEASURE[name], (version, q, e["measure"])
        assert e["score"] == pytest.approx(h["score"], rel=1e-4, abs=1e-6), (version, q, e["score"], h["score"])


def test_every_explained_answer_through_promote_and_rollback_is_the_version_it_names(tmp_path):
    import httpx

    path = tmp_path / "idx"
    staged, queries, expected = _versions(path, K)
    answers = []

    def ask(base, n, done):
        with httpx.Client(base_url=base, timeout=60) as http:
            i = n
            while not done.is_set():
                q = queries[i % len(queries)]
                i += 1
                if i % 3 == 0:
                    r = http.post("/v1/search", json={"queries": queries, "k": K, "explain": True, "n_top": 3})
                    answers.append((r.status_code, r.json(), queries))
                else:
                    r = http.get("/v1/search", params={"q": q, "k": K, "explain": "true", "n_top": "3"})
                    answers.append((r.status_code, r.json(), [q]))

    _through_switches(path, staged, ask, answers)
    seen, checked = set(), 0
    for status, body, asked in answers:
        if status == 503:            # changed under every try: said, never mixed
            assert "retry" in body["error"], body
            continue
        assert status == 200, body
        version = body["model_version"]
        assert version in expected, body
        seen.add(version)
        results = body["results"] if "results" in body else [body["hits"]]
        for q, hits in zip(asked, results):
            assert body["score"] == expected[version][q][2], (version, body["score"])
            _check_hits(version, expected, q, hits, whole_ranking=True)
        checked += 1
    assert checked >= 50 and seen == set(expected), (checked, seen)


def test_every_interleaved_explained_answer_through_promote_and_rollback_is_the_version_it_names(tmp_path):
    import httpx

    from learnsim.feedback import FeedbackLog

    path = tmp_path / "idx"
    pool = len(corpus()[0])
    staged, queries, expected = _versions(path, pool, candidate=True)
    answers = []

    def ask(base, n, done):
        with httpx.Client(base_url=base, timeout=60) as http:
            i = n
            while not done.is_set():
                q = queries[i % len(queries)]
                i += 1
                r = http.get("/v1/search", params={"q": q, "k": K, "explain": "true", "n_top": "3"})
                answers.append((r.status_code, r.json(), q))

    _through_switches(path, staged, ask, answers,
                      ("--learn-from-clicks", "--interleave", "1", "--interleave-pool", str(pool)))
    with FeedbackLog(path, readonly=True) as log:
        logged = {imp["id"]: imp["model"] for imp in log.impressions()}
    seen, checked = set(), 0
    for status, body, q in answers:
        if status == 503:
            assert "retry" in body["error"], body
            continue
        assert status == 200, body
        version = body["model_version"]
        assert version in expected, body
        assert body["score"] == expected[version][q][2], (version, body["score"])
        _check_hits(version, expected, q, body["hits"], whole_ranking=not body.get("interleaved"))
        if body.get("interleaved"):
            assert body["candidate_version"] == "v3", body
            assert logged[body["impression"]] == f"{version}|v3", (version, logged[body["impression"]])
            seen.add(version)
            checked += 1
        else:
            assert logged[body["impression"]] == version
    assert checked >= 50 and seen == set(expected), (checked, seen)


def test_an_interleaving_explained_by_another_version_is_tried_again_then_left_to_the_plain_search():
    """The rule under the test above, without its timing: explanations labelled with another
    version than the interleaving's are not kept (the search is interleaved again), and after
    the tries the search is answered plainly (None); explanations of its own version are kept."""
    import asyncio

    from learnsim.service._interleaved import interleaved_answer

    v1, v2 = ("v1", (("search", ("score", True)),)), ("v2", (("search", ("distance", False)),))

    def run(interleavings, explainers, explain=True):
        calls = {"interleave": 0}

        async def interleave():
            calls["interleave"] += 1
            return interleavings.pop(0)

        async def explain_into(queries, results, n_top, until):
            version = explainers.pop(0)
            for h in results[0]:
                h["explanation"] = {"by": version[0]}
            return {version}

        got = asyncio.run(interleaved_answer(interleave, explain_into, "q", explain, 3, None, 3))
        return got, calls["interleave"]

    hits = [{"id": "a"}]
    # explained by v2 under an interleaving v1 made, then a try v2 made and explained: that one
    (mixed, label), n = run([([hits], v1), ([[{"id": "b"}]], v2)], [v2, v2])
    assert label == v2 and n == 2 and mixed[0] == [{"id": "b", "explanation": {"by": "v2"}}]
    # every try explained by the other version: no interleaved answer
    assert run([([[{"id": "a"}]], v1)] * 3, [v2] * 3) == ((None, None), 3)
    # no explain, or nothing interleaved: the first try, as it came
    assert run([([hits], v1)], [], explain=False) == (([hits], v1), 1)
    assert run([(None, v1)], []) == ((None, v1), 1)


@pytest.mark.parametrize("interleave", [False, True], ids=["plain", "interleaved"])
def test_every_search_page_through_promote_and_rollback_explains_its_hits_by_the_version_that_found_them(
        tmp_path, interleave):
    """The search page (``/?q=``) explains every hit (its "why" line and its marks) in calls
    after the one that searched: each hit's why must be its version's, a distance's split
    against the empty document under "distance", a score's sum equal to the hit's score."""
    import html as htmllib
    import re

    import httpx

    path = tmp_path / "idx"
    pool = len(corpus()[0])
    staged, queries, expected = _versions(path, pool, candidate=interleave)
    answers = []

    def ask(base, n, done):
        with httpx.Client(base_url=base, timeout=60) as http:
            i = n
            while not done.is_set():
                q = queries[i % len(queries)]
                i += 1
                r = http.get("/", params={"q": q, "k": K})
                answers.append((r.status_code, r.text, q))

    args = ("--learn-from-clicks", "--interleave", "1", "--interleave-pool", str(pool)) if interleave else ()
    _through_switches(path, staged, ask, answers, args)
    checked, kinds = 0, set()
    for status, text, q in answers:
        if status == 503:
            assert "retry" in text, text[-500:]
            continue
        assert status == 200, text[-500:]
        hits = re.findall(r'<li class="hit" data-id="([^"]*)">(.*?)</li>', text, re.S)
        assert len(hits) == K, text[-500:]
        for doc_id, body in hits:
            measure = re.search(r'<span class="measure">(\w+)</span><span class="score"[^>]*>([-\d.e+]+)</span>', body)
            why = re.search(r'<p class="why"[^>]*>(.*?)</p>', body, re.S)
            assert measure and why, body
            kind, score, why = measure.group(1), float(measure.group(2)), htmllib.unescape(why.group(1))
            kinds.add(kind)
            if kind == "distance":
                assert "for an empty document" in why, (q, doc_id, why)
            else:
                total = re.match(r"score ([-\d.e+]+) =", why)
                assert total and float(total.group(1)) == pytest.approx(score, abs=2e-4), (q, doc_id, score, why)
        checked += 1
    assert checked >= 50 and kinds == {"score", "distance"}, (checked, kinds)


def test_a_page_explained_across_a_switch_is_gathered_again_and_refused_after_the_tries():
    """The page's rule without its timing: a view whose gathering or explaining saw two versions
    is gathered and explained again; after the tries there is no page (the service's 503)."""
    import asyncio

    from learnsim.service._page_versions import explained_page

    def run(gatherings, explainers):
        async def gather():
            versions, hits = gatherings.pop(0)
            return {"hits": [dict(h) for h in hits], "_versions": set(versions)}

        async def explain_piece(data, hits):
            version = explainers.pop(0)
            for h in hits:
                h["explanation"] = version
            return version

        return asyncio.run(explained_page(gather, explain_piece, 2, 3))

    three = [{"id": "a"}, {"id": "b"}, {"id": "c"}]
    # the second piece explained by v2, then a gathering that itself saw a switch, then one of v2
    data = run([({"v1"}, three), ({"v1", "v2"}, three), ({"v2"}, three)], ["v1", "v2", "v2", "v2", "v2", "v2"])
    assert [h["explanation"] for h in data["hits"]] == ["v2"] * 3 and "_versions" not in data
    assert run([({"v1"}, three)] * 3, ["v1", "v2"] * 3) is None
    # no hits (the page without a query): nothing to explain
    assert run([({"v1"}, [])], [])["hits"] == []
