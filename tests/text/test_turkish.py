"""Turkish read as Turkish (learnsim.text._turkish): its capital I, where the text is said to be
Turkish (its stop words or its stems), and only there."""
import random

import pytest

from learnsim.text import TextVectorizer, Tokenizer


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
    rng = random.Random(7)
    alphabet = list("IİıiaRMKkş ŞçÇğĞöÖüÜ'\u2019.\u0307\u0301\u0327ßé") + ["ve ", "bir "]
    tok = Tokenizer(stop_words="turkish")
    n_spans = 0
    for _ in range(1500):
        doc = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 20)))
        spans = tok.spans(doc)
        n_spans += len(spans)
        assert not spans or sorted(t for _, _, t in spans) == sorted(tok(doc)), ascii(doc)
        for a, b, term in spans:
            assert term in tok(doc[a:b]), (ascii(doc), a, b, term)
    assert n_spans > 1000


def test_a_turkish_model_saved_before_keeps_reading_i_as_i(tmp_path):
    """A model fitted with Turkish's stop words (or PyStemmer's Turkish stems) before
    turkish_lowercase existed read IRMAK as irmak: loaded, it reads so still, as it was fitted."""
    from learnsim.persistence import load, save

    docs = ["IRMAK KIYISINDA PİKNİK", "ırmak taştı", "köprü yıkıldı"]
    vec = TextVectorizer(norm="l2", stop_words="turkish").fit(docs)
    assert vec.turkish_lowercase is True and "ırmak" in vec.vocabulary_ and "irmak" not in vec.vocabulary_
    assert load(save(vec, tmp_path / "v.npz")).turkish_lowercase is True
    meta, arrays = TextVectorizer(norm="l2", stop_words="turkish", turkish_lowercase=False).fit(docs)._get_state()
    del meta["params"]["turkish_lowercase"]
    old = TextVectorizer._from_state(meta, arrays)
    assert old.turkish_lowercase is False and "irmak" in old.vocabulary_
    assert old.build_tokenizer()("IRMAK") == ["irmak"]
