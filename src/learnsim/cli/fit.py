"""``learnsim fit``: learn a metric or a term weighting and save it with its vectoriser."""
from __future__ import annotations

import argparse
import textwrap

from .._defaults import DEFAULT_HOLDOUT, DEFAULT_PAIRS_VALIDATION_FRACTION
from ._common import (_add_analysis, _add_encoding_errors, _add_quoting, _auto_or_float, _check_output_file, _examples, _formatter,
                      _int_at_least, _lsi, _n_basis, _open_float, _positive_int, _seed, _stop_words, ENCODER_HELP, UsageError,
                      add_encoder_backend, check_encoder_backend, load_encoder_option)
from ._fit_film import MATCHER_CHOICES, MATCHER_HELP
from ._fit_text import fit_options, print_baseline, print_fitted_on, read_supervision, save_and_summarise


def register(commands):
    """Add the command's parser to ``commands``."""
    fit = commands.add_parser(
        "fit", formatter_class=_formatter,
        help="learn a metric from labelled documents, pairs, links, triplets or clicks",
        description=textwrap.dedent("""\
            Fit a text vectoriser and a metric and save both into one model file:
              --method mcd        minimum cluster distortion (default for --input), from clusters or pairs
              --method film       FILM, a low-rank map, from clusters or pairs (default for --pairs)
              --method linklearn  a term weighting learned from hyperlinks
              --method relative   a weighted metric from relative comparisons or clicks
              --method adapter    a linear map of the query's --encoder embedding, from --qrels or --pairs

            input layouts, one example line each (.tsv: TAB-separated; a header line is skipped):
              labelled documents (--input; mcd, film): label<TAB>text (text<TAB>label under
              a header naming them so), .csv with a header label,text, or .jsonl
                  sports<TAB>The match ended in a draw after extra time.
                  sports,"The match ended in a draw, after extra time."
                  {"label": "sports", "text": "The match ended in a draw after extra time."}
                Label -1: in no cluster (shapes the features and the basis, not supervision);
                a label with a single document counts as -1.
              pairs (--pairs; film, mcd): label<TAB>text_a<TAB>text_b<TAB>pair_id (Quora layout,
                label 1 = duplicate), label<TAB>text_a<TAB>text_b, a header naming the columns,
                or any layout with --columns label=0,text_a=3,text_b=4 (.tsv, .csv, .jsonl)
                  1<TAB>How do I learn Python?<TAB>What is the best way to learn Python?<TAB>17
                Pairs may be duplicates (label 1 or 0) or a query and a relevant document (label
                1: relevance judgements); --corpus FILE gives the collection they search.
                film holds out --validation-fraction (PAIRS_FRACTION) of the queries with their documents
                (or whole groups of duplicates) and checks search on them against BM25, the tf.idf
                cosine and the encoder's cosine (see below); mcd learns from the groups of
                duplicates.
              documents with ids (--input; linklearn, relative): id<TAB>text, .csv with a header
              id,text, or .jsonl with "id"
                  Volcano<TAB>A volcano is a rupture in the crust of a planet...
              links (--links; linklearn): source_id<TAB>target_id (direction ignored)
                  Volcano<TAB>Lava
              triplets (--triplets; relative): anchor_id<TAB>closer_id<TAB>farther_id
                  Volcano<TAB>Lava<TAB>Football
              clicks (--clicks; relative): query_text<TAB>clicked_id<TAB>skipped_id: the clicked
                document is closer to the query than the skipped one. The query is a text
                (never an id); each distinct query joins the collection as the triplet's anchor.
                  volcano eruption<TAB>Volcano<TAB>Football

            linklearn: a seeded --validation-fraction (0.25) of the documents and their links
            is held out for early stopping on average precision. Term counts, an English stop
            list and Porter stemming by default (paper 002, sec. 4.1; stemming needs PyStemmer:
            without it a note says the fit is unstemmed), terms of a single document dropped.
            relative: the slack weight C is chosen on the triplets of a held-out
            --validation-fraction (0.25) of the anchors, where W = 1 (the unweighted distance)
            is measured too, then refitted on all triplets; binary term features (paper 004)
            with --triplets; from clicks (--clicks, --clicks-from) tf.idf features, weights shrunk
            towards W = 1 and the weighted cosine (the click defaults).

            Never below the baseline: every method measures what it learned against its
            baseline (mcd: Euclid/cosine; film: the input cosine; relative: W = 1; linklearn:
            tf.idf cosine / BM25) on held-out supervision, keeps the learned part only when the
            95% interval of the gain lies above 0, falls back to the baseline with a warning
            otherwise, and prints, saves and --json-reports the gain with its interval.
            Every model is also checked as search is used: held-out queries (pairs), whole
            held-out clusters (labels), documents with their links (linklearn) or anchors with
            their triplets (relative), each searching the whole collection, measured overall and
            on their relevant documents that no training supervision names (the cold part),
            against the strongest of Okapi BM25, the tf.idf cosine, the encoder's cosine and its
            mix with BM25 (what 'learnsim evaluate' reports). FILM from pairs is also checked on
            plain queries, a few words of each of up to 300 documents no training pair names. It
            keeps what it learned only when it beats that baseline overall and does not fall
            below it on the cold part (nor, for FILM, on the plain queries); otherwise the model is that baseline (e.g. BM25), and says so. Where one split of
            judgements or clusters would hold out fewer than 200 queries or items, more are held
            out in folds, each from a fit on the rest (at most five fits).""").replace(
            # the default, from its one definition (the text's braces are JSON, not a format's)
            "PAIRS_FRACTION", f"{DEFAULT_PAIRS_VALIDATION_FRACTION:g}"),
        epilog=_examples("learnsim fit --input train.tsv --model model.npz",
                         "learnsim fit --input train.jsonl --model model.npz --stop-words english --stem",
                         "learnsim fit --input train.tsv --model paper.npz --paper --lsi 300",
                         "learnsim fit --input train.tsv --model m.npz --n-basis 64 --shrinkage 0.1 "
                         "--complement-weight 1 --json",
                         "learnsim fit --method film --pairs quora.tsv --model film.npz --dimensions 100",
                         "learnsim fit --method film --pairs quora.tsv --model film.npz --encoder all-MiniLM-L6-v2",
                         "learnsim fit --method linklearn --input pages.tsv --links links.tsv --model ll.npz",
                         "learnsim fit --method relative --input pages.tsv --triplets triplets.tsv --model rel.npz",
                         "learnsim fit --method relative --input pages.tsv --clicks clicks.tsv --model rel.npz",
                         "learnsim fit --method relative --clicks-from idx/ --model rel.npz",
                         "learnsim fit --qrels qrels/train.tsv --queries queries.jsonl --corpus corpus.jsonl "
                         "--model judged.npz",
                         "learnsim fit --beir nfcorpus/ --split train --method adapter --encoder all-MiniLM-L6-v2 "
                         "--model adapter.npz"))
    fit_source = fit.add_mutually_exclusive_group(required=True)
    fit_source.add_argument("--input", metavar="FILE",
                            help="labelled documents (mcd, film) or documents with ids (linklearn, relative): "
                                 ".tsv, .txt, .csv (a header label,text or id,text) or .jsonl")
    fit_source.add_argument("--pairs", metavar="FILE",
                            help="duplicate pairs: label<TAB>text1<TAB>text2<TAB>pair_id per line")
    fit_source.add_argument("--qrels", metavar="FILE", default=None,
                            help="relevance judgements (BEIR's qrels/train.tsv: query-id<TAB>corpus-id<TAB>score, or "
                                 "TREC qrels), with --queries and --corpus: grades kept, negatives from the "
                                 "collection (film, default, or mcd)")
    fit_source.add_argument("--beir", metavar="DIR", default=None,
                            help="a BEIR folder: --qrels DIR/qrels/SPLIT.tsv, --queries DIR/queries.jsonl, --corpus "
                                 "DIR/corpus.jsonl (or .jsonl.gz)")
    fit.add_argument("--queries", metavar="FILE", default=None,
                     help="--qrels: the queries the judgements name (BEIR queries.jsonl, qid<TAB>text, TREC topics)")
    fit.add_argument("--split", metavar="NAME", default=None,
                     help="--beir: which judgements to learn from (default train; choose settings on dev, "
                          "report test once)")
    fit.add_argument("--columns", metavar="SPEC", default=None,
                     help="--pairs: which 0-based fields (or header names) hold what, e.g. "
                          "label=0,text_a=3,text_b=4")
    fit.add_argument("--corpus", metavar="FILE", default=None,
                     help="--pairs, --qrels: the collection the model will search (documents as 'learnsim index "
                          "build' reads them: id<TAB>text, .csv, .jsonl, BEIR corpus.jsonl); the search check ranks "
                          "all of it (--pairs default: the pairs' texts)")
    fit.add_argument("--model", required=True, metavar="OUT.npz", help="model file to write")
    fit.add_argument("--links", metavar="FILE", default=None,
                     help="linklearn: hyperlinks, source_id<TAB>target_id per line")
    fit.add_argument("--triplets", metavar="FILE", default=None,
                     help="relative: anchor_id<TAB>closer_id<TAB>farther_id per line")
    fit.add_argument("--clicks", metavar="FILE", default=None,
                     help="relative: query_text<TAB>clicked_id<TAB>skipped_id per line")
    fit_source.add_argument("--clicks-from", metavar="DIR", default=None,
                            help="learn from the click log of the index DIR ('learnsim serve "
                                 "--learn-from-clicks'): its documents, and the comparisons of its clicks "
                                 "('learnsim feedback export --comparisons'); relative (default) learns from "
                                 "them as comparisons, film, mcd and adapter as judgements (clicked: relevant, "
                                 "skipped: not)")
    fit.add_argument("--method", choices=("mcd", "film", "linklearn", "relative", "adapter"), default=None,
                     help="minimum cluster distortion (mcd, default for --input), FILM (film, default for "
                          "--pairs: its search rules and the baselines are weighed on held-out queries), LinkLearn "
                          "(linklearn), relative comparisons (relative), or the query-side adapter over --encoder "
                          "(adapter: a linear map of the query embedding alone, from --qrels or --pairs)")
    fit.add_argument("--encoder", metavar="NAME_OR_PATH", default=None,
                     help="mcd, film: learn on the vectors of " + ENCODER_HELP + " in place of term vectors "
                          "(FILM on them is the paper's FILM-BERT); the baseline is then the encoder's cosine, the "
                          "pair models add it to their lexical features, and search may mix in the tf.idf cosine "
                          "(weight chosen on held-out pairs). See docs/encoders.md")
    add_encoder_backend(fit)
    fit.add_argument("--weighting", choices=("tfidf", "bm25", "tf", "binary"), default=None,
                     help="term weighting; mcd: default: tfidf or bm25, whichever retrieves the held-out "
                          "clusters better (--baseline-holdout); film: default tfidf; relative: default binary with "
                          "--triplets, tfidf with --clicks and --clicks-from (the click defaults)")
    fit.add_argument("--baseline-holdout", type=_baseline_holdout, default=None, metavar="F|none",
                     help="share of the supervision (whole clusters, queries with their documents, groups "
                          "of pairs, or linked documents) held out to measure the learned similarity against "
                          "its baseline (Euclid / the input cosine / the tf.idf cosine or BM25) and, as "
                          "search, against the strongest of BM25, the tf.idf cosine and the encoder's cosine; "
                          "when learning does not help there for certain (the 95%% interval of the gain "
                          "reaches 0), the model is the baseline and a warning says so (mcd, film, "
                          f"linklearn, relative; default: {DEFAULT_HOLDOUT:g}; 'none': fit on everything, unchecked). relative "
                          "checks on its --validation-fraction share of the anchors ('none' skips its search "
                          "check)")
    fit.add_argument("--matcher", choices=MATCHER_CHOICES, default=None, help=MATCHER_HELP)
    fit.add_argument("--no-rerank", action="store_true",
                     help="film with labelled --pairs: no learned re-ranking of search (by default a pair "
                          "model re-scores the search rule's top 50, kept only where held-out duplicate queries "
                          "find their duplicate first more often)")
    fit.add_argument("--variant", choices=("paper", "bm25"), default=None,
                     help="linklearn: 'paper' (eq. 5, LinkLearn's MLPs; in-domain: for searching the collection "
                          "it was fitted on) or 'bm25' (LearnedBM25, a family that contains Okapi BM25: the variant "
                          "that transfers, fit it to search other collections) (default: paper). Either weights "
                          "the searched collection's own words, document frequencies and lengths")
    fit.add_argument("--lsi", type=_lsi, default=None, metavar="N_OR_FRACTION",
                     help="reduce the term vectors to N LSI dimensions (or a fraction of the vocabulary)")
    fit.add_argument("--no-norm", action="store_true", help="do not L2-normalise the term vectors")
    fit.add_argument("--paper", action="store_true",
                     help="mcd: the paper's metric (still checked against Euclid unless --baseline-holdout none): full space, pseudo-inverse, nothing outside "
                          "the scatter's range (n_basis=none, shrinkage=0, complement_weight=0)")
    fit.add_argument("--n-basis", type=_n_basis, default=None, metavar="K|auto|none",
                     help="mcd: size of the principal basis the metric is learned in; 'none' is the "
                          "whole feature space (default: auto)")
    fit.add_argument("--shrinkage", type=_auto_or_float(0.0, 1.0, "a number in [0, 1]"), default=None,
                     metavar="A|auto", help="mcd: shrinkage toward Euclid, in [0, 1] (default: auto)")
    fit.add_argument("--complement-weight", type=_auto_or_float(0.0, None, "a number >= 0"), default=None,
                     metavar="G|auto",
                     help="mcd: weight of the directions outside the learned basis (default: auto)")
    fit.add_argument("--dimensions", "--n-components", type=_positive_int, default=None, metavar="D",
                     dest="n_components",
                     help="FILM: dimension of the learned representation (default: 100, capped by "
                          "the number of documents and features)")
    fit.add_argument("--svd-rank", type=_positive_int, default=None, metavar="R",
                     help="FILM: rank of the SVD the metric is learned in (default: 5 x D)")
    fit.add_argument("--max-iter", type=_int_at_least(0, "a non-negative integer"), default=None,
                     metavar="N", help="FILM: iterations of the optimiser (default: 200); linklearn: "
                                       "most documents drawn (default: 100000)")
    fit.add_argument("--learning-rate", type=_open_float(0.0, None, "a number > 0"), default=None,
                     metavar="R", help="linklearn: SGD step size (default: 0.03)")
    fit.add_argument("--validation-fraction", type=_open_float(0.0, 1.0, "a number in (0, 1)"),
                     default=None, metavar="F",
                     help="linklearn: share of the documents held out for early stopping (default: 0.25); "
                          "relative: share of the anchors whose triplets choose C (default: 0.25); "
                          "film with --pairs: share of the pairs held out to choose the matching rule "
                          f"(input-cosine weight, duplicate threshold, calibration; default: {DEFAULT_PAIRS_VALIDATION_FRACTION:g})")
    fit.add_argument("--stop-words", type=_stop_words, default=None, metavar="LANGUAGE",
                     help="drop the stop words of LANGUAGE: english, french, german, ... or its code (fr, de, ...), "
                          "or auto: the language --language names, else the collection's, detected as the baselines "
                          "detect it (from words only: never from Chinese, Japanese, Korean or Thai text)")
    _add_analysis(fit)
    fit.add_argument("--stem", action=argparse.BooleanOptionalAction, default=None,
                     help="stemming (needs PyStemmer: pip install learnsim[stem]): Porter for English, the Snowball "
                          "stemmer of the language --language names (else --stop-words names or detects, else the texts', "
                          "detected, with a warning; linklearn: Porter), Lucene's light "
                          "stemmer for Arabic, Hindi and Persian (no PyStemmer needed); default: on for "
                          "linklearn when PyStemmer is installed (a note says when it is not) and --language names no "
                          "other language than English, off otherwise")
    fit.add_argument("--seed", type=_seed, default=0, metavar="N",
                     help="seed of the selection folds and randomised SVDs (default: 0)")
    fit.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    _add_encoding_errors(fit)
    _add_quoting(fit)
    fit.set_defaults(handler=run)
    return fit


# The options that belong to some methods only, as dest -> (flag, methods): giving one with
# another method is a mistake.
_METHOD_OPTIONS = {
    "paper": ("--paper", {"mcd"}), "n_basis": ("--n-basis", {"mcd"}), "shrinkage": ("--shrinkage", {"mcd"}),
    "complement_weight": ("--complement-weight", {"mcd"}),
    "n_components": ("--dimensions", {"film"}), "svd_rank": ("--svd-rank", {"film"}),
    "max_iter": ("--max-iter", {"film", "linklearn"}),
    "pairs": ("--pairs", {"mcd", "film", "adapter"}), "columns": ("--columns", {"mcd", "film", "adapter"}),
    "corpus": ("--corpus", {"mcd", "film", "adapter"}), "weighting": ("--weighting", {"mcd", "film", "relative"}),
    "triplets": ("--triplets", {"relative"}), "clicks": ("--clicks", {"relative"}),
    "clicks_from": ("--clicks-from", {"relative", "film", "mcd", "adapter"}),
    "lsi": ("--lsi", {"mcd", "film"}), "no_norm": ("--no-norm", {"mcd", "film"}),
    "links": ("--links", {"linklearn"}), "learning_rate": ("--learning-rate", {"linklearn"}),
    "validation_fraction": ("--validation-fraction", {"linklearn", "film", "relative", "adapter"}),
    # relative checks on its --validation-fraction share ('none' skips its search check)
    "baseline_holdout": ("--baseline-holdout", {"mcd", "film", "linklearn", "relative", "adapter"}),
    "variant": ("--variant", {"linklearn"}), "matcher": ("--matcher", {"film"}),
    "no_rerank": ("--no-rerank", {"film"}), "encoder": ("--encoder", {"mcd", "film", "adapter"}),
    "encoder_backend": ("--encoder-backend", {"mcd", "film", "adapter"}),
}


def _baseline_holdout(text):
    """--baseline-holdout: a share in (0, 1) or 'none'."""
    if text.strip().lower() == "none":
        return "none"
    return _open_float(0.0, 1.0, "a number in (0, 1) or 'none'")(text)


def _check_method_options(args):
    given = [(flag, methods) for dest, (flag, methods) in _METHOD_OPTIONS.items()
             if getattr(args, dest) not in (None, False) and args.method not in methods]
    if given:
        flags = " and ".join(flag for flag, _ in given)
        owners = sorted(set().union(*(methods for _, methods in given)))
        verb = "apply" if len(given) > 1 else "applies"
        raise UsageError(f"{flags} {verb} to --method {' / '.join(owners)} only, not to --method {args.method}")
    if args.method == "relative" and args.triplets is not None and args.clicks is not None:
        raise UsageError("give --triplets or --clicks, not both")
    if isinstance(args.baseline_holdout, float) and getattr(args, "input", None) is None:
        # the share held out of labelled documents; other supervision holds out --validation-fraction
        # of it, and the number given was taken silently as "on"
        from ._common import _note

        _note(f"note: --baseline-holdout {args.baseline_holdout:g} sets the share held out of labelled documents "
              "(--input); this supervision holds out --validation-fraction of it, and --baseline-holdout only turns "
              "the check on (a number) or off (none)")
    if args.method == "relative" and args.clicks_from is not None and (args.triplets or args.clicks):
        raise UsageError("--clicks-from learns from the index's own click log: leave out --triplets and --clicks")
    if args.method == "relative" and args.input is None and args.clicks_from is None:
        raise UsageError("--method relative needs --input FILE (id<TAB>text per line): the documents the "
                         "triplets name")
    if args.method == "linklearn" and args.links is None:
        raise UsageError("--method linklearn needs --links FILE (source_id<TAB>target_id per line)")


def _mcd_settings(args):
    explicit = {"n_basis": args.n_basis, "shrinkage": args.shrinkage,
                "complement_weight": args.complement_weight}
    if args.paper:
        clash = [f"--{k.replace('_', '-')}" for k, v in explicit.items() if v is not None]
        if clash:
            raise UsageError(f"--paper fixes n_basis=none, shrinkage=0 and complement_weight=0; "
                             f"drop {' and '.join(clash)} or --paper")
        # imported here, not above: learnsim.mcd loads scipy and scikit-learn (1-2 s), which a
        # fit refused for a missing file or a bad option never needs
        from ..mcd import PAPER_PARAMS

        return dict(PAPER_PARAMS)
    return {k: ("auto" if v is None else v) for k, v in explicit.items()}




def _default_method(args):
    """--method when none is given: film for pairs (its check weighs its rules and the baselines
    on held-out queries), relative for clicks and triplets, linklearn for links, mcd otherwise."""
    if args.method is not None:
        return args.method
    if args.pairs is not None or args.qrels is not None or args.beir is not None:
        return "film"
    if args.clicks_from is not None or args.triplets is not None or args.clicks is not None:
        return "relative"
    if args.links is not None:
        return "linklearn"
    return "mcd"


def _judgement_files(args):
    """--beir DIR [--split NAME] as --qrels, --queries and --corpus; --qrels needs the other two."""
    if args.beir is not None:
        clash = [flag for flag, given in (("--queries", args.queries), ("--corpus", args.corpus)) if given]
        if clash:
            raise UsageError(f"--beir names the queries and the corpus of its folder: drop {' and '.join(clash)}")
        from ._common import beir_files

        args.qrels, args.queries, args.corpus = beir_files(args.beir, "train" if args.split is None else args.split)
        if (args.split or "").lower() == "test":
            from ._common import _note

            # allowed (a last fit once the settings are chosen), but the model then knows the test
            # queries, and any figure on them is one of queries it has seen
            _note("warning: --split test learns from the test judgements: an evaluation on them measures "
                  "queries the model has seen (learn from train, choose settings on dev, report test once)")
    elif args.split is not None:
        raise UsageError("--split names the judgements of a --beir folder; with --qrels give the file itself")
    if args.qrels is not None:
        missing = [flag for flag, given in (("--queries", args.queries), ("--corpus", args.corpus)) if not given]
        if missing:
            raise UsageError(f"--qrels needs {' and '.join(missing)}: the judgements name queries and documents by id")
        if args.method not in ("film", "mcd", "adapter"):
            raise UsageError(f"--method {args.method} does not learn from judgements; --qrels teaches film (default), "
                             "mcd or adapter")
    elif args.queries is not None:
        raise UsageError("--queries goes with --qrels (the queries the judgements name)")


def run(args):
    args.method = _default_method(args)
    _judgement_files(args)
    if args.corpus is not None and args.pairs is None and args.qrels is None:
        raise UsageError("--corpus is the collection a model fitted on --pairs or --qrels searches; with --input the "
                         "documents are the collection")
    _check_method_options(args)
    settings = _mcd_settings(args) if args.method == "mcd" else None
    # the input files (a --beir folder's own: --qrels, --queries and --corpus by now), and an index
    # read for its clicks (a model written into it could replace the index's own model.npz); a new
    # file beside the data in a --beir folder harms nothing
    model_path = _check_output_file(args.model, "--model", inputs=[
        getattr(args, name, None) for name in ("input", "pairs", "triplets", "links", "clicks", "clicks_from",
                                                "qrels", "queries", "corpus")])
    if model_path.exists() and not model_path.is_file():
        # _check_output_file lets a device or a pipe through (a run or a table is written into it),
        # but a model is moved into place whole and persistence.save refuses to replace one: found
        # only after the fit, its line printed among the fit's warnings
        raise UsageError(f"--model {args.model} is not a regular file (a device, a pipe or a socket): a model is "
                         "written as a file and moved into place; give the path of a file such as model.npz")
    args.encoder_model = None
    check_encoder_backend(args)
    if args.encoder is not None:
        clash = [flag for flag, given in (("--weighting", args.weighting), ("--lsi", args.lsi),
                                          ("--no-norm", args.no_norm)) if given not in (None, False)]
        if clash:
            raise UsageError(f"{' and '.join(clash)} configure the term vectors, which --encoder replaces: drop "
                             f"{' and '.join(clash)} or --encoder")
        # loaded before the data is read: a wrong folder or name fails at once, in one line
        args.encoder_model = load_encoder_option(args.encoder, backend=args.encoder_backend)

    summary = {"model": str(model_path), "method": args.method}
    if args.method == "linklearn":
        from ._fit_links import fit_linklearn

        return fit_linklearn(args, model_path, summary)
    if args.method == "relative":
        from ._fit_relative import fit_relative

        return fit_relative(args, model_path, summary)
    if args.method == "film":
        from ._fit_film import fit_film

        return fit_film(args, model_path, summary)
    if args.method == "adapter":
        from ._fit_adapter import fit_adapter

        return fit_adapter(args, model_path, summary)
    return _fit_mcd(args, settings, model_path, summary)


def _fit_mcd(args, settings, model_path, summary):
    """mcd: the fit is learnsim.mcd.recipe.fit_mcd, through learnsim.fitting.fit_mcd (with --weighting
    not given, the weighting that scores best on the held-out clusters); this reads, saves and prints."""
    from ._fit_text import read_corpus_option

    texts, labels, pairs = read_supervision(args, summary)
    if pairs is not None and pairs.is_graded:
        raise UsageError(f"{args.pairs}: the pairs carry graded scores; --method mcd learns from labelled pairs "
                         "(label 1 or 0): graded pairs train the pair regression of --method film")
    texts, documents = read_corpus_option(args, texts, summary)
    from ..fitting import fit_mcd        # once the input is read: a missing file is refused without it

    result = fit_mcd(fit_options(args), texts, labels, pairs, settings, summary, documents=documents)
    vectorizer = result.pipeline.vectorizer
    vec_seconds, metric_seconds = result.details.vec_seconds, result.details.metric_seconds
    if save_and_summarise(result, model_path, args):
        return 0
    from ._fit_film import _print_search_check, ended_as_baseline, print_baseline_model

    if ended_as_baseline(summary):
        # the weighting, the metric and its check against Euclid are of a model not saved
        print_fitted_on(summary, args, None, pairs, features=False, texts=texts)
        print_baseline_model(summary, result.pipeline, "the metric")
        print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, metric "
              f"{metric_seconds:.2f} s); saved {model_path}.")
        return 0
    print_fitted_on(summary, args, vectorizer, pairs, texts=texts)
    if result.details.scores is not None:
        print(f"Weighting chosen on the held-out clusters: {result.details.chosen} ("
              + ", ".join(f"{w} {v:.4f}" for w, v in result.details.scores.items()) + ").")
    print(f"Metric: n_basis={summary['n_basis']}, shrinkage={summary['shrinkage']:g}, "
          f"complement_weight={summary['complement_weight']:g} (solver {summary['solver']}).")
    report = summary.get("baseline_gain")
    if report is not None:
        from ..baseline import BaselineGain

        print_baseline(BaselineGain.from_dict(report))
    _print_search_check(summary, result.pipeline, "the metric")
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, metric "
          f"{metric_seconds:.2f} s); saved {model_path}.")
    return 0
