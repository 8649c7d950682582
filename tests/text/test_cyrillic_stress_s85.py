"""Russian, Ukrainian, Bulgarian and other Cyrillic text marks a word's stress with an acute
(or grave) accent written as a combining mark over the vowel: dictionaries, learners' texts and
the first line of Russian Wikipedia's articles (Москва́, Ю́рий Гага́рин, Ки́ев; 23 of Wikispeedia's
articles). No Cyrillic letter has the mark precomposed, so NFC keeps it apart, and the word was a
term of its own: a query of москва never met Москва́. The mark says how the word is said, not which
word it is, as Arabic's and Hebrew's vowel points and Greek's accents, which learnsim leaves out."""
import pytest

from learnsim.text import TextVectorizer, Tokenizer

STRESSED = [("Москва\u0301", "москва"), ("Ю\u0301рий Гага\u0301рин", "юрий гагарин"),
            ("Ки\u0301ев", "киев"), ("столи\u0301ца Росси\u0301и", "столица россии"),
            ("Ки\u0301їв", "київ"), ("ё\u0301лка", "елка"),                       # Ukrainian; ё read as е
            ("ма\u0300йка", "майка"),                                             # Bulgarian, a grave
            ("за\u0301мок замо\u0301к", "замок замок")]                          # castle, lock: one spelling


@pytest.mark.parametrize("stressed, plain", STRESSED)
def test_a_stress_mark_over_a_cyrillic_vowel_is_left_out(stressed, plain):
    tok = Tokenizer()
    assert tok(stressed) == tok(plain)
    assert Tokenizer(cyrillic_stress=False)(stressed) != tok(plain)      # the old reading


def test_letters_written_with_an_accent_stay_letters():
    """Macedonian's ѓ and ќ (г and к with an acute), Bulgarian's ѝ (her; и is and) and ѐ are
    letters: NFC composes them, decomposed or not, and they are not read as their base letter.
    A mark after a Latin letter is not touched (café is not cafe)."""
    tok = Tokenizer()
    for letter, base in (("\u0453", "\u0433"), ("\u045c", "\u043a"), ("\u045d", "\u0438"), ("\u0450", "\u0435")):
        word = "а" + letter + "а"
        decomposed = "а" + base + ("\u0300" if letter in "\u045d\u0450" else "\u0301") + "а"
        assert tok(word) == tok(decomposed) == [word] != tok("а" + base + "а")
    assert tok("cafe\u0301") == ["caf\u00e9"]


def test_spans_keep_the_word_as_written():
    tok = Tokenizer()
    text = "в Москве\u0301 и Ки\u0301еве"
    assert [(text[a:b], term) for a, b, term in tok.spans(text)] == [
        ("Москве\u0301", "москве"), ("Ки\u0301еве", "киеве")]


def test_stop_words_and_stems_read_the_word_without_its_mark():
    tok = Tokenizer(stop_words="russian", stem="russian") if _has_stemmer() else Tokenizer(stop_words="russian")
    assert tok("о\u0301н чита\u0301ет") == tok("он читает")


def _has_stemmer():
    import importlib.util

    return importlib.util.find_spec("Stemmer") is not None


def test_a_model_saved_before_reads_the_mark_as_it_was_fitted():
    docs = ["Москва\u0301 столица", "Ки\u0301ев город"]
    vec = TextVectorizer().fit(docs)
    assert vec.cyrillic_stress is True and "москва" in vec.vocabulary_
    meta, arrays = TextVectorizer(cyrillic_stress=False).fit(docs)._get_state()
    del meta["params"]["cyrillic_stress"]
    old = TextVectorizer._from_state(meta, arrays)
    assert old.cyrillic_stress is False and "москва\u0301" in old.vocabulary_
    assert old.build_tokenizer().cyrillic_stress is False


@pytest.mark.filterwarnings("ignore:only 3 clusters")
def test_an_index_finds_the_stressed_word_and_the_plain_query(tmp_path):
    import learnsim
    from learnsim.index import Index

    texts = ["Москва\u0301 столица России", "столица и большой город", "Ки\u0301ев на Днепре",
             "Днепр большая река", "Ю\u0301рий Гага\u0301рин летал в космос", "космос далеко"]
    model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2], baseline_holdout=None)
    Index.build(tmp_path / "idx", model, texts).close()
    again = Index.open(tmp_path / "idx")
    try:
        for query, text in (("москва", texts[0]), ("Киев", texts[2]), ("Гагарин", texts[4]), ("Москва\u0301", texts[0])):
            hits = again.search(query, k=1)
            assert hits and hits[0]["text"] == text, query
        assert again._plan.tokenizer.cyrillic_stress is True
    finally:
        again.close()


def test_spans_of_random_text_with_stress_marks_are_its_terms():
    from random_spans import check_random_spans

    alphabet = list("аеиоМк ab\u0301\u0300\u0453\u045d\u0451") + ["\u0433\u0301", "\u0438\u0300"]
    assert check_random_spans(Tokenizer(), alphabet, seed=7, longest=12) > 500
