"""benchmarks/bench_cli_startup.py runs the three commands of issue 32, part 1 (cluster, search
--explain, serve) at a tiny size, in a process bounded in time, and reports each against its
target: the cluster command's labels are scikit-learn's KMeans on the rows it clusters."""
import json
import subprocess
import sys

import pytest

from conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "benchmarks" / "bench_cli_startup.py"


def test_the_three_commands_are_timed_against_their_targets(tmp_path):
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    out = tmp_path / "startup.json"
    args = ["--docs", "400", "--fit-docs", "200", "--model", "default", "--cluster-docs", "120", "--k", "5",
            "--cluster-source", "synthetic", "--cluster-repeats", "1", "--repeats", "1", "--serve-repeats", "1", "--threads", "1",
            "--command-timeout", "120", "--json", str(out)]
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    r = json.loads(out.read_text())
    c = r["cluster"]
    assert c["documents"] == 120 and c["k"] == 5 and c["source"] == "synthetic"
    # the same clustering: scikit-learn's KMeans on the rows the command clusters, and Index.cluster
    assert c["adjusted_rand"] == 1.0 and c["same_as_in_process"]
    assert c["command_s"] > 0 and c["sklearn_kmeans_s"] > 0 and c["ratio"] == c["command_s"] / c["sklearn_kmeans_s"]
    assert r["index"]["documents"] == 400
    assert r["search"]["search_s"] > 0 and r["search"]["explain_s"] > 0 and len(r["search"]["runs"]["explain_s"]) == 1
    assert 0 < r["serve"]["first_200_s"] <= r["serve"]["first_search_s"]
    lines = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    assert lines[0].startswith("| command |") and len(lines) == 1 + 3      # the head, a row per command
    assert lines[1].startswith("| cluster --k 5 (120 synthetic docs)") and "search --explain (400 docs)" in lines[2]


def test_bad_options_are_refused():
    for bad in (["--parts", "cluster,nope"], ["--docs", "0"], ["--k", "-1"]):
        done = subprocess.run([sys.executable, str(SCRIPT), *bad], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and "error:" in done.stderr, bad
