"""learnsim.fit given texts that are all empty: refused at once, before any work that grows with
the clusters (a million empty texts in 4 clusters ran 40 s to a MemoryError at 3.8 GB)."""
from __future__ import annotations

import numpy as np
import pytest

import learnsim
from learnsim import baseline
from learnsim.baseline import _split


@pytest.fixture
def no_search_split(monkeypatch):
    def split(*args, **kwargs):
        raise AssertionError("the held-out clusters were drawn")

    monkeypatch.setattr(baseline, "split_clusters", split)
    monkeypatch.setattr(_split, "split_clusters", split)


@pytest.mark.parametrize("blank", ["", " ", "\t\n", "\u3000"])
def test_texts_all_blank_are_refused_before_the_fit(no_search_split, blank):
    n = 200_000
    with pytest.raises(ValueError, match=rf"texts: all {n} texts are empty or blank.*nothing to learn"):
        learnsim.fit([blank] * n, clusters=np.arange(n) % 4)


def test_a_few_blank_texts_among_others_are_still_fitted():
    texts = ["lava flows down the volcano", "the volcano erupted lava", "goal scored in the match",
             "the team won the match", ""] * 4
    labels = [0, 0, 1, 1, -1] * 4
    learnsim.fit(texts, clusters=labels, baseline_holdout=None)
