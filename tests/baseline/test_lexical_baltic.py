"""The lexical baselines read a Lithuanian, Latvian or Estonian collection in its language:
detected by its stop words (stopwords-iso's lists), those dropped, Lithuanian and Estonian stemmed
by Snowball's stemmers (PyStemmer's) and Latvian by Lucene's light stemmer (learnsim's
``latvian_light``, as Elasticsearch's latvian analyser), where they read Lithuanian and Latvian as
English before, and Estonian as Finnish. No such collection
ships in ../shared/data: the documents, queries and judgements below are hand-written; each
query's word (a noun in its dictionary form) stands in its relevant documents in another case or
number (mieste, knygose; pilsētā, grāmatās)."""
import pytest

import judged_lexical
from learnsim.baseline import LexicalBaselines

COLLECTIONS = {
    "lithuanian": ([
        "Miestas vasarą pilnas turistų",                                  # 0 town
        "Šiame mieste gyvena milijonas žmonių",                           # 1 town
        "Mano sesuo kiekvieną vakarą skaito knygas",                      # 2 books
        "Senose knygose yra gražių žemėlapių",                            # 3 books
        "Ligoninės gydytojai dirba visą naktį",                           # 4 doctors
        "Pacientas laukė gydytojo dvi valandas",                          # 5 doctor
        "Studentai rašo matematikos egzaminą",                            # 6 students
        "Profesorius kalbėjo su studentu apie jo darbą",                  # 7 student
        "Pavasarį upės dažnai užlieja laukus",                            # 8 rivers
        "Per upę veda naujas tiltas",                                     # 9 river
        "Vaikai žaidė sode su kamuoliu",                                  # 10 garden
        "Traukiniai į Kauną išvyksta kas valandą",                        # 11 trains
        "Traukinyje buvo daug keleivių",                                  # 12 train
        "Mokyklose pamokos prasideda rugsėjį",                            # 13 schools
        "Ši mokykla turi naują salę",                                     # 14 school
        "Kalnai žiemą aukšti ir gražūs",                                  # 15
    ], [("miestas", (0, 1)), ("knyga", (2, 3)), ("gydytojas", (4, 5)), ("studentas", (6, 7)), ("upė", (8, 9)),
        ("traukinys", (11, 12)), ("mokykla", (13, 14)), ("sodas", (10,))]),
    "latvian": ([
        "Pilsēta vasarā ir pilna ar tūristiem",                           # 0 town
        "Šajā pilsētā dzīvo miljons cilvēku",                             # 1 town
        "Mana māsa katru vakaru lasa grāmatas",                           # 2 books
        "Vecajās grāmatās ir skaistas kartes",                            # 3 books
        "Slimnīcas ārsti strādā visu nakti",                              # 4 doctors
        "Pacients gaidīja ārstu divas stundas",                           # 5 doctor
        "Studenti raksta matemātikas eksāmenu",                           # 6 students
        "Profesors runāja ar studentu par viņa darbu",                    # 7 student
        "Pavasarī upes bieži applūdina laukus",                           # 8 rivers
        "Pār upi ved jauns tilts",                                        # 9 river (upi: three letters, kept)
        "Bērni spēlējās dārzā ar bumbu",                                  # 10 garden
        "Vilcieni uz Daugavpili atiet katru stundu",                      # 11 trains
        "Vilcienā bija daudz pasažieru",                                  # 12 train
        "Skolās mācības sākas septembrī",                                 # 13 schools
        "Šai skolai ir jauna zāle",                                       # 14 school
        "Kalni ziemā ir augsti un skaisti",                               # 15
    ], [("pilsēta", (0, 1)), ("grāmata", (2, 3)), ("ārsts", (4, 5)), ("students", (6, 7)), ("upe", (8, 9)),
        ("vilciens", (11, 12)), ("skola", (13, 14)), ("dārzs", (10,))]),
    "estonian": ([
        "Linn on suvel turiste täis",                                     # 0 town
        "Selles linnas elab miljon inimest",                              # 1 town
        "Mu õde loeb igal õhtul raamatuid",                               # 2 books
        "Vanades raamatutes on ilusad kaardid",                           # 3 books
        "Haigla arstid töötavad terve öö",                                # 4 doctors
        "Patsient ootas arsti kaks tundi",                                # 5 doctor
        "Õpilased kirjutavad matemaatika eksamit",                        # 6 pupils
        "Professor rääkis õpilasega tema tööst",                          # 7 pupil
        "Kevadel ujutavad jõed sageli põlde üle",                         # 8 rivers
        "Üle jõe viib uus sild",                                          # 9 river
        "Lapsed mängisid mänguväljakul palliga",                          # 10 playground
        "Rongid Tartusse väljuvad iga tund",                              # 11 trains
        "Rongis oli palju reisijaid",                                     # 12 train
        "Koolides algab õppetöö septembris",                              # 13 schools
        "Sellel koolil on uus võimla",                                    # 14 school
        "Mäed on talvel kõrged ja ilusad",                                # 15
    ], [("linn", (0, 1)), ("raamat", (2, 3)), ("arst", (4, 5)), ("õpilane", (6, 7)), ("jõgi", (8, 9)),
        ("rong", (11, 12)), ("kool", (13, 14)), ("mänguväljak", (10,))]),
}
STOP_WORDS = {"lithuanian": "ir kad su apie aš", "latvian": "ir un uz ar par", "estonian": "ja on oli see kõik"}
BEFORE = {"lithuanian": "english", "latvian": "english", "estonian": "finnish"}


def mean_ndcg(collection, language, name="bm25", k=10):
    """Mean nDCG@k of the collection's judged queries, the baselines reading ``language``."""
    documents, judged = COLLECTIONS[collection]
    return judged_lexical.mean_ndcg(documents, judged, language, name, k)


@pytest.mark.parametrize("language", list(COLLECTIONS))
def test_the_collection_is_detected_and_its_stop_words_dropped(language):
    lex = LexicalBaselines(COLLECTIONS[language][0])
    assert lex.language == language and not lex.language_given
    assert lex.query_counts([STOP_WORDS[language]]).nnz == 0


@pytest.mark.parametrize("language", list(COLLECTIONS))
def test_reading_the_language_ranks_the_judged_documents_better_than_before(language):
    if language != "latvian":
        pytest.importorskip("Stemmer")      # Latvian's light stemmer needs none
    # each query's word stands in its documents in another case or number, which Porter and
    # Finnish's Snowball stems leave apart (Estonian's join fewer than the others: its nominative
    # keeps the stem vowel its other cases add, linn / linna, kool / kooli)
    gain = 0.1 if language == "estonian" else 0.3
    before = BEFORE[language]
    assert mean_ndcg(language, language) > mean_ndcg(language, before) + gain
    assert mean_ndcg(language, language, "cosine") > mean_ndcg(language, before, "cosine") + gain


if __name__ == "__main__":       # the figures of docs/languages.md, Lithuanian and Latvian, Estonian
    for language in COLLECTIONS:
        print(language, *("%s %.3f / %.3f (%s)" % (name, mean_ndcg(language, language, name),
                                                   mean_ndcg(language, BEFORE[language], name), BEFORE[language])
                          for name in ("bm25", "cosine")))
