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


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


class Terminal(io.StringIO):
    def isatty(self):
        return True


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

def test_a_terminal_keeps_its_bar(lines):
    stream = Terminal()
    for _ in _progress.progress(range(3), desc="k-means runs", stream=stream):
        pass
    with _progress.stage("FILM: learning the metric", stream=stream):
        pass
    text = stream.getvalue()
    assert "\rk-means runs [" in text and "3/3" in text and "\rFILM: learning the metric: " in text


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
