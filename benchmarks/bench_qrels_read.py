"""Time and peak memory of ``learnsim.datasets.read_qrels`` on a large qrels file, beside a plain
Python loop building the same dict, in the same run.

A seeded synthetic BEIR qrels file (``query-id<TAB>corpus-id<TAB>score`` under its header; MS
MARCO's train qrels are about 530,000 lines) is written to a temporary folder; each reader runs
in a fresh subprocess (so that one's peak memory is not the other's), ``--repeats`` times in turn,
and the median wall time and the largest peak resident memory (``ru_maxrss``) are reported, with
the import of ``learnsim.datasets`` alone for reference. The two dicts are checked to be equal.

Usage::

    python benchmarks/bench_qrels_read.py [--lines 1000000] [--repeats 3] [--before-src DIR] [--json out.json]

``read_qrels_ids`` reads with ``query_ids`` (every query of the file), as evaluate and fit do
beside ``--queries``; ``load_trec_collection`` reads the file into a collection of the documents
and queries it names (given in memory; ``collection_only`` builds those alone, its time not counted
but its memory in the peak); ``before``, ``before_ids`` and ``before_load`` are the same reads by
``--before-src``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

# each child prints: seconds of the read, peak RSS in KiB, and a digest of the dict
_CHILD = r"""
import hashlib, resource, sys, time
path, which = sys.argv[1], sys.argv[2]
from learnsim.datasets import read_qrels
start = time.perf_counter()
if which == "read_qrels":
    qrels = read_qrels(path)
elif which == "read_qrels_ids":
    # as evaluate and fit read them beside --queries: the numbering told from the queries named
    qrels = read_qrels(path, query_ids=[f"q{i}" for i in range(int(sys.argv[3]))], unknown="keep")
elif which in ("load_trec_collection", "collection_only"):
    # the documents and queries the file names, in memory (the same draws as write_qrels), so that
    # load_trec_collection keeps every judgement; "collection_only" builds them alone, for reference
    import random
    rng, n = random.Random(0), int(sys.argv[3]) * 20
    docs = {}
    for i in range(n):
        docs[f"d{rng.randrange(10_000_000)}"] = "text"
        rng.randrange(3)
    queries = {f"q{i}": "text" for i in range(int(sys.argv[3]))}
    start = time.perf_counter()
    if which == "load_trec_collection":
        from learnsim.datasets import load_trec_collection
        qrels = load_trec_collection(docs, queries, path).qrels
    else:
        qrels = {}
elif which == "plain":
    qrels = {}
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            query, doc, score = line.rstrip("\n").split("\t")
            qrels.setdefault(query, {})[doc] = int(score)
else:
    qrels = {}
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss     # before the digest, which takes more
digest = hashlib.sha256(repr(sorted((q, sorted(d.items())) for q, d in qrels.items())).encode()).hexdigest()
print(seconds, peak, digest)
"""


def write_qrels(path, n_lines, seed=0):
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for i in range(n_lines):
            # 20 judgements a query, documents drawn from 10 million ids, grades 0-2
            f.write(f"q{i // 20}\td{rng.randrange(10_000_000)}\t{rng.randrange(3)}\n")


def run(path, which, src=None, n_queries=0):
    # this checkout's learnsim (or --before-src), before any installed one
    src = str(src or Path(__file__).resolve().parents[1] / "src")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path), which, str(n_queries)], check=True, capture_output=True,
                         text=True, env=env, timeout=600)
    seconds, rss, digest = out.stdout.split()
    return float(seconds), int(rss) / 1024, digest


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--before-src", help="another checkout's src folder, whose read_qrels runs beside "
                                         "(e.g. `git archive 508cfa3 src | tar -x -C before`)")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-qrels-") as work:
        path = Path(work) / "qrels.tsv"
        write_qrels(path, args.lines)
        size = path.stat().st_size
        cases = {"import": ("import", None), "read_qrels": ("read_qrels", None),
                 "read_qrels_ids": ("read_qrels_ids", None), "plain": ("plain", None),
                 "collection_only": ("collection_only", None), "load_trec_collection": ("load_trec_collection", None)}
        if args.before_src:
            cases.update(before=("read_qrels", args.before_src), before_ids=("read_qrels_ids", args.before_src),
                         before_load=("load_trec_collection", args.before_src))
        results = {name: [] for name in cases}
        digests = {}
        n_queries = (args.lines + 19) // 20
        for _ in range(args.repeats):
            for name, (which, src) in cases.items():
                seconds, mib, digest = run(path, which, src, n_queries)
                results[name].append((seconds, mib))
                digests[name] = digest
    if any(digests[name] != digests["plain"] for name in digests if name not in ("import", "collection_only")):
        raise SystemExit("read_qrels and the plain loop read different judgements")
    report = {"lines": args.lines, "file_mb": round(size / 1e6, 1), "repeats": args.repeats}
    print(f"{args.lines:,} lines, {size / 1e6:.1f} MB; median of {args.repeats} (peak: the largest)")
    for name, runs in results.items():
        seconds = statistics.median(s for s, _ in runs)
        peak = max(m for _, m in runs)
        report[name] = {"seconds": round(seconds, 3), "peak_rss_mib": round(peak, 1)}
        print(f"  {name:<20} {seconds:7.2f} s   peak RSS {peak:7.1f} MiB")
    ratio = report["read_qrels"]["seconds"] / report["plain"]["seconds"]
    print(f"  read_qrels / plain: {ratio:.2f}x time")
    report["time_ratio"] = round(ratio, 2)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
