"""jieba reads documents and queries in its search mode (jieba_search, a later reading): its
default mode cuts a text into its longest words, so that 北京 did not find 北京大学的学生很多 and
大学生 found nothing. The tests of the mode's choice fake jieba, so that they run where it is not
installed; those of what it finds need jieba."""
from __future__ import annotations

import importlib.util
import pickle

import pytest

from learnsim.text import TextVectorizer, Tokenizer, _tokenize

needs_jieba = pytest.mark.skipif(importlib.util.find_spec("jieba") is None,
                                 reason="jieba is not installed (pip install learnsim[zh])")

# hand-made: texts holding a word inside a longer one (北京 in 北京大学, 大学生 over 大学 and 学生)
TEXTS = ["北京大学的学生很多", "他考上了北京大学", "清华大学在北京", "大学生喜欢去图书馆", "北京大学生活动中心",
         "他是北京大学生", "中国人民银行发布报告", "人民的生活越来越好", "天气预报说明天晴天", "今天天气很冷",
         "上海市长江大桥", "我在上海工作", "坐火车去北京", "火车站在哪里", "学习中文很有意思", "学生们在教室里学习"]
QUERIES = ["北京", "大学", "大学生", "学生", "北京大学", "人民", "人民银行", "银行", "天气", "上海", "长江",
           "火车", "学习", "中心"]


def _longest(run):
    return [(0, len(run), run)]


def _short(run):
    return [(i, i + 2, run[i:i + 2]) for i in range(len(run) - 1)] + [(0, len(run), run)]


@pytest.fixture
def fake_jieba(monkeypatch):
    """jieba's two modes faked: the default a run whole, the search mode its bigrams too."""
    monkeypatch.setattr(_tokenize, "_SEGMENTERS", {"jieba": _longest, "jieba search": _short})


def test_a_new_reading_is_the_search_mode_and_one_saved_before_keeps_its_own(fake_jieba):
    new = TextVectorizer(analyzer="jieba").fit(["北京大学", "他考上了北京大学"])
    assert new.jieba_search is True and "北京" in new.vocabulary_
    assert Tokenizer(analyzer="jieba")("北京大学") == ["北京", "京大", "大学", "北京大学"]
    assert Tokenizer(analyzer="jieba", jieba_search=False)("北京大学") == ["北京大学"]

    # a model saved before the reading existed: its state has no jieba_search, and it reads as fitted
    old = TextVectorizer(analyzer="jieba", jieba_search=False).fit(["北京大学", "他考上了北京大学"])
    meta, arrays = old._get_state()
    del meta["params"]["jieba_search"]
    restored = TextVectorizer._from_state(meta, arrays)
    assert restored.jieba_search is False and restored.transform(["北京大学"]).nnz == 1
    assert restored._make_tokenizer()("北京大学") == ["北京大学"]

    # a Tokenizer pickled before it: the class's False
    tok = Tokenizer(analyzer="jieba", jieba_search=False)
    state = tok.__getstate__()
    del state["jieba_search"]
    again = Tokenizer.__new__(Tokenizer)
    again.__setstate__(state)
    assert again.jieba_search is False and again("北京大学") == ["北京大学"]
    assert pickle.loads(pickle.dumps(Tokenizer(analyzer="jieba")))("北京大学") == ["北京", "京大", "大学", "北京大学"]


@pytest.mark.filterwarnings("ignore:only 2 clusters")
def test_an_index_plan_records_the_reading_and_reads_queries_so(fake_jieba, tmp_path):
    import learnsim
    from learnsim.index import Index

    texts = ["北京大学", "他考上了北京大学", "上海", "我在上海"]
    model = learnsim.fit(texts, clusters=[0, 0, 1, 1], analyzer="jieba", baseline_holdout=None)
    Index.build(tmp_path / "idx", model, texts).close()
    with Index.open(tmp_path / "idx") as index:
        assert index.search("北京", k=1)[0]["text"] in ("北京大学", "他考上了北京大学")
        tok = index._plan.tokenizer         # (the plan is read at the first search)
        assert tok.jieba_search is True and tok("北京大学") == ["北京", "京大", "大学", "北京大学"]


@needs_jieba
def test_search_mode_finds_every_text_holding_a_query_word():
    def missed(search):
        tok = Tokenizer(analyzer="jieba", jieba_search=search)
        terms = [set(tok(text)) for text in TEXTS]
        return [(q, text) for q in QUERIES for text, held in zip(TEXTS, terms)
                if q in text and not held & set(tok(q))]

    assert missed(True) == []
    # the longest words alone (what models saved before read with): these texts are missed
    assert ("北京", "北京大学的学生很多") in missed(False) and ("大学生", "北京大学的学生很多") not in missed(True)


@needs_jieba
def test_search_mode_on_the_query_side_too_finds_what_the_longest_words_miss():
    # indexed in search mode, a query of jieba's longest words (Elasticsearch's jieba_search)
    # misses a text whose search-mode words do not hold the query's long word
    index_tok, longest = Tokenizer(analyzer="jieba"), Tokenizer(analyzer="jieba", jieba_search=False)
    held = set(index_tok("中国人民银行发布报告"))
    assert not held & set(longest("人民银行")) and held & set(index_tok("人民银行"))


@needs_jieba
def test_a_jieba_fit_and_its_index_find_the_texts_holding_the_query(tmp_path):
    import learnsim
    from learnsim.index import Index

    clusters = [0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    model = learnsim.fit(TEXTS, clusters=clusters, language="zh", baseline_holdout=None)
    assert model.vectorizer.jieba_search is True
    Index.build(tmp_path / "idx", model, TEXTS).close()
    with Index.open(tmp_path / "idx") as index:
        for query in ("北京", "大学生"):
            found = {hit["text"] for hit in index.search(query, k=len(TEXTS))}
            assert {"北京大学的学生很多", "他考上了北京大学"} <= found if query == "北京" else \
                "北京大学的学生很多" in found, query


@pytest.mark.parametrize("language", ["zh-Hant", "zh-TW", "zh_TW", "zh-HK", "zh-MO", "zh-Hant-CN", "cmn-Hant-TW",
                                      "ZH-hant"])
def test_traditional_chinese_picks_the_bigrams(language):
    # jieba's dictionary is of simplified words: it cut 臺灣 into 臺 and 灣, where bigrams keep 臺灣
    from learnsim.text import analyzer_for_language, resolve_analysis

    assert analyzer_for_language(language) == "cjk"
    assert resolve_analysis(language)["analyzer"] == "cjk"


def test_jieba_given_with_traditional_chinese_is_still_taken(fake_jieba):
    from learnsim.text import resolve_analysis

    assert resolve_analysis("zh-TW", "jieba")["analyzer"] == "jieba"


@needs_jieba
@pytest.mark.parametrize("language", ["zh", "zh-CN", "zh-Hans", "zh-Hans-HK", "zh-SG", "cmn"])
def test_simplified_chinese_picks_jieba(language):
    from learnsim.text import analyzer_for_language

    assert analyzer_for_language(language) == "jieba"


@needs_jieba
def test_jieba_cuts_traditional_text_into_characters():
    # why zh-Hant reads bigrams: the measurement the choice stands on, checked against jieba
    assert Tokenizer(analyzer="jieba")("臺灣") == ["臺", "灣"] and Tokenizer()("臺灣") == ["臺灣"]


def test_word_ngrams_join_the_longest_words_not_those_inside_them(fake_jieba):
    # search mode's words overlap (北京大学 and the 北京 inside it): n-grams of them joined a word to
    # the words inside it and lost the sentence's own ("北京大学 的")
    tok = Tokenizer(analyzer="jieba", ngram_range=(1, 2))
    terms = tok("北京大学。的")
    assert terms[:5] == Tokenizer(analyzer="jieba")("北京大学。的")
    assert terms[5:] == ["北京大学 的"]
    assert Tokenizer(analyzer="jieba", ngram_range=(2, 2))("北京大学。的") == ["北京大学 的"]
    assert pickle.loads(pickle.dumps(tok))("北京大学。的") == terms
