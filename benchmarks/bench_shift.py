"""Every learner trained on one source and tested on another, against its baseline (issue 13, sec. 4).

Runs the shifted settings built from the development data, one after the other, each printing
its own table (learned against the baseline on the same test data, with the ratio):

* ``sts``: FILM and the pair regressor on STS-B, trained on two genres, tested on the third
  (:mod:`shift_pairs`), Pearson against the tf.idf cosine;
* ``quora``: FILM + cosine and the pair classifier on the Quora sample, trained on some k-means
  topics, tested on another (:mod:`shift_pairs`), accuracy against the tf.idf cosine threshold;
* ``20ng``: minimum cluster distortion on 20 Newsgroups learning from 10 groups, retrieving
  among the 10 others (``mcd_inductive.py --test-groups 10``), 11-pt AP against BM25 and the
  cosine;
* ``webkb``: relative comparisons trained on some WebKB universities, tested on another
  (:mod:`shift_relative`), triplet accuracy against W = 1.

LinkLearn's shift (Wikispeedia links -> CISI and Cranfield queries) is measured by
``benchmarks/bench_weighting_transfer.py`` and is not repeated here. On the shared 2-core
development machine the parts took 9, 9, 1 and 3 minutes; ``--quick`` runs a small version of
each (about 3 minutes in all). Figures and protocols: ``docs/reproductions/shift.md``.

    python benchmarks/bench_shift.py [--only sts quora 20ng webkb] [--quick] [--data-dir DIR]
"""
from __future__ import annotations

import argparse
import time

import mcd_inductive
import shift_pairs
import shift_relative

PARTS = ("sts", "quora", "20ng", "webkb")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    common = (["--quick"] if args.quick else []) + (["--data-dir", args.data_dir] if args.data_dir else [])
    for part in args.only:
        print(f"\n=== {part} ===", flush=True)
        t0 = time.perf_counter()
        if part in ("sts", "quora"):
            shift_pairs.main(["--only", part] + common)
        elif part == "20ng":
            mcd_inductive.main(["--test-groups", "10"] + common)
        else:
            shift_relative.main(common)
        print(f"=== {part}: {time.perf_counter() - t0:.0f} s ===", flush=True)
    print("\nLinkLearn (Wikispeedia -> CISI, Cranfield): python benchmarks/bench_weighting_transfer.py")


if __name__ == "__main__":
    main()
