"""The loop end to end on a served index: a candidate staged, searches interleaved by the
service, clicks posted, `learnsim index promote` deciding from the log, `/v1/info` and the page
showing the version and the last comparison, `rollback` undoing it."""
from __future__ import annotations

import json
import shutil
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model, staged_index  # noqa: E402

from learnsim.cli import main  # noqa: E402
from learnsim.feedback import FeedbackLog, interleaved_model, promotion_evidence  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    return staged_index(tmp_path_factory.mktemp("interleave"))


@pytest.fixture
def fresh(staged, tmp_path):
    shutil.copytree(staged, tmp_path / "idx")
    return tmp_path / "idx"


def _session(path, prefer, n=40, users=6, **options):
    """n searches through the service, each interleaved, made by ``users`` clients (addresses:
    a promotion needs 5 clients, issue 45); the user clicks the first result the ``prefer``-red
    team ("c" candidate or "s" served) placed. Returns the answers."""
    texts = corpus()[0]
    app = create_app(path, learn_from_clicks=True, interleave=1.0, seed=0, **options)
    answers = []
    with TestClient(app, raise_server_exceptions=False, base_url="http://127.0.0.1") as main_client, \
            FeedbackLog(path, readonly=True) as log:
        by = [TestClient(app, raise_server_exceptions=False, base_url="http://127.0.0.1",
                         client=(f"10.0.0.{u + 1}", 4000)) for u in range(users)]
        for i in range(n):
            c = by[i % users]
            r = c.get("/v1/search", params={"q": texts[(7 * i) % len(texts)], "k": 6})
            assert r.status_code == 200, r.text
            answer = r.json()
            answers.append(answer)
            (imp,) = [x for x in log.impressions() if x["id"] == answer["impression"]]
            picks = [h["id"] for h, team in zip(answer["hits"], imp["teams"] or ()) if team == prefer]
            if picks:
                r = c.post("/v1/feedback", json={"impression": answer["impression"], "clicked": picks[:1]})
                assert r.status_code == 201
        info = main_client.get("/v1/info").json()
    return answers, info


def test_the_service_interleaves_a_staged_candidate(fresh):
    answers, info = _session(fresh, "c", n=12)
    assert all(a.get("interleaved") is True for a in answers)
    with FeedbackLog(fresh, readonly=True) as log:
        logged = list(log.impressions())
    assert {imp["model"] for imp in logged} == {interleaved_model(1, 2)}
    for imp, answer in zip(logged, answers):
        assert imp["shown"] == [h["id"] for h in answer["hits"]]
        assert len(imp["teams"]) == len(imp["shown"]) and abs(imp["teams"].count("s") - imp["teams"].count("c")) <= 1
        assert [h["rank"] for h in answer["hits"]] == list(range(1, len(answer["hits"]) + 1))
    assert info["model_version"] == 1 and info["learn_from_clicks"]["interleave"] == 1.0


def test_without_a_candidate_nothing_is_interleaved(tmp_path):
    texts, _, ids, _ = corpus()
    Index.build(tmp_path / "idx", model("bm25"), texts[:40], ids[:40]).close()
    answers, _ = _session(tmp_path / "idx", "c", n=5)
    assert not any(a.get("interleaved") for a in answers)


def test_promote_reads_the_interleaved_clicks_then_rollback(fresh, capsys):
    _session(fresh, "c", n=40)
    with Index.open(fresh) as index:
        evidence = promotion_evidence(index, index.version_pipeline(2))
    assert evidence["better"] is True and evidence["interleaving"]["wins"] >= 20
    assert evidence["interleaving"]["losses"] == 0 and evidence["candidate_version"] == 2
    assert main(["index", "promote", str(fresh)]) == 0
    assert "Promoted model version 2" in capsys.readouterr().out
    texts = corpus()[0]
    with TestClient(create_app(fresh, learn_from_clicks=True), base_url="http://127.0.0.1") as c:
        info = c.get("/v1/info").json()
        page = c.get("/", params={"q": texts[0]}).text
        answer = c.get("/v1/search", params={"q": texts[0], "k": 3}).json()
    assert info["model_version"] == 2 and info["method"] == "MinimumClusterDistortion"
    assert info["last_comparison"]["version"] == 2 and info["last_comparison"]["better"] is True
    assert "version 2" in page and "last comparison (version 2)" in page
    with FeedbackLog(fresh, readonly=True) as log:
        (imp,) = [x for x in log.impressions() if x["id"] == answer["impression"]]
    assert imp["model"] == "v2" and imp["teams"] is None       # nothing staged now: served alone
    assert main(["index", "rollback", str(fresh)]) == 0
    with Index.open(fresh) as index:
        assert index.model_version == 1 and index.info()["method"] != "MinimumClusterDistortion"


def test_a_candidate_rolled_back_needs_new_evidence_to_serve_again(fresh, tmp_path, capsys):
    """Attack sweep s69, case 3: promoted on its clicks, rolled back, then staged again from its
    file (or named by --version), the candidate was promoted again at once on the same "won, 0
    lost" with no search made since. Its evidence now starts when it is staged again (or, named
    while retired, when it was retired); new interleaved clicks promote it again."""
    _session(fresh, "c", n=40)
    assert main(["index", "promote", str(fresh)]) == 0
    assert main(["index", "rollback", str(fresh)]) == 0
    capsys.readouterr()
    assert main(["index", "promote", str(fresh), "--version", "2", "--json"]) == 1       # retired: no clicks since
    out = json.loads(capsys.readouterr().out)
    assert out["promoted"] is False and out["evidence"]["interleaving"]["searches"] == 0
    model("mcd").save(tmp_path / "cand.npz")
    assert main(["index", "promote", str(fresh), "--model", str(tmp_path / "cand.npz"), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["promoted"] is False and out["version"] == 2 and out["evidence"]["interleaving"]["searches"] == 0
    with Index.open(fresh) as index:
        v2 = index.versions()[1]
        assert index.model_version == 1 and v2["status"] == "candidate"
        assert out["evidence"]["since"] == v2["staged_at"] >= v2["retired_at"] > v2["created"]
    _session(fresh, "c", n=40)                          # new evidence, interleaved since it was staged again
    assert main(["index", "promote", str(fresh)]) == 0
    with Index.open(fresh) as index:
        assert index.model_version == 2


def test_a_candidate_that_loses_is_refused_and_the_finding_kept(fresh, capsys):
    _session(fresh, "s", n=40)
    assert main(["index", "promote", str(fresh), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["promoted"] is False and "loses" in out["reason"]
    with Index.open(fresh) as index:
        versions = index.versions()
        assert index.model_version == 1
    assert versions[1]["status"] == "candidate" and versions[1]["comparison"]["better"] is False
    with TestClient(create_app(fresh), base_url="http://127.0.0.1") as c:
        last = c.get("/v1/info").json()["last_comparison"]
    assert last["version"] == 2 and last["status"] == "candidate" and "loses" in last["reason"]


def test_no_clicks_since_staging_is_no_evidence(fresh):
    with Index.open(fresh) as index:
        evidence = promotion_evidence(index, index.version_pipeline(2))
    assert evidence["better"] is False and "click log" in evidence["reason"]
    _session(fresh, "c", n=3)
    with Index.open(fresh) as index:
        evidence = promotion_evidence(index, index.version_pipeline(2))
    assert evidence["better"] is False and "fewer than" in evidence["reason"]


def test_a_running_service_serves_a_promotion_and_a_rollback(fresh, capsys):
    texts = corpus()[0]
    with TestClient(create_app(fresh, learn_from_clicks=True), base_url="http://127.0.0.1") as c:
        before = c.get("/v1/search", params={"q": texts[0], "k": 3}).json()
        assert main(["index", "promote", str(fresh), "--force"]) == 0          # another process's write
        after = c.get("/v1/search", params={"q": texts[0], "k": 3}).json()
        info = c.get("/v1/info").json()
        assert main(["index", "rollback", str(fresh)]) == 0
        back = c.get("/v1/search", params={"q": texts[0], "k": 3}).json()
    assert info["model_version"] == 2 and info["method"] == "MinimumClusterDistortion"
    assert after["score"] == "distance" and after["higher_is_better"] is False and before["score"] != "distance"
    with Index.open(fresh) as index:
        assert [h["id"] for h in back["hits"]] == [h["id"] for h in index.search(texts[0], 3)]
    assert [h["id"] for h in back["hits"]] == [h["id"] for h in before["hits"]]
    with FeedbackLog(fresh, readonly=True) as log:
        models = [imp["model"] for imp in log.impressions()]
    assert models == ["v1", "v2", "v1"]


def test_a_candidate_that_cannot_load_leaves_searches_whole(fresh):
    (fresh / "versions" / "v2.npz").write_bytes(b"damaged")
    answers, info = _session(fresh, "c", n=4)
    assert not any(a.get("interleaved") for a in answers) and all(a["hits"] for a in answers)
    texts = corpus()[0]
    with TestClient(create_app(fresh, learn_from_clicks=True, interleave=1.0), base_url="http://127.0.0.1") as c:
        assert c.get("/healthz").json()["status"] == "ok"
        assert c.get("/v1/search", params={"q": texts[1]}).status_code == 200


def test_a_candidate_staged_while_the_service_runs_is_interleaved(tmp_path):
    texts, _, ids, _ = corpus()
    path = tmp_path / "idx"
    Index.build(path, model("bm25"), texts[:60], ids[:60]).close()
    with TestClient(create_app(path, learn_from_clicks=True, interleave=1.0, seed=0),
                    base_url="http://127.0.0.1") as c:
        assert "interleaved" not in c.get("/v1/search", params={"q": texts[0], "k": 5}).json()
        with Index.open(path) as other:                  # another handle (or process) stages one
            assert other.stage(model("mcd")) == 2
        assert c.get("/v1/search", params={"q": texts[1], "k": 5}).json().get("interleaved") is True
        with Index.open(path) as other:
            other.promote(2, comparison={"forced": True})
        answer = c.get("/v1/search", params={"q": texts[2], "k": 5}).json()   # nothing staged now
    assert "interleaved" not in answer


def test_a_damaged_versions_file_leaves_searches_whole_and_is_reported(fresh):
    texts = corpus()[0]
    with TestClient(create_app(fresh, learn_from_clicks=True, interleave=1.0, seed=0),
                    base_url="http://127.0.0.1") as c:
        assert c.get("/v1/search", params={"q": texts[0], "k": 5}).json().get("interleaved") is True
        (fresh / "versions" / "versions.json").write_text('{"format": "learnsim-versions", "versions": []}')
        for q in texts[1:5]:
            r = c.get("/v1/search", params={"q": q, "k": 5})
            assert r.status_code == 200 and "interleaved" not in r.json() and r.json()["hits"]
        info = c.get("/v1/info")
        assert info.status_code == 200 and info.json()["last_comparison"]["damaged"] is True
        assert "versions.json" in info.json()["last_comparison"]["reason"] and str(fresh) not in info.text
        page = c.get("/", params={"q": texts[0]})
        assert page.status_code == 200 and "cannot be read" in page.text and str(fresh) not in page.text
        health = c.get("/healthz").json()
        assert health["status"] == "degraded" and "versions.json" in health["damage"]
