"""Every method learns from Japanese and Chinese text (issue 44, part 2): the fit's vectoriser
cuts it into bigrams (or an analyser's words) and records it, and the pair models' character
n-grams read it; what each learns is checked elsewhere, here that it reads the text."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import learnsim

TOPICS = [["東京の天気は晴れです", "明日の東京の天気は雨", "今日の天気予報を見た", "週末の天気は晴れの予報"],
          ["カレーライスの作り方", "美味しいカレーの作り方", "簡単な料理の作り方", "寿司の作り方と材料"],
          ["北京今天的天气很好", "明天上海天气下雨", "天气预报说明天晴天", "今天天气很冷"],
          ["坐火车去北京", "火车站在哪里", "高铁比火车快", "火车晚点了"]]
TEXTS = [t for topic in TOPICS for t in topic]
LABELS = [i // 4 for i in range(len(TEXTS))]

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _terms(model):
    vectorizer = model.vectorizer if model.lexical is None else model.lexical
    return set(vectorizer.vocabulary_)


def _fit(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return learnsim.fit(TEXTS, baseline_holdout=None, **kw)


def test_clusters_and_pairs():
    assert {"天気", "天气", "火车"} <= _terms(_fit(clusters=LABELS))
    pairs = [(i, i + 1, 1) for i in range(0, 16, 2)] + [(i, (i + 5) % 16, 0) for i in range(0, 16, 2)]
    film = _fit(pairs=pairs, method="film")
    assert {"天気", "作り"} <= _terms(film)
    graded = _fit(pairs=[(a, b, 4.0 if LABELS[a] == LABELS[b] else 0.5) for a, b, _ in pairs])
    assert "天気" in _terms(graded)


def test_triplets_and_links():
    triplets = [(i, i + 1, (i + 4) % 16) for i in range(0, 16, 2)]
    assert "天気" in _terms(_fit(triplets=triplets))
    links = [(i, j) for i in range(16) for j in range(16) if i != j and LABELS[i] == LABELS[j]]
    assert "火车" in _terms(_fit(links=links))


def test_a_morphological_analyser_reaches_every_vectoriser_of_a_fit():
    pytest.importorskip("jieba", reason="the jieba analyser needs pip install learnsim[zh]")
    model = _fit(clusters=LABELS, language="zh")
    assert model.vectorizer.analyzer == "jieba" and "天气" in _terms(model)


def test_the_pair_models_character_ngrams_read_text_without_spaces():
    from learnsim.text._char_hash import char_ngram_counts, char_wb_ngrams

    grams = char_wb_ngrams("東京の天気", 2, 3)
    assert "天気" in grams and "東京の" in grams
    a, b = char_ngram_counts("東京の天気", 2, 5, 2 ** 10), char_ngram_counts("明日の東京の天気は雨", 2, 5, 2 ** 10)
    assert set(a) & set(b)
