"""write_trec_run's rank column is the order trec_eval evaluates, near ties included."""
from learnsim.datasets import read_trec_run, write_trec_run


def test_scores_equal_in_single_precision_are_written_in_trec_evals_order(tmp_path):
    # trec_eval reads 1.000000001 and 1.0 as one float and puts the larger id first
    path = tmp_path / "run.trec"
    write_trec_run(path, {"q": {"a": 1.0 + 1e-9, "b": 1.0, "c": 0.5}})
    lines = [line.split() for line in path.read_text().splitlines()]
    assert [(doc, rank) for _, _, doc, rank, _, _ in lines] == [("b", "1"), ("a", "2"), ("c", "3")]
    # the scores themselves are kept in full
    assert read_trec_run(path)["q"]["a"] == 1.0 + 1e-9
