"""Tests of the WebKB loader: tiny synthetic archives for the parsing rules, the real archive
(skipped when absent) for the counts the module documents."""
from __future__ import annotations

import io
import tarfile

import numpy as np
import pytest

from conftest import require_corpus
from learnsim.supervision import Links
from learnsim.reproduce.webkb import WEBKB_UNIVERSITIES, load_webkb, normalize_url, url_from_filename

# Most synthetic archives have no links between their pages; that warning is tested on its own.
pytestmark = pytest.mark.filterwarnings("ignore:none of the .* links to another:UserWarning")

HEADER = ("Date: Tue, 05 Nov 1996 20:31:47 GMT\nServer: NCSA/1.4.2\nContent-type: text/html\n"
          "Last-modified: Fri, 30 Aug 1996 15:38:31 GMT\nContent-length: 1234\n\n")


def make_archive(path, pages, extra_members=()):
    """Write a gzipped tar of ``{(topic, university, encoded_name): str or bytes}``."""
    with tarfile.open(path, "w:gz") as archive:
        for (topic, university, name), content in pages.items():
            data = content.encode("latin-1") if isinstance(content, str) else content
            info = tarfile.TarInfo(f"webkb/{topic}/{university}/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, data in extra_members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def page(title, body="", header=HEADER):
    return f"{header}<html><head><title>{title}</title></head><body>{body}</body></html>\n"


def by_url(corpus):
    return {url: i for i, url in enumerate(corpus.urls)}


def edge_urls(corpus):
    return {(corpus.urls[s], corpus.urls[t]) for s, t in corpus.links.edges}


# ------------------------------------------------------------------ synthetic archives

@pytest.fixture
def linked_archive(tmp_path):
    pages = {
        ("course", "cornell", "http_^^www.cs.cornell.edu^cs100^"): page(
            "CS 100", '<a href="notes.html">notes</a> <a href="../People/Bob/#research">Bob</a> '
            '<a href="http://www.cs.cornell.edu/cs100/#top">top</a> '
            '<a href="http://elsewhere.org/x.html">elsewhere</a> <a href="mailto:bob@cs">mail</a> '
            '<a href="HTTP://WWW.CS.CORNELL.EDU:80/%7Eann/index.html">Ann</a>'),
        ("course", "cornell", "http_^^www.cs.cornell.edu^cs100^notes.html"): page(
            "Notes", '<a href="/cs100/">back</a>'),
        ("faculty", "cornell", "http_^^www.cs.cornell.edu^People^Bob^index.html"): page("Bob"),
        ("student", "texas", "http_^^www.cs.cornell.edu^~ann^"): page("Ann"),
    }
    return make_archive(tmp_path / "webkb.tar.gz", pages)


def test_header_stripped_and_markup_removed(tmp_path):
    body = ("Hello <b>W</b>orld &amp; caf&eacute;<script>var hidden = 1;</script>"
            "<style>p { color: red }</style><table><tr><td>cell1</td><td>cell2</td></tr></table>")
    pages = {
        ("course", "cornell", "http_^^a.edu^one.html"): page("One", body),
        ("course", "cornell", "http_^^a.edu^two.html"): page("Two", "no header", header=""),
        ("course", "cornell", "http_^^a.edu^three.html"): page(
            "Three", "status line", header="HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n"),
        ("course", "cornell", "http_^^a.edu^four.html"):
            "MIME-Version: 1.0\nServer: CERN/3.0\nDate: Monday, 06-Jan-97\n\n\nplain words",
    }
    corpus = load_webkb(path=make_archive(tmp_path / "w.tar.gz", pages))
    texts = dict(zip(corpus.urls, corpus.texts))
    assert texts["http://a.edu/one.html"] == "One Hello World & café cell1 cell2"
    assert texts["http://a.edu/two.html"] == "Two no header"
    assert texts["http://a.edu/three.html"] == "Three status line"
    assert texts["http://a.edu/four.html"] == "plain words"
    assert dict(zip(corpus.urls, corpus.titles))["http://a.edu/one.html"] == "One"


def test_header_without_blank_line_keeps_the_body(tmp_path):
    raw = "Date: Tue, 05 Nov 1996\nContent-type: text/html\n<html>kept text</html>"
    corpus = load_webkb(path=make_archive(tmp_path / "w.tar.gz", {("course", "x", "http_^^a.edu^p"): raw}))
    assert corpus.texts == ["kept text"]


def test_bytes_decoded_as_utf8_else_latin1(tmp_path):
    pages = {
        ("course", "x", "http_^^a.edu^latin1"): b"<p>caf\xe9\x00\x00</p>",
        ("course", "x", "http_^^a.edu^utf8"): "<p>café</p>".encode("utf-8"),
    }
    corpus = load_webkb(path=make_archive(tmp_path / "w.tar.gz", pages))
    assert corpus.texts == ["café", "café"]


@pytest.mark.parametrize("name, url", [
    ("http_^^www.cs.wisc.edu^~bob^", "http://www.cs.wisc.edu/~bob/"),
    ("http_^^www.eecs.tulane.edu_80^www^Pilman^", "http://www.eecs.tulane.edu:80/www/Pilman/"),
    ("ftp_^^ftp.cs.wisc.edu^pub^devise^", "ftp://ftp.cs.wisc.edu/pub/devise/"),
    ("http_^^www.cs.cmu.edu_^~x", "http://www.cs.cmu.edu/~x"),
    ("http_^^a.edu^p.html#frag", "http://a.edu/p.html#frag"),
])
def test_url_from_filename(name, url):
    assert url_from_filename(name) == url


def test_url_from_filename_rejects_other_names():
    with pytest.raises(ValueError, match="does not encode a URL"):
        url_from_filename("README")


@pytest.mark.parametrize("url, expected", [
    ("HTTP://WWW.CS.Cornell.EDU:80/%7Ebob/index.html#top", "http://www.cs.cornell.edu/~bob"),
    ("http://a.edu/x/../y/./z.html", "http://a.edu/y/z.html"),
    ("http://a.edu/Dienst/ncstrl%2fTR-1", "http://a.edu/Dienst/ncstrl%2FTR-1"),  # %2F is not "/"
    ("http://a.edu:8080/", "http://a.edu:8080"),
    ("http://a.edu/Index.HTM", "http://a.edu"),
    ("http://a.edu/Page.html", "http://a.edu/Page.html"),  # path case is kept
    ("mailto:bob@a.edu", None),
    ("relative/path.html", None),
    ("http://a.edu:port/", None),
])
def test_normalize_url(url, expected):
    assert normalize_url(url) == expected


def test_url_decoded_and_normalised(tmp_path):
    pages = {
        ("course", "x", "http_^^WWW.Example.EDU_8080^~bob^index.html"): page("a"),
        ("course", "x", "http_^^www.example.edu_80^~ann^"): page("b"),
        ("course", "x", "http_^^www.example.edu^p.html#section"): page("c"),
    }
    corpus = load_webkb(path=make_archive(tmp_path / "w.tar.gz", pages))
    assert sorted(corpus.urls) == ["http://www.example.edu/p.html", "http://www.example.edu/~ann",
                                   "http://www.example.edu:8080/~bob"]


def test_links_resolved_within_the_collection(linked_archive):
    corpus = load_webkb(path=linked_archive)
    assert isinstance(corpus.links, Links) and corpus.links.n_items == 4
    assert edge_urls(corpus) == {
        ("http://www.cs.cornell.edu/cs100", "http://www.cs.cornell.edu/cs100/notes.html"),  # relative
        ("http://www.cs.cornell.edu/cs100", "http://www.cs.cornell.edu/People/Bob"),  # ../ + fragment
        ("http://www.cs.cornell.edu/cs100", "http://www.cs.cornell.edu/~ann"),  # %7E, index.html, :80
        ("http://www.cs.cornell.edu/cs100/notes.html", "http://www.cs.cornell.edu/cs100"),
    }
    assert corpus.n_hrefs == 7
    assert corpus.n_hrefs_self == 1       # "#top" on its own page
    assert corpus.n_hrefs_outside == 2    # elsewhere.org and mailto:


def test_selection_drops_links_to_pages_left_out(linked_archive):
    corpus = load_webkb(path=linked_archive, topics=["course", "faculty"], universities="cornell")
    assert corpus.topic_names == ["course", "faculty"] and corpus.university_names == ["cornell"]
    assert len(corpus.texts) == 3
    assert ("http://www.cs.cornell.edu/cs100", "http://www.cs.cornell.edu/~ann") not in edge_urls(corpus)
    assert corpus.links.n_links == 3
    assert corpus.counts == {"course": {"cornell": 2}, "faculty": {"cornell": 1}}


def test_base_href_and_redirect_location_are_the_link_base(tmp_path):
    redirect = ("WWW Alert:  Redirection response from server is not handled by this client\n"
                "Date: Wed, 19 Feb 1997\nLocation: http://a.edu/bob/\nContent-type: text/html\n\n"
                '<HEAD><TITLE>301 Moved Permanently</TITLE></HEAD><A HREF="cv.html">here</A>')
    pages = {
        ("staff", "x", "http_^^a.edu^bob"): redirect,
        ("staff", "x", "http_^^a.edu^bob^cv.html"): page("CV"),
        ("staff", "x", "http_^^a.edu^ann.html"): page(
            "Ann", '<base href="http://a.edu/bob/"><a href="cv.html">cv</a>'),
    }
    path = make_archive(tmp_path / "w.tar.gz", pages)
    corpus = load_webkb(path=path)
    assert edge_urls(corpus) == {("http://a.edu/bob", "http://a.edu/bob/cv.html"),
                                 ("http://a.edu/ann.html", "http://a.edu/bob/cv.html")}
    dropped = load_webkb(path=path, drop_redirects=True)
    assert dropped.n_redirects_dropped == 1 and len(dropped.texts) == 2
    assert "http://a.edu/bob" not in dropped.urls


def test_link_to_a_url_saved_twice_goes_to_the_real_page(tmp_path):
    stub = ("WWW Alert:  Redirection response from server is not handled by this client\n"
            "Location: http://a.edu/bob/\n\n<TITLE>301 Moved Permanently</TITLE>")
    pages = {
        ("faculty", "x", "http_^^a.edu^bob"): stub,  # sorts before the real page
        ("faculty", "x", "http_^^a.edu^bob^"): page("Bob"),
        ("student", "x", "http_^^a.edu^ann.html"): page("Ann", '<a href="/bob/">Bob</a>'),
    }
    corpus = load_webkb(path=make_archive(tmp_path / "w.tar.gz", pages))
    assert corpus.urls[0] == corpus.urls[1] == "http://a.edu/bob"
    real = corpus.filenames.index("webkb/faculty/x/http_^^a.edu^bob^")
    assert list(corpus.links.out_links(corpus.urls.index("http://a.edu/ann.html"))) == [real]


def test_no_links_gives_none_with_a_warning(tmp_path):
    pages = {("course", "x", "http_^^a.edu^p1"): page("one"), ("course", "x", "http_^^a.edu^p2"): page("two")}
    with pytest.warns(UserWarning, match="links is None"):
        corpus = load_webkb(path=make_archive(tmp_path / "w.tar.gz", pages))
    assert corpus.links is None


def test_result_fields_and_one_line_repr(linked_archive):
    corpus = load_webkb(path=linked_archive)
    n = len(corpus.texts)
    for field in ("titles", "topics", "universities", "urls", "filenames"):
        assert len(corpus[field]) == n
    assert list(corpus.topics) == ["course", "course", "faculty", "student"]  # sorted by topic
    assert (corpus.universities == "texas").sum() == 1
    text = repr(corpus)
    assert "\n" not in text and "n_pages=4" in text and "n_links=4" in text


def test_data_dir_finds_the_archive(tmp_path):
    (tmp_path / "webkb").mkdir()
    make_archive(tmp_path / "webkb" / "webkb-raw-html.tar.gz", {("course", "x", "http_^^a.edu^p"): page("t")})
    corpus = load_webkb(data_dir=tmp_path)
    assert corpus.texts == ["t"]


def test_replaced_archive_is_read_again(tmp_path):
    path = tmp_path / "w.tar.gz"
    make_archive(path, {("course", "x", "http_^^a.edu^p"): page("first")})
    assert load_webkb(path=path).texts == ["first"]
    make_archive(path, {("course", "x", "http_^^a.edu^p"): page("second version")})
    assert load_webkb(path=path).texts == ["second version"]


def test_paper_subset_on_a_synthetic_archive(tmp_path):
    pages = {(topic, "x", f"http_^^a.edu^{topic}"): page(topic)
             for topic in ("course", "faculty", "other", "project", "staff", "student")}
    corpus = load_webkb(path=make_archive(tmp_path / "w.tar.gz", pages), subset="paper")
    assert corpus.topic_names == ["course", "faculty", "project", "student"]


# ------------------------------------------------------------------------ bad input

@pytest.mark.parametrize("kwargs, error, match", [
    ({"topics": ["course", "robotics"]}, ValueError, r"unknown topics \['robotics'\]"),
    ({"universities": "harvard"}, ValueError, r"unknown universities \['harvard'\].*cornell"),
    ({"topics": []}, ValueError, "topics is empty"),
    ({"topics": [1]}, TypeError, "topics must be strings"),
    ({"universities": 3}, TypeError, "universities must be a name or a list"),
    ({"subset": "paper2"}, ValueError, "subset must be one of"),
    ({"drop_redirects": "yes"}, TypeError, "drop_redirects must be"),
    ({"topics": "faculty", "universities": "texas"}, ValueError, "no pages in topics"),
])
def test_bad_selection_is_a_clear_error(linked_archive, kwargs, error, match):
    with pytest.raises(error, match=match):
        load_webkb(path=linked_archive, **kwargs)


def test_non_tar_file_is_a_clear_error(tmp_path):
    path = tmp_path / "webkb.tar.gz"
    path.write_bytes(b"this is not an archive\n" * 20)
    with pytest.raises(ValueError, match="not a readable tar archive"):
        load_webkb(path=path)


def test_truncated_archive_is_a_clear_error(linked_archive, tmp_path):
    path = tmp_path / "cut.tar.gz"
    path.write_bytes(linked_archive.read_bytes()[:200])
    with pytest.raises(ValueError, match="tar archive"):
        load_webkb(path=path)


def test_archive_without_webkb_members_is_a_clear_error(tmp_path):
    path = make_archive(tmp_path / "w.tar.gz", {}, extra_members=[("other/readme.txt", b"hello")])
    with pytest.raises(ValueError, match="holds no webkb/<topic>/<university>/<file>"):
        load_webkb(path=path)


def test_undecodable_file_name_is_a_clear_error(tmp_path):
    path = make_archive(tmp_path / "w.tar.gz", {("course", "x", "notes.txt"): page("t")})
    with pytest.raises(ValueError, match=r"member 'webkb/course/x/notes.txt'.*does not encode a URL"):
        load_webkb(path=path)


def test_missing_archive_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="is not an existing file"):
        load_webkb(path=tmp_path / "absent.tar.gz")
    with pytest.raises(FileNotFoundError, match="WebKB archive not found"):
        load_webkb(data_dir=tmp_path)
    with pytest.raises(ValueError, match="path is an empty string"):
        load_webkb(path=" ")


# ------------------------------------------------------------------------ real corpus

REAL_COUNTS = {  # pages per topic x university folder, counted on the distributed archive
    "course": {"cornell": 44, "texas": 38, "washington": 77, "wisconsin": 85, "misc": 686},
    "department": {"cornell": 1, "texas": 1, "washington": 1, "wisconsin": 1, "misc": 178},
    "faculty": {"cornell": 34, "texas": 46, "washington": 31, "wisconsin": 42, "misc": 971},
    "other": {"cornell": 619, "texas": 571, "washington": 939, "wisconsin": 942, "misc": 693},
    "project": {"cornell": 20, "texas": 20, "washington": 21, "wisconsin": 25, "misc": 418},
    "staff": {"cornell": 21, "texas": 3, "washington": 10, "wisconsin": 12, "misc": 91},
    "student": {"cornell": 128, "texas": 148, "washington": 126, "wisconsin": 156, "misc": 1083},
}


@pytest.fixture(scope="module")
def real_archive():
    return require_corpus("webkb/webkb-raw-html.tar.gz")


@pytest.fixture(scope="module")
def paper(real_archive):
    return load_webkb(path=real_archive, subset="paper")


@pytest.mark.corpus
def test_real_archive_counts(real_archive):
    from learnsim.datasets.webkb import _archive_listing

    stat = real_archive.stat()
    listing = _archive_listing((str(real_archive.resolve()), stat.st_mtime_ns, stat.st_size))
    counts = {}
    for topic, university, _name, _member in listing:
        counts.setdefault(topic, {}).setdefault(university, 0)
        counts[topic][university] += 1
    assert counts == REAL_COUNTS
    assert len(listing) == 8282


@pytest.mark.corpus
def test_real_paper_subset(paper, real_archive):
    # the paper's four topics from all five folders, less 15 saved redirects: 4,184 vs 4,183
    assert len(paper.texts) == 4184 and paper.n_redirects_dropped == 15
    assert paper.topic_names == ["course", "faculty", "project", "student"]
    assert paper.counts["course"]["washington"] == 77 - 7
    assert sum(n for row in paper.counts.values() for n in row.values()) == 4184
    with_redirects = load_webkb(path=real_archive, subset="paper", drop_redirects=False)
    assert len(with_redirects.texts) == 4199
    four = load_webkb(path=real_archive, subset="paper", universities=WEBKB_UNIVERSITIES)
    assert len(four.texts) == 1026 and "misc" not in set(four.universities)


@pytest.mark.corpus
def test_real_known_page(paper):
    i = paper.filenames.index("webkb/student/texas/http_^^www.cs.utexas.edu^users^twang^")
    assert paper.urls[i] == "http://www.cs.utexas.edu/users/twang"
    assert paper.titles[i] == "Tong Wang's Home Page"
    assert (paper.topics[i], paper.universities[i]) == ("student", "texas")
    assert paper.texts[i].startswith("Tong Wang's Home Page")
    assert "Content-Length" not in paper.texts[i] and "<TITLE>" not in paper.texts[i]


@pytest.mark.corpus
def test_real_headers_stripped(paper):
    header_starts = ("Date:", "MIME-Version", "Server:", "Content-type", "Content-Type", "WWW Alert",
                     "HTTP/")
    assert not [t[:40] for t in paper.texts if t.startswith(header_starts)]
    # header fields are gone from the start of the text, not only from its first line
    fields = ("Content-type:", "Content-Type:", "Content-length:", "Content-Length:", "Server:")
    assert not [t[:80] for t in paper.texts if any(field in t[:300] for field in fields)]
    assert all(paper.texts) and all(url.startswith(("http://", "ftp://", "file://")) for url in paper.urls)


@pytest.mark.corpus
def test_real_links(paper):
    links = paper.links
    assert isinstance(links, Links) and links.n_items == 4184
    # 2,667 with python 3.11's html.parser; broken 1997 markup moves a few between versions
    assert 2400 < links.n_links < 2900
    assert paper.n_hrefs > 60000 and paper.n_hrefs_outside > 0.8 * paper.n_hrefs
    source = paper.filenames.index(
        "webkb/course/cornell/http_^^www.cs.cornell.edu^Info^Courses^Current^CS280^CS280.html")
    target = paper.urls.index("http://www.cs.cornell.edu/Info/People/sam/sam.html")
    assert target in links.out_links(source)
    assert not np.any(links.edges[:, 0] == links.edges[:, 1])
