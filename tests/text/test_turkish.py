"""Turkish read as Turkish (learnsim.text._turkish): its capital I and the suffixes it writes after
an apostrophe, where the text is said to be Turkish (its stop words or its stems), and only there."""

import pytest

from learnsim.text import TextVectorizer, Tokenizer
from random_spans import check_random_spans


@pytest.mark.parametrize("kwargs", [{"stop_words": "turkish"}, {"stem": "turkish"}, {"stop_words": "turkish", "stem": "turkish"}])
def test_a_turkish_capital_i_is_the_dotless_i(kwargs):
    """IRMAK (river) read "irmak", which no Turkish text writes: a headline in capitals never met
    its words in lower case. Lucene's TurkishLowerCaseFilter reads I as ı, İ as i."""
    if "stem" in kwargs:
        pytest.importorskip("Stemmer")
    tok = Tokenizer(**kwargs)
    for capitals, lower in (("IRMAK", "ırmak"), ("KIRMIZI KİTAP", "kırmızı kitap"), ("İSTANBUL", "istanbul"),
                            ("ŞEHİRLERİN IŞIKLARI", "şehirlerin ışıkları"), ("I\u0307ZMI\u0307R", "izmir"),
                            ("Irmak Kıyısı", "ırmak kıyısı")):
        assert tok(capitals) == tok(lower) and tok(lower), capitals
    assert Tokenizer(**kwargs, turkish_lowercase=False)("IRMAK") != tok("ırmak")        # the old reading
    # Turkish's stop words written in capitals are dropped (bazı: some; hangi: which)
    assert Tokenizer(stop_words="turkish")("BAZI KIZLAR HANGİ") == ["kızlar"]
    # each term stays on the text as written, a dot above written apart too (read in parts)
    for doc in ("Dün IRMAK taştı", "I\u0307ZMI\u0307R ve IRMAK", "e\u0301 KIRMIZI"):
        spans = tok.spans(doc)
        assert [t for _, _, t in spans] == tok(doc), doc
        assert all(tok(doc[a:b]) == [t] for a, b, t in spans), doc


@pytest.mark.parametrize("kwargs", [{}, {"stop_words": "english"}, {"stem": "porter"},
                                    {"stop_words": ["ve", "bir"]}, {"stop_words": "turkish", "lowercase": False}])
def test_other_readings_keep_the_capital_i_as_i(kwargs):
    # I is i in every other language (INDIA, IRMAK read as ever), a list of one's own names none
    tok = Tokenizer(**kwargs)
    assert tok("INDIA IRMAK") == Tokenizer(**kwargs, turkish_lowercase=False)("INDIA IRMAK")
    if kwargs.get("lowercase", True):
        assert tok("INDIA IRMAK") == ["india", "irmak"]


def test_spans_of_random_turkish_text_stay_on_the_text_as_written():
    alphabet = list("IİıiaRMKkş ŞçÇğĞöÖüÜ'\u2019.\u0307\u0301\u0327ßé") + ["ve ", "bir "]
    assert check_random_spans(Tokenizer(stop_words="turkish"), alphabet, seed=7) > 1000


@pytest.mark.parametrize("setting, docs, read_now, read_before, query", [
    ("turkish_lowercase", ["IRMAK KIYISINDA PİKNİK", "ırmak taştı", "köprü yıkıldı"], "ırmak", "irmak", "IRMAK"),
    ("turkish_apostrophe", ["Türkiye'nin başkenti", "Ankara'nın nüfusu", "köprü yıkıldı"], "ankara", "nın", "Ankara'nın"),
])
def test_a_turkish_model_saved_before_keeps_its_reading(tmp_path, setting, docs, read_now, read_before, query):
    """A model fitted with Turkish's stop words (or PyStemmer's Turkish stems) before the setting
    existed read IRMAK as irmak, Ankara'nın as ankara and nın: loaded, it reads so still."""
    from learnsim.persistence import load, save

    vec = TextVectorizer(norm="l2", stop_words="turkish").fit(docs)
    assert getattr(vec, setting) is True and read_now in vec.vocabulary_ and read_before not in vec.vocabulary_
    assert getattr(load(save(vec, tmp_path / "v.npz")), setting) is True
    meta, arrays = TextVectorizer(norm="l2", stop_words="turkish", **{setting: False}).fit(docs)._get_state()
    del meta["params"][setting]
    old = TextVectorizer._from_state(meta, arrays)
    assert getattr(old, setting) is False and read_before in old.vocabulary_
    assert read_before in old.build_tokenizer()(query) and read_before not in vec.build_tokenizer()(query)


@pytest.mark.parametrize("kwargs", [{"stop_words": "turkish"}, {"stem": "turkish"}, {"stop_words": "turkish", "lowercase": False}])
def test_a_suffix_after_an_apostrophe_is_no_term(kwargs):
    """Türkiye'nin, Ankara'da, İstanbul'a: the suffix after the apostrophe was a term of its own
    (nin, ya), which met every other name with that suffix. Lucene's ApostropheFilter keeps the
    part before it, ' or ’."""
    if "stem" in kwargs:
        pytest.importorskip("Stemmer")
    tok = Tokenizer(**kwargs)
    for written, plain in (("Türkiye'nin başkenti", "Türkiye başkenti"), ("Ankara’ya gittik", "Ankara gittik"),
                           ("1990'larda Muş'ta", "1990 Muş"), ("Ali'nin'ki", "Ali"),
                           ("'Çalıkuşu' romanı", "Çalıkuşu romanı")):        # (a quote, not an apostrophe)
        assert tok(written) == tok(plain) and tok(plain), written
    assert "nin" in Tokenizer(**kwargs, turkish_apostrophe=False)("Türkiye'nin")         # the old reading
    bigrams = Tokenizer(stop_words="turkish", ngram_range=(2, 2))("Ankara'nın nüfusu")
    assert bigrams == ["ankara nüfusu"]
    for doc in ("Türkiye'nin başkenti Ankara’dır", "é Ankara'nın IRMAK'ları"):    # (an accent apart: read in parts)
        spans = tok.spans(doc)
        assert [t for _, _, t in spans] == tok(doc), doc
        assert all(tok(doc[a:b]) == [t] and "'" not in doc[a:b] for a, b, t in spans), doc


@pytest.mark.parametrize("kwargs", [{}, {"stop_words": "english"}, {"stem": "porter"}, {"stop_words": ["ve", "bir"]}])
def test_other_readings_keep_the_suffix_after_an_apostrophe(kwargs):
    tok = Tokenizer(**kwargs)
    assert tok("O'Brien Türkiye'nin") == Tokenizer(**kwargs, turkish_apostrophe=False)("O'Brien Türkiye'nin")
    assert "nin" in tok("Türkiye'nin")
