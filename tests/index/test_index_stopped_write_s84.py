"""A write stopped between its SQLite commit and its segment (Ctrl-C in a notebook during
``Index.add``, any exception there, or another process killed there) leaves documents in
docs.sqlite that no segment holds yet. A fresh open scores them from their texts and the next
write stores them; a handle that was already open did not look: its next add wrote its own
segment past them and moved ``covered_seq`` over them, and the index no longer opened ("its
segments hold 41 live documents ... where docs.sqlite holds 42"), the acknowledged add in it
included. Open handles also never served them (a search missed what a fresh open finds). Now
a handle that sees rows past what it scores reloads, and the next write stores them."""
from __future__ import annotations

import warnings

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

from index_models import corpus, model

from learnsim.index import Index

# words of the build's vocabulary, so that a search finds them before any reindex
STOPPED, AFTER = "w101 w102 w103 w104 w105 w106", "w201 w202 w203 w204 w205 w206"


@pytest.fixture
def path(tmp_path):
    texts, _, ids, meta = corpus()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Index.build(tmp_path / "idx", model("linklearn"), texts[:30], ids[:30], meta[:30]).close()
    return tmp_path / "idx"


def _stopped_add(idx, monkeypatch, doc_id, text):
    """``idx.add`` stopped by a KeyboardInterrupt once its documents are committed to SQLite."""
    def interrupted(seqs, rows):
        raise KeyboardInterrupt
    monkeypatch.setattr(idx, "_write_rows", interrupted)
    with pytest.raises(KeyboardInterrupt):
        idx.add([text], ids=[doc_id])
    monkeypatch.undo()


def _ids(idx, query, k=5):
    return [h["id"] for h in idx.search(query, k=k)]


def _stored(path):
    with Index.open(path) as idx:
        return len(idx), _ids(idx, STOPPED + " " + AFTER, k=10)


def test_the_next_add_of_the_stopped_handle_stores_both_and_the_index_opens(path, monkeypatch):
    idx = Index.open(path)
    _stopped_add(idx, monkeypatch, "stopped", STOPPED)
    # the stopped handle serves what it committed before any write, as a fresh open does
    assert _ids(idx, STOPPED, k=1) == ["stopped"] and len(idx) == 31
    idx.add([AFTER], ids=["after"])
    # the handle serves both, as a fresh open does
    assert len(idx) == 32 and set(_ids(idx, STOPPED + " " + AFTER)[:2]) == {"stopped", "after"}
    idx.close()
    assert Index.verify_at(path)["ok"]
    n, hits = _stored(path)
    assert n == 32 and set(hits[:2]) == {"stopped", "after"}


def test_a_handle_open_before_another_stopped_writer_writes_safely_after_it(path, monkeypatch):
    # the other writer may as well be another process killed there: what it leaves is the same
    reader, stopped = Index.open(path), Index.open(path)
    reader.search("w001", k=1)
    _stopped_add(stopped, monkeypatch, "stopped", STOPPED)
    stopped.close()
    # an open handle serves what a fresh open would, before any write
    assert _ids(reader, STOPPED, k=1) == ["stopped"] and len(reader) == 31
    reader.add([AFTER], ids=["after"])
    reader.close()
    assert Index.verify_at(path)["ok"]
    n, hits = _stored(path)
    assert n == 32 and set(hits[:2]) == {"stopped", "after"}


@pytest.mark.parametrize("write", ["upsert", "update", "compact", "reindex"])
def test_every_write_after_a_stopped_add_leaves_an_index_that_opens(path, monkeypatch, write):
    idx = Index.open(path)
    _stopped_add(idx, monkeypatch, "stopped", STOPPED)
    if write == "upsert":
        idx.upsert([AFTER], ids=["after"])
    elif write == "update":
        idx.update(["d1"], [AFTER])
    else:
        getattr(idx, write)()
    idx.close()
    assert Index.verify_at(path)["ok"]
    with Index.open(path) as again:
        assert again.document("stopped")[0] == STOPPED
        assert _ids(again, STOPPED, k=1) == ["stopped"]


def test_a_handle_whose_reload_after_a_reindex_was_stopped_reads_and_writes_again(path, monkeypatch):
    # a reindex closes the handle's connection, writes, then loads what it wrote: stopped in that
    # load (Ctrl-C in the seconds a large index takes, any exception there), the handle kept the
    # closed connection, and every later write was "docs.sqlite is damaged: SQLite cannot use it
    # (Cannot operate on a closed database.)" (the service's writer: 503 index_damaged) though
    # nothing was; its next read or write now loads again
    idx = Index.open(path)
    load, calls = idx._load, []

    def stopped(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return load(*args, **kwargs)

    monkeypatch.setattr(idx, "_load", stopped)
    with pytest.raises(KeyboardInterrupt):
        idx.reindex()
    monkeypatch.undo()
    assert Index.verify_at(path)["ok"]
    # a read first (a notebook's next cell), then a write
    with Index.open(path) as fresh:
        assert _ids(idx, STOPPED, k=100) == _ids(fresh, STOPPED, k=100)
    idx.add([AFTER], ids=["after"])
    assert len(idx) == 31 and _ids(idx, AFTER, k=1) == ["after"]
    idx.reindex()
    idx.close()
    with Index.open(path) as again:
        assert len(again) == 31 and _ids(again, AFTER, k=1) == ["after"]


@pytest.mark.parametrize("write", ["add", "compact", "upsert"])
def test_a_write_stopped_after_its_manifest_is_served_by_its_handle(path, monkeypatch, write):
    # stopped after its manifest was written, before the handle loaded it: the handle's manifest
    # (changed in place) was the file's, so it never loaded again: it missed the add, and after a
    # compact it read the segments the compact had removed ("a segment lists document 31, which
    # docs.sqlite does not hold (edited or damaged)")
    idx = Index.open(path)
    idx.add([STOPPED], ids=["stopped"])
    idx.delete(["d0", "stopped"])

    def interrupted():
        raise KeyboardInterrupt
    monkeypatch.setattr(idx, "_load_after_write", interrupted)
    with pytest.raises(KeyboardInterrupt):
        if write == "compact":
            idx.compact()
        else:
            getattr(idx, write)([AFTER], ids=["after"])
    monkeypatch.undo()
    expected = 29 if write == "compact" else 30
    with Index.open(path) as fresh:
        assert len(fresh) == expected
        assert _ids(idx, AFTER, k=10) == _ids(fresh, AFTER, k=10)
    assert len(idx) == expected
    idx.add(["w301 w302 w303"], ids=["later"])
    idx.compact()
    idx.close()
    assert Index.verify_at(path)["ok"]
    with Index.open(path) as again:
        assert len(again) == expected + 1
