"""Chinese and the analysers (:mod:`._tokenize` imports this; it imports nothing of learnsim's):
jieba's segmenter in its two modes, and which language codes name traditional Chinese.

jieba's default mode cuts a sentence into its longest dictionary words, so a query found a text
only where both were cut alike: 北京 did not find 北京大学的学生很多 (the word 北京大学), nor
大学生 anything. Its search mode (``jieba.cut_for_search``, what the Elasticsearch jieba
plugin's ``jieba_index`` indexes with) gives the shorter dictionary words inside a long one too
(北京大学: 北京, 大学, 北京大学), and ``Tokenizer(jieba_search=True)`` reads documents and
queries so.
"""
from __future__ import annotations

import re

__all__ = ["load_jieba", "traditional_chinese"]

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
