"""Ukrainian, Polish and Slovak stop lists (python-stop-words'), their detection beside Czech,
Bulgarian and Russian, and how the baselines read them: Polish with Snowball's Polish stems,
Ukrainian and Slovak unstemmed (neither Lucene nor Snowball has a stemmer of them)."""
import sys
from pathlib import Path

import pytest

import learnsim
import learnsim.text._languages as languages
from learnsim.baseline import LexicalBaselines
from learnsim.text import STOP_LANGUAGES, Tokenizer, baseline_reading, check_language, detect_language, stop_list

from slavic_samples import BULGARIAN, CZECH, NEW, POLISH, RUSSIAN, SLOVAK, UKRAINIAN

SAMPLES = {"czech": CZECH, "slovak": SLOVAK, "polish": POLISH, "bulgarian": BULGARIAN, "ukrainian": UKRAINIAN,
           "russian": RUSSIAN}


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_each_slavic_collection_is_read_in_its_language(language):
    assert detect_language(SAMPLES[language]) == language


def test_ukrainian_and_bulgarian_are_not_read_as_russian_nor_russian_as_them():
    # Ukrainian writes і ї є, Russian ы э ё, Bulgarian none of them: its letters tell each apart
    # where their short words (на, не, до, по, за) would leave it to a few others
    assert detect_language(UKRAINIAN[1:2]) == "ukrainian"      # its stop words: на alone, as Russian's
    assert detect_language(RUSSIAN + UKRAINIAN[:1]) == "russian"
    assert detect_language(UKRAINIAN + RUSSIAN[:1]) == "ukrainian"
    assert detect_language(["Кошка спит на диване, пока мы работаем на кухне.", "На столе лежат книги, и они мои."]) \
        == "russian"
    # Belarusian writes і and ы: neither Ukrainian's nor Bulgarian's (it is read as Belarusian,
    # tests/text/test_slavic_more_languages.py)
    belarusian = ["Студэнты пайшлі раніцай у школу і чыталі свае кнігі ў бібліятэцы.",
                  "Лекары ў бальніцы працуюць усю ноч, таму што ў іх шмат пацыентаў."]
    assert detect_language(belarusian) not in ("ukrainian", "bulgarian")


def test_serbian_and_macedonian_are_read_as_before_not_as_bulgarian(monkeypatch):
    # they share Bulgarian's short words (да, на, се, за) and write ј љ њ, which Bulgarian never does
    serbian = ["Студенти су ујутру отишли у школу и читали своје књиге у библиотеци.",
               "Београд је главни град Србије и налази се на ушћу Саве у Дунав.",
               "Лекари у болници раде целу ноћ, јер имају много пацијената."]
    macedonian = ["Скопје е главен град на Македонија и се наоѓа на реката Вардар.",
                  "Лекарите во болницата работат цела ноќ, бидејќи имаат многу пациенти."]
    for texts in (serbian, macedonian):
        with monkeypatch.context() as m:
            m.setattr(languages, "STOP_LANGUAGES", tuple(n for n in STOP_LANGUAGES if n not in NEW))
            before = detect_language(texts)
        assert detect_language(texts) == before


def test_a_cyrillic_contest_leaves_latin_samples_alone():
    contest = list(STOP_LANGUAGES)
    assert languages._cyrillic_contest("The cat sleeps.", contest) == contest
    assert languages._cyrillic_contest("Kočka spí na gauči.", contest) == contest


@pytest.mark.parametrize("language, first_words, left_out", [
    ("ukrainian", {"і", "що", "це", "та", "він", "для", "від", "як", "але"},
     {"какая", "a", "люди", "день", "рік", "три"}),
    ("polish", {"się", "nie", "jest", "że", "na", "do", "który", "są"},
     {"ok", "pod", "nic", "pan", "roku", "dr", "www"}),
    ("slovak", {"sa", "je", "na", "že", "som", "sú", "pre", "ktorý"}, {"the", "of", "and", "for", "nový", "dnes"}),
])
def test_the_lists_ship_with_their_source_and_leave_out_what_is_no_stop_word(language, first_words, left_out):
    folder = Path(languages.__file__).with_name("stopwords")
    assert "python-stop-words" in (folder / f"{language}.txt").read_text(encoding="utf-8").splitlines()[0]
    assert f"{language}.txt" in (folder / "LICENSE").read_text(encoding="utf-8")
    words = stop_list(language)
    assert first_words <= words and not words & left_out
    assert all(w.isalpha() for w in words)             # no abbreviation, two words, or broken encoding


@pytest.mark.parametrize("code, language", [("uk", "ukrainian"), ("uk-UA", "ukrainian"), ("pl", "polish"),
                                            ("pl_PL", "polish"), ("sk", "slovak"), ("SK", "slovak")])
def test_the_languages_are_named_by_their_codes(code, language):
    assert check_language(code) == language


def test_ukrainian_and_slovak_are_unstemmed_polish_takes_snowballs():
    assert baseline_reading("ukrainian", True) == ("ukrainian", None)
    assert baseline_reading("slovak", True) == ("slovak", None)
    assert baseline_reading("polish", False) == ("polish", None)
    assert baseline_reading("polish", True) == ("polish", "polish")
    lex = LexicalBaselines(UKRAINIAN)
    assert lex.language == "ukrainian" and lex.stem is None
    assert lex.terms.startswith("Ukrainian stop words dropped (python-stop-words' list), unstemmed: no "
                                "Ukrainian stemmer (Ukrainian detected")
    assert lex.query_counts(["що це та від для"]).nnz == 0
    assert LexicalBaselines(SLOVAK, language="sk").terms.startswith(
        "Slovak stop words dropped (python-stop-words' list), unstemmed: no Slovak stemmer (Slovak given)")


def test_polish_baselines_stem_with_snowballs_polish():
    pytest.importorskip("Stemmer")
    import Stemmer

    if "polish" not in Stemmer.algorithms():
        pytest.skip("this PyStemmer has no Polish stemmer")
    lex = LexicalBaselines(POLISH)
    assert lex.language == "polish" and lex.stem == "polish"
    assert lex.terms.startswith("Polish stop words dropped (python-stop-words' list), Polish Snowball stems")
    assert Tokenizer(stop_words="polish")("Warszawa jest stolicą Polski") == ["warszawa", "stolicą", "polski"]


def test_a_pystemmer_without_polish_reads_polish_unstemmed(monkeypatch):
    # PyStemmer before 3 (learnsim[stem] takes 2.2 and later) has no Polish stemmer: the baselines
    # raised ImportError on a Polish collection
    Stemmer = pytest.importorskip("Stemmer")
    older = [name for name in Stemmer.algorithms() if name != "polish"]
    monkeypatch.setattr(Stemmer, "algorithms", lambda *args: older)
    assert baseline_reading("polish", True) == ("polish", None)
    lex = LexicalBaselines(POLISH)
    assert lex.language == "polish" and lex.stem is None and "older than 3" in lex.terms
    assert baseline_reading("russian", True) == ("russian", "russian")


def test_a_ukrainian_fit_asked_for_stems_drops_its_stop_words_unstemmed_and_says_so(monkeypatch):
    # the model was silently unstemmed where --stem asked for stems
    monkeypatch.setitem(sys.modules, "Stemmer", None)
    with pytest.warns(UserWarning, match="no stemmer of Ukrainian.*unstemmed"):
        fitted = learnsim.fit(UKRAINIAN, clusters=[0, 0, 1, 1, 1], baseline_holdout=None, stop_words="auto",
                              stem=True).vectorizer
    assert (fitted.stop_words, fitted.stem) == ("ukrainian", None)
    assert not set(fitted.get_feature_names_out()) & {"що", "на", "до"}


def test_a_tie_goes_to_the_language_whose_own_letters_the_sample_writes():
    # moje, jak, za: Czech's, Slovak's and Polish's stop words alike, a tie that went to Czech by the
    # lists' order though these write Polish's ł ą ę ć and none of Czech's ě ř ů
    for text in ["Moje konto zostało zablokowane.", "Jak zwrócić prezent?", "Faktura za subskrypcję ma złą kwotę."]:
        assert detect_language([text]) == "polish"
    # do, o, se: Portuguese's stop words too, which came first; ř is Czech's alone
    assert detect_language(["Balík do Prahy se zpozdil o tři dny."]) == "czech"
    # a tie of a sample without such letters keeps the lists' order, as before
    assert detect_language(["Jak je to?"]) == detect_language(["Jak je to?"] * 2) != "polish"
