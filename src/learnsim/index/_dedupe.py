"""Near-duplicates across an index's collection (:meth:`learnsim.index.Index.dedupe`).

Each live document's k closest documents (the index's own search, in blocks of 256 documents)
are checked with the model's duplicate rule (``Pipeline.match``), and the accepted pairs are
grouped. By default (``linkage="complete"``) every two documents of a group are a pair the rule
accepted (dedupe.io and pandas-dedupe cut a hierarchy of the pairs too); ``linkage="single"``
joins the accepted pairs transitively (the connected components, as text-dedup and datasketch
join LSH buckets with union-find and Splink clusters at a threshold). Single linkage chains: a~b,
b~c and c~d accepted put a and d in one group though they share nothing. On the 3,118 sentences
of JSTS's test pairs (a FILM fitted on its training pairs with a score of 3 or more as
duplicates) it put 2,605 of them in one group, and 51% of the judged pairs inside its groups
are not duplicates (58% of all the judged pairs are not); complete linkage's largest group has 10,
and 18% of its judged pairs are not (recall 0.36 of the judged duplicates, against 0.88). On
the 19,107 questions of the Quora test sample, single linkage's largest group held 6,002.

A document with the very same text as an earlier one is checked against it too, wherever the
search ranks it: the search scores by the model's search rule, not by the duplicate rule, and
k texts that outscore an exact copy (BM25 prefers a text that repeats the query's words) kept
two identical documents out of every group.
"""
from __future__ import annotations

import numpy as np

from .._utils.progress import enabled_for, progress
from ._store import text_key

__all__ = ["LINKAGES", "dedupe_documents"]


LINKAGES = ("complete", "single")


def dedupe_documents(index, k, linkage="complete"):
    """Groups of near-duplicates: a list of groups, each a list of ``{"id", "text",
    "probability"}`` (the largest probability with which the document was matched to another
    document of its group), the largest group first; ``k`` checked by the caller, ``linkage`` one
    of :data:`LINKAGES`."""
    if linkage not in LINKAGES:
        raise ValueError(f"linkage must be one of {', '.join(map(repr, LINKAGES))}; got {linkage!r}")
    if getattr(index.pipeline.match_rule, "graded", False):
        raise ValueError("the index's model was fitted on graded pairs: it predicts a similarity score per pair, "
                         "not duplicates to group")
    index._see_changes()
    accepted, copies = accepted_pairs(index, k)
    grouped = sorted({p for a, b, _ in accepted for p in (a, b)})
    docs = index.store.documents(index._seqs[grouped]) if grouped else {}
    if linkage == "single":
        groups = single_link(accepted)
    else:
        # pairs of equal probability (every pair the kNN rule accepts) are taken in the order of
        # their ids: by position, the groups changed with the collection's order
        groups = complete_link_copies(accepted, copies, order={p: docs[int(index._seqs[p])][0] for p in grouped})
    out = []
    for members, best in groups:
        out.append([{"id": docs[int(index._seqs[p])][0], "text": docs[int(index._seqs[p])][1],
                     "probability": best[p]} for p in members])
    out.sort(key=lambda g: (-len(g), g[0]["id"]))
    return out


def accepted_pairs(index, k):
    """The pairs of live positions ``(a, b, probability)`` that the duplicate rule accepted among
    each document's k closest documents (and its first exact copy), each pair once, ``a < b``;
    and ``{position: the first live position of the very same text}`` of the later copies."""
    positions = np.flatnonzero(index._live)
    accepted, copies = {}, {}
    first_with_text = {}      # a text's digest: the first live position holding it
    # a rule whose decisions depend on the texts decided together (the kNN rule) gets every
    # pair at once: block by block, the groups depended on the collection's size and order
    together = getattr(index.pipeline.matcher, "decides_together", False)
    held_pairs, held_texts = [], []
    batch = 256
    blocks = progress(range(0, positions.size, batch), desc="index: dedupe",
                      enabled=enabled_for(positions.size, loop=True))
    for start in blocks:
        block = positions[start:start + batch]
        docs = index.store.documents(index._seqs[block])
        texts = [docs[int(index._seqs[p])][1] for p in block]
        found = index._search_rows(index._query_rows(texts), k, index._live, exclude=list(block))
        pairs, owners = [], []
        for p, text, (values, order) in zip(block, texts, found):
            p = int(p)
            same = first_with_text.setdefault(text_key(text), p)
            for o in order:
                if o != p and o != same:
                    pairs.append((p, int(o)))
                    owners.append(text)
            if same != p:
                pairs.append((p, same))
                owners.append(text)
                copies[p] = same
        if not pairs:
            continue
        other = index.store.documents(index._seqs[[b for _, b in pairs]])
        pair_texts = [(t, other[int(index._seqs[b])][1]) for t, (_, b) in zip(owners, pairs)]
        if together:
            held_pairs += pairs
            held_texts += pair_texts
        else:
            _keep(index.pipeline.match(pair_texts), pairs, accepted)
    if held_pairs:
        _keep(index.pipeline.match(held_texts), held_pairs, accepted)
    return [(a, b, pr) for (a, b), pr in accepted.items()], copies


def _keep(decisions, pairs, accepted):
    """Record the pairs the rule accepted (a pair checked from both ends: its larger probability)."""
    for (a, b), dec in zip(pairs, decisions):
        if dec["duplicate"]:
            key = (min(a, b), max(a, b))
            accepted[key] = max(accepted.get(key, 0.0), float(dec["probability"]))


def single_link(accepted):
    """The connected components of the accepted pairs (union-find, the smaller position the root):
    a duplicate of a duplicate is in the group, and a chain a~b~c~d joins a and d though they share
    nothing. Each group ``(sorted positions, {position: largest probability})``."""
    parent = {}

    def find(a):
        while parent.get(a, a) != a:
            parent[a] = parent.get(parent[a], parent[a])
            a = parent[a]
        return a

    best = {}
    for a, b, pr in accepted:
        best[a] = max(best.get(a, 0.0), pr)
        best[b] = max(best.get(b, 0.0), pr)
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups = {}
    for p in best:
        groups.setdefault(find(p), []).append(p)
    return [(sorted(m), {p: best[p] for p in m}) for m in groups.values()]


def complete_link(accepted, order=None):
    """Groups in which every two documents are an accepted pair (complete linkage, the rule's
    decision its threshold): the pairs are taken from the most probable down (ties by the
    ``order`` of their documents, ``{position: key}``, by default their positions; so the groups
    do not depend on the order the search found the pairs in), and a pair joins
    its two documents' groups only where every pair across them was accepted too. A chain
    a~b~c~d therefore never joins a and d, and a document accepted with members of two groups
    that are not duplicates of each other stays in the first it was joined to. Each group
    ``(sorted positions, {position: largest probability with another member})``."""
    neighbours = {}
    for a, b, _ in accepted:
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    group_of, members = {}, {}
    rank = (lambda p: p) if order is None else order.__getitem__

    def tie(pair):
        return (-pair[2],) + tuple(sorted((rank(pair[0]), rank(pair[1]))))

    for a, b, pr in sorted(accepted, key=tie):
        ga, gb = group_of.get(a, a), group_of.get(b, b)
        if ga == gb:
            continue
        ma, mb = members.get(ga, [ga]), members.get(gb, [gb])
        if all(y in neighbours[x] for x in ma for y in mb):
            root, other = min(ga, gb), max(ga, gb)
            joined = ma + mb
            members[root] = joined
            members.pop(other, None)
            for p in joined:
                group_of[p] = root
    best = {}
    for a, b, pr in accepted:
        if group_of.get(a, a) == group_of.get(b, b):
            best[a], best[b] = max(best.get(a, 0.0), pr), max(best.get(b, 0.0), pr)
    return [(sorted(m), {p: best[p] for p in m}) for m in members.values()]


def complete_link_copies(accepted, copies, order=None):
    """:func:`complete_link` with the exact copies of a text as one document: a copy is checked
    against the first of its text and its own k closest documents, so 20 copies of a text (each
    a duplicate of every other, with probability 1) were never all checked pairwise and came out
    in several groups; the copies of a text are now always together, with whatever the rule
    accepted with any of them. ``copies``: ``{position: first position of its text}``, as
    :func:`accepted_pairs` gives it (a copy the rule did not accept, a blank text, stays apart)."""
    taken = {(a, b) for a, b, _ in accepted}
    first = {p: f for p, f in copies.items() if (min(p, f), max(p, f)) in taken}
    joined = {}
    for a, b, pr in accepted:
        fa, fb = first.get(a, a), first.get(b, b)
        if fa != fb:
            key = (min(fa, fb), max(fa, fb))
            joined[key] = max(joined.get(key, 0.0), pr)
    heads = complete_link([(a, b, pr) for (a, b), pr in joined.items()], order)
    copies_of = {}
    for p, f in first.items():
        copies_of.setdefault(f, []).append(p)
    placed = {h for m, _ in heads for h in m}
    units = [m for m, _ in heads] + [[f] for f in copies_of if f not in placed]
    groups = [sorted(p for h in m for p in [h] + copies_of.get(h, [])) for m in units]
    group_of = {p: g for g, m in enumerate(groups) for p in m}
    best = {}
    for a, b, pr in accepted:
        if a in group_of and group_of[a] == group_of.get(b):
            best[a], best[b] = max(best.get(a, 0.0), pr), max(best.get(b, 0.0), pr)
    return [(m, {p: best[p] for p in m}) for m in groups]
