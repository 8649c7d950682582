"""Ad-hoc retrieval test collections: the :class:`RetrievalCollection` every retrieval loader returns."""
from __future__ import annotations

import math
import numbers
from array import array
import os
import re
from dataclasses import dataclass, field as dataclass_field
from typing import TYPE_CHECKING

import numpy as np

from .._utils.inputs import check_grade, short_repr
from ._base import _normalise_id, _readonly_copy

if TYPE_CHECKING:      # (imported in _build_collection: a queries file alone reads this module)
    import scipy.sparse as sp


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

    Examples
    --------
    >>> from learnsim.datasets import RetrievalCollection
    >>> docs = {"d1": "how do I reset my password", "d2": "I was charged twice",
    ...         "d3": "the app crashes on start"}
    >>> queries = {"q1": "password reset", "q2": "double charge"}
    >>> c = RetrievalCollection.from_lists(docs, queries, [("q1", "d1"), ("q2", "d2", 1)], name="tickets")
    >>> c
    RetrievalCollection('tickets': 3 documents, 2 queries (2 with a relevant document), 2 relevant pairs)
    >>> c.relevance.toarray()
    array([[1, 0, 0],
           [0, 1, 0]]...)
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

    @classmethod
    def from_lists(cls, documents, queries, qrels, *, name="collection", strict=True):
        """Build a collection from data in memory: lists, dicts or pandas DataFrames.

        Parameters
        ----------
        documents, queries : list of str, dict, list of (id, text), or DataFrame
            A list of texts (their ids are their positions, ``"0"``, ``"1"``, ...), a dict
            ``{id: text}``, a list of ``(id, text)`` tuples, or a DataFrame with an id column
            (``id``, ``doc_id``, ``docno``, ``query_id``, ``qid``) and a ``text`` column, or two
            columns ``(id, text)`` by position, or a single text column.
        qrels : dict, list of tuples, or DataFrame
            ``{query_id: {doc_id: grade}}`` (the pytrec_eval layout), ``{query_id: [doc_id, ...]}``
            (relevant documents), a list of ``(query_id, doc_id)`` (relevant) or ``(query_id,
            doc_id, grade)`` tuples, or a DataFrame with ``query``/``doc`` columns (and
            optionally ``relevance``/``grade``; else its first two or three columns). A grade
            >= 1 is relevant.
        name : str, default="collection"
        strict : bool, default=True
            A judgment naming an unknown query or document is an error; with False it is
            dropped and counted in ``info["n_dropped_judgments"]``.

        Returns
        -------
        RetrievalCollection
            Ids are strings, as given (a run file names them so); a judgement finds its query
            and document by the id's value, ``"7"`` finding ``"007"``, as in the file readers.

        Raises
        ------
        ValueError, TypeError
            On data of another shape, a text that is not a string, a grade that is not an
            integer, a repeated id, or (with ``strict``) a judgment naming an unknown id.
        """
        if not isinstance(strict, (bool, np.bool_)):
            raise TypeError(f"strict must be True or False; got {strict!r}")
        doc_ids, texts = _texts_from_memory(documents, "documents", allow_plain=True)
        query_ids, query_texts = _texts_from_memory(queries, "queries", allow_plain=True)
        judgments = _judgments_from_memory(qrels)
        info = {"files": {}, "n_judgments": len(judgments)}
        return _build_collection(name, doc_ids, texts, query_ids, query_texts, judgments, strict, info)

    def __repr__(self):
        n_judged = int(self.judged_query_mask.sum())
        return (f"RetrievalCollection({self.name!r}: {self.n_documents} documents, {self.n_queries} queries "
                f"({n_judged} with a relevant document), {self.relevance.nnz} relevant pairs)")


def _where(where):
    """The text of where a judgement is: given as such, or as ``(path, line number)``, which a
    reader streaming a file yields (a text a line, made only for an error, took 75 MB a million)."""
    return where if isinstance(where, str) else f"{where[0]}, line {where[1]}"


def _build_collection(name, doc_ids, documents, query_ids, queries, judgments, strict, info):
    """Assemble a :class:`RetrievalCollection` from judgments ``(query_id, doc_id, grade,
    relevant, where)``, an iterable read once (a file's, as it is read); ``where`` names the
    qrels line for error messages (:func:`_where`)."""
    # ids are kept as the files give them (a run file names them so); a judgement finds its
    # query and document by the id's value, "007" being "7" as in the qrels readers
    doc_pos, query_pos = {}, {}
    for kind, ids, pos in (("document", doc_ids, doc_pos), ("query", query_ids, query_pos)):
        for i, raw in enumerate(ids):
            first = pos.setdefault(_normalise_id(str(raw)), i)
            if first != i:
                same = "occurs more than once" if ids[first] == raw else \
                    f"and {ids[first]!r} are one id to judgements and run files (an all-digit id is read without " \
                    "its leading zeros)"
                raise ValueError(f"{name}: {kind} id {raw!r} {same}")
    qrels = {}
    rows, cols = array("q"), array("q")     # the relevant pairs' positions, as numbers, not int objects
    n_dropped = n_judgments = 0
    for qid, did, grade, relevant, where in judgments:
        n_judgments += 1
        q, d = query_pos.get(_normalise_id(str(qid))), doc_pos.get(_normalise_id(str(did)))
        if q is None or d is None:
            if strict:
                unknown = ([f"query {short_repr(qid)}"] if q is None else []) + \
                    ([f"document {short_repr(did)}"] if d is None else [])
                raise ValueError(f"{_where(where)}: judgment names unknown {' and '.join(unknown)}; "
                                 "pass strict=False to drop such judgments")
            n_dropped += 1
            continue
        judged = qrels.get(query_ids[q])
        if judged is None:
            judged = qrels[query_ids[q]] = {}
        earlier = judged.setdefault(doc_ids[d], grade)
        if earlier != grade:
            raise ValueError(f"{_where(where)}: query {short_repr(qid)}, document {short_repr(did)} judged again with "
                             f"grade {grade} "
                             f"(earlier {earlier})")
        if relevant:
            rows.append(q)
            cols.append(d)
    # scipy.sparse here, not at the top: reading a queries file (fit --qrels, evaluate) imports this
    # module, and scipy.sparse costs 0.2-0.3 s that a refusal of a missing file never needs
    import scipy.sparse as sp

    relevance = sp.csr_matrix((np.ones(len(rows), dtype=np.int8), (np.asarray(rows), np.asarray(cols))),
                              shape=(len(query_ids), len(doc_ids)))
    relevance.sum_duplicates()
    relevance.data[:] = 1
    relevance.sort_indices()
    without = [q for q, n in zip(query_ids, np.diff(relevance.indptr)) if n == 0]
    info = dict(info, n_judgments=n_judgments, n_dropped_judgments=n_dropped)
    return RetrievalCollection(
        name=name, doc_ids=_readonly_copy(doc_ids, dtype=str), documents=list(documents),
        query_ids=_readonly_copy(query_ids, dtype=str), queries=list(queries), relevance=relevance,
        qrels=qrels, queries_without_judgments=_readonly_copy(without, dtype=str), info=info)


# ------------------------------------------------------------------------ data in memory

_ID_COLUMNS = ("id", "doc_id", "docid", "docno", "query_id", "qid", "topic", "num")
_QREL_COLUMNS = {"query": ("query", "query_id", "qid", "topic"),
                 "doc": ("doc", "doc_id", "docid", "docno", "document"),
                 "grade": ("relevance", "grade", "rel", "label", "score")}


def _is_path(value):
    """Whether ``value`` names a file (a ``str`` or path-like), rather than data in memory."""
    return isinstance(value, (str, os.PathLike))


def _is_dataframe(value):
    # Duck-typed, so that pandas stays optional and is never imported here.
    return hasattr(value, "columns") and hasattr(value, "itertuples") and hasattr(value, "iloc")


def _memory_id(value, where):
    if isinstance(value, bool) or not isinstance(value, (str, numbers.Integral)):
        raise TypeError(f"{where}: an id must be a string or an integer; got {value!r}")
    text = str(value).strip()
    if not text:
        raise ValueError(f"{where}: empty id")
    return text


def _memory_text(value, where):
    if not isinstance(value, str):
        raise TypeError(f"{where}: the text must be a string; got {type(value).__name__}")
    return value


def _texts_from_memory(value, what, allow_plain=False):
    """``(ids, texts)`` of documents or queries given in memory (see
    :meth:`RetrievalCollection.from_lists`). ``allow_plain``: a list of plain strings is a
    list of texts (else it is refused, as the file readers take a list of strings as paths)."""
    if _is_dataframe(value):
        names = [str(c).strip().lower() for c in value.columns]
        rows = list(value.itertuples(index=False, name=None))
        id_col = next((names.index(n) for n in _ID_COLUMNS if n in names), None)
        text_col = names.index("text") if "text" in names else None
        if text_col is None:
            if len(names) == 2 and id_col in (None, 0):
                id_col, text_col = 0, 1
            elif len(names) == 1:
                text_col = 0
            else:
                raise ValueError(f"{what}: the DataFrame needs a 'text' column (and an id column such as 'id'), "
                                 f"or exactly two columns (id, text); its columns are {list(value.columns)}")
        if id_col is None:
            pairs = [(str(i), row[text_col]) for i, row in enumerate(rows)]
        else:
            pairs = [(row[id_col], row[text_col]) for row in rows]
    elif isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, (list, tuple)):
        if all(isinstance(v, str) for v in value):
            if not allow_plain:
                raise TypeError(f"{what}: a list of strings is read as a list of file paths here; give texts "
                                "with their ids as a dict {id: text} or a list of (id, text) tuples, or use "
                                "RetrievalCollection.from_lists")
            pairs = [(str(i), text) for i, text in enumerate(value)]
        elif all(isinstance(v, (tuple, list)) and len(v) == 2 for v in value):
            pairs = [tuple(v) for v in value]
        else:
            raise TypeError(f"{what}: expected a list of texts or of (id, text) tuples")
    else:
        raise TypeError(f"{what} must be a path, a dict {{id: text}}, a list of (id, text) tuples or a "
                        f"DataFrame; got {type(value).__name__}")
    if not pairs:
        raise ValueError(f"{what} is empty")
    ids = [_memory_id(i, f"{what} {n}") for n, (i, _t) in enumerate(pairs)]
    texts = [_memory_text(t, f"{what} {ids[n]!r}") for n, (_i, t) in enumerate(pairs)]
    return ids, texts


_ASCII_INTEGER = re.compile(r"[+-]?[0-9]+")


def _grade(value, where, noun="relevance grade"):
    """A relevance grade (a bool, an integral number, or the text of an integer) as an int within
    trec_eval's range (:func:`learnsim._utils.inputs.check_grade`), or a ValueError naming
    ``where`` (``noun``: how the message names the field)."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        if not (math.isfinite(value) and float(value).is_integer()):
            raise ValueError(f"{where}: {noun} {short_repr(value)} is not an integer")
        return check_grade(int(value), where)
    if isinstance(value, numbers.Integral):
        return check_grade(int(value), where)
    text = str(value).strip()
    # ASCII digits: int() also reads "١" (Arabic-Indic one) and "1_000", which trec_eval reads as 0 and 1
    if _ASCII_INTEGER.fullmatch(text) is None:
        raise ValueError(f"{where}: {noun} {short_repr(value)} is not an integer")
    # beyond 20 digits the value is out of any range: not converted (int() refuses 4,300 and more)
    grade = int(text) if len(text) <= 20 else (-1 if text.startswith("-") else 1) * 10 ** 20
    return check_grade(grade, where, value)


def _judgments_from_memory(value):
    """Judgments ``(query_id, doc_id, grade, relevant, where)`` of qrels given in memory."""
    rows = []
    if _is_dataframe(value):
        names = [str(c).strip().lower() for c in value.columns]
        cols = {role: next((names.index(n) for n in synonyms if n in names), None)
                for role, synonyms in _QREL_COLUMNS.items()}
        if cols["query"] is None or cols["doc"] is None:
            if len(names) not in (2, 3):
                raise ValueError("qrels: the DataFrame needs 'query' and 'doc' columns (and optionally "
                                 f"'relevance'), or two or three columns by position; its columns are "
                                 f"{list(value.columns)}")
            cols = {"query": 0, "doc": 1, "grade": 2 if len(names) == 3 else None}
        for n, row in enumerate(value.itertuples(index=False, name=None)):
            rows.append((row[cols["query"]], row[cols["doc"]],
                         row[cols["grade"]] if cols["grade"] is not None else 1, f"qrels row {n}"))
    elif isinstance(value, dict):
        for qid, judged in value.items():
            if isinstance(judged, dict):
                rows.extend((qid, did, grade, f"qrels[{qid!r}][{did!r}]") for did, grade in judged.items())
            elif isinstance(judged, (list, tuple, set)):
                rows.extend((qid, did, 1, f"qrels[{qid!r}]") for did in judged)
            else:
                raise TypeError(f"qrels[{qid!r}] must be a dict {{doc_id: grade}} or a list of relevant doc ids; "
                                f"got {type(judged).__name__}")
    elif isinstance(value, (list, tuple)):
        for n, item in enumerate(value):
            if not isinstance(item, (tuple, list)) or len(item) not in (2, 3):
                raise TypeError(f"qrels {n}: expected (query_id, doc_id) or (query_id, doc_id, grade); got {item!r}")
            rows.append((item[0], item[1], item[2] if len(item) == 3 else 1, f"qrels {n}"))
    else:
        raise TypeError(f"qrels must be a path, a dict {{query_id: {{doc_id: grade}}}}, a list of "
                        f"(query_id, doc_id[, grade]) tuples or a DataFrame; got {type(value).__name__}")
    judgments = []
    for qid, did, grade, where in rows:
        grade = _grade(grade, where)
        judgments.append((_memory_id(qid, where), _memory_id(did, where), grade, grade >= 1, where))
    return judgments
