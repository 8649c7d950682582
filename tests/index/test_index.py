"""learnsim.index for each model family: an index searches as the in-memory pipeline and the CLI
do, grows by adds (equal to a build in one go after reindex), filters, deletes, updates,
compacts, reopens and explains consistently, and its numpy query plan equals the pipeline path.

The families and their small synthetic collection: tests/test_index_models.py.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import run_cli
from index_edit import without_plan
from index_models import FAMILIES, corpus, model

from learnsim.index import Index

# scores of an index in float64 equal the in-memory search's to this
TOL = 1e-6


def _queries():
    texts = corpus()[0]
    # documents of the collection, and a new text mixing two of them
    return [texts[0], texts[33], texts[71], " ".join(texts[5].split()[:20] + texts[100].split()[:20])]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """{family: Index} built in one go in float64 (read only: tests that write copy one)."""
    texts, _, ids, meta = corpus()
    root = tmp_path_factory.mktemp("indexes")
    return {f: Index.build(root / f, model(f), texts, ids, meta, dtype="float64") for f in FAMILIES}


def _fresh(family, path, **kwargs):
    texts, _, ids, meta = corpus()
    return Index.build(path, model(family), texts, ids, meta, dtype="float64", **kwargs)


def _assert_same_hits(a, b, tol=TOL):
    """Two lists of hits (dicts with id and score): same ids in order, scores to tol of their
    scale (the in-memory search of the term-weight models sums in float32: 1e-7 relative)."""
    assert [h["id"] for h in a] == [h["id"] for h in b]
    sa, sb = np.array([h["score"] for h in a]), np.array([h["score"] for h in b])
    scale = max(1.0, float(np.abs(sb).max(initial=0.0)))
    np.testing.assert_allclose(sa, sb, rtol=0, atol=tol * scale)


def _memory_hits(family, queries, texts, ids, k):
    found = model(family).search(queries, texts, k=k)
    return [[{"id": ids[h["corpus_id"]], "score": h["score"]} for h in hits] for hits in found]


# ---------------------------------------------------------------------- 1. same ranking as in memory
@pytest.mark.parametrize("family", FAMILIES)
def test_search_equals_the_in_memory_pipeline_search(built, family):
    texts, _, ids, _ = corpus()
    idx = built[family]
    assert idx.scoring == model(family).scoring
    queries = _queries()
    got = idx.search(queries, k=8)
    assert len(got) == len(queries)
    for hits, mem in zip(got, _memory_hits(family, queries, texts, ids, 8)):
        assert len(hits) == 8
        _assert_same_hits(hits, mem)
        assert [h["rank"] for h in hits] == list(range(1, 9))
        assert all(h["text"] == texts[int(h["id"][1:])] for h in hits)
    # a single str query gives one list of hits; k beyond the collection lists every document
    single = idx.search(queries[1], k=5)
    _assert_same_hits(single, got[1][:5])
    assert len(idx.search(queries[0], k=10_000)) == len(texts)


@pytest.mark.parametrize("family", [f for f in FAMILIES if f not in ("mcd", "relative")])
def test_float32_rows_rank_as_float64_rows_to_their_precision(built, family, tmp_path):
    texts, _, ids, meta = corpus()
    # (the distance models store float64 by default: float32 would round a near distance away)
    assert Index.build(tmp_path / "default", model("mcd"), texts[:10]).info()["dtype"] == "float64"
    idx32 = Index.build(tmp_path / "f32", model(family), texts, ids, meta, dtype="float32")
    for a, b in zip(idx32.search(_queries(), k=5), built[family].search(_queries(), k=5)):
        scale = max(1.0, max(abs(h["score"]) for h in b))
        np.testing.assert_allclose([h["score"] for h in a], [h["score"] for h in b], rtol=0, atol=1e-5 * scale)


@pytest.mark.parametrize("family", FAMILIES)
def test_search_equals_the_cli_ranking(built, family, tmp_path):
    texts, _, ids, _ = corpus()
    model_file = tmp_path / "model.npz"
    model(family).save(model_file)
    corpus_file = tmp_path / "docs.tsv"
    corpus_file.write_text("".join(f"{i}\t{t}\n" for i, t in zip(ids, texts)), encoding="utf-8")
    query = _queries()[3]
    code, out, err = run_cli(["search", "--model", model_file, "--corpus", corpus_file, "--query", query,
                              "-k", 6, "--json"])
    assert code == 0, err
    (result,) = json.loads(out)
    idx = built[family]
    column = idx.column
    assert result["scoring"] == idx.scoring
    cli_hits = [{"id": h["id"], "score": h[column]} for h in result["hits"]]
    _assert_same_hits(idx.search(query, k=6), cli_hits)


# ---------------------------------------------------------------------- 2. adds + reindex == build
@pytest.mark.parametrize("family", FAMILIES)
def test_build_from_a_part_plus_adds_and_reindex_equals_a_build_in_one_go(built, family, tmp_path):
    texts, _, ids, meta = corpus()
    idx = Index.build(tmp_path / "grown", model(family), texts[:70], ids[:70], meta[:70], dtype="float64")
    assert idx.info()["added_since_statistics"] == 0
    assert idx.add(texts[70:95], ids[70:95], meta[70:95]) == ids[70:95]
    assert idx.add(texts[95:], ids[95:], meta[95:]) == ids[95:]
    info = idx.info()
    assert info["added_since_statistics"] == len(texts) - 70
    assert info["documents"] == len(idx) == len(texts)
    assert info["segments"] == 3
    idx.reindex()
    assert idx.info()["added_since_statistics"] == 0
    assert idx.info()["segments"] == 1
    for a, b in zip(idx.search(_queries(), k=8), built[family].search(_queries(), k=8)):
        _assert_same_hits(a, b)
    # the same after reopening
    for a, b in zip(Index.open(tmp_path / "grown").search(_queries(), k=8), built[family].search(_queries(), k=8)):
        _assert_same_hits(a, b)


# ---------------------------------------------------------------------- 3. metadata filters
@pytest.mark.parametrize("family", FAMILIES)
def test_filters_never_return_a_filtered_out_document(built, family):
    texts, topics, ids, meta = corpus()
    idx = built[family]
    q = _queries()[3]
    hits = idx.search(q, k=1000, filter={"topic": 2})
    assert len(hits) == topics.count(2)
    assert all(h["metadata"]["topic"] == 2 for h in hits)
    # the filtered hits are the unfiltered ranking restricted to the filter, in order
    everything = idx.search(q, k=1000)
    _assert_same_hits(hits, [h for h in everything if h["metadata"]["topic"] == 2])
    few = idx.search(q, k=3, filter={"topic": 2})
    _assert_same_hits(few, hits[:3])
    # list-valued: any of the values; several fields: all of them
    both = idx.search(q, k=1000, filter={"topic": [1, 3]})
    assert len(both) == topics.count(1) + topics.count(3)
    assert {h["metadata"]["topic"] for h in both} == {1, 3}
    even = idx.search(q, k=1000, filter={"topic": [1, 3], "half": "even"})
    assert len(even) == sum(1 for m in meta if m["topic"] in (1, 3) and m["half"] == "even")
    assert all(h["metadata"]["half"] == "even" for h in even)
    assert idx.search(q, k=5, filter={"topic": 99}) == []
    assert idx.search(q, k=5, filter={"nosuchfield": 1}) == []
    # a str "2" is not the number 2
    assert idx.search(q, k=5, filter={"topic": "2"}) == []
    # more_like filters too, and leaves the document itself out
    like = idx.more_like("d40", k=1000, filter={"topic": topics[40]})
    assert len(like) == topics.count(topics[40]) - 1
    assert "d40" not in [h["id"] for h in like]


@pytest.mark.parametrize("bad, error", [({}, TypeError), ("topic", TypeError), ({"topic": {"a": 1}}, TypeError),
                                        ({"topic": []}, ValueError), ({"bad field!": 1}, ValueError),
                                        ({"topic": float("nan")}, TypeError), ({3: 1}, ValueError)])
def test_bad_filters_are_refused_by_name(built, bad, error):
    with pytest.raises(error, match="filter"):
        built["mcd"].search("w001", k=3, filter=bad)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "3"])
def test_bad_k_is_refused(built, bad):
    with pytest.raises(ValueError, match="k must be"):
        built["linklearn"].search("w001", k=bad)


# ---------------------------------------------------------------------- 4. delete / update / compact / reopen
@pytest.mark.parametrize("family", FAMILIES)
def test_delete_update_compact_reopen_stay_consistent(family, tmp_path):
    texts, topics, ids, meta = corpus()
    idx = _fresh(family, tmp_path / "idx")
    n = len(texts)
    gone = ["d0", "d1", "d33", "d71", "d100"]
    assert idx.delete(gone) == 5
    assert len(idx) == n - 5 and idx.info()["deleted"] == 5
    for hits in idx.search(_queries(), k=1000):
        assert len(hits) == n - 5
        assert not set(gone) & {h["id"] for h in hits}
    with pytest.raises(KeyError, match="d0"):
        idx.delete(["d0"])
    assert idx.delete(["d0", "d2"], missing_ok=True) == 1
    gone.append("d2")
    with pytest.raises(KeyError, match="d0"):
        idx.document("d0")
    with pytest.raises(KeyError):
        idx.more_like("d1")
    # update: d10 gets the text of d50 (and new metadata); both are then equally close to it
    idx.update(["d10"], [texts[50]], [{"topic": 99}])
    assert idx.document("d10") == (texts[50], {"topic": 99})
    top = idx.search(texts[50], k=2)
    assert {h["id"] for h in top} == {"d10", "d50"}
    assert abs(top[0]["score"] - top[1]["score"]) <= TOL
    assert [h["id"] for h in idx.search(texts[50], k=10, filter={"topic": 99})] == ["d10"]
    with pytest.raises(KeyError, match="use add"):
        idx.update(["d0"], ["w001"])
    # an update naming one missing id changes nothing
    with pytest.raises(KeyError, match="nope"):
        idx.update(["d20", "nope"], ["w001", "w002"])
    assert idx.document("d20") == (texts[20], meta[20])
    # the live collection in the order of its sequence numbers (an update goes to the end)
    live = [i for i in range(n) if ids[i] not in gone and i != 10]
    live_texts, live_ids = [texts[i] for i in live] + [texts[50]], [ids[i] for i in live] + ["d10"]
    before = idx.search(_queries(), k=12)
    if "vocabulary" not in idx.statistics and idx.kind != "term_weights":
        # no collection statistics (the distance models): deletes and updates already give the
        # live collection's ranking; the others' lexical part keeps the build's vocabulary and
        # statistics until reindex (issue 32, part 6)
        for a, b in zip(before, _memory_hits(family, _queries(), live_texts, live_ids, 12)):
            _assert_same_hits(a, b)
    like = idx.more_like("d40", k=6)
    own = [h for h in idx.search(texts[40], k=7) if h["id"] != "d40"][:6]
    _assert_same_hits(like, own)
    n_segments = idx.info()["segments"]
    assert n_segments == 2
    idx.compact()
    info = idx.info()
    assert info["segments"] == 1 and info["deleted"] == 0 and info["documents"] == n - 6
    for a, b in zip(idx.search(_queries(), k=12), before):
        _assert_same_hits(a, b)
    reopened = Index.open(tmp_path / "idx")
    assert len(reopened) == n - 6
    for a, b in zip(reopened.search(_queries(), k=12), before):
        _assert_same_hits(a, b)
    # after reindex, every model ranks as the in-memory search of the live texts
    reopened.reindex()
    for a, b in zip(reopened.search(_queries(), k=12), _memory_hits(family, _queries(), live_texts, live_ids, 12)):
        _assert_same_hits(a, b)


def test_duplicate_ids_are_refused_with_nothing_written(tmp_path):
    texts, _, ids, meta = corpus()
    idx = _fresh("linklearn", tmp_path / "idx")
    state = (len(idx), idx.info()["segments"], idx.store.last_seq())
    with pytest.raises(ValueError, match="d3"):
        idx.add(["w001 w002", texts[3]], ["new1", "d3"])
    with pytest.raises(ValueError, match="twice"):
        idx.add(["w001", "w002"], ["new2", "new2"])
    assert (len(idx), idx.info()["segments"], idx.store.last_seq()) == state
    with pytest.raises(KeyError):
        idx.document("new1")
    reopened = Index.open(tmp_path / "idx")
    assert (len(reopened), reopened.info()["segments"], reopened.info()["unsegmented"]) == state[:2] + (0,)
    # a deleted id can be added again
    idx.delete("d3")
    assert idx.add(["w001 w002"], ["d3"]) == ["d3"]
    assert idx.document("d3")[0] == "w001 w002"
    # bad input to build/add
    with pytest.raises(TypeError, match="single str"):
        idx.add("w001")
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        idx.add(["w001", 3])
    with pytest.raises(ValueError, match="2 ids for 1 texts"):
        idx.add(["w001"], ["a", "b"])
    with pytest.raises(ValueError, match="JSON"):
        idx.add(["w001"], ["a"], [{"x": float("inf")}])
    with pytest.raises(FileExistsError, match="not empty"):
        _fresh("linklearn", tmp_path / "idx")


# ---------------------------------------------------------------------- 5. explanations
@pytest.mark.parametrize("family", FAMILIES)
def test_explanations_sum_to_the_hit_scores(built, family):
    idx = built[family]
    for q in _queries()[2:]:
        hits = idx.search(q, k=4, explain=True, n_top=5)
        assert len(hits) == 4
        for h in hits:
            e = h["explanation"]
            assert len(e["words"]) <= 5
            total = sum(w["contribution"] for w in e["words"]) + e["rest"]
            assert e["score"] == pytest.approx(h["score"], abs=TOL)
            if idx.kind == "distance":
                # the words split the squared distance
                assert e["squared_distance"] == pytest.approx(h["score"] ** 2, abs=TOL)
                assert total == pytest.approx(e["squared_distance"], abs=TOL)
            else:
                assert total == pytest.approx(h["score"], abs=TOL)


# ---------------------------------------------------------------------- 7. query plan == pipeline path
@pytest.mark.parametrize("family", FAMILIES)
def test_the_query_plan_equals_the_pipeline_path(built, family, tmp_path):
    idx = built[family]
    assert idx.info()["query_plan"]
    slow = without_plan(idx.path, tmp_path)
    queries = _queries() + ["", "unknownword", "W001 w001, w002!"]
    for a, b in zip(slow.search(queries, k=10), idx.search(queries, k=10)):
        # (1e-6: a distance of a document to itself is the square root of rounding errors)
        _assert_same_hits(a, b, tol=1e-6)


def test_a_search_with_a_plan_imports_neither_sklearn_nor_the_pipeline(built):
    paths = [str(built[f].path) for f in FAMILIES]
    code = textwrap.dedent(f"""
        import sys
        from learnsim.index import Index
        for p in {paths!r}:
            hits = Index.open(p).search("w001 w002 w003", k=3)
            assert len(hits) == 3, hits
        bad = sorted(m for m in sys.modules if m.split(".")[0] == "sklearn" or m == "learnsim.pipeline")
        print("imported:", bad)
        sys.exit(1 if bad else 0)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


# ---------------------------------------------------------------------- cluster and info
def test_cluster_groups_the_topics_and_info_describes_the_index(built):
    _, topics, ids, _ = corpus()
    idx = built["mcd"]
    labels = idx.cluster(6)
    assert set(labels) == set(ids)
    # each topic mostly in one cluster
    agree = 0
    for t in set(topics):
        members = [labels[i] for i, tt in zip(ids, topics) if tt == t]
        agree += max(members.count(c) for c in set(members))
    assert agree >= 0.8 * len(ids)
    with pytest.raises(ValueError, match="either k"):
        idx.cluster()
    with pytest.raises(ValueError, match="more than"):
        idx.cluster(10_000)
    info = idx.info()
    assert info["documents"] == len(ids) and info["kind"] == "distance" and info["dtype"] == "float64"
    assert info["method"] == "MinimumClusterDistortion" and info["bytes"] > 0


def test_the_module_functions_build_and_open_the_same_index(tmp_path):
    import learnsim.index as li

    texts, _, ids, meta = corpus()
    model_file = tmp_path / "model.npz"
    model("relative").save(model_file)
    built_ = li.build(tmp_path / "idx", model_file, texts[:40], ids[:40], meta[:40])
    opened = li.open_index(tmp_path / "idx")
    _assert_same_hits(opened.search(texts[3], k=5), built_.search(texts[3], k=5))
    assert issubclass(li.IndexFormatError, ValueError)
    assert "Index(" in repr(opened) and len(opened) == 40


def test_default_ids_are_the_sequence_numbers(tmp_path):
    texts = corpus()[0]
    idx = Index.build(tmp_path / "idx", model("bm25"), texts[:5])
    assert sorted(h["id"] for h in idx.search(texts[0], k=10)) == ["1", "2", "3", "4", "5"]
    assert idx.add(texts[5:7]) == ["6", "7"]
    assert idx.document("7")[0] == texts[6]
    # a given id that a later default id would take: the default id skips it (it used to wedge
    # every later add without ids)
    idx.add([texts[7]], ["9"])
    assert idx.add(texts[8:10]) == ["10", "11"]
    assert idx.document("9")[0] == texts[7] and idx.document("11")[0] == texts[9]
    assert len(idx) == 10 and len(Index.open(tmp_path / "idx")) == 10


def test_two_handles_see_each_others_deletes_and_adds(tmp_path):
    """A handle opened before another one (or another process) deleted documents never returns
    them, and its compact does not bring them back."""
    texts, _, ids, meta = corpus()
    a = _fresh("mcd", tmp_path / "idx")
    b = Index.open(tmp_path / "idx")
    b.delete(["d1", "d2"])
    assert not {"d1", "d2"} & {h["id"] for h in a.search(texts[1], k=1000)}
    assert len(a.search(texts[1], k=1000)) == len(texts) - 2
    assert a.info()["deleted"] == 2
    b.add([texts[1]], ["d1-again"])
    assert a.search(texts[1], k=1)[0]["id"] == "d1-again"
    b.delete("d3")
    a.compact()                                   # a's view of the deletes was stale before it
    for handle in (a, b, Index.open(tmp_path / "idx")):
        hits = handle.search(texts[3], k=1000)
        assert len(hits) == len(texts) - 2 and not {"d1", "d2", "d3"} & {h["id"] for h in hits}
    assert "d3" not in {h["id"] for h in b.more_like("d4", k=1000)}


def test_a_handle_sees_another_handles_reindex_and_merges(tmp_path):
    """A long-lived reader (a server's) searches as a freshly opened handle after another handle
    reindexed (new statistics, so a new query plan) or merged small segments away."""
    from learnsim.index import core

    texts, _, ids, meta = corpus()
    reader = Index.build(tmp_path / "idx", model("bm25"), texts[:60], ids[:60])
    writer = Index.open(tmp_path / "idx")
    query = texts[70]
    reader.search(query, k=5)                     # the reader has loaded its query plan
    for i in range(60, 60 + core.MERGE_AT + 2):   # small adds: merged once MERGE_AT accumulate
        writer.add([texts[i]], [ids[i]])
    assert len(reader.search(query, k=1000)) == 60 + core.MERGE_AT + 2
    writer.reindex()                              # the statistics (and the plan) change
    fresh = Index.open(tmp_path / "idx")
    got, want = reader.search(query, k=10), fresh.search(query, k=10)
    assert [h["id"] for h in got] == [h["id"] for h in want]
    assert np.allclose([h["score"] for h in got], [h["score"] for h in want], rtol=1e-6)


def test_a_reader_retries_when_segments_vanish_under_it(tmp_path, monkeypatch):
    """Between a reader's reading the manifest and its opening the segments listed there, a
    writer may merge them away: the reader reads the newer manifest instead of failing."""
    from learnsim.index import core

    texts, _, ids, _ = corpus()
    reader = Index.build(tmp_path / "idx", model("mcd"), texts[:50], ids[:50])
    Index.open(tmp_path / "idx").add(texts[50:55], ids[50:55])
    real, failures = core.Segment, []

    def vanishing(*args, **kwargs):
        if not failures:
            failures.append(1)
            # as a writer does: it publishes a newer manifest (a new file, renamed into place)
            # before it removes the segments the old one listed
            manifest = tmp_path / "idx" / "manifest.json"
            shutil.copyfile(manifest, manifest.with_name("manifest.json.new"))
            os.replace(manifest.with_name("manifest.json.new"), manifest)
            raise core.IndexFormatError("segment files vanished")
        return real(*args, **kwargs)

    monkeypatch.setattr(core, "Segment", vanishing)
    hits = reader.search(texts[52], k=1)
    assert failures and hits[0]["id"] == ids[52]
    # a damage that stays is still an error, not a silent stale view
    monkeypatch.setattr(core, "Segment", real)
    Index.open(tmp_path / "idx").add(texts[55:56], ids[55:56])

    def damaged(*args, **kwargs):
        raise core.IndexFormatError("damaged")

    monkeypatch.setattr(core, "Segment", damaged)
    with pytest.raises(core.IndexFormatError, match="damaged"):
        reader.search(texts[52], k=1)


def test_warm_loads_what_the_first_search_would(built):
    """Index.warm: the query plan is loaded and every segment checked before any search."""
    idx = Index.open(built["bm25"].path)
    assert idx._plan is None and not any(getattr(s, "_checked", True) for s in idx.segments)
    assert idx.warm() is idx
    assert idx._plan is not None and all(getattr(s, "_checked", True) for s in idx.segments)
    texts = corpus()[0]
    assert idx.search(texts[3], k=1)[0]["id"] == built["bm25"].search(texts[3], k=1)[0]["id"]


def test_warm_loads_the_exact_scans_kernels_too(built, monkeypatch):
    """A server's index whose one large segment is searched through an approximate structure
    runs no exact-scan kernel until a write adds a small segment; Index.warm loads them (numba's
    import, 0.8-1.1 s, was that first search's wait, and its clients')."""
    from learnsim.index import _kernels as K

    seen = []
    monkeypatch.setattr(K, "warm_dense", lambda D, n_total: seen.append((D.dtype, D.shape, n_total)))
    for family, idx in built.items():
        seen.clear()
        fresh = Index.open(idx.path)
        fresh.warm()
        dense = [s.dense for s in fresh.segments if getattr(s, "dense", None) is not None]
        # one call per dtype of dense rows, with the rows of a segment and the whole index's size
        assert [(d, n) for d, _, n in seen] == ([(dense[0].dtype, len(fresh))] if dense else []), family
        if dense:
            assert seen[0][1][1] == dense[0].shape[1]


def test_warm_dense_compiles_for_the_rows_dtype(monkeypatch):
    pytest.importorskip("numba")
    from learnsim.index import _kernels as K

    monkeypatch.setenv("LEARNSIM_NUMBA", "1")
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        D = rng.standard_normal((100, 8)).astype(dtype)
        K.warm_dense(D, 10 ** 6)
        name = np.dtype(dtype).name
        for kernel in ("dots_at", "largest_k_chunked", "largest_k"):
            assert any(name in str(sig) for sig in K._compiled[kernel].signatures), (kernel, name)
    K.warm_dense(None, 10 ** 6)                              # no dense rows: nothing to do
    K.warm_dense(np.zeros((0, 8), dtype=np.float32), 10 ** 6)
    monkeypatch.setenv("LEARNSIM_NUMBA", "0")
    K.warm_dense(np.ones((4, 8), dtype=np.float32), 10 ** 6)  # the numpy path: nothing to load
