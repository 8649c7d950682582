"""FILM (Tang & Aw, paper 001): a low-rank metric learned from triplets on the Stiefel manifold.

- ``_film``: the estimator :class:`FILM`; ``_blocks``: its anchors' constant terms;
- :mod:`learnsim.film.stiefel`: the optimiser on St(n, p);
- :mod:`learnsim.film.hybrid`: the learned cosine mixed with the input cosine;
- ``_search_weight``: that mixture's weight chosen for search (:class:`SearchRule`), and the
  weight of a lexical cosine mixed with a dense encoder's scoring (:func:`choose_lexical_weight`).

References
----------
.. [1] X. Tang and A. Aw, "FILM: A Fast, Interpretable, and Low-rank Metric Learning Approach
   for Sentence Matching", arXiv preprint, 2020 (paper 001 in ../shared/papers).
"""
# The names load on first use (learnsim._utils.lazy): a light helper of this package imported
# alone does not load the rest.
from .._utils.lazy import attach

__all__ = ["FILM", "FilmObjective", "SearchRule", "choose_svd_rank", "trim_svd", "choose_lexical_weight",
           "LEXICAL_WEIGHT_GRID", "LEXICAL_KINDS"]

__getattr__, __dir__ = attach(__name__, {"FILM": "._film", "FilmObjective": "._film", "SearchRule": "._search_weight",
                                         "choose_svd_rank": "._film", "trim_svd": "._film",
                                         "choose_lexical_weight": "._search_weight",
                                         "LEXICAL_WEIGHT_GRID": "._search_weight",
                                         "LEXICAL_KINDS": "._search_weight"})
