"""Versions switch atomically (issue 45, part 3): every answer of the service is produced by one
model version and names it (``"model_version"``). Searches run while another handle promotes
and rolls back, over and over; each answer must be exactly what the version it names answers,
ranking and score name alike (the two versions here score differently: BM25's "score", and
MCD's "distance")."""
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


def _answer(index, queries):
    """{query: (ids, score name)} as a quiet handle answers them now."""
    hits = index.search(queries, K)
    return {q: ([h["id"] for h in hs], index.column) for q, hs in zip(queries, hits)}


def test_every_answer_through_promote_and_rollback_is_the_version_it_names(tmp_path):
    texts, _, ids, meta = corpus()
    path = tmp_path / "idx"
    index = Index.build(path, model("bm25"), texts, ids, meta)
    queries = [" ".join(texts[i].split()[:5]) for i in range(3, len(texts), max(1, len(texts) // 5))][:5]
    expected = {f"v{index.model_version}": _answer(index, queries)}
    staged = index.stage(model("mcd"))
    index.promote(staged)
    expected[f"v{index.model_version}"] = _answer(index, queries)
    index.rollback()
    assert len(expected) == 2 and {name for answers in expected.values() for _, name in answers.values()} == \
        {"score", "distance"}

    answers, errors, done = [], [], threading.Event()

    def switch():
        try:
            with Index.open(path) as other:
                for n in range(SWITCHES):
                    other.promote(staged) if n % 2 == 0 else other.rollback()
                    time.sleep(0.05)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            done.set()

    def ask(base, n):
        # several clients at once: one's search may end while another's call loads the next version
        import httpx

        with httpx.Client(base_url=base, timeout=30) as http:
            i = n
            while not done.is_set():
                q = queries[i % len(queries)]
                i += 1
                if i % 3 == 0:
                    r = http.post("/v1/search", json={"queries": queries, "k": K})
                    got = (r.status_code, r.json(), queries)
                else:
                    r = http.get("/v1/search", params={"q": q, "k": K})
                    got = (r.status_code, r.json(), [q])
                answers.append(got)

    with running_server(path) as base:
        askers = [threading.Thread(target=ask, args=(base, n), daemon=True) for n in range(4)]
        for t in askers:
            t.start()
        time.sleep(0.3)
        switcher = threading.Thread(target=switch, daemon=True)
        switcher.start()
        switcher.join(120)
        for t in askers:
            t.join(30)
    assert not errors, errors
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
        for query, hits in zip(asked, results):
            ids_expected, name = expected[version][query]
            assert [h["id"] for h in hits] == ids_expected, (version, query)
            assert body["score"] == name, (version, body["score"])
        checked += 1
    assert checked >= 50 and seen == set(expected), (checked, seen)


def test_every_interleaved_answer_through_promote_and_rollback_names_the_versions_that_made_it(tmp_path):
    """The same switches under searches that are all interleaved with a staged candidate (v3):
    the interleaving read the served version before its search saw the switch, so the answer
    said one version and its impression was logged under the other's pair ("v1|v3" for v2's
    ranking). Each interleaved answer is now the served ranking of the version it names, its
    candidate named too, and its impression is logged under exactly those two."""
    import httpx

    from learnsim.feedback import FeedbackLog

    texts, _, ids, meta = corpus()
    path = tmp_path / "idx"
    index = Index.build(path, model("bm25"), texts, ids, meta)
    queries = [" ".join(texts[i].split()[:5]) for i in range(3, len(texts), max(1, len(texts) // 5))][:5]
    pool = len(texts)

    def scores_now():
        return {q: ({h["id"]: h["score"] for h in hs}, index.column) for q, hs in zip(queries, index.search(queries, pool))}

    expected = {f"v{index.model_version}": scores_now()}
    staged = index.stage(model("mcd"))
    index.promote(staged)
    expected[f"v{index.model_version}"] = scores_now()
    index.rollback()
    candidate = index.stage(model("linklearn"))
    assert candidate == 3 and len(expected) == 2
    index.close()

    answers, errors, done = [], [], threading.Event()

    def switch():
        try:
            with Index.open(path) as other:
                for n in range(SWITCHES):
                    other.promote(staged) if n % 2 == 0 else other.rollback()
                    # some answers between two switches, however slow the machine (an
                    # interleaved search re-scores the pool): a bound on the wait, not a timing
                    until, wanted = time.monotonic() + 15, len(answers) + 6
                    while len(answers) < wanted and time.monotonic() < until:
                        time.sleep(0.02)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            done.set()

    def ask(base, n):
        with httpx.Client(base_url=base, timeout=30) as http:
            i = n
            while not done.is_set():
                q = queries[i % len(queries)]
                i += 1
                r = http.get("/v1/search", params={"q": q, "k": K})
                answers.append((r.status_code, r.json(), q))

    with running_server(path, "--learn-from-clicks", "--interleave", "1", "--interleave-pool", str(pool)) as base:
        askers = [threading.Thread(target=ask, args=(base, n), daemon=True) for n in range(4)]
        for t in askers:
            t.start()
        time.sleep(0.3)
        switcher = threading.Thread(target=switch, daemon=True)
        switcher.start()
        switcher.join(120)
        for t in askers:
            t.join(30)
    assert not errors, errors
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
        scores, name = expected[version][q]
        assert body["score"] == name, (version, body["score"])
        for h in body["hits"]:
            # every hit is one the version named found, with its score (a candidate's pick too)
            assert h["id"] in scores and h["score"] == pytest.approx(scores[h["id"]], rel=1e-6, abs=1e-9), \
                (version, q, h)
        if body.get("interleaved"):
            assert body["candidate_version"] == f"v{candidate}", body
            assert logged[body["impression"]] == f"{version}|v{candidate}", (version, logged[body["impression"]])
            seen.add(version)
            checked += 1
        else:
            assert logged[body["impression"]] == version
    assert checked >= 50 and seen == set(expected), (checked, seen)
