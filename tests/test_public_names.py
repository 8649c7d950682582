"""Every public name of learnsim 0.1 is still importable from where 0.1 had it (issue 31): the
modules moved into packages (``learnsim.bm25`` is ``learnsim.text.bm25``, ``learnsim.mcd`` a
package) keep their old import paths for one release.

The table is what ``__all__`` (or, for a module without one, its public definitions) listed in
each public module at 0.1 (commit dd0080e), read by importing them.
"""
import importlib
import subprocess
import sys

import pytest

PUBLIC_0_1 = {
    'learnsim': ['Pipeline', '__version__', 'fit', 'load'],
    'learnsim.ann': ['ANNFormatError', 'ANN_BACKENDS', 'ApproximateIndex', 'FORMAT_NAME', 'FORMAT_VERSION', 'FaissIndex', 'USearchIndex', 'UnknownIdError', 'available_backends', 'load_ann', 'make_ann'],
    'learnsim.base': ['MetricMixin'],
    'learnsim.baseline': ['BaselineGain', 'BaselineWarning', 'DEFAULT_HOLDOUT', 'check_holdout', 'choose', 'compare', 'cross_fitted', 'paired_bootstrap', 'split_groups', 'unchecked'],
    'learnsim.bm25': ['BM25', 'BM25Tuning', 'DEFAULT_B_GRID', 'DEFAULT_K1_GRID', 'IDF_VARIANTS', 'PAPER_PARAMS', 'QUERY_WEIGHTS', 'TermWeightIndex', 'bm25_idf', 'tune_bm25'],
    'learnsim.cli': ['UsageError', 'build_parser', 'main'],
    'learnsim.cli.cluster': ['register', 'run'],
    'learnsim.cli.dedupe': ['register', 'run', 'write_table'],
    'learnsim.cli.demo': ['MEASURE_TITLES', 'RETRIEVAL_MEASURES', 'register', 'run'],
    'learnsim.cli.evaluate': ['MEASURE_TITLES', 'RETRIEVAL_MEASURES', 'register', 'run'],
    'learnsim.cli.explain': ['register', 'run'],
    'learnsim.cli.fit': ['MATCHER_CHOICES', 'MATCHER_HELP', 'register', 'run'],
    'learnsim.cli.index': ['ANN_CHOICES', 'CORPUS_LAYOUTS', 'open_index', 'read_corpus', 'register', 'require_duplicate_rule', 'run'],
    'learnsim.cli.match': ['PAIRS_LAYOUTS', 'candidate_pairs', 'load_matcher', 'near_duplicate_pairs', 'register', 'run'],
    'learnsim.cli.reproduce': ['register', 'run'],
    'learnsim.cli.search': ['explanation_line', 'parse_filter', 'register', 'run'],
    'learnsim.cli.serve': ['register', 'run'],
    'learnsim.datasets': ['DATA_ENV_VAR', 'DocumentFormatError', 'Documents', 'ENCODING_ERRORS', 'LinkedCorpus', 'NO_CLUSTER', 'PAIR_ROLES', 'RetrievalCollection', 'UndecodableBytesWarning', 'check_encoding_errors', 'decoded_lines', 'find_data_dir', 'load_20newsgroups', 'load_flickr8k_captions', 'load_quora_pairs', 'load_smart_collection', 'load_sts_benchmark', 'load_trec_collection', 'load_uci', 'load_webkb', 'load_wikispeedia', 'make_clustered_corpus', 'parse_columns', 'read_documents', 'read_labelled_documents', 'read_pairs', 'read_smart_collection', 'read_text'],
    'learnsim.datasets.documents': ['DocumentFormatError', 'Documents', 'NO_CLUSTER', 'read_documents', 'read_labelled_documents'],
    'learnsim.datasets.flickr': ['load_flickr8k_captions'],
    'learnsim.datasets.ir': ['RetrievalCollection'],
    'learnsim.datasets.newsgroups': ['load_20newsgroups'],
    'learnsim.datasets.pairs': ['PAIR_ROLES', 'parse_columns', 'read_pairs'],
    'learnsim.datasets.quora': ['load_quora_pairs'],
    'learnsim.datasets.smart': ['load_smart_collection', 'read_smart_collection'],
    'learnsim.datasets.sts': ['load_sts_benchmark'],
    'learnsim.datasets.synthetic': ['make_clustered_corpus'],
    'learnsim.datasets.trec': ['load_trec_collection'],
    'learnsim.datasets.uci': ['load_uci'],
    'learnsim.datasets.webkb': ['WEBKB_PAPER_TOPICS', 'WEBKB_TOPICS', 'WEBKB_UNIVERSITIES', 'WebKBCorpus', 'load_webkb', 'normalize_url', 'url_domain', 'url_from_filename', 'url_host'],
    'learnsim.datasets.wikispeedia': ['LinkedCorpus', 'load_wikispeedia'],
    'learnsim.demo': ['DEFAULT_OUT_DIR', 'MEASURES', 'METHODS', 'run_demo'],
    'learnsim.distributed': ['DistributedIndex', 'HashingTextVectorizer', 'collection_statistics', 'document_frequencies', 'fit_film', 'fit_mcd', 'fit_vectorizer', 'from_local', 'partition_lengths', 'vectorize'],
    'learnsim.distributed.methods': ['DEFAULT_POWER_ITERATIONS', 'fit_film', 'fit_mcd', 'from_local'],
    'learnsim.distributed.search': ['DistributedIndex', 'IndexFormatError'],
    'learnsim.distributed.text': ['HashingTextVectorizer', 'collection_statistics', 'document_frequencies', 'fit_vectorizer', 'partition_lengths', 'vectorize'],
    'learnsim.encoders': ['SentenceEncoder', 'default_benchmark_model_path'],
    'learnsim.evaluation': ['MEASURE_NAMES', 'RECALL_LEVELS', 'ap11', 'average_precision', 'best_threshold', 'break_even_point', 'cluster_retrieval_report', 'constraint_error_rate', 'evaluate_triplets', 'interpolated_precision_at_recall', 'kmeans_clustering_precision', 'log_loss', 'pair_classification_report', 'pairwise_clustering_precision', 'pearson', 'per_query_measures', 'precision_at_k', 'precision_recall_curve', 'r_precision', 'relevance_from_labels', 'retrieval_report', 'spearman', 'triplet_accuracy', 'triplet_distances', 'triplet_error_rate'],
    'learnsim.explain': ['DimensionContribution', 'DimensionFeatures', 'FeatureWeight', 'PairExplanation', 'WordContribution', 'WordPairContribution', 'explain_pair', 'n_learned_dimensions', 'plot_dimension_weights', 'top_features'],
    'learnsim.film': ['FILM'],
    'learnsim.fitting': ['METHODS', 'fit_parts'],
    'learnsim.hybrid': ['DEFAULT_WEIGHT_GRID', 'HybridEmbedding', 'hybrid_rows', 'select_input_weight'],
    'learnsim.index': ['FilterError', 'Index', 'IndexDamagedError', 'IndexFormatError', 'MAX_FILTER_VALUES', 'NewWordsWarning', 'PlacelessWarning', 'build', 'open_index'],
    'learnsim.index.core': ['Index', 'IndexDamagedError', 'IndexFormatError'],
    'learnsim.io': ['DocumentFormatError', 'Documents', 'ENCODING_ERRORS', 'NO_CLUSTER', 'UndecodableBytesWarning', 'check_encoding_errors', 'decoded_lines', 'read_documents', 'read_labelled_documents'],
    'learnsim.linklearn': ['CollectionShiftWarning', 'CosineIndex', 'LinkLearn', 'SHIFT_LENGTH_FACTOR', 'SHIFT_MIN_OVERLAP', 'document_lengths', 'idf_from_counts', 'link_hinge_loss', 'tfidf_cosine_weights'],
    'learnsim.matching': ['PairwiseKNNMatcher', 'ThresholdMatcher', 'pair_similarity'],
    'learnsim.mcd': ['DEFAULT_BASIS_GRID', 'DEFAULT_COMPLEMENT_GRID', 'DEFAULT_HOLDOUT', 'DEFAULT_SHRINKAGE_GRID', 'MinimumClusterDistortion', 'PAPER_PARAMS'],
    'learnsim.pair_classifier': ['DEFAULT_FEATURES', 'FEATURE_BLOCKS', 'PairClassifierMatcher', 'PairScoreRegressor'],
    'learnsim.persistence': ['FORMAT_NAME', 'FORMAT_VERSION', 'ModelFormatError', 'load', 'read_manifest', 'save'],
    'learnsim.pipeline': ['Pipeline'],
    'learnsim.relative': ['HAVE_NUMBA', 'RelativeComparisonMetric', 'anchor_means', 'select_C', 'triplet_outcomes'],
    'learnsim.reproduce': ['EXPERIMENTS', 'Results', 'run'],
    'learnsim.reproduce.film': ['DENSE_DIMENSIONS', 'DIMENSIONS', 'KNN_GRID', 'PAPER_QUORA', 'PAPER_STS_PEARSON', 'QUICK_DIMENSIONS', 'QUICK_MAX_ITER', 'QUICK_QUORA_PAIRS', 'QUICK_STS_TRAIN_PAIRS', 'QUORA_NEIGHBOURS', 'QUORA_RANDOM_NEGATIVES', 'SEED', 'STS_DIMENSION', 'STS_HIGH_SCORE', 'STS_RANDOM_NEGATIVES', 'TARGET_POINTS', 'TIMING_FRACTIONS', 'VALIDATION_FRACTION', 'experiment_quora', 'experiment_sts', 'run_experiments'],
    'learnsim.reproduce.linklearn': ['CANDIDATES', 'MAX_DF', 'MAX_ITER', 'MEASURES', 'N_ITER_NO_CHANGE', 'PAPER_HIDDEN', 'PAPER_LEARNING_RATE', 'PAPER_OKAPI', 'PAPER_TABLE4', 'PAPER_TABLE5', 'QUICK_ARTICLES', 'QUICK_CANDIDATES', 'QUICK_MAX_ITER', 'QUICK_VALIDATION_INTERVAL', 'SEED', 'VALIDATION_INTERVAL', 'collection_counts', 'experiment_similar_pages', 'experiment_transfer', 'run_experiments'],
    'learnsim.reproduce.mochihashi': ['LEVELS', 'PAPER_FLICKR_GAIN', 'PAPER_PARAMS', 'PAPER_TABLE1', 'QUICK_LEVELS', 'RETRIEVAL_MEASURES', 'UCI_SETS', 'experiment_20ng', 'experiment_flickr', 'experiment_uci', 'render_level_plots', 'run_experiments'],
    'learnsim.reproduce.records': ['FIELDS', 'MEASURES', 'Results', 'plots_enabled'],
    'learnsim.reproduce.relative': ['BASELINES', 'C', 'CURVE_SIZES', 'C_GRID', 'DISTANCES', 'KERNEL_BASIS', 'KERNEL_TRIPLETS', 'N_TEST', 'N_TRAIN', 'N_VALID', 'PAPER_TABLE1', 'QUICK', 'SEED', 'TOL', 'TRAIN_FRACTION', 'VALID_FRACTION', 'experiment_curve', 'experiment_kernel', 'experiment_mds', 'experiment_table1', 'make_two_cluster_toy', 'run_experiments', 'split_pages'],
    'learnsim.scorer': ['BLOCK_ENTRIES', 'MAX_EMBEDDING_ENTRIES', 'Rows', 'Scorer', 'scorer_for'],
    'learnsim.scoring': ['SearchRule', 'cluster_weight_scores', 'triplet_weight_scores'],
    'learnsim.search': ['ExactIndex', 'METRICS', 'MetricSearch', 'NeighborIndex', 'top_k'],
    'learnsim.service': ['create_app'],
    'learnsim.service.app': ['allowed_host_names', 'app_from_environment', 'create_app', 'search_budget'],
    'learnsim.service.page': ['explain_hits', 'gather', 'marked', 'render_error', 'render_page', 'render_results'],
    'learnsim.stiefel': ['StiefelResult', 'cayley_step', 'minimize_stiefel'],
    'learnsim.supervision': ['Clusters', 'Links', 'Pairs', 'Triplets', 'check_clusters', 'check_links', 'check_pairs', 'check_triplets', 'clusters_to_triplets', 'duplicate_pairs_to_triplets', 'graded_pairs_to_triplets', 'links_to_triplets', 'pairs_to_clusters', 'sample_label_triplets', 'split_links', 'split_pairs'],
    'learnsim.supervision.clusters': ['NO_CLUSTER', 'check_clusters'],
    'learnsim.supervision.converters': ['NO_CLUSTER', 'duplicate_pairs_to_triplets', 'graded_pairs_to_triplets', 'links_to_triplets', 'pairs_to_clusters', 'split_links', 'split_pairs'],
    'learnsim.supervision.links': ['check_links'],
    'learnsim.supervision.pairs': ['check_pairs'],
    'learnsim.supervision.sampling': ['NO_CLUSTER', 'clusters_to_triplets', 'sample_label_triplets'],
    'learnsim.supervision.triplets': ['check_triplets'],
    'learnsim.text': ['TextVectorizer', 'Tokenizer', 'find_empty_rows', 'resample_counts'],
    'learnsim.webkb': ['WEBKB_DISTANCES', 'WEBKB_FEATURE_KINDS', 'WEBKB_PAPER_TOPICS', 'WEBKB_TOPICS', 'WEBKB_UNIVERSITIES', 'WebKBCorpus', 'load_webkb', 'normalize_url', 'url_domain', 'url_from_filename', 'url_host', 'webkb_documents', 'webkb_features', 'webkb_triplets', 'webkb_university_labels'],
    'learnsim.weighting': ['LearnedBM25', 'PARAMETER_BOUNDS', 'PARAMETER_NAMES', 'PowerQueryIndex', 'plot_weighting_curves'],
}


@pytest.mark.parametrize("module", sorted(PUBLIC_0_1))
def test_public_names_of_0_1_import(module):
    mod = importlib.import_module(module)
    missing = [name for name in PUBLIC_0_1[module] if not hasattr(mod, name)]
    assert not missing, f"{module} lost {missing}"


def test_from_import_of_a_moved_module():
    from learnsim.bm25 import BM25
    from learnsim.text.bm25 import BM25 as moved
    from learnsim.weighting import LearnedBM25
    from learnsim.linklearn import LearnedBM25 as exported

    assert BM25 is moved and LearnedBM25 is exported
    import learnsim.text.bm25

    # the old name is the same module object: a monkeypatch through it reaches the code that runs
    assert importlib.import_module("learnsim.bm25") is learnsim.text.bm25


def test_an_unknown_module_is_still_unknown():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("learnsim.no_such_module")


def test_import_learnsim_stays_light():
    # the aliases of the moved modules cost nothing until used: no numpy, scipy or scikit-learn
    code = ("import sys, learnsim; heavy = [m for m in ('numpy', 'scipy', 'sklearn') if m in sys.modules]; "
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
