"""Bengali, Tamil, Telugu, Marathi, Nepali and Armenian (learnsim.text._languages): their stop
lists, codes, light stemmers and detection by script (and stop words), and every collection that
was detected before detected as it was: Hindi, which writes Devanagari as Marathi and Nepali do,
above all."""
import re
import unicodedata

import pytest

from learnsim.text import STOP_LANGUAGES, Tokenizer, check_language, detect_language, stop_list
from learnsim.text._bengali import bengali_light_stem
from learnsim.text._languages import _indic_armenian_language, baseline_reading, load_stemmer, stop_list_source
from learnsim.text._telugu import telugu_light_stem

from conftest import require_corpus
from test_snowball_languages import CORPORA, NEIGHBOURS

NEW = ("bengali", "tamil", "telugu", "marathi", "nepali", "armenian")
SENTENCES = {
    "bengali": ["আমি প্রতিদিন সকালে স্কুলে যাই এবং বিকেলে বাড়ি ফিরি।", "এই শহরে অনেক সুন্দর পার্ক আর পুরনো বাড়ি আছে।",
                "টেবিলের উপর কিছু বই আছে, সেগুলো আমার।"],
    "tamil": ["நான் ஒவ்வொரு நாளும் காலையில் பள்ளிக்குச் செல்கிறேன்.",
              "இந்த நகரத்தில் பல அழகான பூங்காக்கள் மற்றும் பழைய வீடுகள் உள்ளன.", "மேசை மீது சில புத்தகங்கள் உள்ளன, அவை என்னுடையவை."],
    "telugu": ["నేను ప్రతి రోజు ఉదయం పాఠశాలకు వెళ్తాను.", "ఈ నగరంలో చాలా అందమైన పార్కులు మరియు పాత ఇళ్ళు ఉన్నాయి.",
               "బల్ల మీద కొన్ని పుస్తకాలు ఉన్నాయి, అవి నావి."],
    "marathi": ["मी दररोज सकाळी शाळेत जातो आणि संध्याकाळी घरी परत येतो.", "या शहरात अनेक सुंदर बागा आणि जुनी घरे आहेत.",
                "टेबलावर काही पुस्तके आहेत आणि ती माझी आहेत."],
    "nepali": ["म हरेक दिन बिहान विद्यालय जान्छु र बेलुका घर फर्कन्छु।", "यो सहरमा धेरै सुन्दर पार्कहरू र पुराना घरहरू छन्।",
               "टेबलमाथि केही किताबहरू छन् र ती मेरा हुन्।"],
    "armenian": ["Ես ամեն առավոտ գնում եմ դպրոց և երեկոյան վերադառնում եմ տուն։", "Այս քաղաքում կան շատ գեղեցիկ այգիներ և հին տներ։",
                 "Սեղանի վրա կան մի քանի գրքեր, և դրանք իմն են։"],
}
# Hindi writes Devanagari as Marathi and Nepali do, and shares some of their short words (के, का, को)
HINDI = ["मैं हर दिन सुबह स्कूल जाता हूँ और शाम को घर लौटता हूँ।", "इस शहर में बहुत सुंदर पार्क और पुराने घर हैं।",
         "मेज़ पर कुछ किताबें हैं और वे मेरी हैं।"]
# Hindi that holds few of Hindi's stop words (titles, का 1 word of 11) was read as English, and stays
# so: Nepali's list holds का too, but no more of its words than Hindi's
HINDI_TITLES = ["भारत का इतिहास", "गंगा नदी", "दिल्ली बाजार", "ताजमहल आगरा", "हिमालय पर्वत"]
# Assamese writes Bengali's letters with its own ৰ and ৱ; Sanskrit Devanagari with none of these lists' words
ASSAMESE = ["মই প্ৰতিদিনে পুৱা বিদ্যালয়লৈ যাওঁ আৰু আবেলি ঘৰলৈ উভতি আহোঁ।", "এই চহৰত বহুতো ধুনীয়া উদ্যান আৰু পুৰণি ঘৰ আছে।"]
SANSKRIT = ["धर्मक्षेत्रे कुरुक्षेत्रे समवेता युयुत्सवः। मामकाः पाण्डवाश्चैव किमकुर्वत सञ्जय॥", "सत्यमेव जयते नानृतम्।"]


@pytest.mark.parametrize("language", NEW)
def test_a_collection_is_detected_by_its_script_and_stop_words(language):
    assert language in STOP_LANGUAGES
    assert detect_language(SENTENCES[language]) == language
    assert all(detect_language([sentence]) == language for sentence in SENTENCES[language])


def test_hindi_stays_hindi_and_what_was_english_stays_english():
    assert detect_language(HINDI) == "hindi"
    for other in ("marathi", "nepali"):
        assert detect_language(HINDI * 3 + SENTENCES[other][:1]) == "hindi"
    # fewer of Hindi's stop words than a fifth: read as English before, and not as Nepali or Marathi now
    assert detect_language(HINDI_TITLES[:1]) == "hindi"
    assert detect_language(HINDI_TITLES) == "english"
    assert detect_language(ASSAMESE) == "english"
    assert detect_language(SANSKRIT) == "english"


def test_detection_counts_devanagari_words_as_the_tokenizer_folds_them():
    """Nepali's list writes भन्दा (than) with a nasal and virama, which the tokenizer reads as the
    anusvara, as a text typed भंदा is read: the tokenizer dropped both, detection counted only the
    first, so the sentence written with the anusvara was English."""
    for written in ("काठमाडौं पोखरा भंदा ठूलो सहर हो", "हिमाल पहाड भंदा अग्लो"):
        as_listed = written.replace("भंदा", "भन्दा")
        assert Tokenizer(stop_words="nepali")(written) == Tokenizer(stop_words="nepali")(as_listed)
        assert detect_language([as_listed]) == "nepali"
        assert detect_language([written]) == "nepali", written
        # a Hindi sentence written with a class nasal (हिन्दी) is read as before, Hindi
        assert detect_language(["मैं हिन्दी में बात करता हूँ और यह किताब पढ़ता हूँ"]) == "hindi"


@pytest.mark.parametrize("language", NEW)
def test_a_few_texts_of_a_new_language_leave_a_collection_as_it_was(language):
    for before, texts in [*NEIGHBOURS.items(), ("hindi", HINDI)]:
        assert detect_language(texts * 3 + SENTENCES[language][:1]) == before


def test_the_lists_are_words_as_the_tokenizer_reads_them():
    # in NFC, as the tokenizer puts text (য় ড় ঢ় are a letter and a nukta there), each one word,
    # dropped as written (अन्तर्गत is read अंतर्गत, նաև նաեւ: the list's word is read so too)
    tokenizer = Tokenizer()
    for name in NEW:
        words = stop_list(name)
        assert all(unicodedata.normalize("NFC", w) == w for w in words), name
        assert all(len(tokenizer(w)) == 1 for w in words if len(w) > 1), name
        assert Tokenizer(stop_words=name)(" ".join(words)) == [], name
    assert {"এবং", "আমার", "থেকে"} <= stop_list("bengali")
    assert {"மற்றும்", "இந்த", "அவர்கள்"} <= stop_list("tamil")
    assert {"మరియు", "ఈ", "ఉన్నాయి"} <= stop_list("telugu")
    assert {"आणि", "आहे", "आहेत"} <= stop_list("marathi")
    assert {"पनि", "छन्", "भएको"} <= stop_list("nepali")
    assert {"և", "այս", "որ"} <= stop_list("armenian")
    # numbers and words of meaning are no stop word (নতুন new, হাজার thousand, पाटील a name, समय time)
    assert not {"নতুন", "হাজার", "দুই"} & stop_list("bengali")
    assert not {"पाटील", "दोन", "माहिती"} & stop_list("marathi")
    assert not {"समय", "दुई", "राम्रो"} & stop_list("nepali")
    assert not {"இடம்", "முதல்"} & stop_list("tamil")
    assert not re.search(r"[a-z]", " ".join(w for name in NEW for w in stop_list(name)))


def test_the_stop_words_are_dropped_as_written():
    assert Tokenizer(stop_words="bengali")("বইগুলো টেবিলের উপর আছে") == ["বইগুলো", "টেবিলের"]
    assert Tokenizer(stop_words="nepali")("यो सहरमा धेरै पार्कहरू छन्") == ["सहरमा", "पार्कहरू"]


@pytest.mark.parametrize("code, language", [("bn", "bengali"), ("bn-IN", "bengali"), ("ta", "tamil"), ("te", "telugu"),
                                            ("mr", "marathi"), ("ne", "nepali"), ("hy", "armenian")])
def test_a_language_is_named_by_its_code(code, language):
    assert check_language(code) == language


def test_each_language_takes_its_stemmer():
    assert baseline_reading("bengali", False) == ("bengali", "bengali_light")
    assert baseline_reading("telugu", False) == ("telugu", "telugu_light")
    assert baseline_reading("marathi", True) == ("marathi", None)        # no Marathi stemmer, Snowball's or Lucene's
    for name in ("tamil", "nepali", "armenian"):
        assert baseline_reading(name, True) == (name, name)
        assert baseline_reading(name, False) == (name, None)
    assert stop_list_source("telugu") == "learnsim's"
    assert stop_list_source("tamil") == stop_list_source("nepali") == "Lucene's"
    assert stop_list_source("bengali") == "stopwords-iso's"


def test_bengali_light_stems_as_lucene_does():
    # the plural, the genitive and the classifier taken off (a nukta letter composed first, as Lucene's
    # IndicNormalizer writes it: বইয়ের, in NFC a ya and a nukta, loses its য়ের)
    assert bengali_light_stem("বইগুলো") == bengali_light_stem("বইয়ের") == bengali_light_stem("বই") == "বই"
    assert bengali_light_stem("শিক্ষকেরা") == bengali_light_stem("শিক্ষক") == "সিক্সক"   # শ ষ as স
    assert bengali_light_stem("গাছের") == bengali_light_stem("গাছগুলি") == "গাছ"
    assert bengali_light_stem("ব্যাংক") == "বেংক"           # the ya-phala after the first letter
    assert bengali_light_stem("উৎসব") == "উতস"              # khanda ta as ta, and a final ব off (Lucene's rule)
    assert bengali_light_stem("school") == "school"
    stemmer = load_stemmer("bengali_light")
    assert stemmer.stemWords(["ছেলেরা", "ছেলেদের"]) == ["ছেল", "ছেল"]


def test_telugu_light_stems_as_lucene_does():
    assert telugu_light_stem("రైతులు") == "రైతు"                     # the plural's లు
    assert telugu_light_stem("డాక్టర్లు") == telugu_light_stem("డాక్టర్") == "డాక్టర్"
    assert telugu_light_stem("ఆసుపత్రి") == "అసుపత్ర"                 # a long vowel read short, a final vowel sign off
    assert telugu_light_stem("water") == "water"


@pytest.mark.parametrize("relpath", list(CORPORA))
def test_every_collection_of_the_shared_data_keeps_its_language(relpath):
    texts = CORPORA[relpath](require_corpus(relpath))
    assert detect_language(texts) == "english"
    step = max(1, len(texts) // 500)
    assert _indic_armenian_language("\n".join(t[:1000] for t in texts[::step][:500] if isinstance(t, str))) is None
