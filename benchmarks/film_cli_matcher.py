"""``learnsim fit --method film --pairs`` on the Quora sample: the duplicate rule it chooses on
held-out dev pairs (``--matcher auto`` by default) against a threshold on the tf.idf cosine.

In one process, through the command line as a user runs it:

1. ``learnsim fit --method film --pairs <quora-sample/dev.tsv> --model M --json`` (and any
   further options given after ``--``): FILM learns from 80 % of the dev pairs; the rule
   (threshold on the mixed cosine, the pair classifier with or without FILM's features, the
   pairwise kNN rule, or the input-cosine threshold) is chosen on the other 20 %;
2. ``learnsim evaluate --model M --pairs <quora-sample/test.tsv> --json``: test accuracy of
   the chosen rule;
3. the baseline: a threshold on the tf.idf cosine of the model's own vectoriser, chosen on all
   the dev pairs (``ThresholdMatcher().fit``), scored on the same test pairs. With ``--encoder``
   (a pre-trained sentence encoder) the model's vectoriser is the encoder: the baselines are then
   a threshold on the encoder's plain cosine and one on the tf.idf cosine (a tf.idf fitted on
   the dev questions), both chosen on all the dev pairs.

Every choice is made on dev only. Prints the held-out accuracies, both held-out reports
(``match_baseline_gain``, ``baseline_gain``), the test accuracies and their ratio.

    python benchmarks/film_cli_matcher.py [--data-dir DIR] [--matcher auto|threshold|classifier|knn]
                                          [-- further 'learnsim fit' options, e.g. --dimensions 50]
    python benchmarks/film_cli_matcher.py -- --encoder <all-MiniLM-L6-v2 folder>
"""
import argparse
import contextlib
import io
import json
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from learnsim import cli
from learnsim.datasets import find_data_dir, load_quora_pairs
from learnsim.matching import ThresholdMatcher
from learnsim.persistence import load
from learnsim.text import TextVectorizer


def _cli(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in args])
    if code != 0:
        raise SystemExit(f"learnsim {' '.join(map(str, args))} failed ({code}):\n{err.getvalue()}")
    for line in err.getvalue().splitlines():
        if "warning:" in line or "note:" in line:
            print("  " + line)
    return json.loads(out.getvalue())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--matcher", default=None, choices=("auto", "threshold", "classifier", "knn"))
    parser.add_argument("fit_options", nargs="*", help="further 'learnsim fit' options (after --)")
    args = parser.parse_args(argv)
    folder = Path(find_data_dir(args.data_dir)) / "quora-sample"
    dev, test = folder / "dev.tsv", folder / "test.tsv"
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "film.npz"
        extra = list(args.fit_options) + (["--matcher", args.matcher] if args.matcher else [])
        start = time.perf_counter()
        fitted = _cli(["fit", "--method", "film", "--pairs", dev, "--model", model, "--json"] + extra)
        fit_seconds = time.perf_counter() - start
        evaluated = _cli(["evaluate", "--model", model, "--pairs", test, "--json"])
        vectorizer = load(model)["vectorizer"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dev_data, test_data = load_quora_pairs(dev), load_quora_pairs(test)
    dev_texts, test_texts = [str(t) for t in dev_data.texts], [str(t) for t in test_data.texts]
    baselines = {}
    if fitted.get("encoder"):
        # the encoder's plain cosine (its texts are encoded once: the fit and evaluate encoded them)
        baselines[f"{fitted['encoder']} cosine threshold (chosen on dev)"] = _threshold_accuracy(
            vectorizer, dev_texts, test_texts, dev_data, test_data)
        vectorizer = TextVectorizer("tfidf", norm="l2", dtype=np.float64).fit(dev_texts)
    baselines["tf.idf cosine threshold (chosen on dev)"] = _threshold_accuracy(vectorizer, dev_texts, test_texts,
                                                                               dev_data, test_data)
    cosine_acc = baselines["tf.idf cosine threshold (chosen on dev)"]
    chosen = fitted["matcher"]
    print(f"learnsim fit --method film --pairs dev.tsv {' '.join(extra)}: {fit_seconds:.0f} s; rule chosen on "
          f"{fitted['validation_pairs']} held-out dev pairs: {chosen}")
    print("held-out accuracy of each rule: " + ", ".join(f"{k} {v:.4f}" for k, v in fitted["matcher_accuracies"].items()))
    if fitted.get("search_lexical_weight") is not None:
        print(f"search: input weight {fitted['search_input_weight']:g}, lexical tf.idf weight "
              f"{fitted['search_lexical_weight']:g}")
    for key in ("match_baseline_gain", "baseline_gain", "lexical_baseline_gain"):
        r = fitted.get(key)
        if r is not None and r["status"] != "unchecked":
            print(f"{key}: {r['measure']} {r['learned_score']:.4f} vs {r['baseline']} {r['baseline_score']:.4f}, "
                  f"gain {r['gain']:+.4f} (95% CI {r['ci_low']:+.4f} to {r['ci_high']:+.4f}), {r['status']}")
    print(f"\nQuora sample, test ({evaluated['pairs']} pairs)\n")
    print("| rule | test accuracy | F1 | / tf.idf cosine |\n|---|---|---|---|")
    for name, acc in baselines.items():
        print(f"| {name} | {acc:.4f} | - | {acc / cosine_acc:.3f} |")
    print(f"| learnsim fit --method film: {chosen} | {evaluated['accuracy']:.4f} | {evaluated['f1']:.4f} | "
          f"{evaluated['accuracy'] / cosine_acc:.3f} |")


def _threshold_accuracy(vectorizer, dev_texts, test_texts, dev_data, test_data):
    """Test accuracy of a threshold on the cosine of ``vectorizer``'s vectors, chosen on dev."""
    rule = ThresholdMatcher().fit(_dense_or_sparse(vectorizer.transform(dev_texts)), dev_data.pairs)
    return rule.score(test_data.pairs, X=_dense_or_sparse(vectorizer.transform(test_texts)))


def _dense_or_sparse(X):
    return X.astype(np.float64) if X.dtype != np.float64 else X


if __name__ == "__main__":
    main()
