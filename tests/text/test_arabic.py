"""Arabic's reading (learnsim.text._arabic and ._languages): Lucene's light stemmer in pure
Python (``stem="arabic_light"``), the shipped Arabic stop list, and Arabic told by its script
from Persian and Urdu, which write most of its letters."""
import pickle
import sys

import pytest

import learnsim
from learnsim.text import (LIGHT_STEMMERS, TextVectorizer, Tokenizer, baseline_reading, check_language,
                           detect_language, stop_list)
from learnsim.text._arabic import arabic_light_stem

ARABIC = ["ذهب الطلاب إلى المدرسة في الصباح الباكر", "تقع المدرسة الجديدة قرب الحديقة العامة",
          "اشترى أخي السيارة الحمراء من المعرض", "السيارات الكهربائية أقل تلويثا للهواء",
          "قرأت الكتاب كله في عطلة نهاية الأسبوع", "والكتاب الذي أهداني إياه جدي قديم جدا",
          "المعلمون يشرحون الدروس بصبر واهتمام", "التقى المدير بالمعلمين في القاعة بعد الظهر"]
LABELS = [0, 0, 1, 1, 2, 2, 3, 3]
PERSIAN = ["دانشجویان صبح زود به مدرسه رفتند و کتاب‌های خود را خواندند",
           "این شهر بزرگ است و مردم آن بسیار مهربان هستند"]
URDU = ["طالب علم صبح سویرے اسکول گئے اور انہوں نے اپنی کتابیں پڑھیں", "یہ شہر بہت بڑا ہے اور لوگ مہربان ہیں"]


@pytest.mark.parametrize("word, stem", [
    ("المدرسة", "مدرس"), ("مدرسة", "مدرس"), ("بالمدرسة", "مدرس"),       # ال, بال; ة read as ه, then taken off
    ("والكتاب", "كتاب"), ("كالبحر", "بحر"), ("فالولد", "ولد"), ("للطلاب", "طلاب"),
    ("المعلمون", "معلم"), ("المعلمين", "معلم"), ("معلمات", "معلم"), ("كتابها", "كتاب"),
    ("العربية", "عرب"),                       # ية read as يه, taken off
    ("المستشفى", "مستشف"),                    # ى read as ي, then taken off
    ("أحمد", "احمد"), ("إسلام", "اسلام"), ("كَتَبَ", "كتب"), ("كـتـاب", "كتاب"),   # hamza seats, harakat, tatweel
    ("ولد", "ولد"),                           # the lone wa- needs four letters
    ("الم", "الم"), ("كتبه", "كتب"), ("به", "به"),    # two letters stay after any affix
])
def test_lucenes_light_stemming_rules(word, stem):
    assert arabic_light_stem(word) == stem


def test_suffixes_are_taken_off_in_lucenes_order_each_once():
    # ها then ات: each suffix in the list's order, on what the ones before left
    assert arabic_light_stem("معلماتها") == "معلم"
    # ه after ون: ون is earlier in the list, so it is not looked at again
    assert arabic_light_stem("كاتبونه") == "كاتبون"
    # ي after ين: ي is later in the list, ين earlier (and not looked at again)
    assert arabic_light_stem("مدينتي") == "مدينت"


def test_a_word_of_no_arabic_letter_is_left_as_it_is():
    for word in ("school", "écoles", "школа", "2024", "مدارس"):
        assert arabic_light_stem(word) == word


def test_the_light_stemmer_needs_no_pystemmer_and_pickles(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # makes `import Stemmer` fail
    assert "arabic_light" in LIGHT_STEMMERS
    tok = Tokenizer(stop_words="arabic", stem="arabic_light")
    assert tok("ذهب الطلاب إلى المدرسة") == ["ذهب", "طلاب", "مدرس"]
    again = pickle.loads(pickle.dumps(tok))
    assert again("بالمدرسة") == tok("مدرسة") == ["مدرس"]
    vec = TextVectorizer("tfidf", stop_words="arabic", stem="arabic_light").fit(ARABIC)
    clone = TextVectorizer._from_state(*vec._get_state())
    assert clone.get_params()["stem"] == "arabic_light"
    assert (clone.transform(["سيارة"]) != vec.transform(["سيارة"])).nnz == 0
    assert vec.transform(["سيارة"]).nnz == 1          # the query's form meets السيارة and السيارات


def test_snowballs_arabic_stays_pystemmers():
    # stem="arabic" named Snowball's stemmer before: a model saved with it reads as it did
    pytest.importorskip("Stemmer")
    import Stemmer

    assert Tokenizer(stem="arabic")("المعلمون") == [Stemmer.Stemmer("arabic").stemWord("المعلمون")]


def test_a_stem_no_stemmer_has_is_still_refused_by_name():
    with pytest.raises(ValueError, match="stem must be None, 'porter' or a Snowball language.*arabic_light.*'klingon'"):
        Tokenizer(stem="klingon")


def test_the_arabic_stop_list_ships_with_its_source_and_licence():
    from pathlib import Path

    import learnsim.text._languages as languages

    folder = Path(languages.__file__).with_name("stopwords")
    assert "python-stop-words" in (folder / "arabic.txt").read_text(encoding="utf-8").splitlines()[0]
    assert "arabic.txt and hindi.txt are python-stop-words'" in (folder / "LICENSE").read_text(encoding="utf-8")
    words = stop_list("arabic")
    assert {"في", "من", "على", "التي", "هذا"} <= words
    # the news words left out carry a query's meaning
    assert not words & {"مليون", "زيارة", "مايو"}
    assert Tokenizer(stop_words="arabic")("ذهب إلى المدرسة في الصباح") == ["ذهب", "المدرسه", "الصباح"]


@pytest.mark.parametrize("code", ["ar", "AR", "ar-EG", "ar_SA", "arabic"])
def test_arabic_is_named_by_its_code(code):
    assert check_language(code) == "arabic"


def test_an_arabic_collection_is_told_by_its_script():
    assert detect_language(ARABIC) == "arabic"
    # titles and short texts with no stop word are Arabic too: the script says so
    assert detect_language(["سيارة كهربائية", "مدرسة جديدة"]) == "arabic"
    # a foreign name written with Persian letters (پ, گ) now and then
    assert detect_language(ARABIC + ["زار الرئيس باكستان وبولندا ثم سافر إلى پاريس وگوتنبرغ"]) == "arabic"
    # presentation forms, as old files write them
    forms = "\ufedf\ufe8e\ufe91\ufe8e\ufe91 \ufee3\ufeb0\ufe98\ufeee\ufea2 \ufedf\ufedc\ufee8\ufeea"
    assert detect_language([forms]) == "arabic"


def test_persian_and_urdu_are_not_read_as_arabic():
    # their stop words (من, ما, او) are partly Arabic's; their letters ی ک ے ہ are not
    assert detect_language(PERSIAN) == "persian"      # Persian's own reading (tests/text/test_persian.py)
    assert detect_language(URDU) == "urdu"            # Urdu's own reading (tests/text/test_urdu_hebrew.py)
    assert detect_language(["این شهر بزرگ است و مردم آن بسیار مهربان هستند"] * 3 + ARABIC[:2]) == "persian"


def test_other_collections_are_detected_as_before():
    english = ["The cat sleeps on the sofa while we work in the kitchen.", "There are books on the table."]
    french = ["Le chat dort sur le canapé pendant que nous travaillons.", "Il y a des livres sur la table."]
    assert detect_language(english) == "english" and detect_language(french) == "french"
    # a few Arabic texts in an English collection leave it English
    assert detect_language(english * 3 + ARABIC[:1]) == "english"
    assert detect_language(["東京の天気", "x7 q9"]) == "english"


def test_the_baselines_reading_of_arabic_needs_no_pystemmer():
    assert baseline_reading("arabic", stemmer_installed=False) == ("arabic", "arabic_light")
    assert baseline_reading("arabic", stemmer_installed=True) == ("arabic", "arabic_light")
    # the others as before
    assert baseline_reading("english", False) == ("english", None)
    assert baseline_reading("english", True) == ("english", "porter")
    assert baseline_reading("french", True) == ("french", "french")


def test_an_arabic_fit_reads_arabic_as_its_baselines_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)      # no PyStemmer needed
    fitted = learnsim.fit(ARABIC, clusters=LABELS, baseline_holdout=None, stop_words="auto", stem=True).vectorizer
    assert (fitted.stop_words, fitted.stem) == ("arabic", "arabic_light")
    vocabulary = set(fitted.get_feature_names_out())
    assert {"مدرس", "سيار", "كتاب", "معلم"} <= vocabulary and not vocabulary & {"في", "الى"}
    named = learnsim.fit(ARABIC, clusters=LABELS, baseline_holdout=None, language="ar", stem=True).vectorizer
    assert (named.stop_words, named.stem) == (None, "arabic_light")


def test_a_sample_of_no_arabic_or_devanagari_is_not_put_in_normal_form(monkeypatch):
    # the script checks look for a character of their script first: French, Russian or Greek
    # text (not ASCII) is not normalised and counted letter by letter for them
    import learnsim.text._languages as languages

    seen = []
    monkeypatch.setattr(languages.unicodedata, "normalize", lambda form, text: seen.append(form) or text)
    assert detect_language(["Le chat dort sur le canapé pendant que nous travaillons."]) == "french"
    assert detect_language(["Кошка спит на диване, пока мы работаем на кухне."]) == "russian"
    assert seen == []
    assert detect_language(ARABIC) == "arabic" and seen
