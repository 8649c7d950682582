"""Model files: round trips, and a clear ModelFormatError for every kind of damaged file."""
from __future__ import annotations

import json
import os
import pickle
import struct
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

import learnsim
from learnsim import persistence
from learnsim.persistence import ModelFormatError, _ExampleState, load, read_manifest, save
from learnsim.search import ExactIndex


def example(**extra_arrays):
    rng = np.random.default_rng(0)
    arrays = {
        "dense": rng.normal(size=(4, 3)),
        "f32": rng.normal(size=(5,)).astype(np.float32),
        "ints": np.arange(6, dtype=np.int32).reshape(2, 3),
        "sparse": sp.random(6, 5, density=0.4, format="csr", random_state=1),
    }
    arrays.update(extra_arrays)
    meta = {"name": "généralité ✓", "alpha": 0.5, "n": 3, "flag": True, "none": None,
            "nested": {"list": [1, 2, "three"]}}
    return _ExampleState(meta, arrays)


def assert_same_arrays(got, want):
    assert set(got) == set(want)
    for key, value in want.items():
        if sp.issparse(value):
            assert sp.issparse(got[key]) and got[key].format == "csr"
            assert got[key].dtype == value.dtype
            np.testing.assert_array_equal(got[key].toarray(), value.toarray())
        else:
            assert got[key].dtype == value.dtype and got[key].shape == value.shape
            np.testing.assert_array_equal(got[key], value)


def rewrite(path, edit_manifest=None, edit_entries=None):
    """Re-pack a saved file as a consistent zip after editing its manifest or entries."""
    with np.load(path, allow_pickle=False) as archive:
        entries = {key: archive[key] for key in archive.files}
    manifest = json.loads(entries["__manifest__"].tobytes().decode("utf-8"))
    if edit_manifest:
        edit_manifest(manifest)
    entries["__manifest__"] = np.frombuffer(json.dumps(manifest).encode("utf-8"), dtype=np.uint8)
    if edit_entries:
        edit_entries(entries)
    np.savez(path, **entries)


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "model.npz"
    save(example(), path)
    return path


# --- round trips ----------------------------------------------------------------------------

def test_round_trip_single_object(saved):
    obj = load(saved)
    want = example()
    assert isinstance(obj, _ExampleState)
    assert obj.meta == want.meta
    assert_same_arrays(obj.arrays, want.arrays)


def test_round_trip_dict_and_name(tmp_path):
    path = tmp_path / "pair.npz"
    a, b = example(), _ExampleState({"k": 1}, {"x": np.array([1.5])})
    assert save({"vectorizer": a, "metric": b}, path) == path
    both = load(path)
    assert set(both) == {"vectorizer", "metric"}
    assert both["metric"].meta == {"k": 1}
    assert_same_arrays(both["vectorizer"].arrays, a.arrays)
    only = load(path, name="metric")
    np.testing.assert_array_equal(only.arrays["x"], [1.5])
    with pytest.raises(KeyError, match="no object named 'model'"):
        load(path, name="model")
    # a dict with one entry still comes back as a dict: load returns what save was given
    save({"only": b}, path)
    assert set(load(path)) == {"only"}


def test_round_trip_unusual_arrays(tmp_path):
    arrays = {
        "empty": np.empty((0, 3)),
        "scalar": np.array(2.5),
        "bools": np.array([True, False]),
        "strings": np.array(["alpha", "βeta", ""]),
        "fortran": np.asfortranarray(np.arange(12.0).reshape(3, 4)),
        "csr_array": sp.csr_array(np.eye(3, dtype=np.float32)),
        "csc": sp.csc_matrix(np.array([[0, 2.0], [3, 0]])),
        "empty_sparse": sp.csr_matrix((3, 4)),
        "big_ints": np.array([2**62, -(2**62)], dtype=np.int64),
    }
    save(_ExampleState({}, arrays), tmp_path / "m.npz")
    got = load(tmp_path / "m.npz").arrays
    assert_same_arrays(got, arrays)
    assert isinstance(got["csr_array"], sp.sparray)
    assert not isinstance(got["csc"], sp.sparray) and got["csc"].format == "csr"


def test_numpy_scalars_in_meta(tmp_path):
    save(_ExampleState({"n": np.int64(7), "x": np.float32(0.5), "b": np.bool_(True)}), tmp_path / "m.npz")
    assert load(tmp_path / "m.npz").meta == {"n": 7, "x": 0.5, "b": True}


def test_compressed_round_trip(tmp_path):
    path = tmp_path / "small.npz"
    save(_ExampleState({}, {"zeros": np.zeros(10000)}), path, compress=True)
    assert path.stat().st_size < 10000
    np.testing.assert_array_equal(load(path).arrays["zeros"], np.zeros(10000))


def test_manifest_contents(saved):
    manifest = read_manifest(saved)
    assert manifest["format"] == "learnsim-model" and manifest["format_version"] == 1
    assert manifest["learnsim_version"] == learnsim.__version__
    assert manifest["created"].endswith("+00:00")
    entry = manifest["objects"]["model"]
    assert entry["class"] == "learnsim.persistence._ExampleState"
    assert entry["arrays"]["dense"]["shape"] == [4, 3]
    assert entry["arrays"]["dense"]["dtype"] == "<f8"
    assert len(entry["arrays"]["dense"]["sha256"]) == 64
    assert entry["arrays"]["sparse"]["sparse"] == "csr_matrix"
    assert set(entry["arrays"]["sparse"]["parts"]) == {"data", "indices", "indptr"}
    assert zipfile.is_zipfile(saved)


def test_exact_index_round_trip(tmp_path):
    rng = np.random.default_rng(2)
    corpus, queries = rng.normal(size=(30, 4)), rng.normal(size=(5, 4))
    for metric in ("cosine", "sqeuclidean"):
        index = ExactIndex(metric, block_size=(2, 7)).fit(sp.csr_matrix(corpus))
        save(index, tmp_path / "index.npz")
        loaded = load(tmp_path / "index.npz")
        assert loaded.get_params() == index.get_params()
        for got, want in zip(loaded.search(queries, 4), index.search(queries, 4)):
            np.testing.assert_array_equal(got, want)


def test_file_is_replaced_atomically(tmp_path, monkeypatch):
    path = tmp_path / "model.npz"
    save(_ExampleState({"v": 1}), path)

    def broken_savez(handle, **entries):
        handle.write(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", broken_savez)
    with pytest.raises(OSError, match="disk full"):
        save(_ExampleState({"v": 2}), path)
    monkeypatch.undo()
    assert load(path).meta == {"v": 1}  # the old file is intact
    assert [p.name for p in tmp_path.iterdir()] == ["model.npz"]  # no temp file left behind


def test_saved_file_permissions_follow_umask(tmp_path):
    old = os.umask(0o022)
    try:
        save(_ExampleState(), tmp_path / "m.npz")
    finally:
        os.umask(old)
    assert (tmp_path / "m.npz").stat().st_mode & 0o777 == 0o644


# --- no pickle, ever --------------------------------------------------------------------------

def test_np_load_never_allows_pickle(saved, monkeypatch):
    calls = []
    real_load = np.load

    def spy(*args, **kwargs):
        calls.append(kwargs.get("allow_pickle"))
        return real_load(*args, **kwargs)

    monkeypatch.setattr(np, "load", spy)
    monkeypatch.setattr(pickle, "loads", lambda *a, **k: pytest.fail("pickle.loads called"))
    monkeypatch.setattr(pickle, "load", lambda *a, **k: pytest.fail("pickle.load called"))
    load(saved)
    read_manifest(saved)
    assert calls and all(flag is False for flag in calls)


def test_object_array_in_file_refused(saved):
    def add_object_array(entries):
        entries["model/dense"] = np.array([{"a": 1}, None], dtype=object)  # pickled by np.savez

    rewrite(saved, edit_entries=add_object_array)
    with pytest.raises(ModelFormatError, match="object array"):
        load(saved)


def test_object_dtype_in_manifest_refused(saved):
    def claim_object(manifest):
        manifest["objects"]["model"]["arrays"]["dense"]["dtype"] = "|O"

    rewrite(saved, edit_manifest=claim_object)
    with pytest.raises(ModelFormatError, match="dtype object, which is refused"):
        load(saved)


# --- damaged files --------------------------------------------------------------------------

def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load(tmp_path / "nope.npz")
    with pytest.raises(FileNotFoundError, match="directory"):
        save(_ExampleState(), tmp_path / "no_dir" / "m.npz")


def test_directory_instead_of_file(tmp_path):
    with pytest.raises(IsADirectoryError):
        load(tmp_path)
    with pytest.raises(IsADirectoryError):
        save(_ExampleState(), tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes (POSIX)")
def test_a_pipe_is_refused_and_kept_and_a_link_is_written_through(tmp_path):
    """The model is moved into place: a pipe or a device (as root, /dev/null) was replaced by a
    regular file. Now refused, left as it was; a symbolic link is followed and kept."""
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    with pytest.raises(FileExistsError, match="not a regular file"):
        save(_ExampleState(), fifo)
    assert not fifo.is_file() and fifo.exists()
    target, link = tmp_path / "target.npz", tmp_path / "link.npz"
    link.symlink_to(target.name)                 # dangling: the file it names is created
    save(_ExampleState(), link)
    assert link.is_symlink() and target.is_file() and load(link) is not None
    save(_ExampleState(), link)                  # and replaced, the link still a link
    assert link.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["link.npz", "pipe.npz", "target.npz"]


def test_not_a_zip(tmp_path):
    path = tmp_path / "model.npz"
    path.write_text("just some text")
    with pytest.raises(ModelFormatError, match="not a zip"):
        load(path)
    np.save(tmp_path / "plain.npy", np.arange(3))
    with pytest.raises(ModelFormatError, match="not a zip"):
        load(tmp_path / "plain.npy")


@pytest.mark.parametrize("keep", [0.5, 0.99])
def test_truncated(saved, keep):
    data = saved.read_bytes()
    saved.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(ModelFormatError):
        load(saved)


def test_flipped_bytes_inside_array(saved):
    # locate the raw bytes of one stored array and damage them in place
    with zipfile.ZipFile(saved) as archive:
        info = archive.getinfo("model/dense.npy")
    data = bytearray(saved.read_bytes())
    local_header_len = 30 + len(info.filename.encode()) + len(info.extra)
    start = info.header_offset + local_header_len
    end = start + info.compress_size
    for pos in range(end - 16, end - 8):  # the last bytes are array data, past the npy header
        data[pos] ^= 0xFF
    saved.write_bytes(bytes(data))
    with pytest.raises(ModelFormatError, match="entry 'model/dense' is corrupted"):
        load(saved)


def test_sha256_mismatch(saved):
    def change_values(entries):
        entries["model/dense"] = entries["model/dense"] + 1.0  # same shape and dtype

    rewrite(saved, edit_entries=change_values)
    with pytest.raises(ModelFormatError, match=r"array 'dense'.*sha256 checksum mismatch"):
        load(saved)


def test_sparse_part_checksum_mismatch(saved):
    def change_indices(entries):
        entries["model/sparse/indices"] = entries["model/sparse/indices"][::-1].copy()

    rewrite(saved, edit_entries=change_indices)
    with pytest.raises(ModelFormatError, match=r"CSR indices.*sha256"):
        load(saved)


def test_inconsistent_sparse_parts(saved):
    def out_of_range(entries):
        entries["model/sparse/indices"] = entries["model/sparse/indices"] + 100

    # the checksum is then updated, so that only the CSR consistency check can catch it
    rewrite(saved, edit_entries=out_of_range)
    with np.load(saved) as archive:
        new = archive["model/sparse/indices"]
    rewrite(saved, edit_manifest=lambda m: m["objects"]["model"]["arrays"]["sparse"]["parts"]
            ["indices"].update(sha256=persistence._array_digest(new)))
    with pytest.raises(ModelFormatError, match="sparse array 'sparse'.*inconsistent"):
        load(saved)


def test_missing_manifest(saved):
    with np.load(saved) as archive:
        entries = {k: archive[k] for k in archive.files if k != "__manifest__"}
    np.savez(saved, **entries)
    with pytest.raises(ModelFormatError, match="no '__manifest__' entry"):
        load(saved)


def test_manifest_not_json(saved):
    def garble(entries):
        entries["__manifest__"] = np.frombuffer(b'{"format": "learnsim-model", ', dtype=np.uint8)

    rewrite(saved, edit_entries=garble)
    with pytest.raises(ModelFormatError, match="not valid UTF-8 JSON"):
        load(saved)


def test_manifest_wrong_type(saved):
    rewrite(saved, edit_entries=lambda e: e.update(__manifest__=np.arange(3.0)))
    with pytest.raises(ModelFormatError, match="uint8"):
        load(saved)


def test_manifest_not_an_object(saved):
    rewrite(saved, edit_entries=lambda e: e.update(__manifest__=np.frombuffer(b"[1]", np.uint8)))
    with pytest.raises(ModelFormatError, match="JSON object"):
        load(saved)


@pytest.mark.parametrize("edit, message", [
    (lambda m: m.update(format="other-model"), "manifest format is 'other-model'"),
    (lambda m: m.pop("format"), "manifest format is None"),
    (lambda m: m.update(format_version=2), "format version 2.*reads up to version 1.*upgrade"),
    (lambda m: m.update(format_version="1"), "invalid format_version"),
    (lambda m: m.update(format_version=0), "invalid format_version"),
    (lambda m: m.update(objects={}), "lists no objects"),
    (lambda m: m.update(saved_as="list"), "invalid saved_as"),
    (lambda m: m["objects"]["model"].pop("meta"), "must have 'class'"),
    (lambda m: m["objects"]["model"]["arrays"]["dense"].pop("sha256"), "must give 'shape'"),
    (lambda m: m["objects"]["model"]["arrays"]["dense"].update(shape=[3, 4]),
     r"array 'dense'.*shape \[4, 3\].*manifest says \[3, 4\]"),
    (lambda m: m["objects"]["model"]["arrays"]["dense"].update(dtype="<f4"),
     "dtype <f8, but the manifest says.*<f4"),
    (lambda m: m["objects"]["model"]["arrays"]["dense"].update(dtype="nonsense"), "unknown dtype"),
    (lambda m: m["objects"]["model"]["arrays"]["sparse"].update(sparse="coo"), "sparse array"),
    (lambda m: m["objects"]["model"]["arrays"].update(extra={"shape": [1], "dtype": "<f8",
                                                              "sha256": "0" * 64}),
     "array 'extra'.*missing from the file"),
    (lambda m: m["objects"]["model"]["arrays"].pop("dense"), "entries the manifest does not list"),
    (lambda m: m["objects"]["model"]["meta"].update(reject=True), "rejected its saved state"),
])
def test_edited_manifest(saved, edit, message):
    rewrite(saved, edit_manifest=edit)
    with pytest.raises(ModelFormatError, match=message):
        load(saved)


@pytest.mark.parametrize("class_path, message", [
    ("os.system", "only learnsim classes"),
    ("builtins.eval", "only learnsim classes"),
    ("subprocess.Popen", "only learnsim classes"),
    ("learnsim", "only learnsim classes"),
    ("learnsim.persistence.os", "not a learnsim class"),  # a module reachable from learnsim
    ("learnsim.persistence.save", "not a learnsim class"),  # a learnsim function
    ("learnsim.search.BaseEstimator", "not a learnsim class"),  # imported into learnsim
    ("learnsim.persistence.ModelFormatError", "no _from_state"),
    ("learnsim.no_such_module.Thing", "unknown class"),
    ("learnsim.persistence.NoSuchClass", "unknown class"),
    ("learnsim.persistence._ExampleState; import os", "only learnsim classes"),
    ("__import__('os').system", "only learnsim classes"),
])
def test_disallowed_or_unknown_class(saved, class_path, message, monkeypatch):
    rewrite(saved, edit_manifest=lambda m: m["objects"]["model"].update({"class": class_path}))
    monkeypatch.setattr(os, "system", lambda *a: pytest.fail("os.system called"))
    with pytest.raises(ModelFormatError, match=message):
        load(saved)


# --- refused saves ----------------------------------------------------------------------------

def test_unfitted_estimator_refused(tmp_path):
    with pytest.raises(NotFittedError):
        save(ExactIndex(), tmp_path / "m.npz")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("obj", [object(), np.arange(3), {"a": 1}, pickle])
def test_non_learnsim_objects_refused(tmp_path, obj):
    with pytest.raises(TypeError, match="only learnsim classes"):
        save(obj, tmp_path / "m.npz")


def test_bad_arrays_and_meta_refused(tmp_path):
    path = tmp_path / "m.npz"
    with pytest.raises(TypeError, match="array 'x' of 'model' has dtype object"):
        save(_ExampleState({}, {"x": np.array([None, 1], dtype=object)}), path)
    with pytest.raises(TypeError, match="array 'x' of 'model' is a list"):
        save(_ExampleState({}, {"x": [1, 2]}), path)
    with pytest.raises(TypeError, match="not JSON-serialisable"):
        save(_ExampleState({"f": lambda: 0}), path)
    with pytest.raises(ValueError, match="array name of 'model' 'a/b' is not allowed"):
        save(_ExampleState({}, {"a/b": np.zeros(1)}), path)
    with pytest.raises(ValueError, match="object name '../evil' is not allowed"):
        save({"../evil": _ExampleState()}, path)
    with pytest.raises(ValueError, match="empty"):
        save({}, path)
    assert not path.exists()


@pytest.mark.parametrize("field_offset, name", [(14, "crc"), (18, "compressed size"), (30, "file name")])
def test_damaged_local_zip_header_is_refused(tmp_path, field_offset, name):
    # zipfile itself only reads the central directory; a damaged local header must still be caught
    path = save(example(), tmp_path / "m.npz")
    with zipfile.ZipFile(path) as zf:
        offset = zf.infolist()[1].header_offset
    raw = bytearray(path.read_bytes())
    raw[offset + field_offset] ^= 0x5A
    path.write_bytes(bytes(raw))
    with pytest.raises(ModelFormatError, match="corrupted|not a readable"):
        load(path)


def test_damaged_zip64_size_in_local_header_is_refused(tmp_path):
    # numpy writes zip64 entries: the real sizes live in the local header's extra field
    path = save(example(), tmp_path / "m.npz")
    with zipfile.ZipFile(path) as zf:
        info = zf.infolist()[1]
    raw = bytearray(path.read_bytes())
    start = info.header_offset
    name_len, extra_len = struct.unpack_from("<HH", raw, start + 26)
    assert extra_len >= 20, "expected a zip64 extra field"
    raw[start + 30 + name_len + 4] ^= 0x01          # first byte of the 8-byte uncompressed size
    path.write_bytes(bytes(raw))
    with pytest.raises(ModelFormatError, match="corrupted"):
        load(path)


# --- a search rule that mixes normalised BM25 in (issue 42) -----------------------------------

@pytest.fixture
def bm25_model(tmp_path):
    """(the file, the Pipeline) of FILM over term vectors with normalised BM25 mixed into its search."""
    from bm25_models import mixed

    p, path = mixed("term_film", 0.4), tmp_path / "bm25.npz"
    p.save(path)
    return path, p


def test_a_bm25_mix_round_trips(bm25_model):
    from bm25_models import QUERIES, collection

    path, p = bm25_model
    parts = load(path)
    assert parts["search"].lexical_kind == "bm25" and parts["lexical"].weighting == "tf"
    back = learnsim.Pipeline.load(path)
    assert back.scoring == p.scoring == "hybrid (0.4 x BM25 + 0.6 x cosine in the learned space)"
    assert back.search(QUERIES, collection(), k=4) == p.search(QUERIES, collection(), k=4)


@pytest.mark.parametrize("edit, message", [
    (lambda m: m["objects"]["search"]["meta"].update(lexical_kind="bm42"), "lexical_kind must be one of"),
    (lambda m: m["objects"]["search"]["meta"].update(lexical_kind=None), "lexical_kind must be one of"),
    (lambda m: m["objects"]["search"]["meta"].update(lexical_weight=1.5), r"lexical_weight must be a number in \[0, 1\]"),
    (lambda m: m["objects"]["search"]["meta"].update(lexical_weight=-0.2), r"lexical_weight must be a number in \[0, 1\]"),
])
def test_a_damaged_bm25_rule_is_refused_naming_it(bm25_model, edit, message):
    path, _ = bm25_model
    rewrite(path, edit_manifest=edit)
    with pytest.raises(ModelFormatError, match=message):
        learnsim.Pipeline.load(path)


def test_a_bm25_rule_without_its_lexical_part_is_refused(bm25_model):
    path, _ = bm25_model

    def drop(entries):
        for key in [k for k in entries if k.startswith("lexical/")]:
            del entries[key]

    rewrite(path, edit_manifest=lambda m: m["objects"].pop("lexical"), edit_entries=drop)
    with pytest.raises(ValueError, match="mixes BM25 in.*give its vectoriser as lexical="):
        learnsim.Pipeline.load(path)


def test_a_rule_saved_before_the_lexical_kind_loads_as_tfidf(bm25_model):
    path, _ = bm25_model
    rewrite(path, edit_manifest=lambda m: m["objects"]["search"]["meta"].pop("lexical_kind"))
    rule = load(path, name="search")
    assert rule.lexical_kind == "tfidf" and rule.lexical_weight == 0.4
