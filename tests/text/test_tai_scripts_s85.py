"""The Tai scripts written without spaces (Tai Tham, New Tai Lue, Tai Le, Tai Viet, Ahom): the
scripts of Unicode's line-break class SA (complex context, "words found by a dictionary") that
the spaceless rule did not cover. Read as words, a sentence was one term, the defect Japanese
and Thai had: a query of one word found no text that held it among other words."""
import random

import pytest

from learnsim.text import Tokenizer

# letters and the vowel or tone marks after them, per script (code points of Unicode's charts)
SCRIPTS = {
    "tai_tham": ([chr(c) for c in range(0x1A20, 0x1A4D)], [chr(c) for c in range(0x1A61, 0x1A75)]),
    "new_tai_lue": ([chr(c) for c in range(0x1980, 0x19AB)], [chr(c) for c in range(0x19B0, 0x19C8)]),
    "tai_le": ([chr(c) for c in range(0x1950, 0x196D)], [chr(c) for c in range(0x1970, 0x1975)]),
    "tai_viet": ([chr(c) for c in range(0xAA80, 0xAAAF)], [chr(c) for c in range(0xAAB0, 0xAABE)]),
    "ahom": ([chr(c) for c in range(0x11700, 0x1171A)], [chr(c) for c in range(0x1171D, 0x1172B)]),
}


def _collection(script, seed=0, n_words=12, n_texts=30):
    """Generated words (two or three syllables: a letter and perhaps a mark) and texts of 3 to 6
    of them written without spaces, as these scripts are written; each text ends with a space
    and another sentence so that a text is more than one run."""
    letters, marks = SCRIPTS[script]
    rng = random.Random(seed)

    def syllable():
        return rng.choice(letters) + (rng.choice(marks) if rng.random() < 0.6 else "")

    words = list({"".join(syllable() for _ in range(rng.randint(2, 3))) for _ in range(n_words)})
    texts = ["".join(rng.sample(words, rng.randint(3, 6))) + " " + "".join(rng.sample(words, 2))
             for _ in range(n_texts)]
    return words, texts


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_tai_sentence_is_bigrams_not_one_term(script):
    words, texts = _collection(script)
    tok = Tokenizer()
    for text in texts[:5]:
        run = text.split(" ")[0]
        terms = tok(run)
        assert len(terms) == len(run) - 1 and all(len(t) == 2 for t in terms), (script, ascii(run))
    # what a model saved before this reading does: the run is one term
    assert Tokenizer(tai_scripts=False)(texts[0].split(" ")[0]) == [texts[0].split(" ")[0]]


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_query_word_finds_every_text_holding_it(script):
    """Every term of a query word is a term of each text holding it (bigrams by code point);
    read as words (tai_scripts=False), a query word met no text that held it among others."""
    words, texts = _collection(script)
    new, old = Tokenizer(), Tokenizer(tai_scripts=False)
    holding = found_new = found_old = 0
    for word in words:
        for text in texts:
            if word in text:
                holding += 1
                found_new += set(new(word)) <= set(new(text))
                found_old += bool(set(old(word)) & set(old(text)))
    assert holding >= 30
    assert found_new == holding
    assert found_old <= holding // 10


def test_the_rest_of_the_text_reads_as_before():
    """English, Japanese, Thai and Korean beside a Tai run keep their terms; the Tai run is cut
    off at its script's punctuation and digits (Tai Tham's ᪨, New Tai Lue's digits)."""
    tok, old = Tokenizer(), Tokenizer(tai_scripts=False)
    text = "The cat 東京の天気 ฉันชอบกิน 한국어 문장"
    assert tok(text) == old(text)
    tham = "\u1a20\u1a61\u1a21\u1a22"
    assert tok(tham + "\u1aa8" + tham) == tok(tham) * 2
    assert "\u1aa8" not in "".join(tok(tham + "\u1aa8" + tham))
    # Tai Tham's mai yamok (the word again) is no part of a bigram, as Thai's ๆ is not
    assert not any("\u1aa7" in t for t in tok(tham + "\u1aa7"))


def test_the_setting_is_recorded_and_a_model_saved_before_reads_as_fitted():
    from learnsim.text import TextVectorizer

    words, texts = _collection("tai_tham")
    vec = TextVectorizer().fit(texts)
    assert vec.tai_scripts is True and all(len(t) <= 2 for t in vec.vocabulary_)
    meta, arrays = TextVectorizer(tai_scripts=False).fit(texts)._get_state()
    del meta["params"]["tai_scripts"]
    old = TextVectorizer._from_state(meta, arrays)
    assert old.tai_scripts is False and old.build_tokenizer().tai_scripts is False
    assert any(len(t) > 2 for t in old.vocabulary_)
    # and it reads a new text as it read its own
    assert (old.transform([texts[0]]) != TextVectorizer._from_state(meta, arrays).transform([texts[0]])).nnz == 0


@pytest.mark.filterwarnings("ignore:only 3 clusters")
def test_an_index_finds_a_tai_word_inside_a_sentence_and_its_plan_records_the_reading(tmp_path):
    import learnsim
    from learnsim.index import Index

    words, texts = _collection("new_tai_lue", n_texts=12)
    model = learnsim.fit(texts, clusters=[i % 3 for i in range(len(texts))], baseline_holdout=None)
    Index.build(tmp_path / "idx", model, texts).close()
    again = Index.open(tmp_path / "idx")
    try:
        word = next(w for w in words if sum(w in t for t in texts) >= 2)
        hits = again.search(word, k=len(texts))
        holding = {t for t in texts if word in t}
        assert holding <= {h["text"] for h in hits if h["score"] > 0}
        assert again._plan.tokenizer.tai_scripts is True
    finally:
        again.close()


def test_spans_of_tai_text_are_its_terms():
    from random_spans import check_random_spans

    letters, marks = SCRIPTS["tai_tham"]
    alphabet = letters[:6] + marks[:3] + list(" a\u1aa8") + ["\u0e01", "\u0e34"]
    assert check_random_spans(Tokenizer(), alphabet, seed=5, longest=12) > 500


def test_a_tai_collection_is_not_said_to_be_read_as_english():
    """Like a Thai or Japanese one, whose runs are bigrams that English's stop words and stems
    never touch: the baselines' report said its language was not recognised and read as English."""
    from learnsim.text._described import describe_unrecognised

    thai = ["\u0e09\u0e31\u0e19\u0e0a\u0e2d\u0e1a\u0e01\u0e34\u0e19\u0e02\u0e49\u0e32\u0e27 \u0e27\u0e31\u0e19\u0e19\u0e35\u0e49"] * 5
    assert describe_unrecognised(thai) is None
    for script in sorted(SCRIPTS):
        assert describe_unrecognised(_collection(script)[1]) is None, script
