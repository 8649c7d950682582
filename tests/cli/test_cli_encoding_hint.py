"""A TREC-layout file (queries, qrels, runs) that is not UTF-8 is Latin-1 in older collections; the
hint named only the Python keyword, encoding='latin-1', which a command-line user cannot pass: it
names the option too, --encoding latin-1, as the hint for encoding_errors names --encoding-errors."""
from __future__ import annotations

from conftest import run_cli


def test_the_latin1_hint_names_the_option(clustered_train_tsv, tmp_path):
    queries = tmp_path / "q.tsv"
    queries.write_bytes("q1\tcaf\u00e9 words\n".encode("latin-1"))
    code, _, err = run_cli(["search", "--model", tmp_path / "none.npz", "--corpus", clustered_train_tsv,
                            "--queries", queries, "--run", tmp_path / "run.txt", "--encoding-errors", "strict"])
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--encoding latin-1" in err
    # and the option it names reads the file
    code, _, err = run_cli(["search", "--model", tmp_path / "none.npz", "--corpus", clustered_train_tsv,
                            "--queries", queries, "--run", tmp_path / "run.txt", "--encoding-errors", "strict",
                            "--encoding", "latin-1"])
    assert "not UTF-8" not in err and "q.tsv" not in err
