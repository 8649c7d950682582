"""A qrels line holding a Unicode space (no-break space, ideographic space) that is not an ASCII
blank: trec_eval splits its fields at ASCII blanks and tabs alone, Python's str.split (which
ir_datasets uses) at every Unicode space, so such a line reads two ways. It is refused, naming
the line and the character, never read one of the two ways without a word."""
import pytest

from learnsim.datasets import read_qrels


def _write(tmp_path, text, name="qrels.txt"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("space, name", [("\u00a0", "U+00A0"), ("\u3000", "U+3000"), ("\u2003", "U+2003"),
                                         ("\u202f", "U+202F"), ("\x1c", "U+001C")])
def test_a_unicode_space_between_fields_is_refused_naming_line_and_character(tmp_path, space, name):
    path = _write(tmp_path, f"q1 0 d1 1\nq2{space}0{space}d2{space}1\nq3 0 d3 1\n")
    with pytest.raises(ValueError) as info:
        read_qrels(path)
    message = str(info.value)
    assert "line 2" in message and name in message and "\n" not in message


def test_a_unicode_space_inside_a_blank_split_id_is_refused(tmp_path):
    # 'd\u00a01' is one id to trec_eval, two fields to str.split: five fields were reported
    # without naming the no-break space
    path = _write(tmp_path, "q1 0 d\u00a01 1\nq2 0 d2 1\n")
    with pytest.raises(ValueError, match=r"line 1.*U\+00A0"):
        read_qrels(path)


def test_a_unicode_space_after_the_sample_is_refused(tmp_path):
    from learnsim.datasets import trec
    n = trec._QRELS_SAMPLE_ROWS + 5
    lines = [f"q{i} 0 d{i} 1" for i in range(n)]
    lines.append("q9\u00a00 d9 1")
    path = _write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=rf"line {n + 1}\b.*U\+00A0"):
        read_qrels(path)


def test_a_unicode_space_inside_a_tab_separated_id_is_part_of_it(tmp_path):
    # BEIR's TSV is read at tabs (as its csv reader reads it): a no-break space inside an id is the id's
    path = _write(tmp_path, "query-id\tcorpus-id\tscore\nq1\td\u00a01\t1\nq1\td2\t1\n", "qrels.tsv")
    assert read_qrels(path) == {"q1": {"d\u00a01": 1, "d2": 1}}


def test_a_unicode_space_at_the_edge_of_a_tab_separated_field_is_refused(tmp_path):
    # stripped, 'd1\u00a0' became 'd1', an id BEIR's reader does not make of it
    path = _write(tmp_path, "query-id\tcorpus-id\tscore\nq1\td1\u00a0\t1\nq1\td2\t1\n", "qrels.tsv")
    with pytest.raises(ValueError, match=r"line 2.*U\+00A0"):
        read_qrels(path)


def test_ascii_blanks_and_a_comment_with_a_unicode_space_still_read(tmp_path):
    path = _write(tmp_path, "# notes\u00a0here\nq1  0 d1 1\r\nq2 0 d2 1\t\n")
    assert read_qrels(path) == {"q1": {"d1": 1}, "q2": {"d2": 1}}


def test_a_run_line_with_a_unicode_space_between_fields_is_refused(tmp_path):
    from learnsim.datasets import read_trec_run
    path = _write(tmp_path, "q1 Q0 d1 1 2.5 t\nq1 Q0 d2\u00a02 1.5 t\n", "run.txt")
    with pytest.raises(ValueError, match=r"line 2.*U\+00A0"):
        read_trec_run(path)
