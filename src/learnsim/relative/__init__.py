"""A weighted distance learned from relative comparisons (Schultz & Joachims, paper 004); the
estimator lives in ``_relative``.

References
----------
.. [1] M. Schultz and T. Joachims, "Learning a Distance Metric from Relative Comparisons",
   Advances in Neural Information Processing Systems 16 (NIPS 2003), MIT Press, 2004 (paper
   004 in ../shared/papers).
"""
# The names load on first use (learnsim._utils.lazy): a light helper of this package imported
# alone does not load the rest.
from .._utils.lazy import attach

__all__ = ["HAVE_NUMBA", "RelativeComparisonMetric", "anchor_means", "select_C", "triplet_outcomes"]

__getattr__, __dir__ = attach(__name__, {"HAVE_NUMBA": "._relative",
    "RelativeComparisonMetric": "._relative", "anchor_means": "._relative", "select_C": "._relative",
    "triplet_outcomes": "._relative"})
