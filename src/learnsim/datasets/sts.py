"""The STS Benchmark: sentence pairs with a similarity score in [0, 5]."""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from learnsim.supervision import Pairs

from ._base import _corpus_file, _object_array
from ._decode import check_encoding_errors, decoded_lines
from .pairs import _drop_identical_pairs, _index_pair_texts, _is_number, read_pairs

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


def _is_sts_layout(path, encoding_errors):
    """Whether the first non-blank line has the STS Benchmark's 7+ tab-separated fields with a
    number in the score column."""
    lines = decoded_lines(path, encoding_errors=encoding_errors)
    try:
        first = next((line for _number, line in lines if line.strip()), "")
    finally:
        lines.close()
    fields = first.split("\t")
    return len(fields) >= len(_STS_FIELDS) and _is_number(fields[4])


def _read_with_read_pairs(path, columns, encoding_errors):
    """The STS loader's columns from :func:`read_pairs` (a file in another layout)."""
    data = read_pairs(path, columns=columns, encoding_errors=encoding_errors)
    if data.kind != "graded":
        what = "a binary label" if data.kind == "binary" else "no label"
        raise ValueError(f"{path}: the pairs have {what}, not a similarity score; read them with read_pairs"
                         f"{' (or load_quora_pairs)' if data.kind == 'binary' else ''}, or give a score column "
                         "in columns=")
    n = len(data.scores)
    ids = [None if v is None else str(v) for v in data.pair_ids] if "pair_id" in data.columns else [None] * n
    columns = {"genre": [None] * n, "file": [None] * n, "year": [None] * n, "id": ids,
               "score": data.scores.tolist(), "sentence1": list(data.text_a), "sentence2": list(data.text_b)}
    return columns, data.n_extra_field_lines


def graded_pairs_bunch(path, columns):
    """(columns, the fields every graded-pair loader gives): ``columns`` of sentence1, sentence2
    and score without the pairs of one sentence with itself, and ``texts``, ``pairs``, ``scores``,
    ``sentence1``, ``sentence2``, ``n_identical_pairs`` (the STS Benchmark's and JSTS's loaders)."""
    columns, n_identical = _drop_identical_pairs(columns, "sentence1", "sentence2")
    if not columns["score"]:
        raise ValueError(f"{path}: every pair has two identical sentences; no usable pair")
    texts, indices = _index_pair_texts(columns["sentence1"], columns["sentence2"])
    scores = np.array(columns["score"], dtype=np.float64)
    return columns, {"texts": texts, "pairs": Pairs(indices, scores=scores), "scores": scores,
                     "sentence1": _object_array(columns["sentence1"]),
                     "sentence2": _object_array(columns["sentence2"]), "n_identical_pairs": n_identical}


def load_sts_benchmark(split="train", data_dir=None, *, columns=None, encoding_errors="replace"):
    """Load one split of the STS Benchmark: sentence pairs with a similarity score in [0, 5].

    Parameters
    ----------
    split : {"train", "dev", "test"} or path-like, default="train"
        A split name reads ``<data_dir>/stsbenchmark/sts-{split}.csv`` (or
        ``<data_dir>/sts-{split}.csv``). Any other value is the path of a file: in the STS
        Benchmark's layout (``genre file year id score sentence1 sentence2``, tab-separated),
        or any graded layout :func:`~learnsim.datasets.read_pairs` reads (e.g. a header
        ``sentence1, sentence2, score``), or the one ``columns`` describes.
    data_dir : path-like, optional
        Data directory (see :func:`find_data_dir`); only used for a split name.
    columns : str or dict, optional
        The columns of a file in another layout, as in :func:`~learnsim.datasets.read_pairs`
        (e.g. ``"score=0,text_a=1,text_b=2"``); the file is then read by it.
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
        because a pair of an item with itself cannot be represented: 1 in the train split;
        :func:`read_pairs` keeps them), ``filename``, ``split``. For a file read through
        :func:`read_pairs`, ``genres``, ``files`` and ``years`` hold None, ``ids`` the pair
        ids when the file has them, and scores are not limited to [0, 5].

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

    Examples
    --------
    Needs ``stsbenchmark`` in ../shared/data (or ``$LEARNSIM_DATA``):

    >>> from learnsim.datasets import load_sts_benchmark
    >>> dev = load_sts_benchmark("dev")                   # doctest: +SKIP
    >>> dev.pairs                                         # doctest: +SKIP
    Pairs(n_pairs=1500, graded)
    """
    check_encoding_errors(encoding_errors)
    if isinstance(split, str) and split in _STS_SPLITS:
        path = _corpus_file(data_dir, [f"{_STS_DIR}/sts-{split}.csv"], f"STS Benchmark split {split!r}",
                            _STS_SOURCE)
    elif isinstance(split, (str, os.PathLike)) and str(split).strip() and Path(split).expanduser().is_file():
        path = Path(split).expanduser()
    else:
        raise ValueError(f"split must be one of {_STS_SPLITS} or the path of an existing file; got {split!r}")
    if columns is None and (split in _STS_SPLITS or _is_sts_layout(path, encoding_errors)):
        columns, n_extra = _read_sts_file(path, encoding_errors)
    else:
        columns, n_extra = _read_with_read_pairs(path, columns, encoding_errors)
    columns, shared = graded_pairs_bunch(path, columns)
    return Bunch(
        **shared,
        genres=_object_array(columns["genre"]),
        files=_object_array(columns["file"]),
        years=_object_array(columns["year"]),
        ids=_object_array(columns["id"]),
        n_extra_field_lines=n_extra,
        filename=str(path),
        split=split if isinstance(split, str) and split in _STS_SPLITS else str(path),
    )
