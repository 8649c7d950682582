"""A click whose commit reached the click log, and whose write-ahead file (``feedback.sqlite-wal``
or ``-shm``) was removed between that commit and the damage check after it (from the sweep of
issue 45's recording): it was answered 503 although the rescue of the removed WAL had copied it
into the log's own file. The client then believes a saved click lost, or retries it on a new log
and counts it twice. Now the click is acknowledged (201) when the rescue copied it into the log's
file, the damage is reported by ``/healthz`` and the next write is refused; when the rescue could
not copy it, it is refused (503) as before."""
from __future__ import annotations

import os
import shutil
import sqlite3
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from learnsim.feedback import FEEDBACK_FILE, FeedbackLog  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
BASE = "http://127.0.0.1"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("fb-wal-s80") / "idx"
    Index.build(path, model("bm25"), texts[:40], ids[:40], meta[:40]).close()
    return path


@pytest.fixture
def fresh(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    return tmp_path / "idx"


class _RemovedAtCommit:
    """The log's connection, which removes a file just after the next COMMIT returns (the
    window between a write's commit and the damage check after it); ``fail_checkpoint``: the
    rescue's checkpoint then fails as well."""

    def __init__(self, conn, victim, fail_checkpoint=False):
        self._conn, self.victim, self.fail_checkpoint, self.armed = conn, victim, fail_checkpoint, False

    def execute(self, sql, *args):
        if self.fail_checkpoint and "wal_checkpoint" in sql:
            raise sqlite3.OperationalError("disk I/O error")
        out = self._conn.execute(sql, *args)
        if sql == "COMMIT" and self.armed:
            self.armed = False
            os.remove(self.victim)
        return out

    def __getattr__(self, name):
        return getattr(self._conn, name)


def _search(c, text):
    body = c.get("/v1/search", params={"q": text, "k": 3}).json()
    assert body["impression"] is not None
    return {"impression": body["impression"], "clicked": [body["hits"][0]["id"]]}


@pytest.mark.parametrize("suffix", ["-wal", "-shm"])
def test_a_click_committed_before_its_wal_vanished_is_acknowledged_and_kept_once(fresh, suffix):
    texts = corpus()[0]
    app = create_app(fresh, learn_from_clicks=True)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        click = _search(c, texts[0])
        log = app.state.recorder.log
        spy = log.conn = _RemovedAtCommit(log.conn, fresh / (FEEDBACK_FILE + suffix))
        spy.armed = True
        first = c.post("/v1/feedback", json=click)
        assert not spy.armed                       # the file went between the commit and the check
        assert first.status_code == 201, first.text
        health = c.get("/healthz").json()
        assert health["status"] == "degraded" and FEEDBACK_FILE + suffix in health["feedback_log"], health
        again = c.post("/v1/feedback", json=click)          # a client's retry all the same
        assert again.status_code == 503 and again.json()["code"] == "feedback_log_damaged", again.text
        log.conn = spy._conn
    with FeedbackLog(fresh, readonly=True) as kept:
        clicks = [x for imp in kept.impressions() for x in imp["clicks"]]
    assert [x["doc_id"] for x in clicks] == click["clicked"]       # acknowledged once, kept once


def test_a_click_whose_rescue_failed_is_not_acknowledged(fresh):
    texts = corpus()[0]
    app = create_app(fresh, learn_from_clicks=True)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        click = _search(c, texts[0])
        log = app.state.recorder.log
        spy = log.conn = _RemovedAtCommit(log.conn, fresh / (FEEDBACK_FILE + "-wal"), fail_checkpoint=True)
        spy.armed = True
        r = c.post("/v1/feedback", json=click)
        assert not spy.armed
        assert r.status_code == 503 and r.json()["code"] == "feedback_log_damaged", r.text
        assert c.get("/healthz").json()["status"] == "degraded"
        log.conn = spy._conn
