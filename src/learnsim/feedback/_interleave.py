"""Team-draft interleaving (Radlinski, Kurup and Joachims, CIKM 2008): two rankings compared on
the same searches by the clicks of the users who see one list merged from both.

For each search the two rankers pick in turns, like captains picking teams: the ranker with fewer
picks so far (a coin toss on a tie) adds its highest-ranked result not yet in the list, and the
result is credited to its team. A click on a result is a vote for the team that placed it; the
search goes to the team with more clicks (a tie, or no click, decides nothing). Because each
ranker's picks sit at the same positions in expectation (the coin), position bias favours
neither, and because both rank the same query for the same user at the same moment, the
comparison needs far fewer searches than comparing two rankings' click rates apart (the paper's
Table 2: interleaving agreed with the judged ordering of two retrieval functions in all pairs
where click rates of A/B tests did not).

The verdict (:func:`interleaving_verdict`) is the mean outcome (+1 the candidate's team won, -1
the served one's, 0 a tie) over the searches with a click, each client's searches weighing 1 in all:
one client, one vote, so a few clients clicking one side's results on purpose cannot carry it by
the number of their searches. Its bootstrap interval resamples the searches; the candidate is
better only when the whole interval is above zero, as every learned part of learnsim is kept
only when its held-out gain is (:mod:`learnsim.baseline`).

References
----------
.. [1] Radlinski, F., Kurup, M. and Joachims, T. (2008). How does clickthrough data reflect
   retrieval quality? In Proceedings of CIKM 2008, pp. 43-52.
.. [2] Chapelle, O., Joachims, T., Radlinski, F. and Yue, Y. (2012). Large-scale validation and
   analysis of interleaved search evaluation. ACM Transactions on Information Systems 30(1).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["team_draft", "interleaving_outcome", "interleaving_verdict", "MIN_DECISIVE"]

#: Searches won by either side needed before a verdict is given (fewer: "not enough clicks").
MIN_DECISIVE = 20
#: The teams' labels in a log: the served ranking and the candidate.
SERVED, CANDIDATE = "s", "c"


def team_draft(served, candidate, k, rng):
    """Merge two rankings by team draft.

    Parameters
    ----------
    served, candidate : sequence of str
        The two rankings' ids, best first.
    k : int
        Length of the merged list (fewer when the rankings together hold fewer ids).
    rng : numpy.random.Generator
        The coin tosses.

    Returns
    -------
    (ids, teams) : list of str, list of str
        The merged ids and, for each, the team that placed it: ``"s"`` (served) or ``"c"``
        (candidate).

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.feedback import team_draft
    >>> ids, teams = team_draft(["a", "b", "c"], ["b", "d", "a"], 4, np.random.default_rng(0))
    >>> sorted(ids), teams.count("s"), teams.count("c")
    (['a', 'b', 'c', 'd'], 2, 2)
    """
    served, candidate = list(served), list(candidate)
    out, teams, taken = [], [], set()
    picks = {SERVED: 0, CANDIDATE: 0}
    heads = {SERVED: 0, CANDIDATE: 0}
    lists = {SERVED: served, CANDIDATE: candidate}

    def next_of(team):
        ranking, i = lists[team], heads[team]
        while i < len(ranking) and ranking[i] in taken:
            i += 1
        heads[team] = i
        return ranking[i] if i < len(ranking) else None

    while len(out) < k:
        if picks[SERVED] != picks[CANDIDATE]:
            team = SERVED if picks[SERVED] < picks[CANDIDATE] else CANDIDATE
        else:
            team = SERVED if rng.random() < 0.5 else CANDIDATE
        doc = next_of(team)
        if doc is None:         # that ranking is used up: the other one fills the list
            team = CANDIDATE if team == SERVED else SERVED
            doc = next_of(team)
            if doc is None:
                break
        out.append(doc)
        teams.append(team)
        taken.add(doc)
        picks[team] += 1
    return out, teams


def interleaving_outcome(teams, clicked_positions):
    """+1 when the candidate's team got more of the clicks, -1 the served one's, 0 a tie or no
    click. ``clicked_positions`` are 1-based positions in the merged list."""
    votes = 0
    for p in set(int(p) for p in clicked_positions):
        if 1 <= p <= len(teams):
            votes += 1 if teams[p - 1] == CANDIDATE else -1
    return int(np.sign(votes))


def interleaving_verdict(outcomes, clients=None, *, confidence=0.95, min_decisive=MIN_DECISIVE, min_clients=1,
                         random_state=0):
    """The comparison of a candidate with the served ranking from interleaved searches.

    Parameters
    ----------
    outcomes : sequence of int
        One :func:`interleaving_outcome` per interleaved search with a click.
    clients : sequence, optional
        Who made each search. Each client then has one vote: its searches weigh 1 / its number of
        searches, and the verdict is the weighted mean, with a bootstrap over the searches (each
        keeping its weight). A few clients who click one side's results on purpose then weigh as
        a few users, however many searches they make (counted search by search, 30 % of the
        searches from three clients carried a promotion in ``benchmarks/bench_click_loop.py``);
        one user's many searches still give an interval. None: every search weighs 1.
    confidence : float, default=0.95
        The bootstrap interval's coverage, in [0.5, 1) as ``learnsim index promote
        --confidence`` takes it (ValueError otherwise: a confidence of 0 made the interval a
        point, and any mean above 0 "better").
    min_decisive : int, default=MIN_DECISIVE
        Searches won by either side needed for a verdict, a whole number >= 1.
    min_clients : int, default=1
        Clients with a search won by either side needed before the candidate can be ``better``
        (:func:`promotion_evidence` asks for ``MIN_PROMOTION_CLIENTS``, 5): each client weighs
        1 / (their number), so with at least this many none holds more than 1 / min_clients of
        the verdict. Without ``clients`` each search counts as a client. A whole number >= 1
        (TypeError for a float such as 2.5, which had been cut to 2; ValueError below 1).

    Returns
    -------
    dict
        ``searches``, ``wins`` (candidate), ``losses``, ``ties``, ``clients`` (units),
        ``deciding_clients`` (units with a search won by either side), ``delta``
        (the mean outcome, in [-1, 1]), ``low``, ``high`` (its interval), ``better`` (the whole
        interval above 0) and ``reason`` (one line).

    Examples
    --------
    >>> from learnsim.feedback import interleaving_verdict
    >>> v = interleaving_verdict([1] * 30 + [-1] * 5 + [0] * 5)
    >>> v["wins"], v["losses"], v["better"]
    (30, 5, True)
    """
    confidence = _check_confidence(confidence)
    min_decisive = _check_whole("min_decisive", min_decisive)
    min_clients = _check_min_clients(min_clients)
    o = np.asarray(list(outcomes), dtype=np.float64)
    wins, losses = int((o > 0).sum()), int((o < 0).sum())
    if clients is None:
        weights, n_clients = np.ones_like(o), int(o.size)
    else:
        keys = [str(c) for c in clients]
        if len(keys) != o.size:
            raise ValueError(f"clients must name one client per outcome ({o.size}); got {len(keys)}")
        _, inverse = np.unique(np.asarray(keys, dtype=object), return_inverse=True)
        # each client's searches weigh 1 in all: one client, one vote
        weights = 1.0 / np.bincount(inverse)[inverse] if o.size else o
        n_clients = int(inverse.max() + 1) if o.size else 0
    deciding = wins + losses if clients is None else len({k for k, x in zip(keys, o) if x != 0})
    out = {"searches": int(o.size), "wins": wins, "losses": losses, "ties": int(o.size - wins - losses),
           "clients": n_clients, "deciding_clients": deciding,
           "delta": float(np.average(o, weights=weights)) if o.size else 0.0, "low": None, "high": None,
           "better": False}
    if wins + losses < min_decisive:
        out["reason"] = (f"interleaving: {wins + losses} searches decided by a click, fewer than the "
                         f"{min_decisive} a verdict needs")
        return out
    low, high = _weighted_bootstrap(o, weights, confidence, random_state)
    out.update(low=low, high=high, better=bool(low > 0))
    word = "wins" if low > 0 else ("loses" if high < 0 else "cannot be told from the served ranking")
    per = "" if clients is None else f" over {n_clients} clients, one vote each"
    out["reason"] = (f"interleaving: the candidate {word} ({wins} searches won, {losses} lost, {out['ties']} tied; "
                     f"mean{per} {out['delta']:+.3f}, {confidence:.0%} interval [{low:+.3f}, {high:+.3f}])")
    if deciding < min_clients:
        # a few clients, however many their searches, are not the users (issue 45)
        out["better"] = False
        out["reason"] = (f"interleaving: {deciding} clients decided a search, fewer than the {min_clients} a "
                         f"promotion needs ({out['reason'][len('interleaving: '):]})")
    return out


def _check_confidence(confidence):
    """``confidence`` as a float in [0.5, 1), the range ``learnsim index promote --confidence``
    takes: a TypeError for what is not a number, a ValueError outside it (NaN included)."""
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise TypeError(f"confidence must be a number in [0.5, 1); got {type(confidence).__name__}")
    if not (math.isfinite(confidence) and 0.5 <= confidence < 1.0):
        raise ValueError(f"confidence must be a number in [0.5, 1); got {confidence!r}")
    return float(confidence)


def _check_whole(name, value):
    """``value`` as an int >= 1: a TypeError for what is not a whole number (2.5 is not cut to
    2), a ValueError below 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a whole number >= 1; got {value!r} ({type(value).__name__})")
    if value < 1:
        raise ValueError(f"{name} must be a whole number >= 1; got {value!r}")
    return int(value)


def _check_min_clients(min_clients):
    """``min_clients`` as an int >= 1 (:func:`_check_whole`): 0 or less let one client promote."""
    return _check_whole("min_clients", min_clients)


def _weighted_bootstrap(values, weights, confidence, random_state, n_resamples=2000):
    """Percentile interval of the weighted mean, the searches resampled (each keeping its weight):
    the uncertainty of the searches made, whoever made them (a single client's many searches
    still give an interval, which resampling clients would not)."""
    rng = np.random.default_rng(random_state)
    n = values.size
    mean = float(np.average(values, weights=weights))
    if n == 1 or np.all(values == values[0]):
        return mean, mean
    means = np.empty(n_resamples)
    step = max(1, 2**22 // n)      # never n_resamples x n indices at once
    for start in range(0, n_resamples, step):
        stop = min(n_resamples, start + step)
        idx = rng.integers(0, n, size=(stop - start, n))
        w = weights[idx]
        means[start:stop] = (w * values[idx]).sum(axis=1) / w.sum(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(min(low, mean)), float(max(high, mean))
