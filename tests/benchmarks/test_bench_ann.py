"""Smoke test of benchmarks/bench_ann.py (recall@10 against throughput of the ANN backends) and of its
vector preparation, benchmarks/ann_vectors.py, on a few thousand random or synthetic vectors."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("faiss", reason="bench_ann compares against faiss (pip install learnsim[ann])")

BENCHMARKS_DIR = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS_DIR))
import ann_vectors  # noqa: E402
import bench_ann  # noqa: E402


def _unit(rng, n, d):
    X = rng.standard_normal((n, d))
    return (X / np.linalg.norm(X, axis=1, keepdims=True)).astype(np.float32)


def test_recall_at_k_counts_shared_ids_and_never_missing_ones():
    reference = np.array([[1, 2, 3, 4], [5, 6, 7, 8]])
    assert bench_ann.recall_at_k(reference, reference) == 1.0
    found = np.array([[4, 3, 9, -1], [8, 7, 6, 5]])          # order does not matter, -1 never matches
    assert bench_ann.recall_at_k(found, reference) == pytest.approx((2 / 4 + 1.0) / 2)
    assert bench_ann.recall_at_k(np.full((2, 4), -1), np.full((2, 4), -1)) == 0.0
    with pytest.raises(ValueError, match="same number of rows"):
        bench_ann.recall_at_k(found[:1], reference)


def test_reference_recall_counts_any_of_the_items_tied_at_the_cut():
    rng = np.random.default_rng(1)
    X = _unit(rng, 50, 8)
    X[7] = X[3]                                                # a duplicate: ties with item 3
    Q = X[[3, 20]] + 0.01
    exact = np.argsort(-(Q.astype(np.float64) @ X.T.astype(np.float64)), axis=1, kind="stable")[:, :3]
    ref = bench_ann.Reference(X, Q, exact)
    assert ref.recall(exact) == 1.0 and ref.id_overlap(exact) == 1.0
    swapped = exact.copy()
    swapped[0, list(exact[0]).index(3)] = 7                    # the other of the tied pair
    assert ref.recall(swapped) == 1.0 and ref.id_overlap(swapped) == pytest.approx(1 - 1 / 6)
    worse = exact.copy()
    worse[1, 2] = np.setdiff1d(np.arange(50), np.r_[exact[1], 3, 7])[0]
    worse[0, 0] = -1                                           # a missing result
    assert ref.recall(worse) == pytest.approx(1 - 1 / 3)
    assert ref.recall(exact[:1]) == 1.0                        # the first queries only


def test_time_single_stops_at_the_budget_after_the_minimum_queries():
    Q = np.zeros((500, 4), dtype=np.float32)
    calls = []

    def search(block):
        calls.append(block.shape[0])
        return np.zeros((block.shape[0], 3), dtype=np.int64)

    qps, found = bench_ann.time_single(search, Q, budget=1e-9, min_queries=7)
    assert found.shape == (7, 3) and calls == [1] * 7 and qps > 0
    qps, found = bench_ann.time_single(search, Q[:5], budget=60.0)
    assert found.shape == (5, 3)


def test_sweeps_follow_the_collection_size():
    by_name = {b: (build, knob, values) for b, build, knob, values in bench_ann.sweeps(1_000_000)}
    assert set(by_name) == set(bench_ann.ANN_NAMES)
    assert by_name["faiss-ivf"][0]["nlist"] == 4000
    assert by_name["faiss-hnsw"][2] == bench_ann.EF_SWEEP and by_name["usearch"][2] == bench_ann.EF_SWEEP
    small = {b: values for b, _, _, values in bench_ann.sweeps(2000, quick=True)}
    assert all(p <= 2000 // 39 for p in small["faiss-ivf"])      # nprobe never beyond nlist
    assert len(small["faiss-hnsw"]) < len(bench_ann.EF_SWEEP)


def test_the_benchmark_on_random_vectors(tmp_path):
    ann = pytest.importorskip("learnsim.ann")
    rng = np.random.default_rng(0)
    X, Q = _unit(rng, 2000, 16), _unit(rng, 40, 16)
    timing = bench_ann.Timing(budget=0.05, repeats=1, clock=bench_ann.CLOCKS["cpu"])
    with bench_ann.one_thread():
        rows, reference = bench_ann.exact_rows("random", X, Q, timing, tmp_path)
        backends = [b for b in ("faiss-flat", "faiss-hnsw", "faiss-ivf", "usearch") if b in ann.available_backends()]
        rows += bench_ann.ann_rows("random", X, Q, reference, backends, True, timing, tmp_path)
    bench_ann.add_ratios(rows)
    assert reference.ids.shape == (40, bench_ann.TOP_K)
    exact_ids = np.argsort(-(Q.astype(np.float64) @ X.T.astype(np.float64)), axis=1)[:, :bench_ann.TOP_K]
    assert bench_ann.recall_at_k(reference.ids, exact_ids) >= 0.99 and reference.recall(exact_ids) == 1.0
    by = {(r["backend"], r["setting"]): r for r in rows}
    assert by[("exact (learnsim)", "ExactIndex")]["x_exact_single"] == 1.0
    assert by[("faiss IndexFlatIP", "raw")]["recall"] >= 0.99
    assert by[("faiss-flat", "-")]["recall"] >= 0.99
    hnsw = [r for r in rows if r["backend"] == "faiss-hnsw"]
    assert len(hnsw) == len(bench_ann.QUICK_EF_SWEEP) and max(r["recall"] for r in hnsw) >= 0.9
    for r in rows:
        assert 0.0 <= r["recall"] <= 1.0 and r["qps_single"] > 0 and r["qps_batch"] > 0
        assert r["size_mb"] > 0 and r["build_s"] >= 0 and r["n_single"] >= 1
    assert not list(tmp_path.iterdir())                      # the saved indexes were removed
    table = bench_ann.markdown_table(rows).splitlines()
    assert len(table) == len(rows) + 2 and table[0].count("|") == 11
    goals = bench_ann.goal_lines(rows, {"random": 2000})
    assert any("learnsim exact / faiss IndexFlatIP" in g for g in goals)
    pytest.importorskip("matplotlib")
    png = bench_ann.plot(rows, {"random": {"n": 2000, "dimensions": 16}}, tmp_path / "plot.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_synthetic_vectors_are_cached_and_checked_on_load(tmp_path, monkeypatch):
    monkeypatch.setattr(ann_vectors, "SYNTHETIC_QUERY_POOL", 300)
    messages = []
    X, Q, info = ann_vectors.prepare("synthetic", tmp_path, dimensions=8, n=2000, fit_n=1000, log=messages.append)
    assert X.shape == (2000, 8) and X.dtype == np.float32 and Q.shape == (ann_vectors.SYNTHETIC_QUERY_POOL, 8)
    assert np.allclose(np.linalg.norm(X, axis=1), 1.0, atol=1e-4)
    assert info["n"] == 2000 and info["fit_items"] == 1000
    again = ann_vectors.prepare("synthetic", tmp_path, dimensions=8, n=2000, fit_n=1000, log=messages.append)
    assert "cached" in messages[-1] and np.array_equal(again[0], X) and np.array_equal(again[1], Q)
    monkeypatch.setattr(ann_vectors, "SYNTHETIC_QUERY_POOL", 200)     # other settings: rebuilt
    assert ann_vectors.prepare("synthetic", tmp_path, dimensions=8, n=2000, fit_n=1000,
                               log=messages.append)[1].shape == (200, 8)
    assert any("other settings" in m for m in messages)
    monkeypatch.setattr(ann_vectors, "SYNTHETIC_QUERY_POOL", 300)
    X, Q, info = ann_vectors.prepare("synthetic", tmp_path, dimensions=8, n=2000, fit_n=1000, log=messages.append)

    folder = ann_vectors.set_dir(tmp_path, "synthetic", 8, 0, 2000)
    forged = X.copy()
    forged[5] *= 2.0                                          # a row that is not of unit length
    np.save(folder / "collection.npy", forged)
    with pytest.raises(ValueError, match="row 5 has norm"):
        ann_vectors.load_set(folder)
    np.save(folder / "collection.npy", X.astype(np.float64))
    with pytest.raises(ValueError, match="float32"):
        ann_vectors.load_set(folder)
    np.save(folder / "collection.npy", X[:10])
    with pytest.raises(ValueError, match="shape"):
        ann_vectors.load_set(folder)
    (folder / "info.json").write_text(json.dumps({"n": "many"}), encoding="utf-8")
    with pytest.raises(ValueError, match="info file"):
        ann_vectors.load_set(folder)
    (folder / "info.json").unlink()
    assert ann_vectors.load_set(folder) is None              # incomplete: rebuilt by prepare
    with pytest.raises(ValueError, match="unknown vector set"):
        ann_vectors.prepare("imagenet", tmp_path)


def test_main_writes_the_table_json_and_plot(tmp_path, monkeypatch, capsys):
    pytest.importorskip("learnsim.ann")
    pytest.importorskip("matplotlib")
    monkeypatch.setattr(ann_vectors, "SYNTHETIC_QUERY_POOL", 300)
    out = tmp_path / "ann.json"
    rows = bench_ann.main(["--corpora", "synthetic", "--synthetic-n", "2000", "--fit-n", "1000", "--dimensions", "8",
                           "--queries", "30", "--quick", "--backends", "faiss-hnsw", "--budget", "0.02",
                           "--repeats", "1", "--clock", "cpu", "--workdir", str(tmp_path / "work"),
                           "--json", str(out), "--plot", str(tmp_path / "ann.png")])
    printed = capsys.readouterr().out
    assert "| synthetic | faiss-hnsw | M=32 ef_construction=200 ef_search=16 |" in printed
    assert "learnsim exact / faiss IndexFlatIP throughput" in printed
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["clock"] == "cpu" and record["search_threads"] == 1
    assert record["corpora"]["synthetic"]["queries_used"] == 30 and len(record["rows"]) == len(rows) == 2 + 3
    assert {r["backend"] for r in record["rows"]} == {"exact (learnsim)", "faiss IndexFlatIP", "faiss-hnsw"}
    assert (tmp_path / "ann.png").stat().st_size > 0
    with pytest.raises(SystemExit):                          # refused before anything runs
        bench_ann.parse_args(["--queries", "0"])
