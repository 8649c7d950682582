"""Ctrl-C while a command loads its modules ended about 1 run in 10 (SIGINT sent at 0-0.6 s to
'python -m learnsim fit ...'; 17 in 60 at 0.3-0.9 s) by the signal itself, status -2, after the
line 'learnsim: error: interrupted', or with numpy's 'Original error was: PyCapsule_Import could not
import module "datetime"' traceback, status 1:
- an interrupt raised inside code a compiled module runs as a string at its import (Cython's init
  of charset_normalizer, which numpy.f2py imports) marks it unhandled for Python, which at its exit
  then kills itself with SIGINT although learnsim handled it;
- an extension that turns the interrupt of its own import into an ImportError (numpy's
  _multiarray_umath) leaves no KeyboardInterrupt to catch.
Both are now 'learnsim: error: interrupted', status 130, as every other interrupt."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# sitecustomize runs before learnsim: it stands for the moment the key is pressed
_UNHANDLED_MARK = """
import sys
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "learnsim.io":
            exec("raise KeyboardInterrupt")     # raised where Python runs a string, as Cython's init does
        return None
sys.meta_path.insert(0, Interrupt())
"""

_TURNED_INTO_IMPORT_ERROR = """
import os, signal, sys
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "learnsim.cli._common":
            try:
                os.kill(os.getpid(), signal.SIGINT)
                for _ in range(10 ** 6):
                    pass
            except KeyboardInterrupt:
                pass
            raise ImportError('PyCapsule_Import could not import module "datetime"')
        return None
sys.meta_path.insert(0, Interrupt())
"""


def _run(tmp_path, site, *args):
    (tmp_path / "sitecustomize.py").write_text(site)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO / "src")]), LEARNSIM_PROGRESS="0")
    # the default handler of SIGINT, whatever the test runner's was (an ignored SIGINT stays ignored in a child)
    return subprocess.run([sys.executable, "-m", "learnsim", *args], capture_output=True, text=True, env=env,
                          timeout=120, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


_LATER = _TURNED_INTO_IMPORT_ERROR.replace("learnsim.cli._common", "learnsim.io")     # once main() runs the command
# an error a user would be told of (exit 2), had no interrupt come before it
_LATER_VALUE_ERROR = _LATER.replace("raise ImportError(", "raise ValueError(")


@pytest.mark.skipif(not hasattr(os, "kill") or sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("site", [_UNHANDLED_MARK, _TURNED_INTO_IMPORT_ERROR, _LATER, _LATER_VALUE_ERROR],
                         ids=["marked-unhandled", "import-error", "import-error-in-the-command", "value-error"])
def test_an_interrupt_while_loading_exits_130_with_one_line(tmp_path, site):
    done = _run(tmp_path, site, "fit", "--input", str(tmp_path / "t.tsv"), "--model", str(tmp_path / "m.npz"))
    assert (done.returncode, done.stderr) == (130, "learnsim: error: interrupted\n"), done.stderr[-600:]
    assert done.stdout == ""


@pytest.mark.skipif(not hasattr(os, "kill") or sys.platform == "win32", reason="POSIX signals")
def test_with_json_it_is_also_the_json_error(tmp_path):
    done = _run(tmp_path, _TURNED_INTO_IMPORT_ERROR, "search", "--index", str(tmp_path / "idx"), "--query", "x",
                "--json")
    assert done.returncode == 130 and done.stderr == "learnsim: error: interrupted\n", done.stderr[-600:]
    assert json.loads(done.stdout) == {"error": "interrupted", "exit_code": 130}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_an_import_error_without_an_interrupt_is_still_reported(tmp_path):
    site = _TURNED_INTO_IMPORT_ERROR.replace("os.kill(os.getpid(), signal.SIGINT)", "pass")
    done = _run(tmp_path, site, "fit", "--input", str(tmp_path / "t.tsv"), "--model", str(tmp_path / "m.npz"))
    assert done.returncode not in (0, 130) and "datetime" in done.stderr
