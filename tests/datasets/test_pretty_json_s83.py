"""A .jsonl written pretty-printed (json.dump(obj, indent=2), jq without -c): its first line '{'
was 'invalid JSON (Expecting property name enclosed in double quotes at column 2)', naming what
the line was not, not what the file is (as a JSON array's first line '[' already is)."""
from __future__ import annotations

import json

import pytest

from learnsim.datasets import read_documents
from learnsim.exceptions import DocumentFormatError


def test_a_pretty_printed_record_names_the_layout(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": "some words"}, indent=2) + "\n" for i in "ab"),
                    encoding="utf-8")
    with pytest.raises(DocumentFormatError, match=r"docs\.jsonl, line 1: invalid JSON .*written over several "
                                                  r"lines.*jq -c \. "):
        read_documents(path)


def test_another_broken_line_has_no_such_hint(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text('{"id": "a", "text": "x y"}\n{"id": "b" "text": "z"}\n', encoding="utf-8")
    with pytest.raises(DocumentFormatError) as caught:
        read_documents(path)
    assert "line 2" in str(caught.value) and "several lines" not in str(caught.value)
