"""Irish read as Irish (learnsim.text._irish): the n and t it writes before a capital vowel
without a hyphen (ár nAthair, an tUasal), where the text is said to be Irish (its stop words or
its stems), and only there."""

import pytest

from learnsim.text import TextVectorizer, Tokenizer
from random_spans import check_random_spans


@pytest.mark.parametrize("kwargs", [{"stop_words": "irish"}, {"stem": "irish"}, {"stop_words": "irish", "stem": "irish"}])
def test_an_irish_prefix_before_a_capital_vowel_is_no_part_of_the_word(kwargs):
    """ár nAthair read "nathair" (snake), an tUasal "tuasal": Lucene's IrishLowerCaseFilter writes
    n-athair, t-uasal before lowercasing, and Snowball's Irish stemmer takes the prefix off."""
    if "stem" in kwargs:
        pytest.importorskip("Stemmer")
    tok = Tokenizer(**kwargs)
    for mutated, word in (("nAthair", "athair"), ("tUasal", "uasal"), ("nÉireann", "éireann"),
                          ("tÁras", "áras"), ("nE\u0301ireann", "éireann")):
        assert tok(mutated) == tok(word) and tok(word), mutated
    assert "nathair" not in tok("ár nAthair") and tok("ár nAthair")[-1] == tok("athair")[0]
    # written with its hyphen, as before: the same word
    if "stem" in kwargs:
        assert tok("ár n-athair") == tok("ár nAthair")
    assert Tokenizer(**kwargs, irish_lowercase=False)("nAthair") == tok("nathair")         # the old reading
    # a capital N or T, a consonant after it, a word inside a word: read as before
    for doc in ("NATHAIR", "Nollaig", "tVeidhlín", "An nathair", "cnAthair"):
        assert tok(doc) == Tokenizer(**kwargs, irish_lowercase=False)(doc), doc
    # each term stays on the text as written
    for doc in ("ár nAthair atá ar neamh", "an tUasal agus an tAire", "e\u0301 nE\u0301ireann"):
        spans = tok.spans(doc)
        assert [t for _, _, t in spans] == tok(doc), doc
        assert all(tok(doc[a:b]) == [t] for a, b, t in spans), doc


@pytest.mark.parametrize("kwargs", [{}, {"stop_words": "english"}, {"stem": "porter"},
                                    {"stop_words": ["agus", "ar"]}, {"stop_words": "irish", "lowercase": False}])
def test_other_readings_keep_the_prefix(kwargs):
    # another language (tOne, nAme in a camel-case name) and a list of one's own read as ever
    tok = Tokenizer(**kwargs)
    assert tok("nAthair tOne") == Tokenizer(**kwargs, irish_lowercase=False)("nAthair tOne")
    if kwargs.get("lowercase", True) and "stem" not in kwargs:
        assert tok("nAthair tOne") == ["nathair", "tone"]


def test_spans_of_random_irish_text_stay_on_the_text_as_written():
    alphabet = list("ntNTAEIOUÁÉaeiouhr -'.\u0301") + ["agus ", "ár "]
    assert check_random_spans(Tokenizer(stop_words="irish"), alphabet, seed=11) > 1000


def test_an_irish_model_saved_before_keeps_its_reading(tmp_path):
    """A model fitted with Irish's stop words before the setting existed read nAthair as
    nathair: loaded, it reads so still; a new one records the setting."""
    from learnsim.persistence import load, save

    docs = ["Ár nAthair atá ar neamh", "an t-athair agus a mhac", "an nathair sa ghairdín"]
    vec = TextVectorizer(norm="l2", stop_words="irish").fit(docs)
    assert vec.irish_lowercase is True and "athair" in vec.vocabulary_
    assert vec.build_tokenizer()("nAthair") == ["athair"]
    assert load(save(vec, tmp_path / "v.npz")).irish_lowercase is True
    meta, arrays = TextVectorizer(norm="l2", stop_words="irish", irish_lowercase=False).fit(docs)._get_state()
    del meta["params"]["irish_lowercase"]
    old = TextVectorizer._from_state(meta, arrays)
    assert old.irish_lowercase is False and old.build_tokenizer()("nAthair") == ["nathair"]


def test_an_old_pickled_tokenizer_reads_as_before():
    import pickle

    tok = Tokenizer(stop_words="irish")
    state = tok.__getstate__()
    del state["irish_lowercase"], state["_irish"]
    old = Tokenizer.__new__(Tokenizer)
    old.__setstate__(state)
    assert old("nAthair") == ["nathair"] and pickle.loads(pickle.dumps(tok))("nAthair") == ["athair"]
