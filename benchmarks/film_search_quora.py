"""`learnsim search` with a FILM model against the tf.idf cosine, on held-out Quora duplicates.

For each seed: `learnsim fit --method film --pairs quora-sample/dev.tsv --dimensions 50 --seed S`
(FILM, its duplicate rule and its search weight chosen on 20 % held-out dev pairs), then every
test duplicate's first question searches the pool of all test questions. Recall@1 is the share
whose best hit other than itself is one of its duplicates. The same queries are ranked, in the
same process, by the tf.idf cosine of the model's own vectoriser and by the Euclidean distance
in FILM's space (what search did before issue 12). Both the first 1,000 duplicates (as the
test in tests/cli/test_cli_search.py) and all of them are reported.

    python benchmarks/film_search_quora.py [--seeds 0 1 2 3] [--dimensions 50] [--data-dir DIR]
"""
import argparse
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from learnsim import cli
from learnsim.datasets import find_data_dir, load_quora_pairs
from learnsim.film.hybrid import hybrid_rows
from learnsim.persistence import load
from learnsim.search import top_k
from learnsim.supervision import pairs_to_clusters


def _recall_at_1(best, queries, components):
    return float(np.mean(components[best] == components[queries]))


def _best_other(rows, queries, block=500):
    """Index of the best-scoring row other than the query itself, by inner product."""
    best = np.empty(len(queries), dtype=np.int64)
    for start in range(0, len(queries), block):
        q = queries[start:start + block]
        S = rows[q] @ rows.T
        S = S.toarray() if hasattr(S, "toarray") else np.asarray(S)
        S[np.arange(len(q)), q] = -np.inf
        best[start:start + block] = S.argmax(axis=1)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3])
    parser.add_argument("--dimensions", type=int, default=50)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")       # the sample's undecodable lines, counted once per load

    data = find_data_dir(args.data_dir)
    test = load_quora_pairs(data / "quora-sample" / "test.tsv")
    texts = list(test.texts)
    components = np.asarray(pairs_to_clusters(test.pairs, len(texts)).labels)
    firsts = test.pairs.indices[test.pairs.labels][:, 0]
    print(f"{len(texts)} test questions, {len(firsts)} test duplicates")
    print(f"{'seed':>4} {'w':>5} {'queries':>8} {'FILM search':>11} {'tf.idf cos':>10} {'ratio':>6} {'Euclid L':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for seed in args.seeds:
            model = Path(tmp) / f"film{seed}.npz"
            start = time.perf_counter()
            code = cli.main(["fit", "--method", "film", "--pairs", str(data / "quora-sample" / "dev.tsv"),
                             "--model", str(model), "--dimensions", str(args.dimensions), "--seed", str(seed),
                             "--no-progress"])
            if code != 0:
                raise SystemExit(f"fit failed with exit status {code}")
            fit_seconds = time.perf_counter() - start
            parts = load(model)
            X = parts["vectorizer"].transform(texts)
            E = np.asarray(parts["metric"].transform(X), dtype=np.float64)
            w = parts["search"].input_weight
            film_rows = hybrid_rows(X, E, w)
            for name, queries in (("1000", firsts[:1000]), ("all", firsts)):
                film = _recall_at_1(_best_other(film_rows, queries), queries, components)
                cos_hits = top_k(X[queries], X, 2, metric="cosine", return_scores=False)
                cos_best = np.array([next(h for h in hits if h != q) for hits, q in zip(cos_hits, queries)])
                cosine = _recall_at_1(cos_best, queries, components)
                euc_hits = top_k(E[queries], E, 2, metric="euclidean", return_scores=False)
                euc_best = np.array([next(h for h in hits if h != q) for hits, q in zip(euc_hits, queries)])
                euclid = _recall_at_1(euc_best, queries, components)
                print(f"{seed:>4} {w:>5.2f} {name:>8} {film:>11.3f} {cosine:>10.3f} {film / cosine:>6.3f} "
                      f"{euclid:>8.3f}", flush=True)
            print(f"     (fit {fit_seconds:.0f} s)")


if __name__ == "__main__":
    main()
