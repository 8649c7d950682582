"""An index directory edited or damaged on disk: a clear IndexFormatError (or the documented
error), never a numpy crash or a silently wrong answer; what a stopped writer leaves behind is
ignored by readers and removed by the next writer.
"""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from index_edit import copy, pristine, reseal, write_manifest  # noqa: F401  (fixtures)
from index_models import corpus

from learnsim.index import Index, IndexDamagedError, IndexFormatError

QUERY = "w001 w002 w003 w120 w240"


def _manifest(path):
    return json.loads((path / "manifest.json").read_text(encoding="utf-8"))


def _write_manifest(path, m):
    # sealed: these tests are about the checks of the fields, after the manifest's checksum
    write_manifest(path, m)


def _segment(path, i=0):
    return path / "segments" / _manifest(path)["segments"][i]["name"]


def _expected(pristine, family):
    with Index.open(pristine[family]) as idx:
        return [(h["id"], h["score"]) for h in idx.search(QUERY, k=10)]


# ---------------------------------------------------------------------- the manifest
@pytest.mark.parametrize("edit, message", [
    (lambda m: m.update(format_version=999), "newer"),
    (lambda m: m.update(format_version="1"), "version"),
    (lambda m: m.update(format="something-else"), "not a learnsim index manifest"),
    (lambda m: m.update(kind="bogus"), "unknown scoring kind"),
    (lambda m: m.pop("segments"), "segments"),
    (lambda m: m.pop("covered_seq"), "covered_seq"),
    (lambda m: m.pop("model_sha256"), "model_sha256"),
    (lambda m: m.update(dtype=7), "dtype"),
    (lambda m: m.update(dtype="int8"), "not float32 or float64"),
    (lambda m: m.update(n_features="400"), "n_features"),
    (lambda m: m.update(dense_dim=-1), "dense_dim"),
    (lambda m: m["segments"][0].update(n=3), "does not match the manifest"),
    (lambda m: m["segments"].append(dict(m["segments"][0])), "overlap"),
    (lambda m: m["segments"][0].update(name="no-such-segment"), "segment.json"),
    (lambda m: m["segments"][0].pop("name"), "segment"),
    (lambda m: m["segments"].__setitem__(0, "g1-000000"), "segment"),
    (lambda m: m["segments"][0].update(name="../../segments/g1-000000"), "plain directory name"),
    (lambda m: m["segments"][0].update(n="120"), "segment entry"),
])
def test_an_edited_manifest_is_an_index_format_error(copy, edit, message):
    path = copy()
    m = _manifest(path)
    edit(m)
    _write_manifest(path, m)
    with pytest.raises(IndexFormatError, match=message):
        Index.open(path)


@pytest.mark.parametrize("content", [b"", b"{\"format\": \"learnsim-index\", ", b"[1, 2]", b"\xff\xfe\x00"])
def test_an_unreadable_manifest_is_an_index_format_error(copy, content):
    path = copy()
    (path / "manifest.json").write_bytes(content)
    with pytest.raises(IndexFormatError, match="manifest"):
        Index.open(path)


def test_a_directory_without_an_index_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="no learnsim index"):
        Index.open(tmp_path)


# ---------------------------------------------------------------------- segment arrays
@pytest.mark.parametrize("family, array", [("mcd", "dense"), ("mcd", "sq"), ("mcd", "seqs"),
                                           ("linklearn", "data"), ("linklearn", "indices"),
                                           ("linklearn", "indptr")])
def test_a_truncated_segment_array_is_an_index_format_error(copy, family, array):
    path = copy(family)
    file = _segment(path) / f"{array}.npy"
    raw = file.read_bytes()
    file.write_bytes(raw[:len(raw) // 2])
    with pytest.raises(IndexFormatError, match=array):
        Index.open(path).search(QUERY, k=5)


def _rewrite(file, change, sealed=True):
    """Change an array of the index; ``sealed``: record its new checksum (the test is about the
    checks of the values, after the checksums)."""
    arr = np.load(file, allow_pickle=False).copy()
    arr = change(arr)
    np.save(file, arr, allow_pickle=False)
    if sealed:
        index = next(p for p in file.parents if (p / "manifest.json").is_file())
        reseal(index)


def _set(arr, index, value):
    arr[index] = value
    return arr


@pytest.mark.parametrize("family, array, change, message", [
    ("mcd", "dense", lambda a: _set(a, (3, 0), np.nan), "NaN"),
    ("mcd", "dense", lambda a: _set(a, (5, 1), np.inf), "NaN or infinite"),
    ("mcd", "sq", lambda a: _set(a, 2, np.nan), "sq.npy"),
    ("mcd", "sq", lambda a: _set(a, 2, -5.0), "negative"),
    ("mcd", "seqs", lambda a: a[::-1].copy(), "does not hold the documents"),
    ("linklearn", "seqs", lambda a: a + 1000, "does not hold the documents"),
    ("mcd", "dense", lambda a: a.astype(np.float32), "dense.npy"),
    ("mcd", "dense", lambda a: a[:, :-1].copy(), "dense.npy"),
    ("linklearn", "indices", lambda a: _set(a, 7, 10_000), "outside the segment"),
    ("linklearn", "indices", lambda a: _set(a, 7, -1), "outside the segment"),
    ("linklearn", "indices", lambda a: a.astype(np.int64), "posting lists"),
    ("linklearn", "data", lambda a: _set(a, 0, np.nan), "NaN"),
    ("linklearn", "indptr", lambda a: _set(a, 5, a[6] + 1), "not non-decreasing"),
    ("linklearn", "seqs", lambda a: a.astype(np.int32), "seqs.npy"),
])
def test_damaged_segment_values_are_an_index_format_error(copy, family, array, change, message):
    path = copy(family)
    _rewrite(_segment(path) / f"{array}.npy", change)
    with pytest.raises(IndexFormatError, match=message):
        Index.open(path).search(QUERY, k=5)


def test_a_missing_or_damaged_document_database_is_an_index_format_error(copy):
    path = copy("mcd")
    (path / "docs.sqlite").unlink()
    with pytest.raises(IndexFormatError, match="docs.sqlite is missing"):
        Index.open(path)
    path = copy("linklearn")
    for f in path.glob("docs.sqlite*"):
        f.unlink()
    (path / "docs.sqlite").write_bytes(b"this is not a database" * 100)
    with pytest.raises(IndexFormatError, match="cannot read docs.sqlite"):
        Index.open(path)


def test_a_document_the_database_lost_is_an_index_format_error(copy):
    import sqlite3

    path = copy("linklearn")
    with sqlite3.connect(path / "docs.sqlite") as conn:
        conn.execute("DELETE FROM docs WHERE id = 'd5'")
    conn.close()
    # found at open now (the counts of the manifest and of SQLite), before any search
    with pytest.raises(IndexDamagedError, match="disagrees with docs.sqlite"):
        Index.open(path).search(QUERY, k=1000)


def test_a_missing_segment_array_is_an_index_format_error(copy):
    path = copy("mcd")
    (_segment(path) / "dense.npy").unlink()
    with pytest.raises(IndexFormatError, match="dense.npy is missing"):
        Index.open(path)


def test_a_damaged_query_plan_is_an_index_format_error(copy):
    path = copy("linklearn")
    (path / _manifest(path)["plan_dir"] / "plan.json").write_text("{", encoding="utf-8")
    with pytest.raises(IndexDamagedError, match="plan.json is damaged: its sha256"):
        Index.open(path).search(QUERY, k=5)
    reseal(path)        # its checksum recorded: the JSON itself is refused
    with pytest.raises(IndexDamagedError, match="plan.json is damaged: it is not valid UTF-8 JSON"):
        Index.open(path).search(QUERY, k=5)


@pytest.mark.parametrize("family, array, change", [
    ("mcd", "factor", lambda a: a[:-3].copy()), ("mcd", "factor", lambda a: _set(a, (0, 0), np.nan)),
    ("mcd", "active_position", lambda a: a[:5].copy()), ("linklearn", "idf", lambda a: a[:3].copy()),
    ("mcd", "idf", lambda a: _set(a, 0, np.inf)),
])
def test_damaged_query_plan_arrays_are_an_index_format_error(copy, family, array, change):
    path = copy(family)
    _rewrite(path / _manifest(path)["plan_dir"] / f"{array}.npy", change)
    with pytest.raises(IndexFormatError, match="query plan"):
        Index.open(path).search(QUERY + " w399 w398 w397 w396 w395", k=5)


def test_damaged_collection_statistics_are_an_index_format_error(copy):
    path = copy("linklearn")
    _rewrite(path / _manifest(path)["statistics_dir"] / "idf.npy", lambda a: _set(a, 2, np.nan))
    idx = Index.open(path)
    with pytest.raises(IndexFormatError, match="statistics 'idf'"):
        idx.add(["w001 w002"], ["new"])
    with pytest.raises(KeyError):
        idx.document("new")


# ---------------------------------------------------------------------- the model file
def test_a_model_file_that_does_not_match_its_checksum_is_refused(copy, pristine):
    path = copy("linklearn")
    with open(path / "model.npz", "ab") as fh:
        fh.write(b"\0")
    idx = Index.open(path)
    # a search by the query plan needs no model file ...
    assert [(h["id"], h["score"]) for h in idx.search(QUERY, k=10)] == _expected(pristine, "linklearn")
    # ... everything that does refuses it, and writes nothing
    for call in (lambda: idx.add(["w001 w002"], ["new"]), lambda: idx.search(QUERY, k=2, explain=True),
                 lambda: idx.reindex()):
        with pytest.raises(IndexFormatError, match="checksum"):
            call()
    with pytest.raises(KeyError):
        Index.open(path).document("new")


# ---------------------------------------------------------------------- left by a stopped writer
@pytest.mark.parametrize("family", ["mcd", "linklearn"])
def test_what_a_stopped_writer_left_is_ignored_then_removed_by_the_next_writer(copy, pristine, family):
    path = copy(family)
    segments = path / "segments"
    seg = _segment(path)
    # a half-written temporary segment, and a whole segment that no manifest lists (damaged)
    half = segments / ".tmp-a000000000500-1234abcd"
    half.mkdir()
    (half / "seqs.npy").write_bytes(b"\x93NUMPY garbage")
    stray = segments / "a000000000121"
    shutil.copytree(seg, stray)
    _rewrite(stray / "dense.npy" if family == "mcd" else stray / "data.npy", lambda a: a * np.nan)
    # the temporary file of a manifest and the statistics and plan of an interrupted reindex
    (path / ".manifest.json.deadbeef.tmp").write_text("{", encoding="utf-8")
    generation = _manifest(path)["generation"]
    for d in (f"statistics-{generation + 1}", f"query-{generation + 1}"):
        (path / d).mkdir()
        (path / d / "junk.npy").write_bytes(b"junk")
    idx = Index.open(path)
    assert [(h["id"], h["score"]) for h in idx.search(QUERY, k=10)] == _expected(pristine, family)
    assert idx.info()["segments"] == 1
    # the next writer removes them; its own segment (named as the stray one) is written
    texts = corpus()[0]
    assert idx.add([texts[3]], ["again3"]) == ["again3"]
    assert not half.exists() and not (path / ".manifest.json.deadbeef.tmp").exists()
    assert sorted(p.name for p in segments.iterdir()) == sorted(e["name"] for e in _manifest(path)["segments"])
    hits = Index.open(path).search(texts[3], k=2)
    assert {h["id"] for h in hits} == {"d3", "again3"}
    idx.reindex()
    assert not (path / f"statistics-{generation + 1}" / "junk.npy").exists()
    assert {h["id"] for h in Index.open(path).search(texts[3], k=2)} == {"d3", "again3"}


def test_documents_added_before_a_crash_are_searched_and_segmented_by_the_next_writer(copy):
    """A writer stopped after committing documents (and after renaming their segment into
    place) but before its manifest: they are scored from their texts at open."""
    path = copy("mcd")
    texts = corpus()[0]
    before = (path / "manifest.json").read_bytes()
    idx = Index.open(path)
    idx.add([texts[7] + " w001", texts[8] + " w002"], ["late7", "late8"])
    (path / "manifest.json").write_bytes(before)        # as if stopped before the manifest
    idx = Index.open(path)
    assert idx.info()["unsegmented"] == 1 and len(idx) == len(texts) + 2
    assert idx.search(texts[7] + " w001", k=1)[0]["id"] == "late7"
    assert idx.add([texts[9] + " w003"], ["late9"]) == ["late9"]
    reopened = Index.open(path)
    assert reopened.info()["unsegmented"] == 0 and len(reopened) == len(texts) + 3
    for doc_id, text in (("late7", texts[7] + " w001"), ("late8", texts[8] + " w002"), ("late9", texts[9] + " w003")):
        assert reopened.search(text, k=1)[0]["id"] == doc_id
