"""A click log at its bound in bytes, with the clicks' reserve spent too, refused every click (507)
and dropped every impression until records aged out (90 days by default): learning from use
stopped for good on a busy server. Now the oldest impressions nobody clicked, once an hour old
(:data:`learnsim.feedback._evict.EVICT_AFTER_S`), make room for new clicks and impressions; an
impression with a click, and its clicks, stay; and a search answered less than an hour ago stays
clickable whatever others record."""
from __future__ import annotations

import time

import pytest

from learnsim.feedback import FeedbackLog
from learnsim.feedback._evict import EVICT_AFTER_S
from learnsim.feedback._log import LogFull

SHOWN = [f"d{i}" for i in range(10)]


def _clicked(log):
    rows = log.conn.execute("SELECT impression, COUNT(*) FROM clicks GROUP BY impression").fetchall()
    return dict(rows)


def test_a_full_log_makes_room_with_its_oldest_unclicked_impressions(tmp_path):
    t0 = time.time() - 2 * EVICT_AFTER_S
    log = FeedbackLog(tmp_path, max_bytes=4000, client_share=1.0)
    try:
        ids = [x for x in log.record_impressions([("q", SHOWN, None, "me", None)] * 40, now=t0) if x]
        taken = []
        with pytest.raises(LogFull):            # within the hour, the reserve spent: refused as before
            for token in ids:
                log.record_clicks(token, SHOWN, now=t0 + 60)
                taken.append(token)
        assert taken and log.evicted == 0
        before = _clicked(log)
        # an hour later the oldest unclicked impressions make room, for a click ...
        late = [x for x in ids if x not in before][-1]
        assert log.record_clicks(late, SHOWN[:3], now=t0 + EVICT_AFTER_S + 60) == 3
        # ... and for a new search
        fresh = log.record_impression("new", SHOWN, client="me", now=t0 + EVICT_AFTER_S + 60)
        assert fresh is not None and log.evicted >= 2
        after = _clicked(log)
        assert all(after.get(k) == v for k, v in before.items())       # nothing acknowledged lost
        assert after[late] == 3
        left = {r[0] for r in log.conn.execute("SELECT id FROM impressions")}
        assert set(after) <= left and fresh in left
        gone = [x for x in ids if x not in left]
        unclicked = [x for x in ids if x not in after]
        assert gone == unclicked[:len(gone)]                             # the oldest first
        assert log.stats()["bytes"] <= 4000
    finally:
        log.close()


def test_a_recent_search_stays_clickable_and_a_share_evicts_only_its_own(tmp_path):
    t0 = time.time() - 2 * EVICT_AFTER_S
    log = FeedbackLog(tmp_path, max_bytes=8000, client_share=0.5)
    try:
        mine = [x for x in log.record_impressions([("q", SHOWN, None, "me", None)] * 40, now=t0) if x]
        recent = [x for x in log.record_impressions([("q", SHOWN, None, "you", None)] * 40,
                                                    now=t0 + EVICT_AFTER_S + 10) if x]
        # "you" at its share: its own impressions are recent, "me"'s old ones are not its to take
        dropped = log.dropped["client_bytes"]
        assert log.record_impression("q", SHOWN, client="you", now=t0 + EVICT_AFTER_S + 20) is None
        assert log.dropped["client_bytes"] == dropped + 1 and log.evicted == 0
        # "me", an hour on, replaces its own oldest unclicked; "you"'s recent ones all stay
        assert log.record_impression("q", SHOWN, client="me", now=t0 + EVICT_AFTER_S + 30) is not None
        left = {r[0] for r in log.conn.execute("SELECT id FROM impressions")}
        assert set(recent) <= left and mine[0] not in left and log.evicted >= 1
    finally:
        log.close()


def test_clicked_impressions_are_never_room_and_are_looked_at_once(tmp_path):
    t0 = time.time() - 2 * EVICT_AFTER_S
    log = FeedbackLog(tmp_path, max_bytes=4000, client_share=1.0)
    try:
        ids = [x for x in log.record_impressions([("q", SHOWN, None, "me", None)] * 40, now=t0) if x]
        for token in ids:
            assert log.record_clicks(token, ["d0"], now=t0 + 1) == 1
        assert log.record_impression("q", SHOWN, client="me", now=t0 + EVICT_AFTER_S + 60) is None
        assert log.evicted == 0 and _clicked(log) == {token: 1 for token in ids}
        # the next search starts past the clicked rows it has seen (bounded work at a full log)
        last = log.conn.execute("SELECT time, rowid FROM impressions ORDER BY time DESC, rowid DESC LIMIT 1").fetchone()
        assert tuple(last) in log._sweeper._places.values()
        assert log.record_impression("q", SHOWN, client="me", now=t0 + EVICT_AFTER_S + 70) is None
    finally:
        log.close()
