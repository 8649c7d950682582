"""Urdu's and Hebrew's readings (learnsim.text._languages): each detected by its script (Urdu by
its stop words too), its shipped stop list dropped, its words left unstemmed; the languages that
write the same scripts (Persian, Arabic, Punjabi, Sindhi, Pashto, Kurdish, Yiddish) read as before."""
import sys
import unicodedata
from pathlib import Path

import pytest

import learnsim
from learnsim.text import (STOP_LANGUAGES, Tokenizer, baseline_reading, check_language, detect_language,
                           stop_list)
from learnsim.text import _languages as languages

URDU = ["طالب علم صبح سویرے اسکول گئے اور انہوں نے اپنی کتابیں پڑھیں", "یہ شہر بہت بڑا ہے اور لوگ مہربان ہیں",
        "ہمارے گھر کے سامنے ایک بڑا درخت ہے", "ڈاکٹر نے مریض کو دوا دی اور آرام کا مشورہ دیا"]
LABELS = [0, 1, 1, 0]
# Punjabi in Shahmukhi writes Urdu's letters, with its own words (وچ, تے, دا, نوں)
PUNJABI = ["اوہ اپنے پنڈ وچ رہندا اے تے روز کھیتاں وچ کم کردا اے", "میری ماں نے مینوں روٹی دتی تے میں کھا لئی",
           "ساڈے گھر دے سامنے اک وڈا رکھ اے", "اوہناں نے کل ساریاں گلاں سن لئیاں سن"]
SINDHI = ["هي ڪتاب تمام سٺو آهي ۽ مون کي پسند آهي", "ٻار اسڪول ويا ۽ پنهنجا ڪتاب پڙهيا"]
PASHTO = ["زه ښوونځي ته ځم او کتابونه لولم", "دا ښار ډېر لوی دی او خلک یې مهربانه دي"]
KURDISH = ["منداڵەکان بەیانی زوو چوونە قوتابخانە و کتێبەکانیان خوێندەوە", "ئەم شارە گەورەیە و خەڵکەکەی میهرەبانن"]
PERSIAN = ["این شهر بزرگ است و مردم آن بسیار مهربان هستند", "کتابها روی میز کتابخانه قرار دارند"]
ARABIC = ["ذهب الطلاب إلى المدرسة في الصباح الباكر", "اشترى أخي السيارة الحمراء من المعرض"]
HEBREW = ["הילדים הלכו לבית הספר בבוקר", "העיר הזאת גדולה והאנשים בה נחמדים מאוד",
          "הרופא נתן למטופל תרופה חדשה", "המשורר כתב שירים על הים ועל האהבה"]
# Genesis 1:1-2, pointed: nearly every letter has its vowel
POINTED = ["בְּרֵאשִׁית בָּרָא אֱלֹהִים אֵת הַשָּׁמַיִם וְאֵת הָאָרֶץ", "וְהָאָרֶץ הָיְתָה תֹהוּ וָבֹהוּ וְחֹשֶׁךְ עַל פְּנֵי תְהוֹם"]
# Yiddish in YIVO's spelling (אַ אָ פֿ ײַ), and a ligature
YIDDISH = ["דער ייִד איז געגאַנגען אין שול און האָט זיך געבעטן מיט די אַנדערע מענטשן",
           "מיר וווינען אין אַ קליין שטעטל פֿון פּוילן", "ער האָט געקױפֿט אַ נײַע הויז"]
ENGLISH = ["The cat sleeps on the sofa while we work in the kitchen.", "There are books on the table."]


@pytest.mark.parametrize("language, words", [("urdu", {"کی", "کا", "کے", "میں", "ہے", "اور", "نہیں", "بہت"}),
                                             ("hebrew", {"של", "את", "על", "הוא", "היא", "זה", "לא", "גם"})])
def test_the_stop_lists_are_their_languages_words(language, words):
    assert language in STOP_LANGUAGES and words <= stop_list(language)
    letters = "\u0600-\u06ff" if language == "urdu" else "\u05d0-\u05ea"
    for word in stop_list(language):
        assert word and all(letters[0] <= c <= letters[-1] for c in word), word
    # the lists of stopwords-iso and spaCy's Urdu are written in the wrong letters (بہت as ثہت,
    # میں as هیں): none of those is here
    assert not {"ثہت", "هیں", "ًہیں", "ثھی"} & stop_list("urdu")


@pytest.mark.parametrize("language, source, licence, dropped", [
    ("urdu", "urduhack", "Copyright (c) 2018 Urdu Hack", {"شکریہ", "اتوار", "اگست", "ہزار", "دو", "صاحب", "لوگوں", "بڑی"}),
    ("hebrew", "spaCy", "ExplosionAI GmbH", {"מקום", "סיבה", "דרך", "מידה"})])
def test_the_stop_lists_ship_with_their_source_and_licence_less_the_words_of_meaning(language, source, licence,
                                                                                     dropped):
    folder = Path(languages.__file__).with_name("stopwords")
    header = (folder / f"{language}.txt").read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith("#") and source in header and "MIT" in header
    text = (folder / "LICENSE").read_text(encoding="utf-8")
    assert f"{language}.txt is {source}'s" in text and licence in text
    assert not dropped & stop_list(language) and all(w in header for w in dropped)


@pytest.mark.parametrize("code, name", [("ur", "urdu"), ("ur-PK", "urdu"), ("urdu", "urdu"), ("he", "hebrew"),
                                        ("he-IL", "hebrew"), ("iw", "hebrew"), ("Hebrew", "hebrew")])
def test_urdu_and_hebrew_are_named_by_their_codes(code, name):
    assert check_language(code) == name


def test_an_urdu_collection_is_told_by_its_script_and_stop_words():
    assert detect_language(URDU) == "urdu"
    # typed on an Arabic keyboard (ي ك ه for ی ک ہ): Urdu's ے ں ٹ ڑ ھ are still there
    typed = [t.translate(str.maketrans({"ی": "ي", "ک": "ك", "ہ": "ه"})) for t in URDU]
    assert detect_language(typed) == "urdu"
    # presentation forms, as old files write them (NFKC reads them as the letters they show)
    forms = [unicodedata.normalize("NFKC", t) for t in URDU]
    assert detect_language(forms) == "urdu"


def test_languages_of_urdus_script_and_other_collections_are_read_as_before():
    assert detect_language(PUNJABI) == "english"        # Urdu's letters, about a fifth Urdu's stop words
    assert detect_language(SINDHI) == "english" and detect_language(PASHTO) == "english"
    assert detect_language(KURDISH) == "sorani"       # Central Kurdish, read in its language since it has a list
    assert detect_language(PERSIAN) == "persian" and detect_language(ARABIC) == "arabic"
    assert detect_language(["किसान खेत में काम करते हैं और गाँव में रहते हैं"]) == "hindi"
    assert detect_language(["Le chat dort sur le canapé pendant que nous travaillons."]) == "french"
    assert detect_language(["Кошка спит на диване, пока мы работаем на кухне."]) == "russian"
    # a few Urdu or Hebrew texts in an English collection leave it English
    assert detect_language(ENGLISH * 3 + URDU[:1]) == "english"
    assert detect_language(ENGLISH * 3 + HEBREW[:1]) == "english"


def test_a_hebrew_collection_is_told_by_its_script():
    assert detect_language(HEBREW) == "hebrew"
    assert detect_language(POINTED) == "hebrew"        # its alefs with qamats are not Yiddish's
    assert detect_language(["בית ספר", "מזג אוויר"]) == "hebrew"     # titles without a stop word too
    assert detect_language(["\ufb2a\ufb4f\ufb20"]) == "hebrew"        # presentation forms


def test_yiddish_is_read_as_before():
    assert detect_language(YIDDISH) == "english"
    assert detect_language(YIDDISH[1:2]) == "english"       # פֿ and אַ alone, no ligature


def test_urdu_and_hebrew_are_read_with_their_stop_words_and_no_stemmer():
    for language in ("urdu", "hebrew"):
        assert baseline_reading(language, stemmer_installed=True) == (language, None)
        assert baseline_reading(language, stemmer_installed=False) == (language, None)
    # written with Urdu's or the Arabic keyboard's letters, or Hebrew's points, a stop word is dropped
    assert Tokenizer(stop_words="urdu")("یہ کتاب بہت اچھی ہے") == ["كتاب", "اچھي"]
    assert Tokenizer(stop_words="urdu")("يه كتاب بهت اچھي هے") == ["كتاب", "اچھي"]
    assert Tokenizer(stop_words="hebrew")("הספר שֶׁל הילד") == ["הספר", "הילד"]


def test_an_urdu_fit_reads_urdu_as_its_baselines_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)      # no PyStemmer needed: no stemmer at all
    fitted = learnsim.fit(URDU, clusters=LABELS, baseline_holdout=None, stop_words="auto", stem=True).vectorizer
    assert (fitted.stop_words, fitted.stem) == ("urdu", None)
    vocabulary = set(fitted.get_feature_names_out())
    assert {"كتابيں", "شهر"} <= vocabulary and not vocabulary & {"اور", "نے", "هے"}
