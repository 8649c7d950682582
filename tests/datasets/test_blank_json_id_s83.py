"""A JSON record's "id" of spaces alone (" ", a tab): "" is refused (given, yet no id), but "  " was
kept as an id that prints as nothing in a hit, a run file or 'index delete --id', beside a TSV line
whose id field of spaces is no id at all. Now it is refused as the empty string is; an id with
spaces around a word (" a ") is still kept as written."""
from __future__ import annotations

import json

import pytest

from learnsim.datasets import read_documents, read_labelled_documents
from learnsim.exceptions import DocumentFormatError


@pytest.mark.parametrize("blank", [" ", "  ", "\t", "\u3000"])
def test_an_id_of_spaces_alone_is_refused(tmp_path, blank):
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"id": "a", "text": "one two", "label": "x"}) + "\n"
                    + json.dumps({"_id": blank, "text": "three four", "label": "x"}) + "\n", encoding="utf-8")
    for read in (read_documents, read_labelled_documents):
        with pytest.raises(DocumentFormatError, match=r"docs\.jsonl, line 2: \"_id\" is blank"):
            read(path)


def test_an_id_with_spaces_around_a_word_is_kept(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"id": " a ", "text": "one two"}) + "\n", encoding="utf-8")
    assert read_documents(path).ids == [" a "]
