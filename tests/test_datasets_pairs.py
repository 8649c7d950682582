"""The general pair reader (learnsim.datasets.read_pairs, parse_columns): every layout on small
files in tmp_path, lists and DataFrames, identical-text pairs, every error path, and the
bad-bytes policy; and load_quora_pairs / load_sts_benchmark reading other layouts through it."""
from __future__ import annotations

import gzip
import json
import warnings

import numpy as np
import pytest

from learnsim.datasets import (PAIR_ROLES, DocumentFormatError, UndecodableBytesWarning, load_quora_pairs,
                               load_sts_benchmark, parse_columns, read_pairs)


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


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
    ('label\ttext_a\ttext_b\n1\t"a" x\tb\n', {}, r"line 2: malformed quoting"),
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
