"""The bad-bytes policy shared by every reader (learnsim.datasets._decode) and the command
line's document readers (learnsim.io, which re-exports them from learnsim.datasets)."""
from __future__ import annotations

import gzip
import json
import warnings

import pytest

import learnsim.io
from learnsim import datasets
from learnsim.datasets import (ENCODING_ERRORS, DocumentFormatError, UndecodableBytesWarning, check_encoding_errors,
                               decoded_lines, read_text)
from learnsim.io import read_documents, read_labelled_documents

BAD = b"a\tfirst text\nb\tcut \xe2\x80 here\nc\tfine\nd\t\xff\xfe both bad\n"


def _write(path, data):
    path.write_bytes(data)
    return path


def test_io_keeps_its_names():
    for name in ("DocumentFormatError", "Documents", "NO_CLUSTER", "read_documents", "read_labelled_documents",
                 "UndecodableBytesWarning", "ENCODING_ERRORS", "_lines"):
        assert hasattr(learnsim.io, name), name
    assert learnsim.io.read_documents is datasets.read_documents
    assert learnsim.io.DocumentFormatError is datasets.DocumentFormatError
    assert issubclass(DocumentFormatError, ValueError) and issubclass(UndecodableBytesWarning, UserWarning)
    assert ENCODING_ERRORS == ("replace", "strict")


@pytest.mark.parametrize("reader", [read_labelled_documents, read_documents])
def test_readers_replace_by_default_with_one_warning(tmp_path, reader):
    path = _write(tmp_path / "docs.tsv", BAD)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        docs = reader(path)
    ours = [w for w in caught if issubclass(w.category, UndecodableBytesWarning)]
    assert len(ours) == 1
    message = str(ours[0].message)
    assert str(path) in message and "2 line(s)" in message and "first: line 2" in message
    assert docs.texts[1] == "cut \ufffd here" and len(docs) == 4
    # at the caller's line, however deep the reader (load_quora_pairs through read_pairs named
    # learnsim's datasets/pairs.py)
    assert ours[0].filename == __file__


def test_a_pairs_file_with_bad_bytes_warns_at_the_caller_s_line(tmp_path):
    path = _write(tmp_path / "pairs.tsv", b"1\tcaf\xe9 menu\tthe cafe menu\n0\tdelivery late\tpassword reset\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        datasets.read_pairs(path)
    ours = [w for w in caught if issubclass(w.category, UndecodableBytesWarning)]
    assert len(ours) == 1 and ours[0].filename == __file__, [(w.filename, w.lineno) for w in ours]


@pytest.mark.parametrize("reader", [read_labelled_documents, read_documents])
def test_readers_strict_names_the_first_bad_line(tmp_path, reader):
    path = _write(tmp_path / "docs.tsv", BAD)
    with pytest.raises(DocumentFormatError) as info:
        reader(path, encoding_errors="strict")
    message = str(info.value)
    assert f"{path}, line 2: not UTF-8 text" in message
    assert "encoding_errors='replace'" in message and "--encoding-errors replace" in message


def test_jsonl_reader_and_bad_value(tmp_path):
    path = _write(tmp_path / "docs.jsonl", b'{"text": "ok", "label": "a"}\n{"text": "caf\xe9", "label": "b"}\n')
    with pytest.warns(UndecodableBytesWarning, match=r"1 line\(s\)"):
        assert read_labelled_documents(path).texts == ["ok", "caf\ufffd"]
    with pytest.raises(DocumentFormatError, match="line 2: not UTF-8"):
        read_documents(path, encoding_errors="strict")
    with pytest.raises(ValueError, match="encoding_errors must be 'replace'.*or 'strict'"):
        read_documents(path, encoding_errors="ignore")
    with pytest.raises(ValueError, match="encoding_errors must be"):
        check_encoding_errors(None)


def test_clean_file_no_warning_and_bom_dropped(tmp_path):
    path = _write(tmp_path / "docs.tsv", "\ufefflabel\ttext\na\tone\n".encode("utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        docs = read_labelled_documents(path, encoding_errors="strict")
    assert docs.texts == ["one"]


def test_decoded_lines_options(tmp_path):
    path = _write(tmp_path / "x.txt.gz", gzip.compress(b"one\r\ntw\xffo\nthree"))
    counts = {}
    with pytest.warns(UndecodableBytesWarning, match=r"x\.txt\.gz: 1 line\(s\).*\(see here\)"):
        lines = list(decoded_lines(path, counts=counts, hint="see here"))
    assert lines == [(1, "one"), (2, "tw\ufffdo"), (3, "three")] and counts == {"undecodable_lines": 1}
    with pytest.warns(UndecodableBytesWarning):
        kept = [line for _n, line in decoded_lines(path, keepends=True)]
    assert kept[0] == "one\r\n"
    latin = _write(tmp_path / "l.txt", b"caf\xe9\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(decoded_lines(latin, encoding="latin-1")) == [(1, "café")]
    with pytest.raises(ValueError, match="unknown encoding 'klingon'"):
        list(decoded_lines(latin, encoding="klingon"))
    broken = _write(tmp_path / "b.txt.gz", b"not gzip")
    with pytest.raises(DocumentFormatError, match="could not be read"):
        list(decoded_lines(broken))


def test_gzipped_document_files_are_read_as_the_file_they_hold(tmp_path):
    # BEIR ships corpus.jsonl.gz: 'learnsim fit --beir' read it, the document readers
    # ('learnsim index build --corpus', 'search --corpus') refused it as of unknown type '.gz'
    beir = (b'{"_id": "d1", "title": "Volcano", "text": "lava flows", "metadata": {}}\n'
            b'{"_id": "d2", "title": "", "text": "a draw"}\n')
    docs = read_documents(_write(tmp_path / "corpus.jsonl.gz", gzip.compress(beir)))
    assert docs.ids == ["d1", "d2"] and docs.texts == ["Volcano\nlava flows", "a draw"]
    for name in ("docs.tsv.gz", "docs.TXT.GZ"):
        assert read_labelled_documents(_write(tmp_path / name, gzip.compress(b"a\tone\nb\ttwo\n"))).texts == \
            ["one", "two"]
    csv = read_documents(_write(tmp_path / "docs.csv.gz", gzip.compress(b'id,text\nx,"one, two"\n')))
    assert csv.ids == ["x"] and csv.texts == ["one, two"]
    with pytest.raises(DocumentFormatError, match="unknown file type"):
        read_documents(_write(tmp_path / "docs.gz", gzip.compress(b"a\tone\n")))


def test_a_beir_record_with_a_title_and_an_empty_text_is_its_title(tmp_path):
    # it was "Title\n": a line end in the text that is indexed, shown and highlighted, where BEIR
    # strips the joined (title + " " + text).strip()
    path = _write(tmp_path / "corpus.jsonl", b'{"_id": "d1", "title": "Mount Etna ", "text": ""}\n'
                                             b'{"_id": "d2", "title": "Vesuvius", "text": " \\n"}\n'
                                             b'{"_id": "d3", "title": "Stromboli", "text": "lava"}\n')
    expected = ["Mount Etna", "Vesuvius", "Stromboli\nlava"]
    assert read_documents(path).texts == expected
    assert list(datasets.read_corpus(path).values()) == expected
    assert read_labelled_documents(_write(tmp_path / "lab.jsonl", b'{"title": "Etna", "text": "", "label": 1}\n')).texts \
        == ["Etna"]


@pytest.mark.parametrize("layout", ["parquet", "csv", "dataframe", "dicts"])
def test_a_beir_corpus_as_a_table_reads_its_id_and_title_as_the_jsonl_does(tmp_path, layout):
    # BEIR's corpus as parquet (Hugging Face's BeIR sets), df.to_csv of it, or its records in memory:
    # "_id" was metadata, the documents numbered, and the titles left out of the texts, where the
    # same records in corpus.jsonl (or a docid<TAB>title<TAB>text file) read both
    rows = [{"_id": "d1", "title": "Etna", "text": "lava flows"}, {"_id": "d2", "title": "", "text": "ash cloud"},
            {"_id": "d3", "title": "Stromboli", "text": "a glow"}]
    jsonl = read_documents(_write(tmp_path / "corpus.jsonl", "".join(json.dumps(r) + "\n" for r in rows).encode()))
    if layout == "dicts":
        source = rows
    else:
        pd = pytest.importorskip("pandas")
        frame = pd.DataFrame(rows)
        if layout == "parquet":
            pytest.importorskip("pyarrow")
            frame.to_parquet(tmp_path / "corpus.parquet")
            source = tmp_path / "corpus.parquet"
        elif layout == "csv":
            frame.to_csv(tmp_path / "corpus.csv", index=False)
            source = tmp_path / "corpus.csv"
        else:
            source = frame
    docs = read_documents(source)
    assert docs.ids == jsonl.ids == ["d1", "d2", "d3"]
    assert docs.texts == jsonl.texts == ["Etna\nlava flows", "ash cloud", "Stromboli\na glow"]
    if layout in ("parquet", "csv"):
        # the title stays metadata, as a JSON line's does; the id is no field of it
        assert [m.get("title") or None for m in docs.metadata] == ["Etna", None, "Stromboli"]
        assert all("_id" not in m for m in docs.metadata)


def test_read_text(tmp_path):
    path = _write(tmp_path / "t.txt", b"\xef\xbb\xbfline one\nbad \xff\n")
    counts = {}
    with pytest.warns(UndecodableBytesWarning, match=r"first: line 2"):
        assert read_text(path, counts=counts) == "line one\nbad \ufffd\n"
    assert counts == {"undecodable_lines": 1}
    with pytest.raises(DocumentFormatError, match=r"t\.txt, line 2: not UTF-8 text \(invalid start byte"):
        read_text(path, encoding_errors="strict")
    with pytest.raises(DocumentFormatError, match=r"\.Z\) files are not supported"):
        read_text(_write(tmp_path / "t.Z", b"x"))


# -------------------------------------------------------------------- documents in memory

def test_documents_from_lists():
    docs = read_labelled_documents([("a", "first"), ("-1", "loose"), {"text": "third", "label": 3, "id": 9}])
    assert docs.texts == ["first", "loose", "third"] and docs.labels == ["a", None, "3"]
    assert docs.ids == [None, None, "9"] and docs.path is None
    plain = read_documents(["one", "two"])
    assert plain.texts == ["one", "two"] and plain.labels is None and plain.ids == [None, None]
    with_ids = read_documents([("d1", "one"), {"text": "two", "id": "d2", "label": "x"}])
    assert with_ids.ids == ["d1", "d2"] and with_ids.labels is None      # not every document is labelled
    assert read_documents([{"text": "x", "label": "a"}]).labels == ["a"]


@pytest.mark.parametrize("source, reader, error, message", [
    ([], read_documents, DocumentFormatError, "no documents"),
    (["text without label"], read_labelled_documents, TypeError, r"document 0: expected a \(label, text\)"),
    ([("a", "  ")], read_labelled_documents, DocumentFormatError, "document 0: empty text"),
    ([{"text": "x"}], read_labelled_documents, DocumentFormatError, 'document 0: no "label" field'),
    ([{"txt": "x"}], read_documents, DocumentFormatError, 'document 0: no "text" field'),
    ([("a", 3)], read_labelled_documents, DocumentFormatError, '"text" is int, not a string'),
    ([("", "x")], read_labelled_documents, DocumentFormatError, 'document 0: empty "label"'),
    (42, read_documents, TypeError, "documents must be a path, a list or a pandas DataFrame"),
])
def test_documents_from_lists_errors(source, reader, error, message):
    with pytest.raises(error, match=message):
        reader(source)


def test_documents_from_dataframe():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"text": ["a b", "c d", "e f"], "label": [1, None, 2], "id": ["x", "y", "z"]})
    docs = read_labelled_documents(frame)
    assert docs.labels == ["1", None, "2"] and docs.ids == ["x", "y", "z"]
    assert read_documents(pd.DataFrame({"text": ["a", "b"]})).texts == ["a", "b"]


@pytest.mark.parametrize("quoting", ["auto", "csv"])
def test_a_tsv_whose_header_names_text_then_label_is_read_that_way(tmp_path, quoting):
    """A first line text<TAB>label: the label is the last field (it was read as a text, and every
    document as a label of its own); without that header, label<TAB>text as before."""
    path = tmp_path / "rev.tsv"
    path.write_text("Text\tLabel\nreset my password\tsupport\nforgot\tmy password\tsupport\ncharged twice\tbilling\n",
                    encoding="utf-8")
    docs = read_labelled_documents(path, quoting=quoting)
    assert docs.texts == ["reset my password", "forgot\tmy password", "charged twice"]
    assert docs.labels == ["support", "support", "billing"]
    plain = tmp_path / "plain.tsv"
    plain.write_text("label\ttext\nsupport\treset my password\n", encoding="utf-8")
    assert read_labelled_documents(plain).labels == ["support"]
    bad = tmp_path / "bad.tsv"
    bad.write_text("text\tlabel\nno tab here\n", encoding="utf-8")
    with pytest.raises(DocumentFormatError, match="line 2: no TAB separator; expected 'text<TAB>label'"):
        read_labelled_documents(bad)


@pytest.mark.parametrize("quoting", ["auto", "csv"])
@pytest.mark.parametrize("suffix", [".tsv", ".txt"])
def test_a_collection_whose_header_names_text_first_is_read_that_way(tmp_path, quoting, suffix):
    """A corpus to search under a first line text<TAB>label or text<TAB>id: the text is before
    the last TAB (it was read as id<TAB>text: every text an id, every label or id the text)."""
    path = tmp_path / f"rev{suffix}"
    path.write_text("Text\tLabel\nreset my password\tsupport\nforgot\tmy password\t-1\ncharged twice\tbilling\n",
                    encoding="utf-8")
    docs = read_documents(path, quoting=quoting)
    assert docs.texts == ["reset my password", "forgot\tmy password", "charged twice"]
    assert docs.labels == ["support", None, "billing"] and docs.ids == [None, None, None]
    assert docs.line_numbers == [2, 3, 4]
    ids = tmp_path / f"ids{suffix}"
    ids.write_text("text\tid\nreset my password\tq1\ncharged twice\tq2\n", encoding="utf-8")
    docs = read_documents(ids, quoting=quoting)
    assert docs.texts == ["reset my password", "charged twice"] and docs.ids == ["q1", "q2"]
    assert docs.labels is None
    plain = tmp_path / f"plain{suffix}"
    plain.write_text("id\ttext\nq1\treset my password\n", encoding="utf-8")
    assert read_documents(plain).ids == ["q1"] and read_documents(plain).texts == ["reset my password"]
    bad = tmp_path / f"bad{suffix}"
    bad.write_text("text\tid\nno tab here\n", encoding="utf-8")
    with pytest.raises(DocumentFormatError, match="line 2: no TAB separator; expected 'text<TAB>id'"):
        read_documents(bad)


@pytest.mark.parametrize("header, fragment", [
    ("label\ttext_a\ttext_b", "the columns of pairs"), ("id\tlabel\tsentence", "names the columns id, label, sentence"),
    ("text_a\ttext_b\tscore", "the columns of pairs")])
def test_a_tsv_header_of_other_columns_is_refused_not_read_as_a_document(tmp_path, header, fragment):
    """A pairs file given as labelled documents fitted clusters of its 0/1 labels (its header a
    document labelled "label"); an id<TAB>label<TAB>text file took its ids as labels. The reader
    refuses both, for the command line and learnsim.fit alike; label<TAB>text and text<TAB>label
    headers stay read."""
    path = tmp_path / "docs.tsv"
    path.write_text(header + "\n1\ta b\tc d\n0\te f\tg h\n", encoding="utf-8")
    with pytest.raises(DocumentFormatError, match=fragment):
        read_labelled_documents(path)
    for good in ("label\ttext", "text\tlabel"):
        path.write_text(good + "\n" + ("a\tsome words\n" if good == "label\ttext" else "some words\ta\n"),
                        encoding="utf-8")
        assert read_labelled_documents(path).labels == ["a"]


@pytest.mark.parametrize("header, text_first", [
    ("sentence\tlabel", True), ("Review\tLabel", True), ("label\tsentence", False), ("category\ttext", False),
    ("text\tcategory", True)])
def test_a_header_naming_the_text_column_otherwise_is_a_header(tmp_path, header, text_first):
    """GLUE's SST-2 is sentence<TAB>label: read as label<TAB>text, the header was a document and
    every sentence a label of its own with "0" or "1" for its text (a fit of nothing, exit 0)."""
    rows = [("good film", "1"), ("dull\tfilm", "0")] if text_first else [("1", "good film"), ("0", "dull film")]
    path = tmp_path / "train.tsv"
    path.write_text(header + "\n" + "".join(f"{a}\t{b}\n" for a, b in rows), encoding="utf-8")
    docs = read_labelled_documents(path)
    assert docs.labels == ["1", "0"] and docs.texts[0] == "good film" and len(docs) == 2
    if text_first and header.lower().endswith("label"):
        corpus = read_documents(path)
        assert corpus.texts == ["good film", "dull\tfilm"] and corpus.labels == ["1", "0"]


def test_a_labelled_tsv_header_of_three_named_columns_with_a_label_is_refused(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_text("sentence\tlabel\tidx\ngood film\t1\t0\n", encoding="utf-8")
    with pytest.raises(DocumentFormatError, match="line 1: its header names the columns sentence, label, idx"):
        read_labelled_documents(path)
    # a first line of data is still data
    data = tmp_path / "data.tsv"
    data.write_text("sports\tgoal\nsports\tmatch\n", encoding="utf-8")
    assert read_labelled_documents(data).labels == ["sports", "sports"]


def test_a_gzipped_tsv_collection_needs_ids_as_a_tsv_does(tmp_path):
    path = _write(tmp_path / "docs.tsv.gz", gzip.compress(b"d1\tgood film\nno tab\n"))
    with pytest.raises(DocumentFormatError, match="line 2: no TAB separator; expected 'id<TAB>text'"):
        read_documents(path)


@pytest.mark.parametrize("suffix", [".tsv", ".txt"])
def test_a_collection_header_naming_the_id_column_otherwise_is_a_header(tmp_path, suffix):
    # docno<TAB>text (TREC's name): read as a document, the header was one more in the index
    path = _write(tmp_path / f"docs{suffix}", b"docno\ttext\nD1\tcovid came from bats\nD2\ta tea harvest\n")
    docs = read_documents(path)
    assert docs.ids == ["D1", "D2"] and docs.texts == ["covid came from bats", "a tea harvest"]


def test_invalid_json_names_a_raw_control_character_and_its_column(tmp_path):
    # the parser's "Invalid control character at" read "... at at column 23", the TAB unseen
    path = _write(tmp_path / "docs.jsonl", b'{"id": "a", "text": "x\ty"}\n')
    with pytest.raises(DocumentFormatError) as caught:
        read_documents(path)
    message = str(caught.value)
    assert "at at" not in message and "'\\t'" in message and "column 23" in message
    with pytest.raises(DocumentFormatError, match=r"line 1: invalid JSON \(Unterminated string starting at column 21\)"):
        read_documents(_write(tmp_path / "cut.jsonl", b'{"id": "a", "text": "xy}\n'))


def test_a_record_naming_its_text_as_pyserini_does_is_read(tmp_path):
    # {"id", "contents"} (Pyserini's JsonCollection) was refused as 'no "text" field', with a hint to rename it
    path = _write(tmp_path / "docs.jsonl", b'{"id": "d1", "contents": "lava flows", "year": 1980}\n'
                                           b'{"id": "d2", "title": "Etna", "contents": "ash"}\n'
                                           b'{"id": "d3", "text": "a text", "contents": "kept as metadata"}\n')
    docs = read_documents(path)
    assert docs.ids == ["d1", "d2", "d3"]
    # the title joined before it, as BEIR's text; "contents" is the text, so no part of the metadata
    assert docs.texts == ["lava flows", "Etna\nash", "a text"]
    assert docs.metadata[0] == {"year": 1980} and docs.metadata[1] == {"title": "Etna"}
    assert docs.metadata[2] == {"contents": "kept as metadata"}
    assert datasets.read_id_texts(path, "documents") == (["d1", "d2", "d3"], ["lava flows", "Etna\nash", "a text"])
    labelled = read_labelled_documents(_write(tmp_path / "l.jsonl", b'{"label": "a", "contents": "lava"}\n'))
    assert labelled.texts == ["lava"] and labelled.unused_fields == []


def test_a_record_whose_text_is_named_otherwise_is_told_how_to_rename_it(tmp_path):
    path = _write(tmp_path / "docs.jsonl", b'{"id": "d1", "body": "lava flows"}\n')
    for read in (read_documents, lambda p: datasets.read_id_texts(p, "documents")):
        with pytest.raises(ValueError, match=r'line 1: .*the record has "body", which is not read as the text: '
                                             r'rename it "text"'):
            read(path)
    # a "contents" that is no text is named, not read as nothing
    path = _write(tmp_path / "bad.jsonl", b'{"id": "d1", "contents": ["lava"]}\n')
    for read in (read_documents, lambda p: datasets.read_id_texts(p, "documents")):
        with pytest.raises(ValueError, match=r'line 1: "contents" (is list, not a string|must be a string)'):
            read(path)


def test_labels_differing_only_in_unicode_normalisation_are_one_cluster(tmp_path):
    """A file's labels 'ça' (precomposed) and 'ça' (c and a combining cedilla) are one cluster,
    compared in NFC, as learnsim.fit compares its labels (they were two clusters)."""
    path = tmp_path / "d.tsv"
    path.write_text("\u00e7a\tfirst text\nc\u0327a\tsecond text\nx\tthird text\n", encoding="utf-8")
    codes, names, dropped = read_labelled_documents(path).cluster_codes(min_size=2)
    assert codes.tolist() == [0, 0, -1] and len(names) == 1 and dropped == 1


@pytest.mark.parametrize("suffix", [".tsv", ".txt"])
def test_a_collection_header_of_three_columns_is_read_by_name(tmp_path, suffix):
    """id<TAB>text<TAB>label: the header was a document "id" and each label was joined to its text;
    docid<TAB>title<TAB>text (a title column) counted 3 documents for 2."""
    path = _write(tmp_path / f"d{suffix}", b"id\ttext\tlabel\nt1\thello world\tx\nt2\tbye now\t-1\n")
    docs = read_documents(path)
    assert docs.ids == ["t1", "t2"] and docs.texts == ["hello world", "bye now"] and docs.labels == ["x", None]
    path = _write(tmp_path / f"t{suffix}", b"docid\ttitle\ttext\nd1\tPasswords\thow to reset\nd2\t\tcharged twice\n")
    docs = read_documents(path)
    assert docs.ids == ["d1", "d2"] and len(docs) == 2
    assert docs.texts[0].split() == ["Passwords", "how", "to", "reset"] and docs.texts[1] == "charged twice"
    # text last: the TABs of a line with more fields than the header are its text's
    path = _write(tmp_path / f"m{suffix}", b"id\tsource\ttext\na\tweb\tone\ttwo\n")
    docs = read_documents(path)
    assert docs.texts == ["one\ttwo"] and docs.metadata == [{"source": "web"}]
    with pytest.raises(DocumentFormatError, match="line 2: 2 field"):
        read_documents(_write(tmp_path / f"short{suffix}", b"id\ttext\tlabel\nt1\thello\n"))


def test_pandas_tsv_with_its_index_column_is_read_by_name(tmp_path):
    # df.to_csv("d.tsv", sep="\t") writes "<TAB>id<TAB>text": each id became the row number and
    # each text "t1 hello world"
    path = _write(tmp_path / "d.tsv", b"\tid\ttext\n0\tt1\thello world\n1\tt2\tbye now\n")
    docs = read_documents(path)
    assert docs.ids == ["t1", "t2"] and docs.texts == ["hello world", "bye now"] and docs.metadata is None
    path = _write(tmp_path / "n.tsv", b"\ttext\n0\thello world\n1\tbye now\n")
    docs = read_documents(path)
    assert docs.ids == [None, None] and docs.texts == ["hello world", "bye now"]


def test_pandas_csv_with_its_index_column_keeps_no_unnamed_metadata(tmp_path):
    # df.to_csv("c.csv"): the index column (no name) was metadata under the key "", which no filter names
    docs = read_documents(_write(tmp_path / "c.csv", b",id,text,topic\n0,a,hello,geo\n1,b,bye,art\n"))
    assert docs.ids == ["a", "b"] and docs.metadata == [{"topic": "geo"}, {"topic": "art"}]
    docs = read_documents(_write(tmp_path / "only.csv", b",id,text\n0,a,hello\n"))
    assert docs.ids == ["a"] and docs.metadata is None
    with pytest.raises(DocumentFormatError, match="line 1: the header's column 3 has no name"):
        read_documents(_write(tmp_path / "gap.csv", b"id,text,\na,hello,x\n"))


@pytest.mark.parametrize("reader, data, column", [
    (read_documents, b"id\ttext\t\na\thello\t\nb\tbye\tx\n", 3), (read_documents, b"\tid\ttext\t\n0\ta\thello\t\n", 4),
    (read_documents, b"id\t\ttext\na\tx\thello\n", 2), (read_labelled_documents, b"label\ttext\t\ngeo\thello\tx\n", 3),
    (read_labelled_documents, b"sentence\tlabel\t\nhello\t1\t\n", 3)])
def test_a_tsv_header_with_an_unnamed_column_is_refused_as_a_csv_one_is(tmp_path, reader, data, column):
    # "id<TAB>text<TAB>" was taken for the header id<TAB>text and each line's last TAB and field
    # joined its text ("hello\t", "bye\tx"), where pandas reads them as a column "Unnamed: 2"
    with pytest.raises(DocumentFormatError, match=rf"d\.tsv, line 1: the header's column {column} has no name"):
        reader(_write(tmp_path / "d.tsv", data))


@pytest.mark.parametrize("name, data", [
    ("d.csv", b"id,text\na,hello\n,bye\n"), ("d.tsv", b"id\ttext\tlabel\na\thello\tx\n\tbye\ty\n")])
def test_an_empty_id_cell_of_a_table_is_refused_as_an_empty_json_id_is(tmp_path, name, data):
    # pandas writes a missing id as an empty cell: the document got a positional id ("#1") among
    # named ones without a word, where {"id": ""} in JSON Lines is refused
    with pytest.raises(DocumentFormatError, match=rf"{name}, line 3: the id column 'id' has no value"):
        read_documents(_write(tmp_path / name, data))


def test_a_txt_of_one_text_per_line_under_pandas_text_header_skips_it(tmp_path):
    # df["text"].to_csv("d.txt", index=False): the header line "text" was indexed as a document
    docs = read_documents(_write(tmp_path / "d.txt", b"text\nhello world\nbye now\n"))
    assert docs.texts == ["hello world", "bye now"] and docs.line_numbers == [2, 3]
    # any other first word is a document: a plain list of texts has no header
    assert read_documents(_write(tmp_path / "w.txt", b"hello\nbye now\n")).texts == ["hello", "bye now"]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_byte_order_mark_is_named_as_such(tmp_path, codec):
    # read as UTF-8 it was "line 3: no TAB separator; got '\x00'", naming nothing of the encoding
    path = _write(tmp_path / "d.tsv", "d1\thello world\nd2\tbyé now\n".encode(codec))
    name = codec.replace("utf-16-", "UTF-16").upper()
    for read in (read_documents, read_labelled_documents, datasets.read_corpus):
        with pytest.raises(DocumentFormatError, match=f"d.tsv: the file looks like {name} text without a byte-order"):
            read(path)
    # UTF-8 with a NUL inside is not taken for UTF-16
    assert read_documents(_write(tmp_path / "nul.tsv", b"d1\thello\x00 world\n")).ids == ["d1"]


@pytest.mark.parametrize("header, line", [
    ("id\tlabel\ttext", "t1\tsports\tthe match, a draw"), ("\tlabel\ttext", "0\tsports\tthe match, a draw"),
    ("text\tlabel\tid", "the match, a draw\tsports\tt1")])
def test_a_labelled_tsv_header_naming_its_columns_is_read_by_name(tmp_path, header, line):
    # id<TAB>label<TAB>text, and pandas' df.to_csv("train.tsv", sep="\t") (its index column unnamed),
    # were refused as not label<TAB>text, though the header says which column is which
    docs = read_labelled_documents(_write(tmp_path / "train.tsv", f"{header}\n{line}\n".encode()))
    assert docs.labels == ["sports"] and docs.texts == ["the match, a draw"]
    assert docs.ids == ([None] if header.startswith("\t") else ["t1"])


@pytest.mark.parametrize("codec, text", [
    ("cp1254", "Türkçe ağaç şeker ığdır"), ("cp1253", "Καλημέρα κόσμε"), ("cp1250", "Příliš žluťoučký kůň"),
    ("cp1255", "שלום עולם"), ("cp1256", "سلام دنيا"), ("iso-8859-9", "Türkçe ağaç"), ("iso-8859-7", "Καλημέρα"),
    ("latin-1", "café crème")])
def test_a_file_in_a_single_byte_code_page_is_named_as_such(tmp_path, codec, text):
    # every letter beyond ASCII became U+FFFD under a warning that spoke of bad bytes, as of UTF-8
    # text with a cut character; it now says the file is in a code page and how to convert it
    path = _write(tmp_path / "docs.tsv", f"d1\t{text}\nd2\tplain words\n".encode(codec))
    with pytest.warns(UndecodableBytesWarning, match=r"docs\.tsv: 1 line\(s\).*no line holds a UTF-8 character "
                                                     r"beyond ASCII, so the file is likely in a single-byte code "
                                                     r"page.*iconv -f CP1254 -t UTF-8 docs\.tsv"):
        read_documents(path)
    with pytest.raises(DocumentFormatError, match=r"docs\.tsv, line 1: not UTF-8 text .*single-byte code page"):
        read_documents(path, encoding_errors="strict")


@pytest.mark.parametrize("data", [b"d1\tcut \xe2\x80 here\nd2\tplain\n", "d1\tcafé \n".encode() + b"d2\tbad \xff\n"])
def test_utf8_text_with_a_bad_byte_is_not_called_a_code_page(tmp_path, data):
    # a cut UTF-8 character, or a bad byte in a file with UTF-8 letters elsewhere: the odd damaged byte
    path = _write(tmp_path / "docs.tsv", data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_documents(path)
    ours = [str(w.message) for w in caught if issubclass(w.category, UndecodableBytesWarning)]
    assert len(ours) == 1 and "1 line(s)" in ours[0] and "code page" not in ours[0]


def test_an_integer_label_column_with_a_missing_value_reads_as_the_same_frame_in_memory(tmp_path):
    """pandas stores an integer column with a missing value as floats: the file was refused ("label
    must be a string or an integer; got 1.0") where the same DataFrame in memory read labels 1, 2."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"label": [1, None, 2], "text": ["a b", "c d", "e f"]})
    frame.to_parquet(tmp_path / "lab.parquet")
    for reader in (read_labelled_documents, read_documents):
        assert reader(tmp_path / "lab.parquet").labels == reader(frame).labels == ["1", None, "2"]


@pytest.mark.parametrize("header", ["doc-id\ttext", "query-id\ttext", "docid\tcontents", "pid\tpassage", "qid\tquery",
                                    "doc_id\ttitle", "ID\tPassage"])
def test_a_two_column_header_of_an_id_and_a_text_name_is_no_document(tmp_path, header):
    # it was read as a document: the text "passage" with the id "pid", indexed and searchable, where
    # datasets.read_corpus (evaluate) skips the same header
    path = _write(tmp_path / "docs.tsv", f"{header}\nd1\thello world\nd2\tbye now\n".encode())
    docs = read_documents(path)
    assert docs.ids == ["d1", "d2"] and docs.texts == ["hello world", "bye now"]
    assert list(datasets.read_corpus(path)) == docs.ids


@pytest.mark.parametrize("codec, text", [("cp1254", "Türkçe ağaç şeker ığdır"), ("cp1253", "Καλημέρα κόσμε"),
                                         ("cp1250", "Příliš žluťoučký kůň"), ("cp1255", "שלום עולם"),
                                         ("cp1256", "سلام دنيا")])
@pytest.mark.parametrize("layout", ["tsv", "csv", "jsonl", "labelled"])
def test_a_file_in_a_code_page_reads_with_its_encoding(tmp_path, codec, text, layout):
    # read_corpus took encoding=, read_documents did not: such a file could only be read as U+FFFD
    data = {"tsv": f"d1\t{text}\nd2\tplain\n", "csv": f"id,text\nd1,{text}\nd2,plain\n",
            "jsonl": json.dumps({"id": "d1", "text": text}, ensure_ascii=False) + '\n{"id": "d2", "text": "plain"}\n',
            "labelled": f"a\t{text}\nb\tplain\n"}[layout]
    path = _write(tmp_path / f"docs.{'tsv' if layout == 'labelled' else layout}", data.encode(codec))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndecodableBytesWarning)
        docs = (read_labelled_documents if layout == "labelled" else read_documents)(path, encoding=codec)
    assert docs.texts == [text, "plain"]


@pytest.mark.parametrize("name, data", [("d.csv", "label,text\n1.0,a b\n-1.0,c d\n2.0,e f\n-1.00,g h\n"),
                                        ("d.tsv", "1.0\ta b\n-1.0\tc d\n2.0\te f\n-1.00\tg h\n"),
                                        ("t.tsv", "text\tlabel\na b\t1.0\nc d\t-1.0\ne f\t2.0\ng h\t-1.00\n")])
def test_no_cluster_written_by_pandas_as_a_float_is_no_cluster(tmp_path, name, data):
    # pandas writes a label column with a missing value as floats: "-1.0" was a cluster of its own
    path = _write(tmp_path / name, data.encode())
    reader = read_documents if name == "t.tsv" else read_labelled_documents
    labels = reader(path).labels
    assert labels[1] is None and labels[3] is None and labels[0] != labels[2]


@pytest.mark.parametrize("name, data, reader", [
    ("d.csv", "label,text\n1.0,a b\n-1.0,c d\n2.0,e f\n", read_labelled_documents),
    ("d.tsv", "1.0\ta b\n-1.0\tc d\n2.0\te f\n", read_labelled_documents),
    ("t.tsv", "id\ttext\tlabel\nd1\ta b\t1.0\nd2\tc d\t\nd3\te f\t2.0\n", read_documents),
    ("t.csv", "id,text,label\nd1,a b,1.0\nd2,c d,\nd3,e f,2.00\n", read_documents)])
def test_labels_of_a_float_column_read_as_the_same_frame_in_memory(tmp_path, name, data, reader):
    # pandas writes a label column with a missing value as floats: the .csv read the cluster names
    # "1.0", "2.0" where the frame in memory, or its .parquet, gives "1", "2" (the names show in reports)
    labels = reader(_write(tmp_path / name, data.encode())).labels
    assert labels == ["1", None, "2"]
    try:
        import pandas as pd
    except ImportError:
        return
    frame = pd.DataFrame({"id": ["d1", "d2", "d3"], "text": ["a b", "c d", "e f"], "label": [1, None, 2]})
    assert reader(frame).labels == labels


def test_labels_that_are_not_all_whole_floats_stay_as_written(tmp_path):
    # a label "1.0" beside "1" or "1.5" is a name of its own: no two labels may become one
    for data, expected in (("1.0\ta b\n1\tc d\n", ["1.0", "1"]), ("1.0\ta b\n1.5\tc d\n", ["1.0", "1.5"]),
                           ("v1.0\ta b\n2.0\tc d\n", ["v1.0", "2.0"])):
        assert read_labelled_documents(_write(tmp_path / "d.tsv", data.encode())).labels == expected


@pytest.mark.parametrize("name, data", [("d.csv", "label,text\n1.0,a b\n,c d\n2.0,e f\n"),
                                        ("d.tsv", "id\tlabel\ttext\nd1\t1\ta b\nd2\t\tc d\nd3\t2\te f\n")])
def test_an_empty_label_cell_under_a_header_is_no_cluster_as_in_the_frame(tmp_path, name, data):
    # df.to_csv of a label column [1, None, 2]: the empty cell was refused ("empty label") by
    # read_labelled_documents alone; read_documents of the file, the frame and its .parquet read no cluster
    path = _write(tmp_path / name, data.encode())
    assert read_labelled_documents(path).labels == ["1", None, "2"]
    assert read_documents(path).labels == ["1", None, "2"]
    # without a header an empty label is still a mistake to name
    with pytest.raises(DocumentFormatError, match=r"line 2: empty label"):
        read_labelled_documents(_write(tmp_path / "h.tsv", b"a\tok\n\tno label\n"))


def test_a_json_lines_float_label_column_reads_as_the_same_frame(tmp_path):
    # df.to_json(lines=True) of a label column [1, None, 2] writes 1.0, null, 2.0: refused ("label
    # must be a string or an integer; got 1.0") where the frame in memory and its .parquet read 1, 2
    path = _write(tmp_path / "d.jsonl", b'{"text":"a b","label":1.0}\n{"text":"c d","label":null}\n'
                                        b'{"text":"e f","label":2.0}\n{"text":"g h","label":-1.0}\n')
    assert read_labelled_documents(path).labels == ["1", None, "2", None]
    assert read_documents(path).labels == ["1", None, "2", None]
    with pytest.raises(DocumentFormatError, match=r"line 1: \"label\" must be a string or an integer; got 1.5"):
        read_labelled_documents(_write(tmp_path / "f.jsonl", b'{"text":"a b","label":1.5}\n'))
