"""Search's learned re-ranking (issue 32, part 3) on held-out Quora duplicates, through the
command line's fit, against the input cosine.

1. ``learnsim fit --method film --pairs quora-sample/dev.tsv --model M --json`` (the default fit:
   FILM, its duplicate rule, its search rule and the re-ranker, each chosen on 20 % held-out dev
   pairs); the fit's own held-out report of the re-ranker is printed.
2. On ``test.tsv``, which the fit never saw: every text of a test duplicate pair searches all
   the test questions (itself excluded); recall@1 is the share whose best hit is joined to it by
   test duplicates. Three rankings of the same queries, in this process: the tf.idf cosine of the
   test questions (the model's vectoriser settings, their own vocabulary and idf), the model's
   first stage as search scores it (its validated search rule), and the first
   stage's top 50 re-ranked by the model's re-ranker. The gain is reported with a 95 % bootstrap
   interval over whole groups of duplicates. With ``--encoder`` (a pre-trained sentence encoder
   as the model's vectoriser), the encoder's plain cosine is ranked too, and the tf.idf cosine
   is a default tf.idf of the test questions.
3. Cost per query: ``Index.search`` of one query at a time (k = 10) on an index of the test
   questions built from the model, and on one built from the same model without its re-ranker.

    python benchmarks/rerank_quora.py [--data-dir DIR] [--queries N] [-- further 'learnsim fit' options]
    python benchmarks/rerank_quora.py -- --encoder <all-MiniLM-L6-v2 folder>
"""
import argparse
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from film_cli_matcher import _cli      # the command line run in this process, its JSON parsed
from learnsim.baseline import compare
from learnsim.datasets import find_data_dir, load_quora_pairs
from learnsim.index import Index
from learnsim.pipeline import Pipeline
from learnsim.supervision import pairs_to_clusters


def _first_stage(pipeline, texts, queries, depth):
    """Each query's ``depth`` best texts under the model's first stage as search scores them
    (over the collection's own vocabulary), itself excluded."""
    found = pipeline._collection_search(texts)
    out = np.empty((len(queries), depth), dtype=np.int64)
    for start in range(0, len(queries), 500):
        q = queries[start:start + 500]
        idx, _ = found.top_k([texts[i] for i in q], depth + 1)
        for r, (row, i) in enumerate(zip(idx, q)):
            out[start + r] = [j for j in row if j != i][:depth]
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--queries", type=int, default=300, help="queries timed one at a time (default 300)")
    parser.add_argument("fit_options", nargs="*", help="further 'learnsim fit' options (after --)")
    args = parser.parse_args(argv)
    folder = Path(find_data_dir(args.data_dir)) / "quora-sample"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        test = load_quora_pairs(folder / "test.tsv")
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "film.npz"
        start = time.perf_counter()
        fitted = _cli(["fit", "--method", "film", "--pairs", folder / "dev.tsv", "--model", model, "--json"]
                      + list(args.fit_options))
        fit_seconds = time.perf_counter() - start
        pipeline = Pipeline.load(model)
        report = fitted.get("rerank_baseline_gain")
        print(f"fit: {fit_seconds:.0f} s; re-ranker {fitted.get('rerank')}; held-out dev recall@1 of each candidate: "
              + ", ".join(f"{k} {v:.4f}" for k, v in (fitted.get("rerank_recall_at_1") or {}).items()))
        print(f"  search rule: input weight {fitted.get('search_input_weight')}, lexical tf.idf weight "
              f"{fitted.get('search_lexical_weight')}; scoring {pipeline.scoring!r}")
        if report:
            print(f"  fit's check: {report['measure']} {report['learned_score']:.4f} vs {report['baseline']} "
                  f"{report['baseline_score']:.4f}, gain {report['gain']:+.4f} (95% CI {report['ci_low']:+.4f} to "
                  f"{report['ci_high']:+.4f}), {report['status']}")
        texts = [str(t) for t in test.texts]
        # the plain tf-idf cosine of the searched collection: the model's vectoriser settings,
        # the test questions' own vocabulary and idf
        from learnsim.text import TextVectorizer, collection_vectors, has_lexical_part

        if has_lexical_part(pipeline.vectorizer):
            X = collection_vectors(pipeline.vectorizer, texts)[2]
        else:   # an encoder's model: a default tf.idf of the test questions
            X = TextVectorizer("tfidf", norm="l2", dtype=np.float64).fit_transform(texts)
        components = np.asarray(pairs_to_clusters(test.pairs, len(texts)).labels)
        queries = np.unique(test.pairs.indices[np.asarray(test.labels, bool)].ravel())
        queries = queries[components[queries] >= 0]
        # the input cosine: the vectoriser's rows (unit length), itself excluded
        Xu = X.multiply(1.0 / np.sqrt(np.maximum(X.multiply(X).sum(axis=1), 1e-300))).tocsr()
        cosine_best = np.empty(len(queries), dtype=np.int64)
        for start in range(0, len(queries), 500):
            q = queries[start:start + 500]
            S = (Xu[q] @ Xu.T).toarray()
            S[np.arange(len(q)), q] = -np.inf
            cosine_best[start:start + len(q)] = S.argmax(axis=1)
        n = pipeline.rerank.n_candidates if pipeline.rerank is not None else 50
        cand = _first_stage(pipeline, texts, queries, n)
        rows = {"tf-idf cosine": components[cosine_best] == components[queries]}
        if fitted.get("encoder"):
            # the encoder's plain cosine (the texts are encoded once in this process)
            E = np.asarray(pipeline.vectorize(texts), dtype=np.float64)
            E /= np.maximum(np.linalg.norm(E, axis=1, keepdims=True), 1e-300)
            encoder_best = np.empty(len(queries), dtype=np.int64)
            for start in range(0, len(queries), 500):
                q = queries[start:start + 500]
                S = E[q] @ E.T
                S[np.arange(len(q)), q] = -np.inf
                encoder_best[start:start + len(q)] = S.argmax(axis=1)
            rows[f"{fitted['encoder']} cosine"] = components[encoder_best] == components[queries]
        rows["first stage"] = components[cand[:, 0]] == components[queries]
        if pipeline.rerank is not None:
            best = np.empty(len(queries), dtype=np.int64)
            t0 = time.perf_counter()
            for i, q in enumerate(queries):
                order, _ = pipeline.rerank.rerank(texts[q], [texts[j] for j in cand[i]])
                best[i] = cand[i, order[0]]
            rerank_seconds = time.perf_counter() - t0
            rows["re-ranked"] = components[best] == components[queries]
        print(f"\nrecall@1 of {len(queries)} test duplicate queries among the {len(texts)} test questions:")
        for name, hit in rows.items():
            print(f"  {name:14s} {hit.mean():.4f}")
        groups = components[queries]
        if "re-ranked" in rows:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                gain = compare(rows["re-ranked"].astype(float), rows["tf-idf cosine"].astype(float), measure="recall@1",
                               unit="test duplicate queries", baseline_name="tf-idf cosine", owner="benchmark",
                               groups=groups)
            print(f"  re-ranked - tf-idf cosine: {gain.gain:+.4f} (95% CI {gain.ci_low:+.4f} to {gain.ci_high:+.4f}); "
                  f"re-ranking {1000 * rerank_seconds / len(queries):.1f} ms a query in this loop")
            if fitted.get("encoder"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    gain = compare(rows["re-ranked"].astype(float), rows[f"{fitted['encoder']} cosine"].astype(float),
                                   measure="recall@1", unit="test duplicate queries", baseline_name="encoder cosine",
                                   owner="benchmark", groups=groups)
                print(f"  re-ranked - {fitted['encoder']} cosine: {gain.gain:+.4f} (95% CI {gain.ci_low:+.4f} to "
                      f"{gain.ci_high:+.4f})")
        # the cost per query through the index, with and without the re-ranker
        m = min(args.queries, len(queries))
        timed = [texts[q] for q in queries[:m]]
        for name, p in (("with re-ranking", pipeline),
                        ("first stage only", Pipeline(pipeline.vectorizer, pipeline.metric, pipeline.matcher,
                                                      pipeline.match_rule, pipeline.search_rule,
                                                      lexical=pipeline.lexical))):
            index = Index.build(Path(tmp) / name.replace(" ", "-"), p, texts)
            try:
                index.search(timed[0], k=10)       # loads what the first search needs
                t0 = time.perf_counter()
                for q in timed:
                    index.search(q, k=10)
                ms = 1000 * (time.perf_counter() - t0) / m
            finally:
                index.close()
            print(f"  Index.search, one query at a time, k=10, {name}: {ms:.1f} ms a query ({m} queries)")


if __name__ == "__main__":
    main()
