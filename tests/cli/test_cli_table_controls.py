"""A table the command line prints writes a cell's control characters as escapes: a document id
holding a newline (an index keeps ids as given) broke a hit's row of ``learnsim search`` in two,
and a right-to-left override turned the rest of its row round."""
from __future__ import annotations

from conftest import run_cli
from index_models import corpus, model

from learnsim.cli._common import _table
from learnsim.index import Index


def test_a_cell_with_control_characters_stays_on_its_row():
    text = _table(["rank", "doc"], [[1, "a\nb"], [2, "x\u202ey"], [3, "café 漢字"], [4, "tab\there"]])
    lines = text.splitlines()
    assert len(lines) == 2 + 4
    assert "a\\nb" in lines[2] and "x\\u202ey" in lines[3] and "tab\\there" in lines[5]
    assert "café 漢字" in lines[4]          # printable text as it is


def test_search_prints_a_hit_whose_id_holds_a_newline_on_one_row(tmp_path):
    texts, _, ids, meta = corpus()
    ids = list(ids[:20])
    ids[0] = "first\nsecond"
    path = tmp_path / "idx"
    Index.build(path, model("mcd"), texts[:20], ids, meta[:20]).close()
    code, out, err = run_cli(["search", "--index", path, "--query", texts[0], "-k", "3"])
    assert code == 0, err
    rows = [line for line in out.splitlines() if line.strip().startswith(("1 ", "2 ", "3 "))]
    assert len(rows) == 3, out
    assert any("first\\nsecond" in row for row in rows), out
    assert not any(line.strip().startswith("second") for line in out.splitlines()), out


def test_the_explanation_line_names_such_an_id_as_its_row_does(tmp_path):
    texts, _, ids, meta = corpus()
    ids = list(ids[:20])
    ids[0] = "left\u202eright\tend"
    path = tmp_path / "idx"
    Index.build(path, model("mcd"), texts[:20], ids, meta[:20]).close()
    code, out, err = run_cli(["search", "--index", path, "--query", texts[0], "-k", "3", "--explain"])
    assert code == 0, err
    why = [line for line in out.splitlines() if line.startswith("  why left")]
    assert len(why) == 1 and why[0].startswith("  why left\\u202eright\\tend: "), out
    assert "\u202e" not in out and "\t" not in out
