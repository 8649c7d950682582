"""The click log's format version looked at while the log is open, not only when it opens: a
newer learnsim that stamps the log it shares with a running service (``PRAGMA user_version``,
committed into the WAL or checkpointed into the file), or a log of a newer version copied over
the file in place, went unnoticed: the service went on writing this version's records into a
newer version's log, and its check said nothing. Now the check of the file's header (a stat and
100 bytes, before and after every write, at ``/healthz``) reads the version the file's header
gives, every write reads it inside its transaction, and :meth:`FeedbackLog.check` too: a version
past this learnsim's is :class:`LogTooNew` (not damage), and the log takes no more writes."""
from __future__ import annotations

import sqlite3

import pytest

from learnsim.feedback import FEEDBACK_FILE, FeedbackLog
from learnsim.feedback._log import FORMAT_VERSION, LogTooNew

NEWER = FORMAT_VERSION + 1


def _stamp(file, version, checkpoint):
    """Another process (a newer learnsim) stamps the shared log."""
    conn = sqlite3.connect(file)
    try:
        conn.execute(f"PRAGMA user_version = {version}")
        if checkpoint:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def _counts(file):
    conn = sqlite3.connect(file)
    try:
        return (conn.execute("SELECT COUNT(*) FROM impressions").fetchone()[0],
                conn.execute("SELECT COUNT(*) FROM clicks").fetchone()[0])
    finally:
        conn.close()


@pytest.mark.parametrize("checkpoint", [False, True])
def test_a_log_stamped_newer_while_open_takes_no_more_writes(tmp_path, checkpoint):
    log = FeedbackLog(tmp_path)
    try:
        imp = log.record_impression("first query", ["a", "b"], client="c1")
        _stamp(tmp_path / FEEDBACK_FILE, NEWER, checkpoint)
        with pytest.raises(LogTooNew, match=f"version {NEWER}") as caught:
            log.record_clicks(imp, ["a"])
        assert caught.value.version == NEWER and isinstance(caught.value, ValueError)
        with pytest.raises(LogTooNew):
            log.record_impression("second query", ["a"], client="c1")
        with pytest.raises(LogTooNew):
            log.check()
        assert log.damage is not None and f"version {NEWER}" in log.damage
    finally:
        log.close()
    assert _counts(tmp_path / FEEDBACK_FILE) == (1, 0)        # nothing written after the stamp


def test_the_header_check_alone_sees_a_checkpointed_newer_version(tmp_path):
    log = FeedbackLog(tmp_path)
    try:
        log.record_impression("first query", ["a", "b"], client="c1")
        log.check_header()
        _stamp(tmp_path / FEEDBACK_FILE, NEWER, checkpoint=True)
        with pytest.raises(LogTooNew, match="newer learnsim"):
            log.check_header()       # what /healthz runs: no write, no SQL
    finally:
        log.close()


def test_a_log_read_only_sees_it_at_its_check(tmp_path):
    with FeedbackLog(tmp_path) as log:
        log.record_impression("first query", ["a", "b"], client="c1")
    with FeedbackLog(tmp_path, readonly=True) as log:
        log.check()
        _stamp(tmp_path / FEEDBACK_FILE, NEWER, checkpoint=False)
        with pytest.raises(LogTooNew):
            log.check()


def test_this_version_stamped_again_is_no_problem(tmp_path):
    log = FeedbackLog(tmp_path)
    try:
        imp = log.record_impression("first query", ["a", "b"], client="c1")
        _stamp(tmp_path / FEEDBACK_FILE, FORMAT_VERSION, checkpoint=True)
        assert log.record_clicks(imp, ["a"]) == 1
        log.check()
        assert log.damage is None
    finally:
        log.close()
