"""The lexical baselines read a Hebrew collection in Hebrew: detected by its script, its stop words
dropped (spaCy's list), its words left unstemmed (Lucene has no Hebrew stemmer). No Hebrew
collection ships in ../shared/data: the documents, queries and judgements below are hand-written.

The queries are written as a reader types them, with their prepositions and pronouns (של, על, עם,
אחרי), which English rules keep as terms; a query's word written in a relevant document with a
prefix or in another form (ברופאים, לבית, הדירות) is missed by both readings: Hebrew's prefixes are
letters of the word, and no reading here takes them off.
"""
import pytest

import judged_lexical
from learnsim.baseline import LexicalBaselines

DOCUMENTS = [
    "מחירי הדירות בתל אביב עלו השנה",               # 0 flats' prices
    "המחיר של דירה בירושלים גבוה מאוד",             # 1 a flat's price
    "הילדים הלכו לבית הספר בבוקר",                  # 2 school
    "בית הספר החדש נפתח בשכונה שלנו",               # 3 school
    "מזג האוויר היום חם מאוד",                     # 4 weather
    "אחרי הגשם מזג האוויר היה נעים",                # 5 weather after the rain
    "הרופא נתן למטופל תרופה חדשה",                  # 6 doctor, patient
    "יש מחסור ברופאים בבית החולים",                 # 7 doctors (a prefix)
    "הנבחרת ניצחה במשחק הכדורגל אתמול",             # 8 the team's match
    "המשחק נעצר בגלל הגשם",                        # 9 match stopped by the rain
    "הספר הזה עוסק בהיסטוריה של השפה העברית",        # 10 a book on Hebrew's history
    "המשורר כתב שירים על הים ועל האהבה",             # 11 poems on the sea
    "הרכבת הגיעה לתחנה בזמן",                      # 12 train
    "הכבישים בעיר במצב רע",                        # 13 the city's roads
    "הוא הולך כל בוקר לפארק עם הכלב שלו",           # 14 a walk with the dog
    "מחירי הירקות בשוק עלו",                       # 15 vegetables' prices
    "יבול החיטה השנה היה טוב",                      # 16 wheat crop
    "אין מספיק מים בחקלאות",                       # 17 water in farming
]
# (query, relevant documents), each relevant document graded 1
JUDGED = [
    ("המחיר של דירה", (0, 1)),
    ("בית הספר", (2, 3)),
    ("מזג האוויר", (4, 5)),
    ("הרופא של המטופל", (6, 7)),
    ("המשחק של הנבחרת", (8, 9)),
    ("שירים על הים", (11,)),
    ("הרכבת לתחנה", (12,)),
    ("מחירי הירקות בשוק", (15,)),
    ("מה קרה אחרי הגשם", (5, 9)),
    ("טיול עם הכלב", (14,)),
]


def mean_ndcg(language, name="bm25", k=10):
    """Mean nDCG@k of ``JUDGED`` over ``DOCUMENTS``, the baselines reading ``language``."""
    return judged_lexical.mean_ndcg(DOCUMENTS, JUDGED, language, name, k)



def irrelevant_reached(language, name="bm25"):
    """How many (query, irrelevant document) pairs of ``JUDGED`` score above 0, the baselines
    reading ``language``: documents a query reaches through its words that carry no meaning."""
    return judged_lexical.irrelevant_reached(DOCUMENTS, JUDGED, language, name)


def test_a_hebrew_collection_is_detected_and_read_in_hebrew():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.language == "hebrew" and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == "hebrew" and lex.vectorizer.get_params()["stem"] is None
    assert "Hebrew stop words dropped (spaCy's list), unstemmed: no Hebrew stemmer" in lex.terms
    assert "detected from the collection's script" in lex.terms
    given = LexicalBaselines(DOCUMENTS, language="he")
    assert given.language == "hebrew" and given.language_given and "(Hebrew given)" in given.terms


def test_hebrew_stop_words_are_no_terms():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.query_counts(["של על עם הוא זה לא יש"]).nnz == 0
    english = LexicalBaselines(DOCUMENTS, language="english")
    assert english.query_counts(["של"]).nnz == 1


@pytest.mark.parametrize("name", ["bm25", "cosine"])
def test_reading_hebrew_ranks_as_well_and_reaches_fewer_unrelated_documents(name):
    # idf already weighs של and על low, so the ranking of the judged documents stays; the
    # documents a query reaches only through them are gone
    assert mean_ndcg("hebrew", name) >= mean_ndcg("english", name) - 1e-9
    assert irrelevant_reached("hebrew", name) < irrelevant_reached("english", name)


if __name__ == "__main__":       # the figures of docs/languages.md, Hebrew
    for name in ("bm25", "cosine"):
        print(name, "hebrew %.3f" % mean_ndcg("hebrew", name), "english %.3f" % mean_ndcg("english", name))
    print("irrelevant documents reached: hebrew", irrelevant_reached("hebrew"), "english", irrelevant_reached("english"))
