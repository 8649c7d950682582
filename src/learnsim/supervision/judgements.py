"""Relevance judgements (qrels) over a collection as supervision: (query, document, grade).

What a retrieval collection gives (BEIR's ``qrels/train.tsv``, TREC qrels, a click log turned into
judgements): queries, the documents judged for each with a grade, and the collection. A
:class:`Judgements` is :class:`Pairs` whose labels say relevant (grade > 0) and which keeps the
grades themselves (nDCG's gains in the search check, and their order for the learners that use
it). :func:`judgements_from` builds one from the three mappings a user has, the queries and the
documents as texts with ids.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

from .._utils.inputs import MAX_GRADE, id_by_value, short_repr
from .pairs import Pairs

__all__ = ["Judgements", "judgements_from", "relevance_grades"]


class Judgements(Pairs):
    """Judged ``(query, document)`` pairs with their grades: labels are ``grade > 0``.

    Parameters
    ----------
    indices : array-like of int, shape (n_pairs, 2)
        ``(query, document)`` row indices.
    grades : array-like of float, shape (n_pairs,)
        The judgement's level: > 0 relevant (the gain of nDCG), 0 or below not relevant.

    Examples
    --------
    >>> from learnsim.supervision import Judgements
    >>> j = Judgements([[3, 0], [3, 1], [4, 2]], grades=[2, 0, 1])
    >>> j
    Judgements(n_pairs=3, n_relevant=2, graded)
    >>> j.labels.tolist(), j.grades.tolist()
    ([True, False, True], [2.0, 0.0, 1.0])
    """

    __slots__ = ("_grades",)

    def __init__(self, indices, grades):
        g = np.asarray(grades, dtype=np.float64)
        if g.ndim != 1 or not np.isfinite(g).all():
            raise ValueError("grades must be finite numbers, one per judged pair")
        n = len(indices) if hasattr(indices, "__len__") else None
        if n is not None and g.size != n:
            raise ValueError(f"grades has {g.size} entries but indices has {n} pairs")
        super().__init__(indices, labels=g > 0)
        g = g.copy()
        g.flags.writeable = False
        self._grades = g

    @property
    def grades(self):
        """Float array of each pair's grade (relevant when > 0)."""
        return self._grades

    @property
    def is_multilevel(self):
        """Whether the relevant pairs have more than one grade."""
        return np.unique(self._grades[self._grades > 0]).size > 1

    def __repr__(self):
        return (f"Judgements(n_pairs={self.n_pairs}, n_relevant={int(self.labels.sum())}"
                f"{', graded' if self.is_multilevel else ''})")


def relevance_grades(pairs):
    """Each pair's relevance as search supervision grades it: a :class:`Judgements`' grades (those
    below 0 as 0), else 1.0 for a pair labelled similar and 0.0 for one labelled not."""
    if isinstance(pairs, Judgements):
        return np.asarray(pairs.grades, dtype=np.float64).clip(min=0.0)
    return np.asarray(pairs.labels, dtype=np.float64)


def _items(mapping, name):
    if isinstance(mapping, Mapping):
        return list(mapping.items())
    if hasattr(mapping, "items") and hasattr(mapping, "index") and hasattr(mapping, "ndim") and mapping.ndim == 1:
        # a pandas Series of texts keyed by their ids: its items, as a dict's (iterated, its texts)
        return list(mapping.items())
    if isinstance(mapping, (str, bytes)):
        raise TypeError(f"{name} must be a mapping {{id: text}} or a sequence of (id, text) pairs; got a single str")
    try:
        given = list(mapping)
        if not any(isinstance(item, (str, bytes)) for item in given):
            items = [tuple(item) for item in given]
    except TypeError:
        raise TypeError(f"{name} must be a mapping {{id: text}} or a sequence of (id, text); "
                        f"got {type(mapping).__name__}") from None
    if any(isinstance(item, (str, bytes)) for item in given):
        # a text read as an (id, text) pair: "ok" was document "o" with the text "k"
        raise TypeError(f"{name} must be a mapping {{id: text}} or a sequence of (id, text) pairs; got a "
                        f"{type(mapping).__name__} of texts, which has no ids: give dict(zip(ids, texts))")
    if any(len(item) != 2 for item in items):
        raise ValueError(f"{name}: each item must be an (id, text) pair")
    return items


def _texts_by_id(mapping, name):
    """{id: text} of a mapping or a sequence of (id, text), ids as str, each text checked."""
    out = {}
    for key, text in _items(mapping, name):
        if isinstance(key, bool) or not isinstance(key, (str, numbers.Integral)) or not str(key).strip():
            raise ValueError(f"{name}: an id must be a non-empty string or an integer; got {key!r}")
        if not isinstance(text, str):
            raise TypeError(f"{name}[{key!r}]: the text must be a str; got {type(text).__name__}")
        key = str(key).strip()
        if key in out:
            raise ValueError(f"{name}: the id {key!r} appears twice")
        out[key] = text
    if not out:
        raise ValueError(f"{name} is empty")
    return out


def _finite(grade):
    """Whether a number grade is finite and within +-MAX_GRADE (an integer of hundreds of digits
    cannot become a float: OverflowError)."""
    try:
        return bool(np.isfinite(float(grade))) and abs(float(grade)) <= MAX_GRADE + 1
    except OverflowError:
        return False


def _refuse_ids_equal_by_value(ids, name):
    """A ValueError where two ids of ``ids`` are one to the judgements ("007" and "7"): their
    judgements would be merged into one query's (or document's), silently."""
    seen = {}
    for key in ids:
        first = seen.setdefault(id_by_value(key), key)
        if first != key:
            raise ValueError(f"{name}: the ids {short_repr(first)} and {short_repr(key)} are one id to the judgements "
                             "(an all-digit id is read without its leading zeros); rename one")


def judgements_from(queries, qrels, corpus):
    """The texts and :class:`Judgements` of relevance judgements over a collection.

    Parameters
    ----------
    queries : mapping {query id: text} or sequence of (id, text)
        Or a pandas Series of the texts indexed by their ids. A list of texts, which has no
        ids, is a TypeError.
    qrels : mapping {query id: {document id: grade}}
        As :func:`learnsim.datasets.read_qrels` returns; a grade > 0 is relevant, 0 (or below)
        judged not relevant.
    corpus : mapping {document id: text} or sequence of (id, text)
        As ``queries``.

    Returns
    -------
    texts : list of str
        The corpus' texts (in its order), then the text of each query with a judgement on it.
    judgements : Judgements
        ``(query, document)`` indices into ``texts``.
    documents : ndarray of int
        The corpus' positions in ``texts`` (``0 .. len(corpus) - 1``).
    counts : dict
        ``queries`` (with a judgement kept), ``relevant`` and ``not_relevant`` judgements, and what
        was left out: judgements naming an ``unknown_document`` or an ``unknown_query``, and
        ``queries_without_relevant`` (queries none of whose judged documents is relevant; their
        judgements are kept as negatives only when the query has a relevant one).

    Raises
    ------
    ValueError
        No judgement names a known query and a known document with a grade > 0, an id is empty
        or repeated, a grade is not a number.

    Examples
    --------
    >>> from learnsim.supervision import judgements_from
    >>> texts, j, docs, counts = judgements_from(
    ...     {"q1": "reset password"}, {"q1": {"d1": 2, "d2": 0, "d9": 1}},
    ...     {"d1": "how to reset a password", "d2": "refund a charge"})
    >>> texts
    ['how to reset a password', 'refund a charge', 'reset password']
    >>> j.indices.tolist(), j.grades.tolist(), counts["unknown_document"]
    ([[2, 0], [2, 1]], [2.0, 0.0], 1)
    """
    queries = _texts_by_id(queries, "queries")
    corpus = _texts_by_id(corpus, "corpus")
    if not isinstance(qrels, Mapping):
        raise TypeError(f"qrels must be a mapping {{query id: {{document id: grade}}}}; got {type(qrels).__name__}")
    for name, ids in (("corpus", corpus), ("queries", queries)):
        _refuse_ids_equal_by_value(ids, name)
    doc_position = {}
    for i, key in enumerate(corpus):
        doc_position.setdefault(key, i)
        doc_position.setdefault(id_by_value(key), i)
    query_of = {}
    for key in queries:
        query_of.setdefault(key, key)
        query_of.setdefault(id_by_value(key), key)
    texts = list(corpus.values())
    rows, grades = [], []
    counts = {"queries": 0, "relevant": 0, "not_relevant": 0, "unknown_document": 0, "unknown_query": 0,
              "queries_without_relevant": 0}
    # each query's judgements gathered first: two keys of qrels may be one query (or one document)
    # by value ("007" and "7"); judged twice, a pair was taken as relevant and not relevant at
    # once, and a query's negatives under the other key were dropped as a query without a relevant one
    judged_of = {}
    for qid, judged in qrels.items():
        if not isinstance(judged, Mapping):
            raise TypeError(f"qrels[{qid!r}] must be a mapping {{document id: grade}}; got {type(judged).__name__}")
        key = query_of.get(str(qid).strip(), query_of.get(id_by_value(str(qid).strip())))
        if key is None:
            counts["unknown_query"] += len(judged)
            continue
        mine = judged_of.setdefault(key, {})
        for doc, grade in judged.items():
            if isinstance(grade, bool) or not isinstance(grade, numbers.Real) or not _finite(grade):
                raise ValueError(f"qrels[{short_repr(qid)}][{short_repr(doc)}]: a grade must be a number, finite "
                                 f"and at most {MAX_GRADE:,} in size; got {short_repr(grade)}")
            d = doc_position.get(str(doc).strip(), doc_position.get(id_by_value(str(doc).strip())))
            if d is None:
                counts["unknown_document"] += 1
                continue
            if d in mine and mine[d] != float(grade):
                raise ValueError(f"qrels[{short_repr(qid)}][{short_repr(doc)}]: query {short_repr(key)}, document "
                                 f"{short_repr(list(corpus)[d])} judged again with grade {grade} (earlier {mine[d]:g}); "
                                 "its ids are one by value (an all-digit id is read without its leading zeros)")
            mine[d] = float(grade)
    query_row = {}
    for key, mine in judged_of.items():
        if not any(g > 0 for g in mine.values()):
            counts["queries_without_relevant"] += 1
            continue
        if not queries[key].strip():
            # fitted on as a text of no words, it was said only as "1 of 92 training documents are
            # empty after tokenisation"; search refuses such a query
            raise ValueError(f"queries[{short_repr(key)}]: the text is empty (or white space only) and {len(mine)} "
                             f"judgement{'s name' if len(mine) != 1 else ' names'} it: a query of no words searches for "
                             "nothing; give its text or leave its judgements out")
        query_row[key] = len(texts)
        texts.append(queries[key])
        for d, g in mine.items():
            rows.append((query_row[key], d))
            grades.append(g)
            counts["relevant" if g > 0 else "not_relevant"] += 1
    if not rows:
        raise ValueError("no judgement names a known query and a known document with a grade > 0 (relevant): "
                         f"{counts['unknown_query']} name an unknown query, {counts['unknown_document']} an unknown "
                         "document")
    counts["queries"] = len(query_row)
    return texts, Judgements(np.asarray(rows, dtype=np.int64), grades), np.arange(len(corpus)), counts
