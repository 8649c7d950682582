"""The lexical baselines read a Serbian, Croatian or Bosnian collection in Serbian, as Elasticsearch's
serbian analyser does: detected by its stop words (stopwords-iso's Croatian list, written in both
scripts), those dropped and its words stemmed by Snowball's Serbian stemmer, which reads Cyrillic
as Latin. Before, a Croatian collection was read as Czech and a Serbian one in Cyrillic as
Russian. No such collection ships in ../shared/data: the documents, queries and judgements below
are hand-written; each query's word (a noun in its dictionary form) stands in its relevant
documents in another case or number (gradu, knjigama; граду, књигама)."""
import pytest

import judged_lexical
from learnsim.baseline import LexicalBaselines

COLLECTIONS = {
    # (documents, judged queries, the language they were read as before)
    "croatian": ([
        "Stari grad je pun turista ljeti",                               # 0 town
        "U tom gradu živi više od milijun ljudi",                        # 1 town
        "Moja sestra čita knjige svake večeri",                          # 2 books
        "U starim knjigama ima lijepih karata",                          # 3 books
        "Liječnici u bolnici rade cijelu noć",                           # 4 doctors
        "Pacijent je čekao liječnika dva sata",                          # 5 doctor
        "Studenti pišu ispit iz matematike",                             # 6 students
        "Profesor je razgovarao sa studentom o njegovom radu",           # 7 student
        "Rijeke u proljeće često poplave polja",                         # 8 rivers
        "Preko rijeke vodi novi most",                                   # 9 river
        "Djeca su se igrala u vrtu s loptom",                            # 10 garden
        "Vlakovi za Split polaze svaki sat",                             # 11 trains
        "U vlaku je bilo mnogo putnika",                                 # 12 train
        "U školama nastava počinje u rujnu",                             # 13 schools
        "Ta škola ima novu dvoranu",                                     # 14 school
        "Planine su visoke i lijepe zimi",                               # 15
    ], [("grad", (0, 1)), ("knjiga", (2, 3)), ("liječnik", (4, 5)), ("student", (6, 7)), ("rijeka", (8, 9)),
        ("vlak", (11, 12)), ("škola", (13, 14)), ("vrt", (10,))], "czech"),
    "serbian": ([
        "Стари град је пун туриста лети",                                # 0 town
        "У том граду живи више од милион људи",                          # 1 town
        "Моја сестра чита књиге сваке вечери",                           # 2 books
        "У старим књигама има лепих мапа",                               # 3 books
        "Лекари у болници раде целу ноћ",                                # 4 doctors
        "Пацијент је чекао лекара два сата",                             # 5 doctor
        "Студенти пишу испит из математике",                             # 6 students
        "Професор је разговарао са студентом о његовом раду",            # 7 student
        "Реке у пролеће често плаве поља",                               # 8 rivers
        "Преко реке води нови мост",                                     # 9 river
        "Деца су се играла у врту с лоптом",                             # 10 garden
        "Возови за Ниш полазе сваки сат",                                # 11 trains
        "У возу је било много путника",                                  # 12 train
        "У школама настава почиње у септембру",                          # 13 schools
        "Та школа има нову салу",                                        # 14 school
        "Планине су високе и лепе зими",                                 # 15
    ], [("град", (0, 1)), ("књига", (2, 3)), ("лекар", (4, 5)), ("студент", (6, 7)), ("река", (8, 9)),
        ("воз", (11, 12)), ("школа", (13, 14)), ("врт", (10,))], "russian"),
    # Slovenian, which learnsim did not read when Serbian's list came (the closest it had then)
    "slovenian": ([
        "Mesto je poleti polno turistov",                                 # 0 town
        "V tem mestu živi več kot milijon ljudi",                         # 1 town
        "Moja sestra vsak večer bere knjige",                             # 2 books
        "V starih knjigah so lepi zemljevidi",                            # 3 books
        "Zdravniki v bolnišnici delajo vso noč",                          # 4 doctors
        "Bolnik je čakal zdravnika dve uri",                              # 5 doctor
        "Študenti pišejo izpit iz matematike",                            # 6 students
        "Profesor se je pogovarjal s študentom o njegovem delu",          # 7 student
        "Reke spomladi pogosto poplavijo polja",                          # 8 rivers
        "Čez reko vodi nov most",                                         # 9 river
        "Otroci so se igrali na vrtu z žogo",                             # 10 garden
        "Vlaki za Maribor odpeljejo vsako uro",                           # 11 trains
        "Na vlaku je bilo veliko potnikov",                               # 12 train
        "V šolah se pouk začne septembra",                                # 13 schools
        "Ta šola ima novo telovadnico",                                   # 14 school
        "Gore so pozimi visoke in lepe",                                  # 15
    ], [("mesto", (0, 1)), ("knjiga", (2, 3)), ("zdravnik", (4, 5)), ("študent", (6, 7)), ("reka", (8, 9)),
        ("vlak", (11, 12)), ("šola", (13, 14)), ("vrt", (10,))], "czech"),
}


def mean_ndcg(collection, language, name="bm25", k=10):
    """Mean nDCG@k of the collection's judged queries, the baselines reading ``language``."""
    documents, judged, _ = COLLECTIONS[collection]
    return judged_lexical.mean_ndcg(documents, judged, language, name, k)


@pytest.mark.parametrize("collection", ["croatian", "serbian"])
def test_the_collection_is_detected_as_serbian_and_its_stop_words_dropped(collection):
    lex = LexicalBaselines(COLLECTIONS[collection][0])
    assert lex.language == "serbian" and not lex.language_given
    assert lex.query_counts(["je se na za od što", "је се на за од што"]).nnz == 0


def test_reading_serbian_cyrillic_ranks_the_judged_documents_better_than_russian():
    pytest.importorskip("Stemmer")
    # Russian's Snowball stems leave граду, књигама, школама apart from град, књига, школа
    assert mean_ndcg("serbian", "serbian") > mean_ndcg("serbian", "russian") + 0.1
    assert mean_ndcg("serbian", "serbian", "cosine") > mean_ndcg("serbian", "russian", "cosine") + 0.1


def test_croatian_read_as_serbian_drops_the_stop_words_czech_left_and_ranks_well():
    pytest.importorskip("Stemmer")
    documents = COLLECTIONS["croatian"][0]
    words = ["su što koji ili će"]
    assert LexicalBaselines(documents, language="hr").query_counts(words).nnz == 0
    assert LexicalBaselines(documents, language="czech").query_counts(words).nnz > 0
    # not above Czech's light stems on these one-word queries: their c -> k joins liječnici with
    # liječnik, which Snowball's Serbian stems leave apart (docs/languages.md)
    assert mean_ndcg("croatian", "serbian") > 0.85


def test_a_slovenian_collection_read_as_czech_before_ranks_no_worse_with_serbians_stems():
    pytest.importorskip("Stemmer")
    # it is now read as Slovenian, with Serbian's stems (tests/baseline/test_lexical_slavic_more.py)
    assert LexicalBaselines(COLLECTIONS["slovenian"][0]).language == "slovenian"
    # Snowball's Serbian stems join mesto / mestu, knjiga / knjigah as Czech's light stems did
    assert mean_ndcg("slovenian", "serbian") >= mean_ndcg("slovenian", "czech")
    assert mean_ndcg("slovenian", "slovenian") >= mean_ndcg("slovenian", "serbian")


def test_a_latin_query_meets_its_words_written_in_cyrillic():
    pytest.importorskip("Stemmer")
    documents = COLLECTIONS["serbian"][0]
    lex = LexicalBaselines(documents, language="sr")
    scores = lex.scores("bm25", lex.query_counts(["knjiga", "škola"]))
    assert set(scores[0].nonzero()[0]) == {2, 3} and set(scores[1].nonzero()[0]) == {13, 14}


if __name__ == "__main__":       # the figures of docs/languages.md, Serbian, Croatian and Bosnian (and Slovenian)
    for collection, (_, _, before) in COLLECTIONS.items():
        print(collection, *("%s %.3f / %.3f (%s)" % (name, mean_ndcg(collection, "serbian", name),
                                                     mean_ndcg(collection, before, name), before)
                            for name in ("bm25", "cosine")))
