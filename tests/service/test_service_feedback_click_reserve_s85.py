"""A click log at its bound in bytes filled with impressions, then answered every click 507 until
impressions aged out (a red team: ``learnsim serve DIR --learn-from-clicks --feedback-max-bytes 64K
--feedback-client-share 1``: 369 impressions kept, 31 dropped, then 369 of 369 clicks refused):
learning from use stopped on a busy server. Now a part of the bound is for clicks alone
(:data:`learnsim.feedback._log.CLICK_RESERVE`): impressions stop being recorded (dropped and
counted, as before) once they would eat into it, and a click on every impression kept is taken."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from learnsim.feedback import FeedbackLog  # noqa: E402
from learnsim.feedback._log import CLICK_RESERVE, LogFull  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
BASE = "http://127.0.0.1"


def test_a_log_full_of_impressions_still_takes_a_click_on_each(tmp_path):
    texts, _, ids, meta = corpus()
    Index.build(tmp_path / "idx", model("bm25"), texts[:40], ids[:40], meta[:40]).close()
    max_bytes = 65536
    with TestClient(create_app(tmp_path / "idx", learn_from_clicks=True, feedback_max_bytes=max_bytes,
                               feedback_client_share=1.0),
                    raise_server_exceptions=False, base_url=BASE) as c:
        answers = [c.get("/v1/search", params={"q": texts[i % 40], "k": 10}).json() for i in range(400)]
        kept = [a for a in answers if a["impression"] is not None]
        info = c.get("/v1/info").json()["learn_from_clicks"]
        assert 0 < len(kept) < len(answers) and info["dropped"]["total_bytes"] == len(answers) - len(kept)
        with FeedbackLog(tmp_path / "idx", readonly=True) as log:
            held = log.stats()["bytes"]
        # impressions stopped before the clicks' part of the bound
        assert held <= (1 - CLICK_RESERVE) * max_bytes
        codes = [c.post("/v1/feedback", json={"impression": a["impression"], "clicked": [a["hits"][0]["id"]]}).status_code
                 for a in kept]
        assert codes.count(201) == len(kept), {k: codes.count(k) for k in set(codes)}
    with FeedbackLog(tmp_path / "idx", readonly=True) as log:
        stats = log.stats()
    assert stats["clicks"] == len(kept) and stats["bytes"] <= max_bytes


def test_the_reserve_is_the_clicks_and_a_click_past_the_whole_bound_is_refused(tmp_path):
    log = FeedbackLog(tmp_path, max_bytes=4000, client_share=1.0)
    try:
        shown = [f"d{i}" for i in range(10)]
        ids = log.record_impressions([("q", shown, None, "me", None)] * 40)
        assert ids.count(None) > 0 and log.dropped["total_bytes"] == ids.count(None)
        assert log.stats()["bytes"] <= (1 - CLICK_RESERVE) * 4000
        first = next(x for x in ids if x)
        assert log.record_clicks(first, shown[:9]) == 9      # the reserve takes them
        # clicks fill the rest of the bound, then one more is refused, nothing written
        taken = 9
        with pytest.raises(LogFull) as full:
            for token in ids:
                if token and token != first:
                    taken += log.record_clicks(token, shown)
        assert full.value.bound == "total"
        assert log.conn.execute("SELECT COUNT(*) FROM clicks").fetchone()[0] == taken
        assert log.stats()["bytes"] <= 4000
    finally:
        log.close()
