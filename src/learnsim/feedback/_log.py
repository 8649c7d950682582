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
Impressions stop at :data:`CLICK_RESERVE` (a quarter) short of each bound, which clicks alone
may use: a log filled with impressions had refused every click until they aged out.
Past a bound the oldest impressions nobody clicked, once an hour old, make room for new records
(:mod:`learnsim.feedback._evict`); clicked impressions and their clicks stay.
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

**A log as this learnsim writes it** (:class:`LogFormatError`, a ValueError): when it opens and at
:meth:`FeedbackLog.check`, its tables, indexes and triggers are exactly those it makes (a column
dropped failed every click; a trigger added could delete each click as it was written; the
``usage`` triggers dropped lifted the bounds in bytes), and a log with impressions has its salt
(a new one would count every client twice). Its rows are checked as they are read (a time that
is no time, ids shown that are not a JSON list), the error naming the impression and the field.
A log another process holds locked for the whole of the open's wait is :class:`LogLocked`: busy,
not damaged.

**A format version** (:data:`FORMAT_VERSION`, SQLite's ``PRAGMA user_version`` of the file): a
writable open stamps the log with the version it writes; a log made before there was one reads 0
and is version 1. A learnsim that changes what the file holds writes a higher version, and a log
of a version past this learnsim's is :class:`LogTooNew` (a ValueError, not damage) at open,
naming the version, before anything is read as a log or written: the log was refused as "not a
learnsim feedback log ... move it away", as if damaged, where upgrading learnsim is the remedy.
While open, the version is read again at each check of the header (the file's bytes 60-63), in
each write's transaction and at :meth:`FeedbackLog.check`: a newer learnsim that stamped a shared
log (or a newer log copied over it) went unnoticed, and this one wrote on into it; now the log
takes no more writes (:class:`LogTooNew`, remembered as :attr:`FeedbackLog.damage`).
"""
from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import math
import numbers
import os
import secrets
import sqlite3
import time
from collections import Counter
from pathlib import Path

from .._utils.files import read_only_uri
from ._evict import EVICT_AFTER_S, Sweeper

__all__ = ["FeedbackLog", "FEEDBACK_FILE", "MAX_SHOWN", "MAX_QUERY_CHARS", "MAX_CLICKS", "DEFAULT_MAX_BYTES",
           "DEFAULT_CLIENT_SHARE", "CLICK_RESERVE", "MAX_DWELL", "MAX_RELEVANCE", "FORMAT_VERSION", "FeedbackLogError", "LogBusy", "LogDamaged",
           "LogFull", "LogFormatError", "LogLocked", "LogTooNew", "LogUnwritable"]

#: The log's file name in an index directory.
FEEDBACK_FILE = "feedback.sqlite"
#: The format version of the log this learnsim writes (its ``PRAGMA user_version``; 0, a log
#: made before the version, is read as 1). Raise it with any change to what the file holds that
#: an older learnsim would misread, and keep reading the versions before it.
FORMAT_VERSION = 1
#: Bounds of one record: ids shown per impression, characters of a query, of an id.
MAX_SHOWN = 1000
MAX_QUERY_CHARS = 10_000
MAX_ID_CHARS = 1000
#: Clicks one impression takes at most (a result clicked again is one more row: the bound keeps a
#: replayed click link from growing the log without end).
MAX_CLICKS = 100
#: The largest dwell (seconds) and relevance a click takes, the same as ``POST /v1/feedback``'s
#: (:class:`learnsim.service.app.FeedbackRequest`): a click the HTTP API refuses is refused here.
MAX_DWELL = 1e7
MAX_RELEVANCE = 1e3
#: The log's bound in bytes (``learnsim serve --feedback-max-bytes``), and the share of it one
#: client may hold (``--feedback-client-share``).
DEFAULT_MAX_BYTES = 256 * 2 ** 20
DEFAULT_CLIENT_SHARE = 0.1
#: The part of the bound in bytes, and of each client's share, that clicks alone may use:
#: impressions stop being recorded (dropped, counted in ``dropped``) once they would eat into it.
#: A log filled with impressions had refused every click (507) until they aged out, though a
#: click (48 bytes and its id) is what learning needs and an impression without one teaches
#: nothing. A quarter keeps room for about one click per impression kept (an impression of ten
#: ids is some 150 to 600 bytes).
CLICK_RESERVE = 0.25
#: What a row costs beyond its text (its id, time, model, client, the indexes' entries): an
#: impression's and a click's.
IMPRESSION_ROW_BYTES = 100
CLICK_ROW_BYTES = 48
#: Seconds opening a log waits for a lock another connection holds (worker processes open it
#: together), before :class:`LogLocked`.
OPEN_BUSY_TIMEOUT_S = 30.0
#: The times a record may carry (seconds since 1970): up to the end of the year 9999, the last a
#: date can name; a row past it, negative, or not a number was edited or damaged.
LAST_TIME = 253402300799.0
#: A record stamped more than this many seconds after now (a clock that was ahead, then set
#: right) cannot be dated: an age-based purge drops it with the old ones.
FUTURE_SLACK_S = 86400.0
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


class NotTheSearcher(PermissionError):
    """A click from another client than the search it names: a click is evidence of what its
    searcher found, and an impression's token alone (in a shared link, a page's source, a log)
    must not let anyone vote, or spend the searcher's share of the log, in the searcher's name."""


class LogFormatError(LogDamaged, ValueError):
    """The file is not a click log as this learnsim writes it: not SQLite, tables, indexes or
    triggers that are not the log's (dropped, added, edited), no salt beside its impressions, or
    a row that cannot be read (a time that is no time, ids shown that are not a JSON list). A
    ValueError too, so that the command line reports it in one line and a service refuses to
    start on it."""


class LogLocked(LogBusy, ValueError):
    """The log could not be opened: another connection (a purge, a backup, a sqlite3 shell) held
    its lock for the whole of :data:`OPEN_BUSY_TIMEOUT_S`. The log may be healthy: retry later. A
    ValueError too, as :class:`LogFormatError` (one line on the command line)."""


class LogUnwritable(FeedbackLogError, PermissionError):
    """A writable open of a log this user may not write here: a read-only file, folder or mount
    (or a read of a log in WAL mode in a folder SQLite may not make its -shm file in).
    It was told as damage ("not a learnsim feedback log ...; move it away", which loses the
    clicks recorded), or not at all (a read-only file opened, and every impression was dropped).
    A PermissionError too (one line on the command line); the log is left as it was."""


class LogTooNew(FeedbackLogError, ValueError):
    """The log was written by a newer learnsim: its format version (``version``) is past the
    newest this learnsim reads (``supported``, :data:`FORMAT_VERSION`). Not damage: the log is
    left as it is, and a learnsim of its version reads it. A ValueError, as
    :class:`LogFormatError` (one line on the command line, a service that does not start)."""

    def __init__(self, message, version, supported=FORMAT_VERSION):
        super().__init__(message)
        self.version, self.supported = version, supported


def _is_busy(exc):
    """Whether a sqlite3 error is a lock another connection holds (not damage)."""
    name = getattr(exc, "sqlite_errorname", None) or ""
    text = str(exc).lower()
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or (not name and ("locked" in text or "busy" in text))


def _is_read_only(exc):
    """Whether a sqlite3 error is SQLite refusing to write a read-only file, folder or mount."""
    code = getattr(exc, "sqlite_errorcode", None)
    return (code & 0xFF) == 8 if code is not None else "readonly database" in str(exc).lower()   # SQLITE_READONLY


def _unwritable_here(path):
    """Why this user cannot write the log at ``path`` (a few words), or None; asked before SQLite
    opens it, which opens a read-only file read-only without a word and makes no file in a
    read-only folder ("unable to open database file")."""
    if path.exists():
        return None if os.access(path, os.W_OK) else "the file is read-only for this user"
    folder = path.parent
    if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
        return "its folder is read-only for this user"
    return None


def _schema_of(conn):
    """{name: (type, definition)} of what a database holds, SQLite's own objects left out
    (``sqlite_sequence``, ``sqlite_stat1``, the automatic indexes of a key): a table's columns
    (name, declared type, not null, key) and foreign keys, an index's table and columns, a
    trigger's or a view's SQL with its spaces normalised."""
    out = {}
    for kind, name, table, sql in conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"):
        if name.startswith("sqlite_"):
            continue
        if kind == "table":
            columns = tuple(sorted((r[1], str(r[2]).upper(), int(r[3]), int(r[5]))
                                   for r in conn.execute(f'PRAGMA table_info("{name}")')))
            keys = tuple(sorted((r[2], r[3], r[4], r[6]) for r in conn.execute(f'PRAGMA foreign_key_list("{name}")')))
            out[name] = (kind, (columns, keys))
        elif kind == "index":
            columns = tuple(r[2] for r in conn.execute(f'PRAGMA index_info("{name}")'))
            out[name] = (kind, (table, columns))
        else:
            out[name] = (kind, " ".join(str(sql).split()))
    return out


_EXPECTED = None


def _expected_schema():
    """The schema this learnsim writes (made once, in memory, by the statements that make a log)."""
    global _EXPECTED
    if _EXPECTED is None:
        conn = sqlite3.connect(":memory:")
        try:
            conn.executescript(_SCHEMA)
            conn.execute("ALTER TABLE impressions ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0")
            for statement in _USAGE:
                conn.execute(statement)
            _EXPECTED = _schema_of(conn)
        finally:
            conn.close()
    return _EXPECTED


# what a log made before interleaving (issue 34) or before the bounds in bytes (issue 45) lacks:
# the open of a writable log adds it, a log read only is read without it
_LEGACY_COLUMNS = {("impressions", "teams"), ("impressions", "bytes")}
_USAGE_OBJECTS = ("usage", "usage_insert", "usage_update", "usage_delete")


def _schema_problem(found, *, legacy=False, missing_ok=False):
    """What sets the schema ``found`` (:func:`_schema_of`) apart from a log's, or None.

    A trigger, view, table or index the log does not make is damage (an added trigger could
    delete each click as it is written, a view in place of ``usage`` lift the bounds in bytes), as
    is one it makes that is missing or different. ``legacy``: a log made before the teams column,
    the byte counts (issue 45) or an index is one (the writable open adds them). ``missing_ok``:
    tables and indexes missing are not (a log that records nothing yet: its open makes them).
    """
    expected = _expected_schema()
    usage_absent = legacy and not any(name in found for name in _USAGE_OBJECTS)
    for name in sorted(found):
        if name not in expected:
            return f"it holds a {found[name][0]} {name} that this learnsim does not make"
    for name, (kind, definition) in expected.items():
        if name not in found:
            if usage_absent and name in _USAGE_OBJECTS or missing_ok and kind in ("table", "index") \
                    or legacy and kind == "index":
                continue
            return f"it has no {kind} {name}"
        got_kind, got = found[name]
        if got_kind != kind:
            return f"its {name} is a {got_kind}, not a {kind}"
        if kind == "table":
            want_columns = {c[0]: c for c in definition[0]}
            got_columns = {c[0]: c for c in got[0]}
            for column in want_columns:
                if column not in got_columns and not (legacy and (name, column) in _LEGACY_COLUMNS):
                    return f"{name} has no column {column}"
            for column, spec in sorted(got_columns.items()):
                if column not in want_columns:
                    return f"{name} has a column {column} that this learnsim does not make"
                if spec != want_columns[column]:
                    return f"{name}.{column} is not declared as this learnsim declares it"
            # (none at all: a log of an early learnsim, a foreign key cannot be added later)
            if got[1] and got[1] != definition[1]:
                return f"the foreign keys of {name} are not those this learnsim makes"
        elif got != definition:
            return f"its {kind} {name} is not the one this learnsim makes"
    return None


def _short_repr(value, n=40):
    text = repr(value)
    return text if len(text) <= n else text[:n] + "..."


def _time_ok(value):
    return not isinstance(value, bool) and isinstance(value, (int, float)) and 0.0 <= value <= LAST_TIME


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


def _check_grade(value, name, high):
    """A click's ``dwell`` or ``relevance``: None, or a finite number in [0, ``high``] as a float.
    A ValueError otherwise: an infinite dwell was written and acknowledged, and every read of the
    log then refused the row (the reader takes no number that is not finite)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number from 0 to {high:.0f}; got {type(value).__name__}")
    if not (math.isfinite(value) and 0 <= value <= high):
        raise ValueError(f"{name} must be a number from 0 to {high:.0f}; got {value!r}")
    return float(value)


def _whole(text, where):
    """``text``, or a ValueError (:class:`learnsim._utils.inputs.TextError`) naming ``where``
    when it holds a lone surrogate; an ASCII text is looked at no further."""
    if not text.isascii():
        from .._utils.inputs import check_text

        check_text(text, where)
    return text


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
        service: 0.05). Opening waits :data:`OPEN_BUSY_TIMEOUT_S` (30 s) whatever it is (worker
        processes open it together), then :class:`LogLocked`.
    create : bool, default=True
        Make the log when there is none (a writable open); False: a missing log is a
        FileNotFoundError (``learnsim feedback purge``: a command that maintains a log must not
        make one at a mistyped path).

    Raises
    ------
    FileNotFoundError
        No log at ``path`` (read only, or ``create=False``).
    LogFormatError
        The file is not a log as this learnsim writes it (module notes); a ValueError.
    LogLocked
        Another connection held the log's lock for the whole wait; a ValueError.
    LogUnwritable
        A writable open of a log (or its folder) this user may not write here, or a read of one
        in WAL mode in a folder this user may not write; a PermissionError.

    Attributes
    ----------
    dropped : collections.Counter
        Impressions not written, by the bound they would have crossed (``"total_bytes"``,
        ``"client_bytes"``), since this handle was opened.
    evicted : int
        Impressions without a click, an hour old at least, deleted to make room for new records
        at a bound in bytes (:mod:`learnsim.feedback._evict`), since this handle was opened.
    damage : str or None
        Why the log takes no more writes (:class:`LogDamaged`), once damage was seen.
    purged_future : int
        Of the impressions the last :meth:`purge` dropped, those stamped in the future.

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
                 client_share=DEFAULT_CLIENT_SHARE, busy_timeout=30.0, create=True):
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
        self.evicted = 0
        self._sweeper = Sweeper()
        self.damage = None
        self._newer = None          # the version of a newer learnsim's log, once seen while open
        self.purged_future = 0
        self._fd = None
        if (readonly or not create) and not path.is_file():
            # a command that reads or maintains a log never makes one (a mistyped path)
            raise FileNotFoundError(f"{path}: no feedback log (serve the index with --learn-from-clicks)")
        why = None if readonly else _unwritable_here(path)
        if why is not None:
            raise LogUnwritable(f"{path}: the feedback log cannot be written here ({why}); "
                                + ("it was left as it is" if path.exists() else "none was made"))
        try:
            if readonly:
                self.conn = sqlite3.connect(read_only_uri(path), uri=True, timeout=OPEN_BUSY_TIMEOUT_S,
                                            isolation_level=None, check_same_thread=False)
            else:
                self.conn = sqlite3.connect(str(path), timeout=OPEN_BUSY_TIMEOUT_S, isolation_level=None,
                                            check_same_thread=False)
        except sqlite3.Error as exc:
            raise LogFormatError(f"{path}: cannot be opened as a feedback log ({exc})") from None
        try:
            try:
                self._open(path, readonly)
            except sqlite3.DatabaseError as exc:
                if _is_busy(exc):
                    # a healthy log another process holds: not damage, nothing to move away
                    raise LogLocked(f"{path}: the feedback log is locked by another process ({exc}); "
                                    "retry when it is done") from None
                if _is_read_only(exc):
                    # a read-only folder or mount: SQLite may not make the log's -wal and -shm
                    # files, which a log in WAL mode is read through too
                    raise LogUnwritable(f"{path}: the feedback log cannot be {'read' if readonly else 'written'} here "
                                        f"({exc}: SQLite makes its -wal and -shm files beside it, and the folder "
                                        "or mount is read-only for this user); it was left as it is") from None
                raise LogFormatError(f"{path}: not a learnsim feedback log ({exc})"
                                     + ("" if readonly else "; move it away to start a new one")) from None
        except BaseException:
            self.conn.close()
            raise
        if not readonly:
            # what damage looks like is read from this file, not from whatever is at the path later
            self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
            st = os.fstat(self._fd)
            self._identity = (st.st_dev, st.st_ino)
            self.conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        self._writes = 0

    def _open(self, path, readonly):
        """Make (writable, a new file) or bring up to date (a log made before teams or the bounds
        in bytes) the log's tables, after checking that what the file holds is a log's: its
        schema, then its salt (:class:`LogFormatError` naming the problem). sqlite3 errors are the
        caller's to tell apart."""
        def refuse(problem):
            hint = "" if readonly else "; move it away to start a new one"
            raise LogFormatError(f"{path}: not a learnsim feedback log ({problem}){hint}")

        conn = self.conn
        # before anything is read as a log or written (even the journal mode): a newer learnsim's
        # log may hold what this one takes for damage, and must be left as it is
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > FORMAT_VERSION:
            raise LogTooNew(f"{path}: the feedback log was written by a newer learnsim (log format version "
                            f"{version}; this learnsim reads versions up to {FORMAT_VERSION}): upgrade learnsim "
                            "to use it; it was left as it is", version)
        if version < 0:
            refuse(f"its format version {version} is none that learnsim writes")
        if not readonly:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
        found = _schema_of(conn)
        # impressions recorded: then nothing may be missing (a log made afresh, or opened by
        # another worker while it is being made, is allowed its missing tables)
        recorded = "impressions" in found and conn.execute("SELECT EXISTS (SELECT 1 FROM impressions)").fetchone()[0]
        problem = _schema_problem(found, legacy=True, missing_ok=not readonly and not recorded)
        if problem is not None:
            refuse(problem)
        if not readonly:
            conn.executescript(_SCHEMA)
            # a log made before interleaving (issue 34) has no teams column: add it
            columns = {row[1] for row in conn.execute("PRAGMA table_info(impressions)")}
            if "teams" not in columns:
                conn.execute("ALTER TABLE impressions ADD COLUMN teams TEXT")
        row = conn.execute("SELECT value FROM meta WHERE key = 'salt'").fetchone()
        if row is None:
            if recorded:
                # a new salt would make every client a new pseudonym: each counted twice in the
                # per-client caps and a promotion's votes
                refuse("it has impressions but no salt (the key of its client pseudonyms)")
            if readonly:
                refuse("no salt")
            conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('salt', ?)", (secrets.token_hex(32),))
            row = conn.execute("SELECT value FROM meta WHERE key = 'salt'").fetchone()
        try:
            self._salt = bytes.fromhex(row[0])
        except (TypeError, ValueError):
            refuse("its salt is not the hexadecimal key this learnsim writes")
        if not self._salt:
            refuse("its salt is empty")
        if not readonly:
            self._count_bytes()
            problem = _schema_problem(_schema_of(conn))
            if problem is not None:
                refuse(problem)
            with open(path, "rb") as file:
                head = file.read(100)
            if _header_problem(head) is not None:
                refuse(_header_problem(head))
            if version != FORMAT_VERSION:
                # a new log, or one made before the version (read as version 1), now whole
                conn.execute(f"PRAGMA user_version = {FORMAT_VERSION}")
        # a log read only, made before interleaving, has no teams column
        columns = {r[1] for r in conn.execute("PRAGMA table_info(impressions)")}
        self._teams = "teams" if "teams" in columns else "NULL"
        self._legacy = readonly
        #: The format version the log is read as (one made before the version: 1).
        self.format_version = max(version, 1)

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
        # surrogatepass: only hashed, and "replace" made clients that differ by a lone surrogate
        # one ("?"); text of whole characters has the same bytes either way (its pseudonym kept)
        return hmac.new(self._salt, str(client).encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:16]

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
            # a lone surrogate has no UTF-8 to store: refused by field (it was sqlite3's
            # UnicodeEncodeError, naming nothing), as Index and learnsim.fit refuse such text
            _whole(query, "query")
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
            model = None if model is None else _whole(str(model)[:200], "model")
            rows.append((secrets.token_hex(12), stamp, query, shown_json, model, self.pseudonym(client), teams, size))
        with self._transaction():
            kept, over, evicted = self._insert_within_bounds(rows, stamp)
            self._retain(sum(kept))
        self.dropped.update(over)
        self.evicted += evicted
        return [row[0] if keep else None for row, keep in zip(rows, kept)]

    def record_clicks(self, impression, clicked, *, dwell=None, relevance=None, client=None, now=None):
        """Record the clicks on an impression's results; returns how many, once they are durable.
        An unknown impression is a KeyError; an id it did not show, or one named twice, a ValueError, and so is a
        ``dwell`` or ``relevance`` that is not a finite number from 0 to :data:`MAX_DWELL` (seconds) or
        :data:`MAX_RELEVANCE` (the HTTP API's bounds; nothing written); past the bounds
        in bytes, :class:`LogFull`; a locked or damaged log, :class:`LogBusy` or
        :class:`LogDamaged` (nothing is recorded, or, damage found after the commit, nothing is
        acknowledged). A ``client`` other than the impression's (both given) is
        :class:`NotTheSearcher`, nothing written."""
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
        dwell = _check_grade(dwell, "dwell", MAX_DWELL)
        relevance = _check_grade(relevance, "relevance", MAX_RELEVANCE)
        with self._transaction():
            row = self.conn.execute("SELECT shown, client FROM impressions WHERE id = ?", (impression,)).fetchone()
            if row is None:
                raise KeyError(f"no impression {impression[:40]!r} (unknown, or past the log's retention)")
            position = {doc_id: i + 1 for i, doc_id in enumerate(self._shown(impression, row[0]))}
            missing = [x for x in clicked if x not in position]
            if missing:
                raise ValueError(f"id {missing[0][:80]!r} was not shown by impression {impression!r}")
            before = self.conn.execute("SELECT COUNT(*) FROM clicks WHERE impression = ?", (impression,)).fetchone()[0]
            if before + len(clicked) > MAX_CLICKS:
                raise ValueError(f"impression {impression!r} has {before} clicks; it takes at most {MAX_CLICKS}")
            # only the searcher clicks on its search (NotTheSearcher); a caller that names no
            # client (the library's own) is not checked, nor an impression recorded without one
            if client is not None and row[1] is not None and self.pseudonym(client) != row[1]:
                raise NotTheSearcher(f"impression {impression[:40]!r} was answered to another client; "
                                     "a click is recorded only from the client that searched")
            # charged to the search's client, who is the clicker
            size = sum(len(x.encode("utf-8", "replace")) + CLICK_ROW_BYTES for x in clicked)
            total, mine = self._usage(_TOTAL), self._usage(row[1] or "")
            stamp = time.time() if now is None else float(now)
            # past a bound, the oldest impressions nobody clicked (an hour old at least) make room
            # (learnsim.feedback._evict); the clicked one never goes; nothing goes when not enough
            # can (the transaction is rolled back with the LogFull)
            share, evicted, before = self.client_share * self.max_bytes, 0, stamp - EVICT_AFTER_S
            if mine + size > share:
                evicted = self._sweeper.evict(self.conn, mine + size - share, client=row[1] or "", before=before,
                                          keep=impression)
                mine, total = self._usage(row[1] or ""), self._usage(_TOTAL)
            if mine + size <= share and total + size > self.max_bytes:
                evicted += self._sweeper.evict(self.conn, total + size - self.max_bytes, before=before, keep=impression)
                total = self._usage(_TOTAL)
            if total + size > self.max_bytes:
                raise LogFull(f"the click log holds its bound of {self.max_bytes} bytes", "total")
            if mine + size > share:
                raise LogFull(f"the click log holds this client's share of its bound "
                              f"({self.client_share:.0%} of {self.max_bytes} bytes)", "client")
            self.conn.execute("UPDATE impressions SET bytes = bytes + ? WHERE id = ?", (size, impression))
            who = self.pseudonym(client)
            self.conn.executemany(
                "INSERT INTO clicks(impression, doc_id, position, time, dwell, relevance, client) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(impression, x, position[x], stamp, dwell, relevance, who) for x in clicked])
        self.evicted += evicted
        return len(clicked)

    def purge(self, *, older_than_days=None, everything=False):
        """Drop records: all of them, or those older than ``older_than_days``; returns how many
        impressions went (their clicks with them). Those stamped more than
        :data:`FUTURE_SLACK_S` after now (a clock that was ahead, then set right) cannot be
        dated and go with the old ones (kept, no age bound would ever drop them); how many of
        them went is :attr:`purged_future`."""
        self.purged_future = 0
        with self._transaction():
            if everything:
                cur = self.conn.execute("DELETE FROM impressions")
            else:
                days = _check_count(older_than_days, "older_than_days", 0)
                now = time.time()
                self.purged_future = self._drop_future(now)
                cur = self.conn.execute("DELETE FROM impressions WHERE time < ?", (now - 86400.0 * days,))
        return cur.rowcount + self.purged_future

    def _drop_future(self, now):
        """Inside a write: drop the records that cannot be dated (stamped past now and
        FUTURE_SLACK_S, or not a number: SQLite orders text after every number); how many."""
        return self.conn.execute("DELETE FROM impressions WHERE time > ?", (now + FUTURE_SLACK_S,)).rowcount

    # ------------------------------------------------------------------ reads
    def impressions(self, *, with_clicks_only=False):
        """The impressions, oldest first: dicts with ``id``, ``time``, ``query``, ``shown``,
        ``model``, ``client``, ``teams`` (None, or the interleaved search's team of each shown id)
        and ``clicks`` (dicts with ``doc_id``, ``position``, ``time``,
        ``dwell``, ``relevance``). Each row is checked as it is read: a time that is no time, ids
        shown that are not a JSON list of ids, teams or a click's position that do not fit them
        (a row edited or damaged) is a :class:`LogFormatError` naming the impression and the field."""
        clicks = {}
        for imp, doc_id, pos, stamp, dwell, rel in self.conn.execute(
                "SELECT impression, doc_id, position, time, dwell, relevance FROM clicks ORDER BY seq"):
            if not isinstance(doc_id, str) or not doc_id:
                self._bad_row(imp, "a click's doc_id", doc_id, "is not an id")
            if isinstance(pos, bool) or not isinstance(pos, int) or not 1 <= pos <= MAX_SHOWN:
                self._bad_row(imp, "a click's position", pos, f"is not a whole number from 1 to {MAX_SHOWN}")
            if not _time_ok(stamp):
                self._bad_row(imp, "a click's time", stamp, "is not a time (seconds since 1970)")
            for name, value in (("dwell", dwell), ("relevance", rel)):
                if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                          or not 0 <= value < float("inf")):
                    self._bad_row(imp, f"a click's {name}", value, "is not a number >= 0")
            clicks.setdefault(imp, []).append({"doc_id": doc_id, "position": pos, "time": stamp, "dwell": dwell,
                                               "relevance": rel})
        for token, stamp, query, shown, model, client, teams in self.conn.execute(
                f"SELECT id, time, query, shown, model, client, {self._teams} FROM impressions ORDER BY time, rowid"):
            if with_clicks_only and token not in clicks:
                continue
            if not _time_ok(stamp):
                self._bad_row(token, "time", stamp, "is not a time (seconds since 1970)")
            if not isinstance(query, str):
                self._bad_row(token, "query", query, "is not a text")
            shown = self._shown(token, shown)
            if teams is not None and (not isinstance(teams, str) or len(teams) != len(shown)
                                      or not set(teams) <= {"s", "c"}):
                self._bad_row(token, "teams", teams, "is not an 's' or 'c' for each id shown")
            for click in clicks.get(token, ()):
                if click["position"] > len(shown) or shown[click["position"] - 1] != click["doc_id"]:
                    self._bad_row(token, "a click's position", click["position"],
                                  f"does not name its id {click['doc_id'][:80]!r} among those shown")
            yield {"id": token, "time": stamp, "query": query, "shown": shown, "model": model,
                   "client": client, "teams": None if teams is None else list(teams),
                   "clicks": clicks.get(token, [])}

    def _shown(self, token, text):
        """The ids an impression showed, from its row (LogFormatError when they are not a JSON list of ids)."""
        try:
            shown = json.loads(text) if isinstance(text, (str, bytes)) else None
        except ValueError:
            shown = None
        if not isinstance(shown, list) or not all(isinstance(x, str) and x for x in shown):
            self._bad_row(token, "shown", text, "is not a JSON list of ids")
        return shown

    def _bad_row(self, impression, field, value, problem):
        raise LogFormatError(f"{self.path}: impression {_short_repr(impression)}: {field} {_short_repr(value)} "
                             f"{problem} (the row was edited or damaged)")

    def stats(self):
        """Counts of the log: impressions, clicks, distinct queries and clients, the click-through
        rate (impressions with a click), the mean clicked position, the first and last time."""
        c = self.conn
        # the rows whose fields the counts use, checked (a time that is text would be the "last"
        # one: SQLite orders text after numbers)
        bad = c.execute("SELECT id, time FROM impressions WHERE NOT (typeof(time) IN ('integer', 'real') "
                        "AND time BETWEEN 0 AND ?) LIMIT 1", (LAST_TIME,)).fetchone()
        if bad is not None:
            self._bad_row(bad[0], "time", bad[1], "is not a time (seconds since 1970)")
        bad = c.execute("SELECT impression, position FROM clicks WHERE NOT (typeof(position) = 'integer' "
                        "AND position BETWEEN 1 AND ?) LIMIT 1", (MAX_SHOWN,)).fetchone()
        if bad is not None:
            self._bad_row(bad[0], "a click's position", bad[1], f"is not a whole number from 1 to {MAX_SHOWN}")
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
                "client_share": self.client_share, "click_reserve": CLICK_RESERVE}

    # ------------------------------------------------------------------ damage
    def check_header(self):
        """Raise :class:`LogDamaged` when the log's file is damaged (its header), or is no longer
        the file at its path (removed, replaced); cheap (a stat and 100 bytes read), so it runs
        before and after every write, and at each ``/healthz``."""
        if self.damage is not None:
            raise self.refusal()
        if self._fd is None:
            return
        head = None
        try:
            st = os.stat(self.path)
            if (st.st_dev, st.st_ino) != self._identity:
                problem = "the file was replaced while in use"
            else:
                head = _read_head(self._fd)
                problem = _header_problem(head)
        except FileNotFoundError:
            problem = "the file was removed while in use"
        except OSError as exc:
            problem = f"it cannot be read ({exc.strerror or exc})"
        if problem is not None:
            self._damaged(problem)
        # the format version the file's header gives (SQLite's user_version, bytes 60-63): a log
        # of a newer learnsim copied over this one, or stamped by one and checkpointed, is seen
        # here, at no cost (a stamp still in the WAL is seen by the next write, _transaction)
        self._check_version(int.from_bytes(head[60:64], "big", signed=True))

    def refusal(self):
        """The error a write of this log meets once it takes no more (:attr:`damage` set):
        :class:`LogTooNew` when a newer learnsim's version was seen while open, else
        :class:`LogDamaged`."""
        if self._newer is not None:
            return LogTooNew(self.damage, self._newer)
        return LogDamaged(self.damage)

    def _check_version(self, version):
        """:class:`LogTooNew` (remembered: no more writes) for a format version past this
        learnsim's, seen while the log is open: read only at the open, a newer learnsim that
        stamped the shared log went unnoticed, and this one wrote its records into it."""
        if version < 0:
            # as at the open: damage (none that learnsim writes), not a newer learnsim's
            self._damaged(f"its format version {version} is none that learnsim writes")
        if version <= FORMAT_VERSION:
            return
        self._newer = version
        self.damage = (f"{self.path.name} was stamped by a newer learnsim while in use (log format version "
                       f"{version}; this learnsim reads versions up to {FORMAT_VERSION}): it takes no more "
                       "records from this one; upgrade learnsim to use it")
        raise self.refusal()

    def check(self):
        """:meth:`check_header`, then SQLite's ``PRAGMA quick_check`` of every page (0.1 s for
        100 MB read from the page cache) and the log's schema (its tables, indexes and triggers
        exactly those this learnsim makes: a trigger added since the open could delete each
        click as it is written); :class:`LogDamaged` when any finds damage."""
        self.check_header()
        try:
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]
            found = [r[0] for r in self.conn.execute("PRAGMA quick_check(3)")]
            schema = _schema_of(self.conn)
        except sqlite3.DatabaseError as exc:
            raise self._failure(exc) from None
        self._check_version(version)
        if found != ["ok"]:
            self._damaged("; ".join(str(x) for x in found))
        problem = _schema_problem(schema, legacy=self._legacy)
        if problem is not None:
            self._damaged(f"not a learnsim feedback log ({problem})")

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
        return _whole(value, f"{name} ids")

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
            # the version as the transaction sees it (a stamp still in the WAL): one page read
            # from the cache, before anything is written
            self._check_version(self.conn.execute("PRAGMA user_version").fetchone()[0])
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
        self._check_committed()

    def _check_committed(self):
        """The damage check after a write's commit: :meth:`check_header` (LogDamaged: the
        write is not acknowledged). A subclass that can tell a committed write kept from one
        lost (the service's :class:`~learnsim.service._served_log.ServedLog`) refines it."""
        self.check_header()

    def _usage(self, client):
        row = self.conn.execute("SELECT bytes FROM usage WHERE client = ?", (client,)).fetchone()
        return 0 if row is None else int(row[0])

    def _insert_within_bounds(self, rows, stamp):
        """Write the impression rows that fit the bounds in bytes less the clicks' reserve
        (:data:`CLICK_RESERVE`), the first come first, the oldest impressions nobody clicked
        making room once an hour old (:mod:`learnsim.feedback._evict`: the client's own for its
        share, anyone's for the whole). Returns (kept, over, evicted): whether each was written, a
        Counter of the reasons of those that were not, and how many impressions made room."""
        room, kept, over, evicted = 1.0 - CLICK_RESERVE, [], Counter(), 0
        whole, share, before = room * self.max_bytes, room * self.client_share * self.max_bytes, stamp - EVICT_AFTER_S
        for row in rows:
            who, size = row[5] or "", row[7]
            mine, total = self._usage(who), self._usage(_TOTAL)
            if mine + size > share:
                n = self._sweeper.evict(self.conn, mine + size - share, client=who, before=before)
                evicted, mine, total = evicted + n, self._usage(who), self._usage(_TOTAL)
            if mine + size <= share and total + size > whole:
                evicted += self._sweeper.evict(self.conn, total + size - whole, before=before)
                total = self._usage(_TOTAL)
            # named as before: the whole bound first
            reason = "total_bytes" if total + size > whole else "client_bytes" if mine + size > share else None
            kept.append(reason is None)
            if reason is not None:
                over[reason] += 1
                continue
            self.conn.execute("INSERT INTO impressions(id, time, query, shown, model, client, teams, bytes) "
                              "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)
        return kept, over, evicted

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
        now = time.time()
        self._drop_future(now)
        self.conn.execute("DELETE FROM impressions WHERE time < ?", (now - 86400.0 * self.max_days,))
        n = self.conn.execute("SELECT COUNT(*) FROM impressions").fetchone()[0]
        if n > self.max_rows:
            drop = n - self.max_rows + self.max_rows // 10
            self.conn.execute("DELETE FROM impressions WHERE id IN (SELECT id FROM impressions ORDER BY time, rowid "
                              "LIMIT ?)", (drop,))
