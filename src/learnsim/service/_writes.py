"""The service's document writes (``POST /v1/docs``, ``PUT /v1/docs/{id}``) and what they say of
the words their documents hold that the index's collection vocabulary lacks.

Such a document is not found by those words until a reindex (docs/indexes.md, Statistics), and
:meth:`Index.add <learnsim.index.Index.add>` and ``upsert`` say so with a
:class:`~learnsim.index.NewWordsWarning`. In a server that warning went to its log on every write
whose count differed from the last one's (the count is in its text, and a change of the warnings
filters anywhere in the process makes every text new again): a writer posting every 0.1 s
flooded the log, while the client that wrote learnt nothing. Now the answer of the write carries
the count (``"with_new_words"``, as ``learnsim index add --json`` gives it) and a sentence in
``"warnings"`` (as ``POST /v1/match`` answers carry theirs), and the log says it once in full, then
at most once every :data:`NOTE_EVERY_S` seconds a summary of the writes since.

The index's own warning is silenced for the calls made here alone (a filter on this module, the
line the warning names; ``warnings.catch_warnings`` would change the process's warning state
under the search thread, which runs beside the writes).

Documents with no term of the model's vocabulary at all (any text under a distance model whose
words it never saw, ``"x"`` under BM25) are left out of every search. The index's warning of them
named their ids, so every write's was a new log line (and a new entry of the warnings registry):
the writes take it instead (``placeless_taken``, per thread) and say it the same way, as
``"without_model_terms"`` and a sentence in ``"warnings"``, once in the log, then summarised.
"""
from __future__ import annotations

import logging
import time
import warnings

from ..index import NewWordsWarning
# the count the index's NewWordsWarning gives, read the same way (the warning itself cannot be
# caught per thread)
from ..index._new_words import count_new_words
# the index's warning of documents with no term of the model's vocabulary, taken in this thread
from ..index._placeless import placeless_taken

__all__ = ["NewWords", "NOTE_EVERY_S"]

log = logging.getLogger("learnsim.service")

# at most one summary line in the log this often, after the first note in full
NOTE_EVERY_S = 60.0


class _Noted:
    """One kind of note of the writes in the log: in full the first time, then at most once every
    ``every_s`` seconds a summary (``summary % (writes, documents)``) of the writes since."""

    def __init__(self, summary, every_s, clock):
        self.summary, self.every_s, self.clock = summary, every_s, clock
        self._noted_at = None       # when the log last said it (None: never)
        self._writes = self._documents = 0      # since then

    def note(self, documents, sentence):
        self._writes += 1
        self._documents += documents
        now = self.clock()
        if self._noted_at is None:
            log.warning("%s (said once; then at most one line every %g s)", sentence, self.every_s)
        elif now - self._noted_at >= self.every_s:
            self._summary()
        else:
            return
        self._noted_at, self._writes, self._documents = now, 0, 0

    def _summary(self):
        log.warning(self.summary, self._writes, self._documents)

    def flush(self):
        if self._writes:
            self._summary()
            self._writes = self._documents = 0


class NewWords:
    """Writes documents on the write handle, and tells of their new words (and of documents with
    no term of the model's vocabulary): in each answer (its :meth:`add` and :meth:`upsert` return
    the answer's fields) and, rate-limited, in the log. Used from the writes' one thread."""

    def __init__(self, every_s=NOTE_EVERY_S, clock=time.monotonic):
        self.every_s, self.clock = float(every_s), clock
        self._new = _Noted("%d write(s) since the last such line added %d document(s) holding words the index's "
                           "vocabulary lacks, not found by them until a reindex (POST /v1/reindex; each answer "
                           "counts its own as \"with_new_words\")", self.every_s, clock)
        self._placeless = _Noted("%d write(s) since the last such line wrote %d document(s) with no term of the "
                                 "model's vocabulary, which a search leaves out (each answer counts its own as "
                                 "\"without_model_terms\")", self.every_s, clock)
        # the index's warning for the calls of this module: said by the answer and the log instead
        warnings.filterwarnings("ignore", category=NewWordsWarning, module=r"learnsim\.service\._writes\Z")

    def add(self, idx, texts, ids, metadata):
        """``idx.add``: (its ids, the answer's fields of new words)."""
        report = self._count(idx, texts)
        with placeless_taken() as placeless:
            added = idx.add(texts, ids, metadata)
        return added, self._said(report, placeless)

    def upsert(self, idx, texts, ids, metadata):
        """``idx.upsert``: (its counts, the answer's fields of new words)."""
        report = self._count(idx, texts)
        with placeless_taken() as placeless:
            counts = idx.upsert(texts, ids, metadata)
        return counts, self._said(report, placeless)

    @staticmethod
    def _count(idx, texts):
        # before the write, on the same handle and thread: the statistics the write's rows take
        return count_new_words(idx.pipeline, idx.statistics, texts)

    def _said(self, report, placeless=()):
        """``{"with_new_words": n, "without_model_terms": m, "warnings": [...]}`` of a write done, and
        its log lines if due."""
        said = {"with_new_words": 0, "without_model_terms": 0, "warnings": []}
        holding, unknown_only, examples, written = report if report else (0, 0, [], 0)
        if holding:
            sentence = (f"{holding} of the {written} document(s) written hold words the index's vocabulary lacks "
                        f"(such as {', '.join(map(repr, examples))}): a search finds them by those words only "
                        "after a reindex (POST /v1/reindex)")
            if unknown_only:
                sentence += (f"; {unknown_only} of them hold none of its words, which a model scoring by shared "
                             "words alone finds with no query until then")
            self._new.note(holding, sentence)
            said["with_new_words"] = holding
            said["warnings"].append(sentence)
        for documents, sentence in placeless:
            self._placeless.note(documents, sentence)
            said["without_model_terms"] += documents
            said["warnings"].append(sentence)
        return said

    def flush(self):
        """The summaries of the writes the log has not told of yet (at the service's end)."""
        self._new.flush()
        self._placeless.flush()
