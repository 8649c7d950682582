"""The lexical baselines read an Arabic collection in Arabic: detected by its script, its stop
words dropped and its words light-stemmed as Lucene's (and Elasticsearch's) Arabic analyser stems
them, with or without PyStemmer. No Arabic collection ships in ../shared/data: the documents,
queries and judgements below are hand-written.

Each query's word stands in its relevant documents only with the article or a prefix (ال, بال,
وال) or a suffix (ة, ات, ون, ين) that English rules leave on it, as Arabic writes it; two
relevant documents write a broken plural (مدارس, أطباء) that no light stemmer joins to its
singular, and one query (القهوة العربية) is written as its document writes it.
"""
import sys

import pytest

import judged_lexical
from learnsim.baseline import LexicalBaselines

DOCUMENTS = [
    "يذهب الأطفال إلى المدرسة كل صباح مع أصدقائهم",            # 0 the school
    "بالمدرسة مكتبة كبيرة وملعب واسع",                          # 1 at the school, a playground
    "قرأت الكتاب كله في عطلة نهاية الأسبوع",                    # 2 the book
    "والكتاب الذي أهداني إياه جدي قديم جدا",                     # 3 and the book
    "المعلمون يشرحون الدروس بصبر واهتمام",                       # 4 the teachers
    "التقى المدير بالمعلمين في القاعة بعد الظهر",                 # 5 with the teachers
    "اشترى أخي السيارة الحمراء من المعرض",                       # 6 the car
    "السيارات الكهربائية أقل تلويثا للهواء",                      # 7 the cars
    "نقل المريض إلى المستشفى بسرعة بعد الحادث",                   # 8 the hospital
    "هطلت أمطار غزيرة على المدينة طوال الليل",                    # 9 rains, the city
    "بالمدينة أسواق قديمة يزورها السياح",                         # 10 in the city
    "يعمل الفلاحون في الحقول منذ الفجر",                          # 11 the farmers
    "الطبيبة تعالج المرضى في العيادة",                            # 12 the (woman) doctor
    "تشرق الشمس كل صباح فوق الجبال",                              # 13
    "يحب الناس القهوة العربية مع التمر",                          # 14 Arabic coffee
    "شاهدنا مباراة كرة القدم في الملعب",                          # 15 the stadium
    "افتتحت الوزارة مدارس جديدة في القرى",                        # 16 schools (broken plural)
    "استشار المريض الأطباء قبل العملية",                           # 17 the doctors (broken plural)
]
# (query, relevant documents), each relevant document graded 1
JUDGED = [
    ("مدرسة", (0, 1, 16)),
    ("كتاب", (2, 3)),
    ("معلم", (4, 5)),
    ("سيارة", (6, 7)),
    ("مستشفى", (8,)),
    ("الأمطار", (9,)),
    ("مدينة", (9, 10)),
    ("فلاح", (11,)),
    ("طبيب", (12, 17)),
    ("القهوة العربية", (14,)),
    ("الملعب", (1, 15)),
]


def mean_ndcg(language, name="bm25", k=10):
    """Mean nDCG@k of ``JUDGED`` over ``DOCUMENTS``, the baselines reading ``language``."""
    return judged_lexical.mean_ndcg(DOCUMENTS, JUDGED, language, name, k)


def test_an_arabic_collection_is_detected_and_read_in_arabic():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.language == "arabic" and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == "arabic"
    assert lex.vectorizer.get_params()["stem"] == "arabic_light"
    assert "Arabic stop words dropped" in lex.terms and "light stems (Lucene's)" in lex.terms
    assert "detected from the collection's script" in lex.terms
    given = LexicalBaselines(DOCUMENTS, language="ar")
    assert given.language == "arabic" and given.language_given and "(Arabic given)" in given.terms


@pytest.mark.parametrize("query, document", [("مدرسة", 0), ("مدرسة", 1), ("كتاب", 3), ("معلم", 5), ("سيارة", 7),
                                             ("مستشفى", 8), ("فلاح", 11), ("طبيب", 12)])
def test_a_query_word_finds_its_documents_forms_where_english_rules_did_not(query, document):
    arabic, english = LexicalBaselines(DOCUMENTS), LexicalBaselines(DOCUMENTS, language="english")
    assert arabic.scores("bm25", arabic.query_counts([query]))[0, document] > 0
    assert english.scores("bm25", english.query_counts([query]))[0, document] == 0


def test_arabic_stop_words_are_no_terms():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.query_counts(["في إلى مع بعد"]).nnz == 0
    english = LexicalBaselines(DOCUMENTS, language="english")
    assert english.query_counts(["في"]).nnz == 1


def test_reading_arabic_ranks_the_judged_documents_far_better():
    arabic, english = mean_ndcg("arabic"), mean_ndcg("english")
    # the queries' forms are what Arabic's light stemming joins: most of them found nothing before
    assert arabic > english + 0.3
    assert arabic > 0.75         # the broken plurals stay apart: not every relevant document is found
    assert mean_ndcg("arabic", "cosine") > mean_ndcg("english", "cosine") + 0.3


def test_arabic_is_stemmed_without_pystemmer(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # makes `import Stemmer` fail
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.stem == "arabic_light" and "unstemmed" not in lex.terms
    assert lex.scores("bm25", lex.query_counts(["مدرسة"]))[0, 0] > 0


def test_the_fallback_bm25_reads_arabic_as_its_check_did():
    from learnsim._baseline_models import baseline_pipeline

    bm25 = baseline_pipeline("bm25", DOCUMENTS)
    assert bm25.vectorizer.get_params()["stem"] == "arabic_light"
    assert {hit["corpus_id"] for hit in bm25.search("سيارة", DOCUMENTS, k=2)} == {6, 7}
