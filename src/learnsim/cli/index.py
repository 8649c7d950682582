"""``learnsim index``: build an index of a collection under a fitted model, and change it in place."""
from __future__ import annotations

import textwrap
from pathlib import Path

from ._common import (_add_encoding, _add_encoding_errors, _add_quoting, _check_output_dir, _examples, _formatter, _note, _print_json, _table, UsageError,
                      ENCODER_HELP, add_encoder_backend, check_encoder_backend, load_encoder_option, make_parent_folders,
                      refuse_dash, _positive_int)

CORPUS_LAYOUTS = """\
corpus layouts:
  JSON Lines (.jsonl): {"id": ..., "text": ..., "metadata": {...}} per line; without a
      "metadata" object, every field other than id and text is metadata (for --filter)
      {"id": "q17", "text": "How do I learn Python?", "topic": "programming"}
  id<TAB>text per line (.tsv), or one document per line (.txt): no metadata (under a first
      line text<TAB>id, each line is read that way round; under label<TAB>text, fit --input's
      layout, the label is metadata and the documents are numbered)
  a header naming id and text (.csv, CSV-quoted): every other column is metadata
  A document without an id gets its line number ("line-12"; in a .parquet file, its
      row: "row-12"); in 'index add' (without
      --update), the index's next free number.
  BEIR's corpus.jsonl reads as it is: {"_id": ..., "title": ..., "text": ..., "metadata": {...}}
      (the id from "_id", the title joined before the text); a field read and not used is named.
  Pyserini's JsonCollection reads as it is: {"id": ..., "contents": ...} ("contents" is the text
      of a record without "text")
  Any of these may be gzipped (corpus.jsonl.gz, docs.tsv.gz)."""


ANN_CHOICES = ("auto", "exact", "faiss-hnsw", "faiss-ivf", "faiss-flat", "usearch")


def register(commands):
    """Add the command's parser to ``commands``."""
    index = commands.add_parser(
        "index", formatter_class=_formatter, help="build, grow and inspect an index of a collection",
        description=textwrap.dedent("""\
            An index is a directory holding a fitted model and a collection: the documents
            (ids, texts, metadata) in SQLite and their rows under the model in .npy files,
            so that 'learnsim search --index' answers without reading or vectorising the
            collection again. Documents can be added, updated and deleted; once 'index add'
            returns they survive any crash. Every file carries a checksum, checked before
            its first use; 'index verify' checks them all.

            Collection statistics (the idf and mean length of a term weighting) stay those
            of the build until 'index reindex'; 'index info' says how many documents were
            added since.

            """) + CORPUS_LAYOUTS,
        epilog=_examples("learnsim index build --model model.npz --corpus docs.jsonl --out idx/",
                         "learnsim index build --encoder all-MiniLM-L6-v2 --corpus docs.jsonl --out idx/",
                         "learnsim index add idx/ --corpus new.jsonl",
                         "learnsim index delete idx/ --id q17 --id q18",
                         "learnsim index info idx/ --json",
                         "learnsim index compact idx/",
                         "learnsim index reindex idx/",
                         "learnsim index verify idx/",
                         "learnsim index versions idx/",
                         "learnsim index promote idx/ --model refit.npz",
                         "learnsim index rollback idx/"))
    actions = index.add_subparsers(dest="action", metavar="ACTION", required=True)

    build = actions.add_parser("build", formatter_class=_formatter, help="index a collection under a model",
                               description="Index the documents of --corpus under the model of --model (or the "
                                           "cosine of a pre-trained --encoder) in a new directory --out.\n\n"
                                           + CORPUS_LAYOUTS)
    source = build.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", metavar="M.npz", help="model file written by 'learnsim fit' (with --encoder there, "
                                                         "a model learned on the encoder's vectors)")
    source.add_argument("--encoder", metavar="NAME_OR_PATH",
                        help="index under the plain cosine of " + ENCODER_HELP + "; nothing is learned (to learn "
                             "on its vectors: learnsim fit --encoder, then --model)")
    add_encoder_backend(build)
    documents = build.add_mutually_exclusive_group(required=True)
    documents.add_argument("--corpus", metavar="FILE", help="the documents to index")
    documents.add_argument("--beir", metavar="DIR", help="a BEIR folder: index its corpus.jsonl (or corpus.jsonl.gz), "
                                                         "as 'learnsim evaluate --beir DIR --index' measures it")
    build.add_argument("--out", required=True, metavar="DIR", help="the index directory (new or empty; its missing "
                                                                   "parent folders are created)")
    build.add_argument("--overwrite", action="store_true", help="replace an existing index at --out")
    build.add_argument("--json", action="store_true", help="print the index's info as JSON")
    # the names of learnsim.ann.ANN_BACKENDS, spelled out: importing it here would slow every command
    build.add_argument("--ann", default="auto", choices=ANN_CHOICES,
                       help="approximate search of the large segments of dense rows (FILM, dense distance "
                            "models): 'auto' takes faiss IVF, else faiss HNSW, else usearch, when "
                            "installed (pip install learnsim[ann]), its recall@10 checked at build; 'exact' never (default: %(default)s)")
    # (learnsim.index._ann.ANN_MIN_ROWS, written out: importing the index package for it would take
    # a second of every command's start; tests/cli/test_cli_index_prog_s84.py compares them)
    build.add_argument("--ann-min-rows", type=_positive_int, metavar="N",
                       help="segments of fewer rows are searched exactly (default: 50,000)")
    _add_encoding_errors(build)
    _add_quoting(build)

    add = actions.add_parser("add", formatter_class=_formatter, help="add documents",
                             description="Add the documents of --corpus (new ids).\n\n" + CORPUS_LAYOUTS)
    add.add_argument("index", metavar="DIR")
    add.add_argument("--corpus", required=True, metavar="FILE")
    add.add_argument("--update", action="store_true", help="replace documents whose id is already indexed")
    add.add_argument("--json", action="store_true")
    _add_encoding_errors(add)
    _add_quoting(add)

    delete = actions.add_parser("delete", formatter_class=_formatter, help="delete documents by id")
    delete.add_argument("index", metavar="DIR")
    delete.add_argument("--id", action="append", dest="ids", metavar="ID", help="an id (repeat for several)")
    delete.add_argument("--ids", dest="ids_file", metavar="FILE", help="a file of ids, one per line")
    delete.add_argument("--missing-ok", action="store_true", help="ignore ids that are not indexed")
    _add_encoding(delete)
    delete.add_argument("--json", action="store_true")

    for name, text in (("info", "describe an index"), ("compact", "merge segments and drop deleted documents"),
                       ("reindex", "recompute the collection statistics and every row")):
        sub = actions.add_parser(name, formatter_class=_formatter, help=text, description=text[0].upper() + text[1:] + ".")
        sub.add_argument("index", metavar="DIR")
        sub.add_argument("--json", action="store_true")
    verify = actions.add_parser(
        "verify", formatter_class=_formatter, help="check every file of an index (checksums, arrays, SQLite)",
        description="Check every file of an index: the checksums recorded when each was written, the "
                    "arrays' shapes and values, the query plan, the statistics, the model, the "
                    "approximate structures, and docs.sqlite (SQLite's quick_check, and its documents "
                    "against the segments'). Exit status 0 when intact; 2 when damaged, with one line "
                    "per damaged file on stderr, each naming the file.")
    verify.add_argument("index", metavar="DIR")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")

    versions = actions.add_parser(
        "versions", formatter_class=_formatter, help="list the model versions of an index",
        description="List every model the index has served or been offered: its number, status (served, "
                    "candidate, retired), when it was added, where it came from, and the comparison its "
                    "last promotion rested on.")
    versions.add_argument("index", metavar="DIR")
    versions.add_argument("--json", action="store_true", help="print the versions as JSON")
    promote = actions.add_parser(
        "promote", formatter_class=_formatter, help="serve another model (every row recomputed)",
        description="Serve the model of --model (added as a new version) or the version --version N: "
                    "every row, the statistics and the query plan are recomputed under it, and the "
                    "switch is atomic (a crash leaves the old model or the new one). The candidate "
                    "must first beat the served model on the index's logged clicks (held-out clicks "
                    "and interleaving: learnsim.feedback); refused, the command exits with status 1 "
                    "and says why. --force promotes without that evidence. 'learnsim index rollback' "
                    "serves the previous model again.",
        epilog=_examples("learnsim index promote idx/ --model refit.npz   # staged; promoted if the log says so",
                         "learnsim index promote idx/                     # the newest candidate",
                         "learnsim index promote idx/ --version 3 --force"))
    promote.add_argument("index", metavar="DIR")
    which = promote.add_mutually_exclusive_group()
    which.add_argument("--model", metavar="M.npz", help="a model file written by 'learnsim fit' (staged as a candidate "
                                                        "first)")
    which.add_argument("--version", type=int, metavar="N", help="a version the index holds ('index versions'); "
                                                                "default: the newest candidate")
    promote.add_argument("--force", action="store_true",
                         help="promote without the evidence that the candidate is better (recorded as forced)")
    promote.add_argument("--confidence", type=_confidence, default=0.95, metavar="P",
                         help="the interleaving interval's confidence (default 0.95); when you run promote on "
                              "the same candidate up to K times as its evidence grows, give 1 - 0.05 / K "
                              "(docs/feedback.md, 'Looking again')")
    promote.add_argument("--min-clients", type=_min_clients, default=None, metavar="N",
                         help="distinct clients who decided an interleaved search, needed for a promotion "
                              "(default 5): one client, one vote, so none weighs more than 1/N")
    promote.add_argument("--json", action="store_true")
    rollback = actions.add_parser(
        "rollback", formatter_class=_formatter, help="serve the previous model again",
        description="Serve again the model version served before the current one (every row "
                    "recomputed, as promote does); again, one further back.")
    rollback.add_argument("index", metavar="DIR")
    rollback.add_argument("--json", action="store_true")
    index.set_defaults(handler=run)
    return index


# --------------------------------------------------------------------------- reading a corpus

def beir_corpus(folder):
    """The corpus file of a BEIR folder (``corpus.jsonl`` or ``corpus.jsonl.gz``, as evaluate
    --beir reads it), or a UsageError naming what is missing."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"--beir {folder}: no such folder (a BEIR folder holds corpus.jsonl, queries.jsonl and "
                         "qrels/)")
    for name in ("corpus.jsonl", "corpus.jsonl.gz"):
        if (folder / name).is_file():
            return str(folder / name)
    for name in ("corpus.jsonl", "corpus.jsonl.gz"):
        if (folder / name).is_symlink() and not (folder / name).exists():
            from ._common import dead_link

            raise UsageError(f"--beir {folder}: {dead_link(name)}")
    raise UsageError(f"--beir {folder}: no corpus.jsonl or corpus.jsonl.gz (the documents of a BEIR folder)")


def read_corpus(path, encoding_errors="replace", quoting="auto", number_lines=True):
    """(ids, texts, metadata) of a corpus file (layouts above), read once. ``number_lines``: a
    document without an id is named by its line ("line-12"); else its id is None (the index
    numbers it)."""
    from ._common import line_word, note_unused_fields, read_documents

    line = line_word(path)
    docs = read_documents(path, encoding_errors=encoding_errors, quoting=quoting)
    note_unused_fields(docs, path)
    # an id the file did not give: its line, written without a blank so that a run file can name it;
    # a .parquet file's row ("row-3", as its messages count them: "line-3" named a line it has not,
    # and the same table written as .csv, a header above, reads line-4 there)
    ids = [i if i is not None or not number_lines else f"{line}-{n}" for i, n in zip(docs.ids, docs.line_numbers)]
    metas = [None] * len(ids) if docs.metadata is None else docs.metadata
    from ..index._arguments import CheckedMetadata

    for meta, number in zip(metas, docs.line_numbers):
        if meta is not None and not isinstance(meta, dict):
            raise UsageError(f"{path}, {line} {number}: \"metadata\" must be a JSON object")
    try:
        # what the index refuses (an int beyond 64 bits, a NUL character) named by its file and
        # line, not as 'metadata[i]', the position of an argument the user never wrote; checked
        # once: the index takes the JSON texts of this check (5 us a record, done twice before)
        metas = CheckedMetadata(metas, lambda i: f"{path}, {line} {docs.line_numbers[i]}: the metadata")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    from .._utils.inputs import has_content

    for text, number in zip(docs.texts, docs.line_numbers):
        if not has_content(text):
            # spaces and punctuation alone: no term, nothing a search could find it by (issue 45)
            raise UsageError(f"{path}, {line} {number}: the text has no letter or digit ({text.strip()[:40]!r}); "
                             "nothing a search could find it by")
    from ..index._store import MAX_ID_CHARS

    for doc_id, number in zip(ids, docs.line_numbers):
        if doc_id is not None and len(str(doc_id)) > MAX_ID_CHARS:
            # named by its file and line, as its text and metadata are: the index's own error named
            # 'ids[i]', the position of an argument the user never wrote
            raise UsageError(f"{path}, {line} {number}: the id has {len(str(doc_id)):,} characters; an id has at "
                             f"most {MAX_ID_CHARS:,} (MAX_ID_CHARS): {str(doc_id)[:40]!r}...")
    from ..datasets.documents import repeated_id

    # the ids as the index takes them, numbered ones too: "line-3" given on line 9 and the
    # numbered id of line 3 are one id
    twice = repeated_id(ids, docs.line_numbers)
    if twice is not None:
        # its lines: 'appears twice' alone left a corpus of a million lines to search by hand
        doc_id, first, number = twice
        raise UsageError(f"{path}, {line} {number}: the id {str(doc_id)[:80]!r} appears twice "
                         f"(first on {line} {first}){_label_hint(path, docs)}")
    from ..datasets.documents import one_id_two_forms, two_forms_note

    found = one_id_two_forms(ids, docs.line_numbers)
    if found is not None:
        # two ids as written (docs/indexes.md), but they print alike: said, where nothing was
        _note(two_forms_note(path, line, found))
    return ids, docs.texts, metas


def _label_hint(path, docs):
    """What to add to "the id ... appears twice" where the ids are the first column of a TSV file:
    most often fit --input's label<TAB>text, whose repeated label alone was named, not why a
    label was an id nor how to index the file."""
    suffix = str(path).lower().removesuffix(".gz")
    if not suffix.endswith((".tsv", ".txt")) or docs.metadata is not None:
        return ""
    return ("; is the first column a label (label<TAB>text, as fit --input reads)? here it is each document's id: "
            "give the file a first line label<TAB>text to keep it as a label (metadata) and number the documents")


def open_index(path):
    """An Index, or a UsageError naming what is wrong with the directory."""
    from ..index import Index

    path = Path(path)
    if not path.exists():
        raise UsageError(f"{path} does not exist (build an index with 'learnsim index build')")
    if not path.is_dir():
        raise UsageError(f"{path} is not a directory (build an index with 'learnsim index build')")
    try:
        return Index.open(path)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None


def require_duplicate_rule(index):
    """A UsageError, naming the remedy on the command line, when the index's model has no
    validated duplicate rule (match --index, dedupe)."""
    pipeline = index.pipeline
    if pipeline.matcher is None:
        raise UsageError(f"the model of the index {index.path} ({pipeline.method}) has no validated "
                         "duplicate rule; build the index from a model fitted with 'learnsim fit --method film "
                         "--pairs FILE --model M.npz'")


# --------------------------------------------------------------------------- the actions

def _print_info(info, as_json):
    if as_json:
        _print_json(info)
        return 0
    # a model over term vectors has no encoder: the row says so in words
    rows = [[k, _summary(v) if k == "search" else _analysis_line(v) if k == "analysis" and v else
             ("none (term vectors)" if k == "encoder" and v is None else v)] for k, v in info.items()]
    print(_table(["", "value"], rows, align="<<"))
    if info.get("added_since_statistics"):
        print(f"\n{info['added_since_statistics']} document(s) were added after the collection statistics were "
              "computed; 'learnsim index reindex' recomputes them.")
    return 0


def _analysis_line(analysis):
    """One line of info()["analysis"]: the analyzer, and its dictionary at fit and here."""
    if "unreadable" in analysis:
        return f"unreadable: {analysis['unreadable']}"
    line = analysis["analyzer"] + (" with unigrams" if analysis.get("cjk_unigrams") else "")

    def name(d):
        return "none" if d is None else f"{d['name']} {d['version']}"
    if analysis.get("dictionary") or analysis.get("installed_dictionary"):
        fitted = "not recorded" if analysis.get("dictionary") is None else name(analysis["dictionary"])
        line += f" (dictionary at fit: {fitted}; installed: {name(analysis.get('installed_dictionary'))})"
    return line


def _summary(search):
    """One line of info()["search"]: which search the rows get."""
    line = f"{search['mode']}" + (f" ({search['backend']})" if search.get("backend") else "")
    line += f": {search['ann_rows']} rows approximate, {search['exact_rows']} exact (min_rows {search['min_rows']})"
    if search.get("recall_checks"):
        # the recall@10 measured at build against an exact scan (the weakest segment's)
        weakest = min(search["recall_checks"], key=lambda c: c["recall_at_10"])
        params = ", ".join(f"{k} {v}" for k, v in weakest.get("search_params", {}).items())
        line += f"; recall@10 {weakest['recall_at_10']:.3f} checked at build" + (f" ({params})" if params else "")
    for why, rows in (search.get("exact_because") or {}).items():
        line += f"; exact for {rows} row(s): {why}"
    if search.get("fallback"):
        line += f"; {len(search['fallback'])} segment(s) fell back to exact: {search['fallback'][0]['reason']}"
    return line


def run(args):
    action = args.action
    if action == "build":
        from ..index import Index

        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise UsageError(f"--out {out} exists and is not a directory")
        # its missing parents are created, as chromadb and Elasticsearch create their path; checked
        # here, before the corpus is read, and made once it is (a bad corpus leaves no folder)
        _check_output_dir(out, "--out", parents=True)
        check_encoder_backend(args)
        if args.encoder is not None:
            from ..pipeline import Pipeline

            # loaded first: a wrong folder or name fails at once, in one line
            model = Pipeline.from_encoder(load_encoder_option(args.encoder, backend=args.encoder_backend))
        else:
            model = Path(args.model)
        if args.beir is not None:
            args.corpus = beir_corpus(args.beir)
        ids, texts, metas = read_corpus(args.corpus, args.encoding_errors, args.quoting)
        from ..index._build import interrupted

        # what a build stopped outright left in a folder (kill -9) is the next build's to remove
        if out.exists() and any(out.iterdir()) and not args.overwrite and not interrupted(out):
            raise UsageError(f"--out {out} is not empty (add --overwrite to replace an index there)")
        ann = args.ann
        if args.ann_min_rows is not None:
            if ann == "exact":
                raise UsageError("--ann-min-rows needs an approximate --ann (auto or a backend), not exact")
            ann = {"backend": ann, "min_rows": args.ann_min_rows}
        make_parent_folders(out, "--out")
        try:
            index = Index.build(out, model, texts, ids, metas, overwrite=args.overwrite, ann=ann)
        except ImportError as exc:      # a named backend whose package is not installed
            raise UsageError(f"--ann {args.ann}: {exc}") from None
        info = index.info()
        if not args.json:
            print(f"Indexed {len(index)} documents into {out} ({info['scoring']}).")
            if not info["query_plan"]:
                _note("the model's query side has no numpy-only plan: each search loads the model (about a "
                      "second more)")
        return _print_info(info, args.json)
    if action == "verify":
        return _verify(args)
    index = open_index(args.index)
    try:
        return _change(args, index)
    except KeyError as exc:      # an id that is not in the index
        raise UsageError(str(exc.args[0]) if exc.args else "unknown id") from None


def _counting_new_words(write):
    """``write()``'s result and how many documents it wrote hold words the index's vocabulary lacks
    (its :class:`learnsim.index.NewWordsWarning`, shown as the other warnings are: a note)."""
    import warnings

    from ..index import NewWordsWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = write()
    new = 0
    for w in caught:
        message = w.message
        if isinstance(message, NewWordsWarning):
            new = message.n_documents
            message = str(message).replace("the warning's examples", "e.g. " + ", ".join(map(repr, message.examples)))
        warnings.showwarning(message, w.category, w.filename, w.lineno)
    return result, new


def _change(args, index):
    action = args.action
    if action == "info":
        return _print_info(index.info(), args.json)
    if action == "add":
        # a document without an id is numbered by the index in a plain add: named by its line, it
        # was refused as "line-1 is already in the index" (the build's first line), and the
        # --update that error proposed replaced the build's documents with the new ones
        ids, texts, metas = read_corpus(args.corpus, args.encoding_errors, args.quoting, number_lines=args.update)
        _note_other_forms(index, ids, args.corpus, args.update)
        if args.update:
            # one transaction: a crash leaves every id either as it was or replaced, never both
            try:
                result, new_words = _counting_new_words(lambda: index.upsert(texts, ids, metas))
            except ValueError as exc:
                raise UsageError(f"{args.corpus}: {exc}") from None
        else:
            indexed = next((i for i in ids if i is not None and _live(index, i)), None)
            if indexed is not None:
                raise UsageError(f"{args.corpus}: the id {indexed!r} is already in the index (add --update to "
                                 "replace the documents whose id is indexed)")
            try:
                given, new_words = _counting_new_words(lambda: index.add(texts, ids, metas))
            except ValueError as exc:
                if "is already in the index" not in str(exc):
                    raise
                # added by another writer since the check above: the index's message names its
                # Python method ("use update"), not this command's option
                raise UsageError(f"{args.corpus}: {str(exc).split(' (')[0]} (another writer added it meanwhile; add "
                                 "--update to replace the documents whose id is indexed)") from None
            result = {"added": len(ids), "updated": 0}
            numbered = [new for new, old in zip(given, ids) if old is None]
            if numbered:
                _note(f"note: {args.corpus}: {len(numbered)} document(s) without an id were numbered by the index "
                      f"({', '.join(map(repr, numbered[:3]))}{', ...' if len(numbered) > 3 else ''})")
        result["documents"] = len(index)
        result["with_new_words"] = new_words       # (the warning's note says reindex brings them in)
        if args.json:
            _print_json(result)
        else:
            print(f"Added {result['added']} and updated {result['updated']} document(s); the index holds "
                  f"{result['documents']}.")
        return 0
    if action == "delete":
        ids = list(args.ids or [])
        if args.ids_file:
            refuse_dash(args.ids_file, "--ids")
            from ..datasets import decoded_lines
            from ..exceptions import DocumentFormatError

            try:
                # the readers' decoder: --encoding (the command's, passed as every reader's
                # default), a BOM (a file saved by Notepad) no part of the first id, a UTF-16
                # file named as such; strict, as an id with its bad bytes replaced names no
                # document (or, with --missing-ok, none deleted without a word)
                lines = decoded_lines(args.ids_file, encoding_errors="strict",
                                      encoding=args.encoding or "utf-8")
                # an id as the line holds it, but its line end: " a " is an id (a JSON corpus
                # keeps it so), which strip() made "a", not in the index or another document
                from_file = [_id_of_line(index, line) for _, line in lines if line.strip()]
            except OSError as exc:
                why = getattr(exc, "strerror", None) or exc
                raise UsageError(f"--ids {args.ids_file}: cannot read it ({why})") from None
            except DocumentFormatError as exc:
                # the decoder's way round, --encoding-errors replace, is no option of delete's
                raise UsageError(str(exc).split("; pass encoding_errors=")[0]) from None
            if not from_file and not ids:
                # "give the documents to delete with --id ID or --ids FILE" to a user who gave one
                raise UsageError(f"--ids {args.ids_file}: the file holds no id (one document id per line)")
            ids.extend(from_file)
        if not ids:
            raise UsageError("give the documents to delete with --id ID or --ids FILE")
        try:
            n = index.delete(ids, missing_ok=args.missing_ok)
        except KeyError as exc:
            # one delete is one transaction: the ids given with the unknown one are still there
            why = str(exc.args[0]) if exc.args else "unknown id"
            raise UsageError(f"{why}; nothing was deleted (--missing-ok deletes the others)") from None
        if args.json:
            _print_json({"deleted": n, "documents": len(index)})
        else:
            print(f"Deleted {n} document(s); the index holds {len(index)}.")
        return 0
    if action == "compact":
        before = index.info()
        index.compact()
        after = index.info()
        if not args.json:
            print(f"Compacted: {before['segments']} segment(s) -> {after['segments']}, "
                  f"{before['deleted']} deleted document(s) dropped.")
        return _print_info(after, args.json) if args.json else 0
    if action == "reindex":
        index.reindex()
        if not args.json:
            print(f"Recomputed the statistics and rows of {len(index)} documents.")
        return _print_info(index.info(), args.json) if args.json else 0
    if action == "versions":
        return _print_versions(index.versions(), args.json)
    if action == "promote":
        return _promote(args, index)
    if action == "rollback":
        result = index.rollback()
        if args.json:
            _print_json(result)
        else:
            print(f"Rolled back to model version {result['version']} ({result['method']}) from version "
                  f"{result['previous']}: recomputed the rows of {result['documents']} documents.")
        return 0
    raise UsageError(f"unknown action {action!r}")


# --------------------------------------------------------------------------- model versions

def _when(t):
    import time

    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(t)) if t is not None else "-"


def _comparison_summary(comparison, width=60):
    """One short line of a version's comparison (the evidence of its last promotion)."""
    if not comparison:
        return "-"
    head = "forced" if comparison.get("forced") else (
        "better" if comparison.get("better") is True else "not better" if "better" in comparison else "recorded")
    reason = comparison.get("reason") or comparison.get("error")
    line = f"{head}: {' '.join(str(reason).split())}" if reason else head
    return line if len(line) <= width else line[:width - 3] + "..."


def _print_versions(versions, as_json):
    if as_json:
        _print_json({"versions": versions,
                     "served": next(v["version"] for v in versions if v["status"] == "served")})
        return 0
    rows = [[v["version"], v["status"], _when(v["created"]) + " UTC", v["source"],
             _comparison_summary(v.get("comparison"))] for v in versions]
    print(_table(["version", "status", "created", "source", "last comparison"], rows, align="><<<<"))
    return 0


def _confidence(text):
    """--confidence: a probability in [0.5, 1)."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0.5, 1), got {text!r}") from None
    if not math.isfinite(value) or not 0.5 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0.5, 1), got {text!r}")
    return value


def _min_clients(text):
    """--min-clients: a whole number >= 1."""
    import argparse

    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of clients >= 1, got {text!r}")
    return int(text)


def _evidence(index, candidate, version, confidence=0.95, min_clients=None):
    """(evidence dict or None, why there is none): learnsim.feedback's comparison of the candidate
    with the served model, where that function exists and the index has the clicks it needs."""
    try:
        from ..feedback import promotion_evidence
    except ImportError:
        return None, "this learnsim has no promotion evidence (learnsim.feedback.promotion_evidence)"
    try:
        options = {} if min_clients is None else {"min_clients": min_clients}
        evidence = promotion_evidence(index, candidate, candidate_version=version, confidence=confidence, **options)
    except (ValueError, OSError) as exc:        # no clicks logged, too few, ...
        from ..feedback._log import LogDamaged

        if isinstance(exc, LogDamaged):
            # a damaged log is the input's fault, not a refusal of the candidate: exit 2, one line
            raise UsageError(" ".join(str(exc).split())) from None
        return None, f"no comparison could be made ({' '.join(str(exc).split())})"
    if not isinstance(evidence, dict) or not isinstance(evidence.get("better"), bool):
        return None, "the comparison did not say whether the candidate is better"
    return evidence, None


def _promote(args, index):
    """``index promote``: stage --model (or take --version), compare, promote or refuse (exit 1)."""
    import sys

    if args.model is not None:
        version = index.stage(Path(args.model), source=str(args.model))
    elif args.version is None:
        staged = [v["version"] for v in index.versions() if v["status"] == "candidate"]
        if not staged:
            raise UsageError(f"{index.path} has no candidate model version: give --model FILE (it is staged "
                             "first) or --version N")
        version = max(staged)
    else:
        version = args.version
        if version < 1:
            raise UsageError(f"--version {version}: a version is a positive number (see 'learnsim index versions')")
    served = index.model_version
    if version == served:
        raise UsageError(f"model version {version} is already served")
    candidate = index.version_pipeline(version)
    evidence, missing = _evidence(index, candidate, version, getattr(args, "confidence", 0.95),
                                  getattr(args, "min_clients", None))
    if args.force:
        comparison = {"forced": True, **(evidence or {})}
        if missing:
            comparison.setdefault("error", missing)
    elif evidence is None or not evidence["better"]:
        why = missing or f"it is not better than the served version {served}: " + \
            " ".join(str(evidence.get("reason") or "no reason given").split())
        message = (f"refused to promote model version {version} (staged as a candidate): {why}; "
                   "pass --force to promote it anyway")
        # what was found stays with the candidate: 'index versions' and /v1/info show it
        index.record_comparison(version, evidence if evidence is not None else {"better": False, "reason": why})
        print(f"learnsim index: {message}", file=sys.stderr)
        if args.json:
            _print_json({"promoted": False, "version": version, "served": served, "reason": why,
                         "evidence": evidence, "exit_code": 1})
        return 1
    else:
        comparison = evidence
    result = index.promote(version, comparison=comparison)
    if args.json:
        _print_json(dict(result, promoted=True))
    else:
        forced = " (forced)" if args.force else ""
        print(f"Promoted model version {result['version']} ({result['method']}) over version {result['previous']}"
              f"{forced}: recomputed the rows of {result['documents']} documents. 'learnsim index rollback "
              f"{index.path}' serves version {result['previous']} again.")
    return 0


def _verify(args):
    """``index verify``: the report on stdout, one line per damaged file on stderr, exit 2 then."""
    import sys

    from ..index import Index

    path = Path(args.index)
    if not path.is_dir():
        raise UsageError(f"{path} is not a directory holding an index (build one with 'learnsim index build')")
    try:
        report = Index.verify_at(path)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        _print_json(report)
    elif report["ok"]:
        print(f"{path}: intact ({report['files']} files, {report['bytes'] / 1e6:.1f} MB checked in "
              f"{report['seconds']:.2f} s)")
    else:
        print(f"{path}: {len(report['damaged'])} damaged file(s) ({report['files']} files checked in "
              f"{report['seconds']:.2f} s)")
    if not args.json:
        for note in report.get("notes", ()):
            print(f"note: {note}")
    for d in report["damaged"]:
        print(f"{d['file']}: {d['problem']}", file=sys.stderr)
    return 0 if report["ok"] else 2


def _id_of_line(index, line):
    """The id a line of an --ids file names: the line as it is, or, where that is no live id and
    the line without its surrounding blanks is one (a file written with trailing spaces), that."""
    if line == line.strip() or _live(index, line) or not _live(index, line.strip()):
        return line
    return line.strip()


def _note_other_forms(index, ids, corpus, update):
    """Say where an id of ``ids`` is, in another Unicode form (NFC or NFD), an indexed id and is not
    indexed itself: 'café' indexed precomposed and added with a combining accent is a second
    document that prints alike (an id is taken as written, docs/indexes.md), and under --update it
    replaces nothing (the old text stays beside the new); nothing said so. One note, the first."""
    import unicodedata

    for doc_id in ids:
        if doc_id is None or doc_id.isascii():
            continue
        for form in ("NFC", "NFD"):
            other = unicodedata.normalize(form, doc_id)
            if other != doc_id and _live(index, other) and not _live(index, doc_id):
                what = "is added beside it, replacing nothing" if update else "is a second document"
                _note(f"note: {corpus}: the id {ascii(doc_id[:40])} is the indexed id {ascii(other[:40])} in another "
                      f"Unicode form (the same text in NFC, one with a combining character): two ids, so it {what}, "
                      "printing alike; write it as the index does to make them one")
                return


def _live(index, doc_id):
    import sqlite3

    from ..index import IndexDamagedError

    try:
        index.store.live_seq_of(doc_id)
        return True
    except KeyError:
        return False
    except sqlite3.DatabaseError as exc:        # a damaged docs.sqlite: one line naming it
        raise IndexDamagedError(index.path / "docs.sqlite", f"SQLite cannot use it ({exc})") from None
