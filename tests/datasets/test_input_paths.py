"""Input paths that are not regular files: a named pipe nobody writes to, a device that reads
without end. Each is refused in bounded time naming the path; a pipe that is written to is read."""
from __future__ import annotations

import os
import threading

import pytest

from conftest import run_cli
from learnsim.datasets import DocumentFormatError, decoded_lines, read_documents
from learnsim.datasets import _open_input

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes (POSIX)")

LINES = "".join(f"{label}\t{word} {word} text number {i}\n"
                for i, (label, word) in enumerate([("a", "lava"), ("b", "goal")] * 6))


def _bounded(call, fifo=None, seconds=20):
    """What ``call()`` returned or raised, or "hung" once ``seconds`` passed (a writer that opens
    and closes ``fifo`` then frees the blocked reader, so the test itself always ends)."""
    outcome = []

    def run():
        try:
            outcome.append(call())
        except BaseException as exc:        # noqa: BLE001  (the test looks at it)
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        if fifo is not None:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            worker.join(30)
        return "hung"
    return outcome[0]


@pytest.fixture
def short_wait(monkeypatch):
    monkeypatch.setattr(_open_input, "PIPE_WRITER_WAIT", 0.3)


@pytest.mark.parametrize("name", ["docs.tsv", "docs.jsonl"])
def test_a_pipe_nobody_writes_to_is_refused_not_waited_on_forever(tmp_path, short_wait, name):
    fifo = tmp_path / name
    os.mkfifo(fifo)
    outcome = _bounded(lambda: read_documents(fifo), fifo)
    assert isinstance(outcome, DocumentFormatError), outcome
    assert f"{name} is a named pipe that no program wrote to in 0.3 s" in str(outcome)


def test_a_pipe_a_program_writes_to_is_read_as_the_file(tmp_path, short_wait):
    fifo = tmp_path / "docs.tsv"
    os.mkfifo(fifo)
    plain = tmp_path / "plain.tsv"
    plain.write_text(LINES, encoding="utf-8")

    def write():
        with open(fifo, "w", encoding="utf-8") as f:    # blocks until the reader opened it
            f.write(LINES)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    outcome = _bounded(lambda: read_documents(fifo), fifo)
    writer.join(10)
    expected = read_documents(plain)
    assert not isinstance(outcome, BaseException) and outcome != "hung", outcome
    assert outcome.texts == expected.texts and outcome.labels == expected.labels and len(outcome.texts) == 12


def test_a_device_that_reads_without_end_is_refused_before_a_line_is_read(tmp_path):
    # /dev/urandom behind a .tsv name was read line after line until memory ran out
    link = tmp_path / "random.tsv"
    link.symlink_to("/dev/urandom")
    lines = decoded_lines(link)
    with pytest.raises(DocumentFormatError, match=r"random\.tsv is a device or a socket, not a file"):
        next(lines)


def test_the_command_line_says_so_in_one_line(tmp_path, short_wait):
    fifo = tmp_path / "train.tsv"
    os.mkfifo(fifo)
    outcome = _bounded(lambda: run_cli(["fit", "--input", fifo, "--model", tmp_path / "m.npz"]), fifo)
    assert outcome != "hung" and not isinstance(outcome, BaseException), outcome
    code, out, err = outcome
    assert code == 2 and "Traceback" not in err, err[-2000:]
    assert len(err.strip().splitlines()) == 1 and "no program wrote to" in err, err
    link = tmp_path / "random.tsv"
    link.symlink_to("/dev/urandom")
    code, out, err = run_cli(["fit", "--input", link, "--model", tmp_path / "m.npz"])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "is a device or a socket" in err, err


def test_qrels_from_a_pipe_are_read_once_and_whole(tmp_path, short_wait):
    # the check for a binary file read the head of the pipe and closed it; the judgements were then
    # read from a second opening, which waited for a writer that had gone ('learnsim fit --qrels
    # <(zcat qrels.gz)' hung)
    from learnsim.datasets import read_qrels

    body = "query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i}\t1\n" for i in range(3000))
    plain = tmp_path / "plain.tsv"
    plain.write_text(body, encoding="utf-8")
    fifo = tmp_path / "qrels.tsv"
    os.mkfifo(fifo)

    def write():
        try:
            with open(fifo, "w", encoding="utf-8") as f:
                f.write(body)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    outcome = _bounded(lambda: read_qrels(fifo), fifo)
    writer.join(10)
    assert outcome == read_qrels(plain) and len(outcome) == 3000, str(outcome)[:300]
