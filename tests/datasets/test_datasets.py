"""Tests for learnsim.datasets: the synthetic corpus, the loaders (on small files built in
tmp_path, and on the real corpora when they are present) and the data-dir lookup."""
from __future__ import annotations

import gzip
import io
import os
import re
import tarfile
import time

import numpy as np
import pytest
from conftest import require_corpus
from sklearn.feature_extraction.text import TfidfVectorizer

from learnsim import datasets
from learnsim.datasets import (
    find_data_dir,
    load_20newsgroups,
    load_flickr8k_captions,
    load_uci,
    make_clustered_corpus,
)

# ------------------------------------------------------------------ synthetic corpus

SMALL = dict(n_clusters=6, docs_per_cluster=10, vocab_size=600, topic_words=20)


def _tokens(doc):
    return doc.split()


def test_synthetic_shapes_and_vocabulary():
    corpus = make_clustered_corpus(**SMALL, n_styles=3, random_state=1)
    assert len(corpus.data) == 60
    assert corpus.target.shape == (60,) and corpus.target.dtype.kind == "i"
    np.testing.assert_array_equal(np.bincount(corpus.target), [10] * 6)
    assert len(corpus.target_names) == 6
    assert [len(w) for w in corpus.topic_words_] == [20] * 6
    assert [len(w) for w in corpus.style_words_] == [10] * 3
    topic = {w for ws in corpus.topic_words_ for w in ws}
    style = {w for ws in corpus.style_words_ for w in ws}
    background = set(corpus.background_words_)
    assert len(topic) == 120 and len(style) == 30
    assert not (topic & style) and not (topic & background) and not (style & background)
    assert len(topic | style | background) == 600
    used = {tok for doc in corpus.data for tok in _tokens(doc)}
    assert used <= topic | style | background
    assert all(re.fullmatch(r"w\d{3}", tok) for tok in used)


def test_synthetic_is_deterministic_and_seed_matters():
    a = make_clustered_corpus(**SMALL, random_state=3)
    b = make_clustered_corpus(**SMALL, random_state=3)
    c = make_clustered_corpus(**SMALL, random_state=4)
    assert a.data == b.data and a.topic_words_ == b.topic_words_
    np.testing.assert_array_equal(a.style, b.style)
    assert a.data != c.data
    from_generator = make_clustered_corpus(**SMALL, random_state=np.random.default_rng(3))
    assert len(from_generator.data) == 60


@pytest.mark.parametrize("doc_length", [(40, 120), (5, 9), (7, 7)])
def test_synthetic_lengths_in_range(doc_length):
    corpus = make_clustered_corpus(**SMALL, doc_length=doc_length, random_state=0)
    lengths = np.array([len(_tokens(d)) for d in corpus.data])
    assert lengths.min() >= doc_length[0] and lengths.max() <= doc_length[1]
    if doc_length[1] - doc_length[0] > 20:  # uniform lengths cover the range
        assert lengths.max() - lengths.min() > (doc_length[1] - doc_length[0]) / 2


def test_synthetic_token_mix_follows_the_fractions():
    noise, style_strength = 0.3, 0.4
    corpus = make_clustered_corpus(**SMALL, noise=noise, style_strength=style_strength, random_state=2)
    background = set(corpus.background_words_)
    for doc, topic, second, style in zip(corpus.data, corpus.target, corpus.secondary_topic, corpus.style):
        tokens = _tokens(doc)
        n = len(tokens)
        assert sum(t in background for t in tokens) == round(noise * n)
        own_style = set(corpus.style_words_[style])
        style_flags = [t in own_style for t in tokens]
        assert sum(style_flags) == round(style_strength * n)
        # Bursts: style tokens come in runs of at least 3 (only the last burst may be shorter).
        runs = sum(1 for i, f in enumerate(style_flags) if f and (i == 0 or not style_flags[i - 1]))
        assert runs <= -(-sum(style_flags) // 3) + 1
        allowed_topic = set(corpus.topic_words_[topic]) | set(corpus.topic_words_[second])
        rest = [t for t, f in zip(tokens, style_flags) if not f and t not in background]
        assert set(rest) <= allowed_topic
        assert second != topic


def test_synthetic_styles_are_independent_of_topics():
    corpus = make_clustered_corpus(random_state=0)
    assert set(corpus.style) == set(range(5))
    # every topic sees several styles, every style many topics
    for k in range(20):
        assert len(set(corpus.style[corpus.target == k])) >= 3
    for s in range(5):
        assert len(set(corpus.target[corpus.style == s])) >= 15


def test_synthetic_without_styles():
    corpus = make_clustered_corpus(**SMALL, n_styles=0, style_strength=0.0, random_state=0)
    assert corpus.style_words_ == [] and (corpus.style == -1).all()


def _cosine_r_precision(corpus):
    X = TfidfVectorizer(token_pattern=r"\S+", sublinear_tf=True).fit_transform(corpus.data)
    S = (X @ X.T).toarray()
    np.fill_diagonal(S, -np.inf)
    y = corpus.target
    R = np.bincount(y)[y] - 1
    order = np.argsort(-S, axis=1, kind="stable")
    return np.mean([(y[order[i, :R[i]]] == y[i]).mean() for i in range(len(y))])


def test_synthetic_defaults_make_cosine_imperfect_because_of_styles():
    with_styles = _cosine_r_precision(make_clustered_corpus(random_state=0))
    without = _cosine_r_precision(make_clustered_corpus(style_strength=0.0, random_state=0))
    chance = 29 / 599
    assert 2 * chance < with_styles < 0.5
    assert without > with_styles + 0.3


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(n_clusters=0), ValueError, "n_clusters"),
    (dict(docs_per_cluster=-1), ValueError, "docs_per_cluster"),
    (dict(n_clusters=2.5), TypeError, "n_clusters must be an integer"),
    (dict(topic_words=True), TypeError, "topic_words"),
    (dict(n_styles=-1), ValueError, "n_styles"),
    (dict(noise=1.0), ValueError, r"noise must be in \[0, 1\)"),
    (dict(noise=-0.1), ValueError, "noise"),
    (dict(style_strength="a lot"), TypeError, "style_strength"),
    (dict(noise=0.5, style_strength=0.5), ValueError, "noise \\+ style_strength must be < 1"),
    (dict(n_styles=0, style_strength=0.2), ValueError, "needs n_styles >= 1"),
    (dict(doc_length=(10, 5)), ValueError, "min <= max"),
    (dict(doc_length=(0, 5)), ValueError, "1 <= min"),
    (dict(doc_length=12), TypeError, "pair of integers"),
    (dict(doc_length=(1.5, 3)), TypeError, "pair of integers"),
    (dict(vocab_size=500), ValueError, "vocab_size=500 is too small.*vocab_size >= 940"),
    (dict(random_state="seed"), TypeError, "random_state"),
])
def test_synthetic_argument_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_clustered_corpus(**kwargs)


# ------------------------------------------------------------------------ find_data_dir

@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """No LEARNSIM_DATA, a cwd with no ../shared/data and no data beside the package."""
    monkeypatch.delenv("LEARNSIM_DATA", raising=False)
    work = tmp_path / "project"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(datasets._base, "_package_data_dir", lambda: tmp_path / "nowhere" / "data")
    return tmp_path


def test_find_data_dir_precedence(isolated, monkeypatch):
    explicit, env = isolated / "explicit", isolated / "env"
    cwd_data = isolated / "shared" / "data"
    for folder in (explicit, env, cwd_data):
        folder.mkdir(parents=True)
    assert find_data_dir().resolve() == cwd_data.resolve()
    monkeypatch.setenv("LEARNSIM_DATA", str(env))
    assert find_data_dir() == env
    assert find_data_dir(explicit) == explicit
    assert find_data_dir(str(explicit)) == explicit


def test_find_data_dir_falls_back_to_the_package_location(isolated, monkeypatch):
    beside_repo = isolated / "repo-parent" / "shared" / "data"
    beside_repo.mkdir(parents=True)
    monkeypatch.setattr(datasets._base, "_package_data_dir", lambda: beside_repo)
    assert find_data_dir() == beside_repo


def test_find_data_dir_errors(isolated, monkeypatch):
    with pytest.raises(FileNotFoundError, match="--data-dir.*LEARNSIM_DATA|LEARNSIM_DATA.*--data-dir") as info:
        find_data_dir()
    assert "tried" in str(info.value)
    with pytest.raises(FileNotFoundError, match="data_dir .*missing.* is not an existing folder"):
        find_data_dir(isolated / "missing")
    monkeypatch.setenv("LEARNSIM_DATA", str(isolated / "gone"))
    with pytest.raises(FileNotFoundError, match="LEARNSIM_DATA=.*gone.* is not an existing folder"):
        find_data_dir()
    with pytest.raises(ValueError, match="empty string"):
        find_data_dir("")


def test_loaders_name_the_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="20news-bydate.tar.gz"):
        load_20newsgroups(data_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match="Flickr8k.token.txt"):
        load_flickr8k_captions(data_dir=tmp_path)


# --------------------------------------------------------- 20 Newsgroups on a tiny archive

def _message(group, subject, body):
    return f"From: someone@example.org\nSubject: {subject}\nLines: 3\n\n{body}".encode("latin-1")


def _write_tarball(path, members):
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as archive:
        for name, payload in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            archive.addfile(info, io.BytesIO(payload))


@pytest.fixture
def tiny_newsgroups(tmp_path):
    members = {
        "20news-bydate-train/sci.space/10": _message("sci.space", "orbits", "Ten.\n"),
        "20news-bydate-train/sci.space/9": _message("sci.space", "rockets",
                                                    "In article <x> bob writes:\n> quoted\nNine caf\xe9.\n\n--\nBob\n"),
        "20news-bydate-train/alt.atheism/5": _message("alt.atheism", "god", "Five.\n"),
        "20news-bydate-test/sci.space/20": _message("sci.space", "moon", "Twenty.\n"),
        "20news-bydate-test/rec.autos/21": _message("rec.autos", "cars", "Twenty-one.\n"),
    }
    path = tmp_path / "20newsgroups" / "20news-bydate.tar.gz"
    _write_tarball(path, members)
    return tmp_path


def test_newsgroups_order_targets_and_headers(tiny_newsgroups):
    train = load_20newsgroups("train", data_dir=tiny_newsgroups)
    assert train.filenames == ["20news-bydate-train/alt.atheism/5", "20news-bydate-train/sci.space/9",
                               "20news-bydate-train/sci.space/10"]  # numeric, not string, id order
    assert train.target_names == ["alt.atheism", "rec.autos", "sci.space"]  # from train and test
    np.testing.assert_array_equal(train.target, [0, 2, 2])
    assert train.data[0] == "Five.\n" and train.subset == "train"
    assert "caf\xe9" in train.data[1]  # latin-1 decoding
    assert not any("Subject:" in doc for doc in train.data)
    everything = load_20newsgroups("all", data_dir=tiny_newsgroups)
    assert everything.filenames[:3] == train.filenames and len(everything.data) == 5


def test_newsgroups_remove_options(tiny_newsgroups):
    raw = load_20newsgroups(data_dir=tiny_newsgroups, remove=())
    assert raw.data[0].startswith("From: someone@example.org\nSubject: god")
    stripped = load_20newsgroups(data_dir=tiny_newsgroups, remove=("headers", "footers", "quotes"))
    message = stripped.data[1]
    assert "Nine" in message and "writes:" not in message and "> quoted" not in message
    assert "Bob" not in message  # signature after the "--" line
    same_as_string = load_20newsgroups(data_dir=tiny_newsgroups, remove="headers")
    assert same_as_string.data == load_20newsgroups(data_dir=tiny_newsgroups).data


def test_newsgroups_categories(tiny_newsgroups):
    test = load_20newsgroups("test", data_dir=tiny_newsgroups, categories=["sci.space", "rec.autos"])
    assert test.target_names == ["rec.autos", "sci.space"]
    np.testing.assert_array_equal(test.target, [0, 1])
    with pytest.raises(ValueError, match=r"unknown categories \['sci.med'\]"):
        load_20newsgroups(data_dir=tiny_newsgroups, categories=["sci.med"])


@pytest.mark.parametrize("kwargs, match", [
    (dict(subset="validation"), "subset must be"),
    (dict(remove=("headers", "signatures")), "remove contains \\['signatures'\\]"),
    (dict(categories=[]), "categories is empty"),
])
def test_newsgroups_argument_errors(tiny_newsgroups, kwargs, match):
    with pytest.raises(ValueError, match=match):
        load_20newsgroups(data_dir=tiny_newsgroups, **kwargs)


def test_newsgroups_cache_is_keyed_by_mtime(tiny_newsgroups):
    path = tiny_newsgroups / "20newsgroups" / "20news-bydate.tar.gz"
    load_20newsgroups(data_dir=tiny_newsgroups)
    hits = datasets._read_newsgroups_archive.cache_info().hits
    load_20newsgroups("test", data_dir=tiny_newsgroups)
    assert datasets._read_newsgroups_archive.cache_info().hits == hits + 1
    _write_tarball(path, {"20news-bydate-train/comp.graphics/1": _message("comp.graphics", "x", "New.\n")})
    later = time.time() + 10
    os.utime(path, (later, later))
    assert load_20newsgroups(data_dir=tiny_newsgroups).data == ["New.\n"]


def test_newsgroups_corrupt_archive(tmp_path):
    path = tmp_path / "20newsgroups" / "20news-bydate.tar.gz"
    path.parent.mkdir()
    path.write_bytes(b"this is not a tarball")
    with pytest.raises(ValueError, match="not a readable 20 Newsgroups tar archive"):
        load_20newsgroups(data_dir=tmp_path)
    _write_tarball(path, {"other/file.txt": b"hello"})
    with pytest.raises(ValueError, match="bydate"):
        load_20newsgroups(data_dir=tmp_path)


# ------------------------------------------------------------- Flickr8k on tiny files

def _write_flickr(tmp_path, lines, splits=None, gz=True):
    folder = tmp_path / "flickr8k-captions"
    folder.mkdir(exist_ok=True)
    text = "".join(line + "\n" for line in lines).encode()
    if gz:
        (folder / "Flickr8k.token.txt.gz").write_bytes(gzip.compress(text))
    else:
        (folder / "Flickr8k.token.txt").write_bytes(text)
    for split, images in (splits or {}).items():
        (folder / f"Flickr_8k.{split}Images.txt").write_text("".join(i + "\n" for i in images))
    return folder


TINY_CAPTIONS = [f"{img}.jpg#{n}\tcaption {n} of {img}" for img in ("b1", "a2", "c3") for n in range(2)]


def test_flickr_clusters_and_splits(tmp_path):
    _write_flickr(tmp_path, TINY_CAPTIONS, {"train": ["c3.jpg", "b1.jpg"], "dev": ["a2.jpg"], "test": []})
    everything = load_flickr8k_captions(data_dir=tmp_path)
    assert everything.image_ids == ["b1.jpg", "a2.jpg", "c3.jpg"]  # caption-file order
    np.testing.assert_array_equal(everything.target, [0, 0, 1, 1, 2, 2])
    assert everything.data[2] == "caption 0 of a2" and everything.split is None
    train = load_flickr8k_captions(data_dir=tmp_path, split="train")
    assert train.image_ids == ["b1.jpg", "c3.jpg"]
    np.testing.assert_array_equal(train.target, [0, 0, 1, 1])
    assert train.data == ["caption 0 of b1", "caption 1 of b1", "caption 0 of c3", "caption 1 of c3"]
    assert load_flickr8k_captions(data_dir=tmp_path, split="test").data == []


def test_flickr_plain_text_file_is_accepted(tmp_path):
    _write_flickr(tmp_path, TINY_CAPTIONS, gz=False)
    assert len(load_flickr8k_captions(data_dir=tmp_path).data) == 6


@pytest.mark.parametrize("bad_line, match", [
    ("b9.jpg#0 no tab here", "line 3: no tab separator"),
    ("b9.jpg\tno caption number", "line 3: caption id 'b9.jpg' is not"),
    ("b9.jpg#x\tbad number", "line 3: caption id 'b9.jpg#x'"),
    ("b9.jpg#0\t   ", "line 3: empty caption"),
    ("b1.jpg#1\tagain", "line 3: duplicate caption id"),
])
def test_flickr_malformed_line_names_the_line(tmp_path, bad_line, match):
    _write_flickr(tmp_path, TINY_CAPTIONS[:2] + [bad_line] + TINY_CAPTIONS[2:])
    with pytest.raises(ValueError, match=match):
        load_flickr8k_captions(data_dir=tmp_path)


def test_flickr_corrupt_files(tmp_path):
    folder = _write_flickr(tmp_path, TINY_CAPTIONS)
    (folder / "Flickr8k.token.txt.gz").write_bytes(b"not gzip at all")
    with pytest.raises(ValueError, match="could not be read"):
        load_flickr8k_captions(data_dir=tmp_path)
    (folder / "Flickr8k.token.txt.gz").write_bytes(gzip.compress(b"a.jpg#0\tok\nb.jpg#0\t\xff\xfe\n"))
    with pytest.raises(ValueError, match="line 2: not UTF-8.*encoding_errors='replace'"):
        load_flickr8k_captions(data_dir=tmp_path, encoding_errors="strict")
    with pytest.warns(datasets.UndecodableBytesWarning, match=r"1 line\(s\) are not UTF-8 text \(first: line 2\)"):
        assert load_flickr8k_captions(data_dir=tmp_path).data == ["ok", "\ufffd\ufffd"]


def test_flickr_split_errors(tmp_path):
    _write_flickr(tmp_path, TINY_CAPTIONS, {"train": ["b1.jpg", "zz.jpg"]})
    with pytest.raises(ValueError, match="1 image.*'zz.jpg'"):
        load_flickr8k_captions(data_dir=tmp_path, split="train")
    with pytest.raises(FileNotFoundError, match="Flickr_8k.devImages.txt"):
        load_flickr8k_captions(data_dir=tmp_path, split="dev")
    with pytest.raises(ValueError, match="split must be"):
        load_flickr8k_captions(data_dir=tmp_path, split="val")


# ------------------------------------------------------------------------------ UCI

@pytest.mark.parametrize("name, shape, n_classes", [
    ("iris", (150, 4), 3), ("wine", (178, 13), 3), ("breast_cancer", (569, 30), 2), ("digits", (1797, 64), 10),
])
def test_uci_shapes(name, shape, n_classes):
    bunch = load_uci(name)
    assert bunch.data.shape == shape and bunch.data.dtype == np.float64
    assert bunch.target.shape == (shape[0],)
    assert len(bunch.target_names) == n_classes == len(np.unique(bunch.target))


def test_uci_unknown_name():
    with pytest.raises(ValueError, match="unknown UCI data set 'mnist'.*breast_cancer.*digits.*iris.*wine"):
        load_uci("mnist")
    with pytest.raises(TypeError, match="name must be a string"):
        load_uci(3)


# ------------------------------------------------------------------ the real corpora

@pytest.mark.corpus
def test_real_20newsgroups():
    data_dir = require_corpus("20newsgroups/20news-bydate.tar.gz").parents[1]
    train = load_20newsgroups("train", data_dir=data_dir)
    test = load_20newsgroups("test", data_dir=data_dir)
    assert len(train.data) == 11314 and len(test.data) == 7532
    assert len(train.target_names) == 20 and set(train.target) == set(range(20))
    assert train.target_names == sorted(train.target_names)
    raw = load_20newsgroups("train", data_dir=data_dir, remove=())
    assert all("Subject:" in doc.partition("\n\n")[0] for doc in raw.data)
    # the message's own header block is gone from every document
    assert not any(r.partition("\n\n")[0] in d for r, d in zip(raw.data, train.data))
    # "Newsgroups:" lines survive only in the bodies of a few forwarded messages (38 of 18,846)
    forwarded = sum(bool(re.search(r"(?m)^Newsgroups:", d)) for d in train.data + test.data)
    assert forwarded < 0.005 * (len(train.data) + len(test.data))


@pytest.mark.corpus
def test_real_flickr8k():
    data_dir = require_corpus("flickr8k-captions/Flickr8k.token.txt.gz").parents[1]
    everything = load_flickr8k_captions(data_dir=data_dir)
    assert len(everything.data) == 40460 and len(everything.image_ids) == 8092
    assert (np.bincount(everything.target) == 5).all()
    sizes = {}
    for split in ("train", "dev", "test"):
        part = load_flickr8k_captions(data_dir=data_dir, split=split)
        assert (np.bincount(part.target) == 5).all()
        sizes[split] = len(part.image_ids)
    assert sizes == {"train": 6000, "dev": 1000, "test": 1000}
    again = load_flickr8k_captions(data_dir=data_dir)
    np.testing.assert_array_equal(again.target, everything.target)
