"""A long text's terms read a batch at a time (learnsim.text._term_stream) are the tokenizer's
list exactly: the same terms in the same order, so that counts, vocabularies and vectors stay
the same. The batch size and the length from which a text is streamed are made small here."""
from collections import Counter

import numpy as np
import pytest

from learnsim.text import TextVectorizer, Tokenizer
from learnsim.text import _term_stream


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(_term_stream, "STREAM_CHARS", 64)
    monkeypatch.setattr(_term_stream, "BATCH", 7)


def _text(seed, n=3000, words=("the", "cat", "sat", "on", "mat", "running", "runs", "a", "of", "dogs", "x")):
    rng = np.random.default_rng(seed)
    return " ".join(rng.choice(list(words), n)) + ". The End"


@pytest.mark.parametrize("params", [
    {},
    {"stop_words": "english"},
    {"stem": "english", "stop_words": "english"},
    {"ngram_range": (1, 2)},
    {"ngram_range": (2, 3), "stop_words": "english"},
    {"ngram_range": (1, 3), "stem": "english"},
    {"token_pattern": r"(?u)\b(\w)\w*\b"},          # one group: findall gives the group
    {"lowercase": False, "stop_words": "english"},
    {"analyzer": "words"},
    {"analyzer": "words", "stop_words": "english", "stem": "english", "ngram_range": (1, 2)},
    {"unicode_words": False, "stop_words": "english"},
    {"stem": "turkish", "stop_words": "turkish"},
    {"stem": "irish", "stop_words": "irish"},
    {"stem": "german", "ngram_range": (1, 2)},
])
def test_batches_join_to_the_tokenizers_list(small_batches, params):
    tok = Tokenizer(**params)
    for text in (_text(0), _text(1) + " çà et là, naïve café " * 40, "Ωμέγα λόγος " * 100,
                 _text(2, 500) + " “quoted” The Ａｂｃ ｆｕｌｌ width, i̇stanbul İzmir'de STRASSE Straße nAthair tAthair " * 30):
        batches = list(_term_stream.term_batches(tok, text))
        # read a batch at a time, the default (cjk) analyser's text of other letters too
        assert len(batches) > 1
        assert [t for b in batches for t in b] == tok(text)
        assert list(_term_stream.term_counts(tok, text).items()) == list(Counter(tok(text)).items())


def test_texts_with_spaceless_runs_are_streamed_too(small_batches):
    # (read whole before stop 85; tests/text/test_text_term_stream_cjk_s85.py reads more of them)
    tok = Tokenizer(analyzer="cjk")
    text = _text(2, 200) + "東京都に住んでいる。" * 50
    batches = list(_term_stream.term_batches(tok, text))
    assert len(batches) > 1 and [t for b in batches for t in b] == tok(text)


def test_vectors_and_vocabulary_are_those_of_the_whole_list(monkeypatch):
    texts = [_text(3), _text(4, 50), _text(5)]
    for params in ({"weighting": "bm25"}, {"weighting": "tfidf", "ngram_range": (1, 2), "stem": "english"}):
        whole = TextVectorizer(**params).fit(texts)
        X = whole.transform(texts)
        with monkeypatch.context() as m:
            m.setattr(_term_stream, "STREAM_CHARS", 64)
            m.setattr(_term_stream, "BATCH", 5)
            streamed = TextVectorizer(**params).fit(texts)
            Y = streamed.transform(texts)
            Z = whole.transform(texts)
        assert streamed.vocabulary_ == whole.vocabulary_
        for other in (Y, Z):
            assert (other != X).nnz == 0 and other.dtype == X.dtype


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 8, 13])
def test_a_long_text_lowercased_in_pieces_is_lowercased_whole(monkeypatch, chunk):
    from learnsim.text import _long_text

    monkeypatch.setattr(_long_text, "CHUNK", chunk)
    # Greek's final sigma looks back and ahead through letters and case-ignorable marks
    texts = ["ΟΔΥΣΣΕΥΣ ΚΑΙ Σ. ΑΣ' ΣΑΣ ΣΑΣ.Σ ΣΑΣ'' ΑΣ",
             "İSTANBUL Straße ǅ ΐ ﬁ “QUOTED” ΑΣ ΑΣ ΑΣ",
             "no-space-at-all-ΑΣ-ΑΣ-ΑΣ", "  ΑΣ  ", "   "]
    for text in texts:
        assert _long_text.lowered(text) == text.lower()
        assert _long_text.lowered(text, casefold=True) == text.casefold()
