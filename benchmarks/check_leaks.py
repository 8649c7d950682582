"""Can the fit's own check be fooled? Two ways users' supervision leaked past it (stop 69's audit),
replayed on NFCorpus as a user meets them: ``learnsim fit`` on a seeded sample of the training
judgements, then ``learnsim evaluate`` of the saved model on the test queries, each a fresh
process, beside BM25.

- ``repeats``: the sample's queries, a share of them asked again under a new id (the same text
  and judgements: a query log, query variants). Held out by id, a twin was trained on and found
  again: the check read a gain the test queries do not show.
- ``doc-doc``: the sample written as (query, relevant document, 1) pairs over the corpus, plus one
  pair of two documents judged for one query. One text on both sides used to make the judgements
  "duplicates", whose chains joined every text into one set.

- ``plain``: the sample as it is (no leak): what the check decides where nothing fools it, and,
  with ``--fit-seeds``, how that moves with the fit's seed (the check's power at a few hundred
  queries: stop 70's folds).

For each case the script prints the check's gain over the strongest baseline (nDCG@10 on its
held-out queries, with its interval), what the fit kept, and the kept model's test nDCG@10
against BM25's (the same process runs both on the same queries).

    python benchmarks/check_leaks.py [--queries 300] [--seed 0] [--cases repeats doc-doc] [--fit-seeds 0 1 2]

About a minute a case on two cores.
"""
from __future__ import annotations

import argparse
import collections
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile

CASES = ("repeats", "repeats-all", "doc-doc", "plain")


def _training(root, n, seed):
    """{query id: [(doc, grade)]} of a seeded sample of n training queries."""
    judged = collections.defaultdict(list)
    path = os.path.join(root, "qrels", "train.tsv.gz")
    with (gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")) as f:
        next(f)
        for line in f:
            q, d, g = line.rstrip("\r\n").split("\t")
            judged[q].append((d, g))
    ids = sorted(judged)
    random.Random(seed).shuffle(ids)
    return {q: judged[q] for q in sorted(ids[:n])}


def _repeats(root, folder, sample, share, seed):
    """qrels and queries files where `share` of the sample is asked again as DUP-<id>."""
    twice = set(random.Random(seed + 7).sample(sorted(sample), int(round(share * len(sample)))))
    qrels, queries = os.path.join(folder, "qrels.tsv"), os.path.join(folder, "queries.jsonl")
    with open(qrels, "w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for q, rows in sample.items():
            for d, g in rows:
                f.write(f"{q}\t{d}\t{g}\n" + (f"DUP-{q}\t{d}\t{g}\n" if q in twice else ""))
    with open(os.path.join(root, "queries.jsonl"), encoding="utf-8") as src, open(queries, "w", encoding="utf-8") as out:
        for line in src:
            r = json.loads(line)
            out.write(json.dumps({"_id": r["_id"], "text": r["text"]}) + "\n")
            if r["_id"] in twice:
                out.write(json.dumps({"_id": "DUP-" + r["_id"], "text": r["text"]}) + "\n")
    return ["--qrels", qrels, "--queries", queries, "--corpus", os.path.join(root, "corpus.jsonl.gz")], None


def _doc_doc(root, folder, sample, seed):
    """(query, document, 1) pairs of the sample over a one-line-a-document corpus, and one pair of
    two documents judged for one query."""
    docs = {}
    with gzip.open(os.path.join(root, "corpus.jsonl.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            docs[d["_id"]] = " ".join((d.get("title", "") + " " + d["text"]).split())
    corpus = os.path.join(folder, "corpus.jsonl")
    with open(corpus, "w", encoding="utf-8") as f:
        for i, t in docs.items():
            f.write(json.dumps({"id": i, "text": t}) + "\n")
    with open(os.path.join(root, "queries.jsonl"), encoding="utf-8") as f:
        queries = {r["_id"]: " ".join(r["text"].split()) for r in map(json.loads, f)}
    rows = [(queries[q], docs[d]) for q, judged in sample.items() for d, _ in judged]
    rng = random.Random(seed + 1)
    q = rng.choice([q for q, judged in sample.items() if len(judged) > 1])
    a, b = rng.sample([d for d, _ in sample[q]], 2)
    rows.append((docs[a], docs[b]))
    pairs = os.path.join(folder, "pairs.jsonl")
    with open(pairs, "w", encoding="utf-8") as f:
        for x, y in rows:
            f.write(json.dumps({"text_a": x, "text_b": y, "label": 1}) + "\n")
    return ["--pairs", pairs, "--corpus", corpus], corpus


def _learnsim(*args):
    done = subprocess.run([sys.executable, "-m", "learnsim", *args, "--no-progress"], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"learnsim {args[0]} failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=os.environ.get("LEARNSIM_DATA", os.path.join("..", "shared", "data")))
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES[:3]))
    parser.add_argument("--fit-seeds", nargs="+", type=int, default=None,
                        help="the fits' --seed, each case fitted once a seed (default: --seed)")
    args = parser.parse_args(argv)
    root = os.path.join(args.data_dir, "ir", "nfcorpus")
    if not os.path.isdir(root):
        raise SystemExit(f"{root}: no NFCorpus here (--data-dir)")
    sample = _training(root, args.queries, args.seed)
    print(f"NFCorpus: {len(sample)} training queries (seed {args.seed}); test nDCG@10 on qrels/test.tsv")
    for case, fit_seed in [(c, s) for c in args.cases for s in (args.fit_seeds or [args.seed])]:
        with tempfile.TemporaryDirectory() as folder:
            if case == "doc-doc":
                given, corpus = _doc_doc(root, folder, sample, args.seed)
            else:
                share = {"repeats-all": 1.0, "repeats": 0.3, "plain": 0.0}[case]
                given, corpus = _repeats(root, folder, sample, share, args.seed)
            model = os.path.join(folder, "m.npz")
            fit = _learnsim("fit", *given, "--model", model, "--seed", str(fit_seed), "--json")
            test = _learnsim("evaluate", "--queries", os.path.join(root, "queries.jsonl"), "--qrels",
                             os.path.join(root, "qrels", "test.tsv"), "--corpus",
                             corpus or os.path.join(root, "corpus.jsonl.gz"), "--model", model, "--json")
        gain = fit.get("baseline_gain") or {}
        learned, bm25 = test["methods"]["learned"]["ndcg@10"], test["methods"]["bm25"]["ndcg@10"]
        print(f"{case} (fit seed {fit_seed}): {fit.get('held_out')}\n  check: gain {gain.get('gain', float('nan')):+.4f} "
              f"({gain.get('ci_low', float('nan')):+.4f} to {gain.get('ci_high', float('nan')):+.4f}) over "
              f"{fit.get('strongest_baseline')}; kept {fit.get('model')}\n  test: {learned:.4f} against BM25's "
              f"{bm25:.4f} ({learned / bm25:.3f}x)", flush=True)


if __name__ == "__main__":
    main()
