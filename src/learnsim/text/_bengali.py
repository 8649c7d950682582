"""Bengali light stemming, the rules of Lucene's ``BengaliNormalizer`` and ``BengaliStemmer``
(what Elasticsearch's ``bengali`` analyser stems with), in pure Python: ``stem="bengali_light"``.

Ported from Apache Lucene (lucene/analysis/common/.../analysis/bn/BengaliNormalizer.java and
BengaliStemmer.java, Apache License 2.0; Lucene's analyser runs its ``IndicNormalizer`` before
them, whose one Bengali rule that NFC text needs is kept here: a letter and its nukta as one):

- normalise (UzZaman and Khan's Bangla double metaphone): the chandrabindu ``ঁ`` left out; the
  long vowel signs ``ী ূ`` read as the short ``ি ু``; ``ঙ`` as the anusvara ``ং``; the ya-phala
  (``্য``) left out, or read as ``ে`` after the word's first letter (``ব্যাংক`` is ``বেংক``); the
  ba-phala (``্ব``) left out, or read as the letter before it again (``বিশ্ব`` is ``বিসস``); a
  final visarga left out (read ``হ`` in a word of three letters or fewer), another read as the
  letter after it; ``শ ষ`` as ``স``, ``ণ`` as ``ন``, ``ড় ঢ়`` as ``র``, khanda ta ``ৎ`` as ``ত``;
- take off the first of Sengupta and Chaudhuri's suffixes (with Savoy's light stemmer's) that the
  word ends with, eight letters to one, each where enough letters are left: ``গুলো``,
  ``দের``, ``কে``, ``টি``, the verbs' ``িয়াছিলাম`` ... ``ে``.

The text is in NFC, where ``য়``, ``ড়`` and ``ঢ়`` are each a letter and a nukta (Unicode leaves
them out of composition); Lucene's ``IndicNormalizer`` writes them as one character first, and
so does :func:`bengali_light_stem`, so that its letters count as Lucene counts them. Lucene's
rule for ``ক্ষ`` (khio) looks for an i-kar after the virama where its comment says ``ষ``, and so
never fits a written word: it is left out. ``বইগুলো``, ``বইয়ের`` and ``বই`` are all ``বই``;
``ছেলেরা`` and ``ছেলেদের`` ``ছেল``. Snowball has no Bengali stemmer.
"""
from __future__ import annotations

__all__ = ["bengali_light_stem"]

_NUKTA = "\u09bc"
_VIRAMA = "\u09cd"
# a letter and its nukta, as NFC writes them, as the one character Lucene's IndicNormalizer makes
_COMPOSE = (("\u09af\u09bc", "\u09df"), ("\u09a1\u09bc", "\u09dc"), ("\u09a2\u09bc", "\u09dd"))
_MAP = {"\u09c0": "\u09bf", "\u09c2": "\u09c1", "\u0999": "\u0982", "\u09b6": "\u09b8", "\u09b7": "\u09b8",
        "\u09a3": "\u09a8", "\u09dc": "\u09b0", "\u09dd": "\u09b0", "\u09ce": "\u09a4"}


def _compose(word):
    if _NUKTA in word:
        for pair, one in _COMPOSE:
            word = word.replace(pair, one)
    return word


def _normalize(word):
    """``word`` (its nukta letters composed) as Lucene's BengaliNormalizer writes it."""
    s = list(word)
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\u0981":                                   # chandrabindu: left out
            del s[i]
            continue
        if c == "\u09af":                                   # ya-phala
            if i == 2 and s[1] == _VIRAMA:
                s[1] = "\u09c7"
                if i + 1 < len(s) and s[i + 1] == "\u09be":
                    del s[i + 1]
                del s[i]
                continue
            if i >= 1 and s[i - 1] == _VIRAMA:
                del s[i - 1:i + 1]
                i -= 1
                continue
        elif c == "\u09ac" and i >= 1 and s[i - 1] == _VIRAMA:   # ba-phala
            if i == 2 or (i >= 5 and s[i - 3] == _VIRAMA):
                del s[i - 1:i + 1]
                i -= 1
                continue
            if i >= 2:
                s[i - 1] = s[i - 2]
                del s[i]
                continue
        elif c == "\u0983":                                 # visarga
            if i == len(s) - 1:
                if len(s) <= 3:
                    s[i] = "\u09b9"
                else:
                    del s[i]
                    continue
            else:
                s[i] = s[i + 1]
        elif c in _MAP:
            s[i] = _MAP[c]
        i += 1
    return "".join(s)


# (more letters than this in the word, the letters taken off, its suffixes), as Lucene tries
# them; the first that fits is taken off
_SUFFIXES = tuple((more_than, cut, tuple(_compose(s) for s in suffixes.split())) for more_than, cut, suffixes in (
    (9, 8, "িয়াছিলাম িতেছিলাম িতেছিলেন ইতেছিলেন িয়াছিলেন ইয়াছিলেন"),
    (8, 7, "িতেছিলি িতেছিলে িয়াছিলা িয়াছিলে িতেছিলা িয়াছিলি য়েদেরকে"),
    (7, 6, "িতেছিস িতেছেন িয়াছিস িয়াছেন েছিলাম েছিলেন েদেরকে"),
    (6, 5, "িতেছি িতেছা িতেছে ছিলাম ছিলেন িয়াছি িয়াছা িয়াছে েছিলে েছিলা য়েদের দেরকে"),
    (5, 4, "িলাম িলেন িতাম িতেন িবেন ছিলি ছিলে ছিলা তেছে িতেছ খানা খানি গুলো গুলি য়েরা েদের"),
    (4, 3, "লাম িলি ইলি িলে ইলে লেন িলা ইলা তাম িতি ইতি িতে ইতে তেন িতা িবা ইবা িবি ইবি বেন িবে ইবে ছেন "
           "য়োন য়ের েরা দের"),
    (3, 2, "িস েন লি লে লা তি তে তা বি বে বা ছি ছা ছে ুন ুক টা টি নি ের তে রা কে"),
    (2, 1, "ি ী া ো ে ব ত"),
))


def bengali_light_stem(word):
    """``word`` normalised and light-stemmed as Lucene's Bengali analyser stems it; a word of no
    Bengali comes back as it is.

    Examples
    --------
    >>> bengali_light_stem("বইগুলো") == bengali_light_stem("বইয়ের") == bengali_light_stem("বই")
    True
    >>> bengali_light_stem("ছেলেদের") == bengali_light_stem("ছেলেরা")
    True
    """
    if not any("\u0980" <= c <= "\u09ff" for c in word):
        return word
    word = _normalize(_compose(word))
    n = len(word)
    for more_than, cut, suffixes in _SUFFIXES:
        if n > more_than and word.endswith(suffixes):
            return word[:-cut]
    return word
