"""The lexical baselines read a Vietnamese, Swahili, Basque, Irish, Afrikaans, Tagalog or Galician
collection in its language (its stop words dropped, as detected by them; Basque and Irish stemmed by Snowball's
stemmers, Afrikaans by Dutch's, Galician by Portuguese's), where they read Vietnamese, Basque and Irish as English before,
Afrikaans as Dutch, Tagalog as Slovak, Galician as Portuguese (English's stop words, none of theirs, and Porter's stems)
and Swahili as Spanish (Spanish's, and its stems). No such collection ships in ../shared/data: the documents,
queries and judgements below are hand-written.

Vietnamese writes a space between syllables and inflects no word: there is nothing to stem, and
its reading's gain is its stop words', which a query written as a user writes it holds (tại sao,
của, những, các, khi nào) and which met every document writing them. Swahili has no stemmer either (Lucene and Snowball have
none), and its prefixes and suffixes (shule, shuleni) stay apart.
"""
import unicodedata

import pytest

import judged_lexical
from learnsim.baseline import LexicalBaselines

COLLECTIONS = {
    "vietnamese": ([
        "Trẻ em cần ngủ đủ tám tiếng mỗi đêm để phát triển khỏe mạnh.",         # 0 children's sleep
        "Giấc ngủ của trẻ nhỏ rất quan trọng cho sức khỏe.",                    # 1
        "Giá xăng tăng mạnh trong tháng này.",                                  # 2 the price of petrol
        "Người dân lo lắng vì giá xăng dầu quá cao.",                           # 3
        "Đội bóng đá Việt Nam đã thắng trận đấu tối qua.",                     # 4 football
        "Các cầu thủ bóng đá tập luyện mỗi sáng trên sân.",                    # 5
        "Mưa lớn gây lũ lụt ở nhiều tỉnh miền Trung.",                         # 6 the floods
        "Nước lũ đã rút nhưng nhiều nhà vẫn bị hư hại.",                       # 7
        "Cà phê sữa đá là đồ uống phổ biến ở Sài Gòn.",                        # 8 coffee
        "Tôi thường uống cà phê với bạn bè vào buổi sáng.",                    # 9
        "Học sinh đang ôn thi đại học trong thư viện.",                        # 10 the exams
        "Kỳ thi tốt nghiệp sẽ bắt đầu vào tuần sau.",                          # 11
        "Bác sĩ khuyên người già nên đi bộ mỗi ngày.",                         # 12 walking
        "Đi bộ giúp tim khỏe hơn và giảm cân.",                                # 13
        "Chúng tôi đã đi du lịch Đà Nẵng vào mùa hè.",                         # 14 travel
        "Du khách nước ngoài rất thích phố cổ Hội An.",                        # 15
        "Khi nào thì cửa hàng này mở cửa?",                                    # 16 (stop words and a shop)
        "Những người ở đây đều rất thân thiện và vui vẻ.",                     # 17 (stop words, people)
        "Tại sao chúng ta phải làm việc này khi mà không ai cần nó?",         # 18 (stop words)
        "Những điều mà bạn nói với tôi hôm qua là của ai vậy?",               # 19 (stop words)
        "Các bạn có biết vì sao anh ấy lại đến muộn như vậy không?",          # 20 (stop words)
        "Dầu ăn và gạo cũng tăng giá từ đầu năm.",                             # 21 the price of oil and rice
    ], [("tại sao trẻ em cần ngủ", (0, 1)), ("giá xăng của tháng này", (2, 3)), ("những trận bóng đá", (4, 5)),
        ("lũ lụt ở miền Trung thì sao", (6, 7)), ("cà phê với sữa", (8, 9)), ("các kỳ thi đại học", (10, 11)),
        ("vì sao nên đi bộ", (12, 13)), ("du lịch ở đâu", (14, 15)),
        ("tại sao giá dầu lại cao như vậy", (3, 21)), ("những ai nên uống cà phê", (8, 9)),
        ("khi nào thì có kỳ thi", (10, 11)), ("vì sao các cầu thủ tập luyện", (5,))]),
    "swahili": ([
        "Watoto wanakwenda shuleni kila asubuhi kwa miguu.",                  # 0 to school
        "Shule yetu ina walimu wengi na maktaba kubwa.",                      # 1 our school, teachers
        "Bei ya mafuta imepanda sana mwezi huu.",                             # 2 the price of fuel
        "Wananchi wanalalamika kuhusu bei ya mafuta na chakula.",             # 3 ... and of food
        "Timu ya mpira wa miguu ilishinda mechi jana usiku.",                 # 4 football
        "Wachezaji wa mpira wanafanya mazoezi kila siku.",                    # 5
        "Mvua kubwa imesababisha mafuriko katika mkoa wa Pwani.",             # 6 the floods
        "Mafuriko yameharibu nyumba nyingi na mashamba.",                     # 7
        "Kahawa ya Tanzania inasifika duniani kote.",                         # 8 coffee
        "Mimi hunywa kahawa kila asubuhi kabla ya kazi.",                     # 9
        "Wanafunzi wanajiandaa kwa mtihani wa taifa.",                        # 10 the exam
        "Mtihani wa mwisho utaanza wiki ijayo.",                              # 11
        "Daktari alisema kutembea kila siku ni afya njema.",                  # 12 walking, health
        "Kutembea kunasaidia moyo na kupunguza uzito.",                       # 13
        "Watalii wengi hutembelea Zanzibar wakati wa kiangazi.",              # 14 tourists
        "Mbuga ya Serengeti inapendwa sana na watalii.",                      # 15
        "Lakini hata hivyo yeye alikuwa ndani ya nyumba pamoja na wao.",      # 16 (stop words)
        "Kama ni hivyo basi sisi tutakwenda pia kwa sababu yake.",            # 17 (stop words)
        "Huku kila mtu akisema kwamba hiyo ni zaidi ya kile alichotaka.",     # 18 (stop words)
        "Serikali imeahidi kupunguza bei ya chakula mwaka huu.",              # 19 the price of food
    ], [("bei ya mafuta kwa sasa", (2, 3)), ("timu ya mpira wa miguu", (4, 5)), ("mafuriko katika mkoa wa Pwani", (6, 7)),
        ("kahawa ya Tanzania", (8, 9)), ("mtihani wa taifa ni lini", (10, 11)), ("kwa nini kutembea ni afya", (12, 13)),
        ("watalii wa Zanzibar na Serengeti", (14, 15)), ("shule na walimu", (0, 1)), ("bei ya chakula", (3, 19))]),
    "basque": ([
        "Haurrak goizero eskolara joaten dira oinez.",                        # 0 to school
        "Eskolako liburutegia oso handia da.",                                # 1 of the school
        "Liburu hau oso interesgarria da eta asko gustatu zait.",             # 2 the book
        "Liburuak mahai gainean daude.",                                      # 3 the books
        "Medikuak gaixoa ospitalean aztertu zuen.",                           # 4 the doctor, in the hospital
        "Ospitaleko langileak gau osoan aritu ziren.",                        # 5 of the hospital
        "Kotxea garajean utzi dugu gaur goizean.",                            # 6 the car
        "Kotxeak kalean geratu ziren elurragatik.",                           # 7 the cars
        "Hiria turistez betetzen da udan.",                                   # 8 the city
        "Hiriko kaleak jendez beteta daude.",                                 # 9 of the city
        "Mendira igo ginen lagunekin larunbatean.",                           # 10 to the mountain
        "Mendiak elurrez estalita daude neguan.",                             # 11 the mountains
        "Irakasleak ikasgaia azaldu zuen arretaz.",                           # 12 the teacher
        "Irakasleek azterketen notak eman zituzten.",                         # 13 the teachers
        "Txoriak zuhaitzetan abesten ari dira.",                              # 14 in the trees
        "Gure lorategian zuhaitz handi bat dago.",                            # 15 in our garden, a tree
        "Itsasoan igeri egin genuen arratsalde osoan.",                       # 16 in the sea
        "Arrantzaleak itsasora irten ziren goiz.",                            # 17 to the sea
    ], [("eskola", (0, 1)), ("liburu", (2, 3)), ("ospitale", (4, 5)), ("kotxe", (6, 7)), ("hiri", (8, 9)),
        ("mendi", (10, 11)), ("irakasle", (12, 13)), ("zuhaitz", (14, 15)), ("itsaso", (16, 17)),
        ("lorategi", (15,))]),
    "irish": ([
        "Chuir sí na leabhair ar an mbord sa chistin.",                      # 0 on the table (eclipsed)
        "Tá an bord seo déanta as adhmad darach.",                           # 1 the table
        "Tá cónaí orm i gcathair mhór le fada.",                             # 2 in a city (eclipsed)
        "Bhí an chathair lán de thurasóirí an samhradh seo caite.",          # 3 the city (lenited)
        "Chuaigh na hiascairí amach i mbád beag.",                           # 4 in a boat (eclipsed)
        "Dhíol sé a bhád leis an iascaire eile.",                            # 5 his boat (lenited)
        "Tá siad ina gcónaí i dteach mór cois farraige.",                    # 6 in a house (eclipsed)
        "Phéinteáil m'athair a theach féin anuraidh.",                       # 7 his house (lenited)
        "Bhí an capall ag rith sa pháirc.",                                  # 8 the horse
        "Thit sé dá chapall inné.",                                          # 9 from his horse (lenited)
        "Chonaic mé an fear sin ag an aonach.",                              # 10 the man
        "Tá an fear ag obair sa siopa ó mhaidin.",                           # 11 the man
        "Bhí na ba ag ithe féir sa ghort.",                                  # 12 in the field (lenited)
        "D'oibrigh na feirmeoirí i ngort an phobail.",                       # 13 in a field (eclipsed)
        "Scríobh sé gach focal go cúramach.",                                # 14 each word
        "I bhfocal eile, níl aon airgead fágtha.",                           # 15 in a word (eclipsed)
        "Tá an cat ina chodladh cois tine.",                                 # 16 the cat
        "Thug sí bainne dá chat agus d'imigh sí.",                           # 17 to her cat (lenited)
    ], [("bord", (0, 1)), ("cathair", (2, 3)), ("bád", (4, 5)), ("teach", (6, 7)), ("capall", (8, 9)),
        ("fear", (10, 11)), ("gort", (12, 13)), ("focal", (14, 15)), ("cat", (16, 17))]),
    "afrikaans": ([
        "Ek lees elke aand 'n boek voor ek gaan slaap.",                      # 0 a book
        "Die boeke op die rak is baie oud.",                                 # 1 the books
        "Hulle het verlede jaar 'n nuwe huis gekoop.",                        # 2 a house
        "Die huise in hierdie straat is almal wit geverf.",                   # 3 the houses
        "My hond blaf elke keer as iemand aan die deur klop.",                # 4 my dog
        "Die honde speel in die park naby die water.",                        # 5 the dogs
        "Die dokter het die pasiënt in die hospitaal ondersoek.",             # 6 the doctor
        "Die dokters werk dikwels snags in die hospitaal.",                   # 7 the doctors
        "Ons het die berg gedurende die vakansie geklim.",                    # 8 the mountain
        "Die berge is in die winter met sneeu bedek.",                        # 9 the mountains
        "Die boom in ons tuin is meer as honderd jaar oud.",                  # 10 the tree
        "Die voëls sit in die bome langs die pad.",                           # 11 the trees
        "Die rivier het na die swaar reën oorstroom.",                        # 12 the river
        "Baie riviere in die land is besoedel.",                              # 13 the rivers
        "Die onderwyser het die les duidelik verduidelik.",                   # 14 the teacher
        "Die onderwysers het die uitslae van die eksamen bekend gemaak.",     # 15 the teachers
        "Sy ry elke dag met haar motor werk toe.",                            # 16 her car
        "Die motors staan in 'n lang ry voor die verkeerslig.",               # 17 the cars
        "Ek het nie geweet dat jy vir hulle sou wag nie.",                    # 18 (stop words)
    ], [("boek", (0, 1)), ("huis", (2, 3)), ("hond", (4, 5)), ("dokter", (6, 7)), ("berg", (8, 9)),
        ("boom", (10, 11)), ("rivier", (12, 13)), ("onderwyser", (14, 15)), ("motor", (16, 17))]),
    "tagalog": ([
        "Tumaas ang presyo ng bigas sa mga palengke ngayong buwan.",         # 0 the price of rice
        "Nagrereklamo ang mga mamimili tungkol sa mahal na bigas.",          # 1 rice
        "Nanalo ang koponan ng basketbol sa huling laro kagabi.",            # 2 basketball
        "Nagsasanay ang mga manlalaro ng basketbol tuwing umaga.",           # 3
        "Malakas na bagyo ang tumama sa Bicol at Samar.",                    # 4 the typhoon
        "Maraming bahay ang nasira dahil sa bagyo.",                         # 5
        "Masarap ang kape mula sa Batangas.",                                # 6 coffee
        "Umiinom ako ng kape tuwing umaga bago pumasok sa trabaho.",          # 7
        "Nag-aaral ang mga estudyante para sa pagsusulit sa kolehiyo.",      # 8 the exam
        "Magsisimula ang pagsusulit sa susunod na linggo.",                  # 9
        "Sinabi ng doktor na mabuti sa puso ang paglalakad.",                 # 10 walking
        "Ang paglalakad araw-araw ay nakakatulong sa kalusugan.",            # 11
        "Maraming turista ang bumibisita sa Palawan tuwing tag-init.",       # 12 tourists
        "Gusto ng mga turista ang malinis na dagat ng Boracay.",             # 13
        "Ano ang gagawin natin kung hindi sila darating dito?",              # 14 (stop words)
        "Bakit ba lagi mong sinasabi iyan sa kanila at sa amin?",            # 15 (stop words)
        "Kung ikaw ay may oras, puwede ba tayong mag-usap mamaya?",          # 16 (stop words)
        "Ang mga bata ay naglalaro sa parke kasama ang kanilang aso.",       # 17
    ], [("ano ang presyo ng bigas", (0, 1)), ("sino ang nanalo sa basketbol", (2, 3)),
        ("saan tumama ang bagyo", (4, 5)), ("kape mula sa Batangas", (6, 7)),
        ("kailan ang pagsusulit sa kolehiyo", (8, 9)), ("bakit mabuti ang paglalakad", (10, 11)),
        ("mga turista sa Palawan at Boracay", (12, 13))]),
    "galician": ([
        "Os nenos van á escola todas as mañás.",                              # 0 to school
        "As escolas da cidade pecharon polo temporal.",                       # 1 the schools
        "Lin o libro nunha soa tarde.",                                       # 2 the book
        "Os libros da biblioteca son moi vellos.",                            # 3 the books
        "Os médicos examinaron o paciente no hospital.",                      # 4 the doctors, the hospital
        "O médico falou coa miña nai.",                                       # 5 the doctor
        "Os coches pararon no semáforo.",                                     # 6 the cars
        "Mercou un coche novo o mes pasado.",                                 # 7 a car
        "A cidade énchese de turistas no verán.",                             # 8 the city
        "As rúas das cidades galegas están cheas de xente.",                  # 9 of the cities
        "Os pescadores saíron ao río de madrugada.",                          # 10 the river
        "Os ríos medraron despois da choiva.",                                # 11 the rivers
        "Os profesores explicaron a lección aos alumnos.",                    # 12 the teachers
        "A profesora puxo as notas do exame.",                                # 13 the teacher
        "Os paxaros pousan nas árbores do xardín.",                           # 14 the trees, the garden
        "O noso xardín ten unha árbore alta.",                                # 15 the garden, a tree
        "Os traballadores traballan na fábrica dende o amencer.",             # 16 (they) work
        "A miña irmá traballaba nunha tenda do barrio.",                      # 17 (she) worked
    ], [("escola", (0, 1)), ("libro", (2, 3)), ("médico", (4, 5)), ("hospitais", (4,)), ("coche", (6, 7)),
        ("cidade", (8, 9)), ("río", (10, 11)), ("profesor", (12, 13)), ("árbores", (14, 15)), ("xardíns", (14, 15)),
        ("traballar", (16, 17))]),
}

# the language each collection was read as before its own list shipped
BEFORE = {"vietnamese": "english", "swahili": "spanish", "basque": "english", "irish": "english", "afrikaans": "dutch",
          "tagalog": "slovak", "galician": "portuguese"}


def mean_ndcg(language, reading, name="bm25", k=10):
    """Mean nDCG@k of ``language``'s judged queries over its documents, the baselines reading ``reading``."""
    documents, judged = COLLECTIONS[language]
    return judged_lexical.mean_ndcg(documents, judged, reading, name, k)


@pytest.mark.parametrize("language", ["vietnamese", "swahili", "tagalog"])
def test_the_collection_is_detected_and_read_unstemmed_in_its_language(language):
    lex = LexicalBaselines(COLLECTIONS[language][0])
    assert lex.language == language and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == language
    assert lex.vectorizer.get_params()["stem"] is None
    assert f"{language.capitalize()} stop words dropped" in lex.terms
    assert f"unstemmed: no {language.capitalize()} stemmer" in lex.terms


def test_reading_vietnamese_ranks_the_judged_documents_better():
    read, before = mean_ndcg("vietnamese", "vietnamese"), mean_ndcg("vietnamese", BEFORE["vietnamese"])
    # the queries' stop words (tại sao, những, các) met every document writing them
    assert read > before + 0.03
    assert mean_ndcg("vietnamese", "vietnamese", "cosine") > mean_ndcg("vietnamese", "english", "cosine") + 0.03


def test_reading_swahili_ranks_the_judged_documents_as_well_as_spanish_did():
    # no stemmer either way that Swahili's prefixes would need (shule, shuleni stay apart): its stop
    # words' idf is low in both, and Spanish's stems (kila: kil, mpira: mpir) join nothing here; the
    # one query the two rank apart is timu ya mpira wa miguu, whose wa Spanish kept as a term
    read, before = mean_ndcg("swahili", "swahili"), mean_ndcg("swahili", BEFORE["swahili"])
    assert read > before - 0.02 and read > 0.9


@pytest.mark.parametrize("language", list(COLLECTIONS))
def test_the_collection_was_read_as_its_neighbour_before(language, monkeypatch):
    import learnsim.text._languages as languages
    from learnsim.text import detect_language

    monkeypatch.setattr(languages, "STOP_LANGUAGES", tuple(n for n in languages.STOP_LANGUAGES if n not in BEFORE))
    # (the lists alone, as before learnsim.text._recognised: with its check, a Swahili or Tagalog
    # collection without its own list is now unrecognised, not read as Spanish or Slovak)
    assert languages._detect(COLLECTIONS[language][0])[0] == BEFORE[language]
    assert detect_language(COLLECTIONS[language][0]) in (BEFORE[language], "english")


def test_vietnamese_stop_words_are_no_terms_written_either_way():
    documents = COLLECTIONS["vietnamese"][0]
    lex = LexicalBaselines(documents, language="vi")
    assert lex.language == "vietnamese" and lex.language_given
    query = "tại sao những các của khi nào"
    assert lex.query_counts([query]).nnz == 0
    # a tone mark written apart (NFD) is read as the same syllable
    assert lex.query_counts([unicodedata.normalize("NFD", query)]).nnz == 0
    assert LexicalBaselines(documents, language="english").query_counts(["những"]).nnz == 1



def test_basque_is_read_with_its_stop_words_and_snowballs_basque_stems():
    pytest.importorskip("Stemmer")
    lex = LexicalBaselines(COLLECTIONS["basque"][0])
    assert lex.language == "basque" and not lex.language_given
    assert lex.vectorizer.get_params()["stem"] == "basque"
    assert "Basque Snowball stems" in lex.terms
    assert lex.query_counts(["eta da ez zen bere"]).nnz == 0
    # each query's word (its dictionary form) stands in its documents with a case ending or the
    # article, which English's rules leave apart; Snowball's Basque stemmer joins some of them
    read, before = mean_ndcg("basque", "basque"), mean_ndcg("basque", BEFORE["basque"])
    assert read > before + 0.2
    assert mean_ndcg("basque", "basque", "cosine") > mean_ndcg("basque", "english", "cosine") + 0.2
    # with its article (liburua), which Snowball's stemmer keeps on a short word, fewer are found
    documents, judged = COLLECTIONS["basque"]
    with_article = [(q + "a" if q != "eskola" else q, rel) for q, rel in judged]
    assert judged_lexical.mean_ndcg(documents, with_article, "basque") < read


def test_irish_is_read_with_its_stop_words_and_snowballs_irish_stems():
    pytest.importorskip("Stemmer")
    lex = LexicalBaselines(COLLECTIONS["irish"][0])
    assert lex.language == "irish" and not lex.language_given
    assert lex.vectorizer.get_params()["stem"] == "irish"
    assert "Irish Snowball stems" in lex.terms
    assert lex.query_counts(["agus na ar sa le gach"]).nnz == 0
    # each query's word stands in a document with its initial mutation (mbord, gcathair: eclipsis;
    # chathair, bhád: lenition), which Snowball's Irish stemmer takes off, and English's rules do not
    read, before = mean_ndcg("irish", "irish"), mean_ndcg("irish", BEFORE["irish"])
    assert read > before + 0.3
    assert mean_ndcg("irish", "irish", "cosine") > mean_ndcg("irish", "english", "cosine") + 0.3


def test_afrikaans_is_read_with_its_stop_words_and_dutchs_stems(monkeypatch):
    pytest.importorskip("Stemmer")
    lex = LexicalBaselines(COLLECTIONS["afrikaans"][0])
    assert lex.language == "afrikaans" and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == "afrikaans"
    assert lex.vectorizer.get_params()["stem"] == "dutch"
    assert "Afrikaans stop words dropped" in lex.terms and "Dutch Snowball stems" in lex.terms
    # Dutch's list left Afrikaans's nie, ek, hulle, baie, vir as terms
    assert lex.query_counts(["nie ek hulle baie vir die"]).nnz == 0
    assert LexicalBaselines(COLLECTIONS["afrikaans"][0], language="nl").query_counts(["nie ek hulle baie vir"]).nnz == 5
    # Dutch's stems join its plurals (boeke, honde, berge, motors) as they did read as Dutch;
    # unstemmed, they stayed apart, and fewer relevant documents were found than before
    read, before = mean_ndcg("afrikaans", "afrikaans"), mean_ndcg("afrikaans", BEFORE["afrikaans"])
    assert read > before - 0.01
    import learnsim.text._languages as languages
    monkeypatch.setitem(languages._BORROWED_STEMS, "afrikaans", None)
    assert mean_ndcg("afrikaans", "afrikaans") < read - 0.1


def test_afrikaans_without_pystemmer_is_unstemmed_and_says_so(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "Stemmer", None)
    lex = LexicalBaselines(COLLECTIONS["afrikaans"][0])
    assert lex.language == "afrikaans" and lex.stem is None
    assert "unstemmed: PyStemmer is not installed" in lex.terms


def test_tagalog_stop_words_are_no_terms_and_rank_its_documents_no_worse():
    documents = COLLECTIONS["tagalog"][0]
    lex = LexicalBaselines(documents, language="fil")
    assert lex.language == "tagalog" and lex.language_given
    assert lex.query_counts(["ang ng mga sa ano bakit kung"]).nnz == 0
    # read as Slovak before: its na and sa dropped, ang, ng, mga kept as terms
    assert LexicalBaselines(documents, language="slovak").query_counts(["ang ng mga"]).nnz == 3
    # no stemmer either way (Tagalog's infixes: none of Lucene's or Snowball's)
    assert mean_ndcg("tagalog", "tagalog") >= mean_ndcg("tagalog", BEFORE["tagalog"])
    assert mean_ndcg("tagalog", "tagalog", "cosine") > mean_ndcg("tagalog", BEFORE["tagalog"], "cosine")


def test_galician_is_read_with_its_stop_words_and_portugueses_stems(monkeypatch):
    pytest.importorskip("Stemmer")
    lex = LexicalBaselines(COLLECTIONS["galician"][0])
    assert lex.language == "galician" and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == "galician"
    assert lex.vectorizer.get_params()["stem"] == "portuguese"
    assert "Galician stop words dropped" in lex.terms and "Portuguese Snowball stems" in lex.terms
    # Portuguese's list left Galician's unha, polo, coa (which its documents write) as terms
    assert lex.query_counts(["unha polo coa tamén cun"]).nnz == 0
    assert LexicalBaselines(COLLECTIONS["galician"][0], language="pt").query_counts(["unha polo coa"]).nnz == 3
    # Portuguese's stems join its plurals and verbs about as they did read as Portuguese; unstemmed
    # (no Snowball stemmer of Galician), far fewer relevant documents are found
    read, before = mean_ndcg("galician", "galician"), mean_ndcg("galician", BEFORE["galician"])
    assert read > before - 0.05
    import learnsim.text._languages as languages
    monkeypatch.setitem(languages._BORROWED_STEMS, "galician", None)
    assert mean_ndcg("galician", "galician") < read - 0.2


def test_swahili_stop_words_are_no_terms():
    documents = COLLECTIONS["swahili"][0]
    lex = LexicalBaselines(documents, language="sw")
    assert lex.language == "swahili" and lex.language_given
    assert lex.query_counts(["kwa ya wa na ni katika lakini hata"]).nnz == 0
    # read as Spanish, its kwa, kila and wa were terms, and its words took Spanish stems
    assert LexicalBaselines(documents, language="spanish").query_counts(["kwa kila"]).nnz == 2

if __name__ == "__main__":
    for language in COLLECTIONS:
        print(language, *(f"{name} {mean_ndcg(language, language, name):.3f} in its language, "
                          f"{mean_ndcg(language, BEFORE[language], name):.3f} as before ({BEFORE[language]}), "
                          f"{mean_ndcg(language, 'english', name):.3f} as English" for name in ("bm25", "cosine")))
