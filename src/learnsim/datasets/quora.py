"""Quora question pairs labelled duplicate / not duplicate."""
from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from learnsim.supervision import Pairs

from ._base import _corpus_file, _object_array
from ._decode import check_encoding_errors, decoded_lines
from .pairs import _drop_identical_pairs, _index_pair_texts

_QUORA_DIR = "quora-sample"
_QUORA_SPLITS = ("dev", "test")
_QUORA_SAMPLE_HEADER = ("label", "question1", "question2", "pair_id")
_QUORA_KAGGLE_REQUIRED = ("question1", "question2", "is_duplicate")
_QUORA_SOURCE = ("The full set is Quora's 'First Quora Dataset Release: Question Pairs' "
                 "(quora_duplicate_questions.tsv) or the train.csv of Kaggle's Quora Question Pairs; "
                 "pass its path as split.")


def _quora_records(path, delimiter, encoding_errors, counts):
    """Yield ``(line_number, fields)`` per record; quoted fields follow CSV rules (the sample
    quotes questions that contain ``"`` and doubles the inner quotes)."""
    lines = (line for _number, line in decoded_lines(path, encoding_errors=encoding_errors, keepends=True,
                                                     counts=counts))
    reader = csv.reader(lines, delimiter=delimiter, quotechar='"',
                        doublequote=True, strict=True)
    last_line = 0
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ValueError(f"{path}, line {last_line + 1}: malformed quoting ({exc})") from None
        start, last_line = last_line + 1, reader.line_num
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            continue  # blank line
        yield start, fields


def _quora_layout(first_fields):
    """Column positions ``(label, question1, question2, pair_id or None)`` and whether the
    first record is a header, from that first record."""
    names = [f.strip().lower() for f in first_fields]
    if all(col in names for col in _QUORA_KAGGLE_REQUIRED):
        pair_id = names.index("id") if "id" in names else None
        return ("kaggle", names.index("is_duplicate"), names.index("question1"),
                names.index("question2"), pair_id, True)
    if tuple(names) == _QUORA_SAMPLE_HEADER:
        return "sample", 0, 1, 2, 3, True
    return "sample", 0, 1, 2, 3, False


def _read_quora_file(path, encoding_errors="replace"):
    counts = {"undecodable_lines": 0}
    with open(path, "rb") as handle:
        first_line = handle.readline()
    # The original Kaggle train.csv is comma-separated; every other layout uses tabs.
    delimiter = "\t" if b"\t" in first_line else ","
    records = _quora_records(path, delimiter, encoding_errors, counts)
    try:
        first_number, first_fields = next(records)
    except StopIteration:
        raise ValueError(f"{path} contains no question pairs (the file is empty)") from None
    layout, col_label, col_q1, col_q2, col_id, has_header = _quora_layout(first_fields)
    if delimiter == "," and layout != "kaggle":
        raise ValueError(
            f"{path}, line {first_number}: not a recognised Quora layout: expected tab-separated "
            "'label<TAB>question1<TAB>question2<TAB>pair_id' lines, or a header naming the columns "
            f"{', '.join(_QUORA_KAGGLE_REQUIRED)} (Kaggle/Quora release); got {first_line[:80]!r}")
    n_fields = len(first_fields) if has_header else len(_QUORA_SAMPLE_HEADER)
    expected = ("the header's " + str(n_fields) + " columns" if layout == "kaggle" else
                "4 tab-separated fields: label, question1, question2, pair_id")

    columns = {"label": [], "question1": [], "question2": [], "pair_id": []}

    def add(number, fields):
        if len(fields) != n_fields:
            raise ValueError(f"{path}, line {number}: {len(fields)} field(s), expected {expected}")
        label = fields[col_label].strip()
        if label not in ("0", "1"):
            raise ValueError(f"{path}, line {number}: duplicate label must be 0 or 1; got {label[:40]!r}")
        columns["label"].append(label == "1")
        columns["question1"].append(fields[col_q1])
        columns["question2"].append(fields[col_q2])
        columns["pair_id"].append(fields[col_id].strip() if col_id is not None else None)

    if not has_header:
        add(first_number, first_fields)
    for number, fields in records:
        add(number, fields)
    if not columns["label"]:
        raise ValueError(f"{path} has a header but no question pairs")
    return layout, columns, counts["undecodable_lines"]


def _parse_pair_ids(raw_ids):
    if all(v is None for v in raw_ids):
        return np.arange(len(raw_ids), dtype=np.int64)
    try:
        return np.array([int(v) for v in raw_ids], dtype=np.int64)
    except (TypeError, ValueError):
        return _object_array(raw_ids)


def load_quora_pairs(split="dev", data_dir=None, *, encoding_errors="replace"):
    """Load Quora question pairs labelled duplicate / not duplicate.

    Parameters
    ----------
    split : {"dev", "test"} or path-like, default="dev"
        ``"dev"`` and ``"test"`` read ``<data_dir>/quora-sample/{split}.tsv``, the project's
        10,000-pair samples. Any other value is the path of a Quora file in one of two layouts,
        told apart by the first line:

        * the sample layout, ``label<TAB>question1<TAB>question2<TAB>pair_id``, with or without
          that header line;
        * the original release layout, with a header naming at least ``question1``,
          ``question2`` and ``is_duplicate`` (normally ``id, qid1, qid2, question1, question2,
          is_duplicate``), tab-separated (``quora_duplicate_questions.tsv``) or comma-separated
          (Kaggle's ``train.csv``).

        Fields may be quoted CSV-style, with inner double quotes doubled; the sample files
        quote the questions that contain a double quote that way.
    data_dir : path-like, optional
        Data directory (see :func:`find_data_dir`); only used for ``"dev"`` and ``"test"``.
    encoding_errors : {"replace", "strict"}, default="replace"
        Bytes that are not UTF-8 become U+FFFD (the Quora texts contain characters cut in the
        middle), with one :class:`~learnsim.datasets.UndecodableBytesWarning` counting the
        lines affected; ``"strict"`` raises :class:`~learnsim.datasets.DocumentFormatError`.

    Returns
    -------
    Bunch
        ``texts`` (list of the distinct question strings, in order of first appearance; exact
        duplicates share one entry), ``pairs`` (:class:`learnsim.supervision.Pairs` indexing
        ``texts``, labels = duplicate flags), ``pair_ids`` (int64 when every id is an integer,
        else an object array of strings; ``0..n-1`` when the file has no id column),
        ``question1``, ``question2`` (object arrays of the texts of each pair), ``labels``
        (int64, 1 = duplicate), ``n_empty_questions`` (question fields that are empty or only
        whitespace; they are kept, as the Quora data has some), ``n_undecodable_lines`` (lines
        with bytes that are not UTF-8, replaced by U+FFFD: the Quora texts contain cut
        characters), ``n_identical_pairs`` (pairs whose two questions are the same string; they
        are dropped, as a pair of an item with itself says nothing), ``layout`` (``"sample"`` or
        ``"kaggle"``), ``filename``, ``split``.

    Raises
    ------
    ValueError
        On a malformed line (wrong number of fields, a label other than 0/1, broken quoting);
        the message names the file and line number.
    FileNotFoundError
        When the file does not exist.
    """
    check_encoding_errors(encoding_errors)
    if isinstance(split, str) and split in _QUORA_SPLITS:
        path = _corpus_file(data_dir, [f"{_QUORA_DIR}/{split}.tsv"], f"Quora sample split {split!r}",
                            _QUORA_SOURCE)
    elif isinstance(split, (str, os.PathLike)):
        if isinstance(split, str) and not split.strip():
            raise ValueError(f"split must be 'dev', 'test' or the path of a Quora file; got {split!r}")
        path = Path(split).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"split must be 'dev', 'test' or the path of a Quora file; "
                                    f"{str(path)!r} is not an existing file")
    else:
        raise TypeError(f"split must be 'dev', 'test' or a path; got {type(split).__name__}")

    layout, columns, n_undecodable = _read_quora_file(path, encoding_errors)
    columns, n_identical = _drop_identical_pairs(columns, "question1", "question2")
    if not columns["label"]:
        raise ValueError(f"{path}: every pair has two identical questions; no usable pair")
    texts, indices = _index_pair_texts(columns["question1"], columns["question2"])
    labels = np.array(columns["label"], dtype=bool)
    n_empty = sum(1 for q in columns["question1"] + columns["question2"] if not q.strip())
    return Bunch(
        texts=texts,
        pairs=Pairs(indices, labels=labels),
        pair_ids=_parse_pair_ids(columns["pair_id"]),
        question1=_object_array(columns["question1"]),
        question2=_object_array(columns["question2"]),
        labels=labels.astype(np.int64),
        n_empty_questions=n_empty,
        n_undecodable_lines=n_undecodable,
        n_identical_pairs=n_identical,
        layout=layout,
        filename=str(path),
        split=split if isinstance(split, str) and split in _QUORA_SPLITS else str(path),
    )
