"""The lexical baselines read a Sorani (Central Kurdish) collection in Sorani (its stop words dropped,
Lucene's Sorani normaliser and light stemmer), where they read it as English before: no stop word
dropped, no stem, so that a query's کتێب (book) never met a document's کتێبەکان (the books) or
کتێبێکی (a book of). No such collection ships in ../shared/data: the documents, queries and
judgements below are hand-written, each query's noun written in its documents with another article
or number (-ەکە the, -ێک a, -ەکان the ... s, -ێکی a ... of), and in one of them as the query writes it."""
import judged_lexical
from learnsim.baseline import LexicalBaselines

DOCUMENTS = [
    "خوێندکارەکان هەموو ڕۆژێک دەچنە زانکۆ.",                            # 0 the students
    "خوێندکارێک لە پۆلدا پرسیارێکی کرد.",                               # 1 a student
    "من دوێنێ کتێبێکی نوێم کڕی.",                                       # 2 a book
    "کتێبەکان لە کتێبخانەدا زۆر کۆنن.",                                  # 3 the books
    "دکتۆرەکە نەخۆشەکەی لە نەخۆشخانە پشکنی.",                            # 4 the doctor
    "دکتۆرێک لەگەڵ دایکم قسەی کرد.",                                    # 5 a doctor
    "ئۆتۆمبێلەکان لە بەردەم ترافیکلایتەکە وەستان.",                       # 6 the cars
    "باوکم ئۆتۆمبێلێکی نوێی کڕی.",                                      # 7 a car
    "ڕووبارەکە دوای بارانەکە بەرز بووەوە.",                              # 8 the river
    "ماسیگرەکان بەیانی زوو چوونە سەر ڕووبار.",                           # 9 river
    "کرێکارەکان لە کارگەکەدا کار دەکەن.",                                # 10 the workers
    "کرێکارێک لە بیناکەدا بریندار بوو.",                                 # 11 a worker
    "مامۆستاکە وانەکەی بۆ قوتابییەکان ڕوون کردەوە.",                      # 12 the teacher
    "مامۆستایەک لە قوتابخانەکەمان دەست بەکار بوو.",                      # 13 a teacher
    "باڵندەکان لەسەر درەختەکان نیشتنەوە.",                               # 14 the trees
    "لە باخچەکەماندا درەختێکی بەرز هەیە.",                               # 15 a tree
    "یاریزانەکان دوای یارییەکە ماندوو بوون.",                            # 16 the players
    "یاریزانێکی گەنج گۆڵێکی جوانی تۆمار کرد.",                           # 17 a player
    "پزیشکەکان ئامۆژگارییان کرد کە ئاو بخۆینەوە.",                        # 18 the physicians
    "پزیشکێک لە گوندەکەدا کار دەکات.",                                   # 19 a physician
]
JUDGED = [("خوێندکارەکان", (0, 1)), ("کتێب", (2, 3)), ("دکتۆرەکان", (4, 5)), ("ئۆتۆمبێل", (6, 7)),
          ("ڕووبار", (8, 9)), ("کرێکار", (10, 11)), ("مامۆستاکان", (12, 13)), ("درەخت", (14, 15)),
          ("یاریزانێک", (16, 17)), ("پزیشکەکە", (18, 19))]


def mean_ndcg(reading, name="bm25"):
    return judged_lexical.mean_ndcg(DOCUMENTS, JUDGED, reading, name)


def test_the_collection_is_detected_as_sorani_and_was_english_before(monkeypatch):
    import learnsim.text._languages as languages
    from learnsim.text import detect_language

    assert detect_language(DOCUMENTS) == "sorani"
    with monkeypatch.context() as m:
        m.setattr(languages, "_is_sorani", lambda *args: False)
        assert detect_language(DOCUMENTS) == "english"


def test_sorani_is_read_with_its_stop_words_and_lucenes_light_stems():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.language == "sorani" and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == "sorani"
    assert lex.vectorizer.get_params()["stem"] == "sorani_light"
    assert "Sorani stop words dropped" in lex.terms and "Sorani light stems (Lucene's)" in lex.terms
    # English's list kept لە, لەگەڵ, کە (in, with, that) as terms, which many documents write
    assert lex.query_counts(["لە لەگەڵ کە لەسەر"]).nnz == 0
    assert LexicalBaselines(DOCUMENTS, language="en").query_counts(["لە لەگەڵ کە لەسەر"]).nnz == 4
    # a query's noun meets its forms with another article or number, which English's rules (as
    # read before) leave apart
    read = mean_ndcg("sorani")
    assert read > mean_ndcg("english") + 0.2
    assert mean_ndcg("sorani", "cosine") > mean_ndcg("english", "cosine") + 0.2
