"""What detect_language reads of a sample, and how often: 500 texts of Punjabi in Shahmukhi cost
0.5-1.1 s, as each kind of letter of the Arabic script was found one by one (a string made of
each), the sample translated whole for Urdu's words, and its letters counted again for a tie of
stop-word shares that no list reached. The answers are the language tests'; these tests say what
is no longer done (no timed test: the machine's load decides a time)."""
import re
from collections import Counter

import pytest

from learnsim.text import _languages as languages
from learnsim.text import detect_language

# hand-written Punjabi (Shahmukhi): Urdu's letters, its own words (وچ, تے, دا, نوں, اے)
PUNJABI = ["میں اج بازار گیا سی تے اوتھوں سبزی لے کے آیا", "ساڈے پنڈ وچ اک وڈا دریا وگدا اے",
           "اوہ میرا پرانا یار اے تے اسیں اکٹھے پڑھدے ساں", "تسیں کتھے جا رہے او؟",
           "ماں نے روٹی پکائی تے سارے ٹبر نے رل کے کھادی", "لہور پنجاب دا سب توں وڈا شہر اے",
           "بچے سکول نوں جاندے نیں تے شام نوں کھیڈدے نیں", "ایہہ کتاب بڑی چنگی اے، تسیں وی پڑھو"]
URDU = ["یہ شہر بہت بڑا ہے اور لوگ مہربان ہیں", "میں نے کل بازار سے کتابیں خریدیں اور گھر آ گیا"]
PERSIAN = ["این شهر بزرگ است و مردم آن بسیار مهربان هستند", "کتابها روی میز کتابخانه قرار دارند"]
ARABIC = ["ذهب الطلاب إلى المدرسة في الصباح الباكر", "اشترى أخي السيارة الحمراء من المعرض"]


class _MatchOnly:
    """A pattern that matches at a text's start (a character, a word's first) and refuses to
    find every match of a text."""

    def __init__(self, pattern):
        self.pattern = pattern

    def match(self, text, *args):
        return self.pattern.match(text, *args)

    def findall(self, text, *args):
        raise AssertionError(f"findall over {len(text)} characters")

    search = findall


@pytest.fixture
def letters_counted_once(monkeypatch):
    for name in ("_LETTERS", "_ARABIC_LETTERS", "_SCRIPT_LETTERS", "_PERSIAN_OWN", "_URDU_OWN", "_URDU_ALPHABET"):
        monkeypatch.setattr(languages, name, _MatchOnly(getattr(languages, name)))


def test_the_arabic_scripts_letters_are_counted_by_character_not_found_one_by_one(letters_counted_once):
    assert detect_language(PUNJABI * 60) == "english"      # Urdu's letters, a fifth of Urdu's stop words
    assert detect_language(URDU * 60) == "urdu"
    assert detect_language(PERSIAN * 60) == "persian"
    assert detect_language(ARABIC * 60) == "arabic"


def test_no_tie_is_broken_where_no_list_reaches_the_share(monkeypatch):
    # every list's share of Punjabi is 0 (none of its script but Urdu's, read apart): English
    # whatever the tie, so its letters are not counted for one
    def refuse(*args):
        raise AssertionError("the letters counted for a tie no list reached")

    monkeypatch.setattr(languages, "_own_letters_written", refuse)
    assert detect_language(PUNJABI * 60) == "english"
    assert detect_language(["1234 5678", "x9 y8"]) == "english"


def _translated_whole(text):
    return Counter(languages._WORD.findall(text.translate(languages._URDU_NORMAL)))


@pytest.mark.parametrize("text", URDU + PUNJABI + ARABIC + [
    "كتاب ہے", "مُحَمَّد صاحب", "کتاـــب", "ۂ ۂ a\u0654b", "\u064e\u064e x", "ب\u064e ت", "شہر،شہر؛ ok_1 ي"])
def test_urdus_words_are_read_as_the_sample_translated_whole(text):
    # the table reads each of its characters as word characters or nothing, so that a run of them
    # and of word characters is one word of the sample translated whole
    assert all(v is None or re.fullmatch(r"\w+", v) for v in languages._URDU_NORMAL.values())
    sample = "\n".join([text] * 3 + URDU)
    assert languages._urdu_word_counts(sample) == _translated_whole(sample)


@pytest.mark.parametrize("text", ["", "abc", "a\udcff b\U0001f600", "\uff71\u0301x", "ءآ\n\n"])
def test_characters_are_counted_as_a_counter_counts_them(text):
    assert languages._char_counts(text) == dict(Counter(text))
