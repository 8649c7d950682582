"""The cost of a graded pair fit on JSTS (JGLUE's Japanese sentence pairs scored 0-5) as a user
runs it: ``learnsim fit --pairs <the first N lines of train-v1.3.json> [--language ja]``, one
process a fit, its user and system CPU seconds, wall seconds and peak memory, with the figures
the fit chose (the held-out Pearson of each rule, the rule kept, the search weight).

User CPU is the figure to compare on a shared machine: wall seconds move with the other
processes' load. To compare two versions of learnsim, give each its ``src`` folder; their fits
alternate (tree A, tree B, tree A, ...) so that a change of the machine's load falls on both,
and the saved models of the trees are compared array by array (the largest difference).

    python benchmarks/bench_graded_fit.py --sizes 1000 2000 4000 --analysers bigrams ja
    python benchmarks/bench_graded_fit.py --sizes 4000 --tree old=/tmp/old/src --tree new=src --repeat 2
    python benchmarks/bench_graded_fit.py --sizes all --analysers bigrams --json results/graded-fit.json

``ja`` is ``--language ja``: SudachiPy where installed, else fugashi (the row says which);
``bigrams`` is the default reading of Japanese text (character bigrams). ``all``: the whole
training file (12,451 pairs).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
_FIGURES = ("matcher", "validation_pearson", "alpha", "search_input_weight", "search_validation_pearson",
            "triplets", "n_iter")


def _jsts_file(data_dir):
    path = Path(data_dir) / "ja" / "jsts" / "train-v1.3.json"
    if not path.is_file():
        raise SystemExit(f"{path} not found: give --data-dir, the folder holding ja/jsts (JGLUE's JSTS v1.3)")
    return path


def _head(path, n, folder):
    """The first ``n`` lines of ``path`` (None: all) as a file of their own."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines = lines if n is None else lines[:n]
    out = Path(folder) / f"jsts-{len(lines)}.json"
    out.write_text("".join(lines), encoding="utf-8")
    return out, len(lines)


def _analyser(src):
    """The analyser ``--language ja`` picks in the tree ``src`` (run in its own process)."""
    code = ("from learnsim.text._tokenize import analyzer_for_language as a; print(a('ja'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(src)})
    return done.stdout.strip() or "?"


def _fit(src, pairs_file, analyser, model):
    """One ``learnsim fit`` in its own process: (seconds and memory, its --json report)."""
    args = [sys.executable, "-m", "learnsim", "fit", "--pairs", str(pairs_file), "--model", str(model), "--json"]
    if analyser == "ja":
        args += ["--language", "ja"]
    env = {**os.environ, "PYTHONPATH": str(src)}
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(args, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        if proc.returncode:
            raise SystemExit(f"learnsim fit failed ({src}):\n{err.read().decode(errors='replace')[-2000:]}")
        report = json.loads(out.read().decode())
    cost = {"user_s": usage.ru_utime, "sys_s": usage.ru_stime, "wall_s": wall, "peak_mb": usage.ru_maxrss / 1024}
    return cost, report


def _manifest(path):
    with np.load(path, allow_pickle=False) as z:
        return json.loads(bytes(z["__manifest__"]).decode("utf-8")) if "__manifest__" in z.files else {}


def _walk(a, b, where, out):
    """Numbers: their largest difference (out[0], where: out[2]); anything else that differs: its
    path (out[1]). The creation time and the arrays' checksums (compared as arrays) are left out."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key in ("created", "sha256"):
                continue
            if key not in a or key not in b:
                out[1].append(f"{where}/{key}")
            else:
                _walk(a[key], b[key], f"{where}/{key}", out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _walk(x, y, f"{where}[{i}]", out)
    elif (isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool)
          and not isinstance(b, bool)):
        if abs(float(a) - float(b)) > out[0]:
            out[0], out[2] = abs(float(a) - float(b)), where
    elif a != b:
        out[1].append(where)


def _model_difference(a, b):
    """(the largest absolute difference between the numbers of two saved models, arrays and
    recorded figures alike; where it is; the paths of anything else that differs). The creation
    time is not compared. (0.0, None, []): the same model."""
    out = [0.0, [], None]
    with np.load(a, allow_pickle=False) as A, np.load(b, allow_pickle=False) as B:
        for name in sorted(set(A.files) | set(B.files)):
            if name == "__manifest__":
                continue
            if name not in A.files or name not in B.files:
                out[1].append(name)
                continue
            x, y = A[name], B[name]
            if x.shape != y.shape or x.dtype != y.dtype:
                out[1].append(name)
            elif x.dtype.kind in "fc":
                if x.size and not np.array_equal(x, y, equal_nan=True):
                    worst = float(np.nanmax(np.abs(x - y)))
                    if worst > out[0]:
                        out[0], out[2] = worst, name
            elif not np.array_equal(x, y):
                out[1].append(name)
    _walk(_manifest(a), _manifest(b), "", out)
    return out[0], out[2], out[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["1000", "2000", "4000"],
                        help="pairs: the first N lines of the training file, or 'all'")
    parser.add_argument("--analysers", nargs="+", choices=("bigrams", "ja"), default=["bigrams", "ja"])
    parser.add_argument("--tree", action="append", default=None, metavar="NAME=SRC",
                        help="a learnsim src folder to time (repeat to compare; default: this checkout's)")
    parser.add_argument("--repeat", type=int, default=1, help="fits of each tree, alternating")
    parser.add_argument("--data-dir", default=str(DATA))
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    trees = [t.split("=", 1) for t in (args.tree or [f"this={REPO / 'src'}"])]
    if any(len(t) != 2 for t in trees):
        raise SystemExit("--tree takes NAME=SRC")
    path = _jsts_file(args.data_dir)
    rows = []
    print(f"{'tree':<8} {'reading':<16} {'pairs':>6} {'user s':>8} {'sys s':>6} {'wall s':>8} {'peak MB':>8}  figures")
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            pairs_file, n = _head(path, None if size == "all" else int(size), folder)
            for analyser in args.analysers:
                models = {}
                for rep in range(args.repeat):
                    for name, src in trees:
                        model = Path(folder) / f"{name}-{analyser}-{n}.npz"
                        cost, report = _fit(src, pairs_file, analyser, model)
                        models.setdefault(name, model)
                        reading = _analyser(src) if analyser == "ja" else "bigrams"
                        figures = {k: report.get(k) for k in _FIGURES}
                        row = {"tree": name, "reading": reading, "pairs": n, "run": rep, **cost, **figures}
                        rows.append(row)
                        shown = (f"{figures['matcher']} {figures['validation_pearson']:.4f}, search w "
                                 f"{figures['search_input_weight']} {figures['search_validation_pearson']:.4f}")
                        print(f"{name:<8} {reading:<16} {n:>6} {cost['user_s']:>8.1f} {cost['sys_s']:>6.1f} "
                              f"{cost['wall_s']:>8.1f} {cost['peak_mb']:>8.0f}  {shown}", flush=True)
                first = trees[0][0]
                for name, _ in trees[1:]:
                    diff, where, other = _model_difference(models[first], models[name])
                    said = "the same" if diff == 0 and not other else (
                        f"numbers differ by {diff:.3g} at most ({where})"
                        + (f"; other parts differ: {other[:5]}" if other else ""))
                    print(f"  saved models, {first} vs {name} ({analyser}, {n} pairs, first runs): {said}")
                    rows.append({"compare": [first, name], "reading": analyser, "pairs": n, "max_abs_diff": diff,
                                 "largest_at": where, "other_differences": other})
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
