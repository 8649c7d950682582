"""Hostile words at the stemmer: Snowball's Serbian and German stemmers (PyStemmer) take time
quadratic in a word's length (a Cyrillic word of 640,000 letters: 16 s in Serbian's; 1,250,000
letters with ü: 7 s in German's), and the tokenizer's cache of stems grew with every distinct word
it ever read (a service's index read every query's)."""
from __future__ import annotations

import pytest

from learnsim.text import Tokenizer
from learnsim.text._stems import MAX_CACHED_STEMS, MAX_STEM_CHARS


class _Recording:
    """A stemmer that records the words it is given and stems by dropping a final 's'."""

    def __init__(self):
        self.seen = []

    def stemWords(self, words):     # noqa: N802 - PyStemmer's name
        self.seen.extend(words)
        return [w[:-1] if w.endswith("s") else w for w in words]


def _recording(tok):
    tok._stemmer = _Recording()
    return tok._stemmer


@pytest.mark.parametrize("reader", ["call", "spans"])
def test_a_word_longer_than_any_language_writes_is_not_given_to_the_stemmer(reader):
    tok = Tokenizer(stem="porter")
    stemmer = _recording(tok)
    long = "ab" * MAX_STEM_CHARS + "s"
    text = f"cats {long} dogs"
    terms = tok(text) if reader == "call" else [t for _, _, t in tok.spans(text)]
    assert terms == ["cat", long, "dog"]            # the long word whole, unstemmed
    assert max(map(len, stemmer.seen)) <= MAX_STEM_CHARS


def test_a_word_at_the_bound_is_still_stemmed():
    tok = Tokenizer(stem="porter")
    _recording(tok)
    word = "a" * (MAX_STEM_CHARS - 1) + "s"
    assert tok(word) == [word[:-1]]


@pytest.mark.parametrize("stem,word", [("serbian", "књига"), ("german", "bücher")])
def test_a_long_word_of_a_slow_stemmer_reads_as_itself(stem, word):
    pytest.importorskip("Stemmer")
    long = word * (2 * MAX_STEM_CHARS // len(word))
    tok = Tokenizer(stem=stem)
    assert tok(f"{word} {long}")[1] == tok(long)[0] == long.casefold()
    assert tok(word) == tok(f"{word} {long}")[:1]   # a short word stems as before


def test_the_cache_of_stems_stays_bounded():
    tok = Tokenizer(stem="porter")
    _recording(tok)
    words = [f"w{i}s" for i in range(MAX_CACHED_STEMS + 10)]
    for start in range(0, len(words), 1000):
        assert tok(" ".join(words[start:start + 1000])) == [w[:-1] for w in words[start:start + 1000]]
        assert len(tok._stem_cache) <= MAX_CACHED_STEMS
    assert tok("w1s w2s") == ["w1", "w2"]            # stems read alike after the cache was emptied
