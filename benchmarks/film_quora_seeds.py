"""How much the Quora result of `learnsim reproduce film` depends on the seeds.

The reproduction makes one seeded split of dev.tsv (80 % FILM's training pairs, 20 % validation
pairs) and fits FILM with one seed. This script repeats that for several split seeds and FILM
seeds and prints, for each, the test accuracy of the tf.idf cosine, of FILM alone (threshold
rule) and of FILM mixed with the cosine (`ThresholdMatcher(input_weight="auto")`), all rules
chosen on the validation pairs, plus the mean and range of the gains.

    python benchmarks/film_quora_seeds.py [--splits 0 1 2] [--film-seeds 0 1] [--d 50] [--neighbours 10]
                                          [--criterion auc] [--data-dir DIR]

The defaults are the reproduction's protocol: one hard negative per training direction drawn
among the anchor's 10 nearest dev questions (``--neighbours 0``: none), the mixing weight
chosen by validation ROC AUC (``--criterion accuracy``: by validation accuracy), FILM's
default stopping rule.
"""
import argparse
import time
import warnings

import numpy as np

from learnsim.datasets import load_quora_pairs
from learnsim.film import FILM
from learnsim.matching import ThresholdMatcher
from learnsim.search import top_k
from learnsim.supervision import duplicate_pairs_to_triplets, split_pairs
from learnsim.text import TextVectorizer


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--film-seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--d", type=int, default=50)
    parser.add_argument("--neighbours", type=int, default=10,
                        help="hard negatives from this many tf.idf neighbours (0: none)")
    parser.add_argument("--criterion", choices=("auc", "accuracy"), default="auc",
                        help="how the mixing weight is chosen on the validation pairs")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    dev, test = load_quora_pairs("dev", data_dir=args.data_dir), load_quora_pairs("test", data_dir=args.data_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vec = TextVectorizer("tfidf", sublinear_tf=True, norm="l2", dtype=np.float64).fit(
            list(dev.texts) + list(test.texts))
    Xd, Xt = vec.transform(dev.texts), vec.transform(test.texts)
    empty = np.flatnonzero(np.diff(Xd.indptr) == 0)
    neighbours = (top_k(Xd, Xd, args.neighbours, metric="cosine", exclude_self=True)[0]
                  if args.neighbours else None)
    rows = []
    print(f"{'split':>5} {'film seed':>9} {'cosine':>7} {'FILM':>7} {'FILM+cos':>8} {'w':>5} {'iters':>5} {'fit s':>6}")
    for split_seed in args.splits:
        train, val = split_pairs(dev.pairs, 0.2, np.random.default_rng(split_seed))
        cos = ThresholdMatcher().fit(Xd, val).score(test.pairs, X=Xt)
        T = duplicate_pairs_to_triplets(train, n_items=Xd.shape[0], random_state=split_seed,
                                        neighbors=neighbours).indices
        T = T[~np.isin(T, empty).any(axis=1)]
        for film_seed in args.film_seeds:
            start = time.perf_counter()
            film = FILM(n_components=args.d, random_state=film_seed, baseline_holdout=None).fit(Xd, T)
            fit_s = time.perf_counter() - start
            alone = ThresholdMatcher(film).fit(Xd, val).score(test.pairs, X=Xt)
            mixed = ThresholdMatcher(film, input_weight="auto", weight_criterion=args.criterion).fit(Xd, val)
            acc = mixed.score(test.pairs, X=Xt)
            rows.append((cos, alone, acc))
            print(f"{split_seed:>5} {film_seed:>9} {cos:7.4f} {alone:7.4f} {acc:8.4f} {mixed.input_weight_:5.2f} "
                  f"{film.n_iter_:>5} {fit_s:6.1f}", flush=True)
    gains = np.array([[a - c, m - c] for c, a, m in rows]) * 100
    for name, g in (("FILM alone", gains[:, 0]), ("FILM+cos", gains[:, 1])):
        print(f"{name}: gain over cosine {g.mean():+.2f} points on average (min {g.min():+.2f}, max {g.max():+.2f}, "
              f"{len(g)} runs)")


if __name__ == "__main__":
    main()
