"""Near-duplicates of one text in an index (:meth:`learnsim.index.Index.match`): the exact
copies of the text beside the search's hits, and the duplicate rule's decision over them.

The candidates are the k hits of the index's search and every live document whose text is
exactly the query's, wherever the search ranks it: the search scores by the model's search rule,
not by its duplicate rule, and k texts that outscore an exact copy (BM25 prefers a text that
repeats the query's words) kept the most obvious duplicate out. A copy is found by its text's key
in docs.sqlite (:func:`learnsim.index._store.text_key`) and taken only when the text served for
it is the query's itself.
"""
from __future__ import annotations

import numpy as np

from ._scan import closeness, closeness_at
from ._segments import IndexFormatError

__all__ = ["exact_copy_hits", "matched_hits"]


def exact_copy_hits(index, text, k, conditions, hits):
    """Search hits (the keys and scores :meth:`Index.search` gives) of the live documents whose text
    is exactly ``text``, that ``conditions`` allow and ``hits`` do not hold, in the order of
    their sequence numbers; [] where docs.sqlite has no text keys (written before them)."""
    seqs = index.store.live_seqs_with_text(text)
    if not seqs:
        return []
    seqs = np.asarray(seqs, dtype=np.int64)
    pos = np.searchsorted(index._seqs, seqs)
    ok = pos < index._seqs.size
    ok[ok] = index._seqs[pos[ok]] == seqs[ok]
    # a document added by another handle since this one loaded is not in its segments yet:
    # its next read sees it, as a search does
    pos = pos[ok]
    if pos.size:
        pos = pos[index._allowed(conditions)[pos]]
    if not pos.size:
        return []
    # read as a hit is read (its segment's copy, checked against its digest): the text served,
    # compared with the query's, so that a key edited with sqlite3 cannot make a hit of another text
    index._check_filtered(conditions, [pos])
    docs = index._documents_at(pos)
    held = {h["id"] for h in hits}
    found = []
    for p, seq in zip(pos.tolist(), index._seqs[pos].tolist()):
        row = docs.get(seq)
        if row is None:
            raise IndexFormatError(f"{index.path}: a segment lists document {seq}, which "
                                   f"docs.sqlite does not hold (edited or damaged)")
        if row[1] == text and row[0] not in held:
            found.append(p)
            held.add(row[0])
    if not found:
        return []
    found = np.asarray(found, dtype=np.int64)
    query = index._with_lone_characters([text])[0]
    s, d, q = index._query_rows([query]).row(0)
    distance = index.kind == "distance"
    index._rerank_depth(k)      # (the manifest's value checked)
    reranked = index.manifest.get("rerank") is not None   # not depth != k: false for k >= its candidates
    if reranked:
        # the first stage's exact values of every row: the copy's rank among those allowed
        everything = closeness(index.segments, s, d, q, distance)
        values = everything[found]
    else:
        values = closeness_at(index.segments, found, s, d, q, distance)
    out = index._hits(values, found)
    if reranked:
        reranker = index._rerank_plan() or index.pipeline.rerank
        if reranker is None:
            raise IndexFormatError(f"{index.path}: the manifest says the model re-ranks, but it has no re-ranker "
                                   "(edited or damaged)")
        _, proba = reranker.rerank(query, [h["text"] for h in out])
        allowed = index._allowed(conditions)
        rows = np.arange(everything.shape[0])
        for i, (p, v) in enumerate(zip(found.tolist(), values.tolist())):
            ahead = (everything > v) | ((everything == v) & (rows < p))
            out[i] = dict(out[i], score=float(proba[i]),
                          first_stage_rank=int(np.count_nonzero(ahead & allowed)) + 1,
                          first_stage_score=out[i]["score"])
    for i, hit in enumerate(out):
        hit["rank"] = len(hits) + i + 1
    return out


def matched_hits(pipeline, text, hits, k):
    """The candidates ``hits`` (search hits, each id once) the duplicate rule accepts, most
    probable first (a graded rule: all, highest predicted score first), the first k of them."""
    if not hits:
        return []
    decisions = pipeline.match([(text, h["text"]) for h in hits])
    if decisions and "duplicate" not in decisions[0]:
        # a model fitted on graded pairs: every hit with its predicted score, highest first
        out = sorted((dict(hit, predicted_score=float(dec["score"])) for hit, dec in zip(hits, decisions)),
                     key=lambda h: -h["predicted_score"])[:k]
        for rank, h in enumerate(out):
            h["rank"] = rank + 1
        return out
    out = []
    for hit, dec in zip(hits, decisions):
        if dec["duplicate"]:
            out.append(dict(hit, probability=float(dec["probability"]), match_score=float(dec["score"])))
    out.sort(key=lambda h: -h["probability"])
    out = out[:k]
    for rank, h in enumerate(out):
        h["rank"] = rank + 1
    return out
