"""Hostile input (issue 12): overflow, undecodable text, special files, tampered model files
and out-of-range indices each fail with a clear error that names the problem."""
from __future__ import annotations

import json
import os
import tracemalloc
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

from learnsim import persistence
from learnsim.persistence import ModelFormatError, load, save


# ------------------------------------------------------------------------ overflow in MCD
def _clusters_with_one_huge_entry(n_features=10, n_items=30):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_items, n_features))
    X[0, 0] = 1e300            # finite, but its square is not
    return X, np.arange(n_items) % 3


@pytest.mark.parametrize("params, n_features", [
    (dict(n_basis=8, shrinkage=0.1, complement_weight=1.0), 10),     # principal basis
    (dict(n_basis=None, shrinkage=0.1, complement_weight=1.0), 10),  # covariance
    (dict(n_basis=None, shrinkage=0.0, complement_weight=0.0), 10),  # covariance, paper
    (dict(n_basis=None, shrinkage=0.1, complement_weight=1.0), 300),  # gram
])
def test_mcd_scatter_overflow_is_reported_as_overflow(params, n_features):
    from learnsim.mcd import MinimumClusterDistortion
    X, y = _clusters_with_one_huge_entry(n_features)
    with pytest.raises(ValueError, match=r"within-cluster scatter.*overflowed.*rescale"):
        MinimumClusterDistortion(**params).fit(X, y)


# ------------------------------------------------------------------------ undecodable text
SURROGATE = b"caf\xe9".decode("utf-8", "surrogateescape")   # 'caf\udce9'


def test_vectorizer_vocabulary_with_lone_surrogate_round_trips(tmp_path):
    from learnsim.text import TextVectorizer
    docs = [f"{SURROGATE} au lait", "the cafe is open", f"open {SURROGATE} now"]
    vec = TextVectorizer(token_pattern=r"\S+").fit(docs)
    assert SURROGATE in vec.vocabulary_
    loaded = load(save(vec, tmp_path / "v.npz"))
    assert loaded.vocabulary_ == vec.vocabulary_
    assert (loaded.transform(docs) != vec.transform(docs)).nnz == 0


def test_vectorizer_stop_words_with_lone_surrogate_round_trip(tmp_path):
    from learnsim.text import TextVectorizer
    docs = [f"{SURROGATE} au lait", "the cafe is open", f"open {SURROGATE} now"]
    vec = TextVectorizer(token_pattern=r"\S+", stop_words=[SURROGATE, "the"]).fit(docs)
    assert SURROGATE not in vec.vocabulary_
    loaded = load(save(vec, tmp_path / "v.npz"))
    assert set(loaded.stop_words) == {SURROGATE, "the"}
    assert (loaded.transform(docs) != vec.transform(docs)).nnz == 0


# ------------------------------------------------------------------------ special files
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_load_refuses_a_device_instead_of_reading_it_forever():
    with pytest.raises(ModelFormatError, match="not a regular file"):
        load("/dev/zero")
    with pytest.raises(ModelFormatError, match="not a regular file"):
        persistence.read_manifest("/dev/zero")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_load_refuses_a_named_pipe_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "model.npz"
    os.mkfifo(fifo)
    with pytest.raises(ModelFormatError, match="not a regular file"):
        load(fifo)


def _small_saved_model(tmp_path):
    from learnsim.persistence import _ExampleState
    path = tmp_path / "m.npz"
    save(_ExampleState({}, {"w": np.arange(4.0)}), path)
    return path


def _npy_bytes(arr):
    import io
    buffer = io.BytesIO()
    np.save(buffer, arr)
    return buffer.getvalue()


def _repack_with(path, out, member, payload):
    """``path`` copied to ``out`` with ``member`` replaced by ``payload``, deflated."""
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, payload if info.filename == member else src.read(info))


@pytest.mark.parametrize("payload, message", [
    # the .npy header itself claims 100 MB: refused on the header, before any allocation
    (lambda: _npy_bytes(np.zeros(12_500_000)), r"array 'w'.*shape \[12500000\].*manifest says \[4\]"),
    # the header agrees with the manifest, but 100 MB of zeros follow it (a zip bomb)
    (lambda: _npy_bytes(np.arange(4.0)) + bytes(100_000_000), r"'model/w' is 100000\d\d\d bytes.*refused unread"),
])
def test_entry_larger_than_the_manifest_declares_is_refused_before_it_is_read(tmp_path, payload, message):
    path = _small_saved_model(tmp_path)
    bomb = tmp_path / "bomb.npz"
    _repack_with(path, bomb, "model/w.npy", payload())
    assert bomb.stat().st_size < 2 * 2**20
    tracemalloc.start()
    try:
        with pytest.raises(ModelFormatError, match=message):
            load(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20, f"load read {peak / 2**20:.0f} MiB of an entry it should have refused unread"


def test_manifest_larger_than_the_limit_is_refused_unread(tmp_path, monkeypatch):
    path = _small_saved_model(tmp_path)
    monkeypatch.setattr(persistence, "MAX_MANIFEST_BYTES", 64)
    with pytest.raises(ModelFormatError, match="manifest.*larger than"):
        load(path)


# ------------------------------------------------------------------------ indices
def test_out_of_range_pair_triplet_and_link_indices_are_value_errors():
    from learnsim.supervision import Links, Pairs, check_pairs, check_triplets
    with pytest.raises(ValueError, match="index 7, out of range for 5 items") as info:
        check_triplets([[0, 1, 7]], 5)
    assert not isinstance(info.value, IndexError)
    with pytest.raises(ValueError, match="index 9, out of range for 5 items"):
        check_pairs(Pairs([[0, 9]], labels=[1]), 5)
    with pytest.raises(ValueError, match="index 12, out of range for 10 items"):
        Links.from_edges([[0, 12]], n_items=10)


def test_huge_unsigned_index_is_reported_as_itself():
    from learnsim.supervision import Pairs, check_triplets
    big = np.array([[0, 1, 2**64 - 1]], dtype=np.uint64)
    with pytest.raises(ValueError, match="18446744073709551615") as info:
        check_triplets(big, 5)
    assert "-1" not in str(info.value)
    with pytest.raises(ValueError, match="18446744073709551615"):
        Pairs(big[:, 1:], labels=[1])


def test_metric_pair_index_out_of_range_is_a_value_error():
    from learnsim.mcd import MinimumClusterDistortion
    X, y = _clusters_with_one_huge_entry()
    X[0, 0] = 0.0
    m = MinimumClusterDistortion(n_basis=None, shrinkage=0.1, complement_weight=1.0).fit(X, y)
    with pytest.raises(ValueError, match="index 1000, out of range"):
        m.pair_distance([[0, 1000]], X=X)


def test_film_with_no_triplets_says_so():
    from learnsim.film import FILM
    X = np.random.default_rng(0).normal(size=(10, 4))
    with pytest.raises(ValueError, match="no triplets"):
        FILM().fit(X, [])


# ------------------------------------------------------------------------ tampered model files
def _blobs(seed=0, n_clusters=4, per=10, d=6):
    rng = np.random.default_rng(seed)
    X = np.repeat(rng.normal(scale=3.0, size=(n_clusters, d)), per, axis=0) + rng.normal(size=(n_clusters * per, d))
    return X, np.repeat(np.arange(n_clusters), per)


def _counts(seed=0, n=40, d=30):
    rng = np.random.default_rng(seed)
    X = rng.poisson(1.5, size=(n, d)) * (rng.random((n, d)) < 0.3)
    X[:, 0] = rng.integers(1, 3, size=n)
    return sp.csr_matrix(X.astype(float))


def _duplicate_pairs(seed=0, n=40, d=6):
    from learnsim.supervision import Pairs
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n, d))
    X = np.vstack([base, base + 0.3 * rng.normal(size=(n, d))])
    dup = np.column_stack([np.arange(n), np.arange(n) + n])
    non = np.column_stack([np.arange(n), (np.arange(n) + 1) % n + n])
    return X, Pairs(np.vstack([dup, non]), labels=np.r_[np.ones(n, bool), np.zeros(n, bool)])


def _mcd(**params):
    from learnsim.mcd import MinimumClusterDistortion
    return MinimumClusterDistortion(random_state=0, **params).fit(*_blobs())


def _film(X=None, y=None):
    from learnsim.film import FILM
    if X is None:
        X, y = _blobs()
    return FILM(2, max_iter=20, random_state=0).fit(X, y)


def _relative(**params):
    from learnsim.relative import RelativeComparisonMetric
    from learnsim.supervision import clusters_to_triplets
    X, y = _blobs()
    return RelativeComparisonMetric(random_state=0, **params).fit(X, clusters_to_triplets(y, 100, random_state=0))


def _linklearn():
    from learnsim.linklearn import LinkLearn
    from learnsim.supervision import Links

    def ring(n):
        return Links.from_edges(np.column_stack([np.arange(n), (np.arange(n) + 1) % n]), n)
    X = _counts()
    return LinkLearn(2, 2, 2, max_iter=30, validation_interval=10, random_state=0).fit(
        X[:30], ring(30), validation=(X[30:], ring(10)))


_TEXTS = ["the cat sat on the mat", "a dog sat on the log", "cats and dogs", "the mat is red",
          "red dogs run", "a log on a mat"]


def _text(**params):
    from learnsim.text import TextVectorizer
    return TextVectorizer(random_state=0, **params).fit(_TEXTS)


def _matcher(name, transformer=None, **params):
    from learnsim.matching import _matchers as matching
    X, pairs = _duplicate_pairs()
    if transformer is not None:
        transformer = transformer(X)
    return getattr(matching, name)(transformer, **params).fit(X, pairs)


def _pair_model(name, **params):
    from learnsim.matching import pair_classifier as pair_classifier
    from learnsim.supervision import Pairs
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(30)]
    texts = [" ".join(rng.choice(words, 5)) for _ in range(60)]
    idx = np.column_stack([np.arange(0, 60, 2), np.arange(1, 60, 2)])
    target = (Pairs(idx, scores=rng.uniform(0, 5, 30)) if name == "PairScoreRegressor"
              else Pairs(idx, labels=np.arange(30) % 2 == 0))
    return getattr(pair_classifier, name)(char_features=8, n_components=3, n_splits=2, random_state=0,
                                          **params).fit(texts, target)


def _hybrid():
    from learnsim.film.hybrid import HybridEmbedding
    return HybridEmbedding(_film(), input_weight=0.25).fit(_blobs()[0])


def _exact_index(metric):
    from learnsim.search import ExactIndex
    return ExactIndex(metric).fit(_blobs()[0])


#: A fitted instance of every class that persistence can save (SentenceEncoder needs model
#: weights on disk and is left to test_encoders), in each of its saved forms.
SAVEABLE = {
    "mcd-paper": lambda: _mcd(n_basis=None, shrinkage=0.0, complement_weight=0.0),
    "mcd-covariance": lambda: _mcd(n_basis=None, shrinkage=0.1, complement_weight=1.0),
    "mcd-basis": lambda: _mcd(n_basis=4, shrinkage=0.1, complement_weight=1.0),
    "mcd-auto": lambda: _mcd(basis_grid=(2, 4), shrinkage_grid=(0.0, 0.1), complement_grid=(0.0, 1.0)),
    "film": _film,
    "relative": _relative,
    "relative-rbf": lambda: _relative(kernel="rbf"),
    "linklearn": _linklearn,
    "bm25": lambda: __import__("learnsim.bm25", fromlist=["BM25"]).BM25().fit(_counts()),
    "text-tfidf": lambda: _text(norm="l2"),
    "text-bm25-lsi": lambda: _text(weighting="bm25", n_components=2),
    "knn-matcher": lambda: _matcher("PairwiseKNNMatcher"),
    "threshold-matcher": lambda: _matcher("ThresholdMatcher"),
    "threshold-matcher-film": lambda: _matcher("ThresholdMatcher", lambda X: _film(X, np.arange(len(X)) % 8),
                                               input_weight="auto"),
    "pair-classifier": lambda: _pair_model("PairClassifierMatcher", features=(
        "input_cosine", "char_cosine", "overlap", "length", "lowrank", "word_pairs")),
    "pair-regressor": lambda: _pair_model("PairScoreRegressor"),
    "hybrid": _hybrid,
    "exact-index-cosine": lambda: _exact_index("cosine"),
    "exact-index-euclidean": lambda: _exact_index("sqeuclidean"),
}


def _entries_and_manifest(path):
    with np.load(path, allow_pickle=False) as archive:
        entries = {key: archive[key] for key in archive.files}
    return entries, json.loads(entries["__manifest__"].tobytes().decode("utf-8"))


def _write_tampered(path, entries, manifest):
    """Re-pack the file the way a tamperer would: checksums recomputed for the edited data."""
    for name, entry in manifest["objects"].items():
        for key, desc in entry["arrays"].items():
            parts = desc["parts"] if "sparse" in desc else {None: desc}
            for part, part_desc in parts.items():
                entry_key = f"{name}/{key}" + (f"/{part}" if part else "")
                part_desc["sha256"] = persistence._array_digest(entries[entry_key])
    entries = dict(entries, __manifest__=np.frombuffer(json.dumps(manifest).encode("utf-8"), dtype=np.uint8))
    np.savez(path, **entries)


def _nonfinite_allowed(obj):
    allowed = set(getattr(type(obj), "_STATE_NONFINITE", ()))
    inner = getattr(obj, "transformer", None)
    if inner is not None:
        allowed |= {f"transformer.{k}" for k in getattr(type(inner), "_STATE_NONFINITE", ())}
    return allowed


def _float_fields(meta, path=""):
    """Paths (tuples of keys) of the float scalars of a manifest's meta, nested ones included."""
    for key, value in meta.items():
        where = path + (key,) if isinstance(path, tuple) else (key,)
        if isinstance(value, dict):
            yield from _float_fields(value, where)
        elif isinstance(value, float):
            yield where


@pytest.fixture(scope="module")
def fitted_saveable():
    cache = {}

    def get(case):
        if case not in cache:
            cache[case] = SAVEABLE[case]()
        return cache[case]
    return get


@pytest.mark.parametrize("case", list(SAVEABLE))
def test_tampered_float_array_never_loads(case, fitted_saveable, tmp_path):
    obj = fitted_saveable(case)
    path = save(obj, tmp_path / "m.npz")
    assert type(load(path)) is type(obj)     # the untouched file loads
    entries, manifest = _entries_and_manifest(path)
    allowed = _nonfinite_allowed(obj)
    tampered, loaded = [], []
    for key, desc in manifest["objects"]["model"]["arrays"].items():
        entry_key = f"model/{key}" + ("/data" if "sparse" in desc else "")
        if entries[entry_key].dtype.kind != "f" or not entries[entry_key].size or key in allowed:
            continue
        for bad in (np.nan, np.inf, -np.inf):
            edited = dict(entries)
            arr = edited[entry_key].copy()
            arr.flat[arr.size // 2] = bad
            edited[entry_key] = arr
            _write_tampered(path, edited, json.loads(json.dumps(manifest)))
            tampered.append((key, bad))
            try:
                load(path)
            except ModelFormatError as exc:
                # a nested transformer's own check names its array without the prefix
                field = key.rpartition(".")[2]
                assert field in str(exc), f"{key} = {bad}: the message does not name the field: {exc}"
            else:
                loaded.append((key, bad))
    assert tampered, "no float array to tamper with"
    assert not loaded, f"tampered arrays loaded: {loaded}"


@pytest.mark.parametrize("case", list(SAVEABLE))
def test_tampered_scalar_in_the_manifest_never_loads(case, fitted_saveable, tmp_path):
    obj = fitted_saveable(case)
    path = save(obj, tmp_path / "m.npz")
    entries, manifest = _entries_and_manifest(path)
    allowed = _nonfinite_allowed(obj)
    loaded = []
    fields = [f for f in _float_fields(manifest["objects"]["model"]["meta"])
              if ".".join(f[:1]) not in allowed and ".".join(f[:3:2]) not in allowed]
    for field in fields:
        for bad in (float("inf"), float("nan")):
            edited = json.loads(json.dumps(manifest))
            target = edited["objects"]["model"]["meta"]
            for key in field[:-1]:
                target = target[key]
            target[field[-1]] = bad
            _write_tampered(path, entries, edited)
            try:
                load(path)
            except ModelFormatError as exc:
                assert field[-1] in str(exc), f"{field} = {bad}: the message does not name the field: {exc}"
            else:
                loaded.append((".".join(field), bad))
    assert not loaded, f"tampered scalars loaded: {loaded}"


def _tamper(obj, tmp_path, edit_meta=None, edit_arrays=None):
    """Save ``obj``, edit its manifest meta and/or its arrays, recompute the checksums."""
    path = save(obj, tmp_path / "m.npz")
    entries, manifest = _entries_and_manifest(path)
    if edit_meta:
        edit_meta(manifest["objects"]["model"]["meta"])
    if edit_arrays:
        arrays = {key[len("model/"):]: value for key, value in entries.items() if key.startswith("model/")}
        edit_arrays(arrays)
        entries.update({f"model/{key}": value for key, value in arrays.items()})
    _write_tampered(path, entries, manifest)
    return path


def _set(key, value):
    return lambda d: d.__setitem__(key, value)


def _scale(key, factor):
    return lambda d: d.__setitem__(key, d[key] * factor)


def test_the_tampered_models_of_the_issue_never_load(fitted_saveable, tmp_path):
    def nan_first(key):
        def edit(arrays):
            arrays[key] = arrays[key].copy()
            arrays[key].flat[0] = np.nan
        return edit
    cases = [
        ("mcd-covariance", None, nan_first("factor"), r"array 'factor' contains NaN"),
        ("mcd-covariance", _set("residual_weight", float("inf")), None, r"'residual_weight' is inf"),
        ("text-tfidf", None, nan_first("idf"), r"array 'idf' contains NaN"),
    ]
    for case, edit_meta, edit_arrays, message in cases:
        path = _tamper(fitted_saveable(case), tmp_path, edit_meta, edit_arrays)
        with pytest.raises(ModelFormatError, match=message):
            load(path)


@pytest.mark.parametrize("case, edit_meta, edit_arrays, message", [
    ("mcd-covariance", None, _scale("weights", -1.0), r"array 'weights' contains -.*must be >= 0"),
    ("mcd-covariance", _set("shrinkage", 2.0), None, r"shrinkage = 2.0 is outside \[0.0, 1.0\]"),
    ("mcd-covariance", _set("scale", -1.0), None, r"scale = -1.0 is outside"),
    ("mcd-covariance", None, lambda a: a.__setitem__("active_features", a["active_features"] + 1),
     r"array 'active_features' contains 6; its values must be <= 5"),
    ("mcd-covariance", _set("solver", "magic"), None, r"solver must be one of"),
    ("film", None, _scale("scales", -1.0), r"array 'scales' contains -.*must be >= 0"),
    ("film", _set("n_features_in", 10**400), None, r"array 'components' has shape"),
    ("relative", None, _scale("weights_", -1.0), r"array 'weights_' contains -.*must be >= 0"),
    ("relative", None, _scale("dual_coef_", 1e9), r"array 'dual_coef_' contains .*must be <= 1"),
    ("relative-rbf", _set("gamma_", 0.0), None, r"gamma_ = 0.0 is outside \(0.0, inf\]"),
    ("text-tfidf", _set("avgdl", 0.0), None, r"avgdl = 0.0 is outside"),
    ("text-tfidf", _set("n_documents", 1), None, r"array 'document_frequency' contains \d+; its values must be <= 1"),
    ("text-bm25-lsi", None, _scale("singular_values", -1.0), r"array 'singular_values' contains -"),
    ("knn-matcher", _set("p_duplicate_match", 1.5), None, r"p_duplicate_match must lie in \(0, 1\)"),
    ("threshold-matcher", _set("threshold", float("nan")), None, r"threshold is NaN|threshold must be a number"),
    ("threshold-matcher", _set("validation_accuracy", 2.0), None, r"validation_accuracy = 2.0 is outside"),
    ("pair-classifier", _set("validation_accuracy", 2.0), None, r"validation_accuracy = 2.0 is outside"),
    ("pair-classifier", _set("features_fitted", ["input_cosine"]), None, r"features_fitted must equal"),
    ("pair-classifier", None, _scale("feature_scale", -1.0), r"array 'feature_scale' contains -"),
    ("pair-classifier", None, lambda a: a.__setitem__("coef", a["coef"][:-1]), r"'coef'.* has shape"),
    ("pair-regressor", _set("alpha_fitted", 0.0), None, r"alpha_fitted = 0.0 is outside"),
    ("hybrid", _set("n_features_in", 7), None, r"n_features_in is 7, but its transformer expects 6"),
    ("exact-index-cosine", None, _scale("corpus", 2.0), r"'corpus' of a cosine index must have rows of length 1"),
    ("exact-index-euclidean", _set("max_block_bytes", -5), None, r"max_block_bytes must be a positive integer"),
])
def test_saved_values_out_of_the_range_fit_produces_never_load(case, edit_meta, edit_arrays, message,
                                                                 fitted_saveable, tmp_path):
    path = _tamper(fitted_saveable(case), tmp_path, edit_meta, edit_arrays)
    with pytest.raises(ModelFormatError, match=message):
        load(path)


def test_linklearn_with_an_infinite_coefficient_names_the_real_problem(fitted_saveable, tmp_path):
    def inf_coef(arrays):
        arrays["coef"] = arrays["coef"].copy()
        arrays["coef"][3] = np.inf
    path = _tamper(fitted_saveable("linklearn"), tmp_path, edit_arrays=inf_coef)
    with pytest.raises(ModelFormatError, match=r"'coef' contains inf") as info:
        load(path)
    assert "shape" not in str(info.value)
    # the class's own check says the same when the state does not come through a file
    from learnsim.linklearn import LinkLearn
    meta, arrays = fitted_saveable("linklearn")._get_state()
    coef = arrays["coef"].copy()
    coef[3] = np.inf
    with pytest.raises(ValueError, match=r"'coef' contains inf"):
        LinkLearn._from_state(meta, dict(arrays, coef=coef))


def test_manifest_nested_too_deeply_is_refused(tmp_path):
    path = _small_saved_model(tmp_path)
    entries, manifest = _entries_and_manifest(path)
    text = json.dumps(manifest).replace('"meta": {}', '"meta": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    entries["__manifest__"] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    np.savez(path, **entries)
    with pytest.raises(ModelFormatError, match="nests too deeply"):
        load(path)
