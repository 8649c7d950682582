"""The documents of an index: ids, texts and metadata in SQLite, each write with a sequence number.

One table ``docs``: ``seq`` (INTEGER PRIMARY KEY AUTOINCREMENT: the sequence number of the add,
never reused), ``id`` (the user's id), ``text``, ``meta`` (JSON or NULL) and ``deleted_seq``
(NULL while the document is live, else the sequence number of the delete, from the table
``writes``). A live id is unique (a partial unique index). The database runs in WAL mode with
``synchronous=FULL``: once a commit returns, the write survives a crash of the process or of
the machine, which is what :meth:`learnsim.index.Index.add` acknowledges.

Only the standard library is imported here: opening an index to search must stay fast.
"""
from __future__ import annotations

import json
import math
import sqlite3

from ..exceptions import FilterError  # noqa: F401  (defined there; importable here as in 0.1)

__all__ = ["DocumentStore", "FilterError", "MAX_FILTER_VALUES", "check_metadata", "check_filter"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL,
    text TEXT NOT NULL,
    meta TEXT,
    deleted_seq INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS docs_live_id ON docs(id) WHERE deleted_seq IS NULL;
CREATE INDEX IF NOT EXISTS docs_deleted ON docs(deleted_seq) WHERE deleted_seq IS NOT NULL;
CREATE TABLE IF NOT EXISTS writes (seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL);
"""
# SQLite binds at most this many parameters in one statement (999 in old builds)
_CHUNK = 900


def _json_value_ok(value, depth=0):
    if depth > 32:
        return False
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(_json_value_ok(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_value_ok(v, depth + 1) for k, v in value.items())
    return False


def check_metadata(meta, where="metadata"):
    """A document's metadata: None or a dict of JSON values (str keys, finite numbers)."""
    if meta is None:
        return None
    if not isinstance(meta, dict):
        raise TypeError(f"{where} must be a dict (or None); got {type(meta).__name__}")
    if not _json_value_ok(meta):
        raise ValueError(f"{where} must hold JSON values only (str keys; str, int, float, bool, None, "
                         f"lists and dicts of them; no NaN or infinity); got {meta!r}")
    return json.dumps(meta, ensure_ascii=False, sort_keys=True, allow_nan=False)


# the values one filter may list, over all its fields: a filter is matched with one SQLite
# parameter per field and kind of value (a JSON array read by json_each), so the bound is the
# cost of a search, not SQLite's expression-tree depth (1,000 ORs failed there)
MAX_FILTER_VALUES = 10_000
_INT64 = (-(1 << 63), (1 << 63) - 1)


def _filter_value_ok(v):
    if v is None or isinstance(v, (str, bool)):
        return True
    if isinstance(v, int):
        # SQLite's integers are 64-bit: a larger one overflows in the driver
        return _INT64[0] <= v <= _INT64[1]
    return isinstance(v, float) and math.isfinite(v)


def check_filter(filter):
    """A metadata filter: {field: value} (equality) or {field: [v1, v2, ...]} (any of them).

    Returns a list of (field, values); fields are plain names (letters, digits, ``_``, ``-``),
    values str, bool, None, finite floats or integers within 64 bits, at most
    :data:`MAX_FILTER_VALUES` in all. Anything else raises :class:`FilterError` naming it.
    """
    if filter is None:
        return []
    if not isinstance(filter, dict) or not filter:
        raise FilterError(f"filter must be a non-empty dict {{field: value or [values]}}; got {_short(filter)}")
    out, total = [], 0
    for field, value in filter.items():
        if not isinstance(field, str) or not field or not all(c.isalnum() or c in "_-" for c in field):
            raise FilterError(f"filter field {_short(field)} must be a non-empty name of letters, digits, '_' or '-'")
        values = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
        if not values:
            raise FilterError(f"filter field {field!r} lists no value")
        total += len(values)
        if total > MAX_FILTER_VALUES:
            raise FilterError(f"the filter lists more than {MAX_FILTER_VALUES} values")
        for v in values:
            if not _filter_value_ok(v):
                raise FilterError(f"filter value of {field!r} must be a str, a finite number (an integer within "
                                  f"64 bits), a bool or None; got {_short(v)}")
        out.append((field, values))
    return out


def _short(value, limit=80):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


class DocumentStore:
    """The SQLite database of an index (see the module notes)."""

    def __init__(self, path, *, readonly=False):
        self.path = str(path)
        if readonly:
            # mode=ro still reads the WAL of a writer that crashed (it needs the -shm file)
            uri = "file:" + self.path.replace("?", "%3f").replace("#", "%23") + "?mode=ro"
            self.conn = sqlite3.connect(uri, uri=True, timeout=30.0, isolation_level=None, check_same_thread=False)
        else:
            # an Index may be used from several threads (a server's worker pool); the caller
            # serialises the calls (one lock per Index), which sqlite3's own check would refuse
            self.conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.executescript(_SCHEMA)
        self.conn.execute("PRAGMA synchronous=FULL")

    def close(self):
        self.conn.close()

    # ------------------------------------------------------------------ writes
    def add(self, ids, texts, metas):
        """Insert documents in one transaction; returns their sequence numbers (ascending).
        A live id already present, or repeated, is a ValueError and nothing is written."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            seqs = []
            for doc_id, text, meta in zip(ids, texts, metas):
                try:
                    if doc_id is None:
                        cur, doc_id = self._insert_numbered(text, meta)
                    else:
                        cur = conn.execute("INSERT INTO docs(id, text, meta) VALUES (?, ?, ?)", (doc_id, text, meta))
                except sqlite3.IntegrityError:
                    raise ValueError(f"id {doc_id!r} is already in the index (use update to replace it, "
                                     "or delete it first)") from None
                seqs.append(cur.lastrowid)
            conn.execute("INSERT INTO writes(kind) VALUES ('add')")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return seqs

    def _insert_numbered(self, text, meta):
        """Insert a document given no id: its id is its sequence number as a str. Where a live
        document was given that very id explicitly, the row takes the next sequence number
        instead (AUTOINCREMENT never hands one out twice), until its number is free: an automatic
        id never collides with an explicit one, so no explicit id can wedge later adds. Inside
        the caller's transaction; returns (cursor, id)."""
        conn = self.conn
        while True:
            cur = conn.execute("INSERT INTO docs(id, text, meta) VALUES (?, ?, ?)", ("\0pending", text, meta))
            doc_id = str(cur.lastrowid)
            if conn.execute("SELECT 1 FROM docs WHERE id = ? AND deleted_seq IS NULL", (doc_id,)).fetchone() is None:
                conn.execute("UPDATE docs SET id = ? WHERE seq = ?", (doc_id, cur.lastrowid))
                return cur, doc_id
            conn.execute("DELETE FROM docs WHERE seq = ?", (cur.lastrowid,))

    def delete(self, ids, *, missing_ok=False):
        """Tombstone the live documents of ``ids`` in one transaction; returns how many."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            n = 0
            if ids:
                seq = conn.execute("INSERT INTO writes(kind) VALUES ('delete')").lastrowid
                for doc_id in ids:
                    cur = conn.execute("UPDATE docs SET deleted_seq = ? WHERE id = ? AND deleted_seq IS NULL",
                                       (seq, doc_id))
                    if cur.rowcount == 0 and not missing_ok:
                        raise KeyError(f"id {doc_id!r} is not in the index")
                    n += cur.rowcount
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return n

    def update(self, ids, texts, metas):
        """Replace live documents (delete + add in one transaction); returns the new sequence numbers."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            seq = conn.execute("INSERT INTO writes(kind) VALUES ('update')").lastrowid
            seqs = []
            for doc_id, text, meta in zip(ids, texts, metas):
                cur = conn.execute("UPDATE docs SET deleted_seq = ? WHERE id = ? AND deleted_seq IS NULL",
                                   (seq, doc_id))
                if cur.rowcount == 0:
                    raise KeyError(f"id {doc_id!r} is not in the index (use add)")
                seqs.append(conn.execute("INSERT INTO docs(id, text, meta) VALUES (?, ?, ?)",
                                         (doc_id, text, meta)).lastrowid)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return seqs

    def upsert(self, ids, texts, metas):
        """Add the documents whose ids are new and replace the live ones, in one transaction;
        returns (sequence numbers, how many were added, how many replaced). An id given twice is
        a ValueError and nothing is written (which text would win is not the caller's to guess)."""
        seen = set()
        for doc_id in ids:
            if doc_id in seen:
                raise ValueError(f"id {doc_id!r} is given twice; an upsert takes each id once")
            seen.add(doc_id)
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            seq = conn.execute("INSERT INTO writes(kind) VALUES ('upsert')").lastrowid
            seqs, replaced = [], 0
            for doc_id, text, meta in zip(ids, texts, metas):
                replaced += conn.execute("UPDATE docs SET deleted_seq = ? WHERE id = ? AND deleted_seq IS NULL",
                                         (seq, doc_id)).rowcount
                seqs.append(conn.execute("INSERT INTO docs(id, text, meta) VALUES (?, ?, ?)",
                                         (doc_id, text, meta)).lastrowid)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return seqs, len(seqs) - replaced, replaced

    # ------------------------------------------------------------------ reads
    def last_seq(self):
        row = self.conn.execute("SELECT MAX(seq) FROM docs").fetchone()
        return int(row[0] or 0)

    def count(self, *, live=True, after=None):
        sql = "SELECT COUNT(*) FROM docs WHERE 1=1"
        args = []
        if live:
            sql += " AND deleted_seq IS NULL"
        if after is not None:
            sql += " AND seq > ?"
            args.append(int(after))
        return int(self.conn.execute(sql, args).fetchone()[0])

    def deleted_seqs(self):
        """Sequence numbers of the deleted documents."""
        return [r[0] for r in self.conn.execute("SELECT seq FROM docs WHERE deleted_seq IS NOT NULL")]

    def rows_after(self, seq):
        """(seq, text) of every document added after ``seq``, in order (deleted ones too)."""
        return self.conn.execute("SELECT seq, text FROM docs WHERE seq > ? ORDER BY seq", (int(seq),)).fetchall()

    def live_rows(self, batch=10_000):
        """(seq, id, text, meta) of the live documents in order, in batches."""
        cur = self.conn.execute("SELECT seq, id, text, meta FROM docs WHERE deleted_seq IS NULL ORDER BY seq")
        while True:
            rows = cur.fetchmany(batch)
            if not rows:
                return
            yield rows

    def documents(self, seqs):
        """{seq: (id, text, meta dict or None)} of the given sequence numbers."""
        out = {}
        seqs = [int(s) for s in seqs]
        for start in range(0, len(seqs), _CHUNK):
            chunk = seqs[start:start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for seq, doc_id, text, meta in self.conn.execute(
                    f"SELECT seq, id, text, meta FROM docs WHERE seq IN ({marks})", chunk):
                out[seq] = (doc_id, text, json.loads(meta) if meta is not None else None)
        return out

    def live_seq_of(self, doc_id):
        row = self.conn.execute("SELECT seq FROM docs WHERE id = ? AND deleted_seq IS NULL", (doc_id,)).fetchone()
        if row is None:
            raise KeyError(f"id {doc_id!r} is not in the index")
        return int(row[0])

    def seqs_matching(self, conditions):
        """Sequence numbers of the live documents whose metadata satisfies every (field, values).

        Each field is one condition whatever the number of its values: the values of a kind (text,
        number) go in as one JSON array parameter read by ``json_each``, so that 10,000 values
        neither build an expression tree SQLite refuses nor exceed its parameter limit."""
        sql = "SELECT seq FROM docs WHERE deleted_seq IS NULL"
        args = []
        for field, values in conditions:
            path = f'$."{field}"'
            ors = []
            texts = [v for v in values if isinstance(v, str)]
            numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
            if texts:
                ors.append("(json_type(meta, ?) = 'text' AND json_extract(meta, ?) IN "
                           "(SELECT value FROM json_each(?)))")
                args.extend([path, path, json.dumps(texts, ensure_ascii=False)])
            if numbers:
                # json_each gives integers as integers and floats as reals: 3 matches 3.0 as before
                ors.append("(json_type(meta, ?) IN ('integer', 'real') AND json_extract(meta, ?) IN "
                           "(SELECT value FROM json_each(?)))")
                args.extend([path, path, json.dumps(numbers)])
            for flag in sorted({v for v in values if isinstance(v, bool)}):
                ors.append("(json_type(meta, ?) = ?)")
                args.extend([path, "true" if flag else "false"])
            if any(v is None for v in values):
                ors.append("(json_type(meta, ?) = 'null')")
                args.append(path)
            sql += " AND (" + " OR ".join(ors) + ")"
        return [r[0] for r in self.conn.execute(sql, args)]
