"""Chinese and the analysers (:mod:`._tokenize` imports this; it imports nothing of learnsim's
but the warning's helper, at a warning): jieba's segmenter in its two modes, which language codes
name traditional Chinese, and a warning where a Japanese analyser is to read texts that look
Chinese.

jieba's default mode cuts a sentence into its longest dictionary words, so a query found a text
only where both were cut alike: 北京 did not find 北京大学的学生很多 (the word 北京大学), nor
大学生 anything. Its search mode (``jieba.cut_for_search``, what the Elasticsearch jieba
plugin's ``jieba_index`` indexes with) gives the shorter dictionary words inside a long one too
(北京大学: 北京, 大学, 北京大学), and ``Tokenizer(jieba_search=True)`` reads documents and
queries so.
"""
from __future__ import annotations

import re

__all__ = ["load_jieba", "longest_reading", "traditional_chinese", "looks_chinese", "check_chinese_reading", "MIN_CHINESE_SHARE"]

_CUT = []       # jieba's Tokenizer, once loaded


def load_jieba(search=False):
    """A segmenter ``run -> [(start, end, word)]`` of jieba's default mode, or with ``search`` of
    its search mode (each dictionary word of two or three characters inside a longer word too),
    ordered by place."""
    try:
        import logging

        import jieba
    except ImportError:
        raise ImportError("analyzer='jieba' needs jieba: pip install learnsim[zh] (or pip install jieba)") from None
    jieba.setLogLevel(logging.WARNING)      # no "Building prefix dict" lines on stderr
    if not _CUT:                            # one dictionary for both modes: it takes a second and memory
        _CUT.append(jieba.Tokenizer())
    cut = _CUT[0]
    mode = "search" if search else "default"

    def segment(run):
        # search mode gives the shorter words of a word before it: by place, each run alike
        return sorted((start, end, word) for word, start, end in cut.tokenize(run, mode=mode))
    return segment


def longest_reading(tokenizer, segment):
    """``tokenizer`` (a Tokenizer of jieba's search mode) reading with ``segment``, jieba's default
    mode: the terms its word n-grams join. Search mode's terms overlap (北京, 北京大学, 大学), and
    n-grams of them joined a word to the words inside it ("北京 北京大学") and lost the n-grams of
    the sentence ("北京大学 的")."""
    other = object.__new__(type(tokenizer))
    other.__dict__.update(tokenizer.__dict__)
    other.jieba_search, other._segment = False, segment
    return other


# the subtags of a language code that name traditional Chinese: the script Hant, and the regions
# that write it (Taiwan, Hong Kong, Macau) where no script is named
_TRADITIONAL_REGIONS = {"tw", "hk", "mo"}


def traditional_chinese(language):
    """Whether ``language`` (a code such as ``"zh-Hant"``, ``"zh_TW"``) names Chinese written in
    traditional characters: the script ``Hant``, or without a script the regions TW, HK and MO
    (``"zh-Hans-HK"`` is simplified). jieba's dictionary is of simplified words, and cuts
    traditional text into single characters (臺灣 is 臺 and 灣).

    Examples
    --------
    >>> traditional_chinese("zh-TW"), traditional_chinese("zh-Hant"), traditional_chinese("zh-CN")
    (True, True, False)
    """
    subtags = re.split("[-_]", language.lower())
    if "hans" in subtags[1:]:
        return False
    return "hant" in subtags[1:] or any(tag in _TRADITIONAL_REGIONS for tag in subtags[1:])


_HAN = re.compile("[\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\U00020000-\U0003134F]")
# Hiragana and Katakana (with the phonetic extensions and the half-width forms): Japanese writes
# kana in nearly every sentence; Chinese none
_KANA = re.compile("[\u3040-\u309F\u30A0-\u30FF\u31F0-\u31FF\uFF66-\uFF9F]")

#: The share of the texts holding a Han character that must hold no kana for a collection a
#: Japanese analyser reads to look Chinese. A Japanese collection has a few texts of kanji
#: alone (a heading, 東京都千代田区); Chinese has none with kana.
MIN_CHINESE_SHARE = 0.9
# at most this many texts are looked at (evenly spread): the check costs a fit little
_MAX_LOOKED_AT = 10_000


def looks_chinese(texts):
    """Whether ``texts`` look Chinese rather than Japanese: at least a tenth of them hold a Han
    character, and of those at least :data:`MIN_CHINESE_SHARE` hold no kana at all.

    Examples
    --------
    >>> looks_chinese(["我喜欢学习", "北京的天气"]), looks_chinese(["東京の天気", "東京都千代田区"])
    (True, False)
    """
    step = max(1, len(texts) // _MAX_LOOKED_AT)
    looked = texts[::step]
    han = [t for t in looked if isinstance(t, str) and _HAN.search(t) is not None]
    if not han or len(han) * 10 < len(looked):
        return False
    without_kana = sum(_KANA.search(t) is None for t in han)
    return without_kana >= MIN_CHINESE_SHARE * len(han)


_JAPANESE_ANALYSERS = {"sudachi": "SudachiPy", "fugashi": "fugashi (MeCab)"}


def check_chinese_reading(analyzer, texts):
    """Warn (once, at the caller's line) where a Japanese analyser (``"sudachi"``, ``"fugashi"``)
    is to read texts that look Chinese (:func:`looks_chinese`): it cuts them into Japanese
    morphemes (学习 into 学 and 习, SudachiPy's 我が of 我喜欢) without a word said, where character
    bigrams or jieba read Chinese. Returns whether it warned.

    Examples
    --------
    >>> check_chinese_reading("sudachi", ["東京の天気", "大阪に行く"]), check_chinese_reading("cjk", ["我喜欢学习"])
    (False, False)
    """
    name = _JAPANESE_ANALYSERS.get(analyzer)
    if name is None or not looks_chinese(texts):
        return False
    from .._utils.callers import warn_outside

    warn_outside(f"the texts look Chinese (Han characters and no kana), but analyzer={analyzer!r} ({name}) reads "
                 "Japanese and cuts Chinese into Japanese morphemes (学习 into 学 and 习): fit with the default "
                 "character bigrams (no --language or --analyzer; analyzer='cjk') or with jieba (--language zh; "
                 "language='zh')", UserWarning)
    return True
