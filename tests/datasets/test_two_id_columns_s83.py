"""A table naming two id columns (BEIR's "_id" kept beside an "id" by df.to_csv): a JSON record whose
"id" and "_id" differ is refused (learnsim reads "id", BEIR's loader "_id"); a .csv read "id" and
kept "_id" as metadata without a word, and a .tsv under id<TAB>_id<TAB>text read its header as a
document 'id' (text '_id<TAB>text') and each line's second id as part of its text."""
from __future__ import annotations

import pytest

from learnsim.datasets import read_documents
from learnsim.exceptions import DocumentFormatError


def test_a_csv_row_whose_two_ids_differ_is_refused(tmp_path):
    path = tmp_path / "docs.csv"
    path.write_text("_id,id,text\n1,1,some words\n3,4,more words\n", encoding="utf-8")
    with pytest.raises(DocumentFormatError, match=r"docs\.csv, line 3: the record has two ids, \"id\" '4' and "
                                                  r"\"_id\" '3'"):
        read_documents(path)
    # the same id in both (or no "_id" in a row) is one id, as in a JSON record
    path.write_text("_id,id,text\n1,1,some words\n,4,more words\n", encoding="utf-8")
    assert read_documents(path).ids == ["1", "4"]


def test_a_tsv_header_naming_two_id_columns_is_refused(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_text("id\t_id\ttext\n1\t2\tsome words\n3\t4\tmore words\n", encoding="utf-8")
    with pytest.raises(DocumentFormatError, match=r"docs\.tsv, line 1: its first line names two id columns \(id, "
                                                  r"_id\)"):
        read_documents(path)
