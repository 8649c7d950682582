"""One text in NFC and NFD (as macOS file names, some editors and some corpora write it) is one
text: the same terms in every script, and a query in one form finds a document written in the
other, through an index. Checked over hand-written sentences of eight languages written with
accents, stacked diacritics, combining marks and Hangul syllables (Hangul decomposes into
conjoining jamo in NFD)."""
import unicodedata

import pytest

from learnsim.text import Tokenizer

GROUPS = {
    "vi": ["Nguyễn Thị Hương học tiếng Việt", "hòa bình và phát triển ở Việt Nam",
           "người Việt ăn phở mỗi ngày", "thành phố Hồ Chí Minh rất đông người"],
    "de": ["Die Straße in München ist schön", "Grüße aus Köln und Düsseldorf",
           "Müller fährt über die Brücke", "Bäcker backen Brötchen früh"],
    "ko": ["한국어 문장을 처리합니다", "학교에서 친구를 만났다", "서울은 한국의 수도입니다", "김치는 맛있는 음식입니다"],
    "hi": ["हिन्दी भाषा में लिखा गया पाठ", "क़िला बहुत पुराना है", "भारत की राजधानी दिल्ली है", "मैं स्कूल जाता हूँ"],
    "el": ["Ο λόγος του Οδυσσέα", "Η Αθήνα είναι πρωτεύουσα", "Το καΐκι έφυγε νωρίς", "Η θάλασσα είναι γαλάζια"],
    "ru": ["Йошкар-Ола и ёлка зимой", "Москва столица России", "Україна і її міста", "Ёжик в тумане"],
    "bn": ["আমি বাংলায় গান গাই", "নদীর পাড়ে গ্রাম", "কলকাতা বড় শহর", "বইমেলা প্রতি বছর হয়"],
    "ja": ["ガイドブックを読んだ", "東京の天気は晴れです", "パンダが好きです", "がっこうへいく"],
}
# (query, the text it names)
QUERIES = [("Nguyễn", 0), ("hòa bình", 1), ("Straße", 4), ("Grüße", 5), ("Müller", 6), ("한국어", 8),
           ("학교", 9), ("हिन्दी", 12), ("क़िला", 13), ("λόγος", 16), ("καΐκι", 18), ("Йошкар", 20),
           ("ёлка", 20), ("її", 22), ("Ёжик", 23), ("বাংলায়", 24), ("গ্রাম", 25), ("ガイドブック", 28), ("パンダ", 30)]
TEXTS = [t for texts in GROUPS.values() for t in texts]


@pytest.mark.parametrize("form", ["NFD", "NFKD"])
def test_each_text_in_nfd_reads_as_in_nfc(form):
    tok = Tokenizer()
    assert sum(unicodedata.normalize(form, t) != t for t in TEXTS) >= 20
    for text in TEXTS:
        assert tok(unicodedata.normalize(form, text)) == tok(text), text


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("documents, queries", [("NFD", "NFC"), ("NFC", "NFD")])
def test_a_query_in_one_normal_form_finds_the_document_in_the_other(tmp_path, documents, queries):
    import learnsim
    from learnsim.index import Index

    docs = [unicodedata.normalize(documents, t) for t in TEXTS]
    labels = [g for g, texts in GROUPS.items() for _ in texts]
    model = learnsim.fit(docs, clusters=labels)
    with Index.build(tmp_path / "idx", model, docs) as index:
        found = 0
        for query, at in QUERIES:
            hits = index.search(unicodedata.normalize(queries, query), k=1)
            found += bool(hits) and hits[0]["text"] == docs[at]
    assert found == len(QUERIES)
