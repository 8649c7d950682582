"""Hausa (learnsim.text._languages): its stop list and code, detected by its stop words where it
writes its own words, and every language read before read as before."""
import pytest

import learnsim.text._languages as languages
from learnsim.text import STOP_LANGUAGES, baseline_reading, check_language, detect_language, stop_list

from test_esperanto import _samples

# hand-written
HAUSA = ["Kano babban birni ne a arewacin Najeriya.", "Yara suna wasa a filin makaranta bayan darasi.",
         "Na karanta littafi mai kyau jiya da dare.", "Yau rana tana da zafi sosai a gari.",
         "Shugaban kasa ya ziyarci jihar Kaduna a cikin wannan makon.",
         "Manoma suna shuka gero da dawa lokacin damina.", "Ita kuma ta tafi kasuwa don ta sayi kayan abinci."]


def _detected_before(texts, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(languages, "STOP_LANGUAGES", tuple(n for n in STOP_LANGUAGES if n != "hausa"))
        return detect_language(texts)


def test_hausa_is_named_and_its_list_ships():
    assert "hausa" in STOP_LANGUAGES and check_language("ha") == "hausa"
    words = stop_list("hausa")
    assert {"da", "kuma", "wannan", "cikin", "ya", "ta", "yana"} <= words
    assert not words & {"a", "in", "sun", "take", "ban", "mai", "tafi"}
    assert baseline_reading("hausa", stemmer_installed=True) == ("hausa", None)    # no stemmer of it


def test_a_hausa_collection_is_read_in_hausa(monkeypatch):
    assert _detected_before(HAUSA, monkeypatch) == "romanian"
    assert detect_language(HAUSA) == "hausa"
    # a sentence that writes one of its own words (kuma, wannan, cikin, lokacin, yana, suna, tana)
    assert detect_language(["Ita kuma ta tafi kasuwa don ta sayi kayan abinci."]) == "hausa"
    # one that writes none is read as before: its da, na, ne are other lists' too
    for text in HAUSA[:3]:
        assert detect_language([text]) == _detected_before([text], monkeypatch)


@pytest.mark.parametrize("name,texts", list(_samples()), ids=[name for name, _ in _samples()])
def test_every_language_read_before_is_read_as_before(name, texts, monkeypatch):
    for sample in [texts] + [[t] for t in texts]:
        assert detect_language(sample) == _detected_before(sample, monkeypatch), sample
    mixed = texts * 3 + HAUSA[-1:]
    assert detect_language(mixed) == _detected_before(mixed, monkeypatch)
