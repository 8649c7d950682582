"""The lexical baselines read a Turkish, Greek, Indonesian, Romanian or Catalan collection in its
language: detected by its stop words, those dropped and its words stemmed by the language's
Snowball stemmer (PyStemmer's), as an Elasticsearch user's analyser of that language reads it,
where they read it as English before (English stop words, Porter stems). No such collection ships
in ../shared/data: the documents, queries and judgements below are hand-written.

Each query's word stands in its relevant documents inflected (a case ending, a plural, a possessive,
Indonesian's prefixes and suffixes), as the language writes it; a few forms no stemmer joins
(Turkish şehir / şehrin, Romanian carte / cărți) are left in, as a user's text has them.
"""
import sys

import pytest

import judged_lexical
from learnsim.baseline import LexicalBaselines

COLLECTIONS = {
    "turkish": ([
        "Çocuklar her sabah okula yürüyerek gidiyorlar",             # 0 to the school
        "Okulumuzun bahçesinde büyük bir kütüphane var",              # 1 of our school, in its garden
        "Kitapları rafın üstüne dikkatlice yerleştirdim",             # 2 the books
        "Bu kitabın yazarı İstanbul'da yaşıyor",                      # 3 of this book
        "Doktorlar hastaneye gelen hastaları muayene etti",           # 4 the doctors, to the hospital
        "Annem dün hastanede doktorla konuştu",                       # 5 in the hospital, with the doctor
        "Arabalarımızı garajda bıraktık",                             # 6 our cars
        "Yeni arabanın rengi kırmızı",                                # 7 of the new car
        "Şehirlerde hava kirliliği her yıl artıyor",                  # 8 in the cities
        "Bu şehrin sokakları çok kalabalık",                          # 9 of this city (a vowel dropped)
        "Denizde yüzmek yazın en güzel şeydir",                       # 10 in the sea
        "Balıkçılar denize sabah erken açıldı",                       # 11 to the sea
        "Öğretmenler öğrencilere matematik anlattılar",               # 12 the teachers
        "Öğretmenimiz sınavın sonuçlarını açıkladı",                  # 13 our teacher
        "Kuşlar ağaçların dallarında ötüyor",                         # 14 of the trees
        "Bahçedeki ağaç çok yaşlı",                                   # 15 in the garden, the tree
        "IRMAK KIYISINDA PİKNİK YAPTIK",                              # 16 on the river's bank (a headline)
        "Köyün yanından geçen ırmak taştı",                           # 17 the river
        "Ankara'da nüfus her yıl artıyor",                            # 18 in Ankara, the population
        "Ankara'nın nüfusu beş milyonu geçti",                        # 19 Ankara's population
        "Antalya'nın nüfusu yazın ikiye katlanıyor",                  # 20 Antalya's population
    ], [("okul", (0, 1)), ("kitap", (2, 3)), ("doktor", (4, 5)), ("hastane", (4, 5)), ("araba", (6, 7)),
        ("şehir", (8, 9)), ("deniz", (10, 11)), ("öğretmen", (12, 13)), ("ağaç", (14, 15)), ("bahçe", (1, 15)),
        ("ırmak", (16, 17)), ("Ankara'nın nüfusu", (18, 19))]),
    "greek": ([
        "Τα παιδιά πηγαίνουν στο σχολείο κάθε πρωί",                  # 0 the school
        "Η αυλή των σχολείων είναι μεγάλη",                           # 1 of the schools
        "Διάβασα το βιβλίο μέσα σε μια μέρα",                         # 2 the book
        "Τα βιβλία της βιβλιοθήκης είναι παλιά",                      # 3 the books
        "Οι γιατροί εξέτασαν τον ασθενή στο νοσοκομείο",               # 4 the doctors, the hospital
        "Ο γιατρός μίλησε με τη μητέρα μου",                          # 5 the doctor
        "Τα αυτοκίνητα σταμάτησαν στο φανάρι",                        # 6 the cars
        "Αγόρασε ένα καινούργιο αυτοκίνητο",                          # 7 a car
        "Η πόλη γέμισε τουρίστες το καλοκαίρι",                       # 8 the city
        "Οι δρόμοι των πόλεων είναι γεμάτοι κίνηση",                  # 9 of the cities
        "Κολυμπήσαμε στη θάλασσα όλο το απόγευμα",                    # 10 the sea
        "Οι ψαράδες βγήκαν στις θάλασσες του νότου",                  # 11 the seas
        "Οι δάσκαλοι εξήγησαν το μάθημα στους μαθητές",               # 12 the teachers
        "Ο δάσκαλος έδωσε τους βαθμούς των εξετάσεων",                # 13 the teacher
        "Τα πουλιά κάθονται στα δέντρα του κήπου",                    # 14 the trees, of the garden
        "Ο κήπος μας έχει ένα ψηλό δέντρο",                           # 15 the garden, a tree
    ], [("σχολείο", (0, 1)), ("βιβλία", (2, 3)), ("γιατρός", (4, 5)), ("νοσοκομεία", (4,)),
        ("αυτοκίνητα", (6, 7)), ("πόλη", (8, 9)), ("θάλασσα", (10, 11)), ("δάσκαλοι", (12, 13)),
        ("δέντρα", (14, 15)), ("κήπος", (14, 15))]),
    "indonesian": ([
        "Ibu sedang memasak nasi goreng di dapur",                    # 0 cooking
        "Masakan nenek selalu enak sekali",                           # 1 cooking (the dish)
        "Anak-anak bermain bola di lapangan",                         # 2 playing
        "Permainan itu berakhir dengan skor seri",                    # 3 the game
        "Dia menulis surat untuk kakaknya",                           # 4 writes
        "Tulisan tangannya sulit dibaca",                             # 5 the writing, read
        "Saya suka membaca buku sejarah",                             # 6 reading
        "Perpustakaan kota memiliki ribuan buku",                     # 7 books
        "Petani menjual sayuran di pasar",                            # 8 sells, the market
        "Penjualan mobil naik tahun ini",                             # 9 the sales
        "Ayah bekerja di kantor pos",                                 # 10 works
        "Pekerjaan rumah belum selesai",                              # 11 the work
        "Kesehatan masyarakat sangat penting",                        # 12 health
        "Olahraga membuat tubuh tetap sehat",                         # 13 healthy
        "Hujan turun deras sepanjang malam",                          # 14
        "Pasar ikan ramai pada hari Minggu",                          # 15 the market
    ], [("masak", (0, 1)), ("main", (2, 3)), ("tulis", (4, 5)), ("baca", (5, 6)), ("buku", (6, 7)),
        ("jual", (8, 9)), ("kerja", (10, 11)), ("sehat", (12, 13)), ("pasar", (8, 15))]),
    "romanian": ([
        "Copiii merg la școală în fiecare dimineață",                 # 0 to school
        "Curtea școlii este plină de flori",                          # 1 of the school
        "Am citit cartea într-o singură zi",                          # 2 the book
        "Cărțile din bibliotecă sunt foarte vechi",                   # 3 the books (no stemmer joins them)
        "Medicii au examinat pacientul la spital",                    # 4 the doctors, hospital
        "Medicul a vorbit cu mama mea",                               # 5 the doctor
        "Mașinile s-au oprit la semafor",                             # 6 the cars
        "Și-a cumpărat o mașină nouă",                                # 7 a car
        "Orașul este plin de turiști vara",                           # 8 the city
        "Străzile orașelor sunt aglomerate",                          # 9 of the cities
        "Pescarii au pescuit în râul din sat",                        # 10 the river
        "Râurile au crescut după ploaie",                             # 11 the rivers
        "Profesorii au explicat lecția elevilor",                     # 12 the teachers
        "Profesorul a dat notele examenului",                         # 13 the teacher
        "Păsările stau în copacii din grădină",                       # 14 the trees, garden
        "Grădina noastră are un copac înalt",                         # 15 the garden, a tree
    ], [("școală", (0, 1)), ("carte", (2, 3)), ("medic", (4, 5)), ("spitalul", (4,)), ("mașină", (6, 7)),
        ("oraș", (8, 9)), ("râu", (10, 11)), ("profesor", (12, 13)), ("copac", (14, 15)), ("grădină", (14, 15))]),
    "catalan": ([
        "Els nens van a l'escola cada matí",                          # 0 the school
        "El pati de les escoles és molt gran",                        # 1 of the schools
        "Vaig llegir el llibre en un sol dia",                        # 2 the book
        "Els llibres de la biblioteca són molt antics",               # 3 the books
        "Els metges van examinar el pacient a l'hospital",            # 4 the doctors, the hospital
        "El metge va parlar amb la meva mare",                        # 5 the doctor
        "Els cotxes es van aturar al semàfor",                        # 6 the cars
        "S'ha comprat un cotxe nou",                                  # 7 a car
        "La ciutat s'omple de turistes a l'estiu",                    # 8 the city
        "Els carrers de les ciutats són plens de trànsit",            # 9 of the cities
        "Els pescadors van sortir al riu de matinada",                # 10 the river
        "Els rius van créixer després de la pluja",                   # 11 the rivers
        "Els professors van explicar la lliçó als alumnes",           # 12 the teachers
        "La professora va posar les notes de l'examen",               # 13 the teacher
        "Els ocells s'asseuen als arbres del jardí",                  # 14 the trees, the garden
        "El nostre jardí té un arbre alt",                            # 15 the garden, a tree
        "Els obrers treballen a la fàbrica des de l'alba",            # 16 (they) work
        "La meva germana treballava en una botiga del barri",         # 17 (she) worked
        "Les muntanyes del nord estan cobertes de neu",               # 18 the mountains
        "Vam pujar a la muntanya amb els amics",                      # 19 the mountain
    ], [("escola", (0, 1)), ("llibre", (2, 3)), ("metge", (4, 5)), ("hospitals", (4,)), ("cotxe", (6, 7)),
        ("ciutat", (8, 9)), ("riu", (10, 11)), ("professor", (12, 13)), ("arbres", (14, 15)), ("jardins", (14, 15)),
        ("treballar", (16, 17)), ("muntanya", (18, 19))]),
}


def mean_ndcg(language, reading, name="bm25", k=10):
    """Mean nDCG@k of ``language``'s judged queries over its documents, the baselines reading ``reading``."""
    documents, judged = COLLECTIONS[language]
    return judged_lexical.mean_ndcg(documents, judged, reading, name, k)


@pytest.mark.parametrize("language", list(COLLECTIONS))
def test_the_collection_is_detected_and_read_in_its_language(language):
    pytest.importorskip("Stemmer")
    lex = LexicalBaselines(COLLECTIONS[language][0])
    assert lex.language == language and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == language
    assert lex.vectorizer.get_params()["stem"] == language
    title = language.capitalize()
    assert f"{title} stop words dropped" in lex.terms and f"{title} Snowball stems" in lex.terms


@pytest.mark.parametrize("language, code", [("turkish", "tr"), ("greek", "el"), ("indonesian", "id"),
                                            ("romanian", "ro-MD"), ("catalan", "ca")])
def test_the_language_is_given_by_its_code(language, code):
    given = LexicalBaselines(COLLECTIONS[language][0], language=code)
    assert given.language == language and given.language_given
    assert LexicalBaselines(COLLECTIONS[language][0], language="english").language == "english"


@pytest.mark.parametrize("language", list(COLLECTIONS))
def test_reading_the_language_ranks_the_judged_documents_better(language):
    pytest.importorskip("Stemmer")
    read, before = mean_ndcg(language, language), mean_ndcg(language, "english")
    # each query's word stands in its documents inflected, which English's rules leave apart
    # (Catalan's plurals in -es Porter joins too, its verbs and feminines not: the gain is smallest)
    assert read > before + 0.05
    assert read > 0.7                # a few forms stay apart: not every relevant document is found
    assert mean_ndcg(language, language, "cosine") > mean_ndcg(language, "english", "cosine") + 0.05


@pytest.mark.parametrize("language, stop_words, word", [
    ("turkish", "ve bu için ile", "bu"), ("greek", "και το στο είναι από", "στο"),
    ("indonesian", "yang dan di dengan", "di"), ("romanian", "și să că pentru", "și"),
    ("catalan", "els amb però també", "amb")])
def test_the_languages_stop_words_are_no_terms(language, stop_words, word):
    lex = LexicalBaselines(COLLECTIONS[language][0], language=language)
    assert lex.query_counts([stop_words]).nnz == 0
    english = LexicalBaselines(COLLECTIONS[language][0], language="english")
    assert english.query_counts([word]).nnz == 1


def test_without_pystemmer_the_language_is_unstemmed_and_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # makes `import Stemmer` fail
    lex = LexicalBaselines(COLLECTIONS["turkish"][0])
    assert lex.language == "turkish" and lex.stem is None
    assert "unstemmed: PyStemmer is not installed" in lex.terms


def test_the_fallback_bm25_reads_the_language_its_check_read():
    pytest.importorskip("Stemmer")
    from learnsim._baseline_models import baseline_pipeline

    documents = COLLECTIONS["greek"][0]
    bm25 = baseline_pipeline("bm25", documents)
    assert bm25.vectorizer.get_params()["stem"] == "greek"
    assert {hit["corpus_id"] for hit in bm25.search("αυτοκίνητα", documents, k=2)} == {6, 7}


@pytest.mark.parametrize("language, source", [("turkish", "stopwords-iso's"), ("greek", "stopwords-iso's"),
                                              ("indonesian", "python-stop-words'"), ("romanian", "stopwords-iso's"),
                                              ("catalan", "stopwords-iso's")])
def test_the_terms_name_whose_stop_list_was_dropped(language, source):
    lex = LexicalBaselines(COLLECTIONS[language][0], language=language)
    assert lex.terms.startswith(f"{language.capitalize()} stop words dropped ({source} list), ")
    # Snowball's own lists, and those of the languages read before, are named as they were
    french = LexicalBaselines(["Les chevaux courent dans le pré", "Nous finissons le travail avant la nuit"], language="fr")
    assert french.terms.startswith("French stop words dropped (Snowball's list), ")


def test_a_turkish_headline_in_capitals_meets_its_words_in_lower_case():
    # IRMAK (river) was read "irmak", which no Turkish text writes: Turkish's I is the capital of ı
    documents = COLLECTIONS["turkish"][0]
    lex = LexicalBaselines(documents, language="turkish")
    for query in ("ırmak", "IRMAK"):
        scores = lex.scores("bm25", lex.query_counts([query]))[0]
        assert scores[16] > 0 and scores[17] > 0, query
        assert set(scores.nonzero()[0]) == {16, 17}, query


def test_a_turkish_suffix_after_an_apostrophe_meets_no_other_name():
    # Ankara'nın (Ankara's) gave the term nın, which Antalya'nın's document shares
    documents = COLLECTIONS["turkish"][0]
    lex = LexicalBaselines(documents, language="turkish")
    assert lex.query_counts(["nın"]).nnz == 0
    scores = lex.scores("bm25", lex.query_counts(["Ankara'nın nüfusu"]))[0]
    assert min(scores[18], scores[19]) > scores[20] > 0


if __name__ == "__main__":       # the figures of docs/languages.md, Turkish, Greek, Indonesian, Romanian and Catalan
    for language in COLLECTIONS:
        print(language, *("%s %.3f / %.3f" % (name, mean_ndcg(language, language, name), mean_ndcg(language, "english", name))
                          for name in ("bm25", "cosine")))
