"""Slovenian, Macedonian and Belarusian (learnsim.text._languages): read in their languages where
they were read as a wrong neighbour (Slovenian as Dutch or Serbian, Macedonian as Russian,
Belarusian as English), while every language detected before, Croatian and Serbian among them,
and every collection of ../shared/data keep their reading."""
import pytest

import learnsim.text._languages as languages
from learnsim.text import STOP_LANGUAGES, Tokenizer, baseline_reading, check_language, detect_language, stop_list
from learnsim.text._languages import stop_list_source

from conftest import require_corpus
from test_latin_languages import READ_BEFORE, SENTENCES as LATIN_SENTENCES
from test_serbian_baltic_languages import NEIGHBOURS_BEFORE, SAMPLES as SERBIAN_BALTIC
from test_snowball_languages import CORPORA

# the lists added here, after every list read before
NEW = ("slovenian", "macedonian", "belarusian")
# the same five statements as tests/slavic_samples.py's, so that no language wins by its topic
SAMPLES = {
    "slovenian": ["Študenti so zjutraj šli v šolo in brali svoje knjige v knjižnici.",
                  "Ljubljana je glavno mesto Slovenije in leži ob reki Ljubljanici.",
                  "Zdravniki v bolnišnici delajo vso noč, ker imajo veliko bolnikov.",
                  "Včeraj smo bili v gorah, kjer je bilo zelo mrzlo in je pihal močan veter.",
                  "Novi zakon, ki ga je sprejela vlada, se nanaša na davke in pokojnine."],
    "macedonian": ["Студентите отидоа рано на училиште и ги читаа своите книги во библиотеката.",
                   "Скопје е главен град на Македонија и се наоѓа на реката Вардар.",
                   "Лекарите во болницата работат цела ноќ, бидејќи имаат многу пациенти.",
                   "Вчера бевме во планините, каде што беше многу студено и дуваше силен ветер.",
                   "Новиот закон, што го донесе владата, се однесува на даноците и пензиите."],
    "belarusian": ["Студэнты пайшлі раніцай у школу і чыталі свае кнігі ў бібліятэцы.",
                   "Мінск з'яўляецца сталіцай Беларусі і стаіць на рацэ Свіслач.",
                   "Лекары ў бальніцы працуюць усю ноч, таму што ў іх шмат пацыентаў.",
                   "Учора мы былі ў гарах, дзе было вельмі холадна і дзьмуў моцны вецер.",
                   "Новы закон, які прыняў урад, датычыцца падаткаў і пенсій."],
}
# every sample of a language read before, in the tests of those languages
BEFORE = {**{f"read-{k}": v for k, v in READ_BEFORE.items()}, **{f"neighbour-{k}": v for k, v in NEIGHBOURS_BEFORE.items()},
          **{f"serbian-baltic-{k}": v for k, v in SERBIAN_BALTIC.items()},
          **{f"latin-{k}": v for k, v in LATIN_SENTENCES.items()}}


def _detected_before(texts, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(languages, "STOP_LANGUAGES", tuple(n for n in STOP_LANGUAGES if n not in NEW))
        # (and without learnsim.text._recognised's check, which came after)
        return languages._detect(texts)[0]


@pytest.mark.parametrize("language", NEW)
def test_each_collection_is_read_in_its_language(language):
    assert language in STOP_LANGUAGES
    assert detect_language(SAMPLES[language]) == language


def test_what_each_was_read_as_before(monkeypatch):
    # what this reading replaces (docs/languages.md)
    assert _detected_before(SAMPLES["slovenian"], monkeypatch) == "serbian"
    # (Dutch before learnsim.text._ties: its č, which Dutch never writes, now puts Dutch out of the tie)
    assert _detected_before(["Ljubljana je glavno mesto Slovenije in njeno največje mesto."], monkeypatch) == "serbian"
    assert _detected_before(SAMPLES["macedonian"], monkeypatch) == "russian"
    assert _detected_before(SAMPLES["belarusian"], monkeypatch) == "russian"


def test_a_slovenian_sentence_read_as_dutch_is_slovenian():
    # je and in are Dutch's stop words too; njeno is Slovenian's alone
    assert detect_language(["Ljubljana je glavno mesto Slovenije in njeno največje mesto."]) == "slovenian"


@pytest.mark.parametrize("language", NEW)
def test_most_sentences_alone_are_read_in_their_language(language):
    read = [detect_language([text]) for text in SAMPLES[language]]
    assert sum(r == language for r in read) >= 4, read
    # none is taken for another of the three, nor Macedonian or Belarusian for Russian
    assert not set(read) & (set(NEW) - {language}) and "russian" not in read


@pytest.mark.parametrize("sample", sorted(BEFORE))
def test_every_language_detected_before_is_detected_as_before(sample, monkeypatch):
    texts = BEFORE[sample]
    for part in [texts] + [[t] for t in texts]:
        assert detect_language(part) == _detected_before(part, monkeypatch), part


@pytest.mark.parametrize("language", ["croatian", "bosnian", "serbian", "serbian_latin"])
def test_croatian_bosnian_and_serbian_stay_serbian(language):
    assert detect_language(SERBIAN_BALTIC[language]) == "serbian"


@pytest.mark.parametrize("language", NEW)
def test_a_few_texts_of_a_new_language_leave_a_collection_as_it_was(language, monkeypatch):
    for before in ("english", "czech", "russian", "bulgarian", "ukrainian", "polish", "serbian"):
        texts = (NEIGHBOURS_BEFORE.get(before) or SERBIAN_BALTIC[before]) * 3 + SAMPLES[language][:1]
        assert detect_language(texts) == _detected_before(texts, monkeypatch)


@pytest.mark.parametrize("relpath", list(CORPORA))
def test_every_collection_of_the_shared_data_stays_english(relpath):
    texts = CORPORA[relpath](require_corpus(relpath))
    assert detect_language(texts) == "english"


@pytest.mark.parametrize("code, language", [("sl", "slovenian"), ("sl-SI", "slovenian"), ("mk", "macedonian"),
                                            ("mk_MK", "macedonian"), ("be", "belarusian"), ("be-BY", "belarusian")])
def test_each_is_named_by_its_code(code, language):
    assert check_language(code) == language


@pytest.mark.parametrize("language, source, words, left_out", [
    ("slovenian", "stopwords-iso's", {"in", "je", "so", "ki", "tudi", "ker", "kot", "zelo", "lahko", "že"},
     {"ve", "pod", "jim", "april", "pet", "dober", "velik", "danes"}),
    ("macedonian", "spaCy's", {"и", "е", "на", "во", "се", "што", "од", "со", "ќе", "кој", "која", "бидејќи"},
     {"време", "место", "воз", "два", "сто", "пет", "брзо", "aв"}),
    ("belarusian", "learnsim's", {"і", "у", "ў", "на", "што", "гэта", "ён", "яна", "быў", "ёсць", "таксама", "ўжо"},
     {"адзін", "два", "горад", "кніга"})])
def test_the_lists_ship_with_their_source_and_leave_out_what_is_no_stop_word(language, source, words, left_out):
    assert words <= stop_list(language) and not left_out & stop_list(language)
    assert stop_list_source(language) == source
    assert f"{language}.txt" in (languages._FOLDER / "LICENSE").read_text(encoding="utf-8")


def test_belarusian_is_written_in_its_own_letters():
    # Belarusian writes і ў and never и щ ъ: a list of Russian spellings would drop nothing of it
    words = stop_list("belarusian")
    assert not any(set(w) & set("ищъ") for w in words)
    assert Tokenizer(stop_words="belarusian")("Яна таксама была ў бібліятэцы з імі") == ["бібліятэцы"]


def test_each_takes_its_closest_neighbours_stems():
    # Snowball and Lucene have no Slovenian, Macedonian nor Belarusian stemmer: Slovenian keeps the
    # Serbian stems it was read with (knjiga / knjigah, mesto / mestu), Belarusian the Russian ones,
    # as Galician keeps Portuguese's; Macedonian takes Bulgarian's light stems (its articles and
    # plurals), which need no PyStemmer
    assert baseline_reading("slovenian", stemmer_installed=True) == ("slovenian", "serbian")
    assert baseline_reading("slovenian", stemmer_installed=False) == ("slovenian", None)
    assert baseline_reading("belarusian", stemmer_installed=True) == ("belarusian", "russian")
    assert baseline_reading("belarusian", stemmer_installed=False) == ("belarusian", None)
    assert baseline_reading("macedonian", stemmer_installed=False) == ("macedonian", "bulgarian_light")
