"""Persian light stemming, the rules of Lucene's ``PersianNormalizer`` and ``PersianStemmer``
(what Elasticsearch's ``persian`` analyser reads with, after Lucene's ``ArabicNormalizer``), in
pure Python: ``stem="persian_light"``.

As Lucene writes them (lucene/analysis/common/.../analysis/fa/PersianNormalizer.java and
PersianStemmer.java; Lucene's Persian analyser runs its ArabicNormalizer first):

- normalise: Arabic's normalisation (:mod:`._arabic`: alef with hamza or madda ``آ أ إ`` a
  bare alef ``ا``, ``ى`` yeh, ``ة`` heh, harakat and tatweel left out), then Persian's: the
  Persian yeh ``ی`` and yeh barree ``ے`` are the Arabic yeh ``ي``, keheh ``ک`` the kaf ``ك``, heh
  with yeh above ``ۀ`` and heh goal ``ہ`` heh ``ه``, and the hamza above left out;
- then take off, in this order, each of the suffixes ``ات ان ترین تر یی ی ها`` (and a trailing
  zero-width non-joiner) that the word ends with at that point, where two letters remain.

Lucene's stemmer takes off no prefix. So ``کتاب‌ها`` read as one word, ``کتابها`` and ``کتاب`` are
all ``كتاب``, ``درختان`` is ``درخت``, ``بزرگترین`` and ``بزرگتر`` ``بزرگ``. Why this and not Snowball's
Persian stemmer (PyStemmer's ``stem="persian"``, which stays what it was): it needs no package,
and it is what an Elasticsearch user's ``persian`` analyser gives.
"""
from __future__ import annotations

from ._arabic import _NORMAL as _ARABIC_NORMAL

__all__ = ["persian_light_stem"]

# Arabic's normalisation, then Persian's (each maps a letter the other does not touch)
_NORMAL = {**_ARABIC_NORMAL, 0x06CC: "\u064a", 0x06D2: "\u064a", 0x06A9: "\u0643", 0x06C0: "\u0647",
           0x06C1: "\u0647", 0x0654: None}
# in Lucene's order: each that fits, on what the ones before left, is taken off (ZWNJ: a word
# written with a ZWNJ before its suffix, read whole, keeps none at its end)
_SUFFIXES = ("\u0627\u062a", "\u0627\u0646", "\u062a\u0631\u064a\u0646", "\u062a\u0631", "\u064a\u064a", "\u064a",
             "\u0647\u0627", "\u200c")


def persian_light_stem(word):
    """``word`` normalised and light-stemmed as Lucene's Persian analyser stems it; a word of no
    Arabic-script letter comes back as it is.

    Examples
    --------
    >>> persian_light_stem("کتابها") == persian_light_stem("کتاب") == "كتاب"
    True
    >>> persian_light_stem("درختان")
    'درخت'
    """
    word = word.translate(_NORMAL)
    for suffix in _SUFFIXES:
        if len(word) >= len(suffix) + 2 and word.endswith(suffix):
            word = word[:-len(suffix)]
    return word
