"""A file of compressed or binary data under a text file's name, given where documents are read
(a BEIR corpus.jsonl.gz saved as corpus.jsonl, a .zip or a NumPy array renamed): read as text, its
bytes were a note of undecodable lines and an error about the first line's layout ('invalid JSON',
'no TAB separator'), two lines naming no gzip. Now one error names what the file is."""
from __future__ import annotations

import gzip
import io
import json
import zipfile

import numpy as np
import pytest

from learnsim.datasets import read_documents, read_labelled_documents
from learnsim.exceptions import DocumentFormatError

from conftest import run_cli

RECORDS = "".join(json.dumps({"_id": f"d{i}", "title": "t", "text": f"words number {i}"}) + "\n" for i in range(4))


def _npy():
    buffer = io.BytesIO()
    np.save(buffer, np.arange(10))
    return buffer.getvalue()


def _zip():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("corpus.jsonl", RECORDS)
    return buffer.getvalue()


@pytest.mark.parametrize("name", ["corpus.jsonl", "docs.tsv", "docs.csv", "docs.txt"])
def test_gzip_data_named_without_gz_is_named_gzip(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(gzip.compress(RECORDS.encode()))
    for read in (read_documents, read_labelled_documents):
        with pytest.raises(DocumentFormatError, match=rf"{name}: not text but gzip-compressed data.*\.gz") as caught:
            read(path)
        assert "U+FFFD" not in str(caught.value)


def test_gzip_inside_gzip_is_named(tmp_path):
    path = tmp_path / "corpus.jsonl.gz"
    path.write_bytes(gzip.compress(gzip.compress(RECORDS.encode())))
    with pytest.raises(DocumentFormatError, match=r"corpus\.jsonl\.gz: decompressed, still gzip-compressed data.*gunzip > corpus-text\.jsonl"):
        read_documents(path)


@pytest.mark.parametrize("data, kind", [(_zip, "zip"), (_npy, "NumPy .npy")])
def test_a_container_under_a_text_name_is_named(tmp_path, data, kind):
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(data())
    with pytest.raises(DocumentFormatError, match=rf"corpus\.jsonl: not text but a {kind}"):
        read_documents(path)


def test_text_that_starts_like_a_container_is_read(tmp_path):
    """Only the bytes of the format count: an id 'PAR1' or 'ARROW1' in a text file is text."""
    path = tmp_path / "docs.tsv"
    path.write_text("PAR1\tsome words\nARROW1\tmore words\n", encoding="utf-8")
    assert read_documents(path).ids == ["PAR1", "ARROW1"]


def test_the_command_line_says_it_in_one_line(tmp_path):
    from learnsim._baseline_models import baseline_pipeline

    baseline_pipeline("cosine", ["words number one", "other words two"]).save(tmp_path / "m.npz")
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(gzip.compress(RECORDS.encode()))
    code, out, err = run_cli(["index", "build", "--model", tmp_path / "m.npz", "--corpus", corpus,
                              "--out", tmp_path / "idx"])
    assert code == 2 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "not text but gzip-compressed data" in lines[0] and "corpus.jsonl.gz" in lines[0], err
    assert not (tmp_path / "idx").exists()
