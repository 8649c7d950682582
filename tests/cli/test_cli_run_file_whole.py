"""learnsim search --queries --run FILE writes the run whole or not at all: a failure half-way (a full
disk, a quota) leaves the file that was there, not the first half of a run that reads as complete."""
from __future__ import annotations

import errno

import pytest

from conftest import run_cli

FIXED = ["--n-basis", "8", "--shrinkage", "0.01", "--complement-weight", "0.3"]


@pytest.fixture(scope="module")
def model_and_corpus(clustered_train_tsv, tmp_path_factory):
    folder = tmp_path_factory.mktemp("run-whole")
    model = folder / "m.npz"
    code, _, err = run_cli(["fit", "--input", clustered_train_tsv, "--model", model] + FIXED)
    assert code == 0, err
    corpus = folder / "docs.tsv"
    lines = clustered_train_tsv.read_text(encoding="utf-8").splitlines()
    corpus.write_text("".join(f"d{i}\t{line.split(chr(9), 1)[1]}\n" for i, line in enumerate(lines)),
                      encoding="utf-8")
    queries = folder / "queries.tsv"
    queries.write_text("".join(f"q{i}\t{' '.join(line.split(chr(9), 1)[1].split()[:4])}\n"
                               for i, line in enumerate(lines[:6])), encoding="utf-8")
    return model, corpus, queries


@pytest.fixture
def a_full_disk(monkeypatch):
    """write_trec_run that writes half of its lines, then fails as a full disk does."""
    import learnsim.datasets

    real = learnsim.datasets.write_trec_run

    def half(path, run, tag="learnsim"):
        n = real(path, run, tag=tag)
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text[: len(text) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(learnsim.datasets, "write_trec_run", half)


def test_a_failed_run_leaves_the_run_that_was_there(model_and_corpus, tmp_path, a_full_disk):
    model, corpus, queries = model_and_corpus
    run = tmp_path / "run.txt"
    run.write_text("q0 Q0 d1 1 1.0 earlier\n", encoding="utf-8")
    code, out, err = run_cli(["search", "--model", model, "--corpus", corpus, "--queries", queries, "--run", run])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--run" in err
    assert run.read_text(encoding="utf-8") == "q0 Q0 d1 1 1.0 earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.txt"]       # no temporary file left beside it


def test_a_failed_new_run_leaves_no_file(model_and_corpus, tmp_path, a_full_disk):
    model, corpus, queries = model_and_corpus
    run = tmp_path / "run.txt"
    code, _, err = run_cli(["search", "--model", model, "--corpus", corpus, "--queries", queries, "--run", run])
    assert code == 2
    assert list(tmp_path.iterdir()) == []


def test_the_run_is_written_whole(model_and_corpus, tmp_path):
    model, corpus, queries = model_and_corpus
    run = tmp_path / "run.txt"
    run.write_text("old\n", encoding="utf-8")
    code, out, err = run_cli(["search", "--model", model, "--corpus", corpus, "--queries", queries, "--run", run,
                              "-k", "3"])
    assert code == 0, err
    lines = run.read_text(encoding="utf-8").splitlines()
    assert lines and all(len(line.split()) == 6 for line in lines)
    assert {line.split()[0] for line in lines} <= {f"q{i}" for i in range(6)}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.txt"]
