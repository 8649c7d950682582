"""The 20 Newsgroups "bydate" corpus, read straight from its tarball."""
from __future__ import annotations

import functools
import re
import tarfile
import zlib

import numpy as np
from sklearn.utils import Bunch

from ._base import _corpus_file, chosen_categories

_NEWSGROUPS_FILE = "20newsgroups/20news-bydate.tar.gz"
_NEWSGROUPS_SOURCE = "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz"
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

    Examples
    --------
    Needs ``20newsgroups`` in ../shared/data (or ``$LEARNSIM_DATA``):

    >>> from learnsim.datasets import load_20newsgroups
    >>> test = load_20newsgroups("test")                  # doctest: +SKIP
    >>> len(test.data), len(test.target_names)            # doctest: +SKIP
    (7532, 20)
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
    target_names = chosen_categories(categories, all_groups, "groups")
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
