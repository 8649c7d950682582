"""The click log refuses what it was not written as (from an attack sweep): a schema that is not
the one this learnsim makes (a column dropped, a trigger added or dropped, a view in place of a
table), impressions without their salt, rows edited into what no time or id list is; records
stamped in the future go with an age-based purge; a log merely locked is busy, not damaged; a
candidate is not promoted on the clicks of another index's log."""
from __future__ import annotations

import sqlite3
import time

import pytest

from learnsim.feedback import FEEDBACK_FILE, FeedbackLog
from learnsim.feedback import _log
from learnsim.feedback._log import LogBusy, LogDamaged, LogFormatError, LogLocked


def _log_with_records(directory, n=6):
    with FeedbackLog(directory) as log:
        for i in range(n):
            imp = log.record_impression(f"query {i}", ["a", "b", "c"], model="v1", client=f"c{i}")
            log.record_clicks(imp, ["b"])
    return directory / FEEDBACK_FILE


def _edit(file, sql):
    conn = sqlite3.connect(file)
    try:
        conn.executescript(sql)
    finally:
        conn.close()


def _master(file):
    conn = sqlite3.connect(file)
    try:
        return sorted(conn.execute("SELECT type, name, sql FROM sqlite_master"), key=str)
    finally:
        conn.close()


@pytest.mark.parametrize("sql, problem", [
    ("ALTER TABLE clicks DROP COLUMN position", "clicks has no column position"),
    ("DROP TRIGGER usage_insert; DROP TRIGGER usage_update; DROP TRIGGER usage_delete; "
     "ALTER TABLE impressions DROP COLUMN client", "impressions has no column client"),
    ("CREATE TRIGGER t AFTER INSERT ON clicks BEGIN DELETE FROM clicks WHERE seq = NEW.seq; END",
     "trigger t that this learnsim does not make"),
    ("DROP TRIGGER usage_insert", "no trigger usage_insert"),
    ("DROP TABLE usage; CREATE VIEW usage AS SELECT '*' AS client, 0 AS bytes", "usage is a view"),
    ("DROP TABLE clicks", "no table clicks"),
    ("DROP TABLE meta", "no table meta"),
    ("ALTER TABLE clicks ADD COLUMN extra TEXT NOT NULL DEFAULT 'x'", "clicks has a column extra"),
])
def test_a_log_whose_schema_is_not_this_learnsims_is_refused_at_open(tmp_path, sql, problem):
    file = _log_with_records(tmp_path)
    _edit(file, sql)
    before = _master(file)
    for readonly in (False, True):
        with pytest.raises(LogFormatError, match="not a learnsim feedback log") as info:
            FeedbackLog(tmp_path, readonly=readonly)
        message = str(info.value)
        assert problem in message and FEEDBACK_FILE in message and "\n" not in message
        # a ValueError (one line on the command line, a service that does not start) and damage
        assert isinstance(info.value, ValueError) and isinstance(info.value, LogDamaged)
    # refused, not "repaired": nothing was made or changed in the file
    assert _master(file) == before


def test_a_log_without_its_salt_is_refused_once_it_holds_impressions(tmp_path):
    file = _log_with_records(tmp_path)
    _edit(file, "DELETE FROM meta")
    with pytest.raises(LogFormatError, match="impressions but no salt"):
        FeedbackLog(tmp_path)
    # a log that records nothing yet may be given one (nothing is counted under the old one)
    empty = tmp_path / "empty"
    empty.mkdir()
    FeedbackLog(empty).close()
    _edit(empty / FEEDBACK_FILE, "DELETE FROM meta")
    with FeedbackLog(empty) as log:
        assert log.record_impression("q", ["a"]) is not None


def test_the_check_finds_a_trigger_added_while_the_log_is_open(tmp_path):
    file = _log_with_records(tmp_path)
    with FeedbackLog(tmp_path) as log:
        log.check()
        _edit(file, "CREATE TRIGGER t AFTER INSERT ON clicks BEGIN DELETE FROM clicks WHERE seq = NEW.seq; END")
        with pytest.raises(LogDamaged, match="trigger t"):
            log.check()
        assert "trigger t" in log.damage
        imp = next(log.impressions())["id"]
        with pytest.raises(LogDamaged):          # no click acknowledged into it
            log.record_clicks(imp, ["a"])


@pytest.mark.parametrize("sql, field", [
    ("UPDATE impressions SET time = 'abc' WHERE rowid = 2", "time 'abc'"),
    ("UPDATE impressions SET time = 1e20 WHERE rowid = 2", "time 1e+20"),
    ("UPDATE impressions SET time = -1e12 WHERE rowid = 2", "time -1000000000000.0"),
    ("UPDATE impressions SET shown = 'not json' WHERE rowid = 2", "shown 'not json'"),
    ("UPDATE impressions SET shown = '{\"a\": 1}' WHERE rowid = 2", "shown"),
    ("UPDATE impressions SET teams = 'xyz' WHERE rowid = 2", "teams 'xyz'"),
    ("UPDATE clicks SET position = 'abc' WHERE seq = 2", "a click's position 'abc'"),
    ("UPDATE clicks SET time = 'abc' WHERE seq = 2", "a click's time 'abc'"),
])
def test_an_edited_row_is_named_where_it_is_read(tmp_path, sql, field):
    file = _log_with_records(tmp_path)
    conn = sqlite3.connect(file)
    token = conn.execute("SELECT id FROM impressions WHERE rowid = 2").fetchone()[0]
    conn.close()
    _edit(file, sql)
    with FeedbackLog(tmp_path, readonly=True) as log:
        for read in (lambda: list(log.impressions()), lambda: list(log.impressions(with_clicks_only=True))):
            with pytest.raises(LogFormatError) as info:
                read()
            message = str(info.value)
            assert FEEDBACK_FILE in message and token in message and field in message, message
            assert isinstance(info.value, ValueError)
        if "time" in field and "click" not in field or "position" in field:
            with pytest.raises(LogFormatError, match=token):
                log.stats()


def test_records_stamped_in_the_future_go_with_an_age_based_purge(tmp_path):
    now = time.time()
    with FeedbackLog(tmp_path) as log:
        log.record_impression("recent", ["a"], now=now - 60)
        log.record_impression("old", ["a"], now=now - 40 * 86400)
        for days in (2, 3650):
            log.record_impression(f"ahead {days}", ["a"], now=now + days * 86400)
        log.record_impression("an hour ahead", ["a"], now=now + 3600)     # a clock a little fast: kept
        assert log.purge(older_than_days=30) == 3 and log.purged_future == 2
        assert sorted(imp["query"] for imp in log.impressions()) == ["an hour ahead", "recent"]
        assert log.purge(older_than_days=0) == 1 and log.purged_future == 0
    # the service's retention (--feedback-days) drops them too, at its next pass
    with FeedbackLog(tmp_path, max_days=30) as log:
        log.conn.execute("INSERT INTO impressions(id, time, query, shown, bytes) VALUES ('f', ?, 'f', '[\"a\"]', 1)",
                         (now + 3650 * 86400,))
        log.record_impression("now", ["a"])
        assert sorted(imp["query"] for imp in log.impressions()) == ["an hour ahead", "now"]


def test_a_locked_log_is_busy_not_damaged(tmp_path, monkeypatch):
    """A log another process holds locked while its open must write (here: adding the teams
    column to a log made before interleaving) is LogLocked, a ValueError, never "not a log"."""
    monkeypatch.setattr(_log, "OPEN_BUSY_TIMEOUT_S", 0.2)
    file = _log_with_records(tmp_path)
    _edit(file, "ALTER TABLE impressions DROP COLUMN teams")
    other = sqlite3.connect(file, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        with pytest.raises(LogLocked) as info:
            FeedbackLog(tmp_path)
        assert time.monotonic() - started < 3
        message = str(info.value)
        assert "locked by another process" in message and "not a learnsim" not in message and "move" not in message
        assert isinstance(info.value, LogBusy) and isinstance(info.value, ValueError)
        assert not isinstance(info.value, LogDamaged)
    finally:
        other.execute("ROLLBACK")
        other.close()
    with FeedbackLog(tmp_path) as log:     # the lock gone, the same log opens, whole
        assert log.stats()["clicks"] == 6


def test_a_log_is_never_made_where_it_is_only_to_be_maintained(tmp_path):
    with pytest.raises(FileNotFoundError, match="no feedback log"):
        FeedbackLog(tmp_path / "typo", create=False)
    with pytest.raises(FileNotFoundError, match="no feedback log"):
        FeedbackLog(tmp_path, create=False)
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    from index_models import staged_index

    return staged_index(tmp_path_factory.mktemp("foreign"))


@pytest.mark.parametrize("ids_of", ["this index", "another index"])
def test_a_click_log_of_another_index_is_no_evidence(staged, tmp_path, ids_of):
    """60 clients each click the candidate's first result of an interleaved search: evidence
    enough to promote when the ids are this index's documents, none when they are not."""
    import shutil

    from index_models import corpus

    from learnsim.feedback import interleaved_model, promotion_evidence
    from learnsim.index import Index

    path = tmp_path / "idx"
    shutil.copytree(staged, path)
    ids = corpus()[2][:6] if ids_of == "this index" else [f"zz{i}" for i in range(6)]
    with FeedbackLog(path) as log:
        for k in range(60):
            imp = log.record_impression(f"query {k % 8}", ids, model=interleaved_model(1, 2), client=f"c{k}",
                                        teams="cscscs", now=time.time() + 5)
            log.record_clicks(imp, [ids[0]], now=time.time() + 5)
    with Index.open(path) as index:
        evidence = promotion_evidence(index, index.version_pipeline(2))
    if ids_of == "this index":
        assert evidence["better"] is True and evidence["foreign_impressions"] == 0
    else:
        assert evidence["better"] is False and evidence["foreign_impressions"] == 60
        assert evidence["interleaving"]["searches"] == 0
        assert "60 searches with clicks left out" in evidence["reason"]
