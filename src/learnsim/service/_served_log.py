"""The click log as ``learnsim serve --learn-from-clicks`` holds it open: a
:class:`learnsim.feedback.FeedbackLog` whose damage checks also watch its write-ahead files.

SQLite writes each commit into ``feedback.sqlite-wal`` and copies it into ``feedback.sqlite``
only at a checkpoint; ``feedback.sqlite-shm`` indexes the WAL for every process that shares the
log (``--workers N``, a purge, a promotion reading it). Neither is ever removed while a
connection is open: SQLite removes them when the last one closes. One removed under the service
(a clean-up of "temporary" files, a backup tool moving them away) was not seen: the service's
connection wrote on into the unlinked WAL, clicks were answered 201 and ``/healthz`` said "ok",
a reader got "disk I/O error", and once the process died every record since the last checkpoint
was gone (the whole log, before any checkpoint: the next start found no table at all). A new
``-shm`` made by the next process to open the log splits the processes between two indexes of
one WAL.

:class:`ServedLog` takes the identity (device, inode) of both files when it opens and, at each
:meth:`~ServedLog.check_header` (around every write, and at ``/healthz``), finds one removed or
replaced to be damage (:class:`learnsim.feedback._log.LogDamaged`: no more writes, nothing
acknowledged after, ``/healthz`` degraded). What the unlinked WAL holds is copied into the log's
own file then (:meth:`~ServedLog.rescue`, a checkpoint through the connection, which still has
the file open), in the log's thread, so that what was acknowledged survives a crash. A write
whose commit came before the removal was found (:meth:`~ServedLog._check_committed`) is
acknowledged when the rescue copied it: it is kept, and refusing it made a client retry a saved
click (counted twice) or take it for lost.
"""
from __future__ import annotations

import logging
import os
import sqlite3

from ..feedback import FeedbackLog
from ..feedback._log import LogDamaged

__all__ = ["ServedLog", "COMPANIONS"]

log = logging.getLogger("learnsim.service")

#: The files SQLite keeps beside a log in WAL mode, by suffix, and what each is called in a message.
COMPANIONS = {"-wal": "write-ahead log", "-shm": "shared-memory index of the write-ahead log"}


def _identity(path):
    """(device, inode) of ``path``; None when there is no such file, False when it cannot be
    looked at (the log's own file is then found unreadable by the check of its header)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError:
        return False
    return (st.st_dev, st.st_ino)


class ServedLog(FeedbackLog):
    """A :class:`~learnsim.feedback.FeedbackLog` that also finds its write-ahead files removed or
    replaced (module notes). Its writes, and :meth:`rescue`, run in one thread (the service's
    log thread); :meth:`check_header` with ``rescue=False`` may run in any (``/healthz``)."""

    def __init__(self, path, **options):
        super().__init__(path, **options)
        # the writable open wrote (or read in WAL mode), so both files are there now
        self._companions = {suffix: _identity(f"{self.path}{suffix}") for suffix in COMPANIONS}
        self.rescue_pending = False

    def check_header(self, rescue=True):
        """The log's own check, then its write-ahead files' (module notes). ``rescue``: copy
        what the WAL holds into the log's file at once when they were removed (the caller is
        the log's thread); else :attr:`rescue_pending` says that :meth:`rescue` is to run."""
        super().check_header()
        problem = self._companion_problem()
        if problem is not None:
            self.rescue_pending = True
            if rescue:
                self.rescue()
            self._damaged(problem)

    def _companion_problem(self):
        """What happened to a write-ahead file since the open (removed, replaced), or None."""
        for suffix, known in self._companions.items():
            found = _identity(f"{self.path}{suffix}")
            if found is False:
                continue
            if known is None:
                # not there at the open (a log read before its first write): from when it is
                self._companions[suffix] = found
                continue
            if found != known:
                return (f"its {COMPANIONS[suffix]} {self.path.name}{suffix} was "
                        f"{'removed' if found is None else 'replaced'} while in use")
        return None

    def _check_committed(self):
        """After a write's commit: a write-ahead file removed (or replaced) since the check before
        it is damage, but the write itself is not lost when the rescue copies it into the log's
        own file. It was refused (503) all the same: the client took a saved click for lost, or
        retried it on a new log and counted it twice. Now it is acknowledged once the rescue copied
        every page; the damage is kept (``/healthz`` degraded, the next write refused). The log's
        own file found damaged or replaced is not rescued (the write went to another file)."""
        FeedbackLog.check_header(self)
        problem = self._companion_problem()
        if problem is None:
            return
        self.rescue_pending = True
        kept = self.rescue()
        try:
            self._damaged(problem)
        except LogDamaged:
            if not kept:
                raise

    def rescue(self):
        """Copy what the WAL holds into the log's own file (a checkpoint through this
        connection, which still has the removed WAL open), once; in the log's thread. What
        the checkpoint could not copy is said in the server's log. Returns whether every
        page was copied (the writes committed so far are then in the log's file, synced)."""
        if not self.rescue_pending:
            return False
        self.rescue_pending = False
        try:
            busy, frames, copied = self.conn.execute("PRAGMA wal_checkpoint(FULL)").fetchone()
        except sqlite3.Error as exc:
            log.error("the click log's write-ahead files were removed; what they held could not be copied "
                      "into %s (%s): it is lost when this process ends", self.path.name, exc)
            return False
        if busy or copied < frames:
            log.error("the click log's write-ahead files were removed; %d of %d pages they held were copied "
                      "into %s (another connection held it)", max(copied, 0), max(frames, 0), self.path.name)
            return False
        log.warning("the click log's write-ahead files were removed; the %d pages they held were copied "
                    "into %s", frames, self.path.name)
        return True
