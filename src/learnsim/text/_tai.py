"""The Tai scripts written without spaces (Tokenizer's ``tai_scripts``): Tai Le, New Tai Lue, Tai
Tham (Lanna), Tai Viet and Ahom, the scripts of Unicode's line-break class SA ("complex context":
words are found by a dictionary, UAX #14) that the spaceless rule of Thai, Lao, Myanmar and Khmer
did not cover. Read by the token pattern alone, a sentence in one of them was one term, as a
Japanese or Thai sentence had been, and a query of one word found no text holding it among others.

Only letters and their marks are run characters: each script's punctuation, symbols and digits
(the digits are read as ASCII digits before) end a run, as Thai's do (UAX #29 breaks there), and
so do the repetition marks (Tai Tham's mai yamok U+1AA7, Tai Viet's U+AADD, "the word again"),
which as a bigram's half would be a term that the word written once never holds.
"""

__all__ = ["TAI_SCRIPTS"]

# the body of a regular expression class: Tai Le (letters, tones), New Tai Lue (letters, vowel
# signs, finals), Tai Tham (letters, signs, vowel signs, tone marks), Tai Viet (letters, vowels,
# tones, the symbols kon and nueng, which are words), Ahom (letters, medials, vowel signs)
TAI_SCRIPTS = "\u1950-\u1974\u1980-\u19C9\u1A20-\u1A7F\uAA80-\uAADC\U00011700-\U0001172F"
