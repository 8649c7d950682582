"""``learnsim feedback stats|export|purge DIR``: the click log that ``learnsim serve
--learn-from-clicks`` keeps beside an index (learnsim.feedback)."""
from __future__ import annotations

import json
import textwrap

from ._common import UsageError, _check_output_file, _examples, _formatter, _print_json, write_output


def register(commands):
    """Add the command's parser to ``commands``."""
    fb = commands.add_parser(
        "feedback", formatter_class=_formatter, help="the click log of a served index: stats, export, purge",
        description=textwrap.dedent("""\
            The impressions (what a search showed) and clicks (what was followed) that
            'learnsim serve --learn-from-clicks' records in DIR/feedback.sqlite. Nothing beyond the
            query text, the ids shown and clicked, the time, the model version and a pseudonym
            of the client is stored.
              stats    counts: impressions, clicks, queries, clients, click-through rate
              export   one JSON object per impression (--out FILE, or stdout); with
                       --comparisons, the relative comparisons a refit learns from instead:
                       query<TAB>clicked<TAB>skipped ('learnsim fit --method relative --clicks')
              purge    drop records older than --older-than DAYS, or --all"""),
        epilog=_examples("learnsim feedback stats idx/", "learnsim feedback export idx/ --out log.jsonl",
                         "learnsim feedback export idx/ --comparisons --out clicks.tsv",
                         "learnsim feedback purge idx/ --older-than 30"))
    fb.add_argument("action", choices=["stats", "export", "purge"])
    fb.add_argument("index", metavar="DIR", help="the index directory (or its feedback.sqlite)")
    fb.add_argument("--out", metavar="FILE", help="export: write there instead of stdout")
    fb.add_argument("--comparisons", action="store_true",
                    help="export: the comparisons (query<TAB>clicked<TAB>skipped), not the log")
    fb.add_argument("--older-than", type=float, metavar="DAYS", help="purge: records older than this")
    fb.add_argument("--all", action="store_true", help="purge: every record")
    fb.add_argument("--json", action="store_true", help="stats and purge: JSON on stdout")
    fb.set_defaults(handler=run)
    return fb


def open_log(path, readonly=True):
    """The FeedbackLog of an index directory (or file), or a UsageError naming the problem; never
    a new log (a mistyped path is "no feedback log", not an empty log made there)."""
    from ..feedback import FeedbackLog
    from ..feedback._log import OPEN_BUSY_TIMEOUT_S

    try:
        # a lock held by another process: waited for as long as the open waits, then one line
        return FeedbackLog(path, readonly=readonly, create=False, busy_timeout=OPEN_BUSY_TIMEOUT_S)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def run(args):
    from ..feedback import click_comparisons

    if args.action == "purge":
        if args.all == (args.older_than is not None):
            raise UsageError("purge needs --older-than DAYS or --all (one of them)")
        if args.older_than is not None and not args.older_than >= 0:
            raise UsageError(f"--older-than must be a number of days >= 0; got {args.older_than}")
        from ..feedback._log import FeedbackLogError, LogBusy

        with open_log(args.index, readonly=False) as log:
            try:
                n = log.purge(older_than_days=args.older_than, everything=args.all)
            except LogBusy as exc:
                # a healthy log another process holds (a server's write, a backup): nothing to move away
                raise UsageError(f"{log.path}: {exc}; retry when it is done") from None
            except FeedbackLogError as exc:
                raise UsageError(f"{log.path}: {exc}") from None
            future = log.purged_future
        if args.json:
            _print_json({"purged_impressions": n, "purged_future": future})
        else:
            dated = (f" ({future} of them stamped more than a day in the future: they cannot be dated)"
                     if future else "")
            print(f"Purged {n} impression(s) and their clicks{dated}.")
        return 0
    with open_log(args.index) as log:
        if args.action == "stats":
            stats = log.stats()
            if args.json:
                _print_json(stats)
            else:
                from datetime import datetime, timezone

                for key, value in stats.items():
                    if key in ("first", "last") and value is not None:     # seconds since 1970 in --json
                        value = datetime.fromtimestamp(value, timezone.utc).isoformat(timespec="seconds")
                    print(f"{key:22s} {value if value is not None else '-'}")
            return 0
        out = _check_export_out(args.out, log.path) if args.out else None
        if args.comparisons:
            rows = click_comparisons(log.impressions(with_clicks_only=True))
            lines = ["query\tclicked\tskipped"] + [_comparison_line(r, log.path) for r in rows]
        else:
            lines = [json.dumps(imp, ensure_ascii=False) for imp in log.impressions()]
    text = "\n".join(lines) + "\n"
    if out is None:
        print(text, end="")
    else:
        write_output(out, lambda fh: fh.write(text))
    return 0


def _comparison_line(row, log_path):
    """One ``query<TAB>clicked<TAB>skipped`` line of ``export --comparisons``, as ``learnsim fit
    --clicks`` reads it back (fields split at tabs, lines at \\n, \\r\\n or \\r, each field
    stripped). The query's whitespace is collapsed (a query is text: its spacing says nothing),
    the ids are written verbatim: collapsed too, "doc  7" became "doc 7", another document, and
    the refit learned from clicks nobody made. An id that layout cannot hold (a tab, a line
    break, whitespace at an end) is a UsageError: nothing is written."""
    query, clicked, skipped = row
    for doc_id in (clicked, skipped):
        doc_id = str(doc_id)
        if "\t" in doc_id or "\n" in doc_id or "\r" in doc_id or doc_id != doc_id.strip():
            raise UsageError(f"{log_path}: document id {doc_id[:80]!r} cannot be written as query<TAB>clicked<TAB>"
                             "skipped (it holds a tab, a line break or whitespace at an end, which 'learnsim fit "
                             "--clicks' would read as another id); export the log without --comparisons (JSON "
                             "lines), or fit from it with 'learnsim fit --clicks-from'")
    return "\t".join((" ".join(str(query).split()), str(clicked), str(skipped)))


def _check_export_out(out, log_path):
    """--out of export (:func:`_check_output_file`): never the log, nor its journal files, nor a
    file of the index it lies in (symbolic links followed): writing there would destroy every
    click acknowledged, or the index."""
    from pathlib import Path

    log_file = Path(log_path)
    inputs = [log_file.with_name(log_file.name + tail) for tail in ("", "-wal", "-shm", "-journal")]
    if (log_file.parent / "manifest.json").exists():
        inputs.append(log_file.parent)
    return _check_output_file(out, "--out", inputs=inputs, example="log.jsonl")


def logged_clicks(directory):
    """(ids, texts, impressions with clicks) of an index's live documents and its click log: what
    ``learnsim fit --clicks-from`` learns from (comparisons for relative, judgements otherwise)."""
    from ..index import open_index

    index = open_index(directory)
    try:
        ids, texts = index.live_documents()
    finally:
        index.close()
    with open_log(directory) as log:
        impressions = list(log.impressions(with_clicks_only=True))
    return ids, texts, impressions
