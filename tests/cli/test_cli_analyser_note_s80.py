"""What 'learnsim evaluate' says the baselines read scripts without spaces as: a Japanese analyser
(SudachiPy, fugashi) reads Han and kana, jieba Han alone; the other runs (Hangul, Thai, and kana
under jieba) are character bigrams. The note said 'Chinese, Japanese, Korean and Thai as SudachiPy
words' whatever the analyser reads."""
from __future__ import annotations

import pytest

from conftest import run_cli

DOCS = ["d1\t東京の天気は晴れです", "d2\t大阪に行きます", "d3\t안녕하세요 친구", "d4\tสวัสดีครับ เพื่อน",
        "d5\t我喜欢学习中文", "d6\t京都の寺を見る"]


@pytest.mark.parametrize("analyzer, module", [("sudachi", "sudachipy"), ("jieba", "jieba")])
def test_the_note_names_what_the_analyser_reads(tmp_path, analyzer, module):
    pytest.importorskip(module)
    (tmp_path / "corpus.tsv").write_text("\n".join(DOCS) + "\n", encoding="utf-8")
    (tmp_path / "queries.tsv").write_text("q1\t東京の天気\nq2\t안녕 친구\n", encoding="utf-8")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d3 1\n", encoding="utf-8")
    code, out, err = run_cli(["evaluate", "--queries", str(tmp_path / "queries.tsv"), "--qrels",
                              str(tmp_path / "qrels.txt"), "--corpus", str(tmp_path / "corpus.tsv"),
                              "--analyzer", analyzer])
    assert code == 0, err
    said = out + err
    assert "Korean and Thai as SudachiPy" not in said and "Korean and Thai as jieba" not in said
    assert "Korean and Thai as character bigrams" in said
    if analyzer == "jieba":
        assert "kana" in said and "Chinese (Han) as jieba words" in said
    else:
        assert "Han and kana" in said and "SudachiPy words" in said
