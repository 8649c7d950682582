"""Syriac writes its vowels as optional points over and under the letters (and the qushshaya and
rukkakha dots of a consonant's hard or soft sound), as Hebrew does: liturgical texts, the Peshitta
and dictionaries write them, most other text and most queries leave them out. They stayed in the
word, so that ܫܠܵܡܵܐ (shlama, peace, pointed) and ܫܠܡܐ were two terms that never met, where
learnsim leaves out Hebrew's and Arabic's points."""
import pytest

from learnsim.text import TextVectorizer, Tokenizer

POINTED = [("\u072b\u0720\u0735\u0721\u0735\u0710", "\u072b\u0720\u0721\u0710"),                  # ܫܠܵܡܵܐ peace
           ("\u0721\u0720\u071f\u0735\u0710", "\u0721\u0720\u071f\u0710"),                        # ܡܠܟܵܐ king
           ("\u071f\u072c\u0742\u0735\u0712\u0742\u0735\u0710", "\u071f\u072c\u0712\u0710"),        # ܟܬ݂ܵܒ݂ܵܐ book
           ("\u0710\u0730\u0712\u0742\u0730\u0710", "\u0710\u0712\u0710")]                        # ܐܰܒ݂ܰܐ father


@pytest.mark.parametrize("pointed, plain", POINTED)
def test_syriac_vowel_points_are_left_out(pointed, plain):
    tok = Tokenizer()
    assert tok(pointed) == tok(plain) == [plain]
    assert Tokenizer(syriac_points=False)(pointed) == [pointed]           # the old reading


def test_other_scripts_marks_stay_and_spans_keep_the_word_as_written():
    tok = Tokenizer()
    # the same code points after a letter of another script are not Syriac's: left to their reading
    assert tok("a\u0730b") == Tokenizer(syriac_points=False)("a\u0730b")
    text = "x " + POINTED[0][0] + " " + POINTED[2][0]
    assert [(text[a:b], term) for a, b, term in tok.spans(text)] == [
        (POINTED[0][0], POINTED[0][1]), (POINTED[2][0], POINTED[2][1])]


def test_a_model_saved_before_keeps_the_points_as_fitted():
    docs = [POINTED[0][0] + " " + POINTED[1][0], POINTED[2][0] + " " + POINTED[3][0]]
    vec = TextVectorizer().fit(docs)
    assert vec.syriac_points is True and POINTED[0][1] in vec.vocabulary_
    meta, arrays = TextVectorizer(syriac_points=False).fit(docs)._get_state()
    del meta["params"]["syriac_points"]
    old = TextVectorizer._from_state(meta, arrays)
    assert old.syriac_points is False and POINTED[0][0] in old.vocabulary_
    assert old.build_tokenizer().syriac_points is False


def test_spans_of_random_syriac_text_are_its_terms():
    from random_spans import check_random_spans

    alphabet = list("\u072b\u0720\u0721\u0710\u071f \u0735\u0730\u0742\u0741a")
    assert check_random_spans(Tokenizer(), alphabet, seed=3, longest=12) > 500
