"""``learnsim dedupe``: the groups of near-duplicates of an indexed collection."""
from __future__ import annotations

import sys
import textwrap

from ._common import (_check_output_file, _examples, _formatter, _positive_int, _print_json, _snippet, _table,
                      is_stdout, UsageError, _vectorize, _warn_empty_rows, write_output)


def register(commands):
    """Add the command's parser to ``commands``."""
    dedupe = commands.add_parser(
        "dedupe", formatter_class=_formatter, help="group the near-duplicates of an indexed collection",
        description=textwrap.dedent("""\
            Check each document's --neighbours nearest documents of the index with the
            duplicate rule its model validated on held-out pairs ('learnsim fit --method film
            --pairs'), and group the accepted pairs: by default every two documents of a
            group are a pair the rule accepted (--linkage complete; the most probable pairs
            first), so that a chain a~b~c~d never puts a and d together; --linkage single
            joins the accepted pairs transitively (a duplicate of a duplicate is in the same
            group), which can gather unrelated documents into one large group. --out writes
            one line per grouped document:
              group<TAB>id<TAB>probability<TAB>text
            (probability: the largest with which the document was matched to another
            document of its group)."""),
        epilog=_examples("learnsim dedupe --index idx/ --out groups.tsv",
                         "learnsim dedupe --index idx/ --neighbours 20 --json > groups.json",
                         "learnsim dedupe --index idx/ --linkage single --out chains.tsv"))
    dedupe.add_argument("--index", required=True, metavar="DIR", help="an index built by 'learnsim index build'")
    dedupe.add_argument("--out", metavar="FILE", help="write the groups as a TSV table")
    dedupe.add_argument("--neighbours", "--neighbors", type=_positive_int, default=10, metavar="K", dest="neighbours",
                        help="nearest documents checked per document (default: 10)")
    dedupe.add_argument("--linkage", choices=("complete", "single"), default="complete",
                        help="complete: every two documents of a group are accepted duplicates (default); "
                             "single: the connected components of the accepted pairs (chains join)")
    dedupe.add_argument("--json", action="store_true", help="print the groups as JSON on stdout")
    dedupe.set_defaults(handler=run)
    return dedupe


def write_table(path, header, rows, exact=()):
    """A TSV file (tabs and newlines inside a cell become spaces), whole or not at all
    (:func:`write_output`). The cells of the ``exact`` columns (the ids) are written as they are:
    collapsed, an id "d  7" or " d8" came out as "d 7" or "d8", an id no document has; one that
    holds a TAB or a line break, which no TSV line can, is a UsageError naming it."""
    rows = [[str(c) for c in row] for row in rows]
    for row in rows:
        for column in exact:
            if any(c in row[column] for c in "\t\n\r"):
                raise UsageError(f"--out {path}: the {header[column]} {row[column][:80]!r} holds a TAB or a line "
                                 "break, which a TSV line cannot hold; --json gives it as it is")

    def write(fh):
        fh.write("\t".join(header) + "\n")
        for row in rows:
            fh.write("\t".join(c if k in exact else " ".join(c.split()) for k, c in enumerate(row)) + "\n")

    write_output(path, write)


def run(args):
    from .index import open_index, require_duplicate_rule

    out = _check_output_file(args.out, "--out", inputs=[args.index], example="duplicates.tsv") if args.out else None
    index = open_index(args.index)
    require_duplicate_rule(index)
    if getattr(index.pipeline.match_rule, "graded", False):
        # the index's own error named what the model cannot do, not what groups duplicates
        raise UsageError(f"the model of the index {index.path} was fitted on graded pairs: it predicts a similarity "
                         "score per pair ('learnsim match --index' ranks by it), not duplicates to group; for dedupe, "
                         "fit a model on pairs labelled 1 (duplicate) and 0 (for instance 1 where the score is at "
                         "least a cut you choose) and build the index from it")
    groups = index.dedupe(k=args.neighbours, linkage=args.linkage)
    if not groups and len(index) and index.info().get("encoder") is None:
        # the duplicate rule compares term vectors over the fit's words: a collection in words
        # the fit never saw (Russian against a model fitted on English pairs) had "0 group(s)"
        # and no word of why (match --corpus says it of the same documents)
        texts = index.live_documents()[1]
        _warn_empty_rows(_vectorize(index.pipeline.vectorizer, texts), "indexed document", texts)
    if out is not None:
        write_table(out, ["group", "id", "probability", "text"],
                    [[g + 1, d["id"], f"{d['probability']:.4f}", d["text"]] for g, group in enumerate(groups)
                     for d in group], exact=(1,))
    if args.json:
        _print_json([{"group": g + 1, "documents": group} for g, group in enumerate(groups)])
        return 0
    n_docs = sum(len(g) for g in groups)
    # --out /dev/stdout: the table is stdout, and the summary after it was read as its last rows
    report = sys.stderr if out is not None and is_stdout(out) else sys.stdout
    print(f"{len(groups)} group(s) of near-duplicates, {n_docs} of the {len(index)} documents"
          + (f"; written to {out}" if out else "") + ".", file=report)
    for g, group in enumerate(groups[:10]):
        print(f"\ngroup {g + 1}:", file=report)
        print(_table(["id", "probability", "text"], [[d["id"], f"{d['probability']:.3f}", _snippet(d["text"], 70)]
                                                    for d in group], align="<><", texts=(2,)), file=report)
    if len(groups) > 10:
        print(f"\n... and {len(groups) - 10} more group(s)" + ("" if out else " (--out writes them all)"),
              file=report)
    return 0
