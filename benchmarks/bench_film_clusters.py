"""What a FILM fit from clusters costs as a user runs it: ``learnsim.fit(texts, clusters=labels,
method="film")`` with the defaults (FILM's own check in folds of six held-out clusters, the search
check, the shared exact SVD), on 20 Newsgroups training posts, ``--per-group`` drawn from each of
the first ``--groups`` groups (seeded), in one process with one BLAS thread.

It prints the fit's wall-clock seconds and its process CPU seconds (steadier on a shared machine),
and what the model scores by (what the fit kept). ``--src`` imports learnsim from another checkout, to compare two codes on
one machine (run them one after the other, or alternating):

    python benchmarks/bench_film_clusters.py [--groups 10] [--per-group 100] [--seed 0]
        [--data-dir DIR] [--src OTHER/src]

About 1.5 minutes of CPU at 10 groups of 100.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(name, "1")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--per-group", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", default=None, help="the folder holding 20news-bydate.tar.gz "
                        "(default: ../shared/data/20newsgroups)")
    parser.add_argument("--src", default=str(REPO / "src"), help="where learnsim is imported from")
    args = parser.parse_args(argv)
    sys.path.insert(0, args.src)
    import numpy as np

    import learnsim
    from learnsim.datasets import load_20newsgroups

    data_dir = args.data_dir or REPO.parent / "shared" / "data" / "20newsgroups"
    news = load_20newsgroups("train", data_dir=data_dir)
    labels = np.asarray(news.target)
    rng = np.random.default_rng(args.seed)
    keep = np.concatenate([rng.choice(np.flatnonzero(labels == g), args.per_group, replace=False)
                           for g in range(args.groups)])
    texts, clusters = [news.data[i] for i in keep], labels[keep].tolist()
    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # the checks' fallback warnings: the summary says them
        model = learnsim.fit(texts, clusters=clusters, method="film")
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"learnsim from {learnsim.__file__}")
    print(f"{len(texts)} texts in {args.groups} groups: fit {wall:.1f} s wall, {cpu:.1f} s CPU")
    print(f"the model scores by: {model.scoring}")


if __name__ == "__main__":
    main()
