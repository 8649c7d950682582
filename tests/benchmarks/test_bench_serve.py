"""bench_serve.py's arithmetic: the CPU bound on the clients' mean wait, and the goals it reports."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
bench_serve = pytest.importorskip("bench_serve")


def test_the_cpu_bound_is_littles_law_at_full_use_of_the_cores():
    # 1,000 searches took 0.6 CPU seconds: 0.6 ms each; 2 cores answer at most 3,333 a second,
    # so 50 clients wait at least 50 / 3,333 s = 15 ms on average
    per_search, bound = bench_serve.cpu_bound(50, 0.6, 1000, 2)
    assert per_search == pytest.approx(0.6)
    assert bound == pytest.approx(15.0)
    # twice the cores, half the bound; no searches answered does not divide by zero
    assert bench_serve.cpu_bound(50, 0.6, 1000, 4)[1] == pytest.approx(7.5)
    assert bench_serve.cpu_bound(50, 0.6, 0, 2)[0] == pytest.approx(600.0)


def _run(p99, floor, bound, mode="exact"):
    return {"search": {"mode": mode}, "load": {"search": {"p99_ms": p99}},
            "floor": {"ms": floor, "cpu_bound_ms": bound}, "served_recall": {"recall_at_10": 0.97}}


def test_the_exact_goal_and_whether_the_cpu_allows_it():
    goals = bench_serve._goals(_run(p99=20.0, floor=18.0, bound=17.0))
    assert goals == {"p99_within_1.3x_floor": True, "reachable_at_this_cpu": True}
    # a bound above 1.3x the floor: out of reach whatever the p99 measured
    goals = bench_serve._goals(_run(p99=40.0, floor=4.0, bound=6.8))
    assert goals == {"p99_within_1.3x_floor": False, "reachable_at_this_cpu": False}
    # the approximate goals do not depend on the floor
    goals = bench_serve._goals(_run(p99=30.0, floor=12.0, bound=99.0, mode="approximate"))
    assert goals == {"p99_under_50ms": True, "served_recall_at_least_0.95": True}


def test_a_batch_off_the_cpu_splits_into_the_wait_for_a_core_and_asleep():
    import numpy as np

    # columns: queued started finished resumed batch_queries batch_requests reload beside gc cpu runq;
    # two searches of one batch beside a write (30 ms: 10 on the CPU, 15 for a core, 5 asleep),
    # one quiet batch (20 ms: 10 on the CPU, 2 for a core, 8 asleep)
    rows = [[0.0, 0.001, 0.031, 0.032, 2, 2, 0.0, 0.004, 0.0, 0.010, 0.015],
            [0.0, 0.001, 0.031, 0.032, 2, 2, 0.0, 0.004, 0.0, 0.010, 0.015],
            [0.1, 0.101, 0.121, 0.122, 1, 1, 0.0, 0.0, 0.0, 0.010, 0.002]]
    b = bench_serve._batch_breakdown(np.array(rows))
    assert b["batches"] == 2
    assert b["runq_beside_write"]["p50_ms"] == pytest.approx(15.0)
    assert b["asleep_beside_write"]["p50_ms"] == pytest.approx(5.0)
    assert b["runq_quiet"]["p50_ms"] == pytest.approx(2.0)
    assert b["asleep_quiet"]["p50_ms"] == pytest.approx(8.0)
    # a trace of the code before (no runq column) is read as before
    assert "runq" not in bench_serve._batch_breakdown(np.array(rows)[:, :10])
