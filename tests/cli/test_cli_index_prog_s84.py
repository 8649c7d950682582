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


def test_ann_min_rows_is_checked_as_an_option_and_its_default_said():
    """--ann-min-rows 10abc said "invalid int value: '10abc'", -5 "ann['min_rows'] must be a positive
    integer" (the Python argument, not the option); its help said "default: the index's
    ANN_MIN_ROWS", a name no user can look up."""
    from learnsim.index._ann import ANN_MIN_ROWS

    code, out, _ = run_cli(["index", "build", "--help"])
    assert code == 0 and f"(default: {ANN_MIN_ROWS:,})" in " ".join(out.split())
    for bad in ("10abc", "-5", "0"):
        code, _, err = run_cli(["index", "build", "--model", "m.npz", "--corpus", "c.jsonl", "--out", "idx",
                                "--ann-min-rows", bad])
        assert code == 2 and err.count("\n") == 1
        assert f"argument --ann-min-rows: expected a positive integer, got '{bad}'" in err
