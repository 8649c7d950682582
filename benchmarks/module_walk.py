"""How many learnsim modules one user's walk loads (issue 31): ``learnsim fit --input``, then
``learnsim index build`` and ``learnsim search --index``, on the shipped ``examples/tickets.jsonl``,
each step in a fresh process; prints the modules each step loaded, the package ``__init__``s among
them and the command modules.

Run it with another checkout's ``src`` first on ``PYTHONPATH`` to count that code's walk::

    python benchmarks/module_walk.py
    PYTHONPATH=/path/to/other/checkout/src python benchmarks/module_walk.py
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CODE = r'''
import sys, io, contextlib, warnings
warnings.simplefilter("ignore")
from learnsim.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    rc = main(sys.argv[1:])
import learnsim, os
root = os.path.dirname(learnsim.__file__)
mods = sorted(m for m in sys.modules if m == "learnsim" or m.startswith("learnsim."))
inits = [m for m in mods if os.path.exists(os.path.join(root, *m.split(".")[1:], "__init__.py"))]
print(rc, len(mods), len(inits), sum(m.startswith("learnsim.cli") for m in mods))
'''


def main():
    work = Path(tempfile.mkdtemp(prefix="module-walk-"))
    try:
        shutil.copy(REPO / "examples" / "tickets.jsonl", work)
        steps = [("fit", ["fit", "--input", "tickets.jsonl", "--model", "m.npz"]),
                 ("index build", ["index", "build", "--model", "m.npz", "--corpus", "tickets.jsonl", "--out", "idx"]),
                 ("search", ["search", "--index", "idx", "--query", "refund for a damaged parcel", "-k", "3"])]
        print("| step | modules | of them package __init__s | command modules |\n|---|---|---|---|")
        for name, args in steps:
            out = subprocess.run([sys.executable, "-c", CODE] + args, capture_output=True, text=True, cwd=work,
                                 env=dict(os.environ), check=True).stdout.split()
            rc, n, inits, cli = out
            if rc != "0":
                raise SystemExit(f"{name} exited {rc}")
            print(f"| {name} | {n} | {inits} | {cli} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
