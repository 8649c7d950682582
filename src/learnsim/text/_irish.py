"""Irish's own lowercasing, as Lucene's ``IrishLowerCaseFilter`` (Elasticsearch's ``irish``
analyser) reads it, where a :class:`~learnsim.text.Tokenizer` is told the text is Irish
(``stop_words="irish"`` or ``stem="irish"``):

- ``irish_lowercase``: Irish writes the ``n`` of eclipsis and the ``t`` prefixed to a word
  before a vowel without a hyphen where the word begins with a capital (``ár nAthair``, our
  Father; ``an tUasal``, the Mister), and with one in lower case (``ár n-athair``). Lucene puts
  the hyphen back (``n-athair``) before lowercasing, so that Snowball's Irish stemmer takes the
  prefix off; lowercased first, the word was ``nathair`` (snake) and ``tuasal``, and never met
  ``athair`` or ``uasal``. The ``n`` or ``t`` is read as a space, one character for one, so
  that the word is the part after it and a term's span stays on the text as written.

Only a lower-case ``n`` or ``t`` at a word's start before a capital vowel (``A E I O U`` and
their acute forms, as Lucene's rule), so that ``NATHAIR`` in capitals, ``Nollaig`` and an
English ``tV`` (no vowel) are read as before. Every other language keeps the letter. The
standard library only, as the tokenizer; this module imports nothing of :mod:`._tokenize`.
"""
from __future__ import annotations

import re

__all__ = ["reads_irish", "irish_lower"]

# n or t before a capital vowel; a vowel with its acute written apart (NFD) is the capital vowel
# and the mark after it. At a word's start alone (_at_start)
_PREFIX = re.compile("[nt](?=[AEIOU\u00c1\u00c9\u00cd\u00d3\u00da])")
_WORD = re.compile("\\w")


def _at_start(text, i):
    """Whether ``text[i]`` begins a word: no letter or digit before it, the combining marks
    written after one counted with it (``e\u0301nA`` is inside a word); marks that follow no
    letter are no part of a word, as the tokenizer reads them."""
    j = i
    while j and "\u0300" <= text[j - 1] <= "\u036f":
        j -= 1
    return j == 0 or not _WORD.match(text[j - 1])


def reads_irish(stop_words, stem):
    """Whether a tokenizer with these settings reads Irish: its stop words or its stems are
    Irish's (the baselines read an Irish collection with both; a fit with ``language="ga"`` and
    stems, its stop words None, stems alone). A list of words of one's own names no language,
    and is read as before."""
    return (isinstance(stop_words, str) and stop_words == "irish") or (isinstance(stem, str) and stem == "irish")


def irish_lower(text):
    """``text`` with the ``n`` or ``t`` Irish prefixes to a capitalised vowel (``nAthair``,
    ``tUasal``) as a space, before the text is lowercased: the word is the one after it, as
    Lucene's hyphen and Snowball's stemmer make it. One character for one."""
    if "n" not in text and "t" not in text:
        return text
    return _PREFIX.sub(lambda m: " " if _at_start(text, m.start()) else m.group(), text)
