"""A long text's terms a batch at a time, and their counts, without the list of them all.

A tokenizer's call returns every term of a text as one list of str: for one document of a single
60 MB line (a book, a log file, a dump brought as one document) some 11 million str objects,
about 650 MB, built once by the regex, again by the stop words' filter and the stems, and counted
after (``learnsim index build`` of it peaked at 1.17 GB). Counting needs the terms once each, in
order: :func:`term_batches` yields them in lists of at most :data:`BATCH` words, found by the
same regex over the same prepared text (``finditer`` gives ``findall``'s matches, one at a time),
with the same stop words and stems, and n-grams joined over the words once more for each n (the
tokenizer's list holds the words, then the 2-grams...), so that the batches joined are the
tokenizer's list exactly. Streamed: ASCII text, the words analyser's, and the cjk analyser's
(the default) where no run of a script written without spaces stands in the text. A text
shorter than :data:`STREAM_CHARS`, one with such runs under the cjk analyser, and one a
segmenter reads, are read by the tokenizer's call as before (a short text's list is small, and
``findall`` is the faster).

Only the standard library and learnsim.text._tokenize are imported here.
"""
from __future__ import annotations

from collections import Counter
from itertools import islice

from ._tokenize import Tokenizer, _fold_width, _strip_points

__all__ = ["BATCH", "STREAM_CHARS", "term_batches", "term_counts"]

# a text at least this long is read a batch at a time (below it, the whole list is a few MB)
STREAM_CHARS = 1 << 20
# words found at a time
BATCH = 1 << 16


def term_batches(tokenizer, doc):
    """Lists of the terms of ``doc`` read by ``tokenizer`` (a
    :class:`learnsim.text.Tokenizer`), in order: joined, ``tokenizer(doc)``."""
    if (len(doc) < STREAM_CHARS or not isinstance(tokenizer, Tokenizer)
            or type(tokenizer).__call__ is not Tokenizer.__call__ or type(tokenizer)._unigrams is not Tokenizer._unigrams):
        # short, or a tokenizer of another kind (a subclass reading otherwise): its own call
        yield tokenizer(doc)
        return
    min_n, max_n = tokenizer.ngram_range
    if (max_n > 1 and tokenizer.jieba_search and tokenizer.analyzer == "jieba"):
        yield tokenizer(doc)
        return
    text, regex = tokenizer._word_source(doc)
    keep = tokenizer._kept_words
    if regex is None and tokenizer.analyzer == "cjk":
        # the bigram analyser (the default) on a text of other letters: where no run of a script
        # written without spaces stands in it, its terms are the words of the whole text, as
        # Tokenizer._cjk_terms finds them (a book with one curly quote or accent is such a text)
        text = _fold_width(text)
        if tokenizer._spaceless_run.search(text) is None:
            if tokenizer.unicode_words:
                text = _strip_points(text)
            regex, keep = tokenizer._text_regex(text), tokenizer._cjk_kept
    if regex is None or regex.groups > 1:
        # a segmenter's pieces, bigrams, or findall's tuples of a pattern of several groups: as before
        del text
        yield tokenizer(doc)
        return
    del doc
    # the tokenizer's list holds the words, then every 2-gram, then every 3-gram...: one pass
    # over the text for each, n - 1 words carried across a batch's edge
    for n in ([1] if min_n == 1 else []) + list(range(max(min_n, 2), max_n + 1)):
        carry = []
        for words in _word_batches(text, regex, keep):
            if n == 1:
                yield words
                continue
            run = carry + words
            yield [" ".join(run[i:i + n]) for i in range(len(run) - n + 1)]
            carry = run[len(run) - (n - 1):] if len(run) > n - 1 else run


def _word_batches(text, regex, keep):
    """The words of ``text`` (``keep``: stop words left out, stemmed), BATCH found at a time."""
    group = regex.groups       # findall gives group 1 of a pattern with one ("" where it took no part)
    matches = regex.finditer(text)
    while True:
        found = [m.group(1) or "" for m in islice(matches, BATCH)] if group else \
            [m.group() for m in islice(matches, BATCH)]
        if not found:
            return
        words = keep(found)
        if words:
            yield words


def term_counts(tokenizer, doc):
    """``Counter(tokenizer(doc))`` (terms in the order they first stand in ``doc``), counted a
    batch at a time (:func:`term_batches`)."""
    counts = Counter()
    for batch in term_batches(tokenizer, doc):
        counts.update(batch)
    return counts
