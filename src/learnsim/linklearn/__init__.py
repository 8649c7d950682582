"""LinkLearn (Grangier & Bengio, paper 002): a term weighting learned from hyperlinks, and
:class:`LearnedBM25`, the weighting that contains Okapi BM25 and transfers across collections.
``_linklearn`` holds the estimator, ``_step`` the inner parts of its training step,
``_weighting`` LearnedBM25.

References
----------
.. [1] D. Grangier and S. Bengio, "Inferring Document Similarity from Hyper-links", IDIAP
   Research Report IDIAP-RR 05-21, IDIAP, Martigny, Switzerland, 2005 (paper 002 in
   ../shared/papers).
"""
# The names load on first use (learnsim._utils.lazy): a light helper of this package imported
# alone does not load the rest.
from .._utils.lazy import attach

__all__ = ["CollectionShiftWarning", "CosineIndex", "LinkLearn", "SHIFT_LENGTH_FACTOR", "SHIFT_MIN_OVERLAP", "document_lengths", "idf_from_counts", "link_hinge_loss", "tfidf_cosine_weights", "LearnedBM25", "PARAMETER_BOUNDS", "PARAMETER_NAMES", "PowerQueryIndex", "plot_weighting_curves"]

__getattr__, __dir__ = attach(__name__, {"CollectionShiftWarning": "._linklearn",
    "CosineIndex": "._linklearn", "LinkLearn": "._linklearn", "SHIFT_LENGTH_FACTOR": "._linklearn",
    "SHIFT_MIN_OVERLAP": "._linklearn", "document_lengths": "._linklearn", "idf_from_counts": "._linklearn",
    "link_hinge_loss": "._linklearn", "tfidf_cosine_weights": "._linklearn", "LearnedBM25": "._weighting",
    "PARAMETER_BOUNDS": "._weighting", "PARAMETER_NAMES": "._weighting", "PowerQueryIndex": "._weighting",
    "plot_weighting_curves": "._weighting"})
