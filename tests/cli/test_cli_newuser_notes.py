"""A new user's walk through learnsim on Japanese pairs (JSTS): the notes a fit prints."""
from __future__ import annotations

import json
import re

import pytest

from conftest import run_cli


def test_the_note_on_pairs_of_two_identical_texts_says_where_they_are_and_what_is_done(tmp_path):
    # JSTS's first 1,500 training pairs hold 10 such pairs, and the fit said only
    # "learnsim: 10 pair(s) of two identical texts": neither which lines nor whether they were
    # dropped, an error in the file, or learned from.
    rows = [{"sentence1": f"犬が公園を走っています{i}。", "sentence2": f"犬が公園で走っている様子です{i}。", "label": 4.0}
            for i in range(6)]
    rows += [{"sentence1": f"猫がソファで寝ています{i}。", "sentence2": f"電車が駅に止まっています{i}。", "label": 0.0}
             for i in range(6)]
    rows.insert(3, {"sentence1": "男性が海で泳いでいます。", "sentence2": "男性が海で泳いでいます。", "label": 5.0})
    path = tmp_path / "pairs.json"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", path, "--model", tmp_path / "m.npz",
                              "--baseline-holdout", "none"])
    assert code == 0, err
    note = next(line for line in err.splitlines() if "pair(s) of two identical texts" in line)
    assert note.startswith("learnsim: 1 pair(s) of two identical texts"), note
    assert re.search(r"\bline 4\b", note), note          # the file's line of the pair
    assert "kept" in note, note


def _graded(tmp_path):
    rows = [{"sentence1": f"犬が公園を走っています{i}。", "sentence2": f"犬が公園で走っている様子です{i}。", "label": 4.0}
            for i in range(8)]
    rows += [{"sentence1": f"猫がソファで寝ています{i}。", "sentence2": f"電車が駅に止まっています{i}。", "label": 0.4}
             for i in range(8)]
    rows += [{"sentence1": f"男性が海で泳いでいます{i}。", "sentence2": f"男性が海辺を歩いています{i}。", "label": 2.2}
             for i in range(8)]
    path = tmp_path / "graded.json"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    corpus = tmp_path / "corpus.jsonl"
    texts = sorted({t for r in rows for t in (r["sentence1"], r["sentence2"])})
    corpus.write_text("".join(json.dumps({"id": f"s{i}", "text": t}, ensure_ascii=False) + "\n"
                              for i, t in enumerate(texts)), encoding="utf-8")
    model, index = tmp_path / "m.npz", tmp_path / "idx"
    code, _, err = run_cli(["fit", "--method", "film", "--pairs", path, "--model", model, "--baseline-holdout", "none"])
    assert code == 0, err
    code, _, err = run_cli(["index", "build", "--model", model, "--corpus", corpus, "--out", index])
    assert code == 0, err
    return index


def test_dedupe_with_a_model_of_graded_pairs_says_which_model_dedupes(tmp_path):
    # JSTS's pairs are graded (0 to 5): 'learnsim dedupe' over their index said the model "predicts a
    # similarity score per pair, not duplicates to group", and nothing of what does group them.
    index = _graded(tmp_path)
    code, out, err = run_cli(["dedupe", "--index", index])
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "graded" in lines[0] and "learnsim match" in lines[0], lines[0]
    assert "labelled 1" in lines[0] and "0" in lines[0], lines[0]      # the remedy: pairs labelled 1 and 0


def test_an_analyzer_of_another_language_is_refused_in_the_command_line_s_words(tmp_path):
    # 'fit --language ja --analyzer jieba' said "--language/--analyzer: analyzer='jieba' reads
    # Chinese, not language='ja'": Python's keywords, and no analyser that does read Japanese.
    corpus = tmp_path / "ja.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "label": "ab"[i % 2], "text": f"東京の天気{i}"},
                                         ensure_ascii=False) + "\n" for i in range(6)), encoding="utf-8")
    for language, analyzer, remedy in (("ja", "jieba", "--analyzer sudachi"), ("zh", "fugashi", "--analyzer jieba"),
                                     ("en", "jieba", "leave --analyzer out")):
        code, out, err = run_cli(["fit", "--input", corpus, "--model", tmp_path / "m.npz",
                                  "--language", language, "--analyzer", analyzer])
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1, err
        assert f"--analyzer {analyzer}" in lines[0] and f"--language {language}" in lines[0], lines[0]
        assert "analyzer=" not in lines[0] and remedy in lines[0], lines[0]


def test_fit_with_language_ja_says_which_analyser_read_the_text(tmp_path):
    # 'fit --language ja' takes SudachiPy where it is installed, else fugashi: the report said
    # "Fitted on 360 documents (360 in 9 clusters), 14521 features (tfidf)." and no word of which.
    pytest.importorskip("sudachipy")
    corpus = tmp_path / "ja.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "label": "ab"[i % 2], "text": t}, ensure_ascii=False) + "\n"
                              for i, t in enumerate(["東京の天気は雨です", "スマートフォンの電池が減る", "大阪の天気は晴れ",
                                                     "新しいスマートフォンの価格", "札幌の天気は雪", "中古のスマートフォン"])),
                      encoding="utf-8")
    for options, name in ((["--language", "ja"], "SudachiPy"), (["--analyzer", "fugashi"], "fugashi"), ([], None)):
        if name == "fugashi":
            pytest.importorskip("fugashi")
        code, out, err = run_cli(["fit", "--input", corpus, "--model", tmp_path / "m.npz", "--baseline-holdout", "none",
                                  *options])
        assert code == 0, err
        first = next(line for line in out.splitlines() if line.startswith("Fitted on"))
        if name is None:
            assert "words" not in first, first          # the default bigrams: the line as it was
        else:
            assert name in first and "words" in first, first
