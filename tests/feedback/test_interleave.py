"""Team-draft interleaving and the verdicts a promotion rests on (learnsim.feedback._interleave,
learnsim.feedback._compare): the draft's invariants, no side favoured by position, a better
ranking found, and the held-out click check."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from learnsim.feedback import (fit_clicks, heldout_click_verdict, interleaved_model, interleaving_outcome,
                               interleaving_verdict, team_draft)
from learnsim.feedback._compare import interleaved_outcomes


def _rankings(rng, n=30, k=10):
    docs = [f"d{i}" for i in range(n)]
    a = list(rng.permutation(docs)[:k])
    b = list(rng.permutation(docs)[:k])
    return a, b


@pytest.mark.parametrize("seed", range(20))
def test_the_draft_keeps_its_invariants(seed):
    rng = np.random.default_rng(seed)
    a, b = _rankings(rng, n=15 + seed, k=10)
    ids, teams = team_draft(a, b, 10, np.random.default_rng(seed))
    assert len(ids) == len(set(ids)) == len(teams) == min(10, len(set(a) | set(b)))
    assert set(ids) <= set(a) | set(b)
    for end in range(1, len(ids) + 1):     # the teams take turns: never more than one pick apart
        if set(a) - set(ids[:end]) and set(b) - set(ids[:end]):
            assert abs(teams[:end].count("s") - teams[:end].count("c")) <= 1
    for team, ranking in (("s", a), ("c", b)):
        picked = [d for d, t in zip(ids, teams) if t == team]
        assert picked == [d for d in ranking if d in picked]      # each side's picks in its own order


def test_identical_rankings_give_that_ranking():
    a = [f"d{i}" for i in range(10)]
    for seed in range(5):
        ids, _ = team_draft(a, list(a), 10, np.random.default_rng(seed))
        assert ids == a


def test_position_bias_favours_neither_side():
    """Users who click by position alone (a position-based model with no relevance) give a mean
    outcome near 0: the coin puts each side's picks at the same positions on average."""
    rng = np.random.default_rng(0)
    outcomes = []
    for _ in range(3000):
        a, b = _rankings(rng)
        ids, teams = team_draft(a, b, 10, rng)
        clicked = [p for p in range(1, len(ids) + 1) if rng.random() < 0.6 / p]
        if clicked:
            outcomes.append(interleaving_outcome(teams, clicked))
    v = interleaving_verdict(outcomes)
    assert abs(v["delta"]) < 0.06 and not v["better"] and v["low"] < 0 < v["high"]


def test_a_better_ranking_wins():
    """Users who click relevant results (position-biased): the ranking that puts them higher wins."""
    rng = np.random.default_rng(1)
    outcomes, clients = [], []
    for i in range(400):
        docs = [f"d{j}" for j in range(30)]
        relevant = set(rng.choice(docs, 5, replace=False))
        good = sorted(docs, key=lambda d: (d not in relevant, rng.random()))[:10]
        poor = list(rng.permutation(docs)[:10])
        ids, teams = team_draft(poor, good, 10, rng)      # served: poor; candidate: good
        clicked = [p for p, d in enumerate(ids, 1) if rng.random() < (0.9 if d in relevant else 0.1) / p ** 0.5]
        if clicked:
            outcomes.append(interleaving_outcome(teams, clicked))
            clients.append(f"user{i % 50}")
    v = interleaving_verdict(outcomes, clients)
    assert v["better"] and v["wins"] > 2 * v["losses"] and "wins" in v["reason"]
    flipped = interleaving_verdict([-o for o in outcomes], clients)
    assert not flipped["better"] and flipped["high"] < 0 and "loses" in flipped["reason"]


def test_too_few_decided_searches_give_no_verdict():
    v = interleaving_verdict([1] * 5 + [0] * 100)
    assert not v["better"] and v["low"] is None and "fewer than" in v["reason"]
    assert interleaving_outcome(["s", "c", "s"], []) == 0
    assert interleaving_outcome(["s", "c", "s"], [2, 2, 9]) == 1      # repeated and unknown positions
    assert interleaving_outcome(["s", "c", "s"], [1, 2]) == 0


def test_interleaved_outcomes_read_only_their_two_versions():
    model = interleaved_model(1, 2)
    log = [{"query": "q", "model": model, "teams": ["s", "c"], "clicks": [{"position": 2}]},
           {"query": "q", "model": interleaved_model(1, 3), "teams": ["s", "c"], "clicks": [{"position": 2}]},
           {"query": "q", "model": "v1", "teams": None, "clicks": [{"position": 1}]},
           {"query": "r", "model": model, "teams": ["c", "s"], "clicks": [{"position": 2}]},
           {"query": "r", "model": model, "teams": ["c", "s"], "clicks": []}]
    outcomes, clients = interleaved_outcomes(log, 1, 2)
    assert outcomes == [1, -1] and len(set(clients)) == 1        # no client named: one anonymous client


def _topics():
    words = {0: "password login reset account", 1: "refund charge invoice billing", 2: "crash error update start"}
    rng = np.random.default_rng(0)
    texts, topic = [], []
    for t, vocab in words.items():
        for i in range(12):
            texts.append(" ".join(rng.choice(vocab.split(), 3)) + f" note{i} filler{rng.integers(5)}")
            topic.append(t)
    return [f"t{i}" for i in range(len(texts))], texts, topic, words


def test_the_heldout_check_of_a_model_against_itself_finds_nothing():
    ids, texts, topic, words = _topics()
    rows = [(words[t].split()[0] + f" {i}", ids[i], ids[(i + 12) % len(ids)]) for i, t in enumerate(topic)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = fit_clicks(ids, texts, rows).pipeline
    v = heldout_click_verdict(rows, model, model, ids, texts)
    assert v["delta"] == 0 and not v["better"] and not v["worse"] and v["queries"] == len(rows)
    few = heldout_click_verdict(rows[:3], model, model, ids, texts)
    assert few["delta"] is None and "fewer than" in few["reason"]
    assert heldout_click_verdict([("q", "unknown", ids[0])] * 20, model, model, ids, texts)["comparisons"] == 0


def test_fit_clicks_leaves_out_what_it_cannot_place():
    ids, texts, topic, words = _topics()
    with pytest.raises(ValueError, match="no comparison"):
        fit_clicks(ids, texts, [("q", "nope", ids[0]), ("q", ids[1], ids[1])])


def test_a_few_clients_cannot_carry_the_interleaving():
    """Three clients who always click the candidate's results (30 % of the searches), against
    60 honest users who prefer the served ranking: counted search by search the candidate wins;
    one client, one vote, the users' verdict stands."""
    model = interleaved_model(1, 2)
    log = []
    rng = np.random.default_rng(0)
    for u in range(60):
        for i in range(5):
            won = rng.random() < 0.3            # honest users: the candidate wins 30 % of their searches
            log.append({"query": f"q{u}-{i}", "model": model, "teams": ["s", "c"], "client": f"user{u}",
                        "clicks": [{"position": 2 if won else 1}]})
    for spam in range(3):
        for i in range(150):
            log.append({"query": f"spam-{i}", "model": model, "teams": ["s", "c"], "client": f"spam{spam}",
                        "clicks": [{"position": 2}]})
    outcomes, clients = interleaved_outcomes(log, 1, 2)
    by_search, by_client = interleaving_verdict(outcomes), interleaving_verdict(outcomes, clients)
    assert by_search["better"] and by_search["searches"] == 750
    assert not by_client["better"] and by_client["high"] < 0 and by_client["clients"] == 63
    assert "over 63 clients" in by_client["reason"]
    with pytest.raises(ValueError, match="one client per outcome"):
        interleaving_verdict([1, 1], ["a"])


def test_one_client_still_gets_an_interval():
    """One user's many searches are evidence with an uncertainty, not a certainty."""
    v = interleaving_verdict([1] * 25 + [-1] * 20, ["me"] * 45)
    assert v["clients"] == 1 and v["low"] < v["delta"] < v["high"] and not v["better"]
    strong = interleaving_verdict([1] * 40 + [-1] * 5, ["me"] * 45)
    assert strong["better"] and strong["low"] > 0
