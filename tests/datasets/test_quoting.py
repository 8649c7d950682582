"""Quote processing by extension (issue 32, part 7): plain TSV (``.tsv``, ``.txt``) has no
quoting, so a text that starts with ``"`` or holds an unbalanced one is read verbatim unless
``quoting="csv"`` asks for CSV quoting; ``.csv`` is CSV-quoted; the documents readers take
``.csv`` with a header naming the columns."""
from __future__ import annotations

import pytest

from learnsim.datasets import (DocumentFormatError, read_documents, read_labelled_documents,
                               read_pairs)


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def _pairs_of(bunch):
    return list(zip(bunch.text_a, bunch.text_b))


# ------------------------------------------------------------------------------- pairs

LEADING_QUOTE = ('label\ttext_a\ttext_b\n'
                 '1\t"Quoted" at the start\tthe same, unquoted\n'
                 '0\tan unbalanced "quote in the middle\t"another\n')


@pytest.mark.parametrize("name", ["p.tsv", "p.txt", "p.tab"])
def test_tsv_texts_starting_with_a_quote_are_verbatim_by_default(tmp_path, name):
    bunch = read_pairs(_write(tmp_path / name, LEADING_QUOTE))
    assert _pairs_of(bunch) == [('"Quoted" at the start', "the same, unquoted"),
                                ('an unbalanced "quote in the middle', '"another')]
    assert list(bunch.labels) == [1, 0]
    assert list(bunch.line_numbers) == [2, 3]
    # "none" is what "auto" means for TSV
    assert _pairs_of(read_pairs(tmp_path / name, quoting="none")) == _pairs_of(bunch)


def test_tsv_headerless_layouts_are_verbatim_by_default(tmp_path):
    three = read_pairs(_write(tmp_path / "three.tsv", '1\t"a" b\tc\n0\td\t"e\n'))
    assert three.kind == "binary"
    assert _pairs_of(three) == [('"a" b', "c"), ("d", '"e')]
    two = read_pairs(_write(tmp_path / "two.tsv", '"a" b\tc\nd\t"e"\n'))
    assert two.kind == "unlabelled" and _pairs_of(two) == [('"a" b', "c"), ("d", '"e"')]
    spec = read_pairs(_write(tmp_path / "cols.tsv", 'x\t1\t"a" b\tc\n'), columns="label=1,text_a=2,text_b=3")
    assert _pairs_of(spec) == [('"a" b', "c")]


def test_quoting_csv_on_a_tsv_processes_quotes(tmp_path):
    text = ('label\ttext_a\ttext_b\n'
            '1\t"Why say ""hi""?"\t"a tab\there, and a\nline break"\n')
    path = _write(tmp_path / "q.tsv", text)
    bunch = read_pairs(path, quoting="csv")
    assert _pairs_of(bunch) == [('Why say "hi"?', "a tab\there, and a\nline break")]
    # by default the same file is plain TSV: quotes are text, the quoted tab separates fields; its
    # CSV-quoted field with doubled quotes is named with the quoting that reads it
    with pytest.raises(DocumentFormatError, match=r"line 2: the field '\"Why say \"\"hi\"\"\?\"' is in CSV quotes"
                                                  r".*quoting='csv'"):
        read_pairs(path)
    with pytest.raises(DocumentFormatError, match=r"line 2: 4 field\(s\), expected the header's 3"):
        read_pairs(path, quoting="none")


def test_quoting_csv_on_a_tsv_names_the_line_of_broken_quoting(tmp_path):
    path = _write(tmp_path / "p.tsv", LEADING_QUOTE)
    with pytest.raises(DocumentFormatError, match=r"p\.tsv, line 2: malformed quoting .*--quoting none"):
        read_pairs(path, quoting="csv")


def test_csv_is_quoted_by_default_and_none_keeps_quotes(tmp_path):
    path = _write(tmp_path / "p.csv", 'text_a,text_b,label\n"a, b","say ""hi""",1\n')
    assert _pairs_of(read_pairs(path)) == [("a, b", 'say "hi"')]
    plain = _write(tmp_path / "plain.csv", 'text_a,text_b,label\n"a" b,c,1\n')
    with pytest.raises(DocumentFormatError, match=r"plain\.csv, line 2: malformed quoting.*--quoting none"):
        read_pairs(plain)
    assert _pairs_of(read_pairs(plain, quoting="none")) == [('"a" b', "c")]


def test_format_overrides_the_extension_for_auto(tmp_path):
    path = _write(tmp_path / "p.dat.txt", 'text_a,text_b\n"a, b",c\n')
    assert _pairs_of(read_pairs(path, format="csv")) == [("a, b", "c")]


def test_quora_layouts_stay_csv_quoted_in_tsv(tmp_path):
    sample = read_pairs(_write(tmp_path / "dev.tsv", '0\t"Why say ""hi""?"\tHow?\t7\n'))
    assert sample.layout == "quora-sample" and _pairs_of(sample) == [('Why say "hi"?', "How?")]
    release = read_pairs(_write(tmp_path / "release.tsv",
                                'id\tqid1\tqid2\tquestion1\tquestion2\tis_duplicate\n'
                                '1\t3\t4\t"Why say ""hi""?"\tHow?\t0\n'))
    assert _pairs_of(release) == [('Why say "hi"?', "How?")]
    # and quoting="none" reads them verbatim
    assert _pairs_of(read_pairs(tmp_path / "dev.tsv", quoting="none")) == [('"Why say ""hi""?"', "How?")]


def test_quoting_is_checked_for_every_source():
    with pytest.raises(ValueError, match="quoting must be"):
        read_pairs([("a", "b", 1)], quoting="tsv")


# --------------------------------------------------------------------------- documents

def test_labelled_tsv_documents_are_verbatim_and_csv_quoting_is_asked(tmp_path):
    path = _write(tmp_path / "d.tsv", 'a\t"Quoted" start\nb\thalf "open\n')
    docs = read_labelled_documents(path)
    assert docs.labels == ["a", "b"] and docs.texts == ['"Quoted" start', 'half "open']
    quoted = _write(tmp_path / "q.tsv", 'a\t"one\ttwo"\nb\t"say ""hi"""\n')
    assert read_labelled_documents(quoted, quoting="none").texts == ['"one\ttwo"', '"say ""hi"""']
    assert read_labelled_documents(quoted, quoting="csv").texts == ["one\ttwo", 'say "hi"']
    with pytest.raises(DocumentFormatError, match=r"d\.tsv, line 1: malformed quoting"):
        read_labelled_documents(path, quoting="csv")


def test_labelled_csv_documents(tmp_path):
    path = _write(tmp_path / "d.csv", 'text,label,id\n"The match, a draw",sports,7\n'
                                      '"He said ""hi""\nthen left",news,\nplain,-1,9\n')
    docs = read_labelled_documents(path)
    assert docs.labels == ["sports", "news", None]
    assert docs.texts == ["The match, a draw", 'He said "hi"\nthen left', "plain"]
    assert docs.ids == ["7", None, "9"] and docs.line_numbers == [2, 3, 5]
    # quoting="none": split on commas only; the extra commas go to the text, the last column
    plain = _write(tmp_path / "plain.csv", 'label,text\nsports,"The match, a draw"\n')
    assert read_labelled_documents(plain, quoting="none").texts == ['"The match, a draw"']


@pytest.mark.parametrize("text, message", [
    ("id,text\nd1,x\n", r"line 1: the header of a \.csv file must name the columns label,text.*no 'label'"),
    ("label,label,text\na,b,x\n", r"line 1: .*the column 'label' is named twice"),
    ('label,text\na,"x" y\n', r"line 2: malformed quoting"),
    ('label,text\na,"never closed\n', r"line 2: malformed quoting"),
    ("label,text\na,x,y\n", r"line 2: 3 field\(s\), expected the header's 2 \(quote a field"),
    ("label,text\na, \n", r"line 2: empty text"),
    ("label,text\n", r"contains no documents"),
    ("", r"contains no documents"),
])
def test_labelled_csv_errors_name_the_line(tmp_path, text, message):
    path = _write(tmp_path / "bad.csv", text)
    with pytest.raises(DocumentFormatError, match=message) as info:
        read_labelled_documents(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_csv_collection_ids_labels_and_metadata(tmp_path):
    path = _write(tmp_path / "c.csv", 'id,text,lang\nd1,"x, y",en\nd2,z,fr\n')
    docs = read_documents(path)
    assert docs.ids == ["d1", "d2"] and docs.texts == ["x, y", "z"] and docs.labels is None
    assert docs.metadata == [{"lang": "en"}, {"lang": "fr"}]
    plain = read_documents(_write(tmp_path / "t.csv", "text\nfirst\nsecond\n"))
    assert plain.ids == [None, None] and plain.metadata is None and plain.texts == ["first", "second"]
    labelled = read_documents(_write(tmp_path / "l.csv", "id,label,text\nd1,a,x\nd2,-1,y\n"))
    assert labelled.labels == ["a", None] and labelled.metadata == [{"label": "a"}, {"label": "-1"}]
    with pytest.raises(DocumentFormatError, match=r"line 1: .*must name the columns text"):
        read_documents(_write(tmp_path / "no.csv", "id,body\nd1,x\n"))
    # text not the last column: quoting="none" cannot tell where the text ends
    with pytest.raises(DocumentFormatError, match=r"line 2: 4 field\(s\), expected the header's 3$"):
        read_documents(path, quoting="none")


def test_tsv_collection_is_verbatim(tmp_path):
    docs = read_documents(_write(tmp_path / "c.tsv", 'id\ttext\nd1\t"Quoted" start\nd2\thalf "open\n'))
    assert docs.ids == ["d1", "d2"] and docs.texts == ['"Quoted" start', 'half "open']
    txt = read_documents(_write(tmp_path / "c.txt", '"Quoted" start\nhalf "open\n'))
    assert txt.texts == ['"Quoted" start', 'half "open']


def test_documents_quoting_is_checked(tmp_path):
    path = _write(tmp_path / "d.tsv", "a\tx\n")
    for reader in (read_documents, read_labelled_documents):
        with pytest.raises(ValueError, match="quoting must be"):
            reader(path, quoting="yes")


@pytest.mark.parametrize("reader, data", [
    (read_documents, 'id\ttext\na\t"first line\nsecond line"\nb\tplain\n'),
    (read_labelled_documents, 'label\ttext\na\t"first line\nsecond line"\nb\tplain\n')])
def test_the_rest_of_a_quoted_text_in_plain_tsv_asks_for_csv_quoting(tmp_path, reader, data):
    # pandas' df.to_csv(sep="\t") quotes a text holding a line break: the error named only the
    # missing TAB of 'second line"', not the --quoting that reads the file
    path = _write(tmp_path / "d.tsv", data)
    with pytest.raises(DocumentFormatError, match=r"d\.tsv, line 3: no TAB separator.*second line.*quoting='csv' "
                                                  r"\(--quoting csv\) reads such quotes"):
        reader(path)
    assert reader(path, quoting="csv").texts == ["first line\nsecond line", "plain"]
    with pytest.raises(DocumentFormatError, match=r"line 2: no TAB separator; expected 'id<TAB>text', got 'x'$"):
        read_documents(_write(tmp_path / "e.tsv", "a\tb\nx\n"))


@pytest.mark.parametrize("reader, data", [
    (read_documents, 'id\ttext\na\t"say ""hi"" now"\nb\tplain\n'),
    (read_documents, 'a\tplain\nb\t""""\n'),
    (read_labelled_documents, 'x\tplain\ny\t"say ""hi"""\n'),
    (read_documents, '\tid\ttext\tlabel\n0\ta\t"a ""b"" c"\tx\n')])
def test_a_tsv_field_in_csv_quotes_with_doubled_quotes_asks_for_a_quoting(tmp_path, reader, data):
    # pandas' df.to_csv(sep="\t") writes 'say "hi" now' as '"say ""hi"" now"', which plain TSV kept
    # as the text, its quotes doubled, without a word
    path = _write(tmp_path / "d.tsv", data)
    with pytest.raises(DocumentFormatError, match=r"d\.tsv, line 2: the field .* in CSV quotes with its quotes "
                                                  r"doubled.*quoting='csv'.*quoting='none'"):
        reader(path)
    csv_texts = reader(path, quoting="csv").texts
    assert all('""' not in t for t in csv_texts)
    assert any('""' in t for t in reader(path, quoting="none").texts)


def test_quotes_that_are_not_csv_quoting_stay_verbatim(tmp_path):
    path = _write(tmp_path / "d.tsv", 'a\t"" empty quotes first\nb\the said ""no""\nc\t"half ""open\nd\t""\n')
    assert read_documents(path).texts == ['"" empty quotes first', 'he said ""no""', '"half ""open', '""']


def test_a_tsv_pair_in_csv_quotes_with_doubled_quotes_asks_for_a_quoting(tmp_path):
    # the same pandas writing in a pairs file: the pair's text kept its quotes doubled
    path = _write(tmp_path / "p.tsv", 'label\ttext_a\ttext_b\n1\ta b\tc d\n0\t"say ""hi"" now"\te f\n')
    with pytest.raises(DocumentFormatError, match=r"p\.tsv, line 3: the field .* in CSV quotes with its quotes "
                                                  r"doubled.*quoting='csv'.*quoting='none'"):
        read_pairs(path)
    assert read_pairs(path, quoting="csv").text_a[1] == 'say "hi" now'
    assert read_pairs(path, quoting="none").text_a[1] == '"say ""hi"" now"'


@pytest.mark.parametrize("part", ["documents", "queries"])
def test_read_corpus_and_read_queries_ask_for_a_quoting_as_the_document_readers_do(tmp_path, part):
    # pandas' df.to_csv(sep="\t") of a text holding a double quote: read_corpus and read_queries (a
    # run's --queries, a .tsv.gz corpus) kept '"say ""hi"" now"' as the text without a word
    from learnsim.datasets import read_corpus, read_id_texts, read_queries

    import gzip

    read = read_corpus if part == "documents" else read_queries
    data = 'id\ttext\nq1\tplain words\nq2\t"say ""hi"" now"\n'
    for path in (_write(tmp_path / "q.tsv", data), tmp_path / "q.tsv.gz"):
        if path.suffix == ".gz":
            path.write_bytes(gzip.compress(data.encode("utf-8")))
        with pytest.raises(DocumentFormatError, match=r"q\.tsv(\.gz)?, line 3: the field .* in CSV quotes with its "
                                                      r"quotes doubled.*quoting='csv'.*quoting='none'"):
            read(path)
        assert read(path, quoting="csv") == {"q1": "plain words", "q2": 'say "hi" now'}
        assert read(path, quoting="none")["q2"] == '"say ""hi"" now"'
        with pytest.raises(DocumentFormatError, match="quoting='csv'"):
            read_id_texts(path, part)
        assert read_id_texts(path, part, quoting="csv")[1][1] == 'say "hi" now'
    # CSV quoting may hold a line break; the lines after it keep their numbers in errors
    multi = _write(tmp_path / "m.tsv", 'q1\t"two\nlines"\nq2\t"open\n')
    with pytest.raises(DocumentFormatError, match=r"m\.tsv, line 3: malformed quoting.*quoting='none'"):
        read(multi, quoting="csv")
    # quotes that are not CSV quoting stay verbatim, as in read_documents
    verbatim = _write(tmp_path / "v.tsv", 'q1\t"Quoted" start\nq2\thalf "open\nq3\the said ""no""\n')
    assert list(read(verbatim).values()) == ['"Quoted" start', 'half "open', 'he said ""no""']
    with pytest.raises(ValueError, match="quoting must be"):
        read(verbatim, quoting="yes")


def test_a_wide_csv_header_is_checked_in_one_pass(tmp_path):
    # each name of a .csv header was looked for among all of them (list.count per name): a header
    # of 200,000 columns (a wide export, or a binary file named .csv) took over two minutes
    # before its first row was read; a name given twice is still named
    import sys

    n = 4000
    path = _write(tmp_path / "wide.csv", "id,text," + ",".join(f"c{i}" for i in range(n)) + "\n"
                  + "d1,the text," + ",".join("1" for _ in range(n)) + "\n")
    scans = []

    def profile(frame, event, arg):
        if event == "c_call" and getattr(arg, "__name__", None) == "count" and \
                getattr(arg, "__self__", None).__class__ is list:
            scans.append(1)

    sys.setprofile(profile)
    try:
        docs = read_documents(path)
    finally:
        sys.setprofile(None)
    assert docs.ids == ["d1"] and len(docs.metadata[0]) == n
    assert len(scans) < n / 10
    path.write_text("id,text,c7,c1,c7,c1\nd1,x,1,2,3,4\n", encoding="utf-8")
    with pytest.raises(DocumentFormatError, match="the column 'c1' is named twice"):
        read_documents(path)


def test_load_trec_collection_reads_a_folders_tsv_under_a_quoting_as_read_corpus_does(tmp_path):
    # a folder collection's .tsv written by pandas kept '"say ""hi"" now"' as the text, silently,
    # where read_corpus on the same file asks for a quoting
    from learnsim.datasets import load_trec_collection

    folder = tmp_path / "docs"
    folder.mkdir()
    _write(folder / "part.tsv", 'd1\tplain words\nd2\t"say ""hi"" now"\n')
    topics = _write(tmp_path / "topics.txt", "<top>\n<num> Number: 1\n<title> say hi\n</top>\n")
    qrels = _write(tmp_path / "qrels.txt", "1 0 d2 1\n")
    with pytest.raises(DocumentFormatError, match=r"part\.tsv, line 2: .*quoting='csv'.*quoting='none'"):
        load_trec_collection(folder, topics, qrels)
    assert 'say "hi" now' in load_trec_collection(folder, topics, qrels, quoting="csv").documents
    assert '"say ""hi"" now"' in load_trec_collection(folder, topics, qrels, quoting="none").documents
