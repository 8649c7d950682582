"""Lone surrogates (half of a UTF-16 pair, as ``errors="surrogateescape"`` decoding leaves for a
byte that is not UTF-8) in the pair models: a text holding one is refused by name and position,
as learnsim.fit, Pipeline and Index refuse it (it was a UnicodeEncodeError from scikit-learn's
character hashing), and collection statistics whose terms hold one (a custom token pattern's)
are combined as learnsim.text reads them (surrogatepass), not a UnicodeEncodeError."""
from __future__ import annotations

import numpy as np
import pytest

from learnsim.matching.pair_classifier import PairClassifierMatcher, PairScoreRegressor, _union_statistics
from learnsim.supervision import Pairs
from learnsim.text import TextVectorizer, collection_terms, collection_vocabulary

SMALL = dict(char_features=10, n_splits=2, random_state=0)
BAD = "caf\udce9 au lait"       # "café" read with surrogateescape from Latin-1 bytes


def _texts(bad_at=None):
    texts = [f"w{i} w{i + 1} w{i + 2} common" for i in range(12)]
    if bad_at is not None:
        texts[bad_at] = BAD
    return texts


def _pairs():
    idx = np.asarray([(2 * i, 2 * i + 1) for i in range(6)])
    return Pairs(idx, labels=np.asarray([1, 0, 1, 0, 1, 0]))


@pytest.mark.parametrize("cls", [PairClassifierMatcher, PairScoreRegressor])
def test_a_text_holding_a_lone_surrogate_is_refused_naming_its_position(cls):
    pairs = _pairs()
    if cls is PairScoreRegressor:
        pairs = Pairs(pairs.indices, scores=np.asarray([4.0, 1.0, 3.5, 0.5, 5.0, 2.0]))
    with pytest.raises(ValueError, match=r"X\[5\].*lone surrogate.*U\+DCE9"):
        cls(**SMALL).fit(_texts(bad_at=5), pairs)
    # a fitted model refuses it when scoring alike (the same check)
    model = cls(**SMALL).fit(_texts(), pairs)
    with pytest.raises(ValueError, match=r"X\[3\].*lone surrogate"):
        model.predict(pairs.indices[:2], X=_texts(bad_at=3))


def test_the_whole_text_with_no_surrogate_still_fits_and_scores():
    model = PairClassifierMatcher(**SMALL).fit(_texts(), _pairs())
    proba = model.predict_proba(_pairs().indices, X=_texts())
    assert np.all((proba >= 0) & (proba <= 1))


def test_collection_statistics_whose_terms_hold_a_lone_surrogate_are_combined():
    """The union of two collections' statistics is that of the texts taken together, a term
    holding a lone surrogate (token pattern \\S+ keeps it) included."""
    vec = TextVectorizer("tf", token_pattern=r"\S+").fit(["caf\udce9 noir", "plain tea", "caf\udce9 au lait"])
    a_texts, b_texts = ["caf\udce9 noir", "tea time", "x\udc80y tea"], ["caf\udce9 au lait", "lait chaud"]
    a, b = collection_vocabulary(vec, a_texts), collection_vocabulary(vec, b_texts)
    union = _union_statistics(a, b)
    whole = collection_vocabulary(vec, a_texts + b_texts)
    assert collection_terms(union) == collection_terms(whole)
    assert "caf\udce9" in collection_terms(union) and "x\udc80y" in collection_terms(union)
    np.testing.assert_array_equal(union["vocabulary_df"], whole["vocabulary_df"])
    assert int(union["vocabulary_n_documents"]) == len(a_texts) + len(b_texts)
    np.testing.assert_allclose(float(union["vocabulary_avgdl"]), float(whole["vocabulary_avgdl"]), rtol=1e-12)
