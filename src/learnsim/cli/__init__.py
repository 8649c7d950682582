"""The ``learnsim`` command line: ``demo``, ``fit``, ``search``, ``match``, ``evaluate``, ``explain``, ``reproduce``.

Every command prints a human summary on stdout, or with ``--json`` one JSON document on stdout
and nothing else there (notes, warnings and progress bars go to stderr). A user error (a
missing or malformed file, a bad option) exits with status 2 and a one-line message; set
``--debug`` (before the command) to see the traceback instead.

One module per command (``fit``, ``search``, ...), each with ``register(commands)`` (its
parser) and ``run(args)``; what they share is in ``_common``.
"""
from __future__ import annotations

import sys
import warnings

from .. import __version__
from . import demo, evaluate, explain, fit, match, reproduce, search
from ..io import UndecodableBytesWarning
from ._common import UsageError, _examples, _formatter, _Parser, _show_warning, _user_error_message

__all__ = ["main", "build_parser", "UsageError"]

_COMMANDS = (demo, fit, search, match, evaluate, explain, reproduce)


def build_parser():
    """The argparse parser of the ``learnsim`` command."""
    parser = _Parser(
        prog="learnsim", formatter_class=_formatter,
        description="Learn a task-specific similarity for text from clusters of documents, "
                    "search with it and evaluate it.",
        epilog=_examples("learnsim demo                          # the whole job on a synthetic corpus",
                         "learnsim fit --input train.tsv --model model.npz",
                         "learnsim search --model model.npz --corpus docs.tsv --query 'space shuttle'",
                         "learnsim fit --method film --pairs pairs.tsv --model film.npz",
                         "learnsim match --model film.npz --pairs new_pairs.tsv",
                         "learnsim evaluate --model model.npz --input test.tsv",
                         "learnsim explain --model model.npz --pair 'first text' 'second text'",
                         "learnsim reproduce mochihashi --quick",
                         "",
                         "Run 'learnsim COMMAND --help' for the options of a command."))
    parser.add_argument("--version", action="version", version=f"learnsim {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error instead of a one-line message")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in _COMMANDS:
        module.register(commands)
    return parser


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
        warnings.showwarning = _show_warning
        warnings.filterwarnings("always", category=UndecodableBytesWarning)   # one note per file read
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
