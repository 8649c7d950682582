"""Languages of no list told by their own words, read as a language of no list is (English's
rules, which touch almost none of their words), not by the stems of a neighbour whose stop words
they happen to share.

Haitian Creole shares la, te, ki, se with French's and Catalan's lists, and writes è and ò: French,
which never writes ò, loses a tie of the two (:mod:`._ties`), and a Haitian collection went to
Catalan, whose stems cost a hand-made known-item collection 0.038 of MRR (0.832 against 0.870
read so, 100 documents, two-word queries: tests/text/test_haitian_s80.py) and never gained it any;
French's, which it went to before, gain it nothing either (0.870). It writes, in nearly every sentence, words of its own
that no language of the lists writes (mwen, yon, pou, anpil, konnen, avèk, timoun).
(Breton, read as Dutch, Norwegian or Spanish, was measured too: their stems cost it as much as
they gain it over sizes and seeds, and it is left to them.)
"""
from __future__ import annotations

# words that no stop list holds and no language of the lists writes as a word (nou, gen, nan, yo
# are other languages' words too: Romanian's nou, Spanish's yo, and are left out)
_OWN_WORDS = {"haitian": frozenset({"mwen", "yon", "pou", "anpil", "kounye", "konnen", "avèk", "ankò", "timoun"})}
#: A sample is of one of these languages where its own words are at least this share of its
#: words: a collection of a list's language with a few texts of it (a twentieth) holds fewer; a
#: sentence of it holds one in five to twenty.
MIN_OWN_SHARE = 0.02


def unread_language(counts, total, sample):
    """The language of no list (``"haitian"``) whose own words make at least
    :data:`MIN_OWN_SHARE` of the words ``counts`` (a Counter of lowercased words, ``total`` of
    them) of ``sample``, else None."""
    for name, own in _OWN_WORDS.items():
        if sum(counts[w] for w in own if w in counts) >= MIN_OWN_SHARE * total:
            return name
    return None
