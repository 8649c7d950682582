"""The query-side adapter against FILM over the same encoder, on NFCorpus's dev queries (issue 43):
the settings are chosen here, on the training and dev judgements; ``--split test`` scores the
fits on the test split, once.

1. The baselines on the dev queries: BM25, the encoder's cosine and their best mix.
2. ``--sweep``: the adapter alone, at each ridge weight, learned from every training query
   (BM25's and the encoder's hard negatives, random ones), and the best mix with BM25 and the
   encoder picked on dev itself (optimistic: an upper bound of what the check could keep).
3. The fits a user runs (``learnsim.fit(queries=, qrels=, corpus=, method=..., encoder=...)``),
   each checked on its own held-out training queries, scored on dev.

    python benchmarks/adapter_dev.py --encoder all-MiniLM-L6-v2 --sweep 0.01,0.1,0.3,1,3,30
    python benchmarks/adapter_dev.py --split test --methods default,film,adapter
"""
from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

from nfcorpus_common import unit as _unit     # benchmarks/, the script's own folder

HERE = Path(__file__).resolve().parent


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--encoder", default="all-MiniLM-L6-v2")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--sweep", default=None, help="ridge weights of the adapter alone, e.g. 0.1,1,10")
    parser.add_argument("--methods", default="adapter,film",
                        help="the fits: adapter, film (over the encoder), default (learnsim fit's default, no encoder)")
    parser.add_argument("--split", default="dev", help="the judgements scored: dev (choose here) or test (once)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)

    import learnsim.fitting
    from learnsim.adapter import QueryAdapter
    from learnsim.adapter.recipe import _encoder_negatives
    from learnsim.baseline import LexicalBaselines, SearchBaselines
    from learnsim.film.recipe import search_triplets
    from learnsim.text.encoders import embedding_cache, load_encoder
    from nfcorpus_common import load_nfcorpus

    nf = load_nfcorpus(args.data_dir, args.split)
    if nf is None:
        return 0
    ids, texts, queries, train, pos = nf.ids, nf.texts, nf.queries, nf.train, nf.position
    n = len(texts)
    dq = nf.query_ids
    qtexts = [queries[q] for q in dq]
    ndcg = nf.ndcg

    encoder = load_encoder(args.encoder)
    cache = HERE.parent / "results" / "embeddings"
    lex = LexicalBaselines(texts)
    bm25 = np.asarray(lex.scores("bm25", lex.query_counts(qtexts)))
    top = bm25.max(axis=1, keepdims=True)
    bm25n = bm25 / np.where(top > 0, top, 1.0)
    with embedding_cache(cache):
        E = _unit(encoder.transform(texts))
        Q = np.asarray(encoder.transform(qtexts), dtype=np.float64)
    base = _unit(Q) @ E.T
    out = {"split": args.split, "queries": len(dq), "bm25": ndcg(bm25), "encoder": ndcg(base),
           "encoder+bm25": max(ndcg(lam * bm25n + (1 - lam) * base) for lam in np.linspace(0.1, 0.9, 9))}
    print(json.dumps(out), flush=True)

    if args.sweep:
        tq = [q for q in train if q in queries and any(g > 0 and d in pos for d, g in train[q].items())]
        all_texts = list(texts) + [queries[q] for q in tq]
        P = np.array([(n + i, pos[d]) for i, q in enumerate(tq) for d, g in train[q].items() if g > 0 and d in pos])
        grades = np.ones(len(P))
        with embedding_cache(cache):
            X = np.asarray(encoder.transform(all_texts), dtype=np.float64)
        documents = np.arange(n)
        T, _ = search_triplets(P, grades, all_texts, X, SearchBaselines(all_texts, documents), 0, lambda *a, **k: None)
        T = np.vstack([T, _encoder_negatives(P, grades, X, documents, _unit(X[:n]), 0)])
        out["sweep"] = {}
        for alpha in (float(a) for a in args.sweep.split(",")):
            start = time.perf_counter()
            adapter = QueryAdapter(alpha=alpha).fit(X, T)
            S = _unit(adapter.transform_queries(Q)) @ E.T
            best = max((ndcg(lam * bm25n + (1 - lam) * ((1 - w) * S + w * base)), lam, w)
                       for lam in (0.0, 0.2, 0.3, 0.4, 0.5) for w in (0.0, 0.3, 0.5))
            out["sweep"][alpha] = {"alone": ndcg(S), "best_mix_on_dev": best[0], "lambda": best[1], "w": best[2],
                                   "seconds": round(time.perf_counter() - start, 1)}
            print(alpha, json.dumps(out["sweep"][alpha]), flush=True)

    corpus = dict(zip(ids, texts))
    for method in args.methods.split(","):
        start = time.perf_counter()
        with embedding_cache(cache), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if method == "default":
                fitted = learnsim.fitting.fit(queries=queries, qrels=train, corpus=corpus)
            else:
                fitted = learnsim.fitting.fit(queries=queries, qrels=train, corpus=corpus, method=method,
                                              encoder=encoder)
            S = fitted.pipeline.searcher(texts).closeness(qtexts)
        report = fitted.report.get("baseline_gain") or {}
        out[method] = {"ndcg": ndcg(S), "seconds": round(time.perf_counter() - start, 1),
                       "model": fitted.report.get("model"), "scoring": fitted.pipeline.scoring,
                       "check_gain": report.get("gain"), "check_ci": [report.get("ci_low"), report.get("ci_high")],
                       "check_cold": (report.get("cold") or {}).get("gain")}
        print(method, json.dumps(out[method]), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
