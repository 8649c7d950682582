"""The lexical baselines read a Persian collection in Persian: detected by its script, its stop
words dropped and its words normalised and light-stemmed as Lucene's (and Elasticsearch's)
Persian analyser does, with or without PyStemmer. No Persian collection ships in
../shared/data: the documents, queries and judgements below are hand-written.

Each query's word stands in its relevant documents with a plural (ها, ان), a comparative or
superlative (تر, ترین) or the indefinite ی that English rules leave on it, or written apart by a
zero-width non-joiner (کتاب‌های, ماشین‌ها), which every reading cuts; one plural in گان
(نویسندگان) stays apart from its singular, as in Lucene.
"""
import sys

import pytest

import judged_lexical
from learnsim.baseline import LexicalBaselines

DOCUMENTS = [
    "کتابها روی میز کتابخانه قرار دارند",               # 0 books
    "او کتاب‌های زیادی درباره تاریخ خوانده است",          # 1 books (ZWNJ)
    "درختان باغ در پاییز زرد می‌شوند",                  # 2 trees
    "کشاورز درخت سیب را آب داد",                        # 3 tree
    "دانشجویان برای امتحان آماده می‌شوند",               # 4 students
    "هر دانشجو باید کارت شناسایی داشته باشد",            # 5 student
    "شهرهای شمال ایران سرسبز و زیبا هستند",              # 6 cities
    "تهران بزرگترین شهر کشور است",                      # 7 city
    "کوه دماوند بلندترین کوه ایران است",                 # 8 highest, mountain
    "این ساختمان از ساختمان‌های اطراف بلندتر است",        # 9 higher
    "پزشکان بیمارستان شبانه‌روز کار می‌کنند",             # 10 doctors
    "پزشک به بیمار دارو داد",                           # 11 doctor
    "اطلاعات این گزارش دقیق نیست",                      # 12
    "قیمت ماشین‌ها در سال گذشته بالا رفت",               # 13 cars (ZWNJ)
    "ماشینی که خریدم قرمز است",                        # 14 a car
    "بچه‌ها در پارک بازی می‌کنند",                       # 15
    "دریاچه ارومیه در حال خشک شدن است",                  # 16 lake
    "نویسندگان ایرانی جایزه گرفتند",                     # 17 writers (گان)
    "این نویسنده رمان‌های زیادی نوشته است",               # 18 writer
]
# (query, relevant documents), each relevant document graded 1
JUDGED = [
    ("کتاب", (0, 1)),
    ("درخت", (2, 3)),
    ("دانشجو", (4, 5)),
    ("شهر", (6, 7)),
    ("بلند", (8, 9)),
    ("پزشک", (10, 11)),
    ("ماشین", (13, 14)),
    ("نویسنده", (17, 18)),
    ("کوه", (8,)),
    ("دریاچه", (16,)),
]


def mean_ndcg(language, name="bm25", k=10):
    """Mean nDCG@k of ``JUDGED`` over ``DOCUMENTS``, the baselines reading ``language``."""
    return judged_lexical.mean_ndcg(DOCUMENTS, JUDGED, language, name, k)


def test_a_persian_collection_is_detected_and_read_in_persian():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.language == "persian" and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == "persian"
    assert lex.vectorizer.get_params()["stem"] == "persian_light"
    assert "Persian stop words dropped (stopwords-iso's list)" in lex.terms
    assert "light stems (Lucene's)" in lex.terms and "detected from the collection's script" in lex.terms
    given = LexicalBaselines(DOCUMENTS, language="fa")
    assert given.language == "persian" and given.language_given and "(Persian given)" in given.terms


@pytest.mark.parametrize("query, document", [("کتاب", 0), ("درخت", 2), ("دانشجو", 4), ("شهر", 6), ("بلند", 8),
                                             ("بلند", 9), ("پزشک", 10), ("ماشین", 14)])
def test_a_query_word_finds_its_documents_forms_where_english_rules_did_not(query, document):
    persian, english = LexicalBaselines(DOCUMENTS), LexicalBaselines(DOCUMENTS, language="english")
    assert persian.scores("bm25", persian.query_counts([query]))[0, document] > 0
    assert english.scores("bm25", english.query_counts([query]))[0, document] == 0


def test_persian_stop_words_are_no_terms():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.query_counts(["در به از و را این است"]).nnz == 0
    english = LexicalBaselines(DOCUMENTS, language="english")
    assert english.query_counts(["در"]).nnz == 1


def test_reading_persian_ranks_the_judged_documents_far_better():
    persian, english = mean_ndcg("persian"), mean_ndcg("english")
    # most queries' forms are what Persian's light stemming joins: they found half their documents
    assert persian > english + 0.15
    assert persian > 0.85       # the plural in گان stays apart: not every relevant document is found
    assert mean_ndcg("persian", "cosine") > mean_ndcg("english", "cosine") + 0.15


def test_persian_is_stemmed_without_pystemmer(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # makes `import Stemmer` fail
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.stem == "persian_light" and "unstemmed" not in lex.terms
    assert lex.scores("bm25", lex.query_counts(["درخت"]))[0, 2] > 0


def test_the_fallback_bm25_reads_persian_as_its_check_did():
    from learnsim._baseline_models import baseline_pipeline

    bm25 = baseline_pipeline("bm25", DOCUMENTS)
    assert bm25.vectorizer.get_params()["stem"] == "persian_light"
    assert {hit["corpus_id"] for hit in bm25.search("دانشجو", DOCUMENTS, k=2)} == {4, 5}
