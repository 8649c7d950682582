"""A click log the machine will not let this user write (a read-only folder or mount, a log file
of mode 444, another user's). It was told as damage or as nothing: a read-only folder without a
log was "cannot be opened as a feedback log (unable to open database file)"; with a healthy log
in it, "not a learnsim feedback log (attempt to write a readonly database); move it away to start
a new one" (moving it away loses every click recorded); a read-only log file in a writable
folder opened, and ``learnsim serve --learn-from-clicks`` started "recording clicks" and dropped
every impression. Now each is a PermissionError at open (LogUnwritable) saying the log cannot be
written here, and the log is left as it was; a read-only file is still read (``readonly=True``).

Root ignores file modes: as root the child runs without CAP_DAC_OVERRIDE (setpriv), as any
other user directly."""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes")


def _prefix():
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root without setpriv: file modes cannot be made to bind")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search,-fowner,-linux_immutable", "--inh-caps=-all"]


CHILD = r"""
import json, sys
from learnsim.feedback import FeedbackLog
out = {}
try:
    FeedbackLog(sys.argv[1]).close()
    out["write"] = None
except Exception as exc:
    out["write"] = [type(exc).__name__, isinstance(exc, PermissionError), str(exc)]
if sys.argv[2] == "read":
    try:
        log = FeedbackLog(sys.argv[1], readonly=True)
        out["impressions"] = log.stats()["impressions"]
        log.close()
    except Exception as exc:
        out["impressions"] = [type(exc).__name__, isinstance(exc, PermissionError), str(exc)]
print(json.dumps(out))
"""


def _child(folder, read):
    src = str(Path(__import__("learnsim").__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(_prefix() + [sys.executable, "-c", CHILD, str(folder), "read" if read else "-"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _log_with_one_impression(folder):
    from learnsim.feedback import FeedbackLog
    folder.mkdir()
    log = FeedbackLog(folder)
    log.record_impression("reset password", ["d3", "d7"], model="v1", client="10.0.0.5")
    log.close()
    return folder / "feedback.sqlite"


def _read_only(*paths):
    for p in paths:
        p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _writable(*paths):
    for p in paths:
        p.chmod(p.stat().st_mode | stat.S_IWUSR)


def _says_unwritable(failure, path):
    name, is_permission, message = failure
    assert is_permission, failure
    assert str(path) in message and "cannot be written" in message, message
    assert "move it away" not in message and "not a learnsim feedback log" not in message, message


def test_a_read_only_folder_without_a_log(tmp_path):
    folder = tmp_path / "idx"
    folder.mkdir()
    _read_only(folder)
    try:
        out = _child(folder, read=False)
    finally:
        _writable(folder)
    _says_unwritable(out["write"], folder / "feedback.sqlite")
    assert not (folder / "feedback.sqlite").exists()


def test_a_read_only_folder_with_a_healthy_log_is_left_as_it_was(tmp_path):
    path = _log_with_one_impression(tmp_path / "idx")
    before = {p.name: p.read_bytes() for p in path.parent.iterdir()}
    _read_only(path.parent, *path.parent.iterdir())
    try:
        out = _child(path.parent, read=True)
    finally:
        _writable(path.parent, *path.parent.iterdir())
    _says_unwritable(out["write"], path)
    # read: SQLite reads a log in WAL mode through a -shm file it cannot make in this folder; a
    # healthy log was "not a learnsim feedback log (attempt to write a readonly database)"
    name, is_permission, message = out["impressions"]
    assert is_permission and "cannot be read here" in message and "not a learnsim" not in message, message
    assert {p.name: p.read_bytes() for p in path.parent.iterdir()} == before


def test_a_read_only_log_file_in_a_writable_folder(tmp_path):
    path = _log_with_one_impression(tmp_path / "idx")
    _read_only(path)
    try:
        out = _child(path.parent, read=True)
    finally:
        _writable(path)
    _says_unwritable(out["write"], path)
    assert out["impressions"] == 1
