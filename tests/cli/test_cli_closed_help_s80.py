"""'learnsim --help >&-' (standard output closed) and '--help > /dev/full' exited 0 with nothing
written: argparse drops an error writing its help. Like a command whose results cannot be written,
they now exit 2 with one line on stderr; a reader that went away (| head) is still no error."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="closes a descriptor in the child")

REPO = Path(__file__).resolve().parents[2]


def _run(args, close=None, stdout=subprocess.PIPE):
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "learnsim", *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, env=env, timeout=120,
                          preexec_fn=(lambda: os.close(close)) if close is not None else None)


def _one_error_line(done):
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "error:" in lines[0] and "output" in lines[0], done.stderr


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["index", "info", "--help"]],
                         ids=["help", "version", "subcommand-help"])
def test_help_to_a_closed_stdout_is_an_error(args):
    _one_error_line(_run(args, close=1))


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["--help"], ["--version"]], ids=["help", "version"])
def test_help_to_a_full_disk_is_an_error(args):
    with open("/dev/full", "w") as full:
        _one_error_line(_run(args, stdout=full))


def test_help_still_prints_and_exits_0():
    done = _run(["--help"])
    assert done.returncode == 0 and "usage: learnsim" in done.stdout and done.stderr == ""


def test_help_to_a_reader_that_went_away_is_no_error():
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    child = subprocess.Popen([sys.executable, "-m", "learnsim", "--help"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
    child.stdout.close()            # the reader goes away before reading a byte
    _out, err = child.communicate(timeout=120)
    assert child.returncode == 0 and b"Traceback" not in err
