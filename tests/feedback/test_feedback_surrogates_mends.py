"""The click log on text holding a lone surrogate (half of a UTF-16 pair, e.g. from
``errors="surrogateescape"``; the library's API can be given one, the service refuses it first):
a query, an id shown or clicked, or a model holding one is a ValueError naming the field, nothing
written (it was sqlite3's UnicodeEncodeError, naming nothing), as Index and learnsim.fit refuse
such text; two clients that differ by one keep pseudonyms of their own (the hash read both as
"?", one client)."""
from __future__ import annotations

import hashlib
import hmac

import pytest

from learnsim.feedback import FeedbackLog


@pytest.mark.parametrize("field, call", [
    ("query", lambda log: log.record_impression("caf\udce9 au lait", ["a", "b"], client="x")),
    ("shown", lambda log: log.record_impression("cafe", ["a", "b\udc80"], client="x")),
    ("model", lambda log: log.record_impression("cafe", ["a", "b"], model="v\udc80", client="x")),
    ("query", lambda log: log.record_impressions([("cafe", ["a"], None, "x", None),
                                                   ("caf\udce9", ["a"], None, "x", None)])),
])
def test_an_impression_holding_a_lone_surrogate_is_refused_by_field(tmp_path, field, call):
    with FeedbackLog(tmp_path) as log:
        with pytest.raises(ValueError, match=rf"^{field}.*lone surrogate") as info:
            call(log)
        assert not isinstance(info.value, UnicodeError)
        assert log.stats()["impressions"] == 0          # nothing written, the good item neither
        assert log.record_impression("cafe", ["a", "b"], client="x") is not None   # the log writes on


def test_a_click_naming_an_id_with_a_lone_surrogate_is_refused_by_field(tmp_path):
    with FeedbackLog(tmp_path) as log:
        imp = log.record_impression("cafe", ["a", "b"], client="x")
        with pytest.raises(ValueError, match=r"^clicked.*lone surrogate"):
            log.record_clicks(imp, ["b\udc80"])
        assert log.stats()["clicks"] == 0


def test_clients_that_differ_by_a_lone_surrogate_are_two_clients(tmp_path):
    with FeedbackLog(tmp_path) as log:
        assert log.pseudonym("x\udc80") != log.pseudonym("x\udc81")
        # a client of whole characters keeps the pseudonym it had (the records already written)
        for client in ("10.0.0.5", "José", "用户"):
            assert log.pseudonym(client) == hmac.new(log._salt, client.encode("utf-8"),
                                                     hashlib.sha256).hexdigest()[:16]
