"""Pairs of texts for ``learnsim match`` and ``learnsim evaluate --pairs``.

Layouts (one pair per line, TAB-separated, an optional header line; plain TSV has no quoting
unless ``--quoting csv``):

- ``text_a<TAB>text_b``: pairs to decide (no label);
- ``label<TAB>text_a<TAB>text_b`` (label 1 = duplicate, 0 = not; a label column of other
  numbers is a graded score, as is a ``score`` column);
- the STS Benchmark layout (``genre file year id score sentence1 sentence2``): graded;
- ``label<TAB>text_a<TAB>text_b<TAB>pair_id``: the Quora sample layout;
- a header naming the columns (text_a/text_b/label, question1/question2/is_duplicate, ...);
- with ``--columns label=0,text_a=3,text_b=4`` (0-based fields or header names), any other.

They are read by :func:`learnsim.datasets.read_pairs` (also .csv and .jsonl).
"""
from __future__ import annotations

from ._common import UsageError, _note, refuse_stdin

__all__ = ["TextPairs", "read_text_pairs", "parse_columns"]



class TextPairs:
    """``texts_a``, ``texts_b``, ``labels`` (bool array or None), ``ids`` (list), ``lines``,
    ``scores`` (float array of graded pairs, else None)."""

    def __init__(self, texts_a, texts_b, labels, ids, lines, scores=None):
        import numpy as np
        self.texts_a, self.texts_b, self.ids, self.lines = texts_a, texts_b, ids, lines
        self.labels = None if labels is None else np.asarray(labels, dtype=bool)
        self.scores = None if scores is None else np.asarray(scores, dtype=np.float64)

    @property
    def graded(self):
        return self.scores is not None

    def __len__(self):
        return len(self.texts_a)

    def collection(self):
        """(distinct texts, (n_pairs, 2) index array into them), as read_pairs gives them."""
        import numpy as np
        return [str(t) for t in self.data.texts], np.asarray(self.data.indices, dtype=np.int64)


def parse_columns(text):
    """``label=0,text_a=3,text_b=4`` -> {"label": 0, "text_a": 3, "text_b": 4} (learnsim.datasets.parse_columns;
    a column may also be a header name)."""
    from ..datasets import parse_columns as parse

    try:
        return parse(text)
    except (ValueError, TypeError) as exc:
        message = str(exc)
        raise UsageError("--" + message if message.startswith("columns") else f"--columns: {message}") from None


def read_pairs_either(path, **kwargs):
    """learnsim.datasets.read_pairs, where a label column of only 0/1 is labelled and one of other
    numbers is graded (a ``score`` column, named by a header or in --columns, is graded): the
    rule of ``learnsim.fit`` (:func:`learnsim._inputs.read_pairs_either`)."""
    from .. import _inputs
    from ..exceptions import DocumentFormatError

    try:
        return _inputs.read_pairs_either(path, **kwargs)
    except DocumentFormatError as exc:
        # the reader's advice "or pass format='tsv'" is its Python argument, no option of a command
        text = str(exc)
        if "unknown file type" not in text or ", or pass format=" not in text:
            raise
        raise UsageError(text.split(", or pass format=")[0] + " (the extension tells the layout: rename the file, "
                         "or copy it to one so named)") from None


def read_text_pairs(path, *, columns=None, encoding_errors="replace", need_labels=False, quoting="auto",
                    graded=False):
    """Read a pairs file with learnsim.datasets.read_pairs (module notes for the layouts);
    ``graded``: graded pairs are accepted (else refused: duplicate detection needs labels)."""
    import numpy as np
    refuse_stdin(path)
    data = read_pairs_either(path, columns=columns, encoding_errors=encoding_errors, quoting=quoting)
    if data.kind == "graded" and not graded:
        raise UsageError(f"{path}: the pairs carry graded scores; this model decides duplicates and needs a 0/1 "
                         "label (or no label to decide the pairs); a model fitted on graded pairs predicts scores")
    if need_labels and data.kind == "unlabelled":
        raise UsageError(f"{path}: the pairs have no label or score column; this needs label<TAB>text_a<TAB>text_b "
                         "lines (or --columns with label=N or score=N)")
    labels = None if data.labels is None else np.asarray(data.labels) == 1
    ids = [None if data.pair_ids is None else str(p) for p in data.pair_ids] if data.layout != "tuples" else None
    pairs = TextPairs([str(t) for t in data.text_a], [str(t) for t in data.text_b], labels,
                      ids or [None] * len(data.text_a), [int(n) for n in data.line_numbers], data.scores)
    pairs.data = data
    return pairs


def _identical_pairs_note(data, path):
    """The note on pairs of two identical texts: it said their number alone, neither where they
    are nor what becomes of them (JSTS's training file holds such pairs)."""
    where = [i for i, (a, b) in enumerate(zip(data.text_a, data.text_b)) if a == b]
    word, offset = ("row", 1) if str(path).lower().endswith(".parquet") else ("line", 0)
    shown = ", ".join(str(int(data.line_numbers[i]) + offset) for i in where[:3])
    more = ", ..." if len(where) > 3 else ""
    return (f"{data.n_identical_pairs} pair(s) of two identical texts ({word}{'s' if len(where) > 1 else ''} "
            f"{shown}{more}): kept, as a text is a duplicate of itself")


def _read_pairs(path, encoding_errors="replace", columns=None, quoting="auto"):
    """Labelled duplicate pairs or graded pairs (learnsim.datasets.read_pairs): .texts and .pairs
    (Pairs; ``pairs.is_graded`` for graded ones)."""
    spec = parse_columns(columns) if columns is not None else None
    data = read_text_pairs(path, columns=spec, encoding_errors=encoding_errors, need_labels=True,
                           quoting=quoting, graded=True).data
    if data.n_identical_pairs:
        _note(_identical_pairs_note(data, path))
    if getattr(data, "n_conflicting_pairs", 0):
        # named at reading, with its lines (datasets.read_pairs): the fit's own warning of the same
        # pairs, after every text is vectorised, would say it again without them (main's
        # catch_warnings ends this filter with the command)
        import warnings

        warnings.filterwarnings("ignore", message=r"\d+ pair\(s\) of the same two texts are labelled both duplicate "
                                                  "and not duplicate")
    return data
