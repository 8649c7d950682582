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
