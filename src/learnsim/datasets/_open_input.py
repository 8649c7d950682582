"""Opening an input file the user names, bounded whatever the path is.

A named pipe with no program writing to it made ``open`` wait for ever ('learnsim fit --input
FIFO.tsv' never returned), and a device that reads without end (``/dev/urandom`` behind a
``.tsv`` name) was read line after line until memory ran out (2.5 GB, then "MemoryError").
A pipe that a program writes to stays readable (``mkfifo p.tsv; zcat d.tsv.gz > p.tsv &``):
a program is waited on for at most :data:`PIPE_WRITER_WAIT` seconds to open it, then the pipe
is read as a file is, its writer waited on however long it is silent (a slow query's output
was refused after those 30 s as a pipe nobody wrote to).
"""
from __future__ import annotations

import errno
import io
import os
import select
import stat

from ..exceptions import DocumentFormatError

__all__ = ["PIPE_WRITER_WAIT", "open_input"]

#: Seconds a named pipe given as an input is waited on for a program to open it to write (or to
#: write to it and close it) before it is refused: long enough for a writer started beside learnsim.
PIPE_WRITER_WAIT = 30.0


def open_input(path):
    """``path`` opened for reading in binary: a regular file, or a named pipe once a program
    writes to it. A device or a socket, and a pipe no program opens to write within
    :data:`PIPE_WRITER_WAIT` seconds, raise :class:`DocumentFormatError` naming the path;
    FileNotFoundError, IsADirectoryError and the other OSErrors as ``open`` raises them."""
    # O_NONBLOCK: the open of a pipe returns at once instead of waiting for a writer; the
    # type is then told from the opened descriptor, so it cannot change between check and read
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        first = b""
        if stat.S_ISFIFO(mode):
            first = _wait_for_writer(fd, path)
        elif not stat.S_ISREG(mode):
            raise DocumentFormatError(f"{path} is a device or a socket, not a file: it may read without end; "
                                      "save what it holds to a file first")
        os.set_blocking(fd, True)
        if first:
            return io.BufferedReader(_ReadFirst(fd, first))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _wait_for_writer(fd, path):
    """Wait for the pipe ``fd`` to be written to; returns the byte a check read from it, if any."""
    if not hasattr(select, "poll"):      # no poll (Windows has no named pipes of this kind)
        return b""
    import time

    poller = select.poll()
    # a pipe no writer has opened yet reports nothing; data (POLLIN) or a writer that came
    # and went (POLLHUP, read as an empty file) end the wait
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    deadline = time.monotonic() + PIPE_WRITER_WAIT
    while not poller.poll(max(0, min(200, int((deadline - time.monotonic()) * 1000)))):
        there, first = _writer_is_there(fd)
        if first:
            return first
        if there:
            # there, and slow to say its first byte (a query's output): waited on, as sort and
            # grep wait; it was refused after PIPE_WRITER_WAIT as if nobody wrote to the pipe
            return b""
        if time.monotonic() >= deadline:
            raise DocumentFormatError(
                f"{path} is a named pipe that no program wrote to in {PIPE_WRITER_WAIT:g} s; start the "
                "program that writes to it first, or save its output to a file")
    return b""


def _writer_is_there(fd):
    """(whether a program holds the pipe ``fd``, opened without blocking, open to write, the byte
    the check read). An empty pipe's read fails with EAGAIN while a writer holds it and reads the
    end of the file while none does (POSIX); a byte written meanwhile is read, and kept."""
    try:
        first = os.read(fd, 1)
    except BlockingIOError:
        return True, b""
    except OSError:
        return False, b""
    return bool(first), first


class _ReadFirst(io.RawIOBase):
    """The pipe ``fd`` read from its start: ``first``, the bytes a check took from it, then the rest."""

    def __init__(self, fd, first):
        self._fd, self._first = fd, first

    def readable(self):
        return True

    def fileno(self):
        return self._fd

    def readinto(self, buffer):
        if self._first:
            n = min(len(buffer), len(self._first))
            buffer[:n], self._first = self._first[:n], self._first[n:]
            return n
        return os.readv(self._fd, [buffer])

    def close(self):
        if not self.closed:
            try:
                os.close(self._fd)
            finally:
                super().close()
