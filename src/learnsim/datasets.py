"""Loaders for the development corpora and a synthetic clustered-text generator.

The loaders read the corpora in the formats their publishers distribute (a tarball, a
gzipped caption list), so nothing has to be unpacked or converted first. They look for
the files under a *data directory* laid out like the project's ``../shared/data``::

    <data_dir>/20newsgroups/20news-bydate.tar.gz
    <data_dir>/flickr8k-captions/Flickr8k.token.txt.gz  (+ Flickr_8k.{train,dev,test}Images.txt)
    <data_dir>/quora-sample/{dev,test}.tsv
    <data_dir>/stsbenchmark/sts-{train,dev,test}.csv
    <data_dir>/wikispeedia/wikispeedia-articles-links.tar.gz
    <data_dir>/ir/cisi/{CISI.ALL,CISI.QRY,CISI.REL}
    <data_dir>/ir/cran/{cran.all.1400,cran.qry,cranqrel}

See :func:`find_data_dir` for how that directory is chosen. The retrieval loaders
(:func:`load_smart_collection`, :func:`load_trec_collection`) both return a
:class:`RetrievalCollection`; :func:`load_wikispeedia` returns a :class:`LinkedCorpus`.
:func:`make_clustered_corpus` needs no files at all; it is the default corpus for the demo
and the fast tests.
"""
from __future__ import annotations

import csv
import functools
import gzip
import html
import math
import numbers
import os
import re
import tarfile
import urllib.parse
import zlib
from dataclasses import dataclass, field as dataclass_field
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch

from learnsim._validation import check_random_state
from learnsim.supervision import Links, Pairs

__all__ = [
    "LinkedCorpus",
    "RetrievalCollection",
    "find_data_dir",
    "load_20newsgroups",
    "load_flickr8k_captions",
    "load_quora_pairs",
    "load_smart_collection",
    "load_sts_benchmark",
    "load_trec_collection",
    "load_uci",
    "load_webkb",
    "load_wikispeedia",
    "make_clustered_corpus",
]

DATA_ENV_VAR = "LEARNSIM_DATA"

_NEWSGROUPS_FILE = "20newsgroups/20news-bydate.tar.gz"
_NEWSGROUPS_SOURCE = "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz"
_FLICKR_DIR = "flickr8k-captions"
_FLICKR_TOKENS = ("Flickr8k.token.txt.gz", "Flickr8k.token.txt")
_FLICKR_SPLITS = ("train", "dev", "test")


# --------------------------------------------------------------------------- data dir

def _package_data_dir() -> Path:
    # src/learnsim/datasets.py -> repository root is parents[2]; the corpora sit beside it.
    return Path(__file__).resolve().parents[3] / "shared" / "data"


def find_data_dir(data_dir=None) -> Path:
    """Return the folder that holds the corpora.

    Tried in order:

    1. ``data_dir`` if given;
    2. the ``LEARNSIM_DATA`` environment variable if set;
    3. ``../shared/data`` relative to the current working directory;
    4. ``../shared/data`` relative to the repository that contains this package.

    An explicitly given ``data_dir`` or ``LEARNSIM_DATA`` must exist: falling back to
    another folder would silently read data the caller did not ask for.

    Parameters
    ----------
    data_dir : str or path-like, optional
        Folder laid out like the project's ``../shared/data``.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileNotFoundError
        If the chosen folder does not exist, or none of the defaults does.
    """
    hint = (f"pass data_dir (--data-dir on the command line) or set {DATA_ENV_VAR} to a folder "
            "laid out like the project's ../shared/data (20newsgroups/, flickr8k-captions/, ...)")
    if data_dir is not None:
        if isinstance(data_dir, str) and not data_dir.strip():
            raise ValueError("data_dir is an empty string; pass a folder or None to use the defaults")
        path = Path(data_dir).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"data_dir {str(path)!r} is not an existing folder; {hint}")
        return path
    env = os.environ.get(DATA_ENV_VAR)
    if env:
        path = Path(env).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"{DATA_ENV_VAR}={env!r} is not an existing folder; {hint}")
        return path
    candidates = [Path.cwd().parent / "shared" / "data", _package_data_dir()]
    for path in candidates:
        if path.is_dir():
            return path
    tried = ", ".join(str(p) for p in candidates)
    raise FileNotFoundError(f"no data directory found ({DATA_ENV_VAR} is not set; tried {tried}); {hint}")


def _corpus_file(data_dir, relpaths, corpus, source):
    """Find one of ``relpaths`` under the data dir, or under ``data_dir`` itself when the
    caller pointed straight at the corpus folder."""
    root = find_data_dir(data_dir)
    tried = []
    for rel in relpaths:
        for path in (root / rel, root / Path(rel).name):
            if path.is_file():
                return path
            if path not in tried:
                tried.append(path)
    raise FileNotFoundError(
        f"{corpus} not found: tried {', '.join(str(p) for p in tried)}. {source}")


# ----------------------------------------------------------------------- 20 Newsgroups

_NEWSGROUPS_REMOVABLE = ("headers", "footers", "quotes")
_NEWSGROUPS_MEMBER = re.compile(r"^(?:\./)?20news-bydate-(train|test)/([^/]+)/([^/]+)$")
# Same heuristic as scikit-learn's fetch_20newsgroups(remove=("quotes",)).
_QUOTE_LINE = re.compile(r"(writes in|writes:|wrote:|says:|said:|^In article|^Quoted from|^\||^>)")


def _strip_header(text):
    # Everything up to the first blank line is the header; it names the newsgroup (the label).
    _header, _blank, body = text.partition("\n\n")
    return body


def _strip_footer(text):
    # A signature is taken to start at the last blank or all-hyphen line, as in scikit-learn.
    lines = text.strip().split("\n")
    line_num = 0
    for line_num in range(len(lines) - 1, -1, -1):
        if lines[line_num].strip().strip("-") == "":
            break
    return "\n".join(lines[:line_num]) if line_num > 0 else text


def _strip_quotes(text):
    return "\n".join(line for line in text.split("\n") if not _QUOTE_LINE.search(line))


def _id_sort_key(doc_id):
    return (0, int(doc_id), doc_id) if doc_id.isdigit() else (1, 0, doc_id)


@functools.lru_cache(maxsize=2)
def _read_newsgroups_archive(path, mtime_ns, size):
    """Parse the bydate tarball once per process (keyed by mtime and size so that a
    replaced file is re-read). Returns ``{subset: ((group, id, member, text), ...)}``."""
    records = {"train": [], "test": []}
    try:
        with tarfile.open(path, mode="r:*") as archive:
            for member in archive:
                if not member.isfile():
                    continue
                match = _NEWSGROUPS_MEMBER.match(member.name)
                if match is None:
                    continue
                subset, group, doc_id = match.groups()
                raw = archive.extractfile(member).read()
                records[subset].append((group, doc_id, member.name, raw.decode("latin-1")))
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise ValueError(f"{path} is not a readable 20 Newsgroups tar archive ({exc}); "
                         f"download it again from {_NEWSGROUPS_SOURCE}") from None
    if not records["train"] and not records["test"]:
        raise ValueError(f"{path} holds no 20news-bydate-train/<group>/<id> or "
                         "20news-bydate-test/<group>/<id> files; is it the 'bydate' version?")
    return {subset: tuple(sorted(recs, key=lambda r: (r[0], _id_sort_key(r[1]))))
            for subset, recs in records.items()}


def _check_remove(remove):
    if remove is None:
        return ()
    if isinstance(remove, str):
        remove = (remove,)
    try:
        remove = tuple(remove)
    except TypeError:
        raise TypeError(f"remove must be a tuple of {_NEWSGROUPS_REMOVABLE}; got {remove!r}") from None
    unknown = [r for r in remove if r not in _NEWSGROUPS_REMOVABLE]
    if unknown:
        raise ValueError(f"remove contains {unknown!r}; allowed values are {_NEWSGROUPS_REMOVABLE}")
    return remove


def load_20newsgroups(subset="train", data_dir=None, remove=("headers",), categories=None):
    """Load the 20 Newsgroups "bydate" corpus straight from ``20news-bydate.tar.gz``.

    Parameters
    ----------
    subset : {"train", "test", "all"}, default="train"
        ``"all"`` is the training documents followed by the test documents.
    data_dir : path-like, optional
        Data directory (see :func:`find_data_dir`); the archive is read from
        ``<data_dir>/20newsgroups/20news-bydate.tar.gz``.
    remove : tuple of {"headers", "footers", "quotes"}, default=("headers",)
        Parts of each message to strip, with the semantics of scikit-learn's
        ``fetch_20newsgroups``. Keep "headers": the ``Newsgroups:``/``Path:`` style lines
        and the ``Subject:``/``From:`` lines give the label away.
    categories : list of str, optional
        Newsgroups to keep (default: all 20). ``target`` then indexes the sorted selection.

    Returns
    -------
    Bunch
        ``data`` (list of str), ``target`` (int ndarray), ``target_names`` (sorted group
        names), ``filenames`` (archive member names), ``subset``. Documents are ordered by
        group, then by numeric message id, so the order is the same on every machine.

    Notes
    -----
    The archive is parsed once per process (a few seconds) and cached in memory; later
    calls only re-apply ``remove`` and ``categories``.
    """
    if subset not in ("train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test' or 'all'; got {subset!r}")
    remove = _check_remove(remove)
    path = _corpus_file(data_dir, [_NEWSGROUPS_FILE], "20 Newsgroups archive",
                        f"Get 20news-bydate.tar.gz from {_NEWSGROUPS_SOURCE}.")
    stat = path.stat()
    archive = _read_newsgroups_archive(str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    records = [r for s in (("train", "test") if subset == "all" else (subset,)) for r in archive[s]]

    all_groups = sorted({r[0] for s in archive.values() for r in s})
    if categories is not None:
        if isinstance(categories, str):
            categories = [categories]
        unknown = sorted(set(categories) - set(all_groups))
        if unknown:
            raise ValueError(f"unknown categories {unknown}; the groups are {all_groups}")
        if not categories:
            raise ValueError("categories is empty; pass None for all groups")
        target_names = sorted(set(categories))
    else:
        target_names = all_groups
    index = {name: i for i, name in enumerate(target_names)}
    records = [r for r in records if r[0] in index]

    strippers = [fn for key, fn in (("headers", _strip_header), ("footers", _strip_footer),
                                    ("quotes", _strip_quotes)) if key in remove]
    data = []
    for record in records:
        text = record[3]
        for strip in strippers:
            text = strip(text)
        data.append(text)
    return Bunch(
        data=data,
        target=np.array([index[r[0]] for r in records], dtype=np.int64),
        target_names=target_names,
        filenames=[r[2] for r in records],
        subset=subset,
    )


# ------------------------------------------------------------------------- Flickr8k

def _open_text_lines(path):
    """Yield ``(line_number, line)`` of a plain or gzipped UTF-8 text file, with errors
    that say which file and line is at fault."""
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise ValueError(f"{path}, line {number}: not UTF-8 text ({exc.reason})") from None
                yield number, line.rstrip("\r\n")
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(f"{path} could not be read ({exc}); is the file complete and "
                         f"{'gzip-compressed' if opener is gzip.open else 'plain text'}?") from None


def _read_flickr_captions(path):
    image_ids, captions, targets = [], [], []
    image_index = {}
    seen = set()
    expected = "expected '<image>.jpg#<n><TAB><caption>'"
    for number, line in _open_text_lines(path):
        if not line.strip():
            continue
        caption_id, tab, caption = line.partition("\t")
        if not tab:
            raise ValueError(f"{path}, line {number}: no tab separator; {expected}, got {line[:80]!r}")
        image_id, hash_, caption_number = caption_id.strip().rpartition("#")
        if not hash_ or not image_id or not caption_number.isdigit():
            raise ValueError(f"{path}, line {number}: caption id {caption_id[:80]!r} is not "
                             f"'<image>#<n>'; {expected}")
        caption = caption.strip()
        if not caption:
            raise ValueError(f"{path}, line {number}: empty caption for {caption_id!r}")
        key = (image_id, int(caption_number))
        if key in seen:
            raise ValueError(f"{path}, line {number}: duplicate caption id {caption_id!r}")
        seen.add(key)
        if image_id not in image_index:
            image_index[image_id] = len(image_ids)
            image_ids.append(image_id)
        captions.append(caption)
        targets.append(image_index[image_id])
    if not captions:
        raise ValueError(f"{path} contains no captions")
    return captions, np.array(targets, dtype=np.int64), image_ids


def _read_flickr_split(folder, split, known_images):
    path = folder / f"Flickr_8k.{split}Images.txt"
    if not path.is_file():
        raise FileNotFoundError(f"split list {path} not found (needed for split={split!r}); "
                                "it comes with Flickr8k.token.txt in the Flickr8k_text package")
    listed = [line.strip() for _number, line in _open_text_lines(path) if line.strip()]
    missing = [image for image in listed if image not in known_images]
    if missing:
        raise ValueError(f"{path} lists {len(missing)} image(s) with no captions, e.g. "
                         f"{missing[0]!r}; the split list and the caption file do not match")
    return set(listed)


def load_flickr8k_captions(data_dir=None, split=None):
    """Load the Flickr8k captions: the five captions of an image form a cluster.

    Parameters
    ----------
    data_dir : path-like, optional
        Data directory (see :func:`find_data_dir`); files are read from
        ``<data_dir>/flickr8k-captions/``. A plain ``Flickr8k.token.txt`` is used when
        the gzipped copy is absent.
    split : {None, "train", "dev", "test"}, default=None
        Keep only the images of ``Flickr_8k.<split>Images.txt``. ``None`` keeps every
        image in the caption file (8,092, including the 92 that are in no split list).

    Returns
    -------
    Bunch
        ``data`` (captions), ``target`` (cluster id of each caption, an index into
        ``image_ids``), ``image_ids`` (image file names, in caption-file order), ``split``.
        The order follows the caption file, so it is the same on every call.

    Raises
    ------
    ValueError
        On a malformed line (the message names the file and line number) or a split list
        that names images without captions.
    """
    if split is not None and split not in _FLICKR_SPLITS:
        raise ValueError(f"split must be None, 'train', 'dev' or 'test'; got {split!r}")
    path = _corpus_file(data_dir, [f"{_FLICKR_DIR}/{name}" for name in _FLICKR_TOKENS],
                        "Flickr8k captions",
                        "They are in the Flickr8k_text package of Hodosh et al. (2013).")
    captions, targets, image_ids = _read_flickr_captions(path)
    if split is not None:
        keep_images = _read_flickr_split(path.parent, split, set(image_ids))
        kept_ids = [image for image in image_ids if image in keep_images]
        remap = np.full(len(image_ids), -1, dtype=np.int64)
        remap[[i for i, image in enumerate(image_ids) if image in keep_images]] = np.arange(len(kept_ids))
        new_targets = remap[targets]
        mask = new_targets >= 0
        captions = [c for c, keep in zip(captions, mask) if keep]
        targets, image_ids = new_targets[mask], kept_ids
    return Bunch(data=captions, target=targets, image_ids=image_ids, split=split)


# ------------------------------------------------------------------ sentence-pair corpora

def _index_pair_texts(first, second):
    """Unique texts in order of first appearance (reading each pair left to right) and the
    ``(n, 2)`` index of every pair into them; identical strings share one index."""
    index = {}
    for a, b in zip(first, second):
        index.setdefault(a, len(index))
        index.setdefault(b, len(index))
    indices = np.array([(index[a], index[b]) for a, b in zip(first, second)], dtype=np.int64)
    return list(index), indices.reshape(-1, 2)


def _object_array(values):
    # Object arrays, not numpy's fixed-width strings: one long question would otherwise set
    # the width (and the memory) of every entry.
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


def _drop_identical_pairs(columns, first_key, second_key):
    """Drop the rows whose two texts are the same string: :class:`Pairs` cannot hold a pair
    of an item with itself. Returns the filtered columns and how many rows went."""
    keep = [a != b for a, b in zip(columns[first_key], columns[second_key])]
    n_dropped = len(keep) - sum(keep)
    if n_dropped:
        columns = {key: [v for v, k in zip(values, keep) if k] for key, values in columns.items()}
    return columns, n_dropped


# --------------------------------------------------------------- Quora question pairs

_QUORA_DIR = "quora-sample"
_QUORA_SPLITS = ("dev", "test")
_QUORA_SAMPLE_HEADER = ("label", "question1", "question2", "pair_id")
_QUORA_KAGGLE_REQUIRED = ("question1", "question2", "is_duplicate")
_QUORA_SOURCE = ("The full set is Quora's 'First Quora Dataset Release: Question Pairs' "
                 "(quora_duplicate_questions.tsv) or the train.csv of Kaggle's Quora Question Pairs; "
                 "pass its path as split.")


def _decoded_lines(path, stats):
    """Lines of ``path`` (line ends kept, for the csv reader) decoded as UTF-8.

    The Quora texts contain multi-byte characters cut in the middle, so undecodable bytes
    become U+FFFD instead of failing; ``stats["undecodable"]`` counts the lines affected.
    Only ``\\n`` ends a line (binary iteration), so a stray ``\\r`` is not a line break.
    """
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError:
                stats["undecodable"] += 1
                yield raw.decode("utf-8", errors="replace")


def _quora_records(path, delimiter, stats):
    """Yield ``(line_number, fields)`` per record; quoted fields follow CSV rules (the sample
    quotes questions that contain ``"`` and doubles the inner quotes)."""
    reader = csv.reader(_decoded_lines(path, stats), delimiter=delimiter, quotechar='"',
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


def _read_quora_file(path):
    stats = {"undecodable": 0}
    with open(path, "rb") as handle:
        first_line = handle.readline()
    # The original Kaggle train.csv is comma-separated; every other layout uses tabs.
    delimiter = "\t" if b"\t" in first_line else ","
    records = _quora_records(path, delimiter, stats)
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
    return layout, columns, stats["undecodable"]


def _parse_pair_ids(raw_ids):
    if all(v is None for v in raw_ids):
        return np.arange(len(raw_ids), dtype=np.int64)
    try:
        return np.array([int(v) for v in raw_ids], dtype=np.int64)
    except (TypeError, ValueError):
        return _object_array(raw_ids)


def load_quora_pairs(split="dev", data_dir=None):
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

    layout, columns, n_undecodable = _read_quora_file(path)
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


# ------------------------------------------------------------------------ STS Benchmark

_STS_DIR = "stsbenchmark"
_STS_SPLITS = ("train", "dev", "test")
_STS_FIELDS = ("genre", "file", "year", "id", "score", "sentence1", "sentence2")
_STS_SCORE_RANGE = (0.0, 5.0)
_STS_SOURCE = "Get Stsbenchmark.tar.gz from http://ixa2.si.ehu.eus/stswiki (Cer et al. 2017)."


def _read_sts_file(path):
    columns = {name: [] for name in _STS_FIELDS}
    n_extra = 0
    lo, hi = _STS_SCORE_RANGE
    # Split on tabs only: the sentences contain literal, unbalanced double quotes that a CSV
    # reader would take as quoting and use to swallow tabs and whole lines.
    for number, line in _open_text_lines(path):
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


def load_sts_benchmark(split="train", data_dir=None):
    """Load one split of the STS Benchmark: sentence pairs with a similarity score in [0, 5].

    Parameters
    ----------
    split : {"train", "dev", "test"}, default="train"
    data_dir : path-like, optional
        Data directory (see :func:`find_data_dir`); the file is
        ``<data_dir>/stsbenchmark/sts-{split}.csv`` (or ``<data_dir>/sts-{split}.csv``).

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
        that is not UTF-8; the message names the file and line number.
    """
    if not isinstance(split, str) or split not in _STS_SPLITS:
        raise ValueError(f"split must be one of {_STS_SPLITS}; got {split!r}")
    path = _corpus_file(data_dir, [f"{_STS_DIR}/sts-{split}.csv"], f"STS Benchmark split {split!r}",
                        _STS_SOURCE)
    columns, n_extra = _read_sts_file(path)
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


# ------------------------------------------------------------- linked and retrieval corpora

def _readonly_copy(values, dtype=None):
    arr = np.array(values, dtype=dtype)
    arr.setflags(write=False)
    return arr


def _normalise_id(raw):
    # "001" in cran.qry and "1" in a qrels file name the same record
    raw = raw.strip()
    return str(int(raw)) if raw.isdigit() else raw


@dataclass(frozen=True, eq=False, repr=False)
class LinkedCorpus:
    """Documents with hyperlinks between them (what LinkLearn learns from).

    Attributes
    ----------
    name : str
    names : ndarray of str, shape (n_documents,)
        Document names, sorted; ``names[i]`` is the name of ``texts[i]`` and of item ``i`` of
        ``links``.
    texts : list of str
    links : learnsim.supervision.Links
        The directed link graph over the documents, without self-links or repeated links.
    categories : list of tuple of str
        Per document, its category paths (e.g. ``'subject.Science.Physics'``); an empty
        tuple for a document with no category.
    n_dropped_links : int
        Link lines with an endpoint that is not a document of the corpus (dropped).
    n_self_links : int
        Link lines from a document to itself (dropped: they say nothing about similarity).
    n_duplicate_links : int
        Link lines that repeat an earlier link (counted once).
    n_dropped_categories : int
        Category lines naming a document that is not in the corpus (ignored).
    filename : str
    """

    name: str
    names: np.ndarray
    texts: list
    links: Links
    categories: list
    n_dropped_links: int = 0
    n_self_links: int = 0
    n_duplicate_links: int = 0
    n_dropped_categories: int = 0
    filename: str = ""

    def __post_init__(self):
        n = len(self.names)
        if not (len(self.texts) == len(self.categories) == self.links.n_items == n):
            raise ValueError(f"inconsistent corpus: {n} names, {len(self.texts)} texts, "
                             f"{len(self.categories)} category entries, links over {self.links.n_items} items")

    @property
    def n_documents(self):
        return len(self.names)

    def __repr__(self):
        return (f"LinkedCorpus({self.name!r}: {self.n_documents} documents, {self.links.n_links} links; "
                f"dropped {self.n_dropped_links} to unknown documents, {self.n_self_links} self-links, "
                f"{self.n_duplicate_links} repeated)")


@dataclass(frozen=True, eq=False, repr=False)
class RetrievalCollection:
    """An ad-hoc retrieval test collection: documents, queries and relevance judgments.

    Every retrieval loader (:func:`load_smart_collection`, :func:`load_trec_collection`)
    returns one, so evaluation code can treat the collections alike.

    Attributes
    ----------
    name : str
    doc_ids : ndarray of str, shape (n_documents,)
    documents : list of str
    query_ids : ndarray of str, shape (n_queries,)
    queries : list of str
    relevance : scipy.sparse.csr_matrix of int8, shape (n_queries, n_documents)
        1 where the document is relevant to the query (the binary relevance that
        :mod:`learnsim.evaluation` takes), 0 elsewhere.
    qrels : dict of {query_id: {doc_id: grade}}
        The judgments as the collection gives them (the pytrec_eval / ir_measures layout),
        including judged non-relevant pairs. In every collection a pair is relevant exactly
        when its grade is >= 1; what the grades mean beyond that is the collection's (see
        the loader).
    queries_without_judgments : ndarray of str
        Ids of the queries with no relevant document. They are kept in ``queries``; the usual
        practice is to leave them out of evaluation (see :meth:`judged_only`).
    info : dict
        Loader-specific facts: source files and counts of what was repaired or dropped.
    """

    name: str
    doc_ids: np.ndarray
    documents: list
    query_ids: np.ndarray
    queries: list
    relevance: sp.csr_matrix
    qrels: dict
    queries_without_judgments: np.ndarray
    info: dict = dataclass_field(default_factory=dict)

    def __post_init__(self):
        n_docs, n_queries = len(self.doc_ids), len(self.query_ids)
        if len(self.documents) != n_docs or len(self.queries) != n_queries:
            raise ValueError(f"inconsistent collection: {n_docs} doc ids for {len(self.documents)} documents, "
                             f"{n_queries} query ids for {len(self.queries)} queries")
        if self.relevance.shape != (n_queries, n_docs):
            raise ValueError(f"relevance has shape {self.relevance.shape}; expected (n_queries, n_documents) "
                             f"= ({n_queries}, {n_docs})")

    @property
    def n_documents(self):
        return len(self.doc_ids)

    @property
    def n_queries(self):
        return len(self.query_ids)

    @property
    def judged_query_mask(self):
        """Boolean mask of the queries that have at least one relevant document."""
        return np.diff(self.relevance.indptr) > 0

    def judged_only(self):
        """The same collection restricted to the queries that have a relevant document."""
        keep = self.judged_query_mask
        kept_ids = set(self.query_ids[keep].tolist())
        return RetrievalCollection(
            name=self.name, doc_ids=self.doc_ids, documents=self.documents,
            query_ids=_readonly_copy(self.query_ids[keep]),
            queries=[q for q, k in zip(self.queries, keep) if k],
            relevance=self.relevance[keep],
            qrels={q: dict(j) for q, j in self.qrels.items() if q in kept_ids},
            queries_without_judgments=_readonly_copy(self.query_ids[:0]),
            info=dict(self.info),
        )

    def __repr__(self):
        n_judged = int(self.judged_query_mask.sum())
        return (f"RetrievalCollection({self.name!r}: {self.n_documents} documents, {self.n_queries} queries "
                f"({n_judged} with a relevant document), {self.relevance.nnz} relevant pairs)")


def _build_collection(name, doc_ids, documents, query_ids, queries, judgments, strict, info):
    """Assemble a :class:`RetrievalCollection` from judgments ``(query_id, doc_id, grade,
    relevant, where)``; ``where`` names the qrels line for error messages."""
    for kind, ids in (("document", doc_ids), ("query", query_ids)):
        seen = set()
        for i in ids:
            if i in seen:
                raise ValueError(f"{name}: {kind} id {i!r} occurs more than once")
            seen.add(i)
    doc_pos = {d: i for i, d in enumerate(doc_ids)}
    query_pos = {q: i for i, q in enumerate(query_ids)}
    qrels = {}
    rows, cols = [], []
    n_dropped = 0
    for qid, did, grade, relevant, where in judgments:
        unknown = ([f"query {qid!r}"] if qid not in query_pos else []) + \
                  ([f"document {did!r}"] if did not in doc_pos else [])
        if unknown:
            if strict:
                raise ValueError(f"{where}: judgment names unknown {' and '.join(unknown)}; "
                                 "pass strict=False to drop such judgments")
            n_dropped += 1
            continue
        judged = qrels.setdefault(qid, {})
        if did in judged and judged[did] != grade:
            raise ValueError(f"{where}: query {qid!r}, document {did!r} judged again with grade {grade} "
                             f"(earlier {judged[did]})")
        judged[did] = grade
        if relevant:
            rows.append(query_pos[qid])
            cols.append(doc_pos[did])
    relevance = sp.csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)),
                              shape=(len(query_ids), len(doc_ids)))
    relevance.sum_duplicates()
    relevance.data[:] = 1
    relevance.sort_indices()
    without = [q for q, n in zip(query_ids, np.diff(relevance.indptr)) if n == 0]
    info = dict(info, n_dropped_judgments=n_dropped)
    return RetrievalCollection(
        name=name, doc_ids=_readonly_copy(doc_ids, dtype=str), documents=list(documents),
        query_ids=_readonly_copy(query_ids, dtype=str), queries=list(queries), relevance=relevance,
        qrels=qrels, queries_without_judgments=_readonly_copy(without, dtype=str), info=info)


# --------------------------------------------------------------------------- Wikispeedia

_WIKISPEEDIA_FILE = "wikispeedia/wikispeedia-articles-links.tar.gz"
_WIKISPEEDIA_SOURCE = ("Wikispeedia is at https://snap.stanford.edu/data/wikispeedia.html "
                       "(wikispeedia_articles_plaintext.tar.gz and wikispeedia_paths-and-graph.tar.gz).")
_WIKI_ARTICLE = re.compile(r"^(?:\./)?(?:.*/)?plaintext_articles/([^/]+)\.txt$")
_WIKI_TABLES = {"links": re.compile(r"^(?:\./)?(?:.*/)?links\.tsv$"),
                "categories": re.compile(r"^(?:\./)?(?:.*/)?categories\.tsv$")}


def _decode_member(raw, where):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise ValueError(f"{where}: not UTF-8 text (byte {exc.start}, line {line}: {exc.reason}); "
                         "the Wikispeedia files are UTF-8, so the file is damaged or not from it") from None


def _unquote_name(quoted, where):
    try:
        return urllib.parse.unquote(quoted, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise ValueError(f"{where}: the name {quoted!r} is not valid URL-encoded UTF-8") from None


def _tsv_rows(text, where, n_fields):
    """``(line_number, fields)`` of a Wikispeedia tsv, skipping ``#`` comments and blank lines."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != n_fields:
            raise ValueError(f"{where}, line {number}: {len(fields)} tab-separated field(s), expected {n_fields}")
        yield number, fields


@functools.lru_cache(maxsize=2)
def _read_wikispeedia_archive(path, mtime_ns, size):
    """Parse the archive once per process (keyed by mtime and size so that a replaced file is
    re-read). Returns ``(articles, links, categories, table_names)`` with decoded names:
    ``articles`` = ((name, text), ...) sorted by name, ``links`` = ((line, source, target), ...),
    ``categories`` = ((line, article, category), ...)."""
    articles = {}
    tables = {}
    try:
        with tarfile.open(path, mode="r:*") as archive:
            for member in archive:
                if not member.isfile():
                    continue
                where = f"{path}: {member.name}"
                match = _WIKI_ARTICLE.match(member.name)
                if match is not None:
                    name = _unquote_name(match.group(1), where)
                    if name in articles:
                        raise ValueError(f"{where}: a second file for article {name!r} "
                                         f"(first {articles[name][0]})")
                    articles[name] = (member.name, _decode_member(archive.extractfile(member).read(), where))
                    continue
                for table, pattern in _WIKI_TABLES.items():
                    if pattern.match(member.name):
                        if table in tables:
                            raise ValueError(f"{path} holds two {table}.tsv files ({tables[table][0]} and "
                                             f"{member.name}); pass an archive with one")
                        tables[table] = (member.name, _decode_member(archive.extractfile(member).read(), where))
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise ValueError(f"{path} is not a readable tar archive ({exc}). {_WIKISPEEDIA_SOURCE}") from None
    if not articles:
        raise ValueError(f"{path} holds no plaintext_articles/<name>.txt files; is it the Wikispeedia archive?")
    missing = [f"{t}.tsv" for t in _WIKI_TABLES if t not in tables]
    if missing:
        raise ValueError(f"{path} has no {' or '.join(missing)}; the links and categories come from "
                         f"wikispeedia_paths-and-graph. {_WIKISPEEDIA_SOURCE}")
    rows = {}
    for table, (member_name, text) in tables.items():
        where = f"{path}: {member_name}"
        rows[table] = tuple((number, _unquote_name(a, f"{where}, line {number}"),
                             _unquote_name(b, f"{where}, line {number}") if table == "links" else b.strip())
                            for number, (a, b) in _tsv_rows(text, where, 2))
    ordered = tuple((name, articles[name][1]) for name in sorted(articles))
    return ordered, rows["links"], rows["categories"], {t: tables[t][0] for t in tables}


def load_wikispeedia(data_dir=None, *, path=None, strict=False):
    """Load the Wikispeedia articles and the hyperlinks between them, straight from the tarball.

    Wikispeedia (West & Leskovec 2012) is 4,604 articles of the 2007 Wikipedia for Schools
    with their 119,882 links; the project uses it as a small stand-in for the Wikipedia
    corpus of LinkLearn (Grangier & Bengio, paper 002).

    Parameters
    ----------
    data_dir : path-like, optional
        Data directory (see :func:`find_data_dir`); the archive is
        ``<data_dir>/wikispeedia/wikispeedia-articles-links.tar.gz``.
    path : path-like, optional
        The archive itself, instead of ``data_dir``. Any tar archive (gzipped or not) with
        ``plaintext_articles/<name>.txt`` files, one ``links.tsv`` and one ``categories.tsv``
        (in any folder) is read.
    strict : bool, default=False
        When False, a link or category line naming an article with no text file is counted
        (``n_dropped_links``, ``n_dropped_categories``) and dropped; when True it is an error.

    Returns
    -------
    LinkedCorpus
        ``names`` (article names URL-decoded, e.g. ``'Ubuntu_(Linux_distribution)'``,
        sorted), ``texts`` (the plain text of each article, as in the archive: it starts with
        a ``#copyright`` line, the title and a "2007 Schools Wikipedia Selection. Related
        subjects: ..." line), ``links`` (:class:`learnsim.supervision.Links`, directed),
        ``categories`` (tuple of category paths per article), and the counts of dropped
        lines. Every link line is accounted for: ``links.n_links + n_dropped_links +
        n_self_links + n_duplicate_links`` is the number of lines in ``links.tsv``.

    Raises
    ------
    ValueError
        If an article or table is not UTF-8 (the message names the file), the archive holds
        no articles or lacks a table, a line is malformed, a link names an unknown article
        with ``strict=True``, or no link joins two distinct articles.

    Notes
    -----
    The archive is parsed once per process (about 2 s) and cached in memory. The text is not
    stemmed or stopped; that is the vectoriser's job (paper 002, sec. 4.1, uses Porter
    stemming and drops terms in very many documents or in only one).
    """
    if path is not None and data_dir is not None:
        raise ValueError("pass either path (the archive) or data_dir (the data directory), not both")
    if not isinstance(strict, (bool, np.bool_)):
        raise TypeError(f"strict must be True or False; got {strict!r}")
    if path is not None:
        archive_path = Path(path).expanduser()
        if not archive_path.is_file():
            raise FileNotFoundError(f"path {str(archive_path)!r} is not an existing file; pass the "
                                    "Wikispeedia tar archive")
    else:
        archive_path = _corpus_file(data_dir, [_WIKISPEEDIA_FILE], "Wikispeedia archive", _WIKISPEEDIA_SOURCE)
    stat = archive_path.stat()
    articles, link_rows, category_rows, table_names = _read_wikispeedia_archive(
        str(archive_path.resolve()), stat.st_mtime_ns, stat.st_size)

    names = [name for name, _text in articles]
    index = {name: i for i, name in enumerate(names)}
    links_where = f"{archive_path}: {table_names['links']}"
    if not link_rows:
        raise ValueError(f"{links_where} holds no links; LinkLearn needs linked documents")
    edges, seen = [], set()
    n_dropped = n_self = n_repeated = 0
    for number, source, target in link_rows:
        unknown = [n for n in (source, target) if n not in index]
        if unknown:
            if strict:
                raise ValueError(f"{links_where}, line {number}: link {source!r} -> {target!r} names "
                                 f"{', '.join(map(repr, unknown))}, which has no article file; "
                                 "pass strict=False to drop such links")
            n_dropped += 1
            continue
        edge = (index[source], index[target])
        if edge[0] == edge[1]:
            n_self += 1
        elif edge in seen:
            n_repeated += 1
        else:
            seen.add(edge)
            edges.append(edge)
    if not edges:
        raise ValueError(f"{links_where}: none of its {len(link_rows)} links joins two distinct articles of "
                         f"the archive (to a missing article: {n_dropped}, self-links: {n_self})")

    categories = [[] for _ in names]
    n_dropped_categories = 0
    for number, article, category in category_rows:
        if article not in index:
            if strict:
                raise ValueError(f"{archive_path}: {table_names['categories']}, line {number}: article "
                                 f"{article!r} has no article file; pass strict=False to ignore it")
            n_dropped_categories += 1
            continue
        categories[index[article]].append(category)
    return LinkedCorpus(
        name="wikispeedia",
        names=_readonly_copy(names, dtype=str),
        texts=[text for _name, text in articles],
        links=Links.from_edges(np.array(edges, dtype=np.int64), len(names)),
        categories=[tuple(c) for c in categories],
        n_dropped_links=n_dropped,
        n_self_links=n_self,
        n_duplicate_links=n_repeated,
        n_dropped_categories=n_dropped_categories,
        filename=str(archive_path),
    )


# ------------------------------------------------------------- SMART test collections

_SMART_SOURCE = ("CISI and Cranfield are at http://ir.dcs.gla.ac.uk/resources/test_collections/ "
                 "(cisi.tar.gz, cran.tar.gz).")
# The fields joined into the text of a document or query, in this order.
_SMART_TEXT_FIELDS = ("T", "W")
_SMART_BODY = "W"
_SMART_MARKER = re.compile(r"^\.([A-Z])(?:[ \t]+(.*?))?[ \t]*$")
_SMART_COLLECTIONS = {
    "cisi": dict(folder="ir/cisi", documents="CISI.ALL", queries="CISI.QRY", qrels="CISI.REL",
                 queries_by_position=False, grade_column=None, title_opens_body=False),
    "cran": dict(folder="ir/cran", documents="cran.all.1400", queries="cran.qry", qrels="cranqrel",
                 queries_by_position=True, grade_column=2, title_opens_body=True),
}
_SMART_ALIASES = {"cisi": "cisi", "ir/cisi": "cisi", "cran": "cran", "cranfield": "cran", "ir/cran": "cran"}
_CRANFIELD_RELEVANT_GRADES = (1, 2, 3, 4)


def _read_smart_records(path):
    """Parse a SMART file into ``[(id, {field: text}), ...]`` in file order.

    A record starts at ``.I <id>``; each ``.X`` line starts field X (text on the marker line
    itself belongs to the field). A field that repeats within a record is appended to (CISI
    gives each author an ``.A`` of its own); once the body (``.W``) has started, a repeated
    marker is taken as a stray line of the body, as in three Cranfield records (240, 576,
    578) whose abstracts contain such lines. Returns the records and the number of those
    stray markers.
    """
    records = []
    current = None
    field_name = None
    n_stray = 0
    for number, line in _open_text_lines(path):
        match = _SMART_MARKER.match(line)
        if match is not None and match.group(1) == "I":
            raw_id = (match.group(2) or "").strip()
            if not raw_id or len(raw_id.split()) != 1:
                raise ValueError(f"{path}, line {number}: '.I' must be followed by one record id; got {line!r}")
            current = (_normalise_id(raw_id), number, {})
            records.append(current)
            field_name = None
            continue
        if current is None:
            if match is not None:
                raise ValueError(f"{path}, line {number}: field '.{match.group(1)}' before the first '.I' "
                                 "record marker; is this a SMART-format file?")
            if line.strip():
                raise ValueError(f"{path}, line {number}: text before the first '.I' record marker; "
                                 "is this a SMART-format file?")
            continue
        fields = current[2]
        if match is not None:
            field_name = match.group(1)
            if field_name in fields and _SMART_BODY in fields:
                n_stray += 1
                field_name = _SMART_BODY
            fields.setdefault(field_name, [])
            if match.group(2):
                fields[field_name].append(match.group(2))
            continue
        if field_name is None:
            if line.strip():
                raise ValueError(f"{path}, line {number}: text after '.I {current[0]}' (line {current[1]}) "
                                 "that belongs to no field; expected a field marker such as '.T' or '.W'")
            continue
        fields[field_name].append(line)
    if not records:
        raise ValueError(f"{path} holds no '.I' records; is it a SMART-format file?")
    return [(rid, {k: "\n".join(v).strip() for k, v in fields.items()}) for rid, _n, fields in records], n_stray


def _smart_text(fields, title_opens_body):
    """Title and body. Where the collection's bodies open with the title (Cranfield), a body
    that does so is used alone; elsewhere (CISI) a body may merely begin with the words of
    its title ("The Managerial Grid method of ..."), so the title is always added."""
    title, body = fields.get("T", ""), fields.get(_SMART_BODY, "")
    if title_opens_body and title and " ".join(body.split()).startswith(" ".join(title.split())):
        return body, True
    return "\n".join(part for part in (title, body) if part), False


def _read_smart_qrels(path, query_ids, queries_by_position, grade_column):
    """Judgments ``(query_id, doc_id, grade, relevant, where)`` of a SMART relevance file."""
    n_columns = 2 if grade_column is None else grade_column + 1
    judgments = []
    for number, line in _open_text_lines(path):
        fields = line.split()
        if not fields:
            continue
        where = f"{path}, line {number}"
        if len(fields) < n_columns:
            raise ValueError(f"{where}: {len(fields)} field(s), expected at least {n_columns} "
                             "(query, document" + (", grade)" if grade_column is not None else ")"))
        query, doc = fields[0], _normalise_id(fields[1])
        if queries_by_position:
            if not query.isdigit() or not 1 <= int(query) <= len(query_ids):
                raise ValueError(f"{where}: query number {query!r} is not a position 1..{len(query_ids)} "
                                 "in the query file (this relevance file numbers queries by position)")
            query = query_ids[int(query) - 1]
        else:
            query = _normalise_id(query)
        if grade_column is None:
            grade, relevant = 1, True  # the file lists relevant pairs only
        else:
            try:
                grade = int(fields[grade_column])
            except ValueError:
                raise ValueError(f"{where}: relevance grade {fields[grade_column]!r} is not an integer") from None
            relevant = grade in _CRANFIELD_RELEVANT_GRADES
        judgments.append((query, doc, grade, relevant, where))
    if not judgments:
        raise ValueError(f"{path} holds no relevance judgments")
    return judgments


def load_smart_collection(name, data_dir=None, *, strict=True):
    """Load a SMART-format test collection: CISI or Cranfield.

    Parameters
    ----------
    name : {"cisi", "cran"}
        Also accepted: ``"ir/cisi"``, ``"ir/cran"``, ``"cranfield"``.
    data_dir : path-like, optional
        Data directory (see :func:`find_data_dir`); the files are read from
        ``<data_dir>/ir/cisi/`` (``CISI.ALL``, ``CISI.QRY``, ``CISI.REL``) or
        ``<data_dir>/ir/cran/`` (``cran.all.1400``, ``cran.qry``, ``cranqrel``), or from
        ``data_dir`` itself when it holds them.
    strict : bool, default=True
        A judgment naming a query or document that is not in the collection is an error;
        with False it is dropped and counted in ``info["n_dropped_judgments"]``.

    Returns
    -------
    RetrievalCollection
        Texts are the title followed by the body (``.T`` + ``.W``; Cranfield abstracts
        already start with their title, which is then not repeated); the author (``.A``),
        source (``.B``) and cross-reference (``.X``) fields are not used. Ids are the
        ``.I`` numbers without leading zeros.

        * **CISI** (1,460 documents, 112 queries): ``CISI.REL`` lists the relevant pairs
          (3,114), so every listed pair has grade 1. Only 76 queries have a judgment; the
          other 36 are in ``queries_without_judgments``. ``CISI.BLN`` (Boolean queries) is
          not read.
        * **Cranfield** (1,400 documents, 225 queries): the query numbers of ``cranqrel`` are
          positions 1..225 in ``cran.qry``, whose ``.I`` numbers run from 1 to 365 with gaps;
          the loader maps them, so ``qrels`` and ``query_ids`` use the ``.I`` numbers. The
          grades are Cleverdon's codes (``cranqrel.readme``): 1 complete answer, 2 high
          relevance, 3 useful, 4 minimum interest, 5 no interest; the file also gives every
          query one pair with grade -1. Grades 1-4 count as relevant (1,612 pairs), -1 and 5
          do not. All 225 queries have a relevant document. Note that a smaller grade means
          *more* relevant: convert before using ``qrels`` for graded measures such as nDCG.

    Notes
    -----
    Three Cranfield abstracts (240, 576, 578) contain stray ``.A``/``.B``/``.W`` lines; these
    are kept as part of the abstract (``info["n_stray_markers_in_body"]``: 4). Two Cranfield
    documents (471, 995) are empty in the distributed file; they are kept, so that the
    document count and ids match the qrels (``info["n_empty_documents"]``).

    Raises
    ------
    ValueError
        On a malformed file (a field or text before the first ``.I``, an ``.I`` without id,
        a repeated id, a qrels line with too few fields, a non-integer grade, a Cranfield
        query position out of range) or, with ``strict``, a judgment naming an unknown query
        or document. Messages name the file and line.
    """
    if not isinstance(name, str) or name.strip().lower() not in _SMART_ALIASES:
        raise ValueError(f"unknown SMART collection {name!r}; choose 'cisi' or 'cran'")
    if not isinstance(strict, (bool, np.bool_)):
        raise TypeError(f"strict must be True or False; got {strict!r}")
    key = _SMART_ALIASES[name.strip().lower()]
    spec = _SMART_COLLECTIONS[key]
    paths = {part: _corpus_file(data_dir, [f"{spec['folder']}/{spec[part]}"], f"{key} {part} file", _SMART_SOURCE)
             for part in ("documents", "queries", "qrels")}
    docs, n_stray_docs = _read_smart_records(paths["documents"])
    queries, n_stray_queries = _read_smart_records(paths["queries"])
    doc_texts = [_smart_text(fields, spec["title_opens_body"]) for _id, fields in docs]
    query_texts = [_smart_text(fields, spec["title_opens_body"]) for _id, fields in queries]
    query_ids = [qid for qid, _fields in queries]
    judgments = _read_smart_qrels(paths["qrels"], query_ids, spec["queries_by_position"], spec["grade_column"])
    info = {
        "files": {part: str(p) for part, p in paths.items()},
        "n_stray_markers_in_body": n_stray_docs + n_stray_queries,
        "n_titles_in_body": sum(t[1] for t in doc_texts) + sum(t[1] for t in query_texts),
        "n_empty_documents": sum(1 for t in doc_texts if not t[0].strip()),
        "n_judgments": len(judgments),
    }
    return _build_collection(key, [d for d, _f in docs], [t[0] for t in doc_texts], query_ids,
                             [t[0] for t in query_texts], judgments, strict, info)


# -------------------------------------------------------------- TREC-style collections

_TREC_DOC = re.compile(r"<DOC(?:\s[^>]*)?>(.*?)</DOC>", re.DOTALL | re.IGNORECASE)
_TREC_DOC_OPEN = re.compile(r"<DOC(?:\s[^>]*)?>", re.IGNORECASE)
_TREC_DOCNO = re.compile(r"<DOCNO>(.*?)</DOCNO>", re.DOTALL | re.IGNORECASE)
# Bookkeeping elements whose content is not part of the text.
_TREC_METADATA = re.compile(r"<(DOCNO|DOCOLDNO|DOCID|DOCHDR|DOCTYPE|TXTTYPE)\b[^>]*>.*?</\1>",
                            re.DOTALL | re.IGNORECASE)
_SGML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SGML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_TREC_TOP = re.compile(r"<top>(.*?)</top>", re.DOTALL | re.IGNORECASE)
_TREC_TOPIC_TAG = re.compile(r"<([a-z]+)>", re.IGNORECASE)
_TREC_TOPIC_PREFIX = re.compile(r"^\s*(?:Number|Topic|Title|Description|Narrative)\s*:", re.IGNORECASE)
_TREC_TOPIC_FIELDS = ("title", "desc", "narr")


def _as_paths(value, name):
    if isinstance(value, (str, os.PathLike)):
        value = [value]
    try:
        paths = [Path(v).expanduser() for v in value]
    except TypeError:
        raise TypeError(f"{name} must be a path or a list of paths; got {type(value).__name__}") from None
    if not paths:
        raise ValueError(f"{name} is an empty list; pass at least one path")
    for p in paths:
        if not p.exists():
            raise FileNotFoundError(f"{name}: {str(p)!r} does not exist")
    return paths


def _read_text_file(path, encoding):
    """Whole text of a plain or gzipped file, with errors that name it."""
    if path.suffix == ".Z":
        raise ValueError(f"{path}: Unix compress (.Z) files are not supported; uncompress them "
                         "(or recompress with gzip) first")
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as handle:
            raw = handle.read()
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(f"{path} could not be read ({exc})") from None
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise ValueError(f"{path}, line {line}: not {encoding} text ({exc.reason}); older TREC "
                         "collections are Latin-1: pass encoding='latin-1'") from None
    except LookupError:
        raise ValueError(f"unknown encoding {encoding!r}") from None


def _clean_sgml(text):
    text = html.unescape(_SGML_TAG.sub(" ", _SGML_COMMENT.sub(" ", text)))
    # tags and comments leave runs of blanks behind; one space between words is what counts
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def _trec_document_text(body, text_tags):
    body = _TREC_METADATA.sub(" ", body)
    if text_tags is not None:
        pattern = re.compile(r"<(" + "|".join(map(re.escape, text_tags)) + r")\b[^>]*>(.*?)</\1>",
                             re.DOTALL | re.IGNORECASE)
        body = "\n".join(m.group(2) for m in pattern.finditer(body))
    return _clean_sgml(body)


def _read_trec_documents(paths, text_tags, encoding):
    files = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file() and not f.name.startswith(".")))
        else:
            files.append(p)
    doc_ids, texts, skipped = [], [], []
    for path in files:
        text = _read_text_file(path, encoding)
        n_open = len(_TREC_DOC_OPEN.findall(text))
        if n_open == 0:
            skipped.append(str(path))  # read-me files and the like beside the documents
            continue
        found = _TREC_DOC.findall(text)
        if len(found) != n_open:
            raise ValueError(f"{path}: {n_open} <DOC> tag(s) but {len(found)} complete <DOC>...</DOC> "
                             "element(s); is the file cut off?")
        for position, body in enumerate(found, start=1):
            docno = _TREC_DOCNO.search(body)
            if docno is None or not docno.group(1).strip():
                raise ValueError(f"{path}: document {position} has no <DOCNO>...</DOCNO>")
            doc_ids.append(_normalise_id(docno.group(1)))
            texts.append(_trec_document_text(body, text_tags))
    if not doc_ids:
        raise ValueError(f"no <DOC> element in {', '.join(str(p) for p in paths)}; "
                         "expected TREC SGML (<DOC><DOCNO>...</DOCNO>...</DOC>)")
    return doc_ids, texts, {"n_files": len(files) - len(skipped), "files_without_documents": skipped}


def _read_trec_topics(paths, fields, encoding):
    query_ids, queries = [], []
    for path in paths:
        text = _read_text_file(path, encoding)
        blocks = _TREC_TOP.findall(text)
        n_open = len(re.findall(r"<top>", text, re.IGNORECASE))
        if n_open != len(blocks):
            raise ValueError(f"{path}: {n_open} <top> tag(s) but {len(blocks)} complete <top>...</top> topic(s)")
        if not blocks:
            raise ValueError(f"{path} holds no <top>...</top> topic")
        for position, block in enumerate(blocks, start=1):
            # Classic topic tags are never closed: a field runs until the next tag.
            parts = {}
            tags = list(_TREC_TOPIC_TAG.finditer(block))
            for tag, nxt in zip(tags, tags[1:] + [None]):
                content = block[tag.end(): nxt.start() if nxt is not None else len(block)]
                content = _TREC_TOPIC_PREFIX.sub("", _SGML_TAG.sub(" ", content), count=1)
                parts[tag.group(1).lower()] = " ".join(content.split())
            qid = parts.get("num", "")
            if not qid:
                raise ValueError(f"{path}: topic {position} has no <num> (topic number)")
            qid = _normalise_id(qid)
            missing = [f for f in fields if not parts.get(f)]
            if missing:
                raise ValueError(f"{path}: topic {qid} has no (or an empty) <{missing[0]}> field; "
                                 f"fields={fields!r} asks for it")
            query_ids.append(qid)
            queries.append("\n".join(parts[f] for f in fields))
    return query_ids, queries


def _read_trec_qrels(paths, encoding):
    judgments = []
    for path in paths:
        for number, line in enumerate(_read_text_file(path, encoding).splitlines(), start=1):
            parts = line.split()
            if not parts:
                continue
            where = f"{path}, line {number}"
            if len(parts) != 4:
                raise ValueError(f"{where}: {len(parts)} field(s), expected 4: query, iteration, docno, relevance")
            try:
                grade = int(parts[3])
            except ValueError:
                raise ValueError(f"{where}: relevance {parts[3]!r} is not an integer") from None
            judgments.append((_normalise_id(parts[0]), _normalise_id(parts[2]), grade, grade >= 1, where))
    if not judgments:
        raise ValueError(f"no relevance judgment in {', '.join(str(p) for p in paths)}")
    return judgments


def load_trec_collection(documents, topics, qrels, *, fields=("title",), text_tags=None,
                         encoding="utf-8", strict=True, name="trec"):
    """Load a TREC-style test collection from its document, topic and qrels files.

    Parameters
    ----------
    documents : path-like or list of path-likes
        Files (plain or ``.gz``) or folders of files (read recursively, in sorted order) in
        TREC SGML: ``<DOC><DOCNO>id</DOCNO> ... text ... </DOC>``, any number per file. Files
        with no ``<DOC>`` (read-me files) are skipped and listed in
        ``info["files_without_documents"]``.
    topics : path-like or list of path-likes
        Topic files: ``<top><num> Number: 301 <title> ... <desc> Description: ...
        <narr> Narrative: ... </top>``.
    qrels : path-like or list of path-likes
        Lines ``query iteration docno relevance``; relevance >= 1 is relevant.
    fields : tuple of str, default=("title",)
        Topic fields joined (one per line) into the query text, e.g. ``("title", "desc")``.
    text_tags : tuple of str, optional
        Elements whose content is the document text, e.g. ``("HEADLINE", "TEXT")``. By default
        everything inside ``<DOC>`` except the bookkeeping elements (``DOCNO``, ``DOCOLDNO``,
        ``DOCID``, ``DOCHDR``, ``DOCTYPE``, ``TXTTYPE``). Tags are removed and entities such
        as ``&amp;`` decoded.
    encoding : str, default="utf-8"
        Encoding of every file; the older TREC disks need ``"latin-1"``.
    strict : bool, default=True
        A qrels line naming a query or document that was not loaded is an error; with False it
        is dropped and counted in ``info["n_dropped_judgments"]`` (useful with a qrels file
        that covers more topics than the ones loaded).
    name : str, default="trec"
        Name of the collection, shown in its repr.

    Returns
    -------
    RetrievalCollection
        Documents in file order, queries in topic-file order; all-digit ids lose their
        leading zeros (``"0301"`` and ``"301"`` are the same query).

    Raises
    ------
    ValueError
        On a malformed file (an unclosed ``<DOC>`` or ``<top>``, a document without DOCNO, a
        topic without number or without a requested field, a qrels line without 4 fields),
        text that is not in ``encoding``, duplicate ids, or (with ``strict``) a judgment
        naming an unknown query or document.
    """
    if isinstance(fields, str):
        fields = (fields,)
    try:
        fields = tuple(str(f).strip().lower() for f in fields)
    except TypeError:
        raise TypeError(f"fields must be a tuple of topic field names; got {fields!r}") from None
    if not fields:
        raise ValueError(f"fields is empty; choose from {_TREC_TOPIC_FIELDS}")
    if text_tags is not None:
        if isinstance(text_tags, str):
            text_tags = (text_tags,)
        text_tags = tuple(text_tags)
        if not text_tags or not all(isinstance(t, str) and re.fullmatch(r"[A-Za-z][\w.-]*", t) for t in text_tags):
            raise ValueError(f"text_tags must be a non-empty tuple of element names such as 'TEXT'; got {text_tags!r}")
    if not isinstance(strict, (bool, np.bool_)):
        raise TypeError(f"strict must be True or False; got {strict!r}")
    doc_paths = _as_paths(documents, "documents")
    topic_paths = _as_paths(topics, "topics")
    qrels_paths = _as_paths(qrels, "qrels")
    for p in topic_paths + qrels_paths:
        if p.is_dir():
            raise ValueError(f"{p} is a folder; topics and qrels must be files")
    doc_ids, texts, doc_info = _read_trec_documents(doc_paths, text_tags, encoding)
    query_ids, queries = _read_trec_topics(topic_paths, fields, encoding)
    judgments = _read_trec_qrels(qrels_paths, encoding)
    info = dict(doc_info, files={"documents": [str(p) for p in doc_paths],
                                 "topics": [str(p) for p in topic_paths],
                                 "qrels": [str(p) for p in qrels_paths]},
                fields=fields, n_judgments=len(judgments))
    return _build_collection(name, doc_ids, texts, query_ids, queries, judgments, strict, info)


# ------------------------------------------------------------------------------ UCI

_UCI_LOADERS = {
    "iris": "load_iris",
    "wine": "load_wine",
    "breast_cancer": "load_breast_cancer",
    "digits": "load_digits",
}


def load_uci(name):
    """Load a small UCI data set from scikit-learn's bundled copies.

    Parameters
    ----------
    name : {"iris", "wine", "breast_cancer", "digits"}

    Returns
    -------
    Bunch
        ``data`` (float ndarray, n_samples x n_features), ``target`` (int ndarray),
        ``target_names``, ``feature_names`` (where scikit-learn provides them).
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, one of {sorted(_UCI_LOADERS)}; got {type(name).__name__}")
    key = name.strip().lower().replace("-", "_")
    if key not in _UCI_LOADERS:
        raise ValueError(f"unknown UCI data set {name!r}; choose one of {sorted(_UCI_LOADERS)}")
    import sklearn.datasets

    raw = getattr(sklearn.datasets, _UCI_LOADERS[key])()
    bunch = Bunch(
        data=np.asarray(raw.data, dtype=np.float64),
        target=np.asarray(raw.target, dtype=np.int64),
        target_names=[str(t) for t in raw.target_names],
    )
    if "feature_names" in raw:
        bunch.feature_names = [str(f) for f in raw.feature_names]
    return bunch


# ------------------------------------------------------------------ synthetic corpus

def _check_count(value, name, minimum=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value}")
    return int(value)


def _check_fraction(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in [0, 1); got {value!r}")
    if not 0.0 <= float(value) < 1.0:
        raise ValueError(f"{name} must be in [0, 1); got {value}")
    return float(value)


def _zipf_weights(n, exponent, rng):
    weights = 1.0 / np.arange(1, n + 1) ** exponent
    return rng.permutation(weights / weights.sum())


# Fixed shape parameters of the generator; the public arguments set the amounts.
_TOPIC_ZIPF = 0.8        # skew of a topic's own vocabulary
_BACKGROUND_ZIPF = 1.1   # close to the Zipf law of natural text
_SECONDARY_TOPIC_SHARE = 0.3  # share of topic tokens drawn from the document's second topic
_BURST_LENGTH = (3, 7)   # boilerplate comes in runs of co-occurring words (inclusive range)
_STYLE_MIN_WORDS = 5


def make_clustered_corpus(n_clusters=20, docs_per_cluster=30, vocab_size=2000, doc_length=(40, 120),
                          topic_words=40, noise=0.5, n_styles=5, style_strength=0.3, random_state=0):
    """Generate a clustered text corpus whose clusters are hidden behind nuisance styles.

    Each document belongs to one cluster (topic) and has three kinds of tokens:

    * **topic** tokens, from its cluster's Zipf-skewed distribution over ``topic_words``
      words of its own; like a cross-posted message, each document also draws 30% of
      its topic tokens from one other, randomly chosen topic;
    * **background** tokens (a ``noise`` fraction), from a Zipf-distributed vocabulary
      shared by all clusters, like function words;
    * **style** tokens (a ``style_strength`` fraction): every document gets one of
      ``n_styles`` styles at random, independently of its topic - think of the
      boilerplate of a site or the habits of an author. A style is a group of words that
      appear together in bursts (runs of 3-7 tokens drawn from the group).

    Styles make documents of different topics look alike, and documents of one topic
    differ a lot along a few correlated directions (the style words). Plain tf-idf
    cosine is therefore clearly imperfect, while a metric learned from other clusters
    can discount the style directions. On the defaults, tf-idf cosine retrieval of
    held-out clusters reaches an 11-point average precision of about 0.4, and whitening
    an LSI space by the within-cluster scatter of the other clusters about 0.75.

    Parameters
    ----------
    n_clusters, docs_per_cluster : int, default=20, 30
    vocab_size : int, default=2000
        Total number of distinct words; must leave room for the topic and style words
        (``n_clusters * topic_words + n_styles * max(5, topic_words // 2)``) plus a
        background vocabulary when ``noise > 0``.
    doc_length : (int, int), default=(40, 120)
        Document lengths in tokens are uniform on this inclusive range.
    topic_words : int, default=40
        Words per topic.
    noise : float in [0, 1), default=0.5
        Fraction of each document's tokens drawn from the background vocabulary.
    n_styles : int, default=5
        Number of nuisance styles (0 is allowed with ``style_strength=0``).
    style_strength : float in [0, 1), default=0.3
        Fraction of each document's tokens drawn from its style;
        ``noise + style_strength`` must be < 1 so that some topic tokens remain.
    random_state : int, numpy Generator or None, default=0

    Returns
    -------
    Bunch
        ``data`` (list of str, words like ``"w0123"`` separated by spaces), ``target``
        (cluster of each document, int ndarray; documents are grouped by cluster),
        ``target_names``, ``style`` (style of each document, -1 when there are none),
        ``secondary_topic`` (the other topic each document touches, -1 with one cluster),
        ``topic_words_`` (list of each topic's words), ``style_words_`` (list of each
        style's words), ``background_words_``.
    """
    n_clusters = _check_count(n_clusters, "n_clusters")
    docs_per_cluster = _check_count(docs_per_cluster, "docs_per_cluster")
    vocab_size = _check_count(vocab_size, "vocab_size")
    topic_words = _check_count(topic_words, "topic_words")
    n_styles = _check_count(n_styles, "n_styles", minimum=0)
    noise = _check_fraction(noise, "noise")
    style_strength = _check_fraction(style_strength, "style_strength")
    if noise + style_strength >= 1.0:
        raise ValueError(f"noise + style_strength must be < 1 so that documents keep some topic tokens; "
                         f"got {noise} + {style_strength} = {noise + style_strength}")
    if style_strength > 0 and n_styles == 0:
        raise ValueError("style_strength > 0 needs n_styles >= 1 (or set style_strength=0)")
    try:
        low, high = (int(v) if isinstance(v, numbers.Integral) and not isinstance(v, bool) else None
                     for v in doc_length)
    except (TypeError, ValueError):
        raise TypeError(f"doc_length must be a pair of integers (min, max); got {doc_length!r}") from None
    if low is None or high is None:
        raise TypeError(f"doc_length must be a pair of integers (min, max); got {doc_length!r}")
    if not 1 <= low <= high:
        raise ValueError(f"doc_length must satisfy 1 <= min <= max; got {doc_length!r}")

    style_size = max(_STYLE_MIN_WORDS, topic_words // 2) if n_styles else 0
    n_reserved = n_clusters * topic_words + n_styles * style_size
    n_background = vocab_size - n_reserved
    min_background = topic_words if noise > 0 else 0
    if n_background < min_background:
        raise ValueError(
            f"vocab_size={vocab_size} is too small: {n_clusters} topics x {topic_words} words + "
            f"{n_styles} styles x {style_size} words = {n_reserved} reserved words, and the "
            f"background vocabulary needs at least {min_background}; use vocab_size >= "
            f"{n_reserved + min_background}")
    rng = check_random_state(random_state)

    width = len(str(vocab_size - 1))
    words = np.array([f"w{i:0{width}d}" for i in range(vocab_size)])
    word_order = rng.permutation(vocab_size)  # so word ids say nothing about their role
    topic_ids = word_order[: n_clusters * topic_words].reshape(n_clusters, topic_words)
    style_ids = word_order[n_clusters * topic_words: n_reserved].reshape(n_styles, style_size)
    background_ids = word_order[n_reserved:]

    topic_cdf = np.cumsum([_zipf_weights(topic_words, _TOPIC_ZIPF, rng) for _ in range(n_clusters)], axis=1)
    style_probs = [_zipf_weights(style_size, _TOPIC_ZIPF, rng) for _ in range(n_styles)]
    background_probs = _zipf_weights(len(background_ids), _BACKGROUND_ZIPF, rng) if len(background_ids) else None

    n_docs = n_clusters * docs_per_cluster
    target = np.repeat(np.arange(n_clusters), docs_per_cluster)
    styles = rng.integers(n_styles, size=n_docs) if n_styles else np.full(n_docs, -1)
    lengths = rng.integers(low, high + 1, size=n_docs)
    secondary_topics = np.full(n_docs, -1, dtype=np.int64)

    data = []
    for doc, (topic, style, length) in enumerate(zip(target, styles, lengths)):
        n_noise = int(round(noise * length))
        n_style = int(round(style_strength * length))
        n_topic = max(int(length) - n_noise - n_style, 0)
        # Like a cross-posted message, a document also touches one other topic, so that
        # clusters overlap and even a perfect nuisance filter leaves retrieval imperfect.
        token_topic = np.full(n_topic, topic)
        if n_clusters > 1:
            secondary_topics[doc] = (topic + rng.integers(1, n_clusters)) % n_clusters
            token_topic[rng.random(n_topic) < _SECONDARY_TOPIC_SHARE] = secondary_topics[doc]
        rank = (rng.random(n_topic)[:, None] > topic_cdf[token_topic]).sum(axis=1)
        segments = [[w] for w in topic_ids[token_topic, np.minimum(rank, topic_words - 1)]]
        if n_noise:
            segments.extend([w] for w in rng.choice(background_ids, size=n_noise, p=background_probs))
        if n_style:
            style_tokens = rng.choice(style_ids[style], size=n_style, p=style_probs[style])
            start = 0
            while start < n_style:
                burst = int(rng.integers(_BURST_LENGTH[0], _BURST_LENGTH[1] + 1))
                segments.append(list(style_tokens[start:start + burst]))
                start += burst
        order = rng.permutation(len(segments))
        data.append(" ".join(words[w] for i in order for w in segments[i]))

    return Bunch(
        data=data,
        target=target.astype(np.int64),
        target_names=[f"topic{k:0{len(str(n_clusters - 1))}d}" for k in range(n_clusters)],
        style=styles.astype(np.int64),
        secondary_topic=secondary_topics,
        topic_words_=[list(words[row]) for row in topic_ids],
        style_words_=[list(words[row]) for row in style_ids],
        background_words_=list(words[background_ids]),
    )


# The WebKB loader lives in its own module (HTML, URL and link handling); it is re-exported here so
# that every corpus loads from learnsim.datasets.
from .webkb import load_webkb  # noqa: E402
