"""serve --learn-from-clicks when the click log's write-ahead files (``feedback.sqlite-wal``,
``-shm``) are removed while it serves (from an attack sweep of issue 45's recording).

SQLite writes every commit into the WAL and copies it into ``feedback.sqlite`` only at a
checkpoint. With the WAL removed, the service's connection went on writing into the unlinked
file: clicks were answered 201 and ``/healthz`` said "ok", a reader (``learnsim index
promote``) got "disk I/O error", and once the process died every record since the last
checkpoint was gone, the whole log here (the next start found no table at all). A removed
``-shm`` splits the processes sharing the log (``--workers N``, a purge) between two indexes of
one WAL. Now either is damage, found at the next write or ``/healthz``: what the WAL held is
copied into the log's own file first, so that what was acknowledged survives a crash, and no
click is acknowledged after.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

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
    path = tmp_path_factory.mktemp("fb-wal") / "idx"
    Index.build(path, model("bm25"), texts[:40], ids[:40], meta[:40]).close()
    return path


@pytest.fixture
def fresh(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    return tmp_path / "idx"


def _search_and_click(c, text):
    r = c.get("/v1/search", params={"q": text, "k": 3})
    assert r.status_code == 200, r.text
    body = r.json()
    if body["impression"] is None:
        return body, None
    return body, c.post("/v1/feedback", json={"impression": body["impression"], "clicked": [body["hits"][0]["id"]]})


@pytest.mark.parametrize("suffix", ["-wal", "-shm"])
def test_a_write_ahead_file_removed_while_serving_is_damage(fresh, suffix):
    texts = corpus()[0]
    with TestClient(create_app(fresh, learn_from_clicks=True), raise_server_exceptions=False, base_url=BASE) as c:
        _, click = _search_and_click(c, texts[0])
        assert click.status_code == 201
        os.remove(fresh / (FEEDBACK_FILE + suffix))
        health = c.get("/healthz")
        assert health.status_code == 200 and health.json()["status"] == "degraded", health.text
        assert FEEDBACK_FILE + suffix in health.json()["feedback_log"] and str(fresh) not in health.text
        for text in texts[1:3]:
            body, _ = _search_and_click(c, text)
            assert body["hits"] and body["impression"] is None        # searches go on, unrecorded
        info = c.get("/v1/info").json()["learn_from_clicks"]
        assert FEEDBACK_FILE + suffix in info["damage"] and info["dropped"]["damaged"] == 2


def test_a_click_after_the_wal_is_removed_is_refused(fresh):
    texts = corpus()[0]
    with TestClient(create_app(fresh, learn_from_clicks=True), raise_server_exceptions=False, base_url=BASE) as c:
        r = c.get("/v1/search", params={"q": texts[0], "k": 3}).json()
        os.remove(fresh / (FEEDBACK_FILE + "-wal"))
        click = c.post("/v1/feedback", json={"impression": r["impression"], "clicked": [r["hits"][0]["id"]]})
        assert click.status_code == 503 and click.json()["code"] == "feedback_log_damaged", click.text
        assert "-wal" in click.json()["error"]


_CRASH = """
import os, sys, warnings
warnings.simplefilter("ignore")
from fastapi.testclient import TestClient
from learnsim.service import create_app
path, texts = sys.argv[1], sys.argv[2:]
c = TestClient(create_app(path, learn_from_clicks=True), raise_server_exceptions=False, base_url="http://127.0.0.1")
c.__enter__()
acknowledged = 0
for n, text in enumerate(texts):
    if n == 2:
        os.remove(os.path.join(path, "feedback.sqlite-wal"))
    r = c.get("/v1/search", params={"q": text, "k": 3}).json()
    if r["impression"]:
        click = c.post("/v1/feedback", json={"impression": r["impression"], "clicked": [r["hits"][0]["id"]]})
        acknowledged += click.status_code == 201
print(acknowledged, flush=True)
os._exit(0)     # the process dies there (a crash, a kill -9): nothing is closed
"""


def test_what_was_acknowledged_survives_a_crash_after_the_wal_is_removed(fresh):
    texts = [t[:200] for t in corpus()[0][:5]]
    src = str(Path(__import__("learnsim").__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(_CRASH), str(fresh), *texts], env=env,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    acknowledged = int(done.stdout.split()[-1])
    assert acknowledged == 2           # the two before the removal; none after
    with FeedbackLog(fresh, readonly=True) as log:
        stats = log.stats()
    assert stats["clicks"] == acknowledged and stats["impressions"] == 2
