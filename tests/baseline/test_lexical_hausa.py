"""The lexical baselines read a Hausa collection in Hausa (its stop words dropped; no stemmer: Lucene
and Snowball have none), where they read it as Romanian before, by the short words Hausa shares with
Romanian's list (da, ne), and took Romanian's stems and stop words (mai among them, which is fuel in
a query of its price). No such collection ships in
../shared/data: the documents, queries and judgements below are hand-written, each query written
as a user writes it, with its short words (a, da, na, ta, ya)."""
import judged_lexical
from learnsim.baseline import LexicalBaselines

DOCUMENTS = [
    "Manoma suna shuka gero da dawa lokacin damina.",                 # 0 millet
    "Gero yana bukatar ruwa kadan fiye da masara.",                   # 1 millet
    "Yara suna wasa a filin makaranta bayan darasi.",                 # 2 school children
    "Malamin makaranta ya koya wa yara karatu da rubutu.",            # 3 school children
    "Shugaban kasa ya ziyarci jihar Kaduna a cikin wannan makon.",    # 4 Kaduna state
    "Gwamnan jihar Kaduna ya bude sabuwar asibiti.",                  # 5 Kaduna state
    "Farashin mai ya tashi a kasuwannin Kano.",                       # 6 fuel prices
    "Masu sayar da mai sun rufe shagunansu saboda tsada.",            # 7 fuel sellers
    "Kungiyar kwallon kafa ta Kano Pillars ta ci wasa jiya.",         # 8 football
    "Dan wasan kwallon kafa ya ji rauni a filin wasa.",               # 9 football
    "Ruwan sama mai yawa ya haddasa ambaliya a garin.",               # 10 flood
    "Ambaliya ta lalata gidaje da gonaki da dama.",                   # 11 flood
    "Likitoci sun ce ya kamata mutane su sha ruwa da yawa.",          # 12 doctors
    "Asibitin garin yana da likitoci kadan.",                         # 13 doctors
    "Ita kuma ta tafi kasuwa don ta sayi kayan abinci.",              # 14 food
    "Kayan abinci sun yi tsada a wannan shekara.",                    # 15 food
]
JUDGED = [("lokacin shuka gero", (0, 1)), ("yara a makaranta", (2, 3)), ("jihar Kaduna", (4, 5)),
          ("farashin mai a Kano", (6, 7)), ("kwallon kafa", (8, 9)), ("ambaliya da ruwan sama", (10, 11)),
          ("likitoci a asibiti", (12, 13)), ("kayan abinci a kasuwa", (14, 15))]


def mean_ndcg(reading, name="bm25"):
    return judged_lexical.mean_ndcg(DOCUMENTS, JUDGED, reading, name)


def test_the_collection_is_detected_as_hausa_and_was_romanian_before(monkeypatch):
    import learnsim.text._languages as languages
    from learnsim.text import detect_language

    assert detect_language(DOCUMENTS) == "hausa"
    with monkeypatch.context() as m:
        m.setattr(languages, "STOP_LANGUAGES", tuple(n for n in languages.STOP_LANGUAGES if n != "hausa"))
        assert detect_language(DOCUMENTS) == "romanian"


def test_hausa_stop_words_are_no_terms_and_rank_its_documents_no_worse():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.language == "hausa" and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == "hausa"
    assert lex.vectorizer.get_params()["stem"] is None
    assert "Hausa stop words dropped" in lex.terms and "unstemmed: no Hausa stemmer" in lex.terms
    # Romanian's list left Hausa's kuma, wannan, cikin, yana, ya as terms, which many documents write
    assert lex.query_counts(["kuma wannan cikin yana ya"]).nnz == 0
    assert LexicalBaselines(DOCUMENTS, language="ro").query_counts(["kuma wannan cikin yana ya"]).nnz == 5
    # no stemmer either way that Hausa's plurals would need (likita, likitoci): Romanian's stems joined
    # nothing here, and its list dropped mai (fuel: farashin mai, the price of fuel); English's list
    # kept da, ya, ta, which reached the documents writing them
    assert mean_ndcg("hausa") > mean_ndcg("romanian") + 0.02
    assert mean_ndcg("hausa") >= mean_ndcg("english") - 0.01
    assert (judged_lexical.irrelevant_reached(DOCUMENTS, JUDGED, "hausa")
            < judged_lexical.irrelevant_reached(DOCUMENTS, JUDGED, "english") - 3)
