"""A dependency-free progress bar for long work (fits, reproductions, searches).

It writes to stderr only when enabled: by default when stderr is a terminal, never in CI
unless LEARNSIM_PROGRESS=1 is set, so test logs and JSON output stay clean.
"""
from __future__ import annotations

import os
import sys
import time


def _default_enabled():
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
        self.desc = desc
        self.enabled = _default_enabled() if enabled is None else bool(enabled)
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
        if self.enabled and self.n:
            self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()
            self.enabled = False
