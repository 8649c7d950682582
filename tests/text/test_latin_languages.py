"""Languages written in Latin letters that were read as English or as a wrong neighbour
(learnsim.text._languages): Vietnamese, Swahili, Basque, Irish, Afrikaans,
Tagalog, Galician. Their stop lists, codes and detection by stop words, and
every collection and language detected before detected as it was."""
import re
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

import learnsim.text._languages as languages
from learnsim.text import STOP_LANGUAGES, Tokenizer, baseline_reading, check_language, detect_language, stop_list
from learnsim.text._languages import MIN_STOP_SHARE

from conftest import require_corpus
from slavic_samples import BEFORE, BULGARIAN, CZECH, POLISH, RUSSIAN, SLOVAK, UKRAINIAN
from test_snowball_languages import CORPORA, NEIGHBOURS, SENTENCES as SNOWBALL_SENTENCES

NEW = ("vietnamese", "swahili", "basque", "irish", "afrikaans", "tagalog", "galician")
SENTENCES = {
    "vietnamese": ["Con mèo đang ngủ trên ghế sofa trong khi chúng tôi làm việc ở trong bếp.",
                   "Có những quyển sách trên bàn và chúng là của tôi.",
                   "Thành phố này có nhiều công viên đẹp và những ngôi nhà cũ.",
                   "Hôm qua tôi đã đi chợ với mẹ để mua rau và cá.",
                   "Học sinh phải làm bài tập về nhà mỗi ngày."],
    "swahili": ["Paka analala kwenye kochi wakati sisi tunafanya kazi jikoni.",
                "Kuna vitabu juu ya meza na ni vyangu.",
                "Watoto wanakwenda shuleni kila asubuhi kwa miguu.",
                "Mama yangu alinunua matunda sokoni jana lakini hakununua mkate."],
    "basque": ["Katua sofan lo dago eta gu sukaldean lanean ari gara.",
               "Liburuak mahai gainean daude eta nireak dira.",
               "Hiri honek parke eder asko eta etxe zahar batzuk ditu.",
               "Haurrak goizero eskolara oinez joaten dira."],
    "irish": ["Tá an cat ina chodladh ar an tolg agus muid ag obair sa chistin.",
              "Tá leabhair ar an mbord agus is liomsa iad.",
              "Téann na páistí ar scoil gach maidin.",
              "Bhí na páistí ag súgradh sa pháirc leis an madra."],
    "afrikaans": ["Die kat slaap op die bank terwyl ons in die kombuis werk.",
                  "Daar is boeke op die tafel en hulle is myne.",
                  "Hierdie stad het baie mooi parke en ou huise.",
                  "Ek het nie geweet dat hy vandag sou kom nie."],
    "tagalog": ["Natutulog ang pusa sa sopa habang nagtatrabaho kami sa kusina.",
                "May mga libro sa mesa at akin ang mga iyon.",
                "Maraming magagandang parke at lumang bahay sa lungsod na ito.",
                "Pumupunta ang mga bata sa paaralan tuwing umaga."],
    "galician": ["O gato dorme no sofá mentres nós traballamos na cociña.",
                 "Non sei se ela tamén virá connosco mañá pola tarde.",
                 "A miña nai cociñou unha empanada moi boa para a cea.",
                 "Dende o martes xa non hai clases na escola."],
}
PORTUGUESE = ["O gato dorme no sofá enquanto nós trabalhamos na cozinha.", "Há livros sobre a mesa e são meus.",
              "Não sei se ela também virá conosco amanhã à tarde.",
              "A minha mãe cozinhou uma empada muito boa para o jantar."]
SPANISH = ["Los niños van a la escuela todas las mañanas.", "No sé si ella también vendrá con nosotros mañana por la tarde.",
           "Mi madre cocinó una empanada muy buena para la cena.", "El señor España enseña en la montaña."]
DUTCH = ["De kat slaapt op de bank terwijl wij in de keuken werken.", "Er liggen boeken op de tafel en ze zijn van mij.",
         "Deze stad heeft veel mooie parken en oude huizen.", "Ik wist niet dat hij vandaag zou komen.",
         "Het is een mooi huis.", "Wij gaan morgen met onze vrienden naar de zee."]
# every sample of a language read before, in the tests of those languages
READ_BEFORE = {**{f"before-{k}": v for k, v in BEFORE.items()}, **{f"neighbour-{k}": v for k, v in NEIGHBOURS.items()},
               **SNOWBALL_SENTENCES, "czech": CZECH, "slovak": SLOVAK, "polish": POLISH, "bulgarian": BULGARIAN,
               "ukrainian": UKRAINIAN, "russian": RUSSIAN, "dutch": DUTCH,
               "portuguese": PORTUGUESE, "spanish": SPANISH}


def _detected_before(texts, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(languages, "STOP_LANGUAGES", tuple(n for n in STOP_LANGUAGES if n not in NEW))
        return detect_language(texts)


def _shares(texts):
    """Each new language's share of the words of ``texts``, read as detect_language reads them."""
    counts = Counter(w for t in texts for w in re.findall(r"\w\w+", unicodedata.normalize("NFC", t[:1000]).lower()))
    total = max(1, sum(counts.values()))
    return {name: sum(counts[w] for w in stop_list(name)) / total for name in NEW}


@pytest.mark.parametrize("language", NEW)
def test_a_collection_is_detected_by_its_stop_words(language):
    assert language in STOP_LANGUAGES
    assert detect_language(SENTENCES[language]) == language
    # a sentence alone too, but Afrikaans's that writes none of its own words (die, op, en: Dutch's)
    alone = SENTENCES[language] if language != "afrikaans" else SENTENCES[language][1:]
    assert all(detect_language([text]) == language for text in alone)


@pytest.mark.parametrize("sample", sorted(READ_BEFORE))
def test_every_language_read_before_is_detected_as_before(sample, monkeypatch):
    texts = READ_BEFORE[sample]
    for part in [texts] + [[t] for t in texts]:
        assert detect_language(part) == _detected_before(part, monkeypatch), part


@pytest.mark.parametrize("language", NEW)
def test_a_few_texts_of_a_new_language_leave_a_collection_as_it_was(language):
    for before in ("english", "spanish", "french"):
        assert detect_language(NEIGHBOURS[before] * 3 + SENTENCES[language][:1]) == before


@pytest.mark.parametrize("relpath", list(CORPORA))
def test_every_collection_of_the_shared_data_keeps_its_language(relpath):
    texts = CORPORA[relpath](require_corpus(relpath))
    assert detect_language(texts) == "english"
    step = max(1, len(texts) // 500)
    shares = _shares(texts[::step][:500])
    assert max(shares.values()) < MIN_STOP_SHARE / 5, shares   # far from being read as one of them


def test_vietnamese_is_detected_with_its_tone_marks_written_apart():
    # a tone mark written as a combining character (NFD) is no \w: "việc" was read as "vie" and
    # "c", and the sample was English
    decomposed = [unicodedata.normalize("NFD", t) for t in SENTENCES["vietnamese"]]
    assert decomposed != SENTENCES["vietnamese"]
    assert detect_language(decomposed) == "vietnamese"
    assert all(detect_language([t]) == "vietnamese" for t in decomposed)
    assert Tokenizer(stop_words="vietnamese")(decomposed[1]) == ["sách", "bàn"]


def test_the_vietnamese_list_holds_syllables_a_token_can_be():
    folder = Path(languages.__file__).with_name("stopwords")
    assert "stopwords-iso" in (folder / "vietnamese.txt").read_text(encoding="utf-8").splitlines()[0]
    assert "vietnamese.txt" in (folder / "LICENSE").read_text(encoding="utf-8")
    words = stop_list("vietnamese")
    assert {"của", "những", "các", "và", "là", "tôi", "trong", "với"} <= words
    # one syllable, in NFC, two letters or more (what the tokenizer reads as one word)
    assert all(w.isalpha() and len(w) > 1 and unicodedata.is_normalized("NFC", w) for w in words)
    # words of meaning (house, person, day, year) and words of English text or code are none
    assert not words & {"nhà", "người", "ngày", "năm", "ai", "do", "so", "em", "con", "amen", "hay"}


@pytest.mark.parametrize("code, language", [("vi", "vietnamese"), ("vi-VN", "vietnamese")])
def test_a_language_is_named_by_its_code(code, language):
    assert check_language(code) == language


def test_vietnamese_is_read_unstemmed():
    # it inflects no word: no stemmer, Snowball's or Lucene's, has it
    assert baseline_reading("vietnamese", stemmer_installed=True) == ("vietnamese", None)


def test_a_short_swahili_sentence_takes_a_tie_with_czech_by_its_word_shapes():
    """Mji huu ... na ... za ...: its only stop words na, za are Czech's, Slovak's, Polish's and
    Serbian's too, and the lists' order gave Czech; Swahili's words beginning with a prenasalised
    consonant (mji, nzuri, mbwa, ndege), which none of theirs begins with, now take the tie."""
    assert detect_language(["Mji huu una bustani nyingi nzuri na nyumba za zamani."]) == "swahili"
    # a tie with another language (Spanish's, Italian's) is not taken by them
    assert languages._tie_signs("mbwa na ndege za", {"swahili", "czech"}, 4) == {"swahili"}
    assert languages._tie_signs("mbwa na ndege za", {"swahili", "czech", "spanish"}, 4) == set()
    # nor one whose words do not begin so
    assert languages._tie_signs("paka na kuku za", {"swahili", "czech"}, 4) == set()


def test_swahili_was_read_as_spanish_and_its_list_leaves_out_words_of_meaning():
    swahili = SENTENCES["swahili"] + ["Mji huu una bustani nyingi nzuri na nyumba za zamani."]
    assert detect_language(swahili) == "swahili"
    words = stop_list("swahili")
    assert {"na", "ya", "wa", "kwa", "katika", "lakini", "kwamba", "hiyo"} <= words
    # said, big, small, one, people, please, time: words of a query's meaning; ng and nonkungu no word
    assert not words & {"alisema", "kubwa", "mdogo", "moja", "watu", "tafadhali", "muda", "ng", "nonkungu"}
    folder = Path(languages.__file__).with_name("stopwords")
    assert "stopwords-iso" in (folder / "swahili.txt").read_text(encoding="utf-8").splitlines()[0]
    assert "swahili.txt" in (folder / "LICENSE").read_text(encoding="utf-8")
    assert check_language("sw") == check_language("sw-KE") == "swahili"
    assert baseline_reading("swahili", stemmer_installed=True) == ("swahili", None)
    # Malay and Indonesian, whose bila and sana the list holds too, stay Indonesian
    malay = ["Kucing itu tidur di atas sofa sementara kami bekerja di dapur.", "Terdapat buku di atas meja dan semuanya milik saya."]
    assert detect_language(malay) == "indonesian"


def test_basque_is_read_with_its_list_and_snowballs_stemmer():
    words = stop_list("basque")
    assert {"eta", "da", "ez", "dira", "ditu", "bere", "hau", "hori", "zen"} <= words
    # words common in English text (et al., hi, nor, non-, the Han) are none
    assert not words & {"al", "hi", "nor", "non", "han"}
    folder = Path(languages.__file__).with_name("stopwords")
    assert "stopwords-iso" in (folder / "basque.txt").read_text(encoding="utf-8").splitlines()[0]
    assert "basque.txt" in (folder / "LICENSE").read_text(encoding="utf-8")
    assert check_language("eu") == check_language("eu-ES") == "basque"
    assert baseline_reading("basque", stemmer_installed=True) == ("basque", "basque")
    assert baseline_reading("basque", stemmer_installed=False) == ("basque", None)
    # its single sentences, read as Italian or English before
    assert all(detect_language([t]) == "basque" for t in SENTENCES["basque"])


def test_irish_is_read_with_its_list_and_snowballs_stemmer():
    words = stop_list("irish")
    assert {"agus", "ar", "na", "sa", "le", "leis", "gach", "mé", "sé", "sí", "iad"} <= words
    # English's an, is, as, in, do, go are Irish words too, but an English text holds them in nearly
    # every sentence; the numbers carry a query's meaning; a, i, b', d' are no token
    assert not words & {"an", "is", "as", "in", "do", "go", "um", "a", "i", "deich", "fiche", "céad"}
    folder = Path(languages.__file__).with_name("stopwords")
    assert "stopwords-iso" in (folder / "irish.txt").read_text(encoding="utf-8").splitlines()[0]
    assert "irish.txt" in (folder / "LICENSE").read_text(encoding="utf-8")
    assert check_language("ga") == check_language("ga-IE") == "irish"
    assert baseline_reading("irish", stemmer_installed=True) == ("irish", "irish")
    pytest.importorskip("Stemmer")
    # its initial mutations (eclipsis, lenition) are taken off by Snowball's stemmer
    assert Tokenizer(stop_words="irish", stem="irish")("ar an mbord i gcathair a bhád") == ["an", "bord", "cathair", "bád"]


def test_afrikaans_is_told_from_dutch_by_the_words_only_each_writes():
    # read as Dutch before: Dutch's list holds die, op, en, is, in, het
    assert detect_language(SENTENCES["afrikaans"]) == "afrikaans"
    # Dutch writes de, niet, zijn and ij, which Afrikaans never does: it stays Dutch, with a
    # sentence of Afrikaans among its texts too, and Afrikaans does not contest a sample that
    # writes none of its own words (nie, ek, hulle, baie, vir, jy, hierdie)
    assert detect_language(DUTCH) == "dutch"
    assert detect_language(DUTCH + SENTENCES["afrikaans"][3:]) == "dutch"
    assert all(detect_language([text]) == "dutch" for text in DUTCH)
    assert languages._afrikaans_contest(Counter(["die", "kat", "op"]), 3, ["dutch", "afrikaans"]) == ["dutch"]
    assert languages._afrikaans_contest(Counter(["ek", "het", "nie"]), 3, ["dutch", "afrikaans"]) == ["afrikaans"]
    assert languages._afrikaans_contest(Counter(["ek", "de", "nie"]), 3, ["dutch", "afrikaans"]) == ["dutch", "afrikaans"]


def test_afrikaans_list_code_and_stems():
    words = stop_list("afrikaans")
    assert {"die", "nie", "ek", "hulle", "het", "van", "vir", "baie"} <= words
    assert not words & {"as", "by", "in", "is", "my", "so", "was", "dag", "gesê"}
    folder = Path(languages.__file__).with_name("stopwords")
    assert "stopwords-iso" in (folder / "afrikaans.txt").read_text(encoding="utf-8").splitlines()[0]
    assert "afrikaans.txt" in (folder / "LICENSE").read_text(encoding="utf-8")
    assert check_language("af") == check_language("af-ZA") == "afrikaans"
    # no stemmer of its own (Lucene's and Snowball's have none): Dutch's, as it was read before
    assert baseline_reading("afrikaans", stemmer_installed=True) == ("afrikaans", "dutch")
    assert baseline_reading("afrikaans", stemmer_installed=False) == ("afrikaans", None)


def test_tagalog_list_and_codes():
    words = stop_list("tagalog")
    assert {"ang", "ng", "mga", "sa", "na", "ay", "hindi", "siya", "kung"} <= words
    # and, there is, am: Tagalog's too, but English text's; numbers and words of meaning
    assert not words & {"at", "may", "am", "isa", "dalawa", "gusto", "kailangan", "panahon"}
    folder = Path(languages.__file__).with_name("stopwords")
    assert "stopwords-iso" in (folder / "tagalog.txt").read_text(encoding="utf-8").splitlines()[0]
    assert "tagalog.txt" in (folder / "LICENSE").read_text(encoding="utf-8")
    # Filipino (fil), its standard form, is read as Tagalog
    assert check_language("tl") == check_language("fil") == check_language("fil-PH") == "tagalog"
    assert baseline_reading("tagalog", stemmer_installed=True) == ("tagalog", None)


def test_galician_is_told_from_portuguese_by_what_only_each_writes():
    assert detect_language(SENTENCES["galician"]) == "galician"
    # a Galician sentence that writes none of its own words or ñ reads as before (Italian here)
    assert detect_language(["Hai libros enriba da mesa e son meus."]) == "italian"
    # Portuguese writes ã õ ç in nearly every sentence, Spanish its list's words: each stays itself,
    # with a sentence of Galician among its texts too
    assert detect_language(PORTUGUESE) == "portuguese"
    assert detect_language(PORTUGUESE + SENTENCES["galician"][:1]) == "portuguese"
    assert detect_language(SPANISH) == "spanish"
    assert all(detect_language([text]) == "spanish" for text in SPANISH)
    assert languages._galician_contest(Counter(["gato", "no", "sofá"]), 3, ["portuguese", "galician"]) == ["portuguese"]
    assert languages._galician_contest(Counter(["unha", "cociña"]), 2, ["portuguese", "galician"]) == ["galician"]
    assert languages._galician_contest(Counter(["unha", "não"]), 2, ["portuguese", "galician"]) == ["portuguese", "galician"]


def test_galician_list_code_and_stems():
    words = stop_list("galician")
    assert {"non", "unha", "polo", "pola", "coa", "cun", "tamén", "que", "para", "da", "na"} <= words
    # English's as, do, me, no, ten; Spanish's articles la, los (Galician's pronouns joined to a verb)
    assert not words & {"as", "do", "me", "no", "ten", "co", "la", "las", "lo", "los", "a", "o"}
    folder = Path(languages.__file__).with_name("stopwords")
    assert "stopwords-iso" in (folder / "galician.txt").read_text(encoding="utf-8").splitlines()[0]
    assert "galician.txt" in (folder / "LICENSE").read_text(encoding="utf-8")
    assert check_language("gl") == check_language("gl-ES") == "galician"
    assert baseline_reading("galician", stemmer_installed=True) == ("galician", "portuguese")
    assert baseline_reading("galician", stemmer_installed=False) == ("galician", None)
