"""More later foldings of :class:`learnsim.text.Tokenizer` (each a later reading of
``LATER_READINGS``, registered in :data:`._folds.FOLDS`): a word of one script written two ways
that gave two terms. Here, not in :mod:`._folds` or the tokenizer, to keep those modules under
the size a module may have. The standard library only, as the tokenizer."""
from __future__ import annotations

# Thai's mai yamok (ๆ U+0E46), Lao's ko la (ໆ U+0EC6) and Khmer's lek too (ៗ U+17D7, ផ្សេងៗ,
# various) say "the word before, again" (ดีๆ, good
# good, well; เด็กๆ, children), and most text writes one right after its word: read as a letter
# of the run, ดีๆ gave the bigrams ดี and ีๆ, a term of its own that ดี and ดี ๆ (the mark typed
# apart) never held, and ดี ๆ held a lone ๆ that matched every repeated word. The mark is no
# letter of a word (Lucene's Thai tokenizer and PyThaiNLP cut it off as a token of its own): read
# as a space, one character for one, so ดีๆ, ดี ๆ and ดี are one term. The word is not repeated:
# where it starts is a dictionary's business, which the bigrams do not have.
_REPEAT_MARKS = {0x0E46: " ", 0x0EC6: " ", 0x17D7: " "}
REPEAT_MARKS = "\u0e46\u0ec6\u17d7"


def fold_mai_yamok(text, lower=True):
    """``text`` with Thai's mai yamok, Lao's ko la and Khmer's lek too read as a space."""
    if "\u0e46" not in text and "\u0ec6" not in text and "\u17d7" not in text:
        return text
    return text.translate(_REPEAT_MARKS)
