"""The forms of supervision that learnsim's methods learn from.

Every learner takes the data ``X`` and, separately, a supervision object that refers to the
rows of ``X`` by index (as in metric-learn): the rows are never copied into the constraints,
so one matrix can serve clusters, pairs, triplets and links at once.

- :class:`Clusters`: a cluster label per item (``-1`` or ``None``: in no cluster), with optional
  per-cluster weights (the normalised weights ``xi_i / sum xi`` of the cluster-scatter metric).
- :class:`Pairs`: item pairs labelled similar/dissimilar, or graded with a score.
- :class:`Triplets`: ``(i, j, k)`` meaning "item i is closer to j than to k".
- :class:`Links`: a directed graph over the items (hyperlinks).
- :class:`Judgements`: graded relevance judgements of (query, document) pairs, the
  :class:`Pairs` of a retrieval collection (:func:`judgements_from` builds them from qrels).

The ``check_*`` functions are what estimators call on what they receive, and the converters
(:func:`clusters_to_triplets`, :func:`pairs_to_clusters`, :func:`graded_pairs_to_triplets`,
:func:`duplicate_pairs_to_triplets`, :func:`links_to_triplets`) turn one form into another for methods that need a given form.

The package is split by family: ``clusters``, ``pairs``, ``triplets`` and ``links`` (one form of
supervision each, with its ``check_*`` function), ``sampling`` (triplets drawn from labels),
``converters`` (the other converters and the splits) and ``_common`` (shared checks). Import
from :mod:`learnsim.supervision` itself; the modules are not an API.
"""
from __future__ import annotations

from ._common import NO_CLUSTER  # noqa: F401  (the label of an item in no cluster, as before the split)
from .clusters import Clusters, check_clusters
from .converters import (duplicate_pairs_to_triplets, graded_pairs_to_triplets, links_to_triplets,
                         pairs_to_clusters, split_links, split_pairs)
from .judgements import Judgements, judgements_from, relevance_grades
from .links import Links, check_links
from .pairs import Pairs, check_pairs
from .sampling import clusters_to_triplets, sample_label_triplets
from .triplets import Triplets, check_triplets

# Private names other modules import from here: the pair matchers parse labels as Pairs does.
from .pairs import _parse_pair_labels  # noqa: E402,F401

__all__ = [
    "Clusters", "Pairs", "Triplets", "Links", "Judgements", "judgements_from", "relevance_grades",
    "check_clusters", "check_pairs", "check_triplets", "check_links",
    "clusters_to_triplets", "pairs_to_clusters", "graded_pairs_to_triplets", "links_to_triplets",
    "sample_label_triplets",
    "duplicate_pairs_to_triplets", "split_pairs", "split_links",
]

# The classes keep the public module as theirs, as before the split: reprs, help() and pickles
# name learnsim.supervision.Pairs, not the file that happens to define it.
for _cls in (Clusters, Pairs, Triplets, Links, Judgements):
    _cls.__module__ = __name__
del _cls
