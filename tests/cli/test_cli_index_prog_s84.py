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


def test_serve_names_a_missing_index_as_search_does(tmp_path):
    """'learnsim serve nosuch' said "nosuch holds no learnsim index (no manifest.json)" where search,
    dedupe and index info say that it does not exist; a file, that it is not a directory."""
    (tmp_path / "docs.jsonl").write_text('{"id": "a", "text": "b"}\n', encoding="utf-8")
    for path, words in ((tmp_path / "nosuch", "does not exist"), (tmp_path / "docs.jsonl", "is not a directory")):
        code, _, err = run_cli(["serve", path, "--port", "0"])
        assert code == 2 and err.count("\n") == 1
        assert err.startswith(f"learnsim serve: error: {path} {words} (build an index with 'learnsim index build')")
