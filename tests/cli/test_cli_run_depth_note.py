"""search --index --queries --run without -k takes TREC's depth capped at the index's size, quietly;
on an index whose documents were all deleted the cap of 1 was noted as '-k 1 is more than the 0
indexed documents', naming an option the user never gave."""
from __future__ import annotations

from conftest import run_cli

FIXED = ["--n-basis", "8", "--shrinkage", "0.01", "--complement-weight", "0.3"]


def test_an_empty_index_run_notes_no_k(clustered_train_tsv, tmp_path):
    model = tmp_path / "m.npz"
    assert run_cli(["fit", "--input", clustered_train_tsv, "--model", model] + FIXED)[0] == 0
    corpus = tmp_path / "docs.tsv"
    corpus.write_text("a1\tsome words\na2\tother words\n", encoding="utf-8")
    idx = tmp_path / "idx"
    assert run_cli(["index", "build", "--model", model, "--corpus", corpus, "--out", idx])[0] == 0
    assert run_cli(["index", "delete", idx, "--id", "a1", "--id", "a2"])[0] == 0
    queries = tmp_path / "q.tsv"
    queries.write_text("q1\tsome words\n", encoding="utf-8")
    code, out, err = run_cli(["search", "--index", idx, "--queries", queries, "--run", tmp_path / "run.txt"])
    assert code == 0, err
    assert "-k" not in err
    # an asked-for -k beyond the index is still noted
    code, out, err = run_cli(["search", "--index", idx, "--queries", queries, "--run", tmp_path / "run.txt",
                              "-k", "5"])
    assert code == 0 and "-k 5" in err
