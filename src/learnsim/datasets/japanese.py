"""Japanese corpora: the livedoor news corpus (articles in 9 categories) and JGLUE's JSTS
(graded sentence pairs), read in place from the files their publishers distribute."""
from __future__ import annotations

import functools
import math
import re
import tarfile
import warnings
import zlib

import numpy as np
from sklearn.utils import Bunch

from ._base import _corpus_file, _object_array, chosen_categories
from ._decode import DocumentFormatError, UndecodableBytesWarning, check_encoding_errors, decoded_lines, json_record
from .sts import graded_pairs_bunch

_LIVEDOOR_FILE = "ja/livedoor-news/livedoor-news-text.tar.gz"
_LIVEDOOR_SOURCE = ("Get ldcc-20140209.tar.gz from https://www.rondhuit.com/download.html (livedoor news corpus, "
                    "CC BY-ND 2.1 JP) and pack its text/ folder as livedoor-news-text.tar.gz.")
# text/<category>/<category>-<id>.txt; the per-category LICENSE.txt and the top-level README.txt
# and CHANGES.txt do not match
_LIVEDOOR_MEMBER = re.compile(r"^(?:\./)?text/([^/]+)/\1-(\d+)\.txt$")

_JSTS_DIR = "ja/jsts"
_JSTS_SPLITS = ("train", "valid", "test")
_JSTS_VERSION = "v1.3"
_JSTS_SCORE_RANGE = (0.0, 5.0)
_JSTS_SOURCE = ("Get datasets/jsts-v1.3/{train,valid,test}-v1.3.json from https://github.com/yahoojapan/JGLUE "
                "(CC BY-SA 4.0).")


@functools.lru_cache(maxsize=2)
def _read_livedoor_archive(path, mtime_ns, size, encoding_errors):
    """Parse the archive once per process (keyed by mtime and size so that a replaced file is
    re-read): ``((category, id, member, url, date, title, body), ...)`` sorted by category and id."""
    records = []
    n_bad = 0
    try:
        with tarfile.open(path, mode="r:*") as archive:
            for member in archive:
                if not member.isfile():
                    continue
                match = _LIVEDOOR_MEMBER.match(member.name)
                if match is None:
                    continue
                raw = archive.extractfile(member).read()
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    if encoding_errors == "strict":
                        raise DocumentFormatError(f"{path}: member {member.name} is not UTF-8 text") from None
                    n_bad += 1
                    text = raw.decode("utf-8", errors="replace")
                lines = text.removeprefix("\ufeff").split("\n")
                if len(lines) < 3:
                    raise ValueError(f"{path}: member {member.name} has {len(lines)} line(s); a livedoor article "
                                     "has its URL, date and title on lines 1-3 and the body after them")
                url, date, title = (line.strip() for line in lines[:3])
                body = "\n".join(lines[3:]).strip()
                records.append((match.group(1), match.group(2), member.name, url, date, title, body))
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise ValueError(f"{path} is not a readable tar archive ({exc}); {_LIVEDOOR_SOURCE}") from None
    if not records:
        raise ValueError(f"{path} holds no text/<category>/<category>-<id>.txt article; {_LIVEDOOR_SOURCE}")
    return tuple(sorted(records, key=lambda r: (r[0], int(r[1])))), n_bad


def load_livedoor(data_dir=None, *, title=True, body=True, categories=None, encoding_errors="replace"):
    """Load the livedoor news corpus (RONDHUIT ``ldcc``): 7,367 Japanese news articles in 9
    categories, read in place from ``livedoor-news-text.tar.gz`` (nothing is extracted).

    Parameters
    ----------
    data_dir : path-like, optional
        Data directory (see :func:`find_data_dir`); the archive is read from
        ``<data_dir>/ja/livedoor-news/livedoor-news-text.tar.gz`` (or from ``data_dir`` itself).
    title : bool, default=True
        Start each text with the article's title (line 3 of its file).
    body : bool, default=True
        Include the article's body (line 4 on). ``title=True, body=False`` gives headlines.
    categories : list of str, optional
        Categories to keep (default: all 9); ``target`` then indexes the sorted selection.
    encoding_errors : {"replace", "strict"}, default="replace"
        An article that is not UTF-8 has its bad bytes replaced by U+FFFD (one warning counts
        them), or, with ``"strict"``, raises :class:`~learnsim.datasets.DocumentFormatError`.

    Returns
    -------
    Bunch
        ``texts`` (list of str: title and/or body joined by a line break), ``labels`` (object
        array of category names, e.g. ``"sports-watch"``), ``ids`` (object array,
        ``"<category>-<id>"`` as the file names), ``target`` (int codes of ``labels`` into
        ``target_names``), ``target_names`` (the sorted categories), ``titles``, ``urls``,
        ``dates`` (object arrays), ``filename``. Articles are ordered by category, then by
        numeric id, the same on every machine. The per-category ``LICENSE.txt`` and the
        top-level ``README.txt`` / ``CHANGES.txt`` are skipped.

    Raises
    ------
    FileNotFoundError
        When the archive is not under the data directory; the message names the paths tried.

    Notes
    -----
    The articles are licensed CC BY-ND 2.1 JP (no derivatives): the archive is read as it is.
    It is parsed once per process (about a second) and cached in memory. Some categories'
    bodies end with recurring boilerplate (related-article links, the site's name), which a
    same-category retrieval can match on.

    Examples
    --------
    Needs ``ja/livedoor-news`` in ../shared/data (or ``$LEARNSIM_DATA``):

    >>> from learnsim.datasets import load_livedoor
    >>> news = load_livedoor()                            # doctest: +SKIP
    >>> len(news.texts), len(news.target_names)           # doctest: +SKIP
    (7367, 9)
    >>> news.labels[0], news.ids[0]                       # doctest: +SKIP
    ('dokujo-tsushin', 'dokujo-tsushin-4778030')
    """
    check_encoding_errors(encoding_errors)
    if not (title or body):
        raise ValueError("title and body are both False: a text needs at least one of them")
    path = _corpus_file(data_dir, [_LIVEDOOR_FILE], "livedoor news corpus (livedoor-news-text.tar.gz)",
                        _LIVEDOOR_SOURCE)
    stat = path.stat()
    records, n_bad = _read_livedoor_archive(str(path.resolve()), stat.st_mtime_ns, stat.st_size, encoding_errors)
    if n_bad:
        warnings.warn(UndecodableBytesWarning(f"{path}: {n_bad} article(s) are not UTF-8 text; their bad bytes "
                                              "became U+FFFD"), stacklevel=2)
    all_categories = sorted({r[0] for r in records})
    target_names = chosen_categories(categories, all_categories, "categories")
    index = {name: i for i, name in enumerate(target_names)}
    records = [r for r in records if r[0] in index]
    texts = ["\n".join(part for part in ((r[5] if title else ""), (r[6] if body else "")) if part)
             for r in records]
    return Bunch(
        texts=texts,
        labels=_object_array([r[0] for r in records]),
        ids=_object_array([f"{r[0]}-{r[1]}" for r in records]),
        target=np.array([index[r[0]] for r in records], dtype=np.int64),
        target_names=target_names,
        titles=_object_array([r[5] for r in records]),
        urls=_object_array([r[3] for r in records]),
        dates=_object_array([r[4] for r in records]),
        filename=str(path),
    )


def _read_jsts_file(path, encoding_errors):
    columns = {"id": [], "yjcaptions_id": [], "sentence1": [], "sentence2": [], "score": []}
    lo, hi = _JSTS_SCORE_RANGE
    for number, line in decoded_lines(path, encoding_errors=encoding_errors):
        if not line.strip():
            continue
        # as every JSON Lines reader: nesting bounded, a key given twice refused
        row = json_record(line, f"{path}, line {number}", invalid="not a JSON object")
        missing = [k for k in ("sentence1", "sentence2", "label") if not isinstance(row, dict) or k not in row]
        if missing:
            raise ValueError(f"{path}, line {number}: no {', '.join(missing)} key; a JSTS line has sentence1, "
                             "sentence2 and label")
        for key in ("sentence1", "sentence2"):
            # str() made a null "None" and a number "5": a text the file never held
            if not isinstance(row[key], str):
                shown = "null" if row[key] is None else f"{type(row[key]).__name__} {row[key]!r}"
                raise ValueError(f"{path}, line {number}: {key} must be a string; got {shown}")
        label = row["label"]
        try:
            if isinstance(label, bool):     # float(True) is 1.0: a score the file does not give
                raise TypeError
            score = float(label)
        except (TypeError, ValueError):
            raise ValueError(f"{path}, line {number}: label {label!r} is not a number") from None
        except OverflowError:               # an integer of hundreds of digits: no float holds it
            score = math.inf if label > 0 else -math.inf
        if not (math.isfinite(score) and lo <= score <= hi):
            shown = repr(score) if math.isfinite(score) or not isinstance(label, int) else \
                f"{str(label)[:20]}... ({len(str(label).lstrip('-'))} digits)"
            raise ValueError(f"{path}, line {number}: label {shown} is outside [{lo:g}, {hi:g}]")
        pair_id = row.get("sentence_pair_id")
        if pair_id is not None and (isinstance(pair_id, bool) or not isinstance(pair_id, (str, int))):
            # str() made a list "[1]" and a float "1.5": refused, as documents' ids are
            raise ValueError(f"{path}, line {number}: sentence_pair_id must be a string or an integer; got "
                             f"{type(pair_id).__name__} {pair_id!r}")
        columns["id"].append(None if row.get("sentence_pair_id") is None else str(row["sentence_pair_id"]))
        columns["yjcaptions_id"].append(row.get("yjcaptions_id"))
        columns["sentence1"].append(row["sentence1"])
        columns["sentence2"].append(row["sentence2"])
        columns["score"].append(score)
    if not columns["score"]:
        raise ValueError(f"{path} contains no sentence pairs")
    return columns


def load_jsts(split="train", data_dir=None, *, encoding_errors="replace"):
    """Load one split of JGLUE's JSTS (v1.3): Japanese sentence pairs (image captions) with a
    similarity score in [0, 5], in the shape of :func:`load_sts_benchmark`.

    Parameters
    ----------
    split : {"train", "valid", "test"}, default="train"
        Reads ``<data_dir>/ja/jsts/{split}-v1.3.json`` (JSON Lines; or the file under
        ``data_dir`` itself). The v1.3 test split has its labels.
    data_dir : path-like, optional
        Data directory (see :func:`find_data_dir`).
    encoding_errors : {"replace", "strict"}, default="replace"
        As in :func:`load_sts_benchmark`.

    Returns
    -------
    Bunch
        ``texts`` (the distinct sentences, in order of first appearance), ``pairs`` (graded
        :class:`learnsim.supervision.Pairs` indexing ``texts``, scores = the gold labels),
        ``scores`` (float ndarray), ``sentence1``, ``sentence2``, ``ids`` (``sentence_pair_id``),
        ``yjcaptions_ids`` (object arrays, one entry per pair), ``n_identical_pairs`` (pairs whose
        two sentences are the same string, dropped as :func:`load_sts_benchmark` drops them:
        69 in train, 4 in valid, 10 in test), ``filename``, ``split``.

    Raises
    ------
    FileNotFoundError
        When the split's file is not under the data directory; the message names the paths tried.
    ValueError
        On a line that is not a JSON object with ``sentence1``, ``sentence2`` and a ``label``
        in [0, 5]; the message names the file and line.

    Examples
    --------
    Needs ``ja/jsts`` in ../shared/data (or ``$LEARNSIM_DATA``):

    >>> from learnsim.datasets import load_jsts
    >>> valid = load_jsts("valid")                        # doctest: +SKIP
    >>> valid.pairs                                       # doctest: +SKIP
    Pairs(n_pairs=1453, graded)
    """
    check_encoding_errors(encoding_errors)
    if split not in _JSTS_SPLITS:
        raise ValueError(f"split must be one of {_JSTS_SPLITS}; got {split!r}")
    name = f"{split}-{_JSTS_VERSION}.json"
    path = _corpus_file(data_dir, [f"{_JSTS_DIR}/{name}"], f"JSTS split {split!r} ({name})", _JSTS_SOURCE)
    columns, shared = graded_pairs_bunch(path, _read_jsts_file(path, encoding_errors))
    return Bunch(
        **shared,
        ids=_object_array(columns["id"]),
        yjcaptions_ids=_object_array(columns["yjcaptions_id"]),
        filename=str(path),
        split=split,
    )
