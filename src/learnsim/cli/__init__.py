"""The ``learnsim`` command line: ``demo``, ``fit``, ``index``, ``search``, ``match``, ``dedupe``, ``cluster``,
``serve``, ``evaluate``, ``explain``, ``reproduce``.

Every command prints a human summary on stdout, or with ``--json`` one JSON document on stdout
and nothing else there (notes, warnings and progress bars go to stderr). A user error (a
missing or malformed file, a bad option) exits with status 2 and a one-line message; set
``--debug`` (before the command) to see the traceback instead.

One module per command (``fit``, ``search``, ...), each with ``register(commands)`` (its
parser) and ``run(args)``; what they share is in ``_common``.
"""
from __future__ import annotations

import argparse
import json
import sys
import warnings

from .. import __version__
from .._utils.progress import relabel, set_enabled, set_mode
from ._common import (_examples, _formatter, _Parser, _show_warning, UsageError, _UsageExit,
                      _user_error_message)

__all__ = ["main", "run", "build_parser", "UsageError"]

# The commands, each a module of this package (in the order of the help). Named, not imported:
# a command imports its own module alone (learnsim search, 0.3 s, spent 0.05-0.1 s importing
# the other eleven), --help and a line naming no command import them all.
_COMMANDS = ("demo", "fit", "index", "search", "match", "dedupe", "cluster", "evaluate", "explain", "reproduce",
             "serve", "feedback")


def _command_named(argv):
    """The name of the command that ``argv`` runs (its first word that is not an option), or None."""
    for word in argv or ():
        if not word.startswith("-"):
            return word if word in _COMMANDS else None
        if word == "--":
            return None
    return None


def _command_module(name):
    """The module of the command ``name`` (learnsim.cli.NAME), imported on first use."""
    import importlib

    return importlib.import_module(f"{__name__}.{name}")


def build_parser(argv=None):
    """The argparse parser of the ``learnsim`` command.

    ``argv``: the words it will parse. Where they name a command, only that command's parser is
    built (each takes 1-3 ms, argparse's and gettext's work, all of them 10-25 ms: up to a tenth
    of a command-line search); else every one.
    """
    wanted = _command_named(argv)
    parser = _Parser(
        prog="learnsim", formatter_class=_formatter,
        description="Learn a task-specific similarity for text from clusters of documents, "
                    "search with it and evaluate it.",
        epilog=_examples("learnsim demo                          # the whole job on a synthetic corpus",
                         "learnsim fit --input train.tsv --model model.npz",
                         "learnsim search --model model.npz --corpus docs.tsv --query 'space shuttle'",
                         "learnsim index build --model model.npz --corpus docs.jsonl --out idx/",
                         "learnsim search --index idx/ --query 'space shuttle' --explain",
                         "learnsim fit --method film --pairs pairs.tsv --model film.npz",
                         "learnsim match --model film.npz --pairs new_pairs.tsv",
                         "learnsim evaluate --model model.npz --input test.tsv",
                         "learnsim explain --model model.npz --pair 'first text' 'second text'",
                         "learnsim reproduce mochihashi --quick",
                         "",
                         "Run 'learnsim COMMAND --help' for the options and input layouts of a command.",
                         "",
                         "environment:",
                         "  LEARNSIM_PROGRESS=1|0  show / hide progress by default (default: bars on a terminal,",
                         "                         otherwise a plain line per stage of work that lasts 2 s or",
                         "                         more); --progress / --no-progress beat it",
                         "  LEARNSIM_PROGRESS_AFTER=SECONDS",
                         "                         off a terminal, how long work runs before it prints lines",
                         "  LEARNSIM_DATA=DIR      where the reproductions and corpus tests find the corpora"))
    parser.add_argument("--version", action="version", version=f"learnsim {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error instead of a one-line message")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress on stderr: bars on a terminal, otherwise plain lines (default: bars on "
                             "a terminal, lines only for work that lasts; the environment variable "
                             "LEARNSIM_PROGRESS=1 or 0 sets the default)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in _COMMANDS:
        if wanted is not None and name != wanted:
            continue            # a parse of another command never reads (nor imports) its parser
        sub = _command_module(name).register(commands)
        # and on each action of a command that has them (index build, feedback stats, ...): a
        # flag after the action is read by the action's parser alone
        nested = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
        for each in [sub] + [p for a in nested for p in a.choices.values()]:
            each.add_argument("--progress", action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS,
                              help="progress on stderr: bars on a terminal, else lines (default: lines only "
                                   "for work that lasts; LEARNSIM_PROGRESS=1|0)")
    return parser


# Bars the library draws, in words a user knows (learnsim._progress.relabel).
_PROGRESS_LABELS = {
    "Stiefel": "FILM: learning the metric (optimiser steps)",
    "LinkLearn": "LinkLearn: learning the term weights (documents drawn)",
    "mcd: selecting settings": "mcd: choosing the settings on held-out clusters (folds)",
    "cluster retrieval": "evaluate: ranking the documents",
    "retrieval evaluation": "evaluate: ranking the documents",
    "search": "scoring the documents",
}


def _wants_json(argv, args=None):
    """Whether the command asked for JSON on stdout (``reproduce --json PATH`` writes a file)."""
    if args is not None:
        return getattr(args, "json", None) is True
    return "--json" in argv and "reproduce" not in argv


#: The longest error line printed (characters; the middle of a longer one is cut).
MAX_MESSAGE = 2000


def _report_error(prog, message, code, as_json):
    """The one-line message on stderr and, with --json, {"error", "exit_code"} on stdout (where
    stdout can still be written)."""
    message = " ".join(str(message).split())
    if len(message) > MAX_MESSAGE:
        # a hostile value quoted whole (an id of a megabyte) would make the one line a megabyte
        message = message[:MAX_MESSAGE // 2] + f" [... {len(message) - MAX_MESSAGE} characters ...] " \
            + message[-MAX_MESSAGE // 2:]
    print(f"{prog}: error: {message}", file=sys.stderr)
    if as_json:
        try:
            print(json.dumps({"error": message, "exit_code": code}, ensure_ascii=False))
        except (OSError, ValueError):
            pass
    return code


def _help_written(code):
    """``code`` once --help or --version is flushed, 2 (and a line on stderr) where it cannot be:
    '--help > /dev/full' exited 0, its text lost when Python flushed it at exit."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()
    except (OSError, ValueError) as exc:
        return _unwritten_help(exc)
    return code


def _unwritten_help(exc):
    """Exit status 2 and one line for --help or --version that could not be written, as for a
    command's output (its status; Python's own exit on a failed flush gives 120)."""
    detail = "standard output is closed" if isinstance(sys.stdout, _ClosedStdout) else \
        (getattr(exc, "strerror", None) or str(exc))
    _stdout_to_devnull()
    return _report_error("learnsim", f"cannot write the output ({detail})", 2, False)


def _stdout_to_devnull():
    """Point stdout at devnull: what it holds can no longer be written (a reader that went away,
    a full disk), and Python's flush at exit must not fail again on top of the one line said."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _stdout_failed(exc):
    """Whether ``exc`` (an error of the system naming no file) is most likely stdout's: what stdout
    still holds cannot be written, a write of nothing to it fails (/dev/full, a bad descriptor), or
    its file system has no free block left. (A failed print drops what it was writing, so that a
    flush after it succeeds: it alone could not tell.)"""
    import errno
    import os

    if not isinstance(exc, OSError) or isinstance(exc, BrokenPipeError) or exc.filename is not None:
        return False
    try:
        sys.stdout.flush()
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):
        # no descriptor: a test's capture, or a closed stdout, whose error already says so
        return False
    try:
        os.write(fd, b"")
    except OSError:
        return True
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        try:
            space = os.fstatvfs(fd)
        except (OSError, AttributeError):
            return False
        root = getattr(os, "geteuid", lambda: -1)() == 0       # (root may use the blocks kept for it)
        return (space.f_bfree if root else space.f_bavail) == 0
    return False


def _drop_unwritable_stdout():
    """After an error of the operating system: :func:`_stdout_to_devnull` where stdout cannot
    take what it holds."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        _stdout_to_devnull()


# Commands that only read and print: once their output is flushed and the exit handlers have run,
# the process ends without the interpreter's teardown (collecting every module, object and array:
# 20-30 ms of a 0.3 s command-line search at 100k documents, on a 2-core Xeon). The others (they
# write indexes, models and logs, or serve) end as Python does.
_QUICK_EXIT = frozenset({"search"})


def run(argv=None):
    """What the ``learnsim`` console script and ``python -m learnsim`` run (through
    :func:`learnsim._console.run`, which first starts reading ahead the index a search reads):
    :func:`main`, and the exit of the process with its status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    code = main(argv)
    if _command_named(argv) in _QUICK_EXIT:
        _exit_now(code)
    return code


def _exit_now(code):
    """End the process now with ``code``: standard streams flushed, ``atexit`` handlers run (the
    logging module's, a coverage tool's), no teardown of the interpreter. Output that cannot be
    written (a full disk, a closed stream) is not a success: a line on stderr and status 120, as
    Python's own exit gives when its flush of stdout fails; a reader that went away (a closed
    pipe) is not an error of ours, as :func:`main` treats it."""
    import atexit
    import os

    code = code if isinstance(code, int) else (0 if code is None else 1)
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    except (OSError, ValueError) as exc:
        if code == 0:       # (an error already reported keeps its line and status)
            try:
                print(f"learnsim: error: cannot write the output ({getattr(exc, 'strerror', None) or exc})",
                      file=sys.stderr)
            except (OSError, ValueError):
                pass
            code = 120
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    atexit._run_exitfuncs()
    os._exit(code)


class _ClosedStdout:
    """sys.stdout of a process started with descriptor 1 closed (``learnsim search ... >&-``),
    where Python leaves None: print() then wrote nothing and the command exited 0 with its output
    lost, and the quick exit's flush raised AttributeError. Each write fails as a write to a bad
    descriptor does, which :func:`main` reports as it reports a full disk."""

    def write(self, text):
        import errno

        raise OSError(errno.EBADF, "cannot write the output: standard output is closed")

    def flush(self):
        pass

    def fileno(self):
        import io

        raise io.UnsupportedOperation("standard output is closed")


class _ClosedStderr:
    """sys.stderr of a process started with descriptor 2 closed: messages are dropped (the exit
    status still says what happened); left None, print(file=None) wrote the error line on stdout."""

    def write(self, text):
        return len(text)

    def flush(self):
        pass


def _stand_in_for_closed_streams():
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
    if sys.stderr is None:
        sys.stderr = _ClosedStderr()


def main(argv=None):
    """Run the ``learnsim`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit status.

    0 on success, 2 on a user error (message on stderr, one line; with ``--json`` also
    ``{"error": message, "exit_code": 2}`` on stdout), 130 when interrupted, and what ``--help``
    and ``--version`` exit with.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    _stand_in_for_closed_streams()
    parser = build_parser(argv)
    try:
        args = parser.parse_args(argv)
    except _UsageExit as exc:
        return _report_error(exc.prog, exc.message, 2, _wants_json(argv))
    except SystemExit as exc:  # --help, --version
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        return _help_written(code) if code == 0 else code
    except BrokenPipeError:     # the reader of --help went away (| head): as main treats a command's
        _stdout_to_devnull()
        return 0
    except OSError as exc:      # --help or --version could not be written (a closed stdout, a full disk)
        return _unwritten_help(exc)
    from ..exceptions import UndecodableBytesWarning   # (imports nothing: the readers load on first use)
    from ._output_encoding import decode_text_arguments, escape_unencodable_stdout

    as_json = _wants_json(argv, args)
    prog = f"learnsim {args.command}"
    if args.command == "index" and isinstance(getattr(args, "action", None), str):
        prog += f" {args.action}"       # as argparse names the action's parser ('learnsim index add')
    try:
        decode_text_arguments(args)
    except UsageError as exc:
        return _report_error(prog, str(exc), 2, as_json)
    restore_stdout = escape_unencodable_stdout()
    from ._environment import note_unknown_progress_values

    note_unknown_progress_values()
    from .._utils.embedding_home import set_default_embedding_folder

    old_folder = set_default_embedding_folder(*_embedding_folder(args))
    old_progress = set_enabled(args.progress)
    old_mode = set_mode("lines")   # off a terminal, plain lines for work that lasts (a terminal keeps its bars)
    encoding = getattr(args, "encoding", None)
    if encoding is not None:
        # --encoding (every command that reads the user's text files): each reader the command
        # runs decodes in it, as pandas' read_csv(encoding=) does, without threading it through
        # every call that passes --encoding-errors
        from ..datasets._decode import set_default_encoding

        old_encoding = set_default_encoding(encoding)
    with warnings.catch_warnings(), relabel(_PROGRESS_LABELS):
        # library warnings (too few clusters, empty documents) as one-line notes on stderr
        warnings.showwarning = _show_warning
        warnings.filterwarnings("always", category=UndecodableBytesWarning)   # one note per file read
        try:
            return args.handler(args)
        except KeyboardInterrupt:
            return _report_error("learnsim", "interrupted", 130, as_json)
        except BrokenPipeError:
            # the reader of stdout went away (learnsim search ... | head): not an error of ours;
            # point stdout at devnull so that Python's flush at exit does not raise again
            _stdout_to_devnull()
            return 0
        except Exception as exc:
            if not args.debug and _after_an_interrupt():
                # the interrupt turned into another error by what it stopped (an extension's
                # import raises ImportError, a half-loaded module a ValueError): not the user's
                return _report_error("learnsim", "interrupted", 130, as_json)
            message = None if args.debug else _user_error_message(exc)
            if message is not None and _stdout_failed(exc):
                # 'No space left on device' alone, after fit had saved its model, did not say that the
                # disk that was full is standard output's: said as --help > /dev/full says it
                message = f"cannot write the output ({exc.strerror or exc})"
            if message is None:
                if as_json:   # a bug: the traceback follows on stderr
                    print(json.dumps({"error": f"internal error: {type(exc).__name__}: {exc}", "exit_code": 1}))
                raise
            code = _report_error(prog, message, 2, as_json)
            if isinstance(exc, OSError):
                _drop_unwritable_stdout()
            return code
        finally:
            restore_stdout()
            if encoding is not None:
                set_default_encoding(old_encoding)
            set_enabled(old_progress)
            set_mode(old_mode)
            set_default_embedding_folder(*old_folder)


def _after_an_interrupt():
    """Whether the ``learnsim`` command's process was sent SIGINT (:mod:`learnsim._console`
    watches for it; main() called from Python is never)."""
    console = sys.modules.get("learnsim._console")
    return console is not None and console.interrupted()


# The commands that encode a collection keep its embeddings beside their model or index (issue
# 43): "m.npz" -> "m.embeddings/", "idx/" -> "idx.embeddings/". fit writes them, index build and
# evaluate with the same model read them. A server and single-query searches never write there
# (a caller could fill the disk with queries).
_ENCODING_COMMANDS = {"fit", "index", "evaluate", "search", "match", "dedupe", "cluster"}


def _embedding_folder(args):
    """(the embedding cache of this command or None, the folders also read): beside the model
    or the index; an index built from a model also reads the model's (and keeps what it takes in
    its own, so that a promotion later re-embeds nothing). ``LEARNSIM_EMBEDDING_CACHE`` names
    another folder, or "off" turns it off."""
    import os
    from pathlib import Path

    chosen = os.environ.get("LEARNSIM_EMBEDDING_CACHE", "").strip()
    if chosen.lower() in ("off", "0", "none", "false"):
        return None, ()
    if args.command not in _ENCODING_COMMANDS:
        return None, ()
    if args.command == "index" and getattr(args, "action", None) not in ("build", "add", "promote", "rollback"):
        return None, ()
    if args.command == "search" and getattr(args, "corpus", None) is None:
        return None, ()
    if chosen:
        return chosen, ()

    def beside(value, is_model):
        if not isinstance(value, (str, os.PathLike)) or not str(value).strip():
            return None
        path = Path(value)
        stem = path.name[:-len(path.suffix)] if path.suffix and is_model else path.name
        return str(path.parent / f"{stem or 'model'}.embeddings")

    model = beside(getattr(args, "model", None), True)
    index = beside(getattr(args, "out", None), False) or beside(getattr(args, "index", None), False)
    if args.command == "index" and index is not None:
        return index, tuple(f for f in (model,) if f is not None)
    return (model or index), ()


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
