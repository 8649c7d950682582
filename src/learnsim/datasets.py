"""Loaders for the development corpora and a synthetic clustered-text generator.

The loaders read the corpora in the formats their publishers distribute (a tarball, a
gzipped caption list), so nothing has to be unpacked or converted first. They look for
the files under a *data directory* laid out like the project's ``../shared/data``::

    <data_dir>/20newsgroups/20news-bydate.tar.gz
    <data_dir>/flickr8k-captions/Flickr8k.token.txt.gz  (+ Flickr_8k.{train,dev,test}Images.txt)

See :func:`find_data_dir` for how that directory is chosen. :func:`make_clustered_corpus`
needs no files at all; it is the default corpus for the demo and the fast tests.
"""
from __future__ import annotations

import functools
import gzip
import numbers
import os
import re
import tarfile
import zlib
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from learnsim._validation import check_random_state

__all__ = [
    "find_data_dir",
    "load_20newsgroups",
    "load_flickr8k_captions",
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
