"""Whether the language whose stop words won a sample is the sample's language.

The stop lists are 50 lists of 50 to 300 short words, and a language of no list shares a few of
them by chance: Lorem ipsum's ``sit`` and ``et`` read it as Danish, Latin's ``qui``, ``se``, ``et``
as French, a made-up language's ``ja``, ``ma`` as Slovak, Maori's ``te``, ``ki`` as Finnish, each
then read with that language's stop list and stems. Such a sample holds the same few words of the
winner's list over and over; a sample of the language itself holds many different ones (a French
one of 50 words: de, la, le, les, des, et, en, pour, ...). The winner is taken only where the sample
holds at least ``max(2, MIN_DISTINCT_PER_ROOT * sqrt(n))`` different words of its list, n the
number of its different words; else the sample is of no language learnsim recognises, and is read
as English, the fallback, with the clause that says so (:mod:`._described`).

The setting was chosen on validation samples of real translated text (gettext catalogues, 20 to
200 words) and reported on a test half of other packages' (``benchmarks/bench_language_detection.py
--split test``, docs/languages.md): shipped languages 0.954 -> 0.949 detected, unknown Latin-letter
languages 0.423 -> 0.600 read as unrecognised. A sample of fewer than :data:`MIN_WORDS` words (a query, a title) is read as before: too few words
to tell, and a short French query still reads as French.
"""
from __future__ import annotations

import math

#: Samples of fewer words are read by the stop lists alone, as before.
MIN_WORDS = 20
#: Different stop words of the winner's list a sample of n different words must hold: this times
#: sqrt(n), two at least (0.4: 3 where it writes 50 different words, 4 for 100, 6 for 200).
MIN_DISTINCT_PER_ROOT = 0.4


def holds_enough(counts, words):
    """Whether ``counts`` (a Counter of a sample's words) holds enough different words of the
    stop list ``words`` (a set) to be of its language (always where the sample is short)."""
    total = sum(counts.values())
    if total < MIN_WORDS:
        return True
    distinct = sum(1 for w in counts if w in words)
    # by the sample's different words, not its words: a collection written to one template ("Danes
    # je kupil knjigo in kruh v šoli.", 32 times) holds few different words of any kind
    return distinct >= max(2.0, MIN_DISTINCT_PER_ROOT * math.sqrt(len(counts)))


def recognised(language, shares, read, stop_list):
    """``language`` (what the lists and scripts read a sample as, :func:`._languages._detect`)
    where the sample holds enough different words of its list (``stop_list(language)``), else
    ``"english"``, the reading of a language of no list. A language told by its script or its own
    words (``shares`` None) and English (the fallback itself) are kept. ``stop_list`` is given,
    not imported: this module sits below ``._languages``."""
    if shares is None or language == "english":
        return language
    return language if holds_enough(read[language], stop_list(language)) else "english"
