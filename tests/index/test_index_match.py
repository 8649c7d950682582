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


def test_dedupe_groups_exact_copies_that_the_search_ranks_below_k_others(tmp_path):
    """A FILM fitted on the example pairs searches by BM25 and decides duplicates by the input
    cosine. BM25 ranks 12 texts repeating "refund" and "policy" above an exact copy of "refund
    policy", so with k=10 the two copies were never compared, and sat in no group. A document is
    now checked against the first document of the very same text, wherever the search ranks it."""
    import json
    from pathlib import Path

    from conftest import run_cli

    import learnsim

    examples = Path(__file__).resolve().parents[2] / "examples"
    code, _, err = run_cli(["fit", "--method", "film", "--pairs", examples / "pairs.tsv", "--model", tmp_path / "m.npz"])
    assert code == 0, err
    pipeline = learnsim.load(tmp_path / "m.npz")
    rows = [json.loads(line) for line in (examples / "tickets.jsonl").read_text(encoding="utf-8").splitlines()]
    stuffed = " ".join(["refund"] * 4 + ["policy"] * 4 + ["courier"] * 10)
    texts = [r["text"] for r in rows] + ["refund policy", "refund policy"] + [stuffed] * 12
    ids = [r["id"] for r in rows] + ["A1", "A2"] + [f"x{i}" for i in range(12)]
    index = Index.build(tmp_path / "idx", pipeline, texts, ids)
    assert "A2" not in [h["id"] for h in index.search("refund policy", k=11)]     # the copy ranks below k
    groups = [[d["id"] for d in g] for g in index.dedupe(k=10)]
    assert ["A1", "A2"] in groups, groups
