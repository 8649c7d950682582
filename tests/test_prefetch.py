"""Files read and hashed ahead while a command imports (learnsim._utils.prefetch), and the console
script that starts it for a search of an index (learnsim._console): the bytes a reader takes are
the bytes hashed, a file changed since is read again, damage is still found, nothing but regular
files named plainly by the manifest is read."""
from __future__ import annotations

import hashlib
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from index_edit import copy, pristine, read_manifest  # noqa: F401  (fixtures)

from learnsim import _console
from learnsim._utils import prefetch
from learnsim.index import Index, IndexDamagedError

QUERY = "w001 w002 w003"


@pytest.fixture
def ahead(monkeypatch):
    """Every file read ahead, whatever its size; a fresh table of entries."""
    monkeypatch.setattr(prefetch, "MIN_BYTES", 1)
    monkeypatch.setattr(prefetch, "_entries", {})
    return prefetch


def _done(paths, timeout=10.0):
    end = time.monotonic() + timeout
    while any(prefetch._entries.get(os.path.abspath(p), {}).get("state") in ("pending", "reading") for p in paths):
        assert time.monotonic() < end, "the read ahead did not finish"
        time.sleep(0.01)


def test_a_file_read_ahead_is_its_bytes_and_digest_once(ahead, tmp_path):
    file = tmp_path / "rows.npy"
    raw = os.urandom(300_000)
    file.write_bytes(raw)
    assert ahead.start([file]) == [str(file)]
    _done([file])
    buf, digest = ahead.take(file)
    assert bytes(buf) == raw and digest == hashlib.sha256(raw).hexdigest()
    assert ahead.take(file) is None                 # once: a second reader reads it itself


def test_a_file_changed_since_is_read_again(ahead, tmp_path):
    file = tmp_path / "rows.npy"
    file.write_bytes(b"a" * 5000)
    ahead.start([file])
    _done([file])
    time.sleep(0.01)
    file.write_bytes(b"b" * 5000)                   # same size, a later change time
    assert ahead.take(file) is None


def test_a_file_is_the_same_however_its_folder_is_written(ahead, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "idx").mkdir()
    (tmp_path / "idx" / "rows.npy").write_bytes(b"r" * 4000)
    ahead.start([os.path.join("./idx/", "rows.npy")])
    _done([tmp_path / "idx" / "rows.npy"])
    assert ahead.take(pathlib.Path("idx") / "rows.npy") is not None


def test_only_regular_files_and_a_reader_first_reads_itself(ahead, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    small = tmp_path / "small"
    small.write_bytes(b"x" * 10)
    assert ahead.start([fifo, tmp_path, tmp_path / "missing"]) == []
    # a file its reader asks for before the thread reaches it is left to the reader
    prefetch._entries[str(small)] = {"state": "pending"}
    assert ahead.take(small) is None and prefetch._entries[str(small)]["state"] == "claimed"
    prefetch._run([str(small)])
    assert prefetch._entries[str(small)]["state"] == "claimed"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_reads_its_files_itself(ahead, tmp_path):
    file = tmp_path / "rows.npy"
    file.write_bytes(b"f" * 5000)
    prefetch._entries[str(file)] = {"state": "reading"}      # as if the thread were reading it
    pid = os.fork()
    if pid == 0:                                               # the child: no thread, no wait
        signal.alarm(10)                                       # a wait for ever fails, not hangs
        os._exit(0 if prefetch.take(file) is None and not prefetch._entries else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    prefetch._entries.pop(str(file))


def test_the_files_of_an_index_and_a_hostile_manifest(copy, tmp_path):
    path = copy("mcd")
    m = read_manifest(path)
    files = prefetch.index_files(path)
    names = {os.path.basename(f) for f in files}
    assert {"dense.npy", "seqs.npy", "plan.json"} <= names
    assert all(os.path.isfile(f) for f in files)
    # names that are not plain file names are left out; no manifest, or not one: nothing
    m["plan_dir"] = "../elsewhere"
    m["segments"] = [{"name": "/etc"}, {"name": ".."}, "not a dict"]
    (path / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    assert prefetch.index_files(path) == []
    (path / "manifest.json").write_text("[1, 2", encoding="utf-8")
    assert prefetch.index_files(path) == []
    for segments in (5, "abc", {"name": "x"}):              # not a list: nothing of it is read
        (path / "manifest.json").write_text(json.dumps(dict(m, plan_dir=None, segments=segments)), encoding="utf-8")
        assert prefetch.index_files(path) == []
    (path / "manifest.json").unlink()
    os.mkfifo(path / "manifest.json")                       # never opened blocking: no stall
    assert prefetch.index_files(path) == []
    assert prefetch.index_files(tmp_path / "nowhere") == []


def test_an_index_read_ahead_gives_the_same_hits(ahead, copy):
    path = copy("mcd")
    with Index.open(path) as idx:
        want = [(h["id"], h["score"]) for h in idx.search(QUERY, k=5)]
    files = ahead.index_files(path)
    ahead.start(files)
    _done(files)
    with Index.open(path) as idx:
        got = [(h["id"], h["score"]) for h in idx.search(QUERY, k=5)]
    assert got == want
    taken = [f for f in files if f not in prefetch._entries]
    assert any(f.endswith("dense.npy") for f in taken)      # the rows came from the read ahead


def test_damage_read_ahead_is_still_damage(ahead, copy):
    path = copy("mcd")
    file = path / "segments" / read_manifest(path)["segments"][0]["name"] / "dense.npy"
    raw = bytearray(file.read_bytes())
    raw[-1] ^= 0xFF
    file.write_bytes(bytes(raw))
    files = ahead.index_files(path)
    ahead.start(files)
    _done(files)
    with pytest.raises(IndexDamagedError) as info:
        with Index.open(path) as idx:
            idx.search(QUERY, k=5)
    assert info.value.path == str(file)


@pytest.mark.parametrize("argv, folder", [
    (["search", "--index", "idx", "--query", "q"], "idx"),
    (["--debug", "search", "--query", "q", "--index=idx"], "idx"),
    (["search", "--query", "q", "--", "--index", "idx"], None),
    (["index", "info", "--index", "idx"], None),
    (["--progress"], None),
    ([], None),
])
def test_the_console_reads_ahead_for_a_search_of_an_index(argv, folder):
    assert _console._index_of_search(argv) == folder


@pytest.mark.parametrize("how", ["segments not a list", "manifest a FIFO"])
def test_the_console_script_on_a_hostile_index_says_one_line(copy, how):
    """The read ahead never stands between a damaged index and its own error."""
    path = copy("mcd")
    if how == "manifest a FIFO":
        (path / "manifest.json").unlink()
        os.mkfifo(path / "manifest.json")
    else:
        m = read_manifest(path)
        (path / "manifest.json").write_text(json.dumps(dict(m, segments=5)), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-m", "learnsim", "search", "--index", str(path), "--query", QUERY],
                         capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and "error:" in out.stderr and "Traceback" not in out.stderr


def test_the_console_script_searches(copy):
    path = copy("mcd")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-m", "learnsim", "search", "--index", str(path), "--query", QUERY,
                          "-k", "3", "--json"], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)[0]["hits"]
    with Index.open(path) as idx:
        assert [h["id"] for h in hits] == [h["id"] for h in idx.search(QUERY, k=3)]
