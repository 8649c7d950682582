"""A FILM fit at the default dimensions (100) on more than 100 distinct texts whose rank is below
100 (few words recombined) failed: 'n_components=100 is larger than the numerical rank of X'. The
default is a setting the user never gave: the fit uses the texts' rank, as it does where the texts
are fewer than 100 or repeat."""
import warnings

import numpy as np

from learnsim import fitting


def _recombined(n_subjects=60, n_predicates=20, n_texts=200):
    """200 distinct texts of 160 words (more of both than the default 100 dimensions), of rank at
    most 80: each text a subject's two words and a predicate's two (a subject's words always come
    together, so each subject adds one to the rank)."""
    rng = np.random.default_rng(0)
    combos = rng.permutation(n_subjects * n_predicates)[:n_texts]
    subjects, predicates = combos // n_predicates, combos % n_predicates
    texts = [f"subj{s}first subj{s}second pred{p}first pred{p}second" for s, p in zip(subjects, predicates)]
    return texts, subjects


def test_film_at_the_default_dimensions_fits_distinct_texts_of_low_rank():
    texts, subjects = _recombined()
    assert len(set(texts)) == len(texts) > 100
    rng = np.random.default_rng(1)
    # two texts of one subject are duplicates, others not
    pairs = []
    for _ in range(200):
        a, b = rng.choice(len(texts), 2, replace=False)
        pairs.append((int(a), int(b), int(subjects[a] == subjects[b])))
    for s in np.unique(subjects):
        mine = np.flatnonzero(subjects == s)
        if mine.size > 1:
            pairs.append((int(mine[0]), int(mine[1]), 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = fitting.fit(texts, pairs=pairs, method="film", random_state=0)
    assert result.report["features"] > 100
    d = result.report["n_components"]
    assert 1 <= d <= 80, d
