"""Proving a candidate model before it serves: held-out clicks and interleaved searches.

Two kinds of evidence, both from the click log of the served index, both over clicks that the
candidate never learned from (those recorded after it was staged):

- **Held-out clicks** (:func:`heldout_click_verdict`): the comparisons of
  :func:`learnsim.feedback.click_comparisons` (by default each clicked result against every
  result shown and not clicked, sampled with inverse propensity weights), each scored 1 when a
  model orders the pair the same way (1/2 on a tie), averaged per query; the candidate's gain
  over the served model is the mean over queries of the difference, with a bootstrap interval
  over queries. This check is cheap and needs no traffic, but it sees only how a model orders
  the results users were shown, not what it brings in from the rest of the collection, and it is
  noisy (a pair of two relevant results is a coin toss). So it screens out a candidate that loses
  on the searches since it was staged, and does not by itself promote one.
- **Interleaving** (:mod:`learnsim.feedback._interleave`): searches served as a team-draft merge
  of the two rankings, the team whose results were clicked more winning each. Position bias
  favours neither side, so this is the evidence a promotion needs. Each client is one vote (the
  mean of its searches' outcomes): counted search by search, 30 % of the searches from three
  clients clicking one side's results carried a promotion in ``benchmarks/bench_click_loop.py``.
  A promotion needs at least :data:`MIN_PROMOTION_CLIENTS` (5) clients who decided a search, so
  none weighs more than a fifth (issue 45: a flood of searches from one client named anew each
  time had carried one over ten users who voted against it). Who a client is comes from what a
  caller cannot choose (:mod:`learnsim.service._feedback`).

:func:`promotion_evidence` gives both and ``better``: True only when the interleaved searches
say the candidate wins with the whole interval above zero *and* the held-out clicks do not say
it loses (their interval is not below zero). Without interleaved searches nothing is promoted
(``learnsim serve --interleave`` collects them; ``learnsim index promote --force`` overrides).
"""
from __future__ import annotations

import time

import numpy as np

from ._interleave import _check_confidence, _check_min_clients, interleaving_outcome, interleaving_verdict

__all__ = ["heldout_click_verdict", "interleaved_outcomes", "interleaved_model", "promotion_evidence",
           "MIN_HELDOUT_QUERIES", "MIN_PROMOTION_CLIENTS"]

#: Queries with a held-out comparison needed before that check gives a verdict.
MIN_HELDOUT_QUERIES = 10
#: Distinct clients whose interleaved searches were decided by a click, needed for a promotion
#: (``learnsim index promote --min-clients``): each weighs 1 / their number, so none holds more
#: than a fifth of the verdict.
MIN_PROMOTION_CLIENTS = 5


def interleaved_model(served_version, candidate_version):
    """The ``model`` an interleaved impression is logged under: both versions."""
    return f"v{int(served_version)}|v{int(candidate_version)}"


def _closeness_of(pipeline, ids, texts, queries, wanted):
    """{(query, id): closeness} for the (query, id) pairs in ``wanted``, the documents scored as
    members of the whole collection (its statistics), the queries in blocks of bounded memory."""
    position = {doc_id: i for i, doc_id in enumerate(ids)}
    found = pipeline.searcher(texts)
    out = {}
    block = max(1, (1 << 22) // max(1, len(texts)))
    for start in range(0, len(queries), block):
        part = queries[start:start + block]
        scores = np.asarray(found.closeness(part), dtype=np.float64)
        for row, q in enumerate(part):
            for doc_id in wanted[q]:
                out[(q, doc_id)] = float(scores[row, position[doc_id]])
    return out


def heldout_click_verdict(comparisons, served, candidate, ids, texts, *, confidence=0.95,
                          min_queries=MIN_HELDOUT_QUERIES, random_state=0):
    """Which of two models agrees more with held-out click comparisons.

    Parameters
    ----------
    comparisons : sequence of (str, str, str)
        ``(query, closer id, farther id)``, as :func:`click_comparisons` gives them.
    served, candidate : learnsim.pipeline.Pipeline
    ids, texts : sequence of str
        The collection the comparisons' ids name; comparisons naming another id are left out.
    confidence : float, default=0.95
    min_queries : int, default=MIN_HELDOUT_QUERIES

    Returns
    -------
    dict
        ``comparisons``, ``queries``, ``served`` and ``candidate`` (mean agreement per query),
        ``delta`` (candidate minus served), ``low``, ``high``, ``better`` (interval above 0),
        ``worse`` (interval below 0) and ``reason``.
    """
    from ..baseline import paired_bootstrap

    known = set(ids)
    rows = [c for c in comparisons if c[1] in known and c[2] in known]
    queries = sorted({q for q, _, _ in rows})
    out = {"comparisons": len(rows), "queries": len(queries), "served": None, "candidate": None, "delta": None,
           "low": None, "high": None, "better": False, "worse": False}
    if len(queries) < min_queries:
        out["reason"] = (f"held-out clicks: {len(queries)} queries with a comparison, fewer than the {min_queries} "
                         "a verdict needs")
        return out
    wanted = {}
    for q, a, b in rows:
        wanted.setdefault(q, set()).update((a, b))
    agree = {}
    for name, model in (("served", served), ("candidate", candidate)):
        s = _closeness_of(model, list(ids), list(texts), queries, wanted)
        agree[name] = np.array([1.0 if s[(q, a)] > s[(q, b)] else 0.5 if s[(q, a)] == s[(q, b)] else 0.0
                                for q, a, b in rows])
    groups = np.array([q for q, _, _ in rows], dtype=object)
    # per query first: a query with many comparisons is one unit, as in the bootstrap below
    _, inverse = np.unique(groups, return_inverse=True)
    counts = np.bincount(inverse)
    per_query = {name: np.bincount(inverse, weights=v) / counts for name, v in agree.items()}
    diff = per_query["candidate"] - per_query["served"]
    low, high = paired_bootstrap(diff, confidence=confidence, random_state=random_state)
    out.update(served=float(per_query["served"].mean()), candidate=float(per_query["candidate"].mean()),
               delta=float(diff.mean()), low=float(low), high=float(high), better=bool(low > 0), worse=bool(high < 0))
    word = "agrees more" if low > 0 else ("agrees less" if high < 0 else "cannot be told from the served model")
    out["reason"] = (f"held-out clicks: the candidate {word} ({out['candidate']:.3f} against {out['served']:.3f} over "
                     f"{len(queries)} queries; {confidence:.0%} interval of the gain [{low:+.3f}, {high:+.3f}])")
    return out


def interleaved_outcomes(impressions, served_version, candidate_version):
    """(outcomes, clients) of the interleaved impressions of these two versions that have a
    click; the impressions without a client count as one client together (counted one by one,
    a log of unnamed searches would be as many clients as searches)."""
    model = interleaved_model(served_version, candidate_version)
    outcomes, clients = [], []
    for imp in impressions:
        teams = imp.get("teams")
        if imp.get("model") != model or not teams or not imp["clicks"]:
            continue
        outcomes.append(interleaving_outcome(teams, [c["position"] for c in imp["clicks"]]))
        client = imp.get("client")
        clients.append(("client", client) if client is not None else ("anonymous",))
    return outcomes, clients


def promotion_evidence(index, candidate, *, candidate_version=None, since=None, log=None, confidence=0.95,
                       min_clients=MIN_PROMOTION_CLIENTS, max_client_share=0.1):
    """Whether ``candidate`` may replace the model ``index`` serves (module notes).

    Parameters
    ----------
    index : learnsim.index.Index
        The open index; its served version and its click log (``feedback.sqlite``).
    candidate : learnsim.pipeline.Pipeline
    candidate_version : int, optional
        The candidate's version in the index (:meth:`Index.versions`); default the newest
        candidate. Its interleaved searches are those logged under both versions.
    since : float, optional
        Only clicks recorded from this time (seconds since 1970) count; default the time the
        candidate was last staged (clicks it cannot have learned from: a version staged again
        after a rollback starts anew), and for a retired version named by ``candidate_version``
        no earlier than when it was retired (:func:`learnsim.index._versions.evidence_start`).
    log : learnsim.feedback.FeedbackLog, optional
        Default: the index's own, opened read-only.
    confidence : float, default=0.95
        In [0.5, 1), as ``learnsim index promote --confidence`` takes it (ValueError otherwise,
        TypeError for what is not a number), checked before the log is read.
    min_clients : int, default=MIN_PROMOTION_CLIENTS
        A whole number >= 1 (TypeError, ValueError otherwise). Distinct clients (the service's: the key's holder or its users, else the address, issue
        45) with an interleaved search decided by a click, needed for a promotion: one client,
        one vote, so none weighs more than 1 / min_clients.
    max_client_share : float, default=0.1
        The held-out clicks' per-client cap (:func:`click_comparisons`).

    Returns
    -------
    dict
        ``better`` (bool), ``reason`` (one line), ``heldout`` and ``interleaving`` (the two
        verdicts), ``served_version``, ``candidate_version``, ``since``, ``time`` (when it was
        made, seconds since 1970), ``foreign_impressions`` (searches with clicks left out: they
        show ids that are not documents of the index, no evidence about its rankings).
    """
    from ._clicks import click_comparisons
    from ._log import FeedbackLog

    from ..index._versions import evidence_start

    confidence, min_clients = _check_confidence(confidence), _check_min_clients(min_clients)
    served_version = int(index.model_version)
    if candidate_version is None or since is None:
        versions = index.versions()
        if candidate_version is None:
            staged = [v for v in versions if v["status"] == "candidate"]
            chosen = max(staged, key=lambda v: v["version"]) if staged else None
            candidate_version = None if chosen is None else chosen["version"]
        else:
            # any version named, a retired one too: without its own start the whole log counted,
            # and a version rolled back was promoted again on the clicks of before the rollback
            chosen = next((v for v in versions if v["version"] == candidate_version), None)
        if since is None and chosen is not None:
            since = evidence_start(chosen)
    out = {"better": False, "served_version": served_version, "candidate_version": candidate_version,
           "since": since, "time": time.time(), "heldout": None, "interleaving": None}
    own = log is None
    if own:
        try:
            log = FeedbackLog(index.path, readonly=True)
        except FileNotFoundError:
            out["reason"] = "no click log beside the index (serve it with --learn-from-clicks)"
            return out
    try:
        impressions = [imp for imp in log.impressions(with_clicks_only=True)
                       if since is None or imp["time"] >= since]
    finally:
        if own:
            log.close()
    ids, texts = index.live_documents()
    # a search of this index shows its documents: one showing an id it does not hold is no
    # evidence about its rankings (a click log copied from another index, or documents removed since)
    impressions, foreign = _of_index(impressions, ids)
    out["foreign_impressions"] = foreign
    heldout = heldout_click_verdict(click_comparisons(impressions, max_client_share=max_client_share),
                                    index.pipeline, candidate, ids, texts, confidence=confidence)
    if candidate_version is not None:
        outcomes, clients = interleaved_outcomes(impressions, served_version, candidate_version)
    else:
        outcomes, clients = [], []
    inter = interleaving_verdict(outcomes, clients, confidence=confidence, min_clients=min_clients)
    out.update(heldout=heldout, interleaving=inter)
    left_out = (f"; {foreign} searches with clicks left out: they show ids that are not documents of this index "
                "(a click log of another index, or documents removed since)") if foreign else ""
    if heldout["worse"] or not inter["better"]:
        # both findings: the one that refused first
        first, second = (heldout, inter) if heldout["worse"] else (inter, heldout)
        out["reason"] = f"not promoted: {first['reason']}; {second['reason']}{left_out}"
    else:
        out["better"] = True
        out["reason"] = "promoted: " + inter["reason"] + "; " + heldout["reason"] + left_out
    return out


def _of_index(impressions, ids):
    """(the impressions all of whose shown ids are documents ``ids`` holds, how many others):
    one set of the ids, one look-up per id shown."""
    known = set(ids)
    kept = [imp for imp in impressions if all(doc_id in known for doc_id in imp["shown"])]
    return kept, len(impressions) - len(kept)
