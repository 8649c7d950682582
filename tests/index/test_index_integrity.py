"""Integrity of an index on disk (issue 30, part 1): every file an index writes carries a
checksum; damage to any of them is an IndexDamagedError naming the file (never a numpy or SQLite
traceback, never a silently wrong answer); ``Index.verify`` and ``learnsim index verify`` list
every damaged file; a manifest that disagrees with SQLite is damage; a reader racing a writer
that reindexes never reports damage; a file truncated under a reader that read it does not crash
it. Each test is bounded in time (the race runs for a few seconds).
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time

import numpy as np
import pytest

from conftest import run_cli
from index_edit import copy, pristine, read_manifest, reseal, write_manifest  # noqa: F401  (fixtures)
from index_models import corpus, model

from learnsim.index import Index, IndexDamagedError, IndexFormatError
from learnsim.index._segments import FORMAT_VERSION, SEAL_KEY

QUERY = "w001 w002 w003 w120 w240"
SEGMENT_ARRAYS = {"mcd": ("seqs", "dense", "sq"), "linklearn": ("seqs", "indptr", "indices", "data")}


def _segment(path, i=0):
    return path / "segments" / read_manifest(path)["segments"][i]["name"]


def _hits(path, query=QUERY, k=10):
    with Index.open(path) as idx:
        return [(h["id"], round(h["score"], 9)) for h in idx.search(query, k=k)]


def _use(path):
    """Open, search (plan, segment arrays), explain (statistics, model): every file a read uses."""
    with Index.open(path) as idx:
        idx.search(QUERY, k=5)
        idx.search(QUERY, k=2, explain=True)


def _flip(file, offset=-1):
    """Flip the bits of one byte of a file (the last by default: the data, past any header)."""
    raw = bytearray(file.read_bytes())
    raw[offset] ^= 0xFF
    file.write_bytes(bytes(raw))


def _assert_damaged(call, file):
    with pytest.raises(IndexDamagedError) as info:
        call()
    assert info.value.path == str(file), (info.value.path, str(file))
    assert str(file) in str(info.value) and "\n" not in str(info.value)
    assert isinstance(info.value, IndexFormatError) and isinstance(info.value, ValueError)
    return info.value


# ---------------------------------------------------------------------- what a build records
def test_a_new_index_records_a_checksum_of_every_file(pristine):
    for family, path in pristine.items():
        m = read_manifest(path)
        assert m["format_version"] == FORMAT_VERSION == 2 and isinstance(m[SEAL_KEY], str)
        assert set(m["statistics_sha256"]) == set(m["statistics"])
        plan = path / m["plan_dir"]
        assert set(m["plan_sha256"]) == {f.name for f in plan.iterdir()}
        for entry in m["segments"]:
            meta = json.loads((path / "segments" / entry["name"] / "segment.json").read_text())
            assert isinstance(entry["sha256"], str) and set(meta["sha256"]) == set(meta["files"])
        report = Index.verify_at(path)
        assert report["ok"] and report["damaged"] == [] and report["files"] >= 8


# ---------------------------------------------------------------------- each file kind
def test_a_manifest_edited_without_its_checksum_is_damage(copy):
    path = copy()
    m = read_manifest(path)
    m["segments"] = []          # "an empty index": the checksum says otherwise
    (path / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    _assert_damaged(lambda: Index.open(path), path / "manifest.json")
    m.pop(SEAL_KEY)             # a version 2 manifest without its checksum
    (path / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    err = _assert_damaged(lambda: Index.open(path), path / "manifest.json")
    assert SEAL_KEY in str(err)


def test_a_manifest_listing_no_segments_disagrees_with_sqlite(copy):
    """Sealed (as a writer would): the empty segment list still disagrees with SQLite's documents."""
    path = copy()
    m = read_manifest(path)
    m["segments"] = []
    write_manifest(path, m)
    err = _assert_damaged(lambda: Index.open(path), path / "manifest.json")
    assert "disagrees with docs.sqlite" in str(err) and "holds 120" in str(err)
    assert any(d["file"] == str(path / "manifest.json") for d in Index.verify_at(path)["damaged"])


def test_a_segment_listing_documents_sqlite_lacks_is_damage(copy):
    path = copy("mcd")
    with sqlite3.connect(path / "docs.sqlite") as conn:
        conn.execute("DELETE FROM docs WHERE seq IN (3, 4)")
    conn.close()
    _assert_damaged(lambda: Index.open(path), path / "manifest.json")
    problems = [d["problem"] for d in Index.verify_at(path)["damaged"]]
    assert any("2 document(s) docs.sqlite lacks" in p for p in problems)


def test_a_reload_after_an_add_checks_the_added_documents_against_sqlite(copy, monkeypatch):
    """A handle that sees another's add counts only the documents added since it last checked
    (a range of SQLite's key, not every live document), and still finds them damaged."""
    from learnsim.index import _integrity

    texts = corpus()[0]
    path = copy()
    reader, writer = Index.open(path), Index.open(path)
    covered = reader.manifest["covered_seq"]
    writer.add(texts[:3], ids=["n1", "n2", "n3"])
    counted = []
    live_up_to = _integrity._live_up_to
    monkeypatch.setattr(_integrity, "_live_up_to", lambda *a: counted.append(a) or live_up_to(*a))
    assert "n2" in {h["id"] for h in reader.search(texts[1], k=3)}
    assert counted == []            # the range count only: the old segments were checked already
    writer.add(texts[3:5], ids=["n4", "n5"])
    with sqlite3.connect(path / "docs.sqlite") as conn:    # the new rows lost from SQLite
        conn.execute("DELETE FROM docs WHERE seq > ?", (covered + 3,))
    conn.close()
    _assert_damaged(lambda: reader.search(texts[3], k=3), path / "manifest.json")
    # a fresh handle counts everything
    _assert_damaged(lambda: Index.open(path), path / "manifest.json")
    assert counted


def test_a_reload_after_a_merge_counts_only_the_merged_documents_and_finds_them_damaged(copy, monkeypatch):
    """A handle that sees another's merge of small segments (the adds' segments merged into one)
    counts only the documents after the segments it kept, not every live document, and still
    finds the merged documents lost from SQLite."""
    from learnsim.index import _integrity
    from learnsim.index import core

    texts = corpus()[0]
    path = copy()
    monkeypatch.setattr(core, "SMALL_SEGMENT_ROWS", 50)     # the built segment (120 documents) stays
    reader, damaged, writer = Index.open(path), Index.open(path), Index.open(path)
    covered = reader.manifest["covered_seq"]
    kept = [e["name"] for e in reader.manifest["segments"]]
    for i in range(core.MERGE_AT):
        writer.add([texts[i]], ids=[f"m{i}"])
        if i < core.MERGE_AT - 1:           # both readers follow the adds (an add's reload)
            for handle in (reader, damaged):
                assert f"m{i}" in {h["id"] for h in handle.search(texts[i], k=3)}
    assert [e["name"] for e in writer.manifest["segments"]][:len(kept)] == kept
    assert len(writer.manifest["segments"]) == len(kept) + 1        # the adds' segments merged into one
    # the segments kept's last document: the merge replaced segments the readers had checked
    assert _integrity.checked_up_to(reader.manifest, writer.manifest) == covered
    counted = []
    live_up_to = _integrity._live_up_to
    monkeypatch.setattr(_integrity, "_live_up_to", lambda *a: counted.append(a) or live_up_to(*a))
    assert "m3" in {h["id"] for h in reader.search(texts[3], k=3)}
    assert counted == []
    with sqlite3.connect(path / "docs.sqlite") as conn:    # merged documents lost from SQLite
        conn.execute("DELETE FROM docs WHERE seq IN (?, ?)", (covered + 2, covered + 3))
    conn.close()
    _assert_damaged(lambda: damaged.search(texts[3], k=3), path / "manifest.json")
    assert counted == []


def test_what_a_reload_counts_again():
    """checked_up_to: an add keeps every segment (the old covered_seq), a merge the first ones
    (their last document), anything else counts everything."""
    from learnsim.index._integrity import checked_up_to

    def seg(name, first, last):
        return {"name": name, "sha256": name * 4, "n": last - first + 1, "first_seq": first, "last_seq": last}

    old = {"covered_seq": 130, "segments": [seg("a", 1, 100), seg("b", 101, 120), seg("c", 121, 130)]}
    add = dict(old, covered_seq=140, segments=old["segments"] + [seg("d", 131, 140)])
    merge = dict(old, covered_seq=140, segments=[seg("a", 1, 100), seg("m", 101, 140)])
    compact = dict(old, covered_seq=140, segments=[seg("z", 1, 140)])
    assert checked_up_to(old, add) == 130
    assert checked_up_to(old, merge) == 100
    assert checked_up_to(old, compact) is None
    assert checked_up_to(None, add) is None
    assert checked_up_to(add, old) is None                     # covered_seq went back: a rebuild
    damaged = dict(old, segments=[dict(seg("a", 1, 100), last_seq="100"), seg("b", 101, 120)])
    assert checked_up_to(damaged, merge) is None


@pytest.mark.parametrize("part", ["model.npz", "segment", "segment file"])
def test_a_symbolic_link_anywhere_in_the_index_is_damage(copy, tmp_path, part):
    """segments/, versions/ and docs.sqlite linked elsewhere were refused, but a linked
    model.npz or segment folder was followed: verify said intact, and a compaction left a link
    to a removed segment. Now every link inside the folder is damage, at open and in verify."""
    path = copy("mcd")
    target = {"model.npz": path / "model.npz", "segment": _segment(path),
              "segment file": _segment(path) / "dense.npy"}[part]
    moved = tmp_path / "elsewhere" / target.name
    moved.parent.mkdir()
    target.rename(moved)
    target.symlink_to(moved)
    error = _assert_damaged(lambda: Index.open(path), target)
    assert "is a symbolic link" in str(error)
    from learnsim.index._verify import verify_index

    report = verify_index(path)
    assert not report["ok"] and any("symbolic link" in d["problem"] for d in report["damaged"])


def test_an_index_folder_that_is_itself_a_link_opens(pristine, tmp_path):
    """The index's own path may be a link (an index kept on another disk)."""
    link = tmp_path / "linked-index"
    link.symlink_to(pristine["mcd"])
    assert _hits(link) == _hits(pristine["mcd"])


def test_an_unreadable_manifest_names_the_manifest(copy):
    path = copy()
    (path / "manifest.json").write_bytes(b"")
    _assert_damaged(lambda: Index.open(path), path / "manifest.json")


@pytest.mark.parametrize("version", [None, "2", 2.0, "missing"])
def test_a_format_version_that_is_no_number_is_damage_not_a_newer_index(copy, version):
    """It said "index format version None is newer than this learnsim reads (2); upgrade learnsim"."""
    path = copy()
    m = read_manifest(path)
    if version == "missing":
        del m["format_version"]
    else:
        m["format_version"] = version
    write_manifest(path, m)
    _assert_damaged(lambda: Index.open(path), path / "manifest.json")
    with pytest.raises(IndexDamagedError, match="not a whole number"):
        Index.open(path)


@pytest.mark.parametrize("content", [None, b"", b"{", b"[]"])
def test_a_damaged_segment_json_names_it(copy, content):
    path = copy()
    file = _segment(path) / "segment.json"
    if content is None:
        meta = json.loads(file.read_text())
        meta["n"] = meta["n"]                  # the same content, written otherwise
        file.write_text(json.dumps(meta, indent=2))
    else:
        file.write_bytes(content)
    _assert_damaged(lambda: Index.open(path), file)
    # and verify names it (an unreadable one was an UnboundLocalError of verify's own)
    assert str(file) in [d["file"] for d in Index.verify_at(path)["damaged"]]


@pytest.fixture(params=["one read", "read beside the hash"])
def reading(request, monkeypatch):
    """Each way a checked file is read: at once, or (a large file) in chunks read in a thread
    while the caller hashes them (forced here on small files, in odd chunks)."""
    from learnsim.index import _segments

    if request.param != "one read":
        monkeypatch.setattr(_segments, "_OVERLAP_BYTES", 0)
        monkeypatch.setattr(_segments, "_OVERLAP_CHUNK", 1000)
    return request.param


@pytest.mark.parametrize("family, array", [(f, a) for f, arrays in SEGMENT_ARRAYS.items() for a in arrays])
@pytest.mark.parametrize("how", ["empty", "truncated", "flipped", "zeroed page"])
def test_damage_of_each_segment_array_names_it(copy, family, array, how, reading):
    path = copy(family)
    file = _segment(path) / f"{array}.npy"
    raw = file.read_bytes()
    if how == "empty":
        file.write_bytes(b"")
    elif how == "truncated":
        file.write_bytes(raw[:len(raw) - 3])
    elif how == "flipped":
        _flip(file)
    else:       # a 4 KiB page of zeros where the data starts (the whole file when smaller)
        file.write_bytes(raw[:128] + bytes(min(4096, len(raw) - 128)) + raw[128 + 4096:])
    _assert_damaged(lambda: _use(path), file)


def test_damage_found_at_open_is_found_before_any_array_is_read(copy):
    """A truncated array is found from its header and size at open (no read of its data)."""
    path = copy("mcd")
    file = _segment(path) / "dense.npy"
    file.write_bytes(file.read_bytes()[:-8])
    _assert_damaged(lambda: Index.open(path), file)


def test_swapped_terms_are_damage_not_another_ranking(copy, pristine):
    """The attack: two entries of terms.json swapped, a query then scores other documents."""
    path = copy()
    file = path / read_manifest(path)["plan_dir"] / "terms.json"
    terms = json.loads(file.read_text(encoding="utf-8"))
    i, j = terms.index("w001"), len(terms) - 1
    terms[i], terms[j] = terms[j], terms[i]
    file.write_text(json.dumps(terms), encoding="utf-8")
    _assert_damaged(lambda: _hits(path), file)


@pytest.mark.parametrize("name", ["plan.json", "idf.npy"])
def test_damaged_plan_files_name_the_file(copy, name):
    path = copy()
    file = path / read_manifest(path)["plan_dir"] / name
    if name.endswith(".json"):
        file.write_text(file.read_text().replace(": ", ":  ", 1) + " ", encoding="utf-8")
    else:
        _flip(file)
    _assert_damaged(lambda: _hits(path), file)


def test_damaged_collection_statistics_name_the_file(copy):
    path = copy()
    m = read_manifest(path)
    file = path / m["statistics_dir"] / "idf.npy"
    _flip(file)
    idx = Index.open(path)
    _assert_damaged(lambda: idx.add(["w001 w002"], ["new"]), file)
    with pytest.raises(KeyError):          # nothing was written
        Index.open(path).document("new")


def test_a_damaged_model_file_names_it(copy):
    path = copy()
    _flip(path / "model.npz", 100)
    idx = Index.open(path)
    _assert_damaged(lambda: idx.search(QUERY, k=2, explain=True), path / "model.npz")


def test_a_damaged_sqlite_page_names_docs_sqlite(copy):
    path = copy()
    file = path / "docs.sqlite"
    for f in path.glob("docs.sqlite-*"):
        f.unlink()
    raw = bytearray(file.read_bytes())
    page = int.from_bytes(raw[16:18], "big") or 65536
    assert len(raw) >= 3 * page
    # the second page on (the table's b-tree): garbage where SQLite expects a page header
    raw[page:3 * page] = bytes([0xA5]) * (2 * page)
    file.write_bytes(bytes(raw))

    def use():
        idx = Index.open(path)
        idx.search(QUERY, k=5)
        idx.document("d5")

    _assert_damaged(use, file)
    report = Index.verify_at(path)
    assert not report["ok"] and any(d["file"] == str(file) for d in report["damaged"])


def test_the_cli_prints_one_line_naming_the_damaged_file(copy):
    path = copy()
    file = path / read_manifest(path)["plan_dir"] / "terms.json"
    _flip(file, 2)
    code, out, err = run_cli(["search", "--index", path, "--query", QUERY])
    assert code == 2, (out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and str(file) in lines[0] and "Traceback" not in err


# ---------------------------------------------------------------------- verify
def test_verify_lists_every_damaged_file_at_once(copy):
    path = copy("mcd")
    m = read_manifest(path)
    damaged = [_segment(path) / "dense.npy", _segment(path) / "sq.npy", path / m["plan_dir"] / "terms.json",
               path / m["plan_dir"] / "factor.npy", path / "model.npz"]
    for f in damaged:
        _flip(f, -2)
    report = Index.verify_at(path)
    assert not report["ok"]
    assert {d["file"] for d in report["damaged"]} == {str(f) for f in damaged}
    assert len(report["damaged"]) == len(damaged)   # one line a file
    with Index.open(path) as idx:           # the same through an open handle
        assert {d["file"] for d in idx.verify()["damaged"]} == {str(f) for f in damaged}


def test_verify_names_a_file_once_when_its_segment_cannot_open(copy):
    path = copy("linklearn")
    seqs = _segment(path) / "seqs.npy"
    seqs.write_bytes(b"")   # the segment cannot open; its arrays are then checked one by one
    data = _segment(path) / "data.npy"
    with open(data, "r+b") as fh:
        fh.truncate(100)
    files = [d["file"] for d in Index.verify_at(path)["damaged"]]
    assert sorted(files) == sorted({str(seqs), str(data)})


def test_verify_reports_a_damaged_manifest_and_still_checks_sqlite(copy):
    path = copy()
    (path / "manifest.json").write_text("{", encoding="utf-8")
    report = Index.verify_at(path)
    assert [d["file"] for d in report["damaged"]] == [str(path / "manifest.json")]


def test_verify_checks_values_as_segment_check_does(copy):
    path = copy("mcd")
    file = _segment(path) / "dense.npy"
    arr = np.load(file).copy()
    arr[3, 0] = np.nan
    np.save(file, arr)
    reseal(path)            # checksums recorded: only the value check finds it
    report = Index.verify_at(path)
    assert len(report["damaged"]) == 1 and "NaN" in report["damaged"][0]["problem"]


def test_cli_index_verify_exit_codes(copy):
    path = copy()
    code, out, err = run_cli(["index", "verify", path])
    assert code == 0 and "intact" in out and err == ""
    code, out, err = run_cli(["index", "verify", path, "--json"])
    assert code == 0 and json.loads(out)["ok"] is True
    files = [_segment(path) / "data.npy", path / read_manifest(path)["plan_dir"] / "terms.json"]
    for f in files:
        _flip(f, -2)
    code, out, err = run_cli(["index", "verify", path])
    lines = err.splitlines()
    assert code == 2 and len(lines) == 2
    assert sorted(line.split(": ")[0] for line in lines) == sorted(str(f) for f in files)
    code, out, err = run_cli(["index", "verify", path, "--json"])
    assert code == 2 and {d["file"] for d in json.loads(out)["damaged"]} == {str(f) for f in files}
    code, out, err = run_cli(["index", "verify", path / "nowhere"])
    assert code == 2 and "nowhere" in err


# ---------------------------------------------------------------------- older indexes
def test_a_version_1_index_without_checksums_still_opens_and_searches(copy, pristine):
    path = copy()
    m = read_manifest(path)
    for key in (SEAL_KEY, "statistics_sha256", "plan_sha256"):
        m.pop(key)
    m["format_version"] = 1
    for entry in m["segments"]:
        entry.pop("sha256")
        seg_json = path / "segments" / entry["name"] / "segment.json"
        meta = json.loads(seg_json.read_text())
        meta.pop("sha256")
        seg_json.write_text(json.dumps(meta))
    (path / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    assert _hits(path) == _hits(pristine["linklearn"])
    assert Index.verify_at(path)["ok"]
    idx = Index.open(path)
    idx.add(["w001 w002 w003"], ["new"])            # a write seals the manifest, still version 1
    assert read_manifest(path)["format_version"] == 1 and SEAL_KEY in read_manifest(path)
    idx.reindex()                                   # every file written anew: version 2
    assert read_manifest(path)["format_version"] == 2 and Index.verify_at(path)["ok"]
    assert Index.open(path).search("w001 w002 w003", k=1)[0]["id"] == "new"


# ---------------------------------------------------------------------- writes verify what they read
def test_a_compaction_does_not_launder_damage_into_a_new_segment(copy):
    path = copy("mcd")
    idx = Index.open(path)
    file = _segment(path) / "dense.npy"
    _flip(file, -2)
    idx.delete(["d1"])
    _assert_damaged(idx.compact, file)
    assert read_manifest(path)["segments"][0]["name"] == file.parent.name      # nothing replaced it


def test_merging_small_segments_verifies_them(copy):
    from learnsim.index import core

    path = copy("linklearn")
    idx = Index.open(path)
    texts = corpus()[0]
    for i in range(core.MERGE_AT - 2):     # with the build's segment: one short of a merge
        idx.add([texts[i]], [f"small{i}"])
    small = path / "segments" / read_manifest(path)["segments"][1]["name"] / "data.npy"
    _flip(small, -2)
    _assert_damaged(lambda: Index.open(path).add([texts[9]], ["last"]), small)


# ---------------------------------------------------------------------- readers and writers
def test_a_segment_truncated_after_it_was_read_does_not_crash_the_reader(copy):
    path = copy("mcd")
    idx = Index.open(path)
    before = [(h["id"], h["score"]) for h in idx.search(QUERY, k=10)]
    for f in _segment(path).glob("*.npy"):
        with open(f, "r+b") as fh:
            fh.truncate(64)
    assert [(h["id"], h["score"]) for h in idx.search(QUERY, k=10)] == before
    _assert_damaged(lambda: Index.open(path), _segment(path) / "seqs.npy")


def test_readers_racing_a_reindexing_writer_never_report_damage(tmp_path):
    """A writer reindexes (and compacts) in a loop for a few seconds; readers open and search all
    the while: no damage reported, every search answers."""
    texts, _, ids, meta = corpus()
    path = tmp_path / "race"
    Index.build(path, model("linklearn"), texts, ids, meta).close()
    stop = threading.Event()
    errors, counts = [], {"writes": 0, "opens": 0, "searches": 0}

    def write():
        try:
            idx = Index.open(path)
            while not stop.is_set():
                if counts["writes"] % 3 == 2:
                    idx.compact()
                else:
                    idx.reindex()
                counts["writes"] += 1
        except Exception as exc:         # noqa: BLE001 - reported by the test
            errors.append(("writer", repr(exc)))

    def read():
        held = None
        while not stop.is_set():
            try:
                idx = Index.open(path)
                counts["opens"] += 1
                assert len(idx.search(QUERY, k=5)) == 5
                counts["searches"] += 1
                if held is not None:            # a handle kept across writes reloads
                    assert len(held.search(QUERY, k=5)) == 5
                    counts["searches"] += 1
                held = idx
            except Exception as exc:     # noqa: BLE001 - reported by the test
                errors.append(("reader", repr(exc)))
                return

    threads = [threading.Thread(target=write)] + [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(4.0)
    stop.set()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert counts["writes"] >= 3 and counts["opens"] >= 10, counts
    assert Index.verify_at(path)["ok"]


def test_a_damage_that_stays_is_reported_even_while_the_manifest_moves(copy):
    """The retries are bounded: a damaged file is damage however often the manifest is rewritten."""
    path = copy()
    idx = Index.open(path)
    file = path / read_manifest(path)["plan_dir"] / "idf.npy"
    _flip(file)
    idx.delete(["d7"])          # SQLite changed: the next search reloads
    _assert_damaged(lambda: idx.search(QUERY, k=3), file)


# ---------------------------------------------------------------------- approximate structures
def test_a_damaged_ann_file_gives_the_exact_answer_and_verify_names_it(tmp_path):
    """A damaged structure is searched exactly (the right answer, with a warning and in info),
    and verify lists the damaged file."""
    import warnings

    pytest.importorskip("learnsim.ann")
    from learnsim.ann import available_backends

    if not available_backends():
        pytest.skip("neither faiss-cpu nor usearch is installed")
    from test_index_ann import BACKEND, collection, queries
    from test_index_batch import dense_film

    texts, ids, meta = collection()
    ann = Index.build(tmp_path / "ann", dense_film(), texts, ids, meta, ann={"backend": BACKEND, "min_rows": 500})
    exact = Index.build(tmp_path / "exact", dense_film(), texts, ids, meta, ann="exact")
    seg = ann.segments[0]
    files = json.loads((seg.path / "ann" / "meta.json").read_text())["files"]
    damaged = seg.path / "ann" / sorted(files)[0]
    _flip(damaged, -2)
    reopened = Index.open(tmp_path / "ann")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        for q in queries()[:3]:
            assert [h["id"] for h in reopened.search(q, k=10)] == [h["id"] for h in exact.search(q, k=10)]
    assert reopened.info()["search"]["fallback"][0]["segment"] == seg.name
    report = Index.verify_at(tmp_path / "ann")
    assert [d["file"] for d in report["damaged"]] == [str(damaged)]


def test_the_first_search_checks_segments_beside_the_plan_and_still_reports_their_damage(copy, monkeypatch):
    """The segments' checksums are read in a thread while the query plan loads (the first search
    at 100k took 104 against 72 ms without it); the answers are those of one thread, and damage
    the thread meets is reported by the search, naming the file."""
    from learnsim.index._segments import Segment

    path = copy("mcd")
    threads, original = [], Segment.check

    def check(self):
        threads.append(threading.current_thread().name)
        return original(self)

    monkeypatch.setattr(Segment, "check", check)
    beside = _hits(path)
    assert "learnsim-check" in threads
    with monkeypatch.context() as m:
        m.setattr(Index, "_check_segments_meanwhile", lambda self: None)
        assert _hits(path) == beside
    file = _segment(path) / "dense.npy"
    _flip(file)
    threads.clear()
    _assert_damaged(lambda: _hits(path), file)
    assert threads.count("learnsim-check") == 1 and threads.count("MainThread") >= 1
    # a server's check at start does the same, and refuses the same damage
    threads.clear()
    _assert_damaged(lambda: Index.open(path).warm(search=False), file)
    assert threads.count("learnsim-check") == 1 and threads.count("MainThread") >= 1


def test_a_file_read_beside_its_hash_is_the_file_and_its_digest(tmp_path, monkeypatch):
    """The chunked read in a thread gives the file's bytes and sha256 (chunks that do not divide
    it, a chunk larger than it), refuses a flipped byte, and a read that fails half-way is
    damage naming the file, raised in the caller's thread."""
    import hashlib

    from learnsim.index import _segments

    rng = np.random.default_rng(3)
    file = tmp_path / "a.bin"
    raw = rng.integers(0, 256, 100_003, dtype=np.uint8).tobytes()
    file.write_bytes(raw)
    digest = hashlib.sha256(raw).hexdigest()
    monkeypatch.setattr(_segments, "_OVERLAP_BYTES", 0)
    for chunk in (1, 999, 4096, 1 << 20):
        monkeypatch.setattr(_segments, "_OVERLAP_CHUNK", chunk)
        got, found = _segments._read(file, True, digest)
        assert found == digest and got.tobytes() == raw
        assert _segments.read_verified(file, digest, into_array=True).tobytes() == raw
    with pytest.raises(IndexDamagedError, match="sha256 does not match"):
        _segments.read_verified(file, "0" * 64, into_array=True)
    monkeypatch.setattr(_segments, "_OVERLAP_CHUNK", 4096)

    class Failing:
        def __init__(self, fh):
            self.fh, self.calls = fh, 0

        def readinto(self, view):
            self.calls += 1
            if self.calls == 3:
                raise OSError(5, "Input/output error")
            return self.fh.readinto(view)

    with open(file, "rb") as fh:
        with pytest.raises(OSError, match="Input/output"):
            _segments._read_and_hash(Failing(fh), np.empty(len(raw), dtype=np.uint8))
    real_open = open

    def failing_open(path, *args, **kwargs):
        fh = real_open(path, *args, **kwargs)
        failing = Failing(fh)
        fh_readinto = failing.readinto

        class Wrapped:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                fh.close()

            def fileno(self):
                return fh.fileno()

            readinto = staticmethod(fh_readinto)
        return Wrapped()

    # the reader opens a file through learnsim._utils.files.open_regular (a regular file only)
    monkeypatch.setattr(_segments, "open_regular", lambda path: failing_open(path, "rb"))
    with pytest.raises(IndexDamagedError, match="cannot be read"):
        _segments.read_verified(file, digest, into_array=True)


_READ_ONLY_CHILD = """
import json, sys, warnings
warnings.simplefilter("ignore")
from learnsim.index import Index
path, out = sys.argv[1], {}
with Index.open(path) as index:
    out["documents"] = len(index)
    out["hits"] = [h["id"] for h in index.search(sys.argv[2], k=5, filter={"half": "even"})]
    try:
        index.add(["w001 w002"], ids=["new"])
    except OSError as exc:
        out["add"] = type(exc).__name__
out["verify"] = Index.verify_at(path)["ok"]
print(json.dumps(out))
"""


def test_an_index_in_a_place_nothing_may_be_written_is_read_not_damaged(tmp_path):
    """A read-only mount (a container image, a shared volume) or a directory of another user: SQLite
    could not make its WAL index (docs.sqlite-shm) beside docs.sqlite, and Index.open raised
    IndexDamagedError "docs.sqlite is damaged: ... unable to open database file" (verify: not ok).
    It opens and searches now, verify finds it sound, and a write fails with an OSError."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import learnsim

    texts, _, ids, meta = corpus()
    path = tmp_path / "idx"
    Index.build(path, model("linklearn"), texts[:40], ids[:40], meta[:40]).close()
    with Index.open(path) as index:
        want = [h["id"] for h in index.search(QUERY, k=5, filter={"half": "even"})]
    env = dict(os.environ, PYTHONPATH=str(Path(learnsim.__file__).resolve().parents[1]))
    child = [sys.executable, "-c", _READ_ONLY_CHILD]
    if os.geteuid() == 0:
        # root writes anywhere a mode allows nothing: a read-only bind mount of the index instead
        if shutil.which("unshare") is None:
            pytest.skip("needs unshare to mount the index read-only as root")
        view = tmp_path / "view"
        view.mkdir()
        script = 'mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" && shift 2 && exec "$@"'
        run = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(path), str(view), *child,
                              str(view), QUERY], capture_output=True, text=True, env=env, timeout=120)
        if run.returncode != 0 and "mount" in run.stderr and "Traceback" not in run.stderr:
            pytest.skip(f"cannot mount read-only here: {run.stderr.strip()[:200]}")
    else:
        modes = {p: p.stat().st_mode for p in [path, *path.rglob("*")]}
        try:
            for p in modes:
                p.chmod(modes[p] & ~0o222)
            run = subprocess.run([*child, str(path), QUERY], capture_output=True, text=True, env=env, timeout=120)
        finally:
            for p, mode in modes.items():
                p.chmod(mode)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out == {"documents": 40, "hits": want, "add": out.get("add"), "verify": True}
    assert out["add"] in ("OSError", "PermissionError")
    with Index.open(path) as index:
        assert len(index) == 40 and index.verify()["ok"]


def _refusing_store(monkeypatch, code, message):
    """DocumentStore.add raising SQLite's error of ``code`` (8 read-only, 13 full), as a docs.sqlite
    of mode 444, a file mounted read-only in a writable folder or a full disk make it."""
    from learnsim.index import _store

    def refuse(self, *args, **kwargs):
        exc = sqlite3.OperationalError(message)
        exc.sqlite_errorcode = code
        raise exc

    monkeypatch.setattr(_store.DocumentStore, "add", refuse)


@pytest.mark.parametrize("code, message, kind, words", [
    (8, "attempt to write a readonly database", PermissionError, "SQLite may only read its database"),
    (13, "database or disk is full", OSError, "the disk is full"),
])
def test_a_write_sqlite_refuses_is_an_oserror_naming_why_not_damage(copy, monkeypatch, code, message, kind, words):
    """SQLite's "attempt to write a readonly database" and "database or disk is full" are the
    machine's, not damage and not a bug: they came out of Index.add as a bare sqlite3 error (a
    traceback from `learnsim index add`, a 500 from the service). Now an OSError saying why (a
    PermissionError for read-only; ENOSPC for a full disk), exit 2 and one line from the CLI; the
    index is untouched and takes the write once it can."""
    import errno

    path = copy("linklearn")
    texts, _, _, _ = corpus()
    with monkeypatch.context() as patched:
        _refusing_store(patched, code, message)
        with Index.open(path) as index:
            before = len(index)
            with pytest.raises(kind, match="the index cannot be written") as raised:
                index.add([texts[0] + " w999"], ids=["new-1"])
            assert words in str(raised.value) and not isinstance(raised.value, IndexFormatError)
            if code == 13:
                assert raised.value.errno == errno.ENOSPC
        corpus_file = path.parent / "more.jsonl"
        corpus_file.write_text(json.dumps({"id": "new-2", "text": texts[1] + " w998"}) + "\n")
        status, out, err = run_cli(["index", "add", path, "--corpus", corpus_file])
        assert status == 2 and "the index cannot be written" in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1
    with Index.open(path) as index:
        assert len(index) == before and index.verify()["ok"]
        index.add([texts[0] + " w999"], ids=["new-1"])
        assert len(index) == before + 1
