"""Loaders for the development corpora and a synthetic clustered-text generator.

The loaders read the corpora in the formats their publishers distribute (a tarball, a
gzipped caption list), so nothing has to be unpacked or converted first. They look for
the files under a *data directory* laid out like the project's ``../shared/data``::

    <data_dir>/20newsgroups/20news-bydate.tar.gz
    <data_dir>/flickr8k-captions/Flickr8k.token.txt.gz  (+ Flickr_8k.{train,dev,test}Images.txt)
    <data_dir>/quora-sample/{dev,test}.tsv
    <data_dir>/stsbenchmark/sts-{train,dev,test}.csv

See :func:`find_data_dir` for how that directory is chosen. :func:`make_clustered_corpus`
needs no files at all; it is the default corpus for the demo and the fast tests.
"""
from __future__ import annotations

import csv
import functools
import gzip
import math
import numbers
import os
import re
import tarfile
import zlib
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from learnsim._validation import check_random_state
from learnsim.supervision import Pairs

__all__ = [
    "find_data_dir",
    "load_20newsgroups",
    "load_flickr8k_captions",
    "load_quora_pairs",
    "load_sts_benchmark",
    "load_uci",
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
