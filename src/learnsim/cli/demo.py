"""``learnsim demo``."""
from __future__ import annotations

import textwrap

from ._common import (_check_output_dir, _examples, _fmt, _formatter, MEASURE_TITLES, _note, _print_json,
                      RETRIEVAL_MEASURES, _seed, _table, UsageError)

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
    _check_demo_outputs(out)
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
    _print_walkthrough(result["walkthrough"])
    print(f"\nWrote {result['results_json']}" + (f" and {result['plot']}" if result["plot"] else "")
          + f" in {result['seconds']:.1f} s.")
    return 0


def _check_demo_outputs(out):
    """The demo's own check of what stands in ``out`` (:func:`learnsim.demo.check_demo_outputs`),
    as the command's one-line error."""
    from ..demo import check_demo_outputs

    try:
        check_demo_outputs(out, "--out ")
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _print_walkthrough(w):
    """Fit on pairs, index, search with an explanation, match: what a user does with their data."""
    from ..baseline import BaselineGain
    from .search import explanation_line

    print(f"\nYour own data, the same path: fit on {w['pairs']} duplicate pairs of the training topics "
          f"(learnsim.fit(pairs=...), {w['fit_seconds']:.1f} s): {w['pipeline']}.")
    for what, key in (("duplicate rule", "duplicate_rule_gain"), ("search", "search_gain"),
                      ("search re-ranking", "rerank_gain")):
        if w.get(key):
            gain = BaselineGain.from_dict(w[key])
            # the walkthrough's model keeps its other parts where search falls back
            print(f"  {what}: {gain.summary(fallback=f'search is {gain.baseline}' if key == 'search_gain' else None)}")
    print(f"Indexed the {w['documents']} documents of the held-out topics into {w['index']} "
          f"({w['build_seconds']:.1f} s); 'learnsim search --index {w['index']}' searches it.")
    print(f"\nsearch (a reworded {w['query_of']}, {w['search_seconds'] * 1000:.0f} ms with the explanation): "
          f"{_snip(w['query'])}")
    if any("first_stage_rank" in h for h in w["hits"]):
        # re-ranked: the score is the pair model's probability; the words explain the first stage
        print(_table(["rank", "probability", "first stage", "doc", "why (words adding most to the first stage)"],
                     [[h["rank"], f"{h['score']:.4f}", h["first_stage_rank"], h["id"],
                       explanation_line(h["explanation"], n_words=3)] for h in w["hits"]], align=">>><<"))
    else:
        print(_table(["rank", "similarity", "doc", "why (words adding most)"],
                     [[h["rank"], f"{h['score']:.4f}", h["id"], explanation_line(h["explanation"], n_words=3)]
                      for h in w["hits"]], align=">><<"))
    print(f"\nmatch (a new near-duplicate of {w['match_of']}): {_snip(w['match_text'])}")
    if w["matches"]:
        print(_table(["rank", "probability", "doc"], [[m["rank"], f"{m['probability']:.3f}", m["id"]]
                                                     for m in w["matches"]], align=">><"))
    else:
        print("  no near-duplicate found")


def _snip(text, n=70):
    return text if len(text) <= n else text[: n - 3] + "..."
