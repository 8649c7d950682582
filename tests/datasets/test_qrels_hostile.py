"""Judgement files as sloppy or hostile hands give them: each is read as trec_eval, pytrec_eval
or BEIR's GenericDataLoader read it, or refused in one error naming the file and the problem."""
import gzip

import pytest

from learnsim.cli import main
from learnsim.datasets import read_qrels


def test_a_gzip_stream_whose_name_does_not_end_in_gz_is_refused_naming_gzip(tmp_path):
    # a download saved as qrels.txt, still compressed: read as text its bytes were a line of one
    # field, refused as "1 field(s); expected ..." beside a note of undecodable bytes
    path = tmp_path / "qrels.txt"
    path.write_bytes(gzip.compress(b"q1 0 d1 1\nq2 0 d2 1\n"))
    with pytest.raises(ValueError, match=r"gzip") as caught:
        read_qrels(path)
    assert str(path) in str(caught.value) and ".gz" in str(caught.value)


def test_the_same_stream_named_gz_is_read(tmp_path):
    path = tmp_path / "qrels.txt.gz"
    path.write_bytes(gzip.compress(b"q1 0 d1 1\nq2 0 d2 2\n"))
    assert read_qrels(path) == {"q1": {"d1": 1}, "q2": {"d2": 2}}


@pytest.mark.parametrize("name", ["qrels.tsv", "qrels.tsv.gz"])
def test_a_binary_file_of_no_known_kind_is_refused_as_no_text(tmp_path, name):
    data = bytes(range(256)) * 8
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    with pytest.raises(ValueError, match=r"not text.*NUL") as caught:
        read_qrels(path)
    assert str(path) in str(caught.value)


def test_utf16_judgements_keep_their_own_message(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_bytes("q1 0 d1 1\nq2 0 d2 1\n".encode("utf-16-le"))
    with pytest.raises(ValueError, match=r"UTF-16"):
        read_qrels(path)


@pytest.mark.parametrize("data", [gzip.compress(b"q1 0 d1 1\n"), bytes(range(256)) * 8], ids=["gzip", "binary"])
def test_the_command_line_refuses_them_in_one_line(tmp_path, capsys, data):
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 2.5 t\n", encoding="utf-8")
    (tmp_path / "qrels.txt").write_bytes(data)
    rc = main(["evaluate", "--run", str(tmp_path / "run.txt"), "--qrels", str(tmp_path / "qrels.txt")])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert "qrels.txt" in err


def test_load_trec_collection_refuses_them_as_read_qrels_does(tmp_path):
    from learnsim.datasets import load_trec_collection

    (tmp_path / "docs.tsv").write_text("d1\tbone density\nd2\tvitamin d\n", encoding="utf-8")
    (tmp_path / "topics.tsv").write_text("q1\tbone\n", encoding="utf-8")
    (tmp_path / "qrels.txt").write_bytes(gzip.compress(b"q1 0 d1 1\n"))
    with pytest.raises(ValueError, match=r"gzip"):
        load_trec_collection(tmp_path / "docs.tsv", tmp_path / "topics.tsv", tmp_path / "qrels.txt")


def test_a_line_of_millions_of_fields_is_refused_without_splitting_it(tmp_path):
    # a line holds at most 64 MiB (decoded_lines), yet split into its words a 16 MiB line of
    # 'xy xy ...' took 500 MB to be refused for its 5,592,405 fields (a 64 MiB one, 2 GB)
    import tracemalloc

    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 1\n" + "xy " * ((4 << 20) // 3) + "\nq2 0 d2 1\n", encoding="utf-8")
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"line 2: .*long") as caught:
            read_qrels(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(path) in str(caught.value)
    assert peak < 60 * 2 ** 20, f"{peak / 2 ** 20:.0f} MiB"


def test_a_long_id_is_still_read(tmp_path):
    path = tmp_path / "qrels.txt"
    long_id = "https://example.org/" + "a" * 20_000
    path.write_text(f"q1 0 {long_id} 1\nq2 0 d2 1\n", encoding="utf-8")
    assert read_qrels(path)["q1"] == {long_id: 1}
