"""fit_mcd and fit_film on a Dask LocalCluster of 1 and of 2 worker processes, on the same data.

The collection is synthetic and made on the workers, partition by partition (seeded by the
partition's index, so every run sees the same rows): documents of ``--cluster-size`` rows per
cluster (clusters cross partition boundaries), each of 30 tokens from its topic's words (50 %),
its cluster's own words (20 %) and a Zipf background over the whole vocabulary (30 %), as
sublinear-tf L2-normalised CSR rows. Labels are a function of the row number (row //
cluster_size), so the driver knows them without reading rows.

Both cluster sizes run in this process one after the other, with one thread per worker; the
figure is the ratio of the fit times (1 worker / 2 workers) and the peak resident memory of each
worker process (``ru_maxrss``). ``--check`` also compares the two fits (they must be the same
model: the Mahalanobis matrix of MCD's basis and FILM's map).

Usage::

    python benchmarks/bench_dask_fits.py                       # 200,000 documents
    python benchmarks/bench_dask_fits.py --n-documents 20000   # quick
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
import scipy.sparse as sp

VOCAB = 1000
TOPICS = 50
TOPIC_WORDS = 40
CLUSTER_WORDS = 5
TOKENS = 30


def make_partition(start, stop, cluster_size, seed):
    """Rows [start, stop) of the synthetic collection, a CSR block (see the module docstring)."""
    rng = np.random.default_rng([seed, start])
    n = stop - start
    cluster = np.arange(start, stop) // cluster_size
    topic = cluster % TOPICS
    zipf_bg = 1.0 / np.arange(1, VOCAB + 1) ** 1.1
    zipf_topic = 1.0 / np.arange(1, TOPIC_WORDS + 1) ** 0.8
    kind = rng.choice(3, size=(n, TOKENS), p=[0.5, 0.2, 0.3])
    topic_tok = (topic[:, None] * TOPIC_WORDS
                 + rng.choice(TOPIC_WORDS, size=(n, TOKENS), p=zipf_topic / zipf_topic.sum()))
    # a cluster's own words: a fixed hash of the cluster id, so that partitions agree
    own = (cluster[:, None] * 7919 + rng.integers(CLUSTER_WORDS, size=(n, TOKENS)) * 104729) % VOCAB
    background = rng.choice(VOCAB, size=(n, TOKENS), p=zipf_bg / zipf_bg.sum())
    tokens = np.where(kind == 0, topic_tok % VOCAB, np.where(kind == 1, own, background))
    rows = np.repeat(np.arange(n), TOKENS)
    X = sp.csr_matrix((np.ones(rows.size), (rows, tokens.ravel())), shape=(n, VOCAB))
    X.sum_duplicates()
    X.data = 1.0 + np.log(X.data)
    X.data /= np.repeat(np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel()), np.diff(X.indptr))
    return X


def collection(n_documents, rows_per_partition, cluster_size, seed=0):
    """The synthetic collection as a dask array of CSR row blocks, and its labels."""
    import dask
    import dask.array as da

    parts = []
    for start in range(0, n_documents, rows_per_partition):
        stop = min(start + rows_per_partition, n_documents)
        parts.append(da.from_delayed(dask.delayed(make_partition)(start, stop, cluster_size, seed),
                                     shape=(stop - start, VOCAB), dtype=np.float64,
                                     meta=sp.csr_matrix((0, VOCAB))))
    return da.concatenate(parts, axis=0), np.arange(n_documents) // cluster_size


def _peak_rss_mb():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def bench(n_documents=200_000, rows_per_partition=25_000, cluster_size=5, workers=(1, 2), check=False,
          mcd_params=None, film_params=None, seed=0):
    """Fit MCD and FILM with each number of workers on the same collection; returns a dict of the
    fit seconds per worker count, their ratios and each worker's peak resident memory (MB)."""
    from distributed import Client, LocalCluster

    from learnsim.distributed.methods import fit_film, fit_mcd

    mcd_params = mcd_params or dict(n_basis=64, shrinkage=0.1, complement_weight=0.3, baseline_holdout=None)
    film_params = film_params or dict(n_components=10, baseline_holdout=None, random_state=0, max_iter=50,
                                      triplets_per_item=2)
    X, labels = collection(n_documents, rows_per_partition, cluster_size, seed)
    out = {"n_documents": n_documents, "rows_per_partition": rows_per_partition, "vocabulary": VOCAB,
           "mcd_params": mcd_params, "film_params": film_params, "runs": {}}
    models = {}
    for n_workers in workers:
        with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None,
                          host="127.0.0.1") as cluster, Client(cluster) as client:
            run = {}
            start = time.perf_counter()
            mcd = fit_mcd(X, labels, client=client, **mcd_params)
            run["mcd_seconds"] = time.perf_counter() - start
            start = time.perf_counter()
            film = fit_film(X, labels, client=client, **film_params)
            run["film_seconds"] = time.perf_counter() - start
            run["film_timings"] = {k: round(v, 3) for k, v in film.timings_.items()}
            run["film_iterations"] = film.n_iter_
            run["worker_peak_rss_mb"] = sorted(client.run(_peak_rss_mb).values())
            out["runs"][n_workers] = run
            models[n_workers] = (mcd, film)
            print(f"{n_workers} worker(s): MCD {run['mcd_seconds']:.1f} s, FILM {run['film_seconds']:.1f} s "
                  f"({film.n_iter_} iterations), worker peak RSS {run['worker_peak_rss_mb']} MB", flush=True)
    if len(workers) == 2:
        a, b = (out["runs"][w] for w in workers)
        out["ratio_mcd"] = a["mcd_seconds"] / b["mcd_seconds"]
        out["ratio_film"] = a["film_seconds"] / b["film_seconds"]
        print(f"time with {workers[0]} / with {workers[1]} workers: MCD {out['ratio_mcd']:.2f}, "
              f"FILM {out['ratio_film']:.2f}")
        if check:
            (m1, f1), (m2, f2) = (models[w] for w in workers)
            M1, M2 = m1.get_mahalanobis_matrix(), m2.get_mahalanobis_matrix()
            out["mcd_max_rel_diff"] = float(np.abs(M1 - M2).max() / np.abs(M1).max())
            out["film_max_rel_diff"] = float(np.abs(f1.components_ - f2.components_).max()
                                             / np.abs(f1.components_).max())
            print(f"same model: MCD {out['mcd_max_rel_diff']:.1e}, FILM {out['film_max_rel_diff']:.1e}")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-documents", type=int, default=200_000)
    parser.add_argument("--rows-per-partition", type=int, default=25_000)
    parser.add_argument("--cluster-size", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="compare the fits of both cluster sizes")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    out = bench(args.n_documents, args.rows_per_partition, args.cluster_size, check=args.check)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=2)


if __name__ == "__main__":
    main()
