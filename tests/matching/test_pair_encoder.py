"""The pair models with a pre-trained sentence encoder (issue 33, point 7): they keep their lexical
blocks (word tf.idf, character n-grams, ...) and add the encoder's cosine (``"encoder_cosine"``)
and, with ``embedding=``, FILM's learned cosine over the encoder's vectors (FILM-BERT); saved and
loaded through the persistence protocol. Run with a deterministic numpy encoder (no PyTorch)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from encoder_fakes import HashedWordEncoder, register, topic_pairs
from learnsim.film import FILM
from learnsim.matching import PairClassifierMatcher, PairScoreRegressor, choose_matcher
from learnsim.matching._graded import choose_regressor
from learnsim.matching.pair_classifier import DEFAULT_FEATURES
from learnsim.persistence import load, save
from learnsim.supervision import Pairs, split_pairs

FEATURES = DEFAULT_FEATURES + ("encoder_cosine",)


@pytest.fixture(scope="module")
def data():
    texts, rows = topic_pairs()
    idx = np.array([(i, j) for i, j, _ in rows])
    y = np.array([label for _, _, label in rows], dtype=bool)
    return texts, idx, y


class _Spy:
    """A fitted 'embedding' that records what it is given (and returns it)."""

    def __init__(self):
        self.seen = []

    def transform(self, X):
        self.seen.append(np.asarray(X).shape)
        return np.asarray(X, dtype=np.float64)


def test_the_encoder_cosine_is_a_feature_of_its_own(data):
    texts, idx, y = data
    encoder = HashedWordEncoder()
    model = PairClassifierMatcher(encoder=encoder, features=FEATURES, C=1.0, random_state=0).fit(texts, idx, y)
    D, _ = model._pair_features(model._fitted_rep, idx)
    E = encoder.transform(texts).astype(np.float64)
    cos = np.einsum("ij,ij->i", E[idx[:, 0]], E[idx[:, 1]])
    np.testing.assert_allclose(D[:, -1], cos, atol=1e-6)
    assert model.score(idx, y) > 0.8
    # new texts are encoded for prediction
    before = encoder.n_encoded
    model.predict(np.array([[0, 1]]), X=[texts[0], texts[1]])
    assert encoder.n_encoded == before + 2


def test_an_embedding_takes_the_encoders_vectors_not_the_word_tfidf(data):
    texts, idx, y = data
    encoder, spy = HashedWordEncoder(dim=16), _Spy()
    PairClassifierMatcher(encoder=encoder, embedding=spy, features=DEFAULT_FEATURES + ("embedding_cosine",),
                          C=1.0, random_state=0).fit(texts, idx, y)
    assert spy.seen and all(shape == (len(texts), 16) for shape in spy.seen)


def test_parameter_errors(data):
    texts, idx, y = data
    with pytest.raises(ValueError, match="'encoder_cosine' feature block needs encoder="):
        PairClassifierMatcher(features=FEATURES).fit(texts, idx, y)
    with pytest.raises(ValueError, match="give one of them in features, or drop encoder="):
        PairClassifierMatcher(encoder=HashedWordEncoder()).fit(texts, idx, y)
    with pytest.raises(TypeError, match="encoder must be None or a fitted text encoder"):
        PairClassifierMatcher(encoder="a folder", features=FEATURES).fit(texts, idx, y)


@pytest.mark.parametrize("cls, target", [(PairClassifierMatcher, "labels"), (PairScoreRegressor, "scores")])
def test_save_and_load_keep_the_encoder_and_the_predictions(data, tmp_path, monkeypatch, cls, target):
    register(monkeypatch)
    texts, idx, y = data
    film = FILM(n_components=4, max_iter=15, baseline_holdout=None, random_state=0)
    E = HashedWordEncoder().transform(texts)
    film.fit(E, np.repeat(np.arange(4), 12))
    values = y if target == "labels" else np.where(y, 4.0, 1.0) + np.linspace(0, 0.5, len(y))
    reg = "C" if cls is PairClassifierMatcher else "alpha"
    model = cls(encoder=HashedWordEncoder(), embedding=film, features=FEATURES + ("embedding_cosine",),
                random_state=0, **{reg: 1.0}).fit(texts, idx, values)
    back = load(save(model, tmp_path / "model.npz"))
    assert isinstance(back.encoder, HashedWordEncoder) and isinstance(back.embedding, FILM)
    np.testing.assert_allclose(back.decision_function(idx, X=texts), model.decision_function(idx, X=texts),
                               rtol=1e-9, atol=1e-9)


def test_a_state_from_before_the_encoder_block_loads(data, tmp_path):
    texts, idx, y = data
    model = PairClassifierMatcher(C=1.0, random_state=0).fit(texts, idx, y)
    meta, arrays = model._get_state()
    assert meta["encoder"] is None
    del meta["encoder"]                      # as written before the encoder block
    back = PairClassifierMatcher._from_state(meta, arrays)
    assert back.encoder is None
    np.testing.assert_allclose(back.decision_function(idx, X=texts), model.decision_function(idx, X=texts))


def test_choose_matcher_gives_the_classifiers_the_encoder_and_film(data):
    texts, idx, y = data
    encoder = HashedWordEncoder()
    X = encoder.transform(texts).astype(np.float64)
    pairs = Pairs(idx, labels=y)
    train, held = split_pairs(pairs, held_out=0.3, random_state=0)
    film = FILM(n_components=4, max_iter=15, baseline_holdout=None, random_state=0).fit(X, np.repeat(np.arange(4), 12))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        matcher, rule = choose_matcher(film, X, train, held, texts=texts, vectorizer=encoder, encoder=encoder,
                                       random_state=0)
    assert {"cosine", "classifier", "classifier+film"} <= set(rule.accuracies)
    if rule.matcher.startswith("classifier"):
        assert matcher.encoder is encoder and "encoder_cosine" in matcher.features_
        assert matcher.vectorizer is None          # its own word tf.idf, not the encoder


def test_choose_regressor_uses_the_encoder_cosine_as_its_baseline_and_mixes_the_lexical_part(data):
    from learnsim.text import TextVectorizer

    texts, idx, y = data
    encoder = HashedWordEncoder()
    X = encoder.transform(texts).astype(np.float64)
    scores = np.where(y, 4.0, 1.0) + np.random.default_rng(0).uniform(-0.5, 0.5, len(y))
    train, held = split_pairs(Pairs(idx, scores=scores), held_out=0.3, random_state=0)
    film = FILM(n_components=4, max_iter=15, baseline_holdout=None, random_state=0).fit(X, np.repeat(np.arange(4), 12))
    L = TextVectorizer("tfidf", norm="l2", dtype=np.float64).fit_transform(texts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, rule, search = choose_regressor(film, X, train, held, texts=texts, encoder=encoder, lexical=L,
                                               random_state=0)
    assert {"cosine", "regression", "regression+film"} <= set(rule.pearsons)
    assert search.lexical_weight in search.lexical_grid
    at = search.lexical_grid.index(search.lexical_weight)
    assert search.lexical_scores[at] >= max(search.lexical_scores[0], search.lexical_scores[-1])
    if rule.matcher == "cosine":
        assert model.features_ == ("encoder_cosine",)
    else:
        assert "encoder_cosine" in model.features_
