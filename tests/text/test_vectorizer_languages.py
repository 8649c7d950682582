"""Stop words and Snowball stems of languages other than English (learnsim.text._languages):
TextVectorizer's and Tokenizer's ``stop_words=<language>`` and ``stem=<language>``, and which
language a collection is written in."""
import pickle
import sys

import numpy as np
import pytest

from learnsim.text import STOP_LANGUAGES, TextVectorizer, Tokenizer, detect_language, stop_list

FRENCH = ["Les politiques nationales de la France et la politique nationale du pays",
          "Nous avons été au marché avec les enfants", "Les chevaux finissaient leur course"]
GERMAN = ["Die Häuser der Stadt sind alt", "Das alte Haus am Fluss wurde verkauft"]


def test_every_shipped_language_has_a_stop_list_of_lower_case_words():
    for name in STOP_LANGUAGES:
        words = stop_list(name)
        # a list read whole, not a line or two (Afrikaans's, stopwords-iso's 51 less 15, and Estonian's 33 are the least)
        assert len(words) > 30, name
        assert all(w == w.lower() and w.strip() == w and not w.startswith("#") for w in words), name


def test_english_stop_words_are_still_scikit_learns():
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    assert stop_list("english") == frozenset(ENGLISH_STOP_WORDS)
    assert Tokenizer(stop_words="english")("The cat and the hat") == ["cat", "hat"]


def test_a_languages_stop_words_are_dropped():
    terms = Tokenizer(stop_words="french")(FRENCH[1])
    assert "nous" not in terms and "avec" not in terms and "été" not in terms
    assert "marché" in terms and "enfants" in terms
    german = Tokenizer(stop_words="german")(GERMAN[0])
    assert "die" not in german and "der" not in german and "häuser" in german


def test_inflected_french_and_german_forms_meet_under_their_stemmer():
    pytest.importorskip("Stemmer")
    vec = TextVectorizer("tf", stop_words="french", stem="french").fit(FRENCH)
    X = vec.transform(["nationales", "nationale", "national"]).toarray()
    assert (X > 0).any(axis=1).all()
    assert (X[0] == X[1]).all() and (X[1] == X[2]).all()        # the three forms are one term
    Y = vec.transform(["cheval finir"]).toarray()
    assert (Y == vec.transform(["chevaux finissaient"]).toarray()).all() and Y.sum() == 2
    porter = TextVectorizer("tf", stem="porter").fit(FRENCH)
    assert porter.transform(["cheval finir"]).nnz == 0              # English rules keep them apart
    ger = Tokenizer(stop_words="german", stem="german")
    assert ger("Häuser")[0] == ger("Haus")[0] == ger("Häusern")[0]


def test_a_stem_no_snowball_stemmer_has_is_refused_by_name():
    with pytest.raises(ValueError, match="stem must be None, 'porter' or a Snowball language.*'klingon'"):
        Tokenizer(stem="klingon")
    with pytest.raises(ValueError, match="stem must be"):
        TextVectorizer(stem="klingon").fit(["a text"])
    with pytest.raises(ValueError, match="stop_words must be None, one of .*'french'.*got 'klingon'"):
        Tokenizer(stop_words="klingon")


def test_a_snowball_language_without_pystemmer_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # makes `import Stemmer` fail
    with pytest.raises(ImportError, match=r"stem='french' needs the PyStemmer package: pip install learnsim\[stem\]"):
        Tokenizer(stem="french")


def test_a_vectorizer_of_another_language_saves_loads_and_pickles_as_fitted():
    pytest.importorskip("Stemmer")
    vec = TextVectorizer("tfidf", stop_words="german", stem="german").fit(GERMAN)
    clone = TextVectorizer._from_state(*vec._get_state())
    assert clone.get_params()["stem"] == "german" and clone.get_params()["stop_words"] == "german"
    texts = ["Häuser am Fluss", "die Stadt"]
    assert np.array_equal(clone.transform(texts).toarray(), vec.transform(texts).toarray())
    again = pickle.loads(pickle.dumps(vec))
    assert np.array_equal(again.transform(texts).toarray(), vec.transform(texts).toarray())


@pytest.mark.parametrize("language, texts", [
    ("french", ["Le chat dort sur le canapé pendant que nous travaillons dans la cuisine.",
                "Il y a des livres sur la table et ils sont à moi."]),
    ("german", ["Die Katze schläft auf dem Sofa, während wir in der Küche arbeiten.",
                "Es gibt Bücher auf dem Tisch, und sie gehören mir."]),
    ("spanish", ["El gato duerme en el sofá mientras nosotros trabajamos en la cocina.",
                 "Hay libros sobre la mesa y son míos."]),
    ("russian", ["Кошка спит на диване, пока мы работаем на кухне.", "На столе лежат книги, и они мои."]),
    ("english", ["The cat sleeps on the sofa while we work in the kitchen.",
                 "There are books on the table and they are mine."]),
])
def test_the_language_of_a_collection_is_its_stop_words(language, texts):
    assert detect_language(texts) == language


def test_text_that_is_no_prose_of_these_languages_stays_english():
    assert detect_language(["東京の天気", "iphone 15 pro max 256gb", "x7 q9 zz"]) == "english"
    assert detect_language([""]) == "english"
    # codes of letters and digits hold no stop word of any language (read as letters alone, "t5w6"
    # gave French's elided "t")
    assert detect_language(["t5w6 t5w14 t5w9 t5w26", "t3w27 t3w20 t3w1 t3w24", "s1m2 l3d4 j5n6 c7y8"]) == "english"


def test_detecting_a_language_reads_a_bounded_sample_of_a_large_collection():
    read = []

    class Counted(str):
        def __getitem__(self, key):
            read.append(1)
            return str.__getitem__(self, key)

    english = "the cat is on the table and we are in the kitchen " * 20
    texts = [Counted(english) for _ in range(20000)]
    assert detect_language(texts) == "english"
    assert len(read) <= 500
    # only the start of each text is read: French after it does not count
    long_text = english[:1000] + "le chat est sur la table et nous sommes dans la cuisine " * 100000
    assert detect_language([long_text]) == "english"
