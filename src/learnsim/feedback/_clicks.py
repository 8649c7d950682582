"""From a click log to relative comparisons, as paper 004 proposes and Joachims (2002) derives
them: "documents that are clicked on can be assumed to be more similar to the query than
documents that were skipped".

Which comparisons, and why these (position bias): users read a result list from the top and
click what is high more often whatever it is, so "clicked" against "not clicked" anywhere in
the list mostly measures the position. Two ways to learn from clicks anyway:

**Inverse propensity weights (the default, ``position_bias="ipw"``).** Under the position-based
click model a result at rank r is looked at with probability theta_r and clicked, once looked at,
by its relevance; a click counted with weight 1 / theta_r is then an unbiased estimate of
relevance (Joachims, Swaminathan and Schnabel, "Unbiased Learning-to-Rank with Biased Feedback",
WSDM 2017). Each clicked result is compared with every result of the list not clicked, above or
below it, the click's comparisons weighted by 1 / theta_r with theta_r = (1 / r)^eta (eta = 1,
the value Joachims et al. estimated from swap experiments on arXiv's search; ranks past
``propensity_clip`` weigh as that rank, the usual clipping that bounds the variance, Strehl et
al. 2010). The weights are applied by sampling: a click's comparisons are kept with probability
theta_clip / theta_r (seeded), so the rows stay plain triplets that any relative-comparison
learner reads. On the simulation of ``benchmarks/bench_click_loop.py`` these comparisons gave
models that ranked better than the Joachims pairs', with simulated users whose eta was 0.5, 1 or
2 (docs/click_loop.md).

**Pairs the bias cannot explain** (``position_bias="joachims"``, Joachims, KDD 2002):

- **click > skip above** (Joachims 2002): a clicked result against each result ranked above it
  that was not clicked. The user passed over the higher one to click the lower: position favours
  the skipped one, so the preference goes against the bias and the bias cannot explain it.
  (Eye-tracking: Joachims, Granka, Pan, Hembrooke and Gay, SIGIR 2005, found these pairs agree
  with explicit judgements far more often than clicks taken as absolute relevance.)
- **click > next below** (same study): a clicked result against the one right below it, when that
  one was not clicked: it was most likely looked at (users read one result past a click) and
  passed over. Weaker evidence, so it can be left out (``next_below=False``).

These pairs never go the other way (a skipped result is not assumed worse than anything below
it: it may not have been read). They are biased all the same when users do not read every result
above the one they click (the position-based model): a relevant result above that was never
looked at becomes "worse", so the pairs lean against whatever ranking was shown, and a model
fitted to them learns to turn it round (docs/click_loop.md).

Where the log holds both "a over b" and "b over a" for the same query,
they cancel pair for pair (a split audience is no evidence). A flood of clicks from one client
cannot dominate a refit: each client contributes at most ``max_client_share`` of the
comparisons (a seeded sample of its own above that), and each impression at most
``max_per_impression``.
"""
from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

__all__ = ["click_comparisons", "click_judgements", "check_impressions"]


#: The position-bias handlings of :func:`click_comparisons`.
POSITION_BIAS = ("ipw", "joachims")


def click_comparisons(impressions, *, position_bias="ipw", eta=1.0, propensity_clip=10, next_below=True,
                      max_client_share=0.1, max_per_impression=20, random_state=0):
    """Relative comparisons ``(query, clicked id, skipped id)`` from a click log.

    Parameters
    ----------
    impressions : iterable of dict
        As :meth:`FeedbackLog.impressions` gives them: ``query``, ``shown`` (ids, best first),
        ``clicks`` (dicts with ``doc_id``) and ``client`` (a pseudonym or None).
    position_bias : {"ipw", "joachims"}, default="ipw"
        "ipw": each clicked result against every result shown and not clicked, the click's
        comparisons kept with probability (min(r, propensity_clip) / propensity_clip)^eta for a
        click at rank r (inverse propensity weights applied by sampling). "joachims": click >
        skip above and click > next below (module notes).
    eta : float > 0, default=1.0
        "ipw": the examination probability's exponent, theta_r = (1 / r)^eta.
    propensity_clip : int >= 1, default=10
        "ipw": ranks below this one weigh as this one (and their comparisons are all kept).
    next_below : bool, default=True
        "joachims": also "click > the unclicked result right below it" (module notes).
    max_client_share : float in (0, 1], default=0.1
        The largest share of the comparisons (after capping) one client may give: the cap is the
        largest c with c <= share x sum over clients of min(their count, c), so a flood is held
        to a share of what everyone else gave, not of itself. Clients given as None count as
        one each; 1 for no cap. At least 10 per client are kept, so a small log is not emptied,
        and never fewer than the typical (lower median) client gave, so a service of a few users
        (too few for any share) keeps their clicks.
    max_per_impression : int, default=20
        Comparisons one impression may give at most (the first ones by click position).
    random_state : int, default=0
        Seeds the sample of a client over its cap and the inverse propensity sample.

    Returns
    -------
    list of (str, str, str)
        ``(query, closer, farther)``: the clicked document is closer to the query than the
        skipped one; the rows ``learnsim fit --method relative --clicks`` reads.

    Examples
    --------
    The user skipped d3 and d7 to click d1 (third), and did not click d9 below it:

    >>> from learnsim.feedback import click_comparisons
    >>> log = [{"query": "reset password", "shown": ["d3", "d7", "d1", "d9"], "client": "a",
    ...         "clicks": [{"doc_id": "d1"}]}]
    >>> click_comparisons(log, position_bias="joachims", max_client_share=1.0)
    [('reset password', 'd1', 'd3'), ('reset password', 'd1', 'd7'), ('reset password', 'd1', 'd9')]

    With inverse propensity weights a click at rank 3 keeps its comparisons with probability 3/10
    (``propensity_clip=3`` keeps all of them):

    >>> click_comparisons(log, propensity_clip=3, max_client_share=1.0)
    [('reset password', 'd1', 'd3'), ('reset password', 'd1', 'd7'), ('reset password', 'd1', 'd9')]

    References
    ----------
    .. [1] T. Joachims, "Optimizing Search Engines using Clickthrough Data", KDD 2002.
    .. [2] T. Joachims, A. Swaminathan and T. Schnabel, "Unbiased Learning-to-Rank with Biased
       Feedback", WSDM 2017.
    .. [3] A. Strehl, J. Langford, L. Li and S. Kakade, "Learning from Logged Implicit Exploration
       Data", NeurIPS 2010.
    """
    if not 0.0 < float(max_client_share) <= 1.0:
        raise ValueError(f"max_client_share must be in (0, 1]; got {max_client_share!r}")
    if isinstance(max_per_impression, bool) or int(max_per_impression) != max_per_impression or max_per_impression < 1:
        raise ValueError(f"max_per_impression must be a positive integer; got {max_per_impression!r}")
    if position_bias not in POSITION_BIAS:
        raise ValueError(f"position_bias must be one of {', '.join(POSITION_BIAS)}; got {position_bias!r}")
    if isinstance(eta, bool) or not isinstance(eta, (int, float)) or not 0.0 < float(eta) < float("inf"):
        raise ValueError(f"eta must be a positive number; got {eta!r}")
    if isinstance(propensity_clip, bool) or int(propensity_clip) != propensity_clip or propensity_clip < 1:
        raise ValueError(f"propensity_clip must be a positive integer; got {propensity_clip!r}")
    ipw = position_bias == "ipw"
    keep_rng = np.random.default_rng([int(random_state), 1])
    by_client = defaultdict(list)
    anonymous = 0
    for imp in check_impressions(impressions):
        shown = list(imp["shown"])
        rank = {doc_id: i for i, doc_id in enumerate(shown)}
        clicked = sorted({rank[c["doc_id"]] for c in imp["clicks"] if c["doc_id"] in rank})
        chosen = set(clicked)
        pairs = []
        for i in clicked:
            if ipw:         # weight 1 / theta_r, relative to the clipped rank's: kept with that probability
                if keep_rng.random() < (min(i + 1, propensity_clip) / propensity_clip) ** float(eta):
                    pairs += [(imp["query"], shown[i], shown[j]) for j in range(len(shown)) if j not in chosen]
                continue
            pairs += [(imp["query"], shown[i], shown[j]) for j in range(i) if j not in chosen]
            if next_below and i + 1 < len(shown) and i + 1 not in chosen:
                pairs.append((imp["query"], shown[i], shown[i + 1]))
        if not pairs:
            continue
        client = imp.get("client")
        if client is None:
            client, anonymous = ("\0anonymous", anonymous), anonymous + 1
        by_client[client].extend(pairs[:int(max_per_impression)])
    cap = _client_cap({c: len(p) for c, p in by_client.items()}, float(max_client_share))
    rng = np.random.default_rng(random_state)
    out = []
    for client in sorted(by_client, key=str):
        pairs = by_client[client]
        if cap is not None and len(pairs) > cap:
            keep = np.sort(rng.choice(len(pairs), cap, replace=False))
            pairs = [pairs[k] for k in keep]
        out.extend(pairs)
    # a split audience is no evidence: "a over b" and "b over a" for one query cancel pair for pair
    counts = Counter(out)
    left = Counter()
    for (q, a, b), n in counts.items():
        net = n - counts.get((q, b, a), 0)
        if net > 0:
            left[(q, a, b)] = net
    result = []
    for row in out:
        if left[row] > 0:
            left[row] -= 1
            result.append(row)
    return result



def click_judgements(impressions, **options):
    """Relevance judgements from a click log, the supervision ``learnsim fit --qrels`` learns from
    (issue 43): each query's clicked documents relevant (grade 1), the documents shown and
    skipped for it judged not relevant (grade 0) unless a click on the same query names them.

    The comparisons are :func:`click_comparisons`' (``options`` are its keywords), so a log gives
    judgements under the same position-bias handling and the same per-client cap: a client that
    floods the log is held to its share here too.

    Returns
    -------
    queries : dict {query id: text}
        Ids ``click-1``, ``click-2``, ... in the order the queries were first compared.
    qrels : dict {query id: {document id: grade}}

    Examples
    --------
    >>> from learnsim.feedback import click_judgements
    >>> log = [{"query": "reset password", "shown": ["d3", "d1", "d9"], "client": None,
    ...         "clicks": [{"doc_id": "d1", "position": 2}]}]
    >>> queries, qrels = click_judgements(log, position_bias="joachims", next_below=False)
    >>> queries, qrels
    ({'click-1': 'reset password'}, {'click-1': {'d1': 1, 'd3': 0}})
    """
    ids, qrels = {}, {}
    for query, closer, farther in click_comparisons(impressions, **options):
        qid = ids.setdefault(query, f"click-{len(ids) + 1}")
        judged = qrels.setdefault(qid, {})
        judged[closer] = 1
        judged.setdefault(farther, 0)
    return {qid: query for query, qid in ids.items()}, qrels


def check_impressions(impressions):
    """The impressions as a list, each checked to be a search as :meth:`FeedbackLog.impressions`
    gives it (``query`` a str, ``shown`` a list of ids, ``clicks`` a list of dicts with a
    ``doc_id``); a TypeError naming the first that is not (a log's own always are)."""
    if impressions is None or isinstance(impressions, (str, bytes, dict)):
        raise TypeError(f"impressions must be a list of dicts; got {type(impressions).__name__}")
    out = list(impressions)
    for n, imp in enumerate(out):
        if not isinstance(imp, dict):
            raise TypeError(f"impressions[{n}] must be a dict; got {type(imp).__name__}")
        shown, clicks = imp.get("shown"), imp.get("clicks")
        if not isinstance(imp.get("query"), str):
            raise TypeError(f"impressions[{n}]['query'] must be a str")
        if not isinstance(shown, (list, tuple)) or not all(isinstance(d, str) for d in shown):
            raise TypeError(f"impressions[{n}]['shown'] must be a list of ids (str)")
        if not isinstance(clicks, (list, tuple)) or not all(isinstance(c, dict) and isinstance(c.get("doc_id"), str)
                                                            for c in clicks):
            raise TypeError(f"impressions[{n}]['clicks'] must be a list of dicts with a 'doc_id' (str)")
    return out


def _client_cap(counts, share):
    """The largest c with c <= share * sum(min(n, c)), and never below 10 or the lower median of
    the clients' counts; None for share 1.

    The median: with fewer than 1 / share clients no c >= 1 meets the share (one client is all of
    its own traffic), so the share alone would hold a service of a few users, or of one, to 10
    comparisons each. No client is held below what the typical client gave, which leaves honest
    users of a small service alone and still holds one flooding client to the typical volume
    (the lower median: with two clients, the smaller one's)."""
    if share >= 1.0 or not counts:
        return None
    lo, hi = 0, max(counts.values())
    while lo < hi:          # the condition holds up to some c and fails above: bisect
        mid = (lo + hi + 1) // 2
        if mid <= share * sum(min(n, mid) for n in counts.values()):
            lo = mid
        else:
            hi = mid - 1
    values = sorted(counts.values())
    return max(10, lo, values[(len(values) - 1) // 2])
