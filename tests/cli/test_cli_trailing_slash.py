"""An output file named with a trailing '/' (``--run results/``, a folder that does not exist yet) is
refused naming the option: pathlib drops the slash, so a FILE named ``results`` was written where
the user asked for a folder, with exit 0 (POSIX open("results/", "w") fails)."""
from __future__ import annotations

import pytest

from conftest import run_cli

FIXED = ["--n-basis", "8", "--shrinkage", "0.01", "--complement-weight", "0.3"]


@pytest.mark.parametrize("name", ["new.npz/", "new.npz//"])
def test_a_model_named_as_a_folder_is_refused(clustered_train_tsv, tmp_path, name):
    code, out, err = run_cli(["fit", "--input", clustered_train_tsv, "--model", f"{tmp_path}/{name}"] + FIXED)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "--model" in lines[0] and "'/'" in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_a_run_named_as_a_folder_is_refused(clustered_train_tsv, tmp_path):
    queries = tmp_path / "q.tsv"
    queries.write_text("q1\tsome words\n", encoding="utf-8")
    code, _, err = run_cli(["search", "--model", tmp_path / "none.npz", "--corpus", clustered_train_tsv,
                            "--queries", queries, "--run", f"{tmp_path}/results/"])
    assert code == 2 and "--run" in err and "'/'" in err
    assert not (tmp_path / "results").exists()


def test_an_existing_folder_with_a_slash_is_still_called_a_folder(clustered_train_tsv, tmp_path):
    code, _, err = run_cli(["fit", "--input", clustered_train_tsv, "--model", f"{tmp_path}/"] + FIXED)
    assert code == 2 and "is a folder" in err
