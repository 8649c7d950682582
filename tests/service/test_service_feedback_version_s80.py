"""serve --learn-from-clicks when a newer learnsim stamps the click log with its format version
while the service holds it open: the service had gone on writing into it. Now searches are
answered without impressions, clicks are refused (503, ``feedback_log_too_new``, saying to
upgrade, not "damaged ... move the log away"), and ``/healthz`` is degraded naming the version;
nothing answers 500."""
from __future__ import annotations

import shutil
import sqlite3
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from learnsim.feedback import FEEDBACK_FILE  # noqa: E402
from learnsim.feedback._log import FORMAT_VERSION  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
BASE = "http://127.0.0.1"
NEWER = FORMAT_VERSION + 1


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("fb-version-s80") / "idx"
    Index.build(path, model("bm25"), texts[:40], ids[:40], meta[:40]).close()
    return path


@pytest.fixture
def fresh(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    return tmp_path / "idx"


def _stamp(file, checkpoint):
    conn = sqlite3.connect(file)
    try:
        conn.execute(f"PRAGMA user_version = {NEWER}")
        if checkpoint:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


@pytest.mark.parametrize("checkpoint", [False, True])
def test_a_log_stamped_newer_while_served_is_refused_as_such(fresh, checkpoint):
    texts = corpus()[0]
    with TestClient(create_app(fresh, learn_from_clicks=True), raise_server_exceptions=False, base_url=BASE) as c:
        body = c.get("/v1/search", params={"q": texts[0], "k": 3}).json()
        assert body["impression"] is not None
        _stamp(fresh / FEEDBACK_FILE, checkpoint)
        if checkpoint:      # seen from the file's header, before any write
            health = c.get("/healthz")
            assert health.status_code == 200 and health.json()["status"] == "degraded", health.text
            assert f"version {NEWER}" in health.json()["feedback_log"]
        click = c.post("/v1/feedback", json={"impression": body["impression"], "clicked": [body["hits"][0]["id"]]})
        assert click.status_code == 503 and click.json()["code"] == "feedback_log_too_new", click.text
        assert "upgrade" in click.json()["error"] and str(fresh) not in click.text
        later = c.get("/v1/search", params={"q": texts[1], "k": 3})
        assert later.status_code == 200 and later.json()["hits"] and later.json()["impression"] is None
        health = c.get("/healthz")
        assert health.status_code == 200 and health.json()["status"] == "degraded", health.text
        assert f"version {NEWER}" in health.json()["feedback_log"]
        info = c.get("/v1/info").json()["learn_from_clicks"]
        assert info["dropped"].get("too_new") == 1, info
    conn = sqlite3.connect(fresh / FEEDBACK_FILE)
    try:
        assert conn.execute("SELECT COUNT(*) FROM clicks").fetchone()[0] == 0
        assert conn.execute("PRAGMA user_version").fetchone()[0] == NEWER        # left as it is
    finally:
        conn.close()


def _edit(file, sql):
    conn = sqlite3.connect(file)
    try:
        conn.executescript(sql)
    finally:
        conn.close()


def test_a_click_on_an_impression_whose_row_was_damaged_is_the_logs_fault_not_the_callers(fresh):
    """(attack sweep) an impression's row edited under the service ("shown" no JSON list): its
    click was answered 422, as if the caller had sent something wrong, with the log's full path
    on this machine in the message. Now 503 feedback_log_damaged naming the impression, no path."""
    texts = corpus()[0]
    with TestClient(create_app(fresh, learn_from_clicks=True), raise_server_exceptions=False, base_url=BASE) as c:
        body = c.get("/v1/search", params={"q": texts[0], "k": 3}).json()
        _edit(fresh / FEEDBACK_FILE, f"UPDATE impressions SET shown = 'not json' WHERE id = '{body['impression']}'")
        click = c.post("/v1/feedback", json={"impression": body["impression"], "clicked": [body["hits"][0]["id"]]})
        assert click.status_code == 503 and click.json()["code"] == "feedback_log_damaged", click.text
        assert body["impression"] in click.json()["error"] and str(fresh) not in click.text
        other = c.get("/v1/search", params={"q": texts[1], "k": 3}).json()     # the other records are whole
        assert c.post("/v1/feedback", json={"impression": other["impression"],
                                            "clicked": [other["hits"][0]["id"]]}).status_code == 201


def test_a_format_version_no_learnsim_writes_set_while_served_is_damage(fresh):
    """(attack sweep) a negative user_version is damage at the open; set while served, the
    service went on acknowledging clicks into the log. Now it is damage there too."""
    texts = corpus()[0]
    with TestClient(create_app(fresh, learn_from_clicks=True), raise_server_exceptions=False, base_url=BASE) as c:
        body = c.get("/v1/search", params={"q": texts[0], "k": 3}).json()
        _edit(fresh / FEEDBACK_FILE, "PRAGMA user_version = -3")
        click = c.post("/v1/feedback", json={"impression": body["impression"], "clicked": [body["hits"][0]["id"]]})
        assert click.status_code == 503 and click.json()["code"] == "feedback_log_damaged", click.text
        assert "-3" in click.json()["error"]
        health = c.get("/healthz").json()
        assert health["status"] == "degraded" and "-3" in health["feedback_log"], health
