"""The rows of documents an index adds (``add``, ``update``, ``upsert``), and what they hold that
the index's collection vocabulary lacks.

The lexical part of an index's scoring (FILM's input cosine, LinkLearn's and LearnedBM25's term
weights) takes the collection's vocabulary, fixed at build and ``reindex``
(docs/indexes.md, Statistics): a word first met in an added document is no term of its row, and a
query holding it does not find the document by it until ``reindex``. A chromadb or Elasticsearch
user expects an added document findable by its words at once, so a write says so: a
:class:`NewWordsWarning` counting the documents that hold such words (and those that hold none of
the index's words: under a model that scores by shared words alone, no search finds them).
"""
from __future__ import annotations

import contextlib
import warnings

from ._integrity import model_encoder

__all__ = ["NewWordsWarning", "added_rows", "count_new_words", "embeddings_of", "warn_new_words"]

_EXAMPLES = 3


class NewWordsWarning(UserWarning):
    """Documents written to an index hold words its collection vocabulary (fixed at build and
    ``reindex``) lacks: a search finds them by those words only after ``reindex``.

    Attributes
    ----------
    n_documents : int
        The documents written holding at least one such word.
    n_unknown_only : int
        Those of them holding none of the index's words.
    n_written : int
        The documents written.
    examples : list of str
        A few of the words.
    """

    def __init__(self, message, n_documents=0, n_unknown_only=0, n_written=0, examples=()):
        super().__init__(message)
        self.n_documents, self.n_unknown_only, self.n_written = n_documents, n_unknown_only, n_written
        self.examples = list(examples)


def embeddings_of(path, pipeline):
    """Where a model over a sentence encoder keeps its documents' embeddings while the index
    computes rows: the folder beside the index (``<index>.embeddings``,
    :func:`learnsim.text.encoders.index_embedding_cache`), so that promoting or rolling back a
    query adapter over the same encoder re-embeds nothing. A model over term vectors: nothing (no
    encoder is imported)."""
    if model_encoder(pipeline) is None:
        return contextlib.nullcontext()
    from ..text.encoders import index_embedding_cache

    return index_embedding_cache(path)


def added_rows(index, texts, report=True):
    """The rows of ``texts`` under ``index``'s statistics, and what :func:`warn_new_words` says of
    them once written (None: nothing; ``report=False``: texts already in the index)."""
    pipeline, statistics = index.pipeline, index.statistics
    with embeddings_of(index.path, pipeline):
        rows = pipeline.document_rows(texts, statistics)
    return rows, (count_new_words(pipeline, statistics, texts) if report else None)


def count_new_words(pipeline, statistics, texts):
    """(documents holding a term the vocabulary lacks, those holding no term it has, a few such
    terms, the documents), or None where the scoring takes no collection vocabulary (a dense
    encoder alone, a distance model, an index built before collection vocabularies). The service
    counts its writes' new words with it (learnsim.service._writes), for their answers."""
    if not statistics or "vocabulary" not in statistics or not pipeline.uses_collection_vocabulary:
        return None
    vectorizer = pipeline.lexical_vectorizer(statistics)
    known = getattr(vectorizer, "vocabulary_", None)
    if known is None or not hasattr(vectorizer, "build_tokenizer"):
        return None     # a vectoriser that reads no words (not learnsim's): nothing to say, nothing refused
    tokenize = vectorizer.build_tokenizer()
    holding = unknown_only = 0
    examples = []
    for text in texts:
        terms = set(tokenize(text))
        new = terms.difference(known)
        if not new:
            continue
        holding += 1
        unknown_only += len(new) == len(terms)
        for term in sorted(new):
            if len(examples) < _EXAMPLES and term not in examples:
                examples.append(term)
    return holding, unknown_only, examples, len(texts)


def warn_new_words(report, stacklevel=5):
    """A :class:`NewWordsWarning` where written documents hold words the vocabulary lacks (called by
    an Index write under its two decorators: the warning names the line of its caller). True where
    it spoke of documents holding none of the vocabulary's words."""
    if not report or not report[0]:
        return False
    holding, unknown_only, examples, written = report
    # the words are the warning's examples, not its text: a process warned once per distinct text
    # keeps each text (warnings' registry), and a server's writes would grow it without end
    message = (f"{holding} of the {written} document(s) written hold words the index's vocabulary lacks "
               "(the warning's examples): a search finds them by those words only after reindex() "
               "(learnsim index reindex)")
    if unknown_only:
        message += (f"; {unknown_only} of them hold none of its words, which a model scoring by shared words "
                    "alone finds with no query until then")
    warnings.warn(NewWordsWarning(message, holding, unknown_only, written, examples), stacklevel=stacklevel)
    return bool(unknown_only)
