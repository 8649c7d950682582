"""Wikispeedia: Wikipedia articles and the hyperlinks between them, the stand-in for paper 002's corpus."""
from __future__ import annotations

import functools
import re
import tarfile
import urllib.parse
import warnings
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from learnsim.supervision import Links

from ._base import _corpus_file, _readonly_copy
from ._decode import UndecodableBytesWarning, _Decoder, check_encoding_errors


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

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.datasets import LinkedCorpus
    >>> from learnsim.supervision import Links
    >>> corpus = LinkedCorpus(name="tiny", names=np.array(["Cat", "Dog", "Fish"]),
    ...                       texts=["cats purr", "dogs bark", "fish swim"],
    ...                       links=Links.from_edges([[0, 1], [1, 2]], n_items=3),
    ...                       categories=[["animals"], ["animals"], ["animals"]])
    >>> corpus
    LinkedCorpus('tiny': 3 documents, 2 links; dropped 0 to unknown documents, 0 self-links, 0 repeated)
    >>> corpus.links.out_links(0)
    array([1])
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


_WIKISPEEDIA_FILE = "wikispeedia/wikispeedia-articles-links.tar.gz"
_WIKISPEEDIA_SOURCE = ("Wikispeedia is at https://snap.stanford.edu/data/wikispeedia.html "
                       "(wikispeedia_articles_plaintext.tar.gz and wikispeedia_paths-and-graph.tar.gz).")
_WIKI_ARTICLE = re.compile(r"^(?:\./)?(?:.*/)?plaintext_articles/([^/]+)\.txt$")
_WIKI_TABLES = {"links": re.compile(r"^(?:\./)?(?:.*/)?links\.tsv$"),
                "categories": re.compile(r"^(?:\./)?(?:.*/)?categories\.tsv$")}


def _decode_member(raw, where, encoding_errors, replaced):
    """Text of an archive member under the bad-bytes policy; a member whose bad bytes were
    replaced is recorded in ``replaced`` as ``(where, n_lines, first_line)``."""
    decoder = _Decoder(where, encoding_errors,
                       hint="the Wikispeedia files are UTF-8, so the file is damaged or not from it")
    text = decoder.decode_text(raw)
    if decoder.n_lines:
        replaced.append((where, decoder.n_lines, decoder.first_line))
    return text


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
def _read_wikispeedia_archive(path, mtime_ns, size, encoding_errors="replace"):
    """Parse the archive once per process (keyed by mtime and size so that a replaced file is
    re-read). Returns ``(articles, links, categories, table_names, replaced)`` with decoded names:
    ``articles`` = ((name, text), ...) sorted by name, ``links`` = ((line, source, target), ...),
    ``categories`` = ((line, article, category), ...)."""
    articles = {}
    tables = {}
    replaced = []
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
                    articles[name] = (member.name, _decode_member(archive.extractfile(member).read(), where, encoding_errors,
                                                              replaced))
                    continue
                for table, pattern in _WIKI_TABLES.items():
                    if pattern.match(member.name):
                        if table in tables:
                            raise ValueError(f"{path} holds two {table}.tsv files ({tables[table][0]} and "
                                             f"{member.name}); pass an archive with one")
                        tables[table] = (member.name, _decode_member(archive.extractfile(member).read(), where, encoding_errors,
                                                              replaced))
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
    return ordered, rows["links"], rows["categories"], {t: tables[t][0] for t in tables}, tuple(replaced)


def load_wikispeedia(data_dir=None, *, path=None, strict=False, encoding_errors="replace"):
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
    encoding_errors : {"replace", "strict"}, default="replace"
        Bytes that are not UTF-8 become U+FFFD, with one
        :class:`~learnsim.datasets.UndecodableBytesWarning` for the archive counting the files
        and lines affected; ``"strict"`` raises :class:`~learnsim.datasets.DocumentFormatError`.

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
        If an article or table is not UTF-8 with ``encoding_errors="strict"`` (the message
        names the file and line), the archive holds
        no articles or lacks a table, a line is malformed, a link names an unknown article
        with ``strict=True``, or no link joins two distinct articles.

    Notes
    -----
    The archive is parsed once per process (about 2 s) and cached in memory. The text is not
    stemmed or stopped; that is the vectoriser's job (paper 002, sec. 4.1, uses Porter
    stemming and drops terms in very many documents or in only one).

    Examples
    --------
    Needs ``wikispeedia`` in ../shared/data (or ``$LEARNSIM_DATA``):

    >>> from learnsim.datasets import load_wikispeedia
    >>> corpus = load_wikispeedia()                   # doctest: +SKIP
    >>> corpus                                        # doctest: +SKIP
    LinkedCorpus('wikispeedia': 4604 documents, 119772 links; dropped 0 to unknown documents, 110 self-links, 0 repeated)
    """
    if path is not None and data_dir is not None:
        raise ValueError("pass either path (the archive) or data_dir (the data directory), not both")
    if not isinstance(strict, (bool, np.bool_)):
        raise TypeError(f"strict must be True or False; got {strict!r}")
    check_encoding_errors(encoding_errors)
    if path is not None:
        archive_path = Path(path).expanduser()
        if not archive_path.is_file():
            raise FileNotFoundError(f"path {str(archive_path)!r} is not an existing file; pass the "
                                    "Wikispeedia tar archive")
    else:
        archive_path = _corpus_file(data_dir, [_WIKISPEEDIA_FILE], "Wikispeedia archive", _WIKISPEEDIA_SOURCE)
    stat = archive_path.stat()
    articles, link_rows, category_rows, table_names, replaced = _read_wikispeedia_archive(
        str(archive_path.resolve()), stat.st_mtime_ns, stat.st_size, encoding_errors)
    if replaced:
        # warned here, not while parsing, so that every call says it (the parse is cached)
        where, _n, first = replaced[0]
        warnings.warn(UndecodableBytesWarning(
            f"{archive_path}: {len(replaced)} file(s) with {sum(r[1] for r in replaced)} line(s) that are not "
            f"UTF-8 text (first: {where}, line {first}); their bad bytes became U+FFFD. Pass "
            "encoding_errors='strict' (--encoding-errors strict) to refuse such an archive."), stacklevel=2)

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
