"""The lexical baselines read an Esperanto collection in Esperanto (its stop words dropped, Snowball's
Esperanto stems), where they read it as Spanish before (by la, de, en), whose rules, as English's,
leave librojn apart from libro. No such collection ships in
../shared/data: the documents, queries and judgements below are hand-written, each query's noun or
verb written in another number, case or tense in its documents (-o, -oj, -on, -ojn; -as, -is, -i)."""
import pytest

import judged_lexical
from learnsim.baseline import LexicalBaselines

DOCUMENTS = [
    "La infanoj iras al la lernejo ĉiun matenon.",                      # 0 school
    "La lernejoj de la urbo fermiĝis pro la ŝtormo.",                   # 1 schools
    "Mi legis la libron en unu vespero.",                               # 2 the book (acc.)
    "La libroj de la biblioteko estas tre malnovaj.",                   # 3 books
    "La kuracistoj ekzamenis la malsanulon en la hospitalo.",           # 4 doctors, hospital
    "La kuracisto parolis kun mia patrino.",                            # 5 doctor
    "La aŭtoj haltis antaŭ la semaforo.",                               # 6 cars
    "Li aĉetis novan aŭton la pasintan monaton.",                       # 7 a car (acc.)
    "La urbo pleniĝas de turistoj somere.",                             # 8 the city
    "La stratoj de la grandaj urboj estas plenaj de homoj.",            # 9 cities
    "La fiŝkaptistoj iris al la rivero frue matene.",                   # 10 river
    "La riveroj leviĝis post la longa pluvo.",                          # 11 rivers
    "La instruistoj klarigis la lecionon al la lernantoj.",             # 12 teachers
    "La instruisto donis la notojn de la ekzameno.",                    # 13 teacher
    "La birdoj sidas sur la arboj de la ĝardeno.",                      # 14 trees, garden
    "Nia ĝardeno havas altan arbon kaj malgrandan lageton.",            # 15 garden, a tree (acc.)
    "La laboristoj laboras en la fabriko ekde la mateno.",              # 16 (they) work
    "Mia fratino laboris en vendejo de la kvartalo.",                   # 17 (she) worked
]
JUDGED = [("lernejo", (0, 1)), ("libro", (2, 3)), ("kuracisto", (4, 5)), ("hospitaloj", (4,)), ("aŭto", (6, 7)),
          ("urbojn", (8, 9)), ("rivero", (10, 11)), ("instruisto", (12, 13)), ("arboj", (14, 15)),
          ("ĝardenoj", (14, 15)), ("labori", (16, 17))]


def mean_ndcg(reading, name="bm25"):
    return judged_lexical.mean_ndcg(DOCUMENTS, JUDGED, reading, name)


def test_the_collection_is_detected_as_esperanto_and_was_spanish_before(monkeypatch):
    import learnsim.text._languages as languages
    from learnsim.text import detect_language

    assert detect_language(DOCUMENTS) == "esperanto"
    with monkeypatch.context() as m:
        # by la, de, en: half its documents write ĉ ĝ ŝ ŭ, not more, and the letters keep Spanish
        m.setattr(languages, "STOP_LANGUAGES", tuple(n for n in languages.STOP_LANGUAGES if n != "esperanto"))
        assert detect_language(DOCUMENTS) == "spanish"


def test_esperanto_is_read_with_its_stop_words_and_snowballs_esperanto_stems():
    pytest.importorskip("Stemmer")
    from learnsim.text._languages import _pystemmer_has

    if not _pystemmer_has("esperanto"):
        pytest.skip("this PyStemmer has no Esperanto stemmer")
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.language == "esperanto" and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == "esperanto"
    assert lex.vectorizer.get_params()["stem"] == "esperanto"
    assert "Esperanto stop words dropped" in lex.terms
    # English's list kept la, kaj, de, en, kun as terms, which every document writes
    assert lex.query_counts(["la kaj de en kun al"]).nnz == 0
    # a query's noun meets its plural and accusative, a verb its tenses: Spanish's rules, as read
    # before, and English's leave them apart
    read = mean_ndcg("esperanto")
    assert read > mean_ndcg("english") + 0.2
    assert read > mean_ndcg("spanish") + 0.2
    assert mean_ndcg("esperanto", "cosine") > mean_ndcg("english", "cosine") + 0.2
