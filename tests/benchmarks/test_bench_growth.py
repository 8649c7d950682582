"""Smoke tests of benchmarks/bench_growth.py (cost growth of the fits and of search) at tiny
sizes: its data builders, slopes, predictions, skip rule and report, and one end-to-end run
of a cheap method in child processes."""
from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest

from conftest import REPO_ROOT

BENCHMARKS_DIR = REPO_ROOT / "benchmarks"


@pytest.fixture(scope="module")
def growth():
    sys.path.insert(0, str(BENCHMARKS_DIR))
    try:
        import bench_growth
    finally:
        sys.path.remove(str(BENCHMARKS_DIR))
    return bench_growth


def test_slopes_recover_a_power_law(growth):
    sizes = [1_000, 3_000, 10_000, 30_000]
    seconds = [2e-6 * n ** 1.3 for n in sizes]
    steps, fitted = growth.loglog_slopes(sizes, seconds)
    assert len(steps) == 3
    assert np.allclose(steps, 1.3, atol=1e-9)
    assert fitted == pytest.approx(1.3, abs=1e-9)
    # the next size follows the last slope; after one size the guess is linear
    assert growth.predict(sizes, seconds, 100_000) == pytest.approx(2e-6 * 100_000 ** 1.3, rel=1e-9)
    assert growth.predict([1_000], [4.0], 10_000) == pytest.approx(40.0)
    assert math.isnan(growth.predict([], [], 10_000))
    assert math.isnan(growth.loglog_slopes([1_000], [1.0])[1])


def test_links_are_bounded_and_within_topics(growth):
    topics = np.random.default_rng(0).integers(0, 7, 500)
    A = growth.topic_links(topics, 3, seed=0)
    assert A.shape == (500, 500)
    per_doc = np.diff(A.indptr)
    assert per_doc.max() <= 3 and per_doc.mean() > 2.5      # bounded per document, few collisions
    rows = np.repeat(np.arange(500), per_doc)
    assert not np.any(rows == A.indices)                    # no self-links
    assert np.all(topics[rows] == topics[A.indices])        # links stay inside a topic


def test_sentence_data_grows_in_proportion(growth):
    small, large = growth.sentence_data(400, seed=0), growth.sentence_data(1_600, seed=0)
    for data, n in ((small, 400), (large, 1_600)):
        assert data["X"].shape[0] == n and data["labels"].shape == (n,)
        sizes = np.bincount(data["labels"][data["labels"] >= 0])
        assert sizes[sizes > 0].min() >= 2 and sizes.max() <= 5   # clusters of bounded size
        assert data["triplets"].shape[1] == 3
    # triplets per sentence stay about the same as n grows (the work is linear in n)
    per_small = len(small["triplets"]) / 400
    per_large = len(large["triplets"]) / 1_600
    assert 0.7 < per_large / per_small < 1.4


def test_a_fit_in_process_reports_time_and_memory(growth):
    row = growth._fit_method("vectorizer", 300, seed=0)
    assert set(row["measures"]) == {"fit+transform"}
    assert row["seconds"] > 0 and row["measures"]["fit+transform"] == row["seconds"]
    assert row["peak_mb"] is None or row["peak_mb"] > 10
    assert row["details"]["nnz"] > 300 * 10            # documents of 20-80 words
    for bad in ("nope", "index-film"):                  # an index is built, not fitted
        with pytest.raises(ValueError, match="unknown method"):
            growth._fit_method(bad, 300, seed=0)


def test_a_fit_predicted_past_the_limit_is_skipped(growth, monkeypatch, tmp_path):
    calls = []

    def fake_child(args, role, timeout=None, **opts):
        calls.append(opts["n"])
        seconds = 1e-3 * opts["n"] ** 1.5 / 1e3          # 1 s at 10k, slope 1.5
        return {"measures": {"fit": seconds}, "seconds": seconds, "peak_mb": 100.0, "prep_s": 0.0}

    monkeypatch.setattr(growth, "run_child", fake_child)
    args = growth.parse_args(["--sizes", "10000", "20000", "40000", "80000", "--methods", "film",
                              "--max-seconds", "10"])
    series, rows = {}, []
    growth.run_method(args, "film", series, tmp_path, tmp_path / "q.json", rows)
    # 10k: 1 s, 20k: 2.8 s, 40k predicted 8 s (run), 80k predicted 22.6 s > 10: skipped
    assert calls == [10_000, 20_000, 40_000]
    s = series["film", "fit"]
    assert s.sizes == [10_000, 20_000, 40_000]
    assert s.notes[80_000].startswith("skipped: predicted 23 s")
    text = "\n".join(growth.table_lines(series, args.sizes))
    assert "skipped" in text and "1.50" in text
    md = growth.table_lines(series, args.sizes, markdown=True)
    assert md[0].startswith("| method | measure") and md[1].startswith("|---|")
    assert len(md) == 3 and md[2].count("|") == md[0].count("|")
    extra = "\n".join(growth.extrapolation_lines(series, [80_000, 1_000_000]))
    assert "80,000" in extra and "1,000,000" in extra


def test_bad_options_are_refused(growth):
    with pytest.raises(SystemExit):
        growth.parse_args(["--methods", "no-such-method"])
    with pytest.raises(SystemExit):
        growth.parse_args(["--sizes", "10"])


def test_end_to_end_in_child_processes(growth, tmp_path, capsys):
    out = tmp_path / "growth.json"
    series = growth.main(["--sizes", "300", "600", "--methods", "vectorizer", "--threads", "1",
                          "--json", str(out), "--markdown", str(tmp_path / "growth.md")])
    s = series["vectorizer", "fit+transform"]
    assert s.sizes == [300, 600] and all(v > 0 for v in s.values)
    record = json.loads(out.read_text())
    assert record["experiment"] == "growth" and record["series"][0]["sizes"] == [300, 600]
    assert isinstance(record["series"][0]["slope"], float)
    assert all(c > 0 for c in record["series"][0]["cpu_values"])     # CPU seconds beside the wall
    markdown = (tmp_path / "growth.md").read_text()
    assert "| vectorizer | fit+transform |" in markdown and "CPU slope (l.s.)" in markdown
    assert "markdown for benchmarks/README.md" in capsys.readouterr().out
    # the report is rebuilt from the JSON alone, measuring nothing
    again = growth.main(["--from-json", str(out), "--markdown", str(tmp_path / "again.md")])
    assert again["vectorizer", "fit+transform"].values == s.values
    assert (tmp_path / "again.md").read_text() == markdown
