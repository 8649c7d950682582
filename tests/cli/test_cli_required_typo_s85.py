"""A misspelt required option ('learnsim fit --input a.tsv --modle m.npz') was reported as
"the following arguments are required: --model", to a user who believes they gave it: argparse
checks the required options before it looks at the words it did not take. The word it did not
take is now named first, with the option meant."""
from __future__ import annotations

import pytest

from conftest import run_cli


@pytest.mark.parametrize("args, typo, meant", [
    (["fit", "--input", "a.tsv", "--modle", "m.npz"], "--modle", "--model"),
    (["search", "--index", "idx", "--qeury", "space"], "--qeury", "--query"),
    (["index", "build", "--model", "m.npz", "--corpus", "d.jsonl", "--ouT", "idx"], "--ouT", "--out"),
])
def test_a_misspelt_required_option_is_named(args, typo, meant):
    code, _, err = run_cli(args)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert f"unrecognized arguments: {typo}" in lines[0] and f"did you mean {meant}?" in lines[0]
    assert "required" in lines[0]


@pytest.mark.parametrize("args", [["fit", "--input", "a.tsv"], ["fit", "--inp", "a.tsv"], ["search", "--index", "idx"],
                                  ["fit", "--input", "a.tsv", "--", "--modle"]])
def test_a_missing_option_alone_is_as_before(args):
    code, _, err = run_cli(args)
    assert code == 2 and "unrecognized" not in err and "required" in err, err
