"""learnsim.text._char_hash: scikit-learn's hashed char_wb n-grams without scikit-learn, equal
to HashingVectorizer's columns and counts on random text (the index's re-ranker relies on it),
the text lowercased alone or read by fold_chars (NFKC, lowercased) as the pair models read it."""
from __future__ import annotations

import random
import time
import unicodedata

import numpy as np
import pytest
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.utils import murmurhash3_32 as sklearn_murmur

from learnsim.text._char_hash import char_ngram_counts, char_wb_ngrams, fold_chars, fold_chars_casefold, murmurhash3_32

# ASCII, accents, CJK, an emoji (4 UTF-8 bytes), Unicode blanks (em space, NEL), case folds
_ALPHABET = "abcXYZ \t\n  é漢字😀?!.-" + "\u2003\u0085" + "İß"
# and what NFKC changes: combining accents (NFD), full-width letters and space, ligatures, the
# acute accent and U+FDFA (which NFKC writes with spaces in them: new word boundaries),
# half-width katakana and its voicing mark (ｶﾞ is ガ), the Kelvin and ohm signs, a circled digit,
# capital sigma (lowercased final or not by its context), capital sharp s
_FOLD_ALPHABET = _ALPHABET + "\u0301\u0308\u0316ＡｚＰ１\u3000ﬁﬂ´\ufdfaｶﾞ\u212a\u2126①ΣẞÅ"


def _random_texts(n, seed, alphabet=_ALPHABET):
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(n)]


def test_murmurhash_equals_scikit_learns_on_random_bytes():
    rng = np.random.default_rng(0)
    for length in list(range(12)) + [31, 64, 255]:
        for _ in range(20):
            data = rng.integers(0, 256, length, dtype=np.uint8).tobytes()
            seed = int(rng.integers(0, 2**31))
            assert murmurhash3_32(data, seed) == sklearn_murmur(data, seed)


@pytest.mark.parametrize("fold", [False, True])
@pytest.mark.parametrize("ngram_range,bits", [((2, 5), 18), ((1, 3), 4), ((3, 3), 1)])
def test_counts_equal_hashing_vectorizer(ngram_range, bits, fold):
    """Lowercased alone (scikit-learn's own preprocessing: models fitted before the fold), or read
    by fold_chars, scikit-learn's preprocessor in the pair models since."""
    hv = HashingVectorizer(analyzer="char_wb", ngram_range=ngram_range, n_features=2**bits, alternate_sign=False,
                           norm=None, preprocessor=fold_chars if fold else None)
    texts = _random_texts(600, seed=bits, alphabet=_FOLD_ALPHABET if fold else _ALPHABET) + [
        "", "   ", "a", "Hello  World", "x" * 300, "ΟΔΟΣ ΟΔΟΣ.", "ﬁnance \ufdfa cafe\u0301"]
    X = hv.transform(texts).tocsr()
    cache = {}
    for i, text in enumerate(texts):
        row = X[i]
        want = dict(zip(row.indices.tolist(), row.data.tolist()))
        got = {k: float(v) for k, v in char_ngram_counts(text, *ngram_range, 2**bits, cache, fold=fold).items()}
        assert got == want, text


def test_a_text_written_another_way_gives_the_same_ngrams_when_folded():
    text = "Which café in São Paulo? fine Straße"
    nfd = unicodedata.normalize("NFD", text)
    full = "".join("\u3000" if c == " " else chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)
    ligature = text.replace("fi", "\ufb01")
    want = char_wb_ngrams(text, 2, 5, fold=True)
    assert want == char_wb_ngrams(text.lower(), 2, 5)       # text in NFKC: lowercased alone
    for other in (nfd, full, ligature):
        assert other != text and char_wb_ngrams(other, 2, 5, fold=True) == want
        assert char_wb_ngrams(other, 2, 5) != want          # lowercasing alone told them apart
    assert fold_chars("ASCII Text") == "ascii text"
    assert fold_chars("Straße ΟΔΟΣ") == "straße οδος"        # lowercased, not casefolded


def test_casefolded_a_word_in_either_case_gives_the_same_ngrams():
    """casefold (every fit since): "Straße", "STRASSE" and "strasse", Greek's final sigma and
    its sigma give the same n-grams, as the word tokenizer's casefold reads them; lowercased
    (models fitted before), they did not."""
    for spellings in (("Straße", "STRASSE", "strasse", "STRAẞE"), ("ΟΔΟΣ", "οδος", "οδοσ")):
        want = char_wb_ngrams(spellings[0], 2, 5, fold=True, casefold=True)
        for other in spellings[1:]:
            assert char_wb_ngrams(other, 2, 5, fold=True, casefold=True) == want, other
        assert len({tuple(char_wb_ngrams(s, 2, 5, fold=True)) for s in spellings}) > 1
    assert char_ngram_counts("Straße", 2, 4, 2**18, fold=True, casefold=True) == \
        char_ngram_counts("STRASSE", 2, 4, 2**18, fold=True, casefold=True)
    assert char_ngram_counts("Straße", 2, 4, 2**18, fold=True) != char_ngram_counts("STRASSE", 2, 4, 2**18, fold=True)
    assert fold_chars_casefold("Ｓｔｒａße ﬁ") == fold_chars("Ｓｔｒａße ﬁ", casefold=True) == "strasse fi"


@pytest.mark.parametrize("ngram_range,bits", [((2, 5), 18), ((1, 3), 4)])
def test_casefolded_counts_equal_hashing_vectorizer(ngram_range, bits):
    hv = HashingVectorizer(analyzer="char_wb", ngram_range=ngram_range, n_features=2**bits, alternate_sign=False,
                           norm=None, preprocessor=fold_chars_casefold)
    texts = _random_texts(300, seed=bits, alphabet=_FOLD_ALPHABET) + ["Straße STRASSE", "ΟΔΟΣ οδός", "ﬁnance \ufdfa"]
    X = hv.transform(texts).tocsr()
    for i, text in enumerate(texts):
        want = dict(zip(X[i].indices.tolist(), X[i].data.tolist()))
        got = {k: float(v) for k, v in char_ngram_counts(text, *ngram_range, 2**bits, fold=True, casefold=True).items()}
        assert got == want, text


def test_folding_a_long_run_of_marks_takes_linear_time():
    """A run of combining marks longer than the tokenizer's MAX_MARKS keeps its first ones before
    NFKC, whose sorting of a run is quadratic (40,000 mixed marks took a second)."""
    hostile = "e" + "\u0301\u0316" * 100_000 + " Ｐｙｔｈｏｎ"
    start = time.perf_counter()
    folded = fold_chars(hostile)
    assert time.perf_counter() - start < 2.0           # unbounded: about 30 s
    assert folded.endswith(" python") and len(folded) < 40


def test_characters_that_nfkc_makes_marks_count_in_the_run_cut():
    """Halfwidth voiced sound marks (U+FF9E) are not marks before NFKC and are after it (U+3099):
    interleaved with accents they passed a cut of the marks alone and made one run of twice the
    length for NFKC to sort (80,000 characters took 4 s, each doubling 4x)."""
    hostile = "a" + "\u0301\uff9e" * 100_000 + " ﾊﾞｽ"
    start = time.perf_counter()
    folded = fold_chars(hostile)
    assert time.perf_counter() - start < 2.0           # unbounded: about a minute
    assert folded.endswith(" バス") and len(folded) < 40
    assert fold_chars("ﾊﾞｽ ｶﾞｲﾄﾞ") == "バス ガイド"            # a short run folds as NFKC does


def test_ngrams_follow_word_boundaries():
    assert char_wb_ngrams("ab", 2, 4) == [" a", "ab", "b ", " ab", "ab ", " ab "]
    # a word shorter than n counts once
    assert char_wb_ngrams("a", 3, 5) == [" a "]
    assert char_wb_ngrams("", 2, 5) == []


@pytest.mark.parametrize("fold", [False, True])
def test_a_word_longer_than_a_piece_counts_as_the_pair_models_count_it(fold):
    """A text with a word longer than a piece (CHAR_PIECE characters with no whitespace) is cut
    inside that word by the pair models; the re-ranker's counts cut it at the same place and
    equal the model's (they differed by the few n-grams across the cut)."""
    from learnsim.matching import pair_classifier as pc
    from learnsim.text._char_hash import CHAR_PIECE, char_pieces

    rng = random.Random(1)
    word = "".join(rng.choice("abcdefghİéｶﾞ\u0301") for _ in range(CHAR_PIECE + 5000))
    text = "Lead " + word + " and tail"
    model = pc.PairClassifierMatcher(char_ngram_range=(2, 4), char_features=20)
    model.char_fold_ = fold
    want = model._char_counts(["x", text]).tocsr()[1]
    want.data = np.exp(want.data - 1.0)         # back from 1 + log(count) to the counts
    got = char_ngram_counts(text, 2, 4, 2**20, fold=fold)
    assert CHAR_PIECE in map(len, char_pieces(fold_chars(text) if fold else text))     # cut in the word
    assert sorted(got) == want.indices.tolist()
    assert np.allclose([got[c] for c in want.indices.tolist()], want.data, rtol=0, atol=1e-6)
