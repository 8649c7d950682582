"""Text features: tokenisation (:class:`Tokenizer`), term weighting, LSI and length resampling
(:class:`TextVectorizer`), Okapi BM25 (:mod:`learnsim.text.bm25`), the tf.idf cosine (:class:`CosineIndex`) and dense sentence encoders
(:mod:`learnsim.text.encoders`).
"""
# The names load on first use (learnsim._utils.lazy): a light helper of this package imported
# alone does not load the rest.
from .._utils.lazy import attach

__all__ = ["TextVectorizer", "check_documents", "find_empty_rows", "resample_counts", "DEFAULT_TOKEN_PATTERN", "Tokenizer",
           "ANALYZERS", "LATER_READINGS", "analyzer_for_language", "tokenizer_params", "check_analysis", "analysis_of", "resolve_analysis",
           "installed_dictionary", "check_dictionary", "collection_vocabulary", "collection_vectorizer", "collection_vectors", "collection_terms", "has_lexical_part",
           "CosineIndex", "document_lengths", "idf_from_counts", "tfidf_cosine_weights", "LoneCharacters",
           "check_chinese_reading", "STOP_LANGUAGES", "SNOWBALL_LANGUAGES", "LIGHT_STEMMERS", "stop_list",
           "detect_language", "check_language", "baseline_reading"]

__getattr__, __dir__ = attach(__name__, {"TextVectorizer": "._vectorizer", "check_documents": "._vectorizer",
    "find_empty_rows": "._vectorizer",
    "resample_counts": "._vectorizer", "DEFAULT_TOKEN_PATTERN": "._tokenize", "Tokenizer": "._tokenize",
    "ANALYZERS": "._tokenize", "LATER_READINGS": "._tokenize", "analyzer_for_language": "._tokenize", "tokenizer_params": "._tokenize",
    "check_analysis": "._tokenize", "analysis_of": "._tokenize", "resolve_analysis": "._tokenize", "LoneCharacters": "._tokenize",
    "installed_dictionary": "._dictionary", "check_dictionary": "._dictionary",
    "collection_vocabulary": "._collection", "collection_vectorizer": "._collection",
    "collection_vectors": "._collection", "collection_terms": "._collection",
    "has_lexical_part": "._collection", "CosineIndex": "._cosine", "document_lengths": "._cosine",
    "idf_from_counts": "._cosine", "tfidf_cosine_weights": "._cosine", "check_chinese_reading": "._chinese",
    "STOP_LANGUAGES": "._languages", "SNOWBALL_LANGUAGES": "._languages", "LIGHT_STEMMERS": "._languages",
    "stop_list": "._languages",
    "detect_language": "._languages", "check_language": "._languages", "baseline_reading": "._languages"})
