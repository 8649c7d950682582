"""The stems of a tokenizer's words (:meth:`learnsim.text.Tokenizer._stem_tokens`), bounded in
time and memory against hostile text.

- A word longer than :data:`MAX_STEM_CHARS` is left as it is: Snowball's stemmers (PyStemmer)
  rewrite a word in place, and some in time quadratic in its length (Serbian's turns Cyrillic
  into Latin letter by letter: a Cyrillic word of 640,000 letters took 16 s; German's marks each
  ü between vowels: 1,250,000 letters took 7 s, and 5,000,000 more than 100 s), so that a text
  of no spaces could hold a fit, an index write or a search for minutes. No language writes a
  word of a thousand letters (the longest of literature, a Sanskrit compound, has some 430):
  such a word is a blob of some other kind, as a run of more than ``MAX_MARKS`` combining marks is
  no writing (:data:`learnsim.text._tokenize.MAX_MARKS`), and matches only itself anyway.
- The cache of stems holds at most :data:`MAX_CACHED_STEMS` words: it grew with every distinct
  word a tokenizer ever read, and an index's tokenizer reads every query of a service's lifetime.
- A word holding a lone surrogate (kept by a custom token pattern) is its own stem: PyStemmer
  failed on it with UnicodeEncodeError, where the vectoriser keeps such a term.
"""
from __future__ import annotations

import re

__all__ = ["MAX_STEM_CHARS", "MAX_CACHED_STEMS", "stem_tokens"]

MAX_STEM_CHARS = 1000
MAX_CACHED_STEMS = 200_000
_SURROGATE = re.compile("[\ud800-\udfff]")


def stem_tokens(stemmer, cache, tokens):
    """The stems of ``tokens`` by ``stemmer`` (PyStemmer's ``stemWords`` interface), through
    ``cache`` (a dict of word -> stem, emptied before it would hold more than
    :data:`MAX_CACHED_STEMS`); a word longer than :data:`MAX_STEM_CHARS`, or holding a lone
    surrogate, is its own stem."""
    unseen = [t for t in set(tokens) if t not in cache]
    if not unseen:
        return [cache[t] for t in tokens]
    if len(cache) + len(unseen) > MAX_CACHED_STEMS:
        cache.clear()
    short = [t for t in unseen if len(t) <= MAX_STEM_CHARS]
    if short:
        try:
            stems = stemmer.stemWords(short)
        except UnicodeEncodeError:
            # a word holding a lone surrogate (a custom token pattern's, of text decoded with
            # surrogateescape) has no UTF-8 for PyStemmer: it is its own stem, the others stemmed
            short = [t for t in short if t.isascii() or not _SURROGATE.search(t)]
            stems = stemmer.stemWords(short) if short else []
        cache.update(zip(short, stems))
    return [cache.get(t, t) for t in tokens]
