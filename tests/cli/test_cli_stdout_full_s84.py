"""A command whose summary could not be written to standard output (a full disk: '> /dev/full')
said "learnsim fit: error: No space left on device" after the model was saved: nothing said the
disk that was full was standard output's, not the model's, as '--help > /dev/full' says
("cannot write the output (No space left on device)")."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXED = ["--n-basis", "8", "--shrinkage", "0.01", "--complement-weight", "0.3", "--baseline-holdout", "none"]

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")


def _to_full(args):
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), LEARNSIM_PROGRESS="0")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "learnsim", *map(str, args)], stdout=full,
                              stderr=subprocess.PIPE, text=True, env=env, timeout=300)
    errors = [line for line in done.stderr.splitlines() if "error:" in line]
    assert done.returncode == 2 and len(errors) == 1 and "Traceback" not in done.stderr, done.stderr
    return errors[0]


def test_fit_to_a_full_stdout_says_it_is_the_output(clustered_train_tsv, tmp_path):
    model = tmp_path / "m.npz"
    line = _to_full(["fit", "--input", clustered_train_tsv, "--model", model, *FIXED])
    assert line.startswith("learnsim fit: error: cannot write the output (No space left on device)")
    assert model.is_file()          # the model was written whole before the summary


def test_search_to_a_full_stdout_says_it_is_the_output(clustered_train_tsv, tmp_path):
    model = tmp_path / "m.npz"
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), LEARNSIM_PROGRESS="0")
    subprocess.run([sys.executable, "-m", "learnsim", "fit", "--input", str(clustered_train_tsv), "--model",
                    str(model), *FIXED], check=True, capture_output=True, env=env, timeout=300)
    corpus = tmp_path / "docs.txt"
    corpus.write_text(clustered_train_tsv.read_text(encoding="utf-8"), encoding="utf-8")
    for extra in ([], ["--json"]):
        line = _to_full(["search", "--model", model, "--corpus", corpus, "--query", "alpha", *extra])
        assert "cannot write the output (No space left on device)" in line
