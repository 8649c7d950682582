"""Smoke test of benchmarks/bench_build_memory.py at a tiny size: its data, one child process a
run measured (peak RSS, user CPU), and the comparison of two trees' indexes."""
from __future__ import annotations

import json
import sys

import pytest

from conftest import REPO_ROOT

BENCHMARKS_DIR = REPO_ROOT / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCHMARKS_DIR))
    try:
        import bench_build_memory
    finally:
        sys.path.remove(str(BENCHMARKS_DIR))
    return bench_build_memory


def test_data_is_seeded_and_sized(bench, tmp_path):
    files = bench.make_data(tmp_path / "a", 0.05, 50)
    again = bench.make_data(tmp_path / "b", 0.05, 50)
    assert files["line"].read_bytes() == again["line"].read_bytes()
    line = files["line"].read_text(encoding="utf-8")
    assert line.count("\n") == 1 and 45_000 <= len(line) <= 50_001
    rows = files["short"].read_text(encoding="utf-8").splitlines()
    assert rows[0] == "label\ttext" and len(rows) == 51


def test_two_trees_alternate_and_their_indexes_compare(bench, tmp_path):
    src = str(REPO_ROOT / "src")
    out = tmp_path / "r.json"
    assert bench.main(["--tree", f"a={src}", "--tree", f"b={src}", "--mb", "0.05", "--short", "300",
                       "--cases", "line", "short-index", "--work", str(tmp_path / "w"), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert [(r["case"], r["tree"]) for r in report["results"]] == [("line", "a"), ("line", "b"),
                                                                    ("short-index", "a"), ("short-index", "b")]
    for row in report["results"]:
        assert row["peak_mb"] > 10 and row["user_s"] > 0 and row["peak_over_input"] > 1
    # one tree built twice: the same files
    assert report["differing_files"] == {"line: a vs b": [], "short: a vs b": []}


def test_a_quoted_line_is_not_ascii(bench, tmp_path):
    files = bench.make_data(tmp_path, 0.05, 10, quote_every=1000)
    line = files["line"].read_text(encoding="utf-8").rstrip("\n")
    assert not line.isascii() and line.count("\u201c") >= 40
