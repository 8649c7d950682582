"""An error of an index action was 'learnsim index: error: ...' where argparse's own errors of the
same action say 'learnsim index add: error: ...' (and its help is 'learnsim index add --help')."""
from __future__ import annotations

from conftest import run_cli


def test_an_index_action_error_names_the_action(tmp_path):
    for args, prog in ((["index", "info", tmp_path / "nosuch"], "learnsim index info"),
                       (["index", "delete", tmp_path / "nosuch", "--id", "x"], "learnsim index delete"),
                       (["index", "build", "--model", tmp_path / "no.npz", "--corpus", tmp_path / "c.jsonl",
                         "--out", tmp_path / "idx"], "learnsim index build")):
        code, _, err = run_cli(args)
        assert code == 2 and err.count("\n") == 1 and err.startswith(f"{prog}: error: "), err
