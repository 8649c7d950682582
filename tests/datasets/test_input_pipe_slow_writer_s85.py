"""A named pipe whose writer is there but slow to say its first byte (mkfifo docs.tsv; psql -c
'a slow query' > docs.tsv &: the shell opens the pipe, the query takes a minute) was refused after
PIPE_WRITER_WAIT (30 s) as "a named pipe that no program wrote to", where sort and grep wait for
it. The wait now bounds only the time until a program opens the pipe to write; a writer there is
waited on as those tools do. A pipe nobody opens is refused as before."""
from __future__ import annotations

import os
import threading
import time

import pytest

from learnsim.datasets import DocumentFormatError, read_documents
from learnsim.datasets import _open_input

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes (POSIX)")

LINES = "".join(f"{label}\t{word} {word} text number {i}\n"
                for i, (label, word) in enumerate([("a", "lava"), ("b", "goal")] * 6))


def _in_thread(call, seconds=20):
    outcome = []

    def run():
        try:
            outcome.append(call())
        except BaseException as exc:        # noqa: BLE001  (the test looks at it)
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    return outcome[0] if outcome else "hung"


@pytest.fixture
def short_wait(monkeypatch):
    monkeypatch.setattr(_open_input, "PIPE_WRITER_WAIT", 0.3)


@pytest.mark.parametrize("silent", [1.0, 0.05])
def test_a_writer_that_is_there_is_waited_on_past_the_wait(tmp_path, short_wait, silent):
    fifo = tmp_path / "docs.tsv"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "w", encoding="utf-8") as f:    # blocks until the reader opened it
            time.sleep(silent)                          # there, and silent longer than the wait
            f.write(LINES[:40])
            f.flush()
            time.sleep(silent)
            f.write(LINES[40:])

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    outcome = _in_thread(lambda: read_documents(fifo))
    writer.join(10)
    assert not isinstance(outcome, BaseException) and outcome != "hung", outcome
    assert outcome.texts == [line.split("\t", 1)[1] for line in LINES.splitlines()]


def test_a_writer_that_comes_late_is_still_refused(tmp_path, short_wait):
    fifo = tmp_path / "docs.tsv"
    os.mkfifo(fifo)
    outcome = _in_thread(lambda: read_documents(fifo))
    assert isinstance(outcome, DocumentFormatError), outcome
    assert "docs.tsv is a named pipe that no program" in str(outcome)


def test_a_writer_that_closes_at_once_is_an_empty_file(tmp_path, short_wait):
    fifo = tmp_path / "docs.tsv"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "w", encoding="utf-8"):
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    outcome = _in_thread(lambda: read_documents(fifo))
    writer.join(10)
    assert isinstance(outcome, Exception) and "contains no documents" in str(outcome), outcome


def test_a_byte_the_check_reads_is_kept():
    # data that comes between the wait's poll and its check is read by the check: it stays the
    # file's first byte
    r, w = os.pipe()
    os.set_blocking(r, False)
    os.write(w, b"abc\n")
    there, first = _open_input._writer_is_there(r)
    assert there and first == b"a"
    os.set_blocking(r, True)
    os.write(w, b"def\n")
    os.close(w)
    import io

    with io.BufferedReader(_open_input._ReadFirst(r, first)) as f:
        assert f.read() == b"abc\ndef\n"


def test_an_empty_pipe_with_a_writer_and_without_one():
    r, w = os.pipe()
    os.set_blocking(r, False)
    assert _open_input._writer_is_there(r) == (True, b"")
    os.close(w)
    assert _open_input._writer_is_there(r) == (False, b"")
    os.close(r)
