"""A file or folder option given an empty value (an unset shell variable: --out "$OUT") is a usage
error naming the option. It was read as the current folder: demo --out '' wrote results.json,
demo_pr.png and index/ into the working folder with exit 0, cluster --out '' printed the table on
stdout with exit 0, and fit --input '' said '--model m.npz is inside , which the command reads'."""
from __future__ import annotations

import pytest

from conftest import run_cli


@pytest.mark.parametrize("args, option", [
    (["demo", "--out", ""], "--out"),
    (["demo", "--out", " "], "--out"),
    (["cluster", "--index", "{tmp}/idx", "--k", "2", "--out", ""], "--out"),
    (["dedupe", "--index", "{tmp}/idx", "--out", ""], "--out"),
    (["fit", "--input", "", "--model", "{tmp}/m.npz"], "--input"),
    (["fit", "--input", "{tmp}/train.tsv", "--model", ""], "--model"),
    (["search", "--model", "{tmp}/m.npz", "--corpus", "", "--query", "x"], "--corpus"),
    (["search", "--index", "", "--query", "x"], "--index"),
    (["evaluate", "--qrels", "", "--run", "{tmp}/run.txt"], "--qrels"),
    (["reproduce", "mochihashi", "--json", ""], "--json"),
    (["feedback", "stats", ""], "index"),
])
def test_an_empty_path_is_refused_naming_its_option(args, option, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli([a.format(tmp=tmp_path) for a in args])
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and option in lines[0] and "empty" in lines[0]
    assert out == ""
    assert list(tmp_path.iterdir()) == []          # nothing written in the working folder
