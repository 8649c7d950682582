"""Learned search on the queries and documents users bring, against the strongest baseline (issue 42).

A user with a collection and training judgements writes them as (query, relevant document, 1)
pairs and fits, as ``learnsim fit --pairs pairs.tsv --corpus corpus.jsonl`` does, then searches
new queries. This script does exactly that in one process for each collection and reports
nDCG@10 (trec_eval's ndcg_cut.10) on the test queries beside Okapi BM25, the tf.idf cosine (both
as ``learnsim evaluate`` computes them) and, with ``--encoder``, the encoder's cosine alone:

- ``default``: ``learnsim.fit(pairs=..., corpus=...)`` with no method named (FILM for pairs: its
  search rules and the baselines weighed on held-out queries and documents);
- ``film``: ``method="film"`` (the same recipe, named);
- ``encoder``: ``method="film", encoder=...`` (the encoder path, FILM over its vectors).

Test queries are split the way use comes: *cold* queries, none of whose relevant documents a
training judgement names; the *cold view*, every test query with relevant documents no training
judgement names, ranked with its other relevant documents taken out (so that finding a
remembered document neither helps nor hurts); the *warm* ones, with a relevant document a training
judgement names. Each figure is the mean over those queries; ratios are to BM25 on the same queries.

Collections (``../shared/data``):

- ``nfcorpus``: BEIR NFCorpus, train judgements (110,575 pairs of 2,590 queries), test queries
  (323); its test queries' documents are nearly all named in train, so
- ``nfcorpus-new-docs``: the same with a seeded 20 % of the documents withheld from the training
  judgements (documents added after the judgements were made): the cold view is then large;
- ``cisi``, ``cran``: CISI and Cranfield, their queries split in two halves (seeded): the
  judgements of one half train, the other half tests;
- ``quora``: the Quora sample's dev pairs train (duplicates and non-duplicates); the test pairs'
  duplicates are the queries (each question searches all the test questions; its duplicates are
  relevant), and the duplicate rule is measured on the test pairs against the cosine threshold.

    python benchmarks/retrieval_holdout.py [--only nfcorpus cisi cran quora nfcorpus-new-docs]
        [--encoder all-MiniLM-L6-v2] [--json results.json] [--seed 0]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

COLLECTIONS = ("nfcorpus", "nfcorpus-new-docs", "cisi", "cran", "quora")


# ---------------------------------------------------------------------------- data
def _nfcorpus(data, seed, withhold=0.0):
    from learnsim.datasets import read_corpus, read_qrels, read_queries

    root = data / "ir" / "nfcorpus"
    corpus = read_corpus(root / "corpus.jsonl.gz")
    queries = read_queries(root / "queries.jsonl")
    doc_ids = list(corpus)
    position = {d: i for i, d in enumerate(doc_ids)}

    def judged(split):
        path = root / "qrels" / (f"{split}.tsv.gz" if split == "train" else f"{split}.tsv")
        out = {}
        for q, row in read_qrels(path).items():
            rel = {position[d]: float(g) for d, g in row.items() if d in position and g > 0}
            if rel and q in queries:
                out[q] = rel
        return out

    train, test = judged("train"), judged("test")
    if withhold:
        rng = np.random.default_rng(seed)
        held = set(rng.choice(len(doc_ids), int(withhold * len(doc_ids)), replace=False).tolist())
        train = {q: {d: g for d, g in rel.items() if d not in held} for q, rel in train.items()}
        train = {q: rel for q, rel in train.items() if rel}
    return {"documents": list(corpus.values()), "queries": dict(queries), "train": train, "test": test}


def _smart(data, name, seed):
    from learnsim.datasets import load_smart_collection

    c = load_smart_collection(name, data)
    position = {d: i for i, d in enumerate(c.doc_ids)}
    queries = dict(zip(c.query_ids, c.queries))
    judged = {q: {position[d]: float(g) for d, g in row.items() if g > 0} for q, row in c.qrels.items()}
    judged = {q: rel for q, rel in judged.items() if rel and q in queries}
    ids = sorted(judged)
    order = np.random.default_rng(seed).permutation(len(ids))
    half = len(ids) // 2
    train = {ids[i]: judged[ids[i]] for i in order[:half]}
    test = {ids[i]: judged[ids[i]] for i in order[half:]}
    return {"documents": list(c.documents), "queries": queries, "train": train, "test": test}


def _quora(data):
    from learnsim.datasets import read_pairs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dev = read_pairs(data / "quora-sample" / "dev.tsv")
        test = read_pairs(data / "quora-sample" / "test.tsv")
    return dev, test


# ---------------------------------------------------------------------------- measures
def _ndcg(hits, relevant, excluded=(), k=10):
    """nDCG@k of one query's hits (document indices, best first)."""
    disc = 1.0 / np.log2(np.arange(2, k + 2))
    ranked = [d for d in hits if d not in excluded][:k]
    gains = np.array([relevant.get(d, 0.0) for d in ranked])
    ideal = np.sort(np.fromiter(relevant.values(), dtype=np.float64))[::-1][:k]
    return float(gains @ disc[:gains.size] / (ideal @ disc[:ideal.size]))


def _parts(test, train_docs):
    """Per test query: (all relevant, cold view (relevant, excluded) or None, warm?, cold?)."""
    out = {}
    for q, rel in test.items():
        unseen = {d: g for d, g in rel.items() if d not in train_docs}
        seen = [d for d in rel if d in train_docs]
        out[q] = (rel, (unseen, set(seen)) if unseen else None, bool(seen), not seen)
    return out


def _measure(ranked, parts):
    """{part: (mean nDCG@10, n queries)} of a ranking {query: hits}."""
    rows = {"all": [], "cold": [], "cold view": [], "warm": []}
    for q, (rel, view, warm, cold) in parts.items():
        hits = ranked[q]
        score = _ndcg(hits, rel)
        rows["all"].append(score)
        if warm:
            rows["warm"].append(score)
        if cold:
            rows["cold"].append(score)
        if view is not None:
            rows["cold view"].append(_ndcg(hits, view[0], view[1]))
    return {p: (float(np.mean(v)) if v else None, len(v)) for p, v in rows.items()}


# ---------------------------------------------------------------------------- the runs
class CachedEncoder:
    """An encoder that encodes each distinct text once in this process (the fits, the search and
    the baseline take the same texts): the benchmark's time goes to learnsim, not to re-encoding."""

    def __init__(self, encoder):
        self.encoder, self.cache = encoder, {}
        self.embedding_dim_ = encoder.embedding_dim_
        self.model_path_ = getattr(encoder, "model_path_", None)

    def transform(self, texts):
        texts = list(texts)
        todo = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if todo:
            for t, v in zip(todo, np.asarray(self.encoder.transform(todo), dtype=np.float32)):
                self.cache[t] = v
        return np.vstack([self.cache[t] for t in texts]) if texts else np.zeros((0, self.embedding_dim_), np.float32)

    def __getattr__(self, name):
        return getattr(self.encoder, name)


def _rank_with(pipeline, documents, queries, depth=100):
    hits = pipeline.search(queries, documents, k=min(depth, len(documents)))
    return [[h["corpus_id"] for h in row] for row in hits]


def _lexical_rankings(documents, queries, depth=100):
    from learnsim.baseline import LexicalBaselines

    lex = LexicalBaselines(documents)
    out = {}
    for name in ("bm25", "cosine"):
        idx, _ = lex.search(name, queries, min(depth, len(documents)))
        out[name] = [list(map(int, row)) for row in idx]
    return out


def _fit(rows, documents, seed, **options):
    import learnsim.fitting
    from learnsim.baseline import BaselineGain

    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = learnsim.fitting.fit(pairs=rows, corpus=documents, random_state=seed, **options)
    seconds = time.perf_counter() - start
    report = result.report.get("baseline_gain")
    return result, seconds, (BaselineGain.from_dict(report).summary() if report else None)


def run_retrieval(name, coll, seed, encoder=None):
    documents, queries = coll["documents"], coll["queries"]
    rows = [(queries[q], documents[d], 1) for q, rel in coll["train"].items() for d in rel]
    test_ids = sorted(coll["test"])
    test_texts = [queries[q] for q in test_ids]
    train_docs = {d for rel in coll["train"].values() for d in rel}
    parts = _parts(coll["test"], train_docs)
    print(f"\n## {name}: {len(documents)} documents, {len(rows)} training pairs of {len(coll['train'])} queries, "
          f"{len(test_ids)} test queries ({sum(p[3] for p in parts.values())} cold, "
          f"{sum(p[1] is not None for p in parts.values())} with a cold view, "
          f"{sum(p[2] for p in parts.values())} warm)", flush=True)
    rankings, info = {}, {}
    for method, ranked in _lexical_rankings(documents, test_texts).items():
        rankings[method] = dict(zip(test_ids, ranked))
    fits = [("default", {}), ("film", {"method": "film"})]
    if encoder is not None:
        from learnsim import Pipeline

        rankings["encoder alone"] = dict(zip(test_ids, _rank_with(Pipeline.from_encoder(encoder), documents, test_texts)))
        fits.append(("encoder path", {"method": "film", "encoder": encoder}))
    for method, options in fits:
        result, seconds, summary = _fit(rows, documents, seed, **options)
        rankings[method] = dict(zip(test_ids, _rank_with(result.pipeline, documents, test_texts)))
        info[method] = {"seconds": round(seconds, 1), "scoring": result.pipeline.scoring, "check": summary,
                        "model": result.report.get("model")}
        print(f"  {method}: {result.pipeline.scoring} ({seconds:.0f} s)\n    {summary}", flush=True)
    table = {method: _measure(ranked, parts) for method, ranked in rankings.items()}
    _print_table(table)
    return {"collection": name, "documents": len(documents), "training_pairs": len(rows),
            "test_queries": len(test_ids), "results": table, "fits": info}


def _print_table(table):
    base = table["bm25"]
    print("\n  | method | all | ratio | cold | ratio | cold view | ratio | warm | ratio |")
    print("  |---|---|---|---|---|---|---|---|---|")
    for method, res in table.items():
        cells = []
        for part in ("all", "cold", "cold view", "warm"):
            value, n = res[part]
            ref = base[part][0]
            if value is None:
                cells += ["- (0)", "-"]
            else:
                cells += [f"{value:.4f} ({n})", f"{value / ref:.3f}x" if ref else "-"]
        print(f"  | {method} | " + " | ".join(cells) + " |")


def run_quora(data, seed, encoder=None):
    """Quora: fit on the dev pairs; the test duplicates search the test questions, and the duplicate
    rule decides the test pairs."""
    from learnsim.baseline import LexicalBaselines
    from learnsim.supervision import pairs_to_clusters

    dev, test = _quora(data)
    rows = [(str(dev.texts[a]), str(dev.texts[b]), int(y)) for (a, b), y in zip(dev.pairs.indices, dev.pairs.labels)]
    texts = [str(t) for t in test.texts]
    idx, labels = np.asarray(test.pairs.indices), np.asarray(test.pairs.labels, dtype=bool)
    chains = np.asarray(pairs_to_clusters(test.pairs, len(texts)).labels)
    members = {}
    for t in np.unique(idx[labels].ravel()):
        members.setdefault(chains[t], []).append(int(t))
    parts = {int(q): ({d: 1.0 for d in group if d != q}, None, False, True)
             for group in members.values() for q in group}
    parts = {q: p for q, p in parts.items() if p[0]}
    rng = np.random.default_rng(seed)
    query_ids = sorted(rng.choice(sorted(parts), min(2000, len(parts)), replace=False).tolist())
    parts = {q: parts[q] for q in query_ids}
    query_texts = [texts[q] for q in query_ids]
    print(f"\n## quora: {len(rows)} dev pairs; {len(query_ids)} test duplicates search the {len(texts)} test "
          "questions (each ranking excludes itself)", flush=True)
    rankings, info, rules = {}, {}, {}

    def own(ranked):
        return {q: [d for d in row if d != q] for q, row in zip(query_ids, ranked)}

    lex = LexicalBaselines(texts)
    for name in ("bm25", "cosine"):
        found, _ = lex.search(name, query_texts, 101)
        rankings[name] = own([list(map(int, r)) for r in found])
    fits = [("default", {}), ("film", {"method": "film"})]
    if encoder is not None:
        from learnsim import Pipeline

        rankings["encoder alone"] = own(_rank_with(Pipeline.from_encoder(encoder), texts, query_texts, 101))
        fits.append(("encoder path", {"method": "film", "encoder": encoder}))
    pairs = [(texts[a], texts[b]) for a, b in idx]
    for method, options in fits:
        import learnsim.fitting

        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = learnsim.fitting.fit(pairs=rows, random_state=seed, **options)
        seconds = time.perf_counter() - start
        rankings[method] = own(_rank_with(result.pipeline, texts, query_texts, 101))
        decided = np.array([m["duplicate"] for m in result.pipeline.match(pairs)])
        rules[method] = {"rule": result.report.get("matcher"), "accuracy": float(np.mean(decided == labels))}
        from learnsim.baseline import BaselineGain

        report = result.report.get("baseline_gain")
        info[method] = {"seconds": round(seconds, 1), "scoring": result.pipeline.scoring,
                        "check": BaselineGain.from_dict(report).summary() if report else None}
        print(f"  {method}: {result.pipeline.scoring}, duplicate rule {rules[method]['rule']} "
              f"(test accuracy {rules[method]['accuracy']:.4f}) ({seconds:.0f} s)\n    {info[method]['check']}",
              flush=True)
    # the cosine threshold's accuracy, its threshold chosen on the dev pairs (the duplicate rule's baseline)
    dev_texts = [str(t) for t in dev.texts]
    dev_lex = LexicalBaselines(dev_texts)
    Qa = dev_lex.query_counts([dev_texts[a] for a, _ in dev.pairs.indices])
    Qb = dev_lex.query_counts([dev_texts[b] for _, b in dev.pairs.indices])
    cos = _pair_cosine(dev_lex, Qa, Qb)
    dev_y = np.asarray(dev.pairs.labels, dtype=bool)
    grid = np.unique(cos)
    best = max(grid, key=lambda t: np.mean((cos >= t) == dev_y))
    test_cos = _pair_cosine(dev_lex, dev_lex.query_counts([texts[a] for a, _ in idx]),
                            dev_lex.query_counts([texts[b] for _, b in idx]))
    rules["cosine threshold"] = {"rule": f"tf.idf cosine >= {best:.3f} (chosen on dev)",
                                 "accuracy": float(np.mean((test_cos >= best) == labels))}
    table = {method: _measure(ranked, parts) for method, ranked in rankings.items()}
    _print_table(table)
    print("\n  duplicate rule on the test pairs: " + ", ".join(f"{m} {r['accuracy']:.4f}" for m, r in rules.items()))
    return {"collection": "quora", "training_pairs": len(rows), "test_queries": len(query_ids), "results": table,
            "fits": info, "duplicate_rule": rules}


def _pair_cosine(lex, Qa, Qb):
    from learnsim.text import tfidf_cosine_weights

    idf = np.asarray(lex.cosine.idf, dtype=np.float64)
    A, B = tfidf_cosine_weights(Qa, idf), tfidf_cosine_weights(Qb, idf)
    return np.asarray(A.multiply(B).sum(axis=1)).ravel()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=COLLECTIONS, default=list(COLLECTIONS))
    parser.add_argument("--encoder", default=None, help="a sentence encoder (e.g. all-MiniLM-L6-v2) for the encoder "
                                                         "path and the encoder's cosine")
    parser.add_argument("--data-dir", default=os.environ.get("LEARNSIM_DATA", str(Path(__file__).resolve().parents[2]
                                                                                      / "shared" / "data")))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    data = Path(args.data_dir)
    encoder = None
    if args.encoder:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from learnsim.text.encoders import load_encoder

        encoder = CachedEncoder(load_encoder(args.encoder))
    out = []
    for name in args.only:
        if name == "quora":
            out.append(run_quora(data, args.seed, encoder))
            continue
        coll = (_nfcorpus(data, args.seed) if name == "nfcorpus" else
                _nfcorpus(data, args.seed, withhold=0.2) if name == "nfcorpus-new-docs" else
                _smart(data, name, args.seed))
        out.append(run_retrieval(name, coll, args.seed, encoder))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
