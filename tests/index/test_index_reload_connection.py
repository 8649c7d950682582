"""A handle that reloads after another handle's add keeps its SQLite connection (a new one for
every reload, in every handle serving the index, cost a connection, its schema statements and a
cold page cache after every write), and takes a new one where docs.sqlite is another file: an
index rebuilt in its place, whose answers it then gives."""
from __future__ import annotations

import warnings

import pytest

from index_models import corpus, model

from learnsim.index import Index
from learnsim.index._segments import IndexDamagedError, IndexFormatError


@pytest.fixture
def two_handles(tmp_path):
    texts, _, ids, meta = corpus()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Index.build(tmp_path / "idx", model("film"), texts[:60], ids[:60], meta[:60]).close()
    reader, writer = Index.open(tmp_path / "idx"), Index.open(tmp_path / "idx")
    yield reader, writer
    reader.close()
    writer.close()


def _add(writer, i):
    texts, _, ids, meta = corpus()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        writer.add([texts[i]], [f"new{i}"], [meta[i]])
    return texts[i]


def test_a_reload_after_adds_keeps_the_connection_and_sees_every_document(two_handles):
    reader, writer = two_handles
    store, writer_store = reader.store, writer.store
    # enough adds for the small segments they leave to be merged (MERGE_AT) on the way: this
    # index's segments are all small, so that merge rewrites every one, and the reload after it
    # checks everything again, on a new connection (as an open does); every other reload keeps it
    new = []
    for i in range(60, 72):
        text = _add(writer, i)
        hits = reader.search(text, k=1)
        assert hits[0]["id"] == f"new{i}"
        if reader.store is not store:
            new.append(len(reader.manifest["segments"]))
            store = reader.store
    assert new == [1]
    # the writer's own loads after its writes read on its connection too (its manifest is the one it wrote)
    assert writer.store is writer_store
    assert len(reader) == len(writer) == 72
    assert reader.verify()["ok"]


def test_an_index_rebuilt_in_place_is_read_on_a_new_connection(two_handles, tmp_path):
    reader, _ = two_handles
    texts, _, ids, meta = corpus()
    store = reader.store
    reader.search(texts[0], k=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Index.build(tmp_path / "idx", model("film"), texts[60:], ids[60:], meta[60:], overwrite=True).close()
    hits = reader.search(texts[70], k=1)
    assert reader.store is not store
    assert hits[0]["id"] == ids[70] and len(reader) == len(texts) - 60
    assert reader.document(ids[70])[0] == texts[70]
    with pytest.raises(KeyError):
        reader.document(ids[0])


def test_a_failed_reload_leaves_the_handle_and_its_connection_as_they_were(two_handles):
    reader, writer = two_handles
    texts = corpus()[0]
    reader.search(texts[3], k=5)
    store = reader.store
    _add(writer, 61)
    newest = writer.manifest["segments"][-1]["name"]
    # the new segment damaged before the reader sees it: its reload fails, and says so
    seg = writer.path / "segments" / newest
    for f in seg.iterdir():
        if f.suffix == ".npy":
            f.write_bytes(f.read_bytes()[:-8])
    with pytest.raises((IndexDamagedError, IndexFormatError)):
        reader.search(texts[3], k=5)
    assert reader.store is store and store.conn.execute("SELECT COUNT(*) FROM docs").fetchone()[0] == 61
    # the state it had loaded; len(), as count(), looks for the other handle's write again: the damage
    assert reader._n_live() == 60
    with pytest.raises((IndexDamagedError, IndexFormatError)):
        len(reader)


class _Seg:
    def __init__(self, seqs):
        self.seqs = seqs


def test_the_order_check_of_a_reload_compares_what_is_new_and_its_seam():
    """ordered_seqs: segments a load found in order (the same objects) are not compared again;
    the new ones are, and so is the seam between them, so an added segment that overlaps the last
    one, or is out of order itself, is still refused (Index._load raises IndexFormatError)."""
    import numpy as np

    from learnsim.index._reload import ordered_seqs

    first, second = _Seg([1, 2, 3]), _Seg([5, 8])
    seqs, ok = ordered_seqs([first, second])
    assert ok and seqs.tolist() == [1, 2, 3, 5, 8]
    assert ordered_seqs([first, second, _Seg([9, 10])], [first, second])[1]
    assert not ordered_seqs([first, second, _Seg([8, 10])], [first, second])[1]     # the seam
    assert not ordered_seqs([first, second, _Seg([9, 12, 11])], [first, second])[1]
    # a segment checked before but no longer the same object is compared again
    assert not ordered_seqs([first, _Seg([3, 4])], [first, second])[1]
    assert ordered_seqs([], [first])[1] and ordered_seqs([_Seg(np.array([4]))], [first])[1]


def test_a_closed_connection_is_never_kept(two_handles):
    """A write that closes the handle's connection before its load (a promotion, a reindex: they
    replace files under it) gets a new one from that load, even where the load only adds (a
    promotion that failed before its manifest reloads the very manifest it had)."""
    from learnsim.index._reload import kept_store

    reader, _ = two_handles
    store = reader.store
    assert kept_store(store, 0) is store
    store.close()
    assert kept_store(store, 0) is None
    reader._load()
    assert reader.store is not store and reader.search(corpus()[0][3], k=1)
