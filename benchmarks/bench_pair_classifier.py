"""Duplicate detection and graded similarity with a learned pair model against a threshold.

In one process on the same data, every setting chosen on dev / validation pairs only:

* Quora sample: ``load_quora_pairs("dev")`` is split once (seed 0) into 80 % training and 20 %
  validation pairs; FILM (d = 50, the reproduction's triplets with one hard negative among 10
  tf.idf neighbours) trains on the training pairs. Rules: the tf.idf cosine threshold and
  FILM + cosine (``ThresholdMatcher(input_weight="auto")``), both fitted on the validation
  pairs; the pair classifier (:class:`learnsim.pair_classifier.PairClassifierMatcher`): its
  default features and the same plus FILM's ``"embedding"`` block are fitted on the training
  pairs, the one with the higher validation accuracy is refitted on all dev pairs (FILM too)
  and scored on ``load_quora_pairs("test")``.
* STS-B: FILM (d = 100, the reproduction's triplets) trains on ``train``; the tf.idf cosine,
  FILM alone, FILM + cosine (weight by dev Pearson) and the regression variant
  (:class:`~learnsim.pair_classifier.PairScoreRegressor`, fitted on ``train``: the default
  blocks with character 2-5 (default), 2-4 or 1-4 grams, or with FILM's block, the one with the
  best dev Pearson) are scored by test Pearson.

The vectoriser (tf.idf, sublinear tf, L2 rows) and the character idf / LSI are fitted on the
texts of all splits without labels, as in ``learnsim reproduce film``.

    python benchmarks/bench_pair_classifier.py [--data-dir DIR] [--only quora|sts]
"""
import argparse
import time
import warnings

import numpy as np
import scipy.sparse as sp

from learnsim.datasets import load_quora_pairs, load_sts_benchmark
from learnsim.evaluation import pearson
from learnsim.film import FILM
from learnsim.film.hybrid import select_input_weight
from learnsim.matching import ThresholdMatcher, pair_similarity
from learnsim.matching.pair_classifier import DEFAULT_FEATURES, PairClassifierMatcher, PairScoreRegressor
from learnsim.search import top_k
from learnsim.supervision import Pairs, duplicate_pairs_to_triplets, graded_pairs_to_triplets, split_pairs
from learnsim.text import TextVectorizer

SEED = 0


def _vectorizer(texts):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return TextVectorizer("tfidf", sublinear_tf=True, norm="l2", dtype=np.float64).fit(texts)


def _keep_nonempty(T, X):
    empty = np.flatnonzero(np.diff(sp.csr_matrix(X).indptr) == 0)
    T = T.indices if hasattr(T, "indices") else np.asarray(T)
    return T[~np.isin(T, empty).any(axis=1)]


def _f1(pred, labels):
    pred, labels = np.asarray(pred, bool), np.asarray(labels, bool)
    tp = np.sum(pred & labels)
    return 2 * tp / max(1, pred.sum() + labels.sum())


def quora(data_dir):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dev, test = load_quora_pairs("dev", data_dir=data_dir), load_quora_pairs("test", data_dir=data_dir)
    dev_texts, test_texts = list(dev.texts), list(test.texts)
    texts = dev_texts + test_texts
    n_dev = len(dev_texts)
    vec = _vectorizer(texts)
    X = vec.transform(texts)
    Xd = X[:n_dev]
    train, val = split_pairs(dev.pairs, 0.2, np.random.default_rng(SEED))
    test_pairs = Pairs(test.pairs.indices + n_dev, labels=test.pairs.labels)
    neighbours = top_k(Xd, Xd, 10, metric="cosine", exclude_self=True)[0]

    def film_on(pairs):
        T = duplicate_pairs_to_triplets(pairs, n_items=n_dev, n_random_negatives=1, random_state=SEED,
                                        neighbors=neighbours, n_hard_negatives=1)
        return FILM(n_components=50, random_state=SEED, baseline_holdout=None).fit(Xd, _keep_nonempty(T, Xd))

    rows = []

    def add(name, pred, val_acc, seconds, extra=""):
        rows.append((name, float(np.mean(np.asarray(pred, bool) == test_pairs.labels)), _f1(pred, test_pairs.labels),
                     val_acc, seconds, extra))
        print(f"  {name}: test accuracy {rows[-1][1]:.4f} F1 {rows[-1][2]:.4f} (validation {val_acc:.4f}, "
              f"{seconds:.0f} s) {extra}", flush=True)

    start = time.perf_counter()
    cos = ThresholdMatcher().fit(X, val)
    add("tf.idf cosine", cos.predict(test_pairs), cos.validation_accuracy_, time.perf_counter() - start)
    start = time.perf_counter()
    film = film_on(train)
    mixed = ThresholdMatcher(film, input_weight="auto").fit(X, val)
    add("FILM + cosine", mixed.predict(test_pairs), mixed.validation_accuracy_, time.perf_counter() - start,
        f"w = {mixed.input_weight_:.2f}")
    candidates = {"default": dict(features=DEFAULT_FEATURES),
                  "default + FILM": dict(features=DEFAULT_FEATURES + ("embedding",), embedding=film)}
    val_acc = {}
    for name, params in candidates.items():
        start = time.perf_counter()
        model = PairClassifierMatcher(vectorizer=vec, random_state=SEED, **params).fit(texts, train)
        val_acc[name] = model.score(val)
        print(f"  pair classifier [{name}] fitted on the training pairs: validation accuracy {val_acc[name]:.4f} "
              f"(C = {model.C_}, {time.perf_counter() - start:.0f} s)", flush=True)
    chosen = max(val_acc, key=val_acc.get)
    start = time.perf_counter()
    params = dict(candidates[chosen])
    if "embedding" in params:
        params["embedding"] = film_on(dev.pairs)
    final = PairClassifierMatcher(vectorizer=vec, random_state=SEED, **params).fit(texts, dev.pairs)
    add(f"pair classifier [{chosen}]", final.predict(test_pairs), val_acc[chosen], time.perf_counter() - start,
        f"refitted on all dev pairs, C = {final.C_}, out-of-fold accuracy {final.validation_accuracy_:.4f}")
    base = rows[0][1]
    print("\nQuora sample, test (10,000 pairs)\n\n| rule | accuracy | F1 | acc / cosine | validation acc. |\n|---|---|---|---|---|")
    for name, acc, f1, v, _s, _e in rows:
        print(f"| {name} | {acc:.4f} | {f1:.4f} | {acc / base:.3f} | {v:.4f} |")


def sts(data_dir):
    splits = {s: load_sts_benchmark(s, data_dir=data_dir) for s in ("train", "dev", "test")}
    texts, offsets, n = [], {}, 0
    for name, data in splits.items():
        offsets[name] = n
        texts += list(data.texts)
        n += len(data.texts)
    pairs = {name: Pairs(d.pairs.indices + offsets[name], scores=d.pairs.scores) for name, d in splits.items()}
    vec = _vectorizer(texts)
    X = vec.transform(texts)
    n_train = len(splits["train"].texts)
    Xtr = X[:n_train]
    gold_dev, gold = pairs["dev"].scores, pairs["test"].scores
    start = time.perf_counter()
    T = graded_pairs_to_triplets(splits["train"].pairs, random_state=SEED, high_score=3.0, n_random_negatives=2,
                                 n_items=n_train)
    film = FILM(n_components=100, random_state=SEED, baseline_holdout=None).fit(Xtr, _keep_nonempty(T, Xtr))
    film_s = time.perf_counter() - start
    E = film.transform(X)
    rows = [("tf.idf cosine", pearson(pair_similarity(X, pairs["test"].indices), gold), None),
            ("FILM alone", pearson(pair_similarity(E, pairs["test"].indices), gold), None)]
    w, _ = select_input_weight(pair_similarity(X, pairs["dev"].indices), pair_similarity(E, pairs["dev"].indices),
                               lambda s: pearson(s, gold_dev))
    mix = w * pair_similarity(X, pairs["test"].indices) + (1 - w) * pair_similarity(E, pairs["test"].indices)
    rows.append((f"FILM + cosine (w = {w:.2f})", pearson(mix, gold), None))
    print(f"  FILM d = 100 fitted in {film_s:.0f} s", flush=True)
    results = {}
    candidates = {"default": dict(features=DEFAULT_FEATURES),
                  "char 2-4": dict(features=DEFAULT_FEATURES, char_ngram_range=(2, 4)),
                  "char 1-4": dict(features=DEFAULT_FEATURES, char_ngram_range=(1, 4)),
                  "default + FILM": dict(features=DEFAULT_FEATURES + ("embedding",), embedding=film)}
    for name, params in candidates.items():
        start = time.perf_counter()
        model = PairScoreRegressor(vectorizer=vec, random_state=SEED, **params).fit(texts, pairs["train"])
        results[name] = (model.score(pairs["dev"]), model.score(pairs["test"]), model.alpha_)
        print(f"  pair regression [{name}]: dev Pearson {results[name][0]:.4f} (alpha = {model.alpha_}, "
              f"{time.perf_counter() - start:.0f} s)", flush=True)
    chosen = max(results, key=lambda k: results[k][0])
    rows.append((f"pair regression [{chosen}]", results[chosen][1], results[chosen][0]))
    base = rows[0][1]
    print("\nSTS-B, test (1,379 pairs)\n\n| rule | Pearson | / cosine | dev Pearson |\n|---|---|---|---|")
    for name, r, dev_r in rows:
        print(f"| {name} | {r:.4f} | {r / base:.3f} | {'-' if dev_r is None else f'{dev_r:.4f}'} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--only", choices=("quora", "sts"), default=None)
    args = parser.parse_args(argv)
    if args.only in (None, "sts"):
        print("STS-B", flush=True)
        sts(args.data_dir)
    if args.only in (None, "quora"):
        print("Quora sample", flush=True)
        quora(args.data_dir)


if __name__ == "__main__":
    main()
