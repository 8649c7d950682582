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

**Bounded in bytes** (issue 45): the log holds at most ``max_bytes`` (default 256 MiB) of records,
and one client at most ``client_share`` of that (default 10 %). An impression counts its query,
its ids shown, its teams and a row's overhead; a click its id and a row's overhead, charged to the
client of the search it names. A record past a bound is not written: an impression is dropped
(its id is None, counted in :attr:`FeedbackLog.dropped`), a click refused (:class:`LogFull`).
Triggers keep the counts in the ``usage`` table, so every process writing the log (``learnsim
serve --workers N``, a purge) sees the same. Age and row retention free room again.

**Failures are told apart** (:class:`FeedbackLogError`): a log another connection holds locked
(:class:`LogBusy`: with a short ``busy_timeout`` the service drops an impression rather than wait)
and a damaged one (:class:`LogDamaged`). Damage is looked for before and after every write: the
file's SQLite header (a few bytes read, so a file overwritten, truncated or replaced while open
is seen at the next write, where SQLite itself would go on writing into it until a restart
refused it), and SQLite's own errors (SQLITE_CORRUPT, SQLITE_NOTADB). :meth:`FeedbackLog.check`
runs ``PRAGMA quick_check``. A damaged log takes no more writes, and a write found damaged after
its commit is not acknowledged: what was acknowledged can be read back.
"""
from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import time
from collections import Counter
from pathlib import Path

__all__ = ["FeedbackLog", "FEEDBACK_FILE", "MAX_SHOWN", "MAX_QUERY_CHARS", "MAX_CLICKS", "DEFAULT_MAX_BYTES",
           "DEFAULT_CLIENT_SHARE", "FeedbackLogError", "LogBusy", "LogDamaged", "LogFull"]

#: The log's file name in an index directory.
FEEDBACK_FILE = "feedback.sqlite"
#: Bounds of one record: ids shown per impression, characters of a query, of an id.
MAX_SHOWN = 1000
MAX_QUERY_CHARS = 10_000
MAX_ID_CHARS = 1000
#: Clicks one impression takes at most (a result clicked again is one more row: the bound keeps a
#: replayed click link from growing the log without end).
MAX_CLICKS = 100
#: The log's bound in bytes (``learnsim serve --feedback-max-bytes``), and the share of it one
#: client may hold (``--feedback-client-share``).
DEFAULT_MAX_BYTES = 256 * 2 ** 20
DEFAULT_CLIENT_SHARE = 0.1
#: What a row costs beyond its text (its id, time, model, client, the indexes' entries): an
#: impression's and a click's.
IMPRESSION_ROW_BYTES = 100
CLICK_ROW_BYTES = 48
# the usage table's key of the whole log (a client's key is its pseudonym, '' for none)
_TOTAL = "*"
_SIZE_OF_OLD_ROWS = ("length(CAST(query AS BLOB)) + length(CAST(shown AS BLOB)) + COALESCE(length(teams), 0) + "
                     f"{IMPRESSION_ROW_BYTES} + (SELECT COALESCE(SUM(length(CAST(doc_id AS BLOB)) + "
                     f"{CLICK_ROW_BYTES}), 0) FROM clicks WHERE clicks.impression = impressions.id)")
# the byte counts, kept by the database itself: right whoever writes or purges the log
_USAGE = (
    "CREATE TABLE usage (client TEXT PRIMARY KEY, bytes INTEGER NOT NULL)",
    f"""CREATE TRIGGER usage_insert AFTER INSERT ON impressions BEGIN
    INSERT INTO usage(client, bytes) VALUES (COALESCE(NEW.client, ''), NEW.bytes), ('{_TOTAL}', NEW.bytes)
        ON CONFLICT(client) DO UPDATE SET bytes = bytes + excluded.bytes;
END""",
    f"""CREATE TRIGGER usage_update AFTER UPDATE OF bytes ON impressions BEGIN
    UPDATE usage SET bytes = bytes + NEW.bytes - OLD.bytes WHERE client IN (COALESCE(OLD.client, ''), '{_TOTAL}');
END""",
    f"""CREATE TRIGGER usage_delete AFTER DELETE ON impressions BEGIN
    UPDATE usage SET bytes = bytes - OLD.bytes WHERE client IN (COALESCE(OLD.client, ''), '{_TOTAL}');
    DELETE FROM usage WHERE client = COALESCE(OLD.client, '') AND client != '{_TOTAL}' AND bytes <= 0;
END""")
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


class FeedbackLogError(Exception):
    """A write the click log could not make (the service: 503, or the impression dropped)."""


class LogBusy(FeedbackLogError):
    """Another connection holds the log's write lock (a purge, a backup, a sqlite3 shell)."""


class LogDamaged(FeedbackLogError):
    """The log's file is damaged, removed or replaced: it takes no more writes."""


class LogFull(FeedbackLogError):
    """A record past the log's bound in bytes, or past its client's share of it; ``bound`` is
    ``"total"`` or ``"client"``."""

    def __init__(self, message, bound):
        super().__init__(message)
        self.bound = bound


def _header_problem(head):
    """What is wrong with the first 100 bytes of a SQLite file, or None (the fields of the
    file format's header that never change once the file is made)."""
    if len(head) < 100:
        return f"its header is cut short ({len(head)} bytes)"
    if head[:16] != b"SQLite format 3\0":
        return "its header is not a SQLite header"
    size = int.from_bytes(head[16:18], "big")
    if not (size == 1 or (512 <= size <= 32768 and size & (size - 1) == 0)):
        return f"its header gives a page size of {size}"
    if head[18] not in (1, 2) or head[19] not in (1, 2) or head[21:24] != b"\x40\x20\x20":
        return "its header's format fields are wrong"
    return None


def _read_head(fd):
    if hasattr(os, "pread"):
        return os.pread(fd, 100, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    return os.read(fd, 100)


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
    max_bytes : int, default=DEFAULT_MAX_BYTES
        The records held at most, in bytes (module notes); past it, impressions are dropped and
        clicks refused until retention frees room.
    client_share : float in (0, 1], default=DEFAULT_CLIENT_SHARE
        The share of ``max_bytes`` one client (pseudonym) may hold.
    busy_timeout : float, default=30
        Seconds a write waits for a lock another connection holds before :class:`LogBusy` (the
        service: 0.05). Opening waits 30 s whatever it is (worker processes open it together).

    Attributes
    ----------
    dropped : collections.Counter
        Impressions not written, by the bound they would have crossed (``"total_bytes"``,
        ``"client_bytes"``), since this handle was opened.
    damage : str or None
        Why the log takes no more writes (:class:`LogDamaged`), once damage was seen.

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

    def __init__(self, path, *, max_days=90.0, max_rows=1_000_000, readonly=False, max_bytes=DEFAULT_MAX_BYTES,
                 client_share=DEFAULT_CLIENT_SHARE, busy_timeout=30.0):
        path = Path(path)
        if path.is_dir():
            path = path / FEEDBACK_FILE
        self.path = path
        self.max_days = float(_check_count(max_days, "max_days", 0))
        self.max_rows = int(_check_count(max_rows, "max_rows", 1))
        self.max_bytes = int(_check_count(max_bytes, "max_bytes", 1))
        if isinstance(client_share, bool) or not isinstance(client_share, (int, float)) \
                or not 0.0 < float(client_share) <= 1.0:
            raise ValueError(f"client_share must be a share in (0, 1]; got {client_share!r}")
        self.client_share = float(client_share)
        busy_timeout = float(_check_count(busy_timeout, "busy_timeout", 0))
        self.dropped = Counter()
        self.damage = None
        self._fd = None
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
                self._count_bytes()
                with open(path, "rb") as file:
                    head = file.read(100)
                if _header_problem(head) is not None:
                    raise sqlite3.DatabaseError(_header_problem(head))
            except sqlite3.DatabaseError as exc:
                self.conn.close()
                raise ValueError(f"{path}: not a learnsim feedback log ({exc}); move it away to start a new one") \
                    from None
            # what damage looks like is read from this file, not from whatever is at the path later
            self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
            st = os.fstat(self._fd)
            self._identity = (st.st_dev, st.st_ino)
            self.conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
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
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

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
        impression's id (a random token, what a click names; None when the bounds in bytes
        left it out, module notes). ``teams``: for an interleaved
        search, which ranking placed each shown id (``"s"`` served, ``"c"`` candidate)."""
        return self.record_impressions([(query, shown, model, client, teams)], now=now)[0]

    def record_impressions(self, items, *, now=None):
        """:meth:`record_impression` of each ``(query, shown, model, client, teams)`` in one
        transaction (a service under load commits the searches that wait together with one
        fsync); every item is checked before anything is written. Returns their ids, None for
        one past the bounds in bytes (not written; counted in :attr:`dropped`). Raises
        :class:`LogBusy` or :class:`LogDamaged` (module notes) when nothing could be written."""
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
            shown_json = json.dumps(shown, ensure_ascii=False)
            teams = None if teams is None else "".join(teams)
            size = len(query.encode("utf-8", "replace")) + len(shown_json.encode("utf-8", "replace")) \
                + len(teams or "") + IMPRESSION_ROW_BYTES
            rows.append((secrets.token_hex(12), stamp, query, shown_json,
                         None if model is None else str(model)[:200], self.pseudonym(client), teams, size))
        with self._transaction():
            kept, over = self._within_bounds(rows)
            self.conn.executemany("INSERT INTO impressions(id, time, query, shown, model, client, teams, bytes) "
                                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [row for row, keep in zip(rows, kept) if keep])
            self._retain(sum(kept))
        self.dropped.update(over)
        return [row[0] if keep else None for row, keep in zip(rows, kept)]

    def record_clicks(self, impression, clicked, *, dwell=None, relevance=None, client=None, now=None):
        """Record the clicks on an impression's results; returns how many, once they are durable.
        An unknown impression is a KeyError; an id it did not show, or one named twice, a ValueError; past the bounds
        in bytes, :class:`LogFull`; a locked or damaged log, :class:`LogBusy` or
        :class:`LogDamaged` (nothing is recorded, or, damage found after the commit, nothing is
        acknowledged)."""
        if not isinstance(impression, str):
            raise KeyError(f"impression must be the id a search answered; got {type(impression).__name__}")
        clicked = [self._id(x, "clicked") for x in clicked]
        if not clicked:
            raise ValueError("clicked must name at least one id")
        if len(set(clicked)) != len(clicked):
            # one request's clicks are the results followed, each once (a result followed again
            # later is another request): a list naming one many times says nothing more
            twice = next(x for i, x in enumerate(clicked) if x in clicked[:i])
            raise ValueError(f"clicked names {twice[:80]!r} more than once")
        for name, value in (("dwell", dwell), ("relevance", relevance)):
            if value is not None:
                _check_count(value, name, 0)
        with self._transaction():
            row = self.conn.execute("SELECT shown, client FROM impressions WHERE id = ?", (impression,)).fetchone()
            if row is None:
                raise KeyError(f"no impression {impression[:40]!r} (unknown, or past the log's retention)")
            position = {doc_id: i + 1 for i, doc_id in enumerate(json.loads(row[0]))}
            missing = [x for x in clicked if x not in position]
            if missing:
                raise ValueError(f"id {missing[0][:80]!r} was not shown by impression {impression!r}")
            before = self.conn.execute("SELECT COUNT(*) FROM clicks WHERE impression = ?", (impression,)).fetchone()[0]
            if before + len(clicked) > MAX_CLICKS:
                raise ValueError(f"impression {impression!r} has {before} clicks; it takes at most {MAX_CLICKS}")
            # charged to the search's client: whoever holds the impression's token
            size = sum(len(x.encode("utf-8", "replace")) + CLICK_ROW_BYTES for x in clicked)
            total, mine = self._usage(_TOTAL), self._usage(row[1] or "")
            if total + size > self.max_bytes:
                raise LogFull(f"the click log holds its bound of {self.max_bytes} bytes", "total")
            if mine + size > self.client_share * self.max_bytes:
                raise LogFull(f"the click log holds this client's share of its bound "
                              f"({self.client_share:.0%} of {self.max_bytes} bytes)", "client")
            self.conn.execute("UPDATE impressions SET bytes = bytes + ? WHERE id = ?", (size, impression))
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
        try:
            used = c.execute("SELECT bytes FROM usage WHERE client = ?", (_TOTAL,)).fetchone()
        except sqlite3.OperationalError:     # a log read only, made before issue 45: not counted
            used = None
        return {"impressions": n_imp, "clicks": n_clicks, "queries": queries, "clients": clients,
                "click_through_rate": (clicked / n_imp) if n_imp else None, "mean_click_position": mean_pos,
                "first": first, "last": last, "max_days": self.max_days, "max_rows": self.max_rows,
                "bytes": None if used is None else used[0], "max_bytes": self.max_bytes,
                "client_share": self.client_share}

    # ------------------------------------------------------------------ damage
    def check_header(self):
        """Raise :class:`LogDamaged` when the log's file is damaged (its header), or is no longer
        the file at its path (removed, replaced); cheap (a stat and 100 bytes read), so it runs
        before and after every write, and at each ``/healthz``."""
        if self.damage is not None:
            raise LogDamaged(self.damage)
        if self._fd is None:
            return
        try:
            st = os.stat(self.path)
            if (st.st_dev, st.st_ino) != self._identity:
                problem = "the file was replaced while in use"
            else:
                problem = _header_problem(_read_head(self._fd))
        except FileNotFoundError:
            problem = "the file was removed while in use"
        except OSError as exc:
            problem = f"it cannot be read ({exc.strerror or exc})"
        if problem is not None:
            self._damaged(problem)

    def check(self):
        """:meth:`check_header`, then SQLite's ``PRAGMA quick_check`` of every page (0.1 s for
        100 MB read from the page cache); :class:`LogDamaged` when either finds damage."""
        self.check_header()
        try:
            found = [r[0] for r in self.conn.execute("PRAGMA quick_check(3)")]
        except sqlite3.DatabaseError as exc:
            raise self._failure(exc) from None
        if found != ["ok"]:
            self._damaged("; ".join(str(x) for x in found))

    def _damaged(self, problem):
        self.damage = f"{FEEDBACK_FILE} is damaged: {' '.join(str(problem).split())[:300]}"
        raise LogDamaged(self.damage)

    def _failure(self, exc):
        """The FeedbackLogError of a sqlite3 error: busy, damaged (remembered), or another."""
        name = getattr(exc, "sqlite_errorname", None) or ""
        text = str(exc).lower()
        if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or (not name and ("locked" in text or "busy" in text)):
            return LogBusy(f"the click log is locked by another connection ({exc})")
        if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or (
                not name and ("malformed" in text or "not a database" in text)):
            try:
                self._damaged(str(exc))
            except LogDamaged as damaged:
                return damaged
        return FeedbackLogError(f"the click log could not be written ({exc})")

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
        """A write transaction, looked at for damage before it starts and after its commit (a
        write whose file was found damaged then is not acknowledged: LogDamaged)."""
        self.check_header()
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._failure(exc) from None
        try:
            yield
            self.conn.execute("COMMIT")
        except BaseException as exc:
            if self.conn.in_transaction:
                try:
                    self.conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            if isinstance(exc, sqlite3.Error):
                raise self._failure(exc) from None
            raise
        self.check_header()

    def _usage(self, client):
        row = self.conn.execute("SELECT bytes FROM usage WHERE client = ?", (client,)).fetchone()
        return 0 if row is None else int(row[0])

    def _within_bounds(self, rows):
        """(kept, over) for impression rows: whether each fits the bounds in bytes, the first come
        first; and a Counter of the reasons of those that do not."""
        total, mine, kept, over = self._usage(_TOTAL), {}, [], Counter()
        share = self.client_share * self.max_bytes
        for row in rows:
            who, size = row[5] or "", row[7]
            if who not in mine:
                mine[who] = self._usage(who)
            if total + size > self.max_bytes:
                over["total_bytes"] += 1
                kept.append(False)
            elif mine[who] + size > share:
                over["client_bytes"] += 1
                kept.append(False)
            else:
                total, mine[who] = total + size, mine[who] + size
                kept.append(True)
        return kept, over

    def _count_bytes(self):
        """Give a log its byte counts (issue 45) once: the ``bytes`` column, the ``usage`` table
        and the triggers that keep it, filled from the records already there."""
        columns = {row[1] for row in self.conn.execute("PRAGMA table_info(impressions)")}
        if "bytes" not in columns:
            self.conn.execute("ALTER TABLE impressions ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0")
        if self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'usage'").fetchone():
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            if not self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'usage'").fetchone():
                self.conn.execute(f"UPDATE impressions SET bytes = {_SIZE_OF_OLD_ROWS} WHERE bytes = 0")
                for statement in _USAGE:
                    self.conn.execute(statement)
                self.conn.execute("INSERT INTO usage(client, bytes) SELECT COALESCE(client, ''), SUM(bytes) "
                                  "FROM impressions GROUP BY 1")
                self.conn.execute("INSERT INTO usage(client, bytes) SELECT ?, COALESCE(SUM(bytes), 0) FROM impressions",
                                  (_TOTAL,))
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
