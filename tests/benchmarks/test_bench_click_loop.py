"""benchmarks/bench_click_loop.py (issue 34, point 4) in its quick size: the simulated
learn-compare-promote loop runs end to end through the product's parts, writes its table, JSON and
SVG with both measures (the sessions' own queries first, the held-out queries beside them), and no
promotion leaves the served ranking below the starting one on the sessions' queries."""
import json
import sys

from conftest import REPO_ROOT, require_corpus, shared_data_dir

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import bench_click_loop  # noqa: E402


def test_click_model_is_position_based():
    import numpy as np

    model = bench_click_loop.ClickModel()
    rng = np.random.default_rng(0)
    counts = np.zeros(10)
    for _ in range(4000):
        counts[model.clicks(np.ones(10, dtype=bool), rng)] += 1
    # P(click at r) = 0.9 / r: rank 1 about twice rank 2 and ten times rank 10
    assert abs(counts[0] / 4000 - 0.9) < 0.03 and abs(counts[1] / counts[0] - 0.5) < 0.07
    assert counts[9] < counts[0] / 5


def test_naive_pairs_ignore_position():
    log = [{"query": "q", "shown": ["a", "b", "c"], "client": "u", "clicks": [{"doc_id": "a", "position": 1}]}]
    # Joachims' pairs give only "a > b" (the next one below); the naive conversion also "a > c"
    assert bench_click_loop.naive_comparisons(log) == [("q", "a", "b"), ("q", "a", "c")]


def test_quick_loop(tmp_path, capsys):
    require_corpus("20newsgroups/20news-bydate.tar.gz")
    out, plot = tmp_path / "loop.json", tmp_path / "loop.svg"
    assert bench_click_loop.main(["--quick", "--rows", "ipw", "joachims", "spam-30", "--data-dir",
                                  str(shared_data_dir()), "--json", str(out), "--plot", str(plot)]) == 0
    result = json.loads(out.read_text())
    assert [r["row"] for r in result["rows"]] == ["start", "ipw", "joachims", "spam-30", "ceiling"]
    for rec in result["loops"]:
        assert len(rec["curve"]) == result["settings"]["sessions"] // result["settings"]["block"] + 1
        assert len(rec["curve_sessions"]) == len(rec["curve"])
        assert rec["curve"][0] == [0, result["start_ndcg"]]
        assert rec["curve_sessions"][0] == [0, result["start_ndcg_sessions"]]
        # the guard, on the issue's measure (the sessions' own queries): no promotion leaves the
        # served ranking below the starting one
        assert all(p["minus_start_sessions"] >= 0 for p in rec["promotions"]), rec["promotions"]
        assert all(y >= result["start_ndcg_sessions"] for _, y in rec["curve_sessions"])
        # a decision at most at the end of each block after the first; a fit that fell back stages
        # nothing, and a staged candidate is looked at no more than max_looks times
        assert len(rec["decisions"]) <= len(rec["curve"]) - 2
        assert all(1 <= d["look"] <= result["settings"]["max_looks"] for d in rec["decisions"])
        assert len(rec["fits"]) <= len(rec["curve"]) - 2
    # both measures in the rows: the sessions' queries (primary) and the held-out queries
    for r in result["rows"]:
        for key in ("ndcg_sessions", "gap_closed_sessions", "min_minus_start_sessions", "ndcg", "gap_closed",
                    "min_minus_start"):
            assert key in r, (key, r)
    start_row, ceiling_row = result["rows"][0], result["rows"][-1]
    assert start_row["ndcg_sessions"] == result["start_ndcg_sessions"] and start_row["ndcg"] == result["start_ndcg"]
    assert ceiling_row["ndcg_sessions"] == result["ceiling_ndcg_sessions"]
    table = capsys.readouterr().out
    for label in ("starting model", "inverse propensity", "Joachims pairs", "30 % spam", "ceiling",
                  "sessions' queries", "held-out queries"):
        assert label in table
    header = table[table.index("| row |"):].splitlines()[0]
    assert header.index("sessions' queries") < header.index("held-out queries")
    picture = plot.read_text()
    assert picture.startswith("<svg") and "polyline" in picture
    assert "the sessions' queries" in picture
    assert "held-out queries" in picture
