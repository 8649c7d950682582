"""LEARNSIM_PROGRESS=maybe (a value it does not know) turned progress on as 1 does, and
LEARNSIM_PROGRESS_AFTER=soon was dropped for the 2 s default, both without a word. As the other
LEARNSIM_* variables (read by the library as well, where a process exit is not ours to make), a
value not understood is a one-line note on stderr saying what was done with it; the command runs."""
from __future__ import annotations

import pytest

from conftest import run_cli


def _info(monkeypatch, tmp_path, **env):
    """'learnsim index info' of a folder that is not there: the command runs, and says so (exit 2)."""
    for name in ("LEARNSIM_PROGRESS", "LEARNSIM_PROGRESS_AFTER"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, out, err = run_cli(["index", "info", tmp_path / "none"])
    assert code == 2 and "none" in err.splitlines()[-1]
    return 0, "ran", "\n".join(err.splitlines()[:-1])


@pytest.mark.parametrize("value", ["maybe", "2", "ja", "-1"])
def test_a_progress_value_not_understood_is_named(monkeypatch, tmp_path, value):
    code, out, err = _info(monkeypatch, tmp_path, LEARNSIM_PROGRESS=value)
    notes = [line for line in err.splitlines() if "LEARNSIM_PROGRESS" in line]
    assert code == 0 and out and len(notes) == 1, err
    assert repr(value) in notes[0] and "1" in notes[0] and "0" in notes[0]


@pytest.mark.parametrize("value", ["1", "0", "true", "False", "yes", "no", "on", "OFF", " 1 ", ""])
def test_the_values_it_knows_say_nothing(monkeypatch, tmp_path, value):
    code, _, err = _info(monkeypatch, tmp_path, LEARNSIM_PROGRESS=value)
    assert code == 0 and "LEARNSIM_PROGRESS" not in err


@pytest.mark.parametrize("value", ["soon", "nan", "1e400x"])
def test_a_wait_that_is_not_seconds_is_named(monkeypatch, tmp_path, value):
    code, _, err = _info(monkeypatch, tmp_path, LEARNSIM_PROGRESS_AFTER=value)
    notes = [line for line in err.splitlines() if "LEARNSIM_PROGRESS_AFTER" in line]
    assert code == 0 and len(notes) == 1 and repr(value) in notes[0], err


@pytest.mark.parametrize("value", ["0", "2.5", "30"])
def test_a_wait_in_seconds_says_nothing(monkeypatch, tmp_path, value):
    code, _, err = _info(monkeypatch, tmp_path, LEARNSIM_PROGRESS_AFTER=value)
    assert code == 0 and "LEARNSIM_PROGRESS_AFTER" not in err
