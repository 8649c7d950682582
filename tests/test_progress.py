"""Progress that reaches the user (issue 32): off a terminal the command line prints plain lines
for work that lasts -- a stage's start and end with its elapsed time, a long loop's state at
most every EVERY seconds and at its end -- never a carriage return; a terminal keeps its bars;
LEARNSIM_PROGRESS=0 / --no-progress silence it; short work and the library used from Python
say nothing off a terminal. Timings come from a fake clock (``_progress._now``)."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time

import pytest

from learnsim._utils import progress as _progress
from conftest import run_cli

FIXED = ["--n-basis", "8", "--shrinkage", "0.01", "--complement-weight", "0.3"]
NEVER = 3600.0     # a stage's watcher that never wakes within a test (the fake clock decides)


@pytest.fixture
def clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(_progress, "_now", fake)
    return fake


@pytest.fixture
def lines(monkeypatch):
    """The command line's mode, nothing forced by the environment or a flag."""
    monkeypatch.delenv("LEARNSIM_PROGRESS", raising=False)
    monkeypatch.delenv("LEARNSIM_PROGRESS_AFTER", raising=False)
    monkeypatch.setattr(_progress, "_override", None)
    monkeypatch.setattr(_progress, "_mode", "lines")
    monkeypatch.setattr(sys, "stderr", io.StringIO())     # not a terminal


def _long_loop(clock, stream, n=800, step=0.0625, desc="search: scoring the corpus"):
    bar = _progress.progress(total=n, desc=desc, stream=stream)
    for _ in range(n):
        clock.t += step
        bar.update(1)
    bar.close()


# --------------------------------------------------------------------------- stages

def test_a_stage_that_lasts_prints_its_start_and_its_end_with_the_time(lines, clock):
    stream = io.StringIO()
    with _progress.stage("FILM: learning the metric", stream=stream, interval=NEVER):
        clock.t += 12.34
    assert stream.getvalue() == "FILM: learning the metric ...\nFILM: learning the metric: 12.3 s, done\n"


def test_a_short_stage_prints_nothing(lines, clock):
    stream = io.StringIO()
    with _progress.stage("FILM: learning the metric", stream=stream, interval=NEVER):
        clock.t += _progress.AFTER - 0.1
    assert stream.getvalue() == ""


def test_the_start_line_comes_while_the_stage_runs_and_then_says_it_still_runs(lines, clock):
    stream = io.StringIO()

    def wait_for(text):
        deadline = time.monotonic() + 5
        while text not in stream.getvalue() and time.monotonic() < deadline:
            time.sleep(0.005)
        return stream.getvalue()

    with _progress.stage("mcd: learning the metric", stream=stream, interval=0.005):
        clock.t += _progress.AFTER
        assert wait_for("...\n") == "mcd: learning the metric ...\n"
        clock.t += _progress.STILL
        assert "mcd: learning the metric ... still running, 32.0 s\n" in wait_for("still running")
    assert stream.getvalue().endswith("mcd: learning the metric: 32.0 s, done\n")
    assert "\r" not in stream.getvalue()


def test_a_stage_that_fails_says_it_stopped(lines, clock):
    stream = io.StringIO()
    with pytest.raises(RuntimeError):
        with _progress.stage("relative: learning the metric", stream=stream, interval=NEVER):
            clock.t += 3.0
            raise RuntimeError("boom")
    assert stream.getvalue() == ""         # it had not said it started: the error message stays alone
    with pytest.raises(RuntimeError):
        with _progress.stage("relative: learning the metric", stream=stream, interval=NEVER):
            _long_loop(clock, stream, n=160, step=0.125, desc="folds")
            raise RuntimeError("boom")
    assert stream.getvalue().splitlines()[0] == "relative: learning the metric ..."
    assert stream.getvalue().splitlines()[-1] == "relative: learning the metric: stopped after 20.0 s"


# --------------------------------------------------------------------------- loops

def test_a_long_loop_prints_at_most_one_line_per_interval_and_a_last_one(lines, clock):
    stream = io.StringIO()
    _long_loop(clock, stream)             # 800 steps of 1/16 s: 50 s
    text = stream.getvalue()
    assert "\r" not in text
    rows = text.splitlines()
    assert len(rows) == 50 / _progress.EVERY + 1
    times = [float(re.search(r", (\d+\.\d) s", row).group(1)) for row in rows[:-1]]
    assert all(b - a >= _progress.EVERY for a, b in zip(times, times[1:]))
    assert rows[0] == "search: scoring the corpus 20% (160/800), 10.0 s, eta 40.0 s"
    assert rows[-1] == "search: scoring the corpus 100% (800/800), 50.0 s, done"


def test_a_short_loop_prints_nothing(lines, clock):
    stream = io.StringIO()
    _long_loop(clock, stream, n=10, step=0.125)
    assert stream.getvalue() == ""


def test_a_loop_inside_a_stage_comes_after_the_stage_start_and_is_relabelled(lines, clock):
    stream = io.StringIO()
    with _progress.relabel({"Stiefel": "FILM: learning the metric (optimiser steps)"}):
        with _progress.stage("FILM: learning the metric", stream=stream, interval=NEVER):
            clock.t += 1.0
            _long_loop(clock, stream, n=160, step=0.125, desc="Stiefel")
    rows = stream.getvalue().splitlines()
    assert rows[0] == "FILM: learning the metric ..."
    assert rows[1] == "FILM: learning the metric (optimiser steps) 50% (80/160), 10.0 s, eta 10.0 s"
    assert rows[-2] == "FILM: learning the metric (optimiser steps) 100% (160/160), 20.0 s, done"
    assert rows[-1] == "FILM: learning the metric: 21.0 s, done"
    assert "Stiefel" not in stream.getvalue()


# --------------------------------------------------------------------------- who sees what

def test_a_terminal_keeps_its_bar(lines, clock):
    stream = Terminal()
    for _ in _progress.progress(range(3), desc="k-means runs", stream=stream):
        clock.t += 1.0
    with _progress.stage("FILM: learning the metric", stream=stream, interval=NEVER):
        clock.t += _progress.AFTER
    text = stream.getvalue()
    assert "\rk-means runs [" in text and "3/3" in text and "\rFILM: learning the metric: " in text
    # work shorter than AFTER draws nothing there either, unless asked for
    stream = Terminal()
    for _ in _progress.progress(range(3), desc="k-means runs", stream=stream):
        pass
    with _progress.stage("FILM: learning the metric", stream=stream, interval=NEVER):
        pass
    assert stream.getvalue() == ""
    for _ in _progress.progress(range(3), desc="k-means runs", stream=stream, enabled=True):
        pass
    assert "\rk-means runs [" in stream.getvalue() and "3/3" in stream.getvalue()


def test_line_mode_leaves_the_estimators_verbose_off_unless_asked(lines, monkeypatch):
    assert _progress._enabled() and not _progress._default_enabled()
    monkeypatch.setattr(_progress, "_override", True)
    assert _progress._enabled() and _progress._default_enabled()
    monkeypatch.setattr(_progress, "_override", None)
    monkeypatch.setenv("LEARNSIM_PROGRESS", "0")
    assert not _progress._enabled() and not _progress._default_enabled()


def test_learnsim_progress_0_and_no_progress_silence_the_lines(lines, clock, monkeypatch):
    for turn_off in (lambda: monkeypatch.setenv("LEARNSIM_PROGRESS", "0"),
                     lambda: monkeypatch.setattr(_progress, "_override", False)):
        turn_off()
        stream = io.StringIO()
        with _progress.stage("FILM: learning the metric", stream=stream, interval=NEVER):
            _long_loop(clock, stream)
        assert stream.getvalue() == ""


def test_asked_for_progress_reports_even_short_work(lines, clock, monkeypatch):
    for turn_on in (lambda: monkeypatch.setenv("LEARNSIM_PROGRESS", "1"),
                    lambda: monkeypatch.setattr(_progress, "_override", True),
                    lambda: monkeypatch.setenv("LEARNSIM_PROGRESS_AFTER", "0")):
        monkeypatch.delenv("LEARNSIM_PROGRESS", raising=False)
        monkeypatch.setattr(_progress, "_override", None)
        turn_on()
        stream = io.StringIO()
        with _progress.stage("mcd: learning the metric", stream=stream, interval=NEVER):
            clock.t += 0.5
            _long_loop(clock, stream, n=2, step=0.5, desc="folds")
        assert stream.getvalue() == ("mcd: learning the metric ...\nfolds 100% (2/2), 1.0 s, done\n"
                                     "mcd: learning the metric: 1.5 s, done\n")


def test_the_library_stays_quiet_off_a_terminal(monkeypatch, clock):
    monkeypatch.delenv("LEARNSIM_PROGRESS", raising=False)
    monkeypatch.setattr(_progress, "_override", None)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert _progress._mode == "bars"                     # what `import learnsim` leaves
    with _progress.stage("FILM: learning the metric", interval=NEVER):
        _long_loop(clock, None)
    assert sys.stderr.getvalue() == ""
    with pytest.raises(ValueError, match="mode must be"):
        _progress.set_mode("quiet")


# --------------------------------------------------------------------------- the command line

@pytest.fixture(scope="module")
def train(clustered_train_tsv):
    return clustered_train_tsv


def test_the_command_line_sets_line_mode_and_json_stays_clean(train, tmp_path, monkeypatch):
    monkeypatch.delenv("LEARNSIM_PROGRESS", raising=False)
    monkeypatch.setenv("LEARNSIM_PROGRESS_AFTER", "0")
    code, out, err = run_cli(["fit", "--input", train, "--model", tmp_path / "m.npz", "--json"] + FIXED)
    assert code == 0 and json.loads(out)                  # stdout: the JSON document, nothing else
    assert "\r" not in err and re.search(r"^mcd: learning the metric[^\n]* \.\.\.$", err, re.M)
    assert re.search(r"^mcd: learning the metric[^\n]*: \d+\.\d s, done$", err, re.M)
    assert _progress._mode == "bars"                      # main() restores the library's mode
    code, out, err = run_cli(["--no-progress", "fit", "--input", train, "--model", tmp_path / "m.npz"] + FIXED)
    assert code == 0 and "learning the metric" not in err


def _subprocess_fit(train, model, **env):
    environ = {k: v for k, v in os.environ.items() if k not in ("LEARNSIM_PROGRESS", "LEARNSIM_PROGRESS_AFTER")}
    return subprocess.run([sys.executable, "-m", "learnsim", "fit", "--input", str(train), "--model", str(model)]
                          + FIXED, capture_output=True, text=True, env={**environ, **env}, timeout=300)


def test_a_short_fit_off_a_terminal_prints_no_progress_and_a_zero_wait_prints_lines(train, tmp_path):
    quiet = _subprocess_fit(train, tmp_path / "a.npz")
    assert quiet.returncode == 0, quiet.stderr
    assert "learning the metric" not in quiet.stderr and "\r" not in quiet.stderr
    loud = _subprocess_fit(train, tmp_path / "b.npz", LEARNSIM_PROGRESS_AFTER="0")
    assert loud.returncode == 0, loud.stderr
    assert "\r" not in loud.stderr
    rows = [row for row in loud.stderr.splitlines() if row.startswith("mcd: learning the metric")]
    assert rows and len(rows) % 2 == 0      # one stage per weighting, each a start and an end line
    for start, end in zip(rows[::2], rows[1::2]):
        assert start.endswith(" ...") and end.startswith(start[:-4] + ": ") and end.endswith(" s, done")


# --------------------------------------------------------------------------- from Python (issue 33, point 5)
#
# show_progress_bar= on every call that can take long, learnsim.set_progress() for the process,
# tqdm.auto where installed (a fake one here, injected into sys.modules), plain lines where stderr
# is a log and in a notebook without tqdm, and nothing set up for small calls.

import inspect
import types

import learnsim
from learnsim.pipeline import Pipeline
from progress_fakes import Clock, Terminal


@pytest.fixture
def settings(monkeypatch):
    """The library's defaults: nothing forced by the environment, set_progress or a mode."""
    monkeypatch.delenv("LEARNSIM_PROGRESS", raising=False)
    monkeypatch.delenv("LEARNSIM_PROGRESS_AFTER", raising=False)
    monkeypatch.setattr(_progress, "_override", None)
    monkeypatch.setattr(_progress, "_mode", "bars")
    monkeypatch.setattr(_progress, "_bar", "auto")
    monkeypatch.delitem(sys.modules, "ipykernel.zmqshell", raising=False)


@pytest.fixture
def fake_tqdm(monkeypatch):
    """A ``tqdm.auto`` that records every bar made (its total, desc, delay, count, whether closed)."""
    made = []

    class FakeTqdm:
        def __init__(self, iterable=None, total=None, desc=None, delay=0.0, leave=True, **kwargs):
            self.total, self.desc, self.delay, self.n, self.closed = total, desc, delay, 0, False
            made.append(self)

        def update(self, k=1):
            self.n += k

        def close(self):
            self.closed = True

    module = types.ModuleType("tqdm.auto")
    module.tqdm = FakeTqdm
    monkeypatch.setitem(sys.modules, "tqdm.auto", module)
    return made


@pytest.fixture
def no_tqdm(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)      # import tqdm.auto raises ImportError


@pytest.fixture
def terminal(monkeypatch):
    """A terminal as stderr: its ``use()`` puts it there (in the test itself: pytest's capture sets
    sys.stderr again between the fixtures and the test)."""
    stream = Terminal()
    stream.use = lambda: monkeypatch.setattr(sys, "stderr", stream)
    return stream


@pytest.fixture
def notebook(monkeypatch):
    """A Jupyter kernel as tqdm and learnsim tell one: ipykernel's shell loaded, IPython's running."""
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: object()
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "ipykernel.zmqshell", types.ModuleType("ipykernel.zmqshell"))
    stream = io.StringIO()                                     # a kernel's stderr is no terminal
    stream.use = lambda: monkeypatch.setattr(sys, "stderr", stream)
    return stream


@pytest.fixture(scope="module")
def small():
    from learnsim.datasets import make_clustered_corpus

    corpus = make_clustered_corpus(n_clusters=3, docs_per_cluster=8, random_state=0)
    texts, labels = [str(t) for t in corpus.data], list(corpus.target)
    return texts, labels, learnsim.fit(texts, clusters=labels, baseline_holdout=None)


def _fit(small, **kwargs):
    texts, labels, _ = small
    return learnsim.fit(texts, clusters=labels, baseline_holdout=None, **kwargs)


PUBLIC_CALLS = ["learnsim.fitting.fit", "Pipeline.vectorize", "Pipeline.encode", "Pipeline.transform",
                "Pipeline.similarity", "Pipeline.search", "Pipeline.match", "Index.build", "Index.add",
                "Index.upsert", "Index.update", "Index.reindex", "Index.compact", "Index.verify", "Index.verify_at",
                "Index.dedupe", "Index.cluster", "Index.search"]


@pytest.mark.parametrize("name", PUBLIC_CALLS)
def test_every_long_call_takes_show_progress_bar_and_documents_it(name):
    import learnsim.fitting
    from learnsim.index import Index

    owner, attr = name.rsplit(".", 1)
    function = getattr({"Pipeline": Pipeline, "Index": Index}.get(owner) or learnsim.fitting, attr)
    parameter = inspect.signature(function).parameters["show_progress_bar"]
    assert parameter.kind is inspect.Parameter.KEYWORD_ONLY and parameter.default is None
    assert "show_progress_bar" in function.__doc__
    assert "show_progress_bar" in learnsim.fit.__doc__ and "set_progress" in learnsim.__all__


def test_show_progress_bar_and_set_progress_check_their_values(small, settings, no_tqdm):
    texts, _, model = small
    for bad in ("yes", 1, 0.0):
        with pytest.raises(TypeError, match="show_progress_bar must be None, True or False"):
            model.search("a query", texts, k=1, show_progress_bar=bad)
        with pytest.raises(TypeError, match="enabled must be None, True or False"):
            learnsim.set_progress(bad)
    with pytest.raises(ValueError, match="bar must be one of"):
        learnsim.set_progress(True, bar="fancy")
    with pytest.raises(ImportError, match="pip install tqdm"):
        learnsim.set_progress(True, bar="tqdm")
    assert _progress._override is None and _progress._bar == "auto"      # a refused call changes nothing
    with pytest.raises(TypeError, match="show_progress_bar"):
        _fit(small, show_progress_bar="no")
    assert _progress._depth.get() == 0 and _progress._call.get() is None    # a refused call leaves no scope


def test_a_fit_asked_for_progress_prints_its_stages_as_lines_off_a_terminal(small, settings, capsys):
    _fit(small)
    assert capsys.readouterr().err == ""                  # the default off a terminal: quiet
    _fit(small, show_progress_bar=True)
    err = capsys.readouterr().err
    assert "\r" not in err
    assert re.search(r"^mcd: learning the metric[^\n]* \.\.\.$", err, re.M)
    assert re.search(r"^mcd: learning the metric[^\n]*: \d+\.\d s, done$", err, re.M)


def test_set_progress_is_the_default_and_the_call_beats_it(small, settings, capsys):
    try:
        learnsim.set_progress(True)
        _fit(small)
        assert "mcd: learning the metric" in capsys.readouterr().err
        _fit(small, show_progress_bar=False)
        assert capsys.readouterr().err == ""
        learnsim.set_progress(False)
        _fit(small)
        assert capsys.readouterr().err == ""
        _fit(small, show_progress_bar=True)
        assert "mcd: learning the metric" in capsys.readouterr().err
    finally:
        learnsim.set_progress()
    assert _progress._override is None


def test_set_progress_beats_the_environment_variable_which_still_works(small, settings, monkeypatch, capsys):
    monkeypatch.setenv("LEARNSIM_PROGRESS", "1")
    _fit(small)
    assert "mcd: learning the metric" in capsys.readouterr().err
    monkeypatch.setattr(_progress, "_override", False)      # set_progress(False)
    _fit(small)
    assert capsys.readouterr().err == ""


def test_set_progress_false_silences_everything_on_a_terminal(small, settings, terminal, fake_tqdm, monkeypatch):
    terminal.use()
    texts, labels, model = small
    monkeypatch.setenv("LEARNSIM_PROGRESS_AFTER", "0")      # what would show shows at once
    monkeypatch.setattr(_progress, "MANY", 2)
    model.search(texts[:10], texts, k=2)
    assert terminal.getvalue() != ""                       # the default on a terminal: on
    monkeypatch.setattr(_progress, "_override", False)      # set_progress(False)
    terminal.truncate(0), terminal.seek(0)
    made = len(fake_tqdm)
    _fit(small, method="film", n_components=2, max_iter=5)   # FILM's optimiser bar (verbose) too
    model.search(texts[:10], texts, k=2)
    model.vectorize(texts)
    assert terminal.getvalue() == "" and len(fake_tqdm) == made


def test_tqdm_auto_draws_where_installed_with_the_totals(small, settings, terminal, fake_tqdm, monkeypatch):
    terminal.use()
    texts, _, model = small
    for _ in _progress.progress(range(5), desc="k-means runs"):
        pass
    bar, = fake_tqdm
    assert (bar.total, bar.desc, bar.n, bar.closed) == (5, "k-means runs", 5, True)
    assert bar.delay == _progress.AFTER                     # not asked for: only work that lasts shows
    from learnsim.scorer import Scorer

    monkeypatch.setattr(Scorer, "block_rows", lambda self: 3)
    model.search(texts[:10], texts, k=2, show_progress_bar=True)
    bar = fake_tqdm[-1]
    assert (bar.desc, bar.total, bar.n, bar.closed, bar.delay) == ("search: scoring the corpus", 4, 4, True, 0.0)
    # the stages around it keep learnsim's clock on a terminal (asked for: from the start)
    assert f"\rsearch: vectorizing the corpus ({len(texts)} texts): " in terminal.getvalue()


def test_without_tqdm_a_terminal_gets_the_builtin_bar(settings, terminal, no_tqdm, clock):
    terminal.use()
    for _ in _progress.progress(range(3), desc="k-means runs", enabled=True):
        clock.t += 1.0
    assert "\rk-means runs [" in terminal.getvalue() and "3/3" in terminal.getvalue()


def test_bar_lines_gives_plain_lines_even_on_a_terminal(settings, terminal, fake_tqdm, clock):
    terminal.use()
    try:
        learnsim.set_progress(True, bar="lines")
        with _progress.stage("FILM: learning the metric", interval=NEVER):
            _long_loop(clock, None, n=160, step=0.125, desc="folds")
    finally:
        learnsim.set_progress()
    rows = terminal.getvalue().splitlines()
    assert "\r" not in terminal.getvalue() and not fake_tqdm
    assert rows[0] == "FILM: learning the metric ..." and rows[-1] == "FILM: learning the metric: 20.0 s, done"


def test_a_notebook_gets_tqdm_widgets_and_stage_lines(settings, notebook, fake_tqdm, clock):
    notebook.use()
    assert _progress._in_notebook() and _progress._default_enabled()     # on by default there
    with _progress.stage("FILM: learning the metric", interval=NEVER):
        clock.t += _progress.AFTER
        for _ in _progress.progress(range(4), desc="Stiefel"):
            pass
    bar, = fake_tqdm
    assert (bar.total, bar.n, bar.closed) == (4, 4, True)
    assert notebook.getvalue() == "FILM: learning the metric ...\nFILM: learning the metric: 2.0 s, done\n"


def test_a_notebook_without_tqdm_gets_a_line_per_stage(settings, notebook, no_tqdm, clock):
    notebook.use()
    with _progress.stage("FILM: learning the metric", interval=NEVER):
        _long_loop(clock, None, n=160, step=0.125, desc="Stiefel")
    rows = notebook.getvalue().splitlines()
    assert "\r" not in notebook.getvalue()
    assert rows[0] == "FILM: learning the metric ..." and rows[-1] == "FILM: learning the metric: 20.0 s, done"
    sys.modules["IPython"].get_ipython = lambda: None                   # IPython loaded, no kernel running
    assert not _progress._in_notebook()


def test_small_calls_set_nothing_up(small, settings, terminal, fake_tqdm, monkeypatch):
    terminal.use()
    texts, _, model = small
    real = _progress.progress

    def no_stage(*args, **kwargs):
        raise AssertionError("a stage was set up for a small call")

    def only_disabled(*args, enabled=None, **kwargs):
        assert enabled is False, "a loop was set up for a small call"
        return real(*args, enabled=enabled, **kwargs)

    monkeypatch.setattr(_progress, "stage", no_stage)
    monkeypatch.setattr(_progress, "progress", only_disabled)
    for turned_on in (None, True):             # the default rule on a terminal, then set_progress(True)
        monkeypatch.setattr(_progress, "_override", turned_on)
        model.search("a query", texts, k=3)
        model.search(texts[:5], texts, k=3)
        model.similarity(texts[:3], texts)
        model.vectorize(texts[:4])
        model.encode(texts[:4])
    assert terminal.getvalue() == "" and not fake_tqdm


def test_a_call_scope_stays_in_its_own_thread(settings):
    import threading

    seen = []

    @_progress.with_show_progress_bar
    def work():
        thread = threading.Thread(target=lambda: seen.append(_progress._default_enabled()))
        thread.start()
        thread.join()
        seen.append(_progress._default_enabled())

    work(show_progress_bar=True)
    assert seen == [False, True]          # another thread (a server's request) keeps the default
    assert _progress._call.get() is None


def test_import_learnsim_imports_neither_tqdm_nor_ipython():
    code = ("import sys, learnsim; learnsim.set_progress(False); learnsim.set_progress(); "
            "from learnsim._utils import progress as p; p._default_enabled(); p._in_notebook(); "
            "print(sorted(m for m in ('tqdm', 'tqdm.auto', 'IPython') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
