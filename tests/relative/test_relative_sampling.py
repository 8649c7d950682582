"""Relative-comparison supervision for paper 004 (Schultz & Joachims 2003): the generic
rule-based triplet sampler, and the WebKB university labels, triplets and features built on it.
Synthetic labels and tiny archives for the rules and errors; the real archive (skipped when
absent) for the documented counts."""
from __future__ import annotations

import io
import tarfile
from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils import Bunch

from conftest import require_corpus
from learnsim.supervision import Triplets, sample_label_triplets
from learnsim.reproduce.webkb import (
    WEBKB_UNIVERSITIES,
    load_webkb,
    url_domain,
    url_host,
    webkb_documents,
    webkb_features,
    webkb_triplets,
    webkb_university_labels,
)

TOPICS = ("course", "faculty", "project", "student")


def topic_facultystudent(a, b, c):
    """The paper's Topic+FacultyStudent rule, written as a user would."""
    same_topic = (a == b) & (b != c)
    faculty_student = (a == "faculty") & (b == "student") & ((c == "course") | (c == "project"))
    return same_topic | faculty_student


def rows(triplets):
    return [tuple(r) for r in triplets.indices.tolist()]


# ------------------------------------------------------------------ sample_label_triplets

@pytest.fixture
def topics():
    return np.random.default_rng(3).choice(TOPICS, size=300)


def test_default_rule_holds_indices_distinct_and_unique(topics):
    t = sample_label_triplets(topics, 2000, random_state=0)
    assert isinstance(t, Triplets) and len(t) == 2000
    i, j, k = t.indices.T
    assert np.all(topics[i] == topics[j]) and np.all(topics[j] != topics[k])
    assert np.all((i != j) & (i != k) & (j != k))
    assert len(set(rows(t))) == 2000


def test_seed_reproduces_and_other_seed_differs(topics):
    a = sample_label_triplets(topics, 500, random_state=7)
    b = sample_label_triplets(topics, 500, random_state=7)
    c = sample_label_triplets(topics, 500, random_state=8)
    np.testing.assert_array_equal(a.indices, b.indices)
    assert not np.array_equal(a.indices, c.indices)


def test_custom_rule_sees_original_labels_and_both_parts_occur(topics):
    t = sample_label_triplets(topics, 3000, rule=topic_facultystudent, random_state=1)
    i, j, k = t.indices.T
    assert topic_facultystudent(topics[i], topics[j], topics[k]).all()
    # the extra clause really contributes: anchors that are faculty with a student positive
    cross = (topics[i] == "faculty") & (topics[j] == "student")
    assert cross.sum() > 100
    assert set(topics[k[cross]]) == {"course", "project"}


def test_draws_are_uniform_over_accepted_triples():
    # 5 "a" and 35 "b": of the accepted triples 5*4*35 = 700 have an "a" anchor and
    # 35*34*5 = 5950 a "b" one, so 10.5% "a" anchors (a per-item anchor draw would give 12.5%).
    labels = np.array(["a"] * 5 + ["b"] * 35)
    t = sample_label_triplets(labels, 5000, random_state=0)
    share = np.mean(labels[t.anchors] == "a")
    assert abs(share - 700 / 6650) < 0.012


def test_candidates_restrict_and_index_the_full_labels(topics):
    candidates = np.arange(100, 220)
    t = sample_label_triplets(topics, 1000, candidates=candidates, random_state=0)
    assert t.indices.min() >= 100 and t.indices.max() < 220
    mask = np.zeros(topics.size, bool)
    mask[candidates] = True
    t_mask = sample_label_triplets(topics, 1000, candidates=mask, random_state=0)
    np.testing.assert_array_equal(t.indices, t_mask.indices)


@pytest.mark.parametrize("missing", [None, -1])
def test_items_without_a_label_are_never_drawn(missing):
    labels = [1, 1, 2, 2, missing, 1, 2, missing, 3, 3] * 20
    t = sample_label_triplets(labels, 3000, random_state=0)
    unlabelled = {i for i, v in enumerate(labels) if v == missing}
    assert unlabelled.isdisjoint(t.indices.ravel().tolist())


def test_integer_labels_reach_the_rule_as_integers():
    labels = np.repeat([10, 20, 30], 20)
    # "j's label is 10 more than i's": only holds when the rule sees the label values
    t = sample_label_triplets(labels, 300, rule=lambda a, b, c: (b == a + 10) & (c != a), random_state=0)
    assert np.all(labels[t.positives] == labels[t.anchors] + 10)


def test_small_pool_is_completed_exactly():
    # 2 x "a", 2 x "b", 1 x "c": the default rule accepts 4 (i, j) pairs x 3 negatives = 12
    labels = ["a", "a", "b", "b", "c"]
    t = sample_label_triplets(labels, 12, random_state=0)
    assert len(set(rows(t))) == 12


def test_exhausted_pool_warns_and_repeats_evenly():
    labels = ["a", "a", "b", "b", "c", None]
    with pytest.warns(UserWarning, match="accepts only 12 distinct triples"):
        t = sample_label_triplets(labels, 30, random_state=0)
    assert len(t) == 30
    counts = Counter(rows(t))
    assert len(counts) == 12 and set(counts.values()) <= {2, 3}


def test_errors_on_counts_and_parameters(topics):
    with pytest.raises(ValueError, match="n_triplets must be at least 1"):
        sample_label_triplets(topics, 0)
    with pytest.raises(TypeError, match="n_triplets must be an int"):
        sample_label_triplets(topics, True)
    with pytest.raises(ValueError, match="max_draws must be at least 1"):
        sample_label_triplets(topics, 10, max_draws=0)
    with pytest.raises(TypeError, match="rule must be a function"):
        sample_label_triplets(topics, 10, rule="topic")
    with pytest.raises(ValueError, match="labels is empty"):
        sample_label_triplets([], 10)


def test_errors_on_labels():
    with pytest.raises(ValueError, match="at least two distinct labels.*all 4 have label 'a'"):
        sample_label_triplets(["a", "a", "a", "a", None], 5)
    with pytest.raises(ValueError, match="at least three labelled items"):
        sample_label_triplets(["a", "b", None, -1], 5)
    with pytest.raises(ValueError, match="no label has two labelled items"):
        sample_label_triplets(["a", "b", "c", "d"], 5)
    # a custom rule may accept triples without a shared label, so only the default rule needs one
    t = sample_label_triplets(["a", "b", "c", "d"], 5, rule=lambda a, b, c: a < b, random_state=0)
    assert len(t) == 5


def test_errors_on_candidates(topics):
    with pytest.raises(ValueError, match="candidates contains index 300"):
        sample_label_triplets(topics, 10, candidates=[0, 1, 300])
    with pytest.raises(ValueError, match="candidates repeats item 1"):
        sample_label_triplets(topics, 10, candidates=[0, 1, 1, 2, 3])
    with pytest.raises(ValueError, match="1-D array"):
        sample_label_triplets(topics, 10, candidates=[[0, 1, 2]])
    with pytest.raises(ValueError, match="one entry per item"):
        sample_label_triplets(topics, 10, candidates=np.ones(5, bool))
    with pytest.raises(ValueError, match="all-False"):
        sample_label_triplets(topics, 10, candidates=np.zeros(topics.size, bool))
    with pytest.raises(ValueError, match="at least three labelled candidates to draw a triplet; got 2"):
        sample_label_triplets(["a", "a", "b", None], 1, candidates=[0, 2, 3])


def test_errors_on_rules(topics):
    with pytest.raises(TypeError, match="boolean array with one entry per triple"):
        sample_label_triplets(topics, 10, rule=lambda a, b, c: True)
    with pytest.raises(TypeError, match="boolean array with one entry per triple"):
        sample_label_triplets(topics, 10, rule=lambda a, b, c: (a == b).astype(int))
    # large pool: rejection sampling gives up after max_draws
    with pytest.raises(ValueError, match="accepted none of 5,000 random triples"):
        sample_label_triplets(topics, 10, rule=lambda a, b, c: a == "nobody", max_draws=5000)
    # small pool: every triple is checked, so the error is exact
    with pytest.raises(ValueError, match="accepts no triple of the 5 labelled items"):
        sample_label_triplets(list("aabbc"), 3, rule=lambda a, b, c: a == "z", max_draws=100)


def test_rare_rule_on_large_pool_says_how_far_it_got():
    labels = np.array(["a"] * 3 + ["b"] * 297)
    # "a" anchors with an "a" positive: 3 * 2 * 297 = 1782 triples of 26.7 million
    with pytest.raises(ValueError, match=r"only [\d,]+ distinct triplets \(of 1,000 asked\)"):
        sample_label_triplets(labels, 1000, rule=lambda a, b, c: (a == "a") & (b == "a"), max_draws=200_000)


# ------------------------------------------------------------------ URL universities

@pytest.mark.parametrize("url, host, domain", [
    ("http://www.cs.cornell.edu/Info/People/", "www.cs.cornell.edu", "cornell.edu"),
    ("HTTP://Simon.CS.Cornell.EDU:80/x", "simon.cs.cornell.edu", "cornell.edu"),
    ("http://www-cse.ucsd.edu/users/bob", "www-cse.ucsd.edu", "ucsd.edu"),
    ("http://www.cs.ualberta.ca/~bob", "www.cs.ualberta.ca", "ualberta.ca"),
    ("http://turing.cis.ibaraki.ac.jp/x", "turing.cis.ibaraki.ac.jp", "ibaraki.ac.jp"),
    ("http://www.uni-koblenz.de/", "www.uni-koblenz.de", "uni-koblenz.de"),
    ("http://cornell.edu", "cornell.edu", "cornell.edu"),
    ("http://128.84.154.10/x", "128.84.154.10", "128.84.154.10"),
    ("mailto:bob@cs.cornell.edu", None, None),
    ("notes.html", None, None),
])
def test_url_host_and_domain(url, host, domain):
    assert url_host(url) == host
    assert url_domain(url) == domain


def fake_corpus(topics, domains, texts=None):
    n = len(topics)
    texts = texts or [f"page {i} of {d}" for i, d in enumerate(domains)]
    return Bunch(texts=texts, topics=np.asarray(topics, dtype=object),
                 url_universities=np.asarray(domains, dtype=object),
                 urls=[f"http://www.cs.{d}/p{i}" for i, d in enumerate(domains)],
                 hrefs=[(f"http://www.{d}/home",) for d in domains])


def test_university_labels_keep_the_largest_domains_ties_alphabetical():
    domains = ["a.edu"] * 5 + ["b.edu"] * 3 + ["d.edu"] * 2 + ["c.edu"] * 2 + [None]
    corpus = fake_corpus(["course"] * len(domains), domains)
    labels = webkb_university_labels(corpus, n_universities=3)
    assert Counter(labels.tolist()) == {"a.edu": 5, "b.edu": 3, "c.edu": 2, None: 3}
    with pytest.raises(ValueError, match="n_universities must be an int >= 2"):
        webkb_university_labels(corpus, n_universities=1)
    with pytest.raises(ValueError, match="pages of 4 universities; fewer than n_universities=7"):
        webkb_university_labels(corpus)
    with pytest.raises(TypeError, match="returned by load_webkb"):
        webkb_university_labels({"texts": []})


def test_webkb_triplets_on_a_fake_corpus():
    rng = np.random.default_rng(0)
    topics = rng.choice(TOPICS, 200)
    domains = rng.choice([f"u{i}.edu" for i in range(9)], 200)
    corpus = fake_corpus(topics, domains)
    t = webkb_triplets(corpus, "University", 300, indices=np.arange(50, 200), random_state=0)
    seven = webkb_university_labels(corpus)
    i, j, k = t.indices.T
    assert t.indices.min() >= 50
    assert np.all(seven[i] == seven[j]) and np.all(seven[j] != seven[k])
    assert all(v is not None for v in seven[t.indices.ravel()])
    with pytest.raises(ValueError, match="distance must be one of"):
        webkb_triplets(corpus, "faculty", 10)
    with pytest.raises(ValueError, match="non-empty 1-D array"):
        webkb_triplets(corpus, "topic", 10, indices=[])


def test_features_kinds_norm_urls_and_fit_indices():
    texts = ["Running runners run the course", "The faculty page of Bob", "A student page", "Projects"]
    corpus = fake_corpus(["course", "faculty", "student", "project"], ["a.edu", "b.edu", "a.edu", "c.edu"], texts)
    X, vec = webkb_features(corpus, "binary")
    assert sp.isspmatrix_csr(X) and X.shape == (4, len(vec.terms_))
    assert set(np.unique(X.data)) == {1.0}
    assert {"the", "running", "runners"} <= set(vec.terms_)
    Xs, vec_s = webkb_features(corpus, "tfidf-stemmed")
    assert "the" not in vec_s.terms_ and "run" in vec_s.terms_ and "running" not in vec_s.terms_
    np.testing.assert_allclose(sp.linalg.norm(Xs, axis=1), 1.0, rtol=1e-6)
    Xn, _ = webkb_features(corpus, "binary", norm="l2")
    np.testing.assert_allclose(sp.linalg.norm(Xn, axis=1), 1.0, rtol=1e-6)
    Xu, vec_u = webkb_features(corpus, "binary", with_urls=True)
    assert {"http", "www", "edu", "home", "p0"} <= set(vec_u.terms_) and Xu.shape[1] > X.shape[1]
    assert webkb_documents(corpus, with_urls=True)[0] == texts[0] + " http://www.cs.a.edu/p0 http://www.a.edu/home"
    Xf, vec_f = webkb_features(corpus, "binary", fit_indices=[1, 2])
    assert Xf.shape[0] == 4 and "running" not in vec_f.terms_
    with pytest.raises(ValueError, match="kind must be one of"):
        webkb_features(corpus, "bm25")
    with pytest.raises(ValueError, match="norm must be"):
        webkb_features(corpus, "binary", norm="l1")
    with pytest.raises(ValueError, match="fit_indices must be a 1-D"):
        webkb_features(corpus, "binary", fit_indices=[[0, 1]])
    with pytest.raises(ValueError, match="fit_indices contains index 9"):
        webkb_features(corpus, "binary", fit_indices=[0, 9])


def test_loader_gives_hosts_domains_and_absolute_hrefs(tmp_path):
    header = "Content-type: text/html\n\n"
    pages = {
        "webkb/course/misc/http_^^www.cs.rutgers.edu^cs100^": '<a href="notes.html">n</a> <a href="mailto:x@y">m</a>',
        "webkb/faculty/cornell/http_^^simon.cs.cornell.edu^~bob^": '<a href="http://www.cs.cornell.edu/">cs</a>',
    }
    path = tmp_path / "webkb.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name, body in pages.items():
            data = (header + f"<html><body>{body}</body></html>").encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    with pytest.warns(UserWarning, match="links to another"):
        corpus = load_webkb(path=path)
    assert corpus.hosts.tolist() == ["www.cs.rutgers.edu", "simon.cs.cornell.edu"]
    assert corpus.url_universities.tolist() == ["rutgers.edu", "cornell.edu"]
    assert corpus.hrefs == [("http://www.cs.rutgers.edu/cs100/notes.html", "mailto:x@y"),
                            ("http://www.cs.cornell.edu/",)]


# ------------------------------------------------------------------ the real archive

@pytest.fixture(scope="module")
def paper():
    path = require_corpus("webkb/webkb-raw-html.tar.gz")
    return load_webkb(path=path, subset="paper")


def test_real_university_labels(paper):
    domains = Counter(paper.url_universities.tolist())
    assert len(domains) == 120 and None not in domains
    assert len({d for d, u in zip(paper.url_universities, paper.universities) if u == "misc"}) == 115
    seven = Counter(v for v in webkb_university_labels(paper) if v is not None)
    assert seven == {"wisc.edu": 308, "utexas.edu": 251, "washington.edu": 240, "cornell.edu": 226,
                     "rutgers.edu": 110, "umass.edu": 107, "nyu.edu": 105}
    assert domains["ualberta.ca"] == 105  # the tie for seventh place
    # each of the four university folders is (almost) one domain
    folder_domain = {"cornell": "cornell.edu", "texas": "utexas.edu", "washington": "washington.edu",
                     "wisconsin": "wisc.edu"}
    for folder in WEBKB_UNIVERSITIES:
        in_folder = paper.url_universities[paper.universities == folder]
        assert np.mean(in_folder == folder_domain[folder]) > 0.99


@pytest.mark.parametrize("distance", ["university", "topic", "topic+facultystudent"])
def test_real_triplets_respect_their_rule(paper, distance):
    n = len(paper.texts)
    test_pages = np.sort(np.random.default_rng(0).permutation(n)[round(0.7 * n):])
    t = webkb_triplets(paper, distance, 5000, indices=test_pages, random_state=0)
    assert len(t) == 5000 and np.isin(t.indices, test_pages).all()
    i, j, k = t.indices.T
    if distance == "university":
        labels = webkb_university_labels(paper)
        assert np.all(labels[i] == labels[j]) and np.all(labels[j] != labels[k])
        assert all(v is not None for v in labels[t.indices.ravel()])
    else:
        topics = paper.topics
        rule = topic_facultystudent if distance == "topic+facultystudent" else (lambda a, b, c: (a == b) & (b != c))
        assert rule(topics[i], topics[j], topics[k]).all()
    again = webkb_triplets(paper, distance, 5000, indices=test_pages, random_state=0)
    np.testing.assert_array_equal(t.indices, again.indices)


def test_real_binary_features_have_the_documented_shape(paper):
    X, vec = webkb_features(paper, "binary")
    # 48,281 since invisible characters inside words are left out (one page's "wwweb<SHY>site")
    assert X.shape == (4184, 48281) and len(vec.terms_) == 48281
    assert set(np.unique(X.data)) == {1.0}
