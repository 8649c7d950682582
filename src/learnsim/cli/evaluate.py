"""``learnsim evaluate``: measure a fitted model on labelled data."""
from __future__ import annotations

import textwrap

import numpy as np

from ._common import (MEASURE_TITLES, RETRIEVAL_MEASURES, _examples, _fmt, _formatter, _load_parts, _note,
                      _print_json, _read_clusters, _table, _vectorize, _warn_empty_rows)


def register(commands):
    """Add the command's parser to ``commands``."""
    evaluate = commands.add_parser(
        "evaluate", formatter_class=_formatter, help="leave-one-out cluster retrieval with a model",
        description=textwrap.dedent("""\
            Every labelled document queries all the others; the relevant ones share its label.
            Compares the learned metric with cosine similarity of the same vectoriser's output
            (11-pt average precision, R-precision, MAP, P@10, and their ratio). Documents of
            label -1 stay in the rankings as distractors. Input formats as for 'learnsim fit'."""),
        epilog=_examples("learnsim evaluate --model model.npz --input test.tsv",
                         "learnsim evaluate --model model.npz --input test.jsonl --json"))
    evaluate.add_argument("--model", required=True, metavar="M.npz", help="model file written by 'learnsim fit'")
    evaluate.add_argument("--input", required=True, metavar="FILE", help="labelled documents (.tsv, .txt or .jsonl)")
    evaluate.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    evaluate.set_defaults(handler=run)
    return evaluate


def run(args):
    import scipy.sparse as sp
    from sklearn.preprocessing import normalize

    from ..evaluation import cluster_retrieval_report

    from ._scoring import scorer_for

    parts = _load_parts(args.model)
    vectorizer = parts["vectorizer"]
    docs, labels, names, n_singletons = _read_clusters(args.input)
    if n_singletons:
        _note(f"{n_singletons} label(s) with a single document have nothing to retrieve; "
              "those documents stay in the rankings as distractors")
    X = _vectorize(vectorizer, docs.texts)
    _warn_empty_rows(X, "document", docs.texts)

    Xn = normalize(X, norm="l2")
    scorer = scorer_for(parts).prepare(X)
    block = scorer.block_rows()

    def learned_block(rows):
        return scorer.closeness(X[rows])

    def cosine_block(rows):
        block = Xn[rows] @ Xn.T
        return block.toarray() if sp.issparse(block) else np.asarray(block)

    reports = {
        "learned": cluster_retrieval_report(learned_block, labels,
                                            measures=RETRIEVAL_MEASURES, block_size=block),
        "cosine": cluster_retrieval_report(cosine_block, labels, measures=RETRIEVAL_MEASURES,
                                           block_size=block),
    }
    methods = {name: {m: rep[m] for m in RETRIEVAL_MEASURES} for name, rep in reports.items()}
    ratio = {m: (methods["learned"][m] / methods["cosine"][m] if methods["cosine"][m] > 0 else None)
             for m in RETRIEVAL_MEASURES}
    summary = {"documents": len(docs), "clusters": len(names), "queries": reports["learned"]["n_queries"],
               "methods": methods, "ratio_learned_to_cosine": ratio}
    if args.json:
        _print_json(summary)
        return 0
    print(f"Leave-one-out retrieval of {summary['clusters']} clusters: {summary['queries']} queries "
          f"among {summary['documents']} documents.\n")
    rows = [[MEASURE_TITLES[m], _fmt(methods["learned"][m]), _fmt(methods["cosine"][m]), _fmt(ratio[m], ".2f")]
            for m in RETRIEVAL_MEASURES]
    print(_table(["measure", "learned", "cosine", "learned/cosine"], rows))
    return 0
