"""Sorani (Central Kurdish): Lucene's normaliser and light stemmer ported (learnsim.text._sorani), its
stop list and code, and its detection by script and stop words, every other Arabic-script language
read as before."""
import pytest

import learnsim.text._languages as languages
from learnsim.text import LIGHT_STEMMERS, STOP_LANGUAGES, Tokenizer, baseline_reading, check_language, detect_language
from learnsim.text._sorani import sorani_light_stem

from test_detect_cost import ARABIC, PERSIAN, PUNJABI, URDU

# Lucene's TestSoraniStemFilter: (word, its stem), through the normaliser and the stemmer
LUCENE = [("پیاوێک", "پیاو"), ("دەرگایەک", "دەرگا"), ("پیاوەكە", "پیاو"), ("دەرگاكە", "دەرگا"), ("کتاویە", "کتاوی"),
          ("دەرگایە", "دەرگا"), ("پیاوان", "پیاو"), ("دەرگایان", "دەرگا"), ("پیاوەکان", "پیاو"), ("دەرگاکان", "دەرگا"),
          ("پیاوانە", "پیاو"), ("دەرگایانە", "دەرگا"), ("هۆتیلی", "هۆتیل"), ("هۆتیلێکی", "هۆتیل"), ("هۆتیلانی", "هۆتیل"),
          ("دوورەوە", "دوور"), ("نیوەشەودا", "نیوەشەو"), ("سۆرانا", "سۆران"), ("پارەمان", "پارە"), ("پارەتان", "پارە"),
          ("پارەیان", "پارە"), ("", "")]
# hand-written
SORANI = ["هەولێر پایتەختی هەرێمی کوردستانە و شارێکی زۆر کۆنە.",
          "ئێمە هەموو ڕۆژێک دەچینە قوتابخانە و وانەکانمان دەخوێنین.",
          "ئەو کتێبەکە لە کتێبخانەکەدا دەخوێنێتەوە.",
          "ئەمڕۆ کەشوهەوا زۆر ساردە بەڵام خۆر هەیە."]
# Uyghur writes Sorani's ە ۆ and its own ې ۇ ۈ ۋ ڭ, which Sorani never does
UYGHUR = ["ئۈرۈمچى شىنجاڭدىكى ئەڭ چوڭ شەھەر.", "بالىلار مەكتەپتىن كېيىن باغچىدا ئوينايدۇ."]


@pytest.mark.parametrize("word,stem", LUCENE)
def test_the_stems_are_lucenes(word, stem):
    assert sorani_light_stem(word) == stem


def test_a_word_written_with_arabics_yeh_and_kaf_stems_alike():
    # learnsim's tokenizer writes ی ک as ي ك: the stemmer normalises first
    assert sorani_light_stem("كتێبەكان") == sorani_light_stem("کتێبەکان") == sorani_light_stem("کتێبێک") == "کتێب"
    # a final heh is the vowel ae, a reh beginning a word the rreh; harakat and the non-joiner go
    assert sorani_light_stem("ماڵه") == sorani_light_stem("ماڵە")
    assert sorani_light_stem("رووبار") == sorani_light_stem("ڕووبار") == "ڕووبار"
    assert sorani_light_stem("کتێبَ") == "کتێب"


def test_sorani_is_named_read_and_stemmed_without_pystemmer():
    assert "sorani" in STOP_LANGUAGES and "sorani_light" in LIGHT_STEMMERS
    assert check_language("ckb") == check_language("sorani") == "sorani"
    with pytest.raises(ValueError):
        check_language("ku")          # Kurdish's code names Kurmanji too, in Latin letters
    assert baseline_reading("sorani", stemmer_installed=False) == ("sorani", "sorani_light")
    tokens = Tokenizer(stop_words="sorani", stem="sorani_light")("ئەو کتێبەکان لە کتێبخانەکەدا دەخوێنێتەوە لەگەڵ مامۆستاکان")
    assert "کتێب" in tokens and "مامۆستا" in tokens
    assert not {"ئەو", "لە", "لەگەڵ"} & set(tokens)


def test_a_sorani_collection_is_detected_and_every_other_as_before(monkeypatch):
    assert detect_language(SORANI) == "sorani"
    assert detect_language(SORANI * 50) == "sorani"
    with monkeypatch.context() as m:
        m.setattr(languages, "_is_sorani", lambda *args: False)
        assert detect_language(SORANI) == "english"
    for texts, language in ((ARABIC, "arabic"), (PERSIAN, "persian"), (URDU, "urdu"), (PUNJABI, "english"),
                            (UYGHUR, "english")):
        assert detect_language(texts) == language
    # Sorani titles of few stop words stay English, as every script's do
    assert detect_language(["کتێبی کوردی", "مێژووی هەولێر", "شیعرەکانی نالی"]) == "english"
    # a few Sorani texts in a Persian or Arabic collection leave it as it was read
    for texts in (PERSIAN * 5 + SORANI[:1], ARABIC * 10 + SORANI[:1], URDU * 5 + SORANI[:1]):
        with monkeypatch.context() as m:
            m.setattr(languages, "_is_sorani", lambda *args: False)
            before = detect_language(texts)
        assert detect_language(texts) == before
