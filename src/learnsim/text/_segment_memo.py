"""What a morphological analyser (SudachiPy, fugashi, jieba) said of a run, kept for the next time
the same run is read.

A fit reads every text many times: once per weighting it tries and once per fold of its checks,
each with a vectoriser of its own. With a morphological analyser the reading is most of the fit:
``learnsim fit --input articles.jsonl --language ja`` on 400 livedoor articles (cProfile) spent 92
of its 135 s in 6,254 analyses of the same 400 texts. An analyser's answer for a run depends on
the run alone (its dictionary is loaded once a process), so the answer is kept, in a compact form
(the terms joined by NUL, their offsets in one array), up to ``MAX_CHARS`` characters of runs a
fit; past that, runs are analysed every time, as before. Nothing is evicted during a fit: it reads
its texts in the same order each time, and an evicting cache would lose every run before its reuse.

The runs are kept only while a fit runs (:func:`kept_during`, around each of
:mod:`learnsim.fitting`'s fit_* functions) and dropped when the outermost fit ends: kept for the
process, they were up to some 100 MB per analyser for as long as it lived (``learnsim serve``,
an index's additions), where each text is read once and nothing was gained. Outside a fit a run
is analysed as before the memo existed.
"""
from __future__ import annotations

import contextlib
import functools
import threading
import weakref
from array import array

__all__ = ["Memo", "MAX_CHARS", "kept_during"]

#: Characters of runs whose analysis is kept during a fit, per analyser: about 20-30 bytes each
#: (the run as the key, its terms, their offsets and the dictionary's entry): 4,000,000
#: characters, some 2,700 news articles of 1,500 characters, is about 100 MB at most.
MAX_CHARS = 4_000_000


# the fits running (threads of one process may fit at once) and the memos to empty after the last
_FITS = [0]
_LOCK = threading.Lock()
_MEMOS = weakref.WeakSet()


def _fitting():
    return _FITS[0] > 0


@contextlib.contextmanager
def _kept():
    with _LOCK:
        _FITS[0] += 1
    try:
        yield
    finally:
        with _LOCK:
            _FITS[0] -= 1
            if _FITS[0] == 0:
                for memo in list(_MEMOS):
                    memo.clear()


def kept_during(fit):
    """``fit`` with the analysers' answers kept while it runs, and dropped when it (the outermost
    fit) returns or raises."""
    @functools.wraps(fit)
    def keeping(*args, **kwargs):
        with _kept():
            return fit(*args, **kwargs)
    return keeping


class Memo:
    """``Memo(segment)(run)`` is ``segment(run)`` (a list of (begin, end, term)), each run's
    answer computed once during a fit (:func:`kept_during`) while the kept runs hold fewer than
    ``max_chars`` characters."""

    def __init__(self, segment, max_chars=MAX_CHARS):
        self._segment, self.max_chars = segment, max_chars
        self._kept = {}
        self.chars = 0
        _MEMOS.add(self)

    def clear(self):
        """Drop every kept run."""
        self._kept, self.chars = {}, 0

    def __call__(self, run):
        if not _fitting():
            return self._segment(run)
        kept = self._kept.get(run)
        if kept is not None:
            offsets, terms = kept
            terms = terms.split("\x00") if offsets else []
            return [(offsets[2 * i], offsets[2 * i + 1], term) for i, term in enumerate(terms)]
        out = self._segment(run)
        if self.chars + len(run) <= self.max_chars:
            terms = [term for _, _, term in out]
            # a term holding NUL could not be told apart when joined: such a run is not kept
            if not any("\x00" in term for term in terms):
                try:
                    offsets = array("l", [x for a, b, _ in out for x in (a, b)])
                except (TypeError, OverflowError):
                    return out
                self._kept[run] = (offsets, "\x00".join(terms))
                self.chars += len(run)
        return out
