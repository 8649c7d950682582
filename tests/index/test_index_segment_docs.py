"""Each segment holds its documents (learnsim.index._segment_docs, issue 46): a search reads its
hits from there (a read and a digest each, no SQLite), the same id, text and metadata as
``docs.sqlite`` holds, through every write (add, upsert, update, delete, the merge of small
segments, compact, reindex); damage to the store is refused when a hit is read and reported by
``verify``; segments written before it are read from SQLite as before.
"""
from __future__ import annotations

import json
import os
import sqlite3

import numpy as np
import pytest

from conftest import run_cli
from index_edit import built_before_segment_docs, copy, pristine, reseal  # noqa: F401  (fixtures)

from learnsim.index import Index, IndexDamagedError, IndexFormatError

QUERY = "w001 w002 w003 w120 w240"


@pytest.fixture(autouse=True)
def _not_searching_often(monkeypatch):
    # a process that searches often reads a collection this small into its cache whole, from
    # SQLite (DocumentCache.preload): these tests read the hits from the segments
    import learnsim.index._kernels as K

    monkeypatch.setattr(K, "_searches", [0])


def _stores(path):
    return sorted(p.parent.name for p in path.glob("segments/*/docs.bin"))


def _same_as_sqlite(index, hits):
    assert hits
    for h in hits:
        assert (h["text"], h["metadata"]) == index.document(h["id"])


def _all_hits(index, queries, k=20):
    out = []
    for hits in index.search(queries, k=k):
        out.extend(hits)
    return out


def test_a_new_index_holds_its_documents_in_its_segments_and_serves_them(pristine):
    for family in ("linklearn", "mcd"):
        path = pristine[family]
        with Index.open(path) as index:
            assert len(_stores(path)) == len(index.segments)
            assert all(seg.docs is not None for seg in index.segments)
            _same_as_sqlite(index, index.search(QUERY, k=10))
            _same_as_sqlite(index, _all_hits(index, [QUERY, "w300 w301", "w010 w011 w012"]))
        assert Index.verify_at(path)["ok"]


def test_every_write_keeps_the_segments_documents_equal_to_sqlite(copy):
    path = copy("linklearn")
    with Index.open(path) as index:
        index.add(["w001 w002 fresh text ünïcödé 日本語の文 \"quoted\" back\\slash \t tab"], ids=["new1"],
                  metadata=[{"nested": {"a": [1, 2.5, None, True]}, "s": "é"}])
        for i in range(9):               # small adds: the tail of small segments is merged
            index.add([f"w00{i} w120 small add {i}"], ids=[f"s{i}"])
        index.upsert(["w001 w002 w003 upserted"], ids=["d5"], metadata=[{"topic": 1}])
        index.update(["d6"], ["w240 w001 updated text"])
        index.delete(["d7", "s3"])
        queries = [QUERY, "w001 w002 fresh", "small add", "upserted", "updated text"]
        hits = _all_hits(index, queries)
        _same_as_sqlite(index, hits)
        ids = {h["id"] for h in hits}
        assert {"new1", "d5", "d6"} <= ids and not {"d7", "s3"} & ids
        new1 = [h for h in hits if h["id"] == "new1"][0]
        assert new1["metadata"] == {"nested": {"a": [1, 2.5, None, True]}, "s": "é"}
        assert "日本語の文" in new1["text"] and '"quoted"' in new1["text"]
        assert [h["text"] for h in hits if h["id"] == "d5"][0] == "w001 w002 w003 upserted"
        # the adds' small segments, and their merge with the small built one, hold no copy (their
        # hits are read from SQLite: see test_only_segments_that_are_not_small_hold_their_documents)
        assert all(seg.docs is None for seg in index.segments if seg.name.startswith(("a", "m")))
        assert Index.verify_at(path)["ok"]
        index.compact()
        assert len(index.segments) == 1 and index.segments[0].docs is not None
        _same_as_sqlite(index, _all_hits(index, queries))
        index.reindex()
        _same_as_sqlite(index, _all_hits(index, queries))
        assert len(_stores(path)) == len(index.segments)
    assert Index.verify_at(path)["ok"]


def test_a_search_gives_the_same_hits_with_and_without_the_documents_store(copy, monkeypatch):
    path = copy("linklearn")
    queries = [QUERY, "w300 w301", "w010 w011 w012", "w100"]
    with Index.open(path) as index:
        with_store = index.search(queries, k=10, filter={"half": "even"})
        one = [index.search(q, k=10) for q in queries]
        monkeypatch.setattr(index, "_docs_layout", None)          # every hit from SQLite
        assert index.search(queries, k=10, filter={"half": "even"}) == with_store
        assert [index.search(q, k=10) for q in queries] == one


def test_a_small_collection_read_whole_into_the_cache_gives_the_same_hits(copy, monkeypatch):
    import learnsim.index._kernels as K

    path = copy("linklearn")
    queries = [QUERY, "w300 w301", "w010 w011 w012"]
    with Index.open(path) as index:
        from_segments = index.search(queries, k=10)
        assert not index._document_cache.preloaded
    monkeypatch.setattr(K, "_searches", [K.WARM_SEARCHES])
    with Index.open(path) as index:
        assert index.search(queries, k=10) == from_segments
        assert index._document_cache.holds_all


def test_segments_written_before_the_store_are_read_from_sqlite_beside_new_ones(tmp_path, monkeypatch):
    path = built_before_segment_docs(tmp_path, monkeypatch)
    with Index.open(path) as index:
        old = index.search(QUERY, k=10)
        _same_as_sqlite(index, old)
        index.add(["w001 w002 w003 w120 w240 added after"], ids=["late"])
        hits = index.search(QUERY, k=10)
        assert hits[0]["id"] == "late"
        _same_as_sqlite(index, hits)
        index.compact()                          # the compaction writes the copy
        assert [seg.docs is not None for seg in index.segments] == [True]
        assert index.search(QUERY, k=10) == hits
    assert Index.verify_at(path)["ok"]


def test_only_segments_that_are_not_small_hold_their_documents(copy, monkeypatch):
    # an add of fewer than SMALL_SEGMENT_ROWS documents writes no copy (a write of a few documents
    # stays as fast as before), a larger one does, and so does the merge that makes a large
    # segment of small ones, from SQLite for those without a copy
    import learnsim.index.core as core

    monkeypatch.setattr(core, "SMALL_SEGMENT_ROWS", 5)
    path = copy("linklearn")
    with Index.open(path) as index:
        index.add([f"w00{i} w120 a batch {i}" for i in range(6)], ids=[f"b{i}" for i in range(6)])
        index.add(["w001 w120 one more"], ids=["one"])
        assert [seg.n for seg in index.segments] == [120, 6, 1]
        assert [seg.docs is not None for seg in index.segments] == [True, True, False]
        _same_as_sqlite(index, _all_hits(index, [QUERY, "a batch", "one more"]))
        for i in range(7):                                  # eight small ones: merged into one of 8
            index.add([f"w01{i} w240 small {i}"], ids=[f"s{i}"])
        assert [seg.n for seg in index.segments][-1] == 8 and index.segments[-1].docs is not None
        _same_as_sqlite(index, _all_hits(index, [QUERY, "a batch", "one more", "small"]))
    assert Index.verify_at(path)["ok"]


def _segment_of(path, index, doc_id):
    """(segment directory, row) of a live document."""
    seq = index.store.live_seq_of(doc_id)
    for seg in index.segments:
        rows = np.flatnonzero(np.asarray(seg.seqs) == seq)
        if rows.size:
            return seg.path, int(rows[0])
    raise AssertionError(doc_id)


def test_a_damaged_row_of_the_store_is_refused_when_found_and_verify_reports_it(copy):
    path = copy("linklearn")
    with Index.open(path) as index:
        seg, row = _segment_of(path, index, "d5")
        text = index.document("d5")[0]
    offsets = np.load(seg / "docs_offsets.npy")
    raw = bytearray((seg / "docs.bin").read_bytes())
    at = int(offsets[row]) + raw[offsets[row]:offsets[row + 1]].index(b"w")
    raw[at:at + 1] = b"x"                                # one byte of d5's text, the size kept
    (seg / "docs.bin").write_bytes(bytes(raw))
    with Index.open(path) as index:
        with pytest.raises(IndexDamagedError, match=r"docs\.bin is damaged: the row of the document with sequence "
                                                    r"number \d+ does not match the checksum"):
            index.search(text, k=3)                     # d5 is a hit
        assert index.search("w300 w301", k=1)           # another row is read as before
    report = Index.verify_at(path)
    assert [d["file"] for d in report["damaged"]] == [str(seg / "docs.bin")]
    code, out, err = run_cli(["search", "--index", path, "--query", text, "-k", "3"])
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1 and "docs.bin" in err


def test_a_truncated_store_is_refused_at_open(copy):
    path = copy("linklearn")
    seg = next(path.glob("segments/*/docs.bin"))
    with open(seg, "r+b") as fh:
        fh.truncate(os.path.getsize(seg) // 2)
    with pytest.raises(IndexDamagedError, match=r"docs\.bin is damaged: it holds \d+ bytes where segment\.json "
                                                r"records \d+"):
        Index.open(path)
    code, out, err = run_cli(["search", "--index", path, "--query", QUERY])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "docs.bin" in err


def test_a_store_truncated_under_an_open_handle_is_damage_not_a_crash(copy):
    path = copy("linklearn")
    with Index.open(path) as index:
        index.search("w300 w301", k=1)                  # the store open, its descriptor held
        seg = index.segments[0].path / "docs.bin"
        with open(seg, "r+b") as fh:
            fh.truncate(10)
        with pytest.raises(IndexDamagedError, match=r"docs\.bin is damaged"):
            index.search(QUERY, k=10)


def test_offsets_that_do_not_cut_the_store_into_rows_are_refused(copy):
    path = copy("linklearn")
    seg = next(path.glob("segments/*/docs.bin")).parent
    offsets = np.load(seg / "docs_offsets.npy")
    offsets[3], offsets[4] = offsets[4], offsets[3]
    np.save(seg / "docs_offsets.npy", offsets)
    reseal(path)
    with Index.open(path) as index:
        with pytest.raises(IndexDamagedError, match="docs_offsets.npy is damaged: its offsets do not cut docs.bin"):
            index.search(QUERY, k=10)
    report = Index.verify_at(path)
    assert [d["file"] for d in report["damaged"]] == [str(seg / "docs_offsets.npy")]


def test_a_store_that_differs_from_sqlite_is_reported_by_verify(copy):
    import hashlib

    path = copy("linklearn")
    seg = next(path.glob("segments/*/docs.bin")).parent
    offsets, digests = np.load(seg / "docs_offsets.npy"), np.load(seg / "docs_digest.npy")
    raw = bytearray((seg / "docs.bin").read_bytes())
    # a row of the copy whose own digest still matches it (recomputed), but not docs.sqlite's
    at = int(offsets[2]) + raw[offsets[2]:offsets[3]].index(b"w")
    raw[at:at + 1] = b"x"
    digests[2] = np.frombuffer(hashlib.blake2b(bytes(raw[offsets[2]:offsets[3]]), digest_size=16).digest(), np.uint8)
    (seg / "docs.bin").write_bytes(bytes(raw))
    np.save(seg / "docs_digest.npy", digests)
    reseal(path)
    report = Index.verify_at(path)
    assert [d["file"] for d in report["damaged"]] == [str(seg / "docs.bin")]
    assert "1 of its documents differ from those docs.sqlite records" in report["damaged"][0]["problem"]


def test_a_row_that_does_not_match_its_digest_is_reported_by_verify(copy):
    path = copy("linklearn")
    seg = next(path.glob("segments/*/docs.bin")).parent
    digests = np.load(seg / "docs_digest.npy")
    digests[2] ^= 1
    np.save(seg / "docs_digest.npy", digests)
    reseal(path)                          # the files' checksums recorded again: only the row is wrong
    report = Index.verify_at(path)
    assert [d["file"] for d in report["damaged"]] == [str(seg / "docs.bin")]
    assert "does not match its checksum" in report["damaged"][0]["problem"]


def test_a_row_edited_in_sqlite_is_not_copied_into_a_new_segment(copy, tmp_path, monkeypatch):
    # a compaction copies the segments' copies (checked), not docs.sqlite's edited row
    path = copy("linklearn")
    with Index.open(path) as index:
        text = index.document("d5")[0]
    conn = sqlite3.connect(path / "docs.sqlite")
    with conn:
        conn.execute("UPDATE docs SET text = text || ' injected' WHERE id = 'd5' AND deleted_seq IS NULL")
    conn.close()
    with Index.open(path) as index:
        index.delete(["d7"])
        index.compact()
        assert [h["text"] for h in index.search(text, k=3) if h["id"] == "d5"] == [text]
    assert [d["file"] for d in Index.verify_at(path)["damaged"]] == [str(path / "docs.sqlite")]
    # segments without copies: the rows are read from docs.sqlite, and the edited one is refused
    old = built_before_segment_docs(tmp_path, monkeypatch)
    conn = sqlite3.connect(old / "docs.sqlite")
    with conn:
        conn.execute("UPDATE docs SET text = text || ' injected' WHERE id = 'd5' AND deleted_seq IS NULL")
    conn.close()
    before = json.loads((old / "manifest.json").read_text())["segments"]
    with Index.open(old) as index:
        with pytest.raises(IndexDamagedError, match=r"docs\.sqlite is damaged: the document 'd5'"):
            index.compact()
    assert json.loads((old / "manifest.json").read_text())["segments"] == before


def test_a_compaction_copies_the_copies_and_refuses_a_damaged_one(copy):
    # (a compaction that copies rows checks each copy whole, as it checks the segments' arrays)
    path = copy("linklearn")
    with Index.open(path) as index:
        index.add(["w001 w120 added"], ids=["added"])
        index.delete(["d9"])
        victim = next(path.glob("segments/g*/docs.bin"))
        raw = bytearray(victim.read_bytes())
        raw[-3] = ord("x") if raw[-3] != ord("x") else ord("y")
        victim.write_bytes(bytes(raw))
        before = json.loads((path / "manifest.json").read_text())["segments"]
        with pytest.raises(IndexDamagedError, match=r"docs\.bin is damaged: its sha256 does not match"):
            index.compact()
    assert json.loads((path / "manifest.json").read_text())["segments"] == before
    assert str(victim) in [d["file"] for d in Index.verify_at(path)["damaged"]]


def test_a_segment_json_with_a_bad_docs_entry_is_refused(copy):
    path = copy("linklearn")
    seg = next(path.glob("segments/*/docs.bin")).parent
    meta = json.loads((seg / "segment.json").read_text())
    meta["docs"] = {"bytes": "many", "sha256": 3}
    (seg / "segment.json").write_text(json.dumps(meta))
    reseal(path)
    with pytest.raises(IndexFormatError, match=r"its 'docs' entry is not \{bytes, sha256\}"):
        Index.open(path)


def test_documents_found_before_are_not_read_again(copy, monkeypatch):
    # the handle's cache fronts the copies, as it fronted SQLite: a server asked the same queries
    # again reads nothing
    from learnsim.index._segment_docs import SegmentDocs

    path = copy("linklearn")
    reads = []
    real = SegmentDocs.rows
    monkeypatch.setattr(SegmentDocs, "rows", lambda self, rows, seqs: reads.append(len(rows)) or real(self, rows, seqs))
    with Index.open(path) as index:
        first = index.search(QUERY, k=10)
        assert sum(reads) == 10
        assert index.search(QUERY, k=10) == first and sum(reads) == 10
        both = index.search([QUERY, "w300 w301"], k=10)
        new = {h["id"] for h in both[1]} - {h["id"] for h in first}
        assert both[0] == first and sum(reads) == 10 + len(new)
