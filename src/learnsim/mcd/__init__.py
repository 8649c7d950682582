"""The minimum-cluster-distortion metric (Mochihashi, Kikui & Kita, paper 000): a Mahalanobis
metric learned from clusters. The estimator lives in ``_mcd``; its linear algebra in ``_linalg``
and the sampled leave-one-out check of its parameter search in ``_fold_sampling``.

References
----------
.. [1] D. Mochihashi, G. Kikui and K. Kita, "Learning Nonstructural Distance Metric by Minimum
   Cluster Distortions", Proceedings of the 2004 Conference on Empirical Methods in Natural
   Language Processing (EMNLP), 2004 (paper 000 in ../shared/papers).
"""
# The names load on first use (learnsim._utils.lazy): a light helper of this package imported
# alone does not load the rest.
from .._utils.lazy import attach

__all__ = ["DEFAULT_BASIS_GRID", "DEFAULT_COMPLEMENT_GRID", "DEFAULT_HOLDOUT", "DEFAULT_SHRINKAGE_GRID", "MinimumClusterDistortion", "PAPER_PARAMS",
           "scatter_solver"]

__getattr__, __dir__ = attach(__name__, {"DEFAULT_BASIS_GRID": "._mcd", "DEFAULT_COMPLEMENT_GRID": "._mcd",
    "DEFAULT_HOLDOUT": "._mcd", "DEFAULT_SHRINKAGE_GRID": "._mcd", "MinimumClusterDistortion": "._mcd",
    "PAPER_PARAMS": "._mcd", "scatter_solver": "._mcd"})
