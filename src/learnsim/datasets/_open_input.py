"""Opening an input file the user names, bounded whatever the path is.

A named pipe with no program writing to it made ``open`` wait for ever ('learnsim fit --input
FIFO.tsv' never returned), and a device that reads without end (``/dev/urandom`` behind a
``.tsv`` name) was read line after line until memory ran out (2.5 GB, then "MemoryError").
A pipe that a program writes to stays readable (``mkfifo p.tsv; zcat d.tsv.gz > p.tsv &``):
it is waited on for at most :data:`PIPE_WRITER_WAIT` seconds, then read as a file is.
"""
from __future__ import annotations

import errno
import os
import select
import stat

from ..exceptions import DocumentFormatError

__all__ = ["PIPE_WRITER_WAIT", "open_input"]

#: Seconds a named pipe given as an input is waited on for a program to write to it (or to
#: close it) before it is refused: long enough for a writer started beside learnsim.
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
        if stat.S_ISFIFO(mode):
            _wait_for_writer(fd, path)
        elif not stat.S_ISREG(mode):
            raise DocumentFormatError(f"{path} is a device or a socket, not a file: it may read without end; "
                                      "save what it holds to a file first")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _wait_for_writer(fd, path):
    if not hasattr(select, "poll"):      # no poll (Windows has no named pipes of this kind)
        return
    poller = select.poll()
    # a pipe no writer has opened yet reports nothing; data (POLLIN) or a writer that came
    # and went (POLLHUP, read as an empty file) end the wait
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    if not poller.poll(int(PIPE_WRITER_WAIT * 1000)):
        raise DocumentFormatError(
            f"{path} is a named pipe that no program wrote to in {PIPE_WRITER_WAIT:g} s; start the program "
            "that writes to it first, or save its output to a file")
