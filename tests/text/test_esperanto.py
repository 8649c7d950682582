"""Esperanto (learnsim.text._languages): its stop list and code, detected by its stop words where
it writes its own words, and every language read before read as before."""
import pytest

import learnsim.text._languages as languages
from learnsim.text import STOP_LANGUAGES, Tokenizer, baseline_reading, check_language, detect_language, stop_list
from learnsim.text._languages import stop_list_source

from test_latin_languages import READ_BEFORE, SENTENCES as LATIN_SENTENCES
from test_serbian_baltic_languages import NEIGHBOURS_BEFORE, SAMPLES as SERBIAN_BALTIC

# hand-written
ESPERANTO = ["Parizo estas la ĉefurbo de Francio kaj la plej granda urbo de la lando.",
             "La infanoj ludas en la ĝardeno post la lernejo.",
             "Mi legis novan libron hieraŭ vespere, ĉar mi ne povis dormi.",
             "Hodiaŭ la vetero estas tre varma kaj suna.",
             "Ŝi laboras en hospitalo kun multaj aliaj kuracistoj."]
# typed without its letters (no ĉ ŭ on the keyboard, and none of the x-system): its kaj, estas
ESPERANTO_ASCII = ["La infanoj ludas en la gardeno kaj la gepatroj sidas sur la benko.",
                   "La vetero estas bela kaj la suno brilas."]


def _detected_before(texts, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(languages, "STOP_LANGUAGES", tuple(n for n in STOP_LANGUAGES if n != "esperanto"))
        return detect_language(texts)


def test_esperanto_is_named_and_its_list_ships():
    assert "esperanto" in STOP_LANGUAGES and STOP_LANGUAGES.index("esperanto") > STOP_LANGUAGES.index("galician")
    assert check_language("eo") == check_language("esperanto") == "esperanto"
    words = stop_list("esperanto")
    assert {"la", "kaj", "estas", "de", "en", "kun", "ankaŭ", "ĉar", "ŝi", "ĝi"} <= words
    # left out: no words, meaning (numbers, titles, greetings), English's (for, he, do, post)
    assert not words & {"k", "bv", "tri", "dek", "sinjoro", "bonan", "for", "he", "do", "post", "plus"}
    assert stop_list_source("esperanto") == "stopwords-iso's"
    assert baseline_reading("esperanto", stemmer_installed=True) == ("esperanto", "esperanto")
    assert baseline_reading("esperanto", stemmer_installed=False) == ("esperanto", None)


def test_an_esperanto_collection_and_each_of_its_sentences_is_read_in_esperanto(monkeypatch):
    assert _detected_before(ESPERANTO, monkeypatch) != "esperanto"
    assert detect_language(ESPERANTO) == "esperanto"
    for text in ESPERANTO:
        assert detect_language([text]) == "esperanto", text
    assert detect_language(ESPERANTO_ASCII) == "esperanto"


def _samples():
    yield from READ_BEFORE.items()
    yield from ((f"latin-{k}", v) for k, v in LATIN_SENTENCES.items())
    yield from ((f"serbian-baltic-{k}", v) for k, v in SERBIAN_BALTIC.items())
    yield from ((f"neighbours-{k}", v) for k, v in NEIGHBOURS_BEFORE.items())


@pytest.mark.parametrize("name,texts", list(_samples()), ids=[name for name, _ in _samples()])
def test_every_language_read_before_is_read_as_before(name, texts, monkeypatch):
    for sample in [texts] + [[t] for t in texts]:
        assert detect_language(sample) == _detected_before(sample, monkeypatch), sample
    # a few texts of Esperanto leave a collection as it was
    mixed = texts * 3 + ESPERANTO[:1]
    assert detect_language(mixed) == _detected_before(mixed, monkeypatch)


def test_esperanto_is_stemmed_by_snowballs_esperanto_stemmer():
    pytest.importorskip("Stemmer")
    if not languages._pystemmer_has("esperanto"):
        pytest.skip("this PyStemmer has no Esperanto stemmer")
    tokens = Tokenizer(stop_words="esperanto", stem="esperanto")("La libroj kaj la libron, la urboj kaj la urbo")
    assert tokens == ["libr", "libr", "urb", "urb"]
