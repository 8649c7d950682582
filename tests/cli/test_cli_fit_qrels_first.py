"""fit --qrels reads the judgements before the corpus: a damaged qrels file is named at once."""
from learnsim.cli import main


def _files(tmp_path):
    (tmp_path / "q.tsv").write_text("q1\tbone density\nq2\tvitamin d\n", encoding="utf-8")
    # the same pair judged relevant and not: read_qrels refuses it
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d1 0\nq2 0 d2 1\n", encoding="utf-8")


def test_a_pair_judged_twice_is_named_before_the_corpus_is_read(tmp_path, capsys, monkeypatch):
    _files(tmp_path)
    # a corpus that is never read where the qrels are refused first: its reading would fail on
    # its own bytes (not UTF-8), naming the corpus
    (tmp_path / "corpus.tsv").write_bytes(b"d1\tbone \xff\xfe density\nd2\tvitamin\n")
    rc = main(["fit", "--qrels", str(tmp_path / "qrels.txt"), "--queries", str(tmp_path / "q.tsv"),
               "--corpus", str(tmp_path / "corpus.tsv"), "--model", str(tmp_path / "m.npz")])
    err = capsys.readouterr().err
    assert rc == 2
    assert "judged again" in err, err
    assert len(err.strip().splitlines()) == 1, err
