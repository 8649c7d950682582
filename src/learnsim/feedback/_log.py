"""The click log of a served index: what each search showed (an impression) and which of its
results were followed (clicks), in a SQLite file of its own beside the index.

Durability is the documents' (:mod:`learnsim.index._store`): WAL, ``synchronous=FULL``, each
record one transaction, so a record acknowledged to a client survives a crash of the process or
the machine. Nothing is stored beyond what a refit needs: the query text, the ids shown (in their
order), the ids clicked, the time, the model version that ranked them and, for the per-client
caps of :func:`learnsim.feedback.click_comparisons`, a pseudonym of the client (an HMAC of its
address or key under a secret drawn when the log is created; the address itself is not kept).
Retention is bounded by age and by rows: older records and, past ``max_rows`` impressions, the
oldest go at each write (a tenth at a time, so that a full log does not pay a purge per search).
"""
from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
import sqlite3
import time
from pathlib import Path

__all__ = ["FeedbackLog", "FEEDBACK_FILE", "MAX_SHOWN", "MAX_QUERY_CHARS", "MAX_CLICKS"]

#: The log's file name in an index directory.
FEEDBACK_FILE = "feedback.sqlite"
#: Bounds of one record: ids shown per impression, characters of a query, of an id.
MAX_SHOWN = 1000
MAX_QUERY_CHARS = 10_000
MAX_ID_CHARS = 1000
#: Clicks one impression takes at most (a result clicked again is one more row: the bound keeps a
#: replayed click link from growing the log without end).
MAX_CLICKS = 100
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS impressions (
    id TEXT PRIMARY KEY, time REAL NOT NULL, query TEXT NOT NULL, shown TEXT NOT NULL,
    model TEXT, client TEXT, teams TEXT);
CREATE INDEX IF NOT EXISTS impressions_time ON impressions(time);
CREATE TABLE IF NOT EXISTS clicks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    impression TEXT NOT NULL REFERENCES impressions(id) ON DELETE CASCADE,
    doc_id TEXT NOT NULL, position INTEGER NOT NULL, time REAL NOT NULL, dwell REAL, relevance REAL, client TEXT);
CREATE INDEX IF NOT EXISTS clicks_impression ON clicks(impression);
"""


def _check_count(value, name, low):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= low or value != value:
        raise ValueError(f"{name} must be a number >= {low}; got {value!r}")
    return value


class FeedbackLog:
    """The impressions and clicks of a served index (module notes).

    Parameters
    ----------
    path : str or Path
        The SQLite file (created if missing), or an index directory (then its ``feedback.sqlite``).
    max_days : float, default=90
        Records older than this many days are dropped.
    max_rows : int, default=1_000_000
        Impressions kept at most (the oldest go first, with their clicks).
    readonly : bool, default=False
        Open an existing log for reading only.

    Examples
    --------
    >>> import tempfile
    >>> from learnsim.feedback import FeedbackLog
    >>> log = FeedbackLog(tempfile.mkdtemp())
    >>> shown = log.record_impression("reset password", ["d3", "d7", "d1"], model="v1", client="10.0.0.5")
    >>> log.record_clicks(shown, ["d7"])
    1
    >>> stats = log.stats()
    >>> stats["impressions"], stats["clicks"], stats["mean_click_position"]
    (1, 1, 2.0)
    """

    def __init__(self, path, *, max_days=90.0, max_rows=1_000_000, readonly=False):
        path = Path(path)
        if path.is_dir():
            path = path / FEEDBACK_FILE
        self.path = path
        self.max_days = float(_check_count(max_days, "max_days", 0))
        self.max_rows = int(_check_count(max_rows, "max_rows", 1))
        if readonly:
            if not path.exists():
                raise FileNotFoundError(f"{path}: no feedback log (serve the index with --learn-from-clicks)")
            self.conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0, isolation_level=None,
                                        check_same_thread=False)
        else:
            self.conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None, check_same_thread=False)
            try:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=FULL")
                self.conn.execute("PRAGMA foreign_keys=ON")
                self.conn.executescript(_SCHEMA)
                # a log made before interleaving (issue 34) has no teams column: add it
                columns = {row[1] for row in self.conn.execute("PRAGMA table_info(impressions)")}
                if "teams" not in columns:
                    self.conn.execute("ALTER TABLE impressions ADD COLUMN teams TEXT")
                self.conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('salt', ?)", (secrets.token_hex(32),))
            except sqlite3.DatabaseError as exc:
                self.conn.close()
                raise ValueError(f"{path}: not a learnsim feedback log ({exc}); move it away to start a new one") \
                    from None
        try:
            row = self.conn.execute("SELECT value FROM meta WHERE key = 'salt'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"{path}: not a learnsim feedback log ({exc})") from None
        if row is None:
            raise ValueError(f"{path}: not a learnsim feedback log (no salt)")
        self._salt = bytes.fromhex(row[0])
        # a log read only, made before interleaving, has no teams column
        columns = {r[1] for r in self.conn.execute("PRAGMA table_info(impressions)")}
        self._teams = "teams" if "teams" in columns else "NULL"
        self._writes = 0

    def close(self):
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ writes
    def pseudonym(self, client):
        """The stored stand-in of a client's address or key (None for None)."""
        if client is None:
            return None
        return hmac.new(self._salt, str(client).encode("utf-8", "replace"), hashlib.sha256).hexdigest()[:16]

    def record_impression(self, query, shown, *, model=None, client=None, teams=None, now=None):
        """Record that the ids ``shown`` (best first) answered ``query``; returns the
        impression's id (a random token, what a click names). ``teams``: for an interleaved
        search, which ranking placed each shown id (``"s"`` served, ``"c"`` candidate)."""
        return self.record_impressions([(query, shown, model, client, teams)], now=now)[0]

    def record_impressions(self, items, *, now=None):
        """:meth:`record_impression` of each ``(query, shown, model, client, teams)`` in one
        transaction (a service under load commits the searches that wait together with one
        fsync); every item is checked before anything is written. Returns their ids."""
        rows = []
        stamp = time.time() if now is None else float(now)
        for query, shown, model, client, teams in items:
            if not isinstance(query, str) or not query.strip() or len(query) > MAX_QUERY_CHARS:
                raise ValueError(f"query must be a non-empty str of at most {MAX_QUERY_CHARS} characters")
            shown = [self._id(x, "shown") for x in shown]
            if len(shown) > MAX_SHOWN or len(set(shown)) != len(shown):
                raise ValueError(f"shown must list at most {MAX_SHOWN} distinct ids")
            if teams is not None:
                teams = list(teams)
                if len(teams) != len(shown) or not set(teams) <= {"s", "c"}:
                    raise ValueError("teams must give 's' or 'c' for each id shown")
            rows.append((secrets.token_hex(12), stamp, query, json.dumps(shown, ensure_ascii=False),
                         None if model is None else str(model)[:200], self.pseudonym(client),
                         None if teams is None else "".join(teams)))
        with self._transaction():
            self.conn.executemany("INSERT INTO impressions(id, time, query, shown, model, client, teams) "
                                  "VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            self._retain(len(rows))
        return [row[0] for row in rows]

    def record_clicks(self, impression, clicked, *, dwell=None, relevance=None, client=None, now=None):
        """Record the clicks on an impression's results; returns how many. An unknown impression
        is a KeyError; an id it did not show, a ValueError (and nothing is recorded)."""
        if not isinstance(impression, str):
            raise KeyError(f"impression must be the id a search answered; got {type(impression).__name__}")
        clicked = [self._id(x, "clicked") for x in clicked]
        if not clicked:
            raise ValueError("clicked must name at least one id")
        for name, value in (("dwell", dwell), ("relevance", relevance)):
            if value is not None:
                _check_count(value, name, 0)
        with self._transaction():
            row = self.conn.execute("SELECT shown FROM impressions WHERE id = ?", (impression,)).fetchone()
            if row is None:
                raise KeyError(f"no impression {impression[:40]!r} (unknown, or past the log's retention)")
            position = {doc_id: i + 1 for i, doc_id in enumerate(json.loads(row[0]))}
            missing = [x for x in clicked if x not in position]
            if missing:
                raise ValueError(f"id {missing[0][:80]!r} was not shown by impression {impression!r}")
            before = self.conn.execute("SELECT COUNT(*) FROM clicks WHERE impression = ?", (impression,)).fetchone()[0]
            if before + len(clicked) > MAX_CLICKS:
                raise ValueError(f"impression {impression!r} has {before} clicks; it takes at most {MAX_CLICKS}")
            stamp = time.time() if now is None else float(now)
            who = self.pseudonym(client)
            self.conn.executemany(
                "INSERT INTO clicks(impression, doc_id, position, time, dwell, relevance, client) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(impression, x, position[x], stamp, dwell, relevance, who) for x in clicked])
        return len(clicked)

    def purge(self, *, older_than_days=None, everything=False):
        """Drop records: all of them, or those older than ``older_than_days``; returns how many
        impressions went (their clicks with them)."""
        with self._transaction():
            if everything:
                cur = self.conn.execute("DELETE FROM impressions")
            else:
                days = _check_count(older_than_days, "older_than_days", 0)
                cur = self.conn.execute("DELETE FROM impressions WHERE time < ?", (time.time() - 86400.0 * days,))
        return cur.rowcount

    # ------------------------------------------------------------------ reads
    def impressions(self, *, with_clicks_only=False):
        """The impressions, oldest first: dicts with ``id``, ``time``, ``query``, ``shown``,
        ``model``, ``client``, ``teams`` (None, or the interleaved search's team of each shown id)
        and ``clicks`` (dicts with ``doc_id``, ``position``, ``time``,
        ``dwell``, ``relevance``)."""
        clicks = {}
        for imp, doc_id, pos, stamp, dwell, rel in self.conn.execute(
                "SELECT impression, doc_id, position, time, dwell, relevance FROM clicks ORDER BY seq"):
            clicks.setdefault(imp, []).append({"doc_id": doc_id, "position": pos, "time": stamp, "dwell": dwell,
                                               "relevance": rel})
        for token, stamp, query, shown, model, client, teams in self.conn.execute(
                f"SELECT id, time, query, shown, model, client, {self._teams} FROM impressions ORDER BY time, rowid"):
            if with_clicks_only and token not in clicks:
                continue
            yield {"id": token, "time": stamp, "query": query, "shown": json.loads(shown), "model": model,
                   "client": client, "teams": None if teams is None else list(teams),
                   "clicks": clicks.get(token, [])}

    def stats(self):
        """Counts of the log: impressions, clicks, distinct queries and clients, the click-through
        rate (impressions with a click), the mean clicked position, the first and last time."""
        c = self.conn
        n_imp, first, last, queries, clients = c.execute(
            "SELECT COUNT(*), MIN(time), MAX(time), COUNT(DISTINCT query), COUNT(DISTINCT client) FROM impressions").fetchone()
        n_clicks, mean_pos, clicked = c.execute(
            "SELECT COUNT(*), AVG(position), COUNT(DISTINCT impression) FROM clicks").fetchone()
        return {"impressions": n_imp, "clicks": n_clicks, "queries": queries, "clients": clients,
                "click_through_rate": (clicked / n_imp) if n_imp else None, "mean_click_position": mean_pos,
                "first": first, "last": last, "max_days": self.max_days, "max_rows": self.max_rows}

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _id(value, name):
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise ValueError(f"{name} ids must be str (or int); got {type(value).__name__}")
        value = str(value)
        if not value or len(value) > MAX_ID_CHARS:
            raise ValueError(f"{name} ids must have 1 to {MAX_ID_CHARS} characters")
        return value

    @contextlib.contextmanager
    def _transaction(self):
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def _retain(self, n=1):
        """Inside a write: drop what is past the age bound, and past the row bound the oldest
        tenth (checked every 100 impressions: a count per search would cost more than the search)."""
        before, self._writes = self._writes, self._writes + n
        if before and before // 100 == self._writes // 100:
            return
        self.conn.execute("DELETE FROM impressions WHERE time < ?", (time.time() - 86400.0 * self.max_days,))
        n = self.conn.execute("SELECT COUNT(*) FROM impressions").fetchone()[0]
        if n > self.max_rows:
            drop = n - self.max_rows + self.max_rows // 10
            self.conn.execute("DELETE FROM impressions WHERE id IN (SELECT id FROM impressions ORDER BY time, rowid "
                              "LIMIT ?)", (drop,))
