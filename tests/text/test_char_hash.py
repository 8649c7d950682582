"""learnsim.text._char_hash: scikit-learn's hashed char_wb n-grams without scikit-learn, equal
to HashingVectorizer's columns and counts on random text (the index's re-ranker relies on it)."""
from __future__ import annotations

import random

import numpy as np
import pytest
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.utils import murmurhash3_32 as sklearn_murmur

from learnsim.text._char_hash import char_ngram_counts, char_wb_ngrams, murmurhash3_32

# ASCII, accents, CJK, an emoji (4 UTF-8 bytes), Unicode blanks (em space, NEL), case folds
_ALPHABET = "abcXYZ \t\n  é漢字😀?!.-" + "\u2003\u0085" + "İß"


def _random_texts(n, seed):
    rng = random.Random(seed)
    return ["".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, 40))) for _ in range(n)]


def test_murmurhash_equals_scikit_learns_on_random_bytes():
    rng = np.random.default_rng(0)
    for length in list(range(12)) + [31, 64, 255]:
        for _ in range(20):
            data = rng.integers(0, 256, length, dtype=np.uint8).tobytes()
            seed = int(rng.integers(0, 2**31))
            assert murmurhash3_32(data, seed) == sklearn_murmur(data, seed)


@pytest.mark.parametrize("ngram_range,bits", [((2, 5), 18), ((1, 3), 4), ((3, 3), 1)])
def test_counts_equal_hashing_vectorizer(ngram_range, bits):
    hv = HashingVectorizer(analyzer="char_wb", ngram_range=ngram_range, n_features=2**bits, alternate_sign=False,
                           norm=None)
    texts = _random_texts(600, seed=bits) + ["", "   ", "a", "Hello  World", "x" * 300]
    X = hv.transform(texts).tocsr()
    cache = {}
    for i, text in enumerate(texts):
        row = X[i]
        want = dict(zip(row.indices.tolist(), row.data.tolist()))
        got = {k: float(v) for k, v in char_ngram_counts(text, *ngram_range, 2**bits, cache).items()}
        assert got == want, text


def test_ngrams_follow_word_boundaries():
    assert char_wb_ngrams("ab", 2, 4) == [" a", "ab", "b ", " ab", "ab ", " ab "]
    # a word shorter than n counts once
    assert char_wb_ngrams("a", 3, 5) == [" a "]
    assert char_wb_ngrams("", 2, 5) == []
