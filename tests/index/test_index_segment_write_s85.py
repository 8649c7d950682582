"""A build writes each segment's document store (docs.bin) from the texts it holds, a piece at a
time (learnsim.index._docs_writer), with the bytes, offsets and digests the old path wrote
(DocumentStore.segment_docs: SQLite's rows read back and joined whole); a held text that does
not match the digest SQLite recorded is refused; the write holds no copy of a long text."""
import tracemalloc

import numpy as np
import pytest

from learnsim.exceptions import IndexDamagedError
from learnsim.index import _row_pieces


@pytest.fixture(scope="module")
def pipe():
    from learnsim import fit

    rng = np.random.default_rng(0)
    words = ["w%d" % i for i in range(300)]
    labels = [i % 5 for i in range(100)]
    texts = [" ".join(rng.choice(words, 20)) + f" topic{lab} kind{lab}" for lab in labels]
    return fit(texts, clusters=labels), texts


def _long_text(n_words, seed=1):
    rng = np.random.default_rng(seed)
    words = np.array(["w%d" % i for i in range(300)] + ["\u201cnaïve\u201d", "東京", "\"q\"", "back\\slash", "😀"])
    return " ".join(rng.choice(words, n_words)) + " \u2019end\u2019"


def _store_files(folder):
    seg = sorted((folder / "segments").iterdir())
    return {p.relative_to(folder).as_posix(): p.read_bytes() for s in seg
            for p in sorted(s.iterdir()) if p.name.startswith("docs")}


def _build(path, pipe, docs):
    from learnsim.index import Index

    ids = [f"d{i}" for i in range(len(docs))]
    metas = [None if i % 2 else {"k": f"v \u201c{i}\u201d"} for i in range(len(docs))]
    return Index.build(path, pipe, docs, ids=ids, metadata=metas)


def test_store_files_are_the_old_paths(tmp_path, monkeypatch, pipe):
    """docs.bin, docs_offsets.npy and docs_digest.npy the same whether the long text is written
    in small pieces or whole, and docs.bin the bytes segment_docs (the old path) gives."""
    from learnsim.index._store import DocumentStore

    model, texts = pipe
    docs = texts[:40] + [_long_text(30_000)] + texts[40:50]
    whole = _build(tmp_path / "whole", model, docs)
    whole.close()
    monkeypatch.setattr(_row_pieces, "CHUNK", 997)
    pieces = _build(tmp_path / "pieces", model, docs)
    try:
        assert pieces.verify()["ok"]
        hit = pieces.search(docs[40][:3000], k=1)[0]
        assert hit["id"] == "d40" and hit["text"] == docs[40]
    finally:
        pieces.close()
    a, b = _store_files(tmp_path / "whole"), _store_files(tmp_path / "pieces")
    assert a and sorted(a) == sorted(b)
    assert all(a[k] == b[k] for k in a)
    store = DocumentStore(tmp_path / "pieces" / "docs.sqlite", readonly=True)
    try:
        blob, offsets, digests = store.segment_docs(np.arange(1, len(docs) + 1))
    finally:
        store.close()
    (name,) = [k for k in a if k.endswith("docs.bin")]
    assert bytes(blob) == a[name]
    folder = tmp_path / "pieces" / name.rsplit("/", 1)[0]
    assert np.array_equal(np.load(folder / "docs_offsets.npy"), offsets)
    assert np.array_equal(np.load(folder / "docs_digest.npy"), digests)


def test_a_held_text_not_the_recorded_one_is_refused(tmp_path, pipe):
    from learnsim.index._docs_writer import RowsFromTexts
    from learnsim.index._store import DocumentStore

    model, texts = pipe
    _build(tmp_path / "ix", model, texts[:5]).close()
    store = DocumentStore(tmp_path / "ix" / "docs.sqlite", readonly=True)
    try:
        held = list(texts[:5])
        with open(tmp_path / "ok.bin", "wb") as fh:
            size, offsets, digests = RowsFromTexts(store, [1, 2, 3, 4, 5], held).write(fh)
        blob, offsets_old, digests_old = store.segment_docs([1, 2, 3, 4, 5])
        assert (tmp_path / "ok.bin").read_bytes() == bytes(blob) and size == len(blob)
        assert np.array_equal(offsets, offsets_old) and np.array_equal(digests, digests_old)
        held[3] = held[3] + " changed"
        with open(tmp_path / "bad.bin", "wb") as fh, pytest.raises(IndexDamagedError, match="sequence number 4"):
            RowsFromTexts(store, [1, 2, 3, 4, 5], held).write(fh)
        with pytest.raises(ValueError, match="4 texts for a segment of 5"):
            RowsFromTexts(store, [1, 2, 3, 4, 5], held[:4])
    finally:
        store.close()


def test_the_segment_write_holds_no_copy_of_a_long_text(tmp_path, monkeypatch, pipe):
    """Measured from the row's zero-rows check (just before the segment write) to its end: the
    old path read the text back from SQLite (2 bytes a character, curly quotes) and joined the
    row's UTF-8 (some 5 bytes a character in all: 7 MB here); now some pieces of CHUNK characters
    and the 1 MiB reads that hash the files written (2 MB, whatever the text's size)."""
    from learnsim.index import core

    model, texts = pipe
    long_text = _long_text(300_000)          # some 1.4 million characters, not Latin-1
    monkeypatch.setattr(_row_pieces, "CHUNK", 1 << 14)
    seen = {}
    zero_rows, write_segment_of = core.zero_rows, core.write_segment_of

    def zero_rows_then_reset(rows):
        out = zero_rows(rows)
        tracemalloc.reset_peak()
        seen["before"] = tracemalloc.get_traced_memory()[0]
        return out

    def write_measured(*args, **kwargs):
        out = write_segment_of(*args, **kwargs)
        seen["extra"] = tracemalloc.get_traced_memory()[1] - seen["before"]
        return out

    monkeypatch.setattr(core, "zero_rows", zero_rows_then_reset)
    monkeypatch.setattr(core, "write_segment_of", write_measured)
    tracemalloc.start()
    try:
        _build(tmp_path / "ix", model, texts[:5] + [long_text]).close()
    finally:
        tracemalloc.stop()
    assert "extra" in seen
    assert seen["extra"] < (2 << 20) + len(long_text) // 2, (seen["extra"], len(long_text))


def test_an_adds_copy_is_read_back_a_row_at_a_time(tmp_path, monkeypatch, pipe):
    """An add's segment (not small) writes its copy from SQLite's rows one at a time, a long one
    in pieces: the bytes segment_docs gives; a row changed in SQLite is refused, not copied."""
    import sqlite3

    from learnsim.index import Index, core
    from learnsim.index._docs_writer import RowsFromTexts
    from learnsim.index._store import DocumentStore

    model, texts = pipe
    monkeypatch.setattr(core, "SMALL_SEGMENT_ROWS", 2)
    monkeypatch.setattr(_row_pieces, "CHUNK", 1009)
    _build(tmp_path / "ix", model, texts[:5]).close()
    idx = Index.open(tmp_path / "ix")
    try:
        long_text = _long_text(20_000, seed=2)
        idx.add([long_text, texts[6]], ids=["long", "short"], metadata=[{"k": "\u201cv\u201d"}, None])
        hit = idx.search(long_text[:2000], k=1)[0]
        assert hit["id"] == "long" and hit["text"] == long_text
    finally:
        idx.close()
    (added,) = [s for s in (tmp_path / "ix" / "segments").iterdir() if s.name.startswith("a")]
    store = DocumentStore(tmp_path / "ix" / "docs.sqlite", readonly=True)
    try:
        blob, offsets, digests = store.segment_docs([6, 7])
    finally:
        store.close()
    assert (added / "docs.bin").read_bytes() == bytes(blob)
    assert np.array_equal(np.load(added / "docs_offsets.npy"), offsets)
    assert np.array_equal(np.load(added / "docs_digest.npy"), digests)
    with sqlite3.connect(tmp_path / "ix" / "docs.sqlite") as conn:
        conn.execute("UPDATE docs SET text = text || ' changed' WHERE seq = 6")
    conn.close()
    store = DocumentStore(tmp_path / "ix" / "docs.sqlite", readonly=True)
    try:
        with open(tmp_path / "bad.bin", "wb") as fh, pytest.raises(IndexDamagedError, match="sequence number 6"):
            RowsFromTexts(store, [6, 7]).write(fh)
    finally:
        store.close()
