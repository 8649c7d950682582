"""FILM fit time and peak memory on a synthetic Quora-like sentence corpus, 10k to 500k sentences.

The issue's target: a FILM fit (d = 100) on 500,000 synthetic sentences of an ~80,000-word
vocabulary completes on 2 cores in under 2 minutes with peak memory under 8 GB, and fit time
grows about linearly with the number of sentences (the log-log slope from 10k to 500k).

The corpus (generated directly as a sparse tf-idf matrix, seeded; see ``make_sentence_corpus``):

* an 80,000-word vocabulary with Zipf-distributed frequencies: the 150 most frequent words are
  function words, the rest content words grouped into synonym sets of 1-4 words of similar
  frequency;
* sentences of 8-15 tokens (about 10 distinct words, as in Quora questions) in paraphrase
  clusters of 1-5 sentences (40% singletons, mean size about 2); a cluster is a "question": 6
  concepts, 3 shared with the other clusters of its topic (about 20 clusters per topic) and 3 of
  its own. A sentence states each concept with probability 0.75, by a random synonym, adds about
  one random content word, and fills up with function words;
* tf-idf with sublinear tf and smoothed idf, L2-normalised rows, over the words that occur.

Supervision as for Quora: the clusters are split 80/20 into training and held-out clusters; each
training cluster gives a chain of duplicate pairs and every one of its sentences a non-duplicate
pair with a sentence of another cluster of the same topic (a hard negative);
``duplicate_pairs_to_triplets`` turns them into triplets, with one random negative more per
duplicate pair. The held-out triplets (anchor, paraphrase, same-topic sentence of another
cluster) measure what the fit learned: the accuracy of FILM's cosine against the cosine in the
rank-r LSI space FILM starts from (taken from FILM's own SVD) and the tf-idf cosine.

The fit is M-FILM (``--batch-size``, default 10,000 triplets per iteration) with FILM's other
defaults: full FILM costs n_anchors x r^2 per iteration to build K, 125 GFlop at 500k sentences.

Every size runs in its own subprocess, so the peak memory (``ru_maxrss``, and on Linux the peak
resident memory of the fit alone) is per size. ``--threads`` (default 2) limits the BLAS threads
and the threads of the sparse products.

Usage::

    python benchmarks/bench_film_scale.py                # 10k ... 500k sentences
    python benchmarks/bench_film_scale.py --quick        # 10k, 20k, 50k
    python benchmarks/bench_film_scale.py --json results/film-scale.json
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

EXPERIMENT = "film-scale"
DEFAULT_SIZES = (10_000, 20_000, 50_000, 100_000, 200_000, 500_000)
QUICK_SIZES = (10_000, 20_000, 50_000)
# The target at the largest size.
TARGET_SIZE = 500_000
TARGET_SECONDS = 120.0
TARGET_PEAK_GB = 8.0
# M-FILM (sec. 3.3): triplets per iteration. Full FILM costs n_anchors x r^2 per iteration (K),
# 125 GFlop at 500k sentences and r = 500; a batch costs the same at every corpus size.
DEFAULT_BATCH_SIZE = 10_000

# ------------------------------------------------------------------------------ the corpus
VOCAB_SIZE = 80_000
N_FUNCTION_WORDS = 150
ZIPF_EXPONENT = 1.05
ZIPF_OFFSET = 2.7              # Zipf-Mandelbrot: p(rank) ~ 1 / (rank + offset)^exponent
SYNONYM_WINDOW = 32            # synonyms are drawn among words this close in frequency rank
MAX_SYNONYMS = 4
SENTENCE_LENGTH = (8, 15)      # tokens, inclusive
CLUSTER_SIZE_PROBS = {1: 0.40, 2: 0.35, 3: 0.15, 4: 0.06, 5: 0.04}
CLUSTERS_PER_TOPIC = 20
TOPIC_CONCEPTS = 12
SHARED_CONCEPTS = 3            # per cluster, from its topic's concepts
OWN_CONCEPTS = 3               # per cluster, drawn afresh
CONCEPT_KEEP = 0.75            # chance that a sentence states a concept of its cluster
MEAN_NOISE_WORDS = 1.0         # random content words per sentence (Poisson)
TRAIN_FRACTION = 0.8           # of the clusters
RANDOM_NEGATIVES = 1           # per duplicate pair and direction, as in the Quora reproduction
MAX_HELD_OUT_TRIPLETS = 20_000


def _zipf_sampler(n_words, offset, rng):
    """Draws of word ranks 0 .. n_words - 1 with p(rank) ~ 1 / (rank + offset)^ZIPF_EXPONENT."""
    weights = 1.0 / (np.arange(n_words) + offset) ** ZIPF_EXPONENT
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    return lambda size: np.minimum(np.searchsorted(cdf, rng.random(size), side="right"), n_words - 1)


def _synonym_sets(n_content, rng):
    """Partition of the content words (0 .. n_content - 1, by frequency rank) into synonym sets of
    1-MAX_SYNONYMS words, each within a window of similar rank. Returns (set of each word, members
    of every set in a flat array, start and size of every set in it)."""
    words = np.arange(n_content)
    # shuffle within windows of nearby ranks so that a set mixes words of similar frequency
    windows = words // SYNONYM_WINDOW
    words = words[np.lexsort((rng.random(n_content), windows))]
    sizes = rng.integers(1, MAX_SYNONYMS + 1, size=n_content)
    ends = np.cumsum(sizes)
    sizes = sizes[: np.searchsorted(ends, n_content, side="left") + 1]
    sizes[-1] -= sizes.sum() - n_content
    starts = np.cumsum(sizes) - sizes
    set_of = np.empty(n_content, dtype=np.int64)
    set_of[words] = np.repeat(np.arange(sizes.size), sizes)
    return set_of, words, starts, sizes


def make_sentence_corpus(n_sentences, vocab_size=VOCAB_SIZE, random_state=0):
    """A seeded Quora-like corpus of paraphrase clusters as an L2-normalised tf-idf CSR matrix.

    Returns a dict: ``X`` (n_sentences x n_terms CSR, float64; only the words that occur are
    columns), ``cluster`` and ``topic`` of each sentence (sentences are grouped by cluster), and
    ``n_clusters``.
    """
    rng = np.random.default_rng(random_state)
    n_content = vocab_size - N_FUNCTION_WORDS
    function_word = _zipf_sampler(N_FUNCTION_WORDS, ZIPF_OFFSET, rng)
    # content words continue the Zipf curve after the function words
    content_word = _zipf_sampler(n_content, ZIPF_OFFSET + N_FUNCTION_WORDS, rng)
    set_of, members, set_start, set_size = _synonym_sets(n_content, rng)

    # paraphrase clusters and their topics
    sizes_, probs_ = zip(*CLUSTER_SIZE_PROBS.items())
    mean_size = float(np.dot(sizes_, probs_))
    cluster_sizes = rng.choice(sizes_, p=probs_, size=int(n_sentences / mean_size) + 64)
    cut = int(np.searchsorted(np.cumsum(cluster_sizes), n_sentences, side="left")) + 1
    cluster_sizes = cluster_sizes[:cut]
    cluster_sizes[-1] -= cluster_sizes.sum() - n_sentences
    n_clusters = cluster_sizes.size
    n_topics = max(2, n_clusters // CLUSTERS_PER_TOPIC)
    cluster_topic = rng.integers(0, n_topics, size=n_clusters)
    topic_concepts = set_of[content_word(n_topics * TOPIC_CONCEPTS)].reshape(n_topics, TOPIC_CONCEPTS)
    shared = np.take_along_axis(topic_concepts[cluster_topic],
                                np.argsort(rng.random((n_clusters, TOPIC_CONCEPTS)), axis=1)[:, :SHARED_CONCEPTS],
                                axis=1)
    own = set_of[content_word(n_clusters * OWN_CONCEPTS)].reshape(n_clusters, OWN_CONCEPTS)
    cluster_concepts = np.hstack([shared, own])

    # sentences: concepts stated by a random synonym, noise words, function words to fill up
    cluster = np.repeat(np.arange(n_clusters), cluster_sizes)
    length = rng.integers(SENTENCE_LENGTH[0], SENTENCE_LENGTH[1] + 1, size=n_sentences)
    concepts = cluster_concepts[cluster]
    stated = rng.random(concepts.shape) < CONCEPT_KEEP
    concept_rows = np.nonzero(stated)[0]
    concept_sets = concepts[stated]
    synonym = members[set_start[concept_sets] + rng.integers(0, set_size[concept_sets])]
    n_noise = rng.poisson(MEAN_NOISE_WORDS, size=n_sentences)
    noise_rows = np.repeat(np.arange(n_sentences), n_noise)
    noise = content_word(noise_rows.size)
    n_function = np.maximum(length - stated.sum(axis=1) - n_noise, 2)
    function_rows = np.repeat(np.arange(n_sentences), n_function)
    function = function_word(function_rows.size)
    rows = np.concatenate([concept_rows, noise_rows, function_rows])
    words = np.concatenate([synonym + N_FUNCTION_WORDS, noise + N_FUNCTION_WORDS, function])

    counts = sp.csr_matrix((np.ones(rows.size), (rows, words)), shape=(n_sentences, vocab_size))
    counts.sum_duplicates()
    used = np.flatnonzero(np.bincount(counts.indices, minlength=vocab_size))
    counts = counts[:, used]
    # tf-idf as TextVectorizer("tfidf", sublinear_tf=True, norm="l2") computes it
    df = np.bincount(counts.indices, minlength=used.size)
    idf = np.log((1.0 + n_sentences) / (1.0 + df)) + 1.0
    X = counts
    X.data = (1.0 + np.log(X.data)) * idf[X.indices]
    norms = np.sqrt(np.add.reduceat(X.data ** 2, X.indptr[:-1]))
    X.data /= np.repeat(norms, np.diff(X.indptr))
    return {"X": X, "cluster": cluster, "topic": cluster_topic[cluster], "n_clusters": n_clusters}


def _same_topic_other_cluster(anchors, cluster, topic, rng):
    """For each anchor, a random sentence of its topic outside its cluster (-1 where none exists)."""
    order = np.lexsort((cluster, topic))
    sorted_topic = topic[order]
    start = np.searchsorted(sorted_topic, topic[anchors], side="left")
    size = np.searchsorted(sorted_topic, topic[anchors], side="right") - start
    # rejection: a few rounds of redraws for the picks that landed in the anchor's own cluster
    pick = np.full(anchors.size, -1, dtype=np.int64)
    todo = np.flatnonzero(size > 1)
    for _ in range(32):
        if todo.size == 0:
            break
        cand = order[start[todo] + rng.integers(0, size[todo])]
        ok = cluster[cand] != cluster[anchors[todo]]
        pick[todo[ok]] = cand[ok]
        todo = todo[~ok]
    return pick


def make_supervision(corpus, random_state=0):
    """Training triplets (from duplicate / non-duplicate pairs of the training clusters) and
    held-out triplets (anchor, paraphrase, same-topic non-paraphrase) of the other clusters."""
    from learnsim.supervision import Pairs, duplicate_pairs_to_triplets

    rng = np.random.default_rng(random_state)
    cluster, topic = corpus["cluster"], corpus["topic"]
    n = cluster.size
    is_train = rng.random(corpus["n_clusters"]) < TRAIN_FRACTION
    items = np.arange(n)
    # consecutive sentences of one cluster (sentences are grouped by cluster)
    same = np.flatnonzero(cluster[1:] == cluster[:-1])
    chain = np.column_stack([same, same + 1])
    train_chain = chain[is_train[cluster[same]]]
    in_pair = np.zeros(n, dtype=bool)
    in_pair[train_chain.ravel()] = True
    anchors = items[in_pair]
    negatives = _same_topic_other_cluster(anchors, cluster, topic, rng)
    has = negatives >= 0
    labelled_negative = np.column_stack([anchors[has], negatives[has]])
    pairs = Pairs(np.vstack([train_chain, labelled_negative]),
                  labels=np.r_[np.ones(len(train_chain), bool), np.zeros(len(labelled_negative), bool)])
    train = duplicate_pairs_to_triplets(pairs, n_items=n, n_random_negatives=RANDOM_NEGATIVES,
                                        random_state=rng).indices

    test_chain = chain[~is_train[cluster[same]]]
    test = np.vstack([test_chain, test_chain[:, ::-1]])
    negatives = _same_topic_other_cluster(test[:, 0], cluster, topic, rng)
    test = np.column_stack([test[negatives >= 0], negatives[negatives >= 0]])
    if test.shape[0] > MAX_HELD_OUT_TRIPLETS:
        test = test[rng.choice(test.shape[0], MAX_HELD_OUT_TRIPLETS, replace=False)]
    return {"train": train, "test": test, "n_pairs": len(pairs.indices),
            "n_duplicate_pairs": len(train_chain)}


def triplet_accuracy(similarity_of_pairs, triplets):
    """Share of triplets (i, j, k) with sim(i, j) > sim(i, k); ties count half."""
    pos = similarity_of_pairs(triplets[:, 0], triplets[:, 1])
    neg = similarity_of_pairs(triplets[:, 0], triplets[:, 2])
    return float(np.mean(pos > neg) + 0.5 * np.mean(pos == neg))


# ------------------------------------------------------------------------------ measuring
def _reset_peak_rss():
    """Reset the kernel's high-water mark of resident memory (Linux >= 4.0); True on success."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _rss_kib(field):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


class _Stopwatch:
    """Wraps a function and adds up the wall and CPU seconds spent in it."""

    def __init__(self, func):
        self.func, self.wall, self.cpu = func, 0.0, 0.0

    def __call__(self, *args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return self.func(*args, **kwargs)
        finally:
            self.wall += time.perf_counter() - wall
            self.cpu += time.process_time() - cpu


def measure_one(n, settings, seed):
    """Generate the corpus of ``n`` sentences, fit FILM, return a dict of figures."""
    import learnsim.film._film as film_module
    from learnsim.film import FILM

    t0 = time.perf_counter()
    corpus = make_sentence_corpus(n, random_state=seed)
    supervision = make_supervision(corpus, random_state=seed + 1)
    X, train, test = corpus["X"], supervision["train"], supervision["test"]
    prep_seconds = time.perf_counter() - t0

    # The rank-r LSI coordinates (X U_r = V_r Sigma_r) of the held-out items, from FILM's own SVD:
    # the space FILM starts from, so its cosine shows what the optimiser added.
    held_out_items = np.unique(test)
    lsi = {}
    svd = film_module.truncated_svd_with_u

    def svd_keeping_lsi(*a, **kw):
        V, sigma, Ut = svd(*a, **kw)
        lsi["rows"] = V[held_out_items] * sigma
        return V, sigma, Ut

    svd_timer = _Stopwatch(svd_keeping_lsi)
    optimiser_timer = _Stopwatch(film_module.minimize_stiefel)
    film_module.truncated_svd_with_u, film_module.minimize_stiefel = svd_timer, optimiser_timer
    rss_before = _rss_kib("VmRSS")
    reset = _reset_peak_rss()
    try:
        model = FILM(**settings, random_state=seed, baseline_holdout=None)   # the fit alone is timed
        wall, cpu = time.perf_counter(), time.process_time()
        model.fit(X, train)
        fit_seconds, fit_cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        film_module.truncated_svd_with_u = svd
        film_module.minimize_stiefel = optimiser_timer.func
    fit_peak = _rss_kib("VmHWM") if reset else None
    process_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss    # KiB on Linux

    E = model.transform(X)
    E /= np.maximum(np.linalg.norm(E, axis=1, keepdims=True), 1e-300)

    def film_sim(i, j):
        return np.einsum("ij,ij->i", E[i], E[j])

    def cosine(i, j):
        return np.asarray(X[i].multiply(X[j]).sum(axis=1)).ravel()

    L = lsi["rows"] / np.maximum(np.linalg.norm(lsi["rows"], axis=1, keepdims=True), 1e-300)

    def lsi_cosine(i, j):
        a, b = np.searchsorted(held_out_items, i), np.searchsorted(held_out_items, j)
        return np.einsum("ij,ij->i", L[a], L[b])

    return {
        "n": n, "n_terms": X.shape[1], "nnz": int(X.nnz), "n_clusters": int(corpus["n_clusters"]),
        "n_pairs": supervision["n_pairs"], "n_triplets": int(train.shape[0]),
        "n_anchors": int(np.unique(train[:, 0]).size), "n_test_triplets": int(test.shape[0]),
        "prep_seconds": prep_seconds, "fit_seconds": fit_seconds, "fit_cpu_seconds": fit_cpu,
        "svd_seconds": svd_timer.wall, "svd_cpu_seconds": svd_timer.cpu,
        "optimiser_seconds": optimiser_timer.wall, "optimiser_cpu_seconds": optimiser_timer.cpu,
        "svd_rank": int(model.svd_rank_), "n_iter": int(model.n_iter_),
        "rss_before_fit_gb": None if rss_before is None else rss_before / 2**20,
        "fit_peak_gb": None if fit_peak is None else fit_peak / 2**20,
        "process_peak_gb": process_peak / 2**20,
        "film_accuracy": triplet_accuracy(film_sim, test), "cosine_accuracy": triplet_accuracy(cosine, test),
        "lsi_accuracy": triplet_accuracy(lsi_cosine, test),
    }


def _child(args):
    """Run one size (in a fresh process, so that its peak memory is its own) and print JSON."""
    settings = json.loads(args.settings)
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=args.threads):
        row = measure_one(args.one, settings, args.seed)
    print("RESULT " + json.dumps(row), flush=True)


def run_size(n, args, settings):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", str(n), "--seed", str(args.seed),
           "--threads", str(args.threads), "--settings", json.dumps(settings)]
    env = dict(os.environ)
    # BLAS threads must be limited before the library starts them; threadpoolctl limits them again
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(args.threads)
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"the run with {n} sentences failed (exit status {done.returncode})")
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    return json.loads(lines[-1][len("RESULT "):])


def loglog_slopes(sizes, seconds):
    """Least-squares slope of log(seconds) on log(n) over all sizes, and the slope between the
    smallest and the largest size."""
    x, y = np.log(np.asarray(sizes, float)), np.log(np.asarray(seconds, float))
    fitted = float(np.polyfit(x, y, 1)[0]) if len(sizes) >= 2 else math.nan
    ends = float((y[-1] - y[0]) / (x[-1] - x[0])) if len(sizes) >= 2 else math.nan
    return fitted, ends


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+",
                        help=f"numbers of sentences (default {' '.join(map(str, DEFAULT_SIZES))})")
    parser.add_argument("--quick", action="store_true", help=f"sizes {' '.join(map(str, QUICK_SIZES))}")
    parser.add_argument("--n-components", type=int, default=100, help="d (default 100, the paper's)")
    parser.add_argument("--svd-rank", type=int, help="r (default: FILM's default, 5 d)")
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE,
                        help=f"M-FILM triplets per iteration (default {DEFAULT_BATCH_SIZE}; 0: full FILM)")
    parser.add_argument("--max-iter", type=int, default=200, help="iterations (default 200, FILM's default)")
    parser.add_argument("--threads", type=int, default=2, help="BLAS and sparse-product threads (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the corpus, the triplets and FILM (default 0)")
    parser.add_argument("--json", metavar="PATH",
                        help=f"write learnsim result records (experiment {EXPERIMENT!r}) here")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)       # internal: one size, in a child
    parser.add_argument("--settings", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.sizes is None:
        args.sizes = QUICK_SIZES if args.quick else DEFAULT_SIZES
    args.sizes = sorted(set(args.sizes))
    if min(args.sizes) < 100 or args.threads < 1 or args.n_components < 1 or args.max_iter < 0 \
            or args.batch_size < 0 or (args.svd_rank is not None and args.svd_rank < args.n_components):
        parser.error("sizes must be >= 100, --threads and --n-components positive, --max-iter and "
                     "--batch-size >= 0, --svd-rank >= --n-components")
    return args


def film_settings(args):
    settings = {"n_components": args.n_components, "max_iter": args.max_iter}
    if args.svd_rank is not None:
        settings["svd_rank"] = args.svd_rank
    if args.batch_size:
        settings["batch_size"] = args.batch_size
    return settings


def main(argv=None):
    args = parse_args(argv)
    if args.one is not None:
        return _child(args)
    settings = film_settings(args)
    import learnsim
    from learnsim.reproduce.records import Results

    print(f"FILM {settings} on synthetic Quora-like sentences ({VOCAB_SIZE} words, Zipf {ZIPF_EXPONENT}, "
          f"{SENTENCE_LENGTH[0]}-{SENTENCE_LENGTH[1]} tokens), seed {args.seed}")
    print(f"learnsim {getattr(learnsim, '__version__', '?')}, numpy {np.__version__}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs, {args.threads} thread(s); one subprocess per size\n")
    header = (f"{'n':>8} {'terms':>6} {'nnz':>9} {'triplets':>9} {'fit s':>7} {'cpu s':>7} {'SVD s':>6} "
              f"{'SVD %':>5} {'optim s':>7} {'peak GB':>7} {'fit GB':>6} {'FILM':>6} {'LSI':>6} {'cosine':>6}")
    print(header)
    print("-" * len(header))
    results = Results()
    rows = []
    for n in args.sizes:
        row = run_size(n, args, settings)
        rows.append(row)
        fit_gb = "-" if row["fit_peak_gb"] is None else f"{row['fit_peak_gb']:.2f}"
        print(f"{n:>8} {row['n_terms']:>6} {row['nnz']:>9} {row['n_triplets']:>9} {row['fit_seconds']:>7.1f} "
              f"{row['fit_cpu_seconds']:>7.1f} {row['svd_seconds']:>6.1f} "
              f"{100 * row['svd_seconds'] / row['fit_seconds']:>5.0f} {row['optimiser_seconds']:>7.1f} "
              f"{row['process_peak_gb']:>7.2f} {fit_gb:>6} {row['film_accuracy']:>6.3f} {row['lsi_accuracy']:>6.3f} "
              f"{row['cosine_accuracy']:>6.3f}", flush=True)
        setting = f"n{n}"
        results.add(EXPERIMENT, setting, "film", "fit_seconds", row["fit_seconds"])
        results.add(EXPERIMENT, setting, "film", "fit_cpu_seconds", row["fit_cpu_seconds"])
        results.add(EXPERIMENT, setting, "film", "svd_seconds", row["svd_seconds"])
        results.add(EXPERIMENT, setting, "film", "peak_memory_gb", row["process_peak_gb"])
        results.add(EXPERIMENT, setting, "film", "triplet_accuracy", row["film_accuracy"])
        results.add(EXPERIMENT, setting, f"lsi-{row['svd_rank']}", "triplet_accuracy", row["lsi_accuracy"])
        results.add(EXPERIMENT, setting, "tfidf-cosine", "triplet_accuracy", row["cosine_accuracy"])
    print("\nfit s: wall-clock FILM.fit; cpu s: its process CPU time (steadier on a shared machine); SVD s and "
          "optim s: the truncated SVD (step 1) and the Stiefel optimiser inside it; peak GB: the subprocess's "
          "peak resident memory up to the end of the fit (corpus included); fit GB: the peak during the fit alone (Linux); FILM, LSI, cosine: "
          "accuracy on held-out triplets (anchor, paraphrase, same-topic other question) of the cosine in FILM's "
          "space, in the rank-r LSI space FILM starts from (its own SVD) and of the tf-idf cosine")
    last = rows[-1]
    print(f"\nlargest run: {last['n']} sentences, {last['n_terms']} terms, {last['nnz']} non-zeros "
          f"({last['nnz'] / last['n']:.1f} per sentence), {last['n_clusters']} clusters, {last['n_pairs']} pairs, "
          f"{last['n_triplets']} triplets over {last['n_anchors']} anchors, svd_rank {last['svd_rank']}, "
          f"{last['n_iter']} iterations; corpus and triplets built in {last['prep_seconds']:.1f} s")
    if len(rows) >= 2:
        sizes = [r["n"] for r in rows]
        for label, key in (("fit, wall", "fit_seconds"), ("fit, cpu", "fit_cpu_seconds"),
                           ("SVD, wall", "svd_seconds"), ("optimiser, wall", "optimiser_seconds")):
            fitted, ends = loglog_slopes(sizes, [r[key] for r in rows])
            print(f"log-log slope of time ({label}) vs n, {sizes[0]} to {sizes[-1]}: {fitted:.2f} "
                  f"(least squares), {ends:.2f} (end points)")
    if last["n"] == TARGET_SIZE:
        ok = last["fit_seconds"] < TARGET_SECONDS and last["process_peak_gb"] < TARGET_PEAK_GB
        print(f"\ntarget (fit < {TARGET_SECONDS:g} s and peak < {TARGET_PEAK_GB:g} GB at {TARGET_SIZE} sentences): "
              f"{'met' if ok else 'NOT met'} ({last['fit_seconds']:.1f} s, {last['process_peak_gb']:.2f} GB)")
    if args.json:
        path = results.write_json(args.json)
        print(f"wrote {len(results)} records to {path}")
    return rows


if __name__ == "__main__":
    main()
