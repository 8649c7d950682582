"""'learnsim search --help' and 'learnsim evaluate --help' sent the reader of --run and --queries to
the query file layouts "below", where the help prints them above the options."""
from __future__ import annotations

import pytest

from conftest import run_cli


@pytest.mark.parametrize("command", ["search", "evaluate", "match"])
def test_every_layouts_pointer_points_where_the_layouts_are(command):
    code, out, _ = run_cli([command, "--help"])
    assert code == 0
    options = out.index("\noptions:\n")
    for word, before in (("(layouts below)", False), ("(layouts above)", True)):
        at = out.find(word)
        while at != -1:
            assert (at > options) == before, f"{command} --help: {word} at {at}, options at {options}"
            assert "layouts" in out[:options], f"{command} --help names layouts its description does not give"
            at = out.find(word, at + 1)
    assert "(layouts below)" not in out


def test_fit_help_lists_every_method_it_takes():
    """fit's description listed four methods (mcd, film, linklearn, relative) where --method takes
    five: the query-side adapter over --encoder was missing."""
    from learnsim.cli import build_parser

    parser = build_parser(["fit", "--help"])
    fit = next(a for a in parser._actions if a.dest == "command").choices["fit"]
    methods = next(a for a in fit._actions if a.dest == "method").choices
    code, out, _ = run_cli(["fit", "--help"])
    assert code == 0
    description = out.split("\ninput layouts", 1)[0]
    assert all(f"--method {m} " in description for m in methods), methods
