"""A dependency-free progress display for long work (fits, reproductions, searches).

Two looks, one switch (``set_mode``):

* **bars** (the library's default): a bar redrawn in place on stderr, shown only when enabled --
  by default when stderr is a terminal, never in CI unless LEARNSIM_PROGRESS=1 is set
  (LEARNSIM_PROGRESS=0 turns it off on a terminal), so test logs and JSON output stay clean.
* **lines** (what the command line sets): a terminal keeps its bars, but a stream that is not a
  terminal (a log file, a pipe, CI) gets plain lines, never a carriage return -- one when a
  stage starts and one when it ends with its elapsed time, and for a long loop a line at most
  every ``EVERY`` seconds (how far, how long) and a last one. Progress is on by default in this
  mode, but only work that lasts says anything: a stage speaks once it has run ``AFTER``
  seconds, a loop's first line comes after ``EVERY`` seconds, so a short command prints nothing.
  When progress is asked for (``--progress`` / LEARNSIM_PROGRESS=1) every stage and loop reports
  at once; LEARNSIM_PROGRESS_AFTER=SECONDS sets the wait. What ``_default_enabled()`` turns on
  (the estimators' ``verbose`` loops, sentence-transformers' bars) stays off unless progress was
  asked for or stderr is a terminal; a stage that printed nothing for ``STILL`` seconds says it
  still runs instead.

``set_enabled(True/False)`` overrides the environment and the terminal (the command line's
``--progress`` / ``--no-progress``). ``stage(desc)`` shows the elapsed time of a whole piece of
work (a fit, a search) for as long as it runs, between the bars of its inner loops;
``relabel({...})`` renames the bars the library draws (e.g. the optimiser's "Stiefel") in words
its user knows.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

AFTER = 2.0      # lines: seconds a stage runs before it says anything (LEARNSIM_PROGRESS_AFTER)
EVERY = 10.0     # lines: at most one line per loop in this many seconds
STILL = 30.0     # lines: a stage that printed nothing for this long says it still runs

_override = None          # set_enabled(): True / False beats the environment and the terminal
_mode = "bars"            # set_mode(): "bars" everywhere, or "lines" on streams that are not terminals
_labels = {}              # relabel(): bar description -> the description shown
_active = [0]             # bars drawing now (a stage's clock waits while one does)
_stages = []              # lines: the stages running now, outermost first
_lock = threading.Lock()


def _now():
    """The clock of every timing here (the tests replace it)."""
    return time.perf_counter()


def set_enabled(value):
    """Force progress on (True) or off (False), or back to the default (None); returns the old value."""
    global _override
    old, _override = _override, None if value is None else bool(value)
    return old


def set_mode(mode):
    """``"lines"``: plain lines on a stream that is not a terminal (a terminal keeps its bars), and
    progress on by default for work that lasts; ``"bars"`` (the default): bars wherever progress
    is on. Returns the old mode. The command line sets "lines"; the library stays quiet off a terminal."""
    global _mode
    if mode not in ("bars", "lines"):
        raise ValueError(f"mode must be 'bars' or 'lines'; got {mode!r}")
    old, _mode = _mode, mode
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


def _env_flag():
    flag = os.environ.get("LEARNSIM_PROGRESS")
    if flag is None:
        return None
    return flag.strip().lower() not in ("0", "", "false", "no", "off")


def _default_enabled():
    """Whether progress was asked for or stderr is a terminal: what turns on the library's
    ``verbose`` estimators and third-party bars (sentence-transformers), which draw bars."""
    if _override is not None:
        return _override
    flag = _env_flag()
    if flag is not None:
        return flag
    return _isatty(sys.stderr)


def _enabled():
    """Whether ``stage`` and ``progress`` report by default: as ``_default_enabled``, and in line
    mode also off a terminal (for work that lasts)."""
    return _default_enabled() or (_override is None and _env_flag() is None and _mode == "lines")


def _isatty(stream):
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):   # no isatty, or a closed stream
        return False


def _lines(stream):
    """Whether progress on ``stream`` is written as plain lines (not bars)."""
    return _mode == "lines" and not _isatty(stream)


def _after():
    """Lines: the seconds work runs before it says anything; 0 when progress was asked for."""
    value = os.environ.get("LEARNSIM_PROGRESS_AFTER")
    if value:
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
    return 0.0 if (_override is True or _env_flag() is True) else AFTER


def _emit(stream, text, now):
    """Lines: write ``text`` (None: only the starts) as one line, after the start line of each
    running stage on ``stream`` that has not said it started. Hold ``_lock``."""
    for st in _stages:
        if st.stream is stream:
            if not st.announced:
                st.announced = True
                stream.write(f"{st.desc} ...\n")
            st.last = now
    if text is not None:
        stream.write(text + "\n")
    try:
        stream.flush()
    except (ValueError, OSError):   # a closed stream: progress never breaks the work
        pass


class _LineStage:
    def __init__(self, desc, stream, start):
        self.desc, self.stream, self.start = desc, stream, start
        self.last = start          # when the last line inside it was written
        self.announced = False


@contextlib.contextmanager
def stage(desc, enabled=None, stream=None, interval=0.5):
    """Show ``desc`` and the elapsed time while the block runs (and the total at its end).

    In line mode off a terminal: a line "desc ..." once the block has run ``AFTER`` seconds (or
    before the first line of a loop inside it), "desc ... still running, 40.0 s" when nothing
    was printed for ``STILL`` seconds, and "desc: 12.3 s, done" at its end -- nothing at all for
    a block shorter than ``AFTER``. ``interval``: how often (seconds) the clock is looked at.
    """
    enabled = _enabled() if enabled is None else bool(enabled)
    if not enabled:
        yield
        return
    stream = stream or sys.stderr
    if _lines(stream):
        with _line_stage(desc, stream, interval):
            yield
        return
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


@contextlib.contextmanager
def _line_stage(desc, stream, interval):
    after = _after()
    st = _LineStage(desc, stream, _now())
    with _lock:
        _stages.append(st)
        if after <= 0:
            _emit(stream, None, st.start)
    done = threading.Event()

    def watch():
        while not done.wait(interval):
            now = _now()
            with _lock:
                if done.is_set():
                    return
                if not st.announced:
                    if now - st.start >= after:
                        _emit(stream, None, now)
                elif now - st.last >= STILL:
                    _emit(stream, f"{desc} ... still running, {now - st.start:.1f} s", now)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    failed = False
    try:
        yield
    except BaseException:
        failed = True
        raise
    finally:
        done.set()
        thread.join()
        now = _now()
        elapsed = now - st.start
        with _lock:
            if failed:   # after its start line only: an error's message stays the one line a short command prints
                if st.announced:
                    _emit(stream, f"{desc}: stopped after {elapsed:.1f} s", now)
            elif st.announced or elapsed >= after:
                _emit(stream, f"{desc}: {elapsed:.1f} s, done", now)
            _stages.remove(st)


class progress:
    """Wrap an iterable: ``for x in progress(items, desc="folds"): ...``.

    A bar redrawn in place, or in line mode off a terminal a line at most every ``EVERY``
    seconds ("desc 40% (400/1000), 12.3 s, eta 18.5 s") and a last one ("..., done") when the
    loop ran ``AFTER`` seconds or more.
    """

    def __init__(self, iterable=None, total=None, desc="", enabled=None, stream=None):
        self.iterable = iterable
        if total is None and iterable is not None and hasattr(iterable, "__len__"):
            total = len(iterable)
        self.total = total
        self.desc = _labels.get(desc, desc)
        self.enabled = _enabled() if enabled is None else bool(enabled)
        self._counted = False
        self.stream = stream or sys.stderr
        self.n = 0
        self._lines = self.enabled and _lines(self.stream)
        if self._lines:
            self._after = _after()
            self._start = self._last = _now()
            self._said = False
        else:
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
        if self._lines:
            now = _now()
            if now - self._last >= EVERY:
                self._last = now
                self._said = True
                with _lock:
                    _emit(self.stream, self._line(now, final=False), now)
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

    def _line(self, now, final):
        elapsed = now - self._start
        if self.total:
            frac = self.n / self.total
            text = f"{self.desc} {int(100 * min(1.0, frac))}% ({self.n}/{self.total}), {elapsed:.1f} s"
            if not final and 0 < frac < 1:
                text += f", eta {elapsed / frac - elapsed:.1f} s"
        else:
            text = f"{self.desc} {self.n}, {elapsed:.1f} s"
        return text + (", done" if final else "")

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
        if self._lines:
            if self.enabled and self.n:
                now = _now()
                if self._said or now - self._start >= self._after:
                    with _lock:
                        _emit(self.stream, self._line(now, final=True), now)
            self.enabled = False
            return
        with _lock:
            if self.enabled and self.n:
                self._draw(time.perf_counter())
                self.stream.write("\n")
                self.stream.flush()
            self.enabled = False
            if self._counted:
                self._counted = False
                _active[0] -= 1
