"""A command started with its standard output or error closed (``learnsim search ... >&-``, a
service manager's ``StandardOutput=`` gone): Python gives it sys.stdout (sys.stderr) None. The
output that cannot be written is an error, exit 2 and one line, as with a full disk; never a
traceback (AttributeError: 'NoneType' object has no attribute 'flush'), nor exit 0 with the
output lost."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="closes a descriptor in the child")

REPO = Path(__file__).resolve().parents[2]
FIXED = ["--n-basis", "8", "--shrinkage", "0.01", "--complement-weight", "0.3"]


def _run(args, close):
    """learnsim ``args`` in a child whose descriptor ``close`` (1 or 2) is closed at its start."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "learnsim", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=300, preexec_fn=lambda: os.close(close))


@pytest.fixture(scope="module")
def model_and_corpus(clustered_train_tsv, tmp_path_factory):
    from conftest import run_cli

    folder = tmp_path_factory.mktemp("closed")
    model = folder / "m.npz"
    code, _, err = run_cli(["fit", "--input", clustered_train_tsv, "--model", model] + FIXED)
    assert code == 0, err
    return model, clustered_train_tsv


@pytest.mark.parametrize("extra", [[], ["--json"]], ids=["text", "json"])
def test_a_closed_stdout_is_an_error_not_a_traceback(model_and_corpus, extra):
    model, corpus = model_and_corpus
    done = _run(["search", "--model", model, "--corpus", corpus, "--query", "w0481 w0373"] + extra, close=1)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    assert done.stderr.count("error:") == 1 and "standard output" in done.stderr


def test_a_closed_stdout_fails_evaluate_json(model_and_corpus):
    """evaluate --json exited 0 with its JSON written nowhere."""
    model, corpus = model_and_corpus
    done = _run(["evaluate", "--model", model, "--input", corpus, "--json"], close=1)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("error:") == 1 and "standard output" in done.stderr


def test_a_closed_stderr_keeps_the_status_and_stdout_clean(model_and_corpus, tmp_path):
    """The error line went to stdout (print(file=None) writes there) and search exited 1."""
    model, _ = model_and_corpus
    done = _run(["search", "--model", model, "--corpus", tmp_path / "missing.tsv", "--query", "x"], close=2)
    assert done.returncode == 2
    assert done.stdout == ""
