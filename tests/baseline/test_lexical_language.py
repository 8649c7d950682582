"""The lexical baselines read a collection in its own language (stop words, Snowball stems), and
an English collection exactly as before."""
import numpy as np
import pytest

from learnsim.baseline import LexicalBaselines, SearchBaselines, lexical_language
from learnsim.text import TextVectorizer

from conftest import require_corpus

ENGLISH = ["The cats are running in the garden", "A dog barks at the running cats", "Rain falls on the roofs",
           "Dogs and cats are pets", "The garden is green after the rain"]
# a tiny hand-written French collection: the query's forms (cheval, national, finir) stand in the
# documents only inflected (chevaux, nationales, finissaient)
FRENCH = ["Les chevaux courent dans le pré avec les enfants",
          "Les politiques nationales sont discutées à Paris",
          "Nous finissaient le travail avant la nuit",
          "Le chat dort sur le canapé pendant que nous travaillons",
          "Il pleut sur la ville et les rues sont mouillées"]
GERMAN = ["Die Häuser der Stadt sind sehr alt", "Wir haben einen Hund und eine Katze",
          "Das Wetter ist heute schön und warm", "Die Kinder spielen im Garten mit dem Ball"]


def _before(documents):
    """The counts the baselines took before they chose a language: English's always."""
    try:
        import Stemmer  # noqa: F401
        stem = "porter"
    except ImportError:
        stem = None
    vec = TextVectorizer("tf", stop_words="english", stem=stem, dtype=np.float64)
    return vec, vec.fit_transform(documents)


def _assert_read_as_before(documents, queries):
    lex = LexicalBaselines(documents)
    vec, counts = _before(documents)
    assert lex.language == "english" and not lex.language_given
    assert lex.terms.startswith("English stop words dropped, ")
    assert lex.vectorizer.get_params() == vec.get_params()
    assert (lex.counts != counts).nnz == 0
    given = LexicalBaselines(documents, language="english")
    Q = lex.query_counts(queries)
    for name in ("bm25", "cosine"):
        assert np.array_equal(lex.scores(name, Q), given.scores(name, given.query_counts(queries)))


def test_an_english_collection_is_read_exactly_as_before():
    _assert_read_as_before(ENGLISH, ["running cats", "rain garden"])


def test_english_test_collections_are_read_exactly_as_before():
    from learnsim.datasets import load_smart_collection

    require_corpus("ir/cisi/CISI.ALL")
    require_corpus("ir/cran/cran.all.1400")
    for name in ("cisi", "cran"):
        c = load_smart_collection(name)
        _assert_read_as_before(list(c.documents)[:600], list(c.queries)[:20])


@pytest.mark.parametrize("language", [None, "auto", "french", "fr", "fr-CA"])
def test_a_french_collection_gets_french_stop_words_and_stems(language):
    pytest.importorskip("Stemmer")
    lex = LexicalBaselines(FRENCH, language=language)
    assert lex.language == "french"
    assert lex.language_given == (language not in (None, "auto"))
    assert lex.vectorizer.get_params()["stop_words"] == "french"
    assert lex.vectorizer.get_params()["stem"] == "french"
    assert "French stop words dropped" in lex.terms and "French Snowball stems" in lex.terms
    # each inflected form meets its query's form, where English rules missed it
    english = LexicalBaselines(FRENCH, language="english")
    for query, doc in (("cheval", 0), ("national", 1), ("finir", 2)):
        idx, scores = lex.search("bm25", [query], 1)
        assert idx[0, 0] == doc and scores[0, 0] > 0, query
        assert english.scores("bm25", english.query_counts([query]))[0].max() == 0, query
    # "nous" is a stop word, and no longer one a query shares with two documents
    assert lex.query_counts(["nous"]).nnz == 0 and english.query_counts(["nous"]).nnz == 1


def test_a_german_collection_is_detected_and_its_plurals_meet():
    pytest.importorskip("Stemmer")
    lex = LexicalBaselines(GERMAN)
    assert lex.language == "german" and "German detected" in lex.terms
    idx, scores = lex.search("bm25", ["Haus"], 1)
    assert idx[0, 0] == 0 and scores[0, 0] > 0


def test_the_language_given_wins_and_a_bad_one_is_refused_by_name():
    assert LexicalBaselines(FRENCH, language="english").language == "english"
    assert SearchBaselines(ENGLISH, np.arange(3), language="de").lexical.language == "german"
    with pytest.raises(ValueError, match="language must be 'auto', one of .*got 'klingon'"):
        LexicalBaselines(ENGLISH, language="klingon")


def test_without_pystemmer_another_language_is_unstemmed_and_says_so(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "Stemmer", None)
    lex = LexicalBaselines(FRENCH)
    assert lex.language == "french" and lex.vectorizer.get_params()["stem"] is None
    assert "unstemmed: PyStemmer is not installed" in lex.terms


def test_a_fits_language_names_the_baselines_language_only_where_a_list_ships():
    assert lexical_language("de") == "german" and lexical_language("ENGLISH") == "english"
    assert lexical_language("ja") is None and lexical_language("auto") is None


def test_the_fallback_bm25_reads_the_language_its_check_read():
    pytest.importorskip("Stemmer")
    from learnsim._baseline_models import baseline_pipeline

    detected = baseline_pipeline("bm25", FRENCH)
    assert [hit["corpus_id"] for hit in detected.search("cheval", FRENCH, k=1)] == [0]
    assert detected.vectorizer.get_params()["stem"] == "french"
    english = baseline_pipeline("bm25", FRENCH, language="english")
    assert english.vectorizer.get_params()["stem"] == _before(ENGLISH)[0].get_params()["stem"]
    assert english.vectorizer.get_params()["stop_words"] == "english"
