"""A fit that reads Chinese with a Japanese analyser (--language ja, --analyzer sudachi or fugashi)
warns, once, naming the analyser: it cut Chinese into Japanese morphemes (学习 into 学 and 习)
without a word said. The analysers are faked, so that these run where none is installed."""
from __future__ import annotations

import json
import warnings

import pytest

import learnsim
from learnsim.text import _tokenize

CHINESE = ["我喜欢学习中文", "学习中文很有意思", "北京今天的天气很好", "明天上海天气下雨", "坐火车去北京", "火车站在哪里",
           "小猫在睡觉", "猫喜欢吃鱼"]
JAPANESE = ["東京の天気は晴れです", "明日の東京の天気は雨", "カレーの作り方", "簡単な料理の作り方", "東京駅から電車に乗る",
            "電車が遅れている", "猫が窓の外を見ている", "東京都千代田区"]        # (the last of kanji alone)
LABELS = [0, 0, 1, 1, 2, 2, 3, 3]


def _pairs(run):
    return [(i, min(i + 2, len(run)), run[i:i + 2]) for i in range(0, len(run), 2)]


@pytest.fixture(autouse=True)
def fake_analysers(monkeypatch):
    monkeypatch.setattr(_tokenize, "_SEGMENTERS", {"sudachi": _pairs, "fugashi": _pairs, "jieba": _pairs,
                                                   "jieba search": _pairs})


def _language_warnings(texts, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        learnsim.fit(texts, clusters=LABELS, baseline_holdout=None, **options)
    return [w for w in caught if "look Chinese" in str(w.message)]


@pytest.mark.parametrize("options, name", [({"analyzer": "sudachi"}, "sudachi"), ({"analyzer": "fugashi"}, "fugashi"),
                                           ({"language": "ja", "analyzer": "sudachi"}, "sudachi")])
def test_chinese_read_with_a_japanese_analyser_warns_once(options, name):
    caught = _language_warnings(CHINESE, **options)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert f"analyzer={name!r}" in message and "bigrams" in message and "jieba" in message and "\n" not in message
    assert caught[0].filename == __file__       # at the caller's line


@pytest.mark.parametrize("texts, options", [(JAPANESE, {"analyzer": "sudachi"}), (CHINESE, {}),
                                            (CHINESE, {"analyzer": "jieba"}), (["cats and dogs"] * 8, {"analyzer": "fugashi"})])
def test_japanese_texts_or_another_analyser_say_nothing(texts, options):
    assert _language_warnings(texts, **options) == []


def test_the_share_of_texts_without_kana_decides():
    from learnsim.text._chinese import MIN_CHINESE_SHARE, looks_chinese

    # a Japanese collection quoting some Chinese: Japanese
    assert not looks_chinese(JAPANESE * 3 + CHINESE[:2])
    # Chinese with a text of kanji alone (an address), and with a few Japanese texts under the share
    assert looks_chinese(CHINESE + ["東京都千代田区"])
    few = int(len(CHINESE) * 3 * (1 - MIN_CHINESE_SHARE))
    assert looks_chinese(CHINESE * 3 + JAPANESE[:few]) and not looks_chinese(CHINESE * 3 + JAPANESE[:few + 2])
    assert not looks_chinese(["an English text"] * 20 + CHINESE[:1])     # Han in under a tenth of the texts


def test_learnsim_fit_says_it_in_one_line(tmp_path, capsys):
    from learnsim.cli import main

    path = tmp_path / "zh.jsonl"
    path.write_text("".join(json.dumps({"text": t, "label": str(label)}, ensure_ascii=False) + "\n"
                            for t, label in zip(CHINESE, LABELS)), encoding="utf-8")
    code = main(["fit", "--input", str(path), "--analyzer", "sudachi", "--model", str(tmp_path / "m.npz"),
                 "--baseline-holdout", "none"])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "look Chinese" in line]
    assert code == 0 and len(lines) == 1 and "'sudachi'" in lines[0] and "Traceback" not in err
