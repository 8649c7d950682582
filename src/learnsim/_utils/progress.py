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

From Python (issue 33, point 5): ``learnsim.set_progress(enabled, bar=...)`` is the process-wide
switch (``set_enabled`` and the display), and every public call that can take long takes
``show_progress_bar=None|True|False`` (``with_show_progress_bar``), which beats it for the work
of that call (a ``contextvars`` scope: other threads keep their own). Which of the three looks
the process's stderr gets:

* a terminal: ``tqdm.auto``'s text bar when tqdm is installed, the built-in bar otherwise;
* a Jupyter kernel (found through ``sys.modules``, IPython never imported): ``tqdm.auto``'s
  widget, or without tqdm the plain lines -- progress is on there by default, as on a terminal;
* anything else (a log file, a pipe, CI), when progress is on: the plain lines.

A stream handed to ``stage``/``progress`` keeps the mode's look (bars, or lines off a terminal
in line mode). Whatever the look, work that is not asked for says nothing before it has run
``AFTER`` seconds (tqdm's ``delay``), and the public calls open no stage or loop at all for
fewer than ``MANY`` texts, queries or documents (``enabled_for``), so a search of one query or
an add of a few documents costs nothing whatever ``set_progress`` says: only the call's own
``show_progress_bar=True`` lifts that. A stage inside a stage that shows stays quiet (one line
per stage). tqdm is imported only when a bar is drawn.
"""
from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import threading
import time

AFTER = 2.0      # seconds work not asked for runs before it says anything (LEARNSIM_PROGRESS_AFTER)
EVERY = 10.0     # lines: at most one line per loop in this many seconds
STILL = 30.0     # lines: a stage that printed nothing for this long says it still runs
MANY = 1000      # texts, queries or documents below which a public call sets no progress up

#: The displays of ``set_progress(bar=...)``: "auto" (tqdm.auto where installed, else the
#: built-in bar; plain lines off a terminal), "tqdm", "builtin" (never tqdm), "lines" (plain
#: lines everywhere, also on a terminal).
BARS = ("auto", "tqdm", "builtin", "lines")

_override = None          # set_enabled(): True / False beats the environment and the terminal
_mode = "bars"            # set_mode(): "bars" everywhere, or "lines" on streams that are not terminals
_bar = "auto"             # set_progress(bar=...): one of BARS
# show_progress_bar= of the public call running in this context (None: not given), and whether a
# stage that shows runs in it (a stage inside one stays quiet)
_call = contextvars.ContextVar("learnsim_show_progress_bar", default=None)
_in_stage = contextvars.ContextVar("learnsim_progress_stage", default=False)
_depth = contextvars.ContextVar("learnsim_public_calls", default=0)   # public calls running in this context
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


def set_progress(enabled=None, *, bar=None):
    """Turn learnsim's progress on or off for the whole process, and choose how it is drawn.

    Parameters
    ----------
    enabled : bool or None, default=None
        True: progress for every long call, also off a terminal (plain lines in a log); False:
        none at all (the estimators' bars and sentence-transformers' too); None: the default
        rule -- on where stderr is a terminal or a Jupyter notebook, off otherwise, and
        ``LEARNSIM_PROGRESS=1|0`` where set. A call's ``show_progress_bar=`` beats it.
    bar : {"auto", "tqdm", "builtin", "lines"} or None, default=None (= "auto")
        "auto": ``tqdm.auto`` where tqdm is installed (a widget in a notebook, a text bar on a
        terminal), learnsim's own bar otherwise, and plain lines where stderr is neither;
        "tqdm": the same, tqdm required (ImportError without it); "builtin": never tqdm (plain
        lines in a notebook); "lines": plain lines everywhere, one when a stage starts and one
        when it ends, never a carriage return.

    Examples
    --------
    >>> import learnsim
    >>> learnsim.set_progress(False)            # silence, whatever the terminal
    >>> learnsim.set_progress(True, bar="lines")  # a batch job: stage lines in its log
    >>> learnsim.set_progress()                 # back to the default rule
    """
    global _override, _bar
    enabled = check_show_progress_bar(enabled, "enabled")
    bar = "auto" if bar is None else bar
    if bar not in BARS:
        raise ValueError(f"bar must be one of {', '.join(repr(b) for b in BARS)} or None; got {bar!r}")
    if bar == "tqdm":
        try:
            import tqdm.auto   # noqa: F401 -- asked for by name: its absence is an error now
        except ImportError:
            raise ImportError("set_progress(bar='tqdm') needs tqdm: pip install tqdm") from None
    _override, _bar = enabled, bar


def check_show_progress_bar(value, name="show_progress_bar"):
    """``value`` as None, True or False (a numpy bool too); a TypeError for anything else."""
    if value is None:
        return None
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise TypeError(f"{name} must be None, True or False; got {value!r}")


def with_show_progress_bar(function):
    """Give ``function`` the keyword-only argument ``show_progress_bar=None`` (in its signature
    too): True or False decides the progress of all the work of the call, over
    :func:`set_progress`, the environment and the terminal; None leaves it to them (or to the
    call it runs in). One decorator, so that every public call takes and checks it alike."""
    import functools
    import inspect

    @functools.wraps(function)
    def call(*args, **kwargs):
        value = check_show_progress_bar(kwargs.pop("show_progress_bar", None))
        depth = _depth.set(_depth.get() + 1)
        token = None if value is None else _call.set(value)
        try:
            return function(*args, **kwargs)
        finally:
            if token is not None:
                _call.reset(token)
            _depth.reset(depth)

    signature = inspect.signature(function)
    params = list(signature.parameters.values())
    where = len(params) - (1 if params and params[-1].kind is inspect.Parameter.VAR_KEYWORD else 0)
    params.insert(where, inspect.Parameter("show_progress_bar", inspect.Parameter.KEYWORD_ONLY, default=None))
    call.__signature__ = signature.replace(parameters=params)
    return call


def enabled_for(n, at_least=None, loop=False):
    """The ``enabled`` of the stage (or, ``loop=True``, the loop) of a public call over ``n``
    texts, queries or documents: False for fewer than ``at_least`` (default ``MANY``; nothing is
    set up, so a search of one query stays as fast, also under ``set_progress(True)`` or
    LEARNSIM_PROGRESS=1: a server's requests print nothing) unless the call itself asked with
    ``show_progress_bar=True`` and is not a public call made by another (a build's check of its
    query plan says nothing); False too for a stage inside a stage that shows (one line per
    stage); None -- the rule decides -- otherwise."""
    if not loop and _in_stage.get():
        return False
    if n >= (MANY if at_least is None else at_least):
        return None
    return None if _call.get() is True and _depth.get() <= 1 else False


def stage_for(desc, n, at_least=None):
    """``stage(desc)`` of a public call's work over ``n`` texts, queries or documents, or a
    context that does nothing (and costs nothing) where :func:`enabled_for` says False."""
    enabled = enabled_for(n, at_least)
    return _NOTHING if enabled is False else stage(desc, enabled=enabled)


_NOTHING = contextlib.nullcontext()


def _asked():
    """Whether progress was asked for: the call's show_progress_bar, else set_progress /
    set_enabled, else LEARNSIM_PROGRESS, is True."""
    for value in (_call.get(), _override):
        if value is not None:
            return value
    return _env_flag() is True


def _in_notebook():
    """Whether this process is a Jupyter kernel (as tqdm.autonotebook tells: ipykernel's shell
    loaded, and IPython's shell running), without importing anything."""
    if "ipykernel.zmqshell" not in sys.modules:
        return False
    get = getattr(sys.modules.get("IPython"), "get_ipython", None)
    try:
        return get is not None and get() is not None
    except Exception:      # a half-torn-down kernel: no notebook to draw in
        return False


def _tqdm():
    """``tqdm.auto.tqdm``, or None where tqdm is not installed or ``set_progress`` rules it out."""
    if _bar in ("builtin", "lines"):
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm


def _look(stream, given):
    """How a loop draws on ``stream``: "lines", "tqdm" or "bar" (the built-in); ``given``: the
    caller handed the stream in (the mode decides, never tqdm)."""
    if _bar == "lines":
        return "lines"
    tty = _isatty(stream)
    if given:
        return "lines" if _mode == "lines" and not tty else "bar"
    if tty:
        return "tqdm" if _tqdm() is not None else "bar"
    if _in_notebook() and _tqdm() is not None:
        return "tqdm"
    return "lines"


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
    """Whether progress was asked for (the call's ``show_progress_bar``, ``set_progress``, the
    environment, in that order) or stderr is a terminal or a notebook: what turns on the
    library's ``verbose`` estimators and third-party bars (sentence-transformers), which draw bars."""
    for value in (_call.get(), _override, _env_flag()):
        if value is not None:
            return value
    return _isatty(sys.stderr) or _in_notebook()


def _enabled():
    """Whether ``stage`` and ``progress`` report by default: as ``_default_enabled``, and in line
    mode also off a terminal (for work that lasts)."""
    return _default_enabled() or (_call.get() is None and _override is None and _env_flag() is None
                                  and _mode == "lines")


def _isatty(stream):
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):   # no isatty, or a closed stream
        return False


def _after(asked=False):
    """The seconds work runs before it says anything: 0 when progress was asked for (``asked``:
    by the caller's ``enabled=True``), LEARNSIM_PROGRESS_AFTER where set."""
    value = os.environ.get("LEARNSIM_PROGRESS_AFTER")
    if value:
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
    return 0.0 if asked or _asked() else AFTER


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
    asked = enabled is True
    enabled = _enabled() if enabled is None else bool(enabled)
    if not enabled:
        yield
        return
    given = stream is not None
    stream = stream or sys.stderr
    look = _look(stream, given)
    # a notebook's tqdm widgets are for loops: its stages are lines
    lines = look == "lines" or (look == "tqdm" and not _isatty(stream))
    token = _in_stage.set(True)
    try:
        with (_line_stage if lines else _clock_stage)(desc, stream, interval, _after(asked)):
            yield
    finally:
        _in_stage.reset(token)


class _Clock:
    def __init__(self):
        self.drawn = False


_clocks = []              # bars: the stages whose clock runs now, outermost first (the innermost ticks)


@contextlib.contextmanager
def _clock_stage(desc, stream, interval, after):
    """Bars: "desc 12.3s" redrawn in place while no bar draws, once the block has run ``after``
    seconds, and "desc: 12.3s" at its end (nothing for a shorter block)."""
    start = _now()
    clock = _Clock()
    done = threading.Event()

    def tick():
        while not done.wait(interval):
            with _lock:
                now = _now()
                if not _active[0] and _clocks and _clocks[-1] is clock and now - start >= after:
                    clock.drawn = True
                    stream.write(f"\r{desc} {now - start:5.1f}s")
                    stream.flush()

    with _lock:
        _clocks.append(clock)
    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        with _lock:
            _clocks.remove(clock)
            now = _now()
            if clock.drawn or now - start >= after:
                stream.write(f"\r{desc}: {now - start:.1f}s\n")
                stream.flush()


@contextlib.contextmanager
def _line_stage(desc, stream, interval, after):
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


def format_duration(seconds):
    """Seconds in words for a person waiting: "0.4 s", "12 s", "4 min 27 s", "2 h 05 min".

    Examples
    --------
    >>> format_duration(267.2), format_duration(12.4), format_duration(7500)
    ('4 min 27 s', '12 s', '2 h 05 min')
    """
    seconds = max(0.0, float(seconds))
    if seconds < 10:
        return f"{seconds:.1f} s"
    whole = int(round(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def format_rate(rate):
    """A rate with the digits that mean something: "1,520", "14.2", "0.35".

    Examples
    --------
    >>> format_rate(1520.4), format_rate(14.23), format_rate(0.347)
    ('1,520', '14.2', '0.35')
    """
    rate = float(rate)
    if rate >= 100:
        return f"{rate:,.0f}"
    return f"{rate:.1f}" if rate >= 1 else f"{rate:.2f}"


class progress:
    """Wrap an iterable: ``for x in progress(items, desc="folds"): ...``.

    A bar redrawn in place (``tqdm.auto``'s on the process's stderr where tqdm is installed), or
    as plain lines (see the module notes) a line at most every ``EVERY`` seconds ("desc 40%
    (400/1000), 12.3 s, eta 18.5 s") and a last one ("..., done"). Either says nothing for a
    loop shorter than ``AFTER`` seconds unless progress was asked for (``enabled=True``, or the
    settings).

    ``unit`` names what is counted and switches to the count, the rate and the time left in
    words, for work whose user waits on a rate (encoding texts): "encoding 1,200/5,000 texts,
    14.2 texts/s, about 4 min 27 s left", and at the end "encoding 5,000/5,000 texts, 14.2
    texts/s, 5 min 52 s, done". ``every`` replaces ``EVERY`` (seconds between lines) for this
    loop.
    """

    def __init__(self, iterable=None, total=None, desc="", enabled=None, stream=None, unit=None, every=None):
        self.iterable = iterable
        if total is None and iterable is not None and hasattr(iterable, "__len__"):
            total = len(iterable)
        self.total = total
        self.desc = _labels.get(desc, desc)
        self.unit = unit
        self._every = EVERY if every is None else float(every)
        self._width = 0           # the longest line drawn in place, to blank what a shorter one leaves
        asked = enabled is True
        self.enabled = _enabled() if enabled is None else bool(enabled)
        self._counted = False
        given = stream is not None
        self.stream = stream or sys.stderr
        self.n = 0
        self._tqdm = None
        look = _look(self.stream, given) if self.enabled else None
        self._lines = look == "lines"
        self._after = _after(asked) if self.enabled else 0.0
        self._start = self._last = _now()
        self._said = False
        if look == "tqdm":
            # tqdm writes the unit right after the rate ("14.20 texts/s")
            extra = {"unit": f" {unit}"} if unit else {}
            self._tqdm = _tqdm()(total=total, desc=self.desc, delay=self._after, leave=True, **extra)
            with _lock:
                self._counted = True      # a stage's clock waits while the bar is open
                _active[0] += 1
        elif not self._lines:
            self._last = -float("inf")

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
        if self._tqdm is not None:
            self._tqdm.update(k)
            return
        if self._lines:
            now = _now()
            if now - self._last >= self._every:
                self._last = now
                self._said = True
                with _lock:
                    _emit(self.stream, self._line(now, final=False), now)
            return
        now = _now()
        if now - self._last < 0.1 and (self.total is None or self.n < self.total):
            return
        if not self._said and now - self._start < self._after:
            return
        self._said = True
        self._last = now
        with _lock:
            if not self._counted:
                self._counted = True
                _active[0] += 1
            self._draw(now)

    def _line(self, now, final):
        elapsed = now - self._start
        if self.unit:
            return self._counted_line(elapsed, final)
        if self.total:
            frac = self.n / self.total
            text = f"{self.desc} {int(100 * min(1.0, frac))}% ({self.n}/{self.total}), {elapsed:.1f} s"
            if not final and 0 < frac < 1:
                text += f", eta {elapsed / frac - elapsed:.1f} s"
        else:
            text = f"{self.desc} {self.n}, {elapsed:.1f} s"
        return text + (", done" if final else "")

    def _counted_line(self, elapsed, final):
        """"desc 1,200/5,000 texts, 14.2 texts/s, about 4 min 27 s left" (``unit`` given)."""
        parts = [f"{self.desc} {self.n:,}/{self.total:,} {self.unit}" if self.total
                 else f"{self.desc} {self.n:,} {self.unit}"]
        rate = self.n / elapsed if elapsed > 0 and self.n else None
        if rate is not None:
            parts.append(f"{format_rate(rate)} {self.unit}/s")
        if final:
            parts += [format_duration(elapsed), "done"]
        elif rate is not None and self.total and self.n < self.total:
            parts.append(f"about {format_duration((self.total - self.n) / rate)} left")
        else:
            parts.append(format_duration(elapsed))
        return ", ".join(parts)

    def _draw(self, now, final=False):
        elapsed = now - self._start
        if self.unit:
            text = self._counted_line(elapsed, final)
            if self.total:
                frac = min(1.0, self.n / self.total)
                bar = "#" * int(24 * frac) + "-" * (24 - int(24 * frac))
                text = text.replace(f"{self.desc} ", f"{self.desc} [{bar}] ", 1)
            # a line shorter than the one before ("1 min 5 s" after "59 s left") would leave its tail
            self._width = max(self._width, len(text))
            self.stream.write("\r" + text.ljust(self._width))
            self.stream.flush()
            return
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
        if self._tqdm is not None:
            bar, self._tqdm = self._tqdm, None
            bar.close()
            self.enabled = False
            with _lock:
                if self._counted:
                    self._counted = False
                    _active[0] -= 1
            return
        if self._lines:
            if self.enabled and self.n:
                now = _now()
                if self._said or now - self._start >= self._after:
                    with _lock:
                        _emit(self.stream, self._line(now, final=True), now)
            self.enabled = False
            return
        with _lock:
            now = _now()
            if self.enabled and self.n and (self._said or now - self._start >= self._after):
                self._draw(now, final=True)
                self.stream.write("\n")
                self.stream.flush()
            self.enabled = False
            if self._counted:
                self._counted = False
                _active[0] -= 1
