"""The lexical baselines read a Czech collection in Czech: detected by its stop words, its stop
words dropped and its words light-stemmed as Lucene's (and Elasticsearch's) Czech analyser does,
with or without PyStemmer. No Czech collection ships in ../shared/data: the documents, queries
and judgements below are hand-written.

Each query's word (a noun or adjective in its dictionary form) stands in its relevant documents
only in another case or number (hradu, hradech; knihy, knihách), which English rules leave apart;
one, ``pes``, stands there as ``psa`` and ``psi``, whose stems Czech's light stemmer keeps apart.
"""
import sys

import pytest

import judged_lexical
from learnsim.baseline import LexicalBaselines

DOCUMENTS = [
    "Na kopci nad městem stojí starý hrad ze čtrnáctého století",         # 0 castle
    "Prohlídka hradu trvá asi hodinu a půl",                              # 1 castle
    "V českých hradech se často konají letní slavnosti",                  # 2 castle
    "Moje sestra čte knihy každý večer před spaním",                      # 3 books
    "V knihách o historii jsou staré mapy",                              # 4 books
    "Lékaři v nemocnici pracují celou noc",                               # 5 doctors
    "Pacient čekal na lékaře dvě hodiny",                                 # 6 doctor
    "Studenti píšou zkoušku z matematiky",                                # 7 students
    "Profesor mluvil se studentem o jeho práci",                          # 8 student
    "Řeky na jaře často zaplavují pole",                                  # 9 rivers
    "Přes řeku vede nový most",                                           # 10 river
    "Děti si hrály na zahradě s míčem",                                   # 11
    "Náš pes rád běhá v parku",                                           # 12 dog
    "Sousedé mají dva malé psy a kočku",                                  # 13 dogs
    "Ve školách začíná výuka v září",                                     # 14 schools
    "Ta škola má novou tělocvičnu",                                       # 15 school
    "Vlaky do Brna jezdí každou hodinu",                                  # 16 trains
    "Ve vlaku bylo mnoho cestujících",                                    # 17 train
]
# (query, relevant documents), each relevant document graded 1
JUDGED = [
    ("hrad", (0, 1, 2)),
    ("kniha", (3, 4)),
    ("lékař", (5, 6)),
    ("student", (7, 8)),
    ("řeka", (9, 10)),
    ("pes", (12, 13)),
    ("škola", (14, 15)),
    ("vlak", (16, 17)),
    ("zahrada", (11,)),
    ("most", (10,)),
]


def mean_ndcg(language, name="bm25", k=10):
    """Mean nDCG@k of ``JUDGED`` over ``DOCUMENTS``, the baselines reading ``language``."""
    return judged_lexical.mean_ndcg(DOCUMENTS, JUDGED, language, name, k)


def test_a_czech_collection_is_detected_and_read_in_czech():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.language == "czech" and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == "czech"
    assert lex.vectorizer.get_params()["stem"] == "czech_light"
    assert "Czech stop words dropped (python-stop-words' list)" in lex.terms
    assert "light stems (Lucene's)" in lex.terms and "detected from the collection's stop words" in lex.terms
    given = LexicalBaselines(DOCUMENTS, language="cs")
    assert given.language == "czech" and given.language_given and "(Czech given)" in given.terms


@pytest.mark.parametrize("query, document", [("hrad", 1), ("hrad", 2), ("kniha", 3), ("kniha", 4), ("lékař", 5),
                                             ("řeka", 9), ("škola", 14), ("vlak", 16), ("zahrada", 11)])
def test_a_query_word_finds_its_documents_forms_where_english_rules_did_not(query, document):
    czech, english = LexicalBaselines(DOCUMENTS), LexicalBaselines(DOCUMENTS, language="english")
    assert czech.scores("bm25", czech.query_counts([query]))[0, document] > 0
    assert english.scores("bm25", english.query_counts([query]))[0, document] == 0


def test_czech_stop_words_are_no_terms():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.query_counts(["na se je ve který jsou"]).nnz == 0
    english = LexicalBaselines(DOCUMENTS, language="english")
    assert english.query_counts(["na"]).nnz == 1


def test_reading_czech_ranks_the_judged_documents_far_better():
    czech, english = mean_ndcg("czech"), mean_ndcg("english")
    assert czech > english + 0.2
    assert czech > 0.85       # psa and psy stay apart from pes: not every relevant document is found
    assert mean_ndcg("czech", "cosine") > mean_ndcg("english", "cosine") + 0.2


def test_czech_is_stemmed_without_pystemmer(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # makes `import Stemmer` fail
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.stem == "czech_light" and "unstemmed" not in lex.terms
    assert lex.scores("bm25", lex.query_counts(["hrad"]))[0, 2] > 0


def test_the_fallback_bm25_reads_czech_as_its_check_did():
    from learnsim._baseline_models import baseline_pipeline

    bm25 = baseline_pipeline("bm25", DOCUMENTS)
    assert bm25.vectorizer.get_params()["stem"] == "czech_light"
    assert {hit["corpus_id"] for hit in bm25.search("lékař", DOCUMENTS, k=2)} == {5, 6}
