"""Whom a keyed search and its clicks count for (``X-Client-Id``, issue 45): the whole id names
the user. It was cut to its first 200 characters (MAX_CLIENT_ID), without a word, so a front end
whose user ids are long and share a start (a tenant's URL, a signed token's header) had every
user counted as one client: one vote for a promotion, one share of the log."""
from __future__ import annotations

import shutil
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from learnsim.feedback import FeedbackLog  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402
from learnsim.service._feedback import MAX_CLIENT_ID  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
KEY = "client-ids-key"


@pytest.fixture
def fresh(tmp_path):
    texts, _, ids, meta = corpus()
    Index.build(tmp_path / "idx", model("bm25"), texts[:40], ids[:40], meta[:40]).close()
    return tmp_path / "idx"


def _searched_as(path, client_ids):
    """The click log's client of a keyed search made under each of ``client_ids``."""
    texts = corpus()[0]
    app = create_app(path, api_key=KEY, learn_from_clicks=True)
    with TestClient(app, raise_server_exceptions=False, base_url="http://127.0.0.1") as c:
        for i, who in enumerate(client_ids):
            r = c.get("/v1/search", params={"q": texts[i]}, headers={"X-API-Key": KEY, "X-Client-Id": who})
            assert r.status_code == 200 and r.json()["impression"], r.text[:200]
    with FeedbackLog(path, readonly=True) as log:
        return [imp["client"] for imp in log.impressions()]


def test_long_client_ids_sharing_their_start_are_distinct_clients(fresh):
    start = "https://tenant.example/users/" + "x" * MAX_CLIENT_ID
    clients = _searched_as(fresh, [start + "alice", start + "bob", start + "alice"])
    assert clients[0] != clients[1] and clients[0] == clients[2], clients


def test_client_ids_within_the_bound_keep_their_pseudonyms(fresh):
    # the records made before the change still count for the same users
    short = ["user-1", "u" * MAX_CLIENT_ID, "user-1"]
    clients = _searched_as(fresh, short)
    with FeedbackLog(fresh, readonly=True) as log:
        assert clients == [log.pseudonym("id:" + who) for who in short]
