"""Persian's reading (learnsim.text._persian and ._languages): Lucene's light stemmer in pure
Python (``stem="persian_light"``), the shipped Persian stop list, and Persian told by its script
from Arabic, Urdu and Kurdish, which write most of its letters."""
import pickle
import sys

import pytest

import learnsim
from learnsim.text import (LIGHT_STEMMERS, STOP_LANGUAGES, TextVectorizer, Tokenizer, baseline_reading,
                           check_language, detect_language, stop_list)
from learnsim.text._persian import persian_light_stem

PERSIAN = ["دانشجویان صبح زود به مدرسه رفتند و کتاب‌های خود را خواندند",
           "این شهر بزرگ است و مردم آن بسیار مهربان هستند",
           "درختان باغ در پاییز زرد می‌شوند", "کشاورز درخت سیب را آب داد",
           "کتابها روی میز کتابخانه قرار دارند", "او کتاب تازه‌ای درباره تاریخ خرید",
           "پزشکان بیمارستان شبانه‌روز کار می‌کنند", "پزشک به بیمار دارو داد"]
LABELS = [0, 0, 1, 1, 2, 2, 3, 3]
URDU = ["طالب علم صبح سویرے اسکول گئے اور انہوں نے اپنی کتابیں پڑھیں", "یہ شہر بہت بڑا ہے اور لوگ مہربان ہیں"]
ARABIC = ["ذهب الطلاب إلى المدرسة في الصباح الباكر", "اشترى أخي السيارة الحمراء من المعرض"]
# Sorani Kurdish writes Persian's letters and its own (ە ۆ ێ ڵ ڕ)
KURDISH = ["منداڵەکان بەیانی زوو چوونە قوتابخانە و کتێبەکانیان خوێندەوە", "ئەم شارە گەورەیە و خەڵکەکەی میهرەبانن"]


@pytest.mark.parametrize("word, stem", [
    ("کتابها", "كتاب"), ("کتاب", "كتاب"), ("كتاب", "كتاب"),       # ها; keheh and the Arabic kaf alike
    ("درختان", "درخت"), ("اطلاعات", "اطلاع"),                    # ان, ات
    ("بزرگترین", "بزرگ"), ("بزرگتر", "بزرگ"),                    # ترین, تر
    ("ماشینی", "ماشين"), ("شهرهای", "شهر"),                       # ی (Persian yeh read as yeh), then ها
    ("کتاب\u200cها", "كتاب"),                                    # ها, then the ZWNJ it leaves
    ("خانۀ", "خانه"), ("خانهٔ", "خانه"),                           # heh with yeh above, the hamza above
    ("أحمد", "احمد"), ("کـتـاب", "كتاب"),                           # Arabic's normalisation first
    ("تر", "تر"), ("هات", "هات"), ("نان", "نان"),                 # two letters always stay
    ("میوه", "ميوه"),                                            # no prefix is taken off
])
def test_lucenes_persian_normalisation_and_light_stemming(word, stem):
    assert persian_light_stem(word) == stem


def test_suffixes_are_taken_off_in_lucenes_order_each_once():
    # ها after ان: ان is earlier in the list, so it is looked at before ها leaves it at the end
    assert persian_light_stem("درختانها") == "درختان"
    # ات then ان: each in the list's order, on what the ones before left
    assert persian_light_stem("کارانات") == "كار"


def test_a_word_of_no_arabic_script_letter_is_left_as_it_is():
    for word in ("school", "écoles", "школа", "2024"):
        assert persian_light_stem(word) == word


def test_the_light_stemmer_needs_no_pystemmer_and_pickles(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # makes `import Stemmer` fail
    assert "persian_light" in LIGHT_STEMMERS and "persian" in STOP_LANGUAGES
    tok = Tokenizer(stop_words="persian", stem="persian_light")
    assert tok("درختان باغ در پاییز زرد می‌شوند") == ["درخت", "باغ", "پاييز", "زرد"]
    again = pickle.loads(pickle.dumps(tok))
    assert again("درختان") == tok("درخت") == ["درخت"]
    vec = TextVectorizer("tfidf", stop_words="persian", stem="persian_light").fit(PERSIAN)
    clone = TextVectorizer._from_state(*vec._get_state())
    assert clone.get_params()["stem"] == "persian_light"
    assert (clone.transform(["پزشک"]) != vec.transform(["پزشک"])).nnz == 0
    assert vec.transform(["پزشک"]).nnz == 1          # the query's form meets پزشکان and پزشک


def test_snowballs_persian_stays_pystemmers():
    # stem="persian" named Snowball's stemmer before: a model saved with it reads as it did
    pytest.importorskip("Stemmer")
    import Stemmer

    assert Tokenizer(stem="persian")("درختان") == [Stemmer.Stemmer("persian").stemWord("درختان")]


def test_the_persian_stop_list_ships_with_its_source_and_licence():
    from pathlib import Path

    import learnsim.text._languages as languages

    folder = Path(languages.__file__).with_name("stopwords")
    assert "stopwords-iso" in (folder / "persian.txt").read_text(encoding="utf-8").splitlines()[0]
    licence = (folder / "LICENSE").read_text(encoding="utf-8")
    assert "persian.txt is stopwords-iso's Persian" in licence and "Copyright (c) 2016 Gene Diaz" in licence
    words = stop_list("persian")
    assert {"در", "به", "از", "و", "را", "این", "است", "که"} <= words
    # the words left out carry a query's meaning; no entry is punctuation or two words
    assert not words & {"بزرگ", "مردم", "امروز", "راه"}
    assert all(" " not in w and w[0].isalpha() for w in words)
    # a stop word typed on an Arabic keyboard (ي, ك) is dropped as the Persian one is
    assert Tokenizer(stop_words="persian")("اين شهر بزرگ است و مردم آن بسیار مهربان هستند") == \
        ["شهر", "بزرگ", "مردم", "مهربان"]


@pytest.mark.parametrize("code", ["fa", "FA", "fa-IR", "fa_AF", "persian"])
def test_persian_is_named_by_its_code(code):
    assert check_language(code) == "persian"


def test_a_persian_collection_is_told_by_its_script():
    assert detect_language(PERSIAN) == "persian"
    assert detect_language(["این شهر بزرگ است و مردم آن بسیار مهربان هستند"]) == "persian"
    # titles with no stop word are Persian too: the script says so
    assert detect_language(["کتابخانه ملی", "گزارش پزشکی"]) == "persian"


def test_urdu_kurdish_and_arabic_are_not_read_as_persian():
    # Urdu writes ی ک پ چ گ too, and its own ے ہ ں ٹ ڈ ڑ ھ: it is Urdu (tests/text/test_urdu_hebrew.py)
    assert detect_language(URDU) == "urdu"
    assert detect_language(URDU + PERSIAN[:2]) == "english"     # neither's letters alone
    assert detect_language(KURDISH) == "sorani"       # Central Kurdish, read in its language since it has a list
    assert detect_language(ARABIC) == "arabic"
    # a few Persian texts in an English collection leave it English
    english = ["The cat sleeps on the sofa while we work in the kitchen.", "There are books on the table."]
    assert detect_language(english * 3 + PERSIAN[:1]) == "english"


def test_the_baselines_reading_of_persian_needs_no_pystemmer():
    assert baseline_reading("persian", stemmer_installed=False) == ("persian", "persian_light")
    assert baseline_reading("persian", stemmer_installed=True) == ("persian", "persian_light")


def test_other_languages_are_read_as_before():
    assert baseline_reading("english", False) == ("english", None)
    assert baseline_reading("english", True) == ("english", "porter")
    assert baseline_reading("french", True) == ("french", "french")
    assert baseline_reading("arabic", True) == ("arabic", "arabic_light")
    assert baseline_reading("hindi", True) == ("hindi", "hindi_light")
    # Persian's stop words are no contestant for a collection in Latin or Cyrillic letters
    assert detect_language(["Le chat dort sur le canapé pendant que nous travaillons."]) == "french"
    assert detect_language(["The cats sleep on the sofa while we work."]) == "english"
    assert detect_language(["Кошка спит на диване, пока мы работаем на кухне."]) == "russian"


def test_a_persian_fit_reads_persian_as_its_baselines_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)      # no PyStemmer needed
    fitted = learnsim.fit(PERSIAN, clusters=LABELS, baseline_holdout=None, stop_words="auto", stem=True).vectorizer
    assert (fitted.stop_words, fitted.stem) == ("persian", "persian_light")
    vocabulary = set(fitted.get_feature_names_out())
    assert {"درخت", "پزشك", "كتاب"} <= vocabulary and not vocabulary & {"در", "به", "را"}
    named = learnsim.fit(PERSIAN, clusters=LABELS, baseline_holdout=None, language="fa", stem=True).vectorizer
    assert (named.stop_words, named.stem) == (None, "persian_light")


def test_persian_typed_on_an_arabic_keyboard_is_persian():
    # ي and ك for ی and ک, and a rare پ or گ: Arabic's letters, Persian's words (است, را, این)
    typed = [t.translate(str.maketrans({"ی": "ي", "ک": "ك"})) for t in PERSIAN]
    assert detect_language(typed) == "persian"
    assert detect_language(["اين شهر بزرگ است و مردم آن بسيار مهربان هستند و كتابها را خواندند"]) == "persian"
    # Arabic, its titles of no stop word too, stays Arabic
    assert detect_language(ARABIC) == "arabic"
    assert detect_language(["سيارة كهربائية", "مدرسة جديدة"]) == "arabic"


def test_plurals_in_gan_and_suffixes_after_a_non_joiner_are_read_as_lucene_reads_them():
    # Lucene's PersianStemmer has no rule for گان: ستارگان (stars) stays apart from ستاره, as
    # نویسندگان from نویسنده; learnsim adds no rule Lucene lacks
    assert persian_light_stem("ستارگان") == "ستارگ" != persian_light_stem("ستاره")
    # its PersianCharFilter reads the non-joiner as a space, as learnsim's tokenizer does: ها is
    # then a word of its own, and the word before it meets the one written whole
    reading = Tokenizer(stop_words="persian", stem="persian_light")
    assert reading("کتاب\u200cها") == reading("کتابها") == ["كتاب"]
