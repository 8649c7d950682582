"""Czech's stop list as python-stop-words means it: its ted' is teď (now), written with an
apostrophe for the háček, which the list had left out as no word."""
from learnsim.text import Tokenizer, stop_list


def test_ted_is_read_as_the_word_it_stands_for():
    words = stop_list("czech")
    assert "te\u010f" in words and "ted'" not in words and "ted" not in words     # ted: English's name
    assert Tokenizer(stop_words="czech")("Teď jsem doma a čtu knihu.") == ["doma", "čtu", "knihu"]
    # chut' is chuť (taste), a word of meaning as the list's chuti, left out
    assert "chu\u0165" not in words and "chuti" not in words
