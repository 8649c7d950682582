"""Hindi's reading (learnsim.text._hindi and ._languages): Lucene's Hindi normaliser and light
stemmer in pure Python (``stem="hindi_light"``), the shipped Hindi stop list, and Hindi told by
its script and its stop words from Marathi and Nepali, which write Devanagari too."""
import pickle
import sys

import pytest

import learnsim
from learnsim.text import LIGHT_STEMMERS, Tokenizer, baseline_reading, check_language, detect_language, stop_list
from learnsim.text._hindi import hindi_light_stem

HINDI = ["भारत की राजधानी नई दिल्ली है और यह देश का सबसे बड़ा शहर नहीं है।",
         "बच्चे सुबह स्कूल जाते हैं और शाम को घर लौटते हैं।",
         "किसानों ने इस साल अच्छी फसल काटी क्योंकि बारिश समय पर हुई।",
         "डॉक्टर ने मरीज़ को दवा दी और आराम करने की सलाह दी।"]
LABELS = [0, 0, 1, 1]
MARATHI = ["भारताची राजधानी नवी दिल्ली आहे आणि हे देशातील सर्वात मोठे शहर नाही.",
           "मुले सकाळी शाळेत जातात आणि संध्याकाळी घरी परत येतात.",
           "शेतकऱ्यांनी या वर्षी चांगले पीक घेतले कारण पाऊस वेळेवर पडला."]
NEPALI = ["नेपालको राजधानी काठमाडौं हो र यो देशको सबैभन्दा ठूलो सहर हो।",
          "बालबालिकाहरू बिहान विद्यालय जान्छन् र बेलुका घर फर्कन्छन्।",
          "किसानहरूले यस वर्ष राम्रो बाली काटे किनभने समयमै पानी पर्यो।"]


@pytest.mark.parametrize("word, stem", [
    # the nukta left out; ियों, ियां (the chandrabindu read as anusvara), ी read as ि, then taken off
    ("लड़कियों", "लडक"), ("लड़कियाँ", "लडक"), ("लड़की", "लडक"), ("लड़का", "लडक"), ("लड़के", "लडक"),
    ("किताबें", "किताब"), ("किताब", "किताब"), ("किसानों", "किसान"),
    ("गाँव", "गांव"), ("गांव", "गांव"),          # chandrabindu is anusvara
    ("सम्बन्ध", "समबंध"), ("संबंध", "संबंध"),     # a dead na is anusvara, the virama left out
    ("फ़िल्म", "फिलम"), ("फिल्म", "फिलम"),        # nukta and virama left out
    ("डॉक्टर", "डोकटर"),                          # the chandra o is o
    ("खाएंगे", "खा"), ("पढ़ाकर", "पढ"),           # five and three letters off
    ("नदी", "नद"), ("ना", "ना"),                  # ी read as ि, then taken off; two letters stay
])
def test_lucenes_hindi_normalisation_and_light_stemming(word, stem):
    assert hindi_light_stem(word) == stem


def test_suffixes_are_matched_on_the_normalised_word_as_lucene_matches_them():
    # ाऊंगा is listed with a long ऊ, which normalisation makes उ: the rule never fits, ा does
    assert hindi_light_stem("जाऊंगा") == "जाउंग"


def test_a_word_of_no_devanagari_is_left_as_it_is():
    for word in ("film", "école", "مدرسة", "2024"):
        assert hindi_light_stem(word) == word


def test_the_light_stemmer_needs_no_pystemmer_and_pickles(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # makes `import Stemmer` fail
    assert "hindi_light" in LIGHT_STEMMERS
    tok = Tokenizer(stop_words="hindi", stem="hindi_light")
    assert tok("नदियों में बाढ़ आ गई") == ["नद", "बाढ", "गइ"]        # (आ, one letter, is no term)
    assert pickle.loads(pickle.dumps(tok))("नदी") == tok("नदी") == ["नद"]


def test_the_hindi_stop_list_ships_with_its_source_and_licence():
    from pathlib import Path

    import learnsim.text._languages as languages

    folder = Path(languages.__file__).with_name("stopwords")
    assert "python-stop-words" in (folder / "hindi.txt").read_text(encoding="utf-8").splitlines()[0]
    assert "arabic.txt and hindi.txt are python-stop-words'" in (folder / "LICENSE").read_text(encoding="utf-8")
    words = stop_list("hindi")
    assert {"का", "की", "के", "है", "में", "और", "से", "को"} <= words
    assert "घर" not in words             # home: a noun a query means


@pytest.mark.parametrize("code", ["hi", "hi-IN", "HI", "hindi"])
def test_hindi_is_named_by_its_code(code):
    assert check_language(code) == "hindi"


def test_a_hindi_collection_is_told_by_its_script_and_stop_words():
    assert detect_language(HINDI) == "hindi"
    # their words are not Hindi's: not Hindi, as before (read in their own languages since their
    # stop lists shipped, tests/text/test_indic_armenian.py)
    assert detect_language(MARATHI) == "marathi"
    assert detect_language(NEPALI) == "nepali"
    # a few Hindi texts in an English collection leave it English
    english = ["The cat sleeps on the sofa while we work in the kitchen.", "There are books on the table."]
    assert detect_language(english * 3 + HINDI[:1]) == "english"


def test_the_baselines_reading_of_hindi_needs_no_pystemmer():
    assert baseline_reading("hindi", stemmer_installed=False) == ("hindi", "hindi_light")


@pytest.mark.filterwarnings("ignore:only 2 clusters")
def test_a_hindi_fit_reads_hindi_as_its_baselines_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)
    fitted = learnsim.fit(HINDI, clusters=LABELS, baseline_holdout=None, stop_words="auto", stem=True).vectorizer
    assert (fitted.stop_words, fitted.stem) == ("hindi", "hindi_light")
    vocabulary = set(fitted.get_feature_names_out())
    assert "किसान" in vocabulary and not vocabulary & {"की", "है", "और"}
