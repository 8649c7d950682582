"""learnsim fit --model names a file the model is moved into once whole: a device, a pipe or a socket
there is refused before the fit, not after it."""
from __future__ import annotations

import os

import pytest

from conftest import run_cli

FIXED = ["--n-basis", "8", "--shrinkage", "0.01", "--complement-weight", "0.3"]


@pytest.mark.skipif(not os.path.exists(os.devnull) or os.name != "posix", reason="needs a POSIX /dev/null")
def test_a_device_as_the_model_is_refused_before_the_fit(clustered_train_tsv):
    """--model /dev/null (or /dev/full) ran the whole fit, then failed in persistence.save."""
    code, out, err = run_cli(["fit", "--input", clustered_train_tsv, "--model", os.devnull] + FIXED)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "--model" in err and "regular file" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_as_the_model_is_refused_before_the_fit(clustered_train_tsv, tmp_path):
    fifo = tmp_path / "model.npz"
    os.mkfifo(fifo)
    code, out, err = run_cli(["fit", "--input", clustered_train_tsv, "--model", fifo] + FIXED)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "regular file" in err
