"""The lexical baselines read a Slovenian, Macedonian or Belarusian collection in its language (its
stop words dropped, as detected by them; Slovenian stemmed by Snowball's Serbian stemmer, as it was
read before, the two Cyrillic ones unstemmed: Snowball and Lucene have no stemmer of any of them),
where they read Slovenian as Serbian (its sentences alone as Dutch), Macedonian and Belarusian as
Russian (Russian's stop words and Snowball stems). No such collection ships in ../shared/data: the
documents, queries and judgements below are hand-written. Each query is written as a user writes
it, with its question words and particles (kje, kaj, ki; каде, што; дзе, што), and its noun stands
in its relevant documents in another case, number or with an article."""
import pytest

import judged_lexical
import learnsim.text._languages as languages
from learnsim.baseline import LexicalBaselines
from learnsim.text import STOP_LANGUAGES

NEW = ("slovenian", "macedonian", "belarusian")
COLLECTIONS = {
    "slovenian": ([
        "Mesto je poleti polno turistov, ki pridejo tudi pozimi",         # 0 town
        "V tem mestu živi več kot milijon ljudi",                         # 1 town
        "Moja sestra vsak večer bere knjige, ker jih ima rada",           # 2 books
        "V starih knjigah so lepi zemljevidi",                            # 3 books
        "Zdravniki v bolnišnici delajo vso noč",                          # 4 doctors
        "Bolnik je čakal zdravnika dve uri in ni vedel, kaj naj stori",   # 5 doctor
        "Študenti pišejo izpit iz matematike",                            # 6 students
        "Profesor se je pogovarjal s študentom o tem, kako napreduje",    # 7 student
        "Reke spomladi pogosto poplavijo polja",                          # 8 rivers
        "Čez reko vodi nov most, ki je zelo dolg",                        # 9 river
        "Otroci so se igrali na vrtu z žogo",                             # 10 garden
        "Vlaki za Maribor odpeljejo vsako uro",                           # 11 trains
        "Na vlaku je bilo veliko potnikov, ki so tudi stali",             # 12 train
        "V šolah se pouk začne septembra, ko se vrnejo učenci",           # 13 schools
        "Ta šola ima novo telovadnico",                                   # 14 school
        "Gore so pozimi visoke in lepe, kdaj pa kdaj tudi nevarne",       # 15
        "Kje je pošta in kdaj je odprta, tega ne ve nihče",               # 16
        "Kaj bomo jedli za večerjo, še ne vem",                           # 17
    ], [("kje je mesto", (0, 1)), ("kaj je v knjigi", (2, 3)), ("kdaj delajo zdravniki", (4, 5)),
        ("kako je s študenti", (6, 7)), ("kje je reka", (8, 9)), ("kdaj odpelje vlak", (11, 12)),
        ("kako je v šoli", (13, 14)), ("kaj je na vrtu", (10,))]),
    "macedonian": ([
        "Стариот град е полн со туристи секое лето",                      # 0 town
        "Во градот живеат повеќе од милион луѓе",                         # 1 town
        "Мојата сестра чита книги секоја вечер",                          # 2 books
        "Книгата на масата е многу стара",                                # 3 book
        "Лекарите во болницата работат цела ноќ",                         # 4 doctors
        "Пациентот го чекаше лекарот два часа",                           # 5 doctor
        "Студентите пишуваат испит по математика",                        # 6 students
        "Професорот разговараше со студентот за неговата работа",         # 7 student
        "Реките напролет често ги поплавуваат полињата",                  # 8 rivers
        "Преку реката води нов мост",                                     # 9 river
        "Децата си играа во градината со топка",                          # 10 garden
        "Возовите за Битола поаѓаат секој час",                           # 11 trains
        "Во возот имаше многу патници",                                   # 12 train
        "Во училиштата наставата почнува во септември",                   # 13 schools
        "Тоа училиште има нова сала",                                     # 14 school
        "Планините се високи и убави во зима",                            # 15
        "Каде е поштата и кога е отворена, тоа никој не знае",            # 16
        "Што ќе јадеме за вечера, сè уште не знам",                       # 17
    ], [("каде е градот", (0, 1)), ("што има во книгите", (2, 3)), ("кога работат лекарите", (4, 5)),
        ("кој е студентот", (6, 7)), ("каде е реката", (8, 9)), ("кога поаѓа возот", (11, 12)),
        ("што има во училиштето", (13, 14)), ("што има во градината", (10,))]),
    "belarusian": ([
        "Стары горад поўны турыстаў кожнае лета",                         # 0 town
        "У гэтым горадзе жыве больш за мільён людзей",                    # 1 town
        "Мая сястра чытае кнігі кожны вечар",                             # 2 books
        "У старых кнігах ёсць прыгожыя карты",                            # 3 books
        "Лекары ў бальніцы працуюць усю ноч",                             # 4 doctors
        "Пацыент чакаў лекара дзве гадзіны",                              # 5 doctor
        "Студэнты пішуць экзамен па матэматыцы",                          # 6 students
        "Прафесар размаўляў са студэнтам пра яго працу",                  # 7 student
        "Рэкі вясной часта затапляюць палі",                              # 8 rivers
        "Праз раку вядзе новы мост",                                      # 9 river
        "Дзеці гулялі ў садзе з мячом",                                   # 10 garden
        "Цягнікі ў Гомель адыходзяць кожную гадзіну",                     # 11 trains
        "У цягніку было шмат пасажыраў",                                  # 12 train
        "У школах заняткі пачынаюцца ў верасні",                          # 13 schools
        "Гэтая школа мае новую залу",                                     # 14 school
        "Горы зімой высокія і прыгожыя",                                  # 15
        "Дзе пошта і калі яна адчынена, ніхто не ведае",                  # 16
        "Што мы будзем есці на вячэру, я яшчэ не ведаю",                  # 17
    ], [("дзе горад", (0, 1)), ("што ёсць у кнізе", (2, 3)), ("калі працуе лекар", (4, 5)),
        ("хто такі студэнт", (6, 7)), ("дзе рака", (8, 9)), ("калі адыходзіць цягнік", (11, 12)),
        ("што ёсць у школе", (13, 14)), ("што ў садзе", (10,))]),
}
# what each was read as before (detected without the three lists), and the stems it takes now
BEFORE = {"slovenian": "serbian", "macedonian": "russian", "belarusian": "russian"}
STEMS = {"slovenian": "serbian", "macedonian": "bulgarian_light", "belarusian": "russian"}


def mean_ndcg(language, reading, name="bm25", k=10):
    """Mean nDCG@k of ``language``'s judged queries over its documents, the baselines reading ``reading``."""
    documents, judged = COLLECTIONS[language]
    return judged_lexical.mean_ndcg(documents, judged, reading, name, k)


def _needs_stemmer(*languages):
    if any(STEMS.get(name, name) != "bulgarian_light" for name in languages):
        pytest.importorskip("Stemmer")


@pytest.mark.parametrize("language", NEW)
def test_the_collection_is_detected_and_read_in_its_language(language):
    _needs_stemmer(language)
    lex = LexicalBaselines(COLLECTIONS[language][0])
    assert lex.language == language and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == language
    assert lex.vectorizer.get_params()["stem"] == STEMS[language]
    assert lex.terms.startswith(f"{language.capitalize()} stop words dropped")
    # the stems are named by their own language, not the collection's
    stems = STEMS[language]
    assert ("Bulgarian light stems" if stems == "bulgarian_light" else f"{stems.capitalize()} Snowball stems") in lex.terms


@pytest.mark.parametrize("language", NEW)
def test_the_collection_was_read_as_a_neighbour_before(language, monkeypatch):
    monkeypatch.setattr(languages, "STOP_LANGUAGES", tuple(n for n in STOP_LANGUAGES if n not in NEW))
    assert LexicalBaselines(COLLECTIONS[language][0]).language == BEFORE[language]


@pytest.mark.parametrize("language", NEW)
def test_reading_the_language_keeps_its_questions_from_the_documents_that_share_only_their_stop_words(language):
    _needs_stemmer(language, BEFORE[language])
    documents, judged = COLLECTIONS[language]
    # the neighbour's list left kje, kaj, kdaj (каде, што; дзе, што, ёсць) as terms: they met
    # documents that share nothing else with the query, and ranked some above a relevant one
    read = judged_lexical.irrelevant_reached(documents, judged, language)
    assert read < judged_lexical.irrelevant_reached(documents, judged, BEFORE[language]) / 2
    assert mean_ndcg(language, language) >= mean_ndcg(language, BEFORE[language]) - 1e-9
    assert mean_ndcg(language, language, "cosine") >= mean_ndcg(language, BEFORE[language], "cosine") - 1e-9


def test_a_slovenian_collection_ranks_better_than_read_as_serbian_or_dutch():
    _needs_stemmer("slovenian", "dutch")
    read = mean_ndcg("slovenian", "slovenian")
    assert read > mean_ndcg("slovenian", "serbian") + 0.05
    # its sentences alone were read as Dutch (je, in), whose stems leave knjiga and knjigah apart
    assert read > mean_ndcg("slovenian", "dutch") + 0.2


@pytest.mark.parametrize("language", NEW)
def test_the_borrowed_stems_rank_better_than_none(language, monkeypatch):
    # no stemmer of the language has a licence to port (Snowball and Lucene have none): unstemmed,
    # a query's knjiga, книга, кніга met none of its inflected forms
    _needs_stemmer(language)
    read = mean_ndcg(language, language)
    monkeypatch.setitem(languages._BORROWED_STEMS, language, None)
    assert read > mean_ndcg(language, language) + 0.1


@pytest.mark.parametrize("language, code", [("slovenian", "sl"), ("macedonian", "mk"), ("belarusian", "be-BY")])
def test_the_language_is_given_by_its_code(language, code):
    given = LexicalBaselines(COLLECTIONS[language][0], language=code)
    assert given.language == language and given.language_given


if __name__ == "__main__":       # the figures of docs/languages.md, Slovenian, Macedonian and Belarusian
    for language, before in BEFORE.items():
        documents, judged = COLLECTIONS[language]
        print(language, *("%s %.3f / %.3f (%s)" % (name, mean_ndcg(language, language, name),
                                                   mean_ndcg(language, before, name), before)
                          for name in ("bm25", "cosine")),
              "irrelevant reached %d / %d" % (judged_lexical.irrelevant_reached(documents, judged, language),
                                              judged_lexical.irrelevant_reached(documents, judged, before)))
        languages._BORROWED_STEMS[language], stems = None, languages._BORROWED_STEMS[language]
        print("  unstemmed: bm25 %.3f" % mean_ndcg(language, language))
        languages._BORROWED_STEMS[language] = stems
    print("slovenian as dutch: bm25 %.3f" % mean_ndcg("slovenian", "dutch"))
