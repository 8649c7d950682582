"""The transferable LinkLearn weighting through the user path (issue 32, part 6): ``learnsim fit
--method linklearn --variant bm25`` on Wikispeedia's non-test articles, then the saved model
searching CISI, Cranfield and the Wikispeedia test third with each collection's own vocabulary,
against Okapi BM25 and the tf-idf cosine of that collection, in one process.

    python benchmarks/transfer_user_path.py [--data-dir DIR] [--work DIR] [--json FILE]
        [--collections cisi cran wiki-test] [--fit-args "..."]

What runs, as a user runs it:

1. Wikispeedia is split in thirds as ``learnsim reproduce linklearn`` and
   ``bench_weighting_transfer.py`` split it (``split_links``, seed 0). The training and
   validation thirds (every article but the test third, with every link among them) are written
   as ``pages.jsonl`` (id, text) and ``links.tsv`` (source_id<TAB>target_id), and
   ``learnsim fit --method linklearn --variant bm25 --input pages.jsonl --links links.tsv
   --model bm25.npz --json`` fits the weighting in a child process. Everything the fit chooses
   it chooses on held-out links of those articles (its validation share and the held-out share
   that judges learned against BM25); the test collections are never seen by it.
2. ``learnsim.load(bm25.npz)`` and ``Pipeline.similarity(queries, corpus)`` (the scores
   ``Pipeline.search`` and ``learnsim search --corpus`` rank by) score every judged query of
   CISI and Cranfield against its collection, and every Wikispeedia test article against the
   other test articles (its linked ones relevant, itself excluded). One ``learnsim search
   --model bm25.npz --corpus ... --queries ... -k 10 --json`` process per collection checks that
   the command line ranks the first queries' top 10 as the Python path does.
3. The baselines score the same term counts: the model's lexical vectoriser under the
   collection's own statistics (``Pipeline.collection_statistics`` / ``lexical_vectorizer``:
   Porter, English stop list, every word of the collection), Okapi BM25 (k1 = 1.5, b = 0.6)
   with binary queries and with query term counts, and the tf-idf cosine (log N/df).

The measure is MAP (AvgP over the judged queries; over the test articles with a link for
Wikispeedia), as in ``bench_weighting_transfer.py``; each row gives the learned weighting's
ratio to the strongest of the three baselines. Takes 3-6 minutes on 2 shared cores.
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
import warnings

import numpy as np
import scipy.sparse as sp

import learnsim
from learnsim.datasets import load_smart_collection, load_wikispeedia
from learnsim.evaluation import per_query_measures
from learnsim.reproduce.linklearn import PAPER_OKAPI, SEED, _tfidf_scores
from learnsim.supervision import split_links
from learnsim.text.bm25 import BM25

BASELINES = ("bm25", "bm25-counts", "tfidf-cosine")
LEARNSIM = [sys.executable, "-m", "learnsim"]


def _mean_ap(S, relevant, exclude_self=False):
    ap = per_query_measures(S, relevant, exclude_self=exclude_self, measures=("ap",))["ap"]
    return float(np.nanmean(ap))


def write_training_files(wiki, articles, folder):
    """pages.jsonl and links.tsv of the Wikispeedia ``articles`` (every link among them)."""
    articles = np.sort(np.asarray(articles))
    ids = [str(wiki.names[i]) for i in articles]
    pages = os.path.join(folder, "pages.jsonl")
    with open(pages, "w", encoding="utf-8") as f:
        for doc_id, i in zip(ids, articles):
            f.write(json.dumps({"id": doc_id, "text": wiki.texts[i]}) + "\n")
    A = sp.csr_matrix(wiki.links.adjacency)[articles][:, articles].tocoo()
    links = os.path.join(folder, "links.tsv")
    n = 0
    with open(links, "w", encoding="utf-8") as f:
        for s, t in zip(A.row, A.col):
            if s != t:
                f.write(f"{ids[s]}\t{ids[t]}\n")
                n += 1
    return pages, links, len(ids), n


def fit_cli(pages, links, model, extra=()):
    """``learnsim fit --method linklearn --variant bm25`` as a child process; its --json summary."""
    cmd = LEARNSIM + ["fit", "--method", "linklearn", "--variant", "bm25", "--input", pages, "--links", links,
                      "--model", model, "--json", *extra]
    print("$ " + " ".join(shlex.quote(c) for c in cmd[2:]), flush=True)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"learnsim fit failed ({done.returncode}):\n{done.stderr[-3000:]}")
    summary = json.loads(done.stdout)
    summary["wall_seconds"] = time.perf_counter() - t0
    return summary, done.stderr


def collections(data_dir, names):
    """name -> (queries, corpus, relevant, exclude_self)."""
    out = {}
    for name in names:
        if name == "wiki-test":
            wiki = load_wikispeedia(data_dir)
            _, _, (te, L_te) = split_links(wiki.links, random_state=SEED)
            texts = [wiki.texts[i] for i in te]
            out[name] = (texts, texts, L_te.symmetric().adjacency, True)
        else:
            coll = load_smart_collection(name, data_dir).judged_only()
            out[name] = (list(coll.queries), list(coll.documents), coll.relevance, False)
    return out


def cli_top10(model, queries, corpus, folder, name, n=5):
    """The top-10 document indices of the first ``n`` queries through ``learnsim search --corpus``."""
    qf, cf = os.path.join(folder, f"{name}-queries.jsonl"), os.path.join(folder, f"{name}-corpus.jsonl")
    for path, texts in ((qf, queries[:n]), (cf, corpus)):
        with open(path, "w", encoding="utf-8") as f:
            for i, t in enumerate(texts):
                # the command line refuses an empty line (Cranfield has one empty abstract): a
                # lone "." has no term either, so the collection's statistics are the same
                f.write(json.dumps({"id": str(i), "text": t if t.strip() else "."}) + "\n")
    done = subprocess.run(LEARNSIM + ["search", "--model", model, "--corpus", cf, "--queries", qf, "-k", "10",
                                      "--json"], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"learnsim search failed:\n{done.stderr[-2000:]}")
    return [[h["index"] for h in q["hits"]] for q in json.loads(done.stdout)]


def measure(pipeline, name, queries, corpus, relevant, exclude_self, folder, model_path):
    stats = pipeline.collection_statistics(corpus)
    vec = pipeline.lexical_vectorizer(stats)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        D = sp.csr_matrix(vec.transform(corpus), dtype=np.float64)
        Q = sp.csr_matrix(vec.transform(queries), dtype=np.float64)
    Qb = Q.copy()
    Qb.data[:] = 1.0
    S = pipeline.similarity(queries, corpus)
    ap = {"learned": _mean_ap(S, relevant, exclude_self),
          "bm25": _mean_ap(BM25(*PAPER_OKAPI).fit(D).score(Qb), relevant, exclude_self),
          "bm25-counts": _mean_ap(BM25(*PAPER_OKAPI, query_weights="counts").fit(D).score(Q), relevant,
                                  exclude_self),
          "tfidf-cosine": _mean_ap(_tfidf_scores(Q, D), relevant, exclude_self)}
    # the Python path and the command line rank alike
    python_top = [[h["corpus_id"] for h in row] for row in pipeline.search(queries[:5], corpus, k=10)]
    cli_top = cli_top10(model_path, queries, corpus, folder, name)
    strongest = max(BASELINES, key=lambda m: ap[m])
    return {**ap, "strongest": strongest, "ratio": ap["learned"] / ap[strongest],
            "documents": D.shape[0], "queries": int(np.sum(np.diff(sp.csr_matrix(relevant).indptr) > 0)),
            "terms": D.shape[1], "avgdl": float(D.sum() / D.shape[0]), "cli_agrees": python_top == cli_top}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--work", default=None, help="folder for the training files and the model (a temporary one)")
    parser.add_argument("--json", default=None, help="write the table as JSON")
    parser.add_argument("--collections", nargs="+", default=["cisi", "cran", "wiki-test"])
    parser.add_argument("--fit-args", default="", help="more options for learnsim fit (quoted)")
    parser.add_argument("--reuse", action="store_true", help="reuse --work's model from an earlier run")
    args = parser.parse_args(argv)
    folder = args.work or tempfile.mkdtemp(prefix="transfer-user-path-")
    os.makedirs(folder, exist_ok=True)

    wiki = load_wikispeedia(args.data_dir)
    (tr, _), (va, _), (te, _) = split_links(wiki.links, random_state=SEED)
    pages, links, n_pages, n_links = write_training_files(wiki, np.concatenate([tr, va]), folder)
    print(f"training files: {n_pages} Wikispeedia articles (training and validation thirds), {n_links} links; "
          f"the {len(te)} test articles left out", flush=True)
    model_path = os.path.join(folder, "bm25.npz")
    if args.reuse and os.path.exists(model_path + ".json"):
        with open(model_path + ".json", encoding="utf-8") as f:
            summary = json.load(f)
    else:
        summary, _ = fit_cli(pages, links, model_path, shlex.split(args.fit_args))
        with open(model_path + ".json", "w", encoding="utf-8") as f:
            json.dump(summary, f)
    gain = summary.get("baseline_gain") or {}
    print(f"fitted in {summary['wall_seconds']:.0f} s: weighting {summary.get('weighting')}; validation AvgP "
          f"{summary.get('validation_ap')}; against the baseline: {gain.get('status')} gain {gain.get('gain')} "
          f"(CI {gain.get('ci_low')} to {gain.get('ci_high')})", flush=True)
    pipeline = learnsim.load(model_path)
    metric = pipeline.metric
    if getattr(metric, "shrinkage_path_", np.zeros(0)).size:
        print(f"held-out shrinkage towards BM25's defaults (one standard error rule): kept {metric.shrinkage_:g}; "
              "factor / held-out AvgP / gap to the best / its SE: "
              + ", ".join(f"{lam:g} / {ap:.4f} / {gap:.4f} / {se:.4f}" for lam, ap, gap, se in metric.shrinkage_path_),
              flush=True)

    rows = {}
    header = f"{'collection':<10} {'learned':>8} " + " ".join(f"{m:>12}" for m in BASELINES) \
        + "   learned / strongest"
    print("\n" + header)
    for name, (queries, corpus, relevant, exclude_self) in collections(args.data_dir, args.collections).items():
        r = measure(pipeline, name, queries, corpus, relevant, exclude_self, folder, model_path)
        rows[name] = r
        print(f"{name:<10} {r['learned']:>8.3f} " + " ".join(f"{r[m]:>12.3f}" for m in BASELINES)
              + f"   {r['ratio']:.3f}x {r['strongest']}   ({r['documents']} docs, avgdl {r['avgdl']:.0f}, "
              f"{r['queries']} queries, CLI top 10 {'agrees' if r['cli_agrees'] else 'DIFFERS'})", flush=True)
    worst = min(r["ratio"] for r in rows.values())
    print(f"\nlowest ratio to the strongest baseline: {worst:.3f}x "
          f"({'meets' if worst >= 0.95 else 'misses'} 0.95x)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"fit": {k: v for k, v in summary.items()}, "rows": rows}, f, indent=1, default=str)
    return rows


if __name__ == "__main__":
    main()
