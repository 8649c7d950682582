"""Loader for the WebKB "4 universities" corpus (Craven et al. 1998), used by paper 004.

The paper's supervision and features built on the corpus (:func:`learnsim.webkb.webkb_triplets`,
:func:`learnsim.webkb.webkb_features`) live in :mod:`learnsim.webkb`, which imports this module;
the loader itself needs nothing above the supervision layer.

The corpus is read straight from the distributed ``webkb-raw-html.tar.gz``, whose members are
``webkb/<topic>/<university>/<file>``: raw pages as a 1997 crawler saved them, almost all with
the HTTP response header in front of the HTML, and the page's URL encoded in the file name
(``http_^^www.cs.utexas.edu^users^twang^`` is ``http://www.cs.utexas.edu/users/twang/``).
:func:`load_webkb` strips the header and the markup, decodes the URL, and turns the
``<a href>`` links between the pages it returns into a :class:`learnsim.supervision.Links`
graph.

Which pages the paper used
--------------------------
Schultz & Joachims (2003, sec. 5) use "the set of all 4,183 documents" in "four topics:
Student, Faculty, Course and Project" (and write "seven universities" for the University
distance, while the archive has four university folders plus ``misc``, pages from many other
universities). Pages per topic and university folder in the archive (8,282 in all)::

                 cornell  texas  washington  wisconsin   misc   total
    course            44     38          77         85    686     930
    department         1      1           1          1    178     182
    faculty           34     46          31         42    971    1124
    other            619    571         939        942    693    3764
    project           20     20          21         25    418     504
    staff             21      3          10         12     91     137
    student          128    148         126        156   1083    1641

The paper's four topics over all five folders hold 4,199 pages. 15 of them are not pages but
redirects the crawler saved instead ("WWW Alert: Redirection response ...", a "301 Moved
Permanently" stub, 7 course, 5 faculty, 2 project and 1 student page, all in ``washington``);
without them 4,184 pages remain, **one more than the paper's 4,183**. That is
``subset="paper"``. Of all 3,937 combinations of topic and university folders, with or without
the redirects, none comes closer, and the only other one as close is an arbitrary mix (course,
department, other, project and student of ``misc`` and ``washington``); the next natural one,
the four universities without ``misc`` over all seven topics, has 4,162 pages (21 fewer) and
contradicts the paper's four topics. The one extra page could not be pinned down (no page of
the subset has empty text; 6 URLs are saved twice, under two topics or under two names of
one page).

The "seven universities" of the University distance
---------------------------------------------------
The folder is not the university: ``misc`` holds 3,158 of the 4,184 paper pages, from 115
URL domains (nearly all universities), so two ``misc`` pages are rarely from the same one.
Each page therefore also gets the registered domain of its URL (``corpus.url_universities``,
see :func:`url_domain`: ``www.cs.cornell.edu``, ``simon.cs.cornell.edu`` -> ``cornell.edu``;
120 domains in the paper subset). The largest are wisc.edu 308, utexas.edu 251,
washington.edu 240 and cornell.edu 226 (the four folders, plus a few pages on other hosts of
the same university), then, all from ``misc``, rutgers.edu 110, umass.edu 107, nyu.edu 105
and ualberta.ca 105 (a tie for seventh place), columbia.edu 99, ucsd.edu 93, ... The four
folders and the three largest universities of ``misc`` make seven: :func:`learnsim.webkb.webkb_triplets`
draws University triplets among the pages of the seven largest domains (1,347 pages; the tie
goes to the alphabetically first, nyu.edu). Whether these are the paper's seven cannot be
checked; how much the choice of labels matters is measured in :func:`learnsim.webkb.webkb_triplets`.
Counting hosts instead of domains gives another seven (www.cs.ualberta.ca 105, cs.nyu.edu 94
and www-cse.ucsd.edu 92 after the four folders' hosts).
"""
from __future__ import annotations

import posixpath
import re
import tarfile
import warnings
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urljoin, urlsplit, urlunsplit

import numpy as np
from sklearn.utils import Bunch

from learnsim._utils.progress import progress
from learnsim.supervision import Links

from ._base import _corpus_file, _object_array

__all__ = [
    "WEBKB_PAPER_TOPICS",
    "WEBKB_TOPICS",
    "WEBKB_UNIVERSITIES",
    "WebKBCorpus",
    "load_webkb",
    "normalize_url",
    "url_domain",
    "url_from_filename",
    "url_host",
]

_WEBKB_FILE = "webkb/webkb-raw-html.tar.gz"
_WEBKB_SOURCE = ("Get webkb-data.gtar.gz (the raw-HTML WebKB '4 universities' data) from "
                 "http://www.cs.cmu.edu/afs/cs/project/theo-20/www/data/ and pass path= to it, or "
                 "place it as webkb/webkb-raw-html.tar.gz under the data directory.")

#: The seven topic folders of the archive.
WEBKB_TOPICS = ("course", "department", "faculty", "other", "project", "staff", "student")
#: The four universities; the archive's fifth folder, ``misc``, holds pages of many others.
WEBKB_UNIVERSITIES = ("cornell", "texas", "washington", "wisconsin")
#: The four topics of Schultz & Joachims (2003), sec. 5.
WEBKB_PAPER_TOPICS = ("course", "faculty", "project", "student")

# subset -> (topics, universities, drop_redirects); None = every folder in the archive
_SUBSETS = {
    "all": (None, None, False),
    "paper": (WEBKB_PAPER_TOPICS, None, True),
}

_MEMBER = re.compile(r"^(?:\./)?webkb/([^/]+)/([^/]+)/([^/]+)$")
_ENCODED_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)_\^\^([^^]*)(.*)$", re.DOTALL)
# A saved response starts with a status line, the crawler's own "WWW Alert:" line or a header
# field; a page saved without one starts with markup (or text), never with "Name: value".
_HEADER_START = re.compile(r"^(?:HTTP/\d|WWW Alert:|[A-Za-z][A-Za-z0-9-]*:[ \t])")
_HEADER_FIELD = re.compile(r"^([A-Za-z][A-Za-z0-9-]*):[ \t]*(.*)$")
_REDIRECT_ALERT = re.compile(r"^WWW Alert:\s*Redirection", re.IGNORECASE)
_BLANK_LINE = re.compile(r"\r?\n[ \t]*\r?\n")
# NULs and other control characters pad a few pages; they are not text.
_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21}
_INDEX_PAGES = ("index.html", "index.htm")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PERCENT_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
# Tags whose content is not text a reader sees.
_INVISIBLE = frozenset({"script", "style"})
# Inline tags do not separate words ("<b>W</b>ord" is one word); every other tag does, so that
# table cells and list items are not glued together.
_INLINE = frozenset({"a", "abbr", "acronym", "b", "big", "blink", "cite", "code", "em", "font", "i",
                     "kbd", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup",
                     "tt", "u", "var"})


# ----------------------------------------------------------------------------- URLs

def url_from_filename(name):
    """Decode a WebKB file name into the page's URL.

    ``^`` stands for ``/`` and ``<scheme>_^^`` for ``<scheme>://``; a ``_`` right after the
    host separates the port (``host_8080`` is ``host:8080``; host names cannot contain ``_``).

    Raises
    ------
    ValueError
        If ``name`` does not start with ``<scheme>_^^``.

    Examples
    --------
    >>> from learnsim.datasets.webkb import url_from_filename
    >>> url_from_filename("http_^^www.cs.wisc.edu_8080^~bob^")
    'http://www.cs.wisc.edu:8080/~bob/'
    """
    match = _ENCODED_URL.match(name)
    if match is None:
        raise ValueError(f"file name {name!r} does not encode a URL; WebKB names look like "
                         "'http_^^<host>^<path>' ('^' for '/')")
    scheme, host, path = match.groups()
    host, underscore, port = host.partition("_")
    netloc = f"{host}:{port}" if underscore and port else host
    return f"{scheme}://{netloc}{path.replace('^', '/')}"


def _normalize_percent_escapes(part):
    # RFC 3986 sec. 6.2.2: "%7E" and "~" name the same resource; "%2F" and "/" do not.
    def fix(match):
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else "%" + match.group(1).upper()
    return _PERCENT_ESCAPE.sub(fix, part)


def _remove_dot_segments(path):
    if "/." not in path:
        return path
    trailing = path.endswith(("/", "/.", "/.."))
    cleaned = posixpath.normpath(path)
    if cleaned.startswith("//"):  # normpath keeps a leading "//" (POSIX); a URL path need not
        cleaned = "/" + cleaned.lstrip("/")
    return cleaned + "/" if trailing and cleaned != "/" else cleaned


def normalize_url(url):
    """Canonical form of a URL, so that the names of one page compare equal.

    Lower-cases the scheme and host, drops the default port, the fragment, ``.``/``..``
    segments, a final ``index.html``/``index.htm`` and trailing slashes, and writes
    percent-escapes of unreserved characters as the characters (``%7E`` -> ``~``). Path and
    query keep their case: the 1997 web servers were case-sensitive.

    Returns ``None`` for a string that is not an absolute URL with a host (``mailto:``,
    a relative path, a malformed port).

    Examples
    --------
    >>> from learnsim.datasets.webkb import normalize_url
    >>> normalize_url("HTTP://WWW.CS.Cornell.EDU:80/%7Ebob/./index.html#top")
    'http://www.cs.cornell.edu/~bob'
    >>> normalize_url("mailto:bob@cs.cornell.edu") is None
    True
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # e.g. "http://host:abc/" or an unbalanced "[" in the host
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if not scheme or not host:
        return None
    netloc = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    path = _remove_dot_segments(_normalize_percent_escapes(parts.path))
    head, _slash, last = path.rpartition("/")
    if last.lower() in _INDEX_PAGES:
        path = head
    path = path.rstrip("/")
    return urlunsplit((scheme, netloc, path, _normalize_percent_escapes(parts.query), ""))


# Labels under which country domains register organisations: "ibaraki.ac.jp", not "ac.jp".
_SECOND_LEVEL_LABELS = frozenset({"ac", "co", "com", "edu", "go", "gov", "ne", "net", "or", "org"})


def url_host(url):
    """The lower-cased host of a URL, or ``None`` for a string without one.

    Examples
    --------
    >>> from learnsim.datasets.webkb import url_host
    >>> url_host("http://WWW.CS.Cornell.EDU:80/~bob/")
    'www.cs.cornell.edu'
    """
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    host = (host or "").rstrip(".")
    return host or None


def url_domain(url):
    """The registered domain of a URL's host, which names the university for the WebKB pages.

    The last two labels of the host (``www.cs.cornell.edu`` and ``simon.cs.cornell.edu`` ->
    ``cornell.edu``, ``www.cs.ualberta.ca`` -> ``ualberta.ca``), or the last three where the
    second to last is a registry label such as ``ac`` or ``edu`` (``turing.cis.ibaraki.ac.jp``
    -> ``ibaraki.ac.jp``). A host that is an IP address is returned as it is; ``None`` for a
    string without a host.

    Examples
    --------
    >>> from learnsim.datasets.webkb import url_domain
    >>> url_domain("http://www-cse.ucsd.edu/users/bob/")
    'ucsd.edu'
    >>> url_domain("http://turing.cis.ibaraki.ac.jp/")
    'ibaraki.ac.jp'
    """
    host = url_host(url)
    if host is None:
        return None
    labels = host.split(".")
    if len(labels) <= 2 or labels[-1].isdigit():
        return host
    n_labels = 3 if labels[-2] in _SECOND_LEVEL_LABELS and len(labels[-1]) == 2 else 2
    return ".".join(labels[-n_labels:])


# ---------------------------------------------------------------------------- pages

def _split_http_header(text):
    """Split a saved page into ``(first_line, header_fields, body)``.

    A page whose first line is an HTTP status line, the crawler's ``WWW Alert:`` line or a
    ``Name: value`` field carries a header block: everything up to the first blank line (or,
    if there is none, the run of ``Name: value`` lines). Other pages are all body, with an
    empty first line and no fields. ``header_fields`` maps lower-cased names to first values.
    """
    if not _HEADER_START.match(text):
        return "", {}, text
    blank = _BLANK_LINE.search(text)
    if blank is not None:
        lines, body = text[:blank.start()].splitlines(), text[blank.end():]
    else:
        lines = text.splitlines(keepends=True)
        n_header = 1
        while n_header < len(lines) and _HEADER_FIELD.match(lines[n_header]):
            n_header += 1
        lines, body = [line.rstrip("\r\n") for line in lines[:n_header]], "".join(lines[n_header:])
    fields = {}
    for line in lines:
        match = _HEADER_FIELD.match(line.strip())
        if match:
            fields.setdefault(match.group(1).lower(), match.group(2).strip())
    return lines[0], fields, body


def _decode_page(raw):
    # UTF-8 when the bytes are valid UTF-8, else latin-1, which decodes any byte: the 1997
    # pages that are not ASCII are latin-1 (none in the archive is valid UTF-8 with non-ASCII
    # bytes), and latin-1 bytes pass as UTF-8 only by rare chance.
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return _CONTROL_CHARS.sub(" ", text)


class _PageParser(HTMLParser):
    """Collect the visible text, the title, the ``<a href>`` targets and ``<base href>``."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.chunks, self.title_chunks, self.hrefs = [], [], []
        self.base = None
        self._invisible_depth = 0
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        if tag in _INVISIBLE:
            self._invisible_depth += 1
        elif tag == "title":
            self._in_title = True
        elif tag in ("a", "base"):
            href = next((value for name, value in attrs if name == "href" and value), None)
            if href is not None:
                if tag == "a":
                    self.hrefs.append(href)
                elif self.base is None:
                    self.base = href
        if tag not in _INLINE:
            self.chunks.append(" ")

    def handle_startendtag(self, tag, attrs):
        # "<script/>" opens nothing, unlike "<script>"
        if tag not in _INVISIBLE:
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in _INVISIBLE:
            self._invisible_depth = max(0, self._invisible_depth - 1)
        elif tag == "title":
            self._in_title = False
        if tag not in _INLINE:
            self.chunks.append(" ")

    def handle_data(self, data):
        if self._invisible_depth:
            return
        self.chunks.append(data)
        if self._in_title:
            self.title_chunks.append(data)


def _parse_html(html):
    """``(text, title, hrefs, base_href)`` of an HTML body, whitespace collapsed.

    The crawler's ``<!WA0>`` markers in front of the anchors are left in: python's parser
    reads some broken comments (``<!-- <li} <!WA1><a href=...>``) differently without them,
    and with them it finds the anchors that the crawler itself numbered.
    """
    parser = _PageParser()
    parser.feed(html)
    parser.close()
    text = " ".join("".join(parser.chunks).split())
    title = " ".join("".join(parser.title_chunks).split())
    return text, title, tuple(parser.hrefs), parser.base


class _Page(NamedTuple):
    topic: str
    university: str
    member: str        # archive member name
    url: str           # decoded from the file name, not normalised
    base: str          # what relative links resolve against
    is_redirect: bool  # the crawler saved a redirect response, not a page
    title: str
    text: str
    hrefs: tuple


def _parse_page(topic, university, filename, member, raw):
    url = url_from_filename(filename)
    first_line, fields, body = _split_http_header(_decode_page(raw))
    text, title, hrefs, base_href = _parse_html(body)
    # Relative links resolve against <base href>, else against where a redirect says the
    # page is ("~bob" -> "~bob/"), else against the page's own URL.
    base = urljoin(url, fields["location"]) if fields.get("location") else url
    if base_href:
        base = urljoin(base, base_href.strip())
    return _Page(topic, university, member, url, base, bool(_REDIRECT_ALERT.match(first_line)),
                 title, text, hrefs)


# ------------------------------------------------------------------------- archive

def _archive_error(path, exc):
    if isinstance(exc, (tarfile.TarError, EOFError, zlib.error)):
        reason = f"is not a readable tar archive ({exc})"
    else:
        reason = f"could not be read as a tar archive ({exc})"
    return ValueError(f"{path} {reason}; expected the WebKB webkb-raw-html.tar.gz. {_WEBKB_SOURCE}")


def _iter_pages(archive):
    """Yield ``(topic, university, filename, member)`` for the pages of an open archive."""
    for member in archive:
        if member.isfile():
            match = _MEMBER.match(member.name)
            if match is not None:
                yield (*match.groups(), member)


# (path, mtime_ns, size) -> (listing, {member name: _Page}). Parsing all 8,282 pages takes
# about 10-15 s, so a page is parsed the first time a selection needs it, then kept; keying
# on mtime and size makes a replaced file be read again.
_ARCHIVE_CACHE = {}
_ARCHIVE_CACHE_SIZE = 2


def _archive_listing(key):
    """``((topic, university, filename, member_name), ...)`` of every page, sorted."""
    if key in _ARCHIVE_CACHE:
        return _ARCHIVE_CACHE[key][0]
    path = key[0]
    try:
        with tarfile.open(path, mode="r:*") as archive:
            listing = sorted((t, u, f, m.name) for t, u, f, m in _iter_pages(archive))
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise _archive_error(path, exc) from None
    if not listing:
        raise ValueError(f"{path} holds no webkb/<topic>/<university>/<file> members; is it the "
                         "WebKB raw-HTML archive?")
    for _topic, _university, filename, name in listing:
        try:
            url_from_filename(filename)
        except ValueError as exc:
            raise ValueError(f"{path}: member {name!r}: {exc}") from None
    while len(_ARCHIVE_CACHE) >= _ARCHIVE_CACHE_SIZE:
        _ARCHIVE_CACHE.pop(next(iter(_ARCHIVE_CACHE)))
    _ARCHIVE_CACHE[key] = (tuple(listing), {})
    return _ARCHIVE_CACHE[key][0]


def _parsed_pages(key, wanted):
    """The parsed pages whose member names are in ``wanted``, in listing order."""
    listing, parsed = _ARCHIVE_CACHE[key]
    missing = wanted.difference(parsed)
    if missing:
        path = key[0]
        try:
            with tarfile.open(path, mode="r:*") as archive, \
                    progress(total=len(missing), desc="parsing WebKB pages") as bar:
                # Read each member as the stream passes it: going back in a gzip stream
                # means decompressing it again from the start.
                for topic, university, filename, member in _iter_pages(archive):
                    if member.name in missing and member.name not in parsed:
                        raw = archive.extractfile(member).read()
                        parsed[member.name] = _parse_page(topic, university, filename, member.name, raw)
                        bar.update(1)
        except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
            raise _archive_error(path, exc) from None
    return [parsed[entry[3]] for entry in listing if entry[3] in wanted]


def _absolute_href(page, href):
    href = href.strip()
    try:
        return urljoin(page.base, href)
    except ValueError:  # e.g. "http://[bad": kept as written
        return href


def _resolve_links(pages):
    """Directed ``(source, target)`` edges between ``pages``, and counts of the hrefs found,
    of those pointing to no page in ``pages`` and of those pointing to the page itself."""
    index = {}
    # A page answers to its own URL and, for a saved redirect, to the URL it was sent on to.
    # Where two files have one URL (a redirect stub "x" and the page "x/", or a page saved
    # under two topics), real pages win over stubs, then the first in sorted order.
    for want_redirect in (False, True):
        for i, page in enumerate(pages):
            if page.is_redirect == want_redirect:
                for alias in (page.url, page.base):
                    key = normalize_url(alias)
                    if key is not None:
                        index.setdefault(key, i)
    edges = set()
    n_hrefs = n_outside = n_self = 0
    for i, page in enumerate(pages):
        for href in page.hrefs:
            n_hrefs += 1
            target = index.get(normalize_url(_absolute_href(page, href)))
            if target is None:
                n_outside += 1
            elif target == i:
                n_self += 1  # "#section" anchors and links to the page itself
            else:
                edges.add((i, target))
    return sorted(edges), n_hrefs, n_outside, n_self


# --------------------------------------------------------------------------- loader

class WebKBCorpus(Bunch):
    """The :class:`sklearn.utils.Bunch` returned by :func:`load_webkb`, with a one-line repr.

    Examples
    --------
    :func:`load_webkb` fills every field (see there); a corpus can also be made by hand, e.g.
    for the functions of :mod:`learnsim.webkb`:

    >>> from learnsim.datasets.webkb import WebKBCorpus
    >>> corpus = WebKBCorpus(subset="paper", texts=["CS 101: syllabus", "Prof. Smith's home page"],
    ...                      topic_names=["course", "faculty"], university_names=["cornell"])
    >>> corpus
    WebKBCorpus(subset='paper', n_pages=2, topics=['course', 'faculty'], universities=['cornell'], n_links=0)
    >>> corpus.texts[1] == corpus["texts"][1]     # a Bunch: keys are attributes too
    True
    """

    def __repr__(self):
        links = self.get("links")
        return (f"WebKBCorpus(subset={self.get('subset')!r}, n_pages={len(self.get('texts', ()))}, "
                f"topics={list(self.get('topic_names', ()))}, "
                f"universities={list(self.get('university_names', ()))}, "
                f"n_links={0 if links is None else links.n_links})")


def _check_names(values, axis, available, default):
    if values is None:
        return sorted(available) if default is None else sorted(set(default) & set(available))
    if isinstance(values, str):
        values = [values]
    else:
        try:
            values = list(values)
        except TypeError:
            raise TypeError(f"{axis} must be a name or a list of names; got {values!r}") from None
    bad_type = [v for v in values if not isinstance(v, str)]
    if bad_type:
        raise TypeError(f"{axis} must be strings; got {bad_type[0]!r}")
    if not values:
        raise ValueError(f"{axis} is empty; pass None for the subset's {axis}")
    unknown = sorted(set(values) - set(available))
    if unknown:
        raise ValueError(f"unknown {axis} {unknown}; the archive has {sorted(available)}")
    return sorted(set(values))


def load_webkb(data_dir=None, path=None, topics=None, universities=None, subset="all",
               drop_redirects=None):
    """Load WebKB pages as text, with their topic, university, URL and hyperlinks.

    Parameters
    ----------
    data_dir : path-like, optional
        Data directory (see :func:`learnsim.datasets.find_data_dir`); the archive is
        ``<data_dir>/webkb/webkb-raw-html.tar.gz`` (or ``<data_dir>/webkb-raw-html.tar.gz``).
    path : path-like, optional
        The archive itself; overrides ``data_dir``.
    topics : str or list of str, optional
        Topic folders to keep, out of ``course, department, faculty, other, project, staff,
        student``. Default: those of ``subset``.
    universities : str or list of str, optional
        University folders to keep, out of ``cornell, texas, washington, wisconsin, misc``
        (``misc``: pages from many other universities). Default: those of ``subset``.
    subset : {"all", "paper"}, default="all"
        The default selection. ``"all"``: all 8,282 files. ``"paper"``: the four topics of
        Schultz & Joachims (2003), course, faculty, project and student, from all five
        folders, without the 15 saved redirects: 4,184 pages against the paper's 4,183 (see
        the module docstring). Explicit ``topics``, ``universities`` or ``drop_redirects``
        replace the subset's choice for that setting.
    drop_redirects : bool, optional
        Leave out the files in which the crawler saved a redirect response ("WWW Alert:
        Redirection ...", text "301 Moved Permanently ...") instead of a page: 78 of the
        8,282. Default: ``False`` for ``subset="all"``, ``True`` for ``"paper"``.

    Returns
    -------
    WebKBCorpus
        A Bunch with ``texts`` (page text: HTTP header, markup and ``<script>``/``<style>``
        content stripped, entities unescaped, whitespace collapsed; the title is part of it),
        ``titles``, ``topics`` and ``universities`` (object arrays of folder names), ``urls``
        (normalised page URLs, see :func:`normalize_url`), ``hosts`` (the URLs' hosts) and
        ``url_universities`` (their registered domains, :func:`url_domain`: the university a
        page is from, e.g. ``"cornell.edu"``, also for the pages of ``misc``; object arrays,
        ``None`` for a URL without a host), ``hrefs`` (per page, the tuple of its ``<a href>``
        targets made absolute against the page's base, all of them, also those leading out of
        the selection), ``filenames`` (archive member
        names), ``links`` (directed :class:`learnsim.supervision.Links` between the returned
        pages, or ``None``, with a warning, when no page links to another),
        ``topic_names``, ``university_names`` (the selection, sorted), ``counts``
        (``{topic: {university: n_pages}}``), ``n_redirects_dropped``, ``n_hrefs`` (``<a
        href>`` links found), ``n_hrefs_outside`` (to no returned page; dropped),
        ``n_hrefs_self`` (to the page itself, e.g. ``#section``; dropped), ``subset``,
        ``filename`` (the archive). Pages are ordered by topic, university, file name.

    Raises
    ------
    FileNotFoundError
        If the archive is not found.
    ValueError
        If the file is not a readable tar archive, holds no ``webkb/<topic>/<university>/``
        pages or a file name that encodes no URL; on an unknown topic, university or subset;
        if the selection is empty.
    TypeError
        If ``topics`` or ``universities`` are not strings.

    Notes
    -----
    A file's header block (the HTTP response the crawler saved) is removed when its first
    line is a status line, ``WWW Alert:`` or a ``Name: value`` field: everything up to the
    first blank line goes. Bytes are read as UTF-8 when valid, else as latin-1.

    Relative links resolve against the page's ``<base href>``, else the ``Location:`` of a
    saved redirect, else the page's URL. Both ends of a link are compared after
    :func:`normalize_url`, so ``.../~bob/``, ``.../%7Ebob/index.html`` and ``.../~bob#top``
    are one page. Where two files have one URL (6 pairs in the paper subset, e.g. a page
    saved under two topics), links go to the first in sorted order. Links are those python's
    ``html.parser`` finds; on broken 1997 markup (unclosed comments) a few depend on the
    python version.

    The listing of the archive is read on the first call (about a second); a page is parsed
    the first time a selection needs it (all 8,282: about 10-15 s) and kept in memory, so
    later calls only select pages and resolve links.

    Examples
    --------
    Needs ``webkb`` in ../shared/data (or ``$LEARNSIM_DATA``):

    >>> from learnsim.datasets import load_webkb
    >>> pages = load_webkb(topics=["course", "faculty"], universities=["cornell"])  # doctest: +SKIP
    >>> len(pages.texts), list(pages.topic_names)                                   # doctest: +SKIP
    (78, ['course', 'faculty'])
    """
    if not isinstance(subset, str) or subset not in _SUBSETS:
        raise ValueError(f"subset must be one of {sorted(_SUBSETS)}; got {subset!r}")
    if drop_redirects is not None and not isinstance(drop_redirects, (bool, np.bool_)):
        raise TypeError(f"drop_redirects must be True, False or None; got {drop_redirects!r}")
    if path is not None:
        if isinstance(path, str) and not path.strip():
            raise ValueError("path is an empty string; pass the archive, or None to use data_dir")
        archive_path = Path(path).expanduser()
        if not archive_path.is_file():
            raise FileNotFoundError(f"WebKB archive {str(archive_path)!r} is not an existing file. "
                                    + _WEBKB_SOURCE)
    else:
        archive_path = _corpus_file(data_dir, [_WEBKB_FILE], "WebKB archive", _WEBKB_SOURCE)
    stat = archive_path.stat()
    key = (str(archive_path.resolve()), stat.st_mtime_ns, stat.st_size)
    listing = _archive_listing(key)

    default_topics, default_universities, default_drop = _SUBSETS[subset]
    drop_redirects = default_drop if drop_redirects is None else bool(drop_redirects)
    topic_names = _check_names(topics, "topics", {e[0] for e in listing}, default_topics)
    university_names = _check_names(universities, "universities", {e[1] for e in listing},
                                    default_universities)
    topic_set, university_set = set(topic_names), set(university_names)
    wanted = {e[3] for e in listing if e[0] in topic_set and e[1] in university_set}
    if not wanted:
        raise ValueError(f"the archive has no pages in topics {topic_names} x universities "
                         f"{university_names}")
    pages = _parsed_pages(key, wanted)
    n_redirects_dropped = 0
    if drop_redirects:
        kept = [page for page in pages if not page.is_redirect]
        n_redirects_dropped = len(pages) - len(kept)
        pages = kept
        if not pages:
            raise ValueError(f"every page in topics {topic_names} x universities {university_names} "
                             "is a saved redirect; pass drop_redirects=False to keep them")

    counts = {t: {u: 0 for u in university_names} for t in topic_names}
    for page in pages:
        counts[page.topic][page.university] += 1
    edges, n_hrefs, n_outside, n_self = _resolve_links(pages)
    if edges:
        links = Links.from_edges(np.array(edges, dtype=np.int64), len(pages))
    else:
        links = None
        warnings.warn(f"none of the {len(pages)} selected pages links to another; links is None",
                      UserWarning, stacklevel=2)

    urls = [normalize_url(page.url) for page in pages]
    return WebKBCorpus(
        texts=[page.text for page in pages],
        titles=[page.title for page in pages],
        topics=_object_array([page.topic for page in pages]),
        universities=_object_array([page.university for page in pages]),
        urls=urls,
        hosts=_object_array([url_host(url) if url else None for url in urls]),
        url_universities=_object_array([url_domain(url) if url else None for url in urls]),
        hrefs=[tuple(_absolute_href(page, href) for href in page.hrefs) for page in pages],
        filenames=[page.member for page in pages],
        links=links,
        topic_names=topic_names,
        university_names=university_names,
        counts=counts,
        n_redirects_dropped=n_redirects_dropped,
        n_hrefs=n_hrefs,
        n_hrefs_outside=n_outside,
        n_hrefs_self=n_self,
        subset=subset,
        filename=str(archive_path),
    )
