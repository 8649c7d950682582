"""The lexical baselines read an Urdu collection in Urdu: detected by its script and its stop
words, its stop words dropped (urduhack's list), its words left unstemmed (no Urdu stemmer in
Lucene or Snowball). No Urdu collection ships in ../shared/data: the documents, queries and
judgements below are hand-written.

The queries are written as a reader types them, with their postpositions and conjunctions (کی,
کا, کے, اور), which English rules keep as terms and which many documents hold; a query's word
written in a relevant document in another form (ڈاکٹروں, قیمتیں) is missed by both readings.
"""
import pytest

import judged_lexical
from learnsim.baseline import LexicalBaselines

DOCUMENTS = [
    "پاکستان کی معیشت میں زراعت کا حصہ بہت اہم ہے",          # 0 agriculture, economy
    "زراعت کے شعبے میں پانی کی کمی ایک بڑا مسئلہ ہے",          # 1 agriculture, water shortage
    "کراچی میں پانی کی فراہمی کا نظام پرانا ہے",               # 2 water supply
    "لاہور کا موسم آج بہت گرم ہے اور لوگ گھروں میں ہیں",        # 3 Lahore's weather
    "بارش کے بعد موسم خوشگوار ہو گیا",                       # 4 weather after rain
    "بچوں کی تعلیم پر حکومت نے نیا منصوبہ شروع کیا",            # 5 children's education
    "اس اسکول میں لڑکیوں کی تعلیم مفت ہے",                     # 6 girls' education
    "کرکٹ ٹیم نے کل کا میچ جیت لیا",                          # 7 cricket match
    "میچ کے دوران بارش کی وجہ سے کھیل روک دیا گیا",              # 8 match stopped by rain
    "ڈاکٹر نے مریض کو دوا دی اور آرام کا مشورہ دیا",              # 9 doctor, patient
    "ہسپتال میں ڈاکٹروں کی تعداد کم ہے",                       # 10 doctors (another form)
    "یہ کتاب اردو ادب کی تاریخ کے بارے میں ہے",                  # 11 Urdu literature's history
    "اردو زبان کے مشہور شاعروں میں غالب اور اقبال شامل ہیں",       # 12 Urdu poets
    "ریل گاڑی وقت پر اسٹیشن پہنچ گئی",                          # 13 train
    "شہر میں سڑکوں کی حالت بہت خراب ہے",                        # 14 the city's roads
    "وہ ہر روز صبح کو پارک میں سیر کے لیے جاتا ہے",               # 15 a walk in the park
    "بازار میں سبزیوں کی قیمتیں بڑھ گئی ہیں",                    # 16 vegetables' prices
    "گندم کی فصل اس سال اچھی ہوئی ہے",                          # 17 wheat crop
]
# (query, relevant documents), each relevant document graded 1
JUDGED = [
    ("پانی کی کمی", (1, 2)),
    ("زراعت اور فصل", (0, 1, 17)),
    ("بچوں کی تعلیم", (5, 6)),
    ("لاہور کا موسم", (3, 4)),
    ("کرکٹ کا میچ", (7, 8)),
    ("ڈاکٹر اور مریض", (9, 10)),
    ("اردو ادب کی تاریخ", (11, 12)),
    ("شہر کی سڑکیں", (14,)),
    ("سبزیوں کی قیمت", (16,)),
    ("بارش کے بعد", (4, 8)),
]


def mean_ndcg(language, name="bm25", k=10):
    """Mean nDCG@k of ``JUDGED`` over ``DOCUMENTS``, the baselines reading ``language``."""
    return judged_lexical.mean_ndcg(DOCUMENTS, JUDGED, language, name, k)



def irrelevant_reached(language, name="bm25"):
    """How many (query, irrelevant document) pairs of ``JUDGED`` score above 0, the baselines
    reading ``language``: documents a query reaches through its words that carry no meaning."""
    return judged_lexical.irrelevant_reached(DOCUMENTS, JUDGED, language, name)


def test_an_urdu_collection_is_detected_and_read_in_urdu():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.language == "urdu" and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == "urdu" and lex.vectorizer.get_params()["stem"] is None
    assert "Urdu stop words dropped (urduhack's list), unstemmed: no Urdu stemmer" in lex.terms
    assert "detected from the collection's script and stop words" in lex.terms
    given = LexicalBaselines(DOCUMENTS, language="ur")
    assert given.language == "urdu" and given.language_given and "(Urdu given)" in given.terms


def test_urdu_stop_words_are_no_terms():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.query_counts(["کی کا کے اور میں ہے نے"]).nnz == 0
    english = LexicalBaselines(DOCUMENTS, language="english")
    assert english.query_counts(["کی"]).nnz == 1


@pytest.mark.parametrize("name", ["bm25", "cosine"])
def test_reading_urdu_ranks_as_well_and_reaches_fewer_unrelated_documents(name):
    # BM25's idf already weighs کی and کا low, so the ranking of the judged documents stays; the
    # documents a query reaches only through them are gone
    assert mean_ndcg("urdu", name) >= mean_ndcg("english", name) - 1e-9
    assert irrelevant_reached("urdu", name) < irrelevant_reached("english", name) / 2


if __name__ == "__main__":       # the figures of docs/languages.md, Urdu
    for name in ("bm25", "cosine"):
        print(name, "urdu %.3f" % mean_ndcg("urdu", name), "english %.3f" % mean_ndcg("english", name))
    print("irrelevant documents reached: urdu", irrelevant_reached("urdu"), "english", irrelevant_reached("english"))
    print("terms: urdu", *(len(LexicalBaselines(DOCUMENTS, language=language).vectorizer.get_feature_names_out())
                            for language in ("urdu", "english")))
