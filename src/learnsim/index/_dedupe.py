"""Near-duplicates across an index's collection (:meth:`learnsim.index.Index.dedupe`).

Each live document's k closest documents (the index's own search, in blocks of 256 documents)
are checked with the model's duplicate rule (``Pipeline.match``), and the accepted pairs are
joined transitively (union-find, the smaller position the root), as Elasticsearch users group
the hits of a ``more_like_this`` query and dedupe tools group the pairs they accept.

A document with the very same text as an earlier one is checked against it too, wherever the
search ranks it: the search scores by the model's search rule, not by the duplicate rule, and
k texts that outscore an exact copy (BM25 prefers a text that repeats the query's words) kept
two identical documents out of every group.
"""
from __future__ import annotations

import numpy as np

from .._utils.progress import enabled_for, progress
from ._store import text_key

__all__ = ["dedupe_documents"]


def dedupe_documents(index, k):
    """Groups of near-duplicates: a list of groups, each a list of ``{"id", "text",
    "probability"}`` (the largest probability that joined the document to its group), the
    largest group first; ``k`` checked by the caller."""
    if getattr(index.pipeline.match_rule, "graded", False):
        raise ValueError("the index's model was fitted on graded pairs: it predicts a similarity score per pair, "
                         "not duplicates to group")
    index._see_changes()
    positions = np.flatnonzero(index._live)
    parent = {}

    def find(a):
        while parent.get(a, a) != a:
            parent[a] = parent.get(parent[a], parent[a])
            a = parent[a]
        return a

    best = {}
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
        if not pairs:
            continue
        other = index.store.documents(index._seqs[[b for _, b in pairs]])
        pair_texts = [(t, other[int(index._seqs[b])][1]) for t, (_, b) in zip(owners, pairs)]
        if together:
            held_pairs += pairs
            held_texts += pair_texts
        else:
            _join(index.pipeline.match(pair_texts), pairs, best, find, parent)
    if held_pairs:
        _join(index.pipeline.match(held_texts), held_pairs, best, find, parent)
    groups = {}
    for p in best:
        groups.setdefault(find(p), []).append(p)
    out = []
    for members in groups.values():
        members.sort()
        docs = index.store.documents(index._seqs[members])
        out.append([{"id": docs[int(index._seqs[p])][0], "text": docs[int(index._seqs[p])][1],
                     "probability": best[p]} for p in members])
    out.sort(key=lambda g: (-len(g), g[0]["id"]))
    return out


def _join(decisions, pairs, best, find, parent):
    """Join the pairs the rule accepted (union-find, the smaller position the root), keeping each
    document's largest probability."""
    for (a, b), dec in zip(pairs, decisions):
        if dec["duplicate"]:
            pr = float(dec["probability"])
            best[a] = max(best.get(a, 0.0), pr)
            best[b] = max(best.get(b, 0.0), pr)
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
