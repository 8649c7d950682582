"""Readings of text that came after models were saved (LATER_READINGS), and the speed of the
compatibility characters' reading: each a defect where one word written two ways gave two terms."""
import random
import re
import unicodedata

import pytest

from learnsim.text import Tokenizer, _folds, _spans, _tokenize
from random_spans import check_random_spans


def _fold_variants_as_before(text, lower=True):
    """What _fold_variants gave when it opened every run of compatibility characters afresh."""
    compatibility = re.compile(f"[{''.join(_tokenize._COMPATIBILITY)}]+")
    text = compatibility.sub(lambda m: unicodedata.normalize("NFKC", m.group()).lower() if lower
                             else unicodedata.normalize("NFKC", m.group()), text)
    _tokenize._fold_variants("\u0660")          # its tables built
    text = text.translate(_tokenize._VARIANTS[3])
    return re.sub("[^\\D0-9\uFF10-\uFF19]", lambda m: chr(0x30 + unicodedata.decimal(m.group())), text)


def test_compatibility_characters_are_opened_once_each(monkeypatch):
    """A text of many U+FDFA (18 characters in NFKC) took 6x an Arabic text's time a byte: each
    was normalised afresh. Now each character is opened once and its reading kept."""
    calls = []
    real = _folds._normalize

    def counting(form, text):
        calls.append(form)
        return real(form, text)
    monkeypatch.setattr(_folds, "_normalize", counting)
    for kept in (_folds.COMPATIBILITY_READ, _folds.COMPATIBILITY_ALONE):     # read afresh
        for by_lower in kept.values():
            by_lower.clear()
    terms = Tokenizer()("\u0645\u062d\u0645\u062f \ufdfa " * 500)
    assert terms.count("\u0627\u0644\u0644\u0647") == 500
    assert calls.count("NFKC") <= 5


@pytest.mark.parametrize("lower", [True, False])
def test_compatibility_characters_read_as_before(lower):
    # runs of them (marks of two meeting and put in order: U+FC5B before U+FB1E), letter
    # variants, Greek capitals whose lowercase hangs on context, digits
    alphabet = (["\ufdfa", "\ufc5b", "\ufb1e", "\ufb01", "\u2163", "\U0001d6ba", "\U0001d6c3", "\U0001d7da",
                 "\ufe8d", "\ufef5", "\ufe70", "\u017f", "\u0649", "\u0663", "\u03a3", "\u0386"]
                 + list(" ab\u0627\u0644\u05d0"))
    rng = random.Random(3)
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        text = text.lower() if lower else text
        assert _tokenize._fold_variants(text, lower) == _fold_variants_as_before(text, lower), ascii(text)


# Thai กำลัง, น้ำ (water, a tone mark before sara am), Lao ຄຳ, ນ້ຳ: sara am as one character, and
# as the nikhahit and sara aa (a tone mark between or before them), as some keyboards type it
SARA_AM = [("\u0e01\u0e33\u0e25\u0e31\u0e07", "\u0e01\u0e4d\u0e32\u0e25\u0e31\u0e07"),
           ("\u0e19\u0e49\u0e33", "\u0e19\u0e49\u0e4d\u0e32"),
           ("\u0e19\u0e49\u0e33", "\u0e19\u0e4d\u0e49\u0e32"),
           ("\u0e84\u0eb3", "\u0e84\u0ecd\u0eb2"),
           ("\u0e99\u0ec9\u0eb3", "\u0e99\u0ec9\u0ecd\u0eb2")]


@pytest.mark.parametrize("one, two", SARA_AM)
def test_sara_am_written_as_two_characters_reads_as_one(one, two):
    """NFKC opens sara am into the nikhahit and sara aa (ICU's folding too), NFC leaves both:
    น้ํา and น้ำ (water) shared only their first bigram."""
    tok = Tokenizer()
    assert tok(two) == tok(one) and tok(one)
    assert Tokenizer(sara_am=False)(two) != Tokenizer(sara_am=False)(one)     # the old reading: apart
    # a query of one finds a document of the other, inside a longer run
    assert set(tok(one)) <= set(tok("x " + two + "\u0e15\u0e32\u0e25 y"))
    spans = tok.spans("x " + two + " yes")
    assert sorted(t for _, _, t in spans) == sorted(tok(two) + ["yes"])
    assert all(2 <= a < b <= 2 + len(two) for a, b, t in spans if t != "yes")


def test_sara_am_is_read_alike_by_both_vectorisers():
    from learnsim.distributed import HashingTextVectorizer
    from learnsim.text import TextVectorizer

    docs = [two for _, two in SARA_AM] + [one for one, _ in SARA_AM]
    X = TextVectorizer(weighting="tf").fit(docs).transform(docs).toarray()
    H = HashingTextVectorizer(n_features=2 ** 18, weighting="tf").fit().transform(docs).toarray()
    n = len(SARA_AM)
    assert (X[:n] == X[n:]).all() and (H[:n] == H[n:]).all()


@pytest.mark.parametrize("written", ["co\u0140lecci\u00f3", "CO\u013fLECCI\u00d3", "Co\u0140lecci\u00f3"])
def test_catalan_ela_geminada_written_with_its_own_character_is_the_word_with_the_middle_dot(written):
    """ŀ (U+0140) is l and the middle dot in NFKC (ICU's folding reads it so): "coŀlecció" and
    "col·lecció" (most text) were two terms for one word."""
    tok = Tokenizer()
    assert tok(written) == tok("col\u00b7lecci\u00f3") == ["col\u00b7lecci\u00f3"]
    assert tok.spans("una " + written + " nova") == [(0, 3, "una"), (4, 4 + len(written), "col\u00b7lecci\u00f3"),
                                                    (5 + len(written), 9 + len(written), "nova")]
    assert Tokenizer(ela_geminada=False)(written) != ["col\u00b7lecci\u00f3"]      # the old reading
    # a period or a bullet in its place is a break, as elsewhere: the word is never lost in part
    assert tok("col.lecci\u00f3") == tok("col\u2022lecci\u00f3") == ["col", "lecci\u00f3"]


@pytest.mark.parametrize("square, plain", [("\u339c", "mm"), ("\u338f", "kg"), ("\u337b", "\u5e73\u6210"),
                                           ("\u3314", "\u30ad\u30ed"), ("\u3371", "hpa")])
def test_cjk_compatibility_squares_read_as_what_they_stand_for(square, plain):
    """㎜ ㎏ ㍻ ㌔ ㍱ were symbols, no term: a document writing 10㎏ never matched a query of 10kg,
    nor ㍻ one of 平成. Now their NFKC, in documents and queries alike."""
    tok = Tokenizer()
    assert tok(square) == tok(plain) and tok(plain)
    assert Tokenizer(fold_squares=False)(square) == []          # the old reading: nothing
    doc = "10" + square + "\u306e\u7c73"
    assert set(tok("10" + plain + "\u306e\u7c73")) == set(tok(doc))
    assert sorted(t for _, _, t in tok.spans(doc)) == sorted(tok(doc))


def test_squares_are_read_alike_by_both_vectorisers_and_lowercase_is_kept():
    from learnsim.distributed import HashingTextVectorizer
    from learnsim.text import TextVectorizer

    docs = ["\u338f \u339c \u337b", "kg mm \u5e73\u6210"]
    X = TextVectorizer(weighting="tf").fit(docs).transform(docs).toarray()
    H = HashingTextVectorizer(n_features=2 ** 18, weighting="tf").fit().transform(docs).toarray()
    assert (X[0] == X[1]).all() and (H[0] == H[1]).all() and X[0].sum() == 3
    assert Tokenizer(lowercase=False)("\u3371") == ["hPa"]


@pytest.mark.parametrize("written", ["Stra\u00dfe", "STRASSE", "strasse", "STRA\u1e9eE", "Strasse"])
def test_german_sharp_s_is_case_folded_as_ss(written):
    """Lowercasing left ß, and upper case writes it SS: "Straße" and "STRASSE" were two terms.
    Case folding (ICU's NFKC_Casefold) reads both as "strasse"."""
    tok = Tokenizer()
    assert tok(written) == ["strasse"]
    assert tok.spans("die " + written + " ist") == [(0, 3, "die"), (4, 4 + len(written), "strasse"),
                                                    (5 + len(written), 8 + len(written), "ist")]


def test_the_old_reading_and_lowercase_false_keep_sharp_s():
    assert Tokenizer(casefold=False)("Stra\u00dfe") == ["stra\u00dfe"]
    assert Tokenizer(lowercase=False)("Stra\u00dfe") == ["Stra\u00dfe"]
    assert Tokenizer(unicode_words=False)("Stra\u00dfe") == ["stra\u00dfe"]


@pytest.mark.parametrize("written, plain", [("\u0133s", "ijs"), ("\u0132SSELMEER", "IJsselmeer"),
                                            ("\u01c5emal", "D\u017eemal"), ("\u01c9ubav", "ljubav"),
                                            ("\u01caego\u0161", "Njego\u0161"), ("\u01f3ak", "dzak")])
def test_latin_digraph_letters_read_as_their_two_letters(written, plain):
    """ĳ, ǆ, ǉ, ǌ, ǳ are two letters in one character (NFKC and ICU's folding open them):
    "ĳs" and "ijs" were two terms for one word."""
    tok = Tokenizer()
    assert tok(written) == tok(plain) and len(tok(plain)) == 1
    assert Tokenizer(latin_digraphs=False)(written) != tok(plain)        # the old reading
    spans = tok.spans("na " + written + " x")
    assert spans == [(0, 2, "na"), (3, 3 + len(written), tok(plain)[0])]


def test_an_index_finds_each_spelling_and_its_plan_records_the_later_readings(tmp_path):
    import learnsim
    from learnsim.index import Index

    texts = ["die Stra\u00dfe ist lang und breit", "der Weg ist lang", "10\u338f\u306e\u7c73\u3092\u8cb7\u3063\u305f",
             "\u7c73\u3068\u9ea6\u306e\u5024\u6bb5", "la co\u0140lecci\u00f3 del museu", "el museu obre avui"]
    model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2], baseline_holdout=None)
    Index.build(tmp_path / "idx", model, texts).close()
    again = Index.open(tmp_path / "idx")
    try:
        for query, text in (("STRASSE", texts[0]), ("10kg", texts[2]), ("col\u00b7lecci\u00f3", texts[4])):
            hits = again.search(query, k=1)
            assert hits and hits[0]["text"] == text, query
        tok = again._plan.tokenizer         # (the plan is read at the first search)
        assert all(getattr(tok, name) is True for name in _tokenize.LATER_READINGS)
    finally:
        again.close()


def test_spans_of_random_text_with_the_later_readings_read_as_their_terms():
    alphabet = (list("\u00df\u1e9e\u0140\u013f\u338f\u337b\u3314\u01c5\u0133\u0e19\u0e49\u0e4d\u0e32\u0e33\u0ecd\u0eb2"
                     "\u0e84l\u00b7\u6771\u4eac") + list(" aS\u0130\ufb01\u0301\u00ad"))
    assert check_random_spans(Tokenizer(), alphabet, seed=11, longest=16) > 1000


@pytest.mark.parametrize("joined, apart", [("\u0edc\u0ec9\u0eb2", "\u0eab\u0e99\u0ec9\u0eb2"),
                                           ("\u0edd\u0eb2", "\u0eab\u0ea1\u0eb2")])
def test_lao_ho_ligatures_read_as_their_two_letters(joined, apart):
    """ໜ and ໝ are ຫນ and ຫມ in NFKC; Lao text writes both: ໜ້າ and ຫນ້າ (face) shared one bigram, of a tone mark and a vowel."""
    tok = Tokenizer()
    assert tok(joined) == tok(apart)
    assert Tokenizer(lao_digraphs=False)(joined) != tok(apart)                      # the old reading
    assert set(tok(apart)) <= set(tok("\u0e9b\u0eb2 " + joined + "\u0e95\u0eb2"))   # found inside a run
    spans = tok.spans("ab " + joined)
    assert sorted(t for _, _, t in spans) == sorted(tok("ab " + joined)) and all(a >= 3 for a, _, t in spans if t != "ab")


# Thai, Lao, Khmer and Myanmar: words and short sentences holding them (hand-made)
SPACELESS_DOCS = ["\u0e19\u0e49\u0e33\u0e15\u0e32\u0e25\u0e17\u0e23\u0e32\u0e22\u0e02\u0e32\u0e27",
                  "\u0e14\u0e37\u0e48\u0e21\u0e19\u0e49\u0e33\u0e40\u0e22\u0e47\u0e19",
                  "\u0e04\u0e49\u0e33\u0e1b\u0e23\u0e30\u0e01\u0e31\u0e19\u0e40\u0e07\u0e34\u0e19\u0e01\u0e39\u0e49",
                  "\u0e01\u0e33\u0e25\u0e31\u0e07\u0e44\u0e1b\u0e40\u0e21\u0e37\u0e2d\u0e07\u0e44\u0e17\u0e22",
                  "\u0e04\u0e33\u0e1e\u0e39\u0e14\u0e14\u0e35", "\u0e17\u0e33\u0e07\u0e32\u0e19\u0e2b\u0e19\u0e31\u0e01",
                  "\u0e99\u0ec9\u0eb3\u0e95\u0ebb\u0e81\u0e95\u0eb2\u0e94", "\u0e84\u0eb3\u0ec0\u0ea7\u0ebb\u0ec9\u0eb2\u0e94\u0eb5",
                  "\u1797\u17b6\u179f\u17b6\u1781\u17d2\u1798\u17c2\u179a", "\u1791\u17b9\u1780\u178a\u17c4\u17c7\u1782\u17c4",
                  "\u1019\u103c\u1014\u103a\u1019\u102c\u1015\u103c\u100a\u103a", "\u1000\u103b\u1031\u102c\u1004\u103a\u1038\u101e\u102c\u1038"]
SPACELESS_QUERIES = ["\u0e19\u0e49\u0e33", "\u0e04\u0e49\u0e33", "\u0e01\u0e33\u0e25\u0e31\u0e07", "\u0e40\u0e21\u0e37\u0e2d\u0e07",
                     "\u0e04\u0e33", "\u0e17\u0e33", "\u0e99\u0ec9\u0eb3", "\u0e84\u0eb3", "\u1797\u17b6\u179f\u17b6",
                     "\u1781\u17d2\u1798\u17c2\u179a", "\u1791\u17b9\u1780", "\u1019\u103c\u1014\u103a\u1019\u102c",
                     "\u1000\u103b\u1031\u102c\u1004\u103a\u1038"]


def test_a_query_word_of_a_spaceless_script_finds_every_document_holding_it():
    """Bigrams by code point, as Lucene's CJK bigrams: every bigram of a word is one of any text
    holding it. Bigrams of grapheme clusters (a letter with its marks, sara am) were measured on
    this sample: every query term in the document for 7 of the 14 (query, document) pairs where
    the query stands in the document, against 14 of 14 (a word of one or two clusters is then a
    unigram no longer text holds); they spared 3 pairs a shared term without the word (a tone
    mark's and a vowel's bigram). So the bigrams stay by code point."""
    tok = Tokenizer()
    pairs = 0
    for query in SPACELESS_QUERIES:
        for doc in SPACELESS_DOCS:
            if query in doc:
                pairs += 1
                assert set(tok(query)) <= set(tok(doc)), (query, doc)
    assert pairs >= len(SPACELESS_QUERIES)


def test_spans_of_a_long_text_with_sharp_s_are_read_in_place(monkeypatch):
    """Case folding makes ß two letters, and a text whose reading changes its length was read
    character by character (4x the time), and past 200,000 characters not at all: a long German
    text lost its highlights. Each letter of ss now keeps the place of its ß."""
    tok = Tokenizer()
    doc = "Die Stra\u00dfe, die Fu\u00dfg\u00e4nger und \ufb01nanzen. " * 6000
    assert len(doc) > _spans.MAX_MAPPED
    monkeypatch.setattr(Tokenizer, "_mapped_spans", lambda self, doc: pytest.fail("read character by character"))
    spans = tok.spans(doc)
    assert len(spans) == len(tok(doc))
    for a, b, term in spans[:12] + spans[-12:]:
        assert tok(doc[a:b]) == [term]
    assert (4, 10, "strasse") in spans and (16, 25, "fussg\u00e4nger") in spans and (30, 37, "finanzen") in spans


@pytest.mark.parametrize("written", ["\u0441\u0456\u043c'\u044f", "\u0441\u0456\u043c\u2019\u044f", "\u0421\u0406\u041c'\u042f"])
def test_an_apostrophe_inside_a_ukrainian_word_keeps_it_whole(written):
    """сім'я (family) typed with ' or ’ gave сім (seven), its я lost; the orthography's ʼ kept
    it whole: three spellings, two readings. Now one term, in place."""
    tok = Tokenizer()
    family = "\u0441\u0456\u043c\u02bc\u044f"
    assert tok(written) == tok(family) == [family]
    assert tok.spans("\u043c\u043e\u044f " + written) == [(0, 3, "\u043c\u043e\u044f"), (4, 9, family)]
    assert Tokenizer(cyrillic_apostrophe=False)(written) == ["\u0441\u0456\u043c"]       # the old reading
    # quotes around a word, and an apostrophe beside Latin letters, are as before
    assert tok("'\u0432\u0456\u0439\u043d\u0430' \u0456 \u043c\u0438\u0440") == ["\u0432\u0456\u0439\u043d\u0430", "\u043c\u0438\u0440"]
    assert tok("don't \u0441\u0456\u043c") == ["don", "\u0441\u0456\u043c"]


def test_a_stop_word_listed_with_sharp_s_is_dropped_as_case_folding_reads_it():
    """Case folding reads "daß" as "dass", and a stop list's "daß" (lowercased, not folded) no
    longer matched it: the word the list drops was kept."""
    assert Tokenizer(stop_words=["da\u00df"])("Da\u00df es gut ist") == ["es", "gut", "ist"]
    assert Tokenizer(stop_words=["da\u00df"])("dass es gut ist") == ["es", "gut", "ist"]    # the same word, read so
    assert Tokenizer(stop_words=["da\u00df"], casefold=False)("dass es") == ["dass", "es"]   # the old reading


@pytest.mark.parametrize("stop, text, kept", [
    ("\u0625\u0644\u0649", "\u0630\u0647\u0628 \u0625\u0644\u0649 \u0627\u0644\u0628\u064a\u062a", "\u0627\u0644\u064a"),   # إلى (to)
    ("\u03b5\u03af\u03bd\u03b1\u03b9", "\u03b5\u03af\u03bd\u03b1\u03b9 \u03ba\u03b1\u03bb\u03cc", "\u03b5\u03b9\u03bd\u03b1\u03b9"),  # είναι
    ("\u0645\u0650\u0646", "\u0645\u0646 \u0627\u0644\u0628\u064a\u062a", "\u0645\u0646"),        # a stop word with a vowel point
])
def test_stop_words_are_read_as_the_words_of_the_text(stop, text, kept):
    """The text's words were folded (alef with hamza as alef, alef maksura as yeh, Greek without
    accents, points left out) and the stop list was not: a listed word stayed a term."""
    assert kept not in Tokenizer(stop_words=[stop])(text)
    assert kept in Tokenizer(stop_words=[stop], fold_stop_words=False)(text)       # the old reading
    assert len(Tokenizer(stop_words=[stop])(text)) == len(text.split()) - 1


def test_a_model_saved_before_fold_stop_words_keeps_its_stop_words_as_read_then():
    from learnsim.text import TextVectorizer

    docs = ["\u0630\u0647\u0628 \u0625\u0644\u0649 \u0627\u0644\u0628\u064a\u062a", "\u0627\u0644\u0628\u064a\u062a \u0643\u0628\u064a\u0631"]
    vec = TextVectorizer(stop_words=["\u0625\u0644\u0649"]).fit(docs)
    assert vec.fold_stop_words is True and "\u0627\u0644\u064a" not in vec.vocabulary_
    meta, arrays = TextVectorizer(stop_words=["\u0625\u0644\u0649"], fold_stop_words=False).fit(docs)._get_state()
    del meta["params"]["fold_stop_words"]
    old = TextVectorizer._from_state(meta, arrays)
    assert old.fold_stop_words is False and "\u0627\u0644\u064a" in old.vocabulary_
    assert old.build_tokenizer().fold_stop_words is False


@pytest.mark.parametrize("apostrophe", ["'", "\u2019"])
def test_spans_of_a_ukrainian_word_beside_text_read_character_by_character(apostrophe):
    """Beside a letter whose reading changes the text's length (İ), the text is read a character
    at a time, and the apostrophe, read alone, was no longer inside its word: no spans at all."""
    doc = "\u0441\u0456\u043c" + apostrophe + "\u044f \u0130stanbul"
    assert Tokenizer().spans(doc) == [(0, 5, "\u0441\u0456\u043c\u02bc\u044f"), (6, 14, "istanbul")]


@pytest.mark.parametrize("typed, written", [("\u0e40\u0e40\u0e21\u0e48", "\u0e41\u0e21\u0e48"),       # เเม่, แม่ (mother)
                                            ("\u0ec0\u0ec0\u0ea1\u0ec8", "\u0ec1\u0ea1\u0ec8")])      # Lao ເເມ່, ແມ່
def test_two_sara_e_typed_for_sara_ae_read_as_sara_ae(typed, written):
    """แม่ (mother) typed with two sara e (เเ), as Thai keyboards let one type it and much text has it,
    shared no bigram with the word written with sara ae: now one reading, with spans in place."""
    tok = Tokenizer()
    assert tok(typed) == tok(written)
    assert Tokenizer(sara_ae=False)(typed) != tok(written)                           # the old reading
    spans = tok.spans("ab " + typed + " cd")
    assert sorted(t for _, _, t in spans) == sorted(tok("ab " + typed + " cd"))
    assert [a for a, b, t in spans if t == tok(written)[0]] == [3]                 # from the first sara e
    assert all(t in tok(("ab " + typed + " cd")[a:b]) for a, b, t in spans)
    assert tok("\u0e40\u0e14\u0e47\u0e01") == Tokenizer(sara_ae=False)("\u0e40\u0e14\u0e47\u0e01")  # one sara e: as before


@pytest.mark.parametrize("old, atomic", [("\u0d05\u0d35\u0d28\u0d4d\u200d", "\u0d05\u0d35\u0d7b"),          # അവന്‍, അവൻ (he)
                                         ("\u0d05\u0d35\u0d7c\u0d15\u0d4d\u0d15\u0d4d", "\u0d05\u0d35\u0d7c\u0d15\u0d4d\u0d15\u0d4d"),
                                         ("\u0d2a\u0d3e\u0d32\u0d4d\u200d", "\u0d2a\u0d3e\u0d7d"),            # പാല്‍, പാൽ (milk)
                                         ("\u0d35\u0d3f\u0d15\u0d4d\u200d", "\u0d35\u0d3f\u0d7f")])
def test_malayalam_chillu_written_with_a_joiner_reads_as_the_atomic_chillu(old, atomic):
    """A chillu written as its consonant, virama and zero-width joiner (Unicode before 5.1, and
    keyboards since) gave the consonant with a virama, the joiner left out: അവന്‍ (he) never
    matched അവൻ. Now one term, in documents and queries alike, with spans in place."""
    tok = Tokenizer()
    assert tok(old) == tok(atomic) == [atomic]
    if old != atomic:
        assert Tokenizer(malayalam_chillu=False)(old) != [atomic]                    # the old reading
    doc = "ab " + old + " cd"
    assert tok.spans(doc) == [(0, 2, "ab"), (3, 3 + len(old), atomic), (4 + len(old), 6 + len(old), "cd")]
    # a joiner after a virama elsewhere (a conjunct's form) is left out as before
    assert tok("\u0915\u094d\u200d\u0937") == Tokenizer(malayalam_chillu=False)("\u0915\u094d\u200d\u0937")


def test_enclosed_alphanumerics_read_as_what_they_enclose():
    """⑩ (ten in a circle), ⒛, Ⓐ were read as symbols: ⑩ alone no term, ①② one term of its own that
    matched nothing typed. Each is now read as its NFKC (ICU's folding: ⑩ is 10, Ⓐ is a), a word of
    its own (①② is the items 1 and 2, not twelve), in documents and queries alike."""
    tok = Tokenizer()
    assert tok("\u2469 \u246e") == tok("10 15") == ["10", "15"]                  # ⑩ ⑮
    assert tok("\u7b2c\u2469\u56de") == tok("\u7b2c10\u56de")                      # 第⑩回: 第10回
    assert tok("\u2469\u246a") == ["10", "11"]                                      # ⑩⑪: two items
    assert tok("\u2460\u2461") == tok("1 2") and tok("\u2488\u249b") == ["20"]     # ①② (one character each: none), ⒈ ⒛
    assert tok("\u24b6\u24d1c \u24a3\u24a4 \u24bd\u24be") == tok("a b c (h)(i) h i")  # Ⓐⓑc ⒣⒤ ⒽⒾ: each a word
    assert Tokenizer(lowercase=False)("\u24b6\u24b7\u24b8") == []                   # (A B C: one letter each)
    assert Tokenizer(fold_enclosed=False)("\u2469\u246a") == ["\u2469\u246a"]     # the old reading
    doc = "ab \u2469\u246a cd"
    assert tok.spans(doc) == [(0, 2, "ab"), (3, 4, "10"), (4, 5, "11"), (6, 8, "cd")]
    # the regional indicators of flags and the negative circled digits (no NFKC) are not letters here
    assert tok("\U0001f1ef\U0001f1f5 \u24eb") == Tokenizer(fold_enclosed=False)("\U0001f1ef\U0001f1f5 \u24eb")


def test_emoji_are_terms():
    """👍 gave no term, so a query of an emoji found nothing and a text of emoji was empty; as
    Elasticsearch's standard tokenizer (UAX #29) gives one, each emoji is now a term (a skin tone
    kept with its emoji, a flag's two letters one term), in documents and queries alike."""
    tok = Tokenizer()
    assert tok("\U0001f44d") == ["\U0001f44d"] and Tokenizer(emoji_terms=False)("\U0001f44d") == []  # the old reading
    assert tok("great\U0001f525\U0001f525 food") == ["great", "\U0001f525", "\U0001f525", "food"]     # 🔥🔥: two
    assert tok("ok \U0001f44d\U0001f3fd") == ["ok", "\U0001f44d\U0001f3fd"]                          # 👍🏽: one
    assert tok("\U0001f1ef\U0001f1f5\U0001f1eb\U0001f1f7") == ["\U0001f1ef\U0001f1f5", "\U0001f1eb\U0001f1f7"]  # 🇯🇵🇫🇷
    assert tok("I \u2764\ufe0f NY") == tok("i \u2764 ny") == ["\u2764", "ny"]   # ❤️: the selector invisible
    assert tok("\u6771\u4eac\U0001f44d") == ["\u6771\u4eac", "\U0001f44d"]                          # 東京👍
    # symbols written as text (© ® ™, arrows, ‼) stay no term, as before
    assert tok("\u00a9 2024 Acme\u2122 \u00ae \u2192 \u203c") == Tokenizer(emoji_terms=False)("\u00a9 2024 Acme\u2122 \u00ae \u2192 \u203c")
    doc = "ab \U0001f44d\U0001f3fd cd"
    assert tok.spans(doc) == [(0, 2, "ab"), (3, 5, "\U0001f44d\U0001f3fd"), (6, 8, "cd")]


def test_an_emoji_sequence_is_one_term():
    """The zero-width joiner of 👩‍💻 was left out as other invisible characters are, so it read as
    👩 and 💻 (a query of 👩‍💻 found texts of a woman or a laptop), and the flags of England and
    Scotland (the black flag and tags) both as 🏴; as ICU's tokenizer keeps them, a sequence is
    one term, in documents and queries alike, its presentation selectors left out."""
    tok, old = Tokenizer(), Tokenizer(emoji_sequences=False)
    coder, family, rainbow = "\U0001f469\u200d\U0001f4bb", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\U0001f3f3\u200d\U0001f308"
    assert tok(f"go {coder} now") == ["go", coder, "now"] and old(f"go {coder} now") == ["go", "\U0001f469", "\U0001f4bb", "now"]
    assert tok(family) == [family]
    assert tok("\U0001f3f3\ufe0f\u200d\U0001f308") == tok(rainbow) == [rainbow]      # 🏳️‍🌈 with or without its selector
    assert tok("\U0001f469\U0001f3fd\u200d\U0001f4bb") == ["\U0001f469\U0001f3fd\u200d\U0001f4bb"]   # 👩🏽‍💻
    england = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    scotland = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    assert tok(f"{england} {scotland}") == [england, scotland] and old(england) == old(scotland) == ["\U0001f3f4"]
    assert tok("#\ufe0f\u20e3 *\u20e3 1\ufe0f\u20e3") == ["#\u20e3", "*\u20e3", "1\u20e3"] and old("#\ufe0f\u20e3") == []
    # a joiner elsewhere is still left out: inside an Indic conjunct, between letters, after a word
    assert tok("\u0915\u094d\u200d\u0937 a\u200db go\u200d\U0001f4bb") == old("\u0915\u094d\u200d\u0937 a\u200db go\u200d\U0001f4bb")
    # the spans point at the sequence as written, read whole or in parts (an accent written apart)
    for doc in (f"ab {coder} cd", f"cafe\u0301 \U0001f469\U0001f3fd\u200d\U0001f4bb {scotland} ok"):
        spans = tok.spans(doc)
        assert [t for _, _, t in spans] == tok(doc)
        assert [tok(doc[a:b]) for a, b, _ in spans] == [[t] for t in tok(doc)]


@pytest.mark.parametrize("old,atomic", [("\u0989\u09a4\u09cd\u200d\u09b8\u09ac", "\u0989\u09ce\u09b8\u09ac"),     # উৎসব, festival
                                        ("\u09b9\u09a0\u09be\u09a4\u09cd\u200d", "\u09b9\u09a0\u09be\u09ce")])   # হঠাৎ, suddenly
def test_bengali_khanda_ta_written_with_a_joiner_reads_as_the_atomic_letter(old, atomic):
    """Khanda ta written as ta, virama and a zero-width joiner (its spelling before Unicode 4.1,
    which Lucene's Indic normaliser maps to ৎ) lost the joiner and read as ta and virama, a word
    that never matched the one written with ৎ."""
    tok = Tokenizer()
    assert tok(old) == tok(atomic) == [atomic]
    assert Tokenizer(khanda_ta=False)(old) != [atomic]                    # the old reading
    assert Tokenizer(drop_ignorables=False)(old) == [atomic]              # the joiner kept: read the same
    for doc in (f"ab {old} cd", f"cafe\u0301 {old} cd"):                  # read whole, and in parts
        spans = tok.spans(doc)
        assert [t for _, _, t in spans] == ["ab" if doc.startswith("ab") else "caf\u00e9", atomic, "cd"]
        assert doc[spans[1][0]:spans[1][1]] == old
    # a ta, virama and non-joiner (a ta with its virama shown) is not khanda ta
    assert tok("\u0989\u09a4\u09cd\u200c\u09b8\u09ac") != [atomic]


def test_vietnamese_tone_on_either_vowel_of_oa_oe_uy_reads_as_one_term():
    """hòa and hoà (peace), khỏe and khoẻ (healthy), ủy and uỷ (committee) are one word written in
    the two styles Vietnamese text uses (the tone on the first or the second vowel of a rising
    diphthong ending the syllable): they were two terms, and a query in one style did not find a
    text in the other. Both now read with the tone on the second vowel, NFD too."""
    tok, old = Tokenizer(), Tokenizer(vietnamese_tones=False)
    for first, second in (("h\u00f2a b\u00ecnh", "ho\u00e0 b\u00ecnh"), ("kh\u1ecfe", "kho\u1ebb"),
                          ("\u1ee7y ban", "u\u1ef7 ban"), ("TH\u1ee6Y", "thu\u1ef7"), ("x\u00f5a", "xo\u00e3")):
        assert tok(first) == tok(second) == tok(unicodedata.normalize("NFD", first)), first
        assert old(first) != old(second)
        spans = tok.spans("ok " + first)
        assert [t for _, _, t in spans] == tok("ok " + first)
        assert ("ok " + first)[spans[1][0]:spans[1][1]] == first.split()[0]
    # where both styles agree, or the vowels are not such a diphthong, nothing moves
    for word in ("qu\u00fd", "m\u00f9a", "ho\u00e0n", "p\u00f5e", "t\u00f2an", "ch\u00f2ang"):
        assert tok(word) == old(word), word


def test_a_colon_typed_for_the_devanagari_visarga_inside_a_word_reads_as_it():
    """दु:ख (sorrow), typed with a colon for the visarga as most Hindi text types it, broke at the
    colon and gave दु alone, never matching दुःख; inside a Devanagari word the colon is read as
    the visarga. After a word, and between other scripts, a colon is a colon as before."""
    tok, old = Tokenizer(), Tokenizer(devanagari_visarga=False)
    for typed, written in (("\u0926\u0941:\u0916", "\u0926\u0941\u0903\u0916"),
                           ("\u092a\u094d\u0930\u093e\u0924:\u0915\u093e\u0932", "\u092a\u094d\u0930\u093e\u0924\u0903\u0915\u093e\u0932")):
        assert tok(typed) == tok(written) == [written] and old(typed) != [written]
        spans = tok.spans(f"ok {typed} ok")
        assert [t for _, _, t in spans] == ["ok", written, "ok"] and spans[1][:2] == (3, 3 + len(typed))
    for text in ("\u0928\u093f\u092e\u094d\u0928: \u0915\u0932", "ab:cd", "\u0915\u0932 :\u0915\u0932", "10:30"):
        assert tok(text) == old(text), text


def test_a_keycap_alone_has_something_to_search():
    """#️⃣ and *️⃣ are terms since emoji_sequences; the command line and the service refused a
    query or a document of one alone as holding no letter or digit."""
    from learnsim._utils.inputs import has_content

    for keycap in ("#\ufe0f\u20e3", "*\u20e3"):
        assert Tokenizer()(keycap) and has_content(keycap)
    assert not has_content("# * ?!")


def test_thai_mai_yamok_after_its_word_reads_as_the_word_alone():
    """ดีๆ (good good: well), the repetition mark written right after its word as most text writes
    it, gave the bigram ีๆ beside ดี, a term that ดี and ดี ๆ (the mark typed apart) never held, and
    ดี ๆ a lone ๆ that every repeated word shared. The mark now reads as a space: all three are
    the one term ดี; Lao's ko la (ໄວໆ, quickly) alike."""
    tok, old = Tokenizer(), Tokenizer(mai_yamok=False)
    good = "\u0e14\u0e35"
    for text in (good + "\u0e46", good + " \u0e46", good):
        assert tok(text) == [good], text
    assert old(good + "\u0e46") != [good] and old(good + " \u0e46") != [good]
    # inside a sentence the mark ends its word's run: no bigram across it
    kids = "\u0e40\u0e14\u0e47\u0e01\u0e46\u0e40\u0e25\u0e48\u0e19"       # เด็กๆเล่น (the children play)
    assert tok(kids) == tok("\u0e40\u0e14\u0e47\u0e01 \u0e40\u0e25\u0e48\u0e19")
    assert not any("\u0e46" in t for t in tok(kids))
    lao = "\u0ec4\u0ea7"                                                   # ໄວ (quick)
    assert tok(lao + "\u0ec6") == [lao] and old(lao + "\u0ec6") != [lao]
    various = "\u1795\u17d2\u179f\u17c1\u1784"                              # ផ្សេង (Khmer)
    assert tok(various + "\u17d7") == tok(various + " \u17d7") == tok(various) != old(various + "\u17d7")
    # one character for one: the spans stay on the word as written
    assert sorted(tok.spans("ok " + good + "\u0e46 ok")) == [(0, 2, "ok"), (3, 5, good), (7, 9, "ok")]


def test_korean_typed_in_compatibility_jamo_reads_as_its_syllables():
    """ㅎㅏㄴㄱㅜㄱㅇㅓ (한국어, Korean, in the letters a keyboard types) was read letter by letter
    and shared no bigram with 한국어. A run of compatibility jamo that is syllables from end to end
    now reads as them; one that is not (ㅋㅋㅋ laughter, ㅠㅠ tears, ㄱㅅ thanks) stays."""
    tok, old = Tokenizer(), Tokenizer(hangul_jamo=False)
    for typed, written in (("\u314e\u314f\u3134\u3131\u315c\u3131\u3147\u3153", "\ud55c\uad6d\uc5b4"),  # 한국어
                           ("\u3131\u314f\u3134\u314f", "\uac00\ub098"),              # 가나: ㄴ starts the next syllable
                           ("\u3147\u3163\u3146\u3137\u314f", "\uc788\ub2e4"),        # 있다: ㅆ ends the first
                           ("\u3131\u3158\u3131\u314f", "\uacfc\uac00")):             # 과가: a compound vowel key
        assert tok(typed) == tok(written) and old(typed) != old(written), typed
        assert tok(f"\uc624\ub298 {typed}!") == tok(f"\uc624\ub298 {written}!")
    for chat in ("\u314b\u314b\u314b", "\u3160\u3160", "\u3131\u3145", "\u314b\u314b\u3160\u3160",
                 "\u3131\u3157\u314f",          # ㄱㅗㅏ: a vowel typed in two keys, not composed
                 "\u3138\u314f\u3138"):         # ㄸㅏㄸ: ㄸ ends no syllable
        assert tok(chat) == old(chat), chat
    # read shorter, the text is read in parts: the syllables' terms are marked on the jamo
    text = "ok \u314e\u314f\u3134\u3131\u315c\u3131\u3147\u3153 \u314b\u314b\u314b"
    spans = tok.spans(text)
    assert sorted(t for _, _, t in spans) == sorted(tok(text))
    assert all(3 <= a < b <= 11 for a, b, t in spans if t in ("\ud55c\uad6d", "\uad6d\uc5b4"))


def test_yiddish_ligatures_read_as_their_two_letters():
    """װאַסער (water) with the ligature tsvey vovn, as YIVO's spelling prints it, and וואַסער with
    the two letters, as much typed text spells it, were two terms; so were ײַ and ייַ, ױ and וי
    (NFKC keeps the ligatures). Each ligature now reads as its two letters."""
    tok, old = Tokenizer(), Tokenizer(yiddish_ligatures=False)
    for ligature, letters in (("\u05f0\u05d0\u05b7\u05e1\u05e2\u05e8", "\u05d5\u05d5\u05d0\u05b7\u05e1\u05e2\u05e8"),   # water
                              ("\u05e4\u05bf\u05e8\u05f2\u05b7\u05e0\u05d3", "\u05e4\u05bf\u05e8\u05d9\u05d9\u05b7\u05e0\u05d3"),  # friend
                              ("\u05e4\u05e8\u05f2\u05b7\u05e0\u05d3", "\u05e4\u05e8\u05d9\u05d9\u05e0\u05d3"),     # without points
                              ("\u05d8\u05f1\u05e8", "\u05d8\u05d5\u05d9\u05e8"),                      # door
                              ("\u05e4\u05bf\u05e8\ufb1f\u05e0\u05d3", "\u05e4\u05e8\u05d9\u05d9\u05e0\u05d3")):  # ײַ as a presentation form
        assert tok(ligature) == tok(letters) and len(tok(ligature)) == 1, ligature
        assert old(ligature) != old(letters)
    # read longer, the text is read in parts: the word is still marked where it stands
    text = "a \u05f0\u05d0\u05b7\u05e1\u05e2\u05e8 b"
    assert [(a, b) for a, b, t in tok.spans(text) if not t.isascii()] == [(2, 8)]


def test_greek_lunate_sigma_reads_as_sigma():
    """ϲοφία (wisdom), in the lunate sigma that editions of ancient Greek and papyri print, and
    σοφία were two terms, and ΚΟϹΜΟϹ in capitals case-folded to κοϲμοϲ, not κοσμος. Both lunate
    sigmas now read as sigma, in a word's middle and at its end."""
    tok, old = Tokenizer(), Tokenizer(lunate_sigma=False)
    for lunate, sigma in (("\u03f2\u03bf\u03c6\u03af\u03b1", "\u03c3\u03bf\u03c6\u03af\u03b1"),        # ϲοφία
                          ("\u039a\u039f\u03f9\u039c\u039f\u03f9", "\u03ba\u03cc\u03c3\u03bc\u03bf\u03c2"),  # ΚΟϹΜΟϹ, κόσμος
                          ("\u03bb\u03cc\u03b3\u03bf\u03f2", "\u03bb\u03cc\u03b3\u03bf\u03c2")):        # λόγοϲ
        assert tok(lunate) == tok(sigma) and old(lunate) != old(sigma), lunate
    assert Tokenizer(lowercase=False)("\u03f9\u039f\u03a6\u0399\u0391") == ["\u03a3\u039f\u03a6\u0399\u0391"]
    spans = tok.spans("x \u03f2\u03bf\u03c6\u03af\u03b1 y")
    assert spans == [(2, 7, "\u03c3\u03bf\u03c6\u03b9\u03b1")]


def test_vietnamese_d_typed_as_eth_reads_as_d_with_stroke_where_the_word_is_vietnamese():
    """Ðà Nẵng typed with the Icelandic eth (the capitals look alike; Windows-1258 puts Đ where
    Latin-1 has Ð) was the term ðà, never đà. In a word holding a letter that only Vietnamese,
    of the languages writing eth, writes, eth now reads as Đ đ; Icelandic, Faroese and Old
    English words keep their ð, and so does a Vietnamese word with no such letter (Ði)."""
    tok, old = Tokenizer(), Tokenizer(vietnamese_eth=False)
    for eth, stroke in (("\u00d0\u00e0 N\u1eb5ng", "\u0110\u00e0 N\u1eb5ng"),            # Đà Nẵng
                        ("\u00d0\u01b0\u1eddng ph\u1ed1", "\u0110\u01b0\u1eddng ph\u1ed1"),      # Đường phố
                        ("\u00f0i\u1ec7n tho\u1ea1i", "\u0111i\u1ec7n tho\u1ea1i"),            # điện thoại
                        ("\u00d0\u00f4ng", "\u0110\u00f4ng")):                             # Đông
        assert tok(eth) == tok(stroke) and old(eth) != old(stroke), eth
    for word in ("Gu\u00f0r\u00fan", "FRI\u00d0RIK", "ma\u00f0ur", "\u00f0\u00e6t", "\u00d0\u00fa", "\u00d0i", "\u00f0\u00f3"):
        assert tok(word) == old(word), word
    assert tok.spans("\u00d0\u00e0 N\u1eb5ng") == [(0, 2, "\u0111\u00e0"), (3, 7, "n\u1eb5ng")]


def test_a_devanagari_class_nasal_and_the_anusvara_read_as_one_spelling():
    """हिन्दी and हिंदी (Hindi), गङ्गा and गंगा, सम्बन्ध and संबंध (relation): a nasal before a
    consonant of its class, written with the nasal and a virama or with the anusvara, both standard
    and common, were two terms. Both read as the anusvara; a nasal before another class or
    doubled (अन्न, grain) and one ending a word (भगवान्) stay."""
    tok, old = Tokenizer(), Tokenizer(devanagari_anusvara=False)
    for half, dot in (("\u0939\u093f\u0928\u094d\u0926\u0940", "\u0939\u093f\u0902\u0926\u0940"),           # हिन्दी
                      ("\u0917\u0919\u094d\u0917\u093e", "\u0917\u0902\u0917\u093e"),                    # गङ्गा
                      ("\u091a\u091e\u094d\u091a\u0932", "\u091a\u0902\u091a\u0932"),                    # चञ्चल
                      ("\u0920\u0923\u094d\u0921\u093e", "\u0920\u0902\u0921\u093e"),                    # ठण्डा
                      ("\u0938\u092e\u094d\u092c\u0928\u094d\u0927", "\u0938\u0902\u092c\u0902\u0927")):  # सम्बन्ध
        assert tok(half) == tok(dot) == [dot] and old(half) != old(dot), half
    for word in ("\u0905\u0928\u094d\u0928", "\u092d\u0917\u0935\u093e\u0928\u094d", "\u0915\u0928\u094d\u092f\u093e",   # अन्न भगवान् कन्या
                 "\u0938\u092e\u094d\u092e\u093e\u0928"):                                                   # सम्मान
        assert tok(word) == old(word), word
    # read shorter, the text is read in parts: each word keeps its place as written
    text = "ok \u0939\u093f\u0928\u094d\u0926\u0940 \u092d\u093e\u0937\u093e"
    assert tok.spans(text) == [(0, 2, "ok"), (3, 9, "\u0939\u093f\u0902\u0926\u0940"), (10, 14, "\u092d\u093e\u0937\u093e")]


def test_latin_i_typed_in_a_ukrainian_word_reads_as_the_cyrillic_letter():
    """мiсто (city) with a Latin i, as Ukrainian typed on a Russian layout (which has no і) is
    written, and місто were two terms; Украïна (a Latin ï) and Україна too. Inside a Cyrillic word
    whose only Latin letters they are, i and ï read as і and ї; a word with other Latin letters,
    and Latin words, stay."""
    tok, old = Tokenizer(), Tokenizer(cyrillic_latin_i=False)
    for latin, cyrillic in (("\u043ci\u0441\u0442\u043e", "\u043c\u0456\u0441\u0442\u043e"),                    # мiсто
                            ("\u0423\u043a\u0440\u0430\u00ef\u043d\u0430", "\u0423\u043a\u0440\u0430\u0457\u043d\u0430"),  # Украïна
                            ("\u041cI\u041d\u0421\u042c\u041a", "\u041c\u0406\u041d\u0421\u042c\u041a")):                # МIНСЬК
        assert tok(latin) == tok(cyrillic) and old(latin) != old(cyrillic), latin
    assert Tokenizer(lowercase=False)("\u041cI\u041d") == ["\u041c\u0406\u041d"]
    for text in ("iPhone-\u043e\u043c", "naïve", "\u043fi\u0441\u0442a", "Wi-Fi \u043c\u0435\u0440\u0435\u0436\u0430", "mi casa"):
        assert tok(text) == old(text), text
    assert tok.spans("a \u043ci\u0441\u0442\u043e b") == [(2, 7, "\u043c\u0456\u0441\u0442\u043e")]


def test_an_armenian_question_or_exclamation_mark_inside_a_word_is_left_out():
    """Armenian writes its question, exclamation and emphasis marks over the stressed vowel, inside
    the word: Ինչպե՞ս (how?) gave ինչպե, its last letter lost, and never matched ինչպես. Between
    two Armenian letters the marks are left out; after a word they are punctuation as before."""
    tok, old = Tokenizer(), Tokenizer(armenian_marks=False)
    for marked, plain in (("\u053b\u0576\u0579\u057a\u0565\u055e\u057d", "\u056b\u0576\u0579\u057a\u0565\u057d"),     # Ինչպե՞ս
                          ("\u056b\u0576\u0579\u0578\u055e\u0582", "\u056b\u0576\u0579\u0578\u0582"),                # ինչո՞ւ
                          ("\u0577\u0561\u055c\u057f", "\u0577\u0561\u057f"),                                        # շա՜տ
                          ("\u0561\u0575\u0578\u055b\u0582\u0574", "\u0561\u0575\u0578\u0582\u0574")):               # (emphasis)
        assert tok(marked) == tok(plain) == [plain] and old(marked) != [plain], marked
    for text in ("\u0531\u0575\u0578\u055b", "\u0561\u0575\u0578 \u055e \u0561\u0575\u0578", "ab\u055ecd"):
        assert tok(text) == old(text), text
    # read shorter, the text is read in parts: the word keeps its place as written
    assert tok.spans("ok \u053b\u0576\u0579\u057a\u0565\u055e\u057d ok") == [
        (0, 2, "ok"), (3, 10, "\u056b\u0576\u0579\u057a\u0565\u057d"), (11, 13, "ok")]


def test_katakana_small_ke_and_a_dash_for_the_long_mark_read_as_the_usual_spelling():
    """霞ヶ関 and 霞ケ関, 一ヵ月 and 一カ月 (the small ke and ka stand for 箇 or が, written full size
    as often) gave no bigram in common; コ－ヒ－ (a fullwidth hyphen-minus or a minus sign typed for
    the long mark ー) gave the lone コ and ヒ and never matched コーヒー. Both are now read as the
    usual spelling; the other small kana, the hyphens (セブン‐イレブン), Japanese's dash ―, the
    wave dash and a dash before a Latin letter or digit stay as they were."""
    tok, old = Tokenizer(), Tokenizer(katakana_variants=False)
    for typed, usual in (("\u971e\u30f6\u95a2", "\u971e\u30b1\u95a2"),            # 霞ヶ関, 霞ケ関
                         ("\u4e00\u30f5\u6708", "\u4e00\u30ab\u6708"),            # 一ヵ月, 一カ月
                         ("\u30b3\uff0d\u30d2\uff0d\u3092", "\u30b3\u30fc\u30d2\u30fc\u3092"),    # コ－ヒ－を
                         ("\u30b3\u2212\u30d2\u2212", "\u30b3\u30fc\u30d2\u30fc"),                # コ−ヒ− (minus)
                         ("\uff7a\uff0d\uff8b\u2212", "\u30b3\u30fc\u30d2\u30fc"),                # ｺ－ﾋ− (half-width)
                         ("\u30b3\ufe63\u30d2\ufe63", "\u30b3\u30fc\u30d2\u30fc")):
        assert tok(typed) == tok(usual) == old(usual), typed
        assert not set(old(typed)) & set(old(usual)) or len(old(typed)) < len(old(usual)), typed
    for text in ("\u30d5\u30a1\u30f3", "\u30ef\u30f3-\u30c4\u30fc", "\u30bb\u30d6\u30f3\u2010\u30a4\u30ec\u30d6\u30f3", "\u30b8\u30e7\u30f3\u2015\u2015",
                 "\u30a2\u30b8\u30a2\u301c\u30e8\u30fc\u30ed\u30c3\u30d1", "\u30bf\u30a4\u30d7\uff0dA",
                 "\u30bf\u30a4\u30d7\uff0d\uff0d\uff11", "A\uff0dB \u4e00\u2212\u4e8c", "1\u22122"):
        assert tok(text) == old(text), text
    # one character for one: each term stays on the text as written, a text read in parts too
    assert tok.spans("\u30b3\uff0d\u30d2\uff0d") == [(0, 2, "\u30b3\u30fc"), (1, 3, "\u30fc\u30d2"), (2, 4, "\u30d2\u30fc")]
    assert tok.spans("\u971e\u30f6\u95a2") == [(0, 2, "\u971e\u30b1"), (1, 3, "\u30b1\u95a2")]
    mapped = tok.spans("cafe\u0301 \u30b3\uff0d\u30d2\uff0d")       # (an accent apart: read in parts)
    assert [t for _, _, t in mapped] == ["caf\u00e9", "\u30b3\u30fc", "\u30fc\u30d2", "\u30d2\u30fc"]
    assert all("\u30b3" in "cafe\u0301 \u30b3\uff0d\u30d2\uff0d"[a:b] or "\u30d2" in "cafe\u0301 \u30b3\uff0d\u30d2\uff0d"[a:b]
               for a, b, t in mapped[1:])
