"""Ctrl-C in the first half second of a command (while its modules load: 'learnsim fit ...' and
the key pressed at once) printed a traceback ending in KeyboardInterrupt, where later it is one
line, 'learnsim: error: interrupted', and status 130."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# the interrupt arrives while learnsim.cli's modules are imported, as a Ctrl-C at that moment does
_INTERRUPT_ON_IMPORT = """
import sys
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "learnsim.cli._common":
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, Interrupt())
from learnsim._console import run
raise SystemExit(run(sys.argv[1:]))
"""


def _run(*args):
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    return subprocess.run([sys.executable, "-c", _INTERRUPT_ON_IMPORT, *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_an_interrupt_while_the_command_loads_is_one_line_and_130():
    done = _run("fit", "--input", "train.tsv", "--model", "m.npz")
    assert done.returncode == 130
    assert done.stderr == "learnsim: error: interrupted\n" and done.stdout == ""


def test_with_json_the_interrupt_is_also_a_json_error():
    done = _run("search", "--index", "idx", "--query", "x", "--json")
    assert done.returncode == 130 and done.stderr == "learnsim: error: interrupted\n"
    assert json.loads(done.stdout) == {"error": "interrupted", "exit_code": 130}
