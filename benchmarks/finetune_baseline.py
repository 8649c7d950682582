"""The alternative to a query-side adapter that a user would otherwise pick: fine-tuning the
sentence encoder itself with sentence-transformers (MultipleNegativesRankingLoss, in-batch
negatives, one epoch) on the same training judgements, on CPU, then re-embedding the collection
(issue 43). Prints its wall time and its test nDCG@10 beside the encoder alone and BM25, in one
process, on the same queries; ``--adapter`` also fits ``learnsim fit --method adapter`` (and the
default FILM path) on the same judgements and reports the ratio of their times.

    python benchmarks/finetune_baseline.py --encoder all-MiniLM-L6-v2 --adapter
    python benchmarks/finetune_baseline.py --max-pairs 20000     # a seeded sample of the pairs

The training loop is written out (tokenise, forward, loss, AdamW with linear warm-up) so that
it needs only sentence-transformers and PyTorch (no ``datasets``/``accelerate``). Settings are
sentence-transformers' defaults for this loss: batch 32, learning rate 2e-5, 10 % warm-up, the
model's own maximum sequence length, scale 20.
"""
from __future__ import annotations

import argparse
import json
import sys
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
    parser.add_argument("--split", default="test", help="the judgements scored once (choose settings on dev)")
    parser.add_argument("--max-pairs", type=int, default=None, help="a seeded sample of the training pairs")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--adapter", action="store_true", help="also fit the adapter and FILM paths")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)

    import torch
    from sentence_transformers import SentenceTransformer, losses

    from learnsim.baseline import LexicalBaselines
    from learnsim.text.encoders import default_benchmark_model_path, embedding_cache, load_encoder
    from nfcorpus_common import load_nfcorpus

    nf = load_nfcorpus(args.data_dir, args.split)
    if nf is None:
        return 0
    ids, texts, queries, train, pos = nf.ids, nf.texts, nf.queries, nf.train, nf.position
    qids = nf.query_ids
    qtexts = [queries[q] for q in qids]
    ndcg = nf.ndcg

    pairs = [(queries[q], texts[pos[d]]) for q, docs in train.items() if q in queries
             for d, g in docs.items() if g > 0 and d in pos]
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(pairs))
    if args.max_pairs is not None:
        order = order[:args.max_pairs]
    pairs = [pairs[i] for i in order]
    path = args.encoder
    if path == "all-MiniLM-L6-v2":
        path = default_benchmark_model_path()
    results = {"split": args.split, "queries": len(qids), "documents": len(texts), "training_pairs": len(pairs)}

    lex = LexicalBaselines(texts)
    results["bm25"] = ndcg(lex.scores("bm25", lex.query_counts(qtexts)))
    encoder = load_encoder(args.encoder)
    cache = HERE.parent / "results" / "embeddings"
    with embedding_cache(cache):
        E, Q = encoder.transform(texts), encoder.transform(qtexts)
    results["encoder"] = ndcg(_unit(Q) @ _unit(E).T)
    print(json.dumps(results), flush=True)

    torch.manual_seed(args.seed)
    model = SentenceTransformer(str(path), device="cpu")
    loss = losses.MultipleNegativesRankingLoss(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    steps = (len(pairs) + args.batch_size - 1) // args.batch_size
    warmup = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / warmup) * max(0.0, (steps - s) / max(1, steps - warmup))
        if s >= warmup else (s + 1) / warmup)
    model.train()
    start = time.perf_counter()
    for step in range(steps):
        batch = pairs[step * args.batch_size:(step + 1) * args.batch_size]
        prepare = getattr(model, "preprocess", None) or model.tokenize     # tokenize before sentence-transformers 6
        features = [prepare([q for q, _ in batch]), prepare([d for _, d in batch])]
        value = loss(features, labels=None)
        value.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        if step % 50 == 0:
            elapsed = time.perf_counter() - start
            print(f"step {step + 1}/{steps}, loss {value.detach().item():.4f}, {elapsed:.0f} s, about "
                  f"{elapsed / (step + 1) * (steps - step - 1):.0f} s left", file=sys.stderr, flush=True)
    train_seconds = time.perf_counter() - start
    model.eval()
    start = time.perf_counter()
    with torch.no_grad():
        E2 = model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
        Q2 = model.encode(qtexts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
    embed_seconds = time.perf_counter() - start
    results.update(finetune=ndcg(Q2 @ E2.T), finetune_train_seconds=train_seconds,
                   finetune_reembed_seconds=embed_seconds, finetune_seconds=train_seconds + embed_seconds)
    print(json.dumps(results), flush=True)

    if args.adapter:
        import learnsim.fitting

        corpus = dict(zip(ids, texts))
        for method in ("adapter", "film"):
            start = time.perf_counter()
            with embedding_cache(cache), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fitted = learnsim.fitting.fit(queries=queries, qrels=train, corpus=corpus, method=method,
                                              encoder=encoder)
                S = fitted.pipeline.searcher(texts).closeness(qtexts)
            seconds = time.perf_counter() - start
            results[method] = ndcg(S)
            results[f"{method}_seconds"] = seconds
            results[f"{method}_model"] = fitted.pipeline.scoring
        results["adapter_time_share"] = results["adapter_seconds"] / results["finetune_seconds"]
    for key in ("encoder", "finetune", "adapter", "film"):
        if key in results:
            results[f"{key}/bm25"] = results[key] / results["bm25"]
    print(json.dumps(results, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
