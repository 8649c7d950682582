"""The judged hand-written collections' measure: how well the lexical baselines, reading a given
language, rank a small collection for its judged queries (tests/baseline/test_lexical_*.py)."""
import numpy as np

from learnsim.baseline import LexicalBaselines, ndcg_at_k


def mean_ndcg(documents, judged, language, name="bm25", k=10):
    """Mean nDCG@k of the ``judged`` queries (``(query, relevant positions)``) over
    ``documents``, the baselines reading ``language``; a document sharing no term with a query is
    not found (not ranked by its place among zeros)."""
    lex = LexicalBaselines(documents, language=language)
    S = lex.scores(name, lex.query_counts([q for q, _ in judged]))
    S = np.where(S > 0, S, -np.inf)
    docs = np.broadcast_to(np.arange(len(documents)), S.shape)
    return float(np.mean(ndcg_at_k(S, docs, [{d: 1.0 for d in rel} for _, rel in judged], k=k)))


def irrelevant_reached(documents, judged, language, name="bm25"):
    """How many (query, document not judged relevant) pairs of ``judged`` score above 0 over
    ``documents``, the baselines reading ``language``."""
    lex = LexicalBaselines(documents, language=language)
    S = lex.scores(name, lex.query_counts([q for q, _ in judged]))
    return int(sum((S[i] > 0).sum() - sum(S[i, d] > 0 for d in rel) for i, (_, rel) in enumerate(judged)))
