"""LinkLearn against its baseline (issue 13, section 1): held-out documents with their links judge
the learned weighting against the tf.idf cosine; a loss makes the model the cosine, exactly.
And section 2: the paper's variant is in-domain and says so when applied to a shifted collection."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from learnsim.baseline import BaselineGain, BaselineWarning
from learnsim.evaluation import average_precision
from learnsim.linklearn._linklearn import (CollectionShiftWarning, CosineIndex, LinkLearn, holdout_documents,
                                tfidf_cosine_weights)
from learnsim.persistence import load, save
from learnsim.reproduce.linklearn import _tfidf_scores
from learnsim.supervision import Links, split_links
from test_linklearn import _linked_corpus


def _noisy_corpus(seed=0, n_topics=8, per_topic=30, topic_words=6, n_noise=400):
    """Linked documents share a few common topic words, once each; rare noise words, repeated
    3-7 times, are shared by random documents. The tf.idf cosine trusts the rare repeated words;
    a weighting that damps tf and high idf (which eq. 5 can learn) ranks the linked ones first."""
    rng = np.random.default_rng(seed)
    n = n_topics * per_topic
    topic = np.repeat(np.arange(n_topics), per_topic)
    vocab = n_topics * topic_words + n_noise
    rows = []
    for d in range(n):
        c = np.zeros(vocab)
        c[topic[d] * topic_words + rng.choice(topic_words, 3, replace=False)] = 1
        c[n_topics * topic_words + rng.choice(n_noise, 4, replace=False)] = rng.integers(3, 8, size=4)
        rows.append(c)
    edges = []
    for d in range(n):
        same = np.flatnonzero(topic == topic[d])
        edges.extend((d, j) for j in rng.choice(same[same != d], size=3, replace=False))
    return sp.csr_matrix(np.array(rows)), Links.from_edges(np.array(edges), n)


def _small(**kw):
    params = dict(learning_rate=0.05, batch_size=4, max_iter=3000, validation_interval=200, n_iter_no_change=5,
                  random_state=0)
    return LinkLearn(3, 3, 3, **{**params, **kw})


@pytest.fixture(scope="module")
def winner():
    X, links = _noisy_corpus()
    (tr, Ltr), (va, Lva) = split_links(links, (0.75, 0.25), random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = _small().fit(X[tr], Ltr, validation=(X[va], Lva))
    return model, X[tr], Ltr, caught


@pytest.fixture(scope="module")
def loser():
    """max_iter=0: the untrained, nearly constant weighting, which the cosine beats."""
    X, links, _ = _linked_corpus()
    with pytest.warns(BaselineWarning, match="falls back to the baseline"):
        model = LinkLearn(3, 3, 3, max_iter=0, baseline_holdout=0.3, random_state=0).fit(X, links)
    return model, X


def test_learned_weighting_kept_where_it_wins_on_held_out_documents(winner):
    model, X, _, caught = winner
    report = model.baseline_gain_
    assert isinstance(report, BaselineGain)
    assert report.status == "learned" and report.significant, report.summary()
    assert report.gain == pytest.approx(report.learned_score - report.baseline_score, abs=1e-12)
    assert report.baseline == "tf.idf cosine" and report.unit == "held-out documents"
    assert not [w for w in caught if issubclass(w.category, BaselineWarning)]
    # the model is eq. (5), not the cosine
    assert abs(model.transform(X) - tfidf_cosine_weights(X).astype(np.float32)).max() > 1e-3


def test_held_out_scores_are_those_of_the_held_out_documents(winner):
    """Recomputed independently: the same split (the model's seed), AvgP of each held-out document
    among the held-out ones, the reproduction's tf.idf cosine and the learned factors."""
    model, X, links, _ = winner
    seed = int(np.random.default_rng(0).integers(2**31 - 1))
    train, _, held, L_held = holdout_documents(links, 0.2, seed)
    assert np.intersect1d(train, held).size == 0
    Xh, relevant = X[held], L_held.symmetric().adjacency
    base = np.nanmean(average_precision(_tfidf_scores(Xh, Xh), relevant, exclude_self=True))
    assert model.baseline_gain_.baseline_score == pytest.approx(base, abs=1e-9)
    assert model.baseline_gain_.n_units == int(np.count_nonzero(np.diff(relevant.tocsr().indptr)))
    W = model.transform(Xh).astype(np.float64)
    learned = np.nanmean(average_precision((W @ W.T).toarray(), relevant, exclude_self=True))
    assert model.baseline_gain_.learned_score == pytest.approx(learned, abs=1e-4)


def test_a_losing_weighting_falls_back_to_exactly_the_tfidf_cosine(loser):
    model, X = loser
    report = model.baseline_gain_
    assert report.status == "baseline" and report.fell_back and report.gain <= 0
    other, _, _ = _linked_corpus(seed=4)
    W = model.transform(other)
    assert W.dtype == np.float32
    np.testing.assert_allclose(W.toarray(), tfidf_cosine_weights(other).toarray(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(model.similarity(other), _tfidf_scores(other, other), atol=1e-6)
    # search scores the queries' tf.idf cosine with the corpus (the corpus's idf), as the baseline does
    Q = other[:7].multiply(2).tocsr()
    index = model.index(other)
    assert isinstance(index, CosineIndex)
    np.testing.assert_allclose(index.score(Q), _tfidf_scores(Q, other), atol=1e-6)
    idx, top = index.search(Q, 4)
    np.testing.assert_allclose(top, np.sort(_tfidf_scores(Q, other), axis=1)[:, ::-1][:, :4], atol=1e-6)


def test_the_fallback_and_its_report_survive_save_and_load(loser, tmp_path):
    model, X = loser
    save(model, tmp_path / "ll.npz")
    loaded = load(tmp_path / "ll.npz")
    assert loaded.baseline_gain_ == model.baseline_gain_
    assert (loaded.transform(X) != model.transform(X)).nnz == 0
    assert loaded.variant_ == "paper"
    assert loaded.training_mean_length_ == model.training_mean_length_
    np.testing.assert_array_equal(loaded.training_vocabulary_, model.training_vocabulary_)


def test_older_files_without_the_check_load_as_unchecked_models(winner):
    model = winner[0]
    meta, arrays = model._get_state()
    for key in ("baseline_gain", "variant", "training_mean_length"):
        meta.pop(key)
    arrays.pop("training_vocabulary")
    old = LinkLearn._from_state(meta, arrays)
    assert old.baseline_gain_ is None and old.training_mean_length_ is None
    X = winner[1]
    assert (old.transform(X) != model.transform(X)).nnz == 0


def test_a_damaged_saved_report_is_refused(winner):
    meta, arrays = winner[0]._get_state()
    meta["baseline_gain"] = {**meta["baseline_gain"], "gain": 5.0}
    with pytest.raises(ValueError, match="baseline_gain"):
        LinkLearn._from_state(meta, arrays)
    meta, arrays = winner[0]._get_state()
    arrays["training_vocabulary"] = np.array([3, 2])
    with pytest.raises(ValueError, match="training_vocabulary"):
        LinkLearn._from_state(meta, arrays)


def test_without_a_holdout_there_is_no_report_and_too_little_is_unchecked():
    X, links = _noisy_corpus()
    model = _small(baseline_holdout=None, max_iter=200).fit(X, links)
    assert model.baseline_gain_ is None
    # a ring of 12 documents: a held-out fifth keeps no link inside it
    ring = Links.from_edges(np.column_stack([np.arange(12), (np.arange(12) + 1) % 12]), 12)
    with pytest.warns(BaselineWarning, match="not checked"):
        model = _small(max_iter=50).fit(X[:12], ring)
    assert model.baseline_gain_.status == "unchecked"
    for bad in (0, 1, 1.5, -0.1, "0.2", True):
        with pytest.raises(ValueError, match="baseline_holdout"):
            LinkLearn(baseline_holdout=bad).fit(X, links)


def test_in_domain_model_warns_on_a_shifted_collection_and_names_the_transferable_one(winner):
    model, X, _, _ = winner
    assert model.variant_ == "paper"
    with warnings.catch_warnings():
        warnings.simplefilter("error", CollectionShiftWarning)
        model.transform(X)                         # the training collection: no warning
        model.transform(X[:5])                     # a few queries: no collection to judge
    longer = (X * 3).tocsr()                       # mean length x 3
    with pytest.warns(CollectionShiftWarning, match="LearnedBM25") as record:
        model.transform(longer)
    assert "mean document length" in str(record[0].message)
    # a collection whose words the training documents never used
    unseen = np.setdiff1d(np.arange(X.shape[1]), model.training_vocabulary_)
    assert unseen.size
    rng = np.random.default_rng(0)
    Y = sp.csr_matrix((np.ones(40 * 4), (np.repeat(np.arange(40), 4), rng.choice(unseen, 40 * 4))),
                      shape=(40, X.shape[1]))
    Y.data[:] = 1
    Y = sp.csr_matrix(Y + sp.csr_matrix((np.ones(40), (np.arange(40), np.zeros(40, int))), shape=Y.shape))
    with pytest.warns(CollectionShiftWarning, match="seen in training"):
        model.transform(Y)


def test_a_model_that_fell_back_does_not_warn_of_a_shift(loser):
    model, X = loser
    with warnings.catch_warnings():
        warnings.simplefilter("error", CollectionShiftWarning)
        model.transform((X * 5).tocsr())
