"""The cost of an index's integrity checks (issue 30, part 1): open, first search, search and
peak RSS of an index whose every file carries a sha256 and is read into memory once verified,
beside the same steps of an older learnsim (``--before-src``: its ``src`` directory, e.g. one
extracted with ``git archive``) that mmaps unchecked files; and ``Index.verify`` (every file
read and hashed, the values checked, SQLite's ``quick_check``) at each size.

The collections and the two pipelines are those of ``bench_index.py`` (seeded synthetic
collections; a dense FILM of 100 dimensions and a sparse LearnedBM25, both fitted once on 1,500
documents); each step runs in its own fresh subprocess with one thread, so imports and the page
cache are real. The indexes are built in the same run, by each learnsim for itself.

Per size, model and learnsim:

* ``open``: ``Index.open`` seconds (the manifest's checksum, each segment's ``segment.json`` and
  ``seqs.npy`` hashed, the headers and sizes of the other arrays, SQLite's counts against the
  segments), the RSS after it;
* ``count``: the SQLite part of the open's manifest-against-SQLite check alone (the count of the
  live documents up to ``covered_seq``), timed after the open (warm; new learnsim only);
* ``first``: the first search (it reads and hashes the arrays and the plan, and checks their
  values once), then ``--queries`` searches one at a time (p50 ms), and the peak RSS (VmHWM) of
  the process;
* ``verify``: ``Index.verify_at`` seconds and the peak RSS of its process (new learnsim only).

Usage::

    mkdir before && git archive 16ef99d src | tar -x -C before    # the learnsim before the checksums
    python benchmarks/bench_index_verify.py --sizes 100000,1000000 --queries 200 --before-src before/src
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_index as bi  # noqa: E402

TOP_K = 10


def child_open_search(a):
    t0 = time.perf_counter()
    import learnsim.index as li

    import_s = time.perf_counter() - t0
    base = bi._rss_mb()
    queries = bi._queries(a)
    start = time.perf_counter()
    idx = li.Index.open(a.path)
    open_s = time.perf_counter() - start
    open_mb = bi._rss_mb()
    start = time.perf_counter()
    idx.search(queries[0], k=TOP_K)
    first_s = time.perf_counter() - start
    lat = []
    for q in queries[1:]:
        s = time.perf_counter()
        idx.search(q, k=TOP_K)
        lat.append(time.perf_counter() - s)
    # the SQLite side of the open's check, alone (warm: after the open and the searches)
    start = time.perf_counter()
    if idx.manifest.get("format_version", 1) >= 2:
        from learnsim.index._integrity import _live_up_to

        _live_up_to(idx.store.conn, idx.manifest["covered_seq"])
    count_s = time.perf_counter() - start
    bi._emit({"import_s": import_s, "open_s": open_s, "first_query_ms": 1e3 * first_s,
              "p50_ms": float(1e3 * np.median(lat)), "count_ms": 1e3 * count_s, "base_rss_mb": base,
              "open_rss_mb": open_mb, "peak_rss_mb": bi._peak_mb(),
              "format_version": idx.manifest.get("format_version")})


def child_verify(a):
    from learnsim.index import Index

    base = bi._rss_mb()
    start = time.perf_counter()
    report = Index.verify_at(a.path)
    seconds = time.perf_counter() - start
    if not report["ok"]:
        raise SystemExit(f"verify found damage in a fresh index: {report['damaged'][:3]}")
    bi._emit({"verify_s": seconds, "verify_files": report["files"], "verify_mb": report["bytes"] / 2**20,
              "verify_base_mb": base, "verify_peak_mb": bi._peak_mb()})


CHILDREN = {"build": bi.child_build, "fit": bi.child_fit, "open-search": child_open_search, "verify": child_verify}


def run_child(role, args, src, **opts):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", role, "--seed", str(args.seed)]
    for k, v in opts.items():
        cmd += [f"--{k.replace('_', '-')}", str(v)]
    env = bi._env(1)
    env["PYTHONPATH"] = str(src)
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit(f"the {role} run failed (exit status {done.returncode})")
    line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--models", default="film,bm25")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--before-src", default=None, help="the src directory of the learnsim to compare with")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--model", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--path", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--pipeline", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--queries-file", default=None, help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    if args.child:
        CHILDREN[args.child](args)
        return
    here = Path(__file__).resolve().parents[1] / "src"
    learnsims = [("checked", here)] + ([("before", Path(args.before_src).resolve())] if args.before_src else [])
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="bench-index-verify-"))
    work.mkdir(parents=True, exist_ok=True)
    vocab = bi.vocabulary()
    _, _, _, df = bi.fitting_corpus(args.seed, vocab)
    qfile = work / "queries.json"
    qfile.write_text(json.dumps(bi.make_queries(args.queries, args.seed, vocab, df)))
    rows = []
    try:
        models = [m for m in args.models.split(",") if m]
        for m in models:
            run_child("fit", args, here, model=m, path=work / f"model-{m}.npz")
        for n in [int(s) for s in args.sizes.split(",") if s]:
            for m in models:
                for name, src in learnsims:
                    path = work / f"index-{name}-{m}-{n}"
                    shutil.rmtree(path, ignore_errors=True)
                    row = {"n_docs": n, "model": m, "learnsim": name}
                    built = run_child("build", args, src, n=n, path=path, pipeline=work / f"model-{m}.npz")
                    row.update(build_s=built["build_s"], index_mb=built["index_bytes"] / 2**20,
                               rows_mb=built["rows_bytes"] / 2**20)
                    row.update(run_child("open-search", args, src, path=path, queries_file=qfile))
                    if name == "checked":
                        row.update(run_child("verify", args, src, path=path))
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                    shutil.rmtree(path, ignore_errors=True)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    print()
    head = ("docs", "model", "learnsim", "open ms", "count ms", "1st search ms", "p50 ms", "RSS after open MB",
            "peak RSS MB", "verify s", "verify peak MB", "rows MB", "index MB")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join([f"{r['n_docs']:,}", r["model"], r["learnsim"], f"{1e3 * r['open_s']:.1f}",
                                 f"{r['count_ms']:.1f}" if r["learnsim"] == "checked" else "-",
                                 f"{r['first_query_ms']:.0f}", f"{r['p50_ms']:.2f}",
                                 f"{r['open_rss_mb']:.0f}", f"{r['peak_rss_mb']:.0f}",
                                 f"{r['verify_s']:.2f}" if "verify_s" in r else "-",
                                 f"{r['verify_peak_mb']:.0f}" if "verify_peak_mb" in r else "-",
                                 f"{r['rows_mb']:.0f}", f"{r['index_mb']:.0f}"]) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
