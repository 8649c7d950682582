"""An index folder holding a file of another index in place of its own (a restore from the wrong
backup, two indexes' folders mixed up by hand): what it would answer must be refused, never a
silently different answer. The segments' files are covered by checksums the manifest records;
``docs.sqlite`` changes in place and carries none, so it is compared with the segments' copies of
the documents (their digests) at an open.
"""
from __future__ import annotations

import shutil

import pytest

from index_models import corpus, model

from learnsim.index import Index, IndexDamagedError


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    """Two indexes of the same documents (same ids, same texts, the same sizes of every file), the
    second built from them in the reverse order; and a third of the first order with another model."""
    texts, _, ids, meta = corpus()
    root = tmp_path_factory.mktemp("swapped")
    Index.build(root / "a", model("mcd"), texts, ids, meta).close()
    Index.build(root / "b", model("mcd"), texts[::-1], ids, meta[::-1]).close()
    Index.build(root / "c", model("linklearn"), texts, ids, meta).close()
    return root


def test_the_docs_database_of_another_index_is_refused_at_open(two, tmp_path):
    path = tmp_path / "a"
    shutil.copytree(two / "a", path)
    assert (path / "docs.sqlite").stat().st_size == (two / "b" / "docs.sqlite").stat().st_size
    shutil.copyfile(two / "b" / "docs.sqlite", path / "docs.sqlite")
    # before: it opened, its searches read the segments' copies, and document(), more_like and
    # every filter read the other index's texts and metadata under the same ids
    with pytest.raises(IndexDamagedError, match="docs.sqlite") as err:
        Index.open(path).close()
    assert "another index" in str(err.value)
    assert not Index.verify_at(path)["ok"]


def test_the_same_documents_from_an_index_of_another_model_are_the_same(two, tmp_path):
    # the check compares documents, not files: the database of an index of the same documents
    # written in the same order holds the same rows, and serves the same answers
    path = tmp_path / "a"
    shutil.copytree(two / "a", path)
    with Index.open(path) as index:
        want = index.document("d3"), [h["id"] for h in index.more_like("d3", k=5)]
    shutil.copyfile(two / "c" / "docs.sqlite", path / "docs.sqlite")
    with Index.open(path) as index:
        assert (index.document("d3"), [h["id"] for h in index.more_like("d3", k=5)]) == want
