"""--progress / --no-progress after an action of a command with actions (`learnsim index build
... --no-progress`): docs/command-line.md promises them for every command, and `learnsim index
--help` lists them, but an action's parser refused them as unrecognised (stop 84's docs walk)."""
import argparse

import pytest

from learnsim.cli import build_parser, main


def _actions(parser):
    return next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _nested():
    commands = _actions(build_parser())
    for name, command in commands.items():
        inner = [a for a in command._actions if isinstance(a, argparse._SubParsersAction)]
        for action in (inner[0].choices if inner else {}):
            yield name, action


NESTED = sorted(set(_nested()))


@pytest.mark.parametrize("command, action", NESTED)
def test_every_action_takes_the_progress_flags(command, action):
    parser = _actions(_actions(build_parser())[command])[action]
    assert {"--progress", "--no-progress"} <= set(parser._option_string_actions)


@pytest.mark.parametrize("flag, wanted", [("--progress", True), ("--no-progress", False)])
def test_the_flag_after_the_action_is_read(flag, wanted):
    parsed, rest = build_parser().parse_known_args(["index", "verify", "x", flag])
    assert flag not in rest and parsed.progress is wanted


def test_the_flag_before_the_action_still_counts():
    parsed, _ = build_parser().parse_known_args(["index", "--no-progress", "verify", "x"])
    assert parsed.progress is False


def test_an_action_given_the_flag_goes_on_to_its_own_check(tmp_path, capsys):
    # before, argparse stopped at the flag ("unrecognized arguments: --no-progress")
    assert main(["index", "verify", str(tmp_path / "nosuch"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "unrecognized" not in err and "nosuch" in err
