"""learnsim feedback on hostile arguments and damaged logs (from an attack sweep): an export never
overwrites the log or the index, a purge never makes a log at a mistyped path, a locked log is
busy (not "move it away"), and an edited or damaged log is one line and exit 2, never a traceback."""
from __future__ import annotations

import json
import os
import sqlite3
import time

import pytest

from index_models import corpus, model

from learnsim.cli import main
from learnsim.feedback import FEEDBACK_FILE, FeedbackLog
from learnsim.feedback import _log
from learnsim.index import Index

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("fb-damage") / "idx"
    Index.build(path, model("bm25"), texts[:40], ids[:40], meta[:40]).close()
    with FeedbackLog(path) as log:
        for k in range(12):
            imp = log.record_impression(f"query {k}", ids[:5], model="v1", client=f"c{k % 4}")
            log.record_clicks(imp, [ids[k % 3 + 1]])
    return path


@pytest.fixture
def fresh(built, tmp_path):
    import shutil

    shutil.copytree(built, tmp_path / "idx")
    return tmp_path / "idx"


def _one_line(capsys, *words):
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    for word in words:
        assert word in err[0], err
    return err[0]


def _stats(path, capsys):
    capsys.readouterr()
    assert main(["feedback", "stats", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_export_never_writes_over_the_log_or_the_index(fresh, tmp_path, capsys):
    before = _stats(fresh, capsys)
    manifest = (fresh / "manifest.json").read_bytes()
    link = tmp_path / "innocent.jsonl"
    os.symlink(fresh / FEEDBACK_FILE, link)
    for argv in (["--out", str(fresh / FEEDBACK_FILE)], ["--comparisons", "--out", str(fresh / "manifest.json")],
                 ["--out", str(link)], ["--out", str(fresh / "new.jsonl")],
                 ["--out", str(fresh / ".." / "idx" / FEEDBACK_FILE) + "-wal"]):
        assert main(["feedback", "export", str(fresh), *argv]) == 2, argv
        _one_line(capsys, "--out")
    assert _stats(fresh, capsys) == before and (fresh / "manifest.json").read_bytes() == manifest
    assert not (fresh / "new.jsonl").exists()
    out = tmp_path / "log.jsonl"             # a file outside the index is written as before
    assert main(["feedback", "export", str(fresh), "--out", str(out)]) == 0
    assert len(out.read_text(encoding="utf-8").splitlines()) == before["impressions"]


def test_purge_of_a_mistyped_path_makes_no_log(tmp_path, capsys):
    typo = tmp_path / "idx_typo"
    assert main(["feedback", "purge", str(typo), "--all"]) == 2
    _one_line(capsys, "no feedback log", "idx_typo")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["feedback", "purge", str(empty), "--older-than", "1"]) == 2
    _one_line(capsys, "no feedback log")
    assert not typo.exists() and list(empty.iterdir()) == []


def test_a_locked_log_is_busy_for_purge_not_damaged(fresh, capsys, monkeypatch):
    monkeypatch.setattr(_log, "OPEN_BUSY_TIMEOUT_S", 0.2)
    before = _stats(fresh, capsys)
    other = sqlite3.connect(fresh / FEEDBACK_FILE, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")          # a backup, a sqlite3 shell
    try:
        started = time.monotonic()
        assert main(["feedback", "purge", str(fresh), "--all"]) == 2
        line = _one_line(capsys, "locked", "retry")
        assert "not a learnsim" not in line and "move it away" not in line
        assert time.monotonic() - started < 4
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert _stats(fresh, capsys) == before


@pytest.mark.parametrize("sql, words", [
    ("UPDATE impressions SET time = 'abc' WHERE rowid = 3", ("time 'abc'",)),
    ("UPDATE impressions SET time = 1e20 WHERE rowid = 3", ("time 1e+20",)),
    ("UPDATE impressions SET time = -1e12 WHERE rowid = 3", ("time -1000000000000.0",)),
    ("UPDATE impressions SET shown = 'not json' WHERE rowid = 3", ("shown 'not json'",)),
    ("ALTER TABLE clicks DROP COLUMN position", ("not a learnsim feedback log", "clicks has no column position")),
])
def test_an_edited_log_is_one_line_and_exit_2(fresh, tmp_path, capsys, sql, words):
    conn = sqlite3.connect(fresh / FEEDBACK_FILE)
    token = conn.execute("SELECT id FROM impressions WHERE rowid = 3").fetchone()[0]
    conn.executescript(sql)
    conn.close()
    if "DROP" not in sql:
        words = (*words, token)
    commands = [["feedback", "export", str(fresh)], ["feedback", "export", str(fresh), "--comparisons"],
                ["fit", "--method", "relative", "--clicks-from", str(fresh), "--model", str(tmp_path / "m.npz")]]
    if "shown" not in sql:        # the counts do not read the ids shown
        commands.append(["feedback", "stats", str(fresh)])
    # a promotion the damaged log cannot decide: the input's fault (exit 2), not a refusal (exit 1)
    model("linklearn").save(tmp_path / "cand.npz")
    commands.append(["index", "promote", str(fresh), "--model", str(tmp_path / "cand.npz")])
    for argv in commands:
        assert main(argv) == 2, argv
        _one_line(capsys, FEEDBACK_FILE, *words)


def test_purge_counts_the_records_stamped_in_the_future(fresh, capsys):
    conn = sqlite3.connect(fresh / FEEDBACK_FILE)
    conn.execute("UPDATE impressions SET time = time + 86400 * 3650 WHERE rowid <= 5")
    conn.commit()
    conn.close()
    assert main(["feedback", "purge", str(fresh), "--older-than", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"purged_impressions": 12, "purged_future": 5}
    assert _stats(fresh, capsys)["impressions"] == 0
