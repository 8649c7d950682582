"""Approximate search inside the index (learnsim.index._ann, issue 16 part 1): the segments of
dense rows at or above ``min_rows`` are searched through a faiss or usearch structure, their
candidates scored exactly, the rest scanned.

Checked: the info says which search runs (exact below min_rows, the backend above, mixed, exact
without the extra); recall@10 against the exact index >= 0.9; every score is the exact score of
its document; deletes, filters (selective ones too) and more_like's exclusion are honoured with k
hits when k are allowed; add, merge, compact and reindex keep the structures; reopening works; a
damaged or missing structure falls back to exact (info and a warning say so) and compact writes
it again; a forged manifest entry is refused; a batch equals one search at a time; the distance
models (MCD) search their dense rows by squared distance.

The collection is 1,200 documents of the shared clustered corpus' vocabulary under the dense
FILM of tests/test_index_batch.py, with ``min_rows`` = 500 so that the structures are built on
small data.
"""
from __future__ import annotations

import functools
import json
import warnings

import numpy as np
import pytest

from index_edit import reseal, write_manifest
from test_index_batch import dense_film
from index_models import model

from learnsim.index import Index, IndexFormatError
from learnsim.index import _ann

pytest.importorskip("learnsim.ann", reason="learnsim.ann (the backends of the ann extra) is not there")
from learnsim.ann import available_backends  # noqa: E402

if not available_backends():
    pytest.skip("neither faiss-cpu nor usearch is installed (pip install learnsim[ann])", allow_module_level=True)

MIN_ROWS = 500
K = 10
# float32 rows: a score recomputed from a gathered row sums in another order than the scan's
TOL = 1e-5
BACKEND = next(b for b in _ann.AUTO_BACKENDS + tuple(available_backends()) if b in available_backends())


@functools.lru_cache(maxsize=None)
def collection(n_per_cluster=200, seed=1):
    """(texts, ids, metadata) of 6 x ``n_per_cluster`` documents."""
    from learnsim.datasets import make_clustered_corpus

    c = make_clustered_corpus(n_clusters=6, docs_per_cluster=n_per_cluster, vocab_size=400, topic_words=15,
                              random_state=seed)
    texts = [str(t) for t in c.data]
    ids = [f"s{seed}-{i}" for i in range(len(texts))]
    meta = [{"topic": int(t), "half": "even" if i % 2 == 0 else "odd", "tenth": i % 10 == 0}
            for i, t in enumerate(np.asarray(c.target))]
    return texts, ids, meta


def queries():
    texts = collection()[0]
    return [texts[i] for i in range(3, 1200, 97)] + [" ".join(texts[5].split()[:10] + texts[700].split()[:10])]


def _build(path, ann, pipeline=None, n=None, **kwargs):
    texts, ids, meta = collection()
    return Index.build(path, pipeline or dense_film(), texts[:n], ids[:n], meta[:n], ann=ann, **kwargs)


def _copy(idx, path):
    import shutil

    shutil.copytree(idx.path, path)
    return Index.open(path)


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """(approximate index, exact index) of the same collection."""
    root = tmp_path_factory.mktemp("ann")
    return (_build(root / "ann", {"backend": BACKEND, "min_rows": MIN_ROWS}),
            _build(root / "exact", "exact"))


def _exact_scores(exact, query):
    return {h["id"]: h["score"] for h in exact.search(query, k=len(exact))}


def _check_against_exact(idx, exact, qs, k=K, min_recall=0.9, **kwargs):
    """Every score is its document's exact score; recall@k against the exact index's hits."""
    found = total = 0
    for q in qs:
        got, ref = idx.search(q, k, **kwargs), exact.search(q, k, **kwargs)
        assert len(got) == len(ref)
        scores = _exact_scores(exact, q)
        for h in got:
            assert h["score"] == pytest.approx(scores[h["id"]], abs=TOL)
        assert [h["score"] for h in got] == sorted((h["score"] for h in got), reverse=exact.higher_is_closer)
        found += len({h["id"] for h in got} & {h["id"] for h in ref})
        total += len(ref)
    assert found / total >= min_recall
    return found / total


def test_info_says_exact_below_min_rows_and_the_backend_above(pair, tmp_path):
    idx, exact = pair
    s = idx.info()["search"]
    assert s["mode"] == "approximate" and s["backend"] == BACKEND
    assert s["ann_rows"] == len(idx) and s["exact_rows"] == 0 and s["min_rows"] == MIN_ROWS
    assert (idx.path / "segments" / idx.segments[0].name / "ann").is_dir()
    assert exact.info()["search"]["mode"] == "exact" and exact.info()["search"]["backend"] is None
    small = _build(tmp_path / "small", {"backend": BACKEND, "min_rows": 5000})
    s = small.info()["search"]
    assert s["mode"] == "exact" and s["backend"] is None and s["exact_rows"] == len(small) and s["ann_rows"] == 0
    assert not (small.path / "segments" / small.segments[0].name / "ann").exists()


def test_info_says_why_rows_are_searched_exactly(pair, tmp_path):
    """``exact_because``: every exact row has its reason (asked for, under min_rows, sparse rows,
    a model kind with no approximate search), and the CLI's line shows it."""
    from learnsim.cli.index import _summary

    idx, exact = pair
    assert "exact_because" not in idx.info()["search"]
    s = exact.info()["search"]
    assert s["exact_because"] == {"exact search was asked for (ann='exact')": len(exact)}
    small = _build(tmp_path / "small", {"backend": BACKEND, "min_rows": 5000}).info()["search"]
    (why, rows), = small["exact_because"].items()
    assert "min_rows (5000" in why and rows == small["exact_rows"]
    texts, ids, _ = collection()
    for family, words in (("relative", "rows are sparse"), ("bm25", "no approximate search")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            built = Index.build(tmp_path / family, model(family), texts, ids, ann={"backend": BACKEND, "min_rows": 100})
        s = built.info()["search"]
        (why, rows), = s["exact_because"].items()
        assert words in why and rows == len(built) == s["exact_rows"]
        assert f"exact for {rows} row(s): {why}" in _summary(s)


def test_recall_and_exact_scores(pair):
    idx, exact = pair
    _check_against_exact(idx, exact, queries())


@pytest.mark.parametrize("backend", ["faiss-flat", "faiss-hnsw", "faiss-ivf", "usearch"])
def test_every_backend_plugs_in(backend, tmp_path):
    if backend not in available_backends():
        pytest.skip(f"{backend} is not installed (pip install learnsim[ann])")
    texts, ids, meta = collection()
    idx = _build(tmp_path / "i", {"backend": backend, "min_rows": MIN_ROWS})
    assert idx.info()["search"]["backend"] == backend
    exact = _build(tmp_path / "e", "exact")
    _check_against_exact(idx, exact, queries()[:6])
    assert Index.open(idx.path).info()["search"]["backend"] == backend


def test_deletes_and_filters_are_honoured(pair, tmp_path):
    idx = _copy(pair[0], tmp_path / "a")
    exact = pair[1]
    texts, ids, meta = collection()
    gone = ids[::7]
    idx.delete(gone)
    for q in queries()[:6]:
        hits = idx.search(q, K)
        assert len(hits) == K and not {h["id"] for h in hits} & set(gone)
        for f, field, value in (({"half": "even"}, "half", "even"), ({"topic": [1, 4]}, "topic", (1, 4))):
            hits = idx.search(q, K, filter=f)
            assert len(hits) == K and not {h["id"] for h in hits} & set(gone)
            assert all(h["metadata"][field] in (value if isinstance(value, tuple) else (value,)) for h in hits)
        # a selective filter (a tenth of the rows, a few deleted) scans the segment: the exact hits
        got = idx.search(q, K, filter={"tenth": True})
        ref = [h for h in exact.search(q, K + 40, filter={"tenth": True}) if h["id"] not in set(gone)][:K]
        assert [h["id"] for h in got] == [h["id"] for h in ref]
    # the scores stay exact with a filter, and the recall holds
    _check_against_exact(idx, exact, queries()[:6], filter={"half": "odd", "topic": [0, 2, 3, 5]}, min_recall=0.85)
    # k beyond what a filter allows gives all of them
    few = idx.search(queries()[0], 500, filter={"tenth": True, "topic": 2})
    assert len(few) == sum(1 for i, m in zip(ids, meta) if m["tenth"] and m["topic"] == 2 and i not in set(gone))


def test_more_like_excludes_the_document(pair):
    idx, exact = pair
    texts, ids, _ = collection()
    same = 0
    for doc in ids[::150]:
        hits = idx.more_like(doc, K)
        assert len(hits) == K and doc not in {h["id"] for h in hits}
        same += len({h["id"] for h in hits} & {h["id"] for h in exact.more_like(doc, K)})
    assert same / (K * len(ids[::150])) >= 0.9


def test_a_batch_equals_one_search_at_a_time(pair):
    idx, _ = pair
    qs = queries()
    for kwargs in ({}, {"filter": {"half": "even"}}, {"filter": {"tenth": True}}):
        got = idx.search(qs, K, **kwargs)
        for q, g in zip(qs, got):
            ref = idx.search(q, K, **kwargs)
            assert [h["id"] for h in g] == [h["id"] for h in ref]
            np.testing.assert_allclose([h["score"] for h in g], [h["score"] for h in ref], rtol=0, atol=1e-6)


def test_writes_keep_or_rebuild_the_structures(pair, tmp_path):
    exact = pair[1]
    texts, ids, meta = collection()
    idx = Index.build(tmp_path / "w", dense_film(), texts[:600], ids[:600], meta[:600],
                      ann={"backend": BACKEND, "min_rows": MIN_ROWS})
    assert idx.info()["search"]["mode"] == "approximate"
    idx.add(texts[600:1100], ids[600:1100], meta[600:1100])       # 500 rows: a structure of its own
    s = idx.info()["search"]
    assert s["mode"] == "approximate" and s["ann_rows"] == 1100 and idx.info()["segments"] == 2
    for lo in range(1100, 1200, 20):                              # small adds: scanned, then merged
        idx.add(texts[lo:lo + 20], ids[lo:lo + 20], meta[lo:lo + 20])
    s = idx.info()["search"]
    assert s["mode"] == "mixed" and s["exact_rows"] == 100 and s["ann_rows"] == 1100
    _check_against_exact(idx, exact, queries()[:8])
    idx.delete(ids[:50])
    idx.compact()
    s = idx.info()["search"]
    assert idx.info()["segments"] == 1 and s["mode"] == "approximate" and s["ann_rows"] == 1150
    idx.reindex()
    assert idx.info()["search"]["mode"] == "approximate"
    # reopened from disk: the same hits
    again = Index.open(idx.path)
    assert again.info()["search"] == idx.info()["search"]
    for q in queries()[:5]:
        assert [h["id"] for h in again.search(q, K)] == [h["id"] for h in idx.search(q, K)]


def test_merged_small_segments_get_a_structure(tmp_path, monkeypatch):
    from learnsim.index import core

    texts, ids, meta = collection()
    monkeypatch.setattr(core, "MERGE_AT", 3)
    idx = Index.build(tmp_path / "m", dense_film(), texts[:100], ids[:100], meta[:100],
                      ann={"backend": BACKEND, "min_rows": 300})
    for lo in (100, 300, 500):
        idx.add(texts[lo:lo + 200], ids[lo:lo + 200], meta[lo:lo + 200])
    s = idx.info()["search"]
    # the three segments of 100 + 200 + 200 rows were merged into one of 500: approximate
    assert idx.info()["segments"] == 2 and s["mode"] == "mixed" and s["ann_rows"] == 500 and s["exact_rows"] == 200


@pytest.mark.parametrize("damage", ["truncate", "flip", "remove"])
def test_a_damaged_structure_falls_back_to_exact(pair, tmp_path, damage):
    idx = _copy(pair[0], tmp_path / "d")
    exact = pair[1]
    files = sorted(p for p in (idx.path / "segments" / idx.segments[0].name / "ann").rglob("*") if p.is_file())
    target = max(files, key=lambda p: p.stat().st_size)
    if damage == "remove":
        target.unlink()
    else:
        data = bytearray(target.read_bytes())
        if damage == "truncate":
            data = data[:len(data) // 2]
        else:
            data[len(data) // 2] ^= 0xFF
        target.write_bytes(bytes(data))
    reopened = Index.open(idx.path)
    with pytest.warns(_ann.AnnFallbackWarning, match="searched exactly"):
        got = reopened.search(queries()[0], K)
    assert [h["id"] for h in got] == [h["id"] for h in exact.search(queries()[0], K)]
    s = reopened.info()["search"]
    assert s["mode"] == "exact" and s["fallback"][0]["segment"] == idx.segments[0].name
    assert ("missing" if damage == "remove" else "damaged") in s["fallback"][0]["reason"]
    reopened.compact()          # writes the structure again
    s = reopened.info()["search"]
    assert s["mode"] == "approximate" and "fallback" not in s


@pytest.mark.parametrize("forged", [{"requested": "hnsw-of-my-own", "min_rows": 1, "params": {}},
                                    {"requested": "auto", "min_rows": -3, "params": {}},
                                    {"requested": "auto", "min_rows": 10, "params": []},
                                    "auto"])
def test_a_forged_manifest_entry_is_refused(pair, tmp_path, forged):
    path = _copy(pair[0], tmp_path / "f").path
    m = json.loads((path / "manifest.json").read_text())
    m["ann"] = forged
    write_manifest(path, m)
    with pytest.raises(IndexFormatError, match="'ann'"):
        Index.open(path)


def test_a_forged_segment_description_is_refused(pair, tmp_path):
    path = _copy(pair[0], tmp_path / "g").path
    seg_json = path / "segments" / pair[0].segments[0].name / "segment.json"
    meta = json.loads(seg_json.read_text())
    meta["ann"]["n"] = 3
    seg_json.write_text(json.dumps(meta))
    reseal(path)
    with pytest.raises(IndexFormatError, match="approximate structure"):
        Index.open(path).search(queries()[0], K)


def test_without_the_extra_auto_is_exact(tmp_path, monkeypatch):
    import learnsim.ann

    monkeypatch.setattr(learnsim.ann, "available_backends", lambda: ())
    idx = _build(tmp_path / "n", {"backend": "auto", "min_rows": MIN_ROWS})
    s = idx.info()["search"]
    assert s["mode"] == "exact" and s["backend"] is None and s["requested"] == "auto"
    assert not (idx.path / "segments" / idx.segments[0].name / "ann").exists()


def test_auto_takes_the_first_installed_backend(tmp_path):
    idx = _build(tmp_path / "auto", {"backend": "auto", "min_rows": MIN_ROWS})
    want = next(b for b in _ann.AUTO_BACKENDS if b in available_backends()) \
        if set(_ann.AUTO_BACKENDS) & set(available_backends()) else None
    assert idx.info()["search"]["backend"] == want


@pytest.mark.parametrize("bad, error", [("hnsw", ValueError), (3, TypeError), ({"min_rows": 10}, ValueError),
                                        ({"backend": "auto", "min_rows": 0}, ValueError),
                                        ({"backend": "exact", "ef_search": 10}, ValueError)])
def test_bad_ann_arguments_are_refused(tmp_path, bad, error):
    with pytest.raises(error):
        _build(tmp_path / "bad", bad)
    assert not (tmp_path / "bad").exists() or not any((tmp_path / "bad").iterdir())


def test_search_params_trade_recall_for_speed(pair):
    idx, exact = pair
    with pytest.raises(ValueError, match="overfetch"):
        idx.set_search_params(overfetch=0.5)
    with pytest.raises(ValueError, match="unknown search parameter"):
        idx.set_search_params(no_such_knob=3)
    known = sorted(_ann.segment_ann(idx.segments[0], None).get_search_params())
    try:
        idx.set_search_params(overfetch=8, **({known[0]: 128} if known else {}))
        assert idx.info()["search"]["overfetch"] == 8
        _check_against_exact(idx, exact, queries()[:6], min_recall=0.95)
    finally:
        idx.set_search_params(overfetch=_ann.OVERFETCH)


def test_a_distance_model_searches_its_dense_rows(tmp_path):
    mcd = model("mcd")
    assert mcd.scorer.kind == "distance"
    idx = _build(tmp_path / "mcd", {"backend": BACKEND, "min_rows": 300}, pipeline=mcd, n=600)
    exact = _build(tmp_path / "mcd-exact", "exact", pipeline=mcd, n=600)
    if idx.segments[0].indptr is not None:
        pytest.skip("this MCD keeps a residual (sparse rows): always exact")
    assert idx.info()["search"]["mode"] == "approximate"
    with warnings.catch_warnings():
        warnings.simplefilter("error", _ann.AnnFallbackWarning)
        _check_against_exact(idx, exact, queries()[:8])
