"""Is the fit's held-out check honest on collections it has not seen? (stop 85)

``learnsim fit`` keeps a learned model only when its held-out check says it beats the strongest
baseline (``learnsim.baseline``), and otherwise ends as that baseline. This script asks whether
the verdict holds on *test* queries, documents or pairs the fit never saw. For each collection
it fits as a user would (``learnsim.fitting.fit`` with the defaults: mcd for clusters, FILM for
pairs and judgements), records the check's verdict and its estimate (the held-out gain and its
95 % interval), then scores on the test part, in the same process, the model kept and the
strongest lexical baseline (the better of Okapi BM25 and the tf.idf cosine *on the test part
itself*, as ``learnsim evaluate`` computes them: the hardest comparison). Where the fit fell back,
the learned model forced on (``baseline_holdout=None``) is scored too: was falling back right?

Each row: the verdict (``keep`` or ``fall back to <baseline>``), the check's estimate, the test
ratio of the model (forced learned model where it fell back) to the strongest baseline with a
paired 95 % bootstrap interval of the difference over the test units, and ``agree?``: a kept
model must not lose on the test (its interval not wholly below zero and its ratio not below
0.99); a fall-back must not have thrown away a model that wins for certain (its interval wholly
above zero).

Collections (``../shared/data``; small seeded samples so that the whole run takes minutes):

- ``cisi``, ``cran``: the judged queries split in two halves by query (seeded); one half trains
  (judgements as (query, relevant document, 1) with the collection as ``corpus``), the other
  searches the collection (nDCG@10);
- ``nfcorpus``: BEIR NFCorpus, a sample of the train queries' judgements trains, the test queries
  search (nDCG@10);
- ``20ng-clusters``: 20 Newsgroups, training messages of each group are the clusters; held-out
  test messages of the same groups search each other (nDCG@10, relevant: same group);
- ``20ng-pairs``: the same groups given as (message, same-group message, 1) pairs (retrieval of
  same-topic documents), the same test;
- ``flickr8k``: the five captions of an image are a cluster; the captions of test images search
  each other (relevant: the same image's);
- ``livedoor``: livedoor news articles (Japanese) in their 9 categories, as 20ng-clusters;
- ``webkb``: WebKB pages clustered by topic (course, faculty, project, student), trained on three
  universities and tested on the fourth (Wisconsin);
- ``sts``: STS Benchmark graded train pairs; test pairs' Spearman correlation with the gold score;
- ``quora``: Quora sample dev pairs; test pairs' ROC AUC of duplicate against not.

    python benchmarks/check_honesty.py [--only cisi cran ...] [--scale 1.0] [--seed 0]
        [--data-dir DIR] [--json out.json]

``--scale`` multiplies every sample size (0.5 for a quicker look). A collection whose folder is
absent is skipped with a line saying so.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval_holdout import _nfcorpus, _smart  # noqa: E402  (the loaders of the judged collections)
from shift_common import limit_threads, markdown  # noqa: E402

COLLECTIONS = ("cisi", "cran", "nfcorpus", "20ng-clusters", "20ng-pairs", "flickr8k", "livedoor", "webkb", "sts",
               "quora")
N_RESAMPLES = 1000


# ---------------------------------------------------------------------------- measures
def ranking_units(S, relevant, excluded=None):
    """Per query, nDCG@10 of the score matrix ``S`` (queries x documents) against ``relevant``."""
    from learnsim.baseline import ndcg_at_k

    columns = np.tile(np.arange(S.shape[1]), (S.shape[0], 1))
    return np.asarray(ndcg_at_k(S, columns, relevant, excluded), dtype=np.float64)


def spearman(scores, gold):
    from scipy.stats import spearmanr

    return float(spearmanr(scores, gold).statistic)


def auc(scores, labels):
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(np.asarray(labels, bool), scores))


def paired_interval(learned, baseline, measure=None, truth=None, seed=0):
    """(difference, low, high): learned minus baseline, with a paired percentile bootstrap over the
    test units. ``measure`` None: the units are already per-query scores (their mean is taken)."""
    rng = np.random.default_rng(seed)
    learned, baseline = np.asarray(learned, float), np.asarray(baseline, float)
    n = learned.shape[0]

    def diff(i):
        if measure is None:
            return float(np.mean(learned[i]) - np.mean(baseline[i]))
        return measure(learned[i], truth[i]) - measure(baseline[i], truth[i])

    point = diff(np.arange(n))
    draws = np.array([diff(rng.integers(0, n, n)) for _ in range(N_RESAMPLES)])
    lo, hi = np.nanpercentile(draws, [2.5, 97.5])
    return point, float(lo), float(hi)


# ---------------------------------------------------------------------------- fitting
def fit_as_user(seed, forced=False, **supervision):
    """``learnsim.fitting.fit`` with the defaults (the check on, or forced off): (result, seconds)."""
    import learnsim.fitting

    options = {"baseline_holdout": None} if forced else {}
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = learnsim.fitting.fit(random_state=seed, show_progress_bar=False, **supervision, **options)
    return result, time.perf_counter() - start


def verdict_of(result):
    """("keep" or "fall back to X", the check's estimate in words)."""
    report = result.report
    # a model used for search is decided by its search check where it has one (mcd's own check
    # compares with the Euclidean distance on its input, not with the strongest baseline)
    gain = report.get("search_baseline_gain") or report.get("baseline_gain") or {}
    model = report.get("model") or gain.get("status")
    verdict = "keep" if model == "learned" else f"fall back to {model}"
    if gain.get("gain") is None:
        estimate = gain.get("status", "no check")
    else:
        estimate = (f"{gain['gain']:+.3f} ({gain['ci_low']:+.3f} to {gain['ci_high']:+.3f}) "
                    f"on {gain.get('n_units')} {gain.get('unit', 'units')}")
    return verdict, estimate


# ---------------------------------------------------------------------------- tasks
def search_task(name, seed, queries, documents, relevant, excluded=None, **supervision):
    """Fit, then score test ``queries`` over ``documents`` (nDCG@10) for the model and the baselines."""
    from learnsim.baseline import LexicalBaselines

    lex = LexicalBaselines(documents)
    Q = lex.query_counts(queries)
    bases = {b: ranking_units(lex.scores(b, Q), relevant, excluded) for b in ("bm25", "cosine")}

    def units(result):
        return ranking_units(result.pipeline.similarity(queries, documents), relevant, excluded)

    return _judge(name, seed, units, bases, supervision, None, None, "nDCG@10")


def pair_task(name, seed, pairs_a, pairs_b, truth, measure, measure_name, **supervision):
    """Fit, then score test pairs: each pair's similarity, correlated (``measure``) with ``truth``."""
    from learnsim.baseline import LexicalBaselines

    texts = list(dict.fromkeys(list(pairs_a) + list(pairs_b)))
    at = {t: i for i, t in enumerate(texts)}
    cols = np.array([at[t] for t in pairs_b])
    rows = np.arange(len(pairs_a))
    lex = LexicalBaselines(texts)
    Q = lex.query_counts(pairs_a)
    bases = {b: lex.scores(b, Q)[rows, cols] for b in ("bm25", "cosine")}

    def units(result):
        return result.pipeline.similarity(list(pairs_a), texts)[rows, cols]

    return _judge(name, seed, units, bases, supervision, measure, np.asarray(truth), measure_name)


def _judge(name, seed, units, bases, supervision, measure, truth, measure_name):
    def score(u):
        return float(np.mean(u)) if measure is None else measure(u, truth)

    result, seconds = fit_as_user(seed, **supervision)
    verdict, estimate = verdict_of(result)
    strongest = max(bases, key=lambda b: score(bases[b]))
    learned = units(result)
    row = {"collection": name, "verdict": verdict, "estimate": estimate, "measure": measure_name,
           "strongest": strongest, "baseline_score": score(bases[strongest]), "model_score": score(learned),
           "fit_seconds": round(seconds, 1)}
    if verdict != "keep":
        forced, more = fit_as_user(seed, forced=True, **supervision)
        learned = units(forced)
        row["fit_seconds"] = round(seconds + more, 1)
    row["learned_score"] = score(learned)
    diff, lo, hi = paired_interval(learned, bases[strongest], measure, truth, seed)
    row.update(ratio=row["learned_score"] / row["baseline_score"] if row["baseline_score"] else float("nan"),
               diff=diff, low=lo, high=hi)
    if verdict == "keep":
        row["agree"] = "yes" if hi >= 0 and row["ratio"] >= 0.99 else "NO: kept, loses on the test"
    else:
        row["agree"] = "NO: fell back, learned wins on the test" if lo > 0 else "yes"
    print(f"  {name}: {verdict}; check {estimate}; test {measure_name} learned {row['learned_score']:.4f} vs "
          f"{strongest} {row['baseline_score']:.4f} (ratio {row['ratio']:.3f}, {diff:+.4f} [{lo:+.4f}, {hi:+.4f}]); "
          f"agree: {row['agree']} ({row['fit_seconds']:.0f} s)", flush=True)
    return row


def _sample(rng, items, n):
    items = list(items)
    if len(items) <= n:
        return items
    return [items[i] for i in sorted(rng.choice(len(items), n, replace=False))]


def _judged(name, coll, seed):
    documents, queries = coll["documents"], coll["queries"]
    rows = [(queries[q], documents[d], 1) for q, rel in coll["train"].items() for d in rel]
    test = sorted(coll["test"])
    print(f"[{name}] {len(documents)} documents, {len(rows)} training pairs of {len(coll['train'])} queries, "
          f"{len(test)} test queries", flush=True)
    return search_task(name, seed, [queries[q] for q in test], documents, [coll["test"][q] for q in test],
                       pairs=rows, corpus=documents)


def _held_clusters(name, seed, train_texts, train_labels, test_texts, test_labels, as_pairs=False):
    """Clusters (or same-cluster pairs) of training texts; held-out texts of the clusters search each other."""
    test_labels = np.asarray(test_labels)
    relevant = [{int(j): 1.0 for j in np.flatnonzero(test_labels == y) if j != i} for i, y in enumerate(test_labels)]
    keep = [i for i, r in enumerate(relevant) if r]
    relevant, excluded = [relevant[i] for i in keep], [[i] for i in keep]
    queries = [test_texts[i] for i in keep]
    print(f"[{name}] {len(train_texts)} training texts in {len(set(train_labels))} clusters, {len(test_texts)} "
          f"held-out texts", flush=True)
    if not as_pairs:
        return search_task(name, seed, queries, list(test_texts), relevant, excluded,
                           texts=list(train_texts), clusters=list(train_labels))
    rng = np.random.default_rng(seed)
    labels = np.asarray(train_labels)
    rows = []
    for i, y in enumerate(labels):       # each text asks for two of its cluster mates
        mates = np.flatnonzero(labels == y)
        mates = mates[mates != i]
        rows += [(train_texts[i], train_texts[j], 1) for j in rng.choice(mates, min(2, mates.size), replace=False)]
    return search_task(name, seed, queries, list(test_texts), relevant, excluded, pairs=rows)


def _per_label(rng, texts, labels, n):
    labels = np.asarray(labels)
    idx = np.concatenate([rng.permutation(np.flatnonzero(labels == y))[:n] for y in np.unique(labels)])
    idx.sort()
    return [texts[i] for i in idx], labels[idx].tolist()


def run(name, data, seed, scale):
    from learnsim import datasets as D

    rng = np.random.default_rng(seed)
    n = lambda k: max(2, int(round(k * scale)))  # noqa: E731
    if name in ("cisi", "cran"):
        return _judged(name, _smart(data, name, seed), seed)
    if name == "nfcorpus":
        coll = _nfcorpus(data, seed)
        coll["train"] = {q: coll["train"][q] for q in _sample(rng, sorted(coll["train"]), n(300))}
        coll["test"] = {q: coll["test"][q] for q in _sample(rng, sorted(coll["test"]), n(150))}
        return _judged(name, coll, seed)
    if name.startswith("20ng"):
        tr, te = D.load_20newsgroups("train", data_dir=data), D.load_20newsgroups("test", data_dir=data)
        cut = 2000       # long messages: their first characters say the topic, and keep the run short
        a = _per_label(rng, [t[:cut] for t in tr.data], tr.target, n(15))
        b = _per_label(rng, [t[:cut] for t in te.data], te.target, n(10))
        return _held_clusters(name, seed, *a, *b, as_pairs=name.endswith("pairs"))
    if name == "flickr8k":
        tr, te = (D.load_flickr8k_captions(data, split=s) for s in ("train", "test"))
        def images(d, k):  # noqa: E306
            keep = set(_sample(rng, range(len(d.image_ids)), k))
            idx = [i for i, m in enumerate(d.target) if m in keep]
            return [d.data[i] for i in idx], [int(d.target[i]) for i in idx]
        return _held_clusters(name, seed, *images(tr, n(80)), *images(te, n(60)))
    if name == "livedoor":
        d = D.load_livedoor(data)
        texts = [t[:600] for t in d.texts]
        order = rng.permutation(len(texts))
        half = len(texts) // 2
        first, second = sorted(order[:half]), sorted(order[half:])
        a = _per_label(rng, [texts[i] for i in first], [d.target[i] for i in first], n(20))
        b = _per_label(rng, [texts[i] for i in second], [d.target[i] for i in second], n(12))
        return _held_clusters(name, seed, *a, *b)
    if name == "webkb":
        d = D.load_webkb(data, topics=["course", "faculty", "project", "student"])
        texts = [t[:2000] for t in d.texts]
        unis = np.asarray(d.universities)
        tr, te = np.flatnonzero(unis != "wisconsin"), np.flatnonzero(unis == "wisconsin")
        a = _per_label(rng, [texts[i] for i in tr], [d.topics[i] for i in tr], n(30))
        b = _per_label(rng, [texts[i] for i in te], [d.topics[i] for i in te], n(20))
        return _held_clusters(name, seed, *a, *b)
    if name == "sts":
        tr, te = D.load_sts_benchmark("train", data), D.load_sts_benchmark("test", data)
        k = _sample(rng, range(len(tr.scores)), n(1500))
        rows = [(tr.sentence1[i], tr.sentence2[i], float(tr.scores[i])) for i in k]
        print(f"[sts] {len(rows)} graded training pairs, {len(te.scores)} test pairs", flush=True)
        return pair_task(name, seed, list(te.sentence1), list(te.sentence2), te.scores, spearman, "Spearman",
                         pairs=rows)
    if name == "quora":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dev, te = D.load_quora_pairs("dev", data), D.load_quora_pairs("test", data)
        k = _sample(rng, range(len(dev.labels)), n(3000))
        rows = [(dev.question1[i], dev.question2[i], int(dev.labels[i])) for i in k]
        t = _sample(rng, range(len(te.labels)), n(1500))
        print(f"[quora] {len(rows)} training pairs, {len(t)} test pairs", flush=True)
        return pair_task(name, seed, [te.question1[i] for i in t], [te.question2[i] for i in t],
                         np.asarray(te.labels, float)[t], auc, "ROC AUC", pairs=rows)
    raise ValueError(f"unknown collection {name!r}")


def present(name, data):
    folder = {"cisi": "ir/cisi", "cran": "ir/cran", "nfcorpus": "ir/nfcorpus", "20ng-clusters": "20newsgroups",
              "20ng-pairs": "20newsgroups", "flickr8k": "flickr8k-captions", "livedoor": "ja/livedoor-news",
              "webkb": "webkb", "sts": "stsbenchmark", "quora": "quora-sample"}[name]
    return (data / folder).is_dir()


def table(rows):
    header = ["collection", "verdict", "check estimate", "test measure", "test ratio (learned / strongest)",
              "test difference [95 %]", "agree?"]
    cells = [[r["collection"], r["verdict"], r["estimate"], r["measure"],
              f"{r['ratio']:.3f} (vs {r['strongest']})" + ("" if r["verdict"] == "keep" else ", forced"),
              f"{r['diff']:+.4f} [{r['low']:+.4f}, {r['high']:+.4f}]", r["agree"]] for r in rows]
    return markdown(header, cells)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--only", nargs="+", choices=COLLECTIONS, default=list(COLLECTIONS))
    parser.add_argument("--data-dir", default=None, help="the corpora (default: $LEARNSIM_DATA or ../shared/data)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every sample size (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, help="write the rows as JSON here")
    args = parser.parse_args(argv)
    if args.scale <= 0:
        parser.error(f"--scale must be above 0; got {args.scale}")
    from learnsim.datasets import find_data_dir

    data = Path(args.data_dir) if args.data_dir else find_data_dir()
    limit_threads(1)
    rows = []
    for name in args.only:
        if not present(name, data):
            print(f"skipped {name}: its folder is absent under {data}", file=sys.stderr)
            continue
        rows.append(run(name, data, args.seed, args.scale))
    print()
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.exit(main())
