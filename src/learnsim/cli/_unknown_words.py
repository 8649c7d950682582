"""The message for words a command does not take ("unrecognized arguments"), with what the user
most likely meant: the near option of that command, the index folder given as ``--index`` to a
command that takes it as DIR, or a query of several words not quoted."""
from __future__ import annotations

import argparse
import difflib
import shlex


def unknown_words_message(parser, words, namespace):
    """'unrecognized arguments: WORDS' and, where one is found, a hint in parentheses."""
    message = f"unrecognized arguments: {' '.join(words)}"
    hint = _hint(parser, words, namespace)
    return f"{message} ({hint})" if hint else message


def _hint(parser, words, namespace):
    positionals = [a for a in parser._actions if not a.option_strings and a.dest != argparse.SUPPRESS
                   and not isinstance(a, argparse._SubParsersAction)]
    options = [s for a in parser._actions for s in a.option_strings if s.startswith("--")]
    for word in words:
        if not word.startswith("--"):
            continue
        name = word.split("=", 1)[0]
        if name == "--debug" and parser.prog.startswith("learnsim "):
            # an option of learnsim itself, not of its commands (--progress is both)
            return f"--debug goes before the command: 'learnsim --debug {parser.prog.split(' ', 1)[1]} ...'"
        taken = next((a for a in positionals if name == f"--{a.dest}"), None)
        if taken is not None:
            # serve, index info, feedback stats take the index as DIR, where search takes --index DIR
            before = [str(getattr(namespace, a.dest, "")) for a in positionals[:positionals.index(taken)]]
            usage = " ".join([parser.prog, *before, taken.metavar or taken.dest.upper()])
            what = "the index folder" if taken.dest == "index" else taken.metavar or taken.dest
            return f"give {what} without {name}: '{usage}'"
        near = difflib.get_close_matches(name, options, n=1, cutoff=0.75)
        if near:
            return f"did you mean {near[0]}?"
    queries = getattr(namespace, "query", None)
    if isinstance(queries, list) and queries and not any(w.startswith("-") for w in words):
        # the shell split an unquoted query: --query space shuttle -> 'space' and two stray words
        whole = " ".join([str(queries[-1]), *words])
        return f"a query of several words is one argument, in quotes: --query {shlex.quote(whole)}"
    return None
