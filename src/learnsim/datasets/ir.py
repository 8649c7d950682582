"""Ad-hoc retrieval test collections: the :class:`RetrievalCollection` every retrieval loader returns."""
from __future__ import annotations

from dataclasses import dataclass, field as dataclass_field

import numpy as np
import scipy.sparse as sp

from ._base import _readonly_copy


@dataclass(frozen=True, eq=False, repr=False)
class RetrievalCollection:
    """An ad-hoc retrieval test collection: documents, queries and relevance judgments.

    Every retrieval loader (:func:`load_smart_collection`, :func:`load_trec_collection`)
    returns one, so evaluation code can treat the collections alike.

    Attributes
    ----------
    name : str
    doc_ids : ndarray of str, shape (n_documents,)
    documents : list of str
    query_ids : ndarray of str, shape (n_queries,)
    queries : list of str
    relevance : scipy.sparse.csr_matrix of int8, shape (n_queries, n_documents)
        1 where the document is relevant to the query (the binary relevance that
        :mod:`learnsim.evaluation` takes), 0 elsewhere.
    qrels : dict of {query_id: {doc_id: grade}}
        The judgments as the collection gives them (the pytrec_eval / ir_measures layout),
        including judged non-relevant pairs. In every collection a pair is relevant exactly
        when its grade is >= 1; what the grades mean beyond that is the collection's (see
        the loader).
    queries_without_judgments : ndarray of str
        Ids of the queries with no relevant document. They are kept in ``queries``; the usual
        practice is to leave them out of evaluation (see :meth:`judged_only`).
    info : dict
        Loader-specific facts: source files and counts of what was repaired or dropped.
    """

    name: str
    doc_ids: np.ndarray
    documents: list
    query_ids: np.ndarray
    queries: list
    relevance: sp.csr_matrix
    qrels: dict
    queries_without_judgments: np.ndarray
    info: dict = dataclass_field(default_factory=dict)

    def __post_init__(self):
        n_docs, n_queries = len(self.doc_ids), len(self.query_ids)
        if len(self.documents) != n_docs or len(self.queries) != n_queries:
            raise ValueError(f"inconsistent collection: {n_docs} doc ids for {len(self.documents)} documents, "
                             f"{n_queries} query ids for {len(self.queries)} queries")
        if self.relevance.shape != (n_queries, n_docs):
            raise ValueError(f"relevance has shape {self.relevance.shape}; expected (n_queries, n_documents) "
                             f"= ({n_queries}, {n_docs})")

    @property
    def n_documents(self):
        return len(self.doc_ids)

    @property
    def n_queries(self):
        return len(self.query_ids)

    @property
    def judged_query_mask(self):
        """Boolean mask of the queries that have at least one relevant document."""
        return np.diff(self.relevance.indptr) > 0

    def judged_only(self):
        """The same collection restricted to the queries that have a relevant document."""
        keep = self.judged_query_mask
        kept_ids = set(self.query_ids[keep].tolist())
        return RetrievalCollection(
            name=self.name, doc_ids=self.doc_ids, documents=self.documents,
            query_ids=_readonly_copy(self.query_ids[keep]),
            queries=[q for q, k in zip(self.queries, keep) if k],
            relevance=self.relevance[keep],
            qrels={q: dict(j) for q, j in self.qrels.items() if q in kept_ids},
            queries_without_judgments=_readonly_copy(self.query_ids[:0]),
            info=dict(self.info),
        )

    def __repr__(self):
        n_judged = int(self.judged_query_mask.sum())
        return (f"RetrievalCollection({self.name!r}: {self.n_documents} documents, {self.n_queries} queries "
                f"({n_judged} with a relevant document), {self.relevance.nnz} relevant pairs)")


def _build_collection(name, doc_ids, documents, query_ids, queries, judgments, strict, info):
    """Assemble a :class:`RetrievalCollection` from judgments ``(query_id, doc_id, grade,
    relevant, where)``; ``where`` names the qrels line for error messages."""
    for kind, ids in (("document", doc_ids), ("query", query_ids)):
        seen = set()
        for i in ids:
            if i in seen:
                raise ValueError(f"{name}: {kind} id {i!r} occurs more than once")
            seen.add(i)
    doc_pos = {d: i for i, d in enumerate(doc_ids)}
    query_pos = {q: i for i, q in enumerate(query_ids)}
    qrels = {}
    rows, cols = [], []
    n_dropped = 0
    for qid, did, grade, relevant, where in judgments:
        unknown = ([f"query {qid!r}"] if qid not in query_pos else []) + \
                  ([f"document {did!r}"] if did not in doc_pos else [])
        if unknown:
            if strict:
                raise ValueError(f"{where}: judgment names unknown {' and '.join(unknown)}; "
                                 "pass strict=False to drop such judgments")
            n_dropped += 1
            continue
        judged = qrels.setdefault(qid, {})
        if did in judged and judged[did] != grade:
            raise ValueError(f"{where}: query {qid!r}, document {did!r} judged again with grade {grade} "
                             f"(earlier {judged[did]})")
        judged[did] = grade
        if relevant:
            rows.append(query_pos[qid])
            cols.append(doc_pos[did])
    relevance = sp.csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)),
                              shape=(len(query_ids), len(doc_ids)))
    relevance.sum_duplicates()
    relevance.data[:] = 1
    relevance.sort_indices()
    without = [q for q, n in zip(query_ids, np.diff(relevance.indptr)) if n == 0]
    info = dict(info, n_dropped_judgments=n_dropped)
    return RetrievalCollection(
        name=name, doc_ids=_readonly_copy(doc_ids, dtype=str), documents=list(documents),
        query_ids=_readonly_copy(query_ids, dtype=str), queries=list(queries), relevance=relevance,
        qrels=qrels, queries_without_judgments=_readonly_copy(without, dtype=str), info=info)
