"""An index folder holding a file of another index in place of its own (a restore from the wrong
backup, two indexes' folders mixed up by hand): what it would answer must be refused, never a
silently different answer. The segments' files are covered by checksums the manifest records;
``docs.sqlite`` changes in place and carries none, so it is compared with the segments' copies of
the documents (their digests) at an open.
"""
from __future__ import annotations

import os
import shutil
import threading

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


# --------------------------------------------------------------------------- not a file at all
def _unblock(fifo):
    """Open ``fifo`` for writing and close it: a reader blocked in its open (or its read) goes on,
    seeing an empty file."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:         # no reader holds it (ENXIO)
        pass


def _without_hanging(call, fifo, seconds=30):
    """``call()``'s result or exception; a call still blocked on ``fifo`` after ``seconds`` is
    released (so the test ends) and the test fails."""
    out = {}

    def run():
        try:
            out["value"] = call()
        except BaseException as exc:       # noqa: BLE001 - the test looks at it
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    hung = thread.is_alive()
    while thread.is_alive():
        _unblock(fifo)
        thread.join(0.2)
    assert not hung, f"waited on the named pipe {fifo.name} for a writer"
    return out


def _open_and_search(path):
    with Index.open(path) as index:
        return index.search("w001 w002 w003", k=3)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
@pytest.mark.parametrize("name", ["segments/*/seqs.npy", "segments/*/dense.npy", "query-*/plan.json",
                                  "model.npz", "versions/versions.json"])
def test_a_named_pipe_in_place_of_a_file_is_damage_not_a_wait(two, tmp_path, name):
    # before: the open, the first search or verify waited for ever for a writer to the pipe (a
    # server's start, or its search, hung); a symbolic link to /dev/zero read until memory ran out
    path = tmp_path / "a"
    shutil.copytree(two / "a", path)
    file, = path.glob(name)
    file.unlink()
    os.mkfifo(file)
    if name.endswith(".npy") or name.endswith(".json") and "versions" not in name:
        got = _without_hanging(lambda: _open_and_search(path), file)
        assert isinstance(got.get("error"), IndexDamagedError), got
        assert file.name in str(got["error"]) and "not a regular file" in str(got["error"])
    got = _without_hanging(lambda: Index.verify_at(path), file)
    assert "error" not in got, got
    assert not got["value"]["ok"]
    assert any(d["file"].endswith(file.name) and "not a regular file" in d["problem"]
               for d in got["value"]["damaged"]), got["value"]["damaged"]
