"""The lexical baselines read a Bengali, Tamil, Telugu, Marathi, Nepali or Armenian collection in
its language (learnsim.text._languages): detected by its script (and, for the Indic ones, its stop
words), those dropped and its words stemmed by Lucene's light stemmers (Bengali, Telugu) or
Snowball's (Tamil, Nepali, Armenian; PyStemmer's), where they read it as English before: English
stop words (none of them in these scripts) and Porter stems (which leave them as written). No such
collection ships in ../shared/data: the documents, queries and judgements below are hand-written.

Each query's word stands in its relevant documents inflected (a case ending or postposition, a
plural, a classifier), as the language writes it; forms that no stemmer joins are left in, as a
user's text has them. Marathi has no stemmer: its queries are short questions whose stop words
(आहे, काय, आणि) the documents share, and only those are read differently.
"""
import sys

import pytest

import judged_lexical
from learnsim.baseline import LexicalBaselines

# the language, then the stemmer its baselines take (None: no stemmer of the language)
STEMS = {"bengali": "bengali_light", "tamil": "tamil", "telugu": "telugu_light", "marathi": None,
         "nepali": "nepali", "armenian": "armenian"}
COLLECTIONS = {
    "bengali": ([
        "ছেলেরা মাঠে ফুটবল খেলছে",                                    # 0 the boys, in the field
        "ছেলেটি বাজারে গেছে",                                          # 1 the boy
        "বইগুলো টেবিলের উপর রাখা আছে",                                 # 2 the books, of the table
        "এই বইয়ের লেখক কলকাতায় থাকেন",                                 # 3 of this book
        "ডাক্তাররা হাসপাতালে রোগীদের দেখছেন",                           # 4 the doctors, in the hospital
        "মা ডাক্তারের সঙ্গে কথা বললেন",                                  # 5 of (with) the doctor
        "নদীর পাড়ে একটি ছোট গ্রাম আছে",                                  # 6 of the river, a village
        "বর্ষায় নদীগুলো ভরে যায়",                                          # 7 the rivers
        "শহরের রাস্তায় খুব ভিড়",                                           # 8 of the city
        "শহরগুলো দ্রুত বড় হচ্ছে",                                          # 9 the cities
        "শিক্ষকেরা ছাত্রদের অঙ্ক শেখান",                                    # 10 the teachers
        "আমাদের শিক্ষক পরীক্ষার ফল জানালেন",                               # 11 our teacher
        "পাখিরা গাছের ডালে বসে আছে",                                      # 12 of the tree
        "বাগানের গাছটি অনেক পুরনো",                                        # 13 the tree
        "গ্রামের মানুষ ধান চাষ করে",                                       # 14 of the village, rice
        "কৃষকেরা মাঠে ধান কাটছে",                                          # 15 the farmers, rice
    ], [("ছেলে", (0, 1)), ("বই", (2, 3)), ("ডাক্তার", (4, 5)), ("হাসপাতাল", (4,)), ("নদী", (6, 7)),
        ("শহর", (8, 9)), ("শিক্ষক", (10, 11)), ("গাছ", (12, 13)), ("গ্রাম", (6, 14)), ("ধান", (14, 15))]),
    "tamil": ([
        "குழந்தைகள் பள்ளிக்குச் செல்கிறார்கள்",                             # 0 to the school
        "எங்கள் பள்ளியில் பெரிய நூலகம் உள்ளது",                              # 1 in our school
        "புத்தகங்களை அலமாரியில் வைத்தேன்",                                  # 2 the books
        "இந்தப் புத்தகத்தின் ஆசிரியர் சென்னையில் வசிக்கிறார்",                  # 3 of this book
        "மருத்துவர்கள் மருத்துவமனையில் நோயாளிகளைப் பார்த்தார்கள்",             # 4 the doctors
        "அம்மா மருத்துவருடன் பேசினார்",                                      # 5 with the doctor
        "நதியின் கரையில் ஒரு சிறிய கிராமம் உள்ளது",                           # 6 of the river, a village
        "மழைக்காலத்தில் நதிகள் நிரம்பி வழிகின்றன",                            # 7 the rivers
        "நகரத்தின் சாலைகளில் கூட்டம் அதிகம்",                                # 8 of the city
        "நகரங்களில் காற்று மாசுபடுகிறது",                                    # 9 in the cities
        "ஆசிரியர்கள் மாணவர்களுக்குக் கணக்கு கற்பிக்கிறார்கள்",                  # 10 to the students
        "எங்கள் ஆசிரியர் தேர்வு முடிவுகளை அறிவித்தார்",                        # 11
        "பறவைகள் மரங்களின் கிளைகளில் அமர்ந்துள்ளன",                           # 12 the birds, of the trees
        "தோட்டத்தில் உள்ள மரம் மிகவும் பழமையானது",                             # 13 the tree
        "கிராமத்து மக்கள் நெல் பயிரிடுகிறார்கள்",                               # 14 of the village
        "விவசாயிகள் வயலில் நெல் அறுவடை செய்கிறார்கள்",                         # 15 paddy
    ], [("பள்ளி", (0, 1)), ("புத்தகம்", (2, 3)), ("மருத்துவர்", (4, 5)), ("நதி", (6, 7)), ("நகரம்", (8, 9)),
        ("மாணவர்", (10,)), ("மரம்", (12, 13)), ("கிராமம்", (6, 14)), ("நெல்", (14, 15)), ("பறவை", (12,))]),
    "telugu": ([
        "పిల్లలు పాఠశాలకు వెళ్తున్నారు",                                     # 0 to the school
        "మా పాఠశాలలో పెద్ద గ్రంథాలయం ఉంది",                                  # 1 in our school
        "పుస్తకాలను అల్మారాలో పెట్టాను",                                      # 2 the books
        "ఈ పుస్తకం రచయిత హైదరాబాదులో నివసిస్తారు",                            # 3 this book
        "వైద్యులు ఆసుపత్రిలో రోగులను చూశారు",                                # 4 the doctors
        "అమ్మ వైద్యునితో మాట్లాడింది",                                        # 5 with the doctor
        "నది ఒడ్డున ఒక చిన్న గ్రామం ఉంది",                                    # 6 the river, a village
        "వర్షాకాలంలో నదులు నిండుతాయి",                                       # 7 the rivers
        "నగరంలో రోడ్లు రద్దీగా ఉన్నాయి",                                      # 8 in the city
        "నగరాలలో గాలి కలుషితమవుతోంది",                                       # 9 in the cities
        "ఉపాధ్యాయులు విద్యార్థులకు లెక్కలు నేర్పుతారు",                          # 10 to the students
        "మా ఉపాధ్యాయుడు పరీక్ష ఫలితాలు ప్రకటించారు",                           # 11 our teacher
        "పక్షులు చెట్ల కొమ్మలపై కూర్చున్నాయి",                                 # 12 of the trees
        "తోటలోని చెట్టు చాలా పాతది",                                          # 13 the tree
        "గ్రామంలోని ప్రజలు వరి పండిస్తారు",                                    # 14 in the village, rice
        "రైతులు పొలంలో వరి కోస్తున్నారు",                                       # 15 the farmers, rice
    ], [("పాఠశాల", (0, 1)), ("పుస్తకం", (2, 3)), ("వైద్యుడు", (4, 5)), ("నది", (6, 7)), ("నగరం", (8, 9)),
        ("విద్యార్థి", (10,)), ("చెట్టు", (12, 13)), ("గ్రామం", (6, 14)), ("వరి", (14, 15)), ("రైతు", (15,))]),
    "marathi": ([
        "मुले सकाळी शाळेत जातात",                                             # 0 to school
        "आमच्या शाळेत मोठे ग्रंथालय आहे",                                      # 1 in our school
        "पुस्तके कपाटात ठेवली आहेत",                                           # 2 the books
        "या पुस्तकाचा लेखक पुण्यात राहतो",                                      # 3 of this book
        "डॉक्टरांनी रुग्णालयात रुग्णांना तपासले",                                  # 4 in the hospital
        "आई डॉक्टरशी बोलली",                                                  # 5 with the doctor
        "नदीच्या काठावर एक लहान गाव आहे",                                      # 6 a village
        "पावसाळ्यात नद्या भरून वाहतात",                                         # 7 the rivers
        "शहरातील रस्त्यांवर खूप गर्दी आहे",                                       # 8 a crowd
        "शहरांमध्ये हवा प्रदूषित होत आहे",                                        # 9 in the cities
        "शिक्षक विद्यार्थ्यांना गणित शिकवतात",                                     # 10 the teacher
        "आमच्या शिक्षकांनी परीक्षेचा निकाल सांगितला",                               # 11
        "पक्षी झाडाच्या फांदीवर बसले आहेत",                                       # 12 the birds
        "बागेतील झाड खूप जुने आहे",                                              # 13 the tree
        "गावातील लोक भात पिकवतात",                                              # 14 rice
        "शेतकरी शेतात भात कापत आहेत",                                            # 15 rice
    ], [("शाळेत काय आहे", (0, 1)), ("पुस्तके कुठे आहेत", (2,)), ("रुग्णालयात काय झाले", (4,)), ("गाव आणि नदी", (6,)),
        ("शहरातील गर्दी का आहे", (8,)), ("शिक्षक आणि विद्यार्थी", (10,)), ("झाड आहे का", (13,)),
        ("भात कोण पिकवतात", (14,)), ("पक्षी कुठे आहेत", (12,))]),
    "nepali": ([
        "केटाकेटीहरू बिहान विद्यालय जान्छन्",                                      # 0 school
        "हाम्रो विद्यालयमा ठूलो पुस्तकालय छ",                                      # 1 in our school
        "किताबहरू दराजमा राखेँ",                                                  # 2 the books
        "यो किताबको लेखक काठमाडौंमा बस्छन्",                                         # 3 of this book
        "डाक्टरहरूले अस्पतालमा बिरामीलाई जाँचे",                                     # 4 the doctors
        "आमाले डाक्टरसँग कुरा गर्नुभयो",                                            # 5 with the doctor
        "नदीको किनारमा एउटा सानो गाउँ छ",                                           # 6 of the river, a village
        "वर्षामा नदीहरू भरिन्छन्",                                                  # 7 the rivers
        "सहरका सडकहरूमा धेरै भीड छ",                                               # 8 of the city
        "सहरहरूमा हावा प्रदूषित हुँदैछ",                                              # 9 in the cities
        "शिक्षकहरूले विद्यार्थीहरूलाई गणित पढाउँछन्",                                   # 10 the teachers
        "हाम्रो शिक्षकले परीक्षाको नतिजा सुनाए",                                      # 11 our teacher
        "चराहरू रुखका हाँगामा बसेका छन्",                                            # 12 of the tree
        "बगैँचाको रुख धेरै पुरानो छ",                                                # 13 the tree
        "गाउँका मानिसहरू धान रोप्छन्",                                                # 14 of the village
        "किसानहरू खेतमा धान काट्दैछन्",                                               # 15 the farmers
    ], [("विद्यालय", (0, 1)), ("किताब", (2, 3)), ("डाक्टर", (4, 5)), ("नदी", (6, 7)), ("सहर", (8, 9)),
        ("शिक्षक", (10, 11)), ("रुख", (12, 13)), ("गाउँ", (6, 14)), ("धान", (14, 15)), ("किसान", (15,))]),
    "armenian": ([
        "Երեխաները առավոտյան գնում են դպրոց",                                 # 0 school
        "Մեր դպրոցում կա մեծ գրադարան",                                      # 1 in our school
        "Գրքերը դրեցի դարակի վրա",                                           # 2 the books
        "Այս գրքի հեղինակը ապրում է Երևանում",                                 # 3 of this book
        "Բժիշկները հիվանդանոցում զննեցին հիվանդներին",                          # 4 the doctors
        "Մայրիկը խոսեց բժշկի հետ",                                           # 5 with the doctor
        "Գետի ափին կա մի փոքրիկ գյուղ",                                      # 6 of the river, a village
        "Գարնանը գետերը լցվում են",                                          # 7 the rivers
        "Քաղաքի փողոցները շատ մարդաշատ են",                                   # 8 of the city
        "Քաղաքներում օդը աղտոտվում է",                                       # 9 in the cities
        "Ուսուցիչները աշակերտներին մաթեմատիկա են դասավանդում",                  # 10 the teachers
        "Մեր ուսուցիչը հայտարարեց քննության արդյունքները",                      # 11 our teacher
        "Թռչունները նստած են ծառերի ճյուղերին",                                # 12 of the trees
        "Այգու ծառը շատ հին է",                                             # 13 the tree
        "Գյուղի մարդիկ ցորեն են աճեցնում",                                    # 14 of the village
        "Գյուղացիները դաշտում ցորեն են հնձում",                                # 15 wheat
    ], [("դպրոց", (0, 1)), ("գրքեր", (2, 3)), ("բժիշկ", (4, 5)), ("գետ", (6, 7)), ("քաղաք", (8, 9)),
        ("ուսուցիչ", (10, 11)), ("ծառ", (12, 13)), ("գյուղ", (6, 14)), ("ցորեն", (14, 15)), ("աշակերտ", (10,))]),
}


def mean_ndcg(language, reading, name="bm25", k=10):
    """Mean nDCG@k of ``language``'s judged queries over its documents, the baselines reading ``reading``."""
    documents, judged = COLLECTIONS[language]
    return judged_lexical.mean_ndcg(documents, judged, reading, name, k)


def _needs_stemmer(language):
    if STEMS[language] in (None, "bengali_light", "telugu_light"):
        return
    pytest.importorskip("Stemmer")


@pytest.mark.parametrize("language", list(COLLECTIONS))
def test_the_collection_is_detected_and_read_in_its_language(language):
    _needs_stemmer(language)
    lex = LexicalBaselines(COLLECTIONS[language][0])
    assert lex.language == language and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == language
    assert lex.vectorizer.get_params()["stem"] == STEMS[language]
    title = language.capitalize()
    how = "script" if language == "armenian" else "script and stop words"
    assert lex.terms.startswith(f"{title} stop words dropped")
    assert f"({title} detected from the collection's {how})" in lex.terms
    stems = {"bengali_light": "light stems (Lucene's)", "telugu_light": "light stems (Lucene's)", None: "unstemmed: no"}
    assert stems.get(STEMS[language], f"{title} Snowball stems") in lex.terms


@pytest.mark.parametrize("language, code", [("bengali", "bn"), ("tamil", "ta"), ("telugu", "te-IN"), ("marathi", "mr"),
                                            ("nepali", "ne"), ("armenian", "hy")])
def test_the_language_is_given_by_its_code(language, code):
    given = LexicalBaselines(COLLECTIONS[language][0], language=code)
    assert given.language == language and given.language_given


@pytest.mark.parametrize("language", [name for name in COLLECTIONS if STEMS[name]])
def test_reading_the_language_ranks_the_judged_documents_better(language):
    _needs_stemmer(language)
    read, before = mean_ndcg(language, language), mean_ndcg(language, "english")
    # each query's word stands in its documents inflected, which English's rules leave apart; Telugu's
    # light stemmer joins the fewest of them (a plural's లు, a final vowel sign), and gains least
    assert read > before + (0.03 if language == "telugu" else 0.2)
    assert mean_ndcg(language, language, "cosine") > mean_ndcg(language, "english", "cosine")


def test_marathi_stop_words_keep_a_question_from_the_documents_that_share_only_them():
    # no Marathi stemmer: its stop words (आहे, काय, आणि) alone are read differently
    documents, judged = COLLECTIONS["marathi"]
    read = judged_lexical.irrelevant_reached(documents, judged, "marathi")
    assert read < judged_lexical.irrelevant_reached(documents, judged, "english") / 2
    assert mean_ndcg("marathi", "marathi") >= mean_ndcg("marathi", "english")


def test_without_pystemmer_a_snowball_language_is_unstemmed_and_bengali_still_stemmed(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # makes `import Stemmer` fail
    lex = LexicalBaselines(COLLECTIONS["tamil"][0])
    assert lex.language == "tamil" and lex.stem is None
    assert "unstemmed: PyStemmer is not installed" in lex.terms
    assert LexicalBaselines(COLLECTIONS["bengali"][0]).stem == "bengali_light"


if __name__ == "__main__":       # the figures of docs/languages.md, Bengali to Armenian
    for language in COLLECTIONS:
        print(language, *("%s %.3f / %.3f" % (name, mean_ndcg(language, language, name), mean_ndcg(language, "english", name))
                          for name in ("bm25", "cosine")))
