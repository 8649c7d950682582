"""``learnsim fit``: learn a metric or a term weighting and save it with its vectoriser."""
from __future__ import annotations

import argparse
import textwrap
import time

import numpy as np

from .._progress import stage

from ._common import (_add_encoding_errors, _auto_or_float, _check_output_file, _examples, _formatter,
                      _int_at_least, _lsi, _n_basis, _note, _open_float, _positive_int, _print_json,
                      _read_clusters, _read_pairs, _save_model, _seed, UsageError)

def register(commands):
    """Add the command's parser to ``commands``."""
    fit = commands.add_parser(
        "fit", formatter_class=_formatter,
        help="learn a metric from labelled documents, pairs, links, triplets or clicks",
        description=textwrap.dedent("""\
            Fit a text vectoriser and a metric and save both into one model file:
              --method mcd        minimum cluster distortion (default), from clusters or pairs
              --method film       FILM, a low-rank map, from clusters or duplicate pairs
              --method linklearn  a term weighting learned from hyperlinks
              --method relative   a weighted metric from relative comparisons or clicks

            input layouts, one example line each (.tsv: TAB-separated; a header line is skipped):
              labelled documents (--input; mcd, film): label<TAB>text, or .jsonl
                  sports<TAB>The match ended in a draw after extra time.
                  {"label": "sports", "text": "The match ended in a draw after extra time."}
                Label -1: in no cluster (shapes the features and the basis, not supervision);
                a label with a single document counts as -1.
              pairs (--pairs; film, mcd): label<TAB>text_a<TAB>text_b<TAB>pair_id (Quora layout,
                label 1 = duplicate), label<TAB>text_a<TAB>text_b, a header naming the columns,
                or any layout with --columns label=0,text_a=3,text_b=4 (.tsv, .csv, .jsonl)
                  1<TAB>How do I learn Python?<TAB>What is the best way to learn Python?<TAB>17
                film holds out --validation-fraction (0.2) of the pairs to choose its duplicate
                rule and its search weight; mcd learns from the groups of duplicates.
              documents with ids (--input; linklearn, relative): id<TAB>text, or .jsonl with "id"
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
            --validation-fraction (0.25) of the anchors, then refitted on all triplets; binary
            term features (paper 004)."""),
        epilog=_examples("learnsim fit --input train.tsv --model model.npz",
                         "learnsim fit --input train.jsonl --model model.npz --stop-words english --stem",
                         "learnsim fit --input train.tsv --model paper.npz --paper --lsi 300",
                         "learnsim fit --input train.tsv --model m.npz --n-basis 64 --shrinkage 0.1 "
                         "--complement-weight 1 --json",
                         "learnsim fit --method film --pairs quora.tsv --model film.npz --dimensions 100",
                         "learnsim fit --method linklearn --input pages.tsv --links links.tsv --model ll.npz",
                         "learnsim fit --method relative --input pages.tsv --triplets triplets.tsv --model rel.npz",
                         "learnsim fit --method relative --input pages.tsv --clicks clicks.tsv --model rel.npz"))
    fit_source = fit.add_mutually_exclusive_group(required=True)
    fit_source.add_argument("--input", metavar="FILE",
                            help="labelled documents (mcd, film) or documents with ids (linklearn, relative)")
    fit_source.add_argument("--pairs", metavar="FILE",
                            help="duplicate pairs: label<TAB>text1<TAB>text2<TAB>pair_id per line")
    fit.add_argument("--columns", metavar="SPEC", default=None,
                     help="--pairs: which 0-based fields (or header names) hold what, e.g. "
                          "label=0,text_a=3,text_b=4")
    fit.add_argument("--model", required=True, metavar="OUT.npz", help="model file to write")
    fit.add_argument("--links", metavar="FILE", default=None,
                     help="linklearn: hyperlinks, source_id<TAB>target_id per line")
    fit.add_argument("--triplets", metavar="FILE", default=None,
                     help="relative: anchor_id<TAB>closer_id<TAB>farther_id per line")
    fit.add_argument("--clicks", metavar="FILE", default=None,
                     help="relative: query_text<TAB>clicked_id<TAB>skipped_id per line")
    fit.add_argument("--method", choices=("mcd", "film", "linklearn", "relative"), default="mcd",
                     help="minimum cluster distortion (mcd, default), FILM (film), LinkLearn (linklearn) or "
                          "relative comparisons (relative)")
    fit.add_argument("--weighting", choices=("tfidf", "bm25", "tf", "binary"), default=None,
                     help="mcd / film: term weighting (default: tfidf); relative: (default: binary)")
    fit.add_argument("--lsi", type=_lsi, default=None, metavar="N_OR_FRACTION",
                     help="reduce the term vectors to N LSI dimensions (or a fraction of the vocabulary)")
    fit.add_argument("--no-norm", action="store_true", help="do not L2-normalise the term vectors")
    fit.add_argument("--paper", action="store_true",
                     help="mcd: the paper's metric exactly: full space, pseudo-inverse, nothing outside "
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
                          "(input-cosine weight, duplicate threshold, calibration; default: 0.2)")
    fit.add_argument("--stop-words", choices=("english",), default=None, help="drop English stop words")
    fit.add_argument("--stem", action=argparse.BooleanOptionalAction, default=None,
                     help="Porter stemming (needs PyStemmer: pip install learnsim[stem]); default: on for "
                          "linklearn when PyStemmer is installed (a note says when it is not), off otherwise")
    fit.add_argument("--seed", type=_seed, default=0, metavar="N",
                     help="seed of the selection folds and randomised SVDs (default: 0)")
    fit.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    _add_encoding_errors(fit)
    fit.set_defaults(handler=run)
    return fit


# The options that belong to some methods only, as dest -> (flag, methods): giving one with
# another method is a mistake.
_METHOD_OPTIONS = {
    "paper": ("--paper", {"mcd"}), "n_basis": ("--n-basis", {"mcd"}), "shrinkage": ("--shrinkage", {"mcd"}),
    "complement_weight": ("--complement-weight", {"mcd"}),
    "n_components": ("--dimensions", {"film"}), "svd_rank": ("--svd-rank", {"film"}),
    "max_iter": ("--max-iter", {"film", "linklearn"}),
    "pairs": ("--pairs", {"mcd", "film"}), "columns": ("--columns", {"mcd", "film"}), "weighting": ("--weighting", {"mcd", "film", "relative"}),
    "triplets": ("--triplets", {"relative"}), "clicks": ("--clicks", {"relative"}),
    "lsi": ("--lsi", {"mcd", "film"}), "no_norm": ("--no-norm", {"mcd", "film"}),
    "links": ("--links", {"linklearn"}), "learning_rate": ("--learning-rate", {"linklearn"}),
    "validation_fraction": ("--validation-fraction", {"linklearn", "film", "relative"}),
}
# FILM's n_components when --dimensions is not given (the paper's d), capped by the data.
_DEFAULT_FILM_DIMENSIONS = 100
# FILM on pairs: the share of the pairs held out to choose the matching rule (as the FILM
# reproduction) and the neighbours among which each anchor's hard negative is drawn.
_DEFAULT_PAIRS_VALIDATION_FRACTION = 0.2
_FILM_NEIGHBOURS = 10


def _check_method_options(args):
    given = [(flag, methods) for dest, (flag, methods) in _METHOD_OPTIONS.items()
             if getattr(args, dest) not in (None, False) and args.method not in methods]
    if given:
        flags = " and ".join(flag for flag, _ in given)
        owners = sorted(set().union(*(methods for _, methods in given)))
        raise UsageError(f"{flags} apply to --method {' / '.join(owners)} only, not to --method {args.method}")
    if args.method == "relative" and args.triplets is not None and args.clicks is not None:
        raise UsageError("give --triplets or --clicks, not both")
    if args.method == "relative" and args.input is None:
        raise UsageError("--method relative needs --input FILE (id<TAB>text per line): the documents the "
                         "triplets name")
    if args.method == "linklearn" and args.links is None:
        raise UsageError("--method linklearn needs --links FILE (source_id<TAB>target_id per line)")


def _mcd_settings(args):
    from ..mcd import PAPER_PARAMS

    explicit = {"n_basis": args.n_basis, "shrinkage": args.shrinkage,
                "complement_weight": args.complement_weight}
    if args.paper:
        clash = [f"--{k.replace('_', '-')}" for k, v in explicit.items() if v is not None]
        if clash:
            raise UsageError(f"--paper fixes n_basis=none, shrinkage=0 and complement_weight=0; "
                             f"drop {' and '.join(clash)} or --paper")
        return dict(PAPER_PARAMS)
    return {k: ("auto" if v is None else v) for k, v in explicit.items()}




def _film_triplets(pairs, X, seed):
    """Triplets from duplicate pairs, without the texts that have no vocabulary term (FILM
    L2-normalises every row it learns from). Each duplicate direction gets the anchor's labelled
    non-duplicate partner, a random negative and a hard one: a non-duplicate among the anchor's
    10 nearest texts by the input cosine (as in the FILM reproduction)."""
    from ..search import top_k
    from ..supervision import duplicate_pairs_to_triplets
    from ..text import find_empty_rows

    n_neighbours = min(_FILM_NEIGHBOURS, X.shape[0] - 1)
    with stage("FILM: finding each text's nearest texts (hard negatives)"):
        neighbours = top_k(X, X, n_neighbours, metric="cosine", exclude_self=True, return_scores=False) \
            if n_neighbours >= 1 else None
    T = duplicate_pairs_to_triplets(pairs, n_items=X.shape[0], random_state=seed, neighbors=neighbours,
                                    n_hard_negatives=1 if neighbours is not None else 0).indices
    empty = find_empty_rows(X)
    if empty.size:
        unusable = np.isin(T, empty).any(axis=1)
        if unusable.any():
            _note(f"{int(unusable.sum())} of {len(T)} triplets use one of the {empty.size} text(s) without "
                  "a vocabulary term; they are left out")
            T = T[~unusable]
    if len(T) == 0:
        raise UsageError("no usable triplet: every triplet uses a text without a vocabulary term")
    return T


def _split_validation_pairs(pairs, args):
    """(training pairs, held-out pairs): the held-out ones choose FILM's matching rule."""
    from ..supervision import split_pairs

    fraction = args.validation_fraction or _DEFAULT_PAIRS_VALIDATION_FRACTION
    if not pairs.labels.any():
        raise UsageError("no duplicate pair (label 1): FILM learns from duplicates")
    if pairs.n_pairs < 4:
        raise UsageError(f"{pairs.n_pairs} pair(s) are too few: FILM learns from some and holds out "
                         f"{fraction:g} of them to choose its duplicate threshold")
    train, held = split_pairs(pairs, held_out=fraction, random_state=args.seed)
    if held.labels.all() or not held.labels.any():
        raise UsageError(f"the {held.n_pairs} held-out pair(s) (--validation-fraction {fraction:g}) are all "
                         f"{'duplicates' if held.labels.all() else 'non-duplicates'}; the duplicate threshold "
                         "needs both kinds: give more pairs or a larger --validation-fraction")
    if not train.labels.any():
        raise UsageError("no duplicate pair is left to learn from after holding out the validation pairs")
    return train, held


def _validated_matcher(metric, X, held):
    """ThresholdMatcher(input_weight="auto") fitted on the held-out pairs: the mixing weight of
    the input cosine, the duplicate threshold and the Platt calibration. It keeps only the rows
    of those pairs as its collection (the model file stays small)."""
    from ..matching import ThresholdMatcher
    from ..supervision import Pairs

    rows, inverse = np.unique(held.indices, return_inverse=True)
    local = Pairs(inverse.reshape(held.indices.shape), labels=held.labels)
    return ThresholdMatcher(metric, input_weight="auto").fit(X[rows], local)


def _validated_search(metric, X, held, all_pairs):
    """The search weight of FILM's input-cosine mix, chosen on the held-out duplicates: each of
    their texts searches the whole collection; its duplicates are the texts that chains of
    duplicate pairs (all of them) join to it."""
    from ..supervision import pairs_to_clusters
    from ..scoring import SearchRule

    components = np.asarray(pairs_to_clusters(all_pairs, X.shape[0]).labels)
    queries = np.unique(held.indices[held.labels].ravel())
    queries = queries[components[queries] >= 0]
    return SearchRule.select(metric, X, queries, components)


def run(args):
    from ..text import TextVectorizer

    _check_method_options(args)
    settings = _mcd_settings(args) if args.method == "mcd" else None
    model_path = _check_output_file(args.model, "--model")

    summary = {"model": str(model_path), "method": args.method}
    if args.method == "linklearn":
        from ._fit_links import fit_linklearn

        return fit_linklearn(args, model_path, summary)
    if args.method == "relative":
        from ._fit_relative import fit_relative

        return fit_relative(args, model_path, summary)
    args.weighting = args.weighting or "tfidf"
    pairs = labels = None
    if args.pairs is not None:
        data = _read_pairs(args.pairs, args.encoding_errors, args.columns)
        texts, pairs = data.texts, data.pairs
        summary.update(documents=len(texts), pairs=pairs.n_pairs, duplicate_pairs=int(pairs.labels.sum()))
    else:
        docs, labels, names, n_singletons = _read_clusters(args.input, args.encoding_errors)
        if n_singletons:
            _note(f"{n_singletons} label(s) with a single document are treated as unlabelled (-1)")
        texts = docs.texts
        summary.update(documents=len(docs), clustered_documents=int((labels >= 0).sum()),
                       clusters=len(names), single_document_labels=n_singletons)
    vectorizer = TextVectorizer(weighting=args.weighting, norm=None if args.no_norm else "l2",
                                stop_words=args.stop_words, stem="porter" if args.stem else None,
                                n_components=args.lsi, random_state=args.seed)
    start = time.perf_counter()
    X = vectorizer.fit_transform(texts)
    X = X.astype(np.float64) if X.dtype != np.float64 else X
    vec_seconds = time.perf_counter() - start
    summary.update(features=int(X.shape[1]), weighting=args.weighting, lsi_components=vectorizer.n_components_)

    held = None
    if args.method == "mcd":
        metric, y = _mcd_with_supervision(args, settings, X, labels, pairs, summary)
    else:
        if pairs is not None:
            all_pairs = pairs
            pairs, held = _split_validation_pairs(pairs, args)
        metric, y = _film_with_supervision(args, X, labels, pairs)
    start = time.perf_counter()
    with stage(f"{'FILM' if args.method == 'film' else 'mcd'}: learning the metric"):
        metric.fit(X, y)
    parts = {"vectorizer": vectorizer, "metric": metric}
    if held is not None:
        with stage("FILM: choosing the duplicate and search rules on held-out pairs"):
            parts["matcher"] = matcher = _validated_matcher(metric, X, held)
            parts["search"] = search = _validated_search(metric, X, held, all_pairs)
        summary.update(validation_pairs=held.n_pairs, input_weight=matcher.input_weight_,
                       threshold=matcher.threshold_, validation_accuracy=matcher.validation_accuracy_)
        summary.update(search_input_weight=search.input_weight,
                       search_validation_recall_at_1=float(search.weight_scores.max()))
    metric_seconds = time.perf_counter() - start
    if args.method == "mcd":
        summary.update(n_basis=metric.n_basis_, shrinkage=metric.shrinkage_,
                       complement_weight=metric.complement_weight_, solver=metric.solver_)
    else:
        summary.update(n_components=int(metric.n_components), svd_rank=metric.svd_rank_,
                       triplets=metric.n_triplets_, n_iter=metric.n_iter_, converged=metric.converged_)

    _save_model(parts, model_path)
    summary.update(vectorizer_seconds=vec_seconds, metric_seconds=metric_seconds,
                   fit_seconds=vec_seconds + metric_seconds)
    if args.json:
        _print_json(summary)
        return 0
    features = (f"{summary['features']} features ({args.weighting}"
                f"{', LSI' if vectorizer.n_components_ else ''})")
    if pairs is not None:
        print(f"Fitted on {summary['pairs']} pairs ({summary['duplicate_pairs']} duplicates) of "
              f"{summary['documents']} distinct texts, {features}.")
    else:
        print(f"Fitted on {summary['documents']} documents ({summary['clustered_documents']} in "
              f"{summary['clusters']} clusters), {features}.")
    if args.method == "mcd":
        print(f"Metric: n_basis={summary['n_basis']}, shrinkage={summary['shrinkage']:g}, "
              f"complement_weight={summary['complement_weight']:g} (solver {summary['solver']}).")
    else:
        print(f"Metric: FILM, {summary['n_components']} dimensions, svd_rank={summary['svd_rank']}, "
              f"{summary['triplets']} triplets, {summary['n_iter']} iterations "
              f"({'converged' if summary['converged'] else 'not converged'}).")
    if held is not None:
        w = summary["input_weight"]
        print(f"Matching rule chosen on {held.n_pairs} held-out pairs: similarity = {w:g} x input cosine + "
              f"{1 - w:g} x learned cosine, duplicate from {summary['threshold']:.4f} (validation accuracy "
              f"{summary['validation_accuracy']:.3f}); 'learnsim match' uses it.")
        print(f"Search rule chosen on the held-out duplicates: {summary['search_input_weight']:g} x input cosine + "
              f"{1 - summary['search_input_weight']:g} x learned cosine (validation recall@1 "
              f"{summary['search_validation_recall_at_1']:.3f}); 'learnsim search' uses it.")
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, metric "
          f"{metric_seconds:.2f} s); saved {model_path}.")
    return 0


def _mcd_with_supervision(args, settings, X, labels, pairs, summary):
    """The MinimumClusterDistortion to fit and the clusters to fit it on."""
    from ..mcd import MinimumClusterDistortion
    from ..supervision import pairs_to_clusters

    if pairs is not None:
        # the groups of texts that chains of duplicate pairs join are the clusters
        labels = np.asarray(pairs_to_clusters(pairs, X.shape[0]).labels)
        summary.update(clustered_documents=int((labels >= 0).sum()),
                       clusters=int(np.unique(labels[labels >= 0]).size))
    # progress bars of the selection show on a terminal (see learnsim._progress)
    metric = MinimumClusterDistortion(**settings, random_state=args.seed)
    return metric, labels


def _film_with_supervision(args, X, labels, pairs):
    """The FILM to fit and what to fit it on: the cluster labels (FILM draws its triplets from
    them) or triplets made of the duplicate pairs."""
    from .._progress import _default_enabled
    from ..film import FILM

    y = labels if pairs is None else _film_triplets(pairs, X, args.seed)
    most = min(X.shape)
    d = args.n_components
    if d is None:
        d = min(_DEFAULT_FILM_DIMENSIONS, most)
        if d < _DEFAULT_FILM_DIMENSIONS:
            _note(f"using {d} dimensions: FILM learns at most min(documents, features) = {most}")
    settings = {"n_components": d, "svd_rank": args.svd_rank}
    if args.max_iter is not None:
        settings["max_iter"] = args.max_iter
    metric = FILM(**settings, random_state=args.seed, verbose=_default_enabled())
    return metric, y
