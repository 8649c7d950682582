"""Every row of ``docs.sqlite`` carries a digest of its id, text and metadata (issue 45, part 5):
a text or metadata edited in the database with sqlite3 is damage that ``learnsim index verify``
reports (exit 2, naming docs.sqlite and the document) and that a read refuses to serve
(IndexDamagedError naming docs.sqlite; the service's 503 ``index_damaged``), never a silently
different answer; a search reads its hits from the segments' copies (issue 46), as they were
written. An index written before keeps working: verify says how many rows it
cannot check (a note, exit 0), and the next write adds the column and digests what it writes.
"""
from __future__ import annotations

import json
import sqlite3

import pytest

from conftest import run_cli
from index_edit import built_before_segment_docs, copy, pristine  # noqa: F401  (fixtures)

from learnsim.index import Index, IndexDamagedError
from learnsim.index._store import row_digest

QUERY = "w001 w002 w003 w120 w240"


def _edit(path, sql, *args):
    conn = sqlite3.connect(path / "docs.sqlite")
    with conn:
        conn.execute(sql, args)
    conn.close()


def _text_of(path, doc_id):
    conn = sqlite3.connect(path / "docs.sqlite")
    try:
        return conn.execute("SELECT text FROM docs WHERE id = ? AND deleted_seq IS NULL", (doc_id,)).fetchone()[0]
    finally:
        conn.close()


def _verify_cli(path):
    code, out, err = run_cli(["index", "verify", path])
    assert "Traceback" not in err
    return code, out, err


def test_a_new_index_records_a_digest_of_every_row(pristine):
    path = pristine["linklearn"]
    conn = sqlite3.connect(f"file:{path / 'docs.sqlite'}?mode=ro", uri=True)
    rows = conn.execute("SELECT id, text, meta, digest FROM docs").fetchall()
    conn.close()
    assert rows and all(d == row_digest(i, t, m) for i, t, m, d in rows)
    report = Index.verify_at(path)
    assert report["ok"] and report["unchecked_documents"] == 0 and report["notes"] == []


@pytest.mark.parametrize("column, value", [("text", "a text edited behind learnsim's back"),
                                           ("meta", json.dumps({"topic": 99})),
                                           ("id", "d5-renamed")])
def test_a_row_edited_with_sqlite_is_reported_by_verify(copy, column, value):
    path = copy("linklearn")
    _edit(path, f"UPDATE docs SET {column} = ? WHERE id = 'd5' AND deleted_seq IS NULL", value)
    code, out, err = _verify_cli(path)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(str(path / "docs.sqlite"))
    assert "1 document(s) do not match the checksum" in lines[0] and "d5" in lines[0]
    report = Index.verify_at(path)
    assert not report["ok"] and [d["file"] for d in report["damaged"]] == [str(path / "docs.sqlite")]


def test_a_tombstone_set_with_sqlite_is_damage_not_a_missing_document(copy):
    """A document marked deleted by a write that never happened (a number no delete, update or
    upsert of ``writes`` has) was silently left out of every answer and passed verify."""
    path = copy("linklearn")
    _edit(path, "UPDATE docs SET deleted_seq = 999 WHERE id = 'd5' AND deleted_seq IS NULL")
    with pytest.raises(IndexDamagedError, match=r"docs\.sqlite is damaged: the document 'd5' is marked deleted by a "
                                                r"write that never happened"):
        Index.open(path)
    code, out, err = _verify_cli(path)
    assert code == 2 and "'d5'" in err and "a write that never happened" in err, (out, err)
    code, out, err = run_cli(["search", "--index", path, "--query", QUERY])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "d5" in err


def test_deletions_updates_and_upserts_are_not_mistaken_for_forged_tombstones(copy):
    path = copy("linklearn")
    with Index.open(path) as index:
        index.delete(["d5"])
        index.upsert(["w001 w002 replaced"], ["d6"])
        index.update(["d7"], ["w003 w004 updated"])
    with Index.open(path) as index:
        assert "d5" not in {h["id"] for h in index.search(QUERY, k=50)}
    assert Index.verify_at(path)["ok"]


def test_metadata_edited_to_pass_a_filter_is_damage_not_a_hit(copy):
    """The filter reads docs.sqlite's metadata and the hit its segment's copy: a document whose
    metadata was edited there to pass a filter was served, with its true metadata, as a hit the
    filter would not give."""
    path = copy("linklearn")
    _edit(path, "UPDATE docs SET meta = ? WHERE id = 'd5' AND deleted_seq IS NULL", json.dumps({"topic": 12345}))
    with Index.open(path) as index:
        with pytest.raises(IndexDamagedError, match=r"docs\.sqlite is damaged: the document 'd5'"):
            index.search(QUERY, k=3, filter={"topic": 12345})
        with pytest.raises(IndexDamagedError, match="'d5'"):
            index.more_like("d6", k=3, filter={"topic": 12345})
        assert index.search(QUERY, k=3, filter={"topic": 99999}) == []
    code, out, err = run_cli(["search", "--index", path, "--query", QUERY, "--filter", "topic=12345"])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "'d5'" in err


def test_an_edited_text_is_never_served(copy):
    # a search reads its hits from the segments' document stores (tests/index/test_index_segment_docs.py):
    # the text as written, never the edited one; a read of the row in docs.sqlite refuses it
    path = copy("linklearn")
    text = _text_of(path, "d5")
    _edit(path, "UPDATE docs SET text = ? WHERE id = 'd5' AND deleted_seq IS NULL", text + " w001 injected")
    with Index.open(path) as index:
        with pytest.raises(IndexDamagedError, match=r"docs\.sqlite is damaged: the document 'd5' .* changed outside"):
            index.document("d5")
        hits = index.search(text, k=3)         # d5's own text: d5 is a hit, as it was written
        assert [h["text"] for h in hits if h["id"] == "d5"] == [text]
        assert index.document("d6")[0]       # the other rows are read as before
    # the command line
    code, out, err = run_cli(["search", "--index", path, "--query", text, "-k", "3"])
    assert code == 0 and "injected" not in out and "Traceback" not in err


def test_an_edited_text_of_a_segment_without_a_document_store_is_never_served(tmp_path, monkeypatch):
    # segments written before they held their documents: the hits are read from docs.sqlite, and
    # an edited row is refused
    path = built_before_segment_docs(tmp_path, monkeypatch)
    text = _text_of(path, "d5")
    _edit(path, "UPDATE docs SET text = ? WHERE id = 'd5' AND deleted_seq IS NULL", text + " w001 injected")
    with Index.open(path) as index:
        with pytest.raises(IndexDamagedError, match="docs.sqlite"):
            index.search(text, k=3)
    code, out, err = run_cli(["search", "--index", path, "--query", text, "-k", "3"])
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "docs.sqlite is damaged" in err and "'d5'" in err


def test_an_index_written_before_digests_says_so_and_gains_them_at_the_next_write(copy):
    path = copy("linklearn")
    _edit(path, "ALTER TABLE docs DROP COLUMN digest")       # as learnsim wrote it before issue 45
    with Index.open(path) as index:
        n = len(index)
    code, out, err = _verify_cli(path)
    assert code == 0 and err == ""
    assert "intact" in out and f"its {n} document(s) were written before learnsim recorded a checksum" in out
    report = Index.verify_at(path)
    assert report["ok"] and report["unchecked_documents"] == n and len(report["notes"]) == 1
    # still read and searched as before; a read-only open changes nothing
    with Index.open(path) as index:
        assert index.search(QUERY, k=3) and index.document("d5")[0]
    conn = sqlite3.connect(path / "docs.sqlite")
    assert "digest" not in [r[1] for r in conn.execute("PRAGMA table_info(docs)")]
    conn.close()
    # the next write adds the column and digests its rows; the older ones stay unchecked
    with Index.open(path) as index:
        index.add(["w001 w002 a new document"], ["new1"], [{"topic": 1}])
        index.upsert(["w003 w004 replaced"], ["d7"], [None])
    report = Index.verify_at(path)
    assert report["ok"] and report["unchecked_documents"] == n   # (d7's old row is kept, marked deleted)
    _edit(path, "UPDATE docs SET text = 'edited' WHERE id = 'new1'")
    report = Index.verify_at(path)
    assert not report["ok"] and "'new1'" in report["damaged"][0]["problem"]


def _json_dumps_digest(doc_id, text, meta):
    import hashlib

    raw = json.dumps([doc_id, text, meta], ensure_ascii=False).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def test_the_digest_is_blake2b_of_the_rows_json_whatever_the_characters():
    """row_digest writes the JSON without json.dumps (its per-call cost): the same bytes, so the
    digests of every index written before still match."""
    import random

    rng = random.Random(0)
    rows = [("a", "b", None), ("", "", ""), ("1", 'q"\\ \n\t\x00\x1f é 日本 \ud800 \u2028', '{"a": [1, 2.5]}'),
            (3, "not a str id", None), ("x", "y", 5)]      # the last two: the json.dumps path
    for _ in range(500):
        rows.append(("".join(chr(rng.randrange(0, 0x3000)) for _ in range(4)),
                     "".join(chr(rng.randrange(0, 0xFFFF)) for _ in range(40)),
                     None if rng.random() < 0.3 else json.dumps({"k": "é\n"})))
    for row in rows:
        assert row_digest(*row) == _json_dumps_digest(*row)


@pytest.mark.parametrize("raw", ['{"a": 1, "b": [1, 2, {"c": null}]}', '"text"', "3", "[]", ' {"a": 1} ', "NaN",
                                 '{"a": 1}{"b": 2}', "{", ""])
def test_stored_metadata_is_decoded_as_json_loads_does(raw):
    from learnsim.index._store import meta_value

    try:
        want = json.loads(raw)
    except json.JSONDecodeError as exc:
        with pytest.raises(json.JSONDecodeError):
            meta_value(raw)
        return
    got = meta_value(raw)
    assert json.dumps(got) == json.dumps(want)


def test_documents_read_once_are_served_from_the_handles_cache(copy):
    """A search's hits are read from SQLite once per handle: found again, no read; the cache is
    bounded; a hit's metadata changed by the caller changes nothing it holds."""
    from learnsim.index._store import DocumentCache

    path = copy("linklearn")
    with Index.open(path) as index:
        first = index.search(QUERY, k=5)
        cache = index._document_cache
        reads = []
        real = index.store.documents
        index.store.documents = lambda seqs, **kw: reads.append(list(seqs)) or real(seqs, **kw)
        again = index.search(QUERY, k=5)
        assert again == first and reads == []
        for hit in again:
            if hit["metadata"] is not None:
                hit["metadata"]["changed"] = True
        assert index.search(QUERY, k=5) == first
        assert index._document_cache is cache
    small = DocumentCache("key", max_docs=3)
    with Index.open(path) as index:
        got = small.documents(index.store, index._seqs[:10])
        assert len(got) == 10 and len(small._docs) == 3
        assert small.documents(index.store, index._seqs[:10]) == got


def _searching_often(monkeypatch, often):
    import learnsim.index._kernels as K

    monkeypatch.setattr(K, "_searches", [K.WARM_SEARCHES if often else 0])


def test_a_small_collection_is_read_whole_by_a_process_that_searches_often(copy, monkeypatch):
    """In a process that searches often, a collection that fits the handle's cache is read into
    it at once (DocumentCache.preload): later hits read nothing from SQLite, and are the same."""
    path = copy("linklearn")
    _searching_often(monkeypatch, False)
    with Index.open(path) as index:
        before = [index.search(q, k=5) for q in (QUERY, "w010 w020", "w300 w301 w302")]
        assert not index._document_cache.preloaded      # a one-off search reads only its hits
    _searching_often(monkeypatch, True)
    with Index.open(path) as index:
        index.search(QUERY, k=1)
        cache = index._document_cache
        assert cache.preloaded and len(cache._docs) == len(index)
        reads = []
        real = index.store.documents
        index.store.documents = lambda seqs, **kw: reads.append(list(seqs)) or real(seqs, **kw)
        assert [index.search(q, k=5) for q in (QUERY, "w010 w020", "w300 w301 w302")] == before
        assert reads == []


def test_a_collection_larger_than_the_cache_is_not_read_whole(copy, monkeypatch):
    from learnsim.index._store import DocumentCache

    path = copy("linklearn")
    _searching_often(monkeypatch, True)
    with Index.open(path) as index:
        small = DocumentCache("key", max_docs=len(index) - 1)
        asked, real = [], index.store.read_ahead
        index.store.read_ahead = lambda: asked.append(True) or real()
        assert small.preload(index.store, len(index)) == 0 and small._docs == {} and small.preloaded
        assert asked == [True]        # the operating system is asked to read the file ahead instead
        assert small.preload(index.store, len(index)) == 0 and asked == [True]      # once per cache
        whole = DocumentCache("key", max_docs=len(index))
        assert whole.preload(index.store, len(index)) == len(index)
        # bounded in characters as well: it stops when full, the rest read when found
        texts = [row[2] for rows in index.store.live_rows() for row in rows]
        budget = max(sum(len(t) for t in texts) // 2, 16 * max(len(t) for t in texts))
        assert budget < sum(len(t) for t in texts)
        chars = DocumentCache("key", max_docs=len(index), max_chars=budget)
        n = chars.preload(index.store, len(index))
        assert 0 < n < len(index) and chars._chars <= budget
        got = chars.documents(index.store, index._seqs)
        assert len(got) == len(index)


def test_an_edited_row_is_left_out_of_the_preload_and_never_served(copy, monkeypatch):
    path = copy("linklearn")
    text = _text_of(path, "d5")
    _edit(path, "UPDATE docs SET text = ? WHERE id = 'd5' AND deleted_seq IS NULL", text + " w001 injected")
    _searching_often(monkeypatch, True)
    with Index.open(path) as index:
        index.search("w300 w301", k=1)               # the preload, d5 left out
        cache = index._document_cache
        assert cache.preloaded and len(cache._docs) == len(index) - 1 and not cache.holds_all
        hits = index.search(text, k=3)              # d5's own text: d5 is a hit, read from its segment
        assert [h["text"] for h in hits if h["id"] == "d5"] == [text]


def test_read_ahead_asks_nothing_of_a_file_that_is_gone(tmp_path):
    from learnsim.index._store import DocumentStore

    store = DocumentStore(tmp_path / "docs.sqlite")
    store.read_ahead()                                  # the file: read ahead, nothing to see
    store.close()
    (tmp_path / "docs.sqlite").unlink()
    store.read_ahead()                                  # gone: nothing, no error
