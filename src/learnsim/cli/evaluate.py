"""``learnsim evaluate``: measure a fitted model on labelled data."""
from __future__ import annotations

import textwrap

from pathlib import Path

from ._common import (_add_analysis, _add_encoding_errors, _add_quoting, _examples, _fmt, _formatter, _load_pipeline, MEASURE_TITLES, _note,
                      _positive_int, _print_json, QUERY_LAYOUTS, _read_clusters, read_documents, read_id_texts, refuse_dash,
                      RETRIEVAL_MEASURES, _table, UsageError, _vectorize, _warn_empty_rows)
from ._seen import seen_in_training
from .._utils.inputs import short_repr

# Documents ranked per query by --queries: TREC's depth.
RUN_DEPTH = 1000
# learnsim's name of a run measure (learnsim.evaluation.run_measure_names) -> its row's title and
# trec_eval's name, by the name's stem (cut at k) or whole (uncut)
_RUN_TITLES = {"map": ("MAP", "map"), "map@": ("MAP@{}", "map_cut.{}"), "ndcg": ("nDCG", "ndcg"),
               "ndcg@": ("nDCG@{}", "ndcg_cut.{}"), "p@": ("P@{}", "P.{}"), "recall@": ("recall@{}", "recall.{}"),
               "mrr": ("MRR", "recip_rank"), "mrr@": ("MRR@{}", "recip_rank of the top {}")}


def _run_title(name, trec=False):
    """The table's title of a run measure (nDCG@10, MRR@10), or with ``trec`` trec_eval's name."""
    stem, _, k = name.partition("@")
    return _RUN_TITLES[stem + ("@" if k else "")][1 if trec else 0].format(k)


def _trec_names(measures):
    return ", ".join(_run_title(m, trec=True) for m in measures)


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
              precision, R-precision, MAP, P@10) of the model beside the cosine of its own vectors,
              Okapi BM25 and the tf.idf cosine (on the documents' own term counts, as 'learnsim
              fit' checks models against them), with the ratios. Documents of label -1 stay in
              the rankings as distractors.
                  label<TAB>text per line (.tsv/.txt)   sports<TAB>The match ended in a draw.
                  a header label,text (.csv)            sports,"The match ended, in a draw."
                  JSON Lines (.jsonl)                   {"label": "sports", "text": "The match..."}
            --pairs FILE (labelled pairs; a FILM model fitted on pairs): accuracy, F1 and ROC
              AUC of the validated duplicate rule beside the input cosine's (with its threshold
              chosen at fit time), and the ROC AUC of the tf.idf cosine over the pairs' own
              texts. Graded pairs (a score column; a model fitted on graded pairs): Pearson and
              Spearman correlation of the predicted score, of the input cosine and of the tf.idf
              cosine over the pairs' own texts with the scores, and the ratios to the input
              cosine and to the stronger of the two.
            --input FILE --links FILE (a LinkLearn model): every document with a link queries
              all the others; the relevant ones are those it links with (average precision,
              P@10).
                  id<TAB>text per line (.tsv)           Volcano<TAB>A volcano is a rupture...
                  source_id<TAB>target_id (--links)     Volcano<TAB>Lava
            --queries FILE --qrels FILE (--index DIR | --corpus FILE [--model M.npz]): ad-hoc
              retrieval. Every judged query ranks the top -k (1000) documents of the index or
              corpus; MAP, nDCG@10, P@10, recall@100 and MRR@10 (or the --measures named) as
              trec_eval computes them (map, ndcg_cut.10, P.10, recall.100, recip_rank of the top
              10 as -M 10 gives it: relevance >= 1 is relevant, the level is nDCG's gain; ties
              by descending document id; a judged query without a relevant document scores 0, a
              query without judgments is left out) of learnsim's search (the model's search rule, with its
              re-ranker where it has one: what 'learnsim search' ranks by) beside Okapi BM25
              (k1 1.5, b 0.6) and the tf.idf cosine (log N/df) of the same collection's term
              counts (the stop words and stems of the collection's language: English's and
              Porter's on an English collection; --baseline-language to name it), with a --model over a sentence
              encoder the encoder's cosine alone too, and the ratio to the strongest of them (the
              baselines 'learnsim fit' checks a model fitted on pairs against). A document
              scoring 0 (sharing no word with the query) is retrieved by no term-based method,
              the learned one included. Without --model: the two baselines alone, what a model
              has to beat (--language, --analyzer, --cjk-unigrams: how they cut text, as for
              'learnsim fit'; with a model, as the model does).
              The corpus: id<TAB>text lines, .csv with an id column, .jsonl with "id" (or BEIR's
              corpus.jsonl: "_id", "title", "text"), SMART records (CISI.ALL, cran.all.1400)
              or TREC SGML (<DOC><DOCNO>id</DOCNO>...</DOC>).
            --run FILE --qrels FILE: the same measures of a TREC run file (qid Q0 docid rank
              score tag lines, as 'learnsim search --run' writes them); no model needed.
            qrels layouts (--qrels):
                  TREC: qid 0 docid relevance           301 0 FBIS3-10082 1
                  BEIR: query-id<TAB>corpus-id<TAB>score under that header
                  ir_datasets: query_id doc_id relevance iteration   301 FBIS3-10082 1 0
                  SMART: CISI.REL (query doc 0 0.0: every pair relevant), cranqrel (query doc
                    grade; its queries numbered by position in cran.qry, which is noted)

            """) + PAIRS_LAYOUTS + "\n\n" + QUERY_LAYOUTS,
        epilog=_examples("learnsim evaluate --model model.npz --input test.tsv",
                         "learnsim evaluate --model model.npz --input test.jsonl --json",
                         "learnsim evaluate --model film.npz --pairs test_pairs.tsv",
                         "learnsim evaluate --model ll.npz --input pages.tsv --links links.tsv",
                         "learnsim evaluate --queries CISI.QRY --qrels CISI.REL --corpus CISI.ALL --model ll.npz",
                         "learnsim evaluate --queries topics.tsv --qrels qrels.txt --index idx/ --json",
                         "learnsim evaluate --run run.trec --qrels qrels.txt",
                         "learnsim evaluate --run run.trec --qrels qrels.txt --measures nDCG@10,RR@10,R@100",
                         "learnsim evaluate --beir nfcorpus/ --split test --model nf.npz"))
    evaluate.add_argument("--model", metavar="M.npz", default=None,
                          help="model file written by 'learnsim fit' (needed but with --queries and --run)")
    source = evaluate.add_mutually_exclusive_group(required=True)
    source.add_argument("--input", metavar="FILE",
                        help="labelled documents (.tsv, .txt, .csv with a header label,text, or .jsonl), or "
                             "with --links documents with ids")
    source.add_argument("--pairs", metavar="FILE", help="labelled pairs (layouts above)")
    source.add_argument("--queries", metavar="FILE", help="queries with ids (layouts above), judged in --qrels")
    source.add_argument("--run", metavar="FILE", help="a TREC run file to measure against --qrels")
    source.add_argument("--beir", metavar="DIR", default=None,
                        help="a BEIR folder: --queries DIR/queries.jsonl, --qrels DIR/qrels/SPLIT.tsv, --corpus "
                             "DIR/corpus.jsonl (or .jsonl.gz), with --model or --index")
    evaluate.add_argument("--split", metavar="NAME", default=None,
                          help="--beir: which judgements to score (default test)")
    evaluate.add_argument("--qrels", metavar="FILE", default=None,
                          help="--queries, --run: the relevance judgments (TREC, BEIR or SMART layout)")
    evaluate.add_argument("--index", metavar="DIR", default=None,
                          help="--queries: the index to search (built by 'learnsim index build')")
    evaluate.add_argument("--corpus", metavar="FILE", default=None,
                          help="--queries: the documents to search, with ids (with --model, or alone for the "
                               "baselines)")
    evaluate.add_argument("-k", "--k", type=_positive_int, default=None, metavar="K",
                          help=f"--queries: documents ranked per query (default: {RUN_DEPTH})")
    evaluate.add_argument("--links", metavar="FILE", default=None,
                          help="hyperlinks source_id<TAB>target_id between the --input documents")
    evaluate.add_argument("--columns", metavar="SPEC", default=None,
                          help="--pairs: which 0-based fields hold what, e.g. label=0,text_a=3,text_b=4")
    evaluate.add_argument("--measures", metavar="NAMES", action="append", default=None,
                          help="--queries, --beir, --run: the measures to report, comma-separated, by ir_measures' "
                               "names (nDCG@k, RR@k, AP, AP@k, P@k, R@k, RR, nDCG; e.g. nDCG@1,nDCG@10,RR@10,R@100) "
                               "or trec_eval's (ndcg_cut_10, recip_rank, recall_100, map_cut_100); default MAP, "
                               "nDCG@10, P@10, recall@100 and MRR@10")
    evaluate.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    # as 'learnsim fit' declares them: how the baselines of --queries without --model cut text
    # (with a model they cut it as the model does)
    _add_analysis(evaluate)
    evaluate.add_argument("--baseline-language", metavar="NAME", default="auto",
                          help="whose stop words and Snowball stems BM25 and the tf.idf cosine take: auto (default: "
                               "the language whose stop words are most of the collection's words, English where "
                               "none is), english (scikit-learn's list and Porter stems), french, german, "
                               "spanish, russian, ... or a two-letter code (fr, de)")
    _add_encoding_errors(evaluate)
    _add_quoting(evaluate)
    evaluate.set_defaults(handler=run)
    return evaluate


def _evaluate_pairs(args, pipeline):
    import numpy as np
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
    seen = seen_in_training(pipeline, "pairs", texts=texts)
    X = _vectorize(vectorizer, texts)
    _warn_empty_rows(X, "text", texts, distinct=True)     # a copy of a text is not one more
    Xn = _unit_rows(X)
    cosine = np.asarray(Xn[idx[:, 0]].multiply(Xn[idx[:, 1]]).sum(axis=1)).ravel() \
        if hasattr(Xn, "multiply") else np.einsum("ij,ij->i", Xn[idx[:, 0]], Xn[idx[:, 1]])
    # the tf.idf cosine over the pairs' own texts: the baseline a user has on new pairs, which the
    # model's input cosine (the fit's vocabulary and idf) is not once the words are new
    tfidf, terms = _pair_tfidf_cosine(texts, idx, pipeline, args.baseline_language)
    if matcher.graded:
        return _evaluate_graded(args, pairs, matcher.pair_score(idx, X=X), cosine, matcher, tfidf, terms, seen)
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
               "tfidf_roc_auc": float(roc_auc_score(y, tfidf)), "baseline_terms": terms,
               "threshold": matcher.threshold_, "input_weight": matcher.input_weight_, "seen_in_training": seen}
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
    # no threshold is chosen on the pairs measured, so the tf.idf cosine over their texts has a ROC AUC alone
    print(f"\ntfidf: the tf.idf cosine (log N/df) over these pairs' own texts ({terms}): ROC AUC "
          f"{_fmt(summary['tfidf_roc_auc'])}.")
    return 0


def _said_terms(lexical, texts):
    """How the baselines count terms (``lexical.terms``), with a clause where the texts' language
    was detected and not recognised: 'English stop words dropped, Porter stems' was said of
    Georgian documents as of an English collection, though the stop words are none of their words
    and the stems change none (learnsim.text._described)."""
    if getattr(lexical, "language_given", True) or getattr(lexical, "language", None) != "english":
        return lexical.terms
    from ..text._described import describe_unrecognised

    said = describe_unrecognised(list(texts), readers="the baselines read them", option="--baseline-language")
    return lexical.terms if said is None else f"{lexical.terms}; {said}"


def _pair_tfidf_cosine(texts, idx, pipeline, language=None):
    """(per pair the tf.idf cosine over ``texts``' own term counts, how they are counted): the
    lexical baseline of learnsim.baseline (LexicalBaselines), cut as the model cuts text."""
    import numpy as np
    from ..baseline import LexicalBaselines
    from ..text import tfidf_cosine_weights

    lexical = LexicalBaselines(texts, analysis=_analysis(pipeline), language=_model_language(pipeline, language))
    W = tfidf_cosine_weights(lexical.counts)
    return np.asarray(W[idx[:, 0]].multiply(W[idx[:, 1]]).sum(axis=1)).ravel(), _said_terms(lexical, texts)


def _evaluate_graded(args, pairs, predicted, cosine, matcher, tfidf, terms, seen=None):
    """Graded pairs: Pearson and Spearman of the predicted score, of the input cosine and of the
    tf.idf cosine over the pairs' own texts, and the ratio to the stronger of the two."""
    import numpy as np
    from ..evaluation import pearson, spearman

    gold = pairs.scores
    if np.ptp(gold) == 0:
        raise UsageError(f"{args.pairs}: every pair has the same score; correlations need different scores")

    def corr(fn, x):
        return float(fn(x, gold)) if np.ptp(x) > 0 else 0.0

    methods = {"learned": {"pearson": corr(pearson, predicted), "spearman": corr(spearman, predicted)},
               "cosine": {"pearson": corr(pearson, cosine), "spearman": corr(spearman, cosine)},
               "tfidf": {"pearson": corr(pearson, tfidf), "spearman": corr(spearman, tfidf)}}
    measures = ("pearson", "spearman")
    ratio = {m: (methods["learned"][m] / methods["cosine"][m] if methods["cosine"][m] > 0 else None) for m in measures}
    strongest = {m: max(("cosine", "tfidf"), key=lambda b: methods[b][m]) for m in measures}
    ratio_strongest = {m: (methods["learned"][m] / methods[strongest[m]][m] if methods[strongest[m]][m] > 0 else None)
                       for m in measures}
    summary = {"model": str(args.model), "pairs": len(pairs), "graded": True, "higher_is_better": True,
               "rule": matcher.title(), "matcher": matcher.name, "methods": methods,
               "ratio_learned_to_cosine": ratio, "strongest_baseline": strongest,
               "ratio_learned_to_strongest_baseline": ratio_strongest, "baseline_terms": terms,
               "seen_in_training": seen}
    if args.json:
        _print_json(summary)
        return 0
    print(f"Graded similarity on {summary['pairs']} pairs (scores {gold.min():g} to {gold.max():g}): the "
          f"correlation with the scores of the model's predicted score ({summary['rule']}) and of the input "
          f"cosine, and tfidf: the tf.idf cosine (log N/df) over these pairs' own texts ({terms}). Higher is "
          "better.\n")
    rows = [[title, _fmt(methods["learned"][m]), _fmt(methods["cosine"][m]), _fmt(methods["tfidf"][m]),
             _fmt(ratio[m], ".2f"), f"{_fmt(ratio_strongest[m], '.2f')} ({strongest[m]})"]
            for m, title in (("pearson", "Pearson"), ("spearman", "Spearman"))]
    print(_table(["measure", "learned", "cosine", "tfidf", "learned/cosine", "learned/strongest"], rows))
    return 0


def _unit_rows(X):
    from sklearn.preprocessing import normalize

    return normalize(X, norm="l2")


def _evaluate_links(args, pipeline):
    import numpy as np
    from ..evaluation import retrieval_report
    from ..linklearn._linklearn import linked_pairs
    from ._common import check_input_file
    from ._fit_links import read_links, unique_ids

    if args.input is None:
        raise UsageError("--links needs --input: the documents with ids the links are between")
    check_input_file(args.links, "--links")
    docs = read_documents(args.input, encoding_errors=args.encoding_errors, quoting=args.quoting)
    unique_ids(args.input, docs, "--links needs")
    links = read_links(Path(args.links), docs.ids, args.encoding_errors)
    X = _vectorize(pipeline.vectorizer, docs.texts)
    _warn_empty_rows(X, "document", docs.texts)
    linked = links.symmetric().adjacency.tocsr()
    has_links = np.flatnonzero(np.diff(linked.indptr) > 0)
    seen = seen_in_training(pipeline, "documents", queries=[docs.texts[i] for i in has_links], documents=docs.texts)
    scorer = pipeline.make_scorer()
    L = None
    if scorer.lexical_weight is not None:
        from ..text import collection_vectors

        # a model whose search mixes a lexical part in (a FILM fitted on pairs, BM25 or the
        # tf.idf cosine over these documents' words), prepared as --input prepares it: without
        # it the scorer refused with "give the texts' lexical vectors"
        L = collection_vectors(pipeline.lexical, docs.texts)[2]
    scorer.prepare(X, L)
    Xn = _unit_rows(X)
    measures = ("map", "p@10")
    block = scorer.block_rows()

    def learned(rows):
        return scorer.closeness(X[has_links[rows]], None if L is None else L[has_links[rows]])

    def cosine(rows):
        S = Xn[has_links[rows]] @ Xn.T
        return S.toarray() if hasattr(S, "toarray") else np.asarray(S)

    relevant = linked[has_links]
    exclude = _self_mask(has_links, X.shape[0])
    lexical = _lexical_blocks(docs.texts, pipeline, args.baseline_language)
    scorers = (("learned", learned), ("cosine", cosine), ("tfidf", lambda rows: lexical["cosine"](has_links[rows])),
               ("bm25", lambda rows: lexical["bm25"](has_links[rows])))
    reports = {name: retrieval_report(fn, relevant, exclude=exclude, measures=measures, block_size=block,
                                      n_queries=has_links.size)
               for name, fn in scorers}
    # a link a->b and its reverse b->a are one, as learnsim fit --links counts them: the relevant
    # documents of a query are those linked with it either way
    summary = {"model": str(args.model), "documents": len(docs), "links": linked_pairs(links),
               "queries": reports["learned"]["n_queries"], "scoring": scorer.name,
               "methods": {name: {"avgp": rep["map"], "p@10": rep["p@10"]} for name, rep in reports.items()},
               "baseline_terms": lexical["terms"], "seen_in_training": seen}
    if args.json:
        _print_json(summary)
        return 0
    print(f"Link retrieval: {summary['queries']} documents with links query all {summary['documents']}; the "
          f"relevant ones are those they link with ({summary['links']} links). Scored by {scorer.description}; "
          f"cosine: the cosine of the model's own vectors; tfidf and bm25: the tf.idf cosine and Okapi BM25 on "
          f"the documents' term counts ({lexical['terms']}).\n")
    rows = [[title] + [_fmt(summary["methods"][name][key]) for name, _ in scorers]
            for key, title in (("avgp", "AvgP"), ("p@10", "P@10"))]
    print(_table(["measure"] + [name for name, _ in scorers], rows))
    return 0


def _self_mask(rows, n):
    import numpy as np
    import scipy.sparse as sp

    return sp.csr_matrix((np.ones(rows.size, dtype=bool), (np.arange(rows.size), rows)), shape=(rows.size, n))


def run(args):
    import numpy as np
    if args.beir is not None:
        from ._common import beir_files

        clash = [flag for flag, given in (("--qrels", args.qrels), ("--corpus", args.corpus)) if given]
        if clash:
            raise UsageError(f"--beir names the judgements and the corpus of its folder: drop {' and '.join(clash)}")
        args.qrels, args.queries, corpus = beir_files(args.beir, "test" if args.split is None else args.split)
        args.corpus = None if args.index is not None else corpus
    elif args.split is not None:
        raise UsageError("--split names the judgements of a --beir folder; with --qrels give the file itself")
    args.baseline_analysis = _analysis_of_options(args)
    args.baseline_language = _baseline_language(args)
    if args.queries is not None or args.run is not None:
        return _evaluate_runs(args)
    given = [option for option, value in (("--qrels", args.qrels), ("--index", args.index), ("--corpus", args.corpus),
                                          ("-k", args.k), ("--measures", args.measures)) if value is not None]
    if given:
        raise UsageError(f"{', '.join(given)} go(es) with --queries (--qrels with --run too), not with --input or "
                         "--pairs")
    if args.model is None:
        raise UsageError(f"{'--pairs' if args.pairs is not None else '--input'} needs --model M.npz, the model "
                         "to measure")
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
    # the queries: the documents of a cluster of two or more (as cluster_retrieval_report takes them)
    sizes = np.bincount(labels[labels >= 0]) if (labels >= 0).any() else np.zeros(0, int)
    queried = [t for t, label in zip(docs.texts, labels) if label >= 0 and sizes[label] > 1]
    seen = seen_in_training(pipeline, "queries", queries=queried, documents=docs.texts)
    X = _vectorize(vectorizer, docs.texts)
    _warn_empty_rows(X, "document", docs.texts)
    # imported here, once the model and the documents are read: scikit-learn and scipy cost 1-2 s
    # that a refusal (a missing model, a bad option) never needs
    import scipy.sparse as sp
    from sklearn.preprocessing import normalize

    from ..evaluation import cluster_retrieval_report

    Xn = normalize(X, norm="l2")
    scorer = pipeline.make_scorer()
    L = None
    if scorer.lexical_weight is not None:
        from ..text import collection_vectors

        # a sentence encoder's scoring mixed with the tf.idf cosine over these documents' words
        L = collection_vectors(pipeline.lexical, docs.texts)[2]
    scorer.prepare(X, L)
    block = scorer.block_rows()

    # the model scores these documents as its search does (Pipeline.searcher): a term-weight
    # model weights them with their own collection's vocabulary and statistics. The fit's
    # vectoriser alone knew only the fit's words and idf, so a fit that ended as BM25 scored
    # below this command's own BM25 column on a new collection (20 Newsgroups' unseen groups:
    # MAP 0.285 against 0.300)
    found = pipeline.searcher(docs.texts)

    def learned_block(rows):
        return found.closeness([docs.texts[i] for i in rows])

    def cosine_block(rows):
        block = Xn[rows] @ Xn.T
        return block.toarray() if sp.issparse(block) else np.asarray(block)

    # BM25 and the tf.idf cosine as every search fit is checked against (learnsim.baseline)
    lexical = _lexical_blocks(docs.texts, pipeline, args.baseline_language)
    reports = {
        "learned": cluster_retrieval_report(learned_block, labels,
                                            measures=RETRIEVAL_MEASURES, block_size=block),
        "cosine": cluster_retrieval_report(cosine_block, labels, measures=RETRIEVAL_MEASURES,
                                           block_size=block),
        "bm25": cluster_retrieval_report(lexical["bm25"], labels, measures=RETRIEVAL_MEASURES, block_size=block),
        "tfidf": cluster_retrieval_report(lexical["cosine"], labels, measures=RETRIEVAL_MEASURES, block_size=block),
    }
    methods = {name: {m: rep[m] for m in RETRIEVAL_MEASURES} for name, rep in reports.items()}
    ratio = {m: (methods["learned"][m] / methods["cosine"][m] if methods["cosine"][m] > 0 else None)
             for m in RETRIEVAL_MEASURES}
    ratio_bm25 = {m: (methods["learned"][m] / methods["bm25"][m] if methods["bm25"][m] > 0 else None)
                  for m in RETRIEVAL_MEASURES}
    # the strongest of the baselines a fit is checked against (the encoder's cosine where the model has one)
    candidates = ("bm25", "tfidf") + (("cosine",) if scorer.dense_input else ())
    strongest = {m: max(candidates, key=lambda b: methods[b][m]) for m in RETRIEVAL_MEASURES}
    ratio_strongest = {m: (methods["learned"][m] / methods[strongest[m]][m] if methods[strongest[m]][m] > 0 else None)
                       for m in RETRIEVAL_MEASURES}
    summary = {"documents": len(docs), "clusters": len(names), "queries": reports["learned"]["n_queries"],
               "scoring": scorer.name, "higher_is_better": True, "methods": methods,
               "ratio_learned_to_cosine": ratio, "ratio_learned_to_bm25": ratio_bm25,
               "strongest_baseline": strongest, "ratio_learned_to_strongest_baseline": ratio_strongest,
               "baseline_terms": lexical["terms"], "seen_in_training": seen}
    if args.json:
        _print_json(summary)
        return 0
    from ..text.encoders import is_encoder

    print(f"Leave-one-out retrieval of {summary['clusters']} clusters: {summary['queries']} queries "
          f"among {summary['documents']} documents. learned: {scorer.description}; cosine: the "
          + ("cosine of the model's sentence encoder" if is_encoder(pipeline.vectorizer)
             else "cosine of the model's own vectors")
          + f"; bm25: Okapi BM25 (k1 1.5, b 0.6) and tfidf: the tf.idf cosine (log N/df), on these documents' "
          f"term counts ({lexical['terms']}), as 'learnsim fit' checks a model against them. Higher is better "
          "for every measure.\n")
    rows = [[MEASURE_TITLES[m], _fmt(methods["learned"][m]), _fmt(methods["cosine"][m]), _fmt(methods["tfidf"][m]),
             _fmt(methods["bm25"][m]), _fmt(ratio[m], ".2f"),
             f"{_fmt(ratio_strongest[m], '.2f')} ({strongest[m]})"] for m in RETRIEVAL_MEASURES]
    print(_table(["measure", "learned", "cosine", "tfidf", "bm25", "learned/cosine", "learned/strongest"], rows))
    return 0


def _baseline_language(args):
    """The language --baseline-language names, else the one --language names where it has a stop
    list (as for 'learnsim fit'), else None: the collection's, detected."""
    from ..baseline import lexical_language
    from ..text import check_language

    try:
        given = check_language(getattr(args, "baseline_language", None), "--baseline-language")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return given if given is not None else lexical_language(getattr(args, "language", None))


def _model_language(pipeline, language):
    """``language`` (--baseline-language, else --language's), else, for a model whose vectoriser
    drops another language's stop words or stems it (learnsim fit --language tr --stop-words auto
    --stem), that language, with a note: a collection that holds few stop words (product titles)
    is detected as English, and its baselines read it by English rules where the model, and the
    fit's check with --language, read it as Turkish. The language the fit was told first
    (TextVectorizer.language, fit --language tr alone: its check read Turkish though the stop
    words and stems say nothing), where it has a stop list. None: the collection's, detected."""
    from ..baseline import lexical_language
    from ..text import check_language
    from ..text._languages import LIGHT_STEMMERS

    if language not in (None, "auto") or pipeline is None:
        return language
    for part in (pipeline.lexical, pipeline.vectorizer):
        told = getattr(part, "language", None)
        named = lexical_language(told) if isinstance(told, str) else None
        if named is not None:
            _note(f"the baselines read {named.capitalize()}, the language the model was fitted with "
                  f"(--language {told}); --baseline-language names another")
            return named
    vectorizer = pipeline.lexical if pipeline.lexical is not None else pipeline.vectorizer
    stop_words, stem = getattr(vectorizer, "stop_words", None), getattr(vectorizer, "stem", None)
    if isinstance(stem, str) and stem in LIGHT_STEMMERS:
        stem = stem[:-len("_light")]
    for name in (stop_words, stem):
        try:
            named = check_language(name) if isinstance(name, str) else None
        except ValueError:      # a stemmer of no stop list (porter, a Snowball one learnsim lists none for)
            named = None
        if named is not None and named != "english":
            _note(f"the baselines read {named.capitalize()}, as the model's vectoriser does "
                  f"(stop words {stop_words!r}, stems {getattr(vectorizer, 'stem', None)!r}); "
                  "--baseline-language names another")
            return named
    return None


def _analysis_of_options(args):
    """The analysis --language, --analyzer and --cjk-unigrams ask the baselines for (None: none
    given), given only where no model sets it: --queries without --model or --index."""
    given = [flag for flag, value in (("--language", args.language), ("--analyzer", args.analyzer),
                                      ("--cjk-unigrams", args.cjk_unigrams)) if value]
    if not given:
        return None
    if args.queries is None or args.model is not None or args.index is not None:
        # said what the options are for, not what was wrong with giving them here
        named = " and ".join(given)
        why = ("with a model the baselines cut text as the model does (its own analysis)"
               if args.model is not None or args.index is not None else "a run file's measures cut no text"
               if getattr(args, "run", None) is not None else "this evaluation takes none")
        raise UsageError(f"{named} set how the baselines of --queries cut text without --model or --index; {why}: "
                         f"leave {named} out")
    from ._fit_text import analysis_option

    return analysis_option(args)


def _analysis(pipeline, args=None):
    """How the model cuts text into terms (its lexical part's, over an encoder): its baselines
    cut it the same way (character bigrams, or the model's analyser); without a model, what
    --language, --analyzer and --cjk-unigrams ask for."""
    from ..text import analysis_of

    if pipeline is None:
        return getattr(args, "baseline_analysis", None)
    return analysis_of(pipeline.lexical if pipeline.lexical is not None else pipeline.vectorizer)


def _lexical_blocks(texts, pipeline=None, language=None):
    """{"bm25", "cosine": block scorers (every document a query of all), "terms": how they count
    terms} of the documents' own term counts: learnsim.baseline's LexicalBaselines."""
    from ..baseline import LexicalBaselines

    lexical = LexicalBaselines(texts, analysis=_analysis(pipeline), language=_model_language(pipeline, language))
    counts = lexical.counts

    def scorer(name):
        return lambda rows: lexical.scores(name, counts[rows])

    return {"bm25": scorer("bm25"), "cosine": scorer("cosine"), "terms": _said_terms(lexical, texts)}


# --------------------------------------------------------------------------- retrieval runs

def _id(value):
    """An id as the qrels reader gives it, to meet them: all-digit ids lose their leading zeros
    (the queries and documents keep them, for the run files)."""
    from .._utils.inputs import id_by_value

    return id_by_value(str(value))


def _evaluate_runs(args):
    """--queries (a learned search beside BM25 and the cosine) or --run (a run file alone)."""
    if args.qrels is None:
        raise UsageError(f"{'--queries' if args.queries is not None else '--run'} needs --qrels FILE, the "
                         "relevance judgments")
    refuse_dash(args.run, "--run")
    refuse_dash(args.qrels, "--qrels")
    if args.links is not None or args.columns is not None:
        raise UsageError("--links and --columns go with --input and --pairs")
    args.measures = _run_measures(args.measures)
    if args.run is not None:
        return _evaluate_run_file(args)
    return _evaluate_queries(args)


def _run_measures(given):
    """learnsim's names of the --measures given (each a comma- or space-separated list), in order,
    each once; the default's without --measures; a UsageError naming an unknown one."""
    import re

    from ..evaluation import RUN_MEASURES, run_measure_names

    if given is None:
        return RUN_MEASURES
    names = [name for value in given for name in re.split(r"[,\s]+", value) if name]
    if not names or any(not name.strip() for value in given for name in value.split(",")):
        raise UsageError(f"--measures {' '.join(map(repr, given))} names no measure in one of its places; give "
                         "names separated by commas, e.g. --measures nDCG@10,RR@10,R@100")
    try:
        return run_measure_names(names)
    except ValueError as exc:
        raise UsageError(f"--measures: {exc}") from None


def _measure_runs(runs, qrels, measures):
    """({method: report}, {method: per-query measures}) of runs on qrels (trec_eval's measures)."""
    from ..evaluation import per_query_run_measures, run_report

    reports = {name: run_report(run, qrels, measures) for name, run in runs.items()}
    per_query = {name: per_query_run_measures(run, qrels, measures) for name, run in runs.items()}
    return reports, per_query


def _evaluate_run_file(args):
    from ..datasets import read_qrels, read_trec_run

    measures = args.measures
    extra = [option for option, value in (("--model", args.model), ("--index", args.index), ("--corpus", args.corpus),
                                          ("-k", args.k)) if value is not None]
    if extra:
        raise UsageError(f"--run measures a run file alone, as deep as it ranks; leave out {', '.join(extra)}")
    run = read_trec_run(args.run, encoding_errors=args.encoding_errors)
    qrels = read_qrels(args.qrels, encoding_errors=args.encoding_errors)
    if not any(q in qrels or _id(q) in qrels for q in run):
        raise UsageError(f"{args.run}: none of its {len(run)} queries (e.g. {short_repr(next(iter(run)))}) is judged "
                         f"in {args.qrels}; do the two name queries by the same ids?")
    reports, per_query = _measure_runs({"run": run}, qrels, measures)
    report = reports["run"]
    if report["n_skipped_queries"]:
        _note(f"{report['n_skipped_queries']} of the {len(run)} queries of {args.run} have no judgments in "
              f"{args.qrels}; they are left out, as trec_eval leaves them out")
    zero = None
    if report["n_unranked_queries"]:
        # trec_eval -c, ir_measures and Pyserini's BEIR figures count them as 0: given beside, as the
        # figure a paper's table holds (NFCorpus's BM25 run file: nDCG@10 0.340 left out, 0.325 so)
        n_all = report["n_queries"] + report["n_unranked_queries"]
        zero = {m: report[m] * report["n_queries"] / n_all for m in measures}
        _note(f"{report['n_unranked_queries']} judged queries of {args.qrels} are not in {args.run}; they are left "
              "out, as trec_eval (without -c) and pytrec_eval leave them out; counted as 0 over all "
              f"{n_all} judged queries, as trec_eval -c, ir_measures and Pyserini's BEIR figures count them: "
              + ", ".join(f"{_run_title(m)} {_fmt(zero[m])}" for m in measures))
    by_value = report["n_queries_matched_by_value"], report["n_documents_matched_by_value"]
    if any(by_value):
        _note(f"{by_value[0]} query id(s) and {by_value[1]} document id(s) of {args.run} meet their judgements only by "
              f"value (an all-digit id without its leading zeros, 007 as 7); trec_eval, matching ids as written, "
              "would not count them")
    summary = {"run": str(args.run), "qrels": str(args.qrels), "queries": report["n_queries"],
               "higher_is_better": True, "measures": list(measures),
               "methods": {"run": {m: report[m] for m in measures}},
               "n_queries_without_relevant": report["n_queries_without_relevant"],
               "n_skipped_queries": report["n_skipped_queries"], "n_unranked_queries": report["n_unranked_queries"],
               "n_queries_matched_by_value": by_value[0], "n_documents_matched_by_value": by_value[1],
               "per_query": per_query}
    if zero is not None:
        summary["with_unranked_as_zero"] = {"queries": n_all, "run": zero}
    if args.json:
        _print_json(summary)
        return 0
    print(f"The run {args.run}: {report['n_queries']} queries judged in {args.qrels}. Measures as trec_eval "
          f"computes them ({_trec_names(measures)}). Higher is better.\n")
    print(_table(["measure", "run"], [[_run_title(m), _fmt(report[m])] for m in measures]))
    return 0


def _index_collection(index):
    """(ids, texts) of the live documents of an index, in order."""
    return index.live_documents()


def _evaluate_queries(args):
    from ..datasets import read_qrels
    from .search import _corpus_run, _index_run

    measures = args.measures

    if (args.index is None) == (args.corpus is None):
        raise UsageError("--queries needs --index DIR, or --corpus FILE (with --model M.npz, or alone for the "
                         "baselines)")
    if args.index is not None and args.model is not None:
        raise UsageError("--index searches with its own model; leave out --model (or give --corpus instead)")
    query_ids, queries = read_id_texts(args.queries, "queries", args.encoding_errors, args.quoting)
    info = {}
    # judgements of queries --queries lacks are left out with a note, as fit leaves them out and
    # as trec_eval and Pyserini measure the queries they are given: refusing the whole file for
    # them made a qrels file of every split unusable beside one split's queries
    # a --beir folder's judgements meet its queries by id alone, as BEIR's loader meets them: numbered by
    # position (Cranfield's qrels), a split naming '1'..'6' beside queries '2'..'7' moved every judgement
    # to its neighbour's query
    beir = getattr(args, "beir", None) is not None
    qrels = read_qrels(args.qrels, query_ids=query_ids, encoding_errors=args.encoding_errors, info=info,
                       unknown="keep", numbering="id" if beir else "auto")
    known = {_id(q) for q in query_ids}
    unknown = [q for q in qrels if q not in known]
    if unknown and len(unknown) == len(qrels):
        raise UsageError(f"{args.qrels}: none of its {len(qrels)} judged queries (e.g. {short_repr(unknown[0])}) is "
                         f"in {args.queries}; do the two name queries by the same ids?")
    if unknown and info["numbering"] == "id" and not beir:
        # numbers that are not all ids but mostly positions 1..n (Cranfield's, one stray line among
        # them) are refused; left out with a note, most judgements would meet the wrong queries.
        # fit's check of its judgements, one rule for both
        from .._inputs import check_numbering

        try:
            check_numbering(args.qrels, qrels, query_ids, queries=str(args.queries))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    n_unknown = sum(len(qrels.pop(q)) for q in unknown)
    judged = [i for i, q in enumerate(query_ids) if _id(q) in qrels]
    n_unjudged = len(query_ids) - len(judged)
    query_ids, queries = [query_ids[i] for i in judged], [queries[i] for i in judged]
    if args.index is not None:
        from .index import open_index

        from ..datasets.trec import check_distinct_ids

        index = open_index(args.index)
        doc_ids, texts = _index_collection(index)
        collection = f"the index {args.index}"
        # the index keeps "007" and "7" apart; the judgements cannot
        check_distinct_ids(doc_ids, collection)
    else:
        doc_ids, texts = read_id_texts(args.corpus, "documents", args.encoding_errors, args.quoting,
                                       read_before=args.queries)
        collection = str(args.corpus)
    if not doc_ids:
        raise UsageError(f"{collection} holds no document")
    _check_judged_documents(qrels, doc_ids, args.qrels, collection)
    # the notes once the files are known to fit together (an error stays one line)
    if info["numbering"] == "position":
        _note(f"{args.qrels} numbers the queries by their position in {args.queries} (its numbers are not all "
              "query ids), as Cranfield's cranqrel does")
    if unknown:
        _note(f"{n_unknown} judgement(s) of {len(unknown)} queries of {args.qrels} (e.g. {short_repr(unknown[0])}) "
              f"name a query not in {args.queries}; they are left out, as trec_eval measures only the queries its run "
              "holds")
    if n_unjudged:
        _note(f"{n_unjudged} of the {n_unjudged + len(judged)} queries of {args.queries} have no judgments in "
              f"{args.qrels}; they are left out, as trec_eval leaves them out")
    _note_missing_documents(qrels, doc_ids, args.qrels, collection)
    k = min(args.k or RUN_DEPTH, len(doc_ids))
    runs, how, encoder = {}, None, None
    pipeline = index.pipeline if args.index is not None else _load_pipeline(args.model) if args.model is not None else None
    seen = None if pipeline is None else seen_in_training(pipeline, "queries", queries=queries)
    from ..baseline import LexicalBaselines

    lexical = LexicalBaselines(texts, analysis=_analysis(pipeline, args),
                               language=_model_language(pipeline, args.baseline_language))
    if args.index is not None:
        runs["learned"], how = _index_run(index, query_ids, queries, k)
    elif args.model is not None:
        runs["learned"], how = _corpus_run(pipeline, doc_ids, texts, query_ids, queries, k)
        from ..text.encoders import encoder_name, is_encoder

        if is_encoder(pipeline.vectorizer):
            # a model over a sentence encoder is measured beside the encoder's own cosine too
            from ..pipeline import Pipeline

            encoder = encoder_name(pipeline.vectorizer)
            runs["encoder"], _ = _corpus_run(Pipeline.from_encoder(pipeline.vectorizer), doc_ids, texts, query_ids,
                                             queries, k)
    baselines, terms = _baseline_runs(doc_ids, query_ids, _read_lone_characters(queries, lexical), k, lexical)
    terms = _said_terms(lexical, texts) if terms == lexical.terms else terms
    runs.update(baselines)
    if args.beir is not None:
        _drop_the_query_itself(runs)
    # a judged query a method finds nothing for counts as 0 here, every method measured on the
    # same queries; its run file, holding no line for it, would leave it out (trec_eval without -c)
    empty = {name: sum(1 for q in query_ids if not run.get(q)) for name, run in runs.items()}
    if any(empty.values()):
        _note("judged queries that find no document count as 0 on every measure (a run file would leave them out): "
              + ", ".join(f"{n} for {name}" for name, n in empty.items() if n))
    # the runs as written (ties broken by their own ids, as trec_eval does), meeting the
    # judgements by value where the forms differ (the measures do)
    reports, per_query = _measure_runs({name: {q: run.get(q, {}) for q in query_ids} for name, run in runs.items()},
                                       qrels, measures)
    methods = {name: {m: rep[m] for m in measures} for name, rep in reports.items()}
    strongest = ratio = None
    if "learned" in methods:
        names = ("bm25", "cosine") + (("encoder",) if "encoder" in methods else ())
        strongest = {m: max(names, key=lambda b: methods[b][m]) for m in measures}
        ratio = {m: (methods["learned"][m] / methods[strongest[m]][m] if methods[strongest[m]][m] > 0 else None)
                 for m in measures}
    first = next(iter(reports.values()))
    summary = {"queries": first["n_queries"], "documents": len(doc_ids), "k": k, "collection": collection,
               "qrels": str(args.qrels), "scoring": how, "higher_is_better": True, "measures": list(measures),
               "baseline_terms": terms, "methods": methods, "strongest_baseline": strongest, "ratio_learned_to_strongest_baseline": ratio,
               "n_queries_without_relevant": first["n_queries_without_relevant"], "per_query": per_query,
               "seen_in_training": seen}
    if args.json:
        _print_json(summary)
        return 0
    print(f"Ad-hoc retrieval: {summary['queries']} queries of {args.queries} judged in {args.qrels}, each ranking the "
          f"top {k} of the {len(doc_ids)} documents of {collection}.")
    print(f"learned: {how}." if how else "No --model: the baselines alone, what a model has to beat.")
    print(f"bm25: Okapi BM25 (k1 1.5, b 0.6); cosine: the tf.idf cosine (log N/df); both on the collection's own "
          f"term counts ({terms})" + (f"; encoder: the cosine of the model's encoder {encoder} alone" if encoder else "")
          + f". Measures as trec_eval computes them ({_trec_names(measures)}). Higher is better.\n")
    names = list(methods)
    header = ["measure"] + names + (["learned/strongest"] if ratio else [])
    rows = [[_run_title(m)] + [_fmt(methods[n][m]) for n in names]
            + ([f"{_fmt(ratio[m], '.2f')} ({strongest[m]})"] if ratio else []) for m in measures]
    print(_table(header, rows))
    if summary["n_queries_without_relevant"]:
        print(f"\n{summary['n_queries_without_relevant']} judged queries have no relevant document; they score 0, "
              "as in trec_eval.")
    return 0


def _drop_the_query_itself(runs):
    """--beir: each run without the hit whose document id is its query's (in place), as BEIR's
    evaluation leaves it out (EvaluateRetrieval.evaluate, ignore_identical_ids=True): where the
    queries are documents of the corpus (ArguAna, Quora), each query's own text ranked first, an
    unjudged hit that cost every query its first rank against the figures BEIR reports. Noted."""
    dropped = {}
    for name, run in runs.items():
        for query, hits in run.items():
            if query in hits:
                del hits[query]
                dropped[name] = dropped.get(name, 0) + 1
    if dropped:
        _note("hits that are the query itself (a document of the query's id) are left out, as BEIR's evaluation "
              "leaves them out (ignore_identical_ids): " + ", ".join(f"{n} for {name}" for name, n in dropped.items()))


def _check_judged_documents(qrels, doc_ids, qrels_path, collection):
    """A UsageError when no relevant document of the judgments is in the collection (the ids
    differ); _note_missing_documents counts those that are not, where some are."""
    relevant, missing = _missing_documents(qrels, doc_ids)
    if relevant and len(missing) == len(relevant):
        raise UsageError(f"{qrels_path}: none of its {len(relevant)} relevant documents "
                         f"(e.g. {short_repr(missing[0])}) is in {collection}; do the two name documents by the same ids?")


def _missing_documents(qrels, doc_ids):
    """(the relevant documents of the judgments, those not in the collection)."""
    known = {_id(d) for d in doc_ids}
    relevant = [d for judged in qrels.values() for d, level in judged.items() if level >= 1]
    return relevant, [d for d in relevant if d not in known]


def _note_missing_documents(qrels, doc_ids, qrels_path, collection):
    relevant, missing = _missing_documents(qrels, doc_ids)
    if missing:
        _note(f"{len(missing)} of the {len(relevant)} relevant judgments of {qrels_path} "
              f"(e.g. {short_repr(missing[0])}) name "
              f"documents that are not in {collection}; no ranking finds them (they still count in MAP and recall, as in trec_eval)")


def _read_lone_characters(queries, lexical):
    """The queries as the baselines read them: each lone character of a spaceless script (猫) that
    the collection's terms do not hold read as the terms holding it, as an index's search and
    Pipeline.search read a query for the learned model (learnsim.text.LoneCharacters). Read alike,
    a gain is the model's, not the reading's. Noted when any query changes."""
    from ..text import LoneCharacters

    vectorizer = lexical.vectorizer
    read = LoneCharacters(vectorizer.build_tokenizer(), [vectorizer.vocabulary_])
    out = [read(q) for q in queries]
    changed = sum(a != b for a, b in zip(queries, out))
    if changed:
        _note(f"{changed} of the {len(queries)} queries hold a lone character the collection has only inside "
              "longer runs (as 猫 in 子猫): the term-based methods read it as the terms holding it")
    return out


def _baseline_runs(doc_ids, query_ids, queries, k, lexical):
    """({"bm25": run, "cosine": run}, how the terms are counted) of the queries on the
    documents' own term counts (``lexical``: a :class:`learnsim.baseline.LexicalBaselines`):
    the baselines every search fit is checked against.

    A document scoring 0 shares no weighted term with the query and is not retrieved, the rule
    learnsim's own search follows for a model that scores by shared words (``top_k_blank``, an
    index's posting lists) and Lucene's: padded to ``k`` in collection order instead, a baseline
    would be credited in MAP and recall with the relevant documents that order happens to
    reach, which the learned run cannot be."""
    Q = lexical.query_counts(queries)
    runs = {}
    for name in ("bm25", "cosine"):
        idx, scores = lexical.scorer(name).search(Q, k)
        runs[name] = {q: {doc_ids[i]: float(v) for i, v in zip(idx[r], scores[r]) if v != 0}
                      for r, q in enumerate(query_ids)}
    return runs, lexical.terms
