"""A pairs TSV written text_a<TAB>text_b<TAB>label without a header (the label last, where the
headerless layouts read it first) was refused as "not a recognised pair layout ... pass
columns=, e.g. columns='label=0,text_a=3,text_b=4'": an example of another file's columns, and
no word of the header that would have read it. The error now says, in one line, that the line
reads as two texts and a label with no header, and gives the header line to add and the
--columns that read the file as it is (both tested to read it)."""
from __future__ import annotations

import pytest

from conftest import run_cli
from learnsim.datasets import read_pairs
from learnsim.datasets.pairs import DocumentFormatError

_ROWS = [("How do I learn Python?", "What is the best way to learn Python?", "1"),
         ("How old is the moon?", "What is the age of the moon?", "1"),
         ("Best pizza in town", "How to fix a bike", "0")]


def _write(path, rows, sep="\t"):
    path.write_text("".join(sep.join(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix, sep", [(".tsv", "\t"), (".csv", ",")])
@pytest.mark.parametrize("last, role", [(("1", "1", "0"), "label"), (("4.5", "3.2", "0.4"), "score")])
def test_text_text_value_without_a_header_says_what_to_do(tmp_path, suffix, sep, last, role):
    rows = [(a, b, v) for (a, b, _), v in zip(_ROWS, last)]
    path = _write(tmp_path / f"pairs{suffix}", rows, sep)
    with pytest.raises(DocumentFormatError) as info:
        read_pairs(path)
    message = str(info.value)
    assert "\n" not in message and "line 1" in message
    assert "header" in message and f"text_a=0,text_b=1,{role}=2" in message, message
    shown_sep = "<TAB>" if sep == "\t" else ","
    header = shown_sep.join(["text_a", "text_b", role])
    assert header in message, message
    # both ways out the message gives do read the file
    assert read_pairs(path, columns=f"text_a=0,text_b=1,{role}=2").text_a.tolist() == [r[0] for r in rows]
    (tmp_path / "with_header").mkdir()
    fixed = tmp_path / "with_header" / path.name
    fixed.write_text(header.replace("<TAB>", "\t") + "\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    assert read_pairs(fixed).text_b.tolist() == [r[1] for r in rows]


def test_the_command_line_says_it_in_one_line(tmp_path):
    path = _write(tmp_path / "pairs.tsv", _ROWS)
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", str(path), "--model", str(tmp_path / "m.npz")])
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "text_a<TAB>text_b<TAB>label" in lines[0] and "--columns text_a=0,text_b=1,label=2" in lines[0], err
    assert not (tmp_path / "m.npz").exists()


def test_an_unrecognised_layout_still_names_the_columns_option(tmp_path):
    path = _write(tmp_path / "pairs.tsv", [("a", "b", "c", "d", "e")])
    with pytest.raises(DocumentFormatError, match=r"line 1: not a recognised pair layout .*header.*columns="):
        read_pairs(path)
