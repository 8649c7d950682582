"""benchmarks/bench_index.py compares learnsim's top 10 with its peers' (issue 46, part 4): the
same answer is the same scores rank by rank, with ties at a place broken either way
(``same_answers``); its ``plain-bm25`` model is BM25 at bm25s's constants, Lucene's idf
included, whose scores are the Lucene formula's times k1 + 1."""
import math
import sys
from collections import Counter

import numpy as np
import pytest

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
from bench_index import SCORE_SCALE, same_answers  # noqa: E402


def test_identical_lists_are_the_same_answer():
    assert same_answers(["a", "b"], [2.0, 1.0], ["a", "b"], [2.0, 1.0])
    assert same_answers([], [], [], [])


def test_a_tie_broken_the_other_way_is_the_same_answer():
    # two documents tied inside the list, and a third tied with them at the last place
    assert same_answers(["a", "b", "c"], [3.0, 1.0, 1.0], ["a", "c", "b"], [3.0, 1.0, 1.0])
    assert same_answers(["a", "b", "c"], [3.0, 2.0, 1.0], ["a", "b", "d"], [3.0, 2.0, 1.0 + 1e-7])


def test_different_scores_or_documents_are_not_the_same_answer():
    assert not same_answers(["a", "b", "c"], [3.0, 2.0, 1.0], ["a", "b", "d"], [3.0, 2.0, 0.9])
    # the same scores rank by rank, but b and c swapped where they are not tied
    assert not same_answers(["a", "b", "c"], [3.0, 2.0, 1.0], ["a", "c", "b"], [3.0, 2.0, 1.0])
    assert not same_answers(["a", "b"], [2.0, 1.0], ["a"], [2.0])


def test_a_constant_scale_is_taken_out():
    # a tie broken the other way is recognised only once the peer's scores are on learnsim's scale
    assert same_answers(["a", "b", "c"], [5.0, 2.5, 2.5], ["a", "c", "b"], [2.0, 1.0, 1.0], scale=2.5)
    assert not same_answers(["a", "b", "c"], [5.0, 2.5, 2.5], ["a", "c", "b"], [2.0, 1.0, 1.0])


def _lucene_bm25(docs, query, k1=1.5, b=0.75):
    """bm25s's default scoring (method and idf "lucene"), written out."""
    n = len(docs)
    avgdl = sum(len(d) for d in docs) / n
    df = Counter(t for d in docs for t in set(d))
    out = []
    for d in docs:
        tf = Counter(d)
        out.append(sum(math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) * tf[t]
                       / (tf[t] + k1 * (1 - b + b * len(d) / avgdl)) for t in set(query) if tf[t]))
    return np.array(out)


def test_plain_bm25_scores_are_lucene_bm25_times_k1_plus_1(tmp_path):
    from learnsim._baseline_models import _term_counts
    from learnsim.index import Index
    from learnsim.linklearn import LearnedBM25
    from learnsim.pipeline import Pipeline

    rng = np.random.default_rng(0)
    words = [f"w{i:03d}" for i in range(60)]
    docs = [list(rng.choice(words, size=int(rng.integers(3, 30)), p=None)) for _ in range(80)]
    texts = [" ".join(d) for d in docs]
    # the bench's plain-bm25 model (child_fit), over the collection it searches
    p = Pipeline(_term_counts(texts), LearnedBM25.from_params(k1=1.5, b=0.75, idf="lucene"))
    index = Index.build(tmp_path / "plain", p, texts, [str(i) for i in range(len(texts))], ann="exact")
    for query in (["w001", "w002"], ["w010", "w020", "w030"], ["w059"]):
        expected = _lucene_bm25(docs, query)
        hits = index.search(" ".join(query), k=len(texts))
        got = {int(h["id"]): h["score"] for h in hits}
        matched = [i for i in range(len(texts)) if expected[i] > 0]
        assert matched and all(i in got for i in matched)
        np.testing.assert_allclose([got[i] for i in matched], SCORE_SCALE["plain-bm25"] * expected[matched],
                                   rtol=1e-5)
