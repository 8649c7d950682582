"""The lexical baselines read a Bulgarian collection in Bulgarian: detected by its stop words
(not as Russian, whose short words it shares), its stop words dropped and its words
light-stemmed as Lucene's (and Elasticsearch's) Bulgarian analyser does, with or without
PyStemmer. No Bulgarian collection ships in ../shared/data: the documents, queries and
judgements below are hand-written.

Each query's word (a noun in its dictionary form) stands in its relevant documents with the
definite article (градът, книгата, лекарят) or in the plural (градове, книги, лекари), which
Russian's and English rules leave apart (Russian's stems join some: книги, лекарите); ``деца``
(children), ``реките`` (the rivers) and ``училищата`` (the schools) stay apart from ``дете``,
``река`` and ``училище`` under Bulgarian's light stemmer, as in Lucene.
"""
import sys

import pytest

import judged_lexical
from learnsim.baseline import LexicalBaselines

DOCUMENTS = [
    "Градът се намира в подножието на планината",                       # 0 city, mountain
    "Големите градове имат много проблеми с транспорта",                 # 1 cities
    "Тя чете книгата всяка вечер преди сън",                             # 2 book
    "В библиотеката има стари книги за историята",                       # 3 books
    "Лекарят прегледа пациента сутринта",                                # 4 doctor
    "Лекарите в болницата работят цяла нощ",                             # 5 doctors
    "Студентите пишат изпит по математика",                              # 6 students
    "Професорът говори със студента за работата му",                     # 7 student
    "Реките в България текат към Черно море",                            # 8 rivers, sea
    "Мостът над реката е стар и тесен",                                  # 9 river
    "Децата играят в парка след училище",                                # 10 children, school
    "Детето спи в стаята си",                                            # 11 child
    "Училищата започват на петнадесети септември",                       # 12 schools
    "Влаковете за Пловдив тръгват всеки час",                            # 13 trains
    "Във влака имаше много пътници",                                     # 14 train
    "Морето беше спокойно и топло",                                      # 15 sea
    "Планините в страната са високи и красиви",                          # 16 mountains
    "Тук времето е студено през зимата",                                 # 17
]
# (query, relevant documents), each relevant document graded 1
JUDGED = [
    ("град", (0, 1)),
    ("книга", (2, 3)),
    ("лекар", (4, 5)),
    ("студент", (6, 7)),
    ("река", (8, 9)),
    ("дете", (10, 11)),
    ("училище", (10, 12)),
    ("влак", (13, 14)),
    ("море", (8, 15)),
    ("планина", (0, 16)),
]


def mean_ndcg(language, name="bm25", k=10):
    """Mean nDCG@k of ``JUDGED`` over ``DOCUMENTS``, the baselines reading ``language``."""
    return judged_lexical.mean_ndcg(DOCUMENTS, JUDGED, language, name, k)


def test_a_bulgarian_collection_is_detected_and_read_in_bulgarian():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.language == "bulgarian" and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == "bulgarian"
    assert lex.vectorizer.get_params()["stem"] == "bulgarian_light"
    assert "Bulgarian stop words dropped (python-stop-words' list)" in lex.terms
    assert "light stems (Lucene's)" in lex.terms and "detected from the collection's stop words" in lex.terms
    given = LexicalBaselines(DOCUMENTS, language="bg")
    assert given.language == "bulgarian" and given.language_given and "(Bulgarian given)" in given.terms


@pytest.mark.parametrize("query, document", [("град", 0), ("град", 1), ("книга", 2), ("река", 9), ("дете", 11),
                                             ("влак", 13), ("море", 15), ("планина", 0)])
def test_a_query_word_finds_its_documents_forms_where_russian_rules_did_not(query, document):
    bulgarian, russian = LexicalBaselines(DOCUMENTS), LexicalBaselines(DOCUMENTS, language="russian")
    assert bulgarian.scores("bm25", bulgarian.query_counts([query]))[0, document] > 0
    assert russian.scores("bm25", russian.query_counts([query]))[0, document] == 0


def test_bulgarian_stop_words_are_no_terms():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.query_counts(["се на за от това към със"]).nnz == 0


def test_reading_bulgarian_ranks_the_judged_documents_far_better():
    bulgarian = mean_ndcg("bulgarian")
    # as before: such a collection read as Russian (its short words), or as English
    assert bulgarian > mean_ndcg("russian") + 0.2 and bulgarian > mean_ndcg("english") + 0.2
    # деца, реките and училищата stay apart, as in Lucene: not every relevant document is found
    assert bulgarian > 0.8
    assert mean_ndcg("bulgarian", "cosine") > mean_ndcg("russian", "cosine") + 0.2


def test_bulgarian_is_stemmed_without_pystemmer(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # makes `import Stemmer` fail
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.stem == "bulgarian_light" and "unstemmed" not in lex.terms
    assert lex.scores("bm25", lex.query_counts(["град"]))[0, 1] > 0


def test_the_fallback_bm25_reads_bulgarian_as_its_check_did():
    from learnsim._baseline_models import baseline_pipeline

    bm25 = baseline_pipeline("bm25", DOCUMENTS)
    assert bm25.vectorizer.get_params()["stem"] == "bulgarian_light"
    assert {hit["corpus_id"] for hit in bm25.search("лекар", DOCUMENTS, k=2)} == {4, 5}
