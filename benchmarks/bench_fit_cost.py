"""Where the default pair fit spends its time (issue 32, part 1): ``learnsim fit --method film
--pairs`` (``learnsim.fitting.fit(pairs=..., method="film")`` with the defaults), stage by stage,
at several sizes, beside the same fit without its checks (``matcher="threshold",
baseline_holdout=None``: ``--matcher threshold --baseline-holdout none``).

The stages are timed by wrapping, in this process, the functions each one runs (inclusive wall
seconds, summed over calls, with the call count):

- ``vectorize``: the tf-idf vectoriser's fit and transform (``learnsim.fitting.vectorize``);
- ``search check``: search held out by query and document (or by component) and checked against
  the strongest baseline (``learnsim.baseline.validate_search``, issue 42), and inside it the
  triplets with their negatives from the collection (``triplets``:
  ``learnsim.film.recipe.search_triplets``, a BM25 top-30 of every anchor), FILM itself
  (``FILM.fit``, once in the check; relevance judgements fit it once more on every pair), the
  baselines of the collection (``SearchBaselines``), the held-out queries' pools
  (``SearchBaselines.pool``) and the decision (``check_search``);
- ``choose_matcher``: with labelled non-duplicates, the duplicate rule chosen on the held-out
  pairs, and inside it each candidate's fits (``ThresholdMatcher.fit``, ``PairwiseKNNMatcher.fit``,
  ``PairClassifierMatcher.fit``; a candidate is fitted once per fold and once at the end) and the
  cross-fitted comparison with its bootstrap (``baseline.cross_fitted``, ``baseline.choose``);
- ``re-ranker``: search's second stage trained and checked on held-out duplicate queries
  (``fitting._validated_rerank``), with its first-stage neighbour lists (``first-stage
  neighbours``: the chosen search rule over all the texts).

Data: the Quora sample's dev pairs (``../shared/data/quora-sample/dev.tsv``: the first N of its
10,000), and above 10,000 pairs (the sample's size) synthetic near-duplicate pairs: sentences of a
Zipf vocabulary, a duplicate being the same sentence with a tenth of its words dropped or
swapped, a non-duplicate a sentence of the same topic (seeded; ``--synthetic`` uses them at every
size). Everything runs on this machine, in one process, with as many BLAS threads as it has cores.

Usage::

    python benchmarks/bench_fit_cost.py --sizes 1000 10000 --json results/fit-cost.json
    python benchmarks/bench_fit_cost.py --sizes 100000 --synthetic
"""
from __future__ import annotations

import argparse
import collections
import functools
import json
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def quora_pairs(n):
    from learnsim.datasets import load_quora_pairs

    bunch = load_quora_pairs("dev", data_dir=DATA)
    idx, labels = bunch.pairs.indices[:n], bunch.labels[:n]
    return [(bunch.texts[i], bunch.texts[j], int(lab)) for (i, j), lab in zip(idx, labels)]


def synthetic_pairs(n, seed=0):
    """n labelled pairs, about a third duplicates (the Quora sample has 37 %)."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i:05d}" for i in range(20_000)])
    zipf = 1.0 / (np.arange(vocab.size) + 2.7) ** 1.05
    zipf /= zipf.sum()
    n_topics = max(50, n // 40)
    topic_words = rng.integers(200, vocab.size, size=(n_topics, 40))

    def sentence(topic):
        length = rng.integers(6, 16)
        own = rng.random(length) < 0.4
        words = np.where(own, vocab[rng.choice(topic_words[topic], size=length)],
                         vocab[rng.choice(vocab.size, size=length, p=zipf)])
        return list(words)

    out = []
    for _ in range(n):
        topic = int(rng.integers(n_topics))
        a = sentence(topic)
        if rng.random() < 0.37:
            b = [w for w in a if rng.random() > 0.1]
            if len(b) > 2:
                i, j = rng.integers(len(b), size=2)
                b[i], b[j] = b[j], b[i]
            out.append((" ".join(a), " ".join(b or a), 1))
        else:
            out.append((" ".join(a), " ".join(sentence(topic)), 0))
    return out


class Timer:
    """Inclusive wall seconds and calls of wrapped functions."""

    def __init__(self):
        self.seconds = collections.defaultdict(float)
        self.calls = collections.Counter()
        self._undo = []

    def wrap(self, owner, name, label=None):
        label = label or f"{getattr(owner, '__name__', owner)}.{name}"
        real = getattr(owner, name)
        raw = owner.__dict__.get(name) if isinstance(owner, type) else real
        is_static = isinstance(raw, staticmethod)
        is_class = isinstance(raw, classmethod)
        func = raw.__func__ if (is_static or is_class) else real

        @functools.wraps(func)
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                self.seconds[label] += time.perf_counter() - start
                self.calls[label] += 1

        new = staticmethod(timed) if is_static else classmethod(timed) if is_class else timed
        setattr(owner, name, new)
        self._undo.append((owner, name, raw if isinstance(owner, type) else real))

    def undo(self):
        for owner, name, old in reversed(self._undo):
            setattr(owner, name, old)
        self._undo.clear()


def timed_fit(pairs, **options):
    import learnsim.baseline as baseline
    import learnsim.film.recipe as film_recipe
    import learnsim.fitting as fitting
    import learnsim.matching._rule as rule
    from learnsim.film import FILM
    from learnsim.matching import PairClassifierMatcher, PairwiseKNNMatcher, ThresholdMatcher

    import learnsim.baseline._search as search_check

    timer = Timer()
    timer.wrap(fitting, "vectorize", "vectorize")
    baseline.validate_search    # loaded: fit takes it from the package
    timer.wrap(baseline, "validate_search", "search check")
    timer.wrap(film_recipe, "search_triplets", "  triplets")
    timer.wrap(FILM, "fit", "  FILM.fit")
    timer.wrap(search_check.SearchBaselines, "__init__", "  SearchBaselines")
    timer.wrap(search_check.SearchBaselines, "pool", "  SearchBaselines.pool")
    timer.wrap(search_check, "check_search", "  check_search")
    import learnsim.matching as matching

    matching.choose_matcher    # loaded: fit takes it from the package
    timer.wrap(matching, "choose_matcher", "choose_matcher")
    timer.wrap(ThresholdMatcher, "fit", "  ThresholdMatcher.fit")
    timer.wrap(PairwiseKNNMatcher, "fit", "  PairwiseKNNMatcher.fit")
    timer.wrap(PairClassifierMatcher, "fit", "  PairClassifierMatcher.fit")
    timer.wrap(PairClassifierMatcher, "_fit_labelled", "  PairClassifierMatcher._fit_labelled")
    timer.wrap(rule, "_train_classifiers", "  _train_classifiers")
    timer.wrap(baseline, "cross_fitted", "  baseline.cross_fitted")
    timer.wrap(baseline, "choose", "  baseline.choose")
    timer.wrap(fitting, "_validated_rerank", "re-ranker (train and check)")
    timer.wrap(fitting._FirstStageNeighbours, "__getitem__", "  first-stage neighbours")
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fitting.fit(pairs=pairs, method="film", **options)
    finally:
        timer.undo()
    total = time.perf_counter() - start
    report = result.to_dict()
    return total, dict(timer.seconds), dict(timer.calls), report


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    ap.add_argument("--synthetic", action="store_true", help="synthetic pairs at every size")
    ap.add_argument("--no-unchecked", action="store_true", help="skip the fit without checks")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    rows = []
    for n in args.sizes:
        synthetic = args.synthetic or n > 10_000 or not (DATA / "quora-sample" / "dev.tsv").exists()
        pairs = synthetic_pairs(n) if synthetic else quora_pairs(n)
        source = "synthetic" if synthetic else "quora-sample dev"
        print(f"\n{n} pairs ({source}): default fit ...", flush=True)
        total, seconds, calls, report = timed_fit(pairs)
        row = {"pairs": n, "source": source, "default_s": total, "stages": seconds, "calls": calls,
               "matcher": report.get("matcher"), "matcher_accuracies": report.get("matcher_accuracies"),
               "search_input_weight": report.get("search_input_weight"),
               "search_kept": (report.get("baseline_gain") or {}).get("status"),
               "match_kept": (report.get("match_baseline_gain") or {}).get("status")}
        for label in sorted(seconds, key=lambda k: -seconds[k]):
            print(f"  {label:<32} {seconds[label]:8.2f} s  ({calls[label]} call(s))")
        print(f"  {'total':<32} {total:8.2f} s; rule {row['matcher']}, search {row['search_kept']}", flush=True)
        if not args.no_unchecked:
            print(f"{n} pairs: without checks (matcher threshold, baseline_holdout None) ...", flush=True)
            plain, plain_stages, _, _ = timed_fit(pairs, matcher="threshold", baseline_holdout=None)
            row.update(unchecked_s=plain, unchecked_stages=plain_stages, ratio=total / plain)
            print(f"  without checks {plain:.2f} s: the default is {total / plain:.1f}x", flush=True)
        rows.append(row)
    out = {"rows": rows, "machine": {"cpus": os.cpu_count(), "python": platform.python_version()}}
    print("\n| pairs | source | default s | without checks s | ratio | largest stages |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        top = ", ".join(f"{k.strip()} {v:.1f}" for k, v in sorted(r["stages"].items(), key=lambda kv: -kv[1])[:4])
        print(f"| {r['pairs']:,} | {r['source']} | {r['default_s']:.1f} | {r.get('unchecked_s', float('nan')):.1f} | "
              f"{r.get('ratio', float('nan')):.1f}x | {top} |")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=2, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
