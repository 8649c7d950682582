"""Evaluation: ranked retrieval, triplet constraints, clustering, pair classification and
correlation measures (``_evaluation``, on the vectors of ``_measures``), the trec_eval
measures of a run ({query: {document: score}}, in ``_measures``), and what a learned
linear metric looks at (:mod:`learnsim.evaluation.explain`).
"""
# The names load on first use (learnsim._utils.lazy): a light helper of this package imported
# alone does not load the rest.
from .._utils.lazy import attach

__all__ = ["RECALL_LEVELS", "MEASURE_NAMES", "relevance_from_labels", "per_query_measures", "retrieval_report", "cluster_retrieval_report", "average_precision", "r_precision", "precision_at_k", "interpolated_precision_at_recall", "ap11", "break_even_point", "precision_recall_curve", "triplet_accuracy", "triplet_error_rate", "constraint_error_rate", "triplet_distances", "evaluate_triplets", "pairwise_clustering_precision", "kmeans_clustering_precision", "best_threshold", "log_loss", "pair_classification_report", "pearson", "spearman", "RUN_MEASURES", "trec_ranking", "per_query_run_measures", "run_report", "run_measure_names"]

__getattr__, __dir__ = attach(__name__, {"RECALL_LEVELS": "._evaluation", "MEASURE_NAMES": "._evaluation",
    "relevance_from_labels": "._evaluation", "per_query_measures": "._evaluation",
    "retrieval_report": "._evaluation", "cluster_retrieval_report": "._evaluation",
    "average_precision": "._evaluation", "r_precision": "._evaluation", "precision_at_k": "._evaluation",
    "interpolated_precision_at_recall": "._evaluation", "ap11": "._evaluation",
    "break_even_point": "._evaluation", "precision_recall_curve": "._evaluation",
    "triplet_accuracy": "._evaluation", "triplet_error_rate": "._evaluation",
    "constraint_error_rate": "._evaluation", "triplet_distances": "._evaluation",
    "evaluate_triplets": "._evaluation", "pairwise_clustering_precision": "._evaluation",
    "kmeans_clustering_precision": "._evaluation", "best_threshold": "._evaluation",
    "log_loss": "._evaluation", "pair_classification_report": "._evaluation", "pearson": "._evaluation",
    "spearman": "._evaluation", "RUN_MEASURES": "._measures", "trec_ranking": "._measures",
    "per_query_run_measures": "._measures", "run_report": "._measures",
    "run_measure_names": "._measures"})
