"""Pairs of texts for ``learnsim match`` and ``learnsim evaluate --pairs``.

Layouts (one pair per line, TAB-separated, an optional header line):

- ``text_a<TAB>text_b``: pairs to decide (no label);
- ``label<TAB>text_a<TAB>text_b`` (label 1 = duplicate, 0 = not);
- ``label<TAB>text_a<TAB>text_b<TAB>pair_id``: the Quora sample layout;
- with ``--columns label=0,text_a=3,text_b=4`` (0-based fields; ``id=N`` too), any other.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ._common import UsageError

__all__ = ["TextPairs", "read_text_pairs", "parse_columns"]

_FIELDS = ("label", "text_a", "text_b", "id")
_HEADER_WORDS = {"label", "is_duplicate", "text_a", "text_b", "question1", "question2", "sentence1",
                 "sentence2", "id", "pair_id", "text1", "text2"}


class TextPairs:
    """``texts_a``, ``texts_b``, ``labels`` (bool array or None), ``ids`` (list), ``lines``."""

    def __init__(self, texts_a, texts_b, labels, ids, lines):
        self.texts_a, self.texts_b, self.ids, self.lines = texts_a, texts_b, ids, lines
        self.labels = None if labels is None else np.asarray(labels, dtype=bool)

    def __len__(self):
        return len(self.texts_a)

    def collection(self):
        """(distinct texts, (n_pairs, 2) index array into them)."""
        position, texts = {}, []
        idx = np.empty((len(self), 2), dtype=np.int64)
        for i, pair in enumerate(zip(self.texts_a, self.texts_b)):
            for side, text in enumerate(pair):
                if text not in position:
                    position[text] = len(texts)
                    texts.append(text)
                idx[i, side] = position[text]
        return texts, idx


def parse_columns(text):
    """``label=0,text_a=3,text_b=4`` -> {"label": 0, "text_a": 3, "text_b": 4} (0-based fields)."""
    columns = {}
    for part in str(text).split(","):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or name not in _FIELDS or not value.strip().isdigit():
            raise UsageError(f"--columns {text!r}: expected NAME=FIELD[,NAME=FIELD...] with NAME one of "
                             f"{', '.join(_FIELDS)} and FIELD a 0-based column number, e.g. "
                             "label=0,text_a=3,text_b=4")
        if name in columns:
            raise UsageError(f"--columns {text!r}: {name} is given twice")
        columns[name] = int(value)
    if not {"text_a", "text_b"} <= set(columns):
        raise UsageError(f"--columns {text!r}: text_a and text_b are required")
    if len(set(columns.values())) != len(columns):
        raise UsageError(f"--columns {text!r}: two names share a column")
    return columns


def _default_columns(n_fields):
    if n_fields == 2:
        return {"text_a": 0, "text_b": 1}
    if n_fields == 3:
        return {"label": 0, "text_a": 1, "text_b": 2}
    if n_fields == 4:
        return {"label": 0, "text_a": 1, "text_b": 2, "id": 3}
    return None


def read_text_pairs(path, *, columns=None, encoding_errors="replace", need_labels=False):
    """Read a pairs file (module notes). Lines that are empty are skipped; a bad line is an error
    that names it."""
    from ..io import DocumentFormatError, decoded_lines

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder, not a pairs file")
    texts_a, texts_b, labels, ids, lines = [], [], [], [], []
    layout = columns
    for number, line in decoded_lines(path, encoding_errors=encoding_errors):
        if not line.strip():
            continue
        fields = line.split("\t")
        if layout is None:
            layout = _default_columns(len(fields))
            if layout is None:
                raise DocumentFormatError(
                    f"{path}, line {number}: {len(fields)} TAB-separated fields; expected text_a<TAB>text_b, "
                    "label<TAB>text_a<TAB>text_b or label<TAB>text_a<TAB>text_b<TAB>pair_id (or say which "
                    "columns hold what with --columns label=0,text_a=3,text_b=4)")
        if not lines and {f.strip().lower() for f in fields} & _HEADER_WORDS \
                and all(not f.strip().isdigit() for f in fields):
            lines.append(None)     # a header line: remember that it was there, skip it
            continue
        width = max(layout.values()) + 1
        if len(fields) < width:
            raise DocumentFormatError(f"{path}, line {number}: {len(fields)} field(s), expected at least "
                                      f"{width} ({', '.join(f'{k}={v}' for k, v in layout.items())})")
        a, b = fields[layout["text_a"]].strip(), fields[layout["text_b"]].strip()
        if not a or not b:
            raise DocumentFormatError(f"{path}, line {number}: empty text")
        if "label" in layout:
            value = fields[layout["label"]].strip()
            if value not in ("0", "1"):
                raise DocumentFormatError(f"{path}, line {number}: the label must be 0 or 1, got {value[:20]!r}")
            labels.append(value == "1")
        texts_a.append(a)
        texts_b.append(b)
        ids.append(fields[layout["id"]].strip() if "id" in layout else None)
        lines.append(number)
    lines = [n for n in lines if n is not None]
    if not texts_a:
        raise DocumentFormatError(f"{path}: contains no pairs")
    if need_labels and "label" not in layout:
        raise UsageError(f"{path}: the pairs have no label column; evaluation needs label<TAB>text_a<TAB>text_b "
                         "lines (or --columns with label=N)")
    return TextPairs(texts_a, texts_b, labels if "label" in layout else None, ids, lines)
