"""The ``learnsim`` command line: ``demo``, ``fit``, ``search``, ``evaluate``, ``reproduce``.

Every command prints a human summary on stdout, or with ``--json`` one JSON document on stdout
and nothing else there (notes, warnings and progress bars go to stderr). A user error (a
missing or malformed file, a bad option) exits with status 2 and a one-line message; set
``--debug`` (before the command) to see the traceback instead.
"""
from __future__ import annotations

import argparse
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
        "fit", formatter_class=_formatter, help="learn a metric from labelled documents",
        description=textwrap.dedent("""\
            Fit a text vectoriser and a minimum-cluster-distortion metric on labelled documents
            and save both into one model file.

            Input: label<TAB>text per line (.tsv or .txt; a header line label<TAB>text is
            skipped) or JSON Lines (.jsonl) with {"text": ..., "label": ...}. Documents of
            label -1 belong to no cluster: they shape the features and the basis but are not
            supervision. A label with a single document is treated as -1."""),
        epilog=_examples("learnsim fit --input train.tsv --model model.npz",
                         "learnsim fit --input train.jsonl --model model.npz --stop-words english --stem",
                         "learnsim fit --input train.tsv --model paper.npz --paper --lsi 300",
                         "learnsim fit --input train.tsv --model m.npz --n-basis 64 --shrinkage 0.1 "
                         "--complement-weight 1 --json"))
    fit.add_argument("--input", required=True, metavar="FILE", help="labelled documents (.tsv, .txt or .jsonl)")
    fit.add_argument("--model", required=True, metavar="OUT.npz", help="model file to write")
    fit.add_argument("--weighting", choices=("tfidf", "bm25", "tf", "binary"), default="tfidf",
                     help="term weighting (default: tfidf)")
    fit.add_argument("--lsi", type=_lsi, default=None, metavar="N_OR_FRACTION",
                     help="reduce the term vectors to N LSI dimensions (or a fraction of the vocabulary)")
    fit.add_argument("--no-norm", action="store_true", help="do not L2-normalise the term vectors")
    fit.add_argument("--paper", action="store_true",
                     help="the paper's metric exactly: full space, pseudo-inverse, nothing outside "
                          "the scatter's range (n_basis=none, shrinkage=0, complement_weight=0)")
    fit.add_argument("--n-basis", type=_n_basis, default=None, metavar="K|auto|none",
                     help="size of the principal basis the metric is learned in; 'none' is the "
                          "whole feature space (default: auto)")
    fit.add_argument("--shrinkage", type=_auto_or_float(0.0, 1.0, "a number in [0, 1]"), default=None,
                     metavar="A|auto", help="shrinkage toward Euclid, in [0, 1] (default: auto)")
    fit.add_argument("--complement-weight", type=_auto_or_float(0.0, None, "a number >= 0"), default=None,
                     metavar="G|auto",
                     help="weight of the directions outside the learned basis (default: auto)")
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


def _cmd_fit(args):
    from .mcd import PAPER_PARAMS, MinimumClusterDistortion
    from .persistence import save
    from .text import TextVectorizer

    explicit = {"n_basis": args.n_basis, "shrinkage": args.shrinkage,
                "complement_weight": args.complement_weight}
    if args.paper:
        clash = [f"--{k.replace('_', '-')}" for k, v in explicit.items() if v is not None]
        if clash:
            raise UsageError(f"--paper fixes n_basis=none, shrinkage=0 and complement_weight=0; "
                             f"drop {' and '.join(clash)} or --paper")
        settings = dict(PAPER_PARAMS)
    else:
        settings = {k: ("auto" if v is None else v) for k, v in explicit.items()}
    model_path = Path(args.model)
    if model_path.is_dir():
        raise UsageError(f"--model {model_path} is a folder; give a file name such as model.npz")

    docs, labels, names, n_singletons = _read_clusters(args.input)
    if n_singletons:
        _note(f"{n_singletons} label(s) with a single document are treated as unlabelled (-1)")
    vectorizer = TextVectorizer(weighting=args.weighting, norm=None if args.no_norm else "l2",
                                stop_words=args.stop_words, stem="porter" if args.stem else None,
                                n_components=args.lsi, random_state=args.seed)
    start = time.perf_counter()
    X = vectorizer.fit_transform(docs.texts)
    X = X.astype(np.float64) if X.dtype != np.float64 else X
    vec_seconds = time.perf_counter() - start
    # progress bars of the selection show on a terminal (see learnsim._progress)
    metric = MinimumClusterDistortion(**settings, random_state=args.seed)
    start = time.perf_counter()
    metric.fit(X, labels)
    metric_seconds = time.perf_counter() - start

    model_path.parent.mkdir(parents=True, exist_ok=True)
    save({"vectorizer": vectorizer, "metric": metric}, model_path)
    summary = {
        "model": str(model_path),
        "documents": len(docs),
        "clustered_documents": int((labels >= 0).sum()),
        "clusters": len(names),
        "single_document_labels": n_singletons,
        "features": int(X.shape[1]),
        "weighting": args.weighting,
        "lsi_components": vectorizer.n_components_,
        "n_basis": metric.n_basis_,
        "shrinkage": metric.shrinkage_,
        "complement_weight": metric.complement_weight_,
        "solver": metric.solver_,
        "vectorizer_seconds": vec_seconds,
        "metric_seconds": metric_seconds,
        "fit_seconds": vec_seconds + metric_seconds,
    }
    if args.json:
        _print_json(summary)
        return 0
    print(f"Fitted on {summary['documents']} documents ({summary['clustered_documents']} in "
          f"{summary['clusters']} clusters), {summary['features']} features "
          f"({args.weighting}{', LSI' if vectorizer.n_components_ else ''}).")
    print(f"Metric: n_basis={summary['n_basis']}, shrinkage={summary['shrinkage']:g}, "
          f"complement_weight={summary['complement_weight']:g} (solver {summary['solver']}).")
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, metric "
          f"{metric_seconds:.2f} s); saved {model_path}.")
    return 0


def _warn_empty_rows(X, what, texts):
    from .text import find_empty_rows

    empty = find_empty_rows(X)
    if empty.size:
        shown = ", ".join(repr(_snippet(texts[i], 30)) for i in empty[:3])
        _note(f"warning: {empty.size} {what}(s) have no term of the model's vocabulary "
              f"(e.g. {shown}); their distances are not informative")


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

    results = []
    for qi, query in enumerate(queries):
        hits = [{"rank": r + 1, "index": int(i), "id": corpus.ids[i], "distance": float(d),
                 "text": _snippet(corpus.texts[i])}
                for r, (i, d) in enumerate(zip(idx[qi], dist[qi]))]
        results.append({"query": query, "hits": hits})
    if args.json:
        _print_json(results)
        return 0
    for qi, res in enumerate(results):
        if qi:
            print()
        print(f"query {qi + 1}: {_snippet(res['query'])}")
        rows = [[h["rank"], f"{h['distance']:.4f}", h["id"] if h["id"] is not None else f"#{h['index']}",
                 h["text"]] for h in res["hits"]]
        print(_table(["rank", "distance", "doc", "text"], rows, align=">><<"))
    return 0


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

    distances = _LearnedDistances(metric, X)
    Xn = normalize(X, norm="l2")

    def cosine_block(rows):
        block = Xn[rows] @ Xn.T
        return block.toarray() if sp.issparse(block) else np.asarray(block)

    block = distances.block_rows()
    reports = {
        "learned": cluster_retrieval_report(lambda rows: -distances(X[rows]), labels,
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


def _cmd_reproduce(args):
    from .datasets import find_data_dir

    if args.data_dir is not None:
        find_data_dir(args.data_dir)  # a wrong --data-dir fails now, not after an hour
    reproduce = importlib.import_module("learnsim.reproduce")
    run = getattr(reproduce, "run", None)
    if run is None:
        raise UsageError("this installation of learnsim has no reproduction runner (learnsim.reproduce.run)")
    results = run(args.name, quick=args.quick, out_dir=args.out, json_path=args.json_path,
                  data_dir=args.data_dir)
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
