"""A dependency-free progress bar for long work (fits, reproductions, searches).

It writes to stderr only when enabled: by default when stderr is a terminal, never in CI
unless LEARNSIM_PROGRESS=1 is set (LEARNSIM_PROGRESS=0 turns it off on a terminal), so test
logs and JSON output stay clean. ``set_enabled(True/False)`` overrides both (the command line's
``--progress`` / ``--no-progress``).

``stage(desc)`` shows the elapsed time of a whole piece of work (a fit, a search) for as long
as it runs, between the bars of its inner loops; ``relabel({...})`` renames the bars the
library draws (e.g. the optimiser's "Stiefel") in words its user knows.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

_override = None          # set_enabled(): True / False beats the environment and the terminal
_labels = {}              # relabel(): bar description -> the description shown
_active = [0]             # bars drawing now (a stage's clock waits while one does)
_lock = threading.Lock()


def set_enabled(value):
    """Force progress on (True) or off (False), or back to the default (None); returns the old value."""
    global _override
    old, _override = _override, None if value is None else bool(value)
    return old


@contextlib.contextmanager
def relabel(labels):
    """Show the bars described by the keys of ``labels`` under its values, within the block."""
    old = dict(_labels)
    _labels.update(labels)
    try:
        yield
    finally:
        _labels.clear()
        _labels.update(old)


@contextlib.contextmanager
def stage(desc, enabled=None, stream=None, interval=0.5):
    """Show ``desc`` and the elapsed time while the block runs (and the total at its end)."""
    enabled = _default_enabled() if enabled is None else bool(enabled)
    if not enabled:
        yield
        return
    stream = stream or sys.stderr
    start = time.perf_counter()
    done = threading.Event()

    def tick():
        while not done.wait(interval):
            with _lock:
                if not _active[0]:
                    stream.write(f"\r{desc} {time.perf_counter() - start:5.1f}s")
                    stream.flush()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        with _lock:
            stream.write(f"\r{desc}: {time.perf_counter() - start:.1f}s\n")
            stream.flush()


def _default_enabled():
    if _override is not None:
        return _override
    flag = os.environ.get("LEARNSIM_PROGRESS")
    if flag is not None:
        return flag not in ("0", "", "false", "no")
    return sys.stderr.isatty()


class progress:
    """Wrap an iterable: ``for x in progress(items, desc="folds"): ...``."""

    def __init__(self, iterable=None, total=None, desc="", enabled=None, stream=None):
        self.iterable = iterable
        if total is None and iterable is not None and hasattr(iterable, "__len__"):
            total = len(iterable)
        self.total = total
        self.desc = _labels.get(desc, desc)
        self.enabled = _default_enabled() if enabled is None else bool(enabled)
        self._counted = False
        self.stream = stream or sys.stderr
        self.n = 0
        self._start = time.perf_counter()
        self._last = 0.0

    def __iter__(self):
        try:
            for item in self.iterable:
                yield item
                self.update(1)
        finally:
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def update(self, k=1):
        self.n += k
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last < 0.1 and (self.total is None or self.n < self.total):
            return
        self._last = now
        with _lock:
            if not self._counted:
                self._counted = True
                _active[0] += 1
            self._draw(now)

    def _draw(self, now):
        elapsed = now - self._start
        if self.total:
            frac = min(1.0, self.n / self.total)
            bar = "#" * int(24 * frac) + "-" * (24 - int(24 * frac))
            eta = elapsed / frac - elapsed if frac > 0 else 0.0
            line = f"\r{self.desc} [{bar}] {self.n}/{self.total} {elapsed:5.1f}s eta {eta:5.1f}s"
        else:
            line = f"\r{self.desc} {self.n} {elapsed:5.1f}s"
        self.stream.write(line)
        self.stream.flush()

    def close(self):
        with _lock:
            if self.enabled and self.n:
                self._draw(time.perf_counter())
                self.stream.write("\n")
                self.stream.flush()
            self.enabled = False
            if self._counted:
                self._counted = False
                _active[0] -= 1
