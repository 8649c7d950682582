"""An array of (source, target) index pairs given as LinkLearn's or LearnedBM25's ``links`` was
refused as 'adjacency must be square (n_items, n_items); got shape (3, 2)', naming an argument
the call does not have and not the way to give such pairs (helper h-api's sweep of the API)."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from learnsim.linklearn import LearnedBM25, LinkLearn
from learnsim.supervision import Links

X = sp.csr_matrix(np.array([[1, 2, 0, 0], [0, 1, 1, 0], [1, 0, 0, 2], [0, 0, 1, 1], [2, 0, 1, 0], [0, 1, 0, 1]],
                           dtype=np.float64))
EDGES = np.array([[0, 1], [2, 3], [4, 5]])


@pytest.mark.parametrize("estimator", [LinkLearn(max_iter=1, random_state=0), LearnedBM25(max_evaluations=1)])
def test_an_edge_array_is_refused_by_its_name_with_the_way_to_give_it(estimator):
    with pytest.raises(ValueError, match=r"^links is an array of shape \(3, 2\).*Links\.from_edges\(links, n_items=6\)"):
        estimator.fit(X, EDGES)


def test_a_square_adjacency_and_links_still_fit():
    links = Links.from_edges(EDGES, n_items=6)
    for given in (links, links.adjacency, links.adjacency.toarray()):
        LinkLearn(max_iter=1, random_state=0, baseline_holdout=None).fit(X, given)
