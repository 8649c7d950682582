"""The click log's format version (SQLite's ``PRAGMA user_version``): a log this learnsim makes
says which version it is; a log made before there was one (user_version 0) is read as version 1,
as it was; a log a newer learnsim wrote (a higher version, whatever its tables hold) is refused
at open with a message saying so and naming its version, not as damage ("not a learnsim feedback
log ... move it away", which it had been: the log had no version to tell the two apart), and is
left as it was; a version that no learnsim writes (negative) is damage."""
from __future__ import annotations

import sqlite3

import pytest

from learnsim.cli import main
from learnsim.feedback import FEEDBACK_FILE, FeedbackLog
from learnsim.feedback import _log
from learnsim.feedback._log import FORMAT_VERSION, LogDamaged, LogFormatError, LogTooNew


def _log_with_records(directory, n=4):
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


def _version(file):
    conn = sqlite3.connect(file)
    try:
        return conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()


def _contents(file):
    """Everything a reader could tell apart: the schema, the version, every row."""
    conn = sqlite3.connect(file)
    try:
        master = sorted(conn.execute("SELECT type, name, sql FROM sqlite_master"), key=str)
        rows = {name: sorted(conn.execute(f'SELECT * FROM "{name}"'), key=str)
                for (kind, name, _) in master if kind == "table" and not name.startswith("sqlite_")}
        return master, conn.execute("PRAGMA user_version").fetchone()[0], rows
    finally:
        conn.close()


def test_a_new_log_says_its_format_version(tmp_path):
    assert FORMAT_VERSION == 1
    file = _log_with_records(tmp_path)
    assert _version(file) == FORMAT_VERSION


def test_a_log_made_before_the_version_is_read_as_version_1(tmp_path):
    file = _log_with_records(tmp_path)
    _edit(file, "PRAGMA user_version = 0")
    with FeedbackLog(tmp_path, readonly=True) as log:
        assert log.format_version == 1
        assert log.stats()["clicks"] == 4
    assert _version(file) == 0                  # a reader writes nothing
    with FeedbackLog(tmp_path) as log:          # the writable open stamps it
        assert log.format_version == 1
        assert log.stats()["impressions"] == 4
    assert _version(file) == FORMAT_VERSION


def test_a_log_made_before_interleaving_and_the_version_still_opens(tmp_path):
    file = _log_with_records(tmp_path)
    _edit(file, "ALTER TABLE impressions DROP COLUMN teams; PRAGMA user_version = 0")
    with FeedbackLog(tmp_path) as log:
        assert log.stats()["clicks"] == 4
    assert _version(file) == FORMAT_VERSION


@pytest.mark.parametrize("sql", [
    "PRAGMA user_version = 2",
    # what a newer learnsim might change: a column, a table of its own
    "ALTER TABLE clicks ADD COLUMN session TEXT; CREATE TABLE sessions (id TEXT PRIMARY KEY); "
    "PRAGMA user_version = 2",
    "PRAGMA user_version = 7",
])
def test_a_log_of_a_newer_learnsim_is_refused_as_such_and_left_as_it_is(tmp_path, sql):
    file = _log_with_records(tmp_path)
    _edit(file, sql)
    version = _version(file)
    before = _contents(file)
    for readonly in (False, True):
        with pytest.raises(LogTooNew) as info:
            FeedbackLog(tmp_path, readonly=readonly)
        message = str(info.value)
        assert "newer learnsim" in message and f"format version {version}" in message, message
        assert f"up to {FORMAT_VERSION}" in message and FEEDBACK_FILE in message and "\n" not in message
        assert "not a learnsim feedback log" not in message and "damaged" not in message
        assert "move it away" not in message
        assert (info.value.version, info.value.supported) == (version, FORMAT_VERSION)
        # one line on the command line, a service that does not start; not damage
        assert isinstance(info.value, ValueError) and not isinstance(info.value, LogDamaged)
    assert _contents(file) == before


def test_a_version_no_learnsim_writes_is_damage(tmp_path):
    file = _log_with_records(tmp_path)
    _edit(file, "PRAGMA user_version = -1")
    for readonly in (False, True):
        with pytest.raises(LogFormatError, match=r"not a learnsim feedback log \(its format version -1 "):
            FeedbackLog(tmp_path, readonly=readonly)


def test_a_log_of_this_version_with_a_column_added_is_still_damage(tmp_path):
    file = _log_with_records(tmp_path)
    _edit(file, "ALTER TABLE clicks ADD COLUMN extra TEXT")
    assert _version(file) == FORMAT_VERSION
    with pytest.raises(LogFormatError, match="clicks has a column extra"):
        FeedbackLog(tmp_path)


def test_the_command_line_says_so_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_log, "OPEN_BUSY_TIMEOUT_S", 1.0)
    file = _log_with_records(tmp_path)
    _edit(file, "PRAGMA user_version = 3")
    before = _contents(file)
    for argv in (["feedback", "stats", str(tmp_path)], ["feedback", "purge", str(tmp_path), "--all"]):
        capsys.readouterr()
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "Traceback" not in err[0], err
        assert "newer learnsim" in err[0] and "format version 3" in err[0], err
    assert _contents(file) == before            # the purge purged nothing
