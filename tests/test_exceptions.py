"""One module of error and warning types (issue 31, part 4): :mod:`learnsim.exceptions` defines
every documented one, each keeps its base classes and stays importable, as the same object, from
where learnsim 0.1 had it."""
import importlib
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

import learnsim.exceptions as exc

# name -> (bases, the 0.1 paths that still import it)
TABLE = {
    "ModelFormatError": ((ValueError,), ["learnsim.persistence"]),
    "ANNFormatError": ((exc.ModelFormatError,), ["learnsim.ann", "learnsim.ann._base"]),
    "UnknownIdError": ((KeyError, ValueError), ["learnsim.ann", "learnsim.ann._base"]),
    "DocumentFormatError": ((ValueError,), ["learnsim.io", "learnsim.datasets", "learnsim.datasets.documents",
                                            "learnsim.datasets._decode"]),
    "IndexFormatError": ((ValueError,), ["learnsim.index", "learnsim.index.core", "learnsim.index._segments",
                                         "learnsim.distributed.search"]),
    "IndexDamagedError": ((exc.IndexFormatError,), ["learnsim.index", "learnsim.index.core",
                                                    "learnsim.index._segments"]),
    "IndexChangingError": ((RuntimeError,), []),             # new (issue 45): a read that saw two versions
    "IndexBusyError": ((exc.IndexChangingError,), []),      # new (stop 68): another writer's lock past the wait
    "FilterError": ((ValueError, TypeError), ["learnsim.index", "learnsim.index._store"]),
    "ParameterTypeError": ((TypeError, ValueError), []),       # new in 0.2 (learnsim._utils.params raises it)
    "UsageError": ((Exception,), ["learnsim.cli", "learnsim.cli._common"]),
    "UndecodableBytesWarning": ((UserWarning,), ["learnsim.io", "learnsim.datasets", "learnsim.datasets._decode"]),
    "CollectionShiftWarning": ((UserWarning,), ["learnsim.linklearn", "learnsim.linklearn._linklearn"]),
    "BaselineWarning": ((UserWarning,), ["learnsim.baseline"]),
    "AnnFallbackWarning": ((UserWarning,), ["learnsim.index._ann"]),
}


def test_the_table_lists_every_exported_name():
    assert sorted(exc.__all__) == sorted(TABLE)
    defined = {name for name, value in vars(exc).items() if isinstance(value, type) and issubclass(value, Exception)}
    assert defined == set(exc.__all__)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_defined_here_with_its_bases_and_a_docstring(name):
    cls = getattr(exc, name)
    bases, _ = TABLE[name]
    assert cls.__module__ == "learnsim.exceptions"
    assert cls.__bases__ == bases
    assert cls.__doc__ and cls.__doc__.strip()


@pytest.mark.parametrize("name,path", [(n, p) for n in sorted(TABLE) for p in TABLE[n][1]])
def test_importable_from_its_old_path_as_the_same_object(name, path):
    assert getattr(importlib.import_module(path), name) is getattr(exc, name)


def test_importing_it_loads_no_numpy():
    code = "import sys, learnsim.exceptions; print(sorted(m for m in ('numpy', 'scipy', 'sklearn') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ------------------------------------------------------------------ raised where it is documented
def test_a_damaged_model_file_raises_model_format_error(tmp_path):
    import learnsim

    path = tmp_path / "model.npz"
    path.write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(exc.ModelFormatError, match="not a learnsim model file"):
        learnsim.load(path)


def test_a_bad_ann_directory_raises_ann_format_error(tmp_path):
    from learnsim.ann import load_ann

    (tmp_path / "meta.json").write_text("{}")
    with pytest.raises(exc.ANNFormatError, match="expected 'learnsim-ann'"):
        load_ann(tmp_path)


def test_unknown_id_error_is_a_key_error_with_a_plain_message():
    err = exc.UnknownIdError("ids not in the index: [7]")
    assert str(err) == "ids not in the index: [7]"
    with pytest.raises(KeyError):
        raise err


def test_a_document_of_the_wrong_kind_raises_document_format_error(tmp_path):
    from learnsim.io import read_documents

    path = tmp_path / "docs.jsonl"
    path.write_text('{"text": 1}\n')
    with pytest.raises(exc.DocumentFormatError, match="line 1"):
        read_documents(path)


def test_undecodable_bytes_warn(tmp_path):
    from learnsim.io import read_documents

    path = tmp_path / "docs.txt"
    path.write_bytes(b"ok\n\xff\xfe bad\n")
    with pytest.warns(exc.UndecodableBytesWarning, match="line 2"):
        read_documents(path)


def test_index_format_and_damaged_errors(tmp_path):
    from learnsim.index import open_index

    (tmp_path / "manifest.json").write_text('{"format": "nope"}')
    with pytest.raises(exc.IndexFormatError, match="not a learnsim index manifest"):
        open_index(tmp_path)
    (tmp_path / "manifest.json").write_bytes(b"\x00garbage")
    with pytest.raises(exc.IndexDamagedError, match="is damaged") as info:
        open_index(tmp_path)
    assert info.value.path.endswith("manifest.json")
    again = pickle.loads(pickle.dumps(info.value))       # a process pool passes it back
    assert (type(again), again.path, again.problem) == (exc.IndexDamagedError, info.value.path, info.value.problem)


def test_a_bad_filter_raises_filter_error():
    from learnsim.index._store import check_filter

    with pytest.raises(exc.FilterError, match="filter value of 'a'"):
        check_filter({"a": {"b": 1}})


def test_a_folder_given_as_output_file_raises_usage_error(tmp_path):
    from learnsim.cli._common import _check_output_file

    with pytest.raises(exc.UsageError, match="is a folder"):
        _check_output_file(tmp_path, "--out")


def test_a_model_that_does_not_beat_its_baseline_warns():
    from learnsim.film import FILM

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 30))
    # triplets ordered by the input cosine: nothing to learn beyond it
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    S = Xn @ Xn.T
    np.fill_diagonal(S, -np.inf)
    order = np.argsort(-S, axis=1)
    T = np.array([[i, order[i, 0], order[i, -2]] for i in range(len(X))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("always", exc.BaselineWarning)
        with pytest.warns(exc.BaselineWarning):
            FILM(n_components=1, random_state=0).fit(X, T)
