"""Test helpers that edit an index on disk *and* record the edit's checksums, as a writer would:
for the tests of the checks that come after the checksums (fields, shapes, values). Without
them an edit is damage (tests/test_index_integrity.py); and the pristine indexes those tests
copy and damage (the fixtures ``pristine`` and ``copy``: import them into a test module)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from learnsim._utils.files import sha256_file
from learnsim.index import Index
from learnsim.index._segments import seal


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """{family: path} of untouched indexes: mcd (dense rows, squared norms), linklearn (postings);
    closed at once (an open connection's WAL file comes and goes while a test copies it)."""
    from index_models import corpus, model

    texts, _, ids, meta = corpus()
    root = tmp_path_factory.mktemp("pristine")
    out = {}
    for f in ("mcd", "linklearn"):
        Index.build(root / f, model(f), texts, ids, meta).close()
        out[f] = root / f
    return out


@pytest.fixture
def copy(pristine, tmp_path):
    """make(family="linklearn"): a fresh copy of a pristine index, for a test to damage."""
    def make(family="linklearn"):
        dst = tmp_path / f"copy-{family}"
        shutil.copytree(pristine[family], dst)
        return dst
    return make


def read_manifest(path):
    return json.loads((Path(path) / "manifest.json").read_text(encoding="utf-8"))


def write_manifest(path, m):
    """Write the manifest ``m`` sealed (its own checksum recomputed)."""
    (Path(path) / "manifest.json").write_text(json.dumps(seal(dict(m))), encoding="utf-8")


def reseal(path):
    """Record the checksums of every file of the index as they are now (segment arrays in their
    segment.json, segment.json, statistics and plan in the manifest), and seal the manifest."""
    path = Path(path)
    m = read_manifest(path)
    for entry in m.get("segments", []):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        seg = path / "segments" / entry["name"]
        if not (seg / "segment.json").is_file():
            continue
        meta = json.loads((seg / "segment.json").read_text(encoding="utf-8"))
        if isinstance(meta, dict) and isinstance(meta.get("sha256"), dict):
            meta["sha256"] = {k: sha256_file(seg / f"{k}.npy") for k in meta["sha256"] if (seg / f"{k}.npy").exists()}
            if isinstance(meta.get("docs"), dict) and isinstance(meta["docs"].get("sha256"), str) \
                    and (seg / "docs.bin").exists():
                meta["docs"] = {"bytes": (seg / "docs.bin").stat().st_size, "sha256": sha256_file(seg / "docs.bin")}
            (seg / "segment.json").write_text(json.dumps(meta), encoding="utf-8")
        entry["sha256"] = sha256_file(seg / "segment.json")
    if m.get("statistics_sha256"):
        d = path / m["statistics_dir"]
        m["statistics_sha256"] = {k: sha256_file(d / f"{k}.npy") for k in m["statistics_sha256"]}
    if m.get("plan_sha256") and m.get("plan_dir"):
        d = path / m["plan_dir"]
        m["plan_sha256"] = {k: sha256_file(d / k) for k in m["plan_sha256"] if (d / k).exists()}
    write_manifest(path, m)


def without_plan(path, where):
    """A copy of the index at ``path`` in ``where`` whose manifest names no query plan, opened:
    searches then go the pipeline's way (the plan is an optimisation that must not change them)."""
    dst = Path(where) / "no-plan"
    shutil.copytree(path, dst)
    m = read_manifest(dst)
    m["plan_dir"] = None
    write_manifest(dst, m)
    index = Index.open(dst)
    assert not index.info()["query_plan"]
    return index


def built_before_segment_docs(where, monkeypatch, family="linklearn"):
    """The path of an index built as learnsim wrote one before its segments held their
    documents (issue 46): no segment has a docs.bin, its hits are read from docs.sqlite."""
    from index_models import corpus, model

    from learnsim.index import core
    from learnsim.index._store import DocumentStore

    texts, _, ids, meta = corpus()
    path = Path(where) / "before-segment-docs"
    with monkeypatch.context() as m:
        # an add's or a merge's copy (read back from SQLite), and a build's (from the texts it holds)
        m.setattr(DocumentStore, "segment_docs", lambda self, seqs: None)
        m.setattr(core, "RowsFromTexts", lambda store, seqs, texts=None: None)
        Index.build(path, model(family), texts, ids, meta).close()
    assert not list(path.glob("segments/*/docs.bin"))
    return path
