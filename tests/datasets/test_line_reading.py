"""How the common line decoder splits and bounds lines, and what the document readers refuse
with the file and the line: lone CR line ends, a line past MAX_LINE_BYTES, a UTF-16/UTF-32
byte-order mark, an empty JSON id, an integer too long for Python, NaN in metadata."""
from __future__ import annotations

import codecs
import gzip
import io
import json
import re
import sys
import warnings

import pytest

from learnsim.datasets import DocumentFormatError, _decode, decoded_lines, read_text
from learnsim.io import read_documents, read_labelled_documents


def _write(path, data):
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


# --------------------------------------------------------------------------- line ends
def test_lone_cr_ends_a_line_as_in_universal_newlines(tmp_path):
    data = b"one\rtwo\r\nthree\nfour\r\rsix"
    path = _write(tmp_path / "mixed.txt", data)
    expected = data.decode().splitlines()
    assert [line for _n, line in decoded_lines(path)] == expected
    assert [n for n, _line in decoded_lines(path)] == list(range(1, len(expected) + 1))
    assert [line for _n, line in decoded_lines(path, keepends=True)] == data.decode().splitlines(keepends=True)


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 2**20])
def test_a_crlf_split_between_two_chunks_is_one_line_end(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(_decode, "_CHUNK_BYTES", chunk)
    data = b"ab\r\ncd\r\ref\r\n\r\ngh\r"
    path = _write(tmp_path / "crlf.txt", data)
    assert list(decoded_lines(path, keepends=True)) == list(enumerate(data.decode().splitlines(keepends=True), 1))


def test_a_gzipped_file_with_cr_line_ends(tmp_path):
    path = _write(tmp_path / "cr.txt.gz", gzip.compress(b"first\rsecond\r"))
    assert list(decoded_lines(path)) == [(1, "first"), (2, "second")]


@pytest.mark.parametrize("name, data, ids", [
    ("cr.tsv", "a1\thello world\ra2\tsecond doc\ra3\tthird doc\r", ["a1", "a2", "a3"]),
    ("cr.txt", "hello world\rsecond doc\rthird doc\r", [None, None, None]),
    ("cr.csv", "id,text\ra1,hello world\ra2,second doc\ra3,third doc\r", ["a1", "a2", "a3"]),
    ("cr.jsonl", '{"id": "a1", "text": "hello world"}\r{"id": "a2", "text": "second doc"}\r'
                 '{"id": "a3", "text": "third doc"}\r', ["a1", "a2", "a3"]),
])
def test_every_document_reader_reads_cr_line_ends(tmp_path, name, data, ids):
    docs = read_documents(_write(tmp_path / name, data))
    assert docs.texts == ["hello world", "second doc", "third doc"]
    assert docs.ids == ids
    assert docs.line_numbers == ([2, 3, 4] if name.endswith(".csv") else [1, 2, 3])


def test_a_labelled_file_with_cr_line_ends_names_the_right_line(tmp_path):
    docs = read_labelled_documents(_write(tmp_path / "cr.tsv", "x\tone\ry\ttwo\r"))
    assert docs.labels == ["x", "y"] and docs.texts == ["one", "two"]
    with pytest.raises(DocumentFormatError, match=r"bad\.tsv, line 3: no TAB separator"):
        read_labelled_documents(_write(tmp_path / "bad.tsv", "x\tone\ry\ttwo\rno tab here\r"))


def test_a_quoted_csv_field_keeps_its_cr(tmp_path):
    docs = read_documents(_write(tmp_path / "q.csv", 'id,text\ra1,"two\rlines"\ra2,next\r'))
    assert docs.texts == ["two\rlines", "next"] and docs.line_numbers == [2, 4]


# --------------------------------------------------------------------------- the length bound
def test_the_line_bound_is_a_documented_constant():
    assert _decode.MAX_LINE_BYTES == 64 * 2**20
    assert "MAX_LINE_BYTES" in decoded_lines.__doc__


@pytest.mark.parametrize("chunk", [3, 2**20])
@pytest.mark.parametrize("suffix", [".txt", ".jsonl", ".txt.gz"])
def test_a_line_past_the_bound_is_refused_naming_the_line(tmp_path, monkeypatch, chunk, suffix):
    monkeypatch.setattr(_decode, "MAX_LINE_BYTES", 16)
    monkeypatch.setattr(_decode, "_CHUNK_BYTES", chunk)
    fits, over = b"x" * 16, b"y" * 17
    for body, line in ((fits + b"\n" + over + b"\n", 2), (fits + b"\r" + fits + b"\r\n" + over, 3)):
        data = gzip.compress(body) if suffix.endswith(".gz") else body
        path = _write(tmp_path / f"long{suffix}", data)
        with pytest.raises(DocumentFormatError, match=rf"long{suffix}, line {line}: longer than 16 bytes"):
            list(decoded_lines(path))
    path = _write(tmp_path / "fits.txt", fits + b"\r\n" + fits)
    assert [line for _n, line in decoded_lines(path)] == ["x" * 16] * 2


@pytest.mark.parametrize("suffix", [".sgml", ".sgml.gz"])
def test_a_whole_file_past_its_bound_is_refused_naming_it(tmp_path, monkeypatch, suffix):
    """read_text (the TREC / SGML readers) read a file whole, however large: a gzip bomb took all
    the memory. It reads at most MAX_TEXT_BYTES, and says so naming the file."""
    from learnsim.datasets import read_text

    assert _decode.MAX_TEXT_BYTES == 2**30 and "MAX_TEXT_BYTES" in read_text.__doc__
    monkeypatch.setattr(_decode, "MAX_TEXT_BYTES", 100)
    monkeypatch.setattr(_decode, "_CHUNK_BYTES", 2)
    for body, ok in ((b"<DOC>" + b"x" * 89 + b"</DOC>", True), (b"<DOC>" + b"x" * 90 + b"</DOC>", False)):
        path = _write(tmp_path / f"f{suffix}", gzip.compress(body) if suffix.endswith(".gz") else body)
        if ok:
            assert read_text(path) == body.decode()
        else:
            with pytest.raises(DocumentFormatError, match=rf"f{suffix}: longer than 100 bytes"):
                read_text(path)


class _Endless(io.RawIOBase):
    """A file of NUL bytes without end (as /dev/zero), counting what was read of it."""

    def __init__(self):
        self.served = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        buffer[:] = bytes(len(buffer))
        self.served += len(buffer)
        return len(buffer)


def test_a_file_without_line_ends_is_read_only_up_to_the_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(_decode, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(_decode, "_CHUNK_BYTES", 100)
    endless = _Endless()
    monkeypatch.setattr(_decode, "open_input", lambda path: io.BufferedReader(endless, 100))
    with pytest.raises(DocumentFormatError, match=r"zero\.jsonl, line 1: longer than"):
        read_documents(_write(tmp_path / "zero.jsonl", b""))
    assert endless.served <= 1000 + 2 * 100


# --------------------------------------------------------------------------- UTF-16 and UTF-32
@pytest.mark.parametrize("codec, name", [("utf-16", "UTF-16"), ("utf-16-be", "UTF-16"), ("utf-32", "UTF-32"),
                                         ("utf-32-be", "UTF-32")])
@pytest.mark.parametrize("encoding_errors", ["replace", "strict"])
def test_a_file_with_a_wide_byte_order_mark_is_refused_in_one_line(tmp_path, codec, name, encoding_errors):
    bom = {"utf-16-be": codecs.BOM_UTF16_BE, "utf-32-be": codecs.BOM_UTF32_BE}.get(codec, b"")
    data = bom + "a1\thello world\na2\tsecond doc\n".encode(codec)
    path = _write(tmp_path / "wide.tsv", data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # refused, not read as U+FFFD with a warning
        for read in (lambda: read_documents(path, encoding_errors=encoding_errors),
                     lambda: list(decoded_lines(path, encoding_errors=encoding_errors)),
                     lambda: read_text(path, encoding_errors=encoding_errors)):
            with pytest.raises(DocumentFormatError) as caught:
                read()
            message = str(caught.value)
            assert f"wide.tsv: the file is {name} text" in message and "reads UTF-8" in message
            assert f"iconv -f {name} -t UTF-8" in message and "\n" not in message


def test_a_latin1_reader_still_reads_the_bytes_of_a_bom(tmp_path):
    path = _write(tmp_path / "latin.txt", b"\xff\xfeabc\n")
    assert list(decoded_lines(path, encoding="latin-1")) == [(1, "\xff\xfeabc")]


# --------------------------------------------------------------------------- JSON ids and numbers
@pytest.mark.parametrize("reader", [read_documents, read_labelled_documents])
@pytest.mark.parametrize("key", ["id", "_id"])
def test_an_empty_json_id_is_refused(tmp_path, reader, key):
    path = _write(tmp_path / "c.jsonl", f'{{"{key}": "a1", "text": "hello", "label": 1}}\n'
                                        f'{{"{key}": "", "text": "second", "label": 1}}\n')
    with pytest.raises(DocumentFormatError, match=rf'c\.jsonl, line 2: "{key}" is an empty string'):
        reader(path)


@pytest.mark.parametrize("name, data", [("c.tsv", "a1\thello\n\tsecond\n"), ("h.tsv", "id\ttext\n\tfirst\na2\tsecond\n"),
                                        ("c.txt", "a1\thello\n \tsecond\n"), ("t.tsv", "text\tid\nhello\ta1\nbye\t\n")])
def test_an_empty_tsv_id_among_given_ones_is_refused(tmp_path, name, data):
    # the line was numbered ("line-2") among named documents without a word, where an empty id
    # cell of a .csv and {"id": ""} of a JSON line are refused
    with pytest.raises(DocumentFormatError, match=rf"{name}, line \d: the id \(the field (before|after) the (first|last) TAB\) is "
                                                  r"empty, while line \d gives one \('a\d'\)"):
        read_documents(_write(tmp_path / name, data))


def test_a_tsv_without_any_id_still_numbers_its_documents(tmp_path):
    # every line indented by a TAB: no document names itself, so none is named among numbered ones
    docs = read_documents(_write(tmp_path / "c.txt", "\thello\n\tsecond\n"))
    assert docs.ids == [None, None] and docs.texts == ["hello", "second"]


@pytest.mark.skipif(not hasattr(sys, "get_int_max_str_digits"), reason="this Python reads integers of any length")
def test_an_integer_too_long_for_python_names_the_file_the_line_and_the_field(tmp_path):
    long = "9" * 5000
    path = _write(tmp_path / "c.jsonl", f'{{"id": 1, "text": "a"}}\n{{"id": {long}, "text": "b"}}\n')
    with pytest.raises(DocumentFormatError, match=r'c\.jsonl, line 2: the id "id" is too long: an integer of 5000 '
                                                  r"digits \(at most \d+\); give such an id as a JSON string"):
        read_documents(path)
    path = _write(tmp_path / "m.jsonl", f'{{"text": "a", "metadata": {{"n": [1, -{long}]}}}}\n')
    with pytest.raises(DocumentFormatError, match=r"m\.jsonl, line 1: the integer 'metadata\.n\[1\]' is too long"):
        read_documents(path)
    assert read_documents(_write(tmp_path / "s.jsonl", json.dumps({"id": long, "text": "a"}))).ids == [long]


@pytest.mark.parametrize("value", ["1e-400", "-2.5E-999", "0.1e-330"])
def test_a_number_below_the_smallest_float_in_metadata_is_refused_not_read_as_zero(tmp_path, value):
    # Python's json reads 1e-400 as 0.0: a filter score>0 silently left the document out. The index
    # refuses an integer it cannot keep exactly (beyond 64 bits); such a number is refused likewise
    path = _write(tmp_path / "c.jsonl", f'{{"id": "a1", "text": "hello", "score": 0.0, "n": -0}}\n'
                                        f'{{"id": "a2", "text": "hello", "score": {value}}}\n')
    with pytest.raises(DocumentFormatError, match=rf"c\.jsonl, line 2: 'score' is {re.escape(value)}, a number too "
                                                  r"small for a float \(it would read as 0\.0\)"):
        read_documents(path)
    path = _write(tmp_path / "m.jsonl", f'{{"text": "hello", "other": 1e-400, "metadata": {{"s": [0.0, {value}]}}}}\n')
    with pytest.raises(DocumentFormatError, match=r"m\.jsonl, line 1: 'metadata\.s\[1\]' is "):
        read_documents(path)
    # zero written as zero, and the smallest floats, are read as they are
    docs = read_documents(_write(tmp_path / "z.jsonl", '{"text": "a", "z": 0.0, "y": -0.0, "e": 0e-5, "t": 5e-324, "n": -0}\n'))
    # the integer -0 is 0 (JSON has one integer zero; pandas and Python read it so)
    assert docs.metadata == [{"z": 0.0, "y": -0.0, "e": 0.0, "t": 5e-324, "n": 0}]


@pytest.mark.parametrize("value, spelled", [("NaN", "NaN"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity"),
                                            ("1e999", r"1e999, a number too large for a float"),
                                            ("-1.5E+400", r"-1\.5E\+400, a number too large for a float")])
def test_a_non_finite_number_in_metadata_names_the_file_and_the_line(tmp_path, value, spelled):
    path = _write(tmp_path / "c.jsonl", f'{{"id": "a1", "text": "hello", "score": 1.5}}\n'
                                        f'{{"id": "a2", "text": "hello", "score": {value}}}\n')
    with pytest.raises(DocumentFormatError, match=rf"c\.jsonl, line 2: 'score' is {spelled}"):
        read_documents(path)
    path = _write(tmp_path / "m.jsonl", f'{{"text": "hello", "metadata": {{"s": [0, {value}]}}}}\n')
    with pytest.raises(DocumentFormatError, match=rf"m\.jsonl, line 1: 'metadata\.s\[1\]' is {spelled}"):
        read_documents(path)


def test_a_byte_order_mark_opening_a_later_line_is_dropped(tmp_path):
    # files joined with cat, each opening with its own mark: the second file's first id was
    # '\ufeffd2' (and a label '\ufeffb' a cluster of its own), as the JSON Lines reader already knew
    bom = b"\xef\xbb\xbf"
    tsv = _write(tmp_path / "c.tsv", bom + b"id\ttext\nd1\thello\n" + bom + b"d2\tworld\n")
    assert read_documents(tsv).ids == ["d1", "d2"]
    csv = _write(tmp_path / "c.csv", bom + b"id,text\nd1,hello\n" + bom + b"d2,world\n")
    assert read_documents(csv).ids == ["d1", "d2"]
    labelled = _write(tmp_path / "l.tsv", b"b\thello\n" + bom + b"b\tworld\n")
    assert read_labelled_documents(labelled).labels == ["b", "b"]
    assert list(decoded_lines(labelled)) == [(1, "b\thello"), (2, "b\tworld")]


@pytest.mark.parametrize("codec, bom", [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE),
                                        ("utf-16-le", b""), ("utf-16-be", b"")])
@pytest.mark.parametrize("encoding", ["cp1254", "latin-1"])
def test_a_utf16_file_read_in_a_code_page_is_refused_naming_utf16(tmp_path, codec, bom, encoding):
    # the UTF-16 check was made for a UTF-8 read alone: with encoding='cp1254' (--encoding cp1254)
    # a UTF-16 file read as one character a byte, a NUL between every two letters, without a word
    data = bom + "a1\tağaç şeker\na2\tçiçek güneş\n".encode(codec)
    path = _write(tmp_path / "wide.tsv", data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for read in (lambda: read_documents(path, encoding=encoding),
                     lambda: list(decoded_lines(path, encoding=encoding)),
                     lambda: read_text(path, encoding=encoding)):
            with pytest.raises(DocumentFormatError) as caught:
                read()
            message = str(caught.value)
            assert "wide.tsv: the file" in message and "UTF-16" in message and encoding in message, message
            assert "iconv -f UTF-16" in message and "\n" not in message
    # a code page's own text that opens with the bytes of a mark (latin-1 'ÿþ') is still read
    assert list(decoded_lines(_write(tmp_path / "l.txt", b"\xff\xfeabc\tde\n"), encoding=encoding))[0][0] == 1


@pytest.mark.parametrize("codec, name", [("utf-32-le", "UTF-32LE"), ("utf-32-be", "UTF-32BE")])
@pytest.mark.parametrize("file_name, data", [("d.tsv", "d1\thello world\nd2\tsecond doc\n"),
                                             ("d.txt", "hello world\nsecond doc\n")])
def test_utf32_without_a_byte_order_mark_is_named_as_such(tmp_path, codec, name, file_name, data):
    # read as UTF-8, a one-document-a-line .txt became documents 'h\x00\x00\x00e\x00...' without a
    # word, and a .tsv 'line 3: no TAB separator; got '\x00\x00\x00''
    path = _write(tmp_path / file_name, data.encode(codec))
    for read in (lambda: read_documents(path), lambda: list(decoded_lines(path)), lambda: read_text(path),
                 lambda: list(decoded_lines(path, encoding="cp1254"))):
        with pytest.raises(DocumentFormatError, match=rf"{file_name}: the file looks like {name} text without a "
                                                      rf"byte-order mark.*iconv -f {name} -t UTF-8"):
            read()


def test_a_utf8_file_read_in_a_code_page_is_named(tmp_path):
    # encoding='cp1254' (--encoding cp1254) given for a file that is UTF-8 read every letter beyond
    # ASCII as two or three others ('ağaç' as 'aÄŸaÃ§') without a word
    data = "d1\tağaç şeker\nd2\tplain words\nd3\tçiçek\n"
    path = _write(tmp_path / "d.tsv", data.encode("utf-8"))
    for read in (lambda: read_documents(path, encoding="cp1254"), lambda: list(decoded_lines(path, encoding="cp1254")),
                 lambda: read_text(path, encoding="cp1254")):
        with pytest.warns(UserWarning, match=r"d\.tsv: every line with bytes beyond ASCII \(2\) is valid UTF-8 text.*"
                                             r"cp1254.*likely UTF-8"):
            read()
    # a code page's own text (not valid UTF-8) and an ASCII file are read without it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_documents(_write(tmp_path / "c.tsv", data.encode("cp1254")), encoding="cp1254").texts[0] == \
            "ağaç şeker"
        read_documents(_write(tmp_path / "a.tsv", b"d1\tplain\n"), encoding="cp1254")


@pytest.mark.parametrize("codec, bom", [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff")])
def test_a_utf16_file_whose_first_line_holds_no_ascii_is_refused_in_a_code_page(tmp_path, codec, bom):
    # the mark counted only with a NUL in the first line; a first line of Greek letters alone
    # (αβγ: B1 03 B2 03 ...) has none before its line end, and the file read as cp1253 text
    path = _write(tmp_path / "greek.txt", bom + "αβγ\nδέκα λέξεις\n".encode(codec))
    with pytest.raises(DocumentFormatError, match="UTF-16"):
        list(decoded_lines(path, encoding="cp1253"))
    # a code page's text opening with the bytes of a mark and then letters is read as before
    assert len(list(decoded_lines(_write(tmp_path / "l.txt", "ÿþáâã\ndef\n".encode("latin-1")), encoding="latin-1"))) == 2
