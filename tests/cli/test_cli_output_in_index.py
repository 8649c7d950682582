"""No command writes its output file into a learnsim index folder it does not manage: fit --model
IDX/model.npz replaced the index's model, and every later 'index add' failed with 'model.npz is
damaged: it does not match the checksum in the manifest'. Refused before any work, exit 2."""
from __future__ import annotations

import pytest

from conftest import run_cli

FIXED = ["--n-basis", "8", "--shrinkage", "0.01", "--complement-weight", "0.3"]


@pytest.fixture(scope="module")
def built(clustered_train_tsv, tmp_path_factory):
    folder = tmp_path_factory.mktemp("out-in-index")
    model = folder / "m.npz"
    assert run_cli(["fit", "--input", clustered_train_tsv, "--model", model] + FIXED)[0] == 0
    corpus = folder / "docs.tsv"
    corpus.write_text("a1\tsome words\na2\tother words\n", encoding="utf-8")
    assert run_cli(["index", "build", "--model", model, "--corpus", corpus, "--out", folder / "idx"])[0] == 0
    queries = folder / "q.tsv"
    queries.write_text("q1\tsome words\n", encoding="utf-8")
    return folder, model, corpus, queries


@pytest.mark.parametrize("name", ["model.npz", "new.npz", "segments/x.npz"])
def test_a_model_into_an_index_is_refused(built, clustered_train_tsv, name):
    folder, *_ = built
    target = folder / "idx" / name
    # (SQLite's -wal and -shm files come and go with connections: not the index's content)
    files = lambda: {p: p.read_bytes() for p in (folder / "idx").rglob("*")
                     if p.is_file() and not p.name.endswith(("-wal", "-shm"))}
    before = files()
    code, out, err = run_cli(["fit", "--input", clustered_train_tsv, "--model", target] + FIXED)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--model" in err and "index" in err
    assert files() == before


def test_a_run_into_an_index_is_refused(built):
    folder, model, corpus, queries = built
    code, _, err = run_cli(["search", "--model", model, "--corpus", corpus, "--queries", queries,
                            "--run", folder / "idx" / "run.txt"])
    assert code == 2 and "--run" in err and "index" in err
    assert not (folder / "idx" / "run.txt").exists()
