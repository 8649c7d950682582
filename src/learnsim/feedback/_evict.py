"""Room in a click log at its bound in bytes: the oldest impressions nobody clicked, once they are
:data:`EVICT_AFTER_S` old, make room for new records (:class:`learnsim.feedback._log.FeedbackLog`).

The clicks' reserve (``CLICK_RESERVE``) keeps a full log taking clicks for a while; without this,
once the reserve was spent too, every click was refused (507) and every search went unrecorded
until impressions aged out (90 days by default), so learning from use stopped for good on a busy
server. An impression with no click teaches nothing (no comparison, no interleaving outcome), so
the oldest of those go first; an impression with a click, and the click, stay (acknowledged).
The age guard keeps a search just answered clickable whatever others do: a flood cannot evict
the impressions of the searchers of the last hour (then records are dropped or refused as before).

The cost is bounded: a search looks at most :data:`MAX_SCAN` rows, from where the last look
stopped (:class:`Sweeper`): the clicked impressions at the front of a full log (and, for one
client's share, the other clients' rows), which can never make room, are passed over once, not
at every search.
"""
from __future__ import annotations

from collections import OrderedDict

#: Seconds an impression without a click is kept whatever the bound in bytes: a click on a search
#: answered less than an hour ago always finds it.
EVICT_AFTER_S = 3600.0
#: Rows one search or click looks at, at most, for room.
MAX_SCAN = 2000
# the clients whose place is remembered (each a (time, rowid); the least recently used go)
_PLACES = 1024


class Sweeper:
    """Deletes, inside the caller's transaction, the oldest impressions with no click to make room;
    remembers, for the whole log and for each client, where the rows that can never make room end
    (clicked ones; another client's for a client's share). New rows come after them in time."""

    def __init__(self):
        self._places = OrderedDict()

    def evict(self, conn, need, *, client=None, before, keep=None):
        """Delete the oldest impressions with no click stamped before ``before`` (of ``client``
        only, when given: ``''`` is the impressions without one) until they free ``need`` bytes;
        never ``keep`` (the impression a click names). Deletes nothing when the rows looked at
        cannot free that much. Returns how many went."""
        if need <= 0:
            return 0
        place = self._places.get(client)
        after = "" if place is None else " AND (time, rowid) > (?, ?)"
        cursor = conn.execute(
            "SELECT id, bytes, time, rowid, COALESCE(client, ''), "
            "EXISTS (SELECT 1 FROM clicks WHERE clicks.impression = impressions.id) "
            f"FROM impressions WHERE time < ?{after} ORDER BY time, rowid LIMIT {MAX_SCAN}",
            [before] + ([] if place is None else list(place)))
        try:
            chosen, freed, passed = self._choose(cursor, need, client, keep, place)
        finally:
            cursor.close()
        if passed is not None:
            self._places[client] = passed
            self._places.move_to_end(client)
            while len(self._places) > _PLACES:
                self._places.popitem(last=False)
        if freed < need:
            return 0
        conn.executemany("DELETE FROM impressions WHERE id = ?", [(token,) for token in chosen])
        return len(chosen)

    @staticmethod
    def _choose(cursor, need, client, keep, place):
        """(chosen ids, bytes they free, the new place) from the rows of ``cursor``, read a few at a
        time: a click needs one or two rows, not the 2,000 looked at at most."""
        chosen, freed, passed = [], 0, place
        for token, size, stamp, rowid, who, clicked in _rows(cursor):
            useless = clicked or (client is not None and who != client)
            if useless and not chosen and token != keep:
                passed = (stamp, rowid)       # never room: looked at once
            if useless or token == keep:
                continue
            chosen.append(token)
            freed += int(size)
            if freed >= need:
                break
        return chosen, freed, passed


def _rows(cursor, n=32):
    while True:
        page = cursor.fetchmany(n)
        if not page:
            return
        yield from page
