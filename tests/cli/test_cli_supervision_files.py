"""The supervision files read beside --input (--links, --triplets, --clicks): a missing one, a folder
or '-' is named with its option in one line, before the documents are read, not as Python's
"[Errno 2] No such file or directory: 'x'"."""
from __future__ import annotations

import pytest

from conftest import run_cli


@pytest.fixture
def pages(tmp_path):
    path = tmp_path / "pages.tsv"
    path.write_text("".join(f"p{i}\tword{i} shared text of page {i}\n" for i in range(12)), encoding="utf-8")
    (tmp_path / "a folder").mkdir()
    return path


CASES = [(["fit", "--method", "linklearn", "--links"], "--links"),
         (["fit", "--method", "relative", "--triplets"], "--triplets"),
         (["fit", "--method", "relative", "--clicks"], "--clicks"),
         (["evaluate", "--links"], "--links")]


def _args(command, value, pages, tmp_path):
    head, option = command
    args = head + [value, "--input", pages]
    if head[0] == "fit":
        args += ["--model", tmp_path / "m.npz"]
    else:
        args += ["--model", tmp_path / "none.npz"]
    return args, option


@pytest.mark.parametrize("command", CASES, ids=[" ".join(c[0]) for c in CASES])
@pytest.mark.parametrize("value, words", [("missing.tsv", "no such file"), ("a folder", "folder"),
                                          ("-", "standard input")])
def test_a_supervision_file_that_cannot_be_read_is_named_with_its_option(command, value, words, pages, tmp_path,
                                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    args, option = _args(command, value, pages, tmp_path)
    if args[0] == "evaluate":
        # evaluate loads the model first: give it one (a missing model would be the error)
        code, _, err = run_cli(["fit", "--method", "linklearn", "--input", pages, "--links", _links(tmp_path),
                                "--model", tmp_path / "none.npz"])
        assert code == 0, err
    code, out, err = run_cli(args)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert "Errno" not in lines[0]
    assert option in lines[0] and words in lines[0]


def _links(tmp_path):
    path = tmp_path / "links.tsv"
    path.write_text("".join(f"p{i}\tp{(i + 1) % 12}\np{i}\tp{(i + 5) % 12}\n" for i in range(12)), encoding="utf-8")
    return path
