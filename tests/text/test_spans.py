"""Spans of a text whose reading changes its length (Tokenizer._mapped_spans, text/_spans.py):
a run of characters that read alone, one part each, is read a run at a time, with exactly the
spans of the reading a character at a time."""
from __future__ import annotations

import random
import re
import unicodedata
from pathlib import Path

import pytest
from cjk_texts import CHINESE, JAPANESE

from learnsim.text import Tokenizer, _tokenize

DOCS = Path(__file__).resolve().parents[2] / "docs" / "languages.md"


def _counted_folds(monkeypatch):
    """The texts the tokenizer's foldings read (``_tokenize._unicode_fold``), one a call."""
    calls = []
    fold = _tokenize._unicode_fold

    def counted(*args, **kwargs):
        calls.append(args[0])
        return fold(*args, **kwargs)

    monkeypatch.setattr(_tokenize, "_unicode_fold", counted)
    return calls


def test_a_long_japanese_text_is_read_a_run_at_a_time(monkeypatch):
    """A text whose reading changes its length (an accent written apart) was read a character at
    a time, a dozen foldings each: 100,000 characters of Japanese took 0.6-1.7 s to highlight, an
    explanation's hits each. A run of characters that read alone is read once a character."""
    calls = _counted_folds(monkeypatch)
    tok = Tokenizer()
    doc = "cafe\u0301 " + "東京の天気は晴れです。" * 2000
    spans = tok.spans(doc)
    # one reading of each character that differs (and the whole text's, read twice), not of
    # each of the 22,000 places
    assert 0 < len(calls) < 100
    assert len(spans) == len(tok(doc)) and spans[0] == (0, 5, "café")
    assert all(tok(doc[a:b]) == [t] for a, b, t in spans[:50] + spans[-50:])


def test_a_letter_and_its_accent_written_apart_are_read_once(monkeypatch):
    """Each letter with its accent written apart is read alone: a French text with every accent
    so took 9-10x the time of its spans read in place. One such pair is read once a text."""
    calls = _counted_folds(monkeypatch)
    tok = Tokenizer()
    doc = "Le cafe\u0301 de la cre\u0300me bru\u0302le\u0301e a\u0300 Noe\u0308l. " * 500
    spans = tok.spans(doc)
    assert 0 < len(calls) < 100
    assert len(spans) == len(tok(doc)) and spans[1] == (3, 8, "café")


def _plain_ranges():
    from learnsim.text._spans import PLAIN

    pairs = re.findall(r"(.)(?:-(.))?", PLAIN, re.S)
    return [(ord(a), ord(b or a)) for a, b in pairs]


def test_the_characters_read_a_run_at_a_time_never_join_a_neighbour():
    """What makes a run's reading the reading a character at a time: none of its characters is
    one that joins the character before it, or reads with the one after it, or by its
    neighbours."""
    from learnsim.text._folds import SARA_AA, SARA_E
    from learnsim.text._script_folds import read_with

    more = Tokenizer()._more
    ranges = _plain_ranges()
    assert sum(b - a + 1 for a, b in ranges) > 40_000
    for a, b in ranges:
        for cp in range(a, b + 1):
            c = chr(cp)
            assert unicodedata.category(c)[0] != "M" and not unicodedata.combining(c), hex(cp)
            assert c not in "'\u2019\u200c\u200d\ufe0f\uff9e\uff9f\uff0d\u2212\ufe63" + SARA_AA + SARA_E, hex(cp)
            assert not ("\u1160" <= c <= "\u11ff" or "\ud7b0" <= c <= "\ud7ff"), hex(cp)
            assert not ("\U0001f3fb" <= c <= "\U0001f3ff" or "\U000e0020" <= c <= "\U000e007f"), hex(cp)
            assert read_with(c + c + c, 0, more) == 1, hex(cp)


def _doc_examples():
    """The examples docs/languages.md writes (its code spans that are not ASCII)."""
    found = re.findall(r"`([^`\n]+)`", DOCS.read_text(encoding="utf-8"))
    return sorted({s for s in found if not s.isascii()})


def _texts():
    rng = random.Random(5)
    texts = [t for topics in (JAPANESE, CHINESE) for docs in topics.values() for t in docs]
    texts += _doc_examples()
    # draws from every script the reading folds, the characters that join their neighbours with
    # them; and runs of the plain characters broken by them
    alphabet = (list("abc XYZ.'\"-İıßẞéÉ\u0301\u0308\u0327ﬁﬀⅫǅΟΔΣσς") + list("東京人口の天気ガイドｶﾞｲﾄﾞﾞ・⼈⼝⺟。、")
                + list("한국어\u1100\u1161\u11a8\u3131\u314f") + list("ภาษาไทย่้ำๆเ\u0e4d\u0e32") + list("كَتَبَ\u0640ﻛﺘﺎﺏ٢٠")
                + list("צה\"ל׳״") + list("\u00ad\ufeff\u200c\u200d\u200e\ufe0f") + list("col·lecció")
                + list("दिल्लीङ्क\u094d") + list("сім'я’іi") + list("Ա՛բ") + list("コヒｺ－−ヶヵ") + ["😀", "\U0001f3fd", "\U0001D400", "\ufdfa"])
    texts += ["сім'я сім\u2019я '\u0301a сім'\u0301я", "е\u0301 сім'я і '\u0301 '\u0301"]
    for _ in range(600):
        texts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))))
    return texts


class _Forgetful(dict):
    """A memo that keeps nothing: each character and its marks read every time."""

    def __setitem__(self, key, value):
        pass


@pytest.mark.parametrize("kwargs", [{}, {"analyzer": "words"}, {"cjk_unigrams": True}, {"lowercase": False},
                                    {"fold_variants": False, "casefold": False}, {"stop_words": "english", "stem": "english"},
                                    {"stop_words": "turkish"}])
def test_spans_read_a_run_at_a_time_are_those_read_a_character_at_a_time(monkeypatch, kwargs):
    from learnsim.text import _spans

    tok = Tokenizer(**kwargs)
    texts = _texts()
    # each also behind an accent written apart, which sends it down the mapped path
    texts += ["e\u0301 " + t for t in texts]
    fast = [tok._mapped_spans(t) for t in texts]
    monkeypatch.setattr(_spans, "_PLAIN_AHEAD", re.compile("(?!)"))
    monkeypatch.setattr(_spans, "_memo", _Forgetful)
    slow = [tok._mapped_spans(t) for t in texts]
    for text, a, b in zip(texts, fast, slow):
        assert a == b, ascii(text)
    assert sum(bool(s) for s in fast) > len(texts) // 3
