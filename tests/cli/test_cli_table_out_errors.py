"""cluster --out and dedupe --out that cannot be written (a full disk: /dev/full) say which file, in one
line, as search --run does; not the bare 'No space left on device'."""
from __future__ import annotations

import os

import pytest

from conftest import run_cli

FIXED = ["--n-basis", "8", "--shrinkage", "0.01", "--complement-weight", "0.3"]


@pytest.fixture(scope="module")
def index(clustered_train_tsv, tmp_path_factory):
    folder = tmp_path_factory.mktemp("table-out")
    model = folder / "m.npz"
    code, _, err = run_cli(["fit", "--input", clustered_train_tsv, "--model", model] + FIXED)
    assert code == 0, err
    corpus = folder / "docs.tsv"
    lines = clustered_train_tsv.read_text(encoding="utf-8").splitlines()
    corpus.write_text("".join(f"d{i}\t{line.split(chr(9), 1)[1]}\n" for i, line in enumerate(lines)),
                      encoding="utf-8")
    code, _, err = run_cli(["index", "build", "--model", model, "--corpus", corpus, "--out", folder / "idx"])
    assert code == 0, err
    return folder / "idx"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_full_disk_names_the_output(index):
    code, out, err = run_cli(["cluster", "--index", index, "--k", "3", "--out", "/dev/full"])
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert "--out /dev/full" in lines[0] and "No space left" in lines[0]

