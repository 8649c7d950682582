"""A long text's terms a batch at a time, and their counts, without the list of them all.

A tokenizer's call returns every term of a text as one list of str: for one document of a single
60 MB line (a book, a log file, a dump brought as one document) some 11 million str objects,
about 650 MB, built once by the regex, again by the stop words' filter and the stems, and counted
after (``learnsim index build`` of it peaked at 1.17 GB). Counting needs the terms once each, in
order: :func:`term_batches` yields them in lists of about :data:`BATCH` terms, found by the same
patterns over the same prepared text (``finditer`` gives ``findall``'s matches, one at a time),
with the same stop words and stems, and n-grams joined over the terms once more for each n (the
tokenizer's list holds the terms, then the 2-grams...), so that the batches joined are the
tokenizer's list exactly. Streamed: every text at least :data:`STREAM_CHARS` long that a plain
:class:`~learnsim.text.Tokenizer` reads: ASCII text, the words analyser's, the cjk analyser's
(the default; with runs of a script written without spaces, their character bigrams run by run,
then the words between them, as ``Tokenizer._cjk_terms`` gives them, or in the text's order
with word n-grams) and a morphological analyser's (SudachiPy, fugashi, jieba: it is given each
run of its scripts as before, which ends at punctuation, and at most ``_MAX_ANALYSED_RUN``
characters at a time, so its answer for a run is the same where the text is read whole). A
shorter text is read by the tokenizer's call as before (its list is small, and ``findall`` is
the faster).

Only the standard library and learnsim.text._tokenize are imported here.
"""
from __future__ import annotations

from collections import Counter
from functools import partial
from itertools import islice

from ._chinese import longest_reading
from ._tokenize import _MAX_ANALYSED_RUN, Tokenizer, _bigrams, _fold_width, _has_word, _segmenter, _strip_points

__all__ = ["BATCH", "STREAM_CHARS", "term_batches", "term_counts"]

# a text at least this long is read a batch at a time (below it, the whole list is a few MB)
STREAM_CHARS = 1 << 20
# terms found at a time
BATCH = 1 << 16


def term_batches(tokenizer, doc):
    """Lists of the terms of ``doc`` read by ``tokenizer`` (a
    :class:`learnsim.text.Tokenizer`), in order: joined, ``tokenizer(doc)``."""
    if (len(doc) < STREAM_CHARS or not isinstance(tokenizer, Tokenizer)
            or any(getattr(type(tokenizer), name) is not getattr(Tokenizer, name)
                   for name in ("__call__", "_unigrams", "_cjk_terms", "_pieces", "_cut", "_between", "_words"))):
        # short, or a tokenizer of another kind (a subclass reading otherwise): its own call
        yield tokenizer(doc)
        return
    min_n, max_n = tokenizer.ngram_range
    text, regex = tokenizer._word_source(doc)
    units = None        # tokenizer -> its terms before n-grams, in batches
    if regex is None:
        text = _fold_width(text)
        if tokenizer.analyzer == "cjk":
            if tokenizer._spaceless_run.search(text) is None:
                # the bigram analyser (the default) on a text of other letters: its terms are the
                # words of the whole text, as Tokenizer._cjk_terms finds them (a book with one
                # curly quote or accent is such a text)
                if tokenizer.unicode_words:
                    text = _strip_points(text)
                regex, keep = tokenizer._text_regex(text), tokenizer._cjk_kept
            else:
                units = partial(_cjk_units, text=text, runs_first=max_n == 1)
        else:
            # a morphological analyser's runs (and the bigrams of other spaceless runs, the words)
            units = partial(_analysed_units, text=_strip_points(text) if tokenizer.unicode_words else text)
    else:
        keep = tokenizer._kept_words
    if units is None:
        if regex.groups > 1:
            # findall's tuples of a pattern of several groups (never a tokenizer's own): as before
            del text
            yield tokenizer(doc)
            return
        units = partial(_word_units, text=text, regex=regex, keep=keep)
    del text
    del doc
    longest = tokenizer
    if max_n > 1 and tokenizer.jieba_search and tokenizer.analyzer == "jieba":
        # n-grams of jieba's longest words, not of those inside (Tokenizer.__call__)
        longest = longest_reading(tokenizer, _segmenter("jieba"))
    # the tokenizer's list holds the terms, then every 2-gram, then every 3-gram...: one pass
    # over the text for each, n - 1 terms carried across a batch's edge
    for n in ([1] if min_n == 1 else []) + list(range(max(min_n, 2), max_n + 1)):
        carry = []
        for words in units(tokenizer if n == 1 else longest):
            if n == 1:
                yield words
                continue
            run = carry + words
            if len(run) >= n:
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


def _word_units(tok, text, regex, keep):
    return _word_batches(text, regex, keep)


def _analysed_units(tok, text):
    return _batched(_cut_terms(tok, text, tok._runs))


def _batched(lists):
    """The terms of ``lists`` (lists of terms, in order) in lists of at least BATCH (the last: the rest)."""
    out = []
    for terms in lists:
        out += terms
        if len(out) >= BATCH:
            yield out
            out = []
    if out:
        yield out


def _cjk_units(tok, text, runs_first):
    """The terms of Tokenizer._cjk_terms of ``text`` (width folded, holding a spaceless run) in
    batches: ``runs_first`` (no word n-grams, where its order does not count) every run's bigrams,
    then the words of the text between the runs read as one text (each run a space); otherwise in
    the text's order, the words of each part between two runs read alone."""
    runs = tok._spaceless_run
    unigrams = tok.cjk_unigrams
    if runs_first:
        between = runs.sub(" ", text)       # " ".join of split's parts between the runs
        yield from _batched(t for m in runs.finditer(text) for t in _run_terms(text, m.start(), m.end(), unigrams))
        if tok.unicode_words:
            between = _strip_points(between)
        yield from _word_batches(between, tok._text_regex(between), tok._cjk_kept)
        return

    def parts():
        last = 0
        for m in runs.finditer(text):
            if m.start() > last:
                yield from _part_words(tok, text[last:m.start()])
            yield from _run_terms(text, m.start(), m.end(), unigrams)
            last = m.end()
        if last < len(text):
            yield from _part_words(tok, text[last:])
    yield from _batched(parts())


def _run_terms(text, start, end, unigrams):
    """``_bigrams(text[start:end], unigrams)`` (a run's characters where ``unigrams``, then its
    bigrams) in lists, a run longer than BATCH (a text of no punctuation) a piece at a time."""
    if end - start <= BATCH:
        yield _bigrams(text[start:end], unigrams)
        return
    if unigrams:
        for at in range(start, end, BATCH):
            yield list(text[at:min(at + BATCH, end)])
    for at in range(start, end - 1, BATCH):
        piece = text[at:min(at + BATCH + 1, end)]        # one character more: the bigram across
        yield [piece[i:i + 2] for i in range(len(piece) - 1)]


def _part_words(tok, part):
    if tok.unicode_words:
        part = _strip_points(part)
    return _word_batches(part, tok._text_regex(part), tok._cjk_kept)


def _cut_terms(tok, text, runs):
    """The terms of Tokenizer._cut (of a morphological analyser's tokenizer), without their
    places, in lists: each run segmented (the analyser's own runs) or cut into bigrams, the text
    between runs read by :func:`_between_terms`."""
    last = 0
    analysed = tok._segment is not None and runs is not tok._spaceless_run
    for m in runs.finditer(text):
        if m.start() > last:
            yield from _between_terms(tok, text[last:m.start()], runs)
        start, end = m.span()
        if analysed:
            for cut in range(start, end, _MAX_ANALYSED_RUN):
                yield [term.lower() if tok.lowercase else term
                       for _, _, term in tok._segment(text[cut:min(cut + _MAX_ANALYSED_RUN, end)])
                       if not term.isspace() and _has_word(term)]
        else:
            yield from _run_terms(text, start, end, tok.cjk_unigrams)
        last = end
    if last < len(text):
        yield from _between_terms(tok, text[last:], runs)


def _between_terms(tok, text, runs):
    """Tokenizer._between's terms: the other spaceless runs beside an analyser's, else the words
    (as Tokenizer._words finds them, stop words left out, then stemmed) BATCH found at a time."""
    if runs is not tok._spaceless_run:
        yield from _cut_terms(tok, text, tok._spaceless_run)
        return
    regex = tok._text_regex(text)
    group = 1 if regex.groups == 1 else 0
    matches = regex.finditer(text)
    while True:
        found = [m.group(group) for m in islice(matches, BATCH)]
        if not found:
            return
        yield tok._cjk_kept(found)


def term_counts(tokenizer, doc):
    """``Counter(tokenizer(doc))`` (terms in the order they first stand in ``doc``), counted a
    batch at a time (:func:`term_batches`)."""
    counts = Counter()
    for batch in term_batches(tokenizer, doc):
        counts.update(batch)
    return counts
