"""The lexical + dense hybrid of a model over a sentence encoder (issue 33, point 7): the weight
lambda of ``lambda cos_tfidf + (1 - lambda) dense`` is chosen on held-out units among a grid that
holds 0 and 1, through the rule of learnsim.baseline, so that the chosen mix never scores below
either part alone on them; the SearchRule keeps it through a save and a load."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from learnsim.baseline import BaselineWarning
from learnsim.film import LEXICAL_WEIGHT_GRID, SearchRule, choose_lexical_weight
from learnsim.persistence import load, save

GRID = (0.0, 0.25, 0.5, 0.75, 1.0)


def _units(means, n=200, seed=0):
    """Per-unit 0/1 outcomes with the given mean per grid point (independent draws)."""
    rng = np.random.default_rng(seed)
    return np.vstack([(rng.random(n) < m).astype(float) for m in means])


def _never_below_either_end(units, grid, weight):
    means = units.mean(axis=1)
    chosen = means[list(grid).index(weight)]
    return chosen >= means[list(grid).index(0.0)] and chosen >= means[list(grid).index(1.0)]


def test_a_clearly_better_mix_is_kept():
    dense = (np.arange(300) % 10 < 6).astype(float)             # 0.6
    lexical = (np.arange(300) % 10 >= 5).astype(float)          # 0.5, partly other units
    mix = np.maximum(dense, lexical)                            # finds what either finds
    units = np.vstack([dense, 0.5 * (dense + mix), mix, 0.5 * (mix + lexical), lexical])
    weight, report = choose_lexical_weight(units, GRID, measure="recall@1", unit="held-out queries")
    assert weight == 0.5 and report.status == "learned"
    assert report.baseline == "dense scoring alone" and report.detail == {"lexical_weight": 0.5}
    assert _never_below_either_end(units, GRID, weight)


def test_the_baseline_is_the_better_end_and_a_tie_falls_back_to_it():
    # the lexical cosine alone is better than the dense scoring; the mixes are no better than it
    units = np.vstack([_units([0.4], seed=1)[0]] + [_units([0.7], seed=2)[0]] * 4)
    with pytest.warns(BaselineWarning):
        weight, report = choose_lexical_weight(units, GRID, measure="recall@1", unit="held-out queries")
    assert weight == 1.0 and report.fell_back and report.baseline == "lexical tf.idf cosine alone"
    assert _never_below_either_end(units, GRID, weight)


@pytest.mark.parametrize("seed", range(6))
def test_never_below_either_part_alone_on_the_held_out_units(seed):
    rng = np.random.default_rng(seed)
    units = _units(rng.uniform(0.3, 0.8, size=len(GRID)), n=150, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        weight, report = choose_lexical_weight(units, GRID, measure="recall@1", unit="held-out queries",
                                               random_state=seed)
    assert weight in GRID
    assert _never_below_either_end(units, GRID, weight)
    assert report.baseline_score == max(units[0].mean(), units[-1].mean())


def test_unchecked_choice_and_grid_errors():
    units = _units([0.2, 0.9, 0.5])
    weight, report = choose_lexical_weight(units, (0.0, 0.5, 1.0), measure="m", unit="u", check_baseline=False)
    assert weight == 0.5 and report is None
    with pytest.raises(ValueError, match="must hold 0"):
        choose_lexical_weight(units, (0.1, 0.5, 1.0), measure="m", unit="u")
    with pytest.warns(BaselineWarning, match="no held-out unit"):
        weight, report = choose_lexical_weight(np.zeros((3, 0)), (0.0, 0.5, 1.0), measure="m", unit="u")
    assert weight == 0.0 and report.status == "unchecked"


def _collection(seed=0):
    """A dense 'encoder' view and a lexical view of 120 texts in 30 groups of 4: each view finds
    the group of some queries and misses others, so that their mix finds more than either."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    n_groups, size = 30, 4
    groups = np.repeat(np.arange(n_groups), size)
    dense_centres = rng.normal(size=(n_groups, 16))
    X = dense_centres[groups] + 1.1 * rng.normal(size=(len(groups), 16))
    words = rng.integers(0, 400, size=(n_groups, 6))
    rows, cols = [], []
    for i, g in enumerate(groups):
        own = rng.choice(words[g], size=3, replace=False)
        noise = rng.integers(0, 400, size=3)
        rows += [i] * 6
        cols += list(own) + list(noise)
    L = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(groups), 400))
    return X, L, groups


class _Identity:
    def transform(self, X):
        return np.asarray(X, dtype=np.float64)


def test_search_rule_chooses_the_lexical_weight_on_held_out_queries():
    X, L, groups = _collection()
    queries = np.arange(0, 120, 2)
    rule = SearchRule(1.0, (1.0,), [0.0], len(queries))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        chosen = rule.with_lexical_weight(_Identity(), X, L, queries, groups, random_state=0)
    assert chosen.lexical_grid == LEXICAL_WEIGHT_GRID
    scores = chosen.lexical_scores
    at = chosen.lexical_grid.index(chosen.lexical_weight)
    assert scores[at] >= scores[0] and scores[at] >= scores[-1]
    assert chosen.lexical_gain is not None and chosen.lexical_gain.n_units == len(queries)
    # the dense part itself is untouched
    assert chosen.input_weight == 1.0 and chosen.n_queries == rule.n_queries

    # recall@1 at the ends, recomputed directly: the dense cosine alone and the lexical cosine alone
    def recall(S):
        S = S.copy()
        S[np.arange(len(queries)), queries] = -np.inf
        return float(np.mean(groups[S.argmax(axis=1)] == groups[queries]))

    Xu = X / np.linalg.norm(X, axis=1, keepdims=True)
    Lu = L.multiply(1.0 / np.sqrt(L.multiply(L).sum(axis=1))).tocsr()
    assert scores[0] == pytest.approx(recall(Xu[queries] @ Xu.T))
    assert scores[-1] == pytest.approx(recall((Lu[queries] @ Lu.T).toarray()))


def test_search_rule_state_keeps_the_lexical_part(tmp_path):
    X, L, groups = _collection(1)
    queries = np.arange(0, 120, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        rule = SearchRule(1.0, (1.0,), [0.5], len(queries)).with_lexical_weight(_Identity(), X, L, queries, groups)
    back = load(save(rule, tmp_path / "rule.npz"))
    assert back.lexical_weight == rule.lexical_weight and back.lexical_grid == rule.lexical_grid
    np.testing.assert_array_equal(back.lexical_scores, rule.lexical_scores)
    assert back.lexical_gain == rule.lexical_gain
    # a rule without a lexical part saves as before (no lexical entries) and loads with None
    plain = SearchRule(0.5, (0.0, 0.5, 1.0), [0.1, 0.3, 0.2], 10)
    meta, arrays = plain._get_state()
    assert "lexical_weight" not in meta and set(arrays) == {"weight_scores"}
    assert load(save(plain, tmp_path / "plain.npz")).lexical_weight is None
