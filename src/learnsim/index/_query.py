"""Turn query texts into an index's query rows with numpy alone: the fast path of search.

Loading the fitted pipeline imports scikit-learn (about a second), more than a whole search may
take. So an index also stores the query side of its pipeline as a *plan*: the tokenizer, the
vocabulary, the vectoriser's weighting and the model's map to query rows, as JSON and ``.npy``
arrays (``query/``). :func:`learnsim.index._plan.build_plan` writes it and checks, on texts of
the collection, that it gives the pipeline's query rows (to 1e-6 of their scale); a pipeline it
cannot express (an LSI vectoriser with a non-linear model, a kernel relative metric, ...) gets
no plan and the index uses the pipeline itself.

The steps mirror :class:`learnsim.text.TextVectorizer` (``transform``, role "document", as
``learnsim search`` vectorises queries) and :class:`learnsim.scorer.Scorer` (``query_rows``).
"""
from __future__ import annotations

import inspect
import math
from pathlib import Path

import numpy as np

from ..text import LATER_READINGS, Tokenizer, check_dictionary
from ..text._term_stream import term_batches

__all__ = ["QueryPlan", "QueryRows"]


class QueryRows:
    """Rows of a batch of queries: ``sparse[i]`` = (term ids, weights) or None, ``dense`` (m, d)
    or None, ``sq`` (m,) or None."""

    def __init__(self, sparse, dense, sq):
        self.sparse, self.dense, self.sq = sparse, dense, sq

    def __len__(self):
        return len(self.sparse)

    def row(self, i):
        return (self.sparse[i], None if self.dense is None else self.dense[i],
                None if self.sq is None else float(self.sq[i]))

    def blank(self):
        """Per query, whether its row is zero in every part: no word (or feature) of its text is
        one the model knows, so every document would score the same and any k of them would be
        an arbitrary answer. A search gives such a query no hits, as Elasticsearch and Pyserini
        do for a query that matches no document (bm25s returns k documents scoring 0)."""
        dense = None if self.dense is None else np.any(self.dense != 0, axis=1).tolist()
        out = []
        for i, s in enumerate(self.sparse):
            out.append(not ((s is not None and s[1].size and s[1].any())
                            or (dense is not None and dense[i])
                            or (self.sq is not None and self.sq[i] != 0)))
        return out

    @classmethod
    def from_rows(cls, rows):
        """From a :class:`learnsim.scorer.Rows` (CSR sparse part)."""
        m = rows.n_rows
        sparse = [None] * m
        if rows.sparse is not None:
            S = rows.sparse.tocsr()
            for i in range(m):
                lo, hi = S.indptr[i], S.indptr[i + 1]
                sparse[i] = (np.asarray(S.indices[lo:hi], dtype=np.int64), np.asarray(S.data[lo:hi], dtype=np.float64))
        dense = None if rows.dense is None else np.asarray(rows.dense, dtype=np.float64)
        sq = None if rows.sq is None else np.asarray(rows.sq, dtype=np.float64)
        return cls(sparse, dense, sq)


def _unit(vals):
    n = math.sqrt(float(vals @ vals))
    return vals / n if n > 0 else vals


# the keys of a plan's "tokenizer": Tokenizer's keywords (learnsim.index._plan writes them)
_TOKENIZER_KEYS = frozenset(inspect.signature(Tokenizer).parameters)


class QueryPlan:
    """The query side of a pipeline, applied with numpy (see the module notes)."""

    def __init__(self, meta, arrays, terms):
        self.meta, self.arrays = meta, arrays
        tok = meta["tokenizer"]
        unknown = sorted(set(tok) - _TOKENIZER_KEYS) if isinstance(tok, dict) else None
        if unknown:
            # a setting of how text is read that this learnsim does not know (a newer one wrote
            # the plan): reading queries without it would silently give other terms
            from ._segments import IndexFormatError

            raise IndexFormatError(f"the index's query plan reads text with settings this learnsim does not know "
                                   f"({', '.join(map(str, unknown))}): it was written by a newer learnsim; upgrade learnsim")
        # the vectoriser's own tokenizer (learnsim._tokenize imports no scikit-learn); the stop
        # words were saved as a list, so "english" needs no scikit-learn either
        self.tokenizer = Tokenizer(lowercase=bool(tok["lowercase"]), token_pattern=tok["token_pattern"],
                                   stop_words=tok["stop_words"], stem=tok["stem"],
                                   ngram_range=tuple(tok["ngram_range"]),
                                   # an index planned before the analyzer was recorded: the token pattern alone
                                   analyzer=tok.get("analyzer", "words"), cjk_unigrams=bool(tok.get("cjk_unigrams")),
                                   # and before unicode_words: words cut at combining marks
                                   unicode_words=bool(tok.get("unicode_words", False)),
                                   # and before a later reading: without it
                                   **{name: bool(tok.get(name, False)) for name in LATER_READINGS})
        # a plan written before the dictionary was recorded: nothing said
        try:
            check_dictionary(self.tokenizer.analyzer, meta.get("dictionary"), "the index's model")
        except ValueError as exc:
            from ._segments import IndexFormatError

            raise IndexFormatError(f"the index's query plan: {exc}") from None
        self.terms = [str(t) for t in terms]
        self.vocabulary = {t: i for i, t in enumerate(terms)}
        self.n_terms = len(terms)
        # a FILM mixing the input cosine over the searched collection's vocabulary with its learned
        # cosine, whose map is over the training vocabulary (issue 32): that vectoriser too
        learned = meta.get("model", {}).get("learned")
        self.learned = None if learned is None else QueryPlan(
            dict(meta, weighting=learned["weighting"], model={"op": "learned"}),
            {"idf": arrays["learned_idf"]} if "learned_idf" in arrays else {}, learned["terms"])

    @classmethod
    def load(cls, directory, checksums=None, required=False):
        """The plan written in ``directory``, each file checked against ``checksums`` ({file
        name: sha256}, as the manifest records them; None: not recorded) before it is used.

        Raises IndexDamagedError naming a file that does not match, is missing from ``checksums``
        where ``required``, or is not the JSON or ``.npy`` it must be."""
        from ._segments import IndexDamagedError, load_json, load_npy

        directory = Path(directory)
        checksums = checksums or {}

        def digest(name):
            if required and name not in checksums:
                raise IndexDamagedError(directory / name, "the manifest records no sha256 of it")
            return checksums.get(name)

        meta = load_json(directory / "plan.json", digest("plan.json"))
        terms = load_json(directory / "terms.json", digest("terms.json"))
        if not isinstance(meta, dict) or not isinstance(meta.get("arrays"), list):
            raise IndexDamagedError(directory / "plan.json", "it is not a query plan's description")
        if not isinstance(terms, list):
            raise IndexDamagedError(directory / "terms.json", "it is not a list of terms")
        arrays = {}
        for name in meta["arrays"]:
            if not isinstance(name, str) or "/" in name or "\\" in name or name.startswith("."):
                raise IndexDamagedError(directory / "plan.json", f"it names an array {name!r} that is not a plain name")
            arrays[name] = load_npy(directory / f"{name}.npy", digest(f"{name}.npy"))
        return cls(meta, arrays, terms)

    # ------------------------------------------------------------------ vectoriser
    def _vector(self, doc):
        """(ids, values) of the vectoriser's output for one text (float64 of its dtype), or a
        dense vector with LSI."""
        ids, vals = self._weighted(doc)
        if "components" in self.arrays:
            C = self.arrays["components"]
            x = np.asarray(vals.astype(C.dtype) @ C[:, ids].T, dtype=C.dtype).astype(np.float64)
            return np.arange(x.shape[0], dtype=np.int64), x
        return ids, self._rounded(vals)

    def _rounded(self, vals):
        """float64 values rounded to the vectoriser's dtype (float32: as its output holds them)."""
        dtype = self.meta["weighting"]["dtype"]
        return vals if dtype == "float64" else vals.astype(dtype).astype(np.float64)

    def word_vector(self, doc):
        """(word ids, values) of one text's weighted, normalised word vector before any LSI
        projection, in the vectoriser's dtype (as float64): what ``TextVectorizer.transform``
        gives with its ``components_`` set to None (the explanations' word vectors)."""
        ids, vals = self._weighted(doc)
        return ids, self._rounded(vals)

    def _weighted(self, doc):
        """(ids, float64 values) of one text: counted, weighted and normalised."""
        w = self.meta["weighting"]
        # counted by term id (one dictionary lookup a token; a search's query is a few words)
        vocabulary, counts = self.vocabulary, {}
        for batch in term_batches(self.tokenizer, doc):      # a long text a batch at a time
            for t in batch:
                i = vocabulary.get(t)
                if i is not None:
                    counts[i] = counts.get(i, 0) + 1
        order = sorted(counts)
        ids = np.array(order, dtype=np.int64)
        vals = np.array([counts[i] for i in order], dtype=np.float64)
        kind = w["kind"]
        if kind == "binary":
            vals = np.ones_like(vals)
        elif kind in ("tf", "tfidf"):
            if w["sublinear_tf"]:
                vals = 1.0 + np.log(vals)
            if kind == "tfidf":
                vals = vals * self.arrays["idf"][ids]
        else:   # bm25, document side
            length = vals.sum()
            row_norm = w["k1"] * (1.0 - w["b"] + w["b"] * length / w["avgdl"])
            vals = self.arrays["idf"][ids] * vals * (w["k1"] + 1.0) / (vals + row_norm)
        if w["norm"] == "l2":
            vals = _unit(vals)
        return ids, vals

    # ------------------------------------------------------------------ the model's query rows
    def rows(self, texts):
        """:class:`QueryRows` of the texts."""
        m = self.meta["model"]
        op = m["op"]
        sparse, dense, sq = [], [], []
        for text in texts:
            ids, x = self._vector(text)
            s = d = q = None
            if op == "binary":
                keep = x != 0
                s = (ids[keep], np.ones(int(keep.sum())))
            elif op == "power":
                c = m["power"]
                keep = x != 0
                s = (ids[keep], np.ones(int(keep.sum())) if c == 0.0 else (x[keep] if c == 1.0 else x[keep] ** c))
            elif op == "bm25_normalised":
                # normalised BM25 alone (learnsim.scorer): each word lambda / Z(q), Z(q) = (k1 + 1)
                # x the sum of its words' idf (BM25 left undivided where Z <= 0)
                keep = x != 0
                z = (m["k1"] + 1.0) * float(self.arrays["bm25_idf"][ids[keep]].sum())
                s = (ids[keep], np.full(int(keep.sum()), m["weight"] / (z if z > 0 else 1.0)))
            elif op == "tfidf_cosine":
                keep = x != 0
                s = (ids[keep], _unit(x[keep] * self.arrays["idf"][ids[keep]]))
            elif op == "cosine":
                w = m["input_weight"]
                if w != 1.0:
                    L = self.arrays["map"]          # (k, n_inputs)
                    lids, lx = (ids, x) if self.learned is None else self.learned._vector(text)
                    e = _unit(L[:, lids] @ lx)
                    d = e if w is None else np.sqrt(1.0 - w) * e
                if w is not None:
                    s = (ids, np.sqrt(w) * _unit(x))
            elif op == "mcd":
                pos = self.arrays["active_position"][ids]          # -1: not an active feature
                act = pos >= 0
                F, weights, beta = self.arrays["factor"], self.arrays["weights"], m["beta"]
                p = F[pos[act]].T @ x[act] if F.shape[1] else np.zeros(0)
                if beta == 0.0:
                    d = p * np.sqrt(weights)
                    q = float(np.dot(d, d))
                else:
                    sv = np.sqrt(beta) * x
                    s = (ids, sv)
                    d = p * (weights - beta)
                    q = float(np.dot(sv, sv)) + float(np.dot(p * p, weights - beta))
            elif op == "diagonal":
                sv = np.sqrt(self.arrays["weights"][ids]) * x
                if m.get("normalize", False):
                    # RelativeComparisonMetric(normalize=True): the unit row (a zero row stays 0)
                    sv = _unit(sv)
                s = (ids, sv)
                q = float(np.dot(sv, sv))
            else:
                raise ValueError(f"unknown query plan operation {op!r}")
            sparse.append(s)
            dense.append(d)
            sq.append(q)
        D = None if not dense or dense[0] is None else dense[0][None] if len(dense) == 1 else np.vstack(dense)
        Q = None if not sq or sq[0] is None else np.asarray(sq, dtype=np.float64)
        return QueryRows(sparse, D, Q)
