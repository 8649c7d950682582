"""Words by Unicode's rules (Tokenizer's ``unicode_words``): combining marks stay in their words
(Indic scripts, vowel points, an accent written apart), text in NFC, the dot of a lowercased
Turkish İ dropped; ASCII text and models saved before the setting read as they did."""
from __future__ import annotations

import random
import string
import unicodedata

import numpy as np
import pytest

from learnsim.text import TextVectorizer, Tokenizer, check_analysis
from random_spans import check_random_spans

HINDI = ["हिन्दी भाषा में लिखा गया पाठ", "भारत की राजधानी नई दिल्ली है", "मुझे हिन्दी किताबें पढ़ना पसंद है",
         "दिल्ली में आज बारिश हुई"]


@pytest.mark.parametrize("text, expected", [
    ("हिन्दी भाषा में लिखा गया पाठ", ["हिंदी", "भाषा", "में", "लिखा", "गया", "पाठ"]),     # (its न् read as the anusvara)
    ("বাংলা ভাষা", ["বাংলা", "ভাষা"]),
    ("தமிழ் மொழி", ["தமிழ்", "மொழி"]),
    ("שָׁלוֹם עולם", ["שלום", "עולם"]),
    ("النصُّ العَرَبيّ", ["النص", "العربي"]),
    ("كـتـاب", ["كتاب"]),
    ("İstanbul'da ıslak", ["istanbul", "da", "ıslak"]),
    ("Ελληνικά κείμενα, Русский текст", ["ελληνικα", "κειμενα", "русский", "текст"]),   # (Greek's accents folded)
])
def test_a_word_keeps_its_combining_marks(text, expected):
    assert Tokenizer()(text) == expected


def test_the_old_reading_cut_words_at_their_marks():
    """What unicode_words=False keeps (models saved before it): a Hindi sentence lost all but one
    fragment."""
    assert Tokenizer(unicode_words=False)("हिन्दी भाषा में लिखा गया पाठ") == ["गय"]
    assert Tokenizer(unicode_words=False)("İstanbul") == ["stanbul"]


def test_an_accent_written_apart_is_the_same_word():
    composed = "école café naïve Übung"
    decomposed = unicodedata.normalize("NFD", composed)
    assert decomposed != composed
    for tok in (Tokenizer(), Tokenizer(analyzer="words"), Tokenizer(stem="porter" if _has_stemmer() else None)):
        assert tok(decomposed) == tok(composed)
    assert Tokenizer()(decomposed) == ["école", "café", "naïve", "übung"]
    old = Tokenizer(unicode_words=False)
    assert old(decomposed)[0] == "cole" and old(decomposed) != old(composed)


def test_ascii_text_reads_the_same_either_way():
    rng = random.Random(0)
    alphabet = string.ascii_letters + string.digits + " _-'.,!?\t\n"
    old, new = Tokenizer(unicode_words=False), Tokenizer()
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        assert new(text) == old(text)
        assert new.spans(text) == old.spans(text)


def test_arabic_and_hebrew_words_are_one_term_with_or_without_their_vowel_points():
    """Optional points (most text leaves them out) are dropped; Indic vowel signs are not."""
    tok = Tokenizer()
    assert tok("كَتَبَ الوَلَدُ الدَّرْسَ") == tok("كتب الولد الدرس") == ["كتب", "الولد", "الدرس"]
    assert tok("בְּרֵאשִׁית בָּרָא") == tok("בראשית ברא")
    assert tok("किताब") != tok("कतब")
    # beside a run of Han: the points of the words' part are dropped, the run's bigrams kept
    assert tok("東京 العَرَبيّ") == ["東京", "العربي"]
    assert Tokenizer(ngram_range=(1, 2))("كَتَبَ الدَّرْسَ") == ["كتب", "الدرس", "كتب الدرس"]


def test_lao_myanmar_and_khmer_are_cut_into_bigrams_as_thai_is():
    """Written without spaces: read as words, a sentence was one term (Lao) or, cut at its vowel
    signs, nothing at all (Khmer, Myanmar)."""
    assert Tokenizer()("ភាសាខ្មែរ")[:3] == ["ភា", "ាស", "សា"]
    assert Tokenizer()("ພາສາລາວ") == ["ພາ", "າສ", "ສາ", "າລ", "ລາ", "າວ"]
    assert len(Tokenizer()("မြန်မာဘာသာ")) == 9
    assert Tokenizer(unicode_words=False)("ພາສາລາວ") == ["ພາສາລາວ"]
    assert Tokenizer(unicode_words=False)("ភាសាខ្មែរ") == []
    text = "hello ភាសា"
    assert [text[a:b] for a, b, _ in Tokenizer().spans(text)] == ["hello", "ភា", "ាស", "សា"]


def test_a_tokenizer_pickles_with_its_reading():
    import pickle

    tok = pickle.loads(pickle.dumps(Tokenizer()))
    assert tok("ພາສາ हिन्दी") == Tokenizer()("ພາສາ हिन्दी")
    old = pickle.loads(pickle.dumps(Tokenizer(unicode_words=False)))
    assert old("ພາສາ") == ["ພາສາ"]


def test_spans_point_at_the_words_with_their_marks():
    text = "दिल्ली में आज बारिश"
    spans = Tokenizer().spans(text)
    assert [text[a:b] for a, b, _ in spans] == ["दिल्ली", "में", "आज", "बारिश"]
    assert [t for _, _, t in spans] == Tokenizer()(text)
    # an accent joined by NFC: the span still covers the letter and its accent as written
    nfd = unicodedata.normalize("NFD", "café au lait")
    assert Tokenizer().spans(nfd) == [(0, 5, "café"), (6, 8, "au"), (9, 13, "lait")]


def test_a_pattern_of_ones_own_is_kept_as_given():
    """With another token pattern the marks are the pattern's business (NFC still applies)."""
    tok = Tokenizer(token_pattern=r"(?u)\b\w+\b")
    assert tok("में") == ["म"]
    assert tok(unicodedata.normalize("NFD", "é")) == ["é"]


def test_the_setting_is_recorded_and_an_old_model_keeps_its_reading(tmp_path):
    from learnsim.persistence import load, save

    vec = TextVectorizer(norm="l2").fit(HINDI)
    assert vec.unicode_words is True and "दिल्ली" in vec.vocabulary_
    again = load(save(vec, tmp_path / "v.npz"))
    assert again.unicode_words is True
    assert (again.transform(HINDI) != vec.transform(HINDI)).nnz == 0
    # a state written before the setting existed: words cut at marks, as it was fitted
    meta, arrays = TextVectorizer(norm="l2", unicode_words=False).fit(HINDI)._get_state()
    del meta["params"]["unicode_words"]
    old = TextVectorizer._from_state(meta, arrays)
    assert old.unicode_words is False and "दिल्ली" not in old.vocabulary_
    assert (old.transform(HINDI) != TextVectorizer(norm="l2", unicode_words=False).fit(HINDI).transform(HINDI)).nnz == 0


def test_hindi_documents_share_their_words():
    rows = TextVectorizer(norm="l2").fit_transform(HINDI)
    sims = (rows @ rows.T).toarray()
    # "दिल्ली" joins sentences 2 and 4, "हिन्दी" 1 and 3; before, they shared nothing
    assert sims[1, 3] > 0 and sims[0, 2] > 0
    old = TextVectorizer(norm="l2", unicode_words=False).fit(HINDI[:3] + ["दिल्ली में आज बारिश हुई आज"])
    olds = (old.transform(HINDI) @ old.transform(HINDI).T).toarray()
    assert olds[1, 3] == 0


def test_fit_and_its_baselines_read_unicode_words_and_an_index_searches_by_them(tmp_path):
    import learnsim
    from learnsim.index import Index

    texts = HINDI * 2 + ["क्रिकेट मैच में भारत जीता", "क्रिकेट खिलाड़ी ने शतक बनाया"] * 2
    model = learnsim.fit(texts, clusters=[0, 1, 0, 1, 0, 1, 0, 1, 2, 2, 2, 2], baseline_holdout=None)
    assert check_analysis(None)["unicode_words"] is True
    assert model.vectorizer.unicode_words is True
    old = learnsim.fit(texts, clusters=[0, 1, 0, 1, 0, 1, 0, 1, 2, 2, 2, 2], baseline_holdout=None, unicode_words=False)
    assert old.vectorizer.unicode_words is False
    with pytest.raises(ValueError, match="unicode_words"):
        learnsim.fit(texts, clusters=[0, 1, 0, 1, 0, 1, 0, 1, 2, 2, 2, 2], unicode_words="yes")
    index = Index.build(tmp_path / "idx", model, texts)
    hits = index.search("क्रिकेट", k=3)
    assert hits and all("क्रिकेट" in h["text"] for h in hits[:2])
    # the index's query plan (no pipeline loaded) reads the query as the model does
    again = Index.open(tmp_path / "idx")
    found = again.search("दिल्ली", k=2)
    assert again._plan is not None and again._plan.tokenizer.unicode_words is True
    assert [h["text"] for h in found] and all("दिल्ली" in h["text"] for h in found)
    assert np.isfinite([h["score"] for h in hits]).all()


def _has_stemmer():
    try:
        import Stemmer  # noqa: F401
    except ImportError:
        return False
    return True


def test_an_index_plan_with_a_reading_this_learnsim_does_not_know_is_refused(tmp_path):
    """A newer learnsim may record another setting of how text is read: an index plan that has
    one is refused with a clear error rather than read without it (other terms, silently)."""
    import learnsim
    from learnsim.exceptions import IndexFormatError
    from learnsim.index import Index
    from learnsim.index._query import _TOKENIZER_KEYS, QueryPlan

    assert set(Tokenizer().get_params()) == _TOKENIZER_KEYS
    texts = HINDI * 3
    model = learnsim.fit(texts, clusters=[0, 1, 0, 1] * 3, baseline_holdout=None)
    Index.build(tmp_path / "idx", model, texts)
    again = Index.open(tmp_path / "idx")
    again.search("दिल्ली", k=1)
    plan = again._plan
    assert set(plan.meta["tokenizer"]) <= _TOKENIZER_KEYS
    meta = dict(plan.meta, tokenizer=dict(plan.meta["tokenizer"], fold_case=True))
    with pytest.raises(IndexFormatError, match="fold_case.*newer learnsim"):
        QueryPlan(meta, plan.arrays, plan.terms)


def test_a_long_run_of_combining_marks_keeps_its_first_thirty():
    """Putting text in NFC sorts each run of marks in time quadratic in its length (CPython:
    160,000 marks after a letter took 24 s), so a hostile text could hold a search or a write:
    a run longer than Unicode's stream-safe bound (30) keeps its first 30 before NFC."""
    from learnsim.text import _tokenize

    marks = "".join(chr(0x0300 + (i * 7) % 0x70) for i in range(100_000))
    term, = Tokenizer()("a" + marks)
    assert term[0] in "aàáâãäåāăą" and 2 <= len(term) <= 1 + _tokenize.MAX_MARKS
    assert unicodedata.is_normalized("NFC", term)
    # a short run is whole, put in order and composed as NFC does
    assert Tokenizer()("e\u0301\u0316x") == [unicodedata.normalize("NFC", "e\u0301\u0316x")]
    # the old reading's NFC (kana with a separate voicing mark) is bounded alike
    assert len(Tokenizer(unicode_words=False)("カ\u3099" + marks)) == 1


@pytest.mark.parametrize("written, plain", [
    ("co\u00adoperate", "cooperate"),                 # soft hyphen (text from a typeset page or a PDF)
    ("\u0915\u094d\u200d\u0937", "\u0915\u094d\u0937"),  # a zero-width joiner inside a Devanagari conjunct
    ("info\u200ebox", "infobox"),                     # a left-to-right mark
    ("data\u2066base\u2069", "database"),             # an isolate
    ("ab\U000e0061cd", "abcd"),                       # a tag character
    ("ab\ufe0fcd", "abcd"),                           # a variation selector (kept inside the term before)
    ("word\u2060joiner", "wordjoiner"),               # a word joiner
    ("in\ufeffside", "inside"),                       # a byte order mark inside a concatenated file
])
def test_invisible_characters_inside_a_word_are_left_out(written, plain):
    assert Tokenizer()(written) == Tokenizer()(plain)
    assert len(Tokenizer()(written)) == 1


def test_zero_width_spaces_and_non_joiners_still_cut_and_the_old_reading_is_kept():
    assert Tokenizer()("zero\u200bwidth") == ["zero", "width"]
    assert Tokenizer(fold_variants=False)("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645") == \
        ["\u0645\u06cc", "\u062e\u0648\u0627\u0647\u0645"]
    assert Tokenizer(drop_ignorables=False)("co\u00adoperate") == ["co", "operate"]
    assert Tokenizer(unicode_words=False)("co\u00adoperate") == ["co", "operate"]    # only with Unicode's words


@pytest.mark.parametrize("setting, docs, read_now, read_before", [
    ("drop_ignorables", ["co\u00adoperate with them", "we cooperate", "other text here"], "cooperate", "operate"),
    ("uax29_punctuation", ["ジョン・スミスの本", "スミス氏の話", "ジョンの家"], "ジョ", "ン・"),
    ("fold_variants", ["\u06a9\u062a\u0627\u0628 \u062e\u0648\u0628", "\u0643\u062a\u0627\u0628 \u062c\u062f\u064a\u062f", "\u0628\u0627\u0628"],
     "\u0643\u062a\u0627\u0628", "\u06a9\u062a\u0627\u0628"),
    ("fold_radicals", ["\u2f08\u2f1d\u304c\u5897\u3048\u308b", "\u5929\u6c17\u304c\u826f\u3044", "\u5929\u6c17"],
     "\u4eba\u53e3", None),        # ⼈⼝が増える: 人口, where the radicals were no term
    ("indic_zwnj", ["\u09b0\u200c\u09cd\u09af\u09be\u09ac \u0985\u09ad\u09bf\u09af\u09be\u09a8", "\u0986\u09ae\u09bf \u09af\u09be\u09ac",
                    "\u09ac\u09be\u0982\u09b2\u09be \u09ad\u09be\u09b7\u09be"],
     "\u09b0\u09cd\u09af\u09be\u09ac", None),   # র‌্যাব অভিযান: র্যাব, where it was যাব (a word of its own)
    ("sara_am", ["\u0e01\u0e4d\u0e32\u0e25\u0e31\u0e07 \u0e21\u0e32\u0e01", "\u0e25\u0e31\u0e07 \u0e43\u0e2b\u0e0d\u0e48", "\u0e21\u0e32\u0e01 \u0e21\u0e32\u0e22"],
     "\u0e01\u0e33", "\u0e01\u0e4d"),      # กําลัง (sara am as ํ + า): กำ, where it was กํ
    ("ela_geminada", ["la co\u0140lecci\u00f3 del museu", "una col\u00b7lecci\u00f3 nova", "el museu"],
     "col\u00b7lecci\u00f3", "co\u0140lecci\u00f3"),      # coŀlecció: col·lecció, where it was a term of its own
    ("fold_squares", ["10\u338f\u306e\u7c73", "\u337b\u5143\u5e74", "\u4ee4\u548c\u5143\u5e74"],
     "\u5e73\u6210", None),       # 10㎏の米, ㍻元年: 平成, where the squares gave no term
    ("casefold", ["die Stra\u00dfe ist lang", "eine lange strasse", "ist es"], "strasse", "stra\u00dfe"),
    ("latin_digraphs", ["het \u0133s is dun", "ijs en water", "het water"], "ijs", "\u0133s"),
    ("lao_digraphs", ["\u0edc\u0ec9\u0eb2 \u0e95\u0eb2", "\u0eab\u0e99\u0ec9\u0eb2 \u0e9b\u0eb2", "\u0e9b\u0eb2 \u0e95\u0eb2"],
     "\u0eab\u0e99", "\u0edc\u0ec9"),      # ໜ້າ (face): ຫນ, where it was ໜ້
    ("cyrillic_apostrophe", ["\u043c\u043e\u044f \u0441\u0456\u043c'\u044f \u0442\u0443\u0442", "\u0432\u0435\u043b\u0438\u043a\u0430 \u0441\u0456\u043c\u2019\u044f",
                             "\u0441\u0456\u043c \u0440\u043e\u043a\u0456\u0432"],
     "\u0441\u0456\u043c\u02bc\u044f", None),     # сім'я (family): one term, where it was сім (seven)
    ("sara_ae", ["\u0e40\u0e40\u0e21\u0e48 \u0e02\u0e2d\u0e07", "\u0e41\u0e21\u0e48 \u0e14\u0e35", "\u0e02\u0e2d\u0e07 \u0e14\u0e35"],
     "\u0e41\u0e21", "\u0e40\u0e40"),      # เเม่ (mother, two sara e): แม, where it was เเ
    ("malayalam_chillu", ["\u0d05\u0d35\u0d28\u0d4d\u200d \u0d35\u0d28\u0d4d\u0d28\u0d41", "\u0d05\u0d35\u0d7b \u0d2a\u0d4b\u0d2f\u0d3f",
                          "\u0d35\u0d28\u0d4d\u0d28\u0d41 \u0d2a\u0d4b\u0d2f\u0d3f"],
     "\u0d05\u0d35\u0d7b", "\u0d05\u0d35\u0d28\u0d4d"),      # അവന്‍ (he): അവൻ, where it was അവന്
    ("fold_enclosed", ["\u7b2c\u2469\u56de \u5927\u4f1a", "\u7b2c\u4e00\u56de\u306e\u8a18\u9332", "\u5927\u4f1a\u306e\u8a18\u9332"],
     "10", None),      # 第⑩回 大会: 10, where ⑩ gave no term
    ("emoji_terms", ["great food \U0001f525", "\U0001f525\U0001f525 hot", "cold food"], "\U0001f525", None),   # 🔥: a term, where none
    ("emoji_sequences", ["new \U0001f469\u200d\U0001f4bb here", "\U0001f469 and \U0001f4bb", "new here"],
     "\U0001f469\u200d\U0001f4bb", None),     # 👩‍💻: one term, where it was 👩 and 💻
    ("khanda_ta", ["\u0989\u09a4\u09cd\u200d\u09b8\u09ac \u0986\u09b8\u09c7", "\u0989\u09ce\u09b8\u09ac \u09b9\u09df",
                   "\u0986\u09b8\u09c7 \u09b9\u09df"],
     "\u0989\u09ce\u09b8\u09ac", "\u0989\u09a4\u09cd\u09b8\u09ac"),     # উত্‍সব (festival): উৎসব, where it was উত্সব
    ("vietnamese_tones", ["h\u00f2a b\u00ecnh", "ho\u00e0 gi\u1ea3i", "gi\u1ea3i th\u01b0\u1edfng"],
     "ho\u00e0", "h\u00f2a"),     # hòa (peace): hoà, where it was a term of its own
    ("devanagari_visarga", ["\u0926\u0941:\u0916 \u0939\u0948", "\u0926\u0941\u0903\u0916 \u0928\u0939\u0940\u0902", "\u0939\u0948 \u0928\u0939\u0940\u0902"],
     "\u0926\u0941\u0903\u0916", "\u0926\u0941"),     # दु:ख (sorrow): दुःख, where it was दु
    ("mai_yamok", ["\u0e14\u0e35\u0e46 \u0e21\u0e32\u0e01", "\u0e14\u0e35 \u0e21\u0e32\u0e01", "\u0e21\u0e32\u0e01 \u0e21\u0e32\u0e22"],
     "\u0e14\u0e35", "\u0e35\u0e46"),     # ดีๆ มาก (very good): ดี, where it was also ีๆ
    ("hangul_jamo", ["\u314e\u314f\u3134\u3131\u315c\u3131\u3147\u3153 \uacf5\ubd80", "\ud55c\uad6d\uc5b4 \uc218\uc5c5", "\uacf5\ubd80 \uc218\uc5c5"],
     "\ud55c\uad6d", "\u314e\u314f"),     # ㅎㅏㄴㄱㅜㄱㅇㅓ 공부: 한국, where it was ㅎㅏ
    ("yiddish_ligatures", ["\u05f0\u05d0\u05b7\u05e1\u05e2\u05e8 \u05e7\u05d0\u05b7\u05dc\u05d8", "\u05d5\u05d5\u05d0\u05b7\u05e1\u05e2\u05e8 \u05d2\u05d5\u05d8",
                           "\u05d2\u05d5\u05d8 \u05e7\u05d0\u05b7\u05dc\u05d8"],
     "\u05d5\u05d5\u05d0\u05e1\u05e2\u05e8", "\u05f0\u05d0\u05e1\u05e2\u05e8"),     # װאַסער (water): וואסער, where it was װאסער
    ("lunate_sigma", ["\u03f2\u03bf\u03c6\u03af\u03b1 \u03ba\u03b1\u03b9", "\u03c3\u03bf\u03c6\u03af\u03b1 \u03bb\u03cc\u03b3\u03bf\u03c2", "\u03ba\u03b1\u03b9 \u03bb\u03cc\u03b3\u03bf\u03c2"],
     "\u03c3\u03bf\u03c6\u03b9\u03b1", "\u03f2\u03bf\u03c6\u03b9\u03b1"),     # ϲοφία (wisdom): σοφια, where it was ϲοφια
    ("vietnamese_eth", ["\u00d0\u00e0 N\u1eb5ng \u0111\u1eb9p", "\u0110\u00e0 L\u1ea1t \u0111\u1eb9p", "L\u1ea1t N\u1eb5ng"],
     "\u0111\u00e0", "\u00f0\u00e0"),     # Ðà Nẵng (typed with eth): đà, where it was ðà
    ("devanagari_anusvara", ["\u0939\u093f\u0928\u094d\u0926\u0940 \u092d\u093e\u0937\u093e", "\u0939\u093f\u0902\u0926\u0940 \u0938\u093e\u0939\u093f\u0924\u094d\u092f",
                             "\u092d\u093e\u0937\u093e \u0938\u093e\u0939\u093f\u0924\u094d\u092f"],
     "\u0939\u093f\u0902\u0926\u0940", "\u0939\u093f\u0928\u094d\u0926\u0940"),     # हिन्दी भाषा: हिंदी, where it was हिन्दी
    ("cyrillic_latin_i", ["\u043ci\u0441\u0442\u043e \u0432\u0435\u043b\u0438\u043a\u0435", "\u043c\u0456\u0441\u0442\u043e \u041a\u0438\u0457\u0432",
                          "\u0432\u0435\u043b\u0438\u043a\u0435 \u041a\u0438\u0457\u0432"],
     "\u043c\u0456\u0441\u0442\u043e", "\u043ci\u0441\u0442\u043e"),     # мiсто (city, a Latin i): місто, where it was мiсто
    ("armenian_marks", ["\u053b\u0576\u0579\u057a\u0565\u055e\u057d \u0565\u057d", "\u056b\u0576\u0579\u057a\u0565\u057d \u056c\u0561\u057e",
                        "\u056c\u0561\u057e \u0565\u057d"],
     "\u056b\u0576\u0579\u057a\u0565\u057d", "\u056b\u0576\u0579\u057a\u0565"),     # Ինչպե՞ս ես (how are you?): ինչպես, where it was ինչպե
    ("katakana_variants", ["\u30b3\uff0d\u30d2\uff0d\u3092\u98f2\u3080", "\u30b3\u30fc\u30d2\u30fc\u304c\u597d\u304d",
                           "\u304a\u8336\u3092\u98f2\u3080"],
     "\u30b3\u30fc", "\u30b3"),     # コ－ヒ－を飲む (drinks coffee, dashes for ー): コー, where it was コ alone
])
def test_a_model_saved_before_a_reading_setting_keeps_its_reading(tmp_path, setting, docs, read_now, read_before):
    from learnsim.persistence import load, save

    vec = TextVectorizer(norm="l2").fit(docs)
    assert getattr(vec, setting) is True and read_now in vec.vocabulary_ and read_before not in vec.vocabulary_
    assert getattr(load(save(vec, tmp_path / "v.npz")), setting) is True
    meta, arrays = TextVectorizer(norm="l2", **{setting: False}).fit(docs)._get_state()
    del meta["params"][setting]
    old = TextVectorizer._from_state(meta, arrays)
    assert getattr(old, setting) is False
    # what only the old reading has, or (where the old reading read nothing) what only the new has
    assert read_before in old.vocabulary_ if read_before is not None else read_now not in old.vocabulary_
    assert getattr(old.build_tokenizer(), setting) is False


def test_an_index_finds_a_word_written_with_a_soft_hyphen_and_its_plan_reads_so(tmp_path):
    import learnsim
    from learnsim.index import Index

    texts = ["we co\u00adoperate with the council", "the council met today", "rain is expected",
             "the forecast says rain", "cooperation between towns", "a town hall meeting"]
    model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2], baseline_holdout=None)
    Index.build(tmp_path / "idx", model, texts).close()
    again = Index.open(tmp_path / "idx")
    hits = again.search("cooperate", k=1)
    assert again._plan is not None and again._plan.tokenizer.drop_ignorables is True
    assert hits and hits[0]["text"] == texts[0]
    again.close()


def test_spans_point_into_the_text_as_written_around_invisible_characters():
    """Left out for the terms, a byte order mark, a mark or a soft hyphen still counts for the
    places: each span is where its term stands in the document as given (the page marks it)."""
    for doc, words in (("\ufeffcaf\u00e9 au lait", ["caf\u00e9", "au", "lait"]),
                       ("caf\u00e9 \u200eau lait", ["caf\u00e9", "au", "lait"]),
                       ("co\u00adoperate now", ["co\u00adoperate", "now"]),
                       ("\ufeff\u6771\u4eac", ["\u6771\u4eac"])):
        spans = Tokenizer().spans(doc)
        assert [doc[a:b] for a, b, _ in spans] == words
        assert [t for _, _, t in spans] == Tokenizer()(doc)


@pytest.mark.parametrize("text, terms", [
    ("ジョン・スミス", ["ジョ", "ョン", "スミ", "ミス"]),                  # the Katakana middle dot
    ("\u1019\u103c\u1014\u103a\u1019\u102c\u104b", None),             # Myanmar's section mark ။
    ("\u1797\u17b6\u179f\u17b6\u17d4", None),                           # Khmer's khan ។
    ("\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35\u0e5a", None),               # Thai's angkhankhu ๚
])
def test_punctuation_ends_a_run_of_a_spaceless_script(text, terms):
    read = Tokenizer()(text)
    marks = "\u30fb\u104a\u104b\u17d4\u0e5a"
    assert read and not any(c in marks for term in read for c in term)
    assert terms is None or read == terms
    # a query of the mark alone is no term; the old reading kept it in the run
    assert Tokenizer()("\u104b") == [] and Tokenizer()("\u30fb") == []
    assert any(c in marks for term in Tokenizer(uax29_punctuation=False)(text) for c in term)
    # the marks the words of Myanmar are (၏: of) stay
    assert Tokenizer()("\u101e\u1030\u104f") == ["\u101e\u1030", "\u1030\u104f"]


@pytest.mark.parametrize("written, whole", [
    ("\u05e6\u05d4\u05f4\u05dc", "\u05e6\u05d4\u05f4\u05dc"),          # צה״ל with the gershayim
    ('\u05e6\u05d4"\u05dc', "\u05e6\u05d4\u05f4\u05dc"),               # typed with an ASCII quote
    ("\u05d2'\u05d9\u05e8\u05e4\u05d4", "\u05d2\u05f3\u05d9\u05e8\u05e4\u05d4"),  # ג'ירפה, the geresh typed
    ("col\u00b7lecci\u00f3", "col\u00b7lecci\u00f3"),                  # Catalan's middle dot
])
def test_punctuation_inside_a_word_keeps_it_whole(written, whole):
    assert Tokenizer()(written) == [whole]
    assert Tokenizer()(f"{written} x") == Tokenizer()(f"{whole} x")
    assert Tokenizer(uax29_punctuation=False)(written) != [whole]
    # and its span is the word as written
    assert [(a, b) for a, b, _ in Tokenizer().spans(written)] == [(0, len(written))]


def test_quotes_and_dots_outside_words_still_cut():
    assert Tokenizer()('\u05d0\u05de\u05e8 "\u05e9\u05dc\u05d5\u05dd"') == ["\u05d0\u05de\u05e8", "\u05e9\u05dc\u05d5\u05dd"]
    assert Tokenizer()("caf\u00e9 \u00b7 menu\u00b7") == ["caf\u00e9", "menu"]
    assert Tokenizer()('caf\u00e9 "it" x\'s') == ["caf\u00e9", "it"]       # Latin quotes as before
    assert Tokenizer()("\u00b7a") == [] and Tokenizer()("a\u00b7") == []


def test_an_index_plan_reads_punctuation_as_its_model(tmp_path):
    import learnsim
    from learnsim.index import Index

    texts = ["\u05e6\u05d4\u05f4\u05dc \u05d4\u05d5\u05d3\u05d9\u05e2", "\u05d4\u05de\u05e9\u05d8\u05e8\u05d4 \u05d4\u05d5\u05d3\u05d9\u05e2\u05d4",
             "\u05d2\u05e9\u05dd \u05e6\u05e4\u05d5\u05d9", "\u05ea\u05d7\u05d6\u05d9\u05ea \u05d2\u05e9\u05dd",
             "\u05e6\u05d4\u05f4\u05dc \u05d5\u05d4\u05de\u05e9\u05d8\u05e8\u05d4", "\u05e2\u05d9\u05e8\u05d9\u05d9\u05d4"]
    model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2], baseline_holdout=None)
    Index.build(tmp_path / "idx", model, texts).close()
    again = Index.open(tmp_path / "idx")
    hits = again.search('\u05e6\u05d4"\u05dc', k=2)          # the acronym typed with an ASCII quote
    assert again._plan is not None and again._plan.tokenizer.uax29_punctuation is True
    assert again._plan.tokenizer.fold_variants is True
    assert {h["text"] for h in hits} == {texts[0], texts[4]}
    assert again._plan.tokenizer('\u05e6\u05d4"\u05dc') == ["\u05e6\u05d4\u05f4\u05dc"]
    again.close()


@pytest.mark.parametrize("one, other", [
    ("\u06a9\u062a\u0627\u0628", "\u0643\u062a\u0627\u0628"),        # کتاب / كتاب: keheh and kaf
    ("\u0645\u06cc\u0632", "\u0645\u064a\u0632"),                      # میز / ميز: the Persian and Arabic yeh
    ("\u0623\u062d\u0645\u062f", "\u0627\u062d\u0645\u062f"),        # أحمد / احمد: alef with hamza
    ("\u0625\u0633\u0644\u0627\u0645", "\u0627\u0633\u0644\u0627\u0645"),  # إسلام / اسلام
    ("\u0645\u062f\u0631\u0633\u0629", "\u0645\u062f\u0631\u0633\u0647"),  # مدرسة / مدرسه: teh marbuta
    ("\u0645\u0635\u0637\u0641\u0649", "\u0645\u0635\u0637\u0641\u064a"),  # alef maksura and yeh
    ("\u0662\u0660\u0662\u0664", "2024"),                              # Arabic-Indic digits
    ("\u06f2\u06f0\u06f2\u06f4", "2024"),                              # Persian digits
    ("\u0968\u0966\u0968\u096a", "2024"),                              # Devanagari digits
    ("\u0627\u0654\u062d\u0645\u062f", "\u0627\u062d\u0645\u062f"),  # the hamza written apart (NFD)
    ("\u03bb\u03cc\u03b3\u03bf\u03c2", "\u039b\u039f\u0393\u039f\u03a3"),  # λόγος / ΛΟΓΟΣ: Greek's tonos
    ("\u03bb\u03bf\u0301\u03b3\u03bf\u03c2", "\u03bb\u03bf\u03b3\u03bf\u03c3"),  # written apart; final sigma
    ("\u1f00\u03c1\u03c7\u1f74", "\u03b1\u03c1\u03c7\u03b7"),       # ἀρχὴ: polytonic breathings and accents
    ("\u0451\u043b\u043a\u0430", "\u0435\u043b\u043a\u0430"),       # ёлка / елка
])
def test_letter_variants_and_digits_of_other_scripts_are_one_term(one, other):
    assert Tokenizer()(one) == Tokenizer()(other) and len(Tokenizer()(one)) == 1
    assert Tokenizer(fold_variants=False)(one) != Tokenizer(fold_variants=False)(other)
    # one character for one: the span is the word as written
    assert [(a, b) for a, b, _ in Tokenizer().spans(one)] in ([(0, len(one))], [])


def test_urdu_yeh_barree_and_other_letters_stay_apart():
    assert Tokenizer()("\u06a9\u06cc\u0627 \u0628\u0686\u06d2") == ["\u0643\u064a\u0627", "\u0628\u0686\u06d2"]
    assert Tokenizer()("caf\u00e9 2024") == ["caf\u00e9", "2024"] and Tokenizer()("\u0628\u0627\u0628") == ["\u0628\u0627\u0628"]


@pytest.mark.parametrize("written, plain", [
    ("\ufb01nance \ufb02ow", "finance flow"),                         # ligatures kept by text from a PDF
    ("\ufedb\ufe98\ufe8e\ufe8f", "\u0643\u062a\u0627\u0628"),    # Arabic presentation forms (ﻛﺘﺎﺏ)
    ("\U0001d400\U0001d401\U0001d402 \U0001d7da\U0001d7d8", "ABC 20"),  # mathematical letters and digits
    ("\u30c9\u30e9\u30b4\u30f3\u2162", "\u30c9\u30e9\u30b4\u30f3 III"),  # a Roman numeral after katakana
    ("\u017fun", "sun"),                                              # the long s
])
def test_compatibility_characters_are_read_as_what_they_stand_for(written, plain):
    assert Tokenizer()(written) == Tokenizer()(plain)
    # (case folding, a later reading, opens the ligatures and the long s too)
    old = Tokenizer(fold_variants=False, casefold=False)
    assert old(written) != old(plain)
    assert Tokenizer(lowercase=False)(written) == Tokenizer(lowercase=False)(plain)


def test_other_compatibility_characters_keep_their_reading():
    # full NFKC would make "apple\u2122" the word "appletm" and "m\u00b2" "m2"
    assert Tokenizer()("Apple\u2122 m\u00b2 \u00bd") == ["apple", "m\u00b2"]


def test_changes_that_keep_the_length_give_no_wrong_spans():
    # an accent written apart (-1 once joined) and a ligature (+1 once opened) keep the text's
    # length and moved every place between them: the page marked " offer" for "offers"
    from learnsim.text import Tokenizer

    tok = Tokenizer()
    text = "The cafe\u0301 offers \ufb01ne wine and cheese"
    spans = tok.spans(text)
    assert all(tok(text[a:b]) and tok(text[a:b])[0] == term for a, b, term in spans)
    assert tok.spans("The café offers fine wine")[2] == (9, 15, "offers")


@pytest.mark.parametrize("doc, words", [
    ("İstanbul siparişim", ["İstanbul", "siparişim"]),                   # lowercased: two characters
    ("ISTANBUL İZMİR", ["ISTANBUL", "İZMİR"]),
    (unicodedata.normalize("NFD", "Ça coûte été"),                        # accents written apart
     [unicodedata.normalize("NFD", w) for w in ("Ça", "coûte", "été")]),
    ("\ufb01nance \ufb02ow office", ["\ufb01nance", "\ufb02ow", "office"]),   # ligatures (a PDF's)
    ("co\u00adoperate İn \ufeffcafe\u0301", ["co\u00adoperate", "İn", "cafe\u0301"]),
    ("ｶﾞｲﾄﾞ İ", ["ｶﾞｲ", "ｲﾄﾞ"]),                                         # half-width kana, voiced
    ("\u1112\u1161\u11ab\u1100\u116e\u11a8 İ", ["\u1112\u1161\u11ab\u1100\u116e\u11a8"]),   # jamo NFC joins: 한국
])
def test_spans_of_a_text_whose_reading_changes_its_length(doc, words):
    """Lowercasing (İ is i + a dot), NFC and the ligatures change a text's length: each word is
    still marked where it is written, with its term (no spans at all before)."""
    tok = Tokenizer(fold_variants=True)
    spans = tok.spans(doc)
    assert [doc[a:b] for a, b, _ in spans] == words
    assert [t for _, _, t in spans] == tok(doc)


def test_mapped_spans_hold_on_random_text():
    """Every span of a text read character by character is where its term is written: the text
    there, read alone, is that term; and the terms are the text's own."""
    import random

    rng = random.Random(3)
    alphabet = list("abc XYZ.") + ["İ", "\u0301", "\u0308", "\ufb01", "é", "ß", "\u00ad", "\ufeff", "Ⅻ", "ǅ", "ﬀ"]
    tok = Tokenizer()
    mapped = 0
    for _ in range(400):
        doc = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))
        spans = tok.spans(doc)
        if tok._direct_spans(doc) is None:
            mapped += bool(spans)
        for a, b, term in spans:
            assert tok(doc[a:b]) == [term], (doc, a, b, term)
        if spans:
            assert sorted(t for _, _, t in spans) == sorted(tok(doc))
    assert mapped > 50


def test_a_reading_that_depends_on_its_neighbours_gives_no_spans_rather_than_wrong_ones(monkeypatch):
    from learnsim.text import _spans

    tok = Tokenizer()
    # lowercase final sigma depends on the next character: read alone each sigma is σ
    doc = "İ ΟΔΟΣ"
    got = tok.spans(doc)
    assert all(tok(doc[a:b]) == [t] for a, b, t in got)
    monkeypatch.setattr(_spans, "MAX_MAPPED", 5)
    assert tok.spans("İstanbul") == [] and tok("İstanbul") == ["istanbul"]


def test_kangxi_radicals_read_as_the_ideographs_they_stand_for(tmp_path):
    """A PDF's text layer often holds Kangxi radicals (⼈ U+2F08) in place of the ideographs
    (人 U+4EBA): read as symbols, they were no term, and 人口 found none of them."""
    import learnsim
    from learnsim.index import Index

    assert Tokenizer()("\u2f08\u2f1d\u304c\u5897\u3048\u308b") == Tokenizer()("\u4eba\u53e3\u304c\u5897\u3048\u308b")
    assert Tokenizer(fold_radicals=False)("\u2f08\u2f1d") == []
    assert Tokenizer()("\u2f08 \u2e9f") == Tokenizer()("\u4eba \u6bcd")         # ⺟ (U+2E9F) is 母
    texts = ["\u2f08\u2f1d\u304c\u5897\u3048\u308b\u753a", "\u5929\u6c17\u304c\u826f\u3044", "\u96e8\u304c\u964d\u308b",
             "\u7a7a\u6e2f\u306e\u4fbf", "\u99c5\u306e\u8fd1\u304f", "\u5c71\u306e\u4e0a"]
    model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2], baseline_holdout=None)
    Index.build(tmp_path / "idx", model, texts).close()
    with Index.open(tmp_path / "idx") as again:
        assert [h["text"] for h in again.search("\u4eba\u53e3", k=1)] == [texts[0]]
        assert again._plan is not None and again._plan.tokenizer.fold_radicals is True
        spans = model.term_spans(texts[0])
        assert (0, 2, "\u4eba\u53e3") in spans


@pytest.mark.parametrize("doc", ["口\u0301\u0301ﾞ東", "ｲ\u00ad\u0308ﾞ天", "\u0e22\u0308ﾞ", "天\u0327ﾞ気"])
def test_marks_put_in_canonical_order_give_no_wrong_spans(doc):
    # the NFC that joins a half-width voiced mark (U+FF9E, U+3099 once folded) also moves it
    # before a mark of a higher class (a cedilla, a diaeresis): the text keeps its length and a
    # span pointed one place off ('\u0327' marked as the term '\u3099')
    tok = Tokenizer()
    spans = tok.spans(doc)
    assert spans and [t for _, _, t in spans] == tok(doc)
    assert all(term in tok(doc[a:b]) for a, b, term in spans)


@pytest.mark.parametrize("kwargs", [{}, {"analyzer": "words"}, {"cjk_unigrams": True}, {"lowercase": False}])
def test_every_span_of_random_text_in_many_scripts_reads_as_its_term(kwargs):
    """Spans of random text drawn from the characters that change in reading (accents apart,
    Turkish dotted I, ligatures, half-width kana and voiced marks, Kangxi radicals, jamo, Thai
    marks, Arabic points and presentation forms, Hebrew quotes, invisible characters): each
    span's text, read alone, gives its term (final sigma, which reads by its neighbours, left
    out of the draw)."""
    import random

    rng = random.Random(11)
    alphabet = (list("abc XYZ.'\"-") + list("İıßẞéÉ\u0301\u0308\u0327ﬁﬀⅫǅΟΔ") + list("東京人口の天気ガイドｶﾞｲﾄﾞﾞ・⼈⼝⺟")
                + list("한국어\u1100\u1161\u11a8") + list("ภาษาไทย่้") + list("كَتَبَ\u0640ﻛﺘﺎﺏ٢٠") + list("צה\"ל׳״")
                + list("\u00ad\ufeff\u200d\u200e") + list("col·lecció") + list("दिल्ली") + ["😀", "\U0001D400"])
    tok = Tokenizer(**kwargs)
    n_spans = 0
    for _ in range(1500):
        doc = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 25)))
        spans = tok.spans(doc)
        n_spans += len(spans)
        for a, b, term in spans:
            assert term in tok(doc[a:b]), (doc, a, b, term)
    assert n_spans > 2000


def test_a_text_that_reads_far_longer_is_not_mapped(monkeypatch):
    # U+FDFA reads as 18 characters: a cap on the text as written let 200,000 of them build
    # 3.6 million places (3 s); the text as read is capped too
    from learnsim.text import _spans

    monkeypatch.setattr(_spans, "MAX_MAPPED", 1000)
    tok = Tokenizer()
    assert tok._mapped_spans("\ufdfa" * 100) is None and tok.spans("\ufdfa" * 100) == []
    assert tok._mapped_spans("\ufdfa" * 10) is not None


@pytest.mark.parametrize("setting", ["cjk_unigrams", "unicode_words", "drop_ignorables", "uax29_punctuation",
                                     "fold_variants", "fold_radicals", "indic_zwnj", "sara_am", "ela_geminada", "fold_squares", "casefold", "latin_digraphs", "lao_digraphs",
                                     "cyrillic_apostrophe", "fold_stop_words", "sara_ae", "malayalam_chillu", "fold_enclosed", "emoji_terms",
                                     "emoji_sequences", "khanda_ta", "vietnamese_tones",
                                     "devanagari_visarga", "jieba_search",
                                     "mai_yamok", "hangul_jamo", "yiddish_ligatures", "lunate_sigma",
                                     "vietnamese_eth", "devanagari_anusvara", "cyrillic_latin_i",
                                     "armenian_marks", "katakana_variants", "turkish_lowercase", "turkish_apostrophe",
                                     "irish_lowercase", "tai_scripts", "cyrillic_stress", "syriac_points"])
def test_a_reading_given_other_than_true_or_false_is_refused(setting):
    # read for its truth value, a saved state's "false" was the reading True: silently another one
    from learnsim.exceptions import ParameterTypeError

    vec = TextVectorizer().fit(["東京の天気", "\u2f08\u2f1dの話"])
    meta, arrays = vec._get_state()
    meta["params"] = dict(meta["params"], **{setting: "false"})
    with pytest.raises(ParameterTypeError, match=f"{setting} must be True or False; got 'false'"):
        TextVectorizer._from_state(meta, arrays)
    with pytest.raises(ParameterTypeError, match=setting):
        TextVectorizer(**{setting: 1}).fit(["a b"])


# Bengali র‌্যাব (RAB; the ra written whole before ya, not as a reph), Hindi क्‌ष (the virama shown),
# Kannada, Malayalam: a zero-width non-joiner inside an Indic word asks for another shape, no break
INDIC_ZWNJ = [("\u09b0\u200c\u09cd\u09af\u09be\u09ac", "\u09b0\u09cd\u09af\u09be\u09ac"),
              ("\u0915\u094d\u200c\u0937", "\u0915\u094d\u0937"),
              ("\u0c95\u0ca8\u0ccd\u200c\u0ca1", "\u0c95\u0ca8\u0ccd\u0ca1"),
              ("\u0d36\u0d4d\u0d30\u0d40\u200c\u0d32\u0d19\u0d4d\u0d15", "\u0d36\u0d4d\u0d30\u0d40\u0d32\u0d19\u0d4d\u0d15")]


@pytest.mark.parametrize("written, plain", INDIC_ZWNJ)
def test_a_non_joiner_inside_an_indic_word_keeps_it_whole(written, plain):
    """Read as a break (UAX #29 reads it as no break, ICU's NFKC_Casefold removes it), the
    non-joiner cut the word, its first part alone or lost, and the part after it lost its
    leading mark: র‌্যাব gave the term যাব, another word ("will go"), and never matched র্যাব."""
    tok = Tokenizer()
    assert tok(written) == tok(plain) == [plain]
    assert tok.spans(written) == [(0, len(written), plain)]      # the non-joiner inside the span
    # beside an invisible character and a text whose reading changes its length (İ)
    assert (3, 3 + len(written), plain) in tok.spans("x \ufeff" + written + " \u0130stanbul")
    assert Tokenizer(indic_zwnj=False)(written) != [plain]       # the old reading: cut
    assert Tokenizer(unicode_words=False)(written) != [plain]


def test_the_old_reading_lost_a_part_of_a_bengali_word_to_another_word():
    assert Tokenizer(indic_zwnj=False)("\u09b0\u200c\u09cd\u09af\u09be\u09ac") == ["\u09af\u09be\u09ac"]
    assert Tokenizer()("\u09b0\u200c\u09cd\u09af\u09be\u09ac") == ["\u09b0\u09cd\u09af\u09be\u09ac"]


def test_a_persian_non_joiner_and_one_beside_other_scripts_still_cut():
    assert Tokenizer(fold_variants=False)("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645") == \
        ["\u0645\u06cc", "\u062e\u0648\u0627\u0647\u0645"]
    assert Tokenizer()("\u0939\u093f\u0928\u094d\u0926\u0940\u200cword") == ["\u0939\u093f\u0902\u0926\u0940", "word"]


def test_vectorisers_read_a_non_joiner_inside_an_indic_word_alike():
    from learnsim.distributed import HashingTextVectorizer

    docs = [w + " \u0985\u09ad\u09bf\u09af\u09be\u09a8" for w, _ in INDIC_ZWNJ] + [p for _, p in INDIC_ZWNJ]
    vec = TextVectorizer(weighting="tf").fit(docs)
    X = vec.transform(docs).toarray()
    hashed = HashingTextVectorizer(n_features=2 ** 18, weighting="tf").fit().transform(docs).toarray()
    for i, (written, plain) in enumerate(INDIC_ZWNJ):
        assert X[i, vec.vocabulary_[plain]] == 1 and X[len(INDIC_ZWNJ) + i, vec.vocabulary_[plain]] == 1
        assert (hashed[i] > 0).sum() == 2 and (hashed[i] * hashed[len(INDIC_ZWNJ) + i]).sum() == 1


def test_spans_of_random_text_with_non_joiners_read_as_their_terms():
    alphabet = list("\u09b0\u09cd\u09af\u09be\u09ac\u0915\u094d\u0937\u093f\u0645\u06cc") + ["\u200c"] * 4 + \
        list(" a\u200d\u00ad\ufeff\u0130\ufb01\u0301")
    assert check_random_spans(Tokenizer(), alphabet, seed=5) > 1000
