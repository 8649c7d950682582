"""Graded pairs from Python (issue 32, part 4): learnsim.fit(pairs=[(a, b, score)]) trains the
pair regression checked against the input cosine; the per-pair Pearson terms; MatchRule's saved
fields and old model files."""
from __future__ import annotations

import numpy as np
import pytest

from learnsim.datasets import make_clustered_corpus
from learnsim.evaluation import pearson
from learnsim.matching import MatchRule
from learnsim.matching._graded import pearson_units


def _graded(n_pairs=150, seed=0):
    corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=12, random_state=seed)
    rng = np.random.default_rng(seed)
    texts, y = list(corpus.data), corpus.target
    rows = []
    for k in range(n_pairs):
        i = int(rng.integers(len(texts)))
        j = int(rng.choice(np.flatnonzero(y == y[i]) if k % 2 else np.arange(len(texts))))
        if i != j:
            rows.append((i, j, (4.0 if y[i] == y[j] else 1.0) + float(rng.uniform(-0.8, 0.8))))
    return texts, rows


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pearson_units_average_to_the_pearson_correlation(seed):
    rng = np.random.default_rng(seed)
    gold = rng.normal(size=200)
    predicted = gold + rng.normal(scale=0.7, size=200)
    units = pearson_units(predicted, gold)
    assert units.shape == (200,)
    assert units.mean() == pytest.approx(pearson(predicted, gold), abs=1e-12)
    assert np.all(pearson_units(np.ones(5), np.arange(5.0)) == 0)


def test_fit_on_graded_index_pairs_and_text_pairs_gives_a_graded_pipeline():
    from learnsim.fitting import fit
    from learnsim.matching import PairScoreRegressor

    texts, rows = _graded()
    result = fit(texts, pairs=rows, n_components=4, max_iter=20)
    pipeline = result.pipeline
    assert isinstance(pipeline.matcher, PairScoreRegressor) and pipeline.match_rule.graded
    assert result.report["graded"] is True and "duplicate_pairs" not in result.report
    same = [(texts[i], texts[j]) for i, j, s in rows if s > 2.5][:10]
    other = [(texts[i], texts[j]) for i, j, s in rows if s < 2.5][:10]
    scores = pipeline.match(same + other)
    assert all(set(row) == {"score"} for row in scores)
    predicted = np.array([row["score"] for row in scores])
    assert predicted[:10].mean() > predicted[10:].mean()
    # the same pairs as text tuples
    by_text = fit(pairs=[(texts[i], texts[j], s) for i, j, s in rows], n_components=4, max_iter=20)
    assert by_text.pipeline.match_rule.graded and by_text.report["pairs"] == len(rows)


def test_labels_stay_labelled_and_methods_that_cannot_learn_scores_refuse():
    from learnsim.fitting import _check_pairs, fit

    texts, rows = _graded(40)
    _, labelled = _check_pairs([(i, j, int(s > 2.5)) for i, j, s in rows], texts)
    assert not labelled.is_graded
    _, graded = _check_pairs(rows, texts)
    assert graded.is_graded and np.allclose(graded.scores, [s for _, _, s in rows])
    with pytest.raises(ValueError, match="graded"):
        fit(texts, pairs=rows, method="mcd")
    with pytest.raises(ValueError, match="label .* or a graded score"):
        fit(texts, pairs=[(0, 1, "high")] + rows)
    with pytest.raises(ValueError, match="matcher"):
        fit(texts, pairs=rows, matcher="knn", n_components=4, max_iter=20)


def test_match_rule_of_an_old_model_file_has_no_cosine_threshold():
    meta = {"matcher": "threshold", "accuracies": {"cosine": 0.7, "threshold": 0.8}, "n_pairs": 50,
            "baseline_gain": None, "mixed_input_weight": 0.5}            # written before issue 32
    rule = MatchRule._from_state(meta, {})
    assert rule.cosine_threshold is None and not rule.graded and rule.pearsons == {}
    rule = MatchRule._from_state(dict(meta, cosine_threshold=0.41), {})
    assert rule.cosine_threshold == pytest.approx(0.41)
    assert rule.describe() == "threshold on the mixed cosine"
    graded = MatchRule("regression", n_pairs=9, graded=True, pearsons={"cosine": 0.6, "regression": 0.8})
    again = MatchRule._from_state(*graded._get_state())
    assert again.graded and again.pearsons == pytest.approx({"cosine": 0.6, "regression": 0.8})
    with pytest.raises(ValueError, match="cosine_threshold"):
        MatchRule._from_state(dict(meta, cosine_threshold="high"), {})
    with pytest.raises(ValueError, match="not a graded rule"):
        MatchRule._from_state(dict(meta, graded=True), {})


# --------------------------------------------------------------------------- issue 32, part 6
def _pipeline_of(texts, rows):
    from learnsim.fitting import fit

    return fit(pairs=[(texts[i], texts[j], s) for i, j, s in rows], n_components=4, max_iter=20,
               random_state=0, baseline_holdout=None).pipeline


def _old_format(regressor):
    """The regressor as a model file saved before issue 32 part 6 holds it: no "lexical"
    parameter, no collection statistics."""
    from learnsim.matching import PairScoreRegressor

    meta, arrays = regressor._get_state()
    meta = dict(meta, params={k: v for k, v in meta["params"].items() if k != "lexical"})
    arrays = {k: v for k, v in arrays.items() if not k.startswith("collection.")}
    return PairScoreRegressor._from_state(meta, arrays)


def test_a_word_the_fit_never_saw_changes_the_graded_score_of_a_pair():
    from learnsim.matching import PairScoreRegressor
    from learnsim.matching._graded import cosine_regressor
    from learnsim.supervision import Pairs

    texts, rows = _graded()
    pipeline = _pipeline_of(texts, rows)
    # the graded learner weights its lexical blocks by the collection scored
    assert pipeline.matcher.lexical == "collection" and pipeline.matcher.collection_ is not None
    # the fallback rule (the input cosine mapped to the scores' scale) makes the effect plain:
    # two unseen words, shared or not, are the same (absent) word to the fit's vocabulary
    pairs = Pairs(np.array([[i, j] for i, j, _ in rows]), scores=np.array([s for _, _, s in rows]))
    new = cosine_regressor(pipeline.vectorizer, texts, pairs)
    old = _old_format(new)
    assert isinstance(old, PairScoreRegressor) and old.lexical == "fitted" and old.collection_ is None
    a, b = texts[0], texts[30]
    batch = [a + " quokka", b + " quokka", b + " wombat"] + texts[1:20]
    shared, different = [0, 1], [0, 2]
    for model, differs in ((new, True), (old, False)):
        score = model.predict(np.array([shared, different]), X=batch)
        assert (score[0] > score[1] + 1e-6) if differs else score[0] == pytest.approx(score[1], abs=1e-12)
    # the same through Pipeline.match: the fit's vocabulary never saw either word
    assert "quokka" not in pipeline.vectorizer.vocabulary_ and "wombat" not in pipeline.vectorizer.vocabulary_
    pipeline.matcher = new
    scores = [r["score"] for r in pipeline.match([(a + " quokka", b + " quokka"), (a + " quokka", b + " wombat")])]
    assert scores[0] > scores[1]


def test_graded_scores_depend_on_the_batch_not_its_order_and_survive_a_round_trip(tmp_path):
    import learnsim

    texts, rows = _graded()
    pipeline = _pipeline_of(texts, rows)
    batch = [(texts[i] + " platypus", texts[j]) for i, j, _ in rows[:25]]
    scores = np.array([r["score"] for r in pipeline.match(batch)])
    again = np.array([r["score"] for r in pipeline.match(batch[::-1])])[::-1]
    assert np.array_equal(scores, again)
    pipeline.save(tmp_path / "graded.npz")
    loaded = learnsim.load(tmp_path / "graded.npz")
    assert loaded.matcher.lexical == "collection"
    assert np.array_equal(scores, [r["score"] for r in loaded.match(batch)])


def test_an_old_graded_model_file_loads_and_matches_over_its_own_vocabulary():
    from learnsim.matching import PairScoreRegressor

    texts, rows = _graded()
    pipeline = _pipeline_of(texts, rows)
    new = pipeline.matcher
    old = _old_format(new)
    assert old.lexical == "fitted" and old.collection_ is None
    batch = [(texts[i] + " quokka", texts[j]) for i, j, _ in rows[:20]]
    pipeline.matcher = old
    scores = np.array([r["score"] for r in pipeline.match(batch)])
    # the same regression with the blocks over the fit's vocabulary and character idf: what
    # the model file scored before (a file written by the previous release matched bit for bit)
    new.collection_ = None
    pipeline.matcher = new
    assert np.array_equal(scores, [r["score"] for r in pipeline.match(batch)])
    # a state that says "collection" without the collection's statistics is refused
    meta, arrays = old._get_state()
    meta = dict(meta, params=dict(meta["params"], lexical="collection"))
    with pytest.raises(ValueError, match="collection"):
        PairScoreRegressor._from_state(meta, arrays)
