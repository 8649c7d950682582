"""Graded pairs through the command line (issue 32, part 4): STS-B fitted on train, evaluated on
dev and test, the user's path end to end.

    learnsim fit --method film --pairs <data>/stsbenchmark/sts-train.csv --model sts.npz [fit options]
    learnsim evaluate --model sts.npz --pairs <data>/stsbenchmark/sts-{dev,test}.csv --json

Everything the fit chooses (the pair regression against the input cosine, its alpha, FILM's
search weight) is chosen on held-out training pairs; dev is reported beside test so that a fit
option (e.g. ``--stem``) can be chosen on dev, never on test. Prints the Pearson and Spearman
correlation of the model's predicted score and of the input cosine, and their ratio.

    python benchmarks/bench_graded_cli.py [--data-dir DIR] [-- extra learnsim fit options, e.g. --stem]
"""
import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from learnsim.datasets import find_data_dir


def _cli(*args):
    done = subprocess.run([sys.executable, "-m", "learnsim", *map(str, args)], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"learnsim {' '.join(map(str, args))} failed:\n{done.stderr}")
    return done.stdout


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
        print("\n| split | model Pearson | cosine Pearson | ratio | model Spearman | cosine Spearman |\n|---|---|---|---|---|---|")
        for split in ("dev", "test"):
            out = json.loads(_cli("evaluate", "--model", model, "--pairs", folder / f"sts-{split}.csv", "--json"))
            m = out["methods"]
            print(f"| {split} | {m['learned']['pearson']:.4f} | {m['cosine']['pearson']:.4f} | "
                  f"{out['ratio_learned_to_cosine']['pearson']:.3f} | {m['learned']['spearman']:.4f} | "
                  f"{m['cosine']['spearman']:.4f} |")


if __name__ == "__main__":
    main()
