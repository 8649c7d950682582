"""detect_language reads a collection: a lone str (its characters) or None is refused by name."""
import pytest

from learnsim.text import detect_language


@pytest.mark.parametrize("texts", ["reset my password", b"reset my password", None])
def test_a_lone_text_or_none_is_refused_naming_texts(texts):
    with pytest.raises(TypeError, match="texts must be"):
        detect_language(texts)


def test_a_list_of_one_text_is_read():
    assert detect_language(["Les chats dorment sur le canapé pendant que nous travaillons."]) == "french"
