"""``learnsim fit``: learn a metric or a term weighting and save it with its vectoriser."""
from __future__ import annotations

import textwrap
import time
from pathlib import Path

import numpy as np

from ._common import (_add_encoding_errors, DocumentFormatError, read_documents, UsageError, _formatter, _examples, _int_at_least, _positive_int, _seed, _lsi, _n_basis,
                      _auto_or_float, _open_float, _print_json, _note, _read_clusters, _read_pairs,
                      progress)

def register(commands):
    """Add the command's parser to ``commands``."""
    fit = commands.add_parser(
        "fit", formatter_class=_formatter, help="learn a metric from labelled documents or pairs",
        description=textwrap.dedent("""\
            Fit a text vectoriser and a metric - minimum cluster distortion (--method mcd, the
            default), FILM (--method film) or the LinkLearn term weighting (--method linklearn)
            - and save both into one model file.

            --input: label<TAB>text per line (.tsv or .txt; a header line label<TAB>text is
            skipped) or JSON Lines (.jsonl) with {"text": ..., "label": ...}. Documents of
            label -1 belong to no cluster: they shape the features and the basis but are not
            supervision. A label with a single document is treated as -1. FILM draws its
            triplets (i, j, k: i is closer to j than to k) from these clusters.

            --pairs: duplicate / non-duplicate pairs in the Quora sample layout,
            label<TAB>text1<TAB>text2<TAB>pair_id per line (label 1 = duplicate; an optional
            header). FILM learns from triplets made of them (a duplicate pair with a labelled
            and a random negative); mcd learns from the groups of duplicates they form.

            --method linklearn learns from hyperlinks: --input is then a collection with ids
            (id<TAB>text per line, or .jsonl with "id"), --links a file of source_id<TAB>target_id
            lines (direction is ignored). A seeded --validation-fraction of the documents (and
            the links among them) is held out for early stopping on average precision; links
            between the two parts are dropped. Term counts, Porter stemming and an English stop
            list by default, terms found in a single document dropped (paper 002, sec. 4.1)."""),
        epilog=_examples("learnsim fit --input train.tsv --model model.npz",
                         "learnsim fit --input train.jsonl --model model.npz --stop-words english --stem",
                         "learnsim fit --input train.tsv --model paper.npz --paper --lsi 300",
                         "learnsim fit --input train.tsv --model m.npz --n-basis 64 --shrinkage 0.1 "
                         "--complement-weight 1 --json",
                         "learnsim fit --method film --pairs quora.tsv --model film.npz --dimensions 100",
                         "learnsim fit --method linklearn --input pages.tsv --links links.tsv --model ll.npz"))
    fit_source = fit.add_mutually_exclusive_group(required=True)
    fit_source.add_argument("--input", metavar="FILE", help="labelled documents (.tsv, .txt or .jsonl)")
    fit_source.add_argument("--pairs", metavar="FILE",
                            help="duplicate pairs: label<TAB>text1<TAB>text2<TAB>pair_id per line")
    fit.add_argument("--model", required=True, metavar="OUT.npz", help="model file to write")
    fit.add_argument("--links", metavar="FILE", default=None,
                     help="linklearn: hyperlinks, source_id<TAB>target_id per line")
    fit.add_argument("--method", choices=("mcd", "film", "linklearn"), default="mcd",
                     help="minimum cluster distortion (mcd, default), FILM (film) or LinkLearn (linklearn)")
    fit.add_argument("--weighting", choices=("tfidf", "bm25", "tf", "binary"), default=None,
                     help="mcd / film: term weighting (default: tfidf)")
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
                          "film with --pairs: share of the pairs held out to choose the matching rule "
                          "(input-cosine weight, duplicate threshold, calibration; default: 0.2)")
    fit.add_argument("--stop-words", choices=("english",), default=None, help="drop English stop words")
    fit.add_argument("--stem", action="store_true",
                     help="Porter stemming (needs PyStemmer: pip install learnsim[stem])")
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
    "pairs": ("--pairs", {"mcd", "film"}), "weighting": ("--weighting", {"mcd", "film"}),
    "lsi": ("--lsi", {"mcd", "film"}), "no_norm": ("--no-norm", {"mcd", "film"}),
    "links": ("--links", {"linklearn"}), "learning_rate": ("--learning-rate", {"linklearn"}),
    "validation_fraction": ("--validation-fraction", {"linklearn", "film"}),
}
# FILM's n_components when --dimensions is not given (the paper's d), capped by the data.
_DEFAULT_FILM_DIMENSIONS = 100
# LinkLearn's settings when not given: the learning rate chosen on Wikispeedia's validation
# third (docs/reproductions/linklearn.md) and the share of documents held out for early stopping.
_DEFAULT_LINKLEARN_RATE = 0.03
_DEFAULT_VALIDATION_FRACTION = 0.25
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
    from ._scoring import SearchRule

    components = np.asarray(pairs_to_clusters(all_pairs, X.shape[0]).labels)
    queries = np.unique(held.indices[held.labels].ravel())
    queries = queries[components[queries] >= 0]
    return SearchRule.select(metric, X, queries, components)


def run(args):
    from ..persistence import save
    from ..text import TextVectorizer

    _check_method_options(args)
    settings = _mcd_settings(args) if args.method == "mcd" else None
    model_path = Path(args.model)
    if model_path.is_dir():
        raise UsageError(f"--model {model_path} is a folder; give a file name such as model.npz")

    summary = {"model": str(model_path), "method": args.method}
    if args.method == "linklearn":
        return _fit_linklearn(args, model_path, summary)
    args.weighting = args.weighting or "tfidf"
    pairs = labels = None
    if args.pairs is not None:
        data = _read_pairs(args.pairs, args.encoding_errors)
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
    metric.fit(X, y)
    parts = {"vectorizer": vectorizer, "metric": metric}
    if held is not None:
        parts["matcher"] = matcher = _validated_matcher(metric, X, held)
        summary.update(validation_pairs=held.n_pairs, input_weight=matcher.input_weight_,
                       threshold=matcher.threshold_, validation_accuracy=matcher.validation_accuracy_)
        parts["search"] = search = _validated_search(metric, X, held, all_pairs)
        summary.update(search_input_weight=search.input_weight,
                       search_validation_recall_at_1=float(search.weight_scores.max()))
    metric_seconds = time.perf_counter() - start
    if args.method == "mcd":
        summary.update(n_basis=metric.n_basis_, shrinkage=metric.shrinkage_,
                       complement_weight=metric.complement_weight_, solver=metric.solver_)
    else:
        summary.update(n_components=int(metric.n_components), svd_rank=metric.svd_rank_,
                       triplets=metric.n_triplets_, n_iter=metric.n_iter_, converged=metric.converged_)

    model_path.parent.mkdir(parents=True, exist_ok=True)
    save(parts, model_path)
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


def _read_links(path, ids, encoding_errors="replace"):
    """Hyperlinks source_id<TAB>target_id between the documents ``ids``, as Links."""
    from ..io import _lines
    from ..supervision import Links

    position = {doc_id: i for i, doc_id in enumerate(ids)}
    edges = []
    for number, line in _lines(path, encoding_errors):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            raise DocumentFormatError(f"{path}, line {number}: expected source_id<TAB>target_id, got {line[:60]!r}")
        source, target = (f.strip() for f in fields)
        if number == 1 and (source, target) == ("source", "target") and "source" not in position:
            continue
        for doc_id in (source, target):
            if doc_id not in position:
                raise UsageError(f"{path}, line {number}: link to unknown document {doc_id!r} (not an id of "
                                 "--input)")
        if source != target:        # a page linking to itself says nothing about similarity
            edges.append((position[source], position[target]))
    if not edges:
        raise UsageError(f"{path}: no link between two different documents; LinkLearn learns from links")
    return Links.from_edges(np.asarray(edges, dtype=np.int64), len(ids))


def _unique_ids(path, docs, what="--method linklearn needs"):
    """Every document has an id, and no two the same (the links name them)."""
    missing = [i for i, doc_id in enumerate(docs.ids) if doc_id is None]
    if missing:
        raise UsageError(f"{path}: {what} an id for every document (id<TAB>text, or "
                         f'"id" in .jsonl); document {missing[0] + 1} has none')
    seen = {}
    for i, doc_id in enumerate(docs.ids):
        if doc_id in seen:
            raise UsageError(f"{path}: id {doc_id!r} is used by documents {seen[doc_id] + 1} and {i + 1}")
        seen[doc_id] = i


def _fit_linklearn(args, model_path, summary):
    """--method linklearn: term counts of the --input documents, the --links among them, a
    held-out share for early stopping, and the learned weighting saved with its vectoriser."""
    import scipy.sparse as sp

    from .._progress import _default_enabled
    from ..linklearn import LinkLearn
    from ..persistence import save
    from ..supervision import Links, split_links
    from ..text import TextVectorizer, find_empty_rows

    docs = read_documents(args.input, encoding_errors=args.encoding_errors)
    _unique_ids(args.input, docs)
    links = _read_links(Path(args.links), docs.ids, args.encoding_errors)
    vectorizer = TextVectorizer("tf", stop_words=args.stop_words or "english",
                                stem="porter" if args.stem else None, min_df=2, dtype=np.float64)
    start = time.perf_counter()
    X = sp.csr_matrix(vectorizer.fit_transform(docs.texts), dtype=np.float64)
    vec_seconds = time.perf_counter() - start
    fraction = args.validation_fraction or _DEFAULT_VALIDATION_FRACTION
    try:
        (train, L_train), (valid, L_valid) = split_links(links, fractions=(1.0 - fraction, fraction),
                                                         random_state=args.seed)
    except ValueError as exc:
        raise UsageError(f"cannot hold out {fraction:g} of the documents for early stopping: {exc}") from None
    X_train = X[train]
    empty = find_empty_rows(X_train)
    if empty.size:
        _note(f"{empty.size} training document(s) have no vocabulary term; they and their links are left out")
        keep = np.setdiff1d(np.arange(X_train.shape[0]), empty)
        X_train, L_train = X_train[keep], Links(L_train.adjacency[keep][:, keep])
    settings = {"learning_rate": args.learning_rate or _DEFAULT_LINKLEARN_RATE}
    if args.max_iter is not None:
        settings["max_iter"] = args.max_iter
    metric = LinkLearn(**settings, random_state=args.seed, verbose=_default_enabled())
    start = time.perf_counter()
    try:
        metric.fit(X_train, L_train, validation=(X[valid], L_valid))
    except ValueError as exc:
        raise UsageError(f"LinkLearn cannot learn from these links: {exc}") from None
    metric_seconds = time.perf_counter() - start
    model_path.parent.mkdir(parents=True, exist_ok=True)
    save({"vectorizer": vectorizer, "metric": metric}, model_path)
    curve = metric.validation_curve_
    summary.update(documents=len(docs), links=links.n_links, features=int(X.shape[1]),
                   train_documents=int(X_train.shape[0]), train_links=L_train.n_links,
                   validation_documents=int(valid.size), validation_links=L_valid.n_links,
                   learning_rate=settings["learning_rate"], n_iter=metric.n_iter_, best_iter=metric.best_iter_,
                   validation_ap=float(np.max(curve["ap"])) if curve is not None else None,
                   vectorizer_seconds=vec_seconds, metric_seconds=metric_seconds,
                   fit_seconds=vec_seconds + metric_seconds)
    if args.json:
        _print_json(summary)
        return 0
    print(f"Fitted on {summary['documents']} documents with {summary['links']} links, {summary['features']} "
          f"terms: {summary['train_documents']} documents ({summary['train_links']} links) to learn from, "
          f"{summary['validation_documents']} ({summary['validation_links']} links) for early stopping.")
    print(f"LinkLearn: learning rate {settings['learning_rate']:g}, best validation AvgP "
          f"{summary['validation_ap']:.3f} after {metric.best_iter_} of {metric.n_iter_} drawn documents.")
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, weighting "
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
