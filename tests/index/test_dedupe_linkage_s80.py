"""Index.dedupe's groups do not chain by default: every two documents of a group are a pair the
duplicate rule accepted (complete linkage), where the connected components of the accepted pairs
(``linkage="single"``, kept by name) joined a chain a~b~c~d into one group though a and d share no
word, as a new user saw on JSTS sentences."""
from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from conftest import run_cli

import learnsim
from learnsim.index import Index
from learnsim.index._dedupe import complete_link, complete_link_copies, single_link

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WORDS = "refund parcel courier invoice warranty kettle account password delivery order payment charged".split()
# windows of six words, each sharing four with the next and none with the one three along
CHAIN = [" ".join(WORDS[i:i + 6]) for i in range(0, 7, 2)]


def _random_accepted(seed, n=40, p=0.12):
    rng = random.Random(seed)
    pairs = [(a, b, round(rng.random(), 3)) for a, b in itertools.combinations(range(n), 2) if rng.random() < p]
    # planted cliques, as near-duplicate sets are
    for members in ([1, 5, 9, 13], [20, 21, 22]):
        have = {(a, b) for a, b, _ in pairs}
        pairs += [(a, b, 0.9) for a, b in itertools.combinations(members, 2) if (a, b) not in have]
    return pairs


@pytest.mark.parametrize("seed", range(6))
def test_complete_groups_are_cliques_of_accepted_pairs_and_cannot_be_joined(seed):
    accepted = _random_accepted(seed)
    edges = {(a, b) for a, b, _ in accepted}
    groups = complete_link(accepted)
    members = [m for m, _ in groups]
    flat = [p for m in members for p in m]
    assert len(flat) == len(set(flat))                         # a document is in one group
    assert all(len(m) >= 2 and m == sorted(m) for m in members)
    for m in members:                                          # every two members were accepted
        assert all((a, b) in edges for a, b in itertools.combinations(m, 2))
    # no two groups (a document left alone counts as one) could be joined under the same rule
    placed = set(flat)
    alone = sorted({p for a, b, _ in accepted for p in (a, b)} - placed)
    units = members + [[p] for p in alone]
    for u, v in itertools.combinations(units, 2):
        assert not all((min(a, b), max(a, b)) in edges for a in u for b in v), (u, v)
    # the groups refine the connected components, and do not depend on the pairs' order
    comp = {p: g for g, (m, _) in enumerate(single_link(accepted)) for p in m}
    assert all(len({comp[p] for p in m}) == 1 for m in members)
    shuffled = list(accepted)
    random.Random(seed + 100).shuffle(shuffled)
    assert sorted(m for m, _ in complete_link(shuffled)) == sorted(members)
    # each document's probability is its best with another member
    for m, best in groups:
        for p in m:
            assert best[p] == max(pr for a, b, pr in accepted if p in (a, b) and {a, b} <= set(m))


@pytest.mark.parametrize("seed", range(4))
def test_complete_groups_do_not_depend_on_the_collection_order(seed):
    # every probability equal (the kNN rule's): the documents' keys, not their positions, break ties
    accepted = [(a, b, 1.0) for a, b, _ in _random_accepted(seed)]
    n = 1 + max(b for _, b, _ in accepted)
    moved = list(range(n))
    random.Random(seed).shuffle(moved)                       # document d now sits at position moved[d]
    relabelled = [(min(moved[a], moved[b]), max(moved[a], moved[b]), pr) for a, b, pr in accepted]
    back = {moved[d]: d for d in range(n)}
    expected = sorted(m for m, _ in complete_link(accepted, order={d: f"id{d:03d}" for d in range(n)}))
    got = complete_link(relabelled, order={moved[d]: f"id{d:03d}" for d in range(n)})
    assert sorted(sorted(back[p] for p in m) for m, _ in got) == expected


@pytest.mark.parametrize("seed", range(3))
def test_single_groups_are_the_connected_components(seed):
    accepted = _random_accepted(seed)
    n = 1 + max(max(a, b) for a, b, _ in accepted)
    rows, cols = zip(*[(a, b) for a, b, _ in accepted])
    _, label = connected_components(coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n)), directed=False)
    expected = {}
    for p in sorted({p for a, b, _ in accepted for p in (a, b)}):
        expected.setdefault(label[p], []).append(p)
    assert sorted(m for m, _ in single_link(accepted)) == sorted(expected.values())


def test_a_chain_is_not_joined_end_to_end():
    # a~b, b~c, c~d accepted, nothing else: one group by single linkage, never a with d by complete
    accepted = [(0, 1, 0.74), (1, 2, 0.71), (2, 3, 0.62)]
    assert [m for m, _ in single_link(accepted)] == [[0, 1, 2, 3]]
    groups = [m for m, _ in complete_link(accepted)]
    assert not any({0, 3} <= set(m) or {0, 2} <= set(m) or {1, 3} <= set(m) for m in groups)
    assert [0, 1] in groups                                     # the most probable pair first


@pytest.fixture(scope="module")
def chain_index(tmp_path_factory):
    """The example tickets plus a chain of four texts, under a FILM fitted on the example pairs
    (its duplicate rule: a threshold on the input cosine)."""
    tmp = tmp_path_factory.mktemp("chain")
    code, _, err = run_cli(["fit", "--method", "film", "--pairs", EXAMPLES / "pairs.tsv", "--model", tmp / "m.npz"])
    assert code == 0, err
    pipeline = learnsim.load(tmp / "m.npz")
    rows = [json.loads(line) for line in (EXAMPLES / "tickets.jsonl").read_text(encoding="utf-8").splitlines()]
    texts = [r["text"] for r in rows] + CHAIN
    ids = [r["id"] for r in rows] + ["a", "b", "c", "d"]
    return Index.build(tmp / "idx", pipeline, texts, ids), pipeline


def test_dedupe_does_not_join_a_chain_by_default(chain_index):
    index, pipeline = chain_index
    decided = {(i, j): pipeline.match([(CHAIN[i], CHAIN[j])])[0]["duplicate"] for i, j in itertools.combinations(range(4), 2)}
    # the premise: neighbours in the chain are duplicates, its two ends not
    assert decided[0, 1] and decided[1, 2] and decided[2, 3]
    assert not decided[0, 3] and not decided[0, 2] and not decided[1, 3]
    group_of = {}
    for g, group in enumerate(index.dedupe(k=10)):
        for d in group:
            group_of[d["id"]] = g
    assert not ({"a", "d"} <= group_of.keys() and group_of["a"] == group_of["d"])
    id_text = dict(zip(["a", "b", "c", "d"], CHAIN))
    for group in index.dedupe(k=10):
        chained = [d["text"] for d in group if d["id"] in id_text]
        for x, y in itertools.combinations(chained, 2):     # every two members, and only they, were accepted
            assert pipeline.match([(x, y)])[0]["duplicate"]
    # the old grouping is kept by name, and there the chain is one group
    single = [{d["id"] for d in g} for g in index.dedupe(k=10, linkage="single")]
    assert any({"a", "b", "c", "d"} <= g for g in single)
    with pytest.raises(ValueError, match="linkage must be one of 'complete', 'single'"):
        index.dedupe(k=10, linkage="average")


def test_cli_dedupe_linkage(chain_index, tmp_path):
    index, _ = chain_index
    code, out, err = run_cli(["dedupe", "--index", index.path, "--out", tmp_path / "g.tsv"])
    assert code == 0, err
    lines = [line.split("\t") for line in (tmp_path / "g.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    group_of = {row[1]: row[0] for row in lines}
    assert group_of.get("a") is None or group_of.get("a") != group_of.get("d")
    code, out, err = run_cli(["dedupe", "--index", index.path, "--linkage", "single", "--json"])
    assert code == 0, err
    assert any({"a", "b", "c", "d"} <= {d["id"] for d in g["documents"]} for g in json.loads(out))
    code, out, err = run_cli(["dedupe", "--index", index.path, "--linkage", "chain"])
    assert code == 2
    assert "--linkage" in err and "Traceback" not in err


def test_many_exact_copies_stay_one_group(chain_index, tmp_path):
    """A copy is checked against the first of its text and its own k closest documents: with 15
    copies and k=3 the copies were never all checked pairwise, and complete linkage split them.
    The copies of a text are one group, with the documents accepted with all of them."""
    _, pipeline = chain_index
    rows = [json.loads(line) for line in (EXAMPLES / "tickets.jsonl").read_text(encoding="utf-8").splitlines()]
    copy = "I was charged twice for the same order"
    texts = [r["text"] for r in rows] + [copy] * 15 + CHAIN
    ids = [r["id"] for r in rows] + [f"c{i:02d}" for i in range(15)] + ["a", "b", "c", "d"]
    index = Index.build(tmp_path / "idx", pipeline, texts, ids)
    for k in (3, 10):
        groups = [{d["id"] for d in g} for g in index.dedupe(k=k)]
        flat = [i for g in groups for i in g]
        assert len(flat) == len(set(flat))
        (with_copies,) = [g for g in groups if "c00" in g]
        assert {f"c{i:02d}" for i in range(15)} <= with_copies
        assert not any({"a", "d"} <= g for g in groups)
        id_text = dict(zip(ids, texts))
        for g in groups:                                         # every two members accepted
            members = sorted(g)
            pairs = [(id_text[x], id_text[y]) for x, y in itertools.combinations(members, 2)]
            assert all(d["duplicate"] for d in pipeline.match(pairs)), members


def test_complete_link_copies_keeps_copies_together_and_apart_from_what_they_were_not_accepted_with():
    # 0, 1, 2 copies of one text (1 and 2 checked against 0 only); 3 accepted with 1 alone, 4 with nobody
    accepted = [(0, 1, 1.0), (0, 2, 1.0), (1, 3, 0.8), (3, 5, 0.9), (5, 6, 0.7)]
    groups = {tuple(m): best for m, best in complete_link_copies(accepted, {1: 0, 2: 0, 4: 0}, None)}
    assert (0, 1, 2) in groups or (0, 1, 2, 3) in groups
    flat = [p for m in groups for p in m]
    assert len(flat) == len(set(flat)) and 4 not in flat       # a copy the rule did not accept stays apart
    assert not any({3, 6} <= set(m) for m in groups)           # 3~5~6 is a chain
    for m, best in groups.items():
        assert all(0.0 < best[p] <= 1.0 for p in m)
