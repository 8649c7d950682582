"""Index.match and Index.dedupe with the duplicate rule of a FILM fitted on pairs: calibrated
probabilities, planted near-duplicates found, the same decisions as the pipeline; a model
without a duplicate rule is refused by name."""
from __future__ import annotations

import pytest

from index_models import corpus, model, near_duplicate

from learnsim.index import Index


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A FILM-pairs index of the collection plus a near-duplicate of d100 ("dup100")."""
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("match") / "idx"
    dup = near_duplicate(texts[100], seed=100)
    return Index.build(path, model("film_pairs"), texts + [dup], ids + ["dup100"], meta + [{"topic": meta[100]["topic"]}])


def test_match_finds_a_near_duplicate_with_a_calibrated_probability(planted):
    texts = corpus()[0]
    query = near_duplicate(texts[110], seed=7)
    found = planted.match(query, k=10)
    assert found and found[0]["id"] == "d110"
    assert [h["rank"] for h in found] == list(range(1, len(found) + 1))
    probabilities = [h["probability"] for h in found]
    assert all(0.0 <= p <= 1.0 for p in probabilities)
    assert probabilities == sorted(probabilities, reverse=True)
    assert found[0]["probability"] > 0.5
    # the accepted hits are among the k searched, with the pipeline's own decisions
    searched = {h["id"]: h for h in planted.search(query, k=10)}
    decisions = model("film_pairs").match([(query, h["text"]) for h in searched.values()])
    accepted = {i for i, d in zip(searched, decisions) if d["duplicate"]}
    assert {h["id"] for h in found} == accepted
    for h in found:
        d = decisions[list(searched).index(h["id"])]
        assert h["probability"] == pytest.approx(d["probability"], abs=1e-9)
    # a filter applies to the candidates
    other = planted.match(query, k=10, filter={"topic": (corpus()[1][110] + 1) % 6})
    assert "d110" not in {h["id"] for h in other}
    with pytest.raises(TypeError, match="text must be a str"):
        planted.match([query])


def test_dedupe_groups_the_planted_near_duplicate(planted):
    groups = planted.dedupe(k=5)
    assert groups
    assert [len(g) for g in groups] == sorted((len(g) for g in groups), reverse=True)
    seen = [m["id"] for g in groups for m in g]
    assert len(seen) == len(set(seen))                   # a document is in one group
    (group,) = [g for g in groups if "dup100" in {m["id"] for m in g}]
    assert "d100" in {m["id"] for m in group}
    assert all(0.0 <= m["probability"] <= 1.0 for g in groups for m in g)
    # deleted documents leave the groups
    planted_copy = planted
    assert planted_copy.delete("dup100") == 1
    try:
        assert "dup100" not in {m["id"] for g in planted_copy.dedupe(k=5) for m in g}
    finally:
        planted_copy.add([near_duplicate(corpus()[0][100], seed=100)], ["dup100"], [{"topic": corpus()[1][100]}])


@pytest.mark.parametrize("family", ["mcd", "linklearn"])
def test_match_and_dedupe_without_a_duplicate_rule_are_refused(family, tmp_path):
    texts, _, ids, meta = corpus()
    idx = Index.build(tmp_path / "idx", model(family), texts[:30], ids[:30], meta[:30])
    with pytest.raises(ValueError, match="no validated duplicate rule"):
        idx.match(texts[3], k=5)
    with pytest.raises(ValueError, match="no validated duplicate rule"):
        idx.dedupe(k=3)
