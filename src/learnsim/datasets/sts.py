"""The STS Benchmark: sentence pairs with a similarity score in [0, 5]."""
from __future__ import annotations

import math

import numpy as np
from sklearn.utils import Bunch

from learnsim.supervision import Pairs

from ._base import _corpus_file, _object_array
from ._decode import check_encoding_errors, decoded_lines
from .pairs import _drop_identical_pairs, _index_pair_texts

_STS_DIR = "stsbenchmark"
_STS_SPLITS = ("train", "dev", "test")
_STS_FIELDS = ("genre", "file", "year", "id", "score", "sentence1", "sentence2")
_STS_SCORE_RANGE = (0.0, 5.0)
_STS_SOURCE = "Get Stsbenchmark.tar.gz from http://ixa2.si.ehu.eus/stswiki (Cer et al. 2017)."


def _read_sts_file(path, encoding_errors="replace"):
    columns = {name: [] for name in _STS_FIELDS}
    n_extra = 0
    lo, hi = _STS_SCORE_RANGE
    # Split on tabs only: the sentences contain literal, unbalanced double quotes that a CSV
    # reader would take as quoting and use to swallow tabs and whole lines.
    for number, line in decoded_lines(path, encoding_errors=encoding_errors):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < len(_STS_FIELDS):
            raise ValueError(f"{path}, line {number}: {len(fields)} tab-separated field(s), expected at "
                             f"least {len(_STS_FIELDS)}: {', '.join(_STS_FIELDS)}")
        if len(fields) > len(_STS_FIELDS):
            n_extra += 1  # licence / source notes after sentence2
        try:
            score = float(fields[4])
        except ValueError:
            raise ValueError(f"{path}, line {number}: score {fields[4][:40]!r} is not a number") from None
        if not (math.isfinite(score) and lo <= score <= hi):
            raise ValueError(f"{path}, line {number}: score {fields[4]!r} is outside [{lo:g}, {hi:g}]")
        for name, value in zip(_STS_FIELDS, fields):
            columns[name].append(score if name == "score" else value)
    if not columns["score"]:
        raise ValueError(f"{path} contains no sentence pairs")
    return columns, n_extra


def load_sts_benchmark(split="train", data_dir=None, *, encoding_errors="replace"):
    """Load one split of the STS Benchmark: sentence pairs with a similarity score in [0, 5].

    Parameters
    ----------
    split : {"train", "dev", "test"}, default="train"
    data_dir : path-like, optional
        Data directory (see :func:`find_data_dir`); the file is
        ``<data_dir>/stsbenchmark/sts-{split}.csv`` (or ``<data_dir>/sts-{split}.csv``).
    encoding_errors : {"replace", "strict"}, default="replace"
        Bytes that are not UTF-8 become U+FFFD, with one
        :class:`~learnsim.datasets.UndecodableBytesWarning` counting the lines affected;
        ``"strict"`` raises :class:`~learnsim.datasets.DocumentFormatError` instead.

    Returns
    -------
    Bunch
        ``texts`` (list of the distinct sentences, in order of first appearance), ``pairs``
        (graded :class:`learnsim.supervision.Pairs` indexing ``texts``, scores = the gold
        scores), ``scores`` (float ndarray), ``sentence1``, ``sentence2``, ``genres``,
        ``files``, ``years``, ``ids`` (object arrays of the file's columns, one entry per
        pair), ``n_extra_field_lines`` (lines with licence fields after sentence2; they are
        ignored), ``n_identical_pairs`` (pairs whose two sentences are the same string, dropped
        because a pair of an item with itself cannot be represented: 1 in the train split),
        ``filename``, ``split``.

    Notes
    -----
    The file is split on tabs, never parsed as CSV: its sentences contain unbalanced double
    quotes. Sentences are kept exactly as written (a few end with a space). Genre names are
    as in the files, which spell the forum genre ``main-forum`` in train and ``main-forums``
    in dev and test.

    Raises
    ------
    ValueError
        On a line with fewer than 7 fields, a score that is not a number in [0, 5], or text
        that is not UTF-8 (with ``encoding_errors="strict"``); the message names the file and line.
    """
    if not isinstance(split, str) or split not in _STS_SPLITS:
        raise ValueError(f"split must be one of {_STS_SPLITS}; got {split!r}")
    check_encoding_errors(encoding_errors)
    path = _corpus_file(data_dir, [f"{_STS_DIR}/sts-{split}.csv"], f"STS Benchmark split {split!r}",
                        _STS_SOURCE)
    columns, n_extra = _read_sts_file(path, encoding_errors)
    columns, n_identical = _drop_identical_pairs(columns, "sentence1", "sentence2")
    if not columns["score"]:
        raise ValueError(f"{path}: every pair has two identical sentences; no usable pair")
    texts, indices = _index_pair_texts(columns["sentence1"], columns["sentence2"])
    scores = np.array(columns["score"], dtype=np.float64)
    return Bunch(
        texts=texts,
        pairs=Pairs(indices, scores=scores),
        scores=scores,
        sentence1=_object_array(columns["sentence1"]),
        sentence2=_object_array(columns["sentence2"]),
        genres=_object_array(columns["genre"]),
        files=_object_array(columns["file"]),
        years=_object_array(columns["year"]),
        ids=_object_array(columns["id"]),
        n_extra_field_lines=n_extra,
        n_identical_pairs=n_identical,
        filename=str(path),
        split=split,
    )
