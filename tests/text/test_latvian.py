"""Latvian's reading (learnsim.text._latvian and ._languages): Lucene's light stemmer in pure
Python (``stem="latvian_light"``) and the shipped Latvian stop list."""
import pickle
import sys

import pytest

from learnsim.text import LIGHT_STEMMERS, STOP_LANGUAGES, TextVectorizer, Tokenizer, baseline_reading
from learnsim.text._languages import load_stemmer
from learnsim.text._latvian import latvian_light_stem


@pytest.mark.parametrize("word, stem", [
    ("grāmata", "grāmat"), ("grāmatas", "grāmat"), ("grāmatām", "grāmat"), ("grāmatu", "grāmat"),
    ("lācis", "lāc"), ("lāča", "lāc"), ("lācim", "lāc"), ("lāču", "lāc"), ("lāčiem", "lāc"),   # č read as c
    ("zivs", "ziv"), ("zivju", "ziv"),                         # a labial's inserted j
    ("krāsns", "krāsn"), ("krāšņu", "krāsn"),                  # šņ -> sn
    ("brālis", "brāl"), ("brāļu", "brāl"),                     # ļ -> l
    ("lielajiem", "liel"), ("lielais", "liel"), ("liela", "liel"),   # the definite adjective
    ("upe", "upe"), ("upes", "upe"),                           # three letters must remain
    ("vējš", "vēj"), ("ārsts", "ārst"),
])
def test_lucenes_latvian_light_stemming(word, stem):
    assert latvian_light_stem(word) == stem


def test_an_ending_is_kept_where_it_would_leave_no_vowel():
    # sms holds no vowel: an ending goes only where the word holds more vowels than the ending
    assert latvian_light_stem("sms") == "sms"
    assert latvian_light_stem("2024") == "2024"


def test_the_light_stemmer_needs_no_pystemmer_and_pickles(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # makes `import Stemmer` fail
    assert "latvian_light" in LIGHT_STEMMERS and "latvian" in STOP_LANGUAGES
    assert load_stemmer("latvian_light").stemWords(["grāmatās", "ārstu"]) == ["grāmat", "ārst"]
    tok = Tokenizer(stop_words="latvian", stem="latvian_light")
    # š may be a softened s or t: Lucene leaves it, so noguruši (tired) is noguruš
    assert tok("Slimnīcas ārsti strādā visu nakti un ir noguruši") == ["slimnīc", "ārst", "strād", "vis", "nakt",
                                                                       "noguruš"]
    again = pickle.loads(pickle.dumps(tok))
    assert again("grāmatas") == tok("grāmatām") == ["grāmat"]
    vec = TextVectorizer("tfidf", stop_words="latvian", stem="latvian_light").fit(["Mana māsa lasa grāmatas",
                                                                                  "Ārsti strādā naktī"])
    clone = TextVectorizer._from_state(*vec._get_state())
    assert clone.get_params()["stem"] == "latvian_light"
    assert vec.transform(["grāmata"]).nnz == 1


def test_latvian_has_no_snowball_stemmer_and_its_baselines_need_no_pystemmer():
    with pytest.raises(ValueError, match="latvian_light"):
        load_stemmer("latvian")
    assert baseline_reading("latvian", stemmer_installed=False) == ("latvian", "latvian_light")
    assert baseline_reading("latvian", stemmer_installed=True) == ("latvian", "latvian_light")
