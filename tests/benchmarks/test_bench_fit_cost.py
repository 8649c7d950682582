"""benchmarks/bench_fit_cost.py runs and times the stages of the default pair fit (issue 32):
on 200 synthetic pairs, the default fit and the one without checks each report their stages."""
import json
import sys

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import bench_fit_cost  # noqa: E402


def test_synthetic_pairs_are_labelled_and_seeded():
    pairs = bench_fit_cost.synthetic_pairs(300, seed=1)
    assert len(pairs) == 300 and pairs == bench_fit_cost.synthetic_pairs(300, seed=1)
    share = sum(label for _, _, label in pairs) / len(pairs)
    assert 0.25 < share < 0.5


def test_stages_are_timed(tmp_path, capsys):
    out = tmp_path / "cost.json"
    assert bench_fit_cost.main(["--sizes", "200", "--synthetic", "--json", str(out)]) == 0
    row = json.loads(out.read_text())["rows"][0]
    assert row["pairs"] == 200 and row["source"] == "synthetic"
    for stage in ("vectorize", "search check", "  FILM.fit", "  triplets", "  check_search", "choose_matcher"):
        assert row["stages"][stage] >= 0 and row["calls"][stage] >= 1, stage
    # the stages nest inside the fit: none takes longer than the whole
    assert max(row["stages"].values()) <= row["default_s"]
    assert row["unchecked_s"] > 0 and row["ratio"] > 0
    assert "| 200 | synthetic |" in capsys.readouterr().out
