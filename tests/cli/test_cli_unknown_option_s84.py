"""A word a command does not take was reported by the top-level parser: 'learnsim dedupe --index
idx --threshold 0.9' said "learnsim: error: unrecognized arguments: --threshold 0.9 (see 'learnsim
--help')", naming neither the command nor the help that lists its options; 'learnsim serve --index
idx' (serve takes the index as DIR) and an unquoted query ('--query space shuttle') were as bare."""
from __future__ import annotations

import pytest

from conftest import run_cli


def _one_line(args):
    code, out, err = run_cli(args)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, (code, err)
    return lines[0]


@pytest.mark.parametrize("args, prog", [
    (["dedupe", "--index", "idx", "--threshold", "0.9"], "learnsim dedupe"),
    (["fit", "--input", "a.tsv", "--model", "m.npz", "--bogus"], "learnsim fit"),
    (["index", "add", "idx", "--corpus", "a.jsonl", "--bogus"], "learnsim index add"),
    (["feedback", "stats", "idx", "--bogus"], "learnsim feedback"),
])
def test_an_unknown_option_names_the_command_and_its_help(args, prog):
    line = _one_line(args)
    assert line.startswith(f"{prog}: error: unrecognized arguments: ")
    assert f"(see '{prog} --help')" in line
    assert "'learnsim --help'" not in line


def test_a_misspelt_option_is_offered_the_near_one():
    line = _one_line(["search", "--index", "idx", "--query", "x", "--run-tagg", "t"])
    assert "--run-tagg" in line and "did you mean --run-tag?" in line


@pytest.mark.parametrize("command", [["serve"], ["index", "info"], ["index", "verify"], ["feedback", "stats"]])
def test_index_given_as_option_to_a_command_that_takes_dir(command):
    line = _one_line([*command, "--index", "idx"])
    assert "unrecognized arguments: --index" in line
    assert f"give the index folder without --index: 'learnsim {' '.join(command)} DIR'" in line


def test_an_unquoted_query_says_to_quote_it():
    line = _one_line(["search", "--index", "idx", "--query", "space", "shuttle", "launch"])
    assert "unrecognized arguments: shuttle launch" in line
    assert "--query 'space shuttle launch'" in line


def test_a_top_level_unknown_option_keeps_the_top_level_help():
    line = _one_line(["--bogus", "search", "--index", "idx", "--query", "x"])
    assert line.startswith("learnsim: error: unrecognized arguments: --bogus")
    assert "(see 'learnsim --help')" in line


@pytest.mark.parametrize("args, near", [(["serach", "--index", "idx", "--query", "x"], "search"),
                                        (["index", "biuld", "--model", "m.npz"], "build"),
                                        (["fit", "--method", "flim", "--input", "a.tsv", "--model", "m.npz"], "film")])
def test_a_misspelt_choice_is_offered_the_near_one(args, near):
    line = _one_line(args)
    assert "invalid choice" in line and f"did you mean '{near}'?" in line


def test_a_choice_near_nothing_gets_no_guess():
    line = _one_line(["zzzz"])
    assert "invalid choice: 'zzzz'" in line and "did you mean" not in line


def test_debug_after_the_command_says_where_it_goes():
    line = _one_line(["search", "--index", "idx", "--query", "x", "--debug"])
    assert "unrecognized arguments: --debug" in line and "'learnsim --debug search ...'" in line
