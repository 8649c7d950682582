"""Plain queries made from documents the learner never saw: the held-out check's view of a shift.

Why
---
The held-out queries of :func:`learnsim.baseline.validate_search` are of the kinds the judgements
hold. A learner can gain on those and lose on the queries users also type: on a collection whose
judged queries name 30 popular documents by nicknames, FILM learned the nicknames, gained on
held-out nickname queries over the tf.idf cosine (+0.008 and +0.057 nDCG@10 on seeds 0 and 1), and
searched plain queries, a few words of a document, at 0.89-0.92x BM25. The judgements cannot show
that; documents can. Each *probe* is a known-item query simulated from one document no training
pair names (Azzopardi, de Rijke and Balog 2007): a few of its words, drawn in proportion to how
often they occur in it (their "popular" model), in the order they come; its one relevant document
is the one it came from. A rule that keeps the judged queries' gain is kept only when it does not
fall below the strongest baseline on these (:func:`learnsim.baseline.check_search`).

A text without spaces between its words (Japanese, Chinese, Thai) gives a run of its characters
instead, as long as the judged queries are.

References
----------
Azzopardi, L., de Rijke, M. and Balog, K. (2007). Building simulated queries for known-item
topics: an analysis using six European languages. SIGIR 2007, 455-462.
"""
from __future__ import annotations

import numpy as np

from ._gain import _rng
from ._ties import _dcg_over_ties, _mix

#: Probes a check makes at most (shared among its folds).
MAX_PROBES = 300
#: Fewer documents to make probes from than this: no probe (an interval over a handful of
#: known-item queries says little, and a small collection is mostly judged).
MIN_PROBES = 30
# A probe's words: the judged queries' median, within these bounds.
_WORDS = (2, 8)
# A probe's characters in a text without spaces: the judged queries' median, within these bounds.
_CHARACTERS = (4, 24)
# Documents of each base score in a probe's pool (as SearchBaselines.pool).
_DEPTH = 100
_BLOCK_ENTRIES = 2 ** 22


def _lengths(query_texts):
    words = [len(t.split()) for t in query_texts]
    chars = [len("".join(t.split())) for t in query_texts]
    n_words = int(np.clip(np.median(words) if words else 3, *_WORDS))
    n_chars = int(np.clip(np.median(chars) if chars else 8, *_CHARACTERS))
    return n_words, n_chars


def probe_texts(texts, candidates, query_texts, n, random_state=0):
    """(probe texts, the index of the text each came from): up to ``n`` known-item queries, each
    from one of the texts ``candidates`` (indices into ``texts``, a seeded sample of them).

    A text of at least twice the judged queries' median number of words gives that many of its
    words, drawn without replacement in proportion to their occurrences and kept in the text's
    order; a text without such words (no spaces between them) gives a run of as many characters
    as the judged queries' median, from a random place; shorter texts give none.

    Examples
    --------
    >>> from learnsim.baseline import probe_texts
    >>> texts = ["red fox jumps over the lazy dog today", "blue whale sings", "東京都の港区にある古い寺の話です"]
    >>> probes, source = probe_texts(texts, [0, 1, 2], ["quick fox", "old temple"], 5)
    >>> sorted(zip(source.tolist(), [len(p.split()) for p in probes]))
    [(0, 2), (2, 1)]
    """
    rng = _rng(random_state)
    n_words, n_chars = _lengths(list(query_texts))
    order = rng.permutation(np.asarray(candidates, dtype=np.int64))
    out, source = [], []
    for i in order.tolist():
        if len(out) >= n:
            break
        text = texts[i]
        if not isinstance(text, str):
            continue
        words = text.split()
        if len(words) >= 2 * n_words:
            at = np.sort(rng.choice(len(words), n_words, replace=False))
            out.append(" ".join(words[j] for j in at))
        else:
            run = "".join(words)
            if len(words) > 1 or len(run) < 2 * n_chars:
                continue
            start = int(rng.integers(0, len(run) - n_chars + 1))
            out.append(run[start:start + n_chars])
        source.append(i)
    return out, np.asarray(source, dtype=np.int64)


class ProbeScores:
    """The probes of one fit ranked in their pools: each base's scores of every probe over the
    collection, kept on the union of each base's top documents (as :class:`PooledScores`).

    Parameters
    ----------
    baselines : SearchBaselines
    texts : list of str
        The probes.
    source : ndarray of int
        The text each probe came from (its one relevant document).
    learned : callable(list of str) -> {name: (n, n_documents) scores}
        The learner's bases for new texts (and "encoder" over an encoder).
    """

    def __init__(self, baselines, texts, source, learned, k=10):
        self.sources = np.asarray(source, dtype=np.int64)
        n = baselines.documents.size
        position = {int(d): i for i, d in enumerate(baselines.documents.tolist())}
        step = max(1, _BLOCK_ENTRIES // max(n, 1))
        depth = min(_DEPTH, n)
        pools, bases, relevant = [], {}, []
        for start in range(0, len(texts), step):
            block = list(texts[start:start + step])
            scores = baselines.lexical_blocks(block)
            scores.update({name: np.asarray(S, dtype=np.float64) for name, S in learned(block).items()})
            # copies: a slice kept each base's whole block of indices alive (SearchBaselines.pool)
            tops = [np.argpartition(-S, depth - 1, axis=1)[:, :depth].copy() for S in scores.values()]
            for i in range(len(block)):
                cols = np.unique(np.concatenate([t[i] for t in tops]))
                pools.append(cols)
                relevant.append(position.get(int(source[start + i]), -1))
                for name, S in scores.items():
                    bases.setdefault(name, []).append(S[i, cols])
        width = max((p.size for p in pools), default=1)
        self.gains = np.zeros((len(pools), width))
        self.columns = np.full((len(pools), width), -1, dtype=np.int64)
        self.bases = {name: np.full((len(pools), width), -np.inf) for name in bases}
        for i, cols in enumerate(pools):
            self.columns[i, :cols.size] = cols
            self.gains[i, :cols.size] = cols == relevant[i]
            for name in bases:
                self.bases[name][i, :cols.size] = bases[name][i]
        self.k = k
        self._disc = 1.0 / np.log2(np.arange(2, k + 2))

    @property
    def n_queries(self):
        return self.gains.shape[0]

    def mix(self, weights):
        """sum of weight x base (a dict {base: weight}); the pool's empty columns stay -inf."""
        return _mix(self.bases, weights, self.columns)

    def measure(self, S):
        """Per-probe nDCG@k of the scores S (its one relevant document: an ideal DCG of 1); a tie
        counts its documents' mean gain at each of its places."""
        return _dcg_over_ties(np.asarray(S, dtype=np.float64), self.gains, self._disc[:min(self.k, S.shape[1])])

    def score(self, weights):
        """Per-probe nDCG@k of a rule (its bases' weights).

        A base the rule weighs that the learner's plain-query function did not score is an error:
        taken as "no probes", it turned the plain queries' gate off, and a rule they reject was
        kept (a judged-first prior, 0.183 against 0.186 on fresh queries;
        tests/baseline/test_gate_redteam_s80.py)."""
        missing = sorted(name for name, w in weights.items() if w and name not in self.bases)
        if missing:
            raise ValueError(f"the learner's plain-query function gave no scores of the base(s) {missing} that a "
                             f"rule weighs; it must score every base its rules use (it gave {sorted(self.bases)})")
        return self.measure(self.mix(weights))


def probes_of(baselines, split, pairs, train, texts, learned, *, n=MAX_PROBES, random_state=0):
    """The :class:`ProbeScores` of a split (None: too few documents to make probes from, or no
    probe function): probes from the documents of the collection no training pair names,
    as long as the held-out queries are."""
    if learned is None:
        return None
    P = np.asarray(pairs, dtype=np.int64)
    named = np.unique(P[np.asarray(train, dtype=bool)].ravel()) if P.size else np.zeros(0, dtype=np.int64)
    candidates = np.setdiff1d(baselines.documents, named)
    if candidates.size < MIN_PROBES:
        return None
    queries = [texts[int(q)] for q in np.asarray(split.queries).tolist()]
    probes, source = probe_texts(texts, candidates, queries, n, random_state=random_state)
    if len(probes) < MIN_PROBES:
        return None
    return ProbeScores(baselines, probes, source, learned)
