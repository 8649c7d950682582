"""A qrels file that is no text (a Parquet export, a zip) is refused by name, in one line."""
import pytest

from learnsim.cli import main
from learnsim.datasets import read_qrels


@pytest.mark.parametrize("name, head", [("qrels.parquet", b"PAR1\x15\x04\x15\x10"), ("qrels.zip", b"PK\x03\x04\x14\x00"),
                                        ("qrels.tsv", b"PAR1\x15\x04\x15\x10")])
def test_a_binary_qrels_file_is_refused_naming_its_kind(tmp_path, name, head):
    path = tmp_path / name
    path.write_bytes(head + bytes(range(256)) + b"PAR1")
    with pytest.raises(ValueError, match=r"not text .*(Parquet|zip)") as caught:
        read_qrels(path)
    assert str(path) in str(caught.value)


def test_the_command_line_says_it_in_one_line(tmp_path, capsys):
    (tmp_path / "q.tsv").write_text("q1\tbone density\n", encoding="utf-8")
    (tmp_path / "c.tsv").write_text("d1\tbone density is low\nd2\tvitamin d\n", encoding="utf-8")
    (tmp_path / "x.parquet").write_bytes(b"PAR1\x00\x01\x02\xff\xfe garbage PAR1")
    rc = main(["evaluate", "--qrels", str(tmp_path / "x.parquet"), "--queries", str(tmp_path / "q.tsv"),
               "--corpus", str(tmp_path / "c.tsv")])
    err = capsys.readouterr().err
    assert rc == 2 and "Parquet" in err and len(err.strip().splitlines()) == 1, err


def test_a_text_qrels_file_reads_as_before(tmp_path):
    path = tmp_path / "qrels.tsv"
    path.write_text("query-id\tcorpus-id\tscore\nq1\td1\t2\n", encoding="utf-8")
    assert read_qrels(path) == {"q1": {"d1": 2}}
