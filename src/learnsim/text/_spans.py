"""Where each term stands in a text whose reading changes its length (:meth:`Tokenizer.spans`'
mapped path): each character with the marks that join it read alone, the places of what it
became kept. Here, not in :mod:`._tokenize`, to keep that module under the size a module may
have. The seam: :func:`mapped_spans` is given the tokenizer and reads through its own methods
(``_prepare``, ``_read_alone``, ``_spans_of``, ``_unigrams``), so this module imports nothing
of :mod:`._tokenize`. The standard library only, as the tokenizer.
"""
from __future__ import annotations

import re
from collections import Counter
from unicodedata import category as _category

from ._folds import EMOJI_CHAR as _EMOJI_CHAR, NIKHAHIT as _NIKHAHIT, SARA_AA as _SARA_AA, SARA_E as _SARA_E
from ._script_folds import read_with as _read_with

# the longest text whose spans are mapped character by character (as written or as read)
MAX_MAPPED = 200_000

# a run of ASCII characters each followed by another (no mark can join one): read as it stands
_ASCII_AHEAD = re.compile(r"[\x00-\x7f]+(?=[\x00-\x7f])")

# Characters that a text read in parts always reads alone, one part each, where another of them
# follows: no combining mark, none of the characters that join the one before them (half-width
# voiced marks, vowel and final jamo, Thai's sara aa and sara e, joiners, emoji selectors, skin
# tones and tags, Armenian marks), none that read with the one after them (compatibility jamo,
# Devanagari's nasals) and none read by their neighbours (the apostrophe, inside a Cyrillic
# word; the fullwidth hyphen-minus, read after Katakana as its long mark). A run of them is read
# with one look-up each (the text of a Japanese, Chinese, Korean or Latin script is mostly such
# runs) where a character at a time cost 7-30 us each (a Python loop of a dozen tests and a
# dozen foldings a character). Most scripts whose words hold marks are left out: their runs are
# short. A test checks the class holds no mark.
PLAIN = ("\x00-\x26\x28-\x7f"           # ASCII but the apostrophe
         "\u00a0-\u02ff"                # Latin-1, Latin Extended-A and -B, IPA, modifier letters
         "\u0370-\u0482\u048a-\u052f"   # Greek and Cyrillic, their marks left out
         "\u05d0-\u05ea"                # Hebrew letters
         "\u0620-\u064a"                # Arabic letters (the points U+064B on are marks)
         "\u0e01-\u0e30\u0e3f\u0e41-\u0e45\u0e4f-\u0e5b"   # Thai, without its marks, sara aa, sara e, mai yamok
         "\u1e00-\u1fff"                # Latin Extended Additional (Vietnamese), Greek Extended
         "\u2010-\u2018\u201a-\u2027\u2030-\u205e"         # punctuation but ’ and the invisible ones
         "\u3000-\u3029\u3030-\u3096\u309b-\u30ff"        # CJK punctuation and kana (their marks left out)
         "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"        # CJK ideographs
         "\uac00-\ud7a3"                # Hangul syllables
         "\uff01-\uff0c\uff0e-\uff5e\uff61-\uff9d")  # full-width ASCII, half-width kana (their voiced marks left out)
_PLAIN_AHEAD = re.compile(f"[{PLAIN}]+(?=[{PLAIN}])")
# what keeps the reading of each character with its marks (a test reads without it, to compare)
_memo = dict


def mapped_spans(tok, doc, zwnj_places):
    """``tok``'s spans of ``doc`` read in parts (``Tokenizer._mapped_spans``); ``zwnj_places``:
    the function giving the places of the non-joiners the reading leaves out."""
    if len(doc) > MAX_MAPPED:
        return None
    # where each character read comes from: doc[starts[k]:ends[k]] (two lists: a tuple a place
    # cost a tenth of the time)
    starts, ends, parts = [], [], []
    n, i = len(doc), 0
    # the non-joiners inside Indic words, left out in context (read alone, one is kept)
    zwnj = set()
    if tok.unicode_words and tok.indic_zwnj and "\u200c" in doc:
        zwnj = zwnj_places(doc)
    alone = {}          # a character's code -> its reading alone, for str.translate
    chunks = _memo()    # a character and its marks -> their reading alone (e + U+0301, each time)
    while i < n:
        run = _ASCII_AHEAD.match(doc, i)
        if run is not None:         # ASCII before ASCII: read as it stands, a place each
            j = run.end()
            parts.append(tok._prepare(doc[i:j]))
            starts.extend(range(i, j))
            ends.extend(range(i + 1, j + 1))
            i = j
            continue
        run = _PLAIN_AHEAD.match(doc, i)
        if run is not None:         # each character its own part: read once each, as it reads alone
            j = run.end()
            block = doc[i:j]
            one_each = True
            for c in set(block):
                if ord(c) not in alone:
                    alone[ord(c)] = tok._read_alone(c, 0, 1)
                one_each = one_each and len(alone[ord(c)]) == 1
            parts.append(block.translate(alone))
            if one_each:
                starts.extend(range(i, j))
                ends.extend(range(i + 1, j + 1))
            else:                   # a letter read as two (İ, ß) or none (a soft hyphen, a tatweel)
                for k, c in enumerate(block, i):
                    starts.extend([k] * len(alone[ord(c)]))
                    ends.extend([k + 1] * len(alone[ord(c)]))
            if len(starts) > MAX_MAPPED:
                return None
            i = j
            continue
        if tok.indic_zwnj and doc[i] == "\u200c" and i in zwnj:     # left out: no place
            i += 1
            continue
        j = _read_with(doc, i, tok._more)       # (jamo read as syllables, whole; a nasal with its consonant)
        # a character's marks, the half-width voiced sound marks that width folding joins to
        # a half-width kana (ｶﾞ is ガ), and the vowel and final jamo that NFC joins to the
        # jamo before them (ᄀ + ᅡ is 가)
        # (and the sara aa that sara_am reads with a nikhahit before it as sara am)
        # (and an emoji sequence's joiners, selectors, skin tones and tags, kept in context)
        while j < n and (_category(doc[j])[0] == "M" or doc[j] in "\uff9e\uff9f"
                         or "\u1160" <= doc[j] <= "\u11ff" or "\ud7b0" <= doc[j] <= "\ud7ff"
                         or (doc[j] in _SARA_AA and tok.sara_am and any(c in _NIKHAHIT for c in doc[i:j]))
                         or (j == i + 1 and doc[j] == doc[i] and doc[j] in _SARA_E and tok.sara_ae)
                         or (doc[j] == "\u200d" and ((doc[j - 1] == "\u0d4d" and tok.malayalam_chillu)
                                                  or (doc[j - 1] == "\u09cd" and tok.khanda_ta)))
                         or (tok.emoji_sequences and (doc[j] in "\u200d\ufe0f" or (doc[j - 1] == "\u200d" and _EMOJI_CHAR.match(doc[j]))
                                                      or "\U0001f3fb" <= doc[j] <= "\U0001f3ff"
                                                      or "\U000e0020" <= doc[j] <= "\U000e007f"))):
            j += 1
        chunk = doc[i:j]
        part = chunks.get(chunk)
        if part is None:
            part = tok._read_alone(doc, i, j)
            if chunk[0] not in "'\u2019":     # (an apostrophe reads by its neighbours)
                chunks[chunk] = part
        parts.append(part)
        starts.extend([i] * len(part))
        ends.extend([j] * len(part))
        if len(starts) > MAX_MAPPED:       # read longer than that (U+FDFA reads as 18 characters)
            return None
        i = j
    read = "".join(parts)
    found = tok._spans_of(read, len(read))
    if not found:
        return None
    terms, own = [t for _, _, t in found], tok._unigrams(doc)
    if terms != own and Counter(terms) != Counter(own):     # (most often in the same order)
        return None
    return [(starts[a], ends[b - 1], term) for a, b, term in found]
