"""The lexical baselines read a Hindi collection in Hindi: detected by its script and its stop
words, its stop words dropped and its words normalised and light-stemmed as Lucene's (and
Elasticsearch's) Hindi analyser does, with or without PyStemmer. No Hindi collection ships in
../shared/data: the documents, queries and judgements below are hand-written.

Each query's word stands in its relevant documents inflected (the plural लड़कियाँ, किताबें, the
oblique plural किसानों, सड़कों, नदियों) or spelled another way (गाँव and गांव, फ़िल्म and फिल्म), as
Hindi writes it; two queries are written as their documents write them (किताब, चाय).
"""
import sys

import pytest

import judged_lexical
from learnsim.baseline import LexicalBaselines

DOCUMENTS = [
    "लड़कियाँ स्कूल में खेल रही थीं",               # 0 girls
    "उस लड़की ने नई किताब खरीदी",                  # 1 girl, book
    "पुस्तकालय में हज़ारों किताबें रखी हैं",          # 2 books
    "किसानों ने खेतों में गेहूँ बोया",                # 3 farmers
    "किसान सुबह जल्दी उठता है",                    # 4 farmer
    "बच्चों के लिए नया पार्क बनाया गया",             # 5 children
    "शहर की सड़कों पर बहुत भीड़ थी",                 # 6 roads
    "यह सड़क गाँव तक जाती है",                      # 7 road, village
    "गांव के लोग मेले में गए",                      # 8 village (anusvara)
    "डॉक्टरों ने मरीज़ की जाँच की",                  # 9 doctors
    "अस्पताल में नए डॉक्टर आए",                     # 10 doctor
    "नदियों में बाढ़ आ गई",                         # 11 rivers
    "गंगा भारत की सबसे लंबी नदी है",                # 12 river
    "आज मौसम बहुत सुहाना है",                       # 13
    "उसने चाय में चीनी डाली",                       # 14 tea
    "फ़िल्म देखने के लिए टिकट खरीदे",                # 15 film (nukta)
    "यह फिल्म बहुत लंबी थी",                        # 16 film
]
# (query, relevant documents), each relevant document graded 1
JUDGED = [
    ("लड़की", (0, 1)),
    ("किताब", (1, 2)),
    ("किसान", (3, 4)),
    ("बच्चा", (5,)),
    ("सड़क", (6, 7)),
    ("गाँव", (7, 8)),
    ("डॉक्टर", (9, 10)),
    ("नदी", (11, 12)),
    ("फिल्म", (15, 16)),
    ("चाय", (14,)),
]


def mean_ndcg(language, name="bm25", k=10):
    """Mean nDCG@k of ``JUDGED`` over ``DOCUMENTS``, the baselines reading ``language``."""
    return judged_lexical.mean_ndcg(DOCUMENTS, JUDGED, language, name, k)


def test_a_hindi_collection_is_detected_and_read_in_hindi():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.language == "hindi" and not lex.language_given
    assert lex.vectorizer.get_params()["stop_words"] == "hindi"
    assert lex.vectorizer.get_params()["stem"] == "hindi_light"
    assert "Hindi stop words dropped" in lex.terms and "Hindi light stems (Lucene's)" in lex.terms
    assert "detected from the collection's script and stop words" in lex.terms
    assert LexicalBaselines(DOCUMENTS, language="hi-IN").language_given


@pytest.mark.parametrize("query, document", [("लड़की", 0), ("किताब", 2), ("किसान", 3), ("बच्चा", 5), ("सड़क", 6),
                                             ("गाँव", 8), ("डॉक्टर", 9), ("नदी", 11)])
def test_a_query_word_finds_its_documents_forms_where_english_rules_did_not(query, document):
    hindi, english = LexicalBaselines(DOCUMENTS), LexicalBaselines(DOCUMENTS, language="english")
    assert hindi.scores("bm25", hindi.query_counts([query]))[0, document] > 0
    assert english.scores("bm25", english.query_counts([query]))[0, document] == 0


def test_hindi_stop_words_are_no_terms():
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.query_counts(["की में है और"]).nnz == 0
    assert LexicalBaselines(DOCUMENTS, language="english").query_counts(["में"]).nnz == 1


def test_reading_hindi_ranks_the_judged_documents_far_better():
    hindi, english = mean_ndcg("hindi"), mean_ndcg("english")
    assert hindi > english + 0.3
    assert hindi > 0.8
    assert mean_ndcg("hindi", "cosine") > mean_ndcg("english", "cosine") + 0.3


def test_hindi_is_stemmed_without_pystemmer(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # makes `import Stemmer` fail
    lex = LexicalBaselines(DOCUMENTS)
    assert lex.stem == "hindi_light" and "unstemmed" not in lex.terms
    assert lex.scores("bm25", lex.query_counts(["नदी"]))[0, 11] > 0
