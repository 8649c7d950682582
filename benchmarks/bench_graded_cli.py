"""Graded pairs through the command line (issue 32, part 4): STS-B fitted on train, evaluated on
dev and test, the user's path end to end.

    learnsim fit --method film --pairs <data>/stsbenchmark/sts-train.csv --model sts.npz [fit options]
    learnsim evaluate --model sts.npz --pairs <data>/stsbenchmark/sts-{dev,test}.csv --json

Everything the fit chooses (the pair regression against the input cosine, its alpha, FILM's
search weight) is chosen on held-out training pairs; dev is reported beside test so that a fit
option (e.g. ``--stem``) can be chosen on dev, never on test. Prints the Pearson and Spearman
correlation of the model's predicted score and of the input cosine, and their ratio; and the
tf.idf cosine's (a tf.idf fitted on the training sentences, as ``learnsim fit`` fits its own).

With ``--encoder <folder>`` (a pre-trained sentence encoder, e.g. all-MiniLM-L6-v2), the input
cosine is the encoder's own cosine: the table then holds the model, the encoder's plain cosine
and the tf.idf cosine, with the model's ratio to each.

    python benchmarks/bench_graded_cli.py [--data-dir DIR] [-- extra learnsim fit options, e.g. --stem]
    python benchmarks/bench_graded_cli.py -- --encoder <all-MiniLM-L6-v2 folder>
"""
import argparse
import json
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from learnsim.datasets import find_data_dir, load_sts_benchmark
from learnsim.evaluation import pearson, spearman
from learnsim.matching import pair_similarity
from learnsim.text import TextVectorizer


def _cli(*args):
    done = subprocess.run([sys.executable, "-m", "learnsim", *map(str, args)], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"learnsim {' '.join(map(str, args))} failed:\n{done.stderr}")
    return done.stdout


def _tfidf_cosines(folder):
    """{split: (tf.idf cosine of each pair, gold scores)} for dev and test, the tf.idf fitted on
    the training sentences (the settings of learnsim fit --method film's vectoriser)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train = load_sts_benchmark("train", data_dir=folder.parent)
        vec = TextVectorizer("tfidf", norm="l2", dtype=np.float64).fit([str(t) for t in train.texts])
        out = {}
        for split in ("dev", "test"):
            data = load_sts_benchmark(split, data_dir=folder.parent)
            X = vec.transform([str(t) for t in data.texts])
            out[split] = (pair_similarity(X, data.pairs.indices), np.asarray(data.pairs.scores, dtype=np.float64))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("fit_options", nargs="*", help="extra 'learnsim fit' options (after --)")
    args = parser.parse_args(argv)
    folder = Path(find_data_dir(args.data_dir)) / "stsbenchmark"
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "sts.npz"
        start = time.perf_counter()
        report = json.loads(_cli("fit", "--method", "film", "--pairs", folder / "sts-train.csv", "--model", model,
                                 "--json", *args.fit_options))
        seconds = time.perf_counter() - start
        print(f"fit {' '.join(args.fit_options) or '(defaults)'}: {seconds:.0f} s; rule {report['matcher']} "
              f"(held-out Pearson {', '.join(f'{k} {v:.4f}' for k, v in report['matcher_pearsons'].items())}); "
              f"search weight {report['search_input_weight']:g}")
        lexical = report.get("search_lexical_weight")
        if lexical is not None:
            print(f"search: lexical tf.idf weight {lexical:g} (chosen on held-out pairs)")
        encoder = report.get("encoder")
        tfidf = _tfidf_cosines(folder)
        cosine = f"{encoder} cosine" if encoder else "input (tf.idf) cosine"
        print(f"\n| split | model Pearson | {cosine} | tf.idf cosine | model / {cosine} | model / tf.idf | "
              "model Spearman | cosine Spearman |\n|---|---|---|---|---|---|---|---|")
        for split in ("dev", "test"):
            out = json.loads(_cli("evaluate", "--model", model, "--pairs", folder / f"sts-{split}.csv", "--json"))
            m = out["methods"]
            t_cos, gold = tfidf[split]
            t_pearson = pearson(t_cos, gold)
            print(f"| {split} | {m['learned']['pearson']:.4f} | {m['cosine']['pearson']:.4f} | {t_pearson:.4f} | "
                  f"{out['ratio_learned_to_cosine']['pearson']:.3f} | {m['learned']['pearson'] / t_pearson:.3f} | "
                  f"{m['learned']['spearman']:.4f} | {m['cosine']['spearman']:.4f} (tf.idf "
                  f"{spearman(t_cos, gold):.4f}) |")


if __name__ == "__main__":
    main()
