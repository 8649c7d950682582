"""``learnsim evaluate``: measure a fitted model on labelled data."""
from __future__ import annotations

import textwrap

import numpy as np

from pathlib import Path

from ._common import (_add_encoding_errors, _add_quoting, _examples, _fmt, _formatter, _load_pipeline, MEASURE_TITLES, _note,
                      _print_json, _read_clusters, read_documents, RETRIEVAL_MEASURES, _table, UsageError,
                      _vectorize, _warn_empty_rows)


def register(commands):
    """Add the command's parser to ``commands``."""
    from .match import PAIRS_LAYOUTS

    evaluate = commands.add_parser(
        "evaluate", formatter_class=_formatter,
        help="measure a model: cluster retrieval, duplicate pairs or links",
        description=textwrap.dedent("""\
            Measure a fitted model on data it was not fitted on, beside the cosine of the same
            vectoriser's output:

            --input FILE (labelled documents): leave-one-out retrieval. Every labelled
              document queries all the others; the relevant ones share its label (11-pt average
              precision, R-precision, MAP, P@10) of the model beside the tf.idf cosine and Okapi
              BM25 (on the documents' own term counts), with the ratios. Documents of label
              -1 stay in the rankings as distractors.
                  label<TAB>text per line (.tsv/.txt)   sports<TAB>The match ended in a draw.
                  a header label,text (.csv)            sports,"The match ended, in a draw."
                  JSON Lines (.jsonl)                   {"label": "sports", "text": "The match..."}
            --pairs FILE (labelled pairs; a FILM model fitted on pairs): accuracy, F1 and ROC
              AUC of the validated duplicate rule beside the input cosine's (with its threshold
              chosen at fit time). Graded pairs (a score column; a model fitted on graded
              pairs): Pearson and Spearman correlation of the predicted score and of the input
              cosine with the scores, and their ratio.
            --input FILE --links FILE (a LinkLearn model): every document with a link queries
              all the others; the relevant ones are those it links with (average precision,
              P@10).
                  id<TAB>text per line (.tsv)           Volcano<TAB>A volcano is a rupture...
                  source_id<TAB>target_id (--links)     Volcano<TAB>Lava

            """) + PAIRS_LAYOUTS,
        epilog=_examples("learnsim evaluate --model model.npz --input test.tsv",
                         "learnsim evaluate --model model.npz --input test.jsonl --json",
                         "learnsim evaluate --model film.npz --pairs test_pairs.tsv",
                         "learnsim evaluate --model ll.npz --input pages.tsv --links links.tsv"))
    evaluate.add_argument("--model", required=True, metavar="M.npz", help="model file written by 'learnsim fit'")
    source = evaluate.add_mutually_exclusive_group(required=True)
    source.add_argument("--input", metavar="FILE",
                        help="labelled documents (.tsv, .txt, .csv with a header label,text, or .jsonl), or "
                             "with --links documents with ids")
    source.add_argument("--pairs", metavar="FILE", help="labelled pairs (layouts above)")
    evaluate.add_argument("--links", metavar="FILE", default=None,
                          help="hyperlinks source_id<TAB>target_id between the --input documents")
    evaluate.add_argument("--columns", metavar="SPEC", default=None,
                          help="--pairs: which 0-based fields hold what, e.g. label=0,text_a=3,text_b=4")
    evaluate.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    _add_encoding_errors(evaluate)
    _add_quoting(evaluate)
    evaluate.set_defaults(handler=run)
    return evaluate


def _evaluate_pairs(args, pipeline):
    from sklearn.metrics import f1_score, roc_auc_score

    from ._pairs import parse_columns, read_text_pairs
    from .match import load_matcher

    vectorizer, _, matcher = load_matcher(args.model)
    columns = parse_columns(args.columns) if args.columns is not None else None
    pairs = read_text_pairs(args.pairs, columns=columns, encoding_errors=args.encoding_errors, need_labels=True,
                            quoting=args.quoting, graded=matcher.graded)
    if matcher.graded and not pairs.graded:
        raise UsageError(f"{args.pairs}: the pairs carry 0/1 labels; {args.model} was fitted on graded pairs and "
                         "is evaluated on graded ones (a score column) by Pearson and Spearman correlation")
    texts, idx = pairs.collection()
    X = _vectorize(vectorizer, texts)
    _warn_empty_rows(X, "text", texts)
    Xn = _unit_rows(X)
    cosine = np.asarray(Xn[idx[:, 0]].multiply(Xn[idx[:, 1]]).sum(axis=1)).ravel() \
        if hasattr(Xn, "multiply") else np.einsum("ij,ij->i", Xn[idx[:, 0]], Xn[idx[:, 1]])
    if matcher.graded:
        return _evaluate_graded(args, pairs, matcher.pair_score(idx, X=X), cosine, matcher)
    if pairs.labels.all() or not pairs.labels.any():
        raise UsageError(f"{args.pairs}: the pairs are all {'duplicates' if pairs.labels.all() else 'non-duplicates'}; "
                         "evaluation needs both kinds")
    y = pairs.labels
    score = matcher.pair_score(idx, X=X)
    decision = matcher.predict(idx, X=X).astype(bool)
    # the input cosine's rule: its threshold fitted on the held-out pairs at fit time (None in
    # model files from before it was saved: unknown, not invented here)
    threshold = getattr(matcher.rule, "cosine_threshold", None)
    if threshold is None and matcher.name == "cosine" and matcher.threshold_ is not None:
        threshold = matcher.threshold_          # the rule is itself the input-cosine threshold
    base = None if threshold is None else cosine >= threshold
    summary = {"model": str(args.model), "pairs": len(pairs), "duplicates": int(y.sum()), "higher_is_better": True,
               "rule": matcher.title(), "matcher": matcher.name,
               "accuracy": float(np.mean(decision == y)), "f1": float(f1_score(y, decision)),
               "roc_auc": float(roc_auc_score(y, score)),
               "cosine_accuracy": None if base is None else float(np.mean(base == y)),
               "cosine_f1": None if base is None else float(f1_score(y, base)),
               "cosine_roc_auc": float(roc_auc_score(y, cosine)), "cosine_threshold": threshold,
               "threshold": matcher.threshold_, "input_weight": matcher.input_weight_}
    if args.json:
        _print_json(summary)
        return 0
    cut = ("its threshold unknown: the model file predates saving it" if threshold is None
           else f"input cosine >= {threshold:.4f}, chosen on the held-out pairs at fit time")
    print(f"Duplicate detection on {summary['pairs']} labelled pairs ({summary['duplicates']} duplicates).\n"
          f"learned: the rule validated at fit time ({summary['rule']}).\ncosine: the baseline ({cut}).\n"
          "Higher is better for every measure.\n")
    rows = [["accuracy", _fmt(summary["accuracy"]), _fmt(summary["cosine_accuracy"])],
            ["F1", _fmt(summary["f1"]), _fmt(summary["cosine_f1"])],
            ["ROC AUC", _fmt(summary["roc_auc"]), _fmt(summary["cosine_roc_auc"])]]
    print(_table(["measure", "learned", "cosine"], rows))
    return 0


def _evaluate_graded(args, pairs, predicted, cosine, matcher):
    """Graded pairs: Pearson and Spearman of the predicted score and of the input cosine."""
    from ..evaluation import pearson, spearman

    gold = pairs.scores
    if np.ptp(gold) == 0:
        raise UsageError(f"{args.pairs}: every pair has the same score; correlations need different scores")

    def corr(fn, x):
        return float(fn(x, gold)) if np.ptp(x) > 0 else 0.0

    methods = {"learned": {"pearson": corr(pearson, predicted), "spearman": corr(spearman, predicted)},
               "cosine": {"pearson": corr(pearson, cosine), "spearman": corr(spearman, cosine)}}
    ratio = {m: (methods["learned"][m] / methods["cosine"][m] if methods["cosine"][m] > 0 else None)
             for m in ("pearson", "spearman")}
    summary = {"model": str(args.model), "pairs": len(pairs), "graded": True, "higher_is_better": True,
               "rule": matcher.title(), "matcher": matcher.name, "methods": methods,
               "ratio_learned_to_cosine": ratio}
    if args.json:
        _print_json(summary)
        return 0
    print(f"Graded similarity on {summary['pairs']} pairs (scores {gold.min():g} to {gold.max():g}): the "
          f"correlation with the scores of the model's predicted score ({summary['rule']}) and of the input "
          "cosine. Higher is better.\n")
    rows = [[title, _fmt(methods["learned"][m]), _fmt(methods["cosine"][m]), _fmt(ratio[m], ".2f")]
            for m, title in (("pearson", "Pearson"), ("spearman", "Spearman"))]
    print(_table(["measure", "learned", "cosine", "learned/cosine"], rows))
    return 0


def _unit_rows(X):
    from sklearn.preprocessing import normalize

    return normalize(X, norm="l2")


def _evaluate_links(args, pipeline):
    from ..evaluation import retrieval_report
    from ._fit_links import read_links, unique_ids

    if args.input is None:
        raise UsageError("--links needs --input: the documents with ids the links are between")
    docs = read_documents(args.input, encoding_errors=args.encoding_errors, quoting=args.quoting)
    unique_ids(args.input, docs, "--links needs")
    links = read_links(Path(args.links), docs.ids, args.encoding_errors)
    X = _vectorize(pipeline.vectorizer, docs.texts)
    _warn_empty_rows(X, "document", docs.texts)
    linked = links.symmetric().adjacency.tocsr()
    has_links = np.flatnonzero(np.diff(linked.indptr) > 0)
    scorer = pipeline.make_scorer().prepare(X)
    Xn = _unit_rows(X)
    measures = ("map", "p@10")
    block = scorer.block_rows()

    def learned(rows):
        return scorer.closeness(X[has_links[rows]])

    def cosine(rows):
        S = Xn[has_links[rows]] @ Xn.T
        return S.toarray() if hasattr(S, "toarray") else np.asarray(S)

    relevant = linked[has_links]
    exclude = _self_mask(has_links, X.shape[0])
    reports = {name: retrieval_report(fn, relevant, exclude=exclude, measures=measures, block_size=block,
                                      n_queries=has_links.size)
               for name, fn in (("learned", learned), ("cosine", cosine))}
    summary = {"model": str(args.model), "documents": len(docs), "links": links.n_links,
               "queries": reports["learned"]["n_queries"], "scoring": scorer.name,
               "methods": {name: {"avgp": rep["map"], "p@10": rep["p@10"]} for name, rep in reports.items()}}
    if args.json:
        _print_json(summary)
        return 0
    print(f"Link retrieval: {summary['queries']} documents with links query all {summary['documents']}; the "
          f"relevant ones are those they link with ({summary['links']} links). Scored by {scorer.description}.\n")
    rows = [[title, _fmt(summary["methods"]["learned"][key]), _fmt(summary["methods"]["cosine"][key])]
            for key, title in (("avgp", "AvgP"), ("p@10", "P@10"))]
    print(_table(["measure", "learned", "cosine"], rows))
    return 0


def _self_mask(rows, n):
    import scipy.sparse as sp

    return sp.csr_matrix((np.ones(rows.size, dtype=bool), (np.arange(rows.size), rows)), shape=(rows.size, n))


def run(args):
    import scipy.sparse as sp
    from sklearn.preprocessing import normalize

    from ..evaluation import cluster_retrieval_report

    pipeline = _load_pipeline(args.model)
    if args.pairs is not None:
        if args.links is not None:
            raise UsageError("--links goes with --input (documents with ids), not with --pairs")
        return _evaluate_pairs(args, pipeline)
    if args.columns is not None:
        raise UsageError("--columns applies to --pairs only")
    if args.links is not None:
        return _evaluate_links(args, pipeline)
    vectorizer = pipeline.vectorizer
    docs, labels, names, n_singletons = _read_clusters(args.input, args.encoding_errors, "leave-one-out evaluation needs",
                                                       quoting=args.quoting)
    if n_singletons:
        _note(f"{n_singletons} label(s) with a single document have nothing to retrieve; "
              "those documents stay in the rankings as distractors")
    X = _vectorize(vectorizer, docs.texts)
    _warn_empty_rows(X, "document", docs.texts)

    Xn = normalize(X, norm="l2")
    scorer = pipeline.make_scorer().prepare(X)
    block = scorer.block_rows()

    def learned_block(rows):
        return scorer.closeness(X[rows])

    def cosine_block(rows):
        block = Xn[rows] @ Xn.T
        return block.toarray() if sp.issparse(block) else np.asarray(block)

    bm25_block = _bm25_blocks(docs.texts)
    reports = {
        "learned": cluster_retrieval_report(learned_block, labels,
                                            measures=RETRIEVAL_MEASURES, block_size=block),
        "cosine": cluster_retrieval_report(cosine_block, labels, measures=RETRIEVAL_MEASURES,
                                           block_size=block),
        "bm25": cluster_retrieval_report(bm25_block, labels, measures=RETRIEVAL_MEASURES, block_size=block),
    }
    methods = {name: {m: rep[m] for m in RETRIEVAL_MEASURES} for name, rep in reports.items()}
    ratio = {m: (methods["learned"][m] / methods["cosine"][m] if methods["cosine"][m] > 0 else None)
             for m in RETRIEVAL_MEASURES}
    ratio_bm25 = {m: (methods["learned"][m] / methods["bm25"][m] if methods["bm25"][m] > 0 else None)
                  for m in RETRIEVAL_MEASURES}
    summary = {"documents": len(docs), "clusters": len(names), "queries": reports["learned"]["n_queries"],
               "scoring": scorer.name, "higher_is_better": True, "methods": methods,
               "ratio_learned_to_cosine": ratio, "ratio_learned_to_bm25": ratio_bm25}
    if args.json:
        _print_json(summary)
        return 0
    print(f"Leave-one-out retrieval of {summary['clusters']} clusters: {summary['queries']} queries "
          f"among {summary['documents']} documents. learned: {scorer.description}; cosine: the tf.idf cosine of "
          "the model's vectoriser; bm25: Okapi BM25 (k1 1.5, b 0.6) on these documents' term counts. "
          "Higher is better for every measure.\n")
    rows = [[MEASURE_TITLES[m], _fmt(methods["learned"][m]), _fmt(methods["cosine"][m]), _fmt(methods["bm25"][m]),
             _fmt(ratio[m], ".2f"), _fmt(ratio_bm25[m], ".2f")] for m in RETRIEVAL_MEASURES]
    print(_table(["measure", "learned", "cosine", "bm25", "learned/cosine", "learned/bm25"], rows))
    return 0


def _bm25_blocks(texts):
    """Okapi BM25 scores (every document a query of all) of the documents' own term counts."""
    from ..text import TextVectorizer
    from ..text.bm25 import BM25

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # empty documents: warned about above
        counts = TextVectorizer("tf").fit_transform(texts)
    bm25 = BM25(dtype=np.float64).fit(counts)

    def block(rows):
        return np.asarray(bm25.score(counts[rows]), dtype=np.float64)

    return block
