"""CISI and Cranfield as a user brings them: BEIR folders with train, dev and test judgements,
``learnsim fit --beir`` and ``learnsim evaluate --beir``, each a fresh process.

Each collection's judged queries are split in a seeded order (``--seed``, 0): half train, a
quarter dev, a quarter test (CISI 38 / 19 / 19 of 76, Cranfield 112 / 56 / 57 of 225). The folder
is BEIR's layout (``corpus.jsonl`` with ``_id``, ``title`` and ``text``; ``queries.jsonl``;
``qrels/{train,dev,test}.tsv`` with a header). Then, as a user runs them:

    learnsim fit --beir DIR --model DIR.npz            # learns from qrels/train.tsv
    learnsim evaluate --beir DIR --model DIR.npz       # scores qrels/test.tsv

and the script prints what the fit kept (its one-line check) and the test queries' nDCG@10 and
MAP beside BM25 and the tf.idf cosine, as ``evaluate`` reports them, with the ratio to the
stronger. The learned model is never below the strongest baseline for certain by design (it ends
as that baseline when it does not beat it on held-out queries); what this measures is whether the
baseline it ends as is the one the test queries favour.

    python benchmarks/beir_user_path.py [--data-dir DIR] [--work DIR] [--seed 0]
        [--collections cisi cran] [--fit-args "..."]

About 1 minute on 2 cores.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp

from learnsim.datasets import load_smart_collection

LEARNSIM = [sys.executable, "-m", "learnsim"]
SHARES = {"train": 0.5, "dev": 0.25}


def write_beir(name, data_dir, folder, seed):
    """The collection as a BEIR folder; {split: number of queries}."""
    coll = load_smart_collection(name, data_dir)
    os.makedirs(os.path.join(folder, "qrels"), exist_ok=True)
    with open(os.path.join(folder, "corpus.jsonl"), "w", encoding="utf-8") as f:
        for i, text in enumerate(coll.documents):
            f.write(json.dumps({"_id": f"d{i}", "title": "", "text": text}) + "\n")
    with open(os.path.join(folder, "queries.jsonl"), "w", encoding="utf-8") as f:
        for i, text in enumerate(coll.queries):
            f.write(json.dumps({"_id": f"q{i}", "text": text}) + "\n")
    R = sp.csr_matrix(coll.relevance)
    judged = np.flatnonzero(np.diff(R.indptr) > 0)
    order = np.random.default_rng(seed).permutation(judged)
    n = order.size
    cuts = [int(n * SHARES["train"]), int(n * (SHARES["train"] + SHARES["dev"]))]
    parts = dict(zip(("train", "dev", "test"), np.split(order, cuts)))
    for split, queries in parts.items():
        with open(os.path.join(folder, "qrels", f"{split}.tsv"), "w", encoding="utf-8") as f:
            f.write("query-id\tcorpus-id\tscore\n")
            for q in np.sort(queries):
                for d in R.indices[R.indptr[q]:R.indptr[q + 1]]:
                    f.write(f"q{q}\td{d}\t1\n")
    return {split: int(q.size) for split, q in parts.items()}


def run(args):
    print("$ learnsim " + " ".join(shlex.quote(str(a)) for a in args), flush=True)
    start = time.perf_counter()
    done = subprocess.run(LEARNSIM + [str(a) for a in args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"learnsim {args[0]} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout, time.perf_counter() - start


def evaluate_table(text):
    """{measure: (learned, bm25, cosine)} of evaluate's table."""
    out = {}
    for line in text.splitlines():
        cells = line.split()
        if len(cells) >= 4 and cells[0] in ("MAP", "nDCG@10", "P@10", "recall@100"):
            out[cells[0]] = tuple(float(c) for c in cells[1:4])
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--work", default=None, help="folder for the BEIR folders and models (a temporary one)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--collections", nargs="+", default=["cisi", "cran"])
    parser.add_argument("--fit-args", default="", help="more options for learnsim fit (quoted)")
    args = parser.parse_args(argv)
    work = args.work or tempfile.mkdtemp(prefix="beir-user-path-")
    rows = {}
    for name in args.collections:
        folder = os.path.join(work, name)
        sizes = write_beir(name, args.data_dir, folder, args.seed)
        print(f"\n## {name}: judged queries {sizes}", flush=True)
        model = folder + ".npz"
        out, fit_s = run(["fit", "--beir", folder, "--model", model, "--json", *shlex.split(args.fit_args)])
        summary = json.loads(out)
        report = summary.get("search_baseline_gain") or summary.get("baseline_gain") or {}
        detail = report.get("detail") or {}
        print(f"fit in {fit_s:.0f} s: the model is {summary.get('model')}; strongest baseline "
              f"{detail.get('strongest_baseline')} (chosen on {detail.get('strongest_chosen_on', 'the held-out')} "
              f"queries: " + ", ".join(f"{k[7:]} {v:.4f}" for k, v in detail.items() if k.startswith("judged_"))
              + f"); held-out gain {report.get('gain', float('nan')):+.4f} "
              f"({report.get('ci_low', float('nan')):+.4f} to {report.get('ci_high', float('nan')):+.4f})", flush=True)
        out, _ = run(["evaluate", "--beir", folder, "--model", model])
        table = evaluate_table(out)
        rows[name] = {}
        for measure in ("nDCG@10", "MAP"):
            learned, bm25, cosine = table[measure]
            strongest = max(bm25, cosine)
            rows[name][measure] = learned / strongest
            print(f"  test {measure}: learned {learned:.3f}, BM25 {bm25:.3f}, tf.idf cosine {cosine:.3f}: "
                  f"{learned / strongest:.3f}x the stronger ({'BM25' if bm25 >= cosine else 'cosine'})", flush=True)
    print("\nlearned / strongest baseline on the test queries: "
          + "; ".join(f"{n} " + ", ".join(f"{m} {r:.3f}x" for m, r in v.items()) for n, v in rows.items()))
    return rows


if __name__ == "__main__":
    main()
