"""Quora question pairs labelled duplicate / not duplicate."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from learnsim.supervision import Pairs

from ._base import _corpus_file, _object_array
from ._decode import check_encoding_errors
from .pairs import (_delimited_records, _drop_identical_pairs, _index_pair_texts, _layout_from_names,
                    _parse_pair_ids, _UnknownLayout, read_pairs)

_QUORA_DIR = "quora-sample"
_QUORA_SPLITS = ("dev", "test")
_QUORA_SAMPLE_HEADER = ("label", "question1", "question2", "pair_id")
_QUORA_KAGGLE_REQUIRED = ("question1", "question2", "is_duplicate")
_QUORA_SOURCE = ("The full set is Quora's 'First Quora Dataset Release: Question Pairs' "
                 "(quora_duplicate_questions.tsv) or the train.csv of Kaggle's Quora Question Pairs; "
                 "pass its path as split.")


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
    records = _delimited_records(path, delimiter, True, encoding_errors, counts)
    try:
        first_number, first_fields = next(records)
    except StopIteration:
        raise ValueError(f"{path} contains no question pairs (the file is empty)") from None
    layout, col_label, col_q1, col_q2, col_id, has_header = _quora_layout(first_fields)
    if layout != "kaggle" and (delimiter == "," or (not has_header and _layout_from_names(first_fields))):
        # not a Quora layout, but maybe one the general reader knows (a header such as
        # sentence1/sentence2/label): read it through read_pairs
        records.close()
        return None
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


def _quora_layout_error(path):
    return ValueError(
        f"{path}: not a recognised Quora layout: expected tab-separated 'label<TAB>question1<TAB>question2"
        "<TAB>pair_id' lines, or a header naming the columns "
        f"{', '.join(_QUORA_KAGGLE_REQUIRED)} (Kaggle/Quora release), or a layout read_pairs recognises; "
        "else pass columns=, e.g. columns='label=0,text_a=3,text_b=4'")


def _read_with_read_pairs(path, columns, encoding_errors):
    """The Quora loader's columns from :func:`read_pairs` (any layout it reads, or ``columns``)."""
    try:
        data = read_pairs(path, columns=columns, encoding_errors=encoding_errors)
    except _UnknownLayout:
        raise _quora_layout_error(path) from None
    if data.kind != "binary":
        what = "a graded score" if data.kind == "graded" else "no label"
        raise ValueError(f"{path}: the pairs have {what}, not a duplicate label; read them with read_pairs"
                         f"{' (or load_sts_benchmark)' if data.kind == 'graded' else ''}, or give a label column "
                         "in columns=")
    ids = data.pair_ids.tolist() if "pair_id" in data.columns else [None] * len(data.labels)
    columns = {"label": [bool(v) for v in data.labels], "question1": list(data.text_a),
               "question2": list(data.text_b), "pair_id": ids}
    return data.layout, columns, data.n_undecodable_lines


def load_quora_pairs(split="dev", data_dir=None, *, columns=None, encoding_errors="replace"):
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
        quote the questions that contain a double quote that way. Any other file of binary
        pairs that :func:`~learnsim.datasets.read_pairs` reads (e.g. with a header
        ``sentence1, sentence2, label``) is read through it.
    columns : str or dict, optional
        The columns of a file in another layout, as in :func:`~learnsim.datasets.read_pairs`
        (e.g. ``"label=0,text_a=3,text_b=4"``); the file is then read by it.
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
        are dropped, as a pair of an item with itself says nothing; :func:`read_pairs` keeps
        them), ``layout`` (``"sample"`` or ``"kaggle"``; for a file read through
        :func:`read_pairs`, its layout), ``filename``, ``split``.

    Raises
    ------
    ValueError
        On a malformed line (wrong number of fields, a label other than 0/1, broken quoting);
        the message names the file and line number.
    FileNotFoundError
        When the file does not exist.

    Examples
    --------
    Needs ``quora-sample`` in ../shared/data (or ``$LEARNSIM_DATA``):

    >>> from learnsim.datasets import load_quora_pairs
    >>> dev = load_quora_pairs("dev")                     # doctest: +SKIP
    >>> dev.pairs                                         # doctest: +SKIP
    Pairs(n_pairs=10000, n_similar=5000)
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

    read = _read_quora_file(path, encoding_errors) if columns is None else None
    if read is None:
        read = _read_with_read_pairs(path, columns, encoding_errors)
    layout, columns, n_undecodable = read
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
