"""A long text with runs of scripts written without spaces, read a batch at a time
(learnsim.text._term_stream), gives the tokenizer's list exactly: under the cjk analyser (character
bigrams; batch edges inside a run, at a bigram's edge, mixed scripts, word n-grams) and under a
morphological analyser (SudachiPy, fugashi, jieba where installed). The batch size and the length
from which a text is streamed are made small here."""
from collections import Counter

import numpy as np
import pytest

from learnsim.text import Tokenizer
from learnsim.text import _term_stream


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(_term_stream, "STREAM_CHARS", 64)
    monkeypatch.setattr(_term_stream, "BATCH", 7)


_PIECES = ["東京都に住んでいる", "。", " The cat ", "カタカナ", "ｶﾀｶﾅ", "ガ", "、", "北京大学的学生", "ภาษาไทย",
           " naïve café ", "한국어", "ジョン・スミス", "x", "人", " running dogs ", "\n", "ＡＢＣ１２", "ٱلْكِتَابُ",
           "𠮷野家", " of the ", "です。", "😀", "Straße"]


def _mixed(seed, n=400):
    rng = np.random.default_rng(seed)
    return "".join(rng.choice(_PIECES, n)) + "終わり"


def _japanese(seed, n=3000):
    rng = np.random.default_rng(seed)
    kana = list("あいうえおかきくけこさしすせそたちつてとなにぬねのアイウエオカキクケコ日本語東京大学研究")
    return "".join(rng.choice(kana, n))      # one run, cut by every batch inside it


def _joined(tok, text):
    batches = list(_term_stream.term_batches(tok, text))
    return batches, [t for b in batches for t in b]


@pytest.mark.parametrize("params", [
    {},
    {"cjk_unigrams": True},
    {"stop_words": "english", "stem": "english"},
    {"ngram_range": (1, 2)},
    {"ngram_range": (2, 3), "cjk_unigrams": True},
    {"ngram_range": (1, 3), "stop_words": "english"},
    {"unicode_words": False},
    {"uax29_punctuation": False},
    {"lowercase": False},
    {"token_pattern": r"(?u)\b(\w)\w*\b"},
    {"emoji_terms": False, "fold_variants": False},
])
def test_cjk_batches_join_to_the_tokenizers_list(small_batches, params):
    tok = Tokenizer(**params)
    for text in (_mixed(0), _mixed(1, 50), _japanese(2), "The cat " * 20 + _japanese(3, 500) + " sat" * 30,
                 "東" + "京都" * 200):
        batches, joined = _joined(tok, text)
        assert len(batches) > 1             # read a batch at a time
        assert joined == tok(text)
        assert list(_term_stream.term_counts(tok, text).items()) == list(Counter(tok(text)).items())


@pytest.mark.parametrize("batch", [1, 2, 3, 4, 5])
def test_batch_edges_inside_a_run_at_each_bigram(monkeypatch, batch):
    monkeypatch.setattr(_term_stream, "STREAM_CHARS", 1)
    monkeypatch.setattr(_term_stream, "BATCH", batch)
    for params in ({}, {"ngram_range": (1, 2)}, {"ngram_range": (2, 2), "cjk_unigrams": True}):
        tok = Tokenizer(**params)
        for text in ("東京都に住む", "東京 the 京都", "a東b", "東", "東。京", "東京。" * 5 + "end"):
            assert _joined(tok, text)[1] == tok(text), (params, text)


def _analyser(name):
    module = {"sudachi": "sudachipy", "fugashi": "fugashi", "jieba": "jieba"}[name]
    pytest.importorskip(module, reason=f"analyzer={name!r} needs {module}")
    try:
        return Tokenizer(analyzer=name)
    except ImportError as exc:
        pytest.skip(f"analyzer={name!r} could not load its dictionary: {exc}")


@pytest.mark.parametrize("name", ["sudachi", "fugashi", "jieba"])
@pytest.mark.parametrize("params", [{}, {"ngram_range": (1, 2)}, {"stop_words": "english", "stem": "english"},
                                    {"ngram_range": (2, 3), "jieba_search": False}])
def test_segmenter_batches_join_to_the_tokenizers_list(small_batches, name, params):
    _analyser(name)
    tok = Tokenizer(analyzer=name, **params)
    rng = np.random.default_rng(4)
    sentences = ["東京都に住んでいる学生です。", "北京大学的学生在研究中文。", "The running dogs of London. ",
                 "한국어와 ภาษาไทย도 있다、", "カタカナのｶﾀｶﾅ語", "\n", "我们在北京大学学习", "naïve café "]
    text = "".join(rng.choice(sentences, 120))
    batches, joined = _joined(tok, text)
    assert len(batches) > 1
    assert joined == tok(text)


def test_vectors_of_spaceless_texts_are_those_of_the_whole_list(monkeypatch):
    from learnsim.text import TextVectorizer

    texts = [_mixed(5), _japanese(6, 800), _mixed(7, 30)]
    for params in ({"weighting": "bm25"}, {"weighting": "tfidf", "ngram_range": (1, 2), "cjk_unigrams": True}):
        whole = TextVectorizer(**params).fit(texts)
        X = whole.transform(texts)
        with monkeypatch.context() as m:
            m.setattr(_term_stream, "STREAM_CHARS", 64)
            m.setattr(_term_stream, "BATCH", 5)
            streamed = TextVectorizer(**params).fit(texts)
            Y = streamed.transform(texts)
        assert streamed.vocabulary_ == whole.vocabulary_
        assert (Y != X).nnz == 0 and Y.dtype == X.dtype
