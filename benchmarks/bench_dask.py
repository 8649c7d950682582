"""Fit and index a synthetic collection out of core with Dask: time of each stage and peak memory.

The issue's target (issue 16, the Dask part): fit and index 5,000,000 synthetic documents on a
2-core machine with the memory of each worker bounded, and report the peak; and the time with 1
and with 2 workers on the same data.

The documents are generated lazily, partition by partition, on the workers: partition p is a
seeded function of (seed, p) (:func:`make_partition`), never materialised on the driver. A
document is a cluster's document: about half of its 30 words are drawn from its cluster's 20
topic words, the rest from a Zipf-like background of the whole vocabulary. Stages:

1. vocabulary: ``learnsim.distributed.fit_vectorizer`` (map-reduce of the term counts; tf.idf);
2. fit: ``vectorize``'s Dask array persisted (the rows stay on the workers, spilled to disk past
   Dask's memory thresholds; ``--no-persist``: every pass of the fit generates and tokenises the
   texts again), then ``learnsim.distributed.fit_mcd`` (MinimumClusterDistortion with fixed
   settings, its scatter a sum of per-partition scatters) on it and the labels;
3. index: ``DistributedIndex.build`` (every partition's rows and texts to its own directory);
4. search: 1,000 queries (documents of the generator with a seed of their own) in one batch.

Memory: every worker's resident set is sampled every ``--sample`` seconds (``client.run`` with
psutil) and its largest value reported, with the driver's peak (ru_maxrss). ``--memory-limit``
is each worker's ``LocalCluster`` memory_limit (Dask spills, pauses and at last restarts a worker
beyond it).

Usage::

    python benchmarks/bench_dask.py --n 200000 --partitions 8 --workers 2
    python benchmarks/bench_dask.py --n 500000 --compare-workers --json results/dask_500k.json
    python benchmarks/bench_dask.py --n 5000000 --partitions 100 --memory-limit 2GiB

``--compare-workers`` runs the same data with 1 worker and with 2 workers (each in a new cluster)
and reports the ratio of their times.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

import numpy as np

VOCAB = 20_000
N_CLUSTERS = 2_000
TOPIC_WORDS = 20
DOC_WORDS = 30
TOPIC_SHARE = 0.5


def _partition_rng(seed, p):
    return np.random.default_rng([int(seed), int(p)])


def n_clusters(n):
    """Clusters of a collection of n documents: 200 documents each on average, at most N_CLUSTERS
    (so that no cluster is left with a single document)."""
    return max(2, min(N_CLUSTERS, n // 200))


def _topics(seed, clusters):
    """The topic words of every cluster: a seeded function of ``seed`` alone (same on every worker)."""
    return np.random.default_rng([int(seed), 2 ** 31]).integers(VOCAB, size=(clusters, TOPIC_WORDS))


def make_partition(seed, p, size, clusters):
    """(texts, labels) of partition ``p``: ``size`` documents, a seeded function of (seed, p)."""
    rng = _partition_rng(seed, p)
    words = np.asarray([f"w{i:05d}" for i in range(VOCAB)], dtype=object)
    labels = rng.integers(clusters, size=size)
    topics = _topics(seed, clusters)
    from_topic = rng.random((size, DOC_WORDS)) < TOPIC_SHARE
    topic_pick = topics[labels[:, None], rng.integers(TOPIC_WORDS, size=(size, DOC_WORDS))]
    # Zipf-like background: rank r drawn with probability ~ 1 / r
    background = np.minimum((np.exp(rng.random((size, DOC_WORDS)) * np.log(VOCAB)) - 1).astype(np.int64), VOCAB - 1)
    ids = np.where(from_topic, topic_pick, background)
    texts = [" ".join(row) for row in words[ids]]
    return texts, labels.astype(np.int64)


def _texts_of(seed, p, size, clusters):
    return make_partition(seed, p, size, clusters)[0]


def _partition_texts(specs, seed, clusters):
    """The texts of the partition whose spec [(p, size)] a bag of specs holds."""
    (p, size), = specs
    return _texts_of(seed, p, size, clusters)


def _labels_of(seed, p, size, clusters):
    return make_partition(seed, p, size, clusters)[1]


def _sizes(n, partitions):
    base, extra = divmod(n, partitions)
    return [base + (1 if i < extra else 0) for i in range(partitions)]


class _Sampler:
    """Largest resident set of every worker (and of the driver), sampled in a thread."""

    def __init__(self, client, every):
        self.client, self.every, self.peak = client, every, {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self):
        import psutil

        try:
            found = self.client.run(lambda: psutil.Process().memory_info().rss)
        except Exception:       # a worker restarting: the next sample sees it
            return
        for worker, rss in found.items():
            self.peak[worker] = max(self.peak.get(worker, 0), int(rss))

    def _run(self):
        while not self._stop.wait(self.every):
            self._sample()

    def __enter__(self):
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._sample()


def run(n, partitions, workers, memory_limit, workdir, seed, n_queries, k, sample, persist=True):
    import dask
    import dask.array as da
    import dask.bag as db
    from distributed import Client, LocalCluster

    from learnsim.distributed import DistributedIndex, fit_mcd, fit_vectorizer, vectorize
    from learnsim.pipeline import Pipeline

    sizes = _sizes(n, partitions)
    clusters = n_clusters(n)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                               host="127.0.0.1", memory_limit=memory_limit)
    client = Client(cluster)
    stages = {}
    index_dir = Path(workdir) / f"index-{workers}w"
    try:
        # a bag of one (partition, size) spec per partition, mapped to its texts on the workers
        texts = db.from_sequence(list(enumerate(sizes)), npartitions=partitions).map_partitions(
            _partition_texts, seed, clusters)
        assert texts.npartitions == partitions
        labels = da.concatenate([da.from_delayed(dask.delayed(_labels_of)(seed, p, s, clusters), shape=(s,), dtype=np.int64)
                                 for p, s in enumerate(sizes)])
        with _Sampler(client, sample) as sampler:
            t = time.perf_counter()
            vec = fit_vectorizer(texts, weighting="tfidf", norm="l2", client=client)
            stages["vocabulary_s"] = time.perf_counter() - t

            t = time.perf_counter()
            X = vectorize(texts, vec, lengths=sizes)
            if persist:
                # the fit reads X once per pass (about 15: the basis' subspace iterations, the
                # sums, the scatter): persisted, the texts are generated and tokenised once and
                # the rows stay on the workers, spilled to their disks past Dask's thresholds
                from distributed import wait

                X = X.persist()
                wait(X)
            metric = fit_mcd(X, labels, n_basis=20, shrinkage=0.5, complement_weight=0.1, baseline_holdout=None,
                             client=client)
            stages["fit_s"] = time.perf_counter() - t

            t = time.perf_counter()
            index = DistributedIndex.build(index_dir, Pipeline(vec, metric), texts, overwrite=True, client=client)
            stages["index_s"] = time.perf_counter() - t

            queries = make_partition(seed + 1, 0, n_queries, clusters)[0]
            t = time.perf_counter()
            hits = index.search(queries, k=k, client=client)
            stages["search_s"] = time.perf_counter() - t
        assert len(hits) == n_queries and all(len(h) == k for h in hits)
    finally:
        client.close()
        cluster.close()
        shutil.rmtree(index_dir, ignore_errors=True)
    driver_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"n_documents": n, "clusters": clusters, "partitions": partitions, "workers": workers, "memory_limit": memory_limit,
            "vocabulary": len(vec.terms_), **{key: round(v, 2) for key, v in stages.items()},
            "total_s": round(sum(stages.values()), 2), "queries": n_queries, "k": k,
            "search_ms_per_query": round(1000 * stages["search_s"] / n_queries, 3),
            "worker_peak_rss_mib": sorted(round(v / 2 ** 20) for v in sampler.peak.values()),
            "driver_peak_rss_mib": round(driver_peak / 2 ** 20)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200_000, help="documents (default 200,000)")
    ap.add_argument("--partitions", type=int, default=None, help="partitions (default: one per 50,000 documents)")
    ap.add_argument("--workers", type=int, choices=(1, 2), default=2)
    ap.add_argument("--memory-limit", default="2GiB", help="LocalCluster memory_limit of each worker")
    ap.add_argument("--workdir", default=None, help="where the index is written (default: a temporary folder)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--sample", type=float, default=0.5, help="seconds between memory samples")
    ap.add_argument("--compare-workers", action="store_true", help="run with 1 and with 2 workers, report the ratio")
    ap.add_argument("--no-persist", action="store_true",
                    help="do not persist the vectorised rows (every pass of the fit generates and tokenises the texts again)")
    ap.add_argument("--json", default=None, help="write the results to this file")
    args = ap.parse_args(argv)
    partitions = args.partitions or max(2, -(-args.n // 50_000))
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="bench-dask-"))
    workdir.mkdir(parents=True, exist_ok=True)
    runs = []
    try:
        for workers in ((1, 2) if args.compare_workers else (args.workers,)):
            result = run(args.n, partitions, workers, args.memory_limit, workdir, args.seed, args.queries, args.k,
                         args.sample, persist=not args.no_persist)
            runs.append(result)
            print(json.dumps(result), flush=True)
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    out = {"runs": runs, "python": sys.version.split()[0], "cpus": os.cpu_count()}
    if args.compare_workers:
        one, two = runs
        out["ratio_1_over_2_workers"] = {key: round(one[key] / two[key], 2)
                                         for key in ("vocabulary_s", "fit_s", "index_s", "search_s", "total_s")}
        print("time with 1 worker / time with 2 workers:", json.dumps(out["ratio_1_over_2_workers"]))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
