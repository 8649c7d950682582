"""An index folder attacked as a hostile or unlucky user would (each kind of file damaged, replaced
by another index's file of the same name, a directory in its place): every error names the damaged
file, as ``learnsim index verify`` does, never a segment alone or a traceback.
"""
from __future__ import annotations

import shutil

import pytest

from index_models import corpus, model

from learnsim.index import Index, IndexDamagedError


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    """Two indexes of one model and other documents (their files differ in size): a term weighting
    (posting lists) and a learned distance (dense rows and squared norms)."""
    texts, _, ids, meta = corpus()
    root = tmp_path_factory.mktemp("attack")
    for family in ("linklearn", "mcd"):
        Index.build(root / f"{family}-a", model(family), texts, ids, meta).close()
        Index.build(root / f"{family}-b", model(family), texts[:50], ids[:50], meta[:50]).close()
    return root


def _segment(path):
    (seg,) = (path / "segments").iterdir()
    return seg


@pytest.mark.parametrize("family, array", [("linklearn", "indptr"), ("linklearn", "indices"),
                                           ("linklearn", "data"), ("mcd", "dense"), ("mcd", "sq"),
                                           ("mcd", "seqs"), ("linklearn", "docs_offsets"),
                                           ("mcd", "docs_digest")])
def test_a_segment_array_of_another_index_is_damage_naming_the_file(two, tmp_path, family, array):
    path = tmp_path / "idx"
    shutil.copytree(two / f"{family}-a", path)
    seg = _segment(path)
    other = _segment(two / f"{family}-b") / f"{array}.npy"
    assert other.stat().st_size != (seg / f"{array}.npy").stat().st_size
    shutil.copyfile(other, seg / f"{array}.npy")
    # before: its header was checked against the segment before its sha256, and the error named
    # the segment alone ("segment 'g1-000000': the posting lists ... are inconsistent"), which
    # file nor which index
    with pytest.raises(IndexDamagedError) as err:
        with Index.open(path) as idx:
            idx.search("w001 w002 w003", k=5)
    assert err.value.path == str(seg / f"{array}.npy")
    assert "sha256" in str(err.value)


@pytest.mark.parametrize("key, value", [
    ("covered_seq", 10 ** 30), ("statistics_seq", 10 ** 30), ("covered_seq", -1), ("generation", "x"),
    ("generation", 2 ** 64), ("statistics_dir", "../elsewhere"), ("plan_dir", "/etc"),
    ("plan_dir", "../other/query-1"), ("higher_is_closer", "yes"), ("rerank", {"x": 1}), ("rerank", 0),
    ("statistics", ["../../other/statistics-1/idf"]), ("statistics_sha256", {"../../other/idf": "0" * 64}),
    ("plan_sha256", {"../other/plan.json": "0" * 64}),
])
def test_a_sealed_manifest_field_no_writer_writes_is_refused_naming_the_manifest(two, tmp_path, key, value):
    # sealed again (a hand edit, a learnsim of a later format): its checksum cannot tell
    from index_edit import read_manifest, write_manifest

    from learnsim.cli import main
    from learnsim.index import IndexFormatError

    path = tmp_path / "idx"
    shutil.copytree(two / "linklearn-a", path)
    m = read_manifest(path)
    m[key] = value
    write_manifest(path, m)
    # before: a sequence number past 2**63-1 was SQLite's OverflowError (a traceback on the
    # command line), a folder outside the index was read, a generation of another type was taken
    with pytest.raises(IndexFormatError, match=f"manifest.json has no valid '{key}'"):
        Index.open(path).close()
    report = Index.verify_at(path)
    assert not report["ok"] and any(str(f["file"]).endswith("manifest.json") for f in report["damaged"]), report
    for argv in (["index", "verify", str(path)], ["index", "info", str(path)],
                 ["search", "--index", str(path), "--query", "w001"], ["index", "compact", str(path)]):
        assert main(argv) == 2, argv


@pytest.mark.parametrize("suffix", [".jsonl", ".tsv"])
def test_an_id_too_long_in_a_corpus_is_refused_naming_its_file_and_line(two, tmp_path, capsys, suffix):
    from learnsim.cli import main
    from learnsim.index._store import MAX_ID_CHARS

    path = tmp_path / "idx"
    shutil.copytree(two / "linklearn-a", path)
    rows = [("new-1", "w001 w002"), ("x" * (MAX_ID_CHARS + 1), "w003 w004"), ("new-3", "w005")]
    file = tmp_path / f"add{suffix}"
    if suffix == ".jsonl":
        import json

        file.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in rows), encoding="utf-8")
    else:
        file.write_text("".join(f"{i}\t{t}\n" for i, t in rows), encoding="utf-8")
    # before: "ids[1] has 1,001 characters", the position of an argument the user never wrote,
    # where the metadata and the texts of the same file are named by file and line
    assert main(["index", "add", str(path), "--corpus", str(file)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(file) in err and "line 2" in err and f"{MAX_ID_CHARS:,}" in err, err
    with Index.open(path) as idx:
        assert idx.info()["documents"] == 120


@pytest.mark.parametrize("put", ["directory", "pipe"])
def test_a_directory_or_pipe_in_place_of_the_lock_is_damage_naming_it(two, tmp_path, capsys, put):
    import os

    from learnsim.cli import main

    path = tmp_path / "idx"
    shutil.copytree(two / "linklearn-a", path)
    (path / "lock").unlink(missing_ok=True)
    if put == "directory":
        (path / "lock").mkdir()
    else:
        os.mkfifo(path / "lock")
    # before: every write failed with "Is a directory" or "File or stream is not seekable" (which
    # file?), and verify said the index was intact
    with pytest.raises(IndexDamagedError) as err:
        with Index.open(path) as idx:
            idx.delete("d3")
    assert err.value.path == str(path / "lock")
    report = Index.verify_at(path)
    assert not report["ok"] and [d["file"] for d in report["damaged"]] == [str(path / "lock")]
    capsys.readouterr()
    assert main(["index", "delete", str(path), "--id", "d3"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path / "lock") in err, err
    with Index.open(path) as idx:
        assert idx.info()["documents"] == 120       # nothing was deleted


@pytest.mark.parametrize("key", ["statistics_dir", "plan_dir"])
def test_a_sealed_folder_outside_the_index_is_never_removed_by_a_reindex(two, tmp_path, key):
    from index_edit import read_manifest, write_manifest

    from learnsim.index import IndexFormatError

    path = tmp_path / "idx"
    shutil.copytree(two / "linklearn-a", path)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "data.txt").write_text("precious", encoding="utf-8")
    m = read_manifest(path)
    m[key] = "../victim"
    write_manifest(path, m)
    # before: the open took it, and reindex removed "its old statistics" (or plan): the folder
    # beside the index, with whatever it held
    with pytest.raises(IndexFormatError, match=key):
        with Index.open(path) as idx:
            idx.reindex()
    assert (victim / "data.txt").read_text(encoding="utf-8") == "precious"


@pytest.mark.parametrize("put", ["directory", "pipe"])
def test_a_rebuild_mends_an_index_whose_lock_is_a_directory_or_pipe(two, tmp_path, capsys, put):
    import os

    from learnsim.cli import main

    path = tmp_path / "idx"
    shutil.copytree(two / "linklearn-a", path)
    (path / "lock").unlink(missing_ok=True)
    if put == "directory":
        (path / "lock").mkdir()
    else:
        os.mkfifo(path / "lock")
    texts, _, ids, meta = corpus()
    # before: the rebuild did all its work and failed at its swap, on the damaged lock, leaving
    # the damaged index in place: the way to mend it was to remove the lock by hand
    Index.build(path, model("linklearn"), texts[:30], ids[:30], meta[:30], overwrite=True).close()
    assert Index.verify_at(path)["ok"]
    with Index.open(path) as idx:
        assert len(idx) == 30
        idx.delete("d3")        # writes take the lock again
        assert len(idx) == 29
