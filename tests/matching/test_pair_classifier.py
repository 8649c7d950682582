"""PairClassifierMatcher and PairScoreRegressor: learned linear models on features of a pair."""
from __future__ import annotations

import unicodedata
import warnings

import numpy as np
import pytest

from conftest import require_corpus
from learnsim import persistence
from learnsim.matching import ThresholdMatcher
from learnsim.matching.pair_classifier import FEATURE_BLOCKS, PairClassifierMatcher, PairScoreRegressor
from learnsim.supervision import Pairs
from learnsim.text import TextVectorizer

SMALL = dict(char_features=12, n_components=8, n_splits=3, random_state=0)


def _negation_pairs(seed=0, n=300):
    """Texts and labelled pairs where the rule is "same sentence, and 'not' in both or neither".

    Duplicates: a sentence and a copy with one word replaced. Non-duplicates: half an exact
    copy with 'not' added to one side (closer in cosine than the duplicates), half another
    sentence.
    """
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(60)]
    texts, idx, labels = [], [], []

    def sentence():
        return list(rng.choice(vocab, size=7, replace=False))

    for i in range(n):
        base = sentence()
        other = base.copy()
        kind = i % 4
        if kind < 2:
            other[rng.integers(len(other))] = vocab[rng.integers(len(vocab))]
        elif kind == 2:
            other.insert(rng.integers(len(other)), "not")
        elif kind == 3:
            other = sentence()
        texts += [" ".join(base), " ".join(other)]
        idx.append((2 * i, 2 * i + 1))
        labels.append(kind < 2)
    return texts, Pairs(np.asarray(idx), labels=np.asarray(labels))


def _split(pairs, n_train):
    return (Pairs(pairs.indices[:n_train], labels=pairs.labels[:n_train]),
            Pairs(pairs.indices[n_train:], labels=pairs.labels[n_train:]))


@pytest.fixture(scope="module")
def negation():
    texts, pairs = _negation_pairs()
    train, test = _split(pairs, 200)
    model = PairClassifierMatcher(**SMALL).fit(texts, train)
    return texts, train, test, model


def test_learns_a_rule_the_cosine_cannot(negation):
    texts, train, test, model = negation
    vec = TextVectorizer("tfidf", norm="l2", dtype=np.float64).fit(texts)
    X = vec.transform(texts)
    cosine = ThresholdMatcher().fit(X, train).score(test, X=X)
    learned = model.score(test)
    assert learned >= 0.9
    assert learned >= cosine + 0.1
    assert model.score(test, X=texts) == learned       # the fitted texts are the default X
    assert model.C_ in model.C_grid and model.cv_scores_.shape == (len(model.C_grid),)
    assert 0.5 < model.validation_accuracy_ <= 1.0


def test_probabilities_are_probabilities_and_roughly_calibrated(negation):
    texts, train, test, model = negation
    proba = model.predict_proba(test)
    assert proba.shape == (test.indices.shape[0], 2)
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    p = proba[:, 1]
    assert abs(p.mean() - test.labels.mean()) < 0.1
    # confident predictions are mostly right
    confident = (p > 0.8) | (p < 0.2)
    assert confident.mean() > 0.5
    assert np.mean((p[confident] > 0.5) == test.labels[confident]) > 0.9
    # higher decision values, higher probabilities
    d = model.decision_function(test)
    assert np.all(np.diff(p[np.argsort(d)]) >= -1e-12)


@pytest.mark.parametrize("features", [None, ("input_cosine", "char_cosine", "overlap", "length", "lowrank",
                                               "word_pairs")])
def test_save_load_round_trip_gives_equal_predictions(negation, features, tmp_path):
    texts, train, test, model = negation
    if features is not None:
        model = PairClassifierMatcher(features=features, **SMALL).fit(texts, train)
    path = persistence.save(model, tmp_path / "pc.npz")
    loaded = persistence.load(path)
    assert type(loaded) is PairClassifierMatcher
    np.testing.assert_allclose(loaded.decision_function(test, X=texts), model.decision_function(test), rtol=1e-10)
    np.testing.assert_array_equal(loaded.predict(test, X=texts), model.predict(test))
    np.testing.assert_allclose(loaded.predict_proba(test, X=texts), model.predict_proba(test), rtol=1e-10)
    assert loaded.threshold_ == model.threshold_ and loaded.C_ == model.C_
    with pytest.raises(ValueError, match="keeps no texts"):
        loaded.predict(test)


def test_embedding_block_with_film_round_trips(negation, tmp_path):
    from learnsim.film import FILM
    from learnsim.supervision import duplicate_pairs_to_triplets
    texts, train, test, _ = negation
    vec = TextVectorizer("tfidf", sublinear_tf=True, norm="l2", dtype=np.float64).fit(texts)
    X = vec.transform(texts)
    film = FILM(4, max_iter=20, random_state=0).fit(X, duplicate_pairs_to_triplets(train, n_items=len(texts),
                                                                                    random_state=0))
    model = PairClassifierMatcher(vectorizer=vec, embedding=film, features=("input_cosine", "embedding"),
                                  **SMALL).fit(texts, train)
    assert model.coef_.shape == (1 + 2 * 4 + 1,)
    loaded = persistence.load(persistence.save(model, tmp_path / "pc.npz"))
    np.testing.assert_allclose(loaded.decision_function(test, X=texts), model.decision_function(test), rtol=1e-10)


@pytest.mark.parametrize("block", ["embedding", "embedding_cosine"])
def test_a_shared_representation_fits_the_same_model(negation, block, tmp_path):
    """choose_matcher fits up to three classifiers on one collection and shares their word and
    character blocks: the model must be the one a fit of its own gives."""
    from learnsim.film import FILM
    from learnsim.supervision import duplicate_pairs_to_triplets
    texts, train, test, _ = negation
    vec = TextVectorizer("tfidf", sublinear_tf=True, norm="l2", dtype=np.float64).fit(texts)
    film = FILM(4, max_iter=20, random_state=0).fit(vec.transform(texts), duplicate_pairs_to_triplets(
        train, n_items=len(texts), random_state=0))
    plain = PairClassifierMatcher(vectorizer=vec, **SMALL).fit(texts, train)
    features = ("input_cosine", "char_cosine", "overlap", block)
    alone = PairClassifierMatcher(vectorizer=vec, embedding=film, features=features, **SMALL).fit(texts, train)
    shared = PairClassifierMatcher(vectorizer=vec, embedding=film, features=features, **SMALL)._fit_labelled(
        texts, train.indices, np.asarray(train.labels, bool), shared=plain)
    assert alone.coef_.shape == shared.coef_.shape == ((7 if block == "embedding_cosine" else 15),)
    np.testing.assert_allclose(shared.decision_function(test), alone.decision_function(test), rtol=1e-8, atol=1e-10)
    assert shared.C_ == alone.C_ and shared.threshold_ == pytest.approx(alone.threshold_)
    loaded = persistence.load(persistence.save(shared, tmp_path / "pc.npz"))
    np.testing.assert_allclose(loaded.decision_function(test, X=texts), shared.decision_function(test), rtol=1e-10)


def _graded(seed=0, n=200):
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(80)]
    texts, idx, scores = [], [], []
    for i in range(n):
        base = list(rng.choice(vocab, size=8, replace=False))
        keep = int(rng.integers(0, 9))
        other = base[:keep] + list(rng.choice(vocab, size=8 - keep))
        texts += [" ".join(base), " ".join(other)]
        idx.append((2 * i, 2 * i + 1))
        scores.append(5.0 * keep / 8)
    return texts, Pairs(np.asarray(idx), scores=np.asarray(scores))


def test_regressor_predicts_graded_similarity_and_round_trips(tmp_path):
    texts, pairs = _graded()
    train = Pairs(pairs.indices[:150], scores=pairs.scores[:150])
    test = Pairs(pairs.indices[150:], scores=pairs.scores[150:])
    model = PairScoreRegressor(**SMALL).fit(texts, train)
    assert model.score(test) > 0.9
    assert model.alpha_ in model.alpha_grid and -1 <= model.validation_pearson_ <= 1
    loaded = persistence.load(persistence.save(model, tmp_path / "reg.npz"))
    np.testing.assert_allclose(loaded.predict(test, X=texts), model.predict(test), rtol=1e-10)
    # index arrays with y work too
    again = PairScoreRegressor(**SMALL).fit(texts, train.indices, y=train.scores)
    np.testing.assert_allclose(again.predict(test), model.predict(test), rtol=1e-10)


def test_bad_input_is_refused_with_clear_messages(negation):
    texts, train, test, model = negation
    X = TextVectorizer(dtype=np.float64).fit_transform(texts)
    with pytest.raises(TypeError, match="must be the texts"):
        PairClassifierMatcher(**SMALL).fit(X, train)
    with pytest.raises(TypeError, match="must be the texts"):
        model.predict(test, X=X.toarray())
    with pytest.raises(TypeError, match="not a single str"):
        PairClassifierMatcher(**SMALL).fit("one text", train)
    with pytest.raises(ValueError, match="unknown"):
        PairClassifierMatcher(features=("cosine",), **SMALL).fit(texts, train)
    with pytest.raises(ValueError, match="needs embedding="):
        PairClassifierMatcher(features=("embedding",), **SMALL).fit(texts, train)
    with pytest.raises(ValueError, match="C must be 'auto' or a positive number"):
        PairClassifierMatcher(C=-1.0, **SMALL).fit(texts, train)
    with pytest.raises(ValueError, match="n_splits"):
        PairClassifierMatcher(n_splits=1).fit(texts, train)
    with pytest.raises(ValueError, match="no duplicate"):
        PairClassifierMatcher(**SMALL).fit(texts, Pairs(train.indices, labels=np.zeros(len(train.labels), bool)))
    # one duplicate: a fold would train without any (scikit-learn's own words, 'np.False_', before)
    one = np.asarray(train.labels, bool)
    one = np.flatnonzero(~one)[:5].tolist() + np.flatnonzero(one)[:1].tolist()
    with pytest.raises(ValueError, match=r"hold 1 duplicate\(s\) and 5 non-duplicate\(s\).*at least two pairs of each"):
        PairClassifierMatcher(**SMALL).fit(texts, Pairs(train.indices[one], labels=np.asarray(train.labels, bool)[one]))
    with pytest.raises(ValueError, match="graded"):
        PairClassifierMatcher(**SMALL).fit(texts, Pairs(train.indices, scores=np.arange(len(train.labels), dtype=float)))
    with pytest.raises(ValueError, match="with itself"):
        PairClassifierMatcher(**SMALL).fit(texts, np.array([[0, 0], [1, 2]]), y=[1, 0])
    with pytest.raises(ValueError):
        model.predict(np.array([[0, len(texts)]]))
    with pytest.raises(ValueError, match="needs graded pairs"):
        PairScoreRegressor(**SMALL).fit(texts, train)
    with pytest.raises(ValueError, match="same score"):
        PairScoreRegressor(**SMALL).fit(texts, train.indices, y=np.ones(len(train.labels)))
    assert set(FEATURE_BLOCKS) >= set(model.features_)


@pytest.mark.parametrize("cls, name", [(PairClassifierMatcher, "C"), (PairScoreRegressor, "alpha")])
@pytest.mark.parametrize("grid", [1.0, None, (), "0.1"])
def test_a_grid_that_is_no_sequence_of_numbers_is_refused_by_name(negation, cls, name, grid):
    # one number was "'float' object is not iterable", () argmin's "empty sequence", and a str
    # was read letter by letter ("got '0'")
    texts, train, _, _ = negation
    if cls is PairScoreRegressor:       # graded pairs: the labels as scores
        train = Pairs(train.indices, scores=train.labels.astype(float))
    params = {**SMALL, name: "auto", name + "_grid": grid}
    with pytest.raises(ValueError, match=rf"^{name}_grid must be a non-empty sequence of positive numbers .*; got "):
        cls(**params).fit(texts, train)


@pytest.mark.parametrize("seed", [-1, "x", [1], 1.5])
def test_a_random_state_other_than_a_seed_is_refused(negation, seed):
    # -1 failed in the folds' splitter ("Seed must be between 0 and 2**32 - 1"); 'x' or [1] was
    # the seed 0, silently
    texts, train, _, _ = negation
    with pytest.raises(ValueError, match=r"^random_state must be None, an int >= 0 or a numpy Generator; got "):
        PairClassifierMatcher(**{**SMALL, "random_state": seed}).fit(texts, train)


def test_a_generator_random_state_is_drawn_from_not_the_seed_0(negation):
    # a numpy Generator was the seed 0 whatever its stream (the folds that choose C, the
    # low-rank features' SVD); now the seed is drawn from it, as scikit-learn's estimators draw
    # from one, and the same stream state gives the same fit
    from learnsim.matching.pair_classifier import _folds

    texts, train, _, _ = negation
    labels = np.asarray(train.labels, dtype=bool)

    def tests_of(rng):
        return [tuple(held) for _, held in _folds(3, labels, rng, stratified=True)]

    assert tests_of(np.random.default_rng(7)) == tests_of(np.random.default_rng(7))
    assert len({str(tests_of(np.random.default_rng(s))) for s in range(4)}) > 1
    assert tests_of(None) == tests_of(0)                     # None: a fit repeats itself
    params = {**SMALL, "C": "auto", "C_grid": (0.01, 0.1, 1.0, 10.0)}
    fits = [PairClassifierMatcher(**{**params, "random_state": np.random.default_rng(7)}).fit(texts, train)
            for _ in range(2)]
    np.testing.assert_allclose(fits[0].decision_function(train.indices), fits[1].decision_function(train.indices),
                               rtol=0, atol=1e-12)


@pytest.mark.corpus
@pytest.mark.slow
def test_quora_pair_classifier_beats_the_threshold_rule():
    """On a Quora sample, both chosen on the same dev pairs, the classifier wins on test."""
    require_corpus("quora-sample/dev.tsv")
    from learnsim.datasets import load_quora_pairs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dev, test = load_quora_pairs("dev"), load_quora_pairs("test")
    rng = np.random.default_rng(0)
    keep = np.sort(rng.choice(dev.pairs.indices.shape[0], 3000, replace=False))
    dev_pairs = Pairs(dev.pairs.indices[keep], labels=dev.pairs.labels[keep])
    texts, test_texts = list(dev.texts), list(test.texts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vec = TextVectorizer("tfidf", sublinear_tf=True, norm="l2", dtype=np.float64).fit(texts + test_texts)
    threshold = ThresholdMatcher().fit(vec.transform(texts), dev_pairs).score(test.pairs, X=vec.transform(test_texts))
    model = PairClassifierMatcher(vectorizer=vec, C_grid=(0.1, 0.3), n_splits=3, random_state=0)
    model.fit(texts, dev_pairs)
    learned = model.score(test.pairs, X=test_texts)
    assert learned > threshold + 0.04, (learned, threshold)


def test_a_long_text_is_hashed_in_pieces_with_the_same_counts(monkeypatch):
    """scikit-learn's hashing lists every character n-gram of a text as a string first: a 38 MB
    text took more than 4 GB. A long text is hashed in pieces cut at whitespace, whose counts add
    up to the whole text's exactly ("char_wb" n-grams never cross a space)."""
    import random

    from learnsim.matching import pair_classifier as pc

    rng = random.Random(0)
    words = ["alpha", "béta", "gamma", "猫が好き", "x" * 30, "d\u0301e"]
    text = " ".join(rng.choice(words) for _ in range(3000)) + "\n" + "\t".join(rng.choice(words) for _ in range(500))
    hasher = pc.PairClassifierMatcher()._hasher()
    whole = hasher.transform(["first", text, "last one"]).tocsr()
    monkeypatch.setattr(pc, "_CHAR_PIECE", 997)
    pieces = pc._text_pieces(text)
    assert "".join(pieces) == text and len(pieces) > 10 and max(map(len, pieces)) <= 997
    assert (abs(pc._long_char_counts(hasher, ["first", text, "last one"]) - whole)).sum() == 0


def test_an_exact_copy_is_a_duplicate_with_certainty_under_the_rule(negation):
    """An exact copy is a duplicate with probability 1 whatever the classifier extrapolates
    (Quora's rated a copy below a text repeating its words); blank texts and pairs given as
    vectors alone are left to the rule, and the pair's score stays the classifier's."""
    from learnsim.matching._duplicates import DuplicateRule

    texts, _, test, model = negation
    rule = DuplicateRule(model)
    # twenty texts, then each again, then two others and two blank ones
    base = list(texts[:20]) * 2 + [texts[20], texts[21], "  ", "  "]
    copies = np.array([(i, 20 + i) for i in range(20)])
    others = np.array([(40, 41), (0, 41), (42, 43)])
    pairs = np.vstack([copies, others])
    X = np.zeros((len(base), 1))
    plain = model.predict_proba(pairs, X=base)[:, 1]
    assert plain[:20].min() < 1.0                          # what the classifier alone says of a copy
    proba = rule.predict_proba(pairs, X, base)
    assert np.array_equal(proba[:20], np.tile([0.0, 1.0], (20, 1)))
    assert proba[20:, 1] == pytest.approx(plain[20:])      # other pairs as the classifier says
    assert np.all(rule.predict(pairs, X, base)[:20] == 1)
    assert rule.copies(pairs, X, base).tolist() == [True] * 20 + [False] * 3     # a blank "copy" is none
    # the score stays the classifier's decision value
    assert rule.pair_score(pairs, X, base) == pytest.approx(model.pair_score(pairs, X=base))
    # decide: the three at once, from one representation of the texts
    built = []
    represent = type(model)._representation
    model._representation = lambda X: built.append(1) or represent(model, X)
    try:
        score, p, decision = rule.decide(pairs, X, base)
    finally:
        del model._representation
    assert len(built) == 1
    assert score == pytest.approx(rule.pair_score(pairs, X, base), rel=1e-12, abs=1e-12)
    assert p == pytest.approx(rule.predict_proba(pairs, X, base)[:, 1], rel=1e-12, abs=1e-12)
    assert decision.tolist() == rule.predict(pairs, X, base).astype(bool).tolist()


def _fullwidth(text):
    """``text`` in full-width forms (what a Japanese or Chinese input method types)."""
    return "".join("\u3000" if c == " " else chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


# a text and the same text written three other ways: an accent apart from its letter (NFD, as
# macOS writes file names), full-width letters, and the ligatures of text taken from a PDF
_SPELLINGS = ("Which café in São Paulo serves the finest crème brûlée? W3 w4",
              unicodedata.normalize("NFD", "Which café in São Paulo serves the finest crème brûlée? W3 w4"),
              _fullwidth("Which café in São Paulo serves the finest crème brûlée? W3 w4"),
              "Which café in São Paulo serves the \ufb01nest crème brûlée? W3 w4")


def test_a_text_written_another_way_gives_the_same_character_features(negation):
    """The character n-grams are taken from the text in NFKC, lowercased: NFD and NFC, full-width
    and ASCII letters, a ligature and its letters give the same counts and a character cosine of
    1 (0.69, 0.03 and 0.93 when the n-grams were only lowercased)."""
    from learnsim.matching import pair_classifier as pc
    from learnsim.matching._matchers import pair_similarity

    texts, _, _, model = negation
    assert model.char_fold_ is True
    counts = model._char_counts(list(_SPELLINGS)).toarray()
    for row in counts[1:]:
        np.testing.assert_array_equal(row, counts[0])
    rep = pc._Representation(model, list(_SPELLINGS))
    cosines = pair_similarity(rep.chars, np.array([[0, 1], [0, 2], [0, 3]]))
    np.testing.assert_allclose(cosines, 1.0, rtol=0, atol=1e-12)
    # the regressor reads them alike
    graded = PairScoreRegressor(**SMALL).fit(*_graded(n=40))
    assert graded.char_fold_ is True
    counts = graded._char_counts(list(_SPELLINGS)).toarray()
    assert all(np.array_equal(row, counts[0]) for row in counts[1:])


def test_a_model_saved_before_character_folding_reads_its_texts_as_it_was_fitted(negation, tmp_path):
    """A state without 'char_fold' (saved before the fold) lowercases alone, as scikit-learn's
    hashing did when it was fitted, and saves as such; a saved folding model loads folding."""
    from sklearn.feature_extraction.text import HashingVectorizer

    from learnsim.persistence import transformer_from_state, transformer_state

    texts, _, test, model = negation
    loaded = persistence.load(persistence.save(model, tmp_path / "pc.npz"))
    assert loaded.char_fold_ is True
    np.testing.assert_array_equal(loaded._char_counts(list(_SPELLINGS)).toarray(),
                                  model._char_counts(list(_SPELLINGS)).toarray())
    meta, arrays = transformer_state(model)
    assert meta["meta"]["char_fold"] is True
    old_meta = dict(meta, meta={k: v for k, v in meta["meta"].items() if k != "char_fold"})
    old = transformer_from_state(old_meta, arrays)
    assert old.char_fold_ is False
    hv = HashingVectorizer(analyzer="char_wb", ngram_range=model.char_ngram_range, n_features=2 ** model.char_features,
                           alternate_sign=False, norm=None)
    unfolded = hv.transform(list(_SPELLINGS))
    unfolded.data = 1.0 + np.log(unfolded.data)
    assert abs(old._char_counts(list(_SPELLINGS)) - unfolded).sum() == 0
    assert abs(old._char_counts(list(_SPELLINGS)[:1]) - old._char_counts(list(_SPELLINGS)[1:2])).sum() > 0
    # the rest of the model is the one saved: the same decisions on ASCII texts
    np.testing.assert_allclose(old.decision_function(test, X=texts), model.decision_function(test), rtol=1e-10)
    again = persistence.load(persistence.save(old, tmp_path / "old.npz"))
    assert again.char_fold_ is False
    with pytest.raises(ValueError, match="char_fold"):
        transformer_from_state(dict(meta, meta=dict(meta["meta"], char_fold="yes")), arrays)


def test_a_fit_case_folds_its_character_ngrams_and_a_model_saved_before_lowercases(negation, tmp_path):
    """A fit reads "Straße" and "STRASSE" as the same character n-grams (char_casefold_), as its
    word features do; a state without 'char_casefold' (saved before) lowercases, as it was
    fitted, and saves as such."""
    from learnsim.persistence import transformer_from_state, transformer_state

    texts, _, test, model = negation
    assert model.char_casefold_ is True
    pair = ["die Straße ist lang", "DIE STRASSE IST LANG"]
    counts = model._char_counts(pair)
    assert abs(counts[0] - counts[1]).sum() == 0
    assert persistence.load(persistence.save(model, tmp_path / "pc.npz")).char_casefold_ is True
    meta, arrays = transformer_state(model)
    assert meta["meta"]["char_casefold"] is True
    old = transformer_from_state(dict(meta, meta={k: v for k, v in meta["meta"].items() if k != "char_casefold"}),
                                 arrays)
    assert old.char_casefold_ is False and old.char_fold_ is True
    counts = old._char_counts(pair)
    assert abs(counts[0] - counts[1]).sum() > 0
    np.testing.assert_allclose(old.decision_function(test, X=texts), model.decision_function(test), rtol=1e-10)
    assert persistence.load(persistence.save(old, tmp_path / "old.npz")).char_casefold_ is False
    with pytest.raises(ValueError, match="char_casefold"):
        transformer_from_state(dict(meta, meta=dict(meta["meta"], char_casefold=1)), arrays)
    # pickled before (no char_casefold_ attribute): lowercases
    import pickle

    unpickled = pickle.loads(pickle.dumps(model))
    del unpickled.char_casefold_
    assert unpickled._char_casefold() is False
    assert abs(unpickled._char_counts(pair)[0] - unpickled._char_counts(pair)[1]).sum() > 0


def test_a_long_text_is_folded_whole_before_it_is_cut_in_pieces(monkeypatch):
    """NFKC can lengthen a text (U+FDFA is 18 characters): the pieces are cut from the folded
    text, so a short text that folds long is hashed in pieces too, and the counts are those of
    the whole folded text (as the index's re-ranker counts them, text/_char_hash)."""
    from sklearn.feature_extraction.text import HashingVectorizer

    from learnsim.matching import pair_classifier as pc
    from learnsim.text._char_hash import fold_chars

    model = pc.PairClassifierMatcher()
    model.char_fold_ = True                 # as a fit sets it before it hashes anything
    texts = ["\ufdfa " * 100, " ".join(_SPELLINGS) * 20, "short"]
    hv = HashingVectorizer(analyzer="char_wb", ngram_range=model.char_ngram_range, n_features=2 ** model.char_features,
                           alternate_sign=False, norm=None, preprocessor=fold_chars)
    whole = hv.transform(texts).tocsr()
    whole.data = 1.0 + np.log(whole.data)
    cut = []
    long_counts = pc._long_char_counts
    monkeypatch.setattr(pc, "_CHAR_PIECE", 997)
    monkeypatch.setattr(pc, "_long_char_counts", lambda hasher, ts: cut.append(list(ts)) or long_counts(hasher, ts))
    assert len(texts[0]) < 997 < len(fold_chars(texts[0]))
    assert abs(model._char_counts(texts) - whole).sum() == 0
    assert cut == [[fold_chars(t) for t in texts]]


def test_a_model_pickled_before_character_folding_reads_as_it_was_fitted():
    # a fitted object pickled by the code before (no char_fold_ attribute) must not start folding
    # silently: its character idf was fitted on texts lowercased alone
    import pickle

    from learnsim.matching import pair_classifier as pc

    model = pc.PairClassifierMatcher()
    model.char_fold_ = True
    old = pickle.loads(pickle.dumps(model))
    del old.char_fold_
    text = ["Cafe\u0301 Ｐｙｔｈｏｎ"]
    assert old._char_fold() is False
    assert abs(old._char_counts(text) - model._char_counts(text)).sum() > 0
