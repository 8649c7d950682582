"""The cjk-line case of benchmarks/bench_build_memory.py (stop 85): a seeded line of Japanese,
built and compared by two trees at a tiny size."""
from __future__ import annotations

import json
import re
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


def test_the_japanese_line_is_seeded_sized_and_spaceless(bench, tmp_path):
    files = bench.make_data(tmp_path / "a", 0.01, 10, cjk_mb=0.05)
    again = bench.make_data(tmp_path / "b", 0.01, 10, cjk_mb=0.05)
    data = files["cjk"].read_bytes()
    assert data == again["cjk"].read_bytes()
    assert 45_000 <= len(data) <= 50_001 and data.count(b"\n") == 1
    text = data.decode("utf-8")
    spaceless = len(re.findall("[\u3040-\u30ff\u4e00-\u9fff]", text))
    assert spaceless > 0.9 * len(text.replace(" latin", "")) and text.count("\u3002") > 100


def test_the_cjk_line_is_built_by_two_trees_alike(bench, tmp_path):
    src = str(REPO_ROOT / "src")
    out = tmp_path / "r.json"
    assert bench.main(["--tree", f"a={src}", "--tree", f"b={src}", "--mb", "0.01", "--cjk-mb", "0.05", "--short", "10",
                       "--cases", "cjk-line", "--work", str(tmp_path / "w"), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert [(r["case"], r["tree"]) for r in report["results"]] == [("cjk-line", "a"), ("cjk-line", "b")]
    assert all(r["peak_mb"] > 10 and 0.04 < r["input_mb"] < 0.06 for r in report["results"])
    assert report["differing_files"] == {"cjk: a vs b": []}
