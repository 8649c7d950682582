"""Recall checked at build (issue 45, part 6): every approximate structure an index writes is
measured against an exact scan before it is kept (200 of its segment's rows and 200 vectors drawn
from a normal distribution with their mean and covariance as queries, recall@10 with ties at the
cut counting); under 0.95 its search effort is
raised, and a structure that still misses the goal is not kept: the segment is scanned exactly and
``info()`` says why.

Checked: the recall, its parameters and its seconds are recorded in segment.json and shown by
``info()["search"]`` and ``learnsim index info`` (after a reopen, compact and reindex too); the
measurement itself against a brute-force count (ties included); a low-recall IVF (nprobe=1) is
raised; a degenerate HNSW (M=2, ef_construction=2) and an unreachable goal fall back to exact,
with a warning, ``exact_because`` and no structure on disk, and the answers are the exact ones.
Small data (the 1,200 documents of test_index_ann.py, ``min_rows`` lowered) so that it runs in
seconds.
"""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from conftest import run_cli
from test_index_ann import BACKEND, K, MIN_ROWS, _build, queries

from learnsim.index import Index
from learnsim.index import _ann

from learnsim.ann import available_backends, make_ann  # noqa: E402  (test_index_ann skips without them)


def _segment_json(idx):
    return [json.loads((idx.path / "segments" / s.name / "segment.json").read_text()) for s in idx.segments]


def test_the_recall_is_measured_and_recorded(tmp_path):
    idx = _build(tmp_path / "a", {"backend": BACKEND, "min_rows": MIN_ROWS})
    s = idx.info()["search"]
    assert s["mode"] == "approximate"
    assert s["recall_at_10"] >= _ann.RECALL_GOAL
    (check,) = s["recall_checks"]
    effort = _ann.EFFORT_PARAM.get(BACKEND)
    assert check["segment"] == idx.segments[0].name and check["rows"] == len(idx)
    if effort:
        assert effort in check["search_params"]
    (meta,) = _segment_json(idx)
    recorded = meta["ann"]["check"]
    # its rows and as many drawn like them as queries; the lower recall is the one checked
    assert recorded["queries"] == 2 * min(_ann.RECALL_QUERIES, len(idx)) and recorded["k"] == 10
    assert recorded["recall_at_10"] == min(recorded["rows_recall_at_10"], recorded["drawn_recall_at_10"])
    assert recorded["goal"] == _ann.RECALL_GOAL and recorded["overfetch"] == _ann.OVERFETCH
    assert recorded["recall_at_10"] == s["recall_at_10"] and recorded["seconds"] >= 0
    # the line of 'learnsim index info', and its JSON
    code, out, err = run_cli(["index", "info", idx.path])
    assert code == 0, err
    assert f"recall@10 {s['recall_at_10']:.3f} checked at build" in out
    code, out, _ = run_cli(["index", "info", idx.path, "--json"])
    assert json.loads(out)["search"]["recall_checks"] == s["recall_checks"]
    # reopened, compacted, reindexed: still measured and shown
    assert Index.open(idx.path).info()["search"]["recall_checks"] == s["recall_checks"]
    idx.compact()
    assert idx.info()["search"]["recall_at_10"] >= _ann.RECALL_GOAL
    idx.reindex()
    s = idx.info()["search"]
    assert s["mode"] == "approximate" and s["recall_checks"][0]["segment"] == idx.segments[0].name


def test_the_measurement_counts_like_a_brute_force_search():
    """measure_recall against a count of its own: a flat (exact) backend scores 1.0 even with
    duplicated rows (ties at the cut), and a poor graph scores what a brute force count says."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((600, 16)).astype(np.float32)
    X[300:330] = X[0]                          # 31 identical rows: ties at the cut of any top 10
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    sample = np.arange(0, 600, 3)
    if "faiss-flat" in available_backends():
        flat = make_ann("faiss-flat", metric="inner_product").fit(X)
        assert _ann.measure_recall(flat, X, None, X[sample], exclude=sample) == 1.0
        assert _ann.measure_recall(flat, X, None, (X[sample] + X[sample[::-1]]) / 2) == 1.0
    config = _low_recall_config()
    del config["min_rows"]
    poor = make_ann(config.pop("backend"), metric="inner_product", **config).fit(X)
    ids, _ = poor.search(X[sample], 10 * _ann.OVERFETCH + 1)
    S = (X[sample] @ X.T).astype(np.float64)
    S[np.arange(sample.size), sample] = -np.inf
    kth = np.sort(S, axis=1)[:, -10]
    found = 0
    for j, i in enumerate(sample):
        cand = [c for c in set(ids[j].tolist()) if c >= 0 and c != i]
        best = sorted((S[j, c] for c in cand), reverse=True)[:10]
        found += sum(v >= kth[j] - 1e-6 for v in best)
    assert _ann.measure_recall(poor, X, None, X[sample], exclude=sample) == pytest.approx(found / (10 * sample.size))


def test_a_low_recall_is_raised(tmp_path):
    if "faiss-ivf" not in available_backends():
        pytest.skip("faiss-ivf is not installed")
    idx = _build(tmp_path / "ivf", {"backend": "faiss-ivf", "min_rows": MIN_ROWS, "nprobe": 1})
    s = idx.info()["search"]
    (meta,) = _segment_json(idx)
    check = meta["ann"]["check"]
    assert s["mode"] == "approximate" and check["recall_at_10"] >= _ann.RECALL_GOAL
    # measured at nprobe 1 first, under the goal, then raised: the structure searches with the raised effort
    assert check["tries"][0][0] == 1 and check["tries"][0][1] < _ann.RECALL_GOAL
    assert check["search_params"]["nprobe"] > 1
    # doubled until the goal was met, then the last doubling halved (at most BISECT_STEPS times):
    # the effort kept is the least measured at the goal, and every effort under it measured missed it
    values = [t[0] for t in check["tries"]]
    doubled = [v for v in values if v & (v - 1) == 0]
    assert doubled == [2 ** i for i in range(len(doubled))] and values[:len(doubled)] == doubled
    assert 0 < len(values) - len(doubled) <= _ann.BISECT_STEPS or doubled[-1] - doubled[-2] == 1
    met = [v for v, r in check["tries"] if r >= _ann.RECALL_GOAL]
    assert check["search_params"]["nprobe"] == min(met)
    assert all(r < _ann.RECALL_GOAL for v, r in check["tries"] if v < min(met))
    assert dict(check["tries"])[min(met)] == check["recall_at_10"]
    assert _ann.segment_ann(Index.open(idx.path).segments[0], None).get_search_params()["nprobe"] == \
        check["search_params"]["nprobe"]


def _low_recall_config():
    """A graph of 2 links a node built with a search of 2: recall@10 about 0.55 at any effort."""
    if "faiss-hnsw" in available_backends():
        return {"backend": "faiss-hnsw", "min_rows": MIN_ROWS, "M": 2, "ef_construction": 2, "ef_search": 1}
    if "usearch" in available_backends():
        return {"backend": "usearch", "min_rows": MIN_ROWS, "connectivity": 2, "expansion_add": 2,
                "expansion_search": 1}
    pytest.skip("neither faiss-hnsw nor usearch is installed")


@pytest.mark.parametrize("how", ["degenerate graph", "goal out of reach"])
def test_a_structure_under_the_goal_is_not_kept(tmp_path, monkeypatch, how):
    if how == "degenerate graph":
        config = _low_recall_config()
    else:
        monkeypatch.setattr(_ann, "RECALL_GOAL", 1.01)     # no structure can reach it
        config = {"backend": BACKEND, "min_rows": MIN_ROWS}
    with pytest.warns(_ann.AnnFallbackWarning, match="recall@10 .* under .*scanned exactly"):
        idx = _build(tmp_path / "low", config)
    s = idx.info()["search"]
    assert s["mode"] == "exact" and s["ann_rows"] == 0 and s["exact_rows"] == len(idx)
    (why, rows), = s["exact_because"].items()
    assert rows == len(idx) and "recall@10" in why and "scanned exactly" in why
    assert "recall_checks" not in s
    (meta,) = _segment_json(idx)
    assert "ann" not in meta and meta["ann_exact"]["check"]["recall_at_10"] < _ann.RECALL_GOAL
    check = meta["ann_exact"]["check"]
    effort = _ann.EFFORT_PARAM.get(meta["ann_exact"]["backend"])
    if effort:
        # the effort was doubled up to its cap before giving up
        values = [t[0] for t in check["tries"]]
        assert values == [values[0] * 2 ** i for i in range(len(values) - 1)] + [values[-1]]
        assert check["search_params"][effort] == values[-1] <= _ann.EFFORT_CAP and len(values) > 1
    assert not (idx.path / "segments" / idx.segments[0].name / "ann").exists()
    code, out, _ = run_cli(["index", "info", idx.path])
    assert code == 0 and "recall@10" in out and "scanned exactly" in out
    # searched exactly: the exact index's answers
    exact = _build(tmp_path / "exact", "exact")
    with warnings.catch_warnings():
        warnings.simplefilter("error", _ann.AnnFallbackWarning)
        for q in queries()[:4]:
            assert [h["id"] for h in idx.search(q, K)] == [h["id"] for h in exact.search(q, K)]
    # reopened: the same reason
    assert Index.open(idx.path).info()["search"]["exact_because"] == s["exact_because"]


class _Effort:
    """A stand-in structure whose recall is a step of its effort: what _check_recall sees."""

    def __init__(self, start, needed, name="nprobe"):
        self.params, self.needed, self.name, self.nlist_ = {name: start}, needed, name, 4096

    def get_search_params(self):
        return dict(self.params)

    def set_search_params(self, **kw):
        self.params.update(kw)


@pytest.mark.parametrize("start, needed, expected", [
    (16, 77, [16, 32, 64, 128, 96, 80]),     # doubled to 128, then 96 and 80 both reach the goal
    (16, 100, [16, 32, 64, 128, 96, 112]),   # 96 misses: 112, the least measured at the goal
    (1, 2, [1, 2]),                          # nothing between 1 and 2
    (8, 8, [8]),                             # at the goal at once: nothing to narrow
])
def test_the_effort_is_narrowed_after_doubling(monkeypatch, start, needed, expected):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 8))
    ann = _Effort(start, needed)
    # the recall at an effort: every hit found at the needed effort or more, 9 of 10 below it
    monkeypatch.setattr(_ann, "_hits", lambda ann, dense, sq, Q, exclude, kth, k, overfetch:
                        np.full(Q.shape[0], k if ann.params["nprobe"] >= ann.needed else k - 1))
    check = _ann._check_recall(ann, "faiss-ivf", X, None)
    assert [v for v, _ in check["tries"]] == expected if len(expected) > 1 else "tries" not in check
    chosen = [v for v in expected if v >= needed]
    assert check["search_params"] == {"nprobe": min(chosen)} == {"nprobe": ann.params["nprobe"]}
    doublings = [v for v in expected if v & (v - 1) == 0]
    assert check["recall_at_10"] == 1.0 and len(expected) - len(doublings) <= _ann.BISECT_STEPS
