"""The ``learnsim`` console script and ``python -m learnsim``: :func:`learnsim.cli.run`, after
starting to read ahead what the command will read.

A command-line search of an index first imports numpy and learnsim (0.15-0.2 s, one core); the
index's files that its search reads and checks are read and hashed meanwhile on another core
(:mod:`learnsim._utils.prefetch`). This module imports only the standard library before that
starts.
"""
from __future__ import annotations

import sys

__all__ = ["run"]


def _index_of_search(argv):
    """The ``--index`` folder of a ``learnsim search`` command line, or None."""
    words = iter(argv)
    for word in words:
        if word == "--":
            return None
        if word.startswith("-"):
            continue            # a global option before the command (--debug, --progress)
        if word != "search":
            return None
        for word in words:
            if word == "--":
                return None
            if word == "--index":
                return next(words, None)
            if word.startswith("--index="):
                return word[len("--index="):]
        return None
    return None


def run(argv=None):
    """Read ahead where the command is a search of an index, then run it (:func:`learnsim.cli.run`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    _watch_interrupts()
    try:
        code = _run(argv)
    except KeyboardInterrupt:
        # Ctrl-C while the command's modules load (its first 0.2-0.5 s, before learnsim.cli.main
        # catches it): a traceback ending in KeyboardInterrupt; said as main says it later
        code = _interrupted(argv)
    except Exception:
        # an extension whose import was interrupted raises ImportError instead (numpy's
        # 'PyCapsule_Import could not import module "datetime"', status 1 and a traceback)
        if not interrupted():
            raise
        code = _interrupted(argv)
    if code == 130:
        _exit_interrupted()
    return code


# the times (time.monotonic) of the SIGINTs this process received: an error that follows one is
# the interrupt's, whatever an extension turned it into
_sigints = []


def interrupted():
    """Whether the command line's process has been sent SIGINT (Ctrl-C)."""
    return bool(_sigints)


def _watch_interrupts():
    import signal

    def on_sigint(signum, frame):
        import time

        _sigints.append(time.monotonic())
        signal.default_int_handler(signum, frame)       # KeyboardInterrupt, as before

    try:
        # only where Python's own handler is set: an ignored SIGINT (a job started with nohup or
        # '&' by a shell without job control) stays ignored
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, on_sigint)
    except (ValueError, OSError, AttributeError):     # not the main thread; no signals
        pass


def _exit_interrupted():
    """End an interrupted command with status 130 now: streams flushed, ``atexit`` handlers run.
    An interrupt raised inside code that an extension runs as a string (Cython's module init:
    charset_normalizer's, which numpy.f2py imports) leaves Python's own mark that it went
    unhandled, and Python's exit then ended the process by SIGINT (status -2) after learnsim had
    said 'interrupted'."""
    import atexit
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    atexit._run_exitfuncs()
    os._exit(130)


def _interrupted(argv):
    import json

    try:
        print("learnsim: error: interrupted", file=sys.stderr)
        if "--json" in argv and "reproduce" not in argv:     # (as learnsim.cli's _wants_json reads it)
            print(json.dumps({"error": "interrupted", "exit_code": 130}))
    except (OSError, ValueError, AttributeError):
        pass
    return 130


def _run(argv):
    folder = _index_of_search(argv)
    if folder:
        from ._utils import prefetch

        try:
            prefetch.start(prefetch.index_files(folder))
        except Exception:       # noqa: BLE001 - only a head start: the command reads and reports itself
            pass
    from .cli import run as run_command

    return run_command(argv)
