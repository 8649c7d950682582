"""A FILM model searching a collection it was not fitted on: the Quora sample's test questions
(issue 32, part 6).

`learnsim fit --method film --pairs quora-sample/dev.tsv --no-rerank --seed S` (the default
fit: FILM, its duplicate rule and its search weight w chosen on held-out dev pairs), then every
test duplicate's first question searches the pool of all test questions (its best hit other
than itself counts; recall@1). Three rankings of the same queries:

- before: the lexical part over the model's training vocabulary (what search did before issue
  32: words met only in the test questions were dropped, from the input cosine as well);
- after: ``Pipeline.search`` (the input cosine over the test questions' own vocabulary and idf),
  and the same through an index (``Index.build`` + ``Index.search``);
- the plain tf-idf cosine fitted on the test questions (the vectoriser's settings).

    python benchmarks/collection_vocabulary_quora.py [--seeds 0] [--queries 500] [--data-dir DIR]
"""
import argparse
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np


def _best_other(hits, q):
    return next(h for h in hits if h != q)


def main(argv=None):
    from learnsim import cli, load
    from learnsim.datasets import find_data_dir, load_quora_pairs
    from learnsim.index import Index
    from learnsim.scorer import Scorer
    from learnsim.supervision import pairs_to_clusters
    from learnsim.text import TextVectorizer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--queries", type=int, default=500, help="the first N test duplicates (0: all)")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")       # the sample's undecodable lines, counted once per load

    data = find_data_dir(args.data_dir)
    test = load_quora_pairs(data / "quora-sample" / "test.tsv")
    texts = [str(t) for t in test.texts]
    components = np.asarray(pairs_to_clusters(test.pairs, len(texts)).labels)
    firsts = test.pairs.indices[test.pairs.labels][:, 0]
    if args.queries:
        firsts = firsts[:args.queries]
    queries = [texts[q] for q in firsts]
    print(f"{len(texts)} test questions, {len(firsts)} duplicate queries")

    def recall(best):
        return float(np.mean(components[np.asarray(best)] == components[firsts]))

    print(f"{'seed':>4} {'scoring':>22} {'before':>7} {'after':>7} {'index':>7} {'tf-idf cos':>10} {'after/cos':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for seed in args.seeds:
            path = Path(tmp) / f"film{seed}.npz"
            start = time.perf_counter()
            code = cli.main(["fit", "--method", "film", "--pairs", str(data / "quora-sample" / "dev.tsv"),
                             "--model", str(path), "--no-rerank", "--seed", str(seed), "--no-progress"])
            if code != 0:
                raise SystemExit(f"fit failed with exit status {code}")
            fit_seconds = time.perf_counter() - start
            model = load(path)
            # before: the scorer over the training vocabulary (the vectoriser's own vectors)
            X = model.vectorize(texts)
            idx, _ = Scorer(model.metric, model.matcher, model.search_rule).prepare(X).top_k(X[firsts], 2)
            before = recall([_best_other(row, q) for row, q in zip(idx.tolist(), firsts)])
            # after: the pipeline's search, and an index of the same questions
            hits = model.search(queries, texts, k=2)
            after = recall([_best_other([h["corpus_id"] for h in row], q) for row, q in zip(hits, firsts)])
            index = Index.build(Path(tmp) / f"idx{seed}", model, texts, ids=[str(i) for i in range(len(texts))])
            found = [[int(h["id"]) for h in index.search(q, k=2)] for q in queries]
            via_index = recall([_best_other(row, q) for row, q in zip(found, firsts)])
            # the plain tf-idf cosine fitted on the test questions
            plain = TextVectorizer(**{**model.vectorizer.get_params(), "n_components": None}).fit(texts)
            P = plain.transform(texts).astype(np.float64)
            from sklearn.preprocessing import normalize  # noqa: E402
            P = normalize(P)
            S = (P[firsts] @ P.T).toarray()
            S[np.arange(len(firsts)), firsts] = -np.inf
            cosine = recall(S.argmax(axis=1))
            print(f"{seed:>4} {model.scoring:>22} {before:>7.3f} {after:>7.3f} {via_index:>7.3f} {cosine:>10.3f} "
                  f"{after / cosine:>9.3f}   (fit {fit_seconds:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
