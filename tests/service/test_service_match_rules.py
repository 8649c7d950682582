"""POST /v1/match with a rule that decides a pair among the texts decided with it (the kNN rule:
a pair is a duplicate when each text is among the other's k nearest, searched among the texts
given together). The service decided the pairs of a request in pieces of 100, so a pair's
decision depended on the piece it fell in: 15 of 250 pairs were decided otherwise than by
``learnsim match`` and ``Pipeline.match``. Such a rule now gets a request's pairs at once."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from index_models import FILM_OPTIONS, corpus

import learnsim
from learnsim.index import Index
from learnsim.service import create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def knn_index(tmp_path_factory):
    texts, y, ids, meta = corpus()
    rng = np.random.default_rng(3)
    pairs = []
    while len(pairs) < 300:
        a, b = (int(v) for v in rng.integers(len(texts), size=2))
        if a != b and (y[a] == y[b]) == (len(pairs) % 2 == 0):
            pairs.append((a, b, int(y[a] == y[b])))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = learnsim.fit(texts, pairs=pairs, matcher="knn", baseline_holdout=None, **FILM_OPTIONS)
    assert type(model.matcher).__name__ == "PairwiseKNNMatcher" and model.matcher.decides_together
    # a wide neighbourhood, so that which texts are decided together changes decisions
    model.matcher.k_ = 20
    path = tmp_path_factory.mktemp("knn") / "idx"
    Index.build(path, model, texts, ids, meta).close()
    return path, model, texts


def test_the_service_decides_a_knn_rules_pairs_as_pipeline_match_does(knn_index):
    path, model, texts = knn_index
    rng = np.random.default_rng(11)
    pairs = [[texts[int(a)], texts[int(b)]] for a, b in rng.integers(len(texts), size=(250, 2)) if a != b]
    expected = model.match([tuple(p) for p in pairs])
    with TestClient(create_app(path), raise_server_exceptions=False, base_url="http://127.0.0.1") as client:
        r = client.post("/v1/match", json={"pairs": pairs})
    assert r.status_code == 200, r.text
    got = r.json()["decisions"]
    assert [d["duplicate"] for d in got] == [d["duplicate"] for d in expected]
    assert [d["probability"] for d in got] == pytest.approx([d["probability"] for d in expected], abs=1e-12)


def test_too_few_texts_for_the_knn_rule_say_what_to_give(knn_index):
    path, model, texts = knn_index
    k = model.matcher.k_
    with pytest.raises(ValueError, match=rf"needs at least {k + 1}.*give more texts together"):
        model.match([(texts[0], texts[1])])


def test_dedupe_gives_a_knn_rule_every_pair_at_once(knn_index, tmp_path):
    """Index.dedupe decided each block of 256 documents' pairs apart: with the kNN rule the groups
    depended on the collection's size and order (one document past 256 failed outright). Its
    pairs now go to the rule in one call, whatever the blocks."""
    from index_models import near_duplicate

    path, model, texts = knn_index
    more = texts + [near_duplicate(t, seed=i) for i, t in enumerate(texts)] + [t + " extra" for t in texts]
    ids = [f"t{i}" for i in range(len(more))]
    index = Index.build(tmp_path / "idx", model, more, ids)
    calls = []
    original = model.match

    def counted(pairs, **kw):
        calls.append(len(pairs))
        return original(pairs, **kw)

    index.pipeline.match = counted
    groups = index.dedupe(k=5)
    assert len(more) > 256 and len(calls) == 1 and groups
    back = Index.build(tmp_path / "back", model, more[::-1], ids[::-1])
    assert sorted(sorted(d["id"] for d in g) for g in back.dedupe(k=5)) == sorted(sorted(d["id"] for d in g) for g in groups)


def test_a_rule_that_calls_no_pair_a_duplicate_is_said_in_the_match_answer(tmp_path):
    """A model whose duplicate threshold is infinite (best_threshold's answer on contradictory
    labels) answers 0 for every pair but an exact copy: learnsim fit and learnsim match say so,
    POST /v1/match said nothing, its zeros reading as findings. Both kinds of match now carry
    the sentence in ``"warnings"`` (empty for a rule that can call a pair a duplicate)."""
    import copy

    from index_models import model

    texts, _, ids, meta = corpus()
    never = copy.deepcopy(model("film_pairs"))
    assert type(never.matcher).__name__ == "ThresholdMatcher"
    never.matcher.threshold_ = np.inf
    Index.build(tmp_path / "never", never, texts, ids, meta).close()
    Index.build(tmp_path / "usual", model("film_pairs"), texts, ids, meta).close()
    bodies = ({"text": texts[3], "k": 5}, {"pairs": [[texts[0], texts[1]], [texts[2], texts[2]]]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # Pipeline.match's own warning, on the server's side
        for name, said in (("never", True), ("usual", False)):
            app = create_app(tmp_path / name)
            with TestClient(app, raise_server_exceptions=False, base_url="http://127.0.0.1") as client:
                for body in bodies:
                    r = client.post("/v1/match", json=body)
                    assert r.status_code == 200, r.text
                    notes = r.json()["warnings"]
                    assert isinstance(notes, list)
                    if said:
                        assert len(notes) == 1 and "calls no pair a duplicate" in notes[0], notes
                    else:
                        assert notes == []
