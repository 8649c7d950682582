"""``learnsim demo``."""
from __future__ import annotations

import textwrap

from ._common import (_check_output_dir, _examples, _fmt, _formatter, MEASURE_TITLES, _note, _print_json,
                      RETRIEVAL_MEASURES, _seed, _table)

def register(commands):
    """Add the command's parser to ``commands``."""
    demo = commands.add_parser(
        "demo", formatter_class=_formatter, help="learn a metric on a synthetic corpus and compare it",
        description=textwrap.dedent("""\
            Generate a synthetic corpus of topical clusters, hold out 40% of the clusters, learn
            the minimum-cluster-distortion metric from the others and compare leave-one-out
            retrieval of the held-out clusters with the paper's metric, Euclid, cosine and BM25.
            Writes OUT/results.json and the precision-recall plot OUT/demo_pr.png."""),
        epilog=_examples("learnsim demo", "learnsim demo --out /tmp/demo --seed 3",
                         "learnsim demo --json > demo.json"))
    demo.add_argument("--out", metavar="DIR", default=None,
                      help="folder for results.json and demo_pr.png (default: ./learnsim-demo)")
    demo.add_argument("--seed", type=_seed, default=0, metavar="N",
                      help="seed of the corpus, the cluster split and the selection (default: 0)")
    demo.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    demo.set_defaults(handler=run)
    return demo


def run(args):
    from ..demo import DEFAULT_OUT_DIR, METHODS, run_demo

    out = _check_output_dir(args.out if args.out is not None else DEFAULT_OUT_DIR, "--out")
    result = run_demo(out, seed=args.seed)
    for note in result["notes"]:
        _note(note)
    if args.json:
        _print_json(result)
        return 0
    corpus, sel = result["corpus"], result["selected"]
    print(f"Synthetic corpus: {corpus['n_documents']} documents in {corpus['n_clusters']} clusters, "
          f"{corpus['n_features']} terms (seed {result['seed']}); metric learned from "
          f"{corpus['n_train_clusters']} clusters, evaluated on the {corpus['n_test_documents']} documents "
          f"of {corpus['n_test_clusters']} held-out clusters (leave-one-out retrieval).")
    print(f"Automatic selection chose n_basis={sel['n_basis']}, shrinkage={sel['shrinkage']:g}, "
          f"complement_weight={sel['complement_weight']:g}.")
    if result.get("baseline_gain") is not None:
        from ..baseline import BaselineGain

        print(f"Checked against Euclid on training clusters held out of the fit: "
              f"{BaselineGain.from_dict(result['baseline_gain']).summary()}.")
    print()
    rows = []
    for name in METHODS:
        m = result["methods"][name]
        rows.append([name] + [_fmt(m[k]) for k in RETRIEVAL_MEASURES]
                    + [_fmt(m["fit_seconds"], ".2f"), _fmt(m["ap11_ratio_to_cosine"], ".2f")])
    print(_table(["method"] + [MEASURE_TITLES[k] for k in RETRIEVAL_MEASURES] + ["fit s", "AP/cosine"], rows))
    print(f"\nWrote {result['results_json']}" + (f" and {result['plot']}" if result["plot"] else "")
          + f" in {result['seconds']:.1f} s.")
    return 0
