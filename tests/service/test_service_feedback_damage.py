"""serve --learn-from-clicks on a click log that is not the one this learnsim writes (from an
attack sweep): a dropped column, an added trigger, the byte-count triggers gone are refused at
start (they had answered every click 503 forever, deleted clicks answered 201, lifted the bounds
in bytes); a trigger added while serving is found by the log's check; a locked log is busy."""
from __future__ import annotations

import shutil
import sqlite3
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from learnsim.cli import main  # noqa: E402
from learnsim.feedback import FEEDBACK_FILE, FeedbackLog  # noqa: E402
from learnsim.feedback import _log  # noqa: E402
from learnsim.feedback._log import LogFormatError, LogLocked  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
BASE = "http://127.0.0.1"
ADDED_TRIGGER = "CREATE TRIGGER evil AFTER INSERT ON clicks BEGIN DELETE FROM clicks WHERE seq = NEW.seq; END;"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("fb-damage-service") / "idx"
    Index.build(path, model("bm25"), texts[:40], ids[:40], meta[:40]).close()
    FeedbackLog(path).close()
    return path


@pytest.fixture
def fresh(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    return tmp_path / "idx"


def _edit(path, sql):
    conn = sqlite3.connect(path / FEEDBACK_FILE)
    try:
        conn.executescript(sql)
    finally:
        conn.close()


@pytest.mark.parametrize("sql, problem", [
    (ADDED_TRIGGER, "trigger evil"),
    ("DROP TRIGGER usage_insert;", "no trigger usage_insert"),
    ("ALTER TABLE clicks DROP COLUMN position;", "clicks has no column position"),
])
def test_the_service_does_not_start_on_a_log_of_another_schema(fresh, capsys, sql, problem):
    _edit(fresh, sql)
    with pytest.raises(LogFormatError, match=problem):
        create_app(fresh, learn_from_clicks=True)
    assert main(["serve", str(fresh), "--learn-from-clicks"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and problem in err[0] and FEEDBACK_FILE in err[0], err


def test_a_trigger_added_while_serving_is_found_and_no_click_is_acknowledged_into_it(fresh):
    texts = corpus()[0]
    app = create_app(fresh, learn_from_clicks=True)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        r = c.get("/v1/search", params={"q": texts[0], "k": 3})
        body = {"impression": r.json()["impression"], "clicked": [r.json()["hits"][0]["id"]]}
        assert c.post("/v1/feedback", json=body).status_code == 201
        _edit(fresh, ADDED_TRIGGER)
        recorder = app.state.recorder
        recorder.worker.submit(recorder._check).result(timeout=10)     # what the service runs at start
        health = c.get("/healthz").json()
        assert health["status"] == "degraded" and "trigger evil" in health["feedback_log"]
        r = c.post("/v1/feedback", json={"impression": body["impression"], "clicked": [r.json()["hits"][1]["id"]]})
        assert r.status_code == 503 and r.json()["code"] == "feedback_log_damaged"
    conn = sqlite3.connect(fresh / FEEDBACK_FILE)
    assert conn.execute("SELECT COUNT(*) FROM clicks").fetchone()[0] == 1       # the one acknowledged
    conn.close()


def test_a_log_locked_at_start_is_busy_not_damaged(fresh, monkeypatch):
    monkeypatch.setattr(_log, "OPEN_BUSY_TIMEOUT_S", 0.2)
    _edit(fresh, "ALTER TABLE impressions DROP COLUMN teams;")     # made before interleaving: the open writes
    other = sqlite3.connect(fresh / FEEDBACK_FILE, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(LogLocked, match="locked by another process") as info:
            create_app(fresh, learn_from_clicks=True)
        assert "not a learnsim" not in str(info.value) and "move it away" not in str(info.value)
    finally:
        other.execute("ROLLBACK")
        other.close()
