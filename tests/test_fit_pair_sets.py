"""Pairs of texts given to learnsim.fit as a set were read in the set's order, which Python's
hash seed changes from one process to another: the same pairs and random_state fitted another
FILM in each run (helper h-api's sweep of the API). A set of pairs is now refused, as a set of
texts or labels is."""
from __future__ import annotations

import pytest

import learnsim

PAIRS = [("reset my password", "forgot my password", 1), ("charged twice for one order", "refund a double charge", 1),
         ("reset my password", "refund a double charge", 0), ("app crashes at start", "crash after the update", 1),
         ("forgot my password", "crash after the update", 0), ("charged twice for one order", "app crashes at start", 0)]


@pytest.mark.parametrize("form", [set, frozenset])
def test_a_set_of_pairs_is_refused(form):
    with pytest.raises(TypeError, match=r"pairs must be a list of .*got a (frozen)?set.*hash seed.*sorted"):
        learnsim.fit(pairs=form(PAIRS))

