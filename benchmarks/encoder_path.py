"""The encoder path end to end on about 5,000 documents, as a user runs it (issue 43): ``learnsim
fit --qrels ... --encoder``, ``learnsim index build --model``, ``learnsim evaluate --model``, each
a fresh process, timed by the wall clock; the embeddings kept beside the model are what lets the
second and third commands skip encoding.

The collection is NFCorpus's 3,633 documents and the first CISI documents up to ``--documents``
(5,000 by default: 1,367 CISI abstracts, documents no judgement names); the judgements are
NFCorpus's train split, the test split is scored once by ``evaluate``.

    python benchmarks/encoder_path.py --encoder all-MiniLM-L6-v2
    python benchmarks/encoder_path.py --method adapter          # the query-side adapter instead of FILM

Target (issue 43): at most 10 minutes end to end on two cores, each text encoded once.
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

HERE = Path(__file__).resolve().parent


def _data_dir(given):
    from learnsim.datasets import find_data_dir   # --data-dir, $LEARNSIM_DATA or ../shared/data

    return find_data_dir(given)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--encoder", default="all-MiniLM-L6-v2")
    parser.add_argument("--method", default="film", choices=("film", "adapter"))
    parser.add_argument("--documents", type=int, default=5000)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)

    from learnsim.datasets import read_id_texts

    data = _data_dir(args.data_dir)
    nf = data / "ir" / "nfcorpus"
    if not nf.is_dir():
        print(f"skipped: {nf} is absent", file=sys.stderr)
        return 0
    ids, texts = read_id_texts(nf / "corpus.jsonl.gz")
    extra = max(0, args.documents - len(ids))
    if extra:
        cisi_ids, cisi_texts = read_id_texts(data / "ir" / "cisi" / "CISI.ALL")
        ids += [f"CISI-{i}" for i in cisi_ids[:extra]]
        texts += cisi_texts[:extra]
    work = Path(tempfile.mkdtemp(prefix="learnsim-encoder-path-"))
    corpus = work / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in zip(ids, texts)), encoding="utf-8")
    train = next(p for p in (nf / "qrels" / "train.tsv", nf / "qrels" / "train.tsv.gz") if p.exists())
    model = work / "m.npz"
    env = {k: v for k, v in os.environ.items() if k != "LEARNSIM_EMBEDDING_CACHE"}
    steps = [
        ("fit", ["fit", "--qrels", str(train), "--queries", str(nf / "queries.jsonl"), "--corpus", str(corpus),
                 "--method", args.method, "--encoder", args.encoder, "--model", str(model)]),
        ("index build", ["index", "build", "--model", str(model), "--corpus", str(corpus), "--out", str(work / "idx")]),
        ("evaluate", ["evaluate", "--model", str(model), "--corpus", str(corpus), "--queries",
                      str(nf / "queries.jsonl"), "--qrels", str(nf / "qrels" / "test.tsv"), "--json"]),
    ]
    results = {"documents": len(ids), "method": args.method, "encoder": args.encoder, "seconds": {}}
    for name, command in steps:
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "learnsim"] + command, capture_output=True, text=True, env=env)
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            raise SystemExit(f"{name} failed with exit code {proc.returncode}")
        results["seconds"][name] = round(seconds, 1)
        print(f"{name}: {seconds:.1f} s", flush=True)
        if name == "evaluate":
            report = json.loads(proc.stdout)
            results["test_ndcg@10"] = {k: v["ndcg@10"] for k, v in report["methods"].items()}
    results["total_seconds"] = round(sum(results["seconds"].values()), 1)
    print(json.dumps(results, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
