"""The ``learnsim`` command line: ``demo``, ``fit``, ``search``, ``evaluate``, ``explain``, ``reproduce``.

Every command prints a human summary on stdout, or with ``--json`` one JSON document on stdout
and nothing else there (notes, warnings and progress bars go to stderr). A user error (a
missing or malformed file, a bad option) exits with status 2 and a one-line message; set
``--debug`` (before the command) to see the traceback instead.
"""
from __future__ import annotations

import argparse
import copy
import importlib
import json
import math
import sys
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np

from . import __version__
from ._progress import progress
from .io import DocumentFormatError, read_documents, read_labelled_documents

__all__ = ["main", "build_parser"]

RETRIEVAL_MEASURES = ("ap11", "r_precision", "map", "p@10")
MEASURE_TITLES = {"ap11": "11-pt AP", "r_precision": "R-prec", "map": "MAP", "p@10": "P@10"}
_FALLBACK_EXPERIMENTS = ("mochihashi",)
# Above this many entries a dense embedding of a corpus (transform with complement_weight > 0
# keeps every feature) is not built; distances are then computed block by block instead.
_MAX_EMBEDDING_ENTRIES = 10_000_000
# Entries of one (queries x corpus) block of distances.
_BLOCK_ENTRIES = 2 ** 22
_SNIPPET_CHARS = 80


class UsageError(Exception):
    """A mistake in how the command was called: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake in one line (and exit status 2), not usage + error."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _formatter(prog):
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=32)


# --------------------------------------------------------------------------- option types

def _int_at_least(minimum, what):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value
    return parse


_positive_int = _int_at_least(1, "a positive integer")
_seed = _int_at_least(0, "a non-negative integer")


def _lsi(text):
    """An LSI dimension (integer >= 1) or a fraction of the vocabulary in (0, 1)."""
    msg = f"expected a number of dimensions (integer >= 1) or a fraction of the vocabulary in (0, 1), got {text!r}"
    try:
        value = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(msg) from None
        if not 0.0 < value < 1.0:
            raise argparse.ArgumentTypeError(msg)
        return value
    if value < 1:
        raise argparse.ArgumentTypeError(msg)
    return value


def _n_basis(text):
    low = text.strip().lower()
    if low == "auto":
        return "auto"
    if low == "none":
        return None
    try:
        return _positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, 'auto' or 'none', got {text!r}") from None


def _auto_or_float(low, high, what):
    def parse(text):
        if text.strip().lower() == "auto":
            return "auto"
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value >= low and (high is None or value <= high)):
            raise argparse.ArgumentTypeError(f"expected {what} or 'auto', got {text!r}")
        return value
    return parse


def _open_float(low, high, what):
    """A number strictly between low and high (high None: no upper bound)."""
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value > low and (high is None or value < high)):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value
    return parse


# --------------------------------------------------------------------------- the parser

def _experiments():
    """Names accepted by ``learnsim reproduce``: learnsim.reproduce.EXPERIMENTS when it exists."""
    try:
        module = importlib.import_module("learnsim.reproduce")
    except ImportError:
        return _FALLBACK_EXPERIMENTS
    names = getattr(module, "EXPERIMENTS", None)
    return tuple(names) if names else _FALLBACK_EXPERIMENTS


def _examples(*lines):
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def build_parser():
    """The argparse parser of the ``learnsim`` command."""
    parser = _Parser(
        prog="learnsim", formatter_class=_formatter,
        description="Learn a task-specific similarity for text from clusters of documents, "
                    "search with it and evaluate it.",
        epilog=_examples("learnsim demo                          # the whole job on a synthetic corpus",
                         "learnsim fit --input train.tsv --model model.npz",
                         "learnsim search --model model.npz --corpus docs.tsv --query 'space shuttle'",
                         "learnsim evaluate --model model.npz --input test.tsv",
                         "learnsim explain --model model.npz --pair 'first text' 'second text'",
                         "learnsim reproduce mochihashi --quick",
                         "",
                         "Run 'learnsim COMMAND --help' for the options of a command."))
    parser.add_argument("--version", action="version", version=f"learnsim {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error instead of a one-line message")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    # demo ---------------------------------------------------------------------------------
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
    demo.set_defaults(handler=_cmd_demo)

    # fit ----------------------------------------------------------------------------------
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
                     help="linklearn: share of the documents held out for early stopping (default: 0.25)")
    fit.add_argument("--stop-words", choices=("english",), default=None, help="drop English stop words")
    fit.add_argument("--stem", action="store_true",
                     help="Porter stemming (needs PyStemmer: pip install learnsim[stem])")
    fit.add_argument("--seed", type=_seed, default=0, metavar="N",
                     help="seed of the selection folds and randomised SVDs (default: 0)")
    fit.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    fit.set_defaults(handler=_cmd_fit)

    # search -------------------------------------------------------------------------------
    search = commands.add_parser(
        "search", formatter_class=_formatter, help="rank a corpus by the learned distance",
        description=textwrap.dedent("""\
            Rank the documents of a corpus by their learned distance to each query and print the
            k nearest. The corpus may be unlabelled: id<TAB>text per line (.tsv), one document
            per line (.txt without TABs), or JSON Lines (.jsonl) with {"text": ..., "id": ...}.
            A --queries file has the same formats."""),
        epilog=_examples("learnsim search --model model.npz --corpus docs.tsv --query 'space shuttle launch'",
                         "learnsim search --model model.npz --corpus docs.jsonl --query 'gpu driver' "
                         "--query 'hockey playoffs' -k 5",
                         "learnsim search --model model.npz --corpus docs.txt --queries queries.txt --json"))
    search.add_argument("--model", required=True, metavar="M.npz", help="model file written by 'learnsim fit'")
    search.add_argument("--corpus", required=True, metavar="FILE", help="documents to search")
    source = search.add_mutually_exclusive_group(required=True)
    source.add_argument("--query", action="append", metavar="TEXT", help="a query (repeat for several)")
    source.add_argument("--queries", metavar="FILE", help="a file of queries (formats as --corpus)")
    search.add_argument("-k", "--k", type=_positive_int, default=10, metavar="K",
                        help="number of hits per query (default: 10)")
    search.add_argument("--json", action="store_true",
                        help="print [{query, hits: [{rank, index, id, distance, text}]}] as JSON")
    search.set_defaults(handler=_cmd_search)

    # evaluate -----------------------------------------------------------------------------
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
    evaluate.set_defaults(handler=_cmd_evaluate)

    # explain ------------------------------------------------------------------------------
    explain = commands.add_parser(
        "explain", formatter_class=_formatter, help="the words behind a learned metric and a pair's similarity",
        description=textwrap.dedent("""\
            Print, for each learned dimension (row l of the map L, y = L x; all of them or the
            --dimension ones), the words with the largest positive and negative weights: the
            FILM paper's Figure 5. With --pair, explain the similarity of two texts instead:
            their cosine in the learned space splits exactly into what each pair of words
            (one of each text), each word and each learned dimension adds. Works for the FILM
            and minimum-cluster-distortion models 'learnsim fit' writes; with LSI the weights
            are mapped back to the words."""),
        epilog=_examples("learnsim explain --model film.npz --dimension 0 --dimension 1",
                         "learnsim explain --model film.npz --top 20 --json > dimensions.json",
                         "learnsim explain --model film.npz --pair 'how do I learn python' "
                         "'what is the best way to learn python'"))
    explain.add_argument("--model", required=True, metavar="M.npz", help="model file written by 'learnsim fit'")
    explain.add_argument("--dimension", action="append", type=_seed, metavar="N", dest="dimensions",
                         help="a learned dimension to describe, from 0 (repeat for several; default: all, "
                              "or none with --pair)")
    explain.add_argument("--top", type=_positive_int, default=10, metavar="K",
                         help="words listed per sign and dimension, and per list of --pair (default: 10)")
    explain.add_argument("--pair", nargs=2, metavar=("TEXT_A", "TEXT_B"), default=None,
                         help="two texts whose similarity to explain")
    explain.add_argument("--json", action="store_true", help="print the explanation as JSON on stdout")
    explain.set_defaults(handler=_cmd_explain)

    # reproduce ----------------------------------------------------------------------------
    names = _experiments()
    reproduce = commands.add_parser(
        "reproduce", formatter_class=_formatter, help="reproduce a paper's experiments",
        description=textwrap.dedent(f"""\
            Run the experiments of a paper on the real corpora and write a markdown report, the
            JSON records and plots into OUT. Experiments: {', '.join(names)}. Corpora are read
            from --data-dir, else from the LEARNSIM_DATA environment variable, else from
            ../shared/data."""),
        epilog=_examples("learnsim reproduce mochihashi --quick",
                         "learnsim reproduce mochihashi --out report/ --json report/records.json",
                         "LEARNSIM_DATA=/data/corpora learnsim reproduce mochihashi"))
    reproduce.add_argument("name", metavar="NAME", choices=names, help=f"the experiment: {', '.join(names)}")
    reproduce.add_argument("--quick", action="store_true", help="a smaller, faster version of every experiment")
    reproduce.add_argument("--out", metavar="DIR", default=None, help="output folder")
    reproduce.add_argument("--json", metavar="PATH", default=None, dest="json_path",
                           help="also write the result records to this JSON file")
    reproduce.add_argument("--data-dir", metavar="DIR", default=None,
                           help="folder holding the corpora (default: $LEARNSIM_DATA)")
    reproduce.add_argument("--encoder", metavar="MODEL_DIR", default=None,
                           help="film only: a local sentence-transformers model folder; adds the dense-encoder "
                                "rows (the paper's FILM-BERT). Needs pip install learnsim[dense]")
    reproduce.set_defaults(handler=_cmd_reproduce)
    return parser


# --------------------------------------------------------------------------- output helpers

def _clean_json(obj):
    """Make ``obj`` JSON-serialisable: numpy scalars and arrays, paths, and NaN/inf as null."""
    if isinstance(obj, dict):
        return {str(k): _clean_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean_json(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _clean_json(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    if isinstance(obj, Path):
        return str(obj)
    return obj


def _print_json(obj):
    print(json.dumps(_clean_json(obj), indent=1, ensure_ascii=False))


def _note(message):
    print(f"learnsim: {message}", file=sys.stderr)


def _table(header, rows, align=None):
    """Plain-text table; ``align`` has one "<" or ">" per column (default: the first column
    left-aligned, the others right-aligned)."""
    align = align or "<" + ">" * (len(header) - 1)
    cells = [list(map(str, header))] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[j]) for row in cells) for j in range(len(header))]
    lines = []
    for i, row in enumerate(cells):
        parts = [c.ljust(w) if a == "<" else c.rjust(w) for c, w, a in zip(row, widths, align)]
        lines.append("  ".join(parts).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _fmt(value, spec=".3f"):
    return "-" if value is None or (isinstance(value, float) and not math.isfinite(value)) else format(value, spec)


def _snippet(text, n=_SNIPPET_CHARS):
    flat = " ".join(text.split())
    return flat if len(flat) <= n else flat[: n - 3].rstrip() + "..."


# --------------------------------------------------------------------------- model helpers

def _load_model(path):
    from .persistence import load

    path = Path(path)
    model = load(path)
    if not isinstance(model, dict) or not {"vectorizer", "metric"} <= set(model):
        held = sorted(model) if isinstance(model, dict) else [type(model).__name__]
        raise UsageError(f"{path} is not a model written by 'learnsim fit' (it holds {held}, "
                         "expected 'vectorizer' and 'metric')")
    return model["vectorizer"], model["metric"]


def _vectorize(vectorizer, texts):
    """Document vectors as float64 (the metrics compute distances in float64)."""
    X = vectorizer.transform(texts)
    return X.astype(np.float64) if X.dtype != np.float64 else X


class _LearnedDistances:
    """Distances under a fitted metric from query rows to a fixed corpus, block by block.

    When the metric's embedding (``transform``) is small - always when it keeps no component
    outside its basis - the corpus is embedded once and each block is a Euclidean distance
    there; otherwise each block calls ``metric.pairwise_distances``.
    """

    def __init__(self, metric, corpus):
        self.metric = metric
        self.corpus = corpus
        n, d = corpus.shape
        cheap = getattr(metric, "residual_weight_", None) == 0.0 or n * d <= _MAX_EMBEDDING_ENTRIES
        self.embedded = None
        if cheap:
            self.embedded = np.asarray(metric.transform(corpus), dtype=np.float64)
            self.sq_norms = np.einsum("ij,ij->i", self.embedded, self.embedded)

    def block_rows(self):
        """Queries per block so that one block of distances holds about _BLOCK_ENTRIES values."""
        return max(1, _BLOCK_ENTRIES // max(self.corpus.shape[0], 1))

    def __call__(self, queries):
        if self.embedded is None:
            return self.metric.pairwise_distances(queries, self.corpus)
        E = np.asarray(self.metric.transform(queries), dtype=np.float64)
        D2 = np.einsum("ij,ij->i", E, E)[:, None] + self.sq_norms[None, :] - 2.0 * (E @ self.embedded.T)
        return np.sqrt(np.maximum(D2, 0.0))


# --------------------------------------------------------------------------- commands

def _cmd_demo(args):
    from .demo import DEFAULT_OUT_DIR, METHODS, run_demo

    out = Path(args.out) if args.out is not None else Path(DEFAULT_OUT_DIR)
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
          f"complement_weight={sel['complement_weight']:g}.\n")
    rows = []
    for name in METHODS:
        m = result["methods"][name]
        rows.append([name] + [_fmt(m[k]) for k in RETRIEVAL_MEASURES]
                    + [_fmt(m["fit_seconds"], ".2f"), _fmt(m["ap11_ratio_to_cosine"], ".2f")])
    print(_table(["method"] + [MEASURE_TITLES[k] for k in RETRIEVAL_MEASURES] + ["fit s", "AP/cosine"], rows))
    print(f"\nWrote {result['results_json']}" + (f" and {result['plot']}" if result["plot"] else "")
          + f" in {result['seconds']:.1f} s.")
    return 0


def _read_clusters(path):
    docs = read_labelled_documents(path)
    labels, names, n_singletons = docs.cluster_codes(min_size=2)
    if not names:
        raise UsageError(f"{path}: no label has two or more documents; a metric is learned from "
                         "clusters of at least two documents")
    return docs, labels, names, n_singletons


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
    "validation_fraction": ("--validation-fraction", {"linklearn"}),
}
# FILM's n_components when --dimensions is not given (the paper's d), capped by the data.
_DEFAULT_FILM_DIMENSIONS = 100
# LinkLearn's settings when not given: the learning rate chosen on Wikispeedia's validation
# third (docs/reproductions/linklearn.md) and the share of documents held out for early stopping.
_DEFAULT_LINKLEARN_RATE = 0.03
_DEFAULT_VALIDATION_FRACTION = 0.25


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
    from .mcd import PAPER_PARAMS

    explicit = {"n_basis": args.n_basis, "shrinkage": args.shrinkage,
                "complement_weight": args.complement_weight}
    if args.paper:
        clash = [f"--{k.replace('_', '-')}" for k, v in explicit.items() if v is not None]
        if clash:
            raise UsageError(f"--paper fixes n_basis=none, shrinkage=0 and complement_weight=0; "
                             f"drop {' and '.join(clash)} or --paper")
        return dict(PAPER_PARAMS)
    return {k: ("auto" if v is None else v) for k, v in explicit.items()}


def _read_pairs(path):
    """Duplicate pairs (Quora sample layout) via learnsim.datasets.load_quora_pairs."""
    from .datasets import load_quora_pairs

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder, not a pairs file")
    data = load_quora_pairs(path)     # a Path, never the name of a bundled split
    if data.n_identical_pairs:
        _note(f"{data.n_identical_pairs} pair(s) of two identical texts are left out")
    if data.n_undecodable_lines:
        _note(f"{data.n_undecodable_lines} line(s) are not valid UTF-8; their bad bytes became U+FFFD")
    return data


def _film_triplets(pairs, X, seed):
    """Triplets from duplicate pairs, without the texts that have no vocabulary term (FILM
    L2-normalises every row it learns from)."""
    from .supervision import duplicate_pairs_to_triplets
    from .text import find_empty_rows

    T = duplicate_pairs_to_triplets(pairs, n_items=X.shape[0], random_state=seed).indices
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


def _cmd_fit(args):
    from .persistence import save
    from .text import TextVectorizer

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
        data = _read_pairs(args.pairs)
        texts, pairs = data.texts, data.pairs
        summary.update(documents=len(texts), pairs=pairs.n_pairs, duplicate_pairs=int(pairs.labels.sum()))
    else:
        docs, labels, names, n_singletons = _read_clusters(args.input)
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

    if args.method == "mcd":
        metric, y = _mcd_with_supervision(args, settings, X, labels, pairs, summary)
    else:
        metric, y = _film_with_supervision(args, X, labels, pairs)
    start = time.perf_counter()
    metric.fit(X, y)
    metric_seconds = time.perf_counter() - start
    if args.method == "mcd":
        summary.update(n_basis=metric.n_basis_, shrinkage=metric.shrinkage_,
                       complement_weight=metric.complement_weight_, solver=metric.solver_)
    else:
        summary.update(n_components=int(metric.n_components), svd_rank=metric.svd_rank_,
                       triplets=metric.n_triplets_, n_iter=metric.n_iter_, converged=metric.converged_)

    model_path.parent.mkdir(parents=True, exist_ok=True)
    save({"vectorizer": vectorizer, "metric": metric}, model_path)
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
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, metric "
          f"{metric_seconds:.2f} s); saved {model_path}.")
    return 0


def _read_links(path, ids):
    """Hyperlinks source_id<TAB>target_id between the documents ``ids``, as Links."""
    from .io import _lines
    from .supervision import Links

    position = {doc_id: i for i, doc_id in enumerate(ids)}
    edges = []
    for number, line in _lines(path):
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


def _fit_linklearn(args, model_path, summary):
    """--method linklearn: term counts of the --input documents, the --links among them, a
    held-out share for early stopping, and the learned weighting saved with its vectoriser."""
    import scipy.sparse as sp

    from ._progress import _default_enabled
    from .linklearn import LinkLearn
    from .persistence import save
    from .supervision import Links, split_links
    from .text import TextVectorizer, find_empty_rows

    docs = read_documents(args.input)
    missing = [i for i, doc_id in enumerate(docs.ids) if doc_id is None]
    if missing:
        raise UsageError(f"{args.input}: --method linklearn needs an id for every document (id<TAB>text, or "
                         f'"id" in .jsonl); document {missing[0] + 1} has none')
    seen = {}
    for i, doc_id in enumerate(docs.ids):
        if doc_id in seen:
            raise UsageError(f"{args.input}: id {doc_id!r} is used by documents {seen[doc_id] + 1} and {i + 1}")
        seen[doc_id] = i
    links = _read_links(Path(args.links), docs.ids)
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
    from .mcd import MinimumClusterDistortion
    from .supervision import pairs_to_clusters

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
    from ._progress import _default_enabled
    from .film import FILM

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


def _warn_empty_rows(X, what, texts):
    from .text import find_empty_rows

    empty = find_empty_rows(X)
    if empty.size:
        shown = ", ".join(repr(_snippet(texts[i], 30)) for i in empty[:3])
        _note(f"warning: {empty.size} {what}(s) have no term of the model's vocabulary "
              f"(e.g. {shown}); their distances are not informative")


def _is_term_weighting(metric):
    """A LinkLearn model: it scores documents by the inner product of learned term weights (a
    similarity, higher is closer), not by a distance."""
    from .linklearn import LinkLearn

    return isinstance(metric, LinkLearn)


def _search_term_weighting(args, metric, corpus, queries, C, Q, k):
    """Binary queries against the corpus weighted once by the learned weighting (an index of
    posting lists, paper 002 sec. 2.1); the k highest scores, ties to the lower index."""
    scores = metric.index(C).score(Q)
    order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    best = np.take_along_axis(scores, order, axis=1)
    return _print_hits(args, corpus, queries, order, best, "score")


def _print_hits(args, corpus, queries, idx, values, column):
    """The k hits of every query, as JSON or one table per query; ``column`` names the value
    ("distance" for a metric, "score" for a term weighting)."""
    results = []
    for qi, query in enumerate(queries):
        hits = [{"rank": r + 1, "index": int(i), "id": corpus.ids[i], column: float(v),
                 "text": _snippet(corpus.texts[i])}
                for r, (i, v) in enumerate(zip(idx[qi], values[qi]))]
        results.append({"query": query, "hits": hits})
    if args.json:
        _print_json(results)
        return 0
    for qi, res in enumerate(results):
        if qi:
            print()
        print(f"query {qi + 1}: {_snippet(res['query'])}")
        rows = [[h["rank"], f"{h[column]:.4f}", h["id"] if h["id"] is not None else f"#{h['index']}",
                 h["text"]] for h in res["hits"]]
        print(_table(["rank", column, "doc", "text"], rows, align=">><<"))
    return 0


def _cmd_search(args):
    from .search import top_k

    vectorizer, metric = _load_model(args.model)
    corpus = read_documents(args.corpus)
    if args.queries is not None:
        queries = read_documents(args.queries).texts
    else:
        queries = list(args.query)
        if any(not q.strip() for q in queries):
            raise UsageError("--query must not be empty")
    k = args.k
    if k > len(corpus):
        _note(f"-k {k} is more than the {len(corpus)} corpus documents; showing all of them")
        k = len(corpus)
    C = _vectorize(vectorizer, corpus.texts)
    Q = _vectorize(vectorizer, queries)
    _warn_empty_rows(C, "corpus document", corpus.texts)
    _warn_empty_rows(Q, "query", queries)

    if _is_term_weighting(metric):
        return _search_term_weighting(args, metric, corpus, queries, C, Q, k)
    distances = _LearnedDistances(metric, C)
    if distances.embedded is not None:
        idx, dist = top_k(np.asarray(metric.transform(Q), dtype=np.float64), distances.embedded, k,
                          metric="euclidean")
    else:
        step = distances.block_rows()
        idx = np.empty((Q.shape[0], k), dtype=np.int64)
        dist = np.empty((Q.shape[0], k))
        for start in progress(range(0, Q.shape[0], step), desc="search"):
            D = distances(Q[start:start + step])
            order = np.argsort(D, axis=1, kind="stable")[:, :k]  # ties: lower index first
            idx[start:start + step] = order
            dist[start:start + step] = np.take_along_axis(D, order, axis=1)

    return _print_hits(args, corpus, queries, idx, dist, "distance")


def _cmd_evaluate(args):
    import scipy.sparse as sp
    from sklearn.preprocessing import normalize

    from .evaluation import cluster_retrieval_report

    vectorizer, metric = _load_model(args.model)
    docs, labels, names, n_singletons = _read_clusters(args.input)
    if n_singletons:
        _note(f"{n_singletons} label(s) with a single document have nothing to retrieve; "
              "those documents stay in the rankings as distractors")
    X = _vectorize(vectorizer, docs.texts)
    _warn_empty_rows(X, "document", docs.texts)

    Xn = normalize(X, norm="l2")
    if _is_term_weighting(metric):
        W = sp.csr_matrix(metric.transform(X), dtype=np.float64)

        def learned_block(rows):
            return (W[rows] @ W.T).toarray()
        block = max(1, _BLOCK_ENTRIES // max(X.shape[0], 1))
    else:
        distances = _LearnedDistances(metric, X)
        block = distances.block_rows()

        def learned_block(rows):
            return -distances(X[rows])

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


def _word_space(vectorizer):
    """The names of the words and the map from word vectors to the model's inputs: the LSI
    basis of a vectoriser with LSI (so that weights are explained over words), else None."""
    if getattr(vectorizer, "components_", None) is None:
        return [str(t) for t in vectorizer.get_feature_names_out()], None
    return [str(t) for t in vectorizer.terms_], np.asarray(vectorizer.components_, dtype=np.float64)


def _word_vectors(vectorizer, texts):
    """The term vectors the model's inputs are made of (before any LSI projection)."""
    if getattr(vectorizer, "components_", None) is None:
        return _vectorize(vectorizer, texts)
    words_only = copy.copy(vectorizer)
    words_only.components_ = None       # the weighted, normalised vectors that LSI projects
    return _vectorize(words_only, texts)


def _word_list(entries, value):
    return [f"{e.feature} {value(e):+.4f}" for e in entries]


def _print_wrapped(label, items, width=100):
    """``label`` then the items, comma-separated, wrapped between items (never inside one)."""
    items = items or ["-"]
    lines, line = [], label
    for k, item in enumerate(items):
        piece = item + ("," if k < len(items) - 1 else "")
        if line != label and len(line) + 1 + len(piece) > width:
            lines.append(line)
            line = " " * len(label)
        line += ("" if line.endswith(" ") else " ") + piece
    lines.append(line)
    print("\n".join(lines))


def _print_dimensions(dimensions):
    for info in dimensions:
        scale = f" (scale {info.scale:.4g})" if info.scale is not None else ""
        print(f"\ndimension {info.dimension}{scale}")
        _print_wrapped("  + ", _word_list(info.positive, lambda e: e.weight))
        _print_wrapped("  - ", _word_list(info.negative, lambda e: e.weight))


def _print_pair(text_a, text_b, exp):
    print(f"A: {_snippet(text_a)}\nB: {_snippet(text_b)}")
    print(f"Cosine in the learned space {exp.cosine:.4f} = inner product {exp.inner_product:.4g} / "
          f"(|L a| {exp.norm_a:.4g} x |L b| {exp.norm_b:.4g}); learned distance {exp.distance:.4f}.")
    print("\nWhat adds to the cosine (each list sums to it exactly):")
    denom = exp.norm_a * exp.norm_b

    def to_cosine(value):
        return value / denom if denom > 0 else 0.0

    rows = [[p.feature_a, p.feature_b, f"{p.cosine_contribution:+.4f}"] for p in exp.word_pairs]
    print(_table(["word of A", "word of B", "contribution"], rows, align="<<>"))
    n_other = exp.n_words_a * exp.n_words_b - len(exp.word_pairs)
    if n_other:
        print(f"(the other {n_other} word pair{'s' if n_other > 1 else ''} add{'' if n_other > 1 else 's'} "
              f"{to_cosine(exp.omitted_word_pairs):+.4f})")
    print()
    _print_wrapped("words of A:  ", _word_list(exp.words_a, lambda e: e.cosine_contribution))
    _print_wrapped("words of B:  ", _word_list(exp.words_b, lambda e: e.cosine_contribution))
    dims = [f"{d.dimension} {d.cosine_contribution:+.4f}" for d in exp.dimensions]
    if exp.residual_contribution:
        dims.append(f"outside them {to_cosine(exp.residual_contribution):+.4f}")
    _print_wrapped("dimensions:  ", dims)


def _cmd_explain(args):
    from .explain import explain_pair, n_learned_dimensions, top_features

    vectorizer, metric = _load_model(args.model)
    try:
        n_dims = n_learned_dimensions(metric)
    except TypeError as exc:
        raise UsageError(f"{args.model}: cannot explain this model: {exc}") from None
    names, projection = _word_space(vectorizer)
    result = {"model": str(args.model), "metric": type(metric).__name__, "n_dimensions": n_dims,
              "n_words": len(names), "lsi_components": vectorizer.n_components_}
    dimensions = []
    if args.dimensions is not None or args.pair is None:
        dimensions = top_features(metric, names, args.top, args.dimensions, projection=projection)
        result["dimensions"] = [d.to_dict() for d in dimensions]
    explanation = None
    if args.pair is not None:
        text_a, text_b = args.pair
        if not text_a.strip() or not text_b.strip():
            raise UsageError("--pair texts must not be empty")
        X = _word_vectors(vectorizer, [text_a, text_b])
        _warn_empty_rows(X, "--pair text", [text_a, text_b])
        explanation = explain_pair(metric, X[0], X[1], names, args.top, projection=projection)
        result["pair"] = {"text_a": text_a, "text_b": text_b, **explanation.to_dict()}
    if args.json:
        _print_json(result)
        return 0
    lsi = f", explained over the words through {vectorizer.n_components_} LSI dimensions" \
        if projection is not None else ""
    print(f"{result['metric']}: {n_dims} learned dimensions over {len(names)} words{lsi}.")
    _print_dimensions(dimensions)
    if explanation is not None:
        print()
        _print_pair(text_a, text_b, explanation)
    return 0


def _cmd_reproduce(args):
    from .datasets import find_data_dir

    if args.data_dir is not None:
        find_data_dir(args.data_dir)  # a wrong --data-dir fails now, not after an hour
    reproduce = importlib.import_module("learnsim.reproduce")
    run = getattr(reproduce, "run", None)
    if run is None:
        raise UsageError("this installation of learnsim has no reproduction runner (learnsim.reproduce.run)")
    options = {}
    if args.encoder is not None:
        if args.name != "film":
            raise UsageError(f"--encoder is an option of 'reproduce film', not of {args.name!r}")
        if not Path(args.encoder).is_dir():
            raise UsageError(f"--encoder {args.encoder}: not a folder; give the local folder of a "
                             "sentence-transformers model (nothing is downloaded)")
        options["encoder"] = args.encoder
    results = run(args.name, quick=args.quick, out_dir=args.out, json_path=args.json_path,
                  data_dir=args.data_dir, **options)
    n = len(results) if hasattr(results, "__len__") else None
    print(f"learnsim reproduce {args.name}: done" + (f", {n} result records" if n is not None else "")
          + (f" in {args.out}" if args.out else "") + ".")
    return 0


# --------------------------------------------------------------------------- entry point

def _user_error_message(exc):
    """The one-line message for an exception that is the user's to fix, or None for a bug."""
    from .persistence import ModelFormatError

    if isinstance(exc, (UsageError, DocumentFormatError, ModelFormatError, FileNotFoundError,
                        IsADirectoryError, NotADirectoryError, PermissionError, FileExistsError)):
        return str(exc)
    if isinstance(exc, ImportError) and "pip install" in str(exc):
        return str(exc)  # an optional extra (PyStemmer, matplotlib) is missing
    if isinstance(exc, (ValueError, MemoryError)):
        return str(exc) or type(exc).__name__
    return None


def main(argv=None):
    """Run the ``learnsim`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit status.

    0 on success, 2 on a user error (message on stderr, one line), and what ``--help`` and
    ``--version`` exit with.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already reported
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    with warnings.catch_warnings():
        # library warnings (too few clusters, empty documents) as one-line notes on stderr
        warnings.showwarning = lambda message, category, *rest, **kw: _note(f"warning: {message}")
        try:
            return args.handler(args)
        except KeyboardInterrupt:
            print("learnsim: interrupted", file=sys.stderr)
            return 130
        except Exception as exc:
            message = None if args.debug else _user_error_message(exc)
            if message is None:
                raise
            prog = f"learnsim {args.command}"
            print(f"{prog}: error: {' '.join(message.split())}", file=sys.stderr)
            return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
