"""The rule under a table's header is at most the terminal's width (COLUMNS, 80 where it is not
known): 'learnsim index info' printed a rule of 173 dashes under a value column holding a long
path, which wrapped into three lines of dashes on an 80-column terminal."""
from __future__ import annotations

import os

import pytest

from conftest import run_cli
from learnsim.cli._common import _table


def _no_terminal(monkeypatch):
    """No COLUMNS and no terminal (as under a pipe): 80 columns."""
    def no_size(*_args):
        raise OSError("not a terminal")

    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(os, "get_terminal_size", no_size)


def _rule(text):
    return text.splitlines()[1]


@pytest.mark.parametrize("columns", [None, "60", "120"])
def test_the_rule_is_at_most_the_terminal_width(monkeypatch, columns):
    if columns is None:
        _no_terminal(monkeypatch)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    width = int(columns or 80)
    text = _table(["", "value"], [["path", "x" * 170], ["documents", "12"]], align="<<")
    rule = _rule(text)
    assert set(rule) <= {"-", " "} and len(rule) <= width
    assert len(rule) >= min(width, 20)          # still a rule under both columns
    assert "x" * 170 in text                    # no value is cut


def test_a_narrow_table_keeps_its_rule(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    text = _table(["method", "MAP"], [["bm25", "0.250"]])
    assert _rule(text) == "------  -----"


def test_index_info_of_a_long_path_has_a_rule_within_80_columns(tmp_path, clustered_train_tsv, monkeypatch):
    _no_terminal(monkeypatch)
    model = tmp_path / "m.npz"
    code, _out, err = run_cli(["fit", "--input", clustered_train_tsv, "--model", model, "--method", "mcd"])
    assert code == 0, err
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("".join(f"d{i}\tsome text number {i} about things\n" for i in range(12)), encoding="utf-8")
    out_dir = tmp_path / ("a_rather_long_folder_name_for_an_index_" * 4)
    code, _out, err = run_cli(["index", "build", "--model", model, "--corpus", corpus, "--out", out_dir])
    assert code == 0, err
    code, out, err = run_cli(["index", "info", out_dir])
    assert code == 0, err
    rule = _rule(out)
    assert set(rule) <= {"-", " "} and 20 <= len(rule) <= 80, rule


def test_snippet_columns_are_cut_to_fit_the_terminal(monkeypatch):
    _no_terminal(monkeypatch)
    long_a, long_b = "word " * 40, "東京の天気は明日から崩れる見込みで" * 4
    text = _table(["line", "score", "text a", "text b"], [[1, "0.500", long_a, long_b]], align=">><<",
                  texts=(2, 3))
    header, rule, row = text.splitlines()
    width = sum(2 if ord(c) > 0x2e80 else 1 for c in row)
    assert width <= 80 and len(rule) <= 80
    assert row.count("...") == 2


def test_search_rows_fit_an_80_column_pipe(tmp_path, clustered_train_tsv, monkeypatch):
    _no_terminal(monkeypatch)
    model = tmp_path / "m.npz"
    code, _out, err = run_cli(["fit", "--input", clustered_train_tsv, "--model", model, "--method", "mcd"])
    assert code == 0, err
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("".join(f"d{i}\t{'some rather long text about things ' * 5}{i}\n" for i in range(12)),
                      encoding="utf-8")
    code, out, err = run_cli(["search", "--model", model, "--corpus", corpus, "--query", "long text", "-k", "3"])
    assert code == 0, err
    lines = out.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("----"))
    for line in lines[rule:rule + 4]:
        assert len(line) <= 80, line


def test_two_text_columns_give_way_alike(monkeypatch):
    # the first cut took all it could from one column: text a 33 columns, text b 19
    _no_terminal(monkeypatch)
    a, b = "国产手机发热严重，玩游戏烫手。" * 3, "国产手机发热严重；玩游戏烫手。" * 3
    text = _table(["line", "P(dup)", "decision", "text a", "text b"], [[1, "0.929", "duplicate", a, b]],
                  align=">><<<", texts=(3, 4))
    rule = _rule(text).split("  ")
    assert abs(len(rule[3]) - len(rule[4])) <= 2, rule
