"""FILM on 4-5 clusters warned twice for one cause: its own check against the input cosine
("FILM: average precision on 24 held-out queries ...") and the search check that cannot keep the
learned metric on fewer clusters than the groups it needs (MIN_HELD_GROUPS). As mcd's recipe
does since s81, the first is dropped where the second follows; it stays in the report."""
import random
import warnings

import pytest

import learnsim
from learnsim.baseline import BaselineWarning, too_few_held_clusters

_TOPICS = [["rain", "cloud", "umbrella", "storm", "weather"], ["phone", "battery", "screen", "camera", "charge"],
           ["train", "ticket", "station", "delay", "platform"], ["pizza", "cheese", "oven", "slice", "dough"],
           ["guitar", "string", "chord", "song", "amp"]]


def _notes(k, seed=0):
    r = random.Random(seed)
    texts, labels = [], []
    for c in range(k):
        for i in range(6):
            texts.append(" ".join(r.choice(_TOPICS[c]) for _ in range(5)) + f" note{i}")
            labels.append(c)
    return texts, labels


@pytest.mark.parametrize("method", ["film", "mcd"])
@pytest.mark.parametrize("k", [4, 5])
def test_four_or_five_clusters_give_one_baseline_warning(method, k):
    texts, labels = _notes(k)
    assert too_few_held_clusters(labels)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = learnsim.fit(texts, clusters=labels, method=method)
    said = [w for w in caught if issubclass(w.category, BaselineWarning)]
    assert len(said) == 1, [str(w.message)[:120] for w in said]
    assert "learnsim fit --method" in str(said[0].message) or "search" in str(said[0].message)
    assert model.method == "baseline"
