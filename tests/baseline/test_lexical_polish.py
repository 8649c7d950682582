"""The lexical baselines read a Polish collection in Polish: detected by its stop words, its stop
words dropped (python-stop-words' list) and its words stemmed by Snowball's Polish stemmer where
PyStemmer has it. No Polish collection ships in ../shared/data: the documents, queries and
judgements below are hand-written; each query's word (a noun in its dictionary form) stands in
its relevant documents in another case or number (miasta, mieście; książki, książkach)."""
import pytest

import judged_lexical
from learnsim.baseline import LexicalBaselines

DOCUMENTS = [
    "Stare miasto jest pełne turystów w lecie",                          # 0 town
    "W tym mieście mieszka ponad milion ludzi",                          # 1 town
    "Moja siostra czyta książki każdego wieczoru",                       # 2 books
    "W starych książkach są piękne mapy",                                # 3 books
    "Lekarze w szpitalu pracują całą noc",                               # 4 doctors
    "Pacjent czekał na lekarza dwie godziny",                            # 5 doctor
    "Studenci piszą egzamin z matematyki",                               # 6 students
    "Profesor rozmawiał ze studentem o jego pracy",                      # 7 student
    "Rzeki na wiosnę często zalewają pola",                              # 8 rivers
    "Przez rzekę prowadzi nowy most",                                    # 9 river
    "Dzieci bawiły się w ogrodzie z piłką",                              # 10 garden
    "Pociągi do Krakowa odjeżdżają co godzinę",                          # 11 trains
    "W pociągu było wielu pasażerów",                                    # 12 train
    "W szkołach nauka zaczyna się we wrześniu",                          # 13 schools
    "Ta szkoła ma nową salę gimnastyczną",                               # 14 school
    "Góry są wysokie i piękne zimą",                                     # 15
]
JUDGED = [
    ("miasto", (0, 1)),
    ("książka", (2, 3)),
    ("lekarz", (4, 5)),
    ("student", (6, 7)),
    ("rzeka", (8, 9)),
    ("pociąg", (11, 12)),
    ("szkoła", (13, 14)),
    ("ogród", (10,)),
]


def mean_ndcg(language, name="bm25", k=10):
    """Mean nDCG@k of ``JUDGED`` over ``DOCUMENTS``, the baselines reading ``language``."""
    return judged_lexical.mean_ndcg(DOCUMENTS, JUDGED, language, name, k)


def test_a_polish_collection_is_detected_and_its_stop_words_dropped():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.language == "polish" and not lex.language_given
    assert lex.query_counts(["się na jest ze ta"]).nnz == 0


def test_reading_polish_with_snowballs_stems_ranks_the_judged_documents_better():
    Stemmer = pytest.importorskip("Stemmer")
    if "polish" not in Stemmer.algorithms():
        pytest.skip("this PyStemmer has no Polish stemmer")
    assert mean_ndcg("polish") > mean_ndcg("english") + 0.2
