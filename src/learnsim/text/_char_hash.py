"""Character n-grams within word boundaries, hashed into columns exactly as scikit-learn's
``HashingVectorizer(analyzer="char_wb", alternate_sign=False)`` hashes them, with the standard
library alone.

Why a second implementation: the pair models hash their character n-grams with scikit-learn,
whose import costs about a second; an index re-ranks a search's hits from the re-ranker's
saved arrays (:mod:`learnsim.index._rerank`) and must not pay it. The index checks this code
against the pair model's own features when it is built, and keeps the model's path where they
differ (tests compare the two on random text as well).

The hash is MurmurHash3 (x86, 32 bits, seed 0) of the n-gram's UTF-8 bytes, as a signed
integer; its column is ``abs(h) % n_features``.

Before its n-grams are taken, a text is read by :func:`fold_chars` (NFKC, then lowercased:
``fold=True``; case-folded: ``casefold=True`` as well, every fit since), or lowercased alone as scikit-learn's own preprocessing reads it (``fold=False``:
a model fitted before character folding). The pair models give :func:`fold_chars` to
scikit-learn as its ``preprocessor``: both read a text through this one function.
"""
from __future__ import annotations

import re
from collections import Counter
from unicodedata import category as _category, combining as _combining, decomposition as _decomposition, \
    is_normalized as _is_normalized, normalize as _normalize

from ._tokenize import MAX_MARKS, _mark_class

__all__ = ["CHAR_PIECE", "char_ngram_counts", "char_pieces", "char_wb_ngrams", "fold_chars", "fold_chars_casefold",
           "murmurhash3_32"]

_MASK = 0xFFFFFFFF
_WHITE_SPACES = re.compile(r"\s\s+")        # scikit-learn's own normalisation of runs of blanks
_INT32_MIN = -(1 << 31)


def _rotl(x, r):
    return ((x << r) | (x >> (32 - r))) & _MASK


def murmurhash3_32(data, seed=0):
    """MurmurHash3 x86 32-bit of ``data`` (bytes, or str as UTF-8), as a signed integer.

    Examples
    --------
    >>> from learnsim.text._char_hash import murmurhash3_32
    >>> murmurhash3_32(b""), murmurhash3_32("hello"), murmurhash3_32("hello", seed=1)
    (0, 613153351, -1152729939)
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    c1, c2 = 0xCC9E2D51, 0x1B873593
    h = seed & _MASK
    n = len(data)
    end = n - n % 4
    for i in range(0, end, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = _rotl((k * c1) & _MASK, 15)
        h ^= (k * c2) & _MASK
        h = (_rotl(h, 13) * 5 + 0xE6546B64) & _MASK
    tail = n - end
    if tail:
        k = 0
        if tail == 3:
            k ^= data[end + 2] << 16
        if tail >= 2:
            k ^= data[end + 1] << 8
        k ^= data[end]
        k = _rotl((k * c1) & _MASK, 15)
        h ^= (k * c2) & _MASK
    h ^= n
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK
    h ^= h >> 16
    return h - (1 << 32) if h & 0x80000000 else h


def fold_chars(text, casefold=False):
    """``text`` as the character n-grams of a pair model read it: in NFKC, then lowercased
    (``casefold``: case-folded).

    NFKC joins an accent written apart to its letter ("cafe\\u0301", as macOS writes file names,
    is "café"), and writes full-width forms ("Ｐｙｔｈｏｎ") and ligatures ("ﬁ", which text taken
    from a PDF keeps) as the letters they stand for: each spelling gives the same n-grams, as
    the word features' :class:`~learnsim.text.Tokenizer` reads them as the same words. A run
    of more than 30 combining marks keeps its first 30 (the tokenizer's ``MAX_MARKS``), as the
    tokenizer's NFC does: normalising sorts a run in time quadratic in its length (40,000 marks
    took a second), and a hostile text must not hold a search or a match for that long.

    ``casefold``: lowercased by ``str.casefold`` (Unicode's full case folding), as the word
    features' :class:`~learnsim.text.Tokenizer` reads a text (its ``casefold``): "Straße",
    "strasse" and "STRASSE" give the same n-grams, and Greek's final ς those of σ. Every fit since
    reads so; a model fitted before (``char_casefold_`` false) lowercases with ``str.lower``, as it
    was fitted ("straße" apart from "strasse").

    Examples
    --------
    >>> from learnsim.text._char_hash import fold_chars
    >>> fold_chars("Cafe\\u0301 Ｐｙｔｈｏｎ \\ufb01nance")
    'café python finance'
    >>> fold_chars("Straße"), fold_chars("Straße", casefold=True)
    ('straße', 'strasse')
    """
    if text.isascii():
        return text.lower()         # NFKC leaves ASCII as it is: the common case skips it
    if _is_normalized("NFKC", text):
        return text.casefold() if casefold else text.lower()
    long_run = _LONG_RUN[0]
    if long_run is None:
        long_run = _LONG_RUN[0] = re.compile(f"[{_mark_class()}{_compatibility_marks()}]{{{MAX_MARKS + 1},}}")
    if long_run.search(text) is not None:
        text = long_run.sub(lambda m: m.group()[:MAX_MARKS], text)
    text = _normalize("NFKC", text)
    return text.casefold() if casefold else text.lower()


def fold_chars_casefold(text):
    """:func:`fold_chars` with ``casefold`` (a function of one text: scikit-learn's
    ``preprocessor``)."""
    return fold_chars(text, casefold=True)


# A run of combining marks is cut at MAX_MARKS before NFKC sorts it (in time quadratic in the
# run's length), the characters that NFKC makes marks counted as marks: a run of accents and
# halfwidth voiced sound marks (U+FF9E, NFKC U+3099) passed a cut of the marks alone and became one
# run of twice as many (80,000 characters took 4 s; a match of one such pair, 15 s)
_LONG_RUN = [None]
_COMPAT_MARKS = [None]


def _compatibility_marks():
    """The body of a regular expression class of the characters that are not combining marks
    but whose NFKC is (built at first use from the running Python's Unicode data, and kept)."""
    found = _COMPAT_MARKS[0]
    if found is None:
        out = []
        for cp in range(0x20000):
            ch = chr(cp)
            if not _decomposition(ch).startswith("<") or _category(ch)[0] == "M" or _combining(ch):
                continue
            folded = _normalize("NFKC", ch)
            if folded and all(_category(c)[0] == "M" or _combining(c) for c in folded):
                out.append(f"\\U{cp:08X}")
        found = _COMPAT_MARKS[0] = "".join(out)
    return found


def char_wb_ngrams(text, min_n, max_n, fold=False, casefold=False):
    """The character n-grams of ``text`` within word boundaries, each word padded with a space
    on both sides, in scikit-learn's ``char_wb`` order; the text read by :func:`fold_chars`
    (``fold``; ``casefold``: case-folded) or lowercased alone (scikit-learn's own preprocessing:
    models fitted before character folding).

    Examples
    --------
    >>> from learnsim.text._char_hash import char_wb_ngrams
    >>> char_wb_ngrams("Hi  you", 2, 3)
    [' h', 'hi', 'i ', ' hi', 'hi ', ' y', 'yo', 'ou', 'u ', ' yo', 'you', 'ou ']
    >>> char_wb_ngrams("Ｈｉ", 2, 3, fold=True), char_wb_ngrams("Ｈｉ", 2, 3)
    ([' h', 'hi', 'i ', ' hi', 'hi '], [' ｈ', 'ｈｉ', 'ｉ ', ' ｈｉ', 'ｈｉ '])
    """
    return _wb_ngrams(fold_chars(text, casefold) if fold else text.lower(), min_n, max_n)


def _wb_ngrams(text, min_n, max_n):
    text = _WHITE_SPACES.sub(" ", text)
    out = []
    for w in text.split():
        w = " " + w + " "
        w_len = len(w)
        for n in range(min_n, max_n + 1):
            offset = 0
            out.append(w[offset:offset + n])
            while offset + n < w_len:
                offset += 1
                out.append(w[offset:offset + n])
            if offset == 0:         # a word shorter than n counts once, as scikit-learn does
                break
    return out


# The pair models hash a text longer than this in pieces (scikit-learn lists every n-gram of a
# text as a string first: a 38 MB text took more than 4 GB)
CHAR_PIECE = 1 << 16
_LAST_BLANK = re.compile(r"(?s).*\s")


def char_pieces(text, size=CHAR_PIECE):
    """``text`` in pieces of at most ``size`` characters, each cut after the last whitespace of
    its window, or at ``size`` where the window has none. The n-grams of the pieces are those of
    the whole text (``char_wb`` n-grams never cross a space) but where a word longer than
    ``size`` is cut: the pair models and the index's re-ranker both cut here, so that they count
    the same n-grams of such a text.

    Examples
    --------
    >>> from learnsim.text._char_hash import char_pieces
    >>> char_pieces("ab cd efgh", 4)
    ['ab ', 'cd ', 'efgh']
    >>> char_pieces("abcdefghij", 4)
    ['abcd', 'efgh', 'ij']
    """
    out, start, n = [], 0, len(text)
    while n - start > size:
        m = _LAST_BLANK.match(text, start, start + size)        # up to the window's last whitespace
        end = m.end() if m is not None and m.end() > start else start + size
        out.append(text[start:end])
        start = end
    out.append(text[start:])
    return out


def char_ngram_counts(text, min_n, max_n, n_features, cache=None, fold=False, casefold=False):
    """{column: count} of the hashed ``char_wb`` n-grams of one text (``fold``: read by
    :func:`fold_chars`, ``casefold`` passed on, as :func:`char_wb_ngrams`). ``cache``: a dict of n-gram -> column shared
    across calls (n-grams repeat across a query's hits)."""
    cache = {} if cache is None else cache
    counts = Counter()
    if fold:
        text = fold_chars(text, casefold)
    # read (folded, or each piece lowercased) and cut as the pair models read and cut a text
    for piece in char_pieces(text):
        for gram in _wb_ngrams(piece if fold else piece.lower(), min_n, max_n):
            col = cache.get(gram)
            if col is None:
                h = murmurhash3_32(gram)
                # abs(-2**31) overflows an int32 in scikit-learn; it defines the column this way
                col = (2147483647 - (n_features - 1)) % n_features if h == _INT32_MIN else abs(h) % n_features
                if len(cache) < 1_000_000:
                    cache[gram] = col
            counts[col] += 1
    return counts
