"""Turkish's own reading, as Lucene's ``TurkishAnalyzer`` (Elasticsearch's ``turkish`` analyser)
reads it, where a :class:`~learnsim.text.Tokenizer` is told the text is Turkish (``stop_words=
"turkish"`` or ``stem="turkish"``):

- ``turkish_lowercase``: its capital ``I`` is the capital of the dotless ``ı`` and ``İ`` that of
  ``i`` (Lucene's ``TurkishLowerCaseFilter``): ``"IRMAK"`` (river) is ``"ırmak"``, where the one
  rule for every language read ``"irmak"``, which no Turkish text writes, so that a headline in
  capitals never met its words in lower case. ``I`` followed by a combining dot above is ``i``.
- ``turkish_apostrophe``: Turkish writes a proper noun's case and possessive suffixes after an
  apostrophe (``Türkiye'nin``, ``Ankara'da``, ``İstanbul'a``); the word is the part before it
  (Lucene's ``ApostropheFilter``, ``'`` and ``’``), where the suffix was a term of its own
  (``nin``, ``nın``, ``ya``) that met every other name with that suffix. A number's suffix
  (``1990'larda``) is left out too, which Lucene's tokenizer, cutting a number from the letters
  after it, does not do.

Every other language keeps ``I`` as ``i``: ``ı`` and ``i`` are two letters in Turkish (and
Azerbaijani) alone. One character is read as one, so that a term's span stays on the text as
written. The standard library only, as the tokenizer; this module imports nothing of
:mod:`._tokenize`.
"""
from __future__ import annotations

import re
import unicodedata

__all__ = ["reads_turkish", "turkish_lower", "drop_suffixes"]

# an apostrophe after a letter or digit (a mark of one written apart) and the word after it, and
# any more such (the letters of Turkish written apart take marks of the Latin block alone)
_SUFFIX = re.compile("(?<=[\\w\u0300-\u036f])['\u2019][\\w\u0300-\u036f]+(?:['\u2019][\\w\u0300-\u036f]+)*")

# the combining marks NFC joins to a capital I (U+0300-U+036F: acute, circumflex, dot above, ...)
_I_WITH_MARK = re.compile("I(?=[%s])" % "".join(
    chr(c) for c in range(0x300, 0x370) if len(unicodedata.normalize("NFC", "I" + chr(c))) == 1))


def reads_turkish(stop_words, stem):
    """Whether a tokenizer with these settings reads Turkish: its stop words or its stems are
    Turkish's. Either says the text is Turkish (the baselines read a Turkish collection with
    both; a fit with ``language="tr"`` and stems, its stop words None, stems alone), and either
    needs ``ı`` where the text writes it: Turkish's stop list holds ``bazı`` as the text writes
    it, Snowball's Turkish stemmer takes ``ırmak``, not ``irmak``. A list of words of one's own
    names no language, and is read as before."""
    return (isinstance(stop_words, str) and stop_words == "turkish") or (isinstance(stem, str) and stem == "turkish")


def turkish_lower(text):
    """``text`` with Turkish's capital I's in lower case as Turkish writes them, before the text
    is lowercased: ``I`` as ``ı``, ``İ`` as ``i``, and ``I`` before a combining mark NFC
    joins to it as ``i`` (a dot above, then after ``i``, is left out where the tokenizer leaves out
    the dot of a lowercased ``İ``; ``"I\u0302"`` reads as ``"Î"``, ``"î"``). One character for one."""
    if "I" not in text and "\u0130" not in text:
        return text
    if not text.isascii():
        # I and a mark NFC joins to it (NFD's Î, Turkish's millî in capitals, is I and U+0302): the
        # capital of the letter with the mark, whose lower case is i with it (î), as NFC's Î reads;
        # read ı there, it was a dotless ı with a circumflex, a term no NFC text gives
        text = _I_WITH_MARK.sub("i", text)
    return text.replace("\u0130", "i").replace("I", "\u0131")


def drop_suffixes(text):
    """``text`` with the suffixes written after an apostrophe inside a word (``Ankara'nın``) and
    the apostrophe as spaces, each character for one: the word is the part before it."""
    if "'" not in text and "\u2019" not in text:
        return text
    return _SUFFIX.sub(lambda m: " " * len(m.group()), text)
