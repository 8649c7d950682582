"""Czech's reading (learnsim.text._czech and ._languages): Lucene's light stemmer in pure Python
(``stem="czech_light"``), the shipped Czech stop list, and Czech told by its stop words while
every language detected before stays what it was."""
import pickle
import sys

import pytest

import learnsim
import learnsim.text._languages as languages
from learnsim.text import (LIGHT_STEMMERS, STOP_LANGUAGES, TextVectorizer, Tokenizer, baseline_reading,
                           check_language, detect_language, stop_list)
from learnsim.text._czech import czech_light_stem

from slavic_samples import BEFORE, CZECH, NEW

LABELS = [0, 0, 1, 1, 1]


@pytest.mark.parametrize("word, stem", [
    ("hrad", "hrad"), ("hradu", "hrad"), ("hradem", "hrad"), ("hradech", "hrad"),   # u, em, ech
    ("města", "měst"), ("městech", "měst"), ("město", "měst"),
    ("mladého", "mlad"), ("mladých", "mlad"), ("mladými", "mlad"),                  # ého, ých, ými
    ("kuřatech", "kuř"),                                                           # atech (over 7 letters)
    ("knize", "knih"), ("kniha", "knih"),                                          # e, then z -> h
    ("ženy", "žn"), ("ženami", "žn"),                                              # e before the last letter
    ("otcův", "otcov"),                                                           # ů before the last letter -> o
    ("matčin", "matk"),                                                            # possessive in, then č -> k
    ("pes", "ps"), ("psa", "psa"),                                                 # three letters: no ending
    ("den", "dn"),
])
def test_lucenes_czech_light_stemming(word, stem):
    assert czech_light_stem(word) == stem


def test_the_endings_are_tried_longest_first_and_one_is_taken():
    # "ech" fits "hradech" and so would "h" never: one case ending, the first that fits
    assert czech_light_stem("učitelích") == "učitl"        # ích, then e before the last letter
    # a five-letter word keeps a three-letter ending (over 5 letters needed)
    assert czech_light_stem("lidem") == "lid"                # em (over 4 letters)


def test_the_light_stemmer_needs_no_pystemmer_and_pickles(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # makes `import Stemmer` fail
    assert "czech_light" in LIGHT_STEMMERS and "czech" in STOP_LANGUAGES
    tok = Tokenizer(stop_words="czech", stem="czech_light")
    assert tok("Studenti šli ráno do školy a četli své knihy") == ["student", "šli", "rán", "škol", "četl", "knih"]
    again = pickle.loads(pickle.dumps(tok))
    assert again("knihách") == tok("kniha") == ["knih"]
    vec = TextVectorizer("tfidf", stop_words="czech", stem="czech_light").fit(CZECH)
    clone = TextVectorizer._from_state(*vec._get_state())
    assert clone.get_params()["stem"] == "czech_light"
    assert (clone.transform(["lékař"]) != vec.transform(["lékař"])).nnz == 0
    assert vec.transform(["lékař"]).nnz == 1            # the query's form meets "Lékaři"


def test_snowballs_czech_stays_pystemmers():
    # stem="czech" named Snowball's stemmer before: a model saved with it reads as it did
    pytest.importorskip("Stemmer")
    import Stemmer

    assert Tokenizer(stem="czech")("knihách") == [Stemmer.Stemmer("czech").stemWord("knihách")]


def test_the_czech_stop_list_ships_with_its_source_and_licence():
    from pathlib import Path

    folder = Path(languages.__file__).with_name("stopwords")
    assert "python-stop-words" in (folder / "czech.txt").read_text(encoding="utf-8").splitlines()[0]
    assert "czech.txt is python-stop-words' Czech list" in (folder / "LICENSE").read_text(encoding="utf-8")
    words = stop_list("czech")
    assert {"a", "je", "se", "na", "že", "který", "jsou", "byl", "ve", "mít", "více"} <= words
    # words that carry a query's meaning are left out, and the English words an English text holds
    # ("iphone 15 pro max" was a fifth Czech stop words; "mit", "vice" are "mít", "více" unaccented)
    assert not words & {"den", "nový", "strana", "večer", "deset", "re"}
    assert not words & {"design", "email", "pro", "pod", "tom", "nic", "mit", "vice", "vase"}
    assert all(w.isalpha() for w in words)


@pytest.mark.parametrize("code", ["cs", "CS", "cs-CZ", "cs_CZ", "czech"])
def test_czech_is_named_by_its_code(code):
    assert check_language(code) == "czech"


def test_a_czech_collection_is_told_by_its_stop_words():
    assert detect_language(CZECH) == "czech"
    assert detect_language(["Lékaři v nemocnici pracují celou noc, protože mají mnoho pacientů."]) == "czech"


def _detected_before(texts, monkeypatch, new):
    with monkeypatch.context() as m:
        m.setattr(languages, "STOP_LANGUAGES", tuple(n for n in languages.STOP_LANGUAGES if n not in new))
        return detect_language(texts)


@pytest.mark.parametrize("language", sorted(BEFORE))
def test_every_language_detected_before_is_detected_as_before(language, monkeypatch):
    texts = BEFORE[language]
    for sample in [texts] + [[t] for t in texts]:
        assert detect_language(sample) == _detected_before(sample, monkeypatch, NEW)
    assert detect_language(texts) == (language if language != "danish" else "norwegian")


def test_a_few_czech_texts_leave_an_english_collection_english():
    english = BEFORE["english"]
    assert detect_language(english * 3 + CZECH[:1]) == "english"


def test_the_baselines_reading_of_czech_needs_no_pystemmer():
    assert baseline_reading("czech", stemmer_installed=False) == ("czech", "czech_light")
    assert baseline_reading("czech", stemmer_installed=True) == ("czech", "czech_light")
    assert baseline_reading("english", True) == ("english", "porter")
    assert baseline_reading("russian", True) == ("russian", "russian")


def test_a_czech_fit_reads_czech_as_its_baselines_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)      # no PyStemmer needed
    fitted = learnsim.fit(CZECH, clusters=LABELS, baseline_holdout=None, stop_words="auto", stem=True).vectorizer
    assert (fitted.stop_words, fitted.stem) == ("czech", "czech_light")
    vocabulary = set(fitted.get_feature_names_out())
    assert {"student", "knih", "lékař"} <= vocabulary and not vocabulary & {"je", "na", "se"}
    named = learnsim.fit(CZECH, clusters=LABELS, baseline_holdout=None, language="cs", stem=True).vectorizer
    assert (named.stop_words, named.stem) == (None, "czech_light")
