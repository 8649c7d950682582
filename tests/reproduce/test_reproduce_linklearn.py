"""The quick reproduction of paper 002 (LinkLearn) end to end, and split_links / TermWeightIndex."""
import json

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import require_corpus
from learnsim.text.bm25 import BM25, TermWeightIndex
from learnsim.reproduce import EXPERIMENTS
from learnsim.reproduce.records import FIELDS, MEASURES
from learnsim.supervision import Links, split_links


def test_linklearn_is_registered():
    assert EXPERIMENTS["linklearn"] == "learnsim.reproduce.linklearn"


def test_split_links_keeps_only_links_inside_each_part():
    rng = np.random.default_rng(0)
    edges = rng.integers(0, 60, size=(400, 2))
    edges = edges[edges[:, 0] != edges[:, 1]]
    links = Links.from_edges(edges, 60)
    parts = split_links(links, random_state=1)
    members = [m for m, _ in parts]
    assert sorted(np.concatenate(members).tolist()) == list(range(60))
    assert [m.size for m in members] == [20, 20, 20]
    A = links.adjacency.toarray()
    kept = 0
    for m, sub in parts:
        np.testing.assert_array_equal(sub.adjacency.toarray(), A[np.ix_(m, m)])
        kept += sub.n_links
    crossing = links.n_links - kept
    assert crossing > 0                                   # some links crossed parts and were dropped
    again = split_links(links, random_state=1)
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(parts, again))


def test_split_links_errors():
    links = Links.from_edges(np.array([[0, 1]]), 6)
    with pytest.raises(ValueError, match="no link inside"):
        split_links(links, random_state=0)
    with pytest.raises(ValueError, match="summing to 1"):
        split_links(links, (0.5, 0.4))
    with pytest.raises(TypeError, match="Links"):
        split_links(np.eye(3))


def test_term_weight_index_scores_like_bm25():
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.poisson(0.3, size=(50, 40)).astype(float))
    Q = sp.csr_matrix(rng.poisson(0.2, size=(7, 40)).astype(float))
    bm25 = BM25().fit(X)
    index = TermWeightIndex().fit(bm25.document_weights_.tocsr())
    np.testing.assert_allclose(index.score(Q), bm25.score(Q), rtol=1e-6)
    i1, s1 = index.search(Q, 5)
    i2, s2 = bm25.search(Q, 5)
    np.testing.assert_array_equal(i1, i2)
    with pytest.raises(ValueError):
        index.score(Q[:, :-1])


@pytest.mark.corpus
@pytest.mark.slow
def test_quick_linklearn_reproduction(tmp_path):
    for corpus in ("wikispeedia/wikispeedia-articles-links.tar.gz", "ir/cisi", "ir/cran"):
        require_corpus(corpus)
    from conftest import shared_data_dir
    from learnsim.reproduce import run
    res = run("linklearn", quick=True, out_dir=tmp_path, data_dir=shared_data_dir())
    records = json.loads((tmp_path / "linklearn.json").read_text())
    assert records and all(set(r) == set(FIELDS) and r["measure"] in MEASURES for r in records)
    value = lambda exp, method, measure: res.value(experiment=exp, setting="test", method=method, measure=measure)
    for method in ("linklearn-doc", "linklearn", "bm25-tuned", "bm25-paper", "tfidf-cosine"):
        for measure in ("ap", "p@10", "bep", "error_rate"):
            assert 0.0 < value("wikispeedia", method, measure) < 1.0
    # tuning K and B on validation must not lose to the paper's constants by much on test
    assert value("wikispeedia", "bm25-tuned", "ap") > value("wikispeedia", "bm25-paper", "ap") - 0.02
    for name in ("cisi", "cran"):
        for method in ("linklearn", "bm25-default", "bm25-tuned-wiki", "tfidf-cosine"):
            assert 0.05 < value(name, method, "ap") < 0.6
    report = (tmp_path / "linklearn.md").read_text()
    assert "Table 4 analogue" in report and "Table 5 analogue" in report and "Wilcoxon" in report
    # eq. (5) is in-domain: on the short abstracts it warns and names the transferable family
    assert "warns on transfer" in report and "LearnedBM25" in report
    for png in ("linklearn_validation.png", "linklearn_weights.png"):
        assert (tmp_path / png).stat().st_size > 0
