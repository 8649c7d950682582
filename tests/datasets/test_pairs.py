"""The general pair reader (learnsim.datasets.read_pairs, parse_columns): every layout on small
files in tmp_path, lists and DataFrames, identical-text pairs, every error path, and the
bad-bytes policy; and load_quora_pairs / load_sts_benchmark reading other layouts through it.

Loaders for the sentence-pair corpora (Quora question pairs, STS Benchmark) and the
adapter that turns duplicate pairs into triplets.
"""
from __future__ import annotations

import gzip
import json
import warnings
from collections import Counter

import numpy as np
import pytest

from conftest import require_corpus
from learnsim.datasets import (PAIR_ROLES, DocumentFormatError, UndecodableBytesWarning, load_quora_pairs,
                               load_sts_benchmark, parse_columns, read_pairs)
from learnsim.supervision import Pairs, Triplets, duplicate_pairs_to_triplets


def _texts_of(bunch):
    """The two texts of every pair, through the Pairs indices."""
    idx = bunch.pairs.indices
    return [(bunch.texts[i], bunch.texts[j]) for i, j in idx]


# ------------------------------------------------------------------------- parse_columns

def test_parse_columns_string_and_dict():
    assert parse_columns("label=0,text_a=3,text_b=4") == {"label": 0, "text_a": 3, "text_b": 4}
    assert parse_columns(" score = sim , text_a=s1,text_b = s2,pair_id=7") == \
        {"score": "sim", "text_a": "s1", "text_b": "s2", "pair_id": 7}
    assert parse_columns({"label": "y", "text_a": 0, "text_b": 1}) == {"label": "y", "text_a": 0, "text_b": 1}
    assert parse_columns("text_a=1,text_b=2,id=0") == {"text_a": 1, "text_b": 2, "pair_id": 0}   # unlabelled
    assert set(PAIR_ROLES) >= {"label", "score", "text_a", "text_b", "id_a", "id_b"}


@pytest.mark.parametrize("spec, error, message", [
    ("label=0,txt=1,text_b=2", ValueError, "unknown role 'txt'"),
    ("label=0,text_a=1,text_a=2,text_b=3", ValueError, "role 'text_a' is given twice"),
    ("label=0,text_a=1", ValueError, "no text_b"),
    ("label=0", ValueError, "no text_a and no text_b"),
    ("label=0,score=1,text_a=2,text_b=3", ValueError, "one of label .* and score"),
    ("label=0,text_a=1,text_b=1", ValueError, "column 1 is given two roles, text_a and text_b"),
    ("label=0,text_a,text_b=2", ValueError, "'text_a' is not role=column"),
    ("label=0,,text_a=1,text_b=2", ValueError, "an empty item"),
    ("label=,text_a=1,text_b=2", ValueError, "label has an empty column"),
    ({"label": -1, "text_a": 0, "text_b": 1}, ValueError, "positions count from 0"),
    ({"label": 1.5, "text_a": 0, "text_b": 2}, TypeError, "label must be a column name or a 0-based position"),
    ({"label": True, "text_a": 0, "text_b": 2}, TypeError, "label must be a column name"),
    (["label=0"], TypeError, "columns must be a string"),
])
def test_parse_columns_errors(spec, error, message):
    with pytest.raises(error, match=message):
        parse_columns(spec)


# --------------------------------------------------------------------- recognised layouts

QUORA_RELEASE = ("id\tqid1\tqid2\tquestion1\tquestion2\tis_duplicate\n"
                 "0\t1\t2\tHow do I learn Python?\tWhat is the best way to learn Python?\t1\n"
                 '1\t3\t4\t"Why say ""hi""?"\tHow do I learn Python?\t0\n'
                 "2\t5\t5\tSame question?\tSame question?\t1\n")


def test_quora_release_layout_by_header(tmp_path):
    bunch = read_pairs(_write(tmp_path / "quora_duplicate_questions.tsv", QUORA_RELEASE))
    assert bunch.layout == "header" and bunch.kind == "binary" and not bunch.pairs.is_graded
    assert bunch.columns == {"pair_id": 0, "id_a": 1, "id_b": 2, "text_a": 3, "text_b": 4, "label": 5}
    np.testing.assert_array_equal(bunch.labels, [1, 0, 1])
    np.testing.assert_array_equal(bunch.pairs.labels, [True, False, True])
    assert bunch.scores is None
    np.testing.assert_array_equal(bunch.pair_ids, [0, 1, 2])
    assert list(bunch.id_a) == ["1", "3", "5"] and list(bunch.id_b) == ["2", "4", "5"]
    assert list(bunch.text_a)[1] == 'Why say "hi"?'   # CSV quoting undone
    np.testing.assert_array_equal(bunch.line_numbers, [2, 3, 4])
    # the pair of two identical questions is kept: its second text is an entry of its own
    assert bunch.n_identical_pairs == 1 and len(bunch.pairs) == 3
    assert _texts_of(bunch)[2] == ("Same question?", "Same question?")
    assert bunch.texts.count("Same question?") == 2
    assert bunch.filename.endswith("quora_duplicate_questions.tsv")


def test_quora_sample_layout_without_header(tmp_path):
    text = "1\tA?\tB?\t7\n0\tA?\tC?\t8\n1\tD?\tD?\t9\n"
    bunch = read_pairs(_write(tmp_path / "dev.tsv", text))
    assert bunch.layout == "quora-sample"
    assert _texts_of(bunch) == [("A?", "B?"), ("A?", "C?"), ("D?", "D?")]
    np.testing.assert_array_equal(bunch.pair_ids, [7, 8, 9])
    assert bunch.n_identical_pairs == 1
    assert bunch.texts == ["A?", "B?", "C?", "D?", "D?"]


def test_sts_layout_is_split_on_tabs_only(tmp_path):
    lines = ["main-news\theadlines\t2016\t0012\t4\tHe said \"stop\tHe said stop\tlicence\textra",
             "main-captions\tMSRvid\t2012\t0001\t5.000\t\"A plane\tA plane",
             "main-news\theadlines\t2014\t0725\t2.5\tSame sentence\tSame sentence"]
    bunch = read_pairs(_write(tmp_path / "sts-dev.csv", "\r\n".join(lines) + "\r\n"))
    assert bunch.layout == "sts" and bunch.kind == "graded" and bunch.pairs.is_graded
    np.testing.assert_allclose(bunch.scores, [4.0, 5.0, 2.5])
    np.testing.assert_allclose(bunch.pairs.scores, bunch.scores)
    assert bunch.labels is None
    assert list(bunch.text_a) == ['He said "stop', '"A plane', "Same sentence"]
    assert list(bunch.pair_ids) == [12, 1, 725]
    assert bunch.n_identical_pairs == 1


@pytest.mark.parametrize("name, header, kind", [
    ("p.csv", "text_a,text_b,label", "binary"),
    ("p.csv", "sentence1,sentence2,score", "graded"),
    ("p.tsv", "Text1\tText2\tSimilarity", "graded"),
])
def test_header_layouts(tmp_path, name, header, kind):
    sep = "\t" if name.endswith(".tsv") else ","
    rows = [sep.join(["a cat", "a dog", "1"]), sep.join(["x", "y", "0"])]
    bunch = read_pairs(_write(tmp_path / name, header + "\n" + "\n".join(rows) + "\n"))
    assert bunch.kind == kind and bunch.layout == "header"
    assert _texts_of(bunch) == [("a cat", "a dog"), ("x", "y")]
    assert (bunch.labels if kind == "binary" else bunch.scores).tolist() == [1, 0]


def test_jsonl_layout_by_keys(tmp_path):
    lines = [{"sentence1": "a", "sentence2": "b", "score": 3.5, "id": "p1"},
             {"sentence1": "c", "sentence2": "c", "score": 1, "id": "p2"}]
    path = _write(tmp_path / "pairs.jsonl", "\n".join(json.dumps(o) for o in lines) + "\n\n")
    bunch = read_pairs(path)
    assert bunch.kind == "graded" and bunch.scores.tolist() == [3.5, 1.0]
    assert list(bunch.pair_ids) == ["p1", "p2"] and bunch.n_identical_pairs == 1


def test_gzipped_file_and_format_override(tmp_path):
    path = tmp_path / "pairs.tsv.gz"
    path.write_bytes(gzip.compress(b"text_a\ttext_b\tlabel\nx\ty\t1\n"))
    assert read_pairs(path).labels.tolist() == [1]
    other = _write(tmp_path / "pairs.data", "text_a,text_b,label\nx,y,true\n")
    assert read_pairs(other, format="csv").labels.tolist() == [1]


# -------------------------------------------------------------------------- columns=

def test_columns_by_position_with_and_without_header(tmp_path):
    text = "7\tq1\tq2\tWhat?\tWhy?\t1\n8\tq3\tq4\tWho?\tWhen?\tno\n"
    bunch = read_pairs(_write(tmp_path / "p.tsv", text), columns="label=5,text_a=3,text_b=4,id_a=1,id_b=2")
    assert _texts_of(bunch) == [("What?", "Why?"), ("Who?", "When?")]
    assert bunch.labels.tolist() == [1, 0] and list(bunch.id_b) == ["q2", "q4"]
    np.testing.assert_array_equal(bunch.pair_ids, [0, 1])      # no pair_id column: 0..n-1
    # a first row whose label cell is not a label is a header
    with_header = _write(tmp_path / "h.tsv", "pid\tx\ty\ta\tb\tdup\n" + text)
    assert len(read_pairs(with_header, columns="label=5,text_a=3,text_b=4").pairs) == 2
    assert read_pairs(with_header, columns="label=5,text_a=3,text_b=4").line_numbers.tolist() == [2, 3]


def test_columns_by_name(tmp_path):
    path = _write(tmp_path / "p.csv", "sim,left,right\n0.5,a,b\n4,c,d\n")
    bunch = read_pairs(path, columns="score=sim,text_a=left,text_b=right")
    assert bunch.kind == "graded" and bunch.scores.tolist() == [0.5, 4.0]
    assert bunch.columns == {"score": 0, "text_a": 1, "text_b": 2}
    # a label read as a graded score, and a score as a binary label
    assert read_pairs(path, columns="label=sim,text_a=left,text_b=right", label_kind="graded").kind == "graded"


def test_header_false_reads_the_first_row(tmp_path):
    path = _write(tmp_path / "p.tsv", "1\ta\tb\t1\n")
    assert len(read_pairs(path, header=False).pairs) == 1
    assert len(read_pairs(path, columns="label=0,text_a=1,text_b=2", header=False).pairs) == 1


def test_explicit_delimiter_and_no_quoting(tmp_path):
    path = _write(tmp_path / "p.txt", 'label|text_a|text_b\n1|"quoted|x\n')
    bunch = read_pairs(path, delimiter="|", quoting="none")
    assert _texts_of(bunch) == [('"quoted', "x")]


def test_headerless_short_layouts_and_unlabelled_pairs(tmp_path):
    labelled = read_pairs(_write(tmp_path / "l.tsv", "1\ta\tb\n0\ta\tc\n"))
    assert labelled.layout == "label-text-text" and labelled.labels.tolist() == [1, 0]
    unlabelled = read_pairs(_write(tmp_path / "u.tsv", "a\tb\nc\td\n"))
    assert unlabelled.layout == "text-text" and unlabelled.kind == "unlabelled"
    assert unlabelled.pairs is None and unlabelled.labels is None and unlabelled.scores is None
    assert unlabelled.indices.tolist() == [[0, 1], [2, 3]]
    with_header = read_pairs(_write(tmp_path / "h.tsv", "text_a\ttext_b\tid\nx\ty\tp1\n"))
    assert with_header.kind == "unlabelled" and list(with_header.pair_ids) == ["p1"]
    by_columns = read_pairs(_write(tmp_path / "c.tsv", "sentence1\tn\tsentence2\nx\t3\ty\n"), columns="text_a=0,text_b=2,id=1")
    assert by_columns.line_numbers.tolist() == [2] and by_columns.pair_ids.tolist() == [3]
    assert read_pairs([("a", "b"), ("c", "c")]).n_identical_pairs == 1
    with pytest.raises(ValueError, match="have no label, not a duplicate label"):
        load_quora_pairs(tmp_path / "h.tsv")


# ---------------------------------------------------------------------- in-memory data

def test_list_of_tuples():
    bunch = read_pairs([("a", "b", 1), ("a", "c", False), ("d", "d", "yes")])
    assert bunch.kind == "binary" and bunch.labels.tolist() == [1, 0, 1]
    assert bunch.layout == "tuples" and bunch.filename is None
    assert bunch.n_identical_pairs == 1 and _texts_of(bunch)[2] == ("d", "d")
    graded = read_pairs([("a", "b", 1), ("a", "c", 0.5)])      # not every value is 0/1: graded
    assert graded.kind == "graded" and graded.scores.tolist() == [1.0, 0.5]
    assert read_pairs([("a", "b", 1)], label_kind="graded").kind == "graded"
    by_position = read_pairs([(0.5, "x", "a", "b")], columns="score=0,text_a=2,text_b=3,pair_id=1")
    assert list(by_position.pair_ids) == ["x"]


def test_list_of_dicts():
    bunch = read_pairs([{"q1": "a", "q2": "b", "dup": 1}], columns={"label": "dup", "text_a": "q1", "text_b": "q2"})
    assert bunch.labels.tolist() == [1]
    assert read_pairs([{"text_a": "a", "text_b": "b", "label": 0}]).labels.tolist() == [0]


def test_dataframe():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"question1": ["a", "c", "e"], "question2": ["b", None, "e"],
                          "is_duplicate": [1, 0, 1], "id": [10, 11, 12]})
    bunch = read_pairs(frame)
    assert bunch.kind == "binary" and bunch.labels.tolist() == [1, 0, 1]
    assert _texts_of(bunch)[1] == ("c", "") and bunch.n_empty_texts == 1  # a missing cell is an empty text
    np.testing.assert_array_equal(bunch.pair_ids, [10, 11, 12])
    assert bunch.n_identical_pairs == 1
    by_position = read_pairs(frame, columns="label=2,text_a=0,text_b=1")
    assert by_position.labels.tolist() == [1, 0, 1]
    scores = pd.DataFrame({"s": [0.5, 2.0], "x": ["a", "b"], "y": ["c", "d"]})
    assert read_pairs(scores, columns="score=s,text_a=x,text_b=y").scores.tolist() == [0.5, 2.0]
    with pytest.raises(DocumentFormatError, match="no column named 'nope'"):
        read_pairs(scores, columns="score=nope,text_a=x,text_b=y")
    with pytest.raises(DocumentFormatError, match="not a recognised pair layout"):
        read_pairs(scores)


# -------------------------------------------------------------------------- errors

@pytest.mark.parametrize("text, kwargs, message", [
    ("a\tb\tc\n1\t2\t3\n", {}, r"line 1: not a recognised pair layout .*pass columns="),
    ("x\ty\tz\n", {"columns": "label=0,text_a=1,text_b=5"}, r"line 1: text_b=5 is out of range: the header has 3"),
    ("1\ta\tb\n1\tc\n", {"columns": "label=0,text_a=1,text_b=2"}, r"line 2: 2 field\(s\), expected at least 3"),
    ("dup\tx\ty\n1\ta\tb\n", {"columns": "label=dup,text_a=x,text_b=nope"},
     r"line 1: no column named 'nope' \(for text_b\); the columns are 'dup', 'x', 'y'"),
    ("1\ta\tb\n", {"columns": "label=dup,text_a=1,text_b=2", "header": False}, "names a column, but the data has no header"),
    ("label\ttext_a\ttext_b\n1\ta\tb\n2\tc\td\n", {}, r"line 3: label must be 0 or 1 .*got '2'"),
    ("score\ttext_a\ttext_b\n1\ta\tb\nhigh\tc\td\n", {}, r"line 3: score must be a finite number .*got 'high'"),
    ("score\ttext_a\ttext_b\nnan\ta\tb\n", {}, r"line 2: score must be a finite number"),
    ("label\ttext_a\ttext_b\n1\ta\tb\n0\tc\n", {}, r"line 3: 2 field\(s\), expected the header's 3"),
    # CSV quoting in a .tsv only when asked (issue 32: by default plain TSV keeps quotes as text)
    ('label\ttext_a\ttext_b\n1\t"a" x\tb\n', {"quoting": "csv"}, r"line 2: malformed quoting.*--quoting none"),
    ("label\ttext_a\ttext_b\n", {}, "has a header but no pairs"),
    ("", {}, "contains no pairs"),
    ("\n\n", {}, "contains no pairs"),
])
def test_file_errors_name_file_and_line(tmp_path, text, kwargs, message):
    path = _write(tmp_path / "bad.tsv", text)
    with pytest.raises(DocumentFormatError, match=message) as info:
        read_pairs(path, **kwargs)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("lines, kwargs, message", [
    (['{"text_a": "a", "text_b": "b", "label": 1}', "{broken"], {}, "line 2: invalid JSON"),
    (['{"text_a": "a", "text_b": "b", "label": 1}', '{"text_a": "a", "label": 1}'], {}, "line 2: no 'text_b' key"),
    (['{"text_a": "a", "text_b": 3, "label": 1}'], {}, "line 1: text_b must be text; got int"),
    (['{"text_a": "a", "text_b": "b", "label": 1}', "[1, 2]"], {}, "line 2: expected an object"),
    (['{"a": "x", "b": "y"}'], {}, r"line 1: the keys 'a', 'b' are not a recognised pair layout"),
    (['{"a": "x", "b": "y", "l": 1}'], {"columns": "label=2,text_a=a,text_b=b"}, "label=2 is a position"),
    # a number of hundreds of digits cannot become a float: refused with its line, not an OverflowError
    (['{"text_a": "a", "text_b": "b", "score": ' + "9" * 400 + '}'], {},
     "line 1: score must be a finite number for a graded score; got '" + "9" * 39 + r"\.\.\."),
    (['{"text_a": "a", "text_b": "b", "label": ' + "9" * 400 + '}'], {}, "line 1: label must be 0 or 1"),
])
def test_jsonl_errors(tmp_path, lines, kwargs, message):
    path = _write(tmp_path / "bad.jsonl", "\n".join(lines) + "\n")
    with pytest.raises(DocumentFormatError, match=message):
        read_pairs(path, **kwargs)


def test_argument_errors(tmp_path):
    good = _write(tmp_path / "p.tsv", "label\ttext_a\ttext_b\n1\ta\tb\n")
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_pairs(tmp_path / "missing.tsv")
    with pytest.raises(IsADirectoryError):
        read_pairs(tmp_path)
    with pytest.raises(DocumentFormatError, match=r"unknown file type '\.xlsx'"):
        read_pairs(_write(tmp_path / "p.xlsx", "x"))
    with pytest.raises(ValueError, match="format must be one of"):
        read_pairs(good, format="parquet")
    with pytest.raises(ValueError, match="delimiter must be one character"):
        read_pairs(good, delimiter="\t\t")
    with pytest.raises(ValueError, match="quoting must be"):
        read_pairs(good, quoting="yes")
    with pytest.raises(ValueError, match="header must be"):
        read_pairs(good, header="first")
    with pytest.raises(ValueError, match="label_kind must be"):
        read_pairs(good, label_kind="ordinal")
    with pytest.raises(ValueError, match="encoding_errors must be 'replace'"):
        read_pairs(good, encoding_errors="ignore")
    with pytest.raises(ValueError, match="source is an empty string"):
        read_pairs("  ")
    with pytest.raises(TypeError, match="source must be a path"):
        read_pairs(42)
    with pytest.raises(ValueError, match="the list of pairs is empty"):
        read_pairs([])
    with pytest.raises(TypeError, match="pair 1: expected a tuple"):
        read_pairs([("a", "b", 1), "ab1"])
    with pytest.raises(DocumentFormatError, match="pair 1 has 4 element"):
        read_pairs([("a", "b", 1), ("a", "b", "c", "d")])
    with pytest.raises(DocumentFormatError, match="pair 1: label must be 0 or 1"):
        read_pairs([("a", "b", 1), ("c", "d", 7)], label_kind="binary")
    with pytest.raises(DocumentFormatError, match="pair 0: text_a must be text"):
        read_pairs([(1, "b", 1)])
    with pytest.raises(DocumentFormatError, match="pair 0: 3 field"):
        read_pairs([("a", "b", 1)], columns="label=0,text_a=1,text_b=3")


# --------------------------------------------------------------------------- bad bytes

BAD_BYTES = b"label\ttext_a\ttext_b\n1\tcut \xe2\x80 here\tb\n0\tfine\tok\n1\t\xff\t\xfe\n"


def test_bad_bytes_replaced_with_one_warning_counting_the_lines(tmp_path):
    path = _write(tmp_path / "p.tsv", BAD_BYTES)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bunch = read_pairs(path)
    ours = [w for w in caught if issubclass(w.category, UndecodableBytesWarning)]
    assert len(ours) == 1, [str(w.message) for w in caught]
    assert issubclass(ours[0].category, UserWarning)
    message = str(ours[0].message)
    assert str(path) in message and "2 line(s)" in message and "first: line 2" in message
    assert "encoding_errors='strict'" in message
    assert bunch.n_undecodable_lines == 2
    assert bunch.text_a[0] == "cut \ufffd here"


def test_bad_bytes_strict_names_file_and_first_line(tmp_path):
    path = _write(tmp_path / "p.tsv", BAD_BYTES)
    with pytest.raises(DocumentFormatError, match=r"p\.tsv, line 2: not UTF-8 text .*encoding_errors='replace'"):
        read_pairs(path, encoding_errors="strict")
    assert issubclass(DocumentFormatError, ValueError)
    jsonl = _write(tmp_path / "p.jsonl", b'{"text_a": "a", "text_b": "b", "label": 1}\n{"text_a": "\xff"}\n')
    with pytest.raises(DocumentFormatError, match=r"p\.jsonl, line 2: not UTF-8"):
        read_pairs(jsonl, encoding_errors="strict")
    with pytest.warns(UndecodableBytesWarning, match=r"1 line\(s\)"):
        with pytest.raises(DocumentFormatError, match="line 2: no 'text_b' key"):
            read_pairs(jsonl)


def test_clean_file_gives_no_warning(tmp_path):
    path = _write(tmp_path / "p.tsv", "label\ttext_a\ttext_b\n1\ta\tb\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_pairs(path).n_undecodable_lines == 0


# ------------------------------------------------------- the named loaders read other layouts

def test_load_quora_pairs_reads_other_binary_layouts(tmp_path):
    path = _write(tmp_path / "mine.csv", "sentence1,sentence2,label\na,b,1\nc,c,0\nd,e,0\n")
    bunch = load_quora_pairs(path)
    assert bunch.labels.tolist() == [1, 0]          # the Quora loader drops identical pairs
    assert bunch.n_identical_pairs == 1 and list(bunch.question1) == ["a", "d"]
    other = _write(tmp_path / "cols.tsv", "x\t1\ta\tb\ny\t0\tc\td\n")
    assert load_quora_pairs(other, columns="label=1,text_a=2,text_b=3,pair_id=0").pair_ids.tolist() == ["x", "y"]
    graded = _write(tmp_path / "g.csv", "sentence1,sentence2,score\na,b,3.5\n")
    with pytest.raises(ValueError, match="graded score, not a duplicate label"):
        load_quora_pairs(graded)
    with pytest.raises(ValueError, match="not a recognised Quora layout.*columns="):
        load_quora_pairs(_write(tmp_path / "u.csv", "a,b,c\n1,2,3\n"))


def test_load_sts_benchmark_reads_a_path_in_any_graded_layout(tmp_path):
    sts = _write(tmp_path / "own.tsv", "g\tf\ty\t001\t3.5\ta\tb\ng\tf\ty\t002\t1\tc\td\n")
    bunch = load_sts_benchmark(sts)
    assert bunch.scores.tolist() == [3.5, 1.0] and list(bunch.ids) == ["001", "002"]
    assert bunch.split == str(sts)
    plain = _write(tmp_path / "plain.csv", "sentence1,sentence2,score\na,b,0.25\nc,c,9\ne,f,7\n")
    bunch = load_sts_benchmark(plain)
    assert bunch.scores.tolist() == [0.25, 7.0] and bunch.n_identical_pairs == 1
    assert list(bunch.genres) == [None, None]
    cols = _write(tmp_path / "cols.tsv", "0.5\ta\tb\n")
    assert load_sts_benchmark(cols, columns="score=0,text_a=1,text_b=2").scores.tolist() == [0.5]
    binary = _write(tmp_path / "b.csv", "text_a,text_b,label\na,b,1\n")
    with pytest.raises(ValueError, match="binary label, not a similarity score"):
        load_sts_benchmark(binary)
    with pytest.raises(ValueError, match="or the path of an existing file"):
        load_sts_benchmark(tmp_path / "missing.tsv")


# ------------------------------------------------------------ (formerly test_pair_datasets.py)
def _write(path, text, encoding="utf-8"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


def _check_pair_bunch(bunch, first, second):
    texts = bunch.texts
    assert len(set(texts)) == len(texts), "texts must be deduplicated"
    idx = bunch.pairs.indices
    assert idx.min() >= 0 and idx.max() < len(texts)
    assert [texts[i] for i in idx[:, 0]] == list(bunch[first])
    assert [texts[j] for j in idx[:, 1]] == list(bunch[second])


# ---------------------------------------------------------------- Quora, real files

@pytest.mark.parametrize("split", ["dev", "test"])
def test_quora_sample_splits(split):
    path = require_corpus(f"quora-sample/{split}.tsv")
    bunch = load_quora_pairs(split, data_dir=path.parent.parent)
    assert bunch.layout == "sample"
    assert len(bunch.pairs) + bunch.n_identical_pairs == 10_000
    assert len(bunch.labels) == len(bunch.pair_ids) == len(bunch.question1) == len(bunch.pairs)
    # the README says "half duplicates"; the files hold exactly 5,000 of each
    assert 0.45 <= bunch.labels.mean() <= 0.55
    np.testing.assert_array_equal(bunch.pairs.labels, bunch.labels == 1)
    _check_pair_bunch(bunch, "question1", "question2")
    # some questions recur across pairs, and they must share one index
    assert len(bunch.texts) < 2 * len(bunch.pairs)
    assert bunch.pair_ids.dtype == np.int64 and len(np.unique(bunch.pair_ids)) == len(bunch.pair_ids)
    # quoted fields are unquoted: no question keeps CSV's doubled quotes
    assert not any(q.startswith('"') and '""' in q for q in bunch.texts)
    # the sample has cut multi-byte characters; they are replaced, not fatal
    assert bunch.n_undecodable_lines > 0
    assert isinstance(bunch.n_empty_questions, int)


def test_quora_dev_quoted_question_is_unquoted():
    path = require_corpus("quora-sample/dev.tsv")
    bunch = load_quora_pairs(path)  # a path works as well as a split name
    assert "What is that 80's song that has a chorus of \"woah oh oh oh\"?" in bunch.texts
    assert bunch.split == str(path)


def test_quora_real_pairs_give_valid_triplets():
    path = require_corpus("quora-sample/dev.tsv")
    bunch = load_quora_pairs(path)
    triplets = duplicate_pairs_to_triplets(bunch.pairs, n_items=len(bunch.texts), random_state=0)
    n_dup = int(bunch.labels.sum())
    assert len(triplets) >= 2 * n_dup
    _assert_triplets_valid(triplets, bunch.pairs)


# ---------------------------------------------------------------- Quora, synthetic files

SAMPLE_LINES = [
    "1\tHow do I learn Python?\tWhat is the best way to learn Python?\t7",
    '0\t"Why say ""hello"" first?"\tHow do I learn Python?\t8',     # quoted, repeated question
    "1\t\tWhat is an empty question?\t9",                            # empty question1
    "0\tSame text\tSame text\t10",                                   # identical: dropped
]


def test_load_quora_pairs_sample_layout_without_header(tmp_path):
    path = _write(tmp_path / "pairs.tsv", "\n".join(SAMPLE_LINES) + "\n")
    bunch = load_quora_pairs(path)
    assert bunch.layout == "sample"
    assert bunch.texts == ["How do I learn Python?", "What is the best way to learn Python?",
                           'Why say "hello" first?', "", "What is an empty question?"]
    np.testing.assert_array_equal(bunch.pairs.indices, [[0, 1], [2, 0], [3, 4]])
    np.testing.assert_array_equal(bunch.labels, [1, 0, 1])
    np.testing.assert_array_equal(bunch.pairs.labels, [True, False, True])
    np.testing.assert_array_equal(bunch.pair_ids, [7, 8, 9])
    assert bunch.n_empty_questions == 1
    assert bunch.n_identical_pairs == 1
    assert bunch.n_undecodable_lines == 0
    _check_pair_bunch(bunch, "question1", "question2")


def test_quora_sample_layout_with_header_and_crlf(tmp_path):
    text = "label\tquestion1\tquestion2\tpair_id\r\n" + "\r\n".join(SAMPLE_LINES[:2]) + "\r\n"
    bunch = load_quora_pairs(_write(tmp_path / "pairs.tsv", text))
    assert len(bunch.pairs) == 2
    np.testing.assert_array_equal(bunch.pair_ids, [7, 8])
    assert not any("\r" in t for t in bunch.texts)


def test_quora_split_name_reads_from_data_dir(tmp_path):
    _write(tmp_path / "quora-sample" / "test.tsv", "\n".join(SAMPLE_LINES[:2]) + "\n")
    bunch = load_quora_pairs("test", data_dir=tmp_path)
    assert bunch.split == "test" and len(bunch.pairs) == 2
    with pytest.raises(FileNotFoundError, match="dev.tsv"):
        load_quora_pairs("dev", data_dir=tmp_path)


def test_quora_kaggle_csv_layout(tmp_path):
    text = ('"id","qid1","qid2","question1","question2","is_duplicate"\n'
            '"0","1","2","What is a, b?","What is a or b?","0"\n'
            '"1","3","4","Multi-line\nquestion?","What is a, b?","1"\n'
            '"2","5","6","Why is question2 missing?","","0"\n')
    bunch = load_quora_pairs(_write(tmp_path / "train.csv", text))
    assert bunch.layout == "kaggle"
    assert bunch.texts == ["What is a, b?", "What is a or b?", "Multi-line\nquestion?",
                           "Why is question2 missing?", ""]
    np.testing.assert_array_equal(bunch.pairs.indices, [[0, 1], [2, 0], [3, 4]])
    np.testing.assert_array_equal(bunch.labels, [0, 1, 0])
    np.testing.assert_array_equal(bunch.pair_ids, [0, 1, 2])
    assert bunch.n_empty_questions == 1


def test_quora_kaggle_tsv_layout_columns_found_by_name(tmp_path):
    text = ("is_duplicate\tquestion2\tquestion1\tqid\n"
            "1\tB?\tA?\tx\n"
            "0\tC?\tA?\ty\n")
    bunch = load_quora_pairs(_write(tmp_path / "quora.tsv", text))
    assert bunch.layout == "kaggle"
    assert bunch.texts == ["A?", "B?", "C?"]
    np.testing.assert_array_equal(bunch.pairs.indices, [[0, 1], [0, 2]])
    np.testing.assert_array_equal(bunch.labels, [1, 0])
    # no "id" column: ids count the pairs
    np.testing.assert_array_equal(bunch.pair_ids, [0, 1])


def test_quora_non_integer_pair_ids_kept_as_strings(tmp_path):
    bunch = load_quora_pairs(_write(tmp_path / "p.tsv", "1\tA?\tB?\tq-1\n0\tA?\tC?\tq-2\n"))
    assert list(bunch.pair_ids) == ["q-1", "q-2"]


def test_quora_undecodable_bytes_are_replaced_and_counted(tmp_path):
    raw = b"1\tCut \xe2\x80 character?\tB?\t1\n0\tC?\tD?\t2\n"
    with pytest.warns(UndecodableBytesWarning, match=r"p\.tsv: 1 line\(s\) are not UTF-8 text \(first: line 1\)"):
        bunch = load_quora_pairs(_write(tmp_path / "p.tsv", raw))
    assert bunch.n_undecodable_lines == 1
    assert bunch.texts[0] == "Cut \ufffd character?"
    with pytest.raises(DocumentFormatError, match=r"p\.tsv, line 1: not UTF-8 text"):
        load_quora_pairs(tmp_path / "p.tsv", encoding_errors="strict")


@pytest.mark.parametrize("lines, message", [
    (["1\tA?\tB?\t1", "0\tA?\tC?\t2", "1\tA?\tD?"], r"line 3: 3 field\(s\), expected 4"),
    (["1\tA?\tB?\t1", "2\tA?\tC?\t2"], r"line 2: duplicate label must be 0 or 1; got '2'"),
    (["1\tA?\tB?\t1", "\tA?\tC?\t2"], r"line 2: duplicate label must be 0 or 1; got ''"),
    (["1\tA?\tB?\t1\textra"], r"line 1: 5 field\(s\)"),
    (['1\t"A?" x\tB?\t1'], r"line 1: malformed quoting"),
])
def test_quora_malformed_line_names_file_and_line(tmp_path, lines, message):
    path = _write(tmp_path / "bad.tsv", "\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=message) as info:
        load_quora_pairs(path)
    assert str(path) in str(info.value)


def test_quora_kaggle_line_numbers_count_physical_lines(tmp_path):
    text = ("id,question1,question2,is_duplicate\n"
            '0,"two\nlines",B?,1\n'
            "1,C?,D?,yes\n")
    with pytest.raises(ValueError, match=r"line 4: duplicate label must be 0 or 1; got 'yes'"):
        load_quora_pairs(_write(tmp_path / "k.csv", text))
    text = "id,question1,question2,is_duplicate\n0,A?,B?,1\n1,A?,0\n"
    with pytest.raises(ValueError, match=r"line 3: 3 field\(s\), expected the header's 4 columns"):
        load_quora_pairs(_write(tmp_path / "k2.csv", text))


@pytest.mark.parametrize("text, error, message", [
    ("", ValueError, "no question pairs"),
    ("\n\n", ValueError, "no question pairs"),
    ("label\tquestion1\tquestion2\tpair_id\n", ValueError, "header but no question pairs"),
    ("a,b,c\n1,2,3\n", ValueError, "not a recognised Quora layout"),
    ("1\tSame\tSame\t1\n", ValueError, "identical questions"),
])
def test_quora_unusable_files(tmp_path, text, error, message):
    with pytest.raises(error, match=message):
        load_quora_pairs(_write(tmp_path / "x.tsv", text))


def test_quora_bad_split_arguments(tmp_path):
    with pytest.raises(FileNotFoundError, match="not an existing file"):
        load_quora_pairs("train")
    with pytest.raises(FileNotFoundError, match="not an existing file"):
        load_quora_pairs(tmp_path / "missing.tsv")
    with pytest.raises(ValueError, match="split must be"):
        load_quora_pairs("  ")
    with pytest.raises(TypeError, match="split must be"):
        load_quora_pairs(3)


# ---------------------------------------------------------------- STS Benchmark, real files

# Genre counts from the STS Benchmark readme.txt. Its genre table gives 525 test captions, a
# typo: its per-file table (250 + 250 + 125) and its test total (1379) both say 625.
STS_COUNTS = {
    "train": {"news": 3299, "caption": 2000, "forum": 450},
    "dev": {"news": 500, "caption": 625, "forum": 375},
    "test": {"news": 500, "caption": 625, "forum": 254},
}
STS_TOTALS = {"train": 5749, "dev": 1500, "test": 1379}


@pytest.mark.parametrize("split", ["train", "dev", "test"])
def test_sts_benchmark_splits(split):
    path = require_corpus(f"stsbenchmark/sts-{split}.csv")
    bunch = load_sts_benchmark(split, data_dir=path.parent.parent)
    n = len(bunch.pairs)
    assert n + bunch.n_identical_pairs == STS_TOTALS[split]
    assert bunch.n_identical_pairs <= 1
    assert bunch.pairs.is_graded
    np.testing.assert_array_equal(bunch.pairs.scores, bunch.scores)
    assert bunch.scores.min() >= 0.0 and bunch.scores.max() <= 5.0
    assert bunch.scores.min() < 1.0 and bunch.scores.max() > 4.0  # the whole scale is used
    assert len(bunch.genres) == len(bunch.sentence1) == len(bunch.ids) == n
    _check_pair_bunch(bunch, "sentence1", "sentence2")
    # every split has lines with licence fields after sentence2
    assert bunch.n_extra_field_lines > 0
    # the train file has CRLF line ends; no sentence may keep the "\r"
    assert not any(s.endswith("\r") for s in bunch.texts)
    # the sentences hold unbalanced quotes (which a CSV quote parser would take as quoting)
    assert any(s.count('"') % 2 for s in bunch.texts)


@pytest.mark.parametrize("split", ["train", "dev", "test"])
def test_sts_genre_counts_match_readme(split):
    path = require_corpus(f"stsbenchmark/sts-{split}.csv")
    bunch = load_sts_benchmark(split, data_dir=path.parent)  # the corpus folder itself works too
    # the forum genre is "main-forum" in train, "main-forums" elsewhere
    short = {"main-news": "news", "main-captions": "caption", "main-forum": "forum", "main-forums": "forum"}
    genres = Counter(short[g] for g in bunch.genres)
    expected = STS_COUNTS[split]
    assert set(genres) == set(expected)
    missing = {g: expected[g] - genres[g] for g in expected}
    # a dropped pair of identical sentences is the only allowed difference
    assert all(m >= 0 for m in missing.values())
    assert sum(missing.values()) == bunch.n_identical_pairs


# ---------------------------------------------------------------- STS Benchmark, synthetic

def _sts_line(*fields):
    return "\t".join(fields)


def test_sts_extra_fields_quotes_and_crlf(tmp_path):
    lines = [
        _sts_line("main-captions", "MSRvid", "2012test", "0001", "5.000", "A plane is taking off.",
                  "An air plane is taking off."),
        _sts_line("main-news", "headlines", "2016", "0012", "4", 'He said "stop', "He said stop",
                  "Europe Media Monitor", "Europe Media Monitor"),
        _sts_line("main-news", "headlines", "2016", "0013", "0.4", 'a "quoted\ttab', 'A plane is taking off.',
                  "licence"),
        _sts_line("main-news", "headlines", "2014", "0725", "5", "Same sentence", "Same sentence"),
    ]
    _write(tmp_path / "stsbenchmark" / "sts-dev.csv", "\r\n".join(lines) + "\r\n")
    bunch = load_sts_benchmark("dev", data_dir=tmp_path)
    assert bunch.n_extra_field_lines == 2
    assert bunch.n_identical_pairs == 1
    assert list(bunch.sentence1) == ["A plane is taking off.", 'He said "stop', 'a "quoted']
    # the tab inside the "quote" separates fields: the line has 8 of them, sentence2 is "tab"
    assert list(bunch.sentence2) == ["An air plane is taking off.", "He said stop", "tab"]
    np.testing.assert_allclose(bunch.scores, [5.0, 4.0, 0.4])
    assert list(bunch.genres) == ["main-captions", "main-news", "main-news"]
    assert list(bunch.ids) == ["0001", "0012", "0013"]
    assert bunch.texts[:2] == ["A plane is taking off.", "An air plane is taking off."]
    _check_pair_bunch(bunch, "sentence1", "sentence2")


@pytest.mark.parametrize("line, message", [
    (_sts_line("g", "f", "y", "1", "3.0", "only one sentence"), r"line 2: 6 tab-separated field\(s\)"),
    (_sts_line("g", "f", "y", "1", "high", "a", "b"), r"line 2: score 'high' is not a number"),
    (_sts_line("g", "f", "y", "1", "5.5", "a", "b"), r"line 2: score '5.5' is outside \[0, 5\]"),
    (_sts_line("g", "f", "y", "1", "-1", "a", "b"), r"line 2: score '-1' is outside"),
    (_sts_line("g", "f", "y", "1", "nan", "a", "b"), r"line 2: score 'nan' is outside"),
])
def test_sts_malformed_line_names_file_and_line(tmp_path, line, message):
    good = _sts_line("g", "f", "y", "0", "1.0", "a", "b")
    path = _write(tmp_path / "sts-train.csv", good + "\n" + line + "\n")
    with pytest.raises(ValueError, match=message) as info:
        load_sts_benchmark("train", data_dir=tmp_path)
    assert str(path) in str(info.value)


def test_sts_not_utf8_names_line(tmp_path):
    _write(tmp_path / "sts-test.csv", b"g\tf\ty\t0\t1\ta\tb\ng\tf\ty\t1\t1\t\xff\tb\n")
    with pytest.raises(ValueError, match="line 2: not UTF-8"):
        load_sts_benchmark("test", data_dir=tmp_path, encoding_errors="strict")
    with pytest.warns(UndecodableBytesWarning, match=r"sts-test\.csv: 1 line\(s\) .*first: line 2"):
        assert load_sts_benchmark("test", data_dir=tmp_path).texts == ["a", "b", "\ufffd"]


def test_sts_bad_arguments_and_missing_files(tmp_path):
    with pytest.raises(ValueError, match="split must be one of"):
        load_sts_benchmark("validation", data_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match="sts-dev.csv"):
        load_sts_benchmark("dev", data_dir=tmp_path)
    _write(tmp_path / "sts-dev.csv", "\n")
    with pytest.raises(ValueError, match="no sentence pairs"):
        load_sts_benchmark("dev", data_dir=tmp_path)


# ---------------------------------------------------------------- duplicate_pairs_to_triplets

def _components(n, duplicates):
    """Duplicate components by union-find, independent of pairs_to_clusters."""
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in duplicates:
        parent[find(a)] = find(b)
    return np.array([find(x) for x in range(n)])


def _assert_triplets_valid(triplets, pairs, labelled_only=False):
    idx = pairs.indices
    n = int(max(idx.max(), triplets.indices.max())) + 1
    dup = {frozenset(p) for p in idx[pairs.labels].tolist()}
    nondup = {frozenset(p) for p in idx[~pairs.labels].tolist()}
    comp = _components(n, idx[pairs.labels].tolist())
    for a, b, c in triplets.indices.tolist():
        assert frozenset((a, b)) in dup
        assert comp[c] != comp[a], f"negative {c} is a known duplicate of anchor {a}"
        if labelled_only:
            assert frozenset((a, c)) in nondup


def _random_pairs(rng, n_items, n_pairs, p_dup=0.3):
    idx = rng.integers(0, n_items, size=(n_pairs, 2))
    idx = idx[idx[:, 0] != idx[:, 1]]
    return Pairs(idx, labels=rng.random(len(idx)) < p_dup)


@pytest.mark.parametrize("seed", range(5))
def test_adapter_constraints_hold_on_random_pairs(seed):
    rng = np.random.default_rng(seed)
    pairs = _random_pairs(rng, n_items=60, n_pairs=80)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # random labels contradict transitivity
        triplets = duplicate_pairs_to_triplets(pairs, n_items=70, n_random_negatives=3, random_state=seed)
        labelled = duplicate_pairs_to_triplets(pairs, n_random_negatives=0, random_state=seed)
    assert isinstance(triplets, Triplets)
    _assert_triplets_valid(triplets, pairs)
    _assert_triplets_valid(labelled, pairs, labelled_only=True)
    # every duplicate pair is used in both directions, n_random_negatives times each
    n_dup = int(pairs.labels.sum())
    random_part = triplets.indices[len(labelled):]
    assert len(random_part) == 2 * n_dup * 3
    directed = Counter(map(tuple, random_part[:, :2].tolist()))
    for a, b in pairs.indices[pairs.labels].tolist():
        assert directed[(a, b)] >= 3 and directed[(b, a)] >= 3


def test_adapter_labelled_negatives_exact():
    pairs = Pairs([[0, 1], [0, 2], [3, 1], [4, 5]], labels=[1, 0, 0, 1])
    triplets = duplicate_pairs_to_triplets(pairs, n_random_negatives=0)
    # (4, 5) has no labelled non-duplicate partner, so it gives no triplet here
    assert sorted(map(tuple, triplets.indices.tolist())) == [(0, 1, 2), (1, 0, 3)]


def test_adapter_one_labelled_negative_chosen_among_several():
    pairs = Pairs([[0, 1], [0, 2], [0, 3], [0, 4]], labels=[1, 0, 0, 0])
    seen = set()
    for seed in range(30):
        t = duplicate_pairs_to_triplets(pairs, n_random_negatives=0, random_state=seed).indices
        assert t.tolist()[0][:2] == [0, 1] and len(t) == 1  # anchor 1 has no labelled negative
        seen.add(int(t[0, 2]))
    assert seen == {2, 3, 4}


def test_adapter_random_negatives_avoid_the_component_and_are_uniform():
    # component {0, 1, 2}; 3 and 4 form another one; 5..9 are in no pair (n_items covers them)
    pairs = Pairs([[0, 1], [1, 2], [3, 4]], labels=[1, 1, 1])
    t = duplicate_pairs_to_triplets(pairs, n_items=10, n_random_negatives=4000,
                                    use_labelled_negatives=False, random_state=0).indices
    from_first = t[np.isin(t[:, 0], [0, 1, 2]), 2]
    assert not np.isin(from_first, [0, 1, 2]).any()
    counts = np.bincount(from_first, minlength=10)[3:]
    expected = from_first.size / 7
    assert np.all(np.abs(counts - expected) < 0.06 * expected), counts
    from_second = t[np.isin(t[:, 0], [3, 4]), 2]
    assert set(from_second.tolist()) == {0, 1, 2, 5, 6, 7, 8, 9}


def test_adapter_pool_is_the_paired_items_without_n_items():
    pairs = Pairs([[0, 1], [5, 8], [8, 9]], labels=[1, 0, 1])
    t = duplicate_pairs_to_triplets(pairs, n_random_negatives=200, use_labelled_negatives=False,
                                    random_state=1).indices
    assert set(t[:, 2].tolist()) <= {0, 1, 5, 8, 9}
    assert set(t[t[:, 0] == 0, 2].tolist()) == {5, 8, 9}


def test_adapter_conflicting_non_duplicate_pair_is_not_a_negative():
    pairs = Pairs([[0, 1], [1, 2], [0, 2], [0, 3]], labels=[1, 1, 0, 0])
    with pytest.warns(UserWarning, match="1 non-duplicate pair"):
        t = duplicate_pairs_to_triplets(pairs, n_random_negatives=0, random_state=0)
    assert t.indices[:, 2].tolist() == [3]  # only (0, 3) is usable; (0, 2) are duplicates by transitivity


def test_adapter_is_seeded():
    pairs = _random_pairs(np.random.default_rng(3), n_items=200, n_pairs=300, p_dup=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        a = duplicate_pairs_to_triplets(pairs, n_items=300, n_random_negatives=2, random_state=7)
        b = duplicate_pairs_to_triplets(pairs, n_items=300, n_random_negatives=2, random_state=7)
        c = duplicate_pairs_to_triplets(pairs, n_items=300, n_random_negatives=2, random_state=8)
        d = duplicate_pairs_to_triplets(pairs, n_items=300, n_random_negatives=2,
                                        random_state=np.random.default_rng(7))
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.indices, d.indices)
    assert a.indices.shape == c.indices.shape and not np.array_equal(a.indices, c.indices)


def test_adapter_errors():
    dup = Pairs([[0, 1], [2, 3]], labels=[1, 0])
    with pytest.raises(ValueError, match="no duplicate pair"):
        duplicate_pairs_to_triplets(Pairs([[0, 1], [1, 2]], labels=[0, 0]))
    with pytest.raises(ValueError, match=r"n_items=3 is too small: the pairs refer to item 3"):
        duplicate_pairs_to_triplets(dup, n_items=3)
    with pytest.raises(ValueError, match="graded"):
        duplicate_pairs_to_triplets(Pairs([[0, 1]], scores=[4.5]))
    with pytest.raises(TypeError, match="expected Pairs"):
        duplicate_pairs_to_triplets([[0, 1]])
    with pytest.raises(ValueError, match="n_random_negatives must be at least 0"):
        duplicate_pairs_to_triplets(dup, n_random_negatives=-1)
    with pytest.raises(TypeError, match="n_random_negatives must be an int"):
        duplicate_pairs_to_triplets(dup, n_random_negatives=1.5)
    with pytest.raises(TypeError, match="use_labelled_negatives"):
        duplicate_pairs_to_triplets(dup, use_labelled_negatives="yes")
    with pytest.raises(ValueError, match="no source of negatives"):
        duplicate_pairs_to_triplets(dup, n_random_negatives=0, use_labelled_negatives=False)
    with pytest.raises(TypeError, match="random_state"):
        duplicate_pairs_to_triplets(dup, random_state="seed")


def test_adapter_no_possible_negative():
    # one component covers every candidate item and there is no labelled non-duplicate
    chain = Pairs([[0, 1], [1, 2]], labels=[1, 1])
    with pytest.raises(ValueError, match="no triplet can be formed: every candidate item"):
        duplicate_pairs_to_triplets(chain, random_state=0)
    with pytest.raises(ValueError, match="no triplet can be formed: no anchor"):
        duplicate_pairs_to_triplets(chain, n_random_negatives=0)
    # with more rows of X there are negatives
    t = duplicate_pairs_to_triplets(chain, n_items=4, random_state=0)
    assert set(t.indices[:, 2].tolist()) == {3}


def test_adapter_negatives_outside_a_large_component():
    # pool = {0, 1, 2, 3}; component {0, 1, 2}: the only possible negative is 3
    pairs = Pairs([[0, 1], [1, 2], [0, 3]], labels=[1, 1, 0])
    t = duplicate_pairs_to_triplets(pairs, n_random_negatives=2, random_state=0)
    assert set(t.indices[:, 2].tolist()) == {3}
    _assert_triplets_valid(t, pairs)


def test_adapter_hard_negatives_come_from_the_neighbours_outside_the_component():
    # duplicates 0-1 and 1-2 (one component {0, 1, 2}); 3-4 another; items 5..9 unpaired
    pairs = Pairs([[0, 1], [1, 2], [3, 4]], labels=[True, True, True])
    neighbors = np.array([[2, 1, 5, -1], [0, 6, 2, 7], [1, 0, 8, 9], [4, 0, 9, 9], [3, 3, 3, 5],
                          [0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]])
    t = duplicate_pairs_to_triplets(pairs, n_items=10, n_random_negatives=0, use_labelled_negatives=False,
                                    neighbors=neighbors, n_hard_negatives=50, random_state=0).indices
    allowed = {0: {5}, 1: {6, 7}, 2: {8, 9}, 3: {0, 9}, 4: {5}}
    for a, p, k in t:
        assert k in allowed[a], (a, p, k)
    seen = {a: {k for aa, _, k in t if aa == a} for a in allowed}
    assert seen == allowed                                  # every allowed neighbour gets drawn
    assert Counter(int(k) for a, _, k in t if a == 3)[9] > 30   # drawn as often as it is listed (2 of 3)


def test_adapter_hard_negative_errors():
    pairs = Pairs([[0, 1], [2, 3]], labels=[True, True])
    good = np.tile(np.arange(4), (4, 1))
    with pytest.raises(ValueError, match="needs n_items"):
        duplicate_pairs_to_triplets(pairs, neighbors=good)
    with pytest.raises(ValueError, match="shape"):
        duplicate_pairs_to_triplets(pairs, n_items=4, neighbors=good[:3])
    with pytest.raises(ValueError, match="only 4 items"):
        duplicate_pairs_to_triplets(pairs, n_items=4, neighbors=good + 1)
    with pytest.raises(ValueError, match="integer"):
        duplicate_pairs_to_triplets(pairs, n_items=4, neighbors=good.astype(float))
    with pytest.raises(ValueError, match="n_hard_negatives"):
        duplicate_pairs_to_triplets(pairs, n_items=4, neighbors=good, n_hard_negatives=0)


def test_a_label_column_of_floats_0_and_1_is_binary(tmp_path):
    """A column named label holding 1.0 and 0.0 (a pandas export of a float column) is binary, as
    JSON's 1.0 is: it was refused as no binary label ('learnsim fit --pairs' then read the file as
    graded pairs of scores 0 to 1, a regression in place of duplicate detection)."""
    path = tmp_path / "pairs.tsv"
    path.write_text("label\tquestion1\tquestion2\n1.0\thow to cook rice\tcooking rice how\n"
                    "0.0\tbest laptop\tcheap flights\n1\tcheap flights\tflights for less\n", encoding="utf-8")
    bunch = read_pairs(path)
    assert bunch.kind == "binary" and not bunch.pairs.is_graded
    assert list(bunch.pairs.labels) == [1, 0, 1]
    path.write_text("label\tquestion1\tquestion2\n1.5\thow to cook rice\tcooking rice how\n", encoding="utf-8")
    with pytest.raises(DocumentFormatError, match="label must be 0 or 1"):
        read_pairs(path)


def test_headerless_labels_are_read_by_the_whole_column(tmp_path):
    """Without header, labels written 1.0/0.0 are binary as under a 'label' header (they were
    graded scores 0 to 1); a column of 0/1 first and another number later is graded (it was an
    error), as a list of tuples is."""
    floats = read_pairs(_write(tmp_path / "f.tsv", "1.0\tcook rice\trice cooking\n0.0\tlaptop\tflights\n"))
    assert floats.kind == "binary" and floats.layout == "label-text-text"
    assert floats.labels.tolist() == [1, 0]
    mixed = read_pairs(_write(tmp_path / "m.tsv", "1\tcook rice\trice cooking\n0.5\tlaptop\tflights\n"))
    assert mixed.kind == "graded" and mixed.layout == "score-text-text"
    assert mixed.scores.tolist() == [1.0, 0.5]
    with pytest.raises(DocumentFormatError, match="label must be 0 or 1"):
        read_pairs(_write(tmp_path / "w.tsv", "1\tcook rice\trice cooking\nmaybe\tlaptop\tflights\n"))


def test_jglue_json_lines_named_json(tmp_path):
    # JGLUE ships JSTS as JSON Lines named train-v1.3.json, and docs/languages.md fits it as it is
    # ('learnsim fit --pairs train-v1.3.json'): the .json extension was refused as unknown
    rows = [{"sentence_pair_id": "0", "sentence1": "猫が寝ている。", "sentence2": "猫が眠る。", "label": 4.2},
            {"sentence_pair_id": "1", "sentence1": "犬が走る。", "sentence2": "車が止まる。", "label": 0.4}]
    path = _write(tmp_path / "train-v1.3.json", "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    pairs = read_pairs(path, label_kind="graded")
    assert pairs.kind == "graded" and pairs.pairs.n_pairs == 2
    np.testing.assert_allclose(sorted(pairs.scores), [0.4, 4.2])
    # a .json file holding one JSON array is not JSON Lines: said so, not read as something else
    for text in (json.dumps(rows), "[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n"):
        with pytest.raises(DocumentFormatError, match="a JSON array; pairs are read from JSON Lines"):
            read_pairs(_write(tmp_path / "array.json", text))


@pytest.mark.parametrize("field, value", [("label", "1e-400"), ("score", "2.5e-999")])
def test_a_pair_label_below_the_smallest_float_is_refused_not_read_as_zero(tmp_path, field, value):
    # Python's json reads 1e-400 as 0.0: the pair was read as no duplicate (the lowest grade) without a word
    path = tmp_path / "pairs.jsonl"
    path.write_text(f'{{"text_a": "a b", "text_b": "a c", "{field}": 1}}\n'
                    f'{{"text_a": "c d", "text_b": "e f", "{field}": {value}}}\n', encoding="utf-8")
    with pytest.raises(DocumentFormatError, match=rf"pairs\.jsonl, line 2: '{field}' is {value}, a number too small"):
        read_pairs(path)
    path.write_text('{"text_a": "a b", "text_b": "a c", "label": 1}\n{"text_a": "c d", "text_b": "e f", "label": 0.0}\n',
                    encoding="utf-8")
    assert len(read_pairs(path).texts) == 4


@pytest.mark.parametrize("name", ["p.tsv", "p.csv", "p.jsonl"])
def test_read_pairs_takes_the_encoding_of_a_code_page_file(tmp_path, name):
    # read_documents took encoding=, read_pairs did not: a cp1253 file read only as U+FFFD
    rows = [("Καλημέρα κόσμε", "Καλησπέρα", 1), ("Ελλάδα", "θάλασσα", 0)]
    text = {"p.tsv": "".join(f"{y}\t{a}\t{b}\n" for a, b, y in rows),
            "p.csv": "text_a,text_b,label\n" + "".join(f"{a},{b},{y}\n" for a, b, y in rows),
            "p.jsonl": "".join(json.dumps({"text_a": a, "text_b": b, "label": y}, ensure_ascii=False) + "\n"
                               for a, b, y in rows)}[name]
    path = tmp_path / name
    path.write_bytes(text.encode("cp1253"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data = read_pairs(path, encoding="cp1253")
    assert list(data.text_a) == [r[0] for r in rows] and list(data.labels) == [1, 0]
    with pytest.raises(ValueError, match="unknown encoding 'cp9999'"):
        read_pairs(path, encoding="cp9999")
    with pytest.raises(ValueError, match="does not write ASCII as ASCII"):
        read_pairs(path, encoding="utf-16")


@pytest.mark.parametrize("name, text", [
    ("p.csv", "text_a,text_b,score\na b,c d,4.5\ne f,g h,1e-400\n"),
    ("p.tsv", "4.5\ta b\tc d\n2.5E-999\te f\tg h\n"),
    ("p.tsv", "1\ta b\tc d\n1e-400\te f\tg h\n"),
    ("p.csv", "text_a,text_b,label\na b,c d,1\ne f,g h,0.1e-330\n")])
def test_a_delimited_label_or_score_below_the_smallest_float_is_refused_as_in_json_lines(tmp_path, name, text):
    # Python's float reads "1e-400" as 0.0: the CSV pair became the lowest grade (a non-duplicate)
    # without a word, where the same number in a JSON line is refused
    path = _write(tmp_path / name, text)
    field = "score" if "score" in text or "4.5" in text else "label"
    with pytest.raises(DocumentFormatError, match=rf"p\.(csv|tsv), line [23]: '{field}' is [0-9.eE-]+, a number too small"
                                                  r".*give it as 0"):
        read_pairs(path)
    # zero however written is zero
    path = _write(tmp_path / name, text.replace("1e-400", "0e-400").replace("2.5E-999", "0.0E-999")
                  .replace("0.1e-330", "0.0e5"))
    assert read_pairs(path).n_identical_pairs == 0


def test_a_pair_labelled_both_ways_is_named_at_reading(tmp_path):
    # the same two texts labelled 1 on one line and 0 on another were read without a word; fit
    # said so only once it had vectorised (or encoded) every text, naming no line
    path = tmp_path / "p.tsv"
    path.write_text("label\ttext_a\ttext_b\n1\tthe cat sat\tthe cat sits\n0\ta dog\ta cat\n"
                    "1\ta dog\ta cat\n0\tthe cat sits\tthe cat sat\n1\tthe cat sat\tthe cat sits\n"
                    "1\tfish\tfishes\n1\tfish\tfishes\n", encoding="utf-8")
    with pytest.warns(UserWarning, match=r"p\.tsv: 2 pair\(s\) of the same two texts are labelled 1 on one line and "
                                         r"0 on another \(first: lines 3 and 4") as caught:
        bunch = read_pairs(path)
    assert len([w for w in caught if "same two texts" in str(w.message)]) == 1
    assert bunch.n_conflicting_pairs == 2 and list(bunch.labels) == [1, 0, 1, 0, 1, 1, 1]   # kept as given
    # in memory, the rows are named; a pair given twice with one label is no conflict
    with pytest.warns(UserWarning, match=r"the data: 1 pair\(s\) .* \(first: pairs 0 and 1"):
        read_pairs([("a b", "c d", 1), ("c d", "a b", 0)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_pairs([("a b", "c d", 1), ("a b", "c d", 1), ("a a", "a a", 0)]).n_conflicting_pairs == 0


@pytest.mark.parametrize("name, data", [("d.tsv", "id\ttext\nd1\tthe cat sat\nd2\ta dog\n"),
                                        ("l.tsv", "label\ttext\nsports\tthe match\nnews\tthe vote\n"),
                                        ("t.tsv", "text\tid\nthe cat sat\td1\n"),
                                        ("d.csv", "id,text\nd1,the cat sat\n")])
def test_a_documents_file_given_as_pairs_is_refused_naming_its_header(tmp_path, name, data):
    # read as unlabelled pairs: the header a pair ('id', 'text'), each document's id the first text
    # of a pair with its own text, decided by match --pairs without a word
    path = tmp_path / name
    path.write_text(data, encoding="utf-8")
    with pytest.raises(DocumentFormatError, match=rf"{name}, line 1: the header names the columns .* of a documents "
                                                  r"file, not of pairs.*text_a"):
        read_pairs(path)
    # two texts that are no such names are a pair, as before
    path.write_text("the text\tanother id\n", encoding="utf-8")
    assert read_pairs(path).kind == "unlabelled"


def test_a_pipe_of_delimited_pairs_is_refused_before_it_is_read(tmp_path, monkeypatch):
    # a .tsv read from a pipe (mkfifo, <(zcat pairs.tsv.gz)) was opened again after its layout was
    # told from a first reading, which waited for a writer forever: fit --pairs and match --pairs hung
    import os

    from learnsim.datasets import pairs as module

    fifo = tmp_path / "pairs.tsv"
    os.mkfifo(fifo)

    def opened(*args, **kwargs):
        raise AssertionError("the pipe was opened")

    monkeypatch.setattr(module, "decoded_lines", opened)
    with pytest.raises(DocumentFormatError, match=r"pairs\.tsv is a pipe or a device, not a file.*\.jsonl"):
        read_pairs(fifo)
